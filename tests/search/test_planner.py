"""The turn planner (engine/search/planner.py): exhaustive search of a player's own decisions in a
turn. The positions are built by hand; why each line wins (or does not) is said next to it."""

from __future__ import annotations

import random

import pytest

from engine.game import actions as A
from engine.game.scenario import scenario
from engine.search.ismcts import ISMCTS
from engine.search.planner import WIN, TurnPlanner
from engine.search.puzzles import load_puzzles

# Blue: Rook a1 behind its own Pawn a4; Yellow: King a8, Knight b5. One order cannot win (the Pawn
# blocks the a-file; Ra1 reaches a3 at most). Bureaucracy (13.0) attacks with a Foot unit and gives
# +1 order (C11): a4xb5 opens the file, then Ra1xa8 takes the only Sovereign (C2, 10.0).
OPEN_FILE = "k7/8/8/1n6/P7/8/8/R3K3 w"


def bureaucracy_puzzle(hand=("Bureaucracy", "Peon", "Guard")):
    return scenario(OPEN_FILE, hands=(list(hand), []), supply=["Bureaucracy"])


def test_finds_the_two_order_win_with_bureaucracy():
    plan = TurnPlanner().find_win(bureaucracy_puzzle())
    assert plan.winning and plan.complete
    assert plan.texts[:3] == ["play Bureaucracy (order)", "a4b5", "a1a8"]


def test_no_win_without_the_card_and_the_search_is_exhaustive():
    plan = TurnPlanner().find_win(bureaucracy_puzzle(("Peon", "Guard")))
    assert not plan.winning and plan.complete and plan.value < WIN


def test_the_plan_follows_the_line_to_the_win():
    g = bureaucracy_puzzle()
    plan = TurnPlanner().find_win(g)
    for action in plan.actions[:3]:
        g.apply(action)
    g.apply(A.DONE)                                    # end the order phase: the capture stands
    while not g.is_terminal():
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    assert g.winner == 0


def test_survive_avoids_the_reply_that_takes_the_sovereign():
    # Blue King e1 alone against Yellow's Rook d8 and King h8, Blue to order. The Rook holds the
    # d-file: Ke1-d1 or Ke1-d2 loses the King to the Rook's reply; every other line keeps it.
    g = scenario("3r3k/8/8/8/8/8/8/4K3 w", supply=[])
    plan = TurnPlanner(reply_depth=2).plan(g)
    assert plan.texts[0] not in ("e1d1", "e1d2")
    assert plan.value > -WIN


def test_the_budget_ends_the_search_with_a_legal_line():
    starved = TurnPlanner(max_nodes=3).find_win(bureaucracy_puzzle())
    assert not starved.complete and starved.nodes <= 4 and not starved.winning
    no_card = bureaucracy_puzzle(("Peon", "Guard"))          # 42 nodes to see every line
    plan = TurnPlanner(max_nodes=20).plan(no_card)
    assert not plan.complete and plan.actions and plan.actions[0] in no_card.legal_actions()


def test_the_planner_never_sees_the_opponents_hidden_cards():
    """Two states that differ only in the opponent's hidden hand give the same plan."""
    a = scenario(OPEN_FILE, hands=(["Bureaucracy", "Peon"], ["Peon"] * 5), supply=["Bureaucracy"])
    b = scenario(OPEN_FILE, hands=(["Bureaucracy", "Peon"], ["Guard"] * 5), supply=["Bureaucracy"])
    assert TurnPlanner().plan(a, random.Random(3)).actions == TurnPlanner().plan(b, random.Random(3)).actions


def test_ismcts_plays_the_win_it_would_otherwise_have_to_sample():
    g = bureaucracy_puzzle()
    stats = ISMCTS(iterations=20, seed=1).search(g)
    assert stats.best_text == "play Bureaucracy (order)"
    assert ISMCTS(iterations=20, seed=1, planner=None).search(g).iterations == 20


@pytest.mark.parametrize("bad", [dict(max_nodes=0), dict(seconds=0), dict(reply_depth=0)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError):
        TurnPlanner(**bad)


def test_every_win_this_turn_puzzle_is_found_and_only_with_a_proven_first_action():
    """Against the puzzle suite's exhaustive verifier (engine/search/puzzles.py, a separate
    oracle): on every win-this-turn puzzle the planner finds a win, its first action is one the
    verifier proved, and a first action that wins only on a lucky draw (lucky-versatility) is not
    taken."""
    puzzles = [p for p in load_puzzles() if p.goal == "win-this-turn"]
    assert len(puzzles) >= 20
    for puzzle in puzzles:
        g = puzzle.state()
        plan = TurnPlanner(max_nodes=50_000).find_win(g, random.Random(0))
        assert plan.winning, puzzle.id
        assert plan.texts[0] in puzzle.solution, (puzzle.id, plan.texts[0])


def test_a_line_that_wins_only_on_a_lucky_draw_is_not_a_win():
    """lucky-versatility (tests/data/puzzles.toml): Versatility draws one of Temple and Peon, and
    only the Temple wins; after playing it the planner must not call the turn won (the worst draw
    counts), while Sanctuary's alternate order, which draws both, wins."""
    puzzle = next(p for p in load_puzzles() if p.id == "lucky-versatility")
    g = puzzle.state(auto_chance=True)
    g.apply_text("play Versatility (order)")
    assert not TurnPlanner().find_win(g, random.Random(0)).winning
    assert TurnPlanner().find_win(puzzle.state(auto_chance=True), random.Random(0)).texts[0] == \
        "play Sanctuary (alternate order)"


def test_plan_weighs_the_cards_by_the_learned_model():
    """A line's end is judged by the learned model with the searched board: a model that prizes the
    cards kept does not spend a Peon on training a Pawn; one that prizes the army does."""
    from engine.search.state_eval import FEATURES, StateModel

    def weights(**named):
        return StateModel(tuple(named.get(name, 0.0) for name in FEATURES))

    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Peon"], []), decks=(["Peon"] * 5, ["Peon"] * 5),
                 phase="action", supply=[])
    train = next(a for a in g.legal_actions() if g.action_text(a).startswith("play Peon (training"))
    army = TurnPlanner(model=weights(army=5.0)).plan(g)
    keep = TurnPlanner(model=weights(cards=5.0)).plan(g)
    assert army.actions[0] == train
    assert train not in keep.actions
