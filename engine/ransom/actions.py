"""King's Ransom's integer actions: the one place they are encoded and decoded.

A move is the kernel's order code (engine/codes.py, below ``codes.ORDER_LIMIT``); the other steps
of a turn are choices above it:

==================  ==============================  ==========================================
action              value                           meaning
==================  ==============================  ==========================================
move                kernel order code               step 2 (G4), the card's chess move
flip                FLIP + square                   step 1: turn the card on ``square`` face up
promote             PROMOTE + type                  G5: exchange the Pawn for that Discard card
keep                PROMOTE + KEEP                  G5: the Pawn stays
play                PLAY + type * 64 + square       step 3: that card face down on ``square``
discard             DISCARD + type                  step 3: discard that card from the Hand
==================  ==============================  ==========================================

At a chance node (a card dealt or drawn) the outcome is the card's type id.
"""

from __future__ import annotations

from engine import codes

__all__ = ["FLIP", "PROMOTE", "KEEP", "PLAY", "DISCARD", "flip", "promote", "play", "discard", "decode"]

FLIP = codes.ORDER_LIMIT * 2
PROMOTE = FLIP + 64
KEEP = 63
PLAY = FLIP + 128
_TYPES = 64
DISCARD = PLAY + _TYPES * 64


def flip(square: int) -> int:
    return FLIP + square


def promote(t: int | None) -> int:
    """Promotion to type ``t``; None: keep the Pawn."""
    return PROMOTE + (KEEP if t is None else t)


def play(t: int, square: int | None) -> int:
    """Play ``t`` onto ``square``; None: discard it."""
    return DISCARD + t if square is None else PLAY + t * 64 + square


def decode(action: int) -> tuple:
    """("move", code) | ("flip", square) | ("promote", type or None) | ("play", type, square) |
    ("discard", type); ValueError for anything else."""
    if 0 <= action < codes.ORDER_LIMIT:
        return ("move", action)
    if FLIP <= action < FLIP + 64:
        return ("flip", action - FLIP)
    if PROMOTE <= action < PROMOTE + 64:
        t = action - PROMOTE
        return ("promote", None if t == KEEP else t)
    if PLAY <= action < DISCARD:
        t, sq = divmod(action - PLAY, 64)
        return ("play", t, sq)
    if DISCARD <= action < DISCARD + _TYPES:
        return ("discard", action - DISCARD)
    raise ValueError(f"{action} is not a King's Ransom action")


def discard(t: int) -> int:
    return DISCARD + t
