"""Bots, matches (alternating sides, confidence intervals, plots) and `ftc analyze` for positions."""

import json
import re

import pytest

from engine.crown.players import Bot, RandomBot, make_bot
from engine.interfaces.cli import main
from engine.search.match import MatchResult, play_match


def test_wilson_interval_and_elo():
    r = MatchResult("a", "b", wins=5, losses=5)
    low, high = r.interval()
    assert abs(low - 0.2366) < 1e-3 and abs(high - 0.7634) < 1e-3      # Wilson, n=10, p=0.5
    assert abs(r.elo()[0]) < 1e-9
    r = MatchResult("a", "b", wins=8, draws=2)
    assert r.score == 0.9 and r.summary() == "A wins 8, draws 2, losses 0, score 90.0%"


class SideRecorder(RandomBot):
    """Notes, for every game it plays, the side it first decides for."""

    sides: list = []

    def reset(self):
        self.new_game = True

    def choose(self, state):
        if getattr(self, "new_game", False):
            self.sides.append(state.current_player())
            self.new_game = False
        return super().choose(state)


def test_match_alternates_sides_and_pairs_seeds():
    SideRecorder.sides = []
    result = play_match(lambda s: SideRecorder(s), lambda s: RandomBot(s), 4, seed=3,
                        config={"variant": "point-buy", "start_position": "4k3/8/8/8/8/8/8/4K3 w", "max_turns": 6})
    assert result.games == 4 and len(result.outcomes) == 4
    assert SideRecorder.sides == [0, 1, 0, 1]       # A is Blue, then Yellow, alternately


def test_greedy_beats_random():
    result = play_match(lambda s: make_bot("greedy", s), lambda s: make_bot("random", s), 10, seed=11,
                        config={"supply": "first-game"})
    assert result.score >= 0.8, result.details()


def test_alphabeta_deeper_beats_shallower_smoke():
    # The full strength match (depth 4 vs 2, many games) is in tools/; CI plays a short one.
    result = play_match(lambda s: make_bot("alphabeta:2", s), lambda s: make_bot("alphabeta:1", s), 4, seed=2,
                        config={"variant": "point-buy", "max_turns": 80,
                                "start_position": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"})
    assert result.score >= 0.5, result.details()


def test_match_cli_final_line_plot_and_json(tmp_path, capsys):
    plot = tmp_path / "match.png"
    assert main(["match", "--a", "greedy", "--b", "random", "--games", "4", "--seed", "1", "--supply", "first-game",
                 "--plot", str(plot)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(r"A wins \d+, draws \d+, losses \d+, score \d+\.\d%", out[-1])
    assert plot.stat().st_size > 10_000 and plot.read_bytes()[:4] == b"\x89PNG"
    assert main(["match", "--a", "random", "--b", "random", "--games", "2", "--json", "--variant", "point-buy",
                 "--position", "4k3/8/8/8/8/8/8/4K3 w", "--max-turns", "6"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert data["games"] == 2 and len(data["score_ci95"]) == 2


def test_unknown_bot_is_a_clear_error(capsys):
    assert main(["match", "--a", "genius", "--b", "random", "--games", "1"]) == 2
    assert "unknown bot 'genius'" in capsys.readouterr().err


def test_analyze_position_cli(capsys):
    assert main(["analyze", "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w", "--depth", "3", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "1. h5f7" in out and "mate in 2" in out and "pv: h5f7 e8f7 c4f7" in out
    assert main(["analyze", "startpos", "--depth", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["depth"] == 2 and len(report["lines"]) == 3


def test_bot_interface_is_abstract():
    with pytest.raises(NotImplementedError):
        Bot().choose(None)


def test_analyze_game_file_cli(tmp_path, capsys):
    import random

    from engine.crown.config import GameConfig
    from engine.crown.record import save
    from engine.crown.state import GameState

    g = GameState(GameConfig(seed=3, supply="first-game"))
    rng = random.Random(1)
    for _ in range(60):
        g.apply(rng.choice(g.legal_actions()))
    path = tmp_path / "game.json"
    save(g, path)
    assert main(["analyze", str(path), "--iterations", "100", "--json", "--top", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["player"] == g.current_player() and len(report["top"]) == 2
    assert report["plan"] and report["plan"][0]["action"] in g.legal_actions()
    assert -1.0 <= report["value"] <= 1.0


def test_evaluation_over_a_game_is_plotted(tmp_path, capsys):
    from engine.crown.analysis import evaluation_history
    from engine.crown.config import GameConfig
    from engine.crown.record import make_record, save
    from engine.search.match import play_game

    g = play_game(GameConfig(seed=4, supply="first-game", max_turns=30), make_bot("greedy", 1), make_bot("random", 2))
    points = evaluation_history(make_record(g))
    assert [p["turn"] for p in points] == list(range(1, g.turn + 2))      # turns as shown: 1 first
    assert points[0]["blue"] == 0.0                    # a symmetric start
    path = tmp_path / "game.json"
    save(g, path)
    plot = tmp_path / "eval.png"
    assert main(["analyze", str(path), "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert "the game is over" in capsys.readouterr().out
