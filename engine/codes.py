"""The one home of the kernel's integer encodings: the fields of an order code, the order kinds and
the per-unit status flags. Every other module reads codes through these functions and names; a test
(tests/test_architecture.py) fails when code elsewhere does bit arithmetic on codes, and
tests/test_codes.py checks every field against the kernel's own decoder (ext/_board.pxd).

An order is one ``uint32`` (ext/_board.pxd, ``encode_order``)::

    bits  0-5   destination square (deploy square, Oracle target, Spy partner)
    bits  6-11  origin square (unused by deploys)
    bits 12-17  unit type ordered (catalog id)
    bits 18-23  promotion type + 1 (0: no promotion)
    bits 24-26  kind (MARCH, ATTACK, DEPLOY, SHOOT, SWAP)

Every order code is below ``ORDER_LIMIT`` (2**27); the full game's other decisions are encoded above
it (engine/crown/actions.py, from ``CHOICE_BASE`` = 2**28).

>>> code = encode_order(MARCH, origin=12, dest=28, unit=0)
>>> order_kind(code), order_origin(code), order_dest(code), order_unit(code), order_promotion(code)
(0, 12, 28, 0, -1)
>>> KIND_NAMES[order_kind(encode_order(DEPLOY, origin=0, dest=40, unit=3))]
'deploy'
"""

from __future__ import annotations

__all__ = [
    "MARCH", "ATTACK", "DEPLOY", "SHOOT", "SWAP", "KIND_NAMES", "ORDER_LIMIT",
    "ST_ORDERED", "ST_BANNED", "ST_IMMUNE_BLUE", "ST_IMMUNE_YELLOW", "ST_MOURNED", "N_STATUS", "STATUS_LETTERS",
    "encode_order", "decode_order", "order_kind", "order_origin", "order_dest", "order_unit", "order_promotion",
    "order_moves_unit_to_dest", "without_promotion", "order_unit_square", "immune_flag", "squares",
    "unit_code", "unit_code_square", "unit_code_type", "unit_code_colour", "unit_code_mirrored",
]

# Order kinds (ext/_board.pxd KIND_*).
MARCH, ATTACK, DEPLOY, SHOOT, SWAP = range(5)
KIND_NAMES = ("march", "attack", "deploy", "shoot", "swap")

#: Every order code is below this.
ORDER_LIMIT = 1 << 27

_DEST, _ORIGIN, _UNIT, _PROMO, _KIND = 0, 6, 12, 18, 24
_SQUARE_MASK = 63
_KIND_MASK = 7

# Per-unit status flags (ext/_board.pxd ST_*): each is a set of squares that moves with its unit.
ST_ORDERED = 0          # ordered this turn (6.0), or the turn of its Mourning ban (RULINGS C20)
ST_BANNED = 1           # may not be ordered by its owner (False Orders)
ST_IMMUNE_BLUE = 2      # cannot be captured until Blue's next turn starts (C6)
ST_IMMUNE_YELLOW = 3    # cannot be captured until Yellow's next turn starts
ST_MOURNED = 4          # next to a unit Mourning captured (C16, C20): banned in the next turn
N_STATUS = 5
#: Letters of the flags in position text (RULINGS A3 ``status:`` field), by flag index.
STATUS_LETTERS = "onwbm"


def encode_order(kind: int, origin: int, dest: int, unit: int, promotion: int = -1) -> int:
    """The code of an order (``promotion`` -1: none). Codes the kernel did not generate are not
    legal by construction: this is for tests and tables, not for playing."""
    return dest | (origin << _ORIGIN) | (unit << _UNIT) | ((promotion + 1) << _PROMO) | (kind << _KIND)


def order_kind(code: int) -> int:
    return (code >> _KIND) & _KIND_MASK


def order_dest(code: int) -> int:
    return code & _SQUARE_MASK


def order_origin(code: int) -> int:
    """The ordered unit's square (meaningless for a deploy)."""
    return (code >> _ORIGIN) & _SQUARE_MASK


def order_unit(code: int) -> int:
    """The catalog id of the ordered (or deployed) unit type."""
    return (code >> _UNIT) & _SQUARE_MASK


def order_promotion(code: int) -> int:
    """The catalog id of the promotion type, -1 for none."""
    return ((code >> _PROMO) & _SQUARE_MASK) - 1


def decode_order(code: int) -> tuple[int, int, int, int, int]:
    """(kind, origin, destination, unit type, promotion type or -1), as the kernel's decoder."""
    return order_kind(code), order_origin(code), order_dest(code), order_unit(code), order_promotion(code)


def without_promotion(code: int) -> int:
    """The code with its promotion field cleared (one code per unit, origin and destination)."""
    return code & ~(_SQUARE_MASK << _PROMO)


def order_moves_unit_to_dest(code: int) -> bool:
    """Whether a unit ends on the destination square (march, attack, deploy); a shoot captures
    there without moving and a swap moves a friendly unit away from it."""
    return order_kind(code) not in (SHOOT, SWAP)


def order_unit_square(code: int) -> int:
    """Where the ordered unit stands after the order: its origin for a shoot, else the destination."""
    return order_origin(code) if order_kind(code) == SHOOT else order_dest(code)


def immune_flag(until_turn_of: int) -> int:
    """The status flag "cannot be captured until ``until_turn_of``'s next turn" (0 Blue, 1 Yellow)."""
    return ST_IMMUNE_BLUE if until_turn_of == 0 else ST_IMMUNE_YELLOW


# Units as the learned evaluation's data sees them (engine/board/nnue.py, docs/nnue.md): one
# integer per unit, ``square | type << 6 | colour << 12`` (colour 0 Blue, 1 Yellow). The functions
# work on ints and on numpy integer arrays alike.
_UNIT_TYPE, _UNIT_COLOUR = 6, 12


def unit_code(square: int, unit_type: int, colour: int) -> int:
    """The code of a unit of ``unit_type`` and ``colour`` on ``square``."""
    return square | (unit_type << _UNIT_TYPE) | (colour << _UNIT_COLOUR)


def unit_code_square(code):
    return code & _SQUARE_MASK


def unit_code_type(code):
    return (code >> _UNIT_TYPE) & 63


def unit_code_colour(code):
    return code >> _UNIT_COLOUR


def unit_code_mirrored(code):
    """The same unit on the square mirrored file for file (a <-> h, rank kept): ``square ^ 7``."""
    return code ^ 7


def squares(bits: int):
    """The squares of a bitboard, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low
