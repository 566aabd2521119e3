"""Card effect behaviours, registered by card name and effect index (0 = first printed effect).

The printed numbers of an effect (gold, +orders, +actions, +buys, draws: engine/data/cards.toml) are
applied by engine/game/phases.py before the effect's steps run, and its draws happen first. An effect
that does more registers a *step function*::

    @steps("Vigilance", 0)
    def vigilance(g: GameState, f: Frame, choice: int | None):
        if f.step == 0:                      # first call: choice is None
            return g.ask(f, f.player, g.hand_choices(f.player), "put a card on your Deck", next_step=1)
        card = decode_card(choice)           # resumed with the chosen action
        ...                                  # returning None ends the effect

A step function returns an Ask (from ``g.ask``), CONTINUE (after ``g.queue_draw`` /
``g.queue_reveal`` with a next step), or None when the effect is done. It keeps what it must
remember in ``f.data`` (immutable values only), never in closures, so a state can be cloned at any
decision. ``@playable(name, index)`` registers a precondition for effects the rules forbid playing
when impossible (Quartermaster's two empty squares, Heir's unthreatened square).

Modules: one per family of effects (orders that move units, deck manipulation, treasures, ...).
"""

from __future__ import annotations

from typing import Callable

__all__ = ["steps", "playable", "run_effect", "has_steps", "can_play", "decode_card", "decode_square",
           "decode_unit", "REGISTRY"]

REGISTRY: dict[tuple[str, int], Callable] = {}
PRECONDITIONS: dict[tuple[str, int], Callable] = {}


def steps(card_name: str, index: int):
    def register(fn):
        key = (card_name, index)
        if key in REGISTRY:
            raise ValueError(f"effect {card_name} #{index} registered twice")
        REGISTRY[key] = fn
        return fn

    return register


def playable(card_name: str, index: int):
    def register(fn):
        PRECONDITIONS[(card_name, index)] = fn
        return fn

    return register


def has_steps(card: int, index: int, g) -> bool:
    return (g.cards.cards[card].name, index) in REGISTRY


def can_play(g, player: int, card: int, index: int) -> bool:
    check = PRECONDITIONS.get((g.cards.cards[card].name, index))
    return check is None or bool(check(g, player))


def run_effect(g, frame, choice):
    return REGISTRY[(g.cards.cards[frame.card].name, frame.index)](g, frame, choice)


def decode_card(action: int) -> int:
    from engine.game import actions as A

    kind, arg = A.decode(action)
    assert kind == A.K_CARD, action
    return arg


def decode_square(action: int) -> int:
    from engine.game import actions as A

    kind, arg = A.decode(action)
    assert kind == A.K_SQUARE, action
    return arg


def decode_unit(action: int) -> int:
    from engine.game import actions as A

    kind, arg = A.decode(action)
    assert kind == A.K_UNIT, action
    return arg


# Importing the modules registers their effects.
from engine.game.effects import _all  # noqa: E402,F401
