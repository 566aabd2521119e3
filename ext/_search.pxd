# Alpha-beta search over the order tree (RULINGS C8 = Point-Buy Chess): the node loop, the
# transposition table and the evaluation run in C; engine/search/alphabeta.py drives iterative
# deepening, limits, multi-PV and reporting.
from libc.stdint cimport uint64_t, uint32_t, int32_t, int16_t, uint8_t
from engine._tables cimport Rules, MAX_TYPES
from engine._board cimport Board

cdef extern from *:
    # A flag written by one thread (request_stop) and read by the search loop in another.
    ctypedef int volatile_flag "volatile int"

cdef enum:
    MAX_PLY = 64
    SEARCH_CAPACITY = 4096      # orders kept per ply (more is reported as an error)
    MATE = 1000000              # a Sovereign-loss score; mate in n plies is +-(MATE - n)
    INF = 2000000

cdef enum:
    TT_EXACT = 1
    TT_LOWER = 2                # score is at least the stored value (a beta cut-off)
    TT_UPPER = 3                # score is at most the stored value (no move raised alpha)

ctypedef struct TTEntry:
    uint64_t key
    uint32_t move
    int32_t score
    int16_t depth
    uint8_t flag

# Evaluation weights (engine/data/eval.toml; material is the Point-Buy price list of units.toml).
ctypedef struct Weights:
    int32_t value[MAX_TYPES]        # per unit on the board, in centi-points
    int32_t barracks_percent        # a Barracks unit counts this % of its value
    int32_t mobility                # per order more than the opponent has
    int32_t sovereign_attacked      # per own Sovereign an enemy could capture now
    int32_t extra_sovereign         # per Sovereign beyond the first
