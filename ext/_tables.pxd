# Memory layout of the rule tables: everything the kernels know about geometry and unit types.
# Built once per catalog by engine._tables.RuleTables from the compiled movement specs
# (engine/movespec.py); read-only afterwards, shared by every position that uses the catalog.
from libc.stdint cimport uint64_t, int8_t, uint8_t, int32_t, uint32_t

ctypedef uint64_t bb_t          # a set of squares, bit i = square i (a1 = 0, h1 = 7, a8 = 56); a
                                # smaller board (Geometry.files/ranks) keeps this numbering

cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long) nogil
    int lsb "__builtin_ctzll"(unsigned long long) nogil

# Index of an occupancy in one square's block of Sliders.attacks. setup.py chooses the method
# (FTC_SLIDERS): PEXT (BMI2) gathers the mask's bits; otherwise a magic multiplication maps the
# masked occupancy onto the top `bits` bits. Both give 0 .. 2**bits - 1, so the layout is the same.
cdef extern from *:
    """
    #if defined(FTC_SLIDERS_PEXT) && defined(__BMI2__)
    #include <immintrin.h>
    #define FTC_PEXT 1
    static inline unsigned long long ftc_slider_index(unsigned long long occ, unsigned long long mask,
                                                      unsigned long long magic, unsigned int shift) {
        (void) magic; (void) shift;
        return _pext_u64(occ, mask);
    }
    #else
    #define FTC_PEXT 0
    static inline unsigned long long ftc_slider_index(unsigned long long occ, unsigned long long mask,
                                                      unsigned long long magic, unsigned int shift) {
        return ((occ & mask) * magic) >> shift;
    }
    #endif
    /* What the compiler was told the CPU has (reported by engine.BUILD_INFO). */
    #if defined(__POPCNT__)
    #define FTC_ISA_POPCNT 1
    #else
    #define FTC_ISA_POPCNT 0
    #endif
    #if defined(__BMI__)
    #define FTC_ISA_BMI1 1
    #else
    #define FTC_ISA_BMI1 0
    #endif
    #if defined(__BMI2__)
    #define FTC_ISA_BMI2 1
    #else
    #define FTC_ISA_BMI2 0
    #endif
    #if defined(__AVX2__)
    #define FTC_ISA_AVX2 1
    #else
    #define FTC_ISA_AVX2 0
    #endif
    #if defined(NDEBUG)
    #define FTC_NDEBUG 1
    #else
    #define FTC_NDEBUG 0
    #endif
    """
    unsigned long long slider_index "ftc_slider_index"(unsigned long long occ, unsigned long long mask,
                                                       unsigned long long magic, unsigned int shift) nogil
    const int FTC_PEXT
    const int FTC_ISA_POPCNT
    const int FTC_ISA_BMI1
    const int FTC_ISA_BMI2
    const int FTC_ISA_AVX2
    const int FTC_NDEBUG

cdef enum:
    BLUE = 0
    YELLOW = 1
    MAX_TYPES = 40              # unit types a catalog may define (the game has 34)
    MAX_RIDES = 48              # rides of one unit type (a Queen has 8, a Banshee 12)
    MAX_DIRS = 64               # distinct ride directions over the whole catalog
    RAY_LEN = 8                 # squares of a ray, -1 terminated (a ray never exceeds 7: B17)
    ROOK_ENTRIES = 102400       # sum over squares of 2**popcount(rook mask)
    BISHOP_ENTRIES = 5248       # sum over squares of 2**popcount(bishop mask)

# Mode bits of rides and patterns: the source of these numbers (exported as engine._tables.MODES;
# engine/movespec.py declares the same for its parser, checked by tests/test_codes.py).
cdef enum:
    MODE_MARCH = 1
    MODE_CAPTURE = 2
    MODE_SHOOT = 4              # capture without moving (Oracle, 12.0)
    MODE_INITIAL = 8            # only from the owner's first or second rank (Pawn, B1)

# Named patterns (RULINGS B9-B12, B15): index into UnitProgram.pattern_modes.
cdef enum:
    PAT_PHANTOM = 0
    PAT_WARLORD = 1
    PAT_GRYPHON = 2
    PAT_SPHINX = 3
    PAT_CHARGE = 4
    PAT_SWAP = 5
    PAT_FLIGHT = 6              # the Dragon's flight over a line of teammates (RULINGS H7)
    N_PATTERNS = 7

ctypedef struct Ride:
    int8_t dir                  # index into Geometry.dirs
    int8_t lo                   # first distance that may be a destination (nearer squares must be empty)
    int8_t hi                   # last distance
    uint8_t modes               # MODE_* bits

# Sliding attacks of the flat (non-cylindrical) full-length straight and diagonal rides: for a
# square and an occupancy, the squares a rook (bishop) ride reaches, the first unit met included.
# One instance per process, built on first use (engine._tables), read-only, shared by every Rules.
#   rook[sq], bishop[sq]: mask = the ray squares that can block (each ray's board-edge square left
#     out), shift = 64 - popcount(mask), magic = multiplier found at build time by a seeded search
#     (unused with PEXT), offset = start of the square's 2**popcount(mask) entries in attacks.
#   attacks: rook blocks for squares 0..63 (ROOK_ENTRIES), then bishop blocks (BISHOP_ENTRIES);
#     entry offset + slider_index(occupied, mask, magic, shift) = the attack set. About 860 KB.
ctypedef struct SliderEntry:
    bb_t mask
    bb_t magic
    uint32_t offset
    uint32_t shift

ctypedef struct Sliders:
    SliderEntry rook[64]
    SliderEntry bishop[64]
    bb_t attacks[ROOK_ENTRIES + BISHOP_ENTRIES]

cdef inline bb_t rook_attacks(const Sliders* s, int sq, bb_t occupied) noexcept nogil:
    cdef const SliderEntry* e = &s.rook[sq]
    return s.attacks[e.offset + slider_index(occupied, e.mask, e.magic, e.shift)]

cdef inline bb_t bishop_attacks(const Sliders* s, int sq, bb_t occupied) noexcept nogil:
    cdef const SliderEntry* e = &s.bishop[sq]
    return s.attacks[e.offset + slider_index(occupied, e.mask, e.magic, e.shift)]

ctypedef struct UnitProgram:
    bb_t leap_march[2][2][64]   # [cylindrical][colour][from]: plain leaps usable to march
    bb_t leap_capture[2][2][64] # [cylindrical][colour][from]: plain leaps usable to capture
    Ride rides[2][MAX_RIDES]    # [colour]: directions already turned for Yellow
    int32_t n_rides
    # On a flat 8x8 board, four straight (diagonal) rides with lo = 1, hi >= 7 and the same march /
    # capture modes are one rook (bishop) lookup in Sliders: slide_orth / slide_diag hold those
    # modes (0 = no such group; always 0 on any other board shape, whose rides are all walked). flat_rides are the rides left to walk on a flat board; on a
    # cylinder every ride in `rides` is walked.
    uint8_t slide_orth
    uint8_t slide_diag
    Ride flat_rides[2][MAX_RIDES]
    int32_t n_flat_rides
    uint8_t pattern_modes[N_PATTERNS]   # 0 = pattern unused, else MODE_MARCH | MODE_CAPTURE
    uint8_t has_patterns
    int8_t charge_range
    uint8_t foot                # promotes on the owner's last rank (6.0; rank 8 on 8x8)
    uint8_t sovereign           # counts for the win condition (10.0)
    uint8_t cylindrical         # always moves cylindrically (16.0)
    uint8_t to_barracks         # goes to its owner's Barracks when captured (Immortal, 12.0; a fallen
                                # piece, RULINGS H5)
    uint8_t gone                # leaves the game when captured (neither Stock nor Barracks: H5's Pawn)

ctypedef struct Geometry:
    int8_t dirs[MAX_DIRS][2]            # (dx, dy) of every ride direction
    int32_t n_dirs
    int8_t ray[2][MAX_DIRS][64][RAY_LEN]  # [cylindrical][dir][from]: squares in order, -1 terminated
    bb_t king[2][64]                    # [cylindrical][from]: one King step
    bb_t knight[2][64]                  # [cylindrical][from]: one (1,2) leap
    int8_t orth[4]                      # dir indices of the four straight unit steps
    int8_t diag[4]                      # dir indices of the four diagonal unit steps
    int8_t gryphon_ride[4][2]           # per diag[i]: the two straight directions at 45 degrees, outward
    int8_t sphinx_ride[4][2]            # per orth[i]: the two diagonal directions at 45 degrees, outward
    bb_t rank_mask[8]                   # squares of each absolute rank (ranks past the shape: empty)
    # The board's shape (engine.catalog.BoardShape): files x ranks squares in the corner of the
    # 8-wide numbering. Every table above is built for it: rays, steps and leaps never leave `board`
    # (a cylinder wraps modulo `files`), so the kernels never test the shape themselves. The last
    # rank of Blue (colour 0) is ranks - 1; Yellow's is 0.
    int32_t files
    int32_t ranks
    bb_t board                          # the squares of the board
    # Per colour, baked for the shape so the generator needs no arithmetic on ranks:
    bb_t home_rank[2]                   # its first rank (Blue: rank 1; Yellow: the last rank)
    bb_t home_ranks[2]                  # its first two ranks (MODE_INITIAL; Foot deploys, B19)
    bb_t last_rank[2]                   # the rank where its Foot units promote (the other's first)
    # Levels (RULINGS H1, H3): each square's height, 0 everywhere on a flat board (has_heights 0).
    # On a board with heights every movement obeys the level rules: leap and step tables are
    # filtered when they are built (at most one level up or down, H3, H4), rides are walked square
    # by square and stop on the first level change (no slider lookups), except a named pattern that
    # ignores levels (the flight, H7).
    uint8_t has_heights
    int8_t height[64]
    bb_t x_square[2]                    # each colour's X (RULINGS H1); 0 when the board has none
    bb_t lines[64]                      # the squares of the eight flat rays from each square (the
                                        # squares whose leaving can expose a King there: Rules.line_discoveries)
    bb_t initial[2]                     # squares a MODE_INITIAL ride may start from: home_ranks
                                        # minus the raised squares (no double step inside a castle, H5)

ctypedef struct Rules:
    Geometry geo
    const Sliders* sliders              # the process-wide slider tables
    UnitProgram units[MAX_TYPES]
    int32_t n_types
    uint64_t foot_types                 # bit t: type t is Foot
    int32_t n_sovereign_types
    int8_t sovereign_types[MAX_TYPES]
    # Rule switches of the catalog's [rules] table (engine.catalog.CatalogRules); 0 is For the Crown's.
    uint8_t promote_fallen              # Foot promotion: the owner's Barracks or keep (H5), not the Stock
    uint8_t no_deploys                  # Barracks units are never deployed (B19 off)
    uint8_t chess_legality              # generate_orders gives only orders that leave one's Sovereign
                                        # not capturable (H8a)
    uint8_t foot_resets_clock           # a Foot unit's order resets the halfmove clock (H8c)
    uint64_t sovereign_prey_types       # bit t: only a Sovereign may capture type t (Flag Bearer, H6)
    uint64_t x_winner_types             # bit t: a march of type t onto the other colour's X wins (H8b)
    uint8_t line_discoveries            # no unit is cylindrical or has a named pattern but (flight): a
                                        # King not attacked can only be exposed along its eight lines
    uint8_t special                     # a board with levels, some sovereign_prey_types or
                                        # x_winner_types, or any switch above on: the generator and
                                        # apply_order take their general path (_movegen.pyx Path)

cdef class RuleTables:
    cdef Rules* rules
    cdef readonly object catalog        # the engine.catalog.Catalog these tables were built from
