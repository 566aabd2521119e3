"""Seeded soak: 2,000 random full games (all variants, random Supplies with both boxes), every
invariant of engine/game/selfplay.py checked after every decision. FTC_SOAK_GAMES scales it
(tools: `ftc selfplay --games 100000`).

The full soak is marked `soak`: a plain `pytest` runs 5% of it (the same seeds, so every variant and
option is still played), `pytest -m soak` runs all of it, and CI (.ci/run) runs both."""

import os

import pytest

from engine.game.selfplay import run_selfplay

TOTAL = int(os.environ.get("FTC_SOAK_GAMES", "2000"))
QUICK = 0.05       # the share of the soak in the default run
SCALES = [pytest.param(QUICK, id="quick"), pytest.param(1.0, id="full", marks=pytest.mark.soak)]
SHARES = {"standard": 0.7, "point-buy": 0.15, "last-stand": 0.15}


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("variant", list(SHARES))
def test_random_games_keep_every_invariant(variant, scale):
    games = max(1, round(TOTAL * scale * SHARES[variant]))
    stats = run_selfplay(games, seed=10_000 * (1 + list(SHARES).index(variant)), variant=variant)
    assert stats.games == games
    assert stats.errors == 0 and stats.violations == 0, "\n".join(stats.messages[:20])
    assert sum(stats.results.values()) == games and "unfinished" not in stats.results


@pytest.mark.parametrize("scale", SCALES)
def test_point_buy_behind_a_screen_keeps_every_invariant(scale):
    games = max(1, round(TOTAL * scale * 0.05))
    stats = run_selfplay(games, seed=90_000, variant="point-buy", secret_picks=True)
    assert stats.errors == 0 and stats.violations == 0, "\n".join(stats.messages[:20])


@pytest.mark.parametrize("scale", SCALES)
def test_combined_starters_and_extra_turns_keep_every_invariant(scale):
    """C15 and C18: both optional starters in one Deck and extra turns (11.4) for both players."""
    games = max(1, round(TOTAL * scale * 0.05))
    stats = run_selfplay(games, seed=95_000, starters=("squire+parchment", "squire"), extra_turns=(2, 1))
    assert stats.errors == 0 and stats.violations == 0, "\n".join(stats.messages[:20])
