"""engine/execution.py: seeded units run anywhere give the same results in unit order; a lost
worker's unit runs again and counts once; a failing unit names itself. (Ray: tests/test_execution_ray.py.)"""

import contextlib
import os
import random
import signal
import struct
import subprocess
import sys
import time

import pytest

from engine import execution
from engine.execution import Cluster, ClusterError, UnitFailed, parse_cluster, run_units
from tests.support import ROOT, child_env, ctrl_c_raises, sigint_as_at_a_terminal


def seeded_sum(seed: int, n: int) -> int:
    rng = random.Random(seed)
    return sum(rng.randrange(1000) for _ in range(n))


def die_once(index: int, marker_dir: str) -> int:
    """Unit ``index``; unit 3 kills its worker process the first time it runs."""
    marker = os.path.join(marker_dir, f"ran-{index}")
    first = not os.path.exists(marker)
    with open(marker, "a") as f:
        f.write("x")
    if index == 3 and first:
        os._exit(9)
    return index * index


def always_die(index: int) -> int:
    os._exit(9)


def half_sent(index: int, marker_dir: str, then: str) -> int:
    """Unit ``index``; unit 0, the first time it runs, sends the pool the first bytes of a result
    message of 1 MiB (a worker killed while its result went down the pipe) and then dies
    (``then="die"``) or waits (``then="wait"``, until killed), having noted ``sent``."""
    marker = os.path.join(marker_dir, f"ran-{index}")
    first = not os.path.exists(marker)
    with open(marker, "a") as f:
        f.write("x")
    if index == 0 and first:
        frame = sys._getframe()
        while "result_queue" not in frame.f_locals:         # the worker loop of concurrent.futures
            frame = frame.f_back
        writer = frame.f_locals["result_queue"]._writer
        os.write(writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 100)   # a header and 100 bytes
        open(os.path.join(marker_dir, "sent"), "w").close()
        if then == "die":
            os._exit(9)
        time.sleep(600)
    return index * index


def sleeper(index: int, marker_dir: str) -> int:
    """A unit that notes its worker's process id and then runs for ten minutes."""
    with open(os.path.join(marker_dir, f"pid-{index}"), "w") as f:
        f.write(str(os.getpid()))
    time.sleep(600)
    return index


def boom(index: int) -> int:
    if index == 2:
        raise ValueError("bad unit")
    return index


UNITS = [(seed, 2000) for seed in range(12)]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_results_are_in_unit_order_whatever_the_workers(workers):
    expected = [seeded_sum(*unit) for unit in UNITS]
    seen = []
    results = run_units(seeded_sum, UNITS, workers=workers, progress=lambda done, total, i, r: seen.append((done, i, r)))
    assert results == expected
    assert [d for d, _, _ in seen] == list(range(1, len(UNITS) + 1))          # one call per unit
    assert sorted(i for _, i, _ in seen) == list(range(len(UNITS)))
    assert all(expected[i] == r for _, i, r in seen)


def test_a_lost_worker_s_unit_runs_again_and_counts_once(tmp_path):
    results = run_units(die_once, [(i, str(tmp_path)) for i in range(8)], workers=2)
    assert results == [i * i for i in range(8)]
    assert (tmp_path / "ran-3").read_text() == "xx"                            # it ran twice, counted once


def _run_half_sent(folder, then: str) -> subprocess.Popen:
    script = ("import sys; from engine.execution import run_units; from tests.test_execution import half_sent; "
              f"print(run_units(half_sent, [(i, {str(folder)!r}, {then!r}) for i in range(4)], workers=2))")
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=child_env(), cwd=ROOT, start_new_session=True, preexec_fn=sigint_as_at_a_terminal)


def _finish(child: subprocess.Popen, seconds: float) -> tuple[bytes, bytes]:
    try:
        return child.communicate(timeout=seconds)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()


def test_a_worker_that_dies_while_sending_its_result_is_a_lost_worker_not_a_hang(tmp_path):
    # The pool waits for the rest of the message and never sees the death: the run must notice the
    # stuck pool, start a new one and run the unit again (in a child: the bug hangs for ever).
    child = _run_half_sent(tmp_path, "die")
    out, err = _finish(child, 120)
    assert child.returncode == 0, err
    assert out.decode().strip() == "[0, 1, 4, 9]"
    assert (tmp_path / "ran-0").read_text() == "xx"                            # it ran twice, counted once


def test_ctrl_c_ends_a_run_whose_worker_was_killed_while_sending_its_result(tmp_path):
    # Ctrl-C kills the workers, one of them half way through its result: the command must end, not
    # wait at exit for the pool's reader (the CI failure of stop 48: `ftc selfplay` never ended).
    child = _run_half_sent(tmp_path, "wait")
    deadline = time.monotonic() + 60
    while not (tmp_path / "sent").exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.poll() is None and (tmp_path / "sent").exists()
    time.sleep(0.2)
    child.send_signal(signal.SIGINT)
    out, err = _finish(child, 60)
    assert child.returncode not in (0, None) and b"KeyboardInterrupt" in err, err


def test_kill_pool_returns_with_the_pool_s_threads_ended(tmp_path):
    # The CI failure of stop 52: after a Ctrl-C the interpreter's exit hook of concurrent.futures
    # woke the pool's manager thread while that thread was closing its wake-up pipe ("Exception
    # ignored ... Bad file descriptor"). With the thread ended before kill_pool returns, the hook
    # finds the pipe closed and does nothing.
    import concurrent.futures
    import threading
    before = set(threading.enumerate())
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=2)
    futures = [pool.submit(sleeper, i, str(tmp_path)) for i in range(3)]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"pid-{i}").exists() for i in range(2)) and time.monotonic() < deadline:
        time.sleep(0.05)
    execution.kill_pool(pool)
    assert set(threading.enumerate()) - before == set()
    assert all(f.done() for f in futures)
    for i in range(2):
        pid = int((tmp_path / f"pid-{i}").read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_ctrl_c_during_a_pool_run_is_handed_on_between_looks_not_inside_the_executor():
    # Held while the pool runs, so that no KeyboardInterrupt lands inside concurrent.futures (a lock
    # of its futures taken and never given back: a command that never ends); raised at the next look.
    seen = []

    def progress(done, total, index, result):
        if done == 1:
            os.kill(os.getpid(), signal.SIGINT)
        seen.append(done)

    before = signal.getsignal(signal.SIGINT)
    with ctrl_c_raises(), pytest.raises(KeyboardInterrupt):
        run_units(seeded_sum, UNITS, workers=2, progress=progress)
    assert seen[:1] == [1]
    assert signal.getsignal(signal.SIGINT) is before


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:                # a zombie (not yet reaped by init) is gone
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_sigterm_ends_a_run_with_its_workers(tmp_path):
    # SIGTERM's default ends the command; its worker processes must not run on (before: each ran its
    # unit to the end, here ten minutes, with no one to hand the result to).
    script = ("from engine.execution import run_units; from tests.test_execution import sleeper; "
              f"run_units(sleeper, [(i, {str(tmp_path)!r}) for i in range(2)], workers=2)")
    child = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL, env=child_env(), cwd=ROOT,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("pid-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [int(p.read_text()) for p in tmp_path.glob("pid-*")]
        assert len(workers) == 2
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == -signal.SIGTERM
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers), "a worker runs on after its command ended"
    finally:
        for pid in [int(p.read_text()) for p in tmp_path.glob("pid-*") if p.read_text()]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)


def test_a_unit_whose_worker_always_dies_fails_after_the_retries():
    with pytest.raises(UnitFailed, match="worker was lost 2 times"):
        run_units(always_die, [(i,) for i in range(3)], workers=2, retries=1)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_unit_that_raises_names_itself(workers):
    with pytest.raises(UnitFailed, match="unit 2: ValueError: bad unit") as info:
        run_units(boom, [(i,) for i in range(5)], workers=workers)
    assert info.value.index == 2


@pytest.mark.parametrize("spec, expected", [
    ("local", Cluster("local")), ("ray", Cluster("ray")), ("ray://10.0.0.5:10001", Cluster("ray", "ray://10.0.0.5:10001")),
])
def test_cluster_values(spec, expected):
    assert parse_cluster(spec) == expected


@pytest.mark.parametrize("spec", ["", "Local", "ray:", "ray://", "ray://host", "ray://host:0", "ray://host:70000",
                                  "http://host:1", "ray://a b:1"])
def test_bad_cluster_values_are_named(spec):
    with pytest.raises(ClusterError, match="--cluster"):
        parse_cluster(spec)


def test_bad_workers_and_retries():
    with pytest.raises(ValueError, match="workers"):
        run_units(pow, [(1, 1)], workers=0)
    with pytest.raises(ValueError, match="retries"):
        run_units(pow, [(1, 1)], retries=-1)


def test_without_ray_a_ray_cluster_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)          # `import ray` fails as if not installed
    with pytest.raises(ClusterError, match=r"needs Ray.*pip install -e '\.\[ray\]'"):
        run_units(pow, [(2, 2)], cluster="ray")


@pytest.mark.parametrize("leader, group, written", [
    (True, "/autogroup-7 nice 0\n", "10\n"),       # its own session: the group is raised with it
    (True, "/autogroup-7 nice 15\n", None),        # never lowered
    (False, "/autogroup-7 nice 0\n", None),        # another's session (a terminal's shell): left alone
])
def test_a_loop_leading_its_session_lowers_its_scheduler_group_too(tmp_path, monkeypatch, leader, group, written):
    """With Linux's autogroups the CPU is shared between sessions first: a niceness alone left a loop
    started with setsid half of a 2-core machine against a match at nice 0 (seen on this project's
    machine: the loop's two workers at nice 19 took 35% of a core each)."""
    path = tmp_path / "autogroup"
    path.write_text(group)
    monkeypatch.setattr(execution.os, "nice", lambda increment: 10)
    monkeypatch.setattr(execution.os, "getsid", lambda pid: 4242 if leader else 1)
    monkeypatch.setattr(execution.os, "getpid", lambda: 4242)
    execution.lower_priority(10, autogroup=path)
    assert path.read_text() == (written or group)


def test_without_autogroups_lowering_the_priority_is_quiet(tmp_path, monkeypatch):
    monkeypatch.setattr(execution.os, "nice", lambda increment: 10)
    monkeypatch.setattr(execution.os, "getsid", lambda pid: execution.os.getpid())
    execution.lower_priority(10, autogroup=tmp_path / "missing")      # no such file: nothing to do, no error

