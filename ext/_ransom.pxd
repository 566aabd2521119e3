# King's Ransom perft in C (docs/kings-ransom.md, "Perft"): one position of the game as a plain
# struct, copy-made like the kernel's Board, and the turn's steps as nogil kernels. The rules are
# engine/ransom/position.py's (RansomPosition.turn_options, promotion_options, play_options,
# apply_turn, count_turns); tests/ransom/test_perft_kernel.py checks both count the same.
from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t
from engine._tables cimport bb_t, Rules, MAX_TYPES
from engine._board cimport Board
from engine._perft cimport PerftShared

cdef enum:
    RANSOM_MOVE_CAPACITY = 512  # orders one side may have on the arena (checked: overflow is an error)
    RANSOM_PLAYING = 0
    RANSOM_CHECKMATE = 1
    RANSOM_STALEMATE = 2

# One King's Ransom position (about 1.2 KB; copied, never unmade).
#   board      the arena on the kernel's Board (engine._board): units, side to move. Between turns
#              board.status[ST_BANNED] == face_down and board.status[ST_ORDERED] == 0 (as
#              RansomPosition._sync_flags keeps them). The Zobrist key is not kept up to date for
#              these flags (perft never reads it); the Stock counts nothing (a capture's +1 is undone,
#              as RansomPosition.move does).
#   face_down  squares of the cards lying face down (either side)
#   hand       hand[side][type]: cards of that type in the side's Hand
#   discard    discard[side][type]: cards of that type in the side's Discard pile
# Decks, the no-capture count and the turn number are left out: perft (G8) reads none of them.
ctypedef struct RansomBoard:
    Board board
    bb_t face_down
    int16_t hand[2][MAX_TYPES]
    int16_t discard[2][MAX_TYPES]

# What perft needs of engine.ransom.rules.RansomRules, constant for a run.
ctypedef struct RansomRulesC:
    const Rules* rules          # the kernel tables of the King's Ransom catalog
    int32_t n_types
    int32_t king_type
    int32_t pawn_type
    bb_t halves[2]              # each side's own half (G1)
    bb_t back_rows[2]           # each side's back row (a Pawn of the other side promotes there, G5)

# The flip and move steps of the side to move (RansomPosition.turn_options, in C).
#   status     RANSOM_PLAYING, RANSOM_CHECKMATE or RANSOM_STALEMATE (no flip allows a move, G7, G9);
#              the moves below are read only when PLAYING
#   own_down   the side's face-down cards (the possible flips); 0: nothing to flip
#   moves      the legal moves, n of them: an order whose origin is in own_down is a move of the card
#              flipped there (it belongs to that flip only); any other belongs to every flip
#   n_base     how many of the moves do not start on own_down
ctypedef struct RansomOptions:
    int32_t status
    bb_t own_down
    int32_t n
    int32_t n_base
    uint32_t moves[RANSOM_MOVE_CAPACITY]

# Fills `out`; returns its status, or -1 when the side had more than RANSOM_MOVE_CAPACITY orders.
cdef int ransom_options(const RansomRulesC* c, RansomBoard* p, RansomOptions* out) noexcept nogil
# The steps of one turn, in the order they are played (flip, move, promote, play, end_turn).
cdef void ransom_flip(RansomBoard* p, int sq) noexcept nogil
# Returns the captured type, or -1 (the victim goes to its owner's Discard pile, face up).
cdef int ransom_move(const RansomRulesC* c, RansomBoard* p, uint32_t m) noexcept nogil
cdef void ransom_promote(const RansomRulesC* c, RansomBoard* p, int sq, int t) noexcept nogil
# sq < 0: discard the card from the Hand
cdef void ransom_play(RansomBoard* p, int t, int sq) noexcept nogil
cdef void ransom_end_turn(RansomBoard* p) noexcept nogil
# The number of complete turns of the side to move (RansomPosition.count_turns), PERFT_OVERFLOW.
cdef uint64_t ransom_count_turns(const RansomRulesC* c, RansomBoard* p) noexcept nogil
# Sequences of `depth` complete turns; PERFT_OVERFLOW or PERFT_STOPPED as engine._perft's perft.
# Adds its leaves to shared.nodes (every PERFT_FLUSH leaves and at the end).
cdef uint64_t ransom_perft_c(const RansomRulesC* c, const RansomBoard* root, int depth,
                             PerftShared* shared) noexcept nogil
