"""BoardCore: set up, read back, generate, push/pop, perft, threat maps. engine.position.Position
wraps it with notation and validation; nothing here parses text or checks legality."""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from engine._tables cimport Rules, MAX_TYPES, BLUE, YELLOW, bb_t
from engine._board cimport (Board, make_order, compute_key, put_unit, N_STATUS, order_kind,
                            order_origin, order_dest, order_unit, order_promo)
from engine._movegen cimport generate_orders, unit_targets, capture_coverage, Targets
from engine._perft cimport perft, ORDER_CAPACITY

cdef uint64_t OVERFLOW = <uint64_t> -1


def decode_order(uint32_t m):
    """(kind, origin, destination, unit type, promotion type or -1) of an encoded order."""
    return order_kind(m), order_origin(m), order_dest(m), order_unit(m), order_promo(m)


cdef class BoardCore:
    def __cinit__(self, RuleTables tables):
        self.tables = tables
        self.capacity = 16
        self.depth = 0
        self.stack = <Board*> malloc(self.capacity * sizeof(Board))
        if self.stack == NULL:
            raise MemoryError()
        memset(self.stack, 0, sizeof(Board))
        memset(self.stack[0].square_type, -1, 64)
        self.stack[0].fullmove = 1

    def __dealloc__(self):
        free(self.stack)

    cdef Board* top(self) noexcept nogil:
        return self.stack + self.depth

    def setup(self, units, barracks, stock, uint64_t promote_types, int side, int halfmove,
              int fullmove, status):
        """Replace the position. units: (square, type, colour) triples; barracks: two lists of
        counts per type; stock: counts per type; status: N_STATUS square bitboards."""
        cdef Board* b
        cdef int t, sq, colour, n
        self.depth = 0
        b = self.stack
        memset(b, 0, sizeof(Board))
        memset(b.square_type, -1, 64)
        for sq, t, colour in units:
            put_unit(b, sq, t, colour)
        n = self.tables.rules.n_types
        for t in range(n):
            b.barracks[BLUE][t] = barracks[BLUE][t]
            b.barracks[YELLOW][t] = barracks[YELLOW][t]
            b.stock[t] = stock[t]
        for n in range(N_STATUS):
            b.status[n] = status[n]
        b.promote_types = promote_types
        b.side = side
        b.halfmove = halfmove
        b.fullmove = fullmove
        b.key = compute_key(self.tables.rules, b)

    def state(self):
        """The current position as plain Python data (the inverse of setup)."""
        cdef Board* b = self.top()
        cdef int n = self.tables.rules.n_types
        units = []
        for sq in range(64):
            if b.square_type[sq] >= 0:
                units.append((sq, b.square_type[sq], BLUE if (b.by_colour[BLUE] >> sq) & 1 else YELLOW))
        return {
            "units": units,
            "barracks": [[b.barracks[c][t] for t in range(n)] for c in (BLUE, YELLOW)],
            "stock": [b.stock[t] for t in range(n)],
            "promote_types": b.promote_types,
            "side": b.side,
            "halfmove": b.halfmove,
            "fullmove": b.fullmove,
            "status": [b.status[i] for i in range(N_STATUS)],
        }

    @property
    def key(self):
        return self.top().key

    def recomputed_key(self):
        return compute_key(self.tables.rules, self.top())

    @property
    def ply(self):
        return self.depth

    def copy(self):
        cdef BoardCore other = BoardCore(self.tables)
        memcpy(other.stack, self.top(), sizeof(Board))
        return other

    def generate(self, bint cylindrical=False):
        """Every order of the side to move, encoded (see _board.pxd)."""
        cdef uint32_t* buffer = <uint32_t*> malloc(ORDER_CAPACITY * sizeof(uint32_t))
        cdef long n
        if buffer == NULL:
            raise MemoryError()
        try:
            n = generate_orders(self.tables.rules, self.top(), cylindrical, buffer, ORDER_CAPACITY)
            if n < 0:
                raise OverflowError(f"more than {ORDER_CAPACITY} orders in one position")
            return [buffer[i] for i in range(n)]
        finally:
            free(buffer)

    def count(self, bint cylindrical=False):
        return generate_orders(self.tables.rules, self.top(), cylindrical, NULL, 0)

    def push(self, uint32_t order):
        """Play an order (assumed legal: engine.position.Position checks) and end the turn."""
        cdef Board* grown
        if self.depth + 1 >= self.capacity:
            grown = <Board*> realloc(self.stack, 2 * self.capacity * sizeof(Board))
            if grown == NULL:
                raise MemoryError()
            self.stack = grown
            self.capacity *= 2
        memcpy(self.stack + self.depth + 1, self.stack + self.depth, sizeof(Board))
        self.depth += 1
        make_order(self.tables.rules, self.top(), order)

    def pop(self):
        if self.depth == 0:
            raise IndexError("pop from a position with no orders pushed")
        self.depth -= 1

    def perft(self, int depth, bint cylindrical=False):
        cdef uint64_t result
        cdef Board root
        memcpy(&root, self.top(), sizeof(Board))
        with nogil:
            result = perft(self.tables.rules, &root, depth, cylindrical)
        if result == OVERFLOW:
            raise OverflowError(f"a position below had more than {ORDER_CAPACITY} orders")
        return result

    def unit_attacks(self, int square, bint cylindrical=False):
        """Squares the unit on `square` could capture on if an enemy unit stood there (every kind
        of capture counts: moving, charging through, shooting). Each candidate square is tested
        with a stand-in enemy on it, so blockers behave exactly as in a real attack."""
        cdef Board* b = self.top()
        cdef Board probe
        cdef Targets tg
        cdef int colour, target, n
        cdef bb_t result = 0, bit
        if b.square_type[square] < 0:
            return 0
        colour = BLUE if (b.by_colour[BLUE] >> square) & 1 else YELLOW
        for target in range(64):
            if target == square:
                continue
            bit = (<bb_t> 1) << target
            memcpy(&probe, b, sizeof(Board))
            if probe.square_type[target] >= 0:
                probe.by_colour[0] &= ~bit
                probe.by_colour[1] &= ~bit
                probe.by_type[probe.square_type[target]] &= ~bit
            probe.square_type[target] = 0
            probe.by_type[0] |= bit
            probe.by_colour[1 - colour] |= bit
            probe.occupied |= bit
            unit_targets(self.tables.rules, &probe, square, colour, cylindrical, bit, &tg)
            if tg.covered & bit:
                result |= bit
        return result

    def threatened(self, int square, int colour, int origin=-1, bint cylindrical=False):
        """C7: could an enemy of `colour` capture a unit of `colour` standing on `square`? With
        origin >= 0 the unit on origin is first moved there (it 'already stands on it'); otherwise a
        stand-in unit of `colour` is placed on the square."""
        cdef Board probe
        cdef bb_t bit = (<bb_t> 1) << square
        cdef int t, n
        memcpy(&probe, self.top(), sizeof(Board))
        t = probe.square_type[origin] if origin >= 0 else 0
        if origin >= 0:
            probe.by_colour[colour] &= ~((<bb_t> 1) << origin)
            probe.by_type[t] &= ~((<bb_t> 1) << origin)
            probe.occupied &= ~((<bb_t> 1) << origin)
            probe.square_type[origin] = -1
            for n in range(N_STATUS):
                if (probe.status[n] >> origin) & 1:
                    probe.status[n] = (probe.status[n] & ~((<bb_t> 1) << origin)) | bit
                else:
                    probe.status[n] &= ~bit
        else:
            for n in range(N_STATUS):
                probe.status[n] &= ~bit
        if probe.square_type[square] >= 0:
            probe.by_colour[0] &= ~bit
            probe.by_colour[1] &= ~bit
            probe.by_type[probe.square_type[square]] &= ~bit
        probe.square_type[square] = t
        probe.by_type[t] |= bit
        probe.by_colour[colour] |= bit
        probe.occupied |= bit
        return bool(capture_coverage(self.tables.rules, &probe, 1 - colour, cylindrical) & bit)
