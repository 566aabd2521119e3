"""King's Ransom work on several processes (engine.execution): the same results as in one."""

from engine.ransom.selfplay import run_ransom_selfplay
from engine.search.match import run_match


def test_a_match_is_the_same_on_two_workers():
    config = {"variant": "kings-ransom"}
    alone = run_match("greedy", "random", 4, seed=9, config=config, cluster="local", workers=1)
    pair = run_match("greedy", "random", 4, seed=9, config=config, cluster="local", workers=2)
    assert alone.outcomes == pair.outcomes and alone.turns == pair.turns


def test_selfplay_is_the_same_on_two_workers():
    alone = run_ransom_selfplay(12, seed=5, workers=1)
    pair = run_ransom_selfplay(12, seed=5, workers=2)
    assert (alone.games, alone.decisions, alone.errors, alone.violations) == (pair.games, pair.decisions, 0, 0)
    assert alone.results == pair.results
