"""ISMCTS speed: iterations per second on a mid-game state of the card game (pytest-benchmark, not in
the default run: `pytest bench/ --benchmark-only`). Scaling with processes: tools/ismcts_scaling.py."""

import random

import pytest

from engine.crown.config import GameConfig
from engine.crown.pieces import BoardEvaluator, HeuristicPlayout
from engine.crown.state import GameState
from engine.search.ismcts import ISMCTS, RandomPlayout

pytestmark = pytest.mark.benchmark

ITERATIONS = 300


def midgame_state(seed: int = 1, decisions: int = 150) -> GameState:
    """A seeded random game stopped after ``decisions`` decisions (turn ~50, both armies trained)."""
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    for _ in range(decisions):
        g.apply(rng.choice(g.legal_actions()))
    assert not g.is_terminal()
    return g


SEARCHERS = {
    "heuristic playout, 2-turn cutoff + board eval": lambda: ISMCTS(
        iterations=ITERATIONS, playout=HeuristicPlayout(), evaluator=BoardEvaluator(), max_playout_turns=2),
    "random playout, 2-turn cutoff + board eval": lambda: ISMCTS(
        iterations=ITERATIONS, playout=RandomPlayout(), evaluator=BoardEvaluator(), max_playout_turns=2),
    "random playout to the end of the game": lambda: ISMCTS(iterations=ITERATIONS // 3, playout=RandomPlayout()),
}


@pytest.mark.parametrize("name", SEARCHERS)
def test_ismcts_iterations_per_second(benchmark, name):
    g = midgame_state()
    searcher = SEARCHERS[name]()
    stats = benchmark(searcher.search, g)
    assert stats.iterations == searcher.iterations
    benchmark.extra_info["iterations"] = stats.iterations
    benchmark.extra_info["iterations_per_second"] = round(stats.iterations / benchmark.stats.stats.mean)
