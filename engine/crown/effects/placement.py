"""Action effects that put units somewhere (13.0 Consort, Evangelism, Fog, Subterfuge; 17.0 Bivouac,
Vantage).

These are actions, not orders (7.0): they may move units that were already ordered this turn or
are banned from orders, and they mark nothing as ordered. Units placed by them on the eighth rank are
not promoted (6.0: only a march or attack promotes).
"""

from __future__ import annotations

from engine.codes import ST_BANNED, ST_ORDERED
from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import Frame, GameCore
from engine.crown.effects._common import (
    free_move,
    has_class,
    orders_ignoring_flags,
    sovereign,
    square_options,
    unit_options,
    unit_then,
)
from engine.crown.effects.registry import decode_square, decode_unit, steps
from engine.notation import BLUE, square_name
from engine.position import Order


def _empty(g: GameCore, square: int) -> bool:
    return not g.board.occupied() >> square & 1


def _classes(g: GameCore, t: int) -> frozenset:
    return frozenset(g.units.units[t].classes)


# -- Consort (13.0) -----------------------------------------------------------------------------
def _consort_squares(g: GameCore, player: int, square: int) -> list[int]:
    """Empty squares next to one of the player's Regal units other than the unit on ``square``."""
    targets = set()
    for regal in tk.units_of(g, player, "Regal"):
        if regal != square:
            targets.update(sq for sq in tk.adjacent(regal) if _empty(g, sq))
    return sorted(targets)


@steps("Consort", 0)
def consort(g: GameCore, f: Frame, choice):
    """13.0 Consort (action): place one of your non-Sovereign units on the board into an empty square
    adjacent to one of your Regal units (a Regal unit only next to a different Regal unit), ignoring
    movement. Ordered units may be chosen (it is an action)."""
    return free_move(g, f, choice, lambda: [sq for sq in tk.units_of(g, f.player) if not sovereign(g, sq)],
                     lambda sq: _consort_squares(g, f.player, sq), "choose a unit to place",
                     "choose a square next to a Regal unit", mark=False)


# -- Evangelism (13.0) --------------------------------------------------------------------------
def _evangelism_squares(g: GameCore, player: int) -> list[int]:
    return sorted({sq for pious in tk.units_of(g, player, "Pious") for sq in tk.adjacent(pious) if _empty(g, sq)})


@steps("Evangelism", 0)
def evangelism(g: GameCore, f: Frame, choice):
    """13.0 Evangelism (action): deploy a Pious unit from your Barracks to an empty square adjacent
    to one of your Pious units on the board; nothing happens without either (or with no such
    empty square)."""
    if f.step == 0:
        types = tk.barracks_types(g, f.player, "Pious", include_ordered=True)
        if not types or not _evangelism_squares(g, f.player):
            return None
        return tk.ask(g, f, f.player, {A.unit_type(t): g.unit_name(t) for t in types},
                     "choose a Pious unit in your Barracks", next_step=1)
    if f.step == 1:
        f.data["type"] = decode_unit(choice)
        return tk.ask(g, f, f.player, square_options(_evangelism_squares(g, f.player),
                                                 f"deploy {tk.unit_token(g, f.data['type'])}@{{square}}"),
                     "choose a square next to a Pious unit", next_step=2)
    g.board.deploy(f.player, f.data["type"], decode_square(choice))
    return None


# -- Fog (13.0) ---------------------------------------------------------------------------------
def _fog_marches(g: GameCore, player: int) -> list[Order]:
    """Marches of the player's Mounted units by their usual rules, including units ordered this turn
    or banned (13.0 Fog: an action, not an order). The kernel's generator skips flagged units, so the
    flags are lifted while generating (orders_ignoring_flags)."""
    return [o for o in orders_ignoring_flags(g, player, (ST_ORDERED, ST_BANNED))
            if o.kind == "march" and has_class(g, o.origin, "Mounted")]


@steps("Fog", 0)
def fog(g: GameCore, f: Frame, choice):
    """13.0 Fog (action): march one of your Mounted units following all its usual rules (no attack;
    a Phantom may null-march, B16). Not an order: ordered or banned units may be chosen and the unit
    is not marked ordered."""
    if f.step == 0:
        options = {o.code: o.text() for o in _fog_marches(g, f.player)}
        if not options:
            return None
        return tk.ask(g, f, f.player, options, "march a Mounted unit", next_step=1)
    tk.apply_board_order(g, f.player, Order.from_code(choice, g.units), mark=False)
    return None


# -- Subterfuge (13.0) --------------------------------------------------------------------------
def _subterfuge_partners(g: GameCore, player: int, square: int) -> dict[int, str]:
    """Swap partners of the unit on ``square``: another of the player's board units, or a type in his
    Barracks, sharing at least one class with it."""
    mine = _classes(g, g.board.unit_on(square)[0])
    options = {}
    for sq in tk.units_of(g, player):
        if sq != square and mine & _classes(g, g.board.unit_on(sq)[0]):
            options[A.square(sq)] = f"swap with {g.unit_name(g.board.unit_on(sq)[0])} on {square_name(sq)}"
    for t in tk.barracks_types(g, player, include_ordered=True):
        if mine & _classes(g, t):
            options[A.unit_type(t)] = f"swap with {g.unit_name(t)} in the Barracks"
    return options


@steps("Subterfuge", 0)
def subterfuge(g: GameCore, f: Frame, choice):
    """13.0 Subterfuge (action): swap two of your units that share at least one class; one of them
    may be in your Barracks (the board unit goes there, the Barracks unit takes its square). Two
    Barracks units swapping changes nothing, so at least one is on the board."""
    step = unit_then(g, f, choice, lambda: tk.units_of(g, f.player), lambda sq: _subterfuge_partners(g, f.player, sq),
                     "choose a unit to swap", "choose the unit to swap with")
    if not isinstance(step, tuple):
        return step
    first, choice = step
    kind, arg = A.decode(choice)
    if kind == A.K_SQUARE:
        g.board.swap_units(first, arg)          # each unit keeps its flags
    else:
        g.board.to_barracks(first)
        g.board.deploy(f.player, arg, first)
    return None


# -- Bivouac (17.0) -----------------------------------------------------------------------------
def _same_rank_empty(g: GameCore, square: int) -> list[int]:
    rank = square >> 3
    return [sq for sq in range(rank * 8, rank * 8 + 8) if _empty(g, sq)]


@steps("Bivouac", 0)
def bivouac(g: GameCore, f: Frame, choice):
    """17.0 Bivouac (action): move one of your non-Sovereign units to any empty square of the same
    rank, whatever its movement."""
    return free_move(g, f, choice, lambda: [sq for sq in tk.units_of(g, f.player) if not sovereign(g, sq)],
                     lambda sq: _same_rank_empty(g, sq), "choose a unit to move along its rank",
                     "choose the destination", mark=False)


# -- Vantage (17.0) -----------------------------------------------------------------------------
def _behind(square: int, player: int) -> int | None:
    """The square straight backward (toward the owner, glossary) of ``square``, if on the board."""
    dest = square - 8 if player == BLUE else square + 8
    return dest if 0 <= dest < 64 else None


@steps("Vantage", 0)
def vantage(g: GameCore, f: Frame, choice):
    """17.0 Vantage (action): +3 gold (card data); then one of your units (any, Sovereigns too) must
    move one square straight backward to an empty square, if any can; otherwise only the gold."""
    if f.step == 0:
        units = [sq for sq in tk.units_of(g, f.player)
                 if _behind(sq, f.player) is not None and _empty(g, _behind(sq, f.player))]
        if not units:
            return None
        return tk.ask(g, f, f.player, unit_options(g, units, "move {unit} on {square} backward"),
                     "move a unit one square backward", next_step=1)
    origin = decode_square(choice)
    g.board.move_unit(origin, _behind(origin, f.player))
    return None
