"""engine/execution.py: seeded units run anywhere give the same results in unit order; a lost
worker's unit runs again and counts once; a failing unit names itself. (Ray: tests/test_execution_ray.py.)"""

import os
import random

import pytest

from engine.execution import Cluster, ClusterError, UnitFailed, parse_cluster, run_units


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
