"""Order generation: one data-driven generator for every unit type (RULINGS B, C8).

unit_targets() turns one unit's program into sets of squares; generate_orders() turns those sets into
orders (or only counts them, for perft leaves) and adds promotion choices (B18) and deploys (B19).
"""
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport malloc, free

from engine._tables cimport (bb_t, Rules, UnitProgram, Ride, Geometry, BLUE, YELLOW, popcount, lsb,
                             rook_attacks, bishop_attacks,
                             MODE_MARCH, MODE_CAPTURE, MODE_SHOOT, MODE_INITIAL,
                             PAT_PHANTOM, PAT_WARLORD, PAT_GRYPHON, PAT_SPHINX, PAT_CHARGE, PAT_SWAP,
                             PAT_FLIGHT)
from engine._board cimport (Board, encode_order, has_sovereign, capturable_units, units_of_types, make_order,
                            order_kind, order_origin,
                            KIND_MARCH, KIND_ATTACK, KIND_DEPLOY, KIND_SHOOT, KIND_SWAP, ST_ORDERED, ST_BANNED)

cdef enum:
    LEGAL_BUFFER = 8192         # orders of one position counted under chess legality (as ORDER_CAPACITY)


cdef inline bb_t BIT(int sq) noexcept nogil:
    return (<bb_t> 1) << sq


cdef inline void _walk(const int8_t* ray, int lo, int hi, int modes, bb_t occupied, bb_t capturable,
                       Targets* out) noexcept nogil:
    """Ride along ray: squares nearer than lo must be empty; the first unit met ends the ride and is
    captured if it is capturable and at distance lo..hi. The mover's own square is occupied, so a
    ray can never pass through it (B17)."""
    cdef int k, s
    for k in range(hi):
        s = ray[k]
        if s < 0:
            return
        if (occupied >> s) & 1:
            if k + 1 >= lo and (capturable >> s) & 1:
                if modes & MODE_CAPTURE:
                    out.capture |= BIT(s)
                elif modes & MODE_SHOOT:
                    out.shoot |= BIT(s)
            return
        if k + 1 >= lo and modes & MODE_MARCH:
            out.march |= BIT(s)


cdef inline void _walk_levels(const Geometry* g, const int8_t* ray, int origin, int lo, int hi, int modes,
                              bb_t occupied, bb_t capturable, Targets* out) noexcept nogil:
    """_walk on a board with levels (RULINGS H3): a square two levels above or below the one before
    it ends the ride before it; the first square at another level than the one before it is the
    ride's last (a destination, empty or captured, if at distance lo..hi). Until that square every
    square is at the origin's level, so each is compared with the origin."""
    cdef int k, s, dh
    cdef int level = g.height[origin]
    for k in range(hi):
        s = ray[k]
        if s < 0:
            return
        dh = g.height[s] - level
        if dh > 1 or dh < -1:
            return
        if (occupied >> s) & 1:
            if k + 1 >= lo and (capturable >> s) & 1:
                if modes & MODE_CAPTURE:
                    out.capture |= BIT(s)
                elif modes & MODE_SHOOT:
                    out.shoot |= BIT(s)
            return
        if k + 1 >= lo and modes & MODE_MARCH:
            out.march |= BIT(s)
        if dh:
            return


cdef inline void _bent_rider(const Geometry* g, const int8_t* steps, const int8_t* rides,
                             int sq, int cyl, int modes, bb_t occupied, bb_t capturable,
                             Targets* out) noexcept nogil:
    """Gryphon / Sphinx (B11): one step, then optionally ride in either of two outward directions.
    A capture on the step ends the move. Rays start at the step square and never re-enter it."""
    cdef int i, s
    for i in range(4):
        s = g.ray[cyl][steps[i]][sq][0]
        if s < 0:
            continue
        if (occupied >> s) & 1:
            if modes & MODE_CAPTURE and (capturable >> s) & 1:
                out.capture |= BIT(s)
            continue
        if modes & MODE_MARCH:
            out.march |= BIT(s)
        _walk(g.ray[cyl][rides[2 * i]][s], 1, 7, modes, occupied, capturable, out)
        _walk(g.ray[cyl][rides[2 * i + 1]][s], 1, 7, modes, occupied, capturable, out)


cdef void _bent_rider_levels(const Geometry* g, const int8_t* steps, const int8_t* rides,
                             int sq, int cyl, int modes, bb_t occupied, bb_t capturable,
                             Targets* out) noexcept nogil:
    """_bent_rider on a board with levels (H3): the step is one level at most, a step that changes
    level ends the move, and the rides after it stop as every ride does."""
    cdef int i, s, dh
    for i in range(4):
        s = g.ray[cyl][steps[i]][sq][0]
        if s < 0:
            continue
        dh = g.height[s] - g.height[sq]
        if dh > 1 or dh < -1:
            continue
        if (occupied >> s) & 1:
            if modes & MODE_CAPTURE and (capturable >> s) & 1:
                out.capture |= BIT(s)
            continue
        if modes & MODE_MARCH:
            out.march |= BIT(s)
        if dh:
            continue
        _walk_levels(g, g.ray[cyl][rides[2 * i]][s], s, 1, 7, modes, occupied, capturable, out)
        _walk_levels(g, g.ray[cyl][rides[2 * i + 1]][s], s, 1, 7, modes, occupied, capturable, out)


cdef void _level_rides(const Geometry* g, const Ride* rides, int n_rides, int sq, int colour, int cyl,
                       bint march, bb_t occupied, bb_t capturable, Targets* out) noexcept nogil:
    """The rides of one unit on a board with levels (kept out of _targets, which must stay small
    enough to be inlined into the generator loops of flat boards)."""
    cdef int i
    cdef const Ride* rd
    for i in range(n_rides):
        rd = &rides[i]
        if rd.modes & MODE_INITIAL and not (g.initial[colour] >> sq) & 1:
            continue            # only from the owner's first two ranks, not inside a castle (H5)
        _walk_levels(g, g.ray[cyl][rd.dir][sq], sq, rd.lo, rd.hi,
                     rd.modes if march else rd.modes & ~MODE_MARCH, occupied, capturable, out)


cdef inline bb_t _same_level(const Geometry* g, int sq, bb_t squares) noexcept nogil:
    """The squares of `squares` at sq's level."""
    cdef bb_t same = 0
    cdef int s
    while squares:
        s = lsb(squares)
        squares &= squares - 1
        if g.height[s] == g.height[sq]:
            same |= BIT(s)
    return same


cdef inline void _patterns(const Rules* rules, const UnitProgram* u, const Board* b, int sq,
                           int colour, int cyl, bb_t capturable, Targets* out) noexcept nogil:
    cdef const Geometry* g = &rules.geo
    cdef bb_t occupied = b.occupied
    cdef bb_t empty = ~occupied
    cdef bb_t own = b.by_colour[colour]
    cdef bb_t first, second, path
    cdef int modes, s, i, k, hit, dh
    cdef const int8_t* ray

    modes = u.pattern_modes[PAT_PHANTOM]
    if modes:
        # B9: two (1,2) leaps; the first lands on an empty square; the start counts as empty.
        first = g.knight[cyl][sq] & empty
        second = 0
        while first:
            s = lsb(first)
            first &= first - 1
            second |= g.knight[cyl][s]
        if modes & MODE_MARCH:
            out.march |= second & (empty | BIT(sq))
        if modes & MODE_CAPTURE:
            out.capture |= second & capturable

    modes = u.pattern_modes[PAT_WARLORD]
    if modes:
        # B10: one or two King steps; the middle square must be empty; a capture ends the move.
        first = g.king[cyl][sq]
        second = 0
        path = first & empty
        if g.has_heights:       # H3: a step that changes level ends the move
            path &= _same_level(g, sq, path)
        while path:
            s = lsb(path)
            path &= path - 1
            second |= g.king[cyl][s]
        if modes & MODE_MARCH:
            out.march |= (first & empty) | (second & (empty | BIT(sq)))
        if modes & MODE_CAPTURE:
            out.capture |= (first | second) & capturable

    modes = u.pattern_modes[PAT_GRYPHON]
    if modes:
        if g.has_heights:
            _bent_rider_levels(g, g.diag, &g.gryphon_ride[0][0], sq, cyl, modes, occupied, capturable, out)
        else:
            _bent_rider(g, g.diag, &g.gryphon_ride[0][0], sq, cyl, modes, occupied, capturable, out)
    modes = u.pattern_modes[PAT_SPHINX]
    if modes:
        if g.has_heights:
            _bent_rider_levels(g, g.orth, &g.sphinx_ride[0][0], sq, cyl, modes, occupied, capturable, out)
        else:
            _bent_rider(g, g.orth, &g.sphinx_ride[0][0], sq, cyl, modes, occupied, capturable, out)

    modes = u.pattern_modes[PAT_CHARGE]
    if modes:
        # B12: up to charge_range squares straight; passes through enemies, capturing each; never
        # through or onto a friendly or an immune unit.
        for i in range(4):
            ray = g.ray[cyl][g.orth[i]][sq]
            hit = 0
            path = 0
            for k in range(u.charge_range):
                s = ray[k]
                if s < 0 or (own >> s) & 1:
                    break
                dh = g.height[s] - g.height[sq]     # H3 (0 on a flat board)
                if dh > 1 or dh < -1:
                    break
                if (occupied >> s) & 1:
                    if not (capturable >> s) & 1 or not modes & MODE_CAPTURE:
                        break
                    hit = 1
                    path |= BIT(s)
                if hit:
                    out.capture |= BIT(s)
                elif modes & MODE_MARCH:
                    out.march |= BIT(s)
                if dh:
                    break
            out.covered |= path

    if u.pattern_modes[PAT_SWAP]:
        # B15: a Spy marches by swapping with any other friendly unit on the board.
        out.swap |= own & ~BIT(sq)

    modes = u.pattern_modes[PAT_FLIGHT]
    if modes:
        # H7: where the next square holds a teammate, fly over the unbroken line of teammates and
        # land on the first square after it: empty, or an enemy it may capture. Never over an
        # enemy, never off the board; levels do not matter.
        for i in range(8):
            ray = g.ray[cyl][g.orth[i] if i < 4 else g.diag[i - 4]][sq]
            if ray[0] < 0 or not (own >> ray[0]) & 1:
                continue
            k = 1
            while ray[k] >= 0 and (own >> ray[k]) & 1:
                k += 1
            s = ray[k]
            if s < 0:
                continue
            if not (occupied >> s) & 1:
                if modes & MODE_MARCH:
                    out.march |= BIT(s)
            elif modes & MODE_CAPTURE and (capturable >> s) & 1:
                out.capture |= BIT(s)


cdef inline void _basic(const Rules* rules, const UnitProgram* u, const Board* b, int sq, int colour,
                        int cyl, bb_t capturable, Targets* out, bint march, bint levels) noexcept nogil:
    """A unit's leaps, slides and rides (no named pattern); with `levels` the rides obey H3."""
    cdef bb_t occupied = b.occupied
    cdef const Ride* rides
    cdef const Ride* rd
    cdef bb_t att
    cdef int i, n_rides
    out.march = u.leap_march[cyl][colour][sq] & ~occupied if march else 0
    out.capture = u.leap_capture[cyl][colour][sq] & capturable
    out.shoot = 0
    out.swap = 0
    out.covered = 0
    if cyl:
        rides = u.rides[colour]
        n_rides = u.n_rides
    else:
        # Flat rook / bishop rides: one table lookup each (Sliders, _tables.pxd).
        rides = u.flat_rides[colour]
        n_rides = u.n_flat_rides
        if u.slide_orth:
            att = rook_attacks(rules.sliders, sq, occupied)
            if march and u.slide_orth & MODE_MARCH:
                out.march |= att & ~occupied
            if u.slide_orth & MODE_CAPTURE:
                out.capture |= att & capturable
        if u.slide_diag:
            att = bishop_attacks(rules.sliders, sq, occupied)
            if march and u.slide_diag & MODE_MARCH:
                out.march |= att & ~occupied
            if u.slide_diag & MODE_CAPTURE:
                out.capture |= att & capturable
    if levels:
        _level_rides(&rules.geo, rides, n_rides, sq, colour, cyl, march, occupied, capturable, out)
        return
    for i in range(n_rides):
        rd = &rides[i]
        if rd.modes & MODE_INITIAL and not (rules.geo.home_ranks[colour] >> sq) & 1:
            continue            # only from the owner's first two ranks (B1)
        _walk(rules.geo.ray[cyl][rd.dir][sq], rd.lo, rd.hi, rd.modes if march else rd.modes & ~MODE_MARCH, occupied, capturable, out)


cdef void _general_targets(const Rules* rules, const UnitProgram* u, const Board* b, int sq, int colour,
                           int cyl, bb_t capturable, Targets* out, bint march) noexcept nogil:
    """A unit's targets on a board with levels or in a game where only a Sovereign captures some
    types (Rules.special): out of line, so that the plain path stays small enough to be inlined
    into the generator loops."""
    if rules.sovereign_prey_types and not u.sovereign:
        capturable &= ~units_of_types(b, rules.sovereign_prey_types)   # H6: only a Sovereign takes them
    _basic(rules, u, b, sq, colour, cyl, capturable, out, march, rules.geo.has_heights)
    if u.has_patterns:
        _patterns(rules, u, b, sq, colour, cyl, capturable, out)


# The generator loops are compiled twice (a fused type): For the Crown's catalogs (Plain) see exactly
# the plain path below, inlined; a catalog with board levels, types only a Sovereign captures or
# any [rules] switch (Rules.special) takes the general path for every unit. One branch per
# position chooses.
ctypedef struct Plain:
    char unused
ctypedef struct Special:
    char unused
ctypedef fused Path:
    Plain
    Special


cdef inline void _targets(const Rules* rules, const Board* b, int sq, int colour, bint cyl_all,
                         bb_t capturable, Targets* out, bint march, bint covered, Path* path) noexcept nogil:
    """unit_targets(); with march false (capture_coverage) out.march may be incomplete, with covered
    false (generate_orders) out.covered may be. Inlined into the generator loops, where the
    constant flags remove the work nobody reads."""
    cdef int t = b.square_type[sq]
    cdef const UnitProgram* u = &rules.units[t]
    cdef int cyl = 1 if (cyl_all or u.cylindrical) else 0
    if Path is Special:
        _general_targets(rules, u, b, sq, colour, cyl, capturable, out, march)
    else:
        _basic(rules, u, b, sq, colour, cyl, capturable, out, march, False)
        if u.has_patterns:
            _patterns(rules, u, b, sq, colour, cyl, capturable, out)
    if covered:
        out.covered |= out.capture | out.shoot


cdef void unit_targets(const Rules* rules, const Board* b, int sq, int colour, bint cyl_all,
                       bb_t capturable, Targets* out) noexcept nogil:
    cdef Plain plain
    cdef Special special
    if rules.special:
        _targets(rules, b, sq, colour, cyl_all, capturable, out, True, True, &special)
    else:
        _targets(rules, b, sq, colour, cyl_all, capturable, out, True, True, &plain)


cdef uint64_t _stock_types(const Rules* rules, const Board* b) noexcept nogil:
    cdef uint64_t mask = 0
    cdef int t
    for t in range(rules.n_types):
        if b.stock[t] > 0:
            mask |= (<uint64_t> 1) << t
    return mask


cdef uint64_t _freed_types(const Rules* rules, const Board* b, int sq, int dest) noexcept nogil:
    """Types whose Stock is empty now but gains a unit when the attack sq -> dest captures (B18:
    captured units are back in the Stock before the promotion choice)."""
    cdef uint64_t mask = 0
    cdef bb_t victims = BIT(dest)
    cdef int i, k, s, t
    cdef const int8_t* ray
    if rules.units[b.square_type[sq]].pattern_modes[PAT_CHARGE]:
        victims = 0
        for i in range(4):
            ray = rules.geo.ray[1][rules.geo.orth[i]][sq]
            for k in range(3):
                if ray[k] < 0:
                    break
                if ray[k] == dest:
                    for s in range(k + 1):
                        victims |= BIT(ray[s]) & b.occupied
                    break
    while victims:
        s = lsb(victims)
        victims &= victims - 1
        t = b.square_type[s]
        if b.stock[t] == 0 and not rules.units[t].to_barracks:
            mask |= (<uint64_t> 1) << t
    return mask


cdef inline long _emit(uint32_t* orders, long n, long capacity, bb_t targets, int kind, int sq,
                       int t) noexcept nogil:
    cdef int s
    while targets:
        s = lsb(targets)
        targets &= targets - 1
        if n >= capacity:
            return -1
        orders[n] = encode_order(kind, sq, s, t, -1)
        n += 1
    return n


cdef inline long _emit_promotions(uint32_t* orders, long n, long capacity, int kind, int sq, int dest,
                                  int t, uint64_t choices, bint keep) noexcept nogil:
    """One order per promotion choice; one that keeps the unit as it is (promotion -1) when `keep`
    (H5) or when no type can be chosen (B18)."""
    cdef int p
    if keep or not choices:
        if n >= capacity:
            return -1
        orders[n] = encode_order(kind, sq, dest, t, -1)
        n += 1
    while choices:
        p = lsb(choices)
        choices &= choices - 1
        if n >= capacity:
            return -1
        orders[n] = encode_order(kind, sq, dest, t, p)
        n += 1
    return n


cdef uint64_t _barracks_types(const Rules* rules, const Board* b, int colour) noexcept nogil:
    cdef uint64_t mask = 0
    cdef int t
    for t in range(rules.n_types):
        if b.barracks[colour][t] > 0:
            mask |= (<uint64_t> 1) << t
    return mask


cdef long _orders_loop(const Rules* rules, const Board* b, bint cyl_all, uint32_t* orders,
                       long capacity, bint over_without_sovereign, Path* path,
                       bint tactical=False) noexcept nogil:
    cdef int side = b.side
    cdef int other = 1 - side
    cdef bb_t capturable, movers, last_rank, deploy_zone, promo_dests, bits
    cdef uint64_t available = 0, choices
    cdef bint available_known = False
    cdef bint counting = orders == NULL
    cdef bint fallen = False
    cdef long n = 0
    cdef int sq, t, dest, k
    cdef Targets tg

    # C2/C8: a side without a Sovereign on the board has lost; the game is over.
    if over_without_sovereign and not (has_sovereign(rules, b, side) and has_sovereign(rules, b, other)):
        return 0
    if Path is Special:
        fallen = rules.promote_fallen
    capturable = capturable_units(b, other)
    movers = b.by_colour[side] & ~(b.status[ST_ORDERED] | b.status[ST_BANNED])
    last_rank = rules.geo.last_rank[side]

    while movers:
        sq = lsb(movers)
        movers &= movers - 1
        t = b.square_type[sq]
        _targets(rules, b, sq, side, cyl_all, capturable, &tg, True, False, path)
        promo_dests = 0
        if rules.units[t].foot:
            promo_dests = (tg.march | tg.capture) & last_rank
        if counting:
            # march squares are empty and capture squares occupied; shoot targets are enemies and
            # swap partners friends: each pair is disjoint, so one popcount counts both.
            n += popcount((tg.march | tg.capture) & ~promo_dests) + popcount(tg.shoot | tg.swap)
        elif tactical:      # captures and promotions only, in the order of the full list
            n = _emit(orders, n, capacity, tg.capture & ~promo_dests, KIND_ATTACK, sq, t)
            if n >= 0:
                n = _emit(orders, n, capacity, tg.shoot, KIND_SHOOT, sq, t)
            if n < 0:
                return -1
        else:
            n = _emit(orders, n, capacity, tg.march & ~promo_dests, KIND_MARCH, sq, t)
            if n >= 0:
                n = _emit(orders, n, capacity, tg.capture & ~promo_dests, KIND_ATTACK, sq, t)
            if n >= 0:
                n = _emit(orders, n, capacity, tg.shoot, KIND_SHOOT, sq, t)
            if n >= 0:
                n = _emit(orders, n, capacity, tg.swap, KIND_SWAP, sq, t)
            if n < 0:
                return -1
        if promo_dests:
            if not available_known:
                if fallen:      # H5: the owner's fallen pieces (its Barracks)
                    available = b.promote_types & _barracks_types(rules, b, side)
                else:           # B18: the shared Stock
                    available = b.promote_types & _stock_types(rules, b)
                available_known = True
            bits = promo_dests
            while bits:
                dest = lsb(bits)
                bits &= bits - 1
                choices = available
                if not fallen and (tg.capture >> dest) & 1:
                    choices |= b.promote_types & _freed_types(rules, b, sq, dest)
                if counting:
                    k = popcount(choices)
                    n += k + 1 if fallen else (k if k else 1)
                else:
                    n = _emit_promotions(orders, n, capacity,
                                         KIND_ATTACK if (tg.capture >> dest) & 1 else KIND_MARCH,
                                         sq, dest, t, choices, fallen)
                    if n < 0:
                        return -1

    # B19: a Barracks unit goes to an empty square of the first rank (Foot: first or second).
    if tactical:
        return n
    if Path is Special:
        if rules.no_deploys:
            return n
    for t in range(rules.n_types):
        if b.barracks[side][t] <= 0:
            continue
        deploy_zone = rules.geo.home_ranks[side] if rules.units[t].foot else rules.geo.home_rank[side]
        deploy_zone &= ~b.occupied
        if counting:
            n += popcount(deploy_zone)
        else:
            n = _emit(orders, n, capacity, deploy_zone, KIND_DEPLOY, 0, t)
            if n < 0:
                return -1
    return n


cdef bint _sovereign_attacked(const Rules* rules, const Board* b, int colour, bint cyl_all) noexcept nogil:
    """Whether some unit of the other colour could capture a Sovereign of `colour` now, by the paths
    and stops of its moves (RULINGS H3, H8a)."""
    cdef bb_t kings = 0, units
    cdef int i, sq, enemy = 1 - colour
    cdef Targets tg
    cdef Special special
    for i in range(rules.n_sovereign_types):
        kings |= b.by_type[rules.sovereign_types[i]] & b.by_colour[colour]
    if not kings:
        return False
    units = b.by_colour[enemy]
    while units:
        sq = lsb(units)
        units &= units - 1
        _targets(rules, b, sq, enemy, cyl_all, kings, &tg, False, True, &special)
        if tg.covered & kings:
            return True
    return False


cdef long generate_orders(const Rules* rules, const Board* b, bint cyl_all, uint32_t* orders,
                          long capacity, bint over_without_sovereign=True) noexcept nogil:
    cdef uint32_t* buffer
    cdef long n
    cdef Plain plain
    cdef Special special
    if not rules.special:       # For the Crown and King's Ransom: the plain path
        return _orders_loop(rules, b, cyl_all, orders, capacity, over_without_sovereign, &plain)
    if b.won_on_x:
        return 0                # H8b: the game is over
    if not rules.chess_legality:
        return _orders_loop(rules, b, cyl_all, orders, capacity, over_without_sovereign, &special)
    if orders != NULL:
        return _legal_orders(rules, b, cyl_all, orders, capacity, over_without_sovereign)
    # Counting under chess legality needs the orders (perft passes its own buffer instead).
    buffer = <uint32_t*> malloc(LEGAL_BUFFER * sizeof(uint32_t))
    if buffer == NULL:
        return -1
    n = _legal_orders(rules, b, cyl_all, buffer, LEGAL_BUFFER, over_without_sovereign)
    free(buffer)
    return n


cdef long generate_tactical(const Rules* rules, const Board* b, bint cyl_all, uint32_t* orders,
                            long capacity) noexcept nogil:
    cdef Plain plain
    if rules.special:
        return generate_orders(rules, b, cyl_all, orders, capacity, True)
    return _orders_loop(rules, b, cyl_all, orders, capacity, True, &plain, True)


cdef long _legal_orders(const Rules* rules, const Board* b, bint cyl_all, uint32_t* orders,
                        long capacity, bint over_without_sovereign) noexcept nogil:
    """H8a: the orders after which the mover's Sovereign is not capturable, in generation order."""
    cdef Board probe
    cdef long n, i, kept = 0
    cdef int side = b.side, kind, origin
    cdef uint32_t m
    cdef bb_t kings = 0, exposed = ~(<bb_t> 0)
    cdef Special special
    n = _orders_loop(rules, b, cyl_all, orders, capacity, over_without_sovereign, &special)
    if n < 0:
        return -1
    if rules.line_discoveries and not cyl_all:
        # Rules.line_discoveries: when the King is not attacked now, a march or attack of another
        # piece can only expose it by leaving a square on one of the King's eight lines (a slide
        # runs along such a line; leaps, steps and flights do not pass the squares a piece leaves),
        # so only those orders and the King's own are tried.
        for i in range(rules.n_sovereign_types):
            kings |= b.by_type[rules.sovereign_types[i]] & b.by_colour[side]
        if kings and not (kings & (kings - 1)) and not _sovereign_attacked(rules, b, side, cyl_all):
            exposed = rules.geo.lines[lsb(kings)] | kings
    for i in range(n):
        m = orders[i]
        kind = order_kind(m)
        origin = order_origin(m)
        if not ((kind == KIND_MARCH or kind == KIND_ATTACK) and not (exposed >> origin) & 1):
            memcpy(&probe, b, sizeof(Board))
            make_order(rules, &probe, m)
            if _sovereign_attacked(rules, &probe, side, cyl_all):
                continue
        orders[kept] = m
        kept += 1
    return kept


cdef bb_t capture_coverage(const Rules* rules, const Board* b, int colour, bint cyl_all) noexcept nogil:
    cdef Plain plain
    cdef Special special
    if rules.special:
        return _coverage_loop(rules, b, colour, cyl_all, &special)
    return _coverage_loop(rules, b, colour, cyl_all, &plain)


cdef bb_t _coverage_loop(const Rules* rules, const Board* b, int colour, bint cyl_all, Path* path) noexcept nogil:
    cdef bb_t capturable = capturable_units(b, 1 - colour)
    cdef bb_t units = b.by_colour[colour]
    cdef bb_t covered = 0
    cdef int sq
    cdef Targets tg
    while units:
        sq = lsb(units)
        units &= units - 1
        _targets(rules, b, sq, colour, cyl_all, capturable, &tg, False, True, path)
        covered |= tg.covered
    return covered
