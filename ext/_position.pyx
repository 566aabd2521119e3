"""BoardCore: set up, read back, generate, push/pop, perft, threat maps. engine.position.Position
wraps it with notation and validation; nothing here parses text or checks legality."""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from engine._tables cimport Rules, MAX_TYPES, BLUE, YELLOW, bb_t, lsb
from engine._board cimport (Board, make_order, apply_order, end_turn, compute_key, put_unit,
                            remove_unit, capture_unit, relocate_unit, add_barracks, add_stock,
                            set_status, set_side, N_STATUS, order_kind, order_origin, order_dest,
                            order_unit, order_promo, encode_order as c_encode_order, KIND_MARCH,
                            KIND_ATTACK, KIND_DEPLOY, KIND_SHOOT, KIND_SWAP, ST_ORDERED, ST_BANNED,
                            ST_IMMUNE_BLUE, ST_IMMUNE_YELLOW, ST_MOURNED, units_of_types)
from engine._movegen cimport generate_orders, generate_tactical, unit_targets, capture_coverage, Targets
from engine._perft cimport (perft, ORDER_CAPACITY, PERFT_OVERFLOW, PERFT_STOPPED, PerftShared,
                            PerftControl)
from engine._perft import PerftStopped as _PerftStopped


def decode_order(uint32_t m):
    """(kind, origin, destination, unit type, promotion type or -1) of an encoded order."""
    return order_kind(m), order_origin(m), order_dest(m), order_unit(m), order_promo(m)


def encode_order(int kind, int origin, int dest, int unit, int promotion=-1):
    """The code of an order as the kernel writes it (_board.pxd encode_order)."""
    return c_encode_order(kind, origin, dest, unit, promotion)


#: The order kinds and status flags as compiled (_board.pxd KIND_*, ST_*, N_STATUS), by the names
#: engine/codes.py gives them; tests/test_codes.py checks that both agree.
KERNEL_CODES = {
    "MARCH": KIND_MARCH, "ATTACK": KIND_ATTACK, "DEPLOY": KIND_DEPLOY, "SHOOT": KIND_SHOOT, "SWAP": KIND_SWAP,
    "ST_ORDERED": ST_ORDERED, "ST_BANNED": ST_BANNED, "ST_IMMUNE_BLUE": ST_IMMUNE_BLUE,
    "ST_IMMUNE_YELLOW": ST_IMMUNE_YELLOW, "ST_MOURNED": ST_MOURNED, "N_STATUS": N_STATUS,
}


def _square_name(int sq):
    """a1 .. h8 for 0..63 (the 8-wide numbering of every board shape), else the number."""
    return f"{'abcdefgh'[sq & 7]}{(sq >> 3) + 1}" if 0 <= sq < 64 else str(sq)


cdef int _check_colour(int colour) except -1:
    if colour != BLUE and colour != YELLOW:
        raise ValueError(f"colour must be 0 (Blue) or 1 (Yellow), got {colour}")
    return 0


cdef bb_t _attack_set(const Rules* rules, const Board* b, int colour, bb_t units, bb_t targets,
                      bint cyl, bint stop_at_first) noexcept nogil:
    """The squares of `targets` that a unit of `colour` standing on `units` could capture on,
    whatever stands there (immunity and guarded squares do not count: a threat, not a capture).
    With stop_at_first, returns as soon as one is found."""
    cdef Targets tg
    cdef bb_t hit = 0
    cdef int sq
    units &= b.by_colour[colour]
    while units:
        sq = lsb(units)
        units &= units - 1
        unit_targets(rules, b, sq, colour, cyl, targets, &tg)
        hit |= (tg.capture | tg.shoot | tg.covered) & targets
        if hit and stop_at_first:
            return hit
    return hit


cdef bb_t _sovereigns(const Rules* rules, const Board* b, int colour) noexcept nogil:
    cdef bb_t bits = 0
    cdef int i
    for i in range(rules.n_sovereign_types):
        bits |= b.by_type[rules.sovereign_types[i]] & b.by_colour[colour]
    return bits


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
        self.stack[0].foot_types = tables.rules.foot_types

    def __dealloc__(self):
        free(self.stack)

    cdef Board* top(self) noexcept nogil:
        return self.stack + self.depth

    def setup(self, units, barracks, stock, uint64_t promote_types, int side, int halfmove,
              int fullmove, status):
        """Replace the position. units: (square, type, colour) triples; barracks: two lists of
        counts per type; stock: counts per type; status: up to N_STATUS square bitboards (in
        the order of ext/_board.pxd ST_*; missing ones are empty). The guarded squares
        (set_guarded) are a rule of the game and stay as they were. A unit off the board of the
        tables' shape (RuleTables.board) is refused with ValueError, the position left as it was."""
        cdef Board* b
        cdef int t, sq, colour, n
        cdef bb_t guarded[2]
        cdef bb_t board = self.tables.rules.geo.board
        units = list(units)
        for sq, t, colour in units:
            if not 0 <= sq < 64 or not (board >> sq) & 1:
                raise ValueError(f"square {_square_name(sq)} is off the "
                                 f"{self.tables.rules.geo.files}x{self.tables.rules.geo.ranks} board")
        self.depth = 0
        b = self.stack
        guarded[0], guarded[1] = b.guarded[0], b.guarded[1]
        memset(b, 0, sizeof(Board))
        memset(b.square_type, -1, 64)
        b.guarded[0], b.guarded[1] = guarded[0], guarded[1]
        b.foot_types = self.tables.rules.foot_types
        for sq, t, colour in units:
            put_unit(b, sq, t, colour)
        n = self.tables.rules.n_types
        for t in range(n):
            b.barracks[BLUE][t] = barracks[BLUE][t]
            b.barracks[YELLOW][t] = barracks[YELLOW][t]
            b.stock[t] = stock[t]
        for n in range(N_STATUS):
            b.status[n] = status[n] if n < len(status) else 0    # flags not given: none
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

    # -- cheap reads of the current position (state() builds all of it) -------------------------
    @property
    def side(self):
        """The side to move: BLUE (0) or YELLOW (1)."""
        return self.top().side

    @property
    def halfmove(self):
        """Turns since the last capture, deploy or training (C3)."""
        return self.top().halfmove

    @property
    def fullmove(self):
        """The turn number: starts at 1, grows after Yellow's turn."""
        return self.top().fullmove

    @property
    def promote_types(self):
        """Bit t set: a Foot unit may promote to type t (B18)."""
        return self.top().promote_types

    def set_guarded(self, int colour, bb_t squares):
        """Squares on which ``colour``'s units cannot be captured by any kind of capture (C13, The
        Last Stand); 0 for none. A rule of the game, not part of the Zobrist key: set it before
        orders are generated or searched. Copies and pushed positions keep it."""
        _check_colour(colour)
        self.top().guarded[colour] = squares

    def guarded(self, int colour):
        """The guarded squares of ``colour`` (set_guarded), as a bitboard."""
        _check_colour(colour)
        return self.top().guarded[colour]

    def status_bits(self, int flag):
        """The squares whose units carry status flag ``flag`` (ext/_board.pxd ST_*), as a bitboard."""
        if not 0 <= flag < N_STATUS:
            raise ValueError(f"status flag must be 0..{N_STATUS - 1}, got {flag}")
        return self.top().status[flag]

    def set_status_bits(self, int flag, bb_t bits):
        """Make ``bits`` the squares carrying status flag ``flag`` (the key follows every changed
        square)."""
        cdef Board* b = self.top()
        cdef bb_t changed
        cdef int sq
        if not 0 <= flag < N_STATUS:
            raise ValueError(f"status flag must be 0..{N_STATUS - 1}, got {flag}")
        changed = b.status[flag] ^ bits
        while changed:
            sq = lsb(changed)
            changed &= changed - 1
            set_status(b, sq, flag, (bits >> sq) & 1)

    def colour_bits(self, int colour):
        """The squares of ``colour``'s units, as a bitboard."""
        _check_colour(colour)
        return self.top().by_colour[colour]

    def barracks_counts(self, int colour):
        """Units of each type in ``colour``'s Barracks, by type id."""
        cdef Board* b = self.top()
        _check_colour(colour)
        return [b.barracks[colour][t] for t in range(self.tables.rules.n_types)]

    def stock_counts(self):
        """Units of each type in the Stock, by type id."""
        cdef Board* b = self.top()
        return [b.stock[t] for t in range(self.tables.rules.n_types)]

    @property
    def key(self):
        return self.top().key

    def recomputed_key(self):
        return compute_key(self.tables.rules, self.top())

    @property
    def foot(self):
        """The squares of the Foot units, both colours, as the primitives kept them (Board.foot)."""
        return self.top().foot

    def recomputed_foot(self):
        """The squares of the Foot units computed afresh from the units on the board."""
        cdef const Board* b = self.top()
        return units_of_types(b, self.tables.rules.foot_types)

    @property
    def ply(self):
        return self.depth

    def history_keys(self):
        """Zobrist keys of the positions pushed before the current one, oldest first (a search
        scores a return to one of them as a repetition draw, C3)."""
        return [self.stack[i].key for i in range(self.depth)]

    def copy(self):
        cdef BoardCore other = BoardCore(self.tables)
        memcpy(other.stack, self.top(), sizeof(Board))
        return other

    def generate(self, bint cylindrical=False, bint over_without_sovereign=True):
        """Every order of the side to move, encoded (see _board.pxd). over_without_sovereign=False
        keeps generating when a side has no Sovereign (the full game checks that at turn end)."""
        return self._order_list(cylindrical, over_without_sovereign, False)

    def generate_tactical(self, bint cylindrical=False):
        """The orders the search's quiescence tries when the mover's Sovereign is not threatened:
        those of generate() that capture or promote, in generate()'s order (under Rules.special,
        every order of generate())."""
        return self._order_list(cylindrical, True, True)

    cdef list _order_list(self, bint cylindrical, bint over_without_sovereign, bint tactical):
        """generate() or, with tactical, generate_tactical() into a scratch buffer, as a list."""
        cdef uint32_t* buffer = <uint32_t*> malloc(ORDER_CAPACITY * sizeof(uint32_t))
        cdef long n
        if buffer == NULL:
            raise MemoryError()
        try:
            if tactical:
                n = generate_tactical(self.tables.rules, self.top(), cylindrical, buffer,
                                      ORDER_CAPACITY)
            else:
                n = generate_orders(self.tables.rules, self.top(), cylindrical, buffer,
                                    ORDER_CAPACITY, over_without_sovereign)
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

    def perft(self, int depth, bint cylindrical=False, PerftControl control=None):
        cdef uint64_t result
        cdef Board root
        cdef PerftShared alone
        cdef PerftShared* shared = &alone
        if control is not None:
            shared = control.shared
        else:
            memset(&alone, 0, sizeof(PerftShared))
        memcpy(&root, self.top(), sizeof(Board))
        with nogil:
            result = perft(self.tables.rules, &root, depth, cylindrical, shared)
        if result == PERFT_OVERFLOW:
            raise OverflowError(f"a position below had more than {ORDER_CAPACITY} orders")
        if result == PERFT_STOPPED:
            raise _PerftStopped(control.nodes, control.reason)
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

    # -- primitives for the full game (engine.crown): each keeps the Zobrist key ------------------
    # They change the current position in place (no push); callers validate their arguments.

    def apply(self, uint32_t order):
        """Play an order for the side to move without ending the turn."""
        apply_order(self.tables.rules, self.top(), order)

    def end_turn(self):
        end_turn(self.top())

    def set_side(self, int side):
        set_side(self.top(), side)

    def set_status(self, int square, int flag, bint on):
        set_status(self.top(), square, flag, on)

    def has_status(self, int square, int flag):
        return bool((self.top().status[flag] >> square) & 1)

    @property
    def won_on_x(self):
        """Whether the side that just moved has won by a march onto the other side's X (RULINGS
        H8b): the game is over and no order is generated."""
        return bool(self.top().won_on_x)

    def set_won_on_x(self, bint on):
        """Set or clear the X win (a position read from text; the key follows)."""
        cdef Board* b = self.top()
        if b.won_on_x != on:
            b.won_on_x = on
            b.key = compute_key(self.tables.rules, b)

    def mark_clock_reset(self):
        """The current turn trained a unit (C3: training resets the no-progress count)."""
        self.top().clock_reset = 1

    def unit_on(self, int square):
        """(type, colour) of the unit on square, or None."""
        cdef Board* b = self.top()
        if b.square_type[square] < 0:
            return None
        return b.square_type[square], (BLUE if (b.by_colour[BLUE] >> square) & 1 else YELLOW)

    def squares_of(self, int colour):
        cdef bb_t bits = self.top().by_colour[colour]
        return [sq for sq in range(64) if (bits >> sq) & 1]

    def occupied(self):
        return self.top().occupied

    def move_unit(self, int origin, int dest):
        """Move a unit to an empty square ignoring its movement (card effects), flags with it."""
        cdef Board* b = self.top()
        relocate_unit(b, origin, dest, BLUE if (b.by_colour[BLUE] >> origin) & 1 else YELLOW)

    def swap_units(self, int a, int b_sq):
        """Exchange two units (any colours), each keeping its flags."""
        cdef Board* b = self.top()
        cdef int ta = b.square_type[a], tb = b.square_type[b_sq]
        cdef int ca = BLUE if (b.by_colour[BLUE] >> a) & 1 else YELLOW
        cdef int cb = BLUE if (b.by_colour[BLUE] >> b_sq) & 1 else YELLOW
        cdef int n
        flags_a = [bool((b.status[n] >> a) & 1) for n in range(N_STATUS)]
        flags_b = [bool((b.status[n] >> b_sq) & 1) for n in range(N_STATUS)]
        remove_unit(b, a, ta, ca)
        remove_unit(b, b_sq, tb, cb)
        put_unit(b, b_sq, ta, ca)
        put_unit(b, a, tb, cb)
        for n in range(N_STATUS):
            set_status(b, b_sq, n, flags_a[n])
            set_status(b, a, n, flags_b[n])

    def capture(self, int square):
        """Capture the unit on square: to the Stock, or its owner's Barracks (Immortal)."""
        capture_unit(self.tables.rules, self.top(), square)
        self.top().clock_reset = 1

    def place(self, int square, int t, int colour):
        """Put a unit of type t and colour on an empty square (from nowhere: set-up, handicaps)."""
        put_unit(self.top(), square, t, colour)

    def remove(self, int square):
        """Take the unit off the board (set-up tools; the caller decides where it goes)."""
        cdef Board* b = self.top()
        remove_unit(b, square, b.square_type[square], BLUE if (b.by_colour[BLUE] >> square) & 1 else YELLOW)

    def deploy(self, int colour, int t, int square):
        """Barracks -> board, anywhere empty (card deploys); the caller checks the square."""
        add_barracks(self.top(), colour, t, -1)
        put_unit(self.top(), square, t, colour)
        self.top().clock_reset = 1

    def to_barracks(self, int square):
        """Board -> its owner's Barracks (Supply Tent, Evacuate)."""
        cdef Board* b = self.top()
        cdef int t = b.square_type[square]
        cdef int colour = BLUE if (b.by_colour[BLUE] >> square) & 1 else YELLOW
        remove_unit(b, square, t, colour)
        add_barracks(b, colour, t, 1)

    def barracks_count(self, int colour, int t):
        return self.top().barracks[colour][t]

    def stock_count(self, int t):
        return self.top().stock[t]

    def add_barracks(self, int colour, int t, int delta):
        add_barracks(self.top(), colour, t, delta)

    def add_stock(self, int t, int delta):
        add_stock(self.top(), t, delta)

    def train(self, int colour, int t, int count):
        """Stock -> Barracks, as many as the Stock holds up to count (C9). Returns how many."""
        cdef Board* b = self.top()
        cdef int n = min(count, b.stock[t])
        if n > 0:
            add_stock(b, t, -n)
            add_barracks(b, colour, t, n)
            b.clock_reset = 1
        return n

    def morph_square(self, int square, int new_t):
        """Morph the unit on square into new_t from the Stock (the old one goes back); flags stay
        (it is the same unit changing type). Returns False when the Stock has none."""
        cdef Board* b = self.top()
        cdef int t = b.square_type[square]
        cdef int colour = BLUE if (b.by_colour[BLUE] >> square) & 1 else YELLOW
        cdef int n
        if b.stock[new_t] <= 0:
            return False
        flags = [bool((b.status[n] >> square) & 1) for n in range(N_STATUS)]
        remove_unit(b, square, t, colour)
        put_unit(b, square, new_t, colour)
        for n in range(N_STATUS):
            set_status(b, square, n, flags[n])
        add_stock(b, new_t, -1)
        add_stock(b, t, 1)
        return True

    def morph_barracks(self, int colour, int t, int new_t):
        cdef Board* b = self.top()
        if b.stock[new_t] <= 0 or b.barracks[colour][t] <= 0:
            return False
        add_barracks(b, colour, t, -1)
        add_barracks(b, colour, new_t, 1)
        add_stock(b, new_t, -1)
        add_stock(b, t, 1)
        return True

    def generate_for(self, int side, bint cylindrical=False):
        """Orders the given side could issue now, as if it were to move (False Orders, Wanderlust);
        the Sovereign check is the game's business."""
        cdef Board* b = self.top()
        cdef int saved = b.side
        set_side(b, side)
        try:
            return self.generate(cylindrical, False)
        finally:
            set_side(b, saved)

    def attack_map(self, int colour, bb_t units, bint cylindrical=False):
        """The squares that the units of ``colour`` standing on ``units`` (a bitboard) could capture
        on if an enemy stood there: a threat map of some units only (King's Ransom: the face-up
        cards, G6). Every kind of capture counts; the first unit on a ride's way stops it."""
        _check_colour(colour)
        cdef Board* b = self.top()
        cdef bb_t everything = ~(<bb_t> 0)
        return _attack_set(self.tables.rules, b, colour, units, everything, cylindrical, False)

    def safe_orders(self, int side, bb_t attackers, bint cylindrical=False):
        """Every order ``side`` could issue now (as ``generate_for``) after which no Sovereign of
        ``side`` stands where an enemy unit on ``attackers`` (a bitboard; an attacker captured by
        the order drops out) could capture it; an order capturing an enemy Sovereign is always
        kept. Legality when only some enemy units give check (King's Ransom G6: face-down cards
        do not). Orders keep the generator's order."""
        _check_colour(side)
        cdef const Rules* rules = self.tables.rules
        cdef Board* b = self.top()
        cdef Board probe
        cdef uint32_t* buffer = <uint32_t*> malloc(ORDER_CAPACITY * sizeof(uint32_t))
        cdef long n, i, kept = 0
        cdef int saved = b.side, enemy = 1 - side, dest
        cdef uint32_t m
        cdef bb_t enemy_sovereigns, own
        if buffer == NULL:
            raise MemoryError()
        try:
            with nogil:
                set_side(b, side)
                n = generate_orders(rules, b, cylindrical, buffer, ORDER_CAPACITY, False)
                set_side(b, saved)
                enemy_sovereigns = _sovereigns(rules, b, enemy)
                for i in range(n):
                    m = buffer[i]
                    dest = order_dest(m)
                    if not ((enemy_sovereigns >> dest) & 1 and order_kind(m) != KIND_DEPLOY):
                        memcpy(&probe, b, sizeof(Board))
                        set_side(&probe, side)
                        apply_order(rules, &probe, m)
                        own = _sovereigns(rules, &probe, side)
                        if own and _attack_set(rules, &probe, enemy, attackers, own, cylindrical, True):
                            continue
                    buffer[kept] = m
                    kept += 1
            if n < 0:
                raise OverflowError(f"more than {ORDER_CAPACITY} orders in one position")
            return [buffer[i] for i in range(kept)]
        finally:
            free(buffer)

    def apply_for(self, int side, uint32_t order):
        """Play an order of the given side's unit without ending the turn."""
        cdef Board* b = self.top()
        cdef int saved = b.side
        set_side(b, side)
        apply_order(self.tables.rules, b, order)
        set_side(b, saved)

    def sovereign_present(self, int colour):
        cdef Board* b = self.top()
        cdef int i
        for i in range(self.tables.rules.n_sovereign_types):
            if b.by_type[self.tables.rules.sovereign_types[i]] & b.by_colour[colour]:
                return True
        return False
