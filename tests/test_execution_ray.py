"""engine/execution.py on a real local Ray (2 CPUs, as on the CI machine): the same results as on
this machine's processes, in unit order; a killed worker's unit runs again and counts once; a unit
that raises names itself. Skipped when Ray is not installed (the `ray` extra)."""

import pytest

from engine.execution import UnitFailed, run_units
from tests.test_execution import UNITS, boom, die_once, seeded_sum

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")


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


def test_a_unit_that_raises_names_itself_and_is_not_retried(local_ray):
    with pytest.raises(UnitFailed, match="unit 2: ValueError: bad unit"):
        run_units(boom, [(i,) for i in range(5)], cluster="ray")
