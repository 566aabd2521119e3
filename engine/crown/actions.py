"""Integer actions of the full game (OpenSpiel style): one id space for every decision, stable across
states, so search can key statistics by action.

- A board order is its kernel code (below 2**27; ext/_board.pxd explains the bits).
- Every other decision is ``CHOICE_BASE + (kind << 20) + argument``.
"""

from __future__ import annotations

from engine import codes
from engine.notation import square_name

__all__ = [
    "CHOICE_BASE", "DONE", "RESIGN", "play", "buy", "barracks", "card", "square", "unit_type", "yes", "no", "number",
    "decode", "is_order", "kind_of", "argument", "play_card", "play_effect", "BARRACKS_SQUARE", "KIND_NAMES",
    "fields", "CARD_ZONES", "square_text",
]

CHOICE_BASE = 1 << 28
assert codes.ORDER_LIMIT <= CHOICE_BASE

_KIND_SHIFT = 20
_ARG_MASK = (1 << _KIND_SHIFT) - 1

K_DONE, K_PLAY, K_BUY, K_CARD, K_SQUARE, K_UNIT, K_YESNO, K_NUMBER, K_RESIGN = range(9)
#: The name of each kind of choice (``fields``' "type"; a board order is "order").
KIND_NAMES = ("done", "play", "buy", "card", "square", "unit", "yesno", "number", "resign")
#: The place a "card" choice takes its card from (``fields``' "zone"): "name" is a card named, not
#: taken from anywhere (Wish, Secret Mission).
CARD_ZONES = ("hand", "supply", "discard", "played", "deck", "revealed", "trash", "name")
#: The argument of ``barracks()``: "the Barracks" where a square is asked for.
BARRACKS_SQUARE = 64

def _choice(kind: int, argument: int) -> int:
    return CHOICE_BASE + (kind << _KIND_SHIFT) + argument


#: End the phase, stop choosing, decline an optional step.
DONE = _choice(K_DONE, 0)

#: A player resigns. Never among the legal actions: ``GameState.resign`` takes it at any moment of
#: the game (whoever is to decide), and records keep it as the step ``[player, RESIGN]``.
RESIGN = _choice(K_RESIGN, 0)


def play(card_id: int, effect_index: int) -> int:
    """Play a card from the hand for one of its two effects."""
    return _choice(K_PLAY, 2 * card_id + effect_index)


def buy(card_id: int) -> int:
    return _choice(K_BUY, card_id)


#: "The Barracks" where a square is asked for and the Barracks is also a place (set-up picks).
def barracks() -> int:
    return _choice(K_SQUARE, BARRACKS_SQUARE)


def card(card_id: int) -> int:
    """Choose a card (from a hand, the Supply, or a name to say)."""
    return _choice(K_CARD, card_id)


def square(sq: int) -> int:
    return _choice(K_SQUARE, sq)


def unit_type(t: int) -> int:
    """Choose a unit type (a Barracks unit, a type to train or promote to)."""
    return _choice(K_UNIT, t)


def yes() -> int:
    return _choice(K_YESNO, 1)


def no() -> int:
    return _choice(K_YESNO, 0)


def number(n: int) -> int:
    return _choice(K_NUMBER, n)


def is_order(action: int) -> bool:
    return action < CHOICE_BASE


def decode(action: int) -> tuple[int, int]:
    """(kind, argument) of a non-order action."""
    rest = action - CHOICE_BASE
    return rest >> _KIND_SHIFT, rest & _ARG_MASK


def kind_of(action: int) -> int:
    """K_* of a non-order action."""
    return (action - CHOICE_BASE) >> _KIND_SHIFT


def argument(action: int) -> int:
    """The argument of a non-order action (card id, square, unit type, number, ...)."""
    return (action - CHOICE_BASE) & _ARG_MASK


def play_card(action: int) -> int:
    """The card id of a ``play`` action."""
    return argument(action) >> 1


def play_effect(action: int) -> int:
    """The effect index (0 first printed, 1 second) of a ``play`` action."""
    return argument(action) & 1


def fields(action: int, cards, units, zone: str | None = None) -> dict:
    """What an action is, as data (a board draws it, a client reads it): ``{"type": ...}`` with

    - "order": "order_kind" (march, attack, deploy, shoot, swap), "unit" (token), "origin" (square
      index, None for a deploy), "dest" (square index), "promotion" (token or None);
    - "play": "card" (name), "effect" (0 or 1); "buy": "card"; "card": "card" and "zone" (where the
      card comes from, one of CARD_ZONES, when the decision says);
    - "square": "square" (index; None for the Barracks); "unit": "unit" (token);
    - "yesno": "yes" (bool); "number": "number"; "done"; "resign".

    ``cards`` and ``units`` are the game's catalogs (GameState.cards, GameState.units).

    >>> from engine.catalog import default_catalog
    >>> from engine.crown.cards import default_cards
    >>> fields(buy(default_cards()["Armor"].id), default_cards(), default_catalog())
    {'type': 'buy', 'card': 'Armor'}
    """
    if is_order(action):
        kind, origin, dest, unit, promotion = codes.decode_order(action)
        return {"type": "order", "order_kind": codes.KIND_NAMES[kind], "unit": units.units[unit].token,
                "origin": None if kind == codes.DEPLOY else origin, "dest": dest,
                "promotion": units.units[promotion].token if promotion >= 0 else None}
    kind, arg = decode(action)
    item: dict = {"type": KIND_NAMES[kind]}
    if kind == K_PLAY:
        item["card"] = cards.cards[arg >> 1].name
        item["effect"] = arg & 1
    elif kind == K_BUY:
        item["card"] = cards.cards[arg].name
    elif kind == K_CARD:
        item["card"] = cards.cards[arg].name
        item["zone"] = zone
    elif kind == K_SQUARE:
        item["square"] = None if arg == BARRACKS_SQUARE else arg
    elif kind == K_UNIT:
        item["unit"] = units.units[arg].token
    elif kind == K_YESNO:
        item["yes"] = bool(arg)
    elif kind == K_NUMBER:
        item["number"] = arg
    return item


def square_text(sq: int) -> str:
    """A square choice's square as text ("the Barracks" for BARRACKS_SQUARE)."""
    return "the Barracks" if sq == BARRACKS_SQUARE else square_name(sq)
