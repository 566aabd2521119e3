"""King's Ransom perft over complete turns (G8, docs/kings-ransom.md) in C: copy-make on a plain
struct (_ransom.pxd RansomBoard), the last turn bulk-counted, no Python object per node.

The rules are those of engine/ransom/position.py, step for step:
- turn options (RansomPosition.turn_options): the side's moves with its own face-down cards made
  movers (a move of the card on f is a move of "flip f"), the enemy's face-down cards banned;
  legal when afterwards no enemy *face-up* card could capture the side's King (BoardCore.safe_orders
  with the face-up cards as attackers); a capture of the enemy King is always legal and ends the
  game. No move after any flip: checkmate (in check), else stalemate whatever the Hand holds
  (RULINGS G9): such a position has no turn;
- promotion (promotion_options): keep, or one option per distinct non-Pawn type in the mover's
  Discard pile, for a Pawn ending on the opponent's back row;
- play (play_options): empty squares of the own half x distinct Hand types; a full half: the own
  non-King cards there x types, plus one discard per type; nothing when the Hand is empty.

A walk polls its PerftControl's stop flag at every node of depth >= 2 and adds its leaves to the
control's live count (engine._perft), so `ftc perft` can show progress and be stopped.
"""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from engine._tables cimport Rules, MAX_TYPES, bb_t, lsb, popcount
from engine._board cimport (Board, apply_order, add_stock, remove_unit, put_unit, set_side, order_dest,
                            order_origin, order_unit, order_kind, KIND_DEPLOY, ST_BANNED, ST_ORDERED)
from engine._movegen cimport generate_orders
from engine._perft cimport (PerftShared, PerftControl, PERFT_OVERFLOW, PERFT_STOPPED, PERFT_FLUSH,
                            ftc_load_int, ftc_add_u64)
from engine._position cimport BoardCore, _attack_set, _sovereigns
from engine._perft import PerftStopped as _PerftStopped


cdef inline bb_t _bit(int sq) noexcept nogil:
    return (<bb_t> 1) << sq


cdef inline void _sync_flags(RansomBoard* p) noexcept nogil:
    """Face-down cards are banned (never ordered); no card is 'ordered this turn'."""
    p.board.status[ST_BANNED] = p.face_down
    p.board.status[ST_ORDERED] = 0


cdef inline int _king_square(const RansomRulesC* c, const RansomBoard* p, int side) noexcept nogil:
    cdef bb_t bits = p.board.by_type[c.king_type] & p.board.by_colour[side]
    return lsb(bits) if bits else -1


cdef int ransom_options(const RansomRulesC* c, RansomBoard* p, RansomOptions* out) noexcept nogil:
    cdef const Rules* rules = c.rules
    cdef Board* b = &p.board
    cdef Board probe
    cdef int side = b.side, enemy = 1 - side, i, dest, king, n_gen, n_base = 0, n_down = 0
    cdef uint32_t m
    cdef uint32_t down_moves[RANSOM_MOVE_CAPACITY]
    cdef bb_t own = b.by_colour[side]
    cdef bb_t own_down = own & p.face_down
    cdef bb_t attackers = b.by_colour[enemy] & ~p.face_down
    cdef bb_t enemy_sovereigns, own_sovereigns, with_moves = 0
    cdef bint check
    out.own_down = own_down
    # Generate with the side's own face-down cards as movers; the enemy's stay banned.
    b.status[ST_BANNED] = p.face_down & ~own
    n_gen = generate_orders(rules, b, False, out.moves, RANSOM_MOVE_CAPACITY, False)
    b.status[ST_BANNED] = p.face_down
    if n_gen < 0:
        return -1
    enemy_sovereigns = _sovereigns(rules, b, enemy)
    for i in range(n_gen):
        m = out.moves[i]
        dest = order_dest(m)
        if not ((enemy_sovereigns >> dest) & 1 and order_kind(m) != KIND_DEPLOY):
            memcpy(&probe, b, sizeof(Board))
            apply_order(rules, &probe, m)
            own_sovereigns = _sovereigns(rules, &probe, side)
            if own_sovereigns and _attack_set(rules, &probe, enemy, attackers, own_sovereigns, False, True):
                continue
        if (own_down >> order_origin(m)) & 1:
            down_moves[n_down] = m
            n_down += 1
            with_moves |= _bit(order_origin(m))
        else:
            out.moves[n_base] = m           # n_base <= i: the kept base moves stay in front
            n_base += 1
    for i in range(n_down):
        out.moves[n_base + i] = down_moves[i]
    out.n_base = n_base
    out.n = n_base + n_down
    if out.n:
        out.status = RANSOM_PLAYING
        return RANSOM_PLAYING
    king = _king_square(c, p, side)
    check = king >= 0 and _attack_set(rules, b, enemy, attackers, _bit(king), False, True) != 0
    out.status = RANSOM_CHECKMATE if check else RANSOM_STALEMATE      # G7; G9 whatever the Hand holds
    return out.status


cdef void ransom_flip(RansomBoard* p, int sq) noexcept nogil:
    p.face_down &= ~_bit(sq)
    _sync_flags(p)


cdef int ransom_move(const RansomRulesC* c, RansomBoard* p, uint32_t m) noexcept nogil:
    cdef Board* b = &p.board
    cdef int side = b.side, dest = order_dest(m)
    cdef int victim = b.square_type[dest]
    if victim >= 0:
        p.face_down &= ~_bit(dest)
        p.discard[1 - side][victim] += 1
    apply_order(c.rules, b, m)
    if victim >= 0:
        add_stock(b, victim, -1)            # the kernel's capture filled its Stock: a Discard pile here
    _sync_flags(p)
    return victim


cdef void ransom_promote(const RansomRulesC* c, RansomBoard* p, int sq, int t) noexcept nogil:
    cdef Board* b = &p.board
    cdef int side = b.side
    remove_unit(b, sq, b.square_type[sq], side)
    put_unit(b, sq, t, side)
    p.discard[side][t] -= 1
    p.discard[side][c.pawn_type] += 1
    _sync_flags(p)


cdef void ransom_play(RansomBoard* p, int t, int sq) noexcept nogil:
    cdef Board* b = &p.board
    cdef int side = b.side, old
    p.hand[side][t] -= 1
    if sq < 0:
        p.discard[side][t] += 1
        return
    old = b.square_type[sq]
    if old >= 0:
        p.discard[side][old] += 1
        remove_unit(b, sq, old, side)
    put_unit(b, sq, t, side)
    p.face_down |= _bit(sq)
    _sync_flags(p)


cdef void ransom_end_turn(RansomBoard* p) noexcept nogil:
    set_side(&p.board, 1 - p.board.side)
    _sync_flags(p)


cdef inline int _hand_types(const RansomRulesC* c, const RansomBoard* p, int side) noexcept nogil:
    cdef int t, n = 0
    for t in range(c.n_types):
        if p.hand[side][t] > 0:
            n += 1
    return n


cdef inline int _promotions(const RansomRulesC* c, const RansomBoard* p, uint32_t m) noexcept nogil:
    """How many promotion options the move has (keep included): 1 when it promotes nothing."""
    cdef int side = p.board.side, t, n = 1
    if order_unit(m) != c.pawn_type or not ((c.back_rows[1 - side] >> order_dest(m)) & 1):
        return 1
    for t in range(c.n_types):
        if t != c.pawn_type and p.discard[side][t] > 0:
            n += 1
    return n


cdef inline uint64_t _plays(bb_t half, int n_types, bb_t occupied, bb_t mine, bb_t king_bit) noexcept nogil:
    cdef bb_t empty
    if n_types == 0:
        return 1
    empty = half & ~occupied
    if empty:
        return <uint64_t> n_types * popcount(empty)
    return <uint64_t> n_types * popcount(mine & half & ~king_bit) + n_types


cdef uint64_t _count_with(const RansomRulesC* c, RansomBoard* p, RansomOptions* opts) noexcept nogil:
    cdef Board* b = &p.board
    cdef int side = b.side, i, origin, dest, enemy_king, n_types, groups
    cdef uint32_t m
    cdef bb_t half = c.halves[side], occupied = b.occupied, own = b.by_colour[side], king, king_bit
    cdef uint64_t total = 0, value
    if ransom_options(c, p, opts) < 0:
        return PERFT_OVERFLOW
    if opts.status != RANSOM_PLAYING:
        return 0
    n_types = _hand_types(c, p, side)
    king = b.by_type[c.king_type] & own
    groups = popcount(opts.own_down) if opts.own_down else 1
    enemy_king = _king_square(c, p, 1 - side)
    for i in range(opts.n):
        m = opts.moves[i]
        dest = order_dest(m)
        if dest == enemy_king:
            value = 1
        else:
            origin = order_origin(m)
            king_bit = _bit(dest) if (king >> origin) & 1 else king
            value = _plays(half, n_types, (occupied & ~_bit(origin)) | _bit(dest),
                           (own ^ _bit(origin)) | _bit(dest), king_bit) * _promotions(c, p, m)
        # a base move follows each flip (there is a move, so every flip is offered); a move of a
        # face-down card follows its own flip only
        total += value * groups if i < opts.n_base else value
    return total


cdef uint64_t ransom_count_turns(const RansomRulesC* c, RansomBoard* p) noexcept nogil:
    cdef RansomOptions* opts = <RansomOptions*> malloc(sizeof(RansomOptions))
    cdef uint64_t n
    if opts == NULL:
        return PERFT_OVERFLOW
    n = _count_with(c, p, opts)
    free(opts)
    return n


# One level of the walk: the node, the position after flip + move, after the promotion, and the
# options of the node. The child (after the play and the turn's end) is the next level's node.
ctypedef struct _Level:
    RansomBoard node
    RansomBoard moved
    RansomBoard promoted
    RansomOptions opts


cdef struct _Walk:
    PerftShared* shared
    uint64_t pending            # leaves counted at finished depth-2 nodes, not yet added to shared.nodes
    uint64_t accounted          # every leaf ever put into pending (the rest is added at the end)


cdef uint64_t _after_plays(const RansomRulesC* c, _Level* levels, RansomBoard* before, int depth,
                           _Walk* walk) noexcept nogil:
    """The plays open after the move step on `before`, each followed by the turn's end and a walk of
    depth - 1 from the next level's node."""
    cdef int side = before.board.side, t, sq
    cdef bb_t half = c.halves[side], empty, targets, king, bits
    cdef uint64_t total = 0, sub
    cdef bint any_card = False
    empty = half & ~before.board.occupied
    if empty:
        targets = empty
    else:
        king = before.board.by_type[c.king_type] & before.board.by_colour[side]
        targets = before.board.by_colour[side] & half & ~king
    for t in range(c.n_types):
        if before.hand[side][t] <= 0:
            continue
        any_card = True
        bits = targets
        while bits:
            sq = lsb(bits)
            bits &= bits - 1
            sub = _play_and_walk(c, levels, before, t, sq, depth, walk)
            if sub >= PERFT_STOPPED:
                return sub
            total += sub
        if not empty:
            sub = _play_and_walk(c, levels, before, t, -1, depth, walk)     # the discard
            if sub >= PERFT_STOPPED:
                return sub
            total += sub
    if not any_card:
        total = _play_and_walk(c, levels, before, -1, -1, depth, walk)
    return total


cdef inline uint64_t _play_and_walk(const RansomRulesC* c, _Level* levels, const RansomBoard* before, int t, int sq,
                                    int depth, _Walk* walk) noexcept nogil:
    """The next level's node: `before` after playing card type `t` on `sq` (-1: a discard; t = -1:
    nothing to play), the turn's end; then its walk of depth - 1."""
    cdef RansomBoard* child = &levels[1].node
    memcpy(child, before, sizeof(RansomBoard))
    if t >= 0:
        ransom_play(child, t, sq)
    ransom_end_turn(child)
    return _walk(c, levels + 1, depth - 1, walk)


cdef uint64_t _walk(const RansomRulesC* c, _Level* levels, int depth, _Walk* walk) noexcept nogil:
    """perft of levels[0].node (depth >= 1); the last turn counted without being made."""
    cdef _Level* lv = levels
    cdef RansomBoard* p = &lv.node
    cdef RansomOptions* opts = &lv.opts
    cdef int side, enemy_king, i, t, dest, flip, n_promos
    cdef uint32_t m
    cdef bb_t flips, group_bit
    cdef uint64_t total = 0, sub
    if depth == 1:
        return _count_with(c, p, opts)
    if ftc_load_int(&walk.shared.stop):
        return PERFT_STOPPED
    if ransom_options(c, p, opts) < 0:
        return PERFT_OVERFLOW
    if opts.status != RANSOM_PLAYING:
        return 0
    side = p.board.side
    enemy_king = _king_square(c, p, 1 - side)
    # the flips: each own face-down card, or one empty flip (-1) when there is none
    flips = opts.own_down
    while True:
        if flips:
            flip = lsb(flips)
            flips &= flips - 1
            group_bit = _bit(flip)
        else:
            flip = -1
            group_bit = 0
        for i in range(opts.n):
            m = opts.moves[i]
            if i >= opts.n_base and order_origin(m) != flip:
                continue                        # a move of another face-down card
            dest = order_dest(m)
            if dest == enemy_king:
                total += 1                      # the King is taken: the game is over
                continue
            memcpy(&lv.moved, p, sizeof(RansomBoard))
            if flip >= 0:
                ransom_flip(&lv.moved, flip)
            ransom_move(c, &lv.moved, m)
            sub = _after_plays(c, levels, &lv.moved, depth, walk)
            if sub >= PERFT_STOPPED:
                return sub
            total += sub
            n_promos = _promotions(c, p, m)
            if n_promos > 1:
                for t in range(c.n_types):
                    if t == c.pawn_type or p.discard[side][t] <= 0:
                        continue
                    memcpy(&lv.promoted, &lv.moved, sizeof(RansomBoard))
                    ransom_promote(c, &lv.promoted, dest, t)
                    sub = _after_plays(c, levels, &lv.promoted, depth, walk)
                    if sub >= PERFT_STOPPED:
                        return sub
                    total += sub
        if not flips:
            break
    if depth == 2:
        walk.pending += total
        walk.accounted += total
        if walk.pending >= PERFT_FLUSH:
            ftc_add_u64(&walk.shared.nodes, walk.pending)
            walk.pending = 0
    return total


cdef uint64_t ransom_perft_c(const RansomRulesC* c, const RansomBoard* root, int depth,
                             PerftShared* shared) noexcept nogil:
    cdef _Level* levels
    cdef _Walk walk
    cdef uint64_t result
    walk.shared = shared
    walk.pending = 0
    walk.accounted = 0
    if depth <= 0:
        ftc_add_u64(&shared.nodes, 1)
        return 1
    if ftc_load_int(&shared.stop):
        return PERFT_STOPPED
    levels = <_Level*> malloc((depth + 1) * sizeof(_Level))
    if levels == NULL:
        return PERFT_OVERFLOW
    memcpy(&levels[0].node, root, sizeof(RansomBoard))
    _sync_flags(&levels[0].node)
    result = _walk(c, levels, depth, &walk)
    free(levels)
    if result < PERFT_STOPPED:
        walk.pending += result - walk.accounted     # leaves no depth-2 node counted (King captures above)
    if walk.pending:
        ftc_add_u64(&shared.nodes, walk.pending)
    return result


def ransom_perft(BoardCore core, bb_t face_down, hands, discards, int depth, int king_type, int pawn_type,
                 halves, back_rows, PerftControl control=None):
    """Sequences of ``depth`` complete turns (G8) from the position on ``core`` (its current board:
    arena and side to move) with ``face_down`` (a bitboard), ``hands`` and ``discards`` (per side,
    counts by type id), counted in C with the GIL released. ``king_type``, ``pawn_type``,
    ``halves`` and ``back_rows`` are those of engine.ransom.rules.RansomRules. ``control``: a
    PerftControl to stop the count (PerftStopped) and read its live node count."""
    cdef RansomRulesC c
    cdef RansomBoard* root
    cdef PerftShared alone
    cdef PerftShared* shared = &alone
    cdef uint64_t result
    cdef int side, t, n = core.tables.rules.n_types
    if not 0 <= king_type < n or not 0 <= pawn_type < n:
        raise ValueError(f"king_type and pawn_type must be type ids below {n}")
    if len(hands) != 2 or len(discards) != 2 or len(halves) != 2 or len(back_rows) != 2:
        raise ValueError("hands, discards, halves and back_rows: one entry per side")
    for side in range(2):
        if len(hands[side]) != n or len(discards[side]) != n:
            raise ValueError(f"hands and discards: {n} counts per side (one per type id)")
    c.rules = core.tables.rules
    c.n_types = n
    c.king_type = king_type
    c.pawn_type = pawn_type
    c.halves[0], c.halves[1] = halves[0], halves[1]
    c.back_rows[0], c.back_rows[1] = back_rows[0], back_rows[1]
    if control is not None:
        shared = control.shared
    else:
        memset(&alone, 0, sizeof(PerftShared))
    root = <RansomBoard*> malloc(sizeof(RansomBoard))
    if root == NULL:
        raise MemoryError()
    try:
        memset(root, 0, sizeof(RansomBoard))
        memcpy(&root.board, core.top(), sizeof(Board))
        root.face_down = face_down
        for side in range(2):
            for t in range(n):
                root.hand[side][t] = hands[side][t]
                root.discard[side][t] = discards[side][t]
        with nogil:
            result = ransom_perft_c(&c, root, depth, shared)
    finally:
        free(root)
    if result == PERFT_OVERFLOW:
        raise OverflowError(f"a position below had more than {RANSOM_MOVE_CAPACITY} orders (or no memory)")
    if result == PERFT_STOPPED:
        raise _PerftStopped(control.nodes if control is not None else 0,
                            control.reason if control is not None else 0)
    return result
