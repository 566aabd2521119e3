"""The record board's evaluation graph (engine/interfaces/server/game_analysis.py, each game's
``evaluate`` analysis piece) for every game on it: a point per decision, values that follow the game
(seeded random games played to their end, seen as each seat), and nothing read that the loaded seat
could not see (the record replayed in other worlds, the cards hidden from that seat dealt otherwise,
as tests/games/test_review.py checks the review)."""

from __future__ import annotations

import random

import pytest

from engine.games import registry
from engine.games.records import record_points
from engine.interfaces.server.app import Limits
from engine.interfaces.server.game_analysis import GameAnalysis
from engine.ransom.players import RansomEvaluator
from tests.server.test_game_analysis import RECORD_GAMES, seeded_record

#: The ends of the value scale of King's Ransom's and Crownfall's graph (the pieces' ``scale``).
LOSS, WIN = -1.0, 1.0


class _Service:
    limits = Limits()


@pytest.fixture
def board():
    return GameAnalysis(_Service())


def played_out(name: str, seed: int, **options) -> tuple[dict, list[float]]:
    """A record of a seeded random game of ``name`` played to its end, and its result per seat."""
    state = registry.get(name).start({**options, "seed": seed})
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state.record(), list(state.returns())


@pytest.mark.parametrize("name", RECORD_GAMES)
def test_every_record_game_draws_a_graph_with_a_point_per_decision(board, name):
    record = seeded_record(name, decisions=20)
    assert {g["name"]: g["graph"] for g in board.games_json()}[name]
    for seat in (0, 1):
        graph = board.load({"record": record, "player": seat})["graph"]
        assert [g["decision"] for g in graph] == list(range(1, len(record_points(record)) + 1))
        assert all(isinstance(g["value"], float) for g in graph)
        if name != "crusade":                   # Pawns for Blue there; -1 .. +1 for the seat here
            assert all(LOSS <= g["value"] <= WIN for g in graph)


@pytest.mark.parametrize("position, sign", [("3k4/8/8/8/8/8/8/3QK3 w - 0 1", 1), ("3qk3/8/8/8/8/8/8/4K3 w - 0 1", -1)])
def test_the_crusade_graph_is_blues_a_queen_up_or_down(board, position, sign):
    """Crusade & Conquer's graph is Blue's in Pawns whichever seat is loaded: a Queen (9 Pawns,
    engine/data/crusade_units.toml) up for Blue, or for Red, over six seeded random moves."""
    state = registry.get("crusade").start({"position": position})
    rng = random.Random(1)
    for _ in range(6):
        state.apply(rng.choice(state.legal_actions()))
    for seat in (0, 1):
        graph = board.load({"record": state.record(), "player": seat})["graph"]
        assert len(graph) == 6 and all(sign * g["value"] > 5 for g in graph), graph


def test_the_kings_ransom_graph_ends_with_the_winner_about_to_win():
    """Seed 0's random game: Blue (seat 0) wins; before its last move, where it takes the King, its
    graph is near a win and Red's near a loss (the evaluator sees the King en prise), and Blue's
    ends above where it began."""
    record, result = played_out("kings-ransom", 0)
    assert result == [WIN, LOSS]
    board = GameAnalysis(_Service())
    graphs = [[g["value"] for g in board.load({"record": record, "player": seat})["graph"]] for seat in (0, 1)]
    assert graphs[0][-1] > 0.9 and graphs[1][-1] < -0.9
    assert graphs[0][-1] > graphs[0][0]


@pytest.mark.parametrize("seed", [0, 5])
def test_the_crownfall_graph_of_three_players_rises_for_the_winner(seed):
    """Seeded random three-player games: at the last decision the winner's graph (seen as the winner)
    is above where it began and above each loser's (each seen as itself)."""
    record, result = played_out("crownfall", seed, players=3)
    winner = result.index(WIN)
    board = GameAnalysis(_Service())
    graphs = [[g["value"] for g in board.load({"record": record, "player": seat})["graph"]] for seat in range(3)]
    assert graphs[winner][-1] > graphs[winner][0]
    assert all(graphs[winner][-1] > graphs[seat][-1] for seat in range(3) if seat != winner)


def _in_other_worlds(monkeypatch, changed: list) -> None:
    """Make the board's graph read, at each decision, another world than the record's: the game with
    every card hidden from the loaded seat dealt otherwise (``resample_hidden`` from seed 999)."""
    real = GameAnalysis._graph_value

    def other_world(evaluate, truth, viewer):
        world = truth.resample_hidden(viewer, random.Random(999))
        world.auto_chance = truth.auto_chance
        hidden = [p for p in range(truth.num_players) if p != viewer]
        changed.append(any(world.information_key(p) != truth.information_key(p) for p in hidden)
                       or world.rng.getstate() != truth.rng.getstate())
        return real(evaluate, world, viewer)

    monkeypatch.setattr(GameAnalysis, "_graph_value", staticmethod(other_world))


@pytest.mark.parametrize("name, pieces", [("kings-ransom", "the game's"), ("kings-ransom", "a raw leaf evaluator"),
                                          ("crownfall", "the game's")])
def test_the_graph_is_the_same_whatever_the_cards_hidden_from_the_loaded_seat(monkeypatch, name, pieces):
    """The graph, every point, is the same when each decision's game is another world the loaded seat
    cannot tell from the real one. With "a raw leaf evaluator" as the piece (RansomEvaluator, which
    reads every card of the state it is given) this checks the board's own guard: a board that
    evaluated the true game fails it (planted: both King's Ransom cases fail; the game's piece alone
    also deals the hidden cards again, test_kings_ransom_evaluate_reads_only_what_the_seat_knows).
    Crownfall hides nothing from a seat but its draw order (the chance generator, reseeded here)."""
    if pieces != "the game's":
        raw = RansomEvaluator()
        monkeypatch.setattr("engine.ransom.analysis_board.evaluate", lambda state, seat: round(raw(state, seat), 4))
    record = seeded_record(name, seed=11, decisions=40)
    board = GameAnalysis(_Service())
    real = board.load({"record": record, "player": 0})["graph"]
    changed: list[bool] = []
    _in_other_worlds(monkeypatch, changed)
    again = board.load({"record": record, "player": 0})["graph"]
    assert any(changed), "the other worlds dealt nothing otherwise: the check would prove nothing"
    assert again == real


@pytest.mark.parametrize("seat", [0, 1])
def test_kings_ransom_evaluate_reads_only_what_the_seat_knows(seat):
    """The piece itself: at each decision of a seeded game, ``evaluate`` of the real game and of
    another world of it (the cards hidden from ``seat`` dealt otherwise) are equal, while the leaf
    evaluator it averages differs between them (planted: evaluating the state given, once, fails)."""
    from engine.ransom.analysis_board import evaluate as ransom_evaluate
    state = registry.get("kings-ransom").start({"seed": 11})
    rng = random.Random(11)
    differs = 0
    for _ in range(40):
        if state.is_terminal():
            break
        world = state.resample_hidden(seat, random.Random(999))
        assert ransom_evaluate(world, seat) == ransom_evaluate(state, seat)
        differs += RansomEvaluator()(world, seat) != RansomEvaluator()(state, seat)
        state.apply(rng.choice(state.legal_actions()))
    assert differs


def test_crownfall_evaluate_is_the_finished_games_result():
    from engine.crownfall.analysis_board import evaluate as crownfall_evaluate
    record, result = played_out("crownfall", 5, players=3)
    final = registry.get("crownfall").replay(record)
    assert [crownfall_evaluate(final, seat) for seat in range(3)] == result
