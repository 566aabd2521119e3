"""Crusade & Conquer's players: "random" (engine.games.bots.RandomBot), "greedy": a move that ends
the game at once (a Flag Bearer onto the X, RULINGS H8b, or a mate in one, H8a) first, else the
capture of the most valuable piece (the catalog's prices, PROVISIONAL), else any move; ties are
broken by its seeded generator; and "alphabeta" (engine/crusade/search.py): "alphabeta" (depth 4),
"alphabeta:N" (plies), "alphabeta:0.1s" (seconds per move).

>>> from engine.crusade.state import CrusadeState
>>> make_bot("greedy", 1).choose(CrusadeState()) in CrusadeState().legal_actions()
True
"""

from __future__ import annotations

import random

from engine.crusade.search import alphabeta_bot
from engine.games.bots import Bot, RandomBot
from engine.quiet import shown

__all__ = ["BOT_NAMES", "GreedyBot", "make_bot"]

BOT_NAMES = ("random", "greedy", "alphabeta")
#: What a move that wins at once is worth to the greedy bot: more than any capture.
WIN = 1_000_000


class GreedyBot(Bot):
    """The winning move, else the most valuable capture, else a random move (module docstring)."""

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def score(self, state, action: int) -> int:
        """A move that wins at once: WIN; a capture: the captured piece's price; else 0."""
        child = state.clone()
        child.apply(action)
        if child.winner == state.current_player():
            return WIN
        captured = state.action_fields(action)["capture"]
        if captured is None:
            return 0
        return next(u.price for u in state.pos.catalog.units if u.token == captured)

    def choose(self, state) -> int:
        legal = state.legal_actions()
        scores = [self.score(state, a) for a in legal]
        best = max(scores)
        return self.rng.choice([a for a, s in zip(legal, scores) if s == best])


def make_bot(spec: str, seed: int = 0) -> Bot:
    """A player by spec ("random", "greedy", "alphabeta", "alphabeta:4", "alphabeta:0.1s"); a
    ValueError names the known ones, or what is wrong with a budget."""
    if not isinstance(spec, str):
        raise ValueError(f"a player spec must be a string, got {type(spec).__name__}")
    name, colon, arg = spec.partition(":")
    if spec == "random":
        return RandomBot(seed)
    if spec == "greedy":
        return GreedyBot(seed)
    if name == "alphabeta":
        try:
            return alphabeta_bot(arg)
        except ValueError:
            raise ValueError(f"player {shown(spec)}: {shown(arg)} is not a budget (a depth as an integer >= 1, or "
                             "seconds like 0.1s)") from None
    raise ValueError(f"unknown Crusade & Conquer player {shown(spec)}; known: {', '.join(BOT_NAMES)} "
                     "(e.g. alphabeta:4, alphabeta:0.1s)")
