"""board_value (ext/_search.pyx, engine/board/evaluate.py): the one kernel function for the static
value of a board for a player. It gives exactly what an alpha-beta searcher's evaluate gives on a
Position wrapping the board (negated when the other side is to move, or with the player set to move),
so the ISMCTS evaluator, its order pruning, the greedy bot and the evaluation history keep their
numbers. board_value is the full-game AI's evaluation (evaluation.toml's ``full_game``), so the
searcher compared is made with that one, whatever the board search's default is."""

import random
from importlib import resources

import pytest

from engine import _search
from engine.board.alphabeta import AlphaBeta
from engine.board.evaluate import board_value, default_weights, full_game_evaluation, kernel_evaluation
from engine.catalog import Catalog, default_catalog
from engine.crown.config import GameConfig
from engine.crown.state import GameState
from engine.position import Position


def _old_value(searcher: AlphaBeta, core, player: int, to_move: bool, cylindrical: bool = False) -> int:
    """The path board_value replaced: a Position around a copy of the board, evaluated by a searcher."""
    position = Position.from_core(core, core.tables.catalog)
    if to_move:
        position.core.set_side(player)
    score = searcher.evaluate(position, cylindrical)
    return score if position.core.side == player else -score


def _game_boards(games: int = 4, every: int = 5):
    for seed in range(games):
        rng = random.Random(seed)
        state = GameState(GameConfig(seed=seed))
        step = 0
        while not state.is_terminal() and step < 300:
            if step % every == 0:
                yield state.board
            state.apply(rng.choice(state.legal_actions()))
            step += 1


def test_board_value_is_the_searchers_evaluation_on_game_boards():
    searcher = AlphaBeta(tt_megabytes=1, evaluation=full_game_evaluation())
    boards = 0
    for core in _game_boards():
        boards += 1
        for player in (0, 1):
            for to_move in (False, True):
                assert board_value(core, player, to_move=to_move) == _old_value(searcher, core, player, to_move)
    assert boards > 100


@pytest.mark.parametrize("text", [
    "r1c1kd1r/pppmpppp/2z5/8/3E4/2H5/PPPTPPPP/R2AK2R w - - 0 1 promote:NBRQZCDHMEAT",
    "4k3/1~gp4~l/8/3~z4/2F1x3/8/~P3T1Y1/~R3K1~M1[~N~m] b - - 0 9",
])
def test_board_value_agrees_over_random_positions_with_custom_weights(text):
    weights = default_weights().with_feature_values(["mobility", "tempo", "foot_passed.1.5"], [7, 33, 90])
    searcher = AlphaBeta(weights=weights, tt_megabytes=1, evaluation=full_game_evaluation())
    rng = random.Random(2)
    pos = Position.from_text(text)
    for _ in range(40):
        for player in (0, 1):
            for cylindrical in (False, True):
                assert (board_value(pos.core, player, weights, to_move=False, cylindrical=cylindrical)
                        == _old_value(searcher, pos.core, player, False, cylindrical))
        orders = pos.legal_orders()
        if not orders:
            break
        pos.push(rng.choice(orders))


def test_kernel_evaluations_are_kept_per_catalog_and_weights():
    catalog = default_catalog()
    assert kernel_evaluation(catalog) is kernel_evaluation(catalog, default_weights())
    other = default_weights().with_feature_values(["tempo"], [1])
    assert kernel_evaluation(catalog, other) is not kernel_evaluation(catalog)


def test_board_value_refuses_a_bad_player_or_another_catalogs_evaluation():
    core = Position.from_text("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1").core
    with pytest.raises(ValueError, match="player"):
        board_value(core, 2)
    text = (resources.files("engine.data") / "units.toml").read_text(encoding="utf-8")
    foreign = _search.Evaluation(Catalog.from_toml(text, "a copy").tables, default_weights().kernel_dict(default_catalog()))
    with pytest.raises(ValueError, match="different unit catalogs"):
        _search.board_value(core, 0, foreign)


# -- orders of enemy units (False Orders, 13.0) ------------------------------------------------------
def _false_orders_decision():
    from engine.crown import actions as A
    from engine.crown.scenario import scenario

    g = scenario("4k3/8/8/8/8/2p5/1P6/4K3 b", hands=(["Peon"], ["False Orders"]), decks=(["Peon"] * 5, ["Peon"] * 5))
    play = next(a for a in g.legal_actions() if not A.is_order(a) and A.kind_of(a) == A.K_PLAY
                and g.card_name(A.play_card(a)) == "False Orders" and A.play_effect(a) == 0)
    g.apply(play)
    return g


def test_board_after_plays_an_enemy_units_order_for_its_owner():
    """False Orders: Yellow orders Blue's Pawn. The probe must move Blue's unit as the game does
    (it once moved it as Yellow's, leaving an occupancy mask with no unit on it)."""
    from engine.crown import actions as A
    from engine.crown.board_eval import board_after, order_owner

    g = _false_orders_decision()
    orders = [a for a in g.legal_actions() if A.is_order(a)]
    assert orders, g.prompt()
    for a in orders:
        assert order_owner(g.board, a, g.current_player()) == 0
        probe = board_after(g, a)
        played = g.clone()
        played.apply(a)
        for side in (0, 1):
            squares = probe.squares_of(side)
            assert squares == played.board.squares_of(side), g.action_text(a)
            assert all(probe.unit_on(sq) == played.board.unit_on(sq) for sq in squares)


def test_expert_bot_chooses_an_enemy_units_order():
    from engine.crown import actions as A
    from engine.crown.players import ExpertBot, GreedyBot

    g = _false_orders_decision()
    for bot in (ExpertBot(1), GreedyBot(1)):
        assert A.is_order(bot.choose(g))
