"""Matches, self-play and perft as units of engine/execution.py on this machine's processes: the
same results as in-process, whatever the workers; a worker killed mid-match changes nothing.
(The same on a real Ray: tests/test_cluster_work_ray.py; the CLI: tests/interfaces/test_cli_cluster.py.)"""

import multiprocessing
import os
import signal

import pytest

from engine import NAMED_POSITIONS, Position
from engine.crown.players import make_bot
from engine.crown.selfplay import SelfPlayStats, run_selfplay
from engine.perft import PerftProgress, divide, divide_on_cluster
from engine.search.match import play_match, run_match

#: greedy vs random from the start of a full game: outcomes and lengths vary from game to game.
MATCH = dict(a_spec="greedy", b_spec="random", games=12, seed=5, config={"max_turns": 40}, opening_plies=2)

#: (position text, depth, cylindrical, workers): orthodox, a Barracks with deploys (Fairy-Stockfish's
#: tests/data/perft_fairy.epd: D3 7930), Compass mode, and one with 3 root orders (a lone King in the
#: corner), where the workers outnumber the root orders and the units are pairs of orders.
PERFTS = [
    (NAMED_POSITIONS["startpos"], 3, False, 1),
    (NAMED_POSITIONS["startpos"], 3, False, 2),
    ("4k3/8/8/8/8/8/8/4K3[NZCe] w - - 0 1 promote:NBRQZCDHMEAT", 3, False, 2),
    ("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", 3, True, 2),
    ("4k3/4r3/8/8/8/8/8/K7[n] w - - 0 1", 4, False, 5),
]

SELFPLAY = dict(games=6, seed=11, supply="first-game", max_turns=40)


def match_in_process():
    """The match of MATCH played by play_match, the in-process reference."""
    m = MATCH
    return play_match(lambda s: make_bot(m["a_spec"], s), lambda s: make_bot(m["b_spec"], s), m["games"], m["seed"],
                      m["config"], opening_plies=m["opening_plies"])


def games(result):
    return result.outcomes, result.turns, (result.wins, result.draws, result.losses)


def stats_of(stats):
    return stats.games, stats.decisions, stats.errors, stats.violations, dict(stats.results), stats.messages


@pytest.fixture(scope="module")
def reference_match():
    result = match_in_process()
    assert len(set(result.turns)) > 3, "the reference match should have games of several lengths"
    return result


@pytest.mark.parametrize("workers", [1, 2])
def test_a_match_is_the_same_on_any_worker_count(workers, reference_match):
    seen = []
    result = run_match(**MATCH, workers=workers, progress=lambda r: seen.append(r.games))
    assert games(result) == games(reference_match)
    assert seen == list(range(1, MATCH["games"] + 1))          # counted as they finish


def test_a_worker_killed_mid_match_changes_nothing(reference_match):
    killed = []

    def kill_a_worker(result):
        if not killed:                       # after the first game: the other worker is busy with one
            victim = multiprocessing.active_children()[0]
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(victim.pid)

    result = run_match(**MATCH, workers=2, progress=kill_a_worker)
    assert killed
    assert games(result) == games(reference_match)


@pytest.mark.parametrize("text, depth, cylindrical, workers", PERFTS)
def test_perft_on_units_is_position_perft(text, depth, cylindrical, workers):
    reports = []
    counts = divide_on_cluster(text, depth, cylindrical, workers=workers, progress=reports.append)
    assert counts == divide(text, depth, cylindrical)                  # per root order, in generation order
    assert sum(counts.values()) == Position.from_text(text).perft(depth, cylindrical)
    finished = [r.finished for r in reports if r.finished]
    assert sorted(finished) == sorted(counts.items())                  # each root order once, when complete
    assert all(isinstance(r, PerftProgress) and r.counted == "units" for r in reports)
    last = max(reports, key=lambda r: r.roots_done)
    assert last.roots_done == last.roots_total and last.nodes == sum(counts.values())
    if workers > len(counts):
        assert last.roots_total > len(counts)                         # split into pairs of orders


def test_selfplay_statistics_are_the_same_on_any_worker_count(tmp_path):
    one = run_selfplay(**SELFPLAY, records=tmp_path / "one")
    two = run_selfplay(**SELFPLAY, records=tmp_path / "two", workers=2)
    assert one.games == SELFPLAY["games"] and one.decisions > 0
    assert stats_of(two) == stats_of(one)
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == [f"game-{SELFPLAY['seed'] + i}.json" for i in range(SELFPLAY["games"])]
    assert all((tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes() for name in names)


def test_merged_statistics_keep_seed_order():
    first, second = SelfPlayStats(games=2, decisions=10, errors=1, messages=["seed 1: x"]), SelfPlayStats(
        games=1, decisions=5, violations=2, messages=["seed 3: y"])
    first.results["draw"] = 2
    second.results["draw"] = 1
    first.merge(second)
    assert stats_of(first) == (3, 15, 1, 2, {"draw": 3}, ["seed 1: x", "seed 3: y"])
