"""Bots and evaluators (engine/search/bots.py, engine/search/ismcts.py, engine/search/evaluate.py): a
board that decides the game (C2, 10.0, as the variant applies it) outranks everything."""

import math
import random

import pytest

from engine.game.config import GameConfig
from engine.game.scenario import scenario
from engine.game.state import GameState
from engine.search.bots import GreedyBot
from engine.search.evaluate import GAME_WON, board_value, board_winner, order_value
from engine.search.ismcts import ISMCTS, BoardEvaluator, HeuristicPlayout, TopOrders

# Blue may promote a7 to a Queen (the evaluator's favourite board) or take the last Yellow Sovereign.
PROMOTE_OR_WIN = "4k3/P7/8/8/8/8/8/4R1K1 w"


def promote_or_win():
    return scenario(PROMOTE_OR_WIN, hands=(["Peon"], []), decks=(["Peon"] * 5, ["Peon"] * 5))


def orders_by_text(g):
    return {g.action_text(a): a for a in g.legal_actions() if a < 1 << 28}


def last_stand_after_setup(seed=3):
    g = GameState(GameConfig(variant="last-stand", seed=seed, supply="first-game"))
    rng = random.Random(seed)
    while g.phase == "setup":
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_order_value_puts_the_winning_capture_above_a_queen_promotion():
    g = promote_or_win()
    orders = orders_by_text(g)
    assert order_value(g, orders["e1e8"]) == GAME_WON
    assert order_value(g, orders["a7a8q"]) < GAME_WON
    probe = g.board.copy()
    probe.apply_for(0, orders["a7a8q"])
    assert board_value(probe, 0, to_move=True) > 800          # the promotion the evaluator liked best


def test_greedy_takes_the_capture_that_ends_the_game_over_a_promotion():
    g = promote_or_win()
    assert g.action_text(GreedyBot(0).choose(g)) == "e1e8"


def test_top_orders_keeps_the_winning_capture():
    g = promote_or_win()
    kept = TopOrders(k=1)(g, g.legal_actions())
    assert [g.action_text(a) for a in kept if a < 1 << 28] == ["e1e8"]


def test_heuristic_playout_prefers_the_capture_that_ends_the_game():
    # Yellow has two Kings in the Charger's path: only the charge through both ends the game.
    g = scenario("8/8/8/8/8/4k3/4k3/4L1K1 w", hands=(["Peon"], []), supply=["Armor"])
    texts = g.legal_action_texts()
    assert {"e1e2", "e1e3"} <= set(texts.values())
    assert texts[HeuristicPlayout(epsilon=0.0).choose(g, random.Random(0))] == "e1e3"


def test_the_last_stand_is_not_won_by_the_defender_at_the_start():
    g = last_stand_after_setup()
    assert g.phase == "order" and not g.board.sovereign_present(0) and g.board.sovereign_present(1)
    assert board_winner(g) is None
    evaluate = BoardEvaluator()
    assert evaluate(g, 1) == pytest.approx(math.tanh(board_value(g.board, 1) / evaluate.scale))
    assert evaluate(g, 1) < 1.0 and evaluate(g, 0) > -1.0


def test_set_up_decides_nothing():
    g = GameState(GameConfig(variant="last-stand", seed=3, supply="first-game"))
    assert g.phase == "setup" and not g.board.sovereign_present(1)       # the Defender trains first
    assert board_winner(g) is None and abs(BoardEvaluator()(g, 0)) < 1.0


def test_a_decided_board_is_won_at_the_playout_cut_off_whatever_the_evaluator():
    g = promote_or_win()
    g.apply(orders_by_text(g)["e1e8"])                  # the turn's end will decide: Blue wins
    assert board_winner(g) == 0 and BoardEvaluator()(g, 0) == 1.0 and BoardEvaluator()(g, 1) == -1.0
    search = ISMCTS(iterations=1, evaluator=lambda state, player: 0.0, max_playout_turns=0)
    assert search._playout(g.clone(), random.Random(0)) == [1.0, -1.0]
    assert ISMCTS(iterations=1, evaluator=None, max_playout_turns=0)._playout(g.clone(), random.Random(0)) == [1.0, -1.0]


def test_the_last_stand_capture_of_the_defender_sovereign_wins_for_the_attacker():
    config = GameConfig(variant="last-stand")
    g = scenario("4k3/8/8/8/8/8/8/4R3 w", hands=(["Peon"], []), supply=[], config=config)
    assert board_winner(g) is None
    assert order_value(g, orders_by_text(g)["e1e8"]) == GAME_WON
    assert g.action_text(GreedyBot(0).choose(g)) == "e1e8"
