"""Full-game speed: random games and decisions per second (pytest-benchmark, not in the default run:
`pytest bench/ --benchmark-only`)."""

import random

import pytest

from engine.game.config import GameConfig
from engine.game.state import GameState

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
