"""Negamax alpha-beta with a transposition table, move ordering (TT move, captures by victim value,
promotions, killers, history) and quiescence on captures. No Python object is made per node."""
from libc.stdint cimport uint64_t, uint32_t, int32_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._tables cimport (Rules, RuleTables, MAX_TYPES, BLUE, YELLOW, bb_t, popcount, lsb)
from engine._board cimport (Board, make_order, set_side, has_sovereign, order_kind, order_dest,
                            order_origin, order_unit, order_promo, KIND_ATTACK, KIND_SHOOT)
from engine._movegen cimport generate_orders, capture_coverage
from engine._position cimport BoardCore


cdef double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef class AlphaBeta:
    """One search context: a transposition table, killer and history tables, weights, limits."""
    cdef const Rules* rules
    cdef RuleTables tables
    cdef TTEntry* tt
    cdef uint64_t tt_mask
    cdef Weights w
    cdef uint32_t killers[MAX_PLY][2]
    cdef int32_t history[64][64]
    cdef Board boards[MAX_PLY + 2]
    cdef uint64_t path_keys[MAX_PLY + 2]
    cdef uint32_t* move_buf
    cdef int32_t* score_buf
    cdef readonly uint64_t nodes
    cdef uint64_t node_limit
    cdef double deadline
    cdef bint stopped
    cdef volatile_flag stop_requested   # set by request_stop() from any thread; cleared by clear_stop()
    cdef bint draw_without_orders   # Point-Buy: a side to move with no order draws (C3)
    cdef int seldepth

    def __cinit__(self, RuleTables tables, weights, int tt_megabytes=16, bint draw_without_orders=True):
        cdef uint64_t entries = 1
        self.tables = tables
        self.rules = tables.rules
        while entries * 2 * sizeof(TTEntry) <= (<uint64_t> tt_megabytes) << 20:
            entries *= 2
        self.tt = <TTEntry*> calloc(entries, sizeof(TTEntry))
        self.move_buf = <uint32_t*> calloc((MAX_PLY + 1) * SEARCH_CAPACITY, sizeof(uint32_t))
        self.score_buf = <int32_t*> calloc((MAX_PLY + 1) * SEARCH_CAPACITY, sizeof(int32_t))
        if self.tt == NULL or self.move_buf == NULL or self.score_buf == NULL:
            raise MemoryError()
        self.tt_mask = entries - 1
        self.draw_without_orders = draw_without_orders
        memset(&self.w, 0, sizeof(Weights))
        for t, value in enumerate(weights["values"]):
            self.w.value[t] = value
        self.w.barracks_percent = weights["barracks_percent"]
        self.w.mobility = weights["mobility"]
        self.w.sovereign_attacked = weights["sovereign_attacked"]
        self.w.extra_sovereign = weights["extra_sovereign"]

    def __dealloc__(self):
        free(self.tt)
        free(self.move_buf)
        free(self.score_buf)

    def clear(self):
        """Forget the transposition table, killers and history (a new game)."""
        memset(self.tt, 0, (self.tt_mask + 1) * sizeof(TTEntry))
        memset(self.killers, 0, sizeof(self.killers))
        memset(self.history, 0, sizeof(self.history))

    # -- evaluation ----------------------------------------------------------------------------
    cdef int32_t _material(self, const Board* b, int colour) noexcept nogil:
        cdef int32_t total = 0
        cdef int t
        cdef bb_t own = b.by_colour[colour]
        for t in range(self.rules.n_types):
            total += popcount(b.by_type[t] & own) * self.w.value[t]
            total += b.barracks[colour][t] * self.w.value[t] * self.w.barracks_percent // 100
        return total

    cdef int32_t _safety(self, const Board* b, int colour) noexcept nogil:
        cdef bb_t sovereigns = 0, threats
        cdef int i, n
        for i in range(self.rules.n_sovereign_types):
            sovereigns |= b.by_type[self.rules.sovereign_types[i]] & b.by_colour[colour]
        n = popcount(sovereigns)
        threats = capture_coverage(self.rules, b, 1 - colour, False) & sovereigns
        return (n - 1) * self.w.extra_sovereign - popcount(threats) * self.w.sovereign_attacked

    cdef int32_t evaluate(self, Board* b) noexcept nogil:
        """Static score for the side to move, in centi-points."""
        cdef int side = b.side
        cdef int32_t score = self._material(b, side) - self._material(b, 1 - side)
        cdef long mine, theirs
        score += self._safety(b, side) - self._safety(b, 1 - side)
        if self.w.mobility:
            mine = generate_orders(self.rules, b, False, NULL, 0, False)
            set_side(b, 1 - side)
            theirs = generate_orders(self.rules, b, False, NULL, 0, False)
            set_side(b, side)
            score += <int32_t> (mine - theirs) * self.w.mobility
        return score

    def evaluate_position(self, BoardCore core):
        cdef Board b
        memcpy(&b, core.top(), sizeof(Board))
        return self.evaluate(&b)

    # -- ordering ------------------------------------------------------------------------------
    cdef inline int32_t _order_score(self, const Board* b, uint32_t m, uint32_t tt_move, int ply) noexcept nogil:
        cdef int kind = order_kind(m)
        cdef int victim
        cdef int32_t score = 0
        if m == tt_move:
            return 1 << 30
        if kind == KIND_ATTACK or kind == KIND_SHOOT:
            victim = b.square_type[order_dest(m)]
            score = (1 << 24) + (self.w.value[victim] if victim >= 0 else 100) * 16 \
                - self.w.value[order_unit(m)] // 16
        if order_promo(m) >= 0:
            score += (1 << 23) + self.w.value[order_promo(m)]
        if score:
            return score
        if m == self.killers[ply][0]:
            return 1 << 22
        if m == self.killers[ply][1]:
            return (1 << 22) - 1
        return self.history[order_origin(m)][order_dest(m)]

    cdef inline void _pick(self, uint32_t* moves, int32_t* scores, long i, long n) noexcept nogil:
        """Selection sort step: bring the best remaining order to position i."""
        cdef long j, best = i
        cdef uint32_t tm
        cdef int32_t ts
        for j in range(i + 1, n):
            if scores[j] > scores[best]:
                best = j
        if best != i:
            tm = moves[i]; moves[i] = moves[best]; moves[best] = tm
            ts = scores[i]; scores[i] = scores[best]; scores[best] = ts

    # -- the search ----------------------------------------------------------------------------
    cdef inline bint _out_of_budget(self) noexcept nogil:
        if self.stopped or self.stop_requested:
            self.stopped = True
            return True
        if self.node_limit and self.nodes >= self.node_limit:
            self.stopped = True
        elif (self.nodes & 1023) == 0 and self.deadline > 0 and _now() >= self.deadline:
            self.stopped = True
        return self.stopped

    cdef int32_t _quiesce(self, int ply, int32_t alpha, int32_t beta) noexcept nogil:
        cdef Board* b = &self.boards[ply]
        cdef uint32_t* moves = self.move_buf + ply * SEARCH_CAPACITY
        cdef int32_t* scores = self.score_buf + ply * SEARCH_CAPACITY
        cdef long n, i, k = 0
        cdef int32_t stand, score
        cdef int kind
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply
        if not has_sovereign(self.rules, b, b.side):
            return -MATE + ply
        if not has_sovereign(self.rules, b, 1 - b.side):
            return MATE - ply
        stand = self.evaluate(b)
        if ply >= MAX_PLY or stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        n = generate_orders(self.rules, b, False, moves, SEARCH_CAPACITY, True)
        for i in range(n):               # keep captures only
            kind = order_kind(moves[i])
            if kind == KIND_ATTACK or kind == KIND_SHOOT:
                moves[k] = moves[i]
                scores[k] = self._order_score(b, moves[i], 0, ply)
                k += 1
        for i in range(k):
            self._pick(moves, scores, i, k)
            memcpy(&self.boards[ply + 1], b, sizeof(Board))
            make_order(self.rules, &self.boards[ply + 1], moves[i])
            score = -self._quiesce(ply + 1, -beta, -alpha)
            if self._out_of_budget():
                return 0
            if score >= beta:
                return score
            if score > alpha:
                alpha = score
        return alpha

    cdef int32_t _negamax(self, int ply, int depth, int32_t alpha, int32_t beta) noexcept nogil:
        cdef Board* b = &self.boards[ply]
        cdef uint32_t* moves = self.move_buf + ply * SEARCH_CAPACITY
        cdef int32_t* scores = self.score_buf + ply * SEARCH_CAPACITY
        cdef TTEntry* entry
        cdef uint32_t tt_move = 0, best_move = 0, m
        cdef int32_t best, score, original_alpha = alpha
        cdef long n, i
        cdef int j, kind
        if depth <= 0:
            return self._quiesce(ply, alpha, beta)
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply
        if not has_sovereign(self.rules, b, b.side):
            return -MATE + ply            # C8: a side without a Sovereign has lost
        if not has_sovereign(self.rules, b, 1 - b.side):
            return MATE - ply
        if ply > 0:
            for j in range(ply - 2, -1, -2):     # a repetition on the path scores as a draw (C3)
                if self.path_keys[j] == b.key:
                    return 0
        entry = &self.tt[b.key & self.tt_mask]
        if entry.key == b.key:
            tt_move = entry.move
            if ply > 0 and entry.depth >= depth:
                score = entry.score
                if score > MATE - MAX_PLY:
                    score -= ply
                elif score < -MATE + MAX_PLY:
                    score += ply
                if entry.flag == TT_EXACT:
                    return score
                if entry.flag == TT_LOWER and score >= beta:
                    return score
                if entry.flag == TT_UPPER and score <= alpha:
                    return score
        n = generate_orders(self.rules, b, False, moves, SEARCH_CAPACITY, True)
        if n < 0:
            n = SEARCH_CAPACITY
        if n == 0:
            return 0 if self.draw_without_orders else self.evaluate(b)
        for i in range(n):
            scores[i] = self._order_score(b, moves[i], tt_move, ply)
        best = -INF
        self.path_keys[ply] = b.key
        for i in range(n):
            self._pick(moves, scores, i, n)
            m = moves[i]
            memcpy(&self.boards[ply + 1], b, sizeof(Board))
            make_order(self.rules, &self.boards[ply + 1], m)
            if i == 0:
                score = -self._negamax(ply + 1, depth - 1, -beta, -alpha)
            else:                        # principal variation search: a null window first
                score = -self._negamax(ply + 1, depth - 1, -alpha - 1, -alpha)
                if alpha < score < beta:
                    score = -self._negamax(ply + 1, depth - 1, -beta, -alpha)
            if self._out_of_budget():
                return 0
            if score > best:
                best = score
                best_move = m
            if score > alpha:
                alpha = score
            if alpha >= beta:
                kind = order_kind(m)
                if kind != KIND_ATTACK and kind != KIND_SHOOT:
                    if self.killers[ply][0] != m:
                        self.killers[ply][1] = self.killers[ply][0]
                        self.killers[ply][0] = m
                    self.history[order_origin(m)][order_dest(m)] += depth * depth
                break
        score = best
        if score > MATE - MAX_PLY:
            score += ply
        elif score < -MATE + MAX_PLY:
            score -= ply
        if entry.key != b.key or entry.depth <= depth:
            entry.key = b.key
            entry.move = best_move
            entry.score = score
            entry.depth = depth
            entry.flag = TT_UPPER if best <= original_alpha else (TT_LOWER if best >= beta else TT_EXACT)
        return best

    def search_root(self, BoardCore core, int depth, list root_orders, int multipv=1,
                    uint64_t node_limit=0, double deadline=0.0):
        """Score the encoded root_orders at ``depth`` (try the previous best first). The best
        ``multipv`` scores are exact; the others are upper bounds. Returns ([(score, order)] best
        first, nodes, whether the budget ran out, selective depth)."""
        cdef int32_t score, a = -INF
        cdef uint32_t m
        cdef list results = []
        cdef list best_scores = []
        cdef TTEntry* entry
        self.nodes = 0
        self.node_limit = node_limit
        self.deadline = deadline
        self.stopped = self.stop_requested
        self.seldepth = 0
        memcpy(&self.boards[0], core.top(), sizeof(Board))
        self.path_keys[0] = self.boards[0].key
        for m in root_orders:
            memcpy(&self.boards[1], &self.boards[0], sizeof(Board))
            make_order(self.rules, &self.boards[1], m)
            with nogil:
                score = -self._negamax(1, depth - 1, -INF, -a)
            if self.stopped:
                break
            results.append((score, m))
            best_scores.append(score)
            best_scores.sort(reverse=True)
            if len(best_scores) >= multipv:
                a = best_scores[multipv - 1]
        results.sort(key=lambda item: -item[0])
        if results and not self.stopped:
            entry = &self.tt[self.boards[0].key & self.tt_mask]
            entry.key = self.boards[0].key
            entry.move = results[0][1]
            entry.score = results[0][0]
            entry.depth = depth
            entry.flag = TT_EXACT
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
        cdef uint64_t key = core.top().key
        cdef TTEntry* entry = &self.tt[key & self.tt_mask]
        return entry.move if entry.key == key else 0
