"""Bad input on the command line (issue 13): every case exits non-zero with one ``ftc: error:`` line
that names what is wrong, and never a traceback, and leaves no process behind. Each runs ``ftc`` as a
child process, in a session of its own.

In a case's arguments ``{tmp}`` is a fresh folder holding ``not-a-db.sqlite3`` (text, not SQLite) and
``{busy_port}`` a loopback port another socket is listening on."""

import os
import socket
import subprocess
import time

import pytest

from engine.board.alphabeta import MAX_DEPTH
from tests.support import FTC, ROOT, child_env

CASES = [
    # (arguments, words the error line must hold)
    (["perft", "startpos", "-3"], ["perft", "depth", ">= 0", "-3"]),
    (["perft", "startpos", "x"], ["perft", "depth", "integer", "'x'"]),
    (["perft", "startpos", "3", "--threads", "0"], ["--threads", "0"]),
    (["perft", "startpos", "2", "--promote", "12!"], ["--promote", "'12!'", "unit tokens"]),
    (["perft", "8/8/8/8/8/8/8/9 w", "1"], ["position text", "rank 1"]),
    (["analyze", "startpos", "--depth", "0"], ["--depth", "0"]),
    (["analyze", "startpos", "--depth", "-3"], ["--depth", "-3"]),
    (["analyze", "startpos", "--time", "-1"], ["--time", "positive"]),
    (["analyze", "nosuch.json"], ["nosuch.json", "no such game record"]),
    (["analyze", "startpos", "--plot", "/nonexistent/x.png"], ["--plot", "/nonexistent", "does not exist"]),
    (["match", "--a", "greedy", "--b", "random", "--games", "0"], ["match", "--games", "0"]),
    (["match", "--a", "ismcts:abc", "--b", "greedy"], ["ismcts:abc", "not a budget"]),
    (["match", "--a", "ismcts:-1s", "--b", "greedy"], ["ismcts:-1s", "not a budget"]),
    (["match", "--a", "expert:0", "--b", "greedy"], ["expert:0", "not a budget"]),
    (["match", "--a", "bogus", "--b", "greedy"], ["unknown bot", "bogus"]),
    (["match", "--a", "greedy", "--b", "random", "--journal", "{tmp}/not-a-db.sqlite3"],
     ["not-a-db.sqlite3", "not a journal of a ftc-match run"]),
    (["match", "--a", "greedy", "--b", "random", "--journal", "/nonexistent/j.jsonl"],
     ["/nonexistent/j.jsonl", "its folder does not exist"]),
    (["match", "--a", "greedy", "--b", "random", "--plot", "/nonexistent/x.png"], ["--plot", "does not exist"]),
    (["match", "--a", "greedy", "--b", "random", "--max-turns", "0"], ["--max-turns", "0"]),
    (["selfplay", "--games", "-1"], ["selfplay", "--games", "-1"]),
    (["match", "--a", "greedy", "--b", "random", "--cluster", "mars"], ["match", "--cluster", "'mars'", "ray://HOST:PORT"]),
    (["match", "--a", "greedy", "--b", "random", "--workers", "0"], ["match", "--workers", "0"]),
    (["selfplay", "--cluster", "ray://head"], ["selfplay", "--cluster", "'ray://head'"]),
    (["selfplay", "--workers", "x"], ["selfplay", "--workers", "'x'"]),
    (["perft", "startpos", "3", "--cluster", "mars"], ["perft", "--cluster", "'mars'"]),
    (["perft", "startpos", "3", "--workers", "0"], ["perft", "--workers", "0"]),
    (["puzzles", "--seconds", "0"], ["--seconds", "positive"]),
    (["puzzles", "--only", "nosuch"], ["nosuch"]),
    (["serve", "--port", "-1"], ["--port", "0..65535", "-1"]),
    (["serve", "--port", "99999"], ["--port", "99999"]),
    (["serve", "--ai-timeout", "-5"], ["--ai-timeout", "positive"]),
    (["serve", "--workers", "0"], ["--workers", "0"]),
    (["serve", "--db", "/tmp", "--port", "1"], ["/tmp", "folder"]),
    (["serve", "--port", "{busy_port}", "--db", "{tmp}/games.sqlite3"], ["serve: port {busy_port} is in use", "--port"]),
    (["serve", "--db", "{tmp}/not-a-db.sqlite3", "--port", "0"], ["serve:", "{tmp}/not-a-db.sqlite3", "not a database"]),
    (["serve", "--db", "{tmp}/missing/games.sqlite3", "--port", "0"],
     ["serve: --db", "{tmp}/missing", "does not exist"]),
    (["serve", "--db", "{tmp}", "--port", "0"], ["serve: --db", "{tmp}", "is a folder"]),
    # The built manual (issue 42): a folder holding its index page.
    (["serve", "--port", "0", "--site", "{tmp}/missing"], ["serve: --site", "{tmp}/missing", "not a folder", "mkdocs build"]),
    (["serve", "--port", "0", "--site", "{tmp}"], ["serve: --site", "{tmp}", "no index.html", "mkdocs build"]),
    # /proc/self is not writable, even for root (a chmod'ed folder would be, to root).
    (["serve", "--db", "/proc/self/games.sqlite3", "--port", "0"], ["serve: --db", "/proc/", "not writable"]),
    (["serve", "--host", "no-such-host.invalid", "--port", "0", "--db", "{tmp}/games.sqlite3"],
     ["serve: --host", "no-such-host.invalid"]),
    (["serve", "--cluster", "mars", "--port", "0", "--db", "{tmp}/games.sqlite3"], ["serve: --cluster", "'mars'"]),
    # Nothing listens on port 1: the connection fails at start-up (Ray Client is refused or not installed).
    (["serve", "--cluster", "ray://127.0.0.1:1", "--port", "0", "--db", "{tmp}/games.sqlite3"],
     ["serve: --cluster ray://127.0.0.1:1", "cannot connect"]),
    (["balance", "--games", "0"], ["balance", "--games", "0"]),
    (["balance", "--bot", "bogus"], ["--bot", "bogus", "unknown bot"]),
    (["balance", "--bot", "expert:0"], ["--bot", "expert:0", "not a budget"]),
    (["balance", "--supply", "Nosuch"], ["supply", "Nosuch", "unknown card"]),
    (["balance", "--cluster", "mars"], ["--cluster", "mars"]),
    (["balance", "--workers", "0"], ["balance", "--workers", "0"]),
    (["balance", "--price-turn", "7"], ["--price-turn", "invalid choice"]),
    (["balance", "--out", "/nonexistent/report"], ["--out", "/nonexistent", "does not exist"]),
    (["balance", "--out", "{tmp}/not-a-db.sqlite3"], ["--out", "is a file"]),
    (["nosuch"], ["invalid choice"]),
    # A Supply card that does not exist is named with the cards that do (issue 22), before any game runs.
    (["selfplay", "--supply", "Foo"], ["--supply", "'Foo'", "unknown card", "Academy", "Zeitgeist"]),
    (["match", "--a", "random", "--b", "random", "--supply", "Foo"], ["--supply", "'Foo'", "Academy"]),
    (["selfplay", "--supply", "Fog,Foo"], ["--supply", "'Foo'", "Academy"]),
    # A position text given unquoted arrives as several words: the error says to quote it.
    (["perft", "4k3/8/8/8/8/8/8/4K3", "w", "-", "2"], ["perft", "quote", "'4k3/8/8/8/8/8/8/4K3 w -"]),
    (["analyze", "4k3/8/8/8/8/8/8/4K3", "w", "--depth", "2"], ["analyze", "quote", "'4k3/8/8/8/8/8/8/4K3 w'"]),
    (["perft", "--game", "kings-ransom", "n*kb*/1p*1/1i*1/1P*1/1P*1/R*KN*", "r", "QBI/qrp", "1"],
     ["perft", "quote", "n*kb*/1p*1/1i*1/1P*1/1P*1/R*KN* r QBI/qrp"]),
    # Issue 39: an argument that may name a path is told apart as a file, a folder or text, whatever
    # it holds (a text too long to be a file name is text); an output path is checked before any work.
    (["analyze", "x" * 5000], ["position text is 5000 characters long"]),
    (["analyze", "{tmp}"], ["{tmp}: it is a folder", "a game file or a position text"]),
    (["analyze", "startpos", "--depth", str(MAX_DEPTH + 1)], ["--depth", f"1..{MAX_DEPTH}", str(MAX_DEPTH + 1)]),
    (["nnue-data", "--out", "/proc/x", "--games", "1"], ["--out /proc/x", "cannot make the folder"]),
    (["nnue-data", "--out", "{tmp}/not-a-db.sqlite3", "--games", "1"], ["--out {tmp}/not-a-db.sqlite3", "is a file"]),
    (["selfplay", "--games", "1", "--records", "{tmp}/not-a-db.sqlite3"],
     ["--records {tmp}/not-a-db.sqlite3", "it is a file, not a folder"]),
    (["selfplay", "--games", "1", "--records", "/proc/x"], ["--records /proc/x", "cannot make the folder"]),
    (["balance", "--games", "1", "--out", "/proc/x"], ["--out /proc/x", "cannot make the folder"]),
    (["match", "--a", "random", "--b", "random", "--plot", "{tmp}"], ["--plot {tmp}", "it is a folder, not a file"]),
]

#: Argument errors exit 2 (argparse's convention, kept for every error in the arguments).
EXIT_2 = [argv for argv, _ in CASES if argv[0] in ("perft", "analyze", "selfplay", "match", "balance", "puzzles",
                                                  "nnue-data")]


def _session(sid: int) -> list[int]:
    """Live processes of the session ``sid`` (Linux /proc; empty elsewhere)."""
    found = []
    if not os.path.isdir("/proc/self"):
        return found
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _session_settled(sid: int, seconds: float = 5.0) -> list[int]:
    """``_session(sid)`` once it is empty, or after ``seconds``: a worker killed as its parent
    exits may take a moment to go on a loaded machine; one still there after that is left behind."""
    deadline = time.monotonic() + seconds
    while True:
        live = _session(sid)
        if not live or time.monotonic() > deadline:
            return live
        time.sleep(0.1)


def _case_id(argv: list[str]) -> str:
    return " ".join(arg if len(arg) <= 60 else f"<{len(arg)} characters>" for arg in argv)


@pytest.mark.parametrize("argv, words", CASES, ids=[_case_id(argv) for argv, _ in CASES])
def test_bad_input_is_one_clear_error_line(argv, words, tmp_path):
    (tmp_path / "not-a-db.sqlite3").write_text("a text file, not an SQLite database\n" * 50)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        fill = {"tmp": str(tmp_path), "busy_port": str(busy.getsockname()[1])}
        argv = [arg.format(**fill) for arg in argv]
        words = [word.format(**fill) for word in words]
        child = subprocess.Popen(FTC + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(),
                                 cwd=ROOT, start_new_session=True)
        try:
            out, err = child.communicate(timeout=120)
        finally:
            if child.poll() is None:
                os.killpg(child.pid, 9)
    assert child.returncode != 0, out
    if argv in EXIT_2:
        assert child.returncode == 2, (child.returncode, err)
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("ftc: error:")]
    assert len(errors) == 1, err
    for word in words:
        assert word in errors[0], (word, errors[0])
    assert not out.strip() or "usage" not in out
    assert "serving" not in out, out                        # nothing is served, or announced, before the checks
    assert _session(child.pid) == [], "processes left behind"
