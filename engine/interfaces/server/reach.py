"""Where each unit type may go: the unit alone on an empty board, its march, capture and swap squares
exactly as the kernel generates them (the web board's "how to play" diagrams; ``GET /api/units/reach``,
docs/server.md).

Nothing here describes a movement by hand: every square comes from the kernel's order generator
(``BoardCore.generate_for``) run on the catalog's own movement specs, on the flat board and in Compass
mode (16.0: the a- and h-files join).

- march: the squares an order of kind march reaches on the empty board (the unit's own square when it
  may end where it started, as the Phantom and the Warlord may);
- attack: the squares it captures on by moving there, an enemy stand-in placed on each in turn;
- shoot: the squares it captures on without moving (the Oracle's ``x`` terms), the same way;
- swap: the squares of friendly units it may swap places with, a friendly stand-in on each in turn.

A unit whose movement depends on its rank (a term with ``i``: the Pawn's double step from the first
or second rank) is shown from its own second rank, so the diagram shows that step too; every other
unit from the fourth rank. The flat diagram stands on the d-file, the Compass one on the b-file,
near the edge, so the wrap shows. A given ``square`` is used for every unit and both modes.
"""

from __future__ import annotations

from functools import lru_cache

from engine import _position
from engine.catalog import Catalog, UnitType
from engine.codes import MARCH, SHOOT, SWAP, decode_order, squares
from engine.movespec import MODE_INITIAL
from engine.notation import BLUE, YELLOW, PositionData, parse_square, square_name
from engine.position import load_core

__all__ = ["unit_reach", "catalog_reach", "default_squares"]

#: Where a unit stands in the diagrams when no square is given: (flat, Compass) squares on its own
#: fourth rank, or on its second rank when a term of its spec depends on the rank (``i``).
_FLAT_FILE, _COMPASS_FILE = 3, 1          # d, b
_RANK, _INITIAL_RANK = 3, 1               # the fourth rank; the second


def _first_move_term(unit: UnitType) -> bool:
    return any(x.modes & MODE_INITIAL for x in unit.compiled.leaps + unit.compiled.rides)


def default_squares(unit: UnitType) -> tuple[int, int]:
    """The (flat, Compass) squares a unit is drawn from when no square is given."""
    rank = _INITIAL_RANK if _first_move_term(unit) else _RANK
    return rank * 8 + _FLAT_FILE, rank * 8 + _COMPASS_FILE


def _blank(catalog: Catalog, units: dict[int, tuple[int, int]]) -> _position.BoardCore:
    core = _position.BoardCore(catalog.tables)
    empty = [0] * len(catalog)
    load_core(core, PositionData(units=units, barracks=[list(empty), list(empty)], stock=list(empty)))
    return core


def _orders_from(core: _position.BoardCore, square: int, cylindrical: bool) -> list[tuple[int, int]]:
    """(kind, dest) of every order of Blue's unit on ``square``."""
    out = []
    for code in core.generate_for(BLUE, cylindrical):
        kind, origin, dest, _unit, _promotion = decode_order(code)
        if origin == square:
            out.append((kind, dest))
    return out


def unit_reach(catalog: Catalog, unit: UnitType, square: int, cylindrical: bool) -> dict:
    """Blue's ``unit`` alone on ``square`` of an empty board: ``{square, march, attack, shoot, swap}``,
    each a sorted list of square names (a1..h8)."""
    # What stands on a probed square: the catalog's first type, as in the kernel's own threat probe
    # (BoardCore.unit_attacks); the type of the unit captured or swapped with does not change the order.
    stand_in = 0
    alone = _blank(catalog, {square: (unit.id, BLUE)})
    march = {dest for kind, dest in _orders_from(alone, square, cylindrical) if kind == MARCH}
    # Every square it captures on, however (moving there, passing through it in a charge, B12, or
    # without moving, B13): the kernel's threat probe, an enemy stand-in on each square in turn.
    attack, shoot, swap = set(), set(), set()
    for target in squares(alone.unit_attacks(square, cylindrical)):
        # Which kind of order captures there: moving onto it, or shooting it from where it stands.
        enemy = _blank(catalog, {square: (unit.id, BLUE), target: (stand_in, YELLOW)})
        kinds = {kind for kind, dest in _orders_from(enemy, square, cylindrical) if dest == target}
        (shoot if SHOOT in kinds else attack).add(target)
    for target in range(64):
        if target == square:
            continue
        friend = _blank(catalog, {square: (unit.id, BLUE), target: (stand_in, BLUE)})
        if (SWAP, target) in _orders_from(friend, square, cylindrical):
            swap.add(target)
    return {"square": square_name(square), "march": _names(march), "attack": _names(attack),
            "shoot": _names(shoot), "swap": _names(swap)}


def _names(squares: set[int]) -> list[str]:
    return [square_name(sq) for sq in sorted(squares)]


# One entry per square and one for the default squares (65 at most: the square is parsed first), so
# no sequence of requests makes the server compute one twice.
@lru_cache(maxsize=65)
def _catalog_reach(catalog: Catalog, square: int | None) -> tuple:
    out = []
    for unit in catalog.units:
        flat_sq, compass_sq = default_squares(unit) if square is None else (square, square)
        out.append({"token": unit.token, "name": unit.name, "moves": unit.moves, "cylindrical": unit.cylindrical,
                    "flat": unit_reach(catalog, unit, flat_sq, False),
                    "compass": unit_reach(catalog, unit, compass_sq, True)})
    return tuple(out)


def catalog_reach(catalog: Catalog, square: str | None = None) -> list[dict]:
    """Every unit type's reach (``unit_reach``) flat and in Compass mode, from ``square`` (a1..h8) or
    from each unit's default squares (``default_squares``). A bad square raises ValueError naming it."""
    sq = None if square is None else parse_square(square)
    return [dict(entry) for entry in _catalog_reach(catalog, sq)]
