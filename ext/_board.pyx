"""Making an order on a Board (copy-make), and Zobrist keys.

A Board is changed only here, so its Zobrist key is kept up to date incrementally in one place;
compute_key recomputes it from scratch (tests check the two agree after random orders).
"""
from libc.stdint cimport uint64_t

from libc.stdint cimport int8_t
from engine._tables cimport Rules, MAX_TYPES, BLUE, YELLOW, PAT_CHARGE, lsb

cdef enum:
    KEY_COUNTS = 32             # counts above this share keys (a hash, not an identity)

cdef uint64_t KEY_UNIT[2][MAX_TYPES][64]
cdef uint64_t KEY_BARRACKS[2][MAX_TYPES][KEY_COUNTS]
cdef uint64_t KEY_STOCK[MAX_TYPES][KEY_COUNTS]
cdef uint64_t KEY_STATUS[N_STATUS][64]
cdef uint64_t KEY_SIDE
cdef uint64_t KEY_PROMOTE[MAX_TYPES]
cdef uint64_t KEY_WON_ON_X


cdef uint64_t _splitmix(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void _init_keys() noexcept nogil:
    global KEY_SIDE, KEY_WON_ON_X
    cdef uint64_t state = 0x46544321  # fixed: keys are the same in every run and process
    cdef int c, t, s, n
    for c in range(2):
        for t in range(MAX_TYPES):
            for s in range(64):
                KEY_UNIT[c][t][s] = _splitmix(&state)
            for n in range(KEY_COUNTS):
                KEY_BARRACKS[c][t][n] = _splitmix(&state)
    for t in range(MAX_TYPES):
        for n in range(KEY_COUNTS):
            KEY_STOCK[t][n] = _splitmix(&state)
        KEY_PROMOTE[t] = _splitmix(&state)
    for n in range(N_STATUS):
        for s in range(64):
            KEY_STATUS[n][s] = _splitmix(&state)
    KEY_SIDE = _splitmix(&state)
    KEY_WON_ON_X = _splitmix(&state)    # drawn last: every key above is as it was before it existed

_init_keys()


cdef inline uint64_t _count_key_barracks(int c, int t, int n) noexcept nogil:
    return KEY_BARRACKS[c][t][n % KEY_COUNTS] if n else 0

cdef inline uint64_t _count_key_stock(int t, int n) noexcept nogil:
    return KEY_STOCK[t][n % KEY_COUNTS] if n else 0


cdef uint64_t compute_key(const Rules* rules, const Board* b) noexcept nogil:
    cdef uint64_t key = 0
    cdef int sq, t, c, n
    cdef bb_t bits
    for sq in range(64):
        t = b.square_type[sq]
        if t >= 0:
            c = BLUE if (b.by_colour[BLUE] >> sq) & 1 else YELLOW
            key ^= KEY_UNIT[c][t][sq]
    for t in range(rules.n_types):
        key ^= _count_key_barracks(BLUE, t, b.barracks[BLUE][t])
        key ^= _count_key_barracks(YELLOW, t, b.barracks[YELLOW][t])
        key ^= _count_key_stock(t, b.stock[t])
        if (b.promote_types >> t) & 1:
            key ^= KEY_PROMOTE[t]
    for n in range(N_STATUS):
        bits = b.status[n]
        while bits:
            sq = lsb(bits)
            bits &= bits - 1
            key ^= KEY_STATUS[n][sq]
    if b.side == YELLOW:
        key ^= KEY_SIDE
    if b.won_on_x:
        key ^= KEY_WON_ON_X
    return key


cdef inline bb_t _if_foot(const Board* b, int t, bb_t bit) noexcept nogil:
    """``bit`` if type ``t`` is Foot in ``b``'s game, else 0 (Board.foot)."""
    return bit & (<bb_t> 0 - ((b.foot_types >> t) & 1))


cdef void put_unit(Board* b, int sq, int t, int colour) noexcept nogil:
    cdef bb_t bit = (<bb_t> 1) << sq
    b.square_type[sq] = t
    b.by_type[t] |= bit
    b.foot |= _if_foot(b, t, bit)
    b.by_colour[colour] |= bit
    b.occupied |= bit
    b.key ^= KEY_UNIT[colour][t][sq]


cdef void remove_unit(Board* b, int sq, int t, int colour) noexcept nogil:
    cdef bb_t bit = (<bb_t> 1) << sq
    cdef int n
    b.square_type[sq] = -1
    b.by_type[t] &= ~bit
    b.foot &= ~_if_foot(b, t, bit)
    b.by_colour[colour] &= ~bit
    b.occupied &= ~bit
    b.key ^= KEY_UNIT[colour][t][sq]
    for n in range(N_STATUS):
        if b.status[n] & bit:
            b.status[n] &= ~bit
            b.key ^= KEY_STATUS[n][sq]


cdef void add_barracks(Board* b, int colour, int t, int delta) noexcept nogil:
    b.key ^= _count_key_barracks(colour, t, b.barracks[colour][t])
    b.barracks[colour][t] += delta
    b.key ^= _count_key_barracks(colour, t, b.barracks[colour][t])


cdef void add_stock(Board* b, int t, int delta) noexcept nogil:
    b.key ^= _count_key_stock(t, b.stock[t])
    b.stock[t] += delta
    b.key ^= _count_key_stock(t, b.stock[t])


cdef void capture_unit(const Rules* rules, Board* b, int sq) noexcept nogil:
    """Remove the unit on sq: to the Stock (6.0), to its owner's Barracks (Immortal, 12.0; a fallen
    piece, RULINGS H5), or out of the game (a Crusade Pawn, H5)."""
    cdef int t = b.square_type[sq]
    cdef int owner = BLUE if (b.by_colour[BLUE] >> sq) & 1 else YELLOW
    remove_unit(b, sq, t, owner)
    if rules.units[t].to_barracks:
        add_barracks(b, owner, t, 1)
    elif not rules.units[t].gone:
        add_stock(b, t, 1)


cdef void relocate_unit(Board* b, int origin, int dest, int colour) noexcept nogil:
    """Move the unit on origin to the empty square dest; its status flags travel with it."""
    cdef int t = b.square_type[origin]
    cdef bb_t from_bit = (<bb_t> 1) << origin
    cdef bb_t to_bit = (<bb_t> 1) << dest
    cdef int n
    cdef bb_t flags[N_STATUS]
    for n in range(N_STATUS):
        flags[n] = b.status[n] & from_bit
    remove_unit(b, origin, t, colour)
    put_unit(b, dest, t, colour)
    for n in range(N_STATUS):
        if flags[n]:
            b.status[n] |= to_bit
            b.key ^= KEY_STATUS[n][dest]


cdef void _charge_captures(const Rules* rules, Board* b, int origin, int dest) noexcept nogil:
    """Capture every enemy on the straight path origin -> dest (B12). Ranges are at most 3, so on a
    cylinder one direction alone reaches dest, and the cylindrical ray contains the flat one."""
    cdef int i, k, j, s
    cdef const int8_t* ray
    cdef bb_t enemies = b.by_colour[1 - b.side]
    for i in range(4):
        ray = rules.geo.ray[1][rules.geo.orth[i]][origin]
        for k in range(3):
            s = ray[k]
            if s < 0:
                break
            if s == dest:
                for j in range(k + 1):
                    s = ray[j]
                    if (enemies >> s) & 1:
                        capture_unit(rules, b, s)
                return


cdef void apply_order(const Rules* rules, Board* b, uint32_t m) noexcept nogil:
    """Play order m for the side to move without ending the turn (the full game issues several
    orders per turn; engine.crown marks ordered units)."""
    cdef int kind = order_kind(m)
    cdef int origin = order_origin(m)
    cdef int dest = order_dest(m)
    cdef int unit = order_unit(m)
    cdef int promo = order_promo(m)
    cdef int side = b.side
    cdef int other = 1 - side
    cdef int t2, n
    cdef bint reset_clock = False
    cdef bb_t bits

    if kind == KIND_MARCH:
        if origin != dest:      # a null march (B16) changes nothing on the board
            relocate_unit(b, origin, dest, side)
            if rules.special and (rules.x_winner_types >> unit) & 1 and (rules.geo.x_square[other] >> dest) & 1:
                b.won_on_x = 1  # H8b: the step onto the other side's X wins (an exchange does not)
                b.key ^= KEY_WON_ON_X
    elif kind == KIND_ATTACK:
        if rules.units[unit].pattern_modes[PAT_CHARGE]:
            _charge_captures(rules, b, origin, dest)
        else:
            capture_unit(rules, b, dest)
        relocate_unit(b, origin, dest, side)
        reset_clock = True
    elif kind == KIND_SHOOT:
        capture_unit(rules, b, dest)
        reset_clock = True
    elif kind == KIND_SWAP:
        t2 = b.square_type[dest]
        bits = 0
        for n in range(N_STATUS):   # remember both units' flags, then exchange them with the units
            if (b.status[n] >> origin) & 1:
                bits |= (<bb_t> 1) << n
            if (b.status[n] >> dest) & 1:
                bits |= (<bb_t> 1) << (n + 8)
        remove_unit(b, origin, unit, side)
        remove_unit(b, dest, t2, side)
        put_unit(b, dest, unit, side)
        put_unit(b, origin, t2, side)
        for n in range(N_STATUS):
            if (bits >> n) & 1:
                b.status[n] |= (<bb_t> 1) << dest
                b.key ^= KEY_STATUS[n][dest]
            if (bits >> (n + 8)) & 1:
                b.status[n] |= (<bb_t> 1) << origin
                b.key ^= KEY_STATUS[n][origin]
    else:  # KIND_DEPLOY
        add_barracks(b, side, unit, -1)
        put_unit(b, dest, unit, side)
        reset_clock = True

    if promo >= 0 and rules.promote_fallen:
        # H5: the Foot unit leaves the game; one fallen piece of the chosen type comes back there.
        remove_unit(b, dest, unit, side)
        put_unit(b, dest, promo, side)
        add_barracks(b, side, promo, -1)
    elif promo >= 0:
        # Morph (6.0): the new unit comes from the Stock, the promoted one goes back to it, and with
        # it its status (an immunity protected that unit, not the square).
        for n in range(N_STATUS):
            if (b.status[n] >> dest) & 1:
                b.status[n] &= ~((<bb_t> 1) << dest)
                b.key ^= KEY_STATUS[n][dest]
        b.key ^= KEY_UNIT[side][unit][dest]
        b.by_type[unit] &= ~((<bb_t> 1) << dest)
        b.by_type[promo] |= (<bb_t> 1) << dest
        b.foot = (b.foot & ~_if_foot(b, unit, (<bb_t> 1) << dest)) | _if_foot(b, promo, (<bb_t> 1) << dest)
        b.square_type[dest] = promo
        b.key ^= KEY_UNIT[side][promo][dest]
        add_stock(b, promo, -1)
        add_stock(b, unit, 1)

    if reset_clock or (rules.special and rules.foot_resets_clock and rules.units[unit].foot
                       and (kind == KIND_MARCH or kind == KIND_ATTACK)):
        b.clock_reset = 1


cdef void end_turn(Board* b) noexcept nogil:
    """End the turn of the side to move: "ordered this turn" expires for every unit; a False Orders
    ban lasts until the end of its owner's turn, so only the mover's bans expire; the
    other side's immunities end as its turn starts (C6). Clocks advance (C3)."""
    cdef int side = b.side
    cdef int other = 1 - side
    cdef int n, sq
    cdef bb_t bits
    for n in range(ST_BANNED + 1):     # ST_ORDERED and ST_BANNED
        bits = b.status[n] if n == ST_ORDERED else b.status[n] & b.by_colour[side]
        b.status[n] &= ~bits
        while bits:
            sq = lsb(bits)
            bits &= bits - 1
            b.key ^= KEY_STATUS[n][sq]
    n = ST_IMMUNE_BLUE if other == BLUE else ST_IMMUNE_YELLOW
    bits = b.status[n]
    b.status[n] = 0
    while bits:
        sq = lsb(bits)
        bits &= bits - 1
        b.key ^= KEY_STATUS[n][sq]
    b.halfmove = 0 if b.clock_reset else b.halfmove + 1
    b.clock_reset = 0
    if side == YELLOW:
        b.fullmove += 1
    b.side = other
    b.key ^= KEY_SIDE


cdef void make_order(const Rules* rules, Board* b, uint32_t m) noexcept nogil:
    """Play order m and end the turn: one order is one turn in the perft tree (C8)."""
    apply_order(rules, b, m)
    end_turn(b)


cdef void set_status(Board* b, int sq, int flag, bint on) noexcept nogil:
    cdef bb_t bit = (<bb_t> 1) << sq
    if ((b.status[flag] & bit) != 0) != on:
        b.status[flag] ^= bit
        b.key ^= KEY_STATUS[flag][sq]


cdef void set_side(Board* b, int side) noexcept nogil:
    if b.side != side:
        b.side = side
        b.key ^= KEY_SIDE


cdef int has_sovereign(const Rules* rules, const Board* b, int colour) noexcept nogil:
    cdef int i
    for i in range(rules.n_sovereign_types):
        if b.by_type[rules.sovereign_types[i]] & b.by_colour[colour]:
            return 1
    return 0
