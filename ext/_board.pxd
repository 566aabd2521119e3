# Memory layout of a position (RULINGS A2) and the one function that changes it.
# Positions are copied, never unmade: a Board is a plain struct (about 0.9 KB), so search and perft
# keep a stack of them and copy-make (no undo bugs, cheap on 2 cores).
from libc.stdint cimport uint64_t, int8_t, int16_t, int32_t, uint32_t
from engine._tables cimport bb_t, Rules, MAX_TYPES

# Per-unit status (RULINGS A3 `status:` field). Each is a set of squares that moves with its unit.
cdef enum:
    ST_ORDERED = 0              # already ordered this turn (6.0): no further order
    ST_BANNED = 1               # may not be ordered by its owner (False Orders)
    ST_IMMUNE_BLUE = 2          # cannot be captured until Blue's next turn starts (C6)
    ST_IMMUNE_YELLOW = 3        # cannot be captured until Yellow's next turn starts
    ST_MOURNED = 4              # next to a unit Mourning captured (C16, C20), either side: no effect
                                # now; at the turn change the game makes it ST_ORDERED for the next
                                # turn (engine/crown/toolkit.py end_turn_flags)
    N_STATUS = 5

ctypedef struct Board:
    bb_t by_colour[2]           # squares of each side's units
    bb_t occupied
    bb_t by_type[MAX_TYPES]     # squares of each unit type (both colours)
    bb_t status[N_STATUS]       # ST_* flags
    bb_t guarded[2]             # squares on which that colour's units cannot be captured, by any kind
                                # of capture (a rule of the game, not of the position: The Last
                                # Stand's C13 guards Blue's first rank). Constant for a game, so it is
                                # not part of the Zobrist key: set it before orders are generated or
                                # searched (Position trusts orders and search tables by key). Copied
                                # with the board; BoardCore.setup keeps it.
    int8_t square_type[64]      # unit type on each square, -1 when empty
    int16_t barracks[2][MAX_TYPES]
    int16_t stock[MAX_TYPES]    # the shared Stock (A2)
    uint64_t promote_types      # bit t: a Foot unit may promote to type t (B18)
    int32_t side                # BLUE or YELLOW to move
    int32_t halfmove            # turns since the last capture, deploy or training (C3)
    int32_t clock_reset         # the current turn captured, deployed or trained: end_turn zeroes halfmove
    int32_t fullmove            # starts at 1, grows after Yellow's turn
    int32_t won_on_x            # 1: the side that just moved has won by marching a wins-on-X unit onto
                                # the other side's X (RULINGS H8b); the game is over, no orders
    uint64_t key                # Zobrist key of all of the above but the clocks and `guarded`
    uint64_t foot_types         # bit t: type t is Foot (Rules.foot_types). Like `guarded`, a rule of
                                # the game copied into the board so that the primitives below, which
                                # take no Rules, keep `foot`; set by BoardCore, not part of the key
    bb_t foot                   # squares of the Foot units, both colours (the Foot structure: the
                                # search's correction history is indexed by it, as Stockfish's by
                                # its pawn key); kept by put_unit, remove_unit and a promotion

# Order encoding: one uint32.
#   bits 0-5 destination (deploy square, Oracle target, Spy partner), 6-11 origin,
#   12-17 unit type ordered, 18-23 promotion type + 1 (0 = none), 24-26 kind
cdef enum:
    KIND_MARCH = 0
    KIND_ATTACK = 1
    KIND_DEPLOY = 2
    KIND_SHOOT = 3              # capture without moving (Oracle)
    KIND_SWAP = 4               # Spy march: swap with a friendly unit

cdef inline uint32_t encode_order(int kind, int origin, int dest, int unit, int promo) noexcept nogil:
    return <uint32_t> (dest | (origin << 6) | (unit << 12) | ((promo + 1) << 18) | (kind << 24))

cdef inline int order_dest(uint32_t m) noexcept nogil:
    return m & 63
cdef inline int order_origin(uint32_t m) noexcept nogil:
    return (m >> 6) & 63
cdef inline int order_unit(uint32_t m) noexcept nogil:
    return (m >> 12) & 63
cdef inline int order_promo(uint32_t m) noexcept nogil:
    return <int> ((m >> 18) & 63) - 1
cdef inline int order_kind(uint32_t m) noexcept nogil:
    return (m >> 24) & 7

# The units of the types in `types` (a bit per type), both colours.
cdef inline bb_t units_of_types(const Board* b, uint64_t types) noexcept nogil:
    cdef bb_t bits = 0
    cdef int t = 0
    while types:
        if types & 1:
            bits |= b.by_type[t]
        types >>= 1
        t += 1
    return bits

# The units of `colour` that a capture may remove now: not immune (ST_IMMUNE_*, C6) and not on a
# guarded square (C13). Every generator of captures and threat maps asks this.
cdef inline bb_t capturable_units(const Board* b, int colour) noexcept nogil:
    return b.by_colour[colour] & ~(b.status[ST_IMMUNE_BLUE] | b.status[ST_IMMUNE_YELLOW] | b.guarded[colour])

# make_order = apply_order + end_turn (perft, Point-Buy). The full game applies several orders and
# card effects within a turn with the primitives below; each keeps the Zobrist key up to date.
cdef void make_order(const Rules* rules, Board* b, uint32_t m) noexcept nogil
cdef void apply_order(const Rules* rules, Board* b, uint32_t m) noexcept nogil
cdef void end_turn(Board* b) noexcept nogil
cdef void remove_unit(Board* b, int sq, int t, int colour) noexcept nogil
cdef void capture_unit(const Rules* rules, Board* b, int sq) noexcept nogil
cdef void relocate_unit(Board* b, int origin, int dest, int colour) noexcept nogil
cdef void add_barracks(Board* b, int colour, int t, int delta) noexcept nogil
cdef void add_stock(Board* b, int t, int delta) noexcept nogil
cdef void set_status(Board* b, int sq, int flag, bint on) noexcept nogil
cdef void set_side(Board* b, int side) noexcept nogil
cdef uint64_t compute_key(const Rules* rules, const Board* b) noexcept nogil
cdef void put_unit(Board* b, int sq, int t, int colour) noexcept nogil
cdef int has_sovereign(const Rules* rules, const Board* b, int colour) noexcept nogil
