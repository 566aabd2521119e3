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
    out = capsys.readouterr()
    data = json.loads(out.out)              # stdout is the JSON document alone: json.load reads it whole
    assert data["games"] == 2 and len(data["score_ci95"]) == 2
    assert out.err.splitlines()[-1] == f"A wins {data['wins']}, draws {data['draws']}, losses {data['losses']}, " \
                                       f"score {100 * data['score']:.1f}%"


def test_match_json_with_a_plot_keeps_stdout_to_the_json(tmp_path, capsys):
    plot = tmp_path / "match.png"
    assert main(["match", "--a", "random", "--b", "random", "--games", "2", "--json", "--variant", "point-buy",
                 "--position", "4k3/8/8/8/8/8/8/4K3 w", "--max-turns", "6", "--plot", str(plot)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["games"] == 2 and f"plot: {plot}" in out.err.splitlines()
    assert plot.read_bytes()[:4] == b"\x89PNG"


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


# -- matches decided by an SPRT (engine/search/sprt.py, docs/sprt.md) --------------------------------
SPRT_MATCH = dict(a_spec="greedy", b_spec="random", games=40, seed=5, config={"max_turns": 40}, opening_plies=2)


def test_an_sprt_match_plays_pairs_and_stops_when_the_test_decides():
    from engine.search.match import run_match, seat_of_a, setup_seed
    from engine.search.sprt import SPRT

    test = SPRT(0, 200, max_games=40)
    seen = []
    result = run_match(**SPRT_MATCH, workers=1, sprt=test, progress=lambda r: seen.append(r.games))
    assert test.status() == "H1 accepted" and test.llr() >= test.bounds()[1]
    assert result.games == test.games < 40 and result.games % 2 == 0
    assert seen == list(range(1, result.games + 1))
    # Pair k: games 2k (A first) and 2k + 1 (B first), one set-up seed, counted as one pentanomial outcome.
    assert [seat_of_a(i, 2) for i in range(4)] == [0, 1, 0, 1]
    assert [setup_seed(5, i, 2) for i in range(4)] == [5, 5, 6, 6]
    pentanomial = [0] * 5
    for k in range(result.games // 2):
        pentanomial[round(2 * (result.outcomes[2 * k] + result.outcomes[2 * k + 1]))] += 1
    assert test.pentanomial == pentanomial and (test.wins, test.draws, test.losses) == \
        (result.wins, result.draws, result.losses)
    # The test decided at its last pair and not before: the LLR of the pairs before it lies inside.
    shorter = SPRT(0, 200)
    for k in range(result.games // 2 - 1):
        assert shorter.add_pair(result.outcomes[2 * k], result.outcomes[2 * k + 1]) == "continue"


def test_an_sprt_match_is_the_same_on_two_workers():
    """Pairs are counted in pair order: the test decides after the same games whatever finishes first;
    the games still running when it decides are stopped and dropped."""
    from engine.search.match import run_match
    from engine.search.sprt import SPRT

    alone, spread = SPRT(0, 200, max_games=40), SPRT(0, 200, max_games=40)
    one = run_match(**SPRT_MATCH, workers=1, sprt=alone)
    two = run_match(**SPRT_MATCH, workers=2, sprt=spread)
    assert (two.outcomes, two.turns) == (one.outcomes, one.turns)
    assert spread.to_json() == alone.to_json()


def test_an_sprt_match_without_a_decision_ends_undecided_at_max_games(capsys):
    assert main(["match", "--a", "random", "--b", "random", "--games", "4", "--seed", "2", "--variant", "point-buy",
                 "--max-turns", "6", "--sprt", "0,5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4 and data["sprt"]["decision"] == "undecided" and data["sprt"]["games"] == 4
    assert data["sprt"]["pairs"] == 2 and data["sprt"]["max_games"] == 4
    assert data["sprt"]["bounds"] == pytest.approx([-2.944438979, 2.944438979])


def test_the_sprt_lines_in_the_text_report(capsys):
    assert main(["match", "--a", "greedy", "--b", "random", "--games", "40", "--seed", "5", "--max-turns", "40",
                 "--opening", "2", "--sprt", "0,200", "--sprt-alpha", "0.1", "--sprt-beta", "0.2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "SPRT (logistic Elo): H0 elo <= 0, H1 elo >= 200, alpha 0.1, beta 0.2"
    # Bounds: log(beta / (1 - alpha)) = log(0.2 / 0.9) = -1.504, log((1 - beta) / alpha) = log(8) = +2.079.
    assert re.fullmatch(r"LLR \+\d\.\d{3} \(bounds -1\.504, \+2\.079\): H1 accepted", lines[2])
    assert re.fullmatch(r"\d+ games in \d+ pairs, pentanomial( \d+){5}, W \d+ D \d+ L \d+, Elo .*", lines[3])


@pytest.mark.parametrize("argv, message", [
    (["--game", "crownfall", "--players", "3", "--games", "6", "--sprt", "0,5"],
     "ftc: error: --sprt needs two-player games (a score of 0, 1/2 or 1 against one opponent); these have 3 players"),
    (["--games", "5", "--sprt", "0,5"],
     "ftc: error: --sprt plays games in pairs (colours swapped from one opening): --games 5 is odd"),
    (["--games", "4", "--sprt-beta", "0.1"], "ftc: error: --sprt-beta 0.1: needs --sprt ELO0,ELO1"),
    (["--games", "4", "--sprt", "5,0"], "ftc: error: match: argument --sprt: ELO0 must be below ELO1 (both finite), got '5,0'"),
    (["--games", "4", "--sprt", "0,5", "--sprt-alpha", "0.5"],
     "ftc: error: match: argument --sprt-alpha: expected a probability between 0 and 0.5 (exclusive), got 0.5"),
])
def test_sprt_match_refusals_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) if "argument" in message else _no_exit():
        code = main(["match", "--a", "random", "--b", "random", *argv])
        assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == message


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
