"""Rule tables: geometry (rays, steps, leaps, flat and cylindrical) and one program per unit type.

Built from an engine.catalog.Catalog. Nothing here is game logic; it turns data into lookup tables
(see _tables.pxd for the layout).
"""
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from engine.movespec import MODE_CAPTURE as PY_MODE_CAPTURE, MODE_MARCH as PY_MODE_MARCH

_PATTERN_INDEX = {"phantom": PAT_PHANTOM, "warlord": PAT_WARLORD, "gryphon": PAT_GRYPHON,
                  "sphinx": PAT_SPHINX, "charge": PAT_CHARGE, "swap": PAT_SWAP}

ORTH = ((0, 1), (1, 0), (0, -1), (-1, 0))          # N E S W
DIAG = ((1, 1), (1, -1), (-1, -1), (-1, 1))        # NE SE SW NW


cdef int _target(int sq, int dx, int dy, bint cyl):
    """Square reached from sq by (dx, dy), or -1 off the board. Files wrap on a cylinder (B17)."""
    cdef int f = (sq & 7) + dx
    cdef int r = (sq >> 3) + dy
    if r < 0 or r > 7:
        return -1
    if cyl:
        f = f % 8
        if f < 0:
            f += 8
    elif f < 0 or f > 7:
        return -1
    return r * 8 + f


cdef class RuleTables:
    """Kernel tables for one unit catalog. Positions built on the same catalog share one instance."""

    def __cinit__(self, catalog):
        self.rules = <Rules*> calloc(1, sizeof(Rules))
        if self.rules == NULL:
            raise MemoryError()
        self.catalog = catalog
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
        for t, unit in enumerate(units):
            _build_unit(self.rules, t, unit, dirs)

    def __dealloc__(self):
        free(self.rules)



cdef int _dir_index(dict dirs, tuple d) except -1:
    if d not in dirs:
        if len(dirs) >= MAX_DIRS:
            raise ValueError(f"the catalog uses more than {MAX_DIRS} ride directions")
        dirs[d] = len(dirs)
    return dirs[d]


cdef int _build_geometry(Geometry* g, dict dirs) except -1:
    cdef int cyl, sq, k, s, i
    g.n_dirs = len(dirs)
    for (dx, dy), i in dirs.items():
        g.dirs[i][0] = dx
        g.dirs[i][1] = dy
        for cyl in range(2):
            for sq in range(64):
                memset(g.ray[cyl][i][sq], -1, RAY_LEN)
                # A ride never re-enters a square it has visited, so on a cylinder a sideways
                # ride stops before it would come back to its starting square (B17).
                s = sq
                k = 0
                while k < RAY_LEN - 1:
                    s = _target(s, dx, dy, cyl)
                    if s < 0 or s == sq:
                        break
                    g.ray[cyl][i][sq][k] = s
                    k += 1
    for cyl in range(2):
        for sq in range(64):
            g.king[cyl][sq] = 0
            g.knight[cyl][sq] = 0
            for dx, dy in ORTH + DIAG:
                s = _target(sq, dx, dy, cyl)
                if s >= 0:
                    g.king[cyl][sq] |= (<bb_t> 1) << s
            for dx, dy in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
                s = _target(sq, dx, dy, cyl)
                if s >= 0:
                    g.knight[cyl][sq] |= (<bb_t> 1) << s
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
    for i in range(8):
        g.rank_mask[i] = (<bb_t> 0xFF) << (8 * i)

cdef int _build_unit(Rules* rules, int t, unit, dict dirs) except -1:
    cdef UnitProgram* u = &rules.units[t]
    cdef int cyl, colour, sq, s, n
    cdef int sign
    compiled = unit.compiled
    u.foot = unit.is_foot
    u.sovereign = unit.is_sovereign
    u.cylindrical = unit.cylindrical
    u.to_barracks = unit.captured_to == "barracks"
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
                for leap in compiled.leaps:
                    s = _target(sq, sign * leap.dx, sign * leap.dy, cyl)
                    if s < 0:
                        continue
                    if leap.modes & PY_MODE_MARCH:
                        u.leap_march[cyl][colour][sq] |= (<bb_t> 1) << s
                    if leap.modes & PY_MODE_CAPTURE:
                        u.leap_capture[cyl][colour][sq] |= (<bb_t> 1) << s
        if len(compiled.rides) > MAX_RIDES:
            raise ValueError(f"unit {unit.token}: more than {MAX_RIDES} rides")
        for n, ride in enumerate(compiled.rides):
            u.rides[colour][n].dir = dirs[(sign * ride.dx, sign * ride.dy)]
            u.rides[colour][n].lo = ride.lo
            u.rides[colour][n].hi = ride.hi
            u.rides[colour][n].modes = ride.modes
    u.n_rides = len(compiled.rides)
    for name, modes in compiled.patterns.items():
        u.pattern_modes[_PATTERN_INDEX[name]] = modes
        u.has_patterns = 1
    u.charge_range = compiled.charge_range
