"""The players every game has: ``Bot``, the interface a player of any registered game implements
(``choose(state)`` an action of ``state.legal_actions()``; ``reset()``; ``choose_within(state,
seconds)``), and ``RandomBot``, a seeded uniform choice among the legal actions. A game's own players
(engine/search/bots.py for For the Crown, engine/ransom/players.py for King's Ransom) build on them.

>>> from engine.games import registry
>>> state = registry.new_state("kings-ransom", {"seed": 1})
>>> RandomBot(7).choose(state) in state.legal_actions()
True
"""

from __future__ import annotations

import random

from engine.games.protocol import GameStateProtocol

__all__ = ["Bot", "RandomBot", "parse_count", "parse_seconds"]


class Bot:
    """A player: ``choose(state)`` returns one of ``state.legal_actions()`` for the player to decide."""

    name = "bot"

    def choose(self, state: GameStateProtocol) -> int:
        raise NotImplementedError

    def reset(self) -> None:
        """A new game starts."""

    def choose_within(self, state: GameStateProtocol, seconds: float) -> int:
        """``choose``, but never thinking longer than ``seconds`` (bots with a search cap their own
        budget; the others are fast anyway)."""
        return self.choose(state)


class RandomBot(Bot):
    """A uniformly random legal action, seeded: the same seed plays the same game."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state: GameStateProtocol) -> int:
        return self.rng.choice(state.legal_actions())


def parse_count(arg: str, default: int) -> int:
    """The integer budget of a bot spec's argument ("ismcts:800", "alphabeta:4"), ``default`` when
    empty; a ValueError when it is not an integer >= 1."""
    value = int(arg) if arg else default
    if value < 1:
        raise ValueError(arg)
    return value


def parse_seconds(arg: str) -> float:
    """The seconds of a bot spec's argument written ``<seconds>s`` ("alphabeta:0.5s"); a ValueError
    when it is not a positive finite number followed by "s"."""
    value = float(arg[:-1])
    if not 0 < value < float("inf"):
        raise ValueError(arg)
    return value
