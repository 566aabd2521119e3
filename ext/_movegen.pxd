# Order generation kernels (RULINGS B, C8). One generator serves every unit type: it reads the unit's
# program (leap tables, rides, named patterns) from the Rules tables; no unit has a code path of its own.
from libc.stdint cimport uint32_t, uint64_t
from engine._tables cimport bb_t, Rules
from engine._board cimport Board

# Where the squares a unit can reach fall, for one unit on one square.
ctypedef struct Targets:
    bb_t march                  # empty destinations (and its own square for a null march, B16)
    bb_t capture                # destinations of moving captures (for a charge: where it stops)
    bb_t shoot                  # targets captured without moving (Oracle)
    bb_t swap                   # friendly units it may swap with (Spy)
    bb_t covered                # every square whose unit some capture of it would remove

cdef void unit_targets(const Rules* rules, const Board* b, int sq, int colour, bint cyl_all,
                       bb_t capturable, Targets* out) noexcept nogil

# Every order of the side to move into `orders` (at most `capacity`); returns how many, or -1 if
# `capacity` is too small. With orders == NULL it only counts them (bulk counting at perft leaves).
# With over_without_sovereign, a position where a side has no Sovereign has no orders (the perft
# tree, C8); the full game checks the win only at the end of a turn (10.0) and passes 0. A position
# won on an X (Board.won_on_x, RULINGS H8b) has none. Under chess legality (Rules.chess_legality,
# H8a) only the orders that leave the mover's Sovereign not capturable are given (counting then
# allocates a buffer: perft passes its own); -1 also when that allocation fails.
cdef long generate_orders(const Rules* rules, const Board* b, bint cyl_all, uint32_t* orders,
                          long capacity, bint over_without_sovereign=*) noexcept nogil

# The orders quiescence tries where the mover's Sovereign is not threatened: those of
# generate_orders(..., over_without_sovereign=True) that capture (attacks, shots) or promote, in
# the same order; under Rules.special (levels, X wins, chess legality: Crusade & Conquer) every
# order, as generate_orders gives them (the caller picks). `orders` must not be NULL (no counting).
cdef long generate_tactical(const Rules* rules, const Board* b, bint cyl_all, uint32_t* orders,
                            long capacity) noexcept nogil

# Squares whose units `colour` could capture now (its threat map, C7): immune units and units on
# the other colour's guarded squares are left out.
cdef bb_t capture_coverage(const Rules* rules, const Board* b, int colour, bint cyl_all) noexcept nogil
