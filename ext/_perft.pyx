"""perft with copy-make and bulk counting at the last ply; no Python object per node."""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from engine._board cimport make_order
from engine._movegen cimport generate_orders

cdef uint64_t OVERFLOW = <uint64_t> -1


cdef uint64_t _perft(const Rules* rules, Board* boards, uint32_t* orders, int depth,
                     bint cyl_all) noexcept nogil:
    cdef long n, i
    cdef uint64_t total = 0, sub
    if depth == 1:
        n = generate_orders(rules, boards, cyl_all, NULL, 0)
        return <uint64_t> n
    n = generate_orders(rules, boards, cyl_all, orders, ORDER_CAPACITY)
    if n < 0:
        return OVERFLOW
    for i in range(n):
        memcpy(boards + 1, boards, sizeof(Board))
        make_order(rules, boards + 1, orders[i])
        sub = _perft(rules, boards + 1, orders + ORDER_CAPACITY, depth - 1, cyl_all)
        if sub == OVERFLOW:
            return OVERFLOW
        total += sub
    return total


cdef uint64_t perft(const Rules* rules, const Board* root, int depth, bint cyl_all) noexcept nogil:
    cdef Board* boards
    cdef uint32_t* orders
    cdef uint64_t result
    if depth <= 0:
        return 1
    boards = <Board*> malloc((depth + 1) * sizeof(Board))
    orders = <uint32_t*> malloc(depth * ORDER_CAPACITY * sizeof(uint32_t))
    if boards == NULL or orders == NULL:
        free(boards)
        free(orders)
        return OVERFLOW
    memcpy(boards, root, sizeof(Board))
    result = _perft(rules, boards, orders, depth, cyl_all)
    free(boards)
    free(orders)
    return result
