"""`ftc perft / match / selfplay --cluster --workers` as child processes: perft on local processes
prints what the threads print; SIGTERM stops it with the usual line and leaves no worker behind;
`--cluster ray` without Ray says how to install it. (On a real Ray: tests/test_cluster_work_ray.py.)"""

import re
import signal
import subprocess
import sys

import pytest

from tests.interfaces.test_cli_errors import _session_settled
from tests.interfaces.test_cli_perft_stop import Running
from tests.support import FTC, ROOT, child_env


def ftc(*argv, env=None):
    return subprocess.run(FTC + list(argv), capture_output=True, text=True, env=env or child_env(), cwd=ROOT,
                          timeout=120)


def test_perft_divide_on_processes_prints_what_the_threads_print():
    threads = ftc("perft", "startpos", "4", "--divide")
    units = ftc("perft", "startpos", "4", "--divide", "--cluster", "local", "--workers", "2")
    assert units.returncode == threads.returncode == 0, units.stderr
    assert units.stdout == threads.stdout
    assert units.stdout.strip().splitlines()[-1] == "Nodes searched: 197742"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_stops_perft_on_processes_and_leaves_no_worker():
    run = Running(["perft", "startpos", "8", "--progress", "--cluster", "local", "--workers", "2"])
    line = re.compile(r"^perft: (\d+)/20 units done, ([\d,]+) nodes, [\d.]+ s, [\d.]+ Mnodes/s$")
    deadline = 30
    while True:                       # the timer's reports, while the units count
        text = run.lines.get(timeout=deadline)
        if line.match(text):
            break
    run.proc.send_signal(signal.SIGTERM)
    code, out, err = run.finish(seconds=10)
    assert code == 128 + signal.SIGTERM, err
    assert "Traceback" not in err, err
    assert re.fullmatch(r"ftc: perft stopped after \d+ nodes, 0 root orders counted in full "
                        r"\(interrupted by SIGTERM\)", err.strip().splitlines()[-1]), err
    assert not out.strip()
    assert _session_settled(run.proc.pid) == [], "worker processes left behind"


def test_ray_cluster_without_ray_says_how_to_install_it(tmp_path):
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named ray (a test stand-in)')\n")
    env = child_env()
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"
    for argv in (["match", "--a", "greedy", "--b", "random", "--games", "2"], ["selfplay", "--games", "2"],
                 ["perft", "startpos", "3"]):
        done = ftc(*argv, "--cluster", "ray", env=env)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("ftc: error:")]
        assert len(errors) == 1 and "needs Ray" in errors[0] and "pip install -e '.[ray]'" in errors[0], done.stderr
