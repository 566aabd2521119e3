# perft (RULINGS C8): the number of order sequences of a given length, counted entirely in C.
from libc.stdint cimport uint64_t
from engine._tables cimport Rules
from engine._board cimport Board

cdef enum:
    ORDER_CAPACITY = 8192       # orders one position may have (checked: overflow is an error)

# Returns the count, or (uint64_t)-1 when some position had more than ORDER_CAPACITY orders.
cdef uint64_t perft(const Rules* rules, const Board* root, int depth, bint cyl_all) noexcept nogil
