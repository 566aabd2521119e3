# Memory layout of the rule tables: everything the kernels know about geometry and unit types.
# Built once per catalog by engine._tables.RuleTables from the compiled movement specs
# (engine/movespec.py); read-only afterwards, shared by every position that uses the catalog.
from libc.stdint cimport uint64_t, int8_t, uint8_t, int32_t, uint32_t

ctypedef uint64_t bb_t          # a set of squares, bit i = square i (a1 = 0, h1 = 7, a8 = 56)

cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long) nogil
    int lsb "__builtin_ctzll"(unsigned long long) nogil

cdef enum:
    BLUE = 0
    YELLOW = 1
    MAX_TYPES = 40              # unit types a catalog may define (the game has 34)
    MAX_RIDES = 48              # rides of one unit type (a Queen has 8, a Banshee 12)
    MAX_DIRS = 64               # distinct ride directions over the whole catalog
    RAY_LEN = 8                 # squares of a ray, -1 terminated (a ray never exceeds 7: B17)

# Mode bits of rides and patterns (same values as engine/movespec.py).
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
    N_PATTERNS = 6

ctypedef struct Ride:
    int8_t dir                  # index into Geometry.dirs
    int8_t lo                   # first distance that may be a destination (nearer squares must be empty)
    int8_t hi                   # last distance
    uint8_t modes               # MODE_* bits

ctypedef struct UnitProgram:
    bb_t leap_march[2][2][64]   # [cylindrical][colour][from]: plain leaps usable to march
    bb_t leap_capture[2][2][64] # [cylindrical][colour][from]: plain leaps usable to capture
    Ride rides[2][MAX_RIDES]    # [colour]: directions already turned for Yellow
    int32_t n_rides
    uint8_t pattern_modes[N_PATTERNS]   # 0 = pattern unused, else MODE_MARCH | MODE_CAPTURE
    uint8_t has_patterns
    int8_t charge_range
    uint8_t foot                # promotes on the owner's eighth rank (6.0)
    uint8_t sovereign           # counts for the win condition (10.0)
    uint8_t cylindrical         # always moves cylindrically (16.0)
    uint8_t to_barracks         # goes to its owner's Barracks when captured (Immortal, 12.0)

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
    bb_t rank_mask[8]                   # squares of each absolute rank

ctypedef struct Rules:
    Geometry geo
    UnitProgram units[MAX_TYPES]
    int32_t n_types
    uint64_t foot_types                 # bit t: type t is Foot
    int32_t n_sovereign_types
    int8_t sovereign_types[MAX_TYPES]

cdef class RuleTables:
    cdef Rules* rules
    cdef readonly object catalog        # the engine.catalog.Catalog these tables were built from
