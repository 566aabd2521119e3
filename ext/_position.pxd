# The Python face of one Board: a stack of copies for push/pop (copy-make), built on RuleTables.
from libc.stdint cimport uint32_t
from engine._tables cimport RuleTables
from engine._board cimport Board

cdef class BoardCore:
    cdef Board* stack           # stack[0..depth]; stack[depth] is the current position
    cdef int depth
    cdef int capacity
    cdef readonly RuleTables tables
    cdef Board* top(self) noexcept nogil
