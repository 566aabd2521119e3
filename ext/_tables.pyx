"""Rule tables: geometry (rays, steps, leaps, flat and cylindrical) and one program per unit type.

Built from an engine.catalog.Catalog. Nothing here is game logic; it turns data into lookup tables
(see _tables.pxd for the layout).
"""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

#: The mode bits of rides and patterns as compiled (_tables.pxd MODE_*, the source of these numbers);
#: engine/movespec.py writes the same bits into a catalog's movement programs and tests/test_codes.py
#: checks them against this.
MODES = {"MODE_MARCH": MODE_MARCH, "MODE_CAPTURE": MODE_CAPTURE, "MODE_SHOOT": MODE_SHOOT,
         "MODE_INITIAL": MODE_INITIAL}

_PATTERN_INDEX = {"phantom": PAT_PHANTOM, "warlord": PAT_WARLORD, "gryphon": PAT_GRYPHON,
                  "sphinx": PAT_SPHINX, "charge": PAT_CHARGE, "swap": PAT_SWAP, "flight": PAT_FLIGHT}

ORTH = ((0, 1), (1, 0), (0, -1), (-1, 0))          # N E S W
DIAG = ((1, 1), (1, -1), (-1, -1), (-1, 1))        # NE SE SW NW


cdef int _target(const Geometry* g, int sq, int dx, int dy, bint cyl):
    """Square reached from sq by (dx, dy), or -1 off the board of g's shape (files x ranks). Files
    wrap on a cylinder (B17), modulo the board's files."""
    cdef int f = (sq & 7) + dx
    cdef int r = (sq >> 3) + dy
    if r < 0 or r >= g.ranks:
        return -1
    if cyl:
        f = f % g.files
        if f < 0:
            f += g.files
    elif f < 0 or f >= g.files:
        return -1
    return r * 8 + f


cdef class RuleTables:
    """Kernel tables for one unit catalog. Positions built on the same catalog share one instance."""

    def __cinit__(self, catalog):
        self.rules = <Rules*> calloc(1, sizeof(Rules))
        if self.rules == NULL:
            raise MemoryError()
        self.catalog = catalog
        shape = catalog.board
        if not (1 <= shape.files <= 8 and 2 <= shape.ranks <= 8):
            raise ValueError(f"board shape {shape.files}x{shape.ranks}: files must be 1..8, ranks 2..8")
        self.rules.geo.files = shape.files
        self.rules.geo.ranks = shape.ranks
        _set_levels(&self.rules.geo, shape)
        _set_switches(self.rules, catalog)
        self.rules.special = (self.rules.geo.has_heights or self.rules.sovereign_prey_types != 0
                              or self.rules.x_winner_types != 0 or self.rules.promote_fallen
                              or self.rules.no_deploys or self.rules.chess_legality
                              or self.rules.foot_resets_clock)
        units = list(catalog.units)
        if len(units) > MAX_TYPES:
            raise ValueError(f"catalog defines {len(units)} unit types; at most {MAX_TYPES} are supported")
        self.rules.n_types = len(units)
        dirs = {}
        for d in ORTH + DIAG:
            _dir_index(dirs, d)
        for t, unit in enumerate(units):
            for ride in unit.compiled.rides:
                _dir_index(dirs, (ride.dx, ride.dy))
                _dir_index(dirs, (-ride.dx, -ride.dy))
        _build_geometry(&self.rules.geo, dirs)
        self.rules.sliders = _get_sliders()
        for t, unit in enumerate(units):
            _build_unit(self.rules, t, unit, dirs)
        self.rules.line_discoveries = all(
            not unit.cylindrical and set(unit.compiled.patterns) <= {"flight"} for unit in units)

    def __dealloc__(self):
        free(self.rules)

    @property
    def files(self):
        """Files of the board these tables were built for (engine.catalog.BoardShape)."""
        return self.rules.geo.files

    @property
    def ranks(self):
        """Ranks of the board these tables were built for."""
        return self.rules.geo.ranks

    @property
    def board(self):
        """The squares of the board, as a bitboard (every 64 on 8x8)."""
        return self.rules.geo.board

    def check_sliders(self, int boards=1000, unsigned long long seed=1):
        """Compare the slider lookups with the ray walk of these tables' flat rays (a test hook).

        For every square: every occupancy of the lookup's mask (other squares filled at random)
        and `boards` random boards of mixed density. Returns (checks, mismatches), mismatches a
        list of at most 20 (kind, square, occupancy, lookup, walk). The lookups are of the 8x8
        board: other shapes never use them (ValueError)."""
        cdef const Geometry* g = &self.rules.geo
        cdef const Sliders* sl = self.rules.sliders
        cdef int sq, kind, i, n
        cdef bb_t mask, sub, occ, got, want
        cdef uint64_t state = seed or 1
        cdef long checks = 0
        if g.files != 8 or g.ranks != 8:
            raise ValueError(f"the slider lookups are of the 8x8 board; these tables are {g.files}x{g.ranks}")
        bad = []
        for kind in range(2):
            for sq in range(64):
                mask = sl.rook[sq].mask if kind == 0 else sl.bishop[sq].mask
                sub = 0
                n = 0
                while True:
                    # every subset of the mask (carry-rippler), then random boards
                    if n == 0:
                        occ = sub | (_xorshift(&state) & _xorshift(&state) & ~mask)
                    else:
                        occ = _random_board(&state, n)
                    got = rook_attacks(sl, sq, occ) if kind == 0 else bishop_attacks(sl, sq, occ)
                    if kind == 0:
                        want = _walk_attacks(g, &g.orth[0], sq, occ)
                    else:
                        want = _walk_attacks(g, &g.diag[0], sq, occ)
                    checks += 1
                    if got != want and len(bad) < 20:
                        bad.append(("rook" if kind == 0 else "bishop", sq, occ, got, want))
                    if n == 0:
                        sub = (sub - mask) & mask
                        if sub == 0:
                            n = 1
                    else:
                        n += 1
                        if n > boards:
                            break
        return checks, bad



cdef int _set_levels(Geometry* g, shape) except -1:
    """Heights and X squares of the board (RULINGS H1); a flat board has neither."""
    cdef int sq
    heights = tuple(shape.heights)
    g.has_heights = 1 if heights else 0
    for sq in range(64):
        g.height[sq] = heights[sq] if heights else 0
    g.x_square[BLUE] = g.x_square[YELLOW] = 0
    if shape.x:
        g.x_square[BLUE] = (<bb_t> 1) << shape.x[0]
        g.x_square[YELLOW] = (<bb_t> 1) << shape.x[1]
    return 0


cdef int _set_switches(Rules* rules, catalog) except -1:
    """The catalog's [rules] switches and the unit flags that concern several types at once."""
    cdef int t
    switches = catalog.rules
    rules.promote_fallen = switches.promotion == "fallen"
    rules.no_deploys = not switches.deploys
    rules.chess_legality = switches.legality == "chess"
    rules.foot_resets_clock = switches.foot_resets_clock
    rules.sovereign_prey_types = 0
    rules.x_winner_types = 0
    for t, unit in enumerate(catalog.units):
        if unit.captured_by == "sovereign":
            rules.sovereign_prey_types |= (<uint64_t> 1) << t
        if unit.wins_on_x:
            rules.x_winner_types |= (<uint64_t> 1) << t
    return 0


cdef inline bint _level_ok(const Geometry* g, int a, int b) noexcept:
    """RULINGS H3, H4: one movement never goes two levels up or down (always true on a flat board)."""
    return -1 <= g.height[b] - g.height[a] <= 1


cdef int _dir_index(dict dirs, tuple d) except -1:
    if d not in dirs:
        if len(dirs) >= MAX_DIRS:
            raise ValueError(f"the catalog uses more than {MAX_DIRS} ride directions")
        dirs[d] = len(dirs)
    return dirs[d]


cdef int _build_geometry(Geometry* g, dict dirs) except -1:
    cdef int cyl, sq, k, s, i, r
    cdef bb_t raised = 0
    g.n_dirs = len(dirs)
    g.board = 0
    for r in range(g.ranks):
        g.rank_mask[r] = (((<bb_t> 1) << g.files) - 1) << (8 * r)
        g.board |= g.rank_mask[r]
    for r in range(g.ranks, 8):
        g.rank_mask[r] = 0
    g.home_rank[BLUE] = g.rank_mask[0]
    g.home_rank[YELLOW] = g.rank_mask[g.ranks - 1]
    g.home_ranks[BLUE] = g.rank_mask[0] | g.rank_mask[1]
    g.home_ranks[YELLOW] = g.rank_mask[g.ranks - 1] | g.rank_mask[g.ranks - 2]
    g.last_rank[BLUE] = g.home_rank[YELLOW]
    g.last_rank[YELLOW] = g.home_rank[BLUE]
    for sq in range(64):
        if g.height[sq] > 0:
            raised |= (<bb_t> 1) << sq
    g.initial[BLUE] = g.home_ranks[BLUE] & ~raised
    g.initial[YELLOW] = g.home_ranks[YELLOW] & ~raised
    for (dx, dy), i in dirs.items():
        g.dirs[i][0] = dx
        g.dirs[i][1] = dy
        for cyl in range(2):
            for sq in range(64):
                memset(g.ray[cyl][i][sq], -1, RAY_LEN)
                if not (g.board >> sq) & 1:
                    continue                # off the board: no ray
                # A ride never re-enters a square it has visited, so on a cylinder a sideways
                # ride stops before it would come back to its starting square (B17).
                s = sq
                k = 0
                while k < RAY_LEN - 1:
                    s = _target(g, s, dx, dy, cyl)
                    if s < 0 or s == sq:
                        break
                    g.ray[cyl][i][sq][k] = s
                    k += 1
    for cyl in range(2):
        for sq in range(64):
            g.king[cyl][sq] = 0
            g.knight[cyl][sq] = 0
            if not (g.board >> sq) & 1:
                continue
            for dx, dy in ORTH + DIAG:
                s = _target(g, sq, dx, dy, cyl)
                if s >= 0 and s != sq and _level_ok(g, sq, s):  # a narrow cylinder can wrap a step onto its start
                    g.king[cyl][sq] |= (<bb_t> 1) << s
            for dx, dy in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
                s = _target(g, sq, dx, dy, cyl)
                if s >= 0 and s != sq and _level_ok(g, sq, s):
                    g.knight[cyl][sq] |= (<bb_t> 1) << s
    for sq in range(64):
        g.lines[sq] = 0
        for dx, dy in ORTH + DIAG:
            for k in range(RAY_LEN):
                s = g.ray[0][dirs[(dx, dy)]][sq][k]
                if s < 0:
                    break
                g.lines[sq] |= (<bb_t> 1) << s
    for i in range(4):
        g.orth[i] = dirs[ORTH[i]]
        g.diag[i] = dirs[DIAG[i]]
        ddx, ddy = DIAG[i]
        # Gryphon (B11): after a diagonal step, ride straight along either component of it.
        g.gryphon_ride[i][0] = dirs[(ddx, 0)]
        g.gryphon_ride[i][1] = dirs[(0, ddy)]
        odx, ody = ORTH[i]
        # Sphinx (B11): after a straight step, ride diagonally keeping that step's direction.
        if odx == 0:
            g.sphinx_ride[i][0] = dirs[(1, ody)]
            g.sphinx_ride[i][1] = dirs[(-1, ody)]
        else:
            g.sphinx_ride[i][0] = dirs[(odx, 1)]
            g.sphinx_ride[i][1] = dirs[(odx, -1)]
    return 0

cdef int _build_unit(Rules* rules, int t, unit, dict dirs) except -1:
    cdef UnitProgram* u = &rules.units[t]
    cdef int cyl, colour, sq, s, n
    cdef int sign
    compiled = unit.compiled
    u.foot = unit.is_foot
    u.sovereign = unit.is_sovereign
    u.cylindrical = unit.cylindrical
    u.to_barracks = unit.captured_to == "barracks"
    u.gone = unit.captured_to == "gone"
    if u.foot:
        rules.foot_types |= (<uint64_t> 1) << t
    if u.sovereign:
        rules.sovereign_types[rules.n_sovereign_types] = t
        rules.n_sovereign_types += 1
    for colour in range(2):
        # Yellow looks at the board from the other side: every vector turns by 180 degrees.
        sign = 1 if colour == BLUE else -1
        for cyl in range(2):
            for sq in range(64):
                u.leap_march[cyl][colour][sq] = 0
                u.leap_capture[cyl][colour][sq] = 0
                if not (rules.geo.board >> sq) & 1:
                    continue
                for leap in compiled.leaps:
                    s = _target(&rules.geo, sq, sign * leap.dx, sign * leap.dy, cyl)
                    if s < 0 or s == sq:    # off the board, or wrapped onto its start
                        continue
                    if not _level_ok(&rules.geo, sq, s):
                        continue            # H3, H4: a leap or step never changes level by 2
                    if leap.modes & MODE_MARCH:
                        u.leap_march[cyl][colour][sq] |= (<bb_t> 1) << s
                    if leap.modes & MODE_CAPTURE:
                        u.leap_capture[cyl][colour][sq] |= (<bb_t> 1) << s
        if len(compiled.rides) > MAX_RIDES:
            raise ValueError(f"unit {unit.token}: more than {MAX_RIDES} rides")
        for n, ride in enumerate(compiled.rides):
            u.rides[colour][n].dir = dirs[(sign * ride.dx, sign * ride.dy)]
            u.rides[colour][n].lo = ride.lo
            u.rides[colour][n].hi = ride.hi
            u.rides[colour][n].modes = ride.modes
    u.n_rides = len(compiled.rides)
    _group_slides(rules, u, dirs)
    for name, modes in compiled.patterns.items():
        u.pattern_modes[_PATTERN_INDEX[name]] = modes
        u.has_patterns = 1
    u.charge_range = compiled.charge_range


# ---------------------------------------------------------------------------------------------
# Slider tables (layout in _tables.pxd): built once per process.
# ---------------------------------------------------------------------------------------------

cdef Sliders* _SLIDERS = NULL

SLIDERS = "pext" if FTC_PEXT else "magic"
#: What the compiler targeted (from its predefined macros), and whether C asserts are on.
COMPILED_ISA = tuple(name for name, on in (("popcnt", FTC_ISA_POPCNT), ("bmi1", FTC_ISA_BMI1),
                                           ("bmi2", FTC_ISA_BMI2), ("avx2", FTC_ISA_AVX2)) if on)
C_ASSERTS = not FTC_NDEBUG


cdef inline uint64_t _xorshift(uint64_t* state) noexcept nogil:
    """xorshift64*: a fixed sequence for a fixed seed (the magic search is deterministic)."""
    cdef uint64_t x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * 2685821657736338717ULL


cdef bb_t _random_board(uint64_t* state, int n) noexcept nogil:
    """A random occupancy; n cycles through sparse, medium and dense boards."""
    cdef bb_t a = _xorshift(state)
    cdef bb_t b = _xorshift(state)
    cdef bb_t c = _xorshift(state)
    if n % 4 == 0:
        return a & b & c
    if n % 4 == 1:
        return a & b
    if n % 4 == 2:
        return a
    return a | b


cdef bb_t _walk_attacks(const Geometry* g, const int8_t* dirs, int sq, bb_t occupied) noexcept nogil:
    """The four flat rays of dirs from sq, each up to and including the first occupied square."""
    cdef bb_t att = 0
    cdef int i, k, s
    for i in range(4):
        for k in range(RAY_LEN):
            s = g.ray[0][dirs[i]][sq][k]
            if s < 0:
                break
            att |= (<bb_t> 1) << s
            if (occupied >> s) & 1:
                break
    return att


cdef bb_t _ride_attacks(int sq, const int (*deltas)[2], bb_t occupied, bint edges) noexcept nogil:
    """Flat rook/bishop attacks from sq (edges=True), or its blocker mask (edges=False: the
    squares before each ray's last square)."""
    cdef bb_t att = 0
    cdef int i, f, r
    for i in range(4):
        f = (sq & 7) + deltas[i][0]
        r = (sq >> 3) + deltas[i][1]
        while 0 <= f <= 7 and 0 <= r <= 7:
            if not edges:
                if not (0 <= f + deltas[i][0] <= 7 and 0 <= r + deltas[i][1] <= 7):
                    break
            att |= (<bb_t> 1) << (r * 8 + f)
            if edges and (occupied >> (r * 8 + f)) & 1:
                break
            f += deltas[i][0]
            r += deltas[i][1]
    return att


cdef int _fill_slider(Sliders* sl, SliderEntry* e, int sq, const int (*deltas)[2], uint32_t offset,
                      bb_t* occ, bb_t* ref, uint32_t* epoch_of, uint64_t* state) noexcept nogil:
    """Fill one square's block; with magic indexing, search a magic first. Returns the block size."""
    cdef bb_t sub = 0
    cdef int n = 0, i, bits
    cdef uint32_t epoch = 0
    cdef uint64_t idx
    cdef bint ok
    e.mask = _ride_attacks(sq, deltas, 0, False)
    bits = popcount(e.mask)
    e.shift = 64 - bits
    e.offset = offset
    e.magic = 0
    while True:
        occ[n] = sub
        ref[n] = _ride_attacks(sq, deltas, sub, True)
        n += 1
        sub = (sub - e.mask) & e.mask
        if sub == 0:
            break
    if FTC_PEXT:
        for i in range(n):
            sl.attacks[offset + slider_index(occ[i], e.mask, 0, e.shift)] = ref[i]
        return n
    memset(epoch_of, 0, n * sizeof(uint32_t))
    while True:
        e.magic = _xorshift(state) & _xorshift(state) & _xorshift(state)
        if popcount((e.mask * e.magic) >> 56) < 6:
            continue
        epoch += 1
        ok = True
        for i in range(n):
            idx = slider_index(occ[i], e.mask, e.magic, e.shift)
            if epoch_of[idx] != epoch:
                epoch_of[idx] = epoch
                sl.attacks[offset + idx] = ref[i]
            elif sl.attacks[offset + idx] != ref[i]:
                ok = False
                break
        if ok:
            return n


cdef const Sliders* _get_sliders() except NULL:
    global _SLIDERS
    cdef int sq
    cdef uint32_t offset = 0
    cdef uint64_t state = 0x9E3779B97F4A7C15ULL     # fixed seed: the same magics every run
    cdef int rook_d[4][2]
    cdef int bishop_d[4][2]
    cdef bb_t* occ
    cdef bb_t* ref
    cdef uint32_t* epoch_of
    cdef Sliders* sl
    cdef int i
    if _SLIDERS != NULL:
        return _SLIDERS
    for i in range(4):
        rook_d[i][0], rook_d[i][1] = ORTH[i]
        bishop_d[i][0], bishop_d[i][1] = DIAG[i]
    sl = <Sliders*> calloc(1, sizeof(Sliders))
    occ = <bb_t*> malloc(4096 * sizeof(bb_t))
    ref = <bb_t*> malloc(4096 * sizeof(bb_t))
    epoch_of = <uint32_t*> malloc(4096 * sizeof(uint32_t))
    if sl == NULL or occ == NULL or ref == NULL or epoch_of == NULL:
        free(sl)
        free(occ)
        free(ref)
        free(epoch_of)
        raise MemoryError()
    with nogil:
        for sq in range(64):
            offset += _fill_slider(sl, &sl.rook[sq], sq, rook_d, offset, occ, ref, epoch_of, &state)
        for sq in range(64):
            offset += _fill_slider(sl, &sl.bishop[sq], sq, bishop_d, offset, occ, ref, epoch_of, &state)
    free(occ)
    free(ref)
    free(epoch_of)
    assert offset == ROOK_ENTRIES + BISHOP_ENTRIES
    _SLIDERS = sl
    return sl


cdef int _group_slides(Rules* rules, UnitProgram* u, dict dirs) except -1:
    """slide_orth / slide_diag and flat_rides (see UnitProgram in _tables.pxd). The four directions
    of a group are symmetric under the 180-degree turn, so the grouping is the same for both colours.
    The Sliders are of the flat 8x8 board: on any other shape, and on a board with levels (whose
    rides stop at level changes, H3), every ride is walked on the shape's rays."""
    cdef int colour, i, j, modes
    cdef Ride* rd
    taken = set()
    u.slide_orth = 0
    u.slide_diag = 0
    flat8 = rules.geo.files == 8 and rules.geo.ranks == 8 and not rules.geo.has_heights
    for family in ((ORTH, DIAG) if flat8 else ()):
        want = [dirs[d] for d in family]
        picked = []
        modes = -1
        for d in want:
            found = None
            for i in range(u.n_rides):
                rd = &u.rides[BLUE][i]
                if (i not in taken and rd.dir == d and rd.lo == 1 and rd.hi >= RAY_LEN - 1
                        and rd.modes & (MODE_MARCH | MODE_CAPTURE) == rd.modes
                        and (modes < 0 or rd.modes == modes)):
                    found = i
                    break
            if found is None:
                break
            modes = u.rides[BLUE][found].modes
            picked.append(found)
        if len(picked) == 4 and modes > 0:
            taken.update(picked)
            if family is ORTH:
                u.slide_orth = modes
            else:
                u.slide_diag = modes
    for colour in range(2):
        j = 0
        for i in range(u.n_rides):
            if i not in taken:
                u.flat_rides[colour][j] = u.rides[colour][i]
                j += 1
    u.n_flat_rides = u.n_rides - len(taken)
    return 0
