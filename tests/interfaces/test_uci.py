"""`ftc uci`: the UCI protocol (engine/interfaces/uci.py, docs/uci.md).

The pure parts (go parameters, search plans, scores, the move notation), the protocol object with
its error handling, a scripted session with the real `python -m engine.interfaces.cli uci`
subprocess (stop while thinking, the time manager, bad lines, quit) and python-chess driving it as
a chess engine."""

import queue
import subprocess
import threading
import time

import pytest

from engine import NAMED_POSITIONS, Position
from engine.board.alphabeta import MATE
from engine.board.timeman import clock_limits, movetime_limits
from engine.interfaces.uci import (
    MAX_DEPTH,
    OPTIONS,
    GoLimits,
    UciEngine,
    UciError,
    parse_go,
    parse_uci_move,
    plan_search,
    uci_score,
)
from tests.support import FTC, ROOT, child_env

START = NAMED_POSITIONS["startpos"]
COMMAND = FTC + ["uci"]


# -- pure parts --------------------------------------------------------------------------------------------
def test_parse_go_reads_every_parameter():
    limits = parse_go("wtime 60000 btime 50000 winc 1000 binc 500 movestogo 20 depth 7 nodes 5000".split())
    assert (limits.wtime, limits.btime, limits.winc, limits.binc) == (60000, 50000, 1000, 500)
    assert (limits.movestogo, limits.depth, limits.nodes) == (20, 7, 5000)
    assert parse_go(["infinite"]).infinite and parse_go(["ponder", "movetime", "50"]).ponder
    assert parse_go(["movetime", "250"]).movetime == 250
    assert parse_go(["wtime", "-20"]).wtime == -20             # a flagged clock is not an error
    assert parse_go(["searchmoves", "e2e4", "d2d4", "depth", "2"]).ignored == ["searchmoves"]
    assert parse_go([]) == GoLimits()


@pytest.mark.parametrize("tokens, words", [
    (["depth"], "depth needs a value"),
    (["depth", "x"], "whole number"),
    (["depth", "0"], "at least 1"),
    (["depth", str(MAX_DEPTH + 1)], "at most"),
    (["nodes", "1.5"], "whole number"),
    (["movetime", "0"], "positive"),
    (["wtime", "nan"], "milliseconds"),
    (["sideways"], "unknown parameter 'sideways'"),
])
def test_parse_go_names_the_bad_parameter(tokens, words):
    with pytest.raises(UciError, match=words):
        parse_go(tokens)


def test_plan_uses_the_time_manager_for_the_side_to_move():
    limits = parse_go("wtime 60000 btime 3000 winc 1000 binc 0".split())
    white, black = plan_search(limits, "w", 30), plan_search(limits, "b", 30)
    assert (white.soft_seconds, white.seconds) == (clock_limits(60000, 1000, None, 30).soft,
                                                   clock_limits(60000, 1000, None, 30).hard)
    assert (black.soft_seconds, black.seconds) == (clock_limits(3000, 0, None, 30).soft,
                                                   clock_limits(3000, 0, None, 30).hard)
    assert not white.wait_for_stop and white.depth == MAX_DEPTH
    assert plan_search(parse_go(["movetime", "200"]), "w", 30).seconds == movetime_limits(200, 30).hard
    infinite = plan_search(parse_go(["infinite", "wtime", "100"]), "w", 30)
    assert infinite.wait_for_stop and infinite.seconds is None and infinite.soft_seconds is None
    assert plan_search(parse_go(["mate", "2"]), "w", 0).depth == 4
    assert plan_search(parse_go(["depth", "3"]), "b", 0).depth == 3


def test_scores_in_uci_form():
    assert uci_score(37) == "cp 37" and uci_score(-250) == "cp -250"
    assert uci_score(MATE - 1) == "mate 1"          # the Sovereign is captured by the next order
    assert uci_score(MATE - 3) == "mate 2"
    assert uci_score(-(MATE - 2)) == "mate -1"      # our Sovereign falls after one order each


def test_move_notation_round_trips_for_every_kind_of_order():
    # Promotions to every base type (e7e8w...), deploys of a base and an expansion type.
    position = Position.from_text("4k3/P7/8/8/8/8/8/4K3[N~Nn] w - - 0 1")
    orders = position.legal_orders()
    texts = {o.text() for o in orders}
    assert {"a7a8q", "a7a8w", "N@a1", "~N@a1"} <= texts
    for order in orders:
        assert parse_uci_move(position, order.text()) == order
    assert parse_uci_move(position, "n@b1").text() == "N@b1"      # case of the unit letter is free
    assert parse_uci_move(position, "~n@b1").text() == "~N@b1"
    assert parse_uci_move(position, "a7a8Q").text() == "a7a8q"
    # An expansion promotion, where the promote: field allows one.
    expansion = Position.from_text("4k3/P7/8/8/8/8/8/4K3 w - - 0 1 promote:Q~B")
    assert sorted(o.text() for o in expansion.legal_orders() if o.promotion) == ["a7a8q", "a7a8~b"]
    assert parse_uci_move(expansion, "a7a8~B").text() == "a7a8~b"


@pytest.mark.parametrize("text, words", [
    ("0000", "null move"),
    ("e2e5", "cannot reach"),
    ("e9e4", "not a move"),
    ("N@e4", "no Knight in the Barracks"),
    ("e1g1", "no castling"),
])
def test_bad_moves_say_why(text, words):
    with pytest.raises(UciError, match=words):
        parse_uci_move(Position.from_text(START), text)


# -- the protocol object ------------------------------------------------------------------------------
class Session:
    def __init__(self):
        self.out: list[str] = []
        self.engine = UciEngine(self.out.append)

    def __call__(self, *lines: str) -> list[str]:
        start = len(self.out)
        for line in lines:
            self.engine.handle(line)
        self.engine.wait(30)
        return self.out[start:]


def test_uci_reports_every_option_with_type_and_default():
    out = Session()("uci")
    assert out[0].startswith("id name ftc-engine") and out[1].startswith("id author ")
    assert out[-1] == "uciok"
    for option in OPTIONS:
        line = next(x for x in out if x.startswith(f"option name {option.name} type {option.type}"))
        if option.type == "check":             # Use NNUE: the evaluation default, false while classical
            assert line.endswith(" default false") or line.endswith(" default true")
        elif option.type != "button":
            assert f" default {option.default}" in line
    assert "option name UCI_Variant type combo default ftc var ftc var ftco var chess" in out


def test_protocol_object_session_and_errors():
    s = Session()
    assert s("isready") == ["readyok"]
    out = s("position startpos moves e2e4 e7e5", "go depth 2")
    assert out[-1].startswith("bestmove ") and [x for x in out if x.startswith("info depth 2 ")]
    best = out[-1].split()[1]
    pos = Position.from_text(START)
    pos.push("e2e4")
    pos.push("e7e5")
    assert best in {o.text() for o in pos.legal_orders()}
    bad = [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("position", "expected 'position startpos"),
        ("position startpos moves e2e4 e2e4", "move 2 'e2e4'"),
        ("position fen 8/8/8 w", "position text"),
        ("setoption name Hash value 0", "Hash must be 1..1024"),
        ("setoption name Hash value lots", "whole number"),
        ("setoption name Nope value 1", "unknown option 'Nope'"),
        ("setoption name UCI_Variant value shogi", "must be one of ftc, ftco, chess"),
        ("setoption Hash 1", "expected 'setoption name"),
        ("debug maybe", "debug on"),
    ]
    for line, words in bad:
        out = s(line)
        assert len(out) == 1 and out[0].startswith("info string error: ") and words in out[0], (line, out)
    # After the failed `position`, go answers with an error and bestmove 0000, never a search.
    assert s("go depth 1") == ["info string error: go: no valid position (the last 'position' command failed); "
                               "answering bestmove 0000", "bestmove 0000"]
    out = s("go depth x")
    assert out[0].startswith("info string error: go: depth") and out[-1] == "bestmove 0000"
    # Still working: options, variants and a new position.
    assert s("setoption name Move Overhead value 100", "setoption name MultiPV value 2") == []
    out = s("position fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "go depth 1")
    assert "multipv 2" in " ".join(out) and out[-1].startswith("bestmove a7a8")
    assert s("setoption name UCI_Variant value chess", "setoption name MultiPV value 1") == []
    out = s("go depth 1")
    assert out[-1] in {"bestmove a7a8q", "bestmove a7a8r", "bestmove a7a8b", "bestmove a7a8n"}


def _info_pv(line: str) -> tuple[int, list[str]]:
    """(depth, pv orders) of an ``info`` line."""
    words = line.split()
    return int(words[words.index("depth") + 1]), words[words.index("pv") + 1:]


@pytest.mark.parametrize("multipv", [1, 3])
def test_info_pv_never_holds_more_orders_than_its_depth(multipv):
    s = Session()
    s(f"setoption name MultiPV value {multipv}")
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b - - 0 1"
    out = s(f"position fen {fen}", "go depth 5")
    infos = [x for x in out if x.startswith("info depth ") and " pv " in x]
    assert {_info_pv(x)[0] for x in infos} == {1, 2, 3, 4, 5}
    for line in infos:
        depth, pv = _info_pv(line)
        assert 1 <= len(pv) <= depth, line
        probe = Position.from_text(fen)
        for move in pv:                                  # and it is a legal line
            probe.push(move)
    best_lines = [x for x in infos if " multipv " not in x or " multipv 1 " in x]
    assert out[-1].split()[1] == _info_pv(best_lines[-1])[1][0]      # bestmove opens the best line


def test_no_legal_order_and_lost_positions_answer_0000():
    s = Session()
    out = s("position fen 4k3/8/8/8/8/8/8/8 w - - 0 1", "go depth 3")   # Blue has no Sovereign: lost
    assert out == ["info depth 0 score mate 0", "bestmove 0000"]


def test_plain_chess_fen_castling_and_en_passant_fields_are_ignored():
    s = Session()
    fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    assert s(f"position fen {fen}") == []
    assert s.engine.position.to_text() == "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w - - 0 3"
    assert "there is no castling" in s("position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1")[0]
    assert "cannot reach" in s(f"position fen {fen} moves e5d6")[0]          # no en passant


# -- the real subprocess ---------------------------------------------------------------------------------
class Child:
    """`python -m engine.interfaces.cli uci` with a reader thread, so the test never blocks."""

    def __init__(self):
        self.process = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, bufsize=1, env=child_env(), cwd=ROOT)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str, timeout: float = 20.0) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        seen, deadline = [], time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line is not None, f"engine exited; got {seen}; stderr {self.process.stderr.read()}"
            seen.append(line)
            if line.startswith(prefix):
                return seen


def test_subprocess_session_stop_time_manager_errors_and_quit():
    child = Child()
    try:
        child.send("uci")
        assert child.until("uciok")[-1] == "uciok"
        child.send("isready")
        assert child.until("readyok") == ["readyok"]
        child.send("position startpos moves e2e4")
        child.send("go depth 3")
        out = child.until("bestmove")
        assert any(x.startswith("info depth 3 seldepth ") and " score cp " in x and " pv " in x for x in out)
        position = Position.from_text(START)
        position.push("e2e4")
        assert out[-1].split()[1] in {o.text() for o in position.legal_orders()}

        # go infinite thinks until stop, which is answered at once with a legal move.
        child.send("go infinite")
        time.sleep(0.3)
        child.send("isready")                                  # served while the search runs
        assert child.until("readyok")[-1] == "readyok"
        assert not [x for x in list(child.lines.queue) if x and x.startswith("bestmove")]
        stopped = time.monotonic()
        child.send("stop")
        out = child.until("bestmove", timeout=5)
        assert time.monotonic() - stopped < 3
        assert out[-1].split()[1] in {o.text() for o in position.legal_orders()}

        # Clocks go through the time manager: debug shows the plan it made.
        child.send("debug on")
        child.send("go wtime 4000 btime 9000 winc 0 binc 100 movestogo 10")
        out = child.until("bestmove")
        limits = clock_limits(9000, 100, 10, 30)               # Yellow to move, Move Overhead 30
        assert f"info string plan depth {MAX_DEPTH} nodes None hard {limits.hard} soft {limits.soft} wait False" in out
        child.send("debug off")

        # Bad lines: an error each, and the engine keeps working.
        for line in ("go sideways", "position startpos moves e2e5", "setoption name Hash value -1", "xyzzy"):
            child.send(line)
        child.send("isready")
        out = child.until("readyok")
        assert sum(x.startswith("info string error: ") for x in out) == 4, out
        assert "bestmove 0000" in out                          # the bad go still releases a waiting GUI
        assert not any("Traceback" in x for x in out)
        child.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves g1f3")
        child.send("go movetime 100")
        assert child.until("bestmove")[-1].startswith("bestmove ")
        child.process.stdin.buffer.write(b"\xff\xfe not UTF-8\n")
        child.process.stdin.buffer.flush()
        child.send("isready")
        out = child.until("readyok")
        assert out[0].startswith("info string error: ") and out[-1] == "readyok"

        child.send("go infinite")
        time.sleep(0.1)
        child.send("quit")                                     # quit while thinking
        assert child.process.wait(timeout=10) == 0
        assert "Traceback" not in child.process.stderr.read()
    finally:
        if child.process.poll() is None:
            child.process.kill()


def test_end_of_input_lets_a_limited_search_finish():
    run = subprocess.run(COMMAND, input="position startpos\ngo depth 3\n", capture_output=True, text=True,
                         timeout=60, env=child_env(), cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1].startswith("bestmove ")


# -- python-chess drives it --------------------------------------------------------------------------------
def test_python_chess_plays_and_analyses():
    pytest.importorskip("chess")
    import chess.engine

    engine = chess.engine.SimpleEngine.popen_uci(COMMAND, env=child_env(), cwd=ROOT)
    try:
        assert engine.id["name"].startswith("ftc-engine")
        assert {"Hash", "MultiPV", "Move Overhead", "UCI_Variant"} <= set(engine.options)
        board = chess.Board()
        for _ in range(2):
            played = engine.play(board, chess.engine.Limit(depth=3))
            assert played.move in board.legal_moves
            board.push(played.move)
        # Quiet middlegames (nothing in check, no capture of a King within reach).
        for fen in ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
                    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 b - - 0 10"):
            board = chess.Board(fen)
            played = engine.play(board, chess.engine.Limit(time=0.1))
            assert played.move in board.legal_moves
            info = engine.analyse(board, chess.engine.Limit(depth=3), multipv=2)
            assert len(info) == 2 and all(line["depth"] == 3 and line["pv"] for line in info)
        clock = engine.play(chess.Board(), chess.engine.Limit(white_clock=2, black_clock=2, white_inc=0.05))
        assert clock.move in chess.Board().legal_moves
    finally:
        engine.quit()


def test_ftc_eval_sets_the_use_nnue_default_and_a_bad_value_is_reported(monkeypatch):
    from engine.board import evaluate

    monkeypatch.setattr(evaluate, "_SETTINGS", [])
    monkeypatch.setenv("FTC_EVAL", "bogus")
    out = Session()("uci")
    assert "option name Use NNUE type check default false" in out
    assert "info string error: evaluation: FTC_EVAL='bogus': expected one of classical, nnue" in out
    assert out[-2:] == ["info string evaluation classical", "uciok"]
    monkeypatch.setattr(evaluate, "_SETTINGS", [])
    monkeypatch.setenv("FTC_EVAL", "nnue")
    out = Session()("uci")
    assert "option name Use NNUE type check default true" in out
    monkeypatch.setattr(evaluate, "_SETTINGS", [])


def test_use_nnue_and_evalfile_choose_the_evaluation_and_refuse_a_bad_file(tmp_path):
    """A net file given by EvalFile is searched with once Use NNUE is on (its static value at the
    root is the net's); a file that does not load is refused with the reason and changes nothing."""
    from engine.board import nnue
    from tests.search.test_nnue import random_net

    net = random_net(21, 64, spread=40)
    path = tmp_path / "mine.nnue"
    nnue.save_net(net, path)
    s = Session()
    s("uci")
    s("setoption name Use NNUE value false")
    assert s(f"setoption name EvalFile value {path}") == ["info string evaluation classical"]
    assert s("setoption name Use NNUE value true") == [f"info string evaluation nnue {net.digest()} (mine.nnue)"]
    s("isready")
    assert s.engine._get_searcher().evaluation == f"nnue {net.digest()} (mine.nnue)"
    position = Position.from_text(START)
    assert s.engine._get_searcher().evaluate(position) == nnue.reference_eval(net, nnue.board_record(position))
    out = s("position startpos", "go depth 2")
    assert out[-1].startswith("bestmove ")
    (tmp_path / "bad.nnue").write_bytes(b"not a net")
    bad = s(f"setoption name EvalFile value {tmp_path / 'bad.nnue'}")
    assert len(bad) == 1 and bad[0].startswith("info string error: setoption: EvalFile: ") and "not an NNUE net file" in bad[0]
    assert s.engine.options["EvalFile"] == str(path)
    assert s("setoption name Use NNUE value false") == ["info string evaluation classical"]
