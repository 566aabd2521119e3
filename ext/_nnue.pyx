"""The learned board evaluation (NNUE) in C: accumulators refreshed from a board or updated from the
parent board's (the changed squares and Barracks counts found by comparing the two boards, so every
kind of order, card effect or null move is covered without a case of its own), and the output layer.
The layout is engine/board/nnue.py's (the numpy forward pass there is the definition this kernel
equals bit for bit); docs/nnue.md describes it. No Python object per node: the search calls the cdef
functions directly."""
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t, uintptr_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from engine._tables cimport MAX_TYPES, BLUE, bb_t, lsb
from engine._board cimport Board
from engine._position cimport BoardCore

#: The layout numbers, for engine/board/nnue.py's consistency test.
LAYOUT = {"max_types": MAX_TYPES, "barracks_slots": NNUE_SLOTS, "features": NNUE_FEATURES, "qa": NNUE_QA,
          "qb": NNUE_QB, "scale": NNUE_SCALE, "max_hidden": NNUE_MAX_HIDDEN}

cdef enum:
    MAX_CHANGES = 2 * NNUE_REFRESH_ABOVE + 8


cdef inline int _board_feature(int persp, int colour, int t, int sq) noexcept nogil:
    return ((0 if colour == persp else 1) * MAX_TYPES + t) * 64 + (sq ^ (56 if persp == 1 else 0))


cdef inline int _barracks_feature(int persp, int colour, int t, int i) noexcept nogil:
    return NNUE_BARRACKS + ((0 if colour == persp else 1) * MAX_TYPES + t) * NNUE_SLOTS + i


cdef inline int _colour_on(const Board* b, int sq) noexcept nogil:
    return 0 if (b.by_colour[BLUE] >> sq) & 1 else 1


cdef inline void _add_row(int16_t* v, const int16_t* row, int h) noexcept nogil:
    cdef int i
    for i in range(h):
        v[i] = <int16_t> (v[i] + row[i])


cdef inline void _sub_row(int16_t* v, const int16_t* row, int h) noexcept nogil:
    cdef int i
    for i in range(h):
        v[i] = <int16_t> (v[i] - row[i])


cdef void nnue_refresh(const NnueNet* net, const Board* b, bint cylindrical, NnueAccumulator* acc) noexcept nogil:
    """Both accumulators of ``b`` from scratch."""
    cdef int h = net.hidden
    cdef int p, sq, colour, t, i, n
    cdef bb_t bits
    for p in range(2):
        memcpy(acc.v[p], net.b1, h * sizeof(int16_t))
        bits = b.occupied
        while bits:
            sq = lsb(bits)
            bits &= bits - 1
            _add_row(acc.v[p], net.w1 + <long> _board_feature(p, _colour_on(b, sq), b.square_type[sq], sq) * h, h)
        for colour in range(2):
            for t in range(MAX_TYPES):
                n = b.barracks[colour][t]
                if n > NNUE_SLOTS:
                    n = NNUE_SLOTS
                for i in range(n):
                    _add_row(acc.v[p], net.w1 + <long> _barracks_feature(p, colour, t, i) * h, h)
        if cylindrical:
            _add_row(acc.v[p], net.w1 + <long> NNUE_COMPASS * h, h)
    acc.key = b.key
    acc.cylindrical = cylindrical


cdef void nnue_update(const NnueNet* net, const Board* parent, const NnueAccumulator* pacc, const Board* b,
                      bint cylindrical, NnueAccumulator* acc) noexcept nogil:
    """The accumulators of ``b`` from ``parent``'s (``pacc``): the rows of the units and Barracks
    slots that differ between the two boards come off and on. Many changes (or another mode):
    a refresh, which is then cheaper."""
    cdef int h = net.hidden
    cdef int removed[2][MAX_CHANGES]
    cdef int added[2][MAX_CHANGES]
    cdef int n_removed = 0, n_added = 0
    cdef int p, sq, t, colour, i, before, after, k
    cdef bb_t changed
    if pacc.cylindrical != cylindrical:
        nnue_refresh(net, b, cylindrical, acc)
        return
    changed = (parent.by_colour[0] ^ b.by_colour[0]) | (parent.by_colour[1] ^ b.by_colour[1])
    for t in range(MAX_TYPES):
        changed |= parent.by_type[t] ^ b.by_type[t]
    while changed:
        sq = lsb(changed)
        changed &= changed - 1
        if n_removed >= NNUE_REFRESH_ABOVE or n_added >= NNUE_REFRESH_ABOVE:
            nnue_refresh(net, b, cylindrical, acc)
            return
        if parent.square_type[sq] >= 0:
            colour = _colour_on(parent, sq)
            for p in range(2):
                removed[p][n_removed] = _board_feature(p, colour, parent.square_type[sq], sq)
            n_removed += 1
        if b.square_type[sq] >= 0:
            colour = _colour_on(b, sq)
            for p in range(2):
                added[p][n_added] = _board_feature(p, colour, b.square_type[sq], sq)
            n_added += 1
    for colour in range(2):
        for t in range(MAX_TYPES):
            before = parent.barracks[colour][t]
            after = b.barracks[colour][t]
            if before == after:
                continue
            before = NNUE_SLOTS if before > NNUE_SLOTS else before
            after = NNUE_SLOTS if after > NNUE_SLOTS else after
            if before + after > 2 * NNUE_SLOTS:         # unreachable; keeps the bounds obvious
                continue
            for i in range(after, before):
                if n_removed >= NNUE_REFRESH_ABOVE:
                    nnue_refresh(net, b, cylindrical, acc)
                    return
                for p in range(2):
                    removed[p][n_removed] = _barracks_feature(p, colour, t, i)
                n_removed += 1
            for i in range(before, after):
                if n_added >= NNUE_REFRESH_ABOVE:
                    nnue_refresh(net, b, cylindrical, acc)
                    return
                for p in range(2):
                    added[p][n_added] = _barracks_feature(p, colour, t, i)
                n_added += 1
    for p in range(2):
        if acc != pacc:
            memcpy(acc.v[p], pacc.v[p], h * sizeof(int16_t))
        for k in range(n_removed):
            _sub_row(acc.v[p], net.w1 + <long> removed[p][k] * h, h)
        for k in range(n_added):
            _add_row(acc.v[p], net.w1 + <long> added[p][k] * h, h)
    acc.key = b.key
    acc.cylindrical = cylindrical


cdef int32_t nnue_output(const NnueNet* net, const NnueAccumulator* acc, int side) noexcept nogil:
    """The value for ``side`` (to move), in centi-points: floor((b2 + w2 . clamp(acc)) * SCALE / (QA * QB))."""
    cdef int h = net.hidden
    cdef const int16_t* own = acc.v[side]
    cdef const int16_t* other = acc.v[1 - side]
    cdef const int16_t* w2 = net.w2
    cdef int32_t total = 0
    cdef int32_t x
    cdef int i
    cdef int64_t scaled, q
    for i in range(h):
        x = own[i]
        x = 0 if x < 0 else (NNUE_QA if x > NNUE_QA else x)
        total += x * w2[i]
    for i in range(h):
        x = other[i]
        x = 0 if x < 0 else (NNUE_QA if x > NNUE_QA else x)
        total += x * w2[h + i]
    scaled = (<int64_t> total + net.b2) * NNUE_SCALE
    q = scaled / (NNUE_QA * NNUE_QB)             # C division (the build's cdivision) truncates: floor it
    if scaled % (NNUE_QA * NNUE_QB) != 0 and scaled < 0:
        q -= 1
    return <int32_t> q


cdef bint nnue_knows(const NnueNet* net, const Board* b) noexcept nogil:
    """Whether every unit type on the board and in the Barracks is one the net was trained with."""
    cdef uint64_t mask = net.untrained
    cdef int t
    while mask:
        t = lsb(mask)
        mask &= mask - 1
        if b.by_type[t] or b.barracks[0][t] or b.barracks[1][t]:
            return False
    return True


cdef class Network:
    """A net's weights in the kernel (aligned), made from engine.board.nnue.Net's arrays
    (engine.board.nnue.load_net checks the file first). ``digest`` names it; ``tokens`` are the
    unit tokens of the catalog it was trained for; ``untrained`` the type indices it has no data
    for (a board holding one is judged by the classical evaluation: ``knows``)."""

    def __cinit__(self, const int16_t[:, ::1] w1, const int16_t[::1] b1, const int16_t[::1] w2, int32_t b2,
                  tokens=(), str digest="", untrained=()):
        cdef int h = b1.shape[0]
        cdef size_t n1, total
        cdef uintptr_t base
        if h <= 0 or h > NNUE_MAX_HIDDEN or h % 16:
            raise ValueError(f"Network: hidden size {h} is not a multiple of 16 in 16..{NNUE_MAX_HIDDEN}")
        if w1.shape[0] != NNUE_FEATURES or w1.shape[1] != h or w2.shape[0] != 2 * h:
            raise ValueError(f"Network: expected w1 [{NNUE_FEATURES}, {h}] and w2 [{2 * h}], got "
                             f"w1 [{w1.shape[0]}, {w1.shape[1]}] and w2 [{w2.shape[0]}]")
        n1 = <size_t> NNUE_FEATURES * h
        total = (n1 + 3 * h) * sizeof(int16_t) + 4 * 64
        self.memory = malloc(total)
        if self.memory == NULL:
            raise MemoryError()
        base = (<uintptr_t> self.memory + 63) & ~(<uintptr_t> 63)
        self.net.w1 = <int16_t*> base
        self.net.b1 = <int16_t*> ((base + n1 * sizeof(int16_t) + 63) & ~(<uintptr_t> 63))
        self.net.w2 = <int16_t*> ((<uintptr_t> self.net.b1 + h * sizeof(int16_t) + 63) & ~(<uintptr_t> 63))
        memcpy(self.net.w1, &w1[0, 0], n1 * sizeof(int16_t))
        memcpy(self.net.b1, &b1[0], h * sizeof(int16_t))
        memcpy(self.net.w2, &w2[0], 2 * h * sizeof(int16_t))
        self.net.b2 = b2
        self.net.hidden = h
        self.net.untrained = 0
        for t in untrained:
            if not 0 <= t < MAX_TYPES:
                raise ValueError(f"Network: untrained type {t} is not a type index 0..{MAX_TYPES - 1}")
            self.net.untrained |= (<uint64_t> 1) << t
        self.untrained = tuple(untrained)
        self.tokens = tuple(tokens)
        self.digest = digest

    def __dealloc__(self):
        free(self.memory)

    @property
    def hidden(self) -> int:
        return self.net.hidden

    def evaluate(self, BoardCore core, bint cylindrical=False) -> int:
        """The net's value of the core's board for the side to move (accumulators refreshed)."""
        cdef NnueAccumulator acc
        cdef Board* b = core.top()
        nnue_refresh(&self.net, b, cylindrical, &acc)
        return nnue_output(&self.net, &acc, b.side)

    def knows(self, BoardCore core) -> bool:
        """Whether the net judges the core's board (no unit of an untrained type on it or in a Barracks)."""
        return nnue_knows(&self.net, core.top())

    def accumulators(self, BoardCore core, bint cylindrical=False) -> list:
        """[Blue's, Yellow's] accumulator of the core's board, refreshed (tests)."""
        cdef NnueAccumulator acc
        nnue_refresh(&self.net, core.top(), cylindrical, &acc)
        return [[acc.v[p][i] for i in range(self.net.hidden)] for p in range(2)]

    def updated(self, BoardCore parent, BoardCore core, bint cylindrical=False) -> list:
        """The accumulators of ``core``'s board updated from ``parent``'s (refreshed), as the search
        does between a node and its child (tests compare them with a refresh)."""
        cdef NnueAccumulator pacc, acc
        nnue_refresh(&self.net, parent.top(), cylindrical, &pacc)
        nnue_update(&self.net, parent.top(), &pacc, core.top(), cylindrical, &acc)
        return [[acc.v[p][i] for i in range(self.net.hidden)] for p in range(2)]
