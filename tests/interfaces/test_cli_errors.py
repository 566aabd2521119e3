"""Bad input on the command line (issue 13): every case exits non-zero with one ``ftc: error:`` line
that names what is wrong, and never a traceback. Each runs ``ftc`` as a child process."""

import subprocess

import pytest

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
    (["match", "--a", "greedy", "--b", "random", "--plot", "/nonexistent/x.png"], ["--plot", "does not exist"]),
    (["match", "--a", "greedy", "--b", "random", "--max-turns", "0"], ["--max-turns", "0"]),
    (["selfplay", "--games", "-1"], ["selfplay", "--games", "-1"]),
    (["puzzles", "--seconds", "0"], ["--seconds", "positive"]),
    (["puzzles", "--only", "nosuch"], ["nosuch"]),
    (["serve", "--port", "-1"], ["--port", "0..65535", "-1"]),
    (["serve", "--port", "99999"], ["--port", "99999"]),
    (["serve", "--ai-timeout", "-5"], ["--ai-timeout", "positive"]),
    (["serve", "--workers", "0"], ["--workers", "0"]),
    (["serve", "--db", "/tmp", "--port", "1"], ["/tmp", "folder"]),
    (["nosuch"], ["invalid choice"]),
]


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_bad_input_is_one_clear_error_line(argv, words):
    run = subprocess.run(FTC + argv, capture_output=True, text=True, env=child_env(), cwd=ROOT, timeout=120)
    assert run.returncode != 0, run.stdout
    assert "Traceback" not in run.stderr, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("ftc: error:")]
    assert len(errors) == 1, run.stderr
    for word in words:
        assert word in errors[0], (word, errors[0])
    assert not run.stdout.strip() or "usage" not in run.stdout
