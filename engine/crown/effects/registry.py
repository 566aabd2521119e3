"""The registry of card effect behaviours: ``@steps(card name, effect index)`` registers a step
function, ``@playable(card name, effect index)`` a precondition; decoders of the choices a step
function is resumed with. The effect modules register into it; engine/crown/effects/__init__.py
imports them all and answers the driver's questions (has_steps, can_play, run_effect)."""

from __future__ import annotations

from collections.abc import Callable

from engine.crown import actions as A

__all__ = ["steps", "playable", "decode_card", "decode_square", "decode_unit", "REGISTRY", "PRECONDITIONS"]

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


def _argument(action: int, kind: int) -> int:
    assert not A.is_order(action) and A.kind_of(action) == kind, action
    return A.argument(action)


def decode_card(action: int) -> int:
    """The card id of a "card" choice."""
    return _argument(action, A.K_CARD)


def decode_square(action: int) -> int:
    """The square of a "square" choice (actions.BARRACKS_SQUARE for the Barracks)."""
    return _argument(action, A.K_SQUARE)


def decode_unit(action: int) -> int:
    """The unit type of a "unit" choice."""
    return _argument(action, A.K_UNIT)
