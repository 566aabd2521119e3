"""Alpha-beta on board positions: it finds forced Sovereign captures within fixed node budgets (the
expected depth of each is verified by an independent AND-OR search, tests/search/tactics.py), and
its API keeps its promises (limits, multi-PV, principal variations, evaluation symmetry)."""

import pytest

from engine import Position
from engine.board.alphabeta import AlphaBeta, format_score
from engine.board.evaluate import EvalError, load_weights
from tests.search.tactics import forced_capture, wins_by

# (position, orders to capture the last enemy Sovereign, node budget, what it exercises)
TACTICS = [
    ("8/3k4/8/8/8/8/8/Z3K3 w - - 0 1", 1, 2_000, "Nightrider ride a1-d7 (12.0)"),
    ("8/8/3k4/8/3O4/8/8/4K3 w - - 0 1", 1, 2_000, "Oracle shoots without moving (B13)"),
    ("k6~R/8/8/8/8/8/8/4K3 w - - 0 1", 1, 2_000, "Corsair captures across the h/a edge (16.0)"),
    ("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", 1, 2_000, "Yellow Pawn captures toward rank 1"),
    ("kb6/pp6/8/8/8/8/8/4K2~R w - - 0 1", 2, 20_000, "Corsair h1-h8, then through the edge to a8"),
    ("6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1", 2, 20_000, "back rank: no check, the King cannot escape"),
    ("k7/1pp5/8/8/8/8/8/1R2K1R1 w - - 0 1", 3, 200_000, "two Rooks close the corner"),
    ("1F6/8/5K2/8/6k1/6pC/8/p7 w - - 0 1", 3, 300_000, "Chancellor and Phantom"),
    ("3k2p1/C4K2/8/8/8/3p4/8/4~G3 w - - 0 1", 3, 300_000, "Chancellor and a cylindrical Navigator"),
    ("8/3X2k1/8/2A2K2/8/8/8/3pp3 w - - 0 1", 3, 300_000, "Sphinx and Acolyte"),
    ("1~G6/p7/8/8/6K1/6p1/8/2D1k3 w - - 0 1", 3, 300_000, "Dragoon and a Navigator wrapping the edge"),
]


@pytest.fixture(scope="module")
def searcher():
    return AlphaBeta()


@pytest.mark.parametrize("text, orders, budget, theme", TACTICS, ids=[t[3] for t in TACTICS])
def test_finds_forced_sovereign_capture_within_node_budget(searcher, text, orders, budget, theme):
    pos = Position.from_text(text)
    # The independent AND-OR search says the capture is forced in exactly `orders` orders.
    assert forced_capture(pos, orders) and not forced_capture(pos, orders - 1)
    searcher.new_game()
    # Depth is the search's business (it prunes and extends): the forced capture must be found
    # within the node budget, as the shortest one.
    result = searcher.search(pos, nodes=budget)
    assert format_score(result.score) == f"mate in {orders}"
    assert result.nodes <= budget
    assert wins_by(pos, result.best.text(), orders)
    assert result.lines[0].pv[0] == result.best.text()


def test_losing_side_sees_the_capture_coming(searcher):
    pos = Position.from_text("6k1/5ppp/8/8/8/8/8/R3K3 b - - 0 1")   # Yellow to move, Rook threatens a8
    result = searcher.search(pos, depth=4)
    assert result.score > -1_000_000 + 1000          # Yellow can still run: g8f8 and no back-rank capture
    pos = Position.from_text("6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1")
    pos.push("a1a8")
    result = searcher.search(pos, depth=3)
    assert format_score(result.score) == "-mate in 1"


def test_multi_pv_lines_are_sorted_exact_and_legal(searcher):
    pos = Position.from_text("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w - - 0 1")
    result = searcher.search(pos, depth=3, top=4)
    assert len(result.lines) == 4
    scores = [line.score for line in result.lines]
    assert scores == sorted(scores, reverse=True)
    assert result.lines[0].order == "h5f7" and format_score(scores[0]) == "mate in 2"
    for line in result.lines:                # every principal variation is a legal sequence
        probe = pos.copy()
        for text in line.pv:
            probe.push(text)
    # Each line's score agrees with a separate search of the position after its first order.
    second = result.lines[1]
    after = pos.copy()
    after.push(second.order)
    assert -searcher.search(after, depth=2).score == second.score


def _replay(pos, pv, cylindrical=False):
    """Push every order of ``pv`` on a copy of ``pos``: each must be legal where it is played."""
    probe = pos.copy()
    for text in pv:
        legal = {o.text(): o for o in probe.legal_orders(cylindrical=cylindrical)}
        assert text in legal, (pv, text)
        probe.push(legal[text], cylindrical)


@pytest.mark.parametrize("text, top", [
    ("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w - - 0 1", 3),   # mate in 2 inside the horizon
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 1),
    ("1F6/8/5K2/8/6k1/6pC/8/p7 w - - 0 1", 2),
])
def test_principal_variations_never_hold_more_orders_than_the_depth_searched(text, top):
    pos = Position.from_text(text)
    seen = []
    result = AlphaBeta().search(pos, depth=5, top=top, progress=seen.append)
    assert [info["depth"] for info in seen] == list(range(1, result.depth + 1))
    for info in seen:
        assert 1 <= len(info["pv"]) <= info["depth"]
        for line in info["lines"]:
            assert 1 <= len(line["pv"]) <= info["depth"]
            _replay(pos, line["pv"])
    for entry in result.history:
        assert len(entry["pv"]) <= entry["depth"]
    assert all(len(line.pv) <= result.depth for line in result.lines)


def test_compass_mode_principal_variation_follows_orders_across_the_edge():
    # Yellow's Rook h5 takes the Knight a5 through the edge unless it moves; the line goes on with
    # orders that wrap around the a/h files, which a flat board does not have: the principal
    # variation is read in the search's own topology, so it is as long as the depth.
    pos = Position.from_text("4k3/8/8/N5pr/8/8/8/4K3 w - - 0 1")
    result = AlphaBeta().search(pos, depth=4, cylindrical=True)
    assert len(result.lines[0].pv) == 4
    _replay(pos, result.lines[0].pv, cylindrical=True)


def test_node_and_depth_limits(searcher):
    pos = Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    limited = searcher.search(pos, depth=20, nodes=5_000)
    assert limited.nodes <= 5_000 + 5_000 // 10 and limited.depth < 20 and not limited.complete
    assert limited.best is not None and limited.best.text() in {o.text() for o in pos.legal_orders()}
    assert searcher.search(pos, depth=2).depth == 2


def test_no_orders_is_a_draw_and_no_best_order(searcher):
    # Yellow is walled in: its Pawns are blocked and the Blue Pawns they could take are immune (C6).
    pos = Position.from_text("kp6/pp6/PP6/8/8/8/8/4K3 b - - 0 1 status:a6w,b6w")
    assert pos.legal_orders() == []
    result = searcher.search(pos, depth=3)
    assert result.best is None and result.score == 0 and result.lines == []


def test_evaluation_is_colour_symmetric(searcher):
    a = Position.from_text("r1bqk2r/pppZpp1p/2n2n2/4p3/1Lb1P3/2NO1N2/PPP2PPP/R1B1KW1R[Nz] w - - 0 1")
    b = Position.from_text("r1b1kw1r/ppp2ppp/2no1n2/1lB1p3/4P3/2N2N2/PPPzPP1P/R1BQK2R[Zn] b - - 0 1")
    assert searcher.evaluate(a) == searcher.evaluate(b)


def test_bad_weights_file_is_named(tmp_path):
    path = tmp_path / "eval.toml"
    path.write_text("[weights]\nmobility = 'high'\n")
    with pytest.raises(EvalError, match="weight 'mobility' must be an integer"):
        load_weights(path)
    path.write_text("[weights]\nspeed = 3\n")
    with pytest.raises(EvalError, match="unknown weight 'speed'"):
        load_weights(path)


def test_stop_from_another_thread_ends_the_search_with_its_best_order():
    import threading

    searcher = AlphaBeta()
    position = Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    started, results = threading.Event(), []
    thread = threading.Thread(target=lambda: results.append(
        searcher.search(position, seconds=120, progress=lambda info: info["depth"] >= 2 and started.set())))
    thread.start()
    assert started.wait(60)
    searcher.stop()
    thread.join(30)
    assert not thread.is_alive() and results[0].best is not None and not results[0].complete
    again = searcher.search(position, depth=2)          # a new search is not stopped
    assert again.complete and again.depth == 2


def test_an_order_a_stopped_iteration_proved_better_is_the_answer():
    """An iteration cut short by its budget has still proved something when an order failed high or
    beat the previous best: that order is the answer, not the previous iteration's best (as in
    Stockfish). In this position the best order changes between two depths; some budget inside the
    deeper iteration must already answer with the new order, and no budget with a third one. The
    classical evaluation, so that another shipped net cannot change the position's iterations (with
    net e9c983a8c62d the deeper iteration raises its best twice: a cut answers either)."""
    position = Position.from_text("r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1")
    full = AlphaBeta(evaluation="classical").search(position, depth=9).history
    change = next((i for i in range(1, len(full)) if full[i]["pv"][0] != full[i - 1]["pv"][0]), None)
    assert change is not None, "no depth changes the best order here: pick another position"
    before, after = full[change - 1], full[change]
    answers = set()
    for k in range(1, 40):
        budget = before["nodes"] + (after["nodes"] - before["nodes"]) * k // 40
        cut = AlphaBeta(evaluation="classical").search(position, depth=after["depth"], nodes=budget)
        assert not cut.complete and cut.depth == before["depth"]
        answers.add(cut.best.text())
        assert cut.lines[0].pv[0] == cut.best.text()
    assert answers == {before["pv"][0], after["pv"][0]}


def test_a_longer_forced_capture_found_first_does_not_end_the_deepening():
    """Pruning can hide a short forced capture for some iterations while a longer one is found: the
    deepening goes on to depth 2k + 2 of the first one found (k its plies), and here finds the
    shortest (a capture in 3 orders, proved by the independent AND-OR search)."""
    position = Position.from_text("8/3X2k1/8/2A2K2/8/8/8/3pp3 w - - 0 1")
    assert forced_capture(position, 3) and not forced_capture(position, 2)
    result = AlphaBeta().search(position, nodes=2_000_000)
    assert format_score(result.score) == "mate in 3" and wins_by(position, result.best.text(), 3)
    assert result.complete and result.depth == 2 * 5 + 2          # 3 orders are 5 plies


def test_singular_extensions_extend_some_table_orders_and_cut_others():
    """A search of a node without its table order (at half depth, below the order's lower bound)
    decides: it fails low, and the table order is singular (searched a ply deeper); or it beats a
    bound already above beta, and the node is cut (multi-cut). A middlegame at depth 10 sees both,
    and not every such search extends (were the table order not left out, it would rarely fail low)."""
    searcher = AlphaBeta()
    position = Position.from_text("r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1")
    searcher.search(position, depth=10)
    stats = searcher._kernel.search_stats()
    assert 0 < stats["singular_extensions"] < stats["singular_searches"]
    assert 0 < stats["multi_cuts"] < stats["singular_searches"]
    searcher.new_game()
    assert set(searcher._kernel.search_stats().values()) == {0}


def test_a_new_game_forgets_what_the_last_search_learned():
    """new_game() clears the transposition table and every ordering table (killers, counter-orders,
    the quiet and continuation histories): after it a search is a fresh searcher's, node for
    node. Two middlegames with many exchanges, so that each table has entries the second search reads."""
    first = Position.from_text("r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1")
    second = Position.from_text("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w - - 0 8")
    used = AlphaBeta()
    used.search(first, depth=9)
    used.new_game()
    again = used.search(second, depth=8)
    fresh = AlphaBeta().search(second, depth=8)
    assert (again.nodes, again.best, again.score) == (fresh.nodes, fresh.best, fresh.score)


def test_a_soft_limit_starts_no_new_iteration_after_it():
    searcher = AlphaBeta()
    position = Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    result = searcher.search(position, soft_seconds=0.05)
    last = result.history[-1]
    # The soft limit grows to 1.6x while the best order keeps changing (alphabeta.py), never more.
    assert result.complete and all(info["seconds"] < 0.05 * 1.6 for info in result.history[:-1])
    assert last["depth"] == result.depth


def _board_text(placed: dict[str, str]) -> str:
    rows = []
    for rank in "87654321":
        row, empty = "", 0
        for file in "abcdefgh":
            token = placed.get(file + rank)
            if token is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + token
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def _random_army_position(rng, units, squares):
    placed = {}
    for colour in (0, 1):
        placed[rng.choice([s for s in squares if s not in placed])] = "K" if colour == 0 else "k"
        for _ in range(rng.randint(1, 10)):
            unit = rng.choice(units)
            square = rng.choice([s for s in squares if s not in placed])
            if unit.is_sovereign or ("Foot" in unit.classes and square[1] in "18"):
                continue
            token = unit.token
            placed[square] = token if colour == 0 else token[:-1] + token[-1].lower()
    return _board_text(placed) + " " + rng.choice("wb") + " - - 0 1"


def test_attack_tables_agree_with_the_generators_threat_map():
    """The search asks only units whose reach table meets a square whether they attack it; on
    random positions with every unit type, in both topologies, that equals the full threat map."""
    import random

    from engine.catalog import default_catalog

    units = list(default_catalog().units)
    squares = [f + r for r in "12345678" for f in "abcdefgh"]
    kernel = AlphaBeta()._kernel
    rng = random.Random(11)
    checked = 0
    for _ in range(400):
        pos = Position.from_text(_random_army_position(rng, units, squares))
        for cylindrical in (False, True):
            for colour in (0, 1):
                fast, full = kernel.coverage_check(pos._core, colour, cylindrical)
                assert fast == full, (pos.to_text(), cylindrical, colour)
                checked += 1
    assert checked == 1600


def test_every_unit_type_is_searchable_in_both_topologies():
    import random

    from engine.catalog import default_catalog

    units = list(default_catalog().units)
    squares = [f + r for r in "12345678" for f in "abcdefgh"]
    searcher = AlphaBeta(tt_megabytes=1)
    rng = random.Random(5)
    for _ in range(30):
        pos = Position.from_text(_random_army_position(rng, units, squares))
        for cylindrical in (False, True):
            result = searcher.search(pos, depth=3, cylindrical=cylindrical)
            legal = {o.text() for o in pos.legal_orders(cylindrical=cylindrical)}
            assert (result.best is None) == (not legal)
            if result.best is not None:
                assert result.best.text() in legal


def test_compass_mode_search_sees_captures_across_the_edge():
    # A Rook on a1 and the Yellow King on h1 with a Blue Pawn between: only Compass mode (every
    # unit wraps around the a/h files) lets the Rook capture through the edge.
    pos = Position.from_text("K7/8/8/8/8/8/8/R1P4k w - - 0 1")
    flat = AlphaBeta().search(pos, depth=2)
    wrapped = AlphaBeta().search(pos, depth=2, cylindrical=True)
    assert format_score(wrapped.score) == "mate in 1" and wrapped.best.text() == "a1h1"
    assert format_score(flat.score) != "mate in 1"


def test_a_return_to_a_position_of_the_game_is_a_draw():
    """Blue is lost on material, but the game has been here before: stepping back into a position
    of the game's history is a draw (C3) - only when the search knows that history."""
    pos = Position.from_text("q3k3/8/8/8/8/8/8/4K3 w - - 0 1")
    for order in ("e1d1", "a8a7", "d1e1", "a7a8"):
        pos.push(order)
    with_history = AlphaBeta().search(pos, depth=3)
    assert with_history.score == 0 and with_history.best.text() == "e1d1"
    without = AlphaBeta().search(pos, depth=3, history=[])
    assert without.score < -500


def test_eval_features_are_the_evaluation_as_a_linear_function_of_the_weights():
    """tools/tune_eval.py fits weights through eval_features, which mirrors the C evaluation: on
    random positions the evaluation equals material + weights . features (integer rounding aside)."""
    import random

    from engine import _search
    from engine.catalog import default_catalog

    weights = load_weights()
    vector = weights.feature_values(_search.FEATURE_NAMES)
    assert weights.with_feature_values(_search.FEATURE_NAMES, vector) == weights
    units = list(default_catalog().units)
    squares = [f + r for r in "12345678" for f in "abcdefgh"]
    searcher = AlphaBeta(evaluation="classical")               # the hand-made terms are what is checked
    rng = random.Random(8)
    for _ in range(200):
        pos = Position.from_text(_random_army_position(rng, units, squares))
        for cylindrical in (False, True):
            material, features = searcher._kernel.eval_features(pos._core, cylindrical)
            linear = material + sum(w * f for w, f in zip(vector, features))
            assert abs(searcher.evaluate(pos, cylindrical) - linear) <= 6, pos.to_text()


def test_a_copy_keeps_the_games_history():
    pos = Position.from_text("q3k3/8/8/8/8/8/8/4K3 w - - 0 1")
    for order in ("e1d1", "a8a7", "d1e1", "a7a8"):
        pos.push(order)
    copy = pos.copy()
    assert copy.history_keys() == pos.history_keys() and len(copy.history_keys()) == 4
    assert AlphaBeta().search(copy, depth=3).score == 0      # the repetition is still seen


# Eight Pawns a step from promotion on each side, nothing behind them: every order of depth 1 is
# followed by a quiescence search of promotions (each Pawn to any of 24 types) answered by promotions,
# which has no end in reasonable time. Before the clock was read in the first iteration, a search
# with 0.2 s on this position ran for more than a minute.
PROMOTION_STORM = "4k3/PPPPPPPP/8/8/8/8/pppppppp/4K3 w - - 0 1"


@pytest.mark.parametrize("limit", ["seconds", "stop"])
def test_every_search_keeps_to_its_time_even_in_its_first_iteration(limit):
    """A search stops within its time (or at stop()) on a position whose depth-1 search with
    quiescence explodes, and still returns a legal order. The bound is generous (3x the limit and a
    second of slack): this is about stopping at all, not about speed."""
    import threading
    import time

    searcher = AlphaBeta()
    position = Position.from_text(PROMOTION_STORM)
    legal = {o.text() for o in position.legal_orders()}
    results = []
    started = time.monotonic()
    thread = threading.Thread(target=lambda: results.append(
        searcher.search(position, seconds=0.2 if limit == "seconds" else 120)), daemon=True)
    thread.start()
    if limit == "stop":
        time.sleep(0.2)
        searcher.stop()
    thread.join(3 * 0.2 + 1.0)
    took = time.monotonic() - started
    if thread.is_alive():
        searcher.stop()                          # end the runaway search before failing
        thread.join(30)
        pytest.fail(f"the search ignored its {limit} and ran for {took:.1f} s")
    [result] = results
    assert result.best is not None and result.best.text() in legal
    assert not result.complete and result.depth <= 1
    # A limit that has passed before the first root order is searched still names an order.
    late = searcher.search(position, seconds=1e-9)
    assert late.best is not None and late.best.text() in legal and not late.complete


def test_a_search_without_lines_finds_the_same_order_score_and_nodes():
    # lines=False (the NNUE data generator's searches) builds no line, principal variation or history
    # entry, and searches the same: two fresh searchers, the same positions in the same order.
    positions = [Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
                 Position.from_text("r3k2r/ppp2ppp/2n5/3qp3/3P4/2N2N2/PPP2PPP/R2QK2R w - - 0 1"),
                 Position.from_text("4k3/8/8/3q4/8/8/3Q4/4K3 w - - 0 1")]
    with_lines, without = AlphaBeta(tt_megabytes=1), AlphaBeta(tt_megabytes=1)
    for position in positions:
        for nodes in (700, 3000):
            a = with_lines.search(position, nodes=nodes)
            b = without.search(position, nodes=nodes, lines=False)
            assert (a.best.code, a.score, a.nodes, a.depth) == (b.best.code, b.score, b.nodes, b.depth)
            assert a.lines and a.history and b.lines == [] and b.history == []
