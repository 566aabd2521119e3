"""Full-game speed: random games, clones, legal actions with and without texts (pytest-benchmark, not
in the default run: `pytest bench/ --benchmark-only`). Before/after a change in one run:
tools/compare_versions.py."""

import random

import pytest

from engine.crown.config import GameConfig
from engine.crown.state import GameState

pytestmark = pytest.mark.benchmark


def random_game(seed: int) -> int:
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    decisions = 0
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
        decisions += 1
    return decisions


def test_random_full_game(benchmark):
    seeds = iter(range(10**9))
    decisions = benchmark(lambda: random_game(next(seeds)))
    assert decisions > 0


def test_clone_midgame(benchmark):
    rng = random.Random(1)
    g = GameState(GameConfig(seed=1))
    for _ in range(150):
        g.apply(rng.choice(g.legal_actions()))
    clone = benchmark(g.clone)
    assert clone.legal_actions() == g.legal_actions()


def _decision_states(seed: int = 7) -> list[GameState]:
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    states = []
    while not g.is_terminal():
        states.append(g.clone())
        g.apply(rng.choice(g.legal_actions()))
    return states


def test_legal_actions_without_texts(benchmark):
    states = _decision_states()
    benchmark(lambda: [s.legal_actions() for s in states])
    benchmark.extra_info["decisions"] = len(states)


def test_legal_actions_with_texts(benchmark):
    """Texts are made on demand (action_text): naming every option of every decision."""
    states = _decision_states()
    texts = benchmark(lambda: [s.legal_action_texts() for s in states])
    assert all(texts) and all(isinstance(t, str) for d in texts for t in d.values())
    benchmark.extra_info["decisions"] = len(states)
