"""Crownfall's baseline players: ``random`` (engine.games.bots.RandomBot) and ``greedy``: each action
judged by the position one action later (tracks first, then the table: regions, Towers, Ruins, the
largest ley network, mana), ties broken by the seeded generator. Search and the expert bot are a later
stage (issue 27)."""

from __future__ import annotations

import random

from engine.crownfall.core import CrownfallCore
from engine.games.bots import Bot, RandomBot

__all__ = ["BOT_NAMES", "GreedyBot", "make_bot", "position_value"]

BOT_NAMES = ("random", "greedy")


def position_value(g: CrownfallCore, p: int) -> float:
    """A quick worth of the table for p: points on the tracks weigh most."""
    return (10.0 * sum(g.tracks[p]) + 3.0 * len(g.controlled(p)) + 2.0 * len(g.towers_of(p))
            + 2.0 * len(g.ruins_of(p)) + 1.5 * g.network_size(p) + 0.5 * g.mana[p]
            + 2.0 * (g.owner(g.rules.map.keep) == p))


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state) -> int:
        p = state.current_player()
        best, choices = None, []
        for a in state.legal_actions():
            child = state.clone()
            child.auto_chance = False           # judge the table before any draw
            child.apply(a)
            v = (child.returns()[p] * 1000.0 if child.is_terminal() else 0.0) + position_value(child, p)
            if best is None or v > best + 1e-9:
                best, choices = v, [a]
            elif abs(v - best) <= 1e-9:
                choices.append(a)
        return self.rng.choice(choices)


def make_bot(spec: str, seed: int = 0) -> Bot:
    if spec == "random":
        return RandomBot(seed)
    if spec == "greedy":
        return GreedyBot(seed)
    raise ValueError(f"unknown bot {spec!r} for crownfall; known: {', '.join(BOT_NAMES)}")
