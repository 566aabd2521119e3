"""Building blocks shared by the effect modules: asking for an order, a unit, a square, a card.
Use these before writing a new helper in an effect module (one concept, one place)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import Frame, GameCore
from engine.crown.effects.registry import decode_square
from engine.notation import square_name
from engine.position import Order

__all__ = ["order_options", "ask_order", "play_order", "square_options", "unit_options", "ask_hand_card",
           "foot", "has_class", "sovereign", "free_move", "unit_then", "orders_ignoring_flags"]


def has_class(g: GameCore, square: int, cls: str) -> bool:
    unit = g.board.unit_on(square)
    return unit is not None and tk.unit_has_class(g, unit[0], cls)


def foot(g: GameCore, square: int) -> bool:
    return has_class(g, square, "Foot")


def order_options(g: GameCore, player: int, kinds: Iterable[str] = ("march", "attack"),
                  unit_filter: Callable[[int], bool] | None = None, cylindrical: bool = False,
                  order_filter: Callable[[Order], bool] | None = None) -> dict[int, str]:
    """Orders of ``player``'s units that are not yet ordered this turn: only ``kinds``, only units
    (by origin square) passing ``unit_filter``, only orders passing ``order_filter``."""
    kinds = tuple(kinds)
    options = {}
    for order in tk.board_orders(g, player, cylindrical, include_deploys="deploy" in kinds):
        if order.kind not in kinds:
            continue
        if unit_filter is not None and order.origin is not None and not unit_filter(order.origin):
            continue
        if order_filter is not None and not order_filter(order):
            continue
        options[order.code] = order.text()
    return options


def ask_order(g: GameCore, f: Frame, options: dict[int, str], prompt: str, next_step: int, optional: bool = False):
    """Ask for one of ``options`` (board orders); with ``optional`` the player may decline (DONE).
    Returns None when there is nothing to choose and the step is not optional (5.0: an impossible
    instruction is ignored)."""
    if optional:
        options = dict(options)
        options[A.DONE] = "decline"
    if not options:
        return None
    return tk.ask(g, f, f.player, options, prompt, next_step)


def play_order(g: GameCore, player: int, action: int, mark: bool = True) -> Order:
    """Apply a board-order action chosen from order_options; the unit counts as ordered."""
    order = Order.from_code(action, g.units)
    tk.apply_board_order(g, player, order, mark)
    return order


def square_options(squares: Iterable[int], label: str) -> dict[int, str]:
    """One option per square: ``label`` is formatted with {square}."""
    return {A.square(sq): label.format(square=square_name(sq)) for sq in squares}


def unit_options(g: GameCore, squares: Iterable[int], label: str = "{unit} on {square}") -> dict[int, str]:
    options = {}
    for sq in squares:
        unit = g.board.unit_on(sq)
        options[A.square(sq)] = label.format(unit=g.unit_name(unit[0]), square=square_name(sq))
    return options


def ask_hand_card(g: GameCore, f: Frame, prompt: str, next_step: int, predicate=None, optional: bool = False):
    options = tk.hand_choices(g, f.player, predicate)
    if optional:
        options[A.DONE] = "none"
    if not options:
        return None
    return tk.ask(g, f, f.player, options, prompt, next_step, zone="hand")


def orders_ignoring_flags(g: GameCore, player: int, flags: Iterable[int], cylindrical: bool = False,
                          include_deploys: bool = False) -> list[Order]:
    """``tk.board_orders(g, player)`` as if ``player``'s units had none of the status ``flags``
    (state.ST_ORDERED / ST_BANNED): for moves that are not orders of the owner (Fog is an action,
    7.0 / 13.0; False Orders and Wanderlust move enemy units whose own ban does not bind the card's
    player). The flags are lifted on the real board only while generating, then restored (the key
    returns to its value), so the Last Stand guard and filter of board_orders still apply."""
    lifted = [(sq, flag) for sq in tk.units_of(g, player) for flag in flags if g.board.has_status(sq, flag)]
    for sq, flag in lifted:
        g.board.set_status(sq, flag, False)
    try:
        return tk.board_orders(g, player, cylindrical, include_deploys)
    finally:
        for sq, flag in lifted:
            g.board.set_status(sq, flag, True)


def sovereign(g: GameCore, square: int) -> bool:
    return has_class(g, square, "Sovereign")


def unit_then(g: GameCore, f: Frame, choice, units: Callable[[], list[int]],
              options_for: Callable[[int], dict[int, str]], unit_prompt: str, second_prompt: str):
    """Steps 0-1 of ``f``: pick one of the player's units among ``units()`` that has at least one
    follow-up option, then one of ``options_for(square)``. Returns the Ask while choosing, None
    when no unit qualifies (nothing happens, 5.0), and (unit square, chosen action) at step 2."""
    if f.step == 0:
        candidates = [sq for sq in units() if options_for(sq)]
        if not candidates:
            return None
        return tk.ask(g, f, f.player, unit_options(g, candidates), unit_prompt, next_step=1)
    if f.step == 1:
        first = decode_square(choice)
        f.data["first"] = first
        return tk.ask(g, f, f.player, options_for(first), second_prompt, next_step=2)
    return f.data["first"], choice


def free_move(g: GameCore, f: Frame, choice, units: Callable[[], list[int]],
              destinations: Callable[[int], list[int]], unit_prompt: str, square_prompt: str,
              mark: bool, square_label: str = "{origin} to {square}"):
    """Move one of the player's units to a square of the effect's choosing, ignoring its movement
    (Consort, Aviary, Bivouac, Secret Trails): pick a unit among ``units()`` (each with at least
    one destination), then one of ``destinations(origin)``; with ``mark`` the unit counts as
    ordered (an order card, 6.0). ``square_label`` names each destination ({unit}, {origin}, {square})."""
    def options_for(origin: int) -> dict[int, str]:
        label = square_label.format(unit=g.unit_name(g.board.unit_on(origin)[0]), origin=square_name(origin),
                                    square="{square}")
        return square_options(destinations(origin), label)

    step = unit_then(g, f, choice, units, options_for, unit_prompt, square_prompt)
    if not isinstance(step, tuple):
        return step
    origin, action = step
    dest = decode_square(action)
    g.board.move_unit(origin, dest)
    if mark:
        tk.mark_ordered(g, dest)
    return None
