# The Python face of one Board: a stack of copies for push/pop (copy-make), built on RuleTables.
from libc.stdint cimport uint32_t
from engine._tables cimport RuleTables, Rules, bb_t
from engine._board cimport Board

cdef class BoardCore:
    cdef Board* stack           # stack[0..depth]; stack[depth] is the current position
    cdef int depth
    cdef int capacity
    cdef readonly RuleTables tables
    cdef Board* top(self) noexcept nogil
    # generate() (tactical False) or generate_tactical() (True) as a Python list.
    cdef list _order_list(self, bint cylindrical, bint over_without_sovereign, bint tactical)

# Threat maps of some units only (King's Ransom G6: face-up cards give check, face-down ones do not):
# the squares of `targets` that a unit of `colour` on `units` could capture on (stop_at_first: as
# soon as one is found); and the squares of `colour`'s Sovereigns. engine._ransom uses both.
cdef bb_t _attack_set(const Rules* rules, const Board* b, int colour, bb_t units, bb_t targets,
                      bint cyl, bint stop_at_first) noexcept nogil
cdef bb_t _sovereigns(const Rules* rules, const Board* b, int colour) noexcept nogil
