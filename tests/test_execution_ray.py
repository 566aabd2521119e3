"""engine/execution.py on a real local Ray (2 CPUs, as on the CI machine): the same results as on
this machine's processes, in unit order; a killed worker's unit runs again and counts once; a unit
that raises names itself, runs once, and the run it stops ends only once its other units are
stopped. Skipped when Ray is not installed (the `ray` extra)."""

import os
import time

import pytest

from engine.execution import UnitFailed, run_units
from tests.server.support import alive
from tests.test_execution import UNITS, die_once, seeded_sum

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")


def boom_counted(index: int, marker_dir: str) -> int:
    """Unit ``index``; unit 2 raises, and every run of it is counted in a file ("x" per run)."""
    if index == 2:
        with open(os.path.join(marker_dir, "ran-2"), "a") as f:
            f.write("x")
        raise ValueError("bad unit")
    return index


def stop_or_raise(index: int, marker_dir: str) -> int:
    """Unit 0 says it runs (its pid in a file) and runs until its worker is killed; unit 1 raises once
    unit 0 runs (so that unit 0 is running when the run fails)."""
    running = os.path.join(marker_dir, "running")
    if index == 0:
        with open(running + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(running + ".tmp", running)
        while True:
            time.sleep(0.05)
    for _ in range(1200):                        # at most a minute: unit 0 starts at once on the other CPU
        if os.path.exists(running):
            raise ValueError("bad unit")
        time.sleep(0.05)
    raise RuntimeError("unit 0 never started")


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module (starting one takes seconds); run_units joins it."""
    from engine.execution import Cluster
    from engine.execution_ray import ray_session

    with ray_session(Cluster("ray"), workers=2):
        yield


def test_the_same_results_as_local_in_unit_order(local_ray):
    seen = []
    results = run_units(seeded_sum, UNITS, cluster="ray", progress=lambda d, t, i, r: seen.append(i))
    assert results == run_units(seeded_sum, UNITS, workers=1)
    assert sorted(seen) == list(range(len(UNITS)))


def test_a_killed_worker_changes_nothing(local_ray, tmp_path):
    results = run_units(die_once, [(i, str(tmp_path)) for i in range(8)], cluster="ray")
    assert results == [i * i for i in range(8)]
    assert (tmp_path / "ran-3").read_text() == "xx"                            # it ran twice, counted once


def test_a_unit_that_raises_names_itself_and_is_not_retried(local_ray, tmp_path):
    with pytest.raises(UnitFailed, match="unit 2: ValueError: bad unit"):
        run_units(boom_counted, [(i, str(tmp_path)) for i in range(5)], cluster="ray")
    assert (tmp_path / "ran-2").read_text() == "x"                             # it ran once


def test_a_failed_run_ends_once_its_running_units_are_stopped(local_ray, tmp_path, monkeypatch):
    """A unit that raises stops the run: the units still running are cancelled and their workers
    killed (force), and run_units raises only once every task it started has ended (each has its
    final result), so that whoever stops the Ray session next (the CLI on its way out, this module's
    fixture) never does it while cancellations are under way."""
    started = []                                 # every task run_units starts (recorded around ray.remote)
    real_remote = ray.remote

    def recording_remote(*args, **kwargs):
        def make(fn):
            task = real_remote(*args, **kwargs)(fn)

            class Recorded:
                def remote(self, *unit):
                    started.append(task.remote(*unit))
                    return started[-1]

            return Recorded()

        return make

    monkeypatch.setattr(ray, "remote", recording_remote)
    with pytest.raises(UnitFailed, match="unit 1: ValueError: bad unit"):
        run_units(stop_or_raise, [(i, str(tmp_path)) for i in range(2)], cluster="ray")
    _, unfinished = ray.wait(started, num_returns=len(started), timeout=0)
    assert len(started) == 2 and unfinished == [], "run_units raised while a task it cancelled was still running"
    pid = int((tmp_path / "running").read_text())
    for _ in range(600):                         # its worker is killed (not only interrupted): at most a minute
        if not alive(pid):
            break
        time.sleep(0.1)
    assert not alive(pid), "unit 0's worker should have been killed"
