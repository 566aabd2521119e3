"""`ftc perft` on a deep count, as a child process (issue 13): progress from inside the first root
order's subtree, and SIGINT / SIGTERM stop it within a second or two with one line on stderr, exit
status 128 + the signal (130, 143) and no traceback; with --divide and with --threads 2 alike."""

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.support import FTC, ROOT, child_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: perft 8 of the start position: about 10^11 leaves, far more than any test waits for (the first
#: root order's subtree alone takes minutes).
DEEP = ["perft", "startpos", "8", "--progress"]
PROGRESS = re.compile(r"^perft: (\d+)/20 root orders done, ([\d,]+) nodes, [\d.]+ s, [\d.]+ Mnodes/s$")


class Running:
    """`ftc` started in its own session, with its stderr read line by line as it comes."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(FTC + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=child_env(), cwd=ROOT, start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        self.err: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stderr:
            self.err.append(line)
            self.lines.put(line.rstrip("\n"))

    def progress_line(self, seconds: float = 30.0) -> re.Match:
        """The next progress line (failing the test if none comes within ``seconds``)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            match = PROGRESS.match(line)
            if match:
                return match
        self.kill()
        pytest.fail(f"no progress line within {seconds} s: {''.join(self.err)!r}")

    def finish(self, seconds: float):
        """(exit status, stdout, stderr) once it exits; fails the test if it runs ``seconds`` more."""
        try:
            self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"still running {seconds} s after the signal")
        out = self.proc.stdout.read()
        self._reader.join(timeout=10)
        return self.proc.returncode, out, "".join(self.err)

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


@pytest.mark.parametrize("extra", [[], ["--divide"], ["--threads", "2"]], ids=["plain", "divide", "threads2"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_a_deep_perft_at_once(sig, extra):
    run = Running(DEEP + extra)
    run.progress_line()                 # counting (after ~1 s; the handlers are in place by then)
    time.sleep(0.5)
    sent = time.monotonic()
    run.proc.send_signal(sig)
    code, out, err = run.finish(seconds=10)
    took = time.monotonic() - sent
    assert code == 128 + sig, err
    assert took < 2.0, f"{took:.2f} s from {sig.name} to the exit"
    assert "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    match = re.fullmatch(rf"ftc: perft stopped after (\d+) nodes, 0 root orders counted in full "
                         rf"\(interrupted by {sig.name}\)", last)
    assert match and int(match.group(1)) > 1_000_000, last
    assert "Nodes searched" not in out and not out.strip(), out


def test_progress_comes_from_inside_the_first_root_order():
    """Deep subtrees report nodes as they are counted: two progress lines, both before any root
    order is done, the second with more nodes."""
    run = Running(DEEP)
    try:
        first = run.progress_line()
        second = run.progress_line()
    finally:
        run.kill()
    assert first.group(1) == second.group(1) == "0"
    nodes = [int(m.group(2).replace(",", "")) for m in (first, second)]
    assert 0 < nodes[0] < nodes[1], nodes


def test_progress_lines_are_a_few_a_second_at_most():
    run = Running(DEEP)
    try:
        run.progress_line()
        start = time.monotonic()
        count = 0
        while time.monotonic() - start < 2.0:
            run.progress_line()
            count += 1
    finally:
        run.kill()
    assert count <= 2.0 / 0.5 + 1, count


def test_no_progress_without_a_terminal_unless_asked():
    run = Running(["perft", "startpos", "8"])
    time.sleep(2.5)
    run.proc.send_signal(signal.SIGINT)
    code, _, err = run.finish(seconds=10)
    assert code == 130
    assert err.startswith("ftc: perft stopped after") and len(err.strip().splitlines()) == 1, err
