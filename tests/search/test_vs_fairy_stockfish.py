"""tools/vs_fairy_stockfish.py without Fairy-Stockfish: the referee loop with our engine on both
sides (in-process and as a `ftc uci` child standing in for the binary), each way a game ends, a
misbehaving opponent, and the clear message when the binary is missing."""

import sys

import pytest

from tests.support import child_env, load_tool


@pytest.fixture(scope="module")
def tool():
    module = load_tool("vs_fairy_stockfish")
    yield module
    sys.modules.pop(module.__name__, None)


class Scripted:
    """A player that plays the given move texts in turn (or raises what it is given)."""

    def __init__(self, name, moves):
        self.name = self.short = self.setting = name
        self.moves = list(moves)

    def new_game(self):
        pass

    def choose(self, root, moves, position):
        move = self.moves.pop(0)
        if isinstance(move, Exception):
            raise move
        return move


def test_match_in_process_alternates_colours_and_shares_openings(tool):
    ours, theirs = tool.OurPlayer(100, depth=2), tool.OurPlayer(100, depth=1)
    ours.short, theirs.short = "d2", "d1"
    assert tool.play_match(ours, theirs, 0, report=None)[0].a == "d2 (depth 2)"
    lines = []
    result, games = tool.play_match(ours, theirs, 4, seed=5, opening_plies=4, max_plies=40, report=lines.append)
    assert result.games == 4 and len(games) == 4 and len(lines) == 4
    assert [g.blue for g in games] == [ours.name, theirs.name, ours.name, theirs.name]
    assert games[0].moves[:4] == games[1].moves[:4] and games[2].moves[:4] == games[3].moves[:4]
    assert games[0].moves[:4] != games[2].moves[:4]
    assert all(g.plies <= 40 and g.reason for g in games)
    assert result.turns == [g.plies for g in games]
    assert lines[0].startswith("game   1: d2 (Blue) - d1 (Yellow)")
    # The same seed gives the same openings.
    again = [g.moves[:4] for g in tool.play_match(ours, theirs, 2, seed=5, max_plies=6, report=lambda _: None)[1]]
    assert again == [games[0].moves[:4], games[1].moves[:4]]


def test_each_way_a_game_ends(tool):
    kings = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    shuffle = Scripted("w", ["e1e2", "e2e1", "e1e2", "e2e1"]), Scripted("b", ["e8e7", "e7e8", "e8e7", "e7e8"])
    game = tool.play_game(*shuffle, [], root=kings)
    assert game.winner is None and game.reason.startswith("threefold") and game.plies == 8
    game = tool.play_game(Scripted("w", ["e1e2"]), Scripted("b", ["e8e7"]), [], root="4k3/8/8/8/8/8/8/4K3 w - - 98 1")
    assert game.winner is None and "100 turns" in game.reason and game.plies == 2
    game = tool.play_game(Scripted("w", []), Scripted("b", []), [],
                          root="k7/8/8/8/8/pp6/PP6/KP6 w - - 0 1 status:a3b,b3b")
    assert game.winner is None and game.reason == "no legal order (C3)"
    game = tool.play_game(Scripted("w", ["d1d8"]), Scripted("b", []), [], root="3k4/8/8/8/8/8/8/3RK3 w - - 0 1")
    assert game.winner == "w" and game.reason == "Sovereign captured" and game.score_text == "1-0"
    game = tool.play_game(Scripted("w", ["e1d1"] * 3), Scripted("b", ["e8d8"] * 3), [], max_plies=2, root=kings)
    assert game.winner is None and game.reason == "adjudicated: 2 plies"


def test_illegal_unreadable_or_missing_moves_lose(tool):
    kings = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    for move, words in (("e1e3", "cannot reach"), ("(none)", "not a move"), ("e1g1", "no castling")):
        game = tool.play_game(Scripted("w", [move]), Scripted("b", []), [], root=kings)
        assert game.winner == "b" and game.fault == "w" and words in game.reason, game.reason
    game = tool.play_game(Scripted("w", ["e1e2"]), Scripted("b", [tool.EngineFailure("no bestmove within 10 s")]),
                          [], root=kings)
    assert game.winner == "w" and game.fault == "b" and "no bestmove" in game.reason


def test_tool_against_our_own_uci_child(tool, tmp_path, monkeypatch, capsys):
    """The whole command line with `ftc uci` standing in for the Fairy-Stockfish binary."""
    wrapper = tmp_path / "fake-fsf"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engine.interfaces.cli uci\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PYTHONPATH", child_env()["PYTHONPATH"])
    record = tmp_path / "games.jsonl"
    code = tool.main(["--fsf", str(wrapper), "--games", "2", "--ours-depth", "1", "--opponent-depth", "1",
                      "--max-plies", "24", "--seed", "3", "--record", str(record)])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("ftc-engine (depth 1) vs ftc-engine 0.1.0 (depth 1): 2 games")
    # The next two lines name both players and their evaluations; then one line per game.
    assert lines[1] == "  ftc: ftc-engine (depth 1), our AlphaBeta in this process, evaluation classical"
    assert lines[2].startswith("  fsf: ftc-engine 0.1.0 (depth 1), ") and lines[2].endswith(", evaluation classical")
    assert lines[3].startswith("game   1: ftc (Blue) - fsf (Yellow)") and lines[4].startswith("game   2: fsf (Blue)")
    assert "95% CI" in out and "Elo" in out and "depth median 1 (mean 1.0)" in out
    assert len(record.read_text().splitlines()) == 2


def test_missing_binary_is_a_clear_error(tool, tmp_path, capsys):
    code = tool.main(["--fsf", str(tmp_path / "no-such-stockfish"), "--games", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Fairy-Stockfish binary not found" in err and "--fsf PATH" in err and "To get one" in err


def test_plot_without_matplotlib_fails_before_any_game(tool, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code = tool.main(["--fsf", "/bin/true", "--plot", "x.png"])
    err = capsys.readouterr().err
    assert code == 2 and "needs matplotlib" in err and "no game was played" in err
