"""The players every game has: ``Bot``, the interface a player of any registered game implements
(``choose(state)`` an action of ``state.legal_actions()``; ``reset()``; ``choose_within(state,
seconds)``), and ``RandomBot``, a seeded uniform choice among the legal actions. A game's own players
(engine/crown/players.py for For the Crown, engine/ransom/players.py for King's Ransom) build on them.

>>> from engine.games import registry
>>> state = registry.new_state("kings-ransom", {"seed": 1})
>>> RandomBot(7).choose(state) in state.legal_actions()
True
"""

from __future__ import annotations

import random

from engine.games.protocol import GameStateProtocol

__all__ = ["Bot", "RandomBot", "parse_count", "parse_seconds", "BOT_WORDS", "DEPTH_BOTS", "describe_spec"]


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


#: What the players named in every game's specs are, in words for people (the web board's opponent
#: menus): a game's entry may say it otherwise for its own (``Game.bots.bot_words``).
BOT_WORDS = {"random": "random moves", "greedy": "greedy", "expert": "expert rules", "ismcts": "full AI",
             "mcts": "full AI", "alphabeta": "alpha-beta search"}
#: The players whose integer budget is a depth in plies; any other's counts iterations of its search.
DEPTH_BOTS = frozenset({"alphabeta"})


def describe_spec(spec: str, words: dict[str, str] | None = None) -> str:
    """A bot spec in words for people: its player by ``words`` (else BOT_WORDS, else its own name),
    then its budget, if any.

    >>> describe_spec("ismcts:0.5s"), describe_spec("alphabeta:4"), describe_spec("ismcts:800")
    ('full AI, 0.5 s a decision', 'alpha-beta search, 4 plies deep', 'full AI, 800 iterations a decision')
    >>> describe_spec("greedy"), describe_spec("alphabeta", {"alphabeta": "a chess search"})
    ('greedy', 'a chess search')
    """
    name, _, budget = spec.partition(":")
    what = (words or {}).get(name) or BOT_WORDS.get(name, name)
    if not budget:
        return what
    if budget.endswith("s"):
        return f"{what}, {budget[:-1]} s a decision"
    return f"{what}, {budget} {'plies deep' if name in DEPTH_BOTS else 'iterations a decision'}"
