"""Integer actions of the full game (OpenSpiel style): one id space for every decision, stable across
states, so search can key statistics by action.

- A board order is its kernel code (below 2**27; ext/_board.pxd explains the bits).
- Every other decision is ``CHOICE_BASE + (kind << 20) + argument``.
"""

from __future__ import annotations

__all__ = [
    "CHOICE_BASE", "DONE", "RESIGN", "play", "buy", "barracks", "card", "square", "unit_type", "yes", "no", "number",
    "decode", "is_order",
]

CHOICE_BASE = 1 << 28

K_DONE, K_PLAY, K_BUY, K_CARD, K_SQUARE, K_UNIT, K_YESNO, K_NUMBER, K_RESIGN = range(9)

#: End the phase, stop choosing, decline an optional step.
DONE = CHOICE_BASE + (K_DONE << 20)

#: A player resigns. Never among the legal actions: ``GameState.resign`` takes it at any moment of
#: the game (whoever is to decide), and records keep it as the step ``[player, RESIGN]``.
RESIGN = CHOICE_BASE + (K_RESIGN << 20)


def play(card_id: int, effect_index: int) -> int:
    """Play a card from the hand for one of its two effects."""
    return CHOICE_BASE + (K_PLAY << 20) + 2 * card_id + effect_index


def buy(card_id: int) -> int:
    return CHOICE_BASE + (K_BUY << 20) + card_id


#: "The Barracks" where a square is asked for and the Barracks is also a place (set-up picks).
def barracks() -> int:
    return CHOICE_BASE + (K_SQUARE << 20) + 64


def card(card_id: int) -> int:
    """Choose a card (from a hand, the Supply, or a name to say)."""
    return CHOICE_BASE + (K_CARD << 20) + card_id


def square(sq: int) -> int:
    return CHOICE_BASE + (K_SQUARE << 20) + sq


def unit_type(t: int) -> int:
    """Choose a unit type (a Barracks unit, a type to train or promote to)."""
    return CHOICE_BASE + (K_UNIT << 20) + t


def yes() -> int:
    return CHOICE_BASE + (K_YESNO << 20) + 1


def no() -> int:
    return CHOICE_BASE + (K_YESNO << 20)


def number(n: int) -> int:
    return CHOICE_BASE + (K_NUMBER << 20) + n


def is_order(action: int) -> bool:
    return action < CHOICE_BASE


def decode(action: int) -> tuple[int, int]:
    """(kind, argument) of a non-order action."""
    rest = action - CHOICE_BASE
    return rest >> 20, rest & ((1 << 20) - 1)
