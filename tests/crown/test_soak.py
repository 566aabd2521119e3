"""Seeded soak: 2,000 random full games (all variants, random Supplies with both boxes), every
invariant of engine/crown/selfplay.py checked after every decision. FTC_SOAK_GAMES scales it
(tools: `ftc selfplay --games 100000`).

The full soak is marked `soak`: a plain `pytest` runs 5% of it (the same seeds, so every variant and
option is still played), `pytest -m soak` runs all of it, and CI (.ci/run) runs both."""

import os

import pytest

from engine.crown.selfplay import run_selfplay

TOTAL = int(os.environ.get("FTC_SOAK_GAMES", "2000"))
SHARES = {"standard": 0.7, "point-buy": 0.15, "last-stand": 0.15}
QUICK = 0.05       # the share of the soak in the default run
SCALES = [pytest.param(QUICK, id="quick"), pytest.param(1.0, id="full", marks=pytest.mark.soak)]
PARTS = 4          # a variant's full soak comes in parts (the same games), so `pytest -n 2` shares it out
VARIANT_CASES = [pytest.param(variant, QUICK, 0, 1, id=f"{variant}-quick") for variant in SHARES] + [
    pytest.param(variant, 1.0, part, PARTS, id=f"{variant}-full-{part + 1}of{PARTS}", marks=pytest.mark.soak)
    for variant in SHARES for part in range(PARTS)]


@pytest.mark.parametrize("variant, scale, part, parts", VARIANT_CASES)
def test_random_games_keep_every_invariant(variant, scale, part, parts):
    total = max(1, round(TOTAL * scale * SHARES[variant]))
    first, last = part * total // parts, (part + 1) * total // parts     # game i has the seed base + i
    games = last - first
    stats = run_selfplay(games, seed=10_000 * (1 + list(SHARES).index(variant)) + first, variant=variant)
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
