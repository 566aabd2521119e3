"""perft with copy-make and bulk counting at the last ply; no Python object per node.

A walk can be stopped from another thread and watched while it runs: PerftControl owns the shared
state (_perft.pxd PerftShared) that every walk of one run reads its stop flag from and adds its
leaves to."""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy

from engine._board cimport make_order
from engine._movegen cimport generate_orders


cdef inline void _flush(PerftWalk* walk) noexcept nogil:
    if walk.pending:
        ftc_add_u64(&walk.shared.nodes, walk.pending)
        walk.pending = 0


cdef uint64_t _perft(const Rules* rules, Board* boards, uint32_t* orders, int depth,
                     bint cyl_all, PerftWalk* walk) noexcept nogil:
    cdef long n, i
    cdef uint64_t total = 0, sub
    if depth == 1:
        if rules.chess_legality:    # legality needs the orders: count them in this ply's buffer
            n = generate_orders(rules, boards, cyl_all, orders, ORDER_CAPACITY)
            if n < 0:
                return PERFT_OVERFLOW
        else:
            n = generate_orders(rules, boards, cyl_all, NULL, 0)
        return <uint64_t> n
    if ftc_load_int(&walk.shared.stop):
        return PERFT_STOPPED
    n = generate_orders(rules, boards, cyl_all, orders, ORDER_CAPACITY)
    if n < 0:
        return PERFT_OVERFLOW
    for i in range(n):
        memcpy(boards + 1, boards, sizeof(Board))
        make_order(rules, boards + 1, orders[i])
        sub = _perft(rules, boards + 1, orders + ORDER_CAPACITY, depth - 1, cyl_all, walk)
        if sub >= PERFT_STOPPED:            # PERFT_STOPPED or PERFT_OVERFLOW
            return sub
        total += sub
    if depth == 2:
        walk.pending += total
        if walk.pending >= PERFT_FLUSH:
            _flush(walk)
    return total


cdef uint64_t perft(const Rules* rules, const Board* root, int depth, bint cyl_all,
                    PerftShared* shared) noexcept nogil:
    cdef Board* boards
    cdef uint32_t* orders
    cdef uint64_t result
    cdef PerftWalk walk
    walk.shared = shared
    walk.pending = 0
    if depth <= 0:
        ftc_add_u64(&shared.nodes, 1)
        return 1
    if ftc_load_int(&shared.stop):
        return PERFT_STOPPED
    boards = <Board*> malloc((depth + 1) * sizeof(Board))
    orders = <uint32_t*> malloc(depth * ORDER_CAPACITY * sizeof(uint32_t))
    if boards == NULL or orders == NULL:
        free(boards)
        free(orders)
        return PERFT_OVERFLOW
    memcpy(boards, root, sizeof(Board))
    result = _perft(rules, boards, orders, depth, cyl_all, &walk)
    free(boards)
    free(orders)
    if depth == 1 and result < PERFT_STOPPED:
        walk.pending = result               # no depth-2 node counted it
    _flush(&walk)
    return result


class PerftStopped(Exception):
    """A perft stopped through its PerftControl before it finished. ``nodes``: the leaves counted
    until then; ``reason``: the control's reason (the CLI: the signal number; 0: none given);
    ``counts``: the root orders counted in full, {order text: count}, when divide was stopped."""

    nodes = 0
    reason = 0
    counts = {}

    def __init__(self, nodes, reason=0, counts=None):
        super().__init__(f"perft stopped after {nodes} nodes")
        self.nodes = nodes
        self.reason = reason
        self.counts = dict(counts or {})


cdef class PerftControl:
    """Stops running perft calls and reads their progress, from any thread. Pass it to every C
    perft of one run (BoardCore.perft(..., control=...)): they all stop when stop() is called (at
    their next node of depth >= 2 from the leaves, within microseconds) and add their leaves to
    ``nodes`` as they count. A stopped control stays stopped: use a new one for the next run."""

    def __cinit__(self):
        self.shared = <PerftShared*> calloc(1, sizeof(PerftShared))
        if self.shared == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.shared)

    def stop(self, int reason=0):
        """Make every perft using this control return early (and later ones at once); ``reason``
        is kept (the first one given) for whoever reports the stop."""
        if not ftc_load_int(&self.shared.stop):
            ftc_store_int(&self.shared.reason, reason)
        ftc_store_int(&self.shared.stop, 1)

    @property
    def stopped(self):
        """Whether stop() was called."""
        return ftc_load_int(&self.shared.stop) != 0

    @property
    def reason(self):
        """The reason given to the first stop() (0 when none was, or before any)."""
        return ftc_load_int(&self.shared.reason)

    @property
    def nodes(self):
        """Leaves counted so far by the perft calls using this control (live while they run: it
        grows in steps of about PERFT_FLUSH leaves per call)."""
        return ftc_load_u64(&self.shared.nodes)
