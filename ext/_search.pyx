"""Principal-variation search over the order tree (RULINGS C8), with the selectivity of a modern chess
engine adapted to Sovereign capture instead of checkmate:

- transposition table in buckets of TT_WAYS with aging; mate-distance pruning; repetition draws;
- a Sovereign that the opponent could capture now is what check is in chess: such a node is never
  pruned by null move, futility, razoring or late-move pruning, and no move that captures a
  Sovereign, saves one (any move at such a node) or threatens one is reduced. It is not extended:
  with the threatening orders never reduced, a ply more at every threat cost depth everywhere else
  (without it, +63 Elo in self-play at 50,000 nodes an order, docs/nnue-matches.md);
- reverse futility pruning, razoring, null-move pruning (not when the side to move has only Foot
  units and Sovereigns, where passing would help), internal iterative reduction, futility and
  late-move pruning of quiet orders, late-move reductions with a logarithmic table;
- singular extensions: a table order whose lower bound no other order comes near (a search of the
  node without it, at half depth, fails low) is searched one ply deeper; when the others beat that
  bound too and it is above beta, the node is cut at once (multi-cut);
- ordering: table order, captures by static exchange (SEE) and victim value, promotions, killers,
  counter-orders, piece-to history and continuation history (by the orders one, two and four
  plies before) with gravity; losing captures last; quiet orders with a bad history are pruned at low
  depth, and a good or bad history shortens or lengthens a reduction;
- quiescence on captures and promotions with SEE and delta pruning, generated alone
  (generate_tactical: no march, swap or deploy is made only to be dropped); at a threatened
  Sovereign it searches every order (evasions) for its first plies;
- a correction history: how far the searches of positions with the same Foot structure (both
  sides' Foot squares, hashed) ended from their static evaluation, by side to move, is added to
  every static evaluation (full-width and quiescence), so that pruning and standing pat trust an
  evaluation the search has found wrong for this structure less (Stockfish's idea).

The evaluation is tapered between middlegame and endgame: material, piece-square tables derived
from every unit's movement, dynamic mobility, Foot structure (advance, doubled, isolated, passed),
Sovereign shelter, attacks on the Sovereign's neighbourhood, tempo. No Python object per node.
"""
from libc.math cimport log
from libc.stdint cimport uint64_t, uint32_t, int32_t, int16_t, int8_t, uint8_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcmp, memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._tables cimport (Rules, RuleTables, MAX_TYPES, BLUE, YELLOW, bb_t, popcount, lsb, PAT_FLIGHT)
from engine._board cimport (Board, make_order, end_turn, set_side, has_sovereign, order_kind, order_dest,
                            order_origin, order_unit, order_promo, put_unit, encode_order, capturable_units,
                            units_of_types, KIND_MARCH, KIND_ATTACK, KIND_SHOOT, KIND_DEPLOY, ST_ORDERED, ST_BANNED)
from engine._movegen cimport generate_orders, generate_tactical, capture_coverage, unit_targets, Targets
from engine._position cimport BoardCore
from engine._nnue cimport NnueNet, NnueAccumulator, Network, nnue_refresh, nnue_update, nnue_output, nnue_knows

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* The transposition table (and the continuation histories): zeroed memory, on 2 MB pages where
       Linux gives them (transparent huge pages asked for with madvise): a probe is a random access
       into megabytes, and with 4 KB pages nearly every one also misses the TLB. Freed with free(). */
    static void* ftc_tt_alloc(size_t bytes) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        const size_t huge = (size_t) 2 << 20;
        void* p = NULL;
        if (bytes >= huge && posix_memalign(&p, huge, bytes) == 0) {
            madvise(p, bytes, MADV_HUGEPAGE);
            memset(p, 0, bytes);
            return p;
        }
    #endif
        return calloc(bytes, 1);
    }
    /* Ask for a cache line ahead of its use (the child's table bucket while the child is set up). */
    static inline void ftc_prefetch(const void* p) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p);
    #else
        (void) p;
    #endif
    }
    """
    void* ftc_tt_alloc(size_t bytes) nogil
    void ftc_prefetch(const void* p) nogil


cdef double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int32_t _abs(int32_t x) noexcept nogil:
    return -x if x < 0 else x


cdef inline int32_t _gravity(int32_t h, int32_t bonus, int32_t limit) noexcept nogil:
    """A history or correction entry ``h`` after a reward (bonus > 0) or a punishment: the bigger
    |h|, the less it moves, so it stays within +-``limit`` (HISTORY_LIMIT, CORR_LIMIT) while
    |bonus| <= ``limit``."""
    return h + bonus - h * _abs(bonus) // limit


cdef inline int _rel_rank(int sq, int colour) noexcept nogil:
    return (sq >> 3) if colour == BLUE else 7 - (sq >> 3)


cdef int _require_8x8(RuleTables tables, str what) except -1:
    """The search, its piece-square tables and relative ranks are of the 8x8 board: refuse tables
    built for any other board shape (King's Ransom's 3x6 arena) rather than compute nonsense."""
    cdef const Rules* rules = tables.rules
    if rules.geo.files != 8 or rules.geo.ranks != 8:
        source = getattr(tables.catalog, "source", "<catalog>")
        raise ValueError(f"{what}: the search is for the 8x8 board, but {source} is "
                         f"{rules.geo.files}x{rules.geo.ranks}")
    if rules.special and not rules.chess_legality:
        # Board levels, X squares or [rules] switches are searched with chess legality only (Crusade
        # & Conquer, RULINGS H8: legal orders, checkmate, stalemate, the X win). With Sovereign-capture
        # legality (C8) nobody has worked out what they mean together (may a Flag Bearer's X win
        # stand while its King is capturable?), so such tables are refused.
        source = getattr(tables.catalog, "source", "<catalog>")
        raise ValueError(f"{what}: the search knows board levels, X squares and the [rules] switches only "
                         f"with chess legality (legality = \"chess\"), which {source} does not have")
    return 0


cdef bb_t FILE_A = 0x0101010101010101ULL

cdef enum:
    MAX_HISTORY = 256           # game positions before the root kept for repetition checks
    LAZY_MARGIN = 400           # the dynamic evaluation terms rarely move a score further
    SEE_PENDING = 1 << 27       # added to a capture's ordering score until its exchange is evaluated
    CLOCK_INTERVAL = 256        # budget checks between two readings of the clock (one per finished node)
    HISTORY_LIMIT = 16384       # the bound of every history entry (gravity, _gravity)
    CORR_SIZE = 16384           # entries per side of the correction history (a power of two)
    CORR_LIMIT = 1024           # the bound of a correction entry; the correction is entry / CORR_GRAIN
    CORR_GRAIN = 16
    CONT_SIZE = 2 * MAX_TYPES * 64 * MAX_TYPES * 64   # int16 entries of the continuation history
    DRAW_PLIES = 100            # H8c: plies without a capture or a Pawn move that draw (chess legality)

#: A Sovereign-loss score (mate in n plies scores +-(MATE_SCORE - n)) and the search's infinity, as
#: declared in _search.pxd (MATE, INF): engine/board/alphabeta.py takes its MATE and INF from here.
MATE_SCORE = MATE
INF_SCORE = INF

#: The tunable numbers of the evaluation, in the order of eval_features (engine/board/evaluate.py
#: maps them to the fields of eval.toml).
FEATURE_NAMES = tuple(
    ["mobility", "sovereign_attacked", "extra_sovereign", "shelter", "zone_attack", "tempo"]
    + [f"{name}.{p}" for name in ("pst_mobility", "foot_doubled", "foot_isolated", "sovereign_centre") for p in (0, 1)]
    + [f"{name}.{p}.{r}" for name in ("foot_advance", "foot_passed", "sovereign_rank") for p in (0, 1) for r in range(8)])

cdef inline bb_t _file_mask(int f) noexcept nogil:
    return FILE_A << f

cdef inline bb_t _adjacent_files(int f) noexcept nogil:
    cdef bb_t m = 0
    if f > 0:
        m |= FILE_A << (f - 1)
    if f < 7:
        m |= FILE_A << (f + 1)
    return m

cdef inline bb_t _ahead(int sq, int colour) noexcept nogil:
    """Squares strictly ahead of ``sq`` (towards the colour's eighth rank), on every file."""
    cdef int r = sq >> 3
    if colour == BLUE:
        return 0 if r == 7 else (~0ULL) << (8 * (r + 1))
    return 0 if r == 0 else (~0ULL) >> (8 * (8 - r))


cdef inline int32_t _to_tt(int32_t score, int ply) noexcept nogil:
    """A mate score as stored in the table: distance from the stored node, not from the root."""
    if score > MATE - MAX_PLY:
        return score + ply
    if score < -MATE + MAX_PLY:
        return score - ply
    return score


cdef inline int32_t _from_tt(int32_t score, int ply) noexcept nogil:
    """A table score read at ``ply``: mate distances counted from the root again."""
    if score > MATE - MAX_PLY:
        return score - ply
    if score < -MATE + MAX_PLY:
        return score + ply
    return score


ctypedef struct FootStructure:
    int doubled                 # Foot units sharing their file with another own Foot unit
    int isolated                # Foot units with no own Foot unit on a neighbouring file
    int passed[8]               # passed Foot units by relative rank (no enemy Foot ahead on its file or next)


cdef inline void _foot_structure(bb_t own, bb_t enemy, int colour, FootStructure* out) noexcept nogil:
    """The counts behind the Foot-structure terms of one side (evaluate and eval_features)."""
    cdef bb_t bits = own
    cdef int sq, f
    memset(out, 0, sizeof(FootStructure))
    while bits:
        sq = lsb(bits)
        bits &= bits - 1
        f = sq & 7
        if popcount(own & _file_mask(f)) > 1:
            out.doubled += 1
        if not (own & _adjacent_files(f)):
            out.isolated += 1
        if not (enemy & _ahead(sq, colour) & (_file_mask(f) | _adjacent_files(f))):
            out.passed[_rel_rank(sq, colour)] += 1


# -- the static evaluation: one implementation, used by AlphaBeta and board_value ------------------
cdef void load_weights_into(Weights* w, dict weights) except *:
    """The [weights] of engine/board/evaluate.py (EvalWeights.kernel_dict) into ``w``."""
    cdef int t, p, r
    memset(w, 0, sizeof(Weights))
    for t, value in enumerate(weights["values"]):
        w.value[t] = value
    w.barracks_percent = weights["barracks_percent"]
    w.mobility = weights["mobility"]
    w.sovereign_attacked = weights["sovereign_attacked"]
    w.extra_sovereign = weights["extra_sovereign"]
    w.shelter = weights["shelter"]
    w.zone_attack = weights["zone_attack"]
    w.tempo = weights["tempo"]
    for p in range(N_PHASES):
        w.pst_mobility[p] = weights["pst_mobility"][p]
        w.foot_doubled[p] = weights["foot_doubled"][p]
        w.foot_isolated[p] = weights["foot_isolated"][p]
        w.sovereign_centre[p] = weights["sovereign_centre"][p]
        for r in range(8):
            w.foot_advance[p][r] = weights["foot_advance"][p][r]
            w.foot_passed[p][r] = weights["foot_passed"][p][r]
            w.sovereign_rank[p][r] = weights["sovereign_rank"][p][r]
    w.phase_total = max(1, weights["phase_total"])
    w.x_unstoppable = weights.get("x_unstoppable", 0)
    w.flight = weights.get("flight", 0)
    for p in range(N_PHASES):
        w.castle_floor[p] = weights.get("castle_floor", (0, 0))[p]
        for r in range(8):
            w.x_race[p][r] = weights.get("x_race", ((0,) * 8, (0,) * 8))[p][r]


cdef void build_eval_tables(const Rules* rules, const Weights* w, EvalTables* et) noexcept:
    """Piece-square tables from each unit's reach on an otherwise empty board (both
    topologies), so every unit type, fairy or expansion, gets a sensible table."""
    cdef Board b
    cdef Targets tg
    cdef int cyl, t, colour, sq, p
    cdef int reach[64]
    cdef long total
    cdef int32_t mean_x16, centre
    et.foot_types = rules.foot_types
    et.sovereign_types = 0
    for t in range(rules.n_sovereign_types):
        et.sovereign_types |= 1ULL << rules.sovereign_types[t]
    for cyl in range(2):
        for t in range(rules.n_types):
            for colour in range(2):
                total = 0
                for sq in range(64):
                    memset(&b, 0, sizeof(Board))
                    for p in range(64):
                        b.square_type[p] = -1
                    put_unit(&b, sq, t, colour)
                    unit_targets(rules, &b, sq, colour, cyl == 1, 0, &tg)
                    reach[sq] = popcount((tg.march | tg.capture | tg.shoot) & ~(1ULL << sq))
                    et.reach[cyl][t][colour][sq] = tg.march | tg.capture | tg.shoot | tg.covered
                    total += reach[sq]
                for sq in range(64):                            # captures next to enemies
                    memset(&b, 0, sizeof(Board))
                    for p in range(64):
                        b.square_type[p] = -1
                    for p in range(64):
                        if p != sq:
                            put_unit(&b, p, rules.sovereign_types[0], 1 - colour)
                    put_unit(&b, sq, t, colour)
                    unit_targets(rules, &b, sq, colour, cyl == 1, b.by_colour[1 - colour], &tg)
                    et.reach[cyl][t][colour][sq] |= tg.capture | tg.shoot | tg.covered
                mean_x16 = <int32_t> (total * 16 // 64)
                for sq in range(64):
                    centre = reach[sq] * 16 - mean_x16          # sixteenths of a square
                    et.centre[cyl][t][colour][sq] = centre
                    for p in range(N_PHASES):
                        if (rules.foot_types >> t) & 1:
                            et.pst[cyl][t][colour][sq][p] = w.foot_advance[p][_rel_rank(sq, colour)]
                        elif (et.sovereign_types >> t) & 1:
                            et.pst[cyl][t][colour][sq][p] = (
                                w.sovereign_rank[p][_rel_rank(sq, colour)]
                                + centre * w.sovereign_centre[p] // 16)
                        else:
                            et.pst[cyl][t][colour][sq][p] = centre * w.pst_mobility[p] // 16
    _build_level_tables(rules, et)


cdef void _build_level_tables(const Rules* rules, EvalTables* et) noexcept:
    """What the evaluation and the threat test need of flights and X squares (RULINGS H7, H8b):
    a flight can capture anywhere along the unit's eight lines, whatever the empty or full boards of
    build_eval_tables showed (they hold no teammate to fly over), so those lines join its reach; a
    wins-on-X unit's steps and each King's distance to its own X, on an empty board with levels."""
    cdef Board b
    cdef Targets tg
    cdef int cyl, t, colour, sq, i, k, s, d, x
    cdef bb_t frontier, seen, nxt, bits
    cdef bb_t ksteps[64]
    et.flight_types = 0
    et.x_types = rules.x_winner_types if rules.special else 0
    for t in range(rules.n_types):
        if rules.units[t].pattern_modes[PAT_FLIGHT]:
            et.flight_types |= 1ULL << t
            for cyl in range(2):
                for colour in range(2):
                    for sq in range(64):
                        for i in range(8):
                            d = rules.geo.orth[i] if i < 4 else rules.geo.diag[i - 4]
                            for k in range(8):
                                s = rules.geo.ray[cyl][d][sq][k]
                                if s < 0:
                                    break
                                et.reach[cyl][t][colour][sq] |= 1ULL << s
    memset(et.x_step, 0, sizeof(et.x_step))
    memset(et.king_x_dist, 255, sizeof(et.king_x_dist))
    if not et.x_types or rules.n_sovereign_types == 0:
        return
    for colour in range(2):
        for sq in range(64):
            if not (rules.geo.board >> sq) & 1:
                continue
            memset(&b, 0, sizeof(Board))
            for s in range(64):
                b.square_type[s] = -1
            put_unit(&b, sq, lsb(et.x_types), colour)
            unit_targets(rules, &b, sq, colour, False, 0, &tg)
            et.x_step[colour][sq] = tg.march
            memset(&b, 0, sizeof(Board))
            for s in range(64):
                b.square_type[s] = -1
            put_unit(&b, sq, rules.sovereign_types[0], colour)
            unit_targets(rules, &b, sq, colour, False, 0, &tg)
            ksteps[sq] = tg.march
        if not rules.geo.x_square[colour]:
            continue
        # A King's steps obey the levels both ways alike (H3), so the distance to the X is the
        # distance from it.
        x = lsb(rules.geo.x_square[colour])
        et.king_x_dist[colour][x] = 0
        seen = frontier = 1ULL << x
        d = 0
        while frontier:
            d += 1
            nxt = 0
            bits = frontier
            while bits:
                s = lsb(bits)
                bits &= bits - 1
                nxt |= ksteps[s]
            nxt &= ~seen
            seen |= nxt
            frontier = nxt
            bits = nxt
            while bits:
                s = lsb(bits)
                bits &= bits - 1
                et.king_x_dist[colour][s] = <uint8_t> min(d, 254)


cdef int _x_distance(const EvalTables* et, const Board* b, int sq, int colour, bb_t target) noexcept nogil:
    """The steps a wins-on-X unit of ``colour`` on ``sq`` needs to reach ``target`` (the opposing X)
    through empty squares as they stand, levels obeyed (up to 12); 0 when the way is shut."""
    cdef bb_t seen = 1ULL << sq, frontier = seen, nxt, bits
    cdef int d, s
    if target & b.occupied:
        return 0
    for d in range(1, 13):
        nxt = 0
        bits = frontier
        while bits:
            s = lsb(bits)
            bits &= bits - 1
            nxt |= et.x_step[colour][s]
        if nxt & target:
            return d
        nxt &= ~(b.occupied | seen)
        if not nxt:
            return 0
        seen |= nxt
        frontier = nxt
    return 0


cdef void _level_terms(const Rules* rules, const Weights* w, const EvalTables* et, const Board* b,
                       bb_t* foot, bb_t* sovs, int32_t* mg, int32_t* eg) noexcept nogil:
    """The terms of a board with levels and X squares (docs/crusade.md): units on castle floors,
    and each wins-on-X unit's race to the opposing X, unstoppable when the defending King is too
    far from its X (the defence by other pieces is the search's to find)."""
    cdef int colour, sq, h, d, kd, king
    cdef bb_t units, xs, target
    for colour in range(2):
        if rules.geo.has_heights:
            units = b.by_colour[colour] & ~foot[colour]
            while units:
                sq = lsb(units)
                units &= units - 1
                h = rules.geo.height[sq]
                mg[colour] += h * w.castle_floor[0]
                eg[colour] += h * w.castle_floor[1]
        target = rules.geo.x_square[1 - colour]
        if not et.x_types or not target:
            continue
        xs = units_of_types(b, et.x_types) & b.by_colour[colour]
        while xs:
            sq = lsb(xs)
            xs &= xs - 1
            d = _x_distance(et, b, sq, colour, target)
            if d == 0:
                continue
            mg[colour] += w.x_race[0][min(d, 7)]
            eg[colour] += w.x_race[1][min(d, 7)]
            if sovs[1 - colour]:
                king = lsb(sovs[1 - colour])
                kd = et.king_x_dist[1 - colour][king]
                # The defender moves first when it is its turn: then it needs one step fewer.
                if kd > d - <int> (b.side == colour):
                    mg[colour] += w.x_unstoppable
                    eg[colour] += w.x_unstoppable


cdef int32_t evaluate_board(const Rules* rules, const Weights* w, const EvalTables* et, bint cyl_all,
                            const Board* b, int32_t lo, int32_t hi) noexcept nogil:
    """The evaluation; when its cheap part (material, piece-square tables, Foot structure,
    shelter) is more than LAZY_MARGIN outside (lo, hi), that part alone (lazy evaluation)."""
    cdef int side = b.side
    cdef int colour, t, sq, cyl, n_sov, r
    cdef int32_t mg[2], eg[2], phase, score
    cdef FootStructure fs
    cdef bb_t units, foot[2], sovs[2], reach_all[2], zone, bits, capturable
    cdef Targets tg
    cdef const int32_t* pst
    mg[0] = mg[1] = eg[0] = eg[1] = 0
    phase = 0
    for colour in range(2):
        foot[colour] = 0
        sovs[colour] = 0
        reach_all[colour] = 0
        for t in range(rules.n_types):
            if b.barracks[colour][t]:
                mg[colour] += b.barracks[colour][t] * w.value[t] * w.barracks_percent // 100
        units = b.by_colour[colour]
        while units:
            sq = lsb(units)
            units &= units - 1
            t = b.square_type[sq]
            mg[colour] += w.value[t]
            cyl = 1 if (cyl_all or rules.units[t].cylindrical) else 0
            pst = &et.pst[cyl][t][colour][sq][0]
            mg[colour] += pst[0]
            eg[colour] += pst[1] - pst[0]              # eg holds the difference to mg until the end
            if (et.foot_types >> t) & 1:
                foot[colour] |= 1ULL << sq
            elif (et.sovereign_types >> t) & 1:
                sovs[colour] |= 1ULL << sq
            else:
                phase += w.value[t]
        eg[colour] += mg[colour]
    # Foot structure.
    for colour in range(2):
        _foot_structure(foot[colour], foot[1 - colour], colour, &fs)
        mg[colour] += fs.doubled * (w.foot_doubled[0] // 2)    # each of a doubled pair pays half
        eg[colour] += fs.doubled * (w.foot_doubled[1] // 2)
        mg[colour] += fs.isolated * w.foot_isolated[0]
        eg[colour] += fs.isolated * w.foot_isolated[1]
        for r in range(8):
            if fs.passed[r]:
                mg[colour] += fs.passed[r] * w.foot_passed[0][r]
                eg[colour] += fs.passed[r] * w.foot_passed[1][r]
    # Sovereigns: spares and shelter.
    for colour in range(2):
        n_sov = popcount(sovs[colour])
        if n_sov > 1:
            mg[colour] += (n_sov - 1) * w.extra_sovereign
            eg[colour] += (n_sov - 1) * w.extra_sovereign
        bits = sovs[colour]
        while bits:
            sq = lsb(bits)
            bits &= bits - 1
            zone = rules.geo.king[0][sq]
            mg[colour] += w.shelter * popcount(foot[colour] & (zone | (zone << 8 if colour == BLUE else zone >> 8))
                                                    & _ahead(sq, colour))
    if rules.special:
        _level_terms(rules, w, et, b, foot, sovs, mg, eg)
    if phase > w.phase_total:
        phase = w.phase_total
    score = ((mg[side] - mg[1 - side]) * phase + (eg[side] - eg[1 - side]) * (w.phase_total - phase)) \
        // w.phase_total + w.tempo
    if score + LAZY_MARGIN < lo or score - LAZY_MARGIN > hi:
        return score
    # Dynamic part: mobility, attacks on the Sovereigns' neighbourhoods, direct threats.
    for colour in range(2):
        capturable = capturable_units(b, 1 - colour)
        units = b.by_colour[colour] & ~(foot[colour] | sovs[colour])
        while units:
            sq = lsb(units)
            units &= units - 1
            unit_targets(rules, b, sq, colour, cyl_all, capturable, &tg)
            bits = tg.march | tg.capture | tg.shoot
            reach_all[colour] |= bits | tg.covered
            mg[colour] += popcount(bits) * w.mobility
            eg[colour] += popcount(bits) * w.mobility
            if (et.flight_types >> b.square_type[sq]) & 1:     # H7: flights beyond one step
                mg[colour] += popcount(bits & ~rules.geo.king[0][sq]) * w.flight
                eg[colour] += popcount(bits & ~rules.geo.king[0][sq]) * w.flight
    for colour in range(2):
        bits = sovs[colour]
        while bits:
            sq = lsb(bits)
            bits &= bits - 1
            zone = rules.geo.king[0][sq]
            mg[colour] -= w.zone_attack * popcount(reach_all[1 - colour] & (zone | (1ULL << sq)))
        if reach_all[1 - colour] & sovs[colour]:
            mg[colour] -= w.sovereign_attacked
            eg[colour] -= w.sovereign_attacked
    return ((mg[side] - mg[1 - side]) * phase + (eg[side] - eg[1 - side]) * (w.phase_total - phase)) \
        // w.phase_total + w.tempo


cdef class Evaluation:
    """The static evaluation for one unit catalog and one set of weights: the weights in C and the
    piece-square and reach tables derived from them. Building it takes a few tens of milliseconds:
    keep one (engine.board.evaluate.kernel_evaluation caches them). ``board_value`` uses it."""
    cdef const Rules* rules
    cdef readonly RuleTables tables
    cdef Weights w
    cdef EvalTables* et
    cdef readonly Network network       # None: the classical evaluation
    cdef NnueAccumulator scratch

    def __cinit__(self, RuleTables tables, dict weights, Network network=None):
        _require_8x8(tables, "Evaluation")
        self.network = network
        self.tables = tables
        self.rules = tables.rules
        self.et = <EvalTables*> calloc(1, sizeof(EvalTables))
        if self.et == NULL:
            raise MemoryError()
        load_weights_into(&self.w, weights)
        build_eval_tables(self.rules, &self.w, self.et)

    def __dealloc__(self):
        free(self.et)


def board_value(BoardCore core, int player, Evaluation evaluation, bint to_move=False, bint cylindrical=False):
    """The static evaluation of the core's current board for ``player`` (0 Blue, 1 Yellow), in
    centi-points, as AlphaBeta.evaluate_position computes it. The evaluation is from the side to
    move (who gets the tempo bonus): with ``to_move`` False that is the board's side, and the value
    is negated when ``player`` is not to move; with ``to_move`` True the board is judged as if
    ``player`` were to move. ``cylindrical``: Compass mode."""
    cdef Board b
    cdef int32_t score
    if player != BLUE and player != YELLOW:
        raise ValueError(f"player must be 0 (Blue) or 1 (Yellow), got {player}")
    if core.tables is not evaluation.tables:
        raise ValueError("board_value: the board and the evaluation were built on different unit catalogs")
    memcpy(&b, core.top(), sizeof(Board))
    if to_move:
        set_side(&b, player)
    if evaluation.network is not None and nnue_knows(&evaluation.network.net, &b):
        nnue_refresh(&evaluation.network.net, &b, cylindrical, &evaluation.scratch)
        score = nnue_output(&evaluation.network.net, &evaluation.scratch, b.side)
    else:
        score = evaluate_board(evaluation.rules, &evaluation.w, evaluation.et, cylindrical, &b, -INF, INF)
    return score if b.side == player else -score


cdef class AlphaBeta:
    """One search context: transposition table, ordering tables, evaluation tables, limits."""
    cdef const Rules* rules
    cdef RuleTables tables
    cdef TTEntry* tt
    cdef uint64_t tt_buckets_mask
    cdef uint8_t generation
    cdef Weights w
    cdef EvalTables* et
    cdef uint32_t killers[MAX_PLY + 2][2]
    cdef int32_t history[2][MAX_TYPES][64]
    cdef uint32_t counter[MAX_TYPES][64]
    # Continuation history: cont[side to move][previous order's unit][its destination][unit][dest],
    # indexed by the previous order (the opponent's), the one before it (our own) and the order four
    # plies back (our own a turn earlier), int16 with gravity (|value| <= HISTORY_LIMIT); a block of
    # MAX_TYPES * 64 per earlier order (_cont).
    cdef int16_t* cont
    cdef int8_t lmr[64][64]
    cdef Board boards[MAX_PLY + 2]
    cdef uint64_t path_keys[MAX_PLY + 2]
    cdef uint32_t last_move[MAX_PLY + 2]
    cdef uint32_t excluded[MAX_PLY + 2]          # the order a singular-extension search leaves out, or 0
    cdef uint64_t game_keys[MAX_HISTORY]         # positions of the game before the root (repetitions)
    cdef int n_game_keys
    cdef int32_t static_eval[MAX_PLY + 2]        # the corrected static evaluation (-INF: threatened)
    # Correction history: corr[side to move][a hash of both sides' Foot squares], how far searches
    # of positions with that Foot structure ended above (+) or below (-) their static evaluation,
    # in 1/CORR_GRAIN centi-points; added to every static evaluation (_corrected).
    cdef int16_t corr[2][CORR_SIZE]
    cdef long corr_slot[MAX_PLY + 2]             # the correction-history slot of each ply's position
    cdef int8_t known_danger[MAX_PLY + 2]        # -1, or whether the node's Sovereign is threatened
                                                 # (the parent found out while deciding a reduction)
    cdef uint32_t* move_buf
    cdef int32_t* score_buf
    cdef uint32_t* root_moves
    cdef int32_t* root_scores
    cdef long n_root
    cdef readonly uint64_t nodes
    cdef uint64_t singular_searches, singular_extensions, multi_cuts   # since clear(): search_stats()
    cdef uint64_t node_limit
    cdef double deadline
    cdef int clock_countdown             # budget checks left until the clock is read again
    cdef bint stopped
    cdef volatile_flag stop_requested   # set by request_stop() from any thread; cleared by clear_stop()
    cdef bint draw_without_orders       # Point-Buy: a side to move with no order draws (C3)
    cdef bint cyl_all                   # Compass mode: every unit moves cylindrically
    cdef bint chess                     # chess legality (Rules.chess_legality, Crusade & Conquer H8):
                                        # only legal orders are generated; no order with the King
                                        # attacked is checkmate, without it stalemate; an X win ends
                                        # the game; the halfmove clock draws (H8c)
    cdef int seldepth
    cdef int root_depth
    cdef Network network                # the learned evaluation, or None (classical)
    cdef const NnueNet* nnue            # its weights (NULL: classical), read by the node loop
    cdef NnueAccumulator* accs          # accs[ply]: the accumulators of boards[ply] (valid while keys match)
    cdef NnueAccumulator scratch        # for a board outside the stack

    def __cinit__(self, RuleTables tables, weights, int tt_megabytes=16, bint draw_without_orders=True):
        cdef uint64_t buckets = 1
        cdef int d, i
        _require_8x8(tables, "AlphaBeta")
        self.tables = tables
        self.rules = tables.rules
        while buckets * 2 * TT_WAYS * sizeof(TTEntry) <= (<uint64_t> max(tt_megabytes, 1)) << 20:
            buckets *= 2
        self.tt = <TTEntry*> ftc_tt_alloc(buckets * TT_WAYS * sizeof(TTEntry))
        self.move_buf = <uint32_t*> calloc((MAX_PLY + 2) * SEARCH_CAPACITY, sizeof(uint32_t))
        self.score_buf = <int32_t*> calloc((MAX_PLY + 2) * SEARCH_CAPACITY, sizeof(int32_t))
        self.root_moves = <uint32_t*> calloc(SEARCH_CAPACITY, sizeof(uint32_t))
        self.root_scores = <int32_t*> calloc(SEARCH_CAPACITY, sizeof(int32_t))
        self.et = <EvalTables*> calloc(1, sizeof(EvalTables))
        self.accs = <NnueAccumulator*> calloc(MAX_PLY + 2, sizeof(NnueAccumulator))
        self.cont = <int16_t*> ftc_tt_alloc(CONT_SIZE * sizeof(int16_t))    # megabytes too: on 2 MB pages
        if (self.cont == NULL or self.tt == NULL or self.move_buf == NULL or self.score_buf == NULL or self.root_moves == NULL
                or self.root_scores == NULL or self.et == NULL or self.accs == NULL):
            raise MemoryError()
        self.tt_buckets_mask = buckets - 1
        self.draw_without_orders = draw_without_orders
        self.chess = self.rules.chess_legality != 0
        for d in range(64):
            for i in range(64):
                self.lmr[d][i] = 0 if d == 0 or i == 0 else <int8_t> (0.5 + log(d) * log(i) / 1.7)
        load_weights_into(&self.w, weights)
        build_eval_tables(self.rules, &self.w, self.et)

    def __dealloc__(self):
        free(self.tt)
        free(self.move_buf)
        free(self.score_buf)
        free(self.root_moves)
        free(self.root_scores)
        free(self.et)
        free(self.accs)
        free(self.cont)

    def set_network(self, Network network=None):
        """Evaluate with ``network`` (None: the classical evaluation). The transposition table,
        which keeps static evaluations, is cleared."""
        self.network = network
        self.nnue = NULL if network is None else &network.net
        memset(self.accs, 0, (MAX_PLY + 2) * sizeof(NnueAccumulator))
        self.clear()

    def check_accumulators(self):
        """(plies checked, plies wrong): every search-stack accumulator still valid for its board
        (as the last search left them) compared with a refresh of that board (tests: the
        incremental updates of a real search are exact)."""
        cdef NnueAccumulator fresh
        cdef int ply, checked = 0, wrong = 0
        if self.nnue == NULL:
            raise ValueError("check_accumulators: no network is set")
        for ply in range(MAX_PLY + 2):
            if self.accs[ply].key != 0 and self._acc_valid(ply):
                nnue_refresh(self.nnue, &self.boards[ply], self.cyl_all, &fresh)
                checked += 1
                if memcmp(fresh.v[0], self.accs[ply].v[0], self.nnue.hidden * sizeof(int16_t)) or \
                        memcmp(fresh.v[1], self.accs[ply].v[1], self.nnue.hidden * sizeof(int16_t)):
                    wrong += 1
        return checked, wrong

    @property
    def evaluation(self) -> str:
        """"nnue <digest>" or "classical": what this search evaluates with."""
        return "classical" if self.network is None else f"nnue {self.network.digest}"

    def clear(self):
        """Forget the transposition table and the ordering tables (a new game)."""
        memset(self.tt, 0, (self.tt_buckets_mask + 1) * TT_WAYS * sizeof(TTEntry))
        memset(self.killers, 0, sizeof(self.killers))
        memset(self.history, 0, sizeof(self.history))
        memset(self.counter, 0, sizeof(self.counter))
        memset(self.cont, 0, CONT_SIZE * sizeof(int16_t))
        memset(self.corr, 0, sizeof(self.corr))
        self.generation = 0
        self.singular_searches = self.singular_extensions = self.multi_cuts = 0

    def search_stats(self):
        """What the selective search did since clear(): searches of a node without its table order
        (singular_searches), table orders extended as singular (singular_extensions), nodes cut
        because another order beat beta too (multi_cuts)."""
        return {"singular_searches": self.singular_searches, "singular_extensions": self.singular_extensions,
                "multi_cuts": self.multi_cuts}

    # -- evaluation ----------------------------------------------------------------------------
    cdef int32_t evaluate(self, Board* b) noexcept nogil:
        """Static score for the side to move, in centi-points."""
        return self._eval(b, -INF, INF)

    cdef int32_t _eval(self, Board* b, int32_t lo, int32_t hi) noexcept nogil:
        if self.nnue != NULL and nnue_knows(self.nnue, b):
            return self._nnue_eval(b)
        return evaluate_board(self.rules, &self.w, self.et, self.cyl_all, b, lo, hi)

    cdef inline long _corr_index(self, const Board* b) noexcept nogil:
        """The correction-history slot of ``b``'s Foot structure (both sides' Foot squares, which
        the board keeps: Board.foot)."""
        cdef bb_t blue = b.foot & b.by_colour[0], yellow = b.foot & b.by_colour[1], h
        h = blue * 0x9E3779B97F4A7C15ULL ^ (yellow + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL
        return <long> ((h ^ (h >> 31)) & (CORR_SIZE - 1))

    cdef inline int32_t _corrected(self, int side, long slot, int32_t raw) noexcept nogil:
        """The static evaluation ``raw`` of a position with ``side`` to move plus what the correction
        history learnt in its Foot structure's ``slot`` (_corr_index)."""
        cdef int32_t v = raw + self.corr[side][slot] // CORR_GRAIN
        if v >= MATE - MAX_PLY:
            return MATE - MAX_PLY - 1
        if v <= -MATE + MAX_PLY:
            return -MATE + MAX_PLY + 1
        return v

    cdef inline void _update_corr(self, int side, long slot, int32_t diff, int depth) noexcept nogil:
        """A search to ``depth`` of a position with ``side`` to move and its Foot structure in
        ``slot`` (_corr_index) ended ``diff`` centi-points from its static evaluation."""
        cdef int16_t* e = &self.corr[side][slot]
        cdef int32_t bonus = diff * depth * CORR_GRAIN // 8
        cdef int32_t v
        if bonus > CORR_LIMIT // 4:
            bonus = CORR_LIMIT // 4
        elif bonus < -CORR_LIMIT // 4:
            bonus = -CORR_LIMIT // 4
        v = _gravity(e[0], bonus, CORR_LIMIT)
        e[0] = <int16_t> (CORR_LIMIT if v > CORR_LIMIT else (-CORR_LIMIT if v < -CORR_LIMIT else v))

    cdef inline bint _acc_valid(self, long ply) noexcept nogil:
        return self.accs[ply].key == self.boards[ply].key and self.accs[ply].cylindrical == self.cyl_all

    cdef int32_t _nnue_eval(self, Board* b) noexcept nogil:
        """The net's value of ``b``: on the search stack, from the nearest ancestor whose
        accumulators are valid, updated ply by ply (at most 4; else refreshed); elsewhere refreshed."""
        cdef long ply = b - self.boards
        cdef long q
        if ply < 0 or ply >= MAX_PLY + 2:
            nnue_refresh(self.nnue, b, self.cyl_all, &self.scratch)
            return nnue_output(self.nnue, &self.scratch, b.side)
        if not self._acc_valid(ply):
            q = ply
            while q > 0 and ply - q < 4 and not self._acc_valid(q - 1):
                q -= 1
            if q == 0 or not self._acc_valid(q - 1):
                nnue_refresh(self.nnue, &self.boards[q], self.cyl_all, &self.accs[q])
            else:
                nnue_update(self.nnue, &self.boards[q - 1], &self.accs[q - 1], &self.boards[q], self.cyl_all,
                            &self.accs[q])
            while q < ply:
                q += 1
                nnue_update(self.nnue, &self.boards[q - 1], &self.accs[q - 1], &self.boards[q], self.cyl_all,
                            &self.accs[q])
        return nnue_output(self.nnue, &self.accs[ply], b.side)

    def eval_features(self, BoardCore core, bint cylindrical=False):
        """The evaluation as a linear function of its weights, for tuning (tools/tune_eval.py):
        (material, features) such that evaluate == material + sum(weight * feature) up to integer
        rounding, from the side to move. Features are named by FEATURE_NAMES (one per tunable
        number: phased weights split by phase, per-rank ones by phase and rank)."""
        cdef Board bb
        cdef Board* b = &bb
        cdef int side, colour, t, sq, f, cyl, i, r
        cdef bb_t units, own, foot[2], sovs[2], reach_all[2], zone, bits, capturable
        cdef Targets tg
        cdef FootStructure fs
        cdef double ph, material = 0.0, sign
        cdef int32_t phase = 0
        memcpy(&bb, core.top(), sizeof(Board))
        self.cyl_all = cylindrical
        side = b.side
        feats = {f"{name}.{r}": 0.0 for name in ("foot_advance", "sovereign_rank") for r in range(8)}
        mob = [0.0, 0.0]
        centre_sum = [[0.0, 0.0], [0.0, 0.0]]     # [colour][0 = pieces, 1 = Sovereigns]
        for colour in range(2):
            foot[colour] = sovs[colour] = reach_all[colour] = 0
        for colour in range(2):
            sign = 1.0 if colour == side else -1.0
            own = b.by_colour[colour]
            capturable = capturable_units(b, 1 - colour)
            for t in range(self.rules.n_types):
                material += sign * (b.barracks[colour][t] * self.w.value[t] * self.w.barracks_percent // 100)
            units = own
            while units:
                sq = lsb(units)
                units &= units - 1
                t = b.square_type[sq]
                material += sign * self.w.value[t]
                cyl = 1 if (self.cyl_all or self.rules.units[t].cylindrical) else 0
                if (self.et.foot_types >> t) & 1:
                    foot[colour] |= 1ULL << sq
                    feats[f"foot_advance.{_rel_rank(sq, colour)}"] += sign      # phase applied below
                    continue
                if (self.et.sovereign_types >> t) & 1:
                    sovs[colour] |= 1ULL << sq
                    feats[f"sovereign_rank.{_rel_rank(sq, colour)}"] += sign
                    centre_sum[colour][1] += self.et.centre[cyl][t][colour][sq] / 16.0
                    continue
                phase += self.w.value[t]
                centre_sum[colour][0] += self.et.centre[cyl][t][colour][sq] / 16.0
                unit_targets(self.rules, b, sq, colour, self.cyl_all, capturable, &tg)
                bits = tg.march | tg.capture | tg.shoot
                reach_all[colour] |= bits | tg.covered
                mob[colour] += popcount(bits)
        if phase > self.w.phase_total:
            phase = self.w.phase_total
        ph = phase / <double> self.w.phase_total
        out = {"mobility": mob[side] - mob[1 - side], "tempo": 1.0}
        for p, weight in ((0, ph), (1, 1.0 - ph)):
            out[f"pst_mobility.{p}"] = weight * (centre_sum[side][0] - centre_sum[1 - side][0])
            out[f"sovereign_centre.{p}"] = weight * (centre_sum[side][1] - centre_sum[1 - side][1])
            for r in range(8):
                out[f"foot_advance.{p}.{r}"] = weight * feats[f"foot_advance.{r}"]
                out[f"sovereign_rank.{p}.{r}"] = weight * feats[f"sovereign_rank.{r}"]
        doubled = [0.0, 0.0]; isolated = [0.0, 0.0]; passed = [[0.0] * 8, [0.0] * 8]
        for colour in range(2):
            _foot_structure(foot[colour], foot[1 - colour], colour, &fs)
            doubled[colour] = 0.5 * fs.doubled
            isolated[colour] = fs.isolated
            passed[colour] = [float(fs.passed[r]) for r in range(8)]
        for p, weight in ((0, ph), (1, 1.0 - ph)):
            out[f"foot_doubled.{p}"] = weight * (doubled[side] - doubled[1 - side])
            out[f"foot_isolated.{p}"] = weight * (isolated[side] - isolated[1 - side])
            for r in range(8):
                out[f"foot_passed.{p}.{r}"] = weight * (passed[side][r] - passed[1 - side][r])
        extra = [0.0, 0.0]; shelter = [0.0, 0.0]; zone_hits = [0.0, 0.0]; attacked = [0.0, 0.0]
        for colour in range(2):
            if popcount(sovs[colour]) > 1:
                extra[colour] = popcount(sovs[colour]) - 1
            bits = sovs[colour]
            while bits:
                sq = lsb(bits)
                bits &= bits - 1
                zone = self.rules.geo.king[0][sq]
                shelter[colour] += popcount(foot[colour] & (zone | (zone << 8 if colour == BLUE else zone >> 8))
                                            & _ahead(sq, colour))
                zone_hits[colour] += popcount(reach_all[1 - colour] & (zone | (1ULL << sq)))
            if reach_all[1 - colour] & sovs[colour]:
                attacked[colour] = 1
        out["extra_sovereign"] = extra[side] - extra[1 - side]
        out["shelter"] = ph * (shelter[side] - shelter[1 - side])
        out["zone_attack"] = -ph * (zone_hits[side] - zone_hits[1 - side])
        out["sovereign_attacked"] = -(attacked[side] - attacked[1 - side])
        return material, [out[name] for name in FEATURE_NAMES]

    def evaluate_position(self, BoardCore core, bint cylindrical=False):
        cdef Board b
        _require_8x8(core.tables, "evaluate_position")
        memcpy(&b, core.top(), sizeof(Board))
        self.cyl_all = cylindrical
        return self.evaluate(&b)

    # -- helpers -------------------------------------------------------------------------------
    cdef inline bint _threatened(self, const Board* b, int colour) noexcept nogil:
        """Could the opponent capture one of ``colour``'s Sovereigns now (C7)?"""
        cdef bb_t sovs = 0
        cdef int i
        for i in range(self.rules.n_sovereign_types):
            sovs |= b.by_type[self.rules.sovereign_types[i]] & b.by_colour[colour]
        return (self._coverage(b, 1 - colour, sovs) & sovs) != 0

    cdef bb_t _coverage(self, const Board* b, int colour, bb_t targets) noexcept nogil:
        """The part of ``colour``'s threat map (capture_coverage) that matters for ``targets``:
        only units whose reach table meets a target are generated."""
        cdef bb_t capturable = capturable_units(b, 1 - colour)
        cdef bb_t units = b.by_colour[colour]
        cdef bb_t covered = 0
        cdef int sq, t, cyl
        cdef Targets tg
        while units:
            sq = lsb(units)
            units &= units - 1
            t = b.square_type[sq]
            cyl = 1 if (self.cyl_all or self.rules.units[t].cylindrical) else 0
            if self.et.reach[cyl][t][colour][sq] & targets:
                unit_targets(self.rules, b, sq, colour, self.cyl_all, capturable, &tg)
                covered |= tg.covered
        return covered

    def coverage_check(self, BoardCore core, int colour, bint cylindrical=False):
        """(fast coverage of every square, capture_coverage): equal when the reach tables are
        right (a test compares them on many positions)."""
        cdef Board b
        memcpy(&b, core.top(), sizeof(Board))
        self.cyl_all = cylindrical
        return self._coverage(&b, colour, ~0ULL), capture_coverage(self.rules, &b, colour, cylindrical)

    cdef inline bint _is_sovereign_sq(self, const Board* b, int sq) noexcept nogil:
        cdef int t = b.square_type[sq]
        return t >= 0 and ((self.et.sovereign_types >> t) & 1) != 0

    cdef inline bint _wins_on_x(self, const Board* b, uint32_t m) noexcept nogil:
        """Whether order ``m`` of the side to move is a wins-on-X unit's march onto the other
        side's X (RULINGS H8b; an exchange onto it is a Pawn's order and does not win)."""
        return (order_kind(m) == KIND_MARCH and (self.rules.x_winner_types >> order_unit(m)) & 1 != 0
                and (self.rules.geo.x_square[1 - b.side] >> order_dest(m)) & 1 != 0)

    cdef inline bint _has_pieces(self, const Board* b, int colour) noexcept nogil:
        """Units other than Foot and Sovereigns (null move is unsafe without them: zugzwang)."""
        cdef bb_t own = b.by_colour[colour]
        cdef int t
        for t in range(self.rules.n_types):
            if (b.by_type[t] & own) and not ((self.et.foot_types | self.et.sovereign_types) >> t) & 1:
                return True
            if b.barracks[colour][t] and not self.rules.no_deploys:
                return True                          # a deploy is a move a piece could make
        return False

    cdef uint32_t _least_attacker(self, const Board* b, int target) noexcept nogil:
        """The plain capture (moving onto ``target``) by the side to move's least valuable unit, or
        0. Captures that would promote a Foot unit are left out (rare; SEE is an estimate)."""
        cdef int side = b.side
        cdef bb_t capturable = capturable_units(b, 1 - side)
        cdef bb_t units = b.by_colour[side] & ~(b.status[ST_ORDERED] | b.status[ST_BANNED])
        cdef bb_t bit = 1ULL << target
        cdef bb_t last_rank = self.rules.geo.last_rank[side]
        cdef int sq, t, cyl, best_t = -1, best_sq = -1
        cdef Targets tg
        if not (capturable & bit):
            return 0
        while units:
            sq = lsb(units)
            units &= units - 1
            t = b.square_type[sq]
            if best_t >= 0 and self.w.value[t] >= self.w.value[best_t]:
                continue
            cyl = 1 if (self.cyl_all or self.rules.units[t].cylindrical) else 0
            if not (self.et.reach[cyl][t][side][sq] & bit):
                continue
            if self.rules.units[t].foot and (bit & last_rank):
                continue
            unit_targets(self.rules, b, sq, side, self.cyl_all, capturable, &tg)
            if tg.capture & bit:
                best_t, best_sq = t, sq
        if best_t < 0:
            return 0
        return encode_order(KIND_ATTACK, best_sq, target, best_t, -1)

    cdef int32_t _see(self, const Board* b, uint32_t m) noexcept nogil:
        """Static exchange evaluation of a capture: the material balance of the best sequence of
        recaptures on its square, each side taking with its least valuable unit (played out with
        the real generator, so every special capture counts)."""
        cdef int target = order_dest(m)
        cdef int victim = b.square_type[target]
        cdef int32_t gain[32]
        cdef Board line[2]
        cdef int d = 0, cur = 0, best_t
        cdef uint32_t best
        cdef int32_t on_square
        if victim < 0:
            return 0
        gain[0] = self.w.value[victim]
        on_square = self.w.value[order_unit(m)] if order_kind(m) != KIND_SHOOT else 0
        memcpy(&line[0], b, sizeof(Board))
        make_order(self.rules, &line[0], m)
        if order_kind(m) == KIND_SHOOT or line[0].square_type[target] < 0:
            return gain[0]
        while d < 31:
            best = self._least_attacker(&line[cur], target)
            if best == 0:
                break
            best_t = order_unit(best)
            d += 1
            gain[d] = on_square - gain[d - 1]
            on_square = self.w.value[best_t]
            memcpy(&line[1 - cur], &line[cur], sizeof(Board))
            make_order(self.rules, &line[1 - cur], best)
            cur = 1 - cur
            if line[cur].square_type[target] < 0:
                break
        while d > 0:
            if -gain[d - 1] < gain[d]:
                gain[d - 1] = -gain[d]
            d -= 1
        return gain[0]

    # -- transposition table ---------------------------------------------------------------------
    cdef inline TTEntry* _probe(self, uint64_t key) noexcept nogil:
        cdef TTEntry* bucket = self.tt + (key & self.tt_buckets_mask) * TT_WAYS
        cdef int i
        for i in range(TT_WAYS):
            if bucket[i].key == key:
                return &bucket[i]
        return NULL

    cdef inline void _store(self, uint64_t key, uint32_t move, int32_t score, int32_t ev, int depth, int flag,
                            int ply) noexcept nogil:
        cdef TTEntry* bucket = self.tt + (key & self.tt_buckets_mask) * TT_WAYS
        cdef TTEntry* slot = NULL
        cdef int i, worth, least = 1 << 30
        for i in range(TT_WAYS):
            if bucket[i].key == key:
                slot = &bucket[i]
                if move == 0:
                    move = slot.move                     # keep the known best order
                if flag != TT_EXACT and depth < slot.depth - 2 and slot.generation == self.generation:
                    return                               # a much deeper result stays
                break
        if slot == NULL:
            for i in range(TT_WAYS):
                worth = bucket[i].depth - 4 * <uint8_t> (self.generation - bucket[i].generation)
                if bucket[i].key == 0:
                    worth = -1000
                if worth < least:
                    least = worth
                    slot = &bucket[i]
        score = _to_tt(score, ply)
        slot.key = key
        slot.move = move
        slot.score = score
        slot.eval = ev
        slot.depth = <int16_t> depth
        slot.flag = <uint8_t> flag
        slot.generation = self.generation

    # -- ordering ------------------------------------------------------------------------------
    cdef inline bint _is_capture(self, uint32_t m) noexcept nogil:
        cdef int kind = order_kind(m)
        return kind == KIND_ATTACK or kind == KIND_SHOOT

    cdef inline int16_t* _cont(self, int side, uint32_t earlier) noexcept nogil:
        """The continuation-history block for orders played after ``earlier`` (0: none, NULL)."""
        if earlier == 0:
            return NULL
        return self.cont + (<size_t> ((side * MAX_TYPES + order_unit(earlier)) * 64 + order_dest(earlier))) * (MAX_TYPES * 64)

    cdef inline int32_t _quiet_history(self, int side, uint32_t m, const int16_t* c1, const int16_t* c2) noexcept nogil:
        """How well the quiet order ``m`` did before: its piece-to history and its continuation
        histories after the previous order (c1) and the one before it (c2)."""
        cdef int i = order_unit(m) * 64 + order_dest(m)
        return (self.history[side][order_unit(m)][order_dest(m)] + (c1[i] if c1 != NULL else 0)
                + (c2[i] if c2 != NULL else 0))

    cdef int32_t _order_score(self, const Board* b, uint32_t m, uint32_t tt_move, int ply,
                              uint32_t counter_move, const int16_t* c1, const int16_t* c2,
                              const int16_t* c4=NULL) noexcept nogil:
        cdef int victim, attacker
        cdef int32_t see
        if m == tt_move:
            return 1 << 30
        if self.rules.x_winner_types and self._wins_on_x(b, m):
            return 1 << 29                                # the game won at once (H8b)
        if self._is_capture(m):
            victim = b.square_type[order_dest(m)]
            if victim >= 0 and (self.et.sovereign_types >> victim) & 1:
                return (1 << 29)                          # taking a Sovereign first
            attacker = order_unit(m)
            see = (1 << 26) + (self.w.value[victim] if victim >= 0 else 100) * 16 - self.w.value[attacker] // 16 \
                + (self.w.value[order_promo(m)] if order_promo(m) >= 0 else 0)
            if victim >= 0 and self.w.value[attacker] > self.w.value[victim] + 50 and order_kind(m) != KIND_SHOOT:
                see += SEE_PENDING                        # the exchange is worked out when it is picked
            return see
        if order_promo(m) >= 0:
            return (1 << 25) + self.w.value[order_promo(m)]
        if m == self.killers[ply][0]:
            return 1 << 24
        if m == self.killers[ply][1]:
            return (1 << 24) - 1
        if m == counter_move:
            return (1 << 24) - 2
        # The ordering also reads the history after the side's own order a turn before (c4); the
        # reductions (_quiet_history alone) do not: that is the rule the SPRT accepted.
        return self._quiet_history(b.side, m, c1, c2) + (
            c4[order_unit(m) * 64 + order_dest(m)] if c4 != NULL else 0)

    cdef inline void _pick(self, const Board* b, uint32_t* moves, int32_t* scores, long i, long n) noexcept nogil:
        """Selection sort step: bring the best remaining order to position i. A capture whose
        exchange is still to be worked out (SEE_PENDING) is resolved when it comes first: a losing
        one (SEE < 0) drops behind the quiet orders and the pick goes on."""
        cdef long j, best
        cdef uint32_t tm
        cdef int32_t ts, see
        while True:
            best = i
            for j in range(i + 1, n):
                if scores[j] > scores[best]:
                    best = j
            if best != i:
                tm = moves[i]; moves[i] = moves[best]; moves[best] = tm
                ts = scores[i]; scores[i] = scores[best]; scores[best] = ts
            if scores[i] < SEE_PENDING or scores[i] >= (1 << 29):
                return
            see = self._see(b, moves[i])
            if see >= 0:
                scores[i] -= SEE_PENDING
                return
            scores[i] = -(1 << 20) + see                  # a losing capture: after the quiet orders

    cdef inline void _update_history(self, int side, uint32_t m, int32_t bonus) noexcept nogil:
        cdef int32_t* h = &self.history[side][order_unit(m)][order_dest(m)]
        h[0] = _gravity(h[0], bonus, HISTORY_LIMIT)

    cdef inline void _update_quiet(self, int side, uint32_t m, int32_t bonus, int16_t* c1, int16_t* c2,
                                   int16_t* c4=NULL) noexcept nogil:
        """Reward (bonus > 0) or punish the quiet order ``m`` in every history that scores it."""
        cdef int i = order_unit(m) * 64 + order_dest(m)
        self._update_history(side, m, bonus)
        if c1 != NULL:
            c1[i] = <int16_t> _gravity(c1[i], bonus, HISTORY_LIMIT)
        if c2 != NULL:
            c2[i] = <int16_t> _gravity(c2[i], bonus, HISTORY_LIMIT)
        if c4 != NULL:
            c4[i] = <int16_t> _gravity(c4[i], bonus, HISTORY_LIMIT)

    # -- the search ----------------------------------------------------------------------------
    cdef inline bint _out_of_budget(self) noexcept nogil:
        if self.stopped or self.stop_requested:
            self.stopped = True
            return True
        if self.node_limit and self.nodes >= self.node_limit:
            self.stopped = True
        elif self.deadline > 0:
            # Read the clock every CLOCK_INTERVAL checks (one per finished child, in the main search
            # and in quiescence alike), so no stretch of the tree, the first iteration's included,
            # runs long past the deadline; a countdown, not a test of the node count, which moves by
            # whole subtrees between two checks and could skip every multiple it was tested for.
            self.clock_countdown -= 1
            if self.clock_countdown <= 0:
                self.clock_countdown = CLOCK_INTERVAL
                if _now() >= self.deadline:
                    self.stopped = True
        return self.stopped

    cdef int32_t _quiesce(self, int ply, int32_t alpha, int32_t beta, int qply) noexcept nogil:
        cdef Board* b = &self.boards[ply]
        cdef uint32_t* moves = self.move_buf + ply * SEARCH_CAPACITY
        cdef int32_t* scores = self.score_buf + ply * SEARCH_CAPACITY
        cdef long n, i, k = 0
        cdef int32_t stand, raw_stand = INF, score, best
        cdef int victim, promo
        cdef bint danger, tactical, lazy = False
        cdef TTEntry* entry
        cdef uint32_t tt_move = 0, best_move = 0, m
        cdef int32_t original_alpha = alpha
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply
        if not has_sovereign(self.rules, b, b.side):
            return -MATE + ply
        if not has_sovereign(self.rules, b, 1 - b.side):
            return MATE - ply
        if b.won_on_x:
            return -MATE + ply                             # H8b: the side that just moved has won
        if self.chess and b.halfmove >= DRAW_PLIES:
            return self._clock_draw(ply)                   # H8c, unless this position is checkmate
        if ply >= MAX_PLY:
            return self.evaluate(b)
        entry = self._probe(b.key)
        if entry != NULL:
            tt_move = entry.move
            score = _from_tt(entry.score, ply)
            if (entry.flag == TT_EXACT or (entry.flag == TT_LOWER and score >= beta)
                    or (entry.flag == TT_UPPER and score <= alpha)):
                return score
        # In check: evasions, at every quiescence ply under chess legality (standing pat in check
        # could hide a mate); For the Crown at its first ply only.
        danger = (qply == 0 or self.chess) and self._threatened(b, b.side)
        if danger:
            best = -INF                                    # evasions: no standing pat
            stand = -INF
        else:
            if entry != NULL and entry.eval != INF:
                raw_stand = entry.eval
            else:
                raw_stand = self._eval(b, alpha, beta)
                lazy = raw_stand + LAZY_MARGIN < alpha or raw_stand - LAZY_MARGIN > beta
            stand = self._corrected(b.side, self._corr_index(b), raw_stand)
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
        if danger:
            n = generate_orders(self.rules, b, self.cyl_all, moves, SEARCH_CAPACITY, True)
        else:                                              # only what the loop below would keep
            n = generate_tactical(self.rules, b, self.cyl_all, moves, SEARCH_CAPACITY)
        if n < 0:
            n = SEARCH_CAPACITY
        if self.chess and n == 0:
            return -MATE + ply if danger else 0            # H8a: checkmate, or stalemate (a draw)
        if danger and n == 0:
            return 0 if self.draw_without_orders else self.evaluate(b)
        for i in range(n):
            m = moves[i]
            # Off Rules.special, generate_tactical made only captures and promotions already.
            tactical = danger or not self.rules.special or self._is_capture(m) or (
                order_promo(m) >= 0) or (self.rules.x_winner_types != 0 and self._wins_on_x(b, m))
            if tactical:
                moves[k] = m
                scores[k] = self._order_score(b, m, tt_move, ply, 0, NULL, NULL)
                k += 1
        for i in range(k):
            self._pick(b, moves, scores, i, k)
            m = moves[i]
            if not danger and not (self.rules.x_winner_types and self._wins_on_x(b, m)):
                victim = b.square_type[order_dest(m)] if self._is_capture(m) else -1
                if victim < 0 or not (self.et.sovereign_types >> victim) & 1:
                    if scores[i] < 0:
                        continue                           # a losing exchange (SEE < 0)
                    promo = order_promo(m)
                    if stand + (self.w.value[victim] if victim >= 0 else 0) \
                            + (self.w.value[promo] if promo >= 0 else 0) + 200 <= alpha:
                        continue                           # delta pruning: cannot reach alpha
            memcpy(&self.boards[ply + 1], b, sizeof(Board))
            make_order(self.rules, &self.boards[ply + 1], m)
            ftc_prefetch(self.tt + (self.boards[ply + 1].key & self.tt_buckets_mask) * TT_WAYS)
            score = -self._quiesce(ply + 1, -beta, -alpha, qply + 1)
            if self._out_of_budget():
                return 0
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        if best == -INF:                                   # threatened, every evasion pruned: lost
            best = -MATE + ply + 1
        self._store(b.key, best_move, best, raw_stand if not danger and not lazy else INF, 0,
                    TT_LOWER if best >= beta else (TT_EXACT if best > original_alpha else TT_UPPER), ply)
        return best

    cdef int32_t _clock_draw(self, int ply) noexcept nogil:
        """H8c's draw by the halfmove clock at ``ply``, but a checkmate on the board comes first
        (the game's driver decides the same way: engine/crusade/state.py)."""
        cdef Board* b = &self.boards[ply]
        cdef long n = generate_orders(self.rules, b, self.cyl_all, self.move_buf + ply * SEARCH_CAPACITY,
                                      SEARCH_CAPACITY, True)
        if n == 0 and self._threatened(b, b.side):
            return -MATE + ply
        return 0

    cdef int32_t _search(self, int ply, int depth, int32_t alpha, int32_t beta, bint cut_node) noexcept nogil:
        cdef Board* b = &self.boards[ply]
        cdef uint32_t* moves = self.move_buf + ply * SEARCH_CAPACITY
        cdef int32_t* scores = self.score_buf + ply * SEARCH_CAPACITY
        cdef TTEntry* entry
        cdef uint32_t tt_move = 0, best_move = 0, m, counter_move = 0, prev
        cdef uint32_t quiets[64]
        cdef int n_quiets = 0
        cdef int32_t best, score, ev, raw_eval = INF, original_alpha = alpha, tt_score = 0, margin
        cdef long n, i, searched = 0
        cdef int j, new_depth, r, reduced, tt_depth = -1, tt_flag = 0
        cdef bint pv = beta - alpha > 1
        cdef bint danger, improving, quiet, gives_threat, is_sov_capture
        cdef int16_t* c1
        cdef int16_t* c2
        cdef int16_t* c4
        cdef uint32_t excluded = self.excluded[ply]
        cdef int32_t singular_beta
        cdef bint singular = False
        if depth <= 0:
            return self._quiesce(ply, alpha, beta, 0)
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply
        if not has_sovereign(self.rules, b, b.side):
            return -MATE + ply            # C8: a side without a Sovereign has lost
        if not has_sovereign(self.rules, b, 1 - b.side):
            return MATE - ply
        if b.won_on_x:
            return -MATE + ply            # H8b: the side that just moved has won on the X
        if self.chess and b.halfmove >= DRAW_PLIES:
            return self._clock_draw(ply)  # H8c, unless this very position is checkmate
        if ply >= MAX_PLY - 1:
            return self.evaluate(b)
        for j in range(ply - 2, -1, -2):     # a repetition on the path scores as a draw (C3)
            if self.path_keys[j] == b.key:
                return 0
        for j in range(self.n_game_keys):    # ... and so does a return to a position of the game
            if self.game_keys[j] == b.key:
                return 0
        # Mate-distance pruning: no line from here beats a faster Sovereign capture already found.
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        entry = self._probe(b.key)
        if entry != NULL:
            tt_move = entry.move
            tt_depth = entry.depth
            tt_flag = entry.flag
            tt_score = _from_tt(entry.score, ply)
            if not pv and tt_depth >= depth and excluded == 0:
                if (tt_flag == TT_EXACT or (tt_flag == TT_LOWER and tt_score >= beta)
                        or (tt_flag == TT_UPPER and tt_score <= alpha)):
                    return tt_score
        danger = self.known_danger[ply] if self.known_danger[ply] >= 0 else self._threatened(b, b.side)
        if danger:
            ev = -INF
            self.static_eval[ply] = -INF
            improving = False
        else:
            raw_eval = entry.eval if entry != NULL and entry.eval != INF else self.evaluate(b)
            self.corr_slot[ply] = self._corr_index(b)
            ev = self._corrected(b.side, self.corr_slot[ply], raw_eval)
            self.static_eval[ply] = ev
            if entry != NULL and tt_depth >= 0 and (
                    (tt_flag == TT_LOWER and tt_score > ev) or (tt_flag == TT_UPPER and tt_score < ev)):
                ev = tt_score                              # the table's bound is a better guess
            improving = ply >= 2 and self.static_eval[ply - 2] != -INF and self.static_eval[ply] > self.static_eval[ply - 2]
        prev = self.last_move[ply]
        if prev:
            counter_move = self.counter[order_unit(prev)][order_dest(prev)]

        if not pv and not danger and excluded == 0 and _abs(beta) < MATE - MAX_PLY:
            # Reverse futility: far above beta with little depth left.
            if depth <= 7 and ev - (80 - 20 * <int> improving) * depth >= beta:
                return ev
            # Razoring: far below alpha; only a tactical shot could help.
            if depth <= 2 and ev + 250 * depth <= alpha:
                score = self._quiesce(ply, alpha, alpha + 1, 0)
                if score <= alpha:
                    return score
            # Null move: let the opponent move twice; if that still fails high, so will we.
            if (depth >= 3 and ev >= beta and prev != 0 and self._has_pieces(b, b.side)):
                r = 3 + depth // 4 + (min(3, (ev - beta) // 200))
                memcpy(&self.boards[ply + 1], b, sizeof(Board))
                end_turn(&self.boards[ply + 1])
                self.last_move[ply + 1] = 0
                self.known_danger[ply + 1] = -1
                self.path_keys[ply] = b.key
                score = -self._search(ply + 1, depth - 1 - r, -beta, -beta + 1, not cut_node)
                if self.stopped:
                    return 0
                if score >= beta:
                    return beta if score >= MATE - MAX_PLY else score
        # Internal iterative reduction: no table order to try first.
        if tt_move == 0 and depth >= 4 and (pv or cut_node):
            depth -= 1
        # Singular extension: is the table order (a lower bound from nearly this depth) far better
        # than every other order? Searched before this node's orders are generated, since the
        # search without it reuses this ply's order buffer.
        if (depth >= 7 and tt_move != 0 and excluded == 0 and ply > 0 and ply < 2 * self.root_depth
                and (tt_flag == TT_LOWER or tt_flag == TT_EXACT) and tt_depth >= depth - 3
                and _abs(tt_score) < MATE - MAX_PLY):
            singular_beta = tt_score - 2 * depth
            self.singular_searches += 1
            self.excluded[ply] = tt_move
            score = self._search(ply, (depth - 1) // 2, singular_beta - 1, singular_beta, cut_node)
            self.excluded[ply] = 0
            if self.stopped:
                return 0
            if score < singular_beta:
                singular = True
                self.singular_extensions += 1
            elif singular_beta >= beta:
                self.multi_cuts += 1
                return singular_beta                        # multi-cut: more than one order beats beta

        n = generate_orders(self.rules, b, self.cyl_all, moves, SEARCH_CAPACITY, True)
        if n < 0:
            n = SEARCH_CAPACITY
        if n == 0:
            if self.chess:
                return -MATE + ply if danger else 0         # H8a: checkmate, or stalemate (a draw)
            return 0 if self.draw_without_orders else self.evaluate(b)
        c1 = self._cont(b.side, prev)
        c2 = self._cont(b.side, self.last_move[ply - 1]) if ply >= 1 else NULL
        c4 = self._cont(b.side, self.last_move[ply - 3]) if ply >= 3 else NULL
        for i in range(n):
            scores[i] = self._order_score(b, moves[i], tt_move, ply, counter_move, c1, c2, c4)
        self.killers[ply + 2][0] = 0
        self.killers[ply + 2][1] = 0
        best = -INF
        self.path_keys[ply] = b.key
        for i in range(n):
            self._pick(b, moves, scores, i, n)
            m = moves[i]
            if m == excluded:
                continue
            quiet = not self._is_capture(m) and order_promo(m) < 0
            is_sov_capture = self._is_capture(m) and self._is_sovereign_sq(b, order_dest(m))
            if best > -MATE + MAX_PLY and not danger and not is_sov_capture:
                if quiet and not pv:
                    # Late-move pruning and futility pruning of quiet orders.
                    if depth <= 5 and searched >= (3 + depth * depth) // (2 - <int> improving):
                        continue
                    if depth <= 6 and ev + 100 + 90 * depth <= alpha and searched > 0:
                        continue
                    # A quiet order that kept failing after these orders (not a killer).
                    if (depth <= 3 and searched > 0 and scores[i] < (1 << 24) - 2
                            and self._quiet_history(b.side, m, c1, c2) < -4000 * depth):
                        continue
                elif not quiet and not pv and depth <= 4 and scores[i] < 0 and searched > 0:
                    continue                                # a losing capture at low depth
            memcpy(&self.boards[ply + 1], b, sizeof(Board))
            make_order(self.rules, &self.boards[ply + 1], m)
            ftc_prefetch(self.tt + (self.boards[ply + 1].key & self.tt_buckets_mask) * TT_WAYS)
            self.last_move[ply + 1] = m
            self.known_danger[ply + 1] = -1
            new_depth = depth - 1 + <int> (singular and m == tt_move)
            searched += 1
            if searched == 1:
                score = -self._search(ply + 1, new_depth, -beta, -alpha, False)
            else:
                reduced = 0
                if depth >= 3 and searched > 1 + <int> pv and quiet and not danger:
                    # Never reduce an order that threatens a Sovereign (what check is in chess).
                    gives_threat = self._threatened(&self.boards[ply + 1], 1 - b.side)
                    self.known_danger[ply + 1] = gives_threat          # the child needs not ask again
                    if not gives_threat:
                        r = self.lmr[min(depth, 63)][min(searched, 63)]
                        r += <int> (not pv)
                        r += <int> cut_node
                        r -= <int> improving
                        if scores[i] >= (1 << 24) - 2:              # killers and counter-orders
                            r -= 1
                        r -= self._quiet_history(b.side, m, c1, c2) // 10000
                        if r > new_depth - 1:
                            r = new_depth - 1
                        if r > 0:
                            reduced = r
                score = -self._search(ply + 1, new_depth - reduced, -alpha - 1, -alpha, True)
                if reduced and score > alpha:
                    score = -self._search(ply + 1, new_depth, -alpha - 1, -alpha, not cut_node)
                if pv and alpha < score < beta:
                    score = -self._search(ply + 1, new_depth, -beta, -alpha, False)
            if self._out_of_budget():
                return 0
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if quiet:
                            if self.killers[ply][0] != m:
                                self.killers[ply][1] = self.killers[ply][0]
                                self.killers[ply][0] = m
                            if prev:
                                self.counter[order_unit(prev)][order_dest(prev)] = m
                            self._update_quiet(b.side, m, min(depth * depth * 16, 8000), c1, c2, c4)
                            for j in range(n_quiets):
                                self._update_quiet(b.side, quiets[j], -min(depth * depth * 16, 8000), c1, c2, c4)
                        break
            if quiet and n_quiets < 64:
                quiets[n_quiets] = m
                n_quiets += 1
        if searched == 0:                                   # everything pruned: a fail low
            return alpha
        if excluded != 0:
            return best                                     # a partial search of the node: not stored
        # The correction history learns how far this search ended from the static evaluation, when
        # the best order is quiet (a capture's gain is no error of the evaluation) and the bound
        # says which side of it the true score lies.
        if (not danger and not self.stopped and (best_move == 0 or not self._is_capture(best_move))
                and _abs(best) < MATE - MAX_PLY
                and not (best >= beta and best <= self.static_eval[ply])
                and not (best <= original_alpha and best >= self.static_eval[ply])):
            self._update_corr(b.side, self.corr_slot[ply], best - self.static_eval[ply], depth)
        self._store(b.key, best_move, best, raw_eval if not danger else INF, depth,
                    TT_UPPER if best <= original_alpha else (TT_LOWER if best >= beta else TT_EXACT), ply)
        return best

    def search_root(self, BoardCore core, int depth, list root_orders, int multipv=1,
                    uint64_t node_limit=0, double deadline=0.0, int32_t alpha=-INF, int32_t beta=INF,
                    bint cylindrical=False, list history=None):
        """Search the encoded ``root_orders`` (in this order: the previous best first) at ``depth``
        within the window (alpha, beta); ``history``: keys of the game's earlier positions (a return to
        one scores as a draw). With ``multipv`` > 1 the best ``multipv`` scores are
        exact and the window is ignored; else the first order gets the full window and the others
        a null window (re-searched when they beat it), so their scores are upper bounds. Returns
        ([(score, order)] best first, nodes, whether the budget ran out, selective depth)."""
        cdef int32_t score, a, best = -INF
        cdef uint32_t m
        cdef list results = []
        cdef list best_scores = []
        cdef long i, n = len(root_orders)
        _require_8x8(core.tables, "search_root")
        if n > SEARCH_CAPACITY:
            raise ValueError("too many root orders")
        self.nodes = 0
        self.node_limit = node_limit
        self.deadline = deadline
        self.clock_countdown = CLOCK_INTERVAL
        self.stopped = self.stop_requested or (deadline > 0 and _now() >= deadline)
        self.seldepth = 0
        self.root_depth = depth
        self.cyl_all = cylindrical
        self.generation = <uint8_t> (self.generation + 1)
        memcpy(&self.boards[0], core.top(), sizeof(Board))
        self.path_keys[0] = self.boards[0].key
        self.last_move[0] = 0
        memset(self.excluded, 0, sizeof(self.excluded))
        self.static_eval[0] = -INF
        for i in range(n):
            self.root_moves[i] = root_orders[i]
        # Only positions since the last capture, deploy or training can come back (C3).
        self.n_game_keys = 0
        if history:
            for key in history[max(0, len(history) - min(MAX_HISTORY, self.boards[0].halfmove * 2 + 2)):]:
                self.game_keys[self.n_game_keys] = key
                self.n_game_keys += 1
        a = alpha if multipv == 1 else -INF
        for i in range(n):
            m = self.root_moves[i]
            memcpy(&self.boards[1], &self.boards[0], sizeof(Board))
            make_order(self.rules, &self.boards[1], m)
            self.last_move[1] = m
            self.known_danger[1] = -1
            with nogil:
                if multipv > 1:
                    score = -self._search(1, depth - 1, -beta, -a, False)
                elif i == 0:
                    score = -self._search(1, depth - 1, -beta, -a, False)
                else:
                    score = -self._search(1, depth - 1, -a - 1, -a, True)
                    if a < score < beta and not self.stopped:
                        score = -self._search(1, depth - 1, -beta, -a, False)
            if self.stopped:
                break
            results.append((score, m))
            if multipv > 1:
                best_scores.append(score)
                best_scores.sort(reverse=True)
                if len(best_scores) >= multipv:
                    a = best_scores[multipv - 1]
            else:
                if score > best:
                    best = score
                if score > a:
                    a = score
                if a >= beta:
                    break                                   # fail high: the driver widens the window
        results.sort(key=lambda item: -item[0])
        if results and not self.stopped:
            self._store(self.boards[0].key, results[0][1], results[0][0], INF, depth,
                        TT_EXACT if alpha < results[0][0] < beta else (TT_LOWER if results[0][0] >= beta else TT_UPPER), 0)
        return results, self.nodes, self.stopped, self.seldepth

    def request_stop(self):
        """Make the running search (in another thread) return at once, and any later one until
        clear_stop(); safe to call from any thread."""
        self.stop_requested = True
        self.stopped = True

    def clear_stop(self):
        self.stop_requested = False

    def tt_move(self, BoardCore core):
        """The transposition table's best order for this position, or 0."""
        cdef TTEntry* entry = self._probe(core.top().key)
        return entry.move if entry != NULL else 0
