# The learned board evaluation (NNUE) in the kernel: a net's weights in aligned memory, the two
# perspective accumulators of a board, their incremental update between two boards, and the output.
# engine/board/nnue.py defines the feature layout, the file format and a numpy forward pass that
# this kernel equals exactly (tests/search/test_nnue.py); docs/nnue.md describes them for people.
from libc.stdint cimport int16_t, int32_t, uint64_t
from engine._board cimport Board
from engine._tables cimport MAX_TYPES

cdef enum:
    NNUE_SLOTS = 4                          # Barracks units of a type with a feature (engine.board.nnue.BARRACKS_SLOTS)
    NNUE_BOARD = 2 * MAX_TYPES * 64         # board features: (rel * MAX_TYPES + type) * 64 + square
    NNUE_BARRACKS = NNUE_BOARD              # first Barracks feature
    NNUE_COMPASS = NNUE_BARRACKS + 2 * MAX_TYPES * NNUE_SLOTS
    NNUE_FEATURES = NNUE_COMPASS + 1
    NNUE_MAX_HIDDEN = 512
    NNUE_QA = 255
    NNUE_QB = 64
    NNUE_SCALE = 400
    NNUE_REFRESH_ABOVE = 16                 # an update of more feature changes than this refreshes instead

# A net: w1 [NNUE_FEATURES][hidden] and b1 [hidden] (scale QA), w2 [2 * hidden] (scale QB; the side
# to move's half first), b2 (scale QA * QB). The arrays are 64-byte aligned, owned by the Network.
ctypedef struct NnueNet:
    int hidden
    uint64_t untrained          # bit t: the net saw no training data with type t (such a board is
                                # judged by the classical evaluation instead)
    int16_t* w1
    int16_t* b1
    int16_t* w2
    int32_t b2

# The accumulators of one board: v[perspective][i] = b1[i] + sum of w1[f][i] over the perspective's
# active features. `key` is the Zobrist key of the board they were computed for (0: none), so a
# search stack entry is valid exactly while its board is the one it was made from.
ctypedef struct NnueAccumulator:
    int16_t v[2][NNUE_MAX_HIDDEN]
    uint64_t key
    bint cylindrical

cdef void nnue_refresh(const NnueNet* net, const Board* b, bint cylindrical, NnueAccumulator* acc) noexcept nogil
cdef void nnue_update(const NnueNet* net, const Board* parent, const NnueAccumulator* pacc, const Board* b,
                      bint cylindrical, NnueAccumulator* acc) noexcept nogil
cdef int32_t nnue_output(const NnueNet* net, const NnueAccumulator* acc, int side) noexcept nogil
cdef bint nnue_knows(const NnueNet* net, const Board* b) noexcept nogil

cdef class Network:
    cdef NnueNet net
    cdef void* memory
    cdef readonly str digest
    cdef readonly object tokens
    cdef readonly object untrained
