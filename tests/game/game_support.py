"""Small helpers shared by the card tests (imported by the test modules of this folder)."""

from engine.game import actions as A
from engine.notation import parse_square


def sq(name):
    return parse_square(name)


def card_id(g, name):
    return g.cards[name].id


cid = card_id


def play(g, name, index=0):
    """Play card ``name`` from the hand for effect ``index``."""
    g.apply(A.play(card_id(g, name), index))


def texts(g):
    return set(g.legal_action_texts().values())


def choose(g, text):
    g.apply_text(text)


def unit_at(g, name):
    """(token, colour) on a square, or None; tokens are the catalog's (uppercase) for both sides."""
    unit = g.board.unit_on(sq(name))
    return None if unit is None else (g.unit_token(unit[0]), unit[1])
