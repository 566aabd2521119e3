"""The horizon search (engine/crown/horizon.py): a turn plan judged by the whole turns after it.

The trap position was found by a search over random positions for a line the planner's one-turn
judgement (its board reply search, 3 plies) ranks first while a 5-ply search proves it lost; here
the loss is checked by brute force over the board orders of both sides (``_forced``), not by the
engines' searches."""

from __future__ import annotations

import random

import pytest

from engine.crown.horizon import HorizonSearch
from engine.crown.planner import TurnPlanner
from engine.crown.players import ISMCTSBot, make_bot
from engine.crown.scenario import scenario

# Blue: King g1, Queen c3, Bishop d5, Pawns b2 and e2. Yellow: King a7, Queen d1, Rook e4, Pawns b6
# and h3. Blue to order (one order a turn: no cards). After Kg1-f2 nothing takes the King on Yellow's
# next two turns, but Yellow has quiet orders after which whatever Blue orders on its next two turns
# the King is taken on Yellow's third: five plies after Blue's order, beyond the planner's 3-ply
# reply search. Kg1-h2 holds that long.
TRAP = "8/k7/1p6/3B4/4r3/2Q4p/1P2P3/3q2K1 w"


def _no_sovereign(board, units, side: int) -> bool:
    return not any(units[board.unit_on(sq)[0]].is_sovereign for sq in board.squares_of(side))


def _forced(board, units, turns: int) -> bool:
    """Whether Yellow (to move on ``board``) takes Blue's last Sovereign within ``turns`` of its
    turns whatever Blue orders in between (Blue may also pass), by brute force over the orders."""
    for order in board.generate():
        board.push(order)
        try:
            if _no_sovereign(board, units, 0) or (turns > 1 and _every_reply_loses(board, units, turns - 1)):
                return True
        finally:
            board.pop()
    if turns > 1:
        passed = board.copy()
        passed.end_turn()
        return _every_reply_loses(passed, units, turns - 1)
    return False


def _every_reply_loses(board, units, turns: int) -> bool:
    """Blue to move: every order (and passing) leaves Yellow a forced win within ``turns``."""
    for order in board.generate():
        board.push(order)
        try:
            if not _forced(board, units, turns):
                return False
        finally:
            board.pop()
    passed = board.copy()
    passed.end_turn()
    return _forced(passed, units, turns)


def _after(g, text: str):
    board = g.board.copy()
    board.push(next(a for a in g.legal_actions() if g.action_text(a) == text))
    return board


def _trap_lines(g):
    plan = TurnPlanner(reply_depth=3, verify=False).plan(g, random.Random(0))
    return plan, [line for _, line in plan.alternatives[:4]]


def test_the_trap_is_lost_by_force_two_blue_turns_later_by_brute_force():
    g = scenario(TRAP, supply=[])
    units = g.units.units
    assert not _forced(_after(g, "g1f2"), units, 2)           # nothing takes the King within two turns
    assert _forced(_after(g, "g1f2"), units, 3)               # ... but on the third, whatever Blue does
    assert not _forced(_after(g, "g1h2"), units, 3)           # Kg1-h2 holds that long


def test_the_one_turn_best_line_loses_and_the_horizon_search_avoids_it():
    g = scenario(TRAP, supply=[])
    plan, lines = _trap_lines(g)
    assert plan.texts[0] == "g1f2"                           # the planner's one-turn judgement
    texts = [g.action_text(line[0]) for line in lines]
    # A board search of one ply at the leaves: only the turns searched can see the loss.
    one_turn = HorizonSearch(max_depth=1, width=2, leaf_depth=1, pass_rounds=2, max_rounds=2).search(
        g, lines, seed=1)
    assert one_turn.depth == 1 and texts[one_turn.choice] == "g1f2"
    two_turns = HorizonSearch(max_depth=2, width=2, leaf_depth=1, pass_rounds=2, max_rounds=2).search(
        g, lines, seed=1)
    assert two_turns.depth == 2 and texts[two_turns.choice] != "g1f2"
    assert two_turns.means[2][texts.index("g1f2")] == 0.0      # lost in every sample
    assert two_turns.means[2][two_turns.choice] > 0.0


def test_the_planner_takes_the_horizon_searchs_choice():
    """Through the planner (its time budget is far above what the rounds need: they end it)."""
    g = scenario(TRAP, supply=[])
    verified = TurnPlanner(reply_depth=3, seconds=120.0).plan(g, random.Random(0))
    assert verified.texts[0] == "g1f2"                       # the verification's one turn does not see it
    horizon = HorizonSearch(max_depth=2, width=2, leaf_depth=1, pass_rounds=2, max_rounds=2)
    plan = TurnPlanner(reply_depth=3, seconds=120.0, horizon=horizon).plan(g, random.Random(0))
    assert plan.horizon is not None and plan.horizon.depth == 2
    assert plan.texts[0] != "g1f2" and plan.verified_rounds == 2
    assert plan.value == next(v for v, line in plan.alternatives if line[0] == plan.actions[0])


def test_the_same_seed_and_work_give_the_same_answer():
    g = scenario(TRAP, supply=[])
    _, lines = _trap_lines(g)
    search = HorizonSearch(max_depth=3, width=1, leaf_depth=2, pass_rounds=2, max_rounds=8)
    first = search.search(g, lines, seed=7, max_work=150)
    again = HorizonSearch(max_depth=3, width=1, leaf_depth=2, pass_rounds=2, max_rounds=8).search(
        g, lines, seed=7, max_work=150)
    assert (first.choice, first.depth, first.rounds, first.means, first.work, first.leaves) == \
        (again.choice, again.depth, again.rounds, again.means, again.work, again.leaves)
    repeated = search.search(g, lines, seed=7, max_work=150)          # the same searcher again
    assert (repeated.rounds, repeated.means) == (first.rounds, first.means)


def test_more_budget_searches_deeper_and_more_and_never_past_it():
    g = scenario(TRAP, supply=[])
    _, lines = _trap_lines(g)
    results = {work: HorizonSearch(max_depth=3, width=1, leaf_depth=1, pass_rounds=2, max_rounds=8).search(
        g, lines, seed=3, max_work=work) for work in (20, 60, 400)}
    for work, result in results.items():
        assert result.work <= work
    depths = [results[w].depth for w in (20, 60, 400)]
    rounds = [sum(results[w].rounds.values()) for w in (20, 60, 400)]
    assert depths == sorted(depths) and depths[0] < depths[-1] == 3
    assert rounds == sorted(rounds) and rounds[0] < rounds[-1]
    assert results[20].work < results[60].work < results[400].work


def test_a_budget_too_small_for_min_rounds_leaves_the_first_candidate():
    g = scenario(TRAP, supply=[])
    _, lines = _trap_lines(g)
    result = HorizonSearch(max_depth=2, leaf_depth=1).search(g, lines, seed=1, max_work=3)
    assert result.depth == 0 and result.choice == 0 and result.work <= 3


@pytest.mark.parametrize("bad", [dict(max_depth=0), dict(width=0), dict(leaf_depth=9), dict(min_rounds=5),
                                 dict(pass_rounds=100), dict(plan_nodes=0)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError, match="HorizonSearch"):
        HorizonSearch(**bad)


def test_the_bot_option_and_spec_give_the_planner_its_horizon():
    assert isinstance(make_bot("ismcts-horizon:1s").searcher.planner.horizon, HorizonSearch)
    assert make_bot("ismcts:1s").searcher.planner.horizon is None                       # the default: the verification
    assert ISMCTSBot(iterations=None, seconds=1.0).searcher.planner.horizon is None
    assert make_bot("ismcts-plain:1s").searcher.planner.horizon is None
    horizon = HorizonSearch(max_depth=2)
    assert ISMCTSBot(iterations=None, seconds=1.0, horizon=horizon).searcher.planner.horizon is horizon


def test_the_stats_tool_reports_every_budget_and_depth(capsys):
    from tests.support import load_tool
    tool = load_tool("horizon_stats")
    assert tool.main(["--games", "1", "--every", "8", "--budgets", "6", "30", "--max-depth", "2"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()[:1].isdigit()}
    assert {"6", "30"} <= set(rows)
    assert float(rows["6"][1]) <= float(rows["30"][1])            # mean depth grows with the budget
    assert rows["30"][-1] == "100%"                                # the largest budget agrees with itself


def test_the_stats_tool_refuses_a_bad_budget(capsys):
    from tests.support import load_tool
    with pytest.raises(SystemExit):
        load_tool("horizon_stats").main(["--budgets", "0"])
    assert "budget must be at least 1" in capsys.readouterr().err
