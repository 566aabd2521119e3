"""tools/vs_fairy_stockfish.py without Fairy-Stockfish: the referee loop with our engine on both
sides (in-process and as a `ftc uci` child standing in for the binary), each way a game ends, a
misbehaving opponent, and the clear message when the binary is missing."""

import json
import subprocess
import sys

import pytest

from engine.board import nnue
from engine.board.evaluate import choose_network, evaluation_name
from tests.support import ROOT, child_env, load_tool
from tools import fairy_armies, oracles


@pytest.fixture(scope="module")
def tool():
    module = load_tool("vs_fairy_stockfish")
    yield module
    sys.modules.pop(module.__name__, None)


class Scripted:
    """A player that plays the given move texts in turn (or raises what it is given)."""

    def __init__(self, name, moves):
        self.name = self.short = self.setting = name
        self.evaluation = "scripted"
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
    default = evaluation_name(choose_network())             # evaluation.toml's: both sides search with it
    assert lines[1] == f"  ftc: ftc-engine (depth 1), our AlphaBeta in this process, evaluation {default}"
    assert lines[2].startswith("  fsf: ftc-engine 0.1.0 (depth 1), ") and lines[2].endswith(f", evaluation {default}")
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


# -- the match tools of the learned evaluation (issue 25) -------------------------------------------------
TOOL = ROOT / "tools" / "vs_fairy_stockfish.py"
FTC_UCI = f'"{sys.executable}" -m engine.interfaces.cli uci'


def run_tool(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=timeout,
                          env=child_env(), cwd=ROOT)


def test_opponent_uci_plays_our_own_engine_and_the_report_names_both_evaluations(tmp_path):
    """`--opponent-uci "ftc uci"` end to end: our search with a network file in-process against the
    classical search as a UCI child, 2 games at 20 ms per move."""
    from tests.search.test_nnue import random_net

    net = random_net(3)
    nnue.save_net(net, tmp_path / "random.nnue")
    done = run_tool("--opponent-uci", FTC_UCI, "--opponent-options", "Use NNUE=false;Move Overhead=0",
                    "--ours-eval", "nnue", "--ours-net", str(tmp_path / "random.nnue"),
                    "--games", "2", "--movetime-ms", "20", "--max-plies", "30")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ftc-engine (20 ms/move) vs ftc-engine 0.1.0 (20 ms/move): 2 games, variant ftco")
    assert lines[1] == (f"  ftc: ftc-engine (20 ms/move), our AlphaBeta in this process, "
                        f"evaluation nnue {net.digest()} (random.nnue)")
    assert lines[2].startswith("  ftc-uci: ftc-engine 0.1.0 (20 ms/move), ") and lines[2].endswith(" uci, evaluation classical")
    assert lines[3].startswith("game   1: ftc (Blue) - ftc-uci (Yellow)") and lines[4].startswith("game   2: ftc-uci (Blue)")
    assert "games lost by a fault" not in done.stdout and "95% CI" in done.stdout


def test_opponent_options_the_engine_does_not_take_are_one_line_errors():
    done = run_tool("--opponent-uci", FTC_UCI, "--opponent-options", "Use NNUE=false;Threds=2", "--games", "2")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ftc-engine 0.1.0 has no option 'Threds' (--opponent-options); it offers: ")
    done = run_tool("--opponent-uci", FTC_UCI, "--opponent-options", "Hash=lots", "--games", "2")
    assert done.returncode == 2 and done.stderr == \
        "error: ftc-engine 0.1.0 refused an option: setoption: Hash must be a whole number, got 'lots'\n"


def test_bad_evaluation_choices_are_clear_errors(tool, tmp_path, capsys):
    for argv, words in ((["--ours-eval", "classical", "--ours-net", "x.nnue"], "--ours-net was given with --ours-eval classical"),
                        (["--ours-net", str(tmp_path / "none.nnue")], "cannot read the net file"),
                        (["--opponent-options", "=3"], "'=3' has no option name"),
                        (["--opponent-uci", '"unbalanced'], "--opponent-uci: No closing quotation"),
                        (["--fsf", "/bin/true", "--opponent-uci", "ftc uci"], "not allowed with argument"),
                        (["--parallel", "0"], "--parallel must be positive")):
        with pytest.raises(SystemExit) as stop:
            tool.main(["--games", "1", *argv])
        assert stop.value.code == 2
        assert words in capsys.readouterr().err, argv


def test_parse_options(tool):
    assert tool.parse_options("Use NNUE=false; Move Overhead = 0;Clear Hash;;EvalFile=a=b.nnue") == [
        ("Use NNUE", "false"), ("Move Overhead", "0"), ("Clear Hash", None), ("EvalFile", "a=b.nnue")]
    assert tool.parse_options("") == []


def test_parallel_games_are_the_games_of_one_at_a_time(tmp_path):
    """At fixed depths both engines are deterministic: two at a time gives the same games, in the same
    order, as one at a time (fairy armies, so the start positions are drawn per pair too)."""
    outputs = []
    for parallel in ("1", "2"):
        record = tmp_path / f"games{parallel}.jsonl"
        done = run_tool("--opponent-uci", FTC_UCI, "--armies", "fairy", "--games", "4", "--parallel", parallel,
                        "--ours-depth", "2", "--opponent-depth", "2", "--max-plies", "24", "--seed", "11",
                        "--record", str(record))
        assert done.returncode == 0, done.stderr
        games = [line for line in done.stdout.splitlines() if line.startswith("game ")]
        assert len(games) == 4
        # Both sides' depths over all moves (the workers' moves are counted in the main process).
        depths = [line.split(", mean time")[0] + line.split(" ms/move")[1] for line in done.stdout.splitlines()
                  if "depth median" in line]
        assert len(depths) == 2
        outputs.append((games, [json.loads(line) for line in record.read_text().splitlines()], depths))
    assert "2 at a time" in done.stdout
    assert outputs[0] == outputs[1]
    records = outputs[0][1]
    assert records[0]["start"] == records[1]["start"] != records[2]["start"] == records[3]["start"]
    assert {r["variant"] for r in records} <= {"ftcf", "ftcd"}


def test_a_node_budget_gives_both_sides_the_same_count_and_the_same_games_every_run(tmp_path):
    """--nodes: both sides search that many nodes a move (ours through search(nodes=...), the UCI
    engine through `go nodes`), so a match of two builds is the same on every run, whatever the load
    (a move time would not be)."""
    runs = []
    for k in range(2):
        record = tmp_path / f"games{k}.jsonl"
        done = run_tool("--opponent-uci", FTC_UCI, "--games", "2", "--nodes", "400", "--max-plies", "16",
                        "--seed", "5", "--record", str(record))
        assert done.returncode == 0, done.stderr
        assert "ftc-engine (400 nodes/move) vs ftc-engine" in done.stdout and "(400 nodes/move): 2 games" in done.stdout
        runs.append([json.loads(line)["moves"] for line in record.read_text().splitlines()])
    assert runs[0] == runs[1] and len(runs[0]) == 2 and all(len(moves) > 4 for moves in runs[0])


FAKE_FSF = r'''
import random, sys
import pyffish
variant, ini, fen, moves, rng = "chess", None, None, [], random.Random(1)
def say(line):
    print(line, flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name Fake-Stockfish")
        for name in ("Threads type spin default 1 min 1 max 8", "Hash type spin default 16 min 1 max 64",
                     "VariantPath type string default <empty>", "UCI_Variant type combo default chess var chess"):
            say("option name " + name)
        say("uciok")
    elif words[:3] == ["setoption", "name", "VariantPath"]:
        pyffish.load_variant_config(open(words[4]).read())
    elif words[:3] == ["setoption", "name", "UCI_Variant"]:
        variant = words[4]
        say(f"info string variant {variant} files 8 ranks 8")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        fen = "startpos" if words[1] == "startpos" else " ".join(words[2:words.index("moves") if "moves" in words else None])
        moves = words[words.index("moves") + 1:] if "moves" in words else []
        with open(sys.argv[1], "a") as log:
            log.write(f"{variant}|{fen}|{' '.join(moves)}\n")
    elif words[0] == "go":
        say("info string classical evaluation enabled")
        start = pyffish.start_fen(variant) if fen == "startpos" else fen
        legal = pyffish.legal_moves(variant, start, moves)
        # Deploys and promotions first, those whose letters differ from ours (A O S) before the others.
        special = [m for m in legal if "@" in m or len(m) == 5]
        renamed = [m for m in special if m[0] in "AOS" or m[4:] in ("a", "o", "s")]
        say("info depth 1 score cp 0")
        say("bestmove " + rng.choice(renamed or special or legal))
    elif words[0] == "quit":
        break
'''


def test_a_fairy_stockfish_stand_in_gets_its_own_letters_and_the_barracks_as_its_pocket(tool, tmp_path, monkeypatch,
                                                                                       capsys):
    """A stand-in for Fairy-Stockfish that reads the ini and plays pyffish's legal moves (deploys and
    promotions first): every move it makes is legal for our referee, and it is given the variant of
    each pair and positions in its letters, with the Barracks as the pocket in ftcd."""
    pytest.importorskip("pyffish")
    log = tmp_path / "positions.log"
    fake = tmp_path / "fake-fsf"
    fake.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{tmp_path / "fake.py"}" "{log}"\n')
    (tmp_path / "fake.py").write_text(FAKE_FSF)
    fake.chmod(0o755)
    record = tmp_path / "games.jsonl"
    code = tool.main(["--fsf", str(fake), "--armies", "fairy", "--games", "6", "--ours-depth", "1",
                      "--max-plies", "40", "--seed", "12", "--record", str(record)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[2].endswith("evaluation classical")               # the stand-in says so
    assert "games lost by a fault" not in out
    games = [json.loads(line) for line in record.read_text().splitlines()]
    sent = [line.split("|") for line in log.read_text().splitlines()]
    # Seed 12 draws two ftcd pairs (Acolytes, O there, in a Barracks), then an ftcf pair: the variant is switched.
    assert [g["variant"] for g in games] == ["ftcd"] * 4 + ["ftcf"] * 2
    assert {variant for variant, _, _ in sent} == {"ftcd", "ftcf", "ftco"}   # ftco: the evaluation probe
    for game in games:
        fen = oracles.to_ffish_fen(game["start"], game["variant"])
        assert ("[" in fen) == (game["variant"] == "ftcd")
        mine = [(v, m.split()) for v, f, m in sent if f == fen]
        assert mine and all(v == game["variant"] for v, _ in mine)
        # It was sent this game's moves in its letters (the opening and each of its turns).
        moves = [fairy_armies.to_ffish_move(m) for m in game["moves"]]
        turns = [m for _, m in mine if m == moves[:len(m)]]
        assert len(turns) >= (len(moves) - 4) // 2 and max(map(len, turns)) >= len(moves) - 2
    played = [m for g in games for m in g["moves"]]
    # Deploys were played, and moves whose letters differ (Z A T are A O S there) travelled both ways.
    assert any("@" in m for m in played) and any(fairy_armies.to_ffish_move(m) != m for m in played)


def test_fairy_games_promote_as_the_variant_does(tool):
    """The referee of a fairy game allows the promotions of ftcf/ftcd (to a Nightrider here), not only NBRQ."""
    spec = tool.game_specs(2, seed=4, armies="fairy")[0]
    assert spec.promote == "NBRQZCDHMEAT" and spec.variant in ("ftcf", "ftcd")
    game = tool.play_game(Scripted("w", ["b7b8z"]), Scripted("b", ["e8e7"]), [], max_plies=2,
                          root="4k3/1P6/8/8/8/8/8/K7 w - - 0 1", promote=spec.promote, variant=spec.variant)
    assert game.fault is None and game.moves == ["b7b8z", "e8e7"], game.reason
    game = tool.play_game(Scripted("w", ["b7b8z"]), Scripted("b", []), [], root="4k3/1P6/8/8/8/8/8/K7 w - - 0 1")
    assert game.fault == "w"              # orthodox: promotion to N B R Q only


def test_a_note_when_the_sides_did_not_think_equally_long(tool):
    stats = lambda *ms: tool.Stats([1] * len(ms), [m / 1000 for m in ms])     # noqa: E731
    assert tool.time_note(stats(100, 100), stats(110, 120)) is None          # within 25%
    assert tool.time_note(stats(100), stats()) is None
    assert tool.time_note(stats(100, 100), stats(60, 70)) == (
        'note: the sides did not think equally long: 100 against 65 ms/move (an engine takes its Move Overhead '
        'off every go movetime: --opponent-options "Move Overhead=0")')
    assert tool.time_note(stats(50), stats(80)) == "note: the sides did not think equally long: 50 against 80 ms/move"


# -- --sprt: the match stops when the test decides (engine/search/sprt.py, docs/sprt.md) ---------------
def test_an_sprt_match_feeds_pairs_in_order_and_stops_when_it_decides(tool, monkeypatch):
    """Scripted outcomes: we win every game as Blue and draw as Yellow (pairs of 1.5 points). The test
    gets pair k after game 2k + 1, and when it decides the games' source is closed (with --parallel:
    the games still running are stopped) and nothing after the deciding pair is counted."""
    closed, fed = [], []

    def outcomes(ours, theirs, specs, parallel):
        try:
            for spec in specs:
                fed.append(spec.index)
                winner = "w" if spec.ours_blue else None
                yield tool.GameOutcome(spec, tool.GameResult("a", "b", winner, "scripted", ["e2e4"]),
                                       tool.Stats(), tool.Stats())
        finally:
            closed.append(True)

    monkeypatch.setattr(tool, "_outcomes", outcomes)
    ours, theirs = Scripted("ours", []), Scripted("theirs", [])
    test = tool.SPRT(0, 100, max_games=400)
    result, games = tool.play_match(ours, theirs, 400, report=lambda _: None, sprt=test)
    assert test.status() == "H1 accepted" and closed == [True]
    assert result.games == len(games) == test.games == fed[-1] + 1 < 400 and test.games % 2 == 0
    assert test.pentanomial == [0, 0, 0, test.pairs, 0] and result.outcomes[:4] == [1.0, 0.5, 1.0, 0.5]
    with pytest.raises(ValueError, match="--games 5 is odd"):
        tool.play_match(ours, theirs, 5, report=None, sprt=tool.SPRT(0, 100))


def test_the_tool_reports_the_sprt_and_writes_it_as_json(tool, tmp_path, monkeypatch, capsys):
    """The whole command line with `ftc uci` standing in for the binary: 4 games cannot decide an
    SPRT of 0 against 5 Elo, so it ends undecided at --games; the report ends with its lines."""
    wrapper = tmp_path / "fake-fsf"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engine.interfaces.cli uci\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PYTHONPATH", child_env()["PYTHONPATH"])
    out_json = tmp_path / "match.json"
    code = tool.main(["--fsf", str(wrapper), "--games", "4", "--ours-depth", "1", "--opponent-depth", "1",
                      "--max-plies", "16", "--seed", "3", "--sprt", "0,5", "--json", str(out_json)])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    at = lines.index("SPRT (logistic Elo): H0 elo <= 0, H1 elo >= 5, alpha 0.05, beta 0.05")
    assert lines[at + 1].startswith("LLR ") and lines[at + 1].endswith("(bounds -2.944, +2.944): undecided")
    assert lines[at + 2].startswith("4 games in 2 pairs, pentanomial ")
    data = json.loads(out_json.read_text())
    assert data["games"] == 4 and data["sprt"]["decision"] == "undecided" and data["sprt"]["pairs"] == 2
    assert sum(data["sprt"]["pentanomial"]) == 2 and data["sprt"]["max_games"] == 4


@pytest.mark.parametrize("argv, message", [
    (["--games", "3", "--sprt", "0,5"], "--sprt plays games in pairs (colours swapped from one opening): --games 3 is odd"),
    (["--sprt-alpha", "0.1"], "--sprt-alpha 0.1: needs --sprt ELO0,ELO1"),
    (["--sprt", "0"], "argument --sprt: expected ELO0,ELO1 (two numbers, e.g. 0,5), got '0'"),
])
def test_bad_sprt_options_are_one_line_errors(tool, argv, message, capsys):
    with pytest.raises(SystemExit):
        tool.main(["--fsf", "/bin/true", *argv])
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)


def _scripted_outcomes(tool, fed, stop_at=None):
    """_outcomes' stand-in: we win every game as Blue and draw as Yellow; a Ctrl-C when game
    ``stop_at`` (its index) would start."""
    def outcomes(ours, theirs, specs, parallel):
        for spec in specs:
            if spec.index == stop_at:
                raise KeyboardInterrupt
            fed.append(spec.index)
            winner = "w" if spec.ours_blue else None
            yield tool.GameOutcome(spec, tool.GameResult("a", "b", winner, "scripted", ["e2e4"] * (spec.index + 1)),
                                   tool.Stats(), tool.Stats())
    return outcomes


def test_a_match_stopped_resumes_from_its_journal_and_plays_only_the_games_it_lacks(tool, monkeypatch, tmp_path):
    ours, theirs = Scripted("ours", []), Scripted("theirs", [])
    ours.args, theirs.args = {"nodes": 40000}, {"command": ["fsf"], "ini": tmp_path}
    path, record = tmp_path / "match.jsonl", tmp_path / "games.jsonl"

    def journal(seed=0):
        return tool.match_journal(path, ours, theirs, {"seed": seed}, tool.SPRT(0, 100))

    whole: list[int] = []
    monkeypatch.setattr(tool, "_outcomes", _scripted_outcomes(tool, whole))
    uninterrupted = tool.SPRT(0, 100, max_games=400)
    expected, _ = tool.play_match(ours, theirs, 400, report=lambda _: None, sprt=uninterrupted)
    fed: list[int] = []
    monkeypatch.setattr(tool, "_outcomes", _scripted_outcomes(tool, fed, stop_at=7))
    with pytest.raises(KeyboardInterrupt):
        tool.play_match(ours, theirs, 400, report=lambda _: None, sprt=tool.SPRT(0, 100), journal=journal(),
                        record=record)
    assert fed == list(range(7)) and sorted(journal().done) == list(range(7))
    fed.clear()
    monkeypatch.setattr(tool, "_outcomes", _scripted_outcomes(tool, fed))
    test = tool.SPRT(0, 100, max_games=400)
    lines: list[str] = []
    result, games = tool.play_match(ours, theirs, 400, report=lines.append, sprt=test, journal=journal(),
                                    record=record)
    assert fed == list(range(7, whole[-1] + 1))         # the seven kept games are not played again
    assert (test.status(), test.pentanomial) == (uninterrupted.status(), uninterrupted.pentanomial)
    assert result.outcomes == expected.outcomes and result.turns == expected.turns
    assert [g.plies for g in games] == [i + 1 for i in range(len(games))]     # kept games keep their length
    assert lines[0] == f"7 game(s) from the journal {path}"
    assert [json.loads(line)["game"] for line in record.read_text().splitlines()] == list(range(1, len(games) + 1))
    with pytest.raises(tool.JournalError, match="its run's games is .*this run's is"):
        journal(seed=1)


def test_the_journal_names_our_net_by_its_weights_not_its_path(tool, tmp_path):
    """A net file replaced under the same path between two runs is another test: refused by name."""
    nets = sorted((ROOT / "docs" / "results" / "nets").glob("ftc-*.nnue"))
    net = tmp_path / "candidate.nnue"
    net.write_bytes(nets[0].read_bytes())
    theirs = Scripted("theirs", [])
    theirs.args = {"command": ["fsf"]}
    path = tmp_path / "m.jsonl"
    tool.match_journal(path, tool.OurPlayer(100, net=str(net)), theirs, {"seed": 1}, None)
    tool.match_journal(path, tool.OurPlayer(100, net=str(net)), theirs, {"seed": 1}, None)    # the same test
    net.write_bytes(nets[1].read_bytes())
    with pytest.raises(tool.JournalError, match="its run's ours is .*this run's is"):
        tool.match_journal(path, tool.OurPlayer(100, net=str(net)), theirs, {"seed": 1}, None)


def test_a_journal_game_that_is_not_one_is_named(tool, tmp_path):
    ours, theirs = Scripted("ours", []), Scripted("theirs", [])
    ours.args = theirs.args = {}
    journal = tool.match_journal(tmp_path / "m.jsonl", ours, theirs, {}, None)
    journal.add(0, {"blue": "a", "yellow": "b", "winner": "x", "reason": "r", "fault": None, "plies": 3})
    with pytest.raises(tool.JournalError, match=r"game 1: expected .*\"winner\": \"x\""):
        tool.play_match(ours, theirs, 2, report=None, journal=journal)


def test_the_tool_resumes_a_match_from_its_journal(tool, tmp_path, monkeypatch, capsys):
    """The whole command line twice with one journal: the second run plays no game and reports the
    first's result; a third with another seed is refused before any game."""
    wrapper = tmp_path / "fake-fsf"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engine.interfaces.cli uci\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PYTHONPATH", child_env()["PYTHONPATH"])
    argv = ["--fsf", str(wrapper), "--games", "4", "--ours-depth", "1", "--opponent-depth", "1", "--max-plies", "16",
            "--seed", "3", "--journal", str(tmp_path / "match.jsonl")]
    assert tool.main([*argv, "--json", str(tmp_path / "a.json")]) == 0
    first = capsys.readouterr().out
    assert tool.main([*argv, "--json", str(tmp_path / "b.json")]) == 0
    second = capsys.readouterr().out
    assert "4 game(s) from the journal" in second and "4 game(s) from the journal" not in first
    a, b = (json.loads((tmp_path / name).read_text()) for name in ("a.json", "b.json"))
    assert (a["outcomes"], a["turns"]) == (b["outcomes"], b["turns"])
    assert tool.main([*argv[:-3], "4", *argv[-2:]]) == 2
    assert "its run's games is" in capsys.readouterr().err
