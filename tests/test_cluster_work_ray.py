"""Matches, self-play and perft on a real local Ray (2 CPUs): the same results as in-process; and
`ftc match --cluster ray` (a child process joining this Ray through RAY_ADDRESS) ends on the line
`--cluster local` ends on. Skipped when Ray is not installed (the `ray` extra)."""

import subprocess

import pytest

from engine import Position
from engine.crown.selfplay import run_selfplay
from engine.execution import Cluster
from engine.perft import divide, divide_on_cluster
from engine.search.match import run_match
from tests.support import FTC, ROOT, child_env
from tests.test_cluster_work import MATCH, PERFTS, SELFPLAY, games, match_in_process, stats_of

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module (starting one takes seconds); run_units joins it. Yields its
    address, for child processes (RAY_ADDRESS)."""
    from engine.execution_ray import ray_session

    with ray_session(Cluster("ray"), workers=2) as connected:
        yield connected.get_runtime_context().gcs_address


def test_a_match_on_ray_is_the_match_in_process(local_ray):
    seen = []
    result = run_match(**MATCH, cluster="ray", progress=lambda r: seen.append(r.games))
    assert games(result) == games(match_in_process())
    assert seen == list(range(1, MATCH["games"] + 1))


def test_perft_on_ray_is_position_perft(local_ray):
    for text, depth, cylindrical, workers in PERFTS:
        counts = divide_on_cluster(text, depth, cylindrical, cluster="ray", workers=workers)
        assert counts == divide(text, depth, cylindrical), text
        assert sum(counts.values()) == Position.from_text(text).perft(depth, cylindrical), text


def test_selfplay_on_ray_is_selfplay_in_process(local_ray, tmp_path):
    on_ray = run_selfplay(**SELFPLAY, cluster="ray", workers=None, records=tmp_path)
    assert stats_of(on_ray) == stats_of(run_selfplay(**SELFPLAY))
    assert len(list(tmp_path.iterdir())) == SELFPLAY["games"]          # the records the workers sent back


def test_the_match_command_ends_on_the_same_line_on_ray_and_locally(local_ray):
    argv = ["match", "--a", "greedy", "--b", "random", "--games", "6", "--seed", "3", "--max-turns", "40"]
    env = child_env() | {"RAY_ADDRESS": local_ray}
    lines = {}
    for cluster in ("local", "ray"):
        done = subprocess.run(FTC + argv + ["--cluster", cluster, "--workers", "2"], capture_output=True, text=True,
                              env=env, cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr
        lines[cluster] = done.stdout.strip().splitlines()
    assert lines["ray"][-1] == lines["local"][-1]
    assert lines["local"][-1].startswith("A wins ")
    assert lines["ray"][0].rsplit(", ", 1)[0] == lines["local"][0].rsplit(", ", 1)[0]      # all but the seconds


@pytest.mark.parametrize("name", ["crown", "kings-ransom", "crusade", "crownfall"])
def test_records_of_every_game_come_back_from_ray_to_the_calling_process(local_ray, tmp_path, name):
    """`--records DIR` on Ray (issue 42): the workers send each record back and this process writes
    the same files as a run in process (engine/games/recordfiles.py)."""
    from engine.games.registry import get
    from engine.games.selfplay import run_protocol_selfplay

    for cluster, workers in (("local", 1), ("ray", None)):
        run_protocol_selfplay(name, 3, seed=2, check=False, cluster=cluster, workers=workers,
                              records=tmp_path / f"selfplay-{cluster}")
        config = {"variant": "standard", "max_turns": 40} if name == "crown" else {"variant": get(name).name}
        run_match("greedy", "random", 2, seed=1, config=config, cluster=cluster, workers=workers,
                  records=tmp_path / f"match-{cluster}")
    for kind in ("selfplay", "match"):
        here, there = tmp_path / f"{kind}-local", tmp_path / f"{kind}-ray"
        names = sorted(p.name for p in here.iterdir())
        assert names == sorted(p.name for p in there.iterdir())
        assert names == (["game-2.json", "game-3.json", "game-4.json"] if kind == "selfplay" else
                         ["match-0.json", "match-1.json", "matches.jsonl"])
        assert all((here / n).read_bytes() == (there / n).read_bytes() for n in names)


def test_the_match_command_writes_its_records_on_ray(local_ray, tmp_path):
    env = child_env() | {"RAY_ADDRESS": local_ray}
    done = subprocess.run(FTC + ["match", "--game", "crownfall", "--a", "greedy", "--b", "random", "--games", "2",
                                 "--cluster", "ray", "--records", str(tmp_path / "games")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["match-0.json", "match-1.json", "matches.jsonl"]
