"""Order effects that bend the ordinary orders (13.0 False Orders and Wish; 17.0 Compass, Grimoire,
Land Lore, Secret Trails, Supply Tent, Wanderlust, Wilderness, Zeitgeist).

Every unit such an effect names counts as ordered this turn (6.0, C1): it is marked, and a unit that
was already ordered (or is banned) cannot be chosen. Decisions belong to the player the card names
(C10): the owner of an enemy unit chooses its Wanderlust march and the type of its promotion.
"""

from __future__ import annotations

from engine import codes
from engine.codes import ST_BANNED, ST_ORDERED
from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import Frame, GameCore
from engine.crown.effects._common import (
    foot,
    free_move,
    order_options,
    orders_ignoring_flags,
    sovereign,
    square_options,
    unit_options,
    unit_then,
)
from engine.crown.effects.registry import decode_square, decode_unit, steps
from engine.position import Order

#: A Spy's march is its swap (12.0 Spy, B15); an Oracle's attack is its shot (12.0 Oracle, B13).
MARCH_KINDS = ("march", "swap")
ATTACK_KINDS = ("attack", "shoot")


def _orders_by_code(g: GameCore, orders) -> dict[int, str]:
    return {o.code: o.text() for o in orders}


def _base_code(code: int) -> int:
    """The code of an order without its promotion choice (one option per origin and destination)."""
    return codes.without_promotion(code)


def _ordered_now(g: GameCore, square: int) -> bool:
    """Ordered this turn. An enemy unit's False Orders ban only keeps its OWNER from ordering it
    (13.0 False Orders), so a card's player looks at the ordered flag alone; Mourning's ban is the
    ordered flag during its turn (RULINGS C20, tk.end_turn_flags), so it binds every player."""
    return g.board.has_status(square, ST_ORDERED)


# -- False Orders (13.0) ------------------------------------------------------------------------
@steps("False Orders", 0)
def false_orders(g: GameCore, f: Frame, choice):
    """13.0 False Orders (order): march or attack with an enemy non-Sovereign unit exactly as its
    owner could (it may capture the card player's units, never its owner's); the owner may not order
    it on his next turn (a ban, which lasts through his next turn). A promotion's type is chosen by
    the unit's owner (C10): the card's player picks the move, the owner then picks the type.

    The unit counts as ordered this turn (6.0), so it cannot be False-Ordered twice; a ban it
    already carries binds its owner only and does not stop this card."""
    enemy = tk.opponent(f.player)
    if f.step == 0:
        orders = [
            o for o in orders_ignoring_flags(g, enemy, (ST_BANNED,))
            if o.kind in MARCH_KINDS + ATTACK_KINDS and not sovereign(g, o.origin)
        ]
        options = {}
        for order in orders:
            base = _base_code(order.code)
            options.setdefault(base, Order.from_code(base, g.units).text())
        if not options:
            return None
        return tk.ask(g, f, f.player, options, "march or attack with an enemy unit", next_step=1)
    if f.step == 1:
        base = choice
        variants = [o for o in orders_ignoring_flags(g, enemy, (ST_BANNED,)) if _base_code(o.code) == base]
        if len(variants) == 1:
            return _false_orders_play(g, enemy, variants[0].code)
        f.data["base"] = base
        options = {o.code: f"{o.text()} (promote to {g.unit_name(g.units[o.promotion].id)})" for o in variants}
        return tk.ask(g, f, enemy, options, "your unit is promoted: choose its type", next_step=2)
    return _false_orders_play(g, enemy, choice)


def _false_orders_play(g: GameCore, enemy: int, code: int):
    order = Order.from_code(code, g.units)
    tk.apply_board_order(g, enemy, order, mark=True)
    tk.ban_orders(g, tk.order_unit_square(order))
    return None


# -- Compass (17.0) -----------------------------------------------------------------------------
@steps("Compass", 0)
def compass(g: GameCore, f: Frame, choice):
    """17.0 Compass (order): march one of your non-Sovereign units by its own movement, cylindrical
    for this order (16.0); no attack. A Foot unit marching onto the eighth rank promotes (6.0)."""
    if f.step == 0:
        options = order_options(g, f.player, MARCH_KINDS, unit_filter=lambda sq: not sovereign(g, sq),
                                cylindrical=True)
        if not options:
            return None
        return tk.ask(g, f, f.player, options, "march a unit cylindrically", next_step=1)
    tk.apply_board_order(g, f.player, Order.from_code(choice, g.units))
    return None


# -- Grimoire (17.0) ----------------------------------------------------------------------------
def _grimoire_victims(g: GameCore, player: int) -> dict[int, tuple[int, ...]]:
    """origin square -> enemy squares one of its attacks would capture (every unit of a Charger's
    path counts), from the generated attack orders (which already leave out immune units, C6)."""
    enemy = tk.opponent(player)
    victims: dict[int, set[int]] = {}
    before = set(g.board.squares_of(enemy))
    for order in tk.board_orders(g, player, include_deploys=False):
        if order.kind not in ATTACK_KINDS:
            continue
        probe = g.board.copy()
        probe.apply_for(player, _base_code(order.code))
        victims.setdefault(order.origin, set()).update(before - set(probe.squares_of(enemy)))
    return {sq: tuple(sorted(v)) for sq, v in victims.items() if v}


@steps("Grimoire", 0)
def grimoire(g: GameCore, f: Frame, choice):
    """17.0 Grimoire (order): one of your units 'attacks' without moving: one unit it could have
    attacked is captured (a Charger's player picks any single unit of a capturing path, even the one
    behind). It counts as an order to your unit (6.0); the unit does not move, so it never promotes."""
    victims = _grimoire_victims(g, f.player)
    step = unit_then(g, f, choice, lambda: list(victims),
                     lambda sq: unit_options(g, victims.get(sq, ()), "capture {unit} on {square}"),
                     "choose the attacking unit", "choose the unit to capture")
    if not isinstance(step, tuple):
        return step
    origin, target = step
    g.board.capture(decode_square(target))
    tk.mark_ordered(g, origin)
    return None


# -- Land Lore (17.0) ---------------------------------------------------------------------------
def _land_lore_squares(g: GameCore, player: int) -> list[int]:
    return [sq for sq in tk.empty_squares(g) if tk.rank_of(sq, player) <= 4]


@steps("Land Lore", 0)
def land_lore(g: GameCore, f: Frame, choice):
    """17.0 Land Lore (order): deploy a Barracks unit as usual but to any empty square of your first
    four ranks. The deployed unit counts as ordered (6.0)."""
    if f.step == 0:
        types = tk.barracks_types(g, f.player)
        if not types or not _land_lore_squares(g, f.player):
            return None
        options = {A.unit_type(t): g.unit_name(t) for t in types}
        return tk.ask(g, f, f.player, options, "choose a unit in your Barracks to deploy", next_step=1)
    if f.step == 1:
        f.data["type"] = decode_unit(choice)
        options = square_options(_land_lore_squares(g, f.player),
                                 f"deploy {tk.unit_token(g, f.data['type'])}@{{square}}")
        return tk.ask(g, f, f.player, options, "choose an empty square in your first four ranks", next_step=2)
    square = decode_square(choice)
    g.board.deploy(f.player, f.data["type"], square)
    tk.mark_ordered(g, square)
    return None


# -- Secret Trails (17.0) -----------------------------------------------------------------------
def _diagonal_empty(g: GameCore, square: int) -> list[int]:
    occupied = g.board.occupied()
    return [sq for sq in tk.adjacent(square)
            if (sq & 7) != (square & 7) and (sq >> 3) != (square >> 3) and not occupied >> sq & 1]


@steps("Secret Trails", 0)
def secret_trails(g: GameCore, f: Frame, choice):
    """17.0 Secret Trails (order): +1 order (card data), then move one of your non-Sovereign units one
    square diagonally to an empty square, whatever its movement. The card names the unit, so it
    counts as ordered (6.0). A Foot unit moved onto the eighth rank is not promoted (6.0)."""
    return free_move(g, f, choice,
                     lambda: [sq for sq in tk.units_of(g, f.player) if not tk.is_ordered(g, sq) and not sovereign(g, sq)],
                     lambda sq: _diagonal_empty(g, sq), "choose a unit to move diagonally",
                     "choose the destination", mark=True)


# -- Supply Tent (17.0) -------------------------------------------------------------------------
def _tent_types(g: GameCore, player: int, returned: tuple[int, ...]) -> list[int]:
    """Barracks types still available: units sent to the Barracks by this card may not come back
    (no unit is swapped twice)."""
    return [t for t in tk.barracks_types(g, player) if g.board.barracks_count(player, t) > returned.count(t)]


@steps("Supply Tent", 0)
def supply_tent(g: GameCore, f: Frame, choice):
    """17.0 Supply Tent (order): swap any number of your board units with Barracks units, one pair at
    a time (board unit to the Barracks, the Barracks unit to its square). A Sovereign may come onto
    the board but never leave it; no unit is swapped twice, so a unit that came out of the Barracks
    (marked ordered, 6.0) cannot go back and one that went in cannot come out. Units already
    ordered this turn cannot be swapped (the swap would be a second order)."""
    returned = f.data.get("returned", ())
    if f.step == 1:
        if choice == A.DONE:
            return None
        f.data["square"] = decode_square(choice)
        options = {A.unit_type(t): g.unit_name(t) for t in _tent_types(g, f.player, returned)}
        return tk.ask(g, f, f.player, options, "choose the Barracks unit that takes its place", next_step=2)
    if f.step == 2:
        square, new_type = f.data["square"], decode_unit(choice)
        old_type = g.board.unit_on(square)[0]
        tk.send_to_barracks(g, square, ordered=True)
        g.board.deploy(f.player, new_type, square)
        tk.mark_ordered(g, square)
        returned = f.data["returned"] = returned + (old_type,)
    if not _tent_types(g, f.player, returned):
        return None
    units = [sq for sq in tk.units_of(g, f.player) if not tk.is_ordered(g, sq) and not sovereign(g, sq)]
    if not units:
        return None
    options = unit_options(g, units, "send {unit} on {square} to the Barracks")
    options[A.DONE] = "stop swapping"
    return tk.ask(g, f, f.player, options, "swap a unit with your Barracks", next_step=1)


# -- Wanderlust (17.0) --------------------------------------------------------------------------
@steps("Wanderlust", 0)
def wanderlust(g: GameCore, f: Frame, choice):
    """17.0 Wanderlust (order): +1 order (card data); choose an enemy unit: its owner must march it
    at once if it can, choosing where (C10); no attack; a Warlord or Phantom may make a null march
    (B16); a Foot unit reaching its owner's eighth rank promotes, its owner choosing the type (C10).
    The march uses none of the owner's orders. The chosen unit counts as ordered this turn (6.0
    'choose'), so it cannot be chosen twice; its own ban (if any) does not stop this march, which
    is not an order of its owner."""
    enemy = tk.opponent(f.player)
    if f.step == 0:
        units = [sq for sq in tk.units_of(g, enemy) if not _ordered_now(g, sq)]
        if not units:
            return None
        return tk.ask(g, f, f.player, unit_options(g, units), "choose an enemy unit that must march", next_step=1)
    if f.step == 1:
        origin = decode_square(choice)
        marches = [o for o in orders_ignoring_flags(g, enemy, (ST_BANNED,))
                   if o.origin == origin and o.kind in MARCH_KINDS]
        if not marches:
            tk.mark_ordered(g, origin)
            return None
        return tk.ask(g, f, enemy, _orders_by_code(g, marches), "march your unit (Wanderlust)", next_step=2)
    tk.apply_board_order(g, enemy, Order.from_code(choice, g.units), mark=True)
    return None


# -- Wilderness (17.0) --------------------------------------------------------------------------
def _wilderness_partners(g: GameCore, player: int, square: int) -> list[int]:
    """Units adjacent to ``square`` (the card player's unit) it may swap with: his own unordered
    units, or enemy units not ordered this turn (never two enemy units). In The Last Stand a
    Defender's unit may not be swapped onto the Defender's eighth rank (C13)."""
    partners = []
    for sq in tk.adjacent(square):
        unit = g.board.unit_on(sq)
        if unit is None:
            continue
        if unit[1] == player:
            if not tk.is_ordered(g, sq):
                partners.append(sq)
        elif not _ordered_now(g, sq):
            if g.variant.no_entry(unit[1]) >> square & 1:
                continue
            partners.append(sq)
    return partners


@steps("Wilderness", 0)
def wilderness(g: GameCore, f: Frame, choice):
    """17.0 Wilderness (order): +1 order (card data); swap two adjacent units, both yours or one yours
    and one enemy (never two enemy units). Both count as ordered this turn (the enemy one too: 17.0
    says the swap orders both units, which bars any further order to either this turn, e.g. a
    False Orders or Wanderlust on it). A swapped enemy unit becomes immune until its owner's turn
    (C6); yours gain nothing. A Foot unit swapped onto the eighth rank is not promoted (6.0)."""
    step = unit_then(g, f, choice, lambda: [sq for sq in tk.units_of(g, f.player) if not tk.is_ordered(g, sq)],
                     lambda sq: unit_options(g, _wilderness_partners(g, f.player, sq), "swap with {unit} on {square}"),
                     "choose one of your units to swap", "choose the adjacent unit to swap with")
    if not isinstance(step, tuple):
        return step
    first, second = step[0], decode_square(step[1])
    enemy_moved = g.board.unit_on(second)[1] != f.player
    g.board.swap_units(first, second)       # each unit keeps its flags
    tk.mark_ordered(g, first)
    tk.mark_ordered(g, second)
    if enemy_moved:
        tk.make_immune(g, first, until_turn_of=tk.opponent(f.player))
    return None


# -- Zeitgeist (17.0) ---------------------------------------------------------------------------
def _foot_order(g: GameCore, order: Order) -> bool:
    if order.origin is not None:
        return foot(g, order.origin)
    return tk.unit_has_class(g, g.units[order.unit].id, "Foot")


@steps("Zeitgeist", 0)
def zeitgeist(g: GameCore, f: Frame, choice):
    """17.0 Zeitgeist (order): draw 1 (card data, drawn first); march or attack with one of your
    Foot units; then march or deploy another Foot unit (never deploy first, never attack second,
    never the same unit twice: the first is marked ordered). Each part is done when possible and
    skipped when not (5.0), so with a single Foot unit one part is wasted."""
    if f.step == 0:
        options = order_options(g, f.player, MARCH_KINDS + ATTACK_KINDS, order_filter=lambda o: _foot_order(g, o))
        if options:
            return tk.ask(g, f, f.player, options, "march or attack with a Foot unit", next_step=1)
    elif f.step == 1:
        tk.apply_board_order(g, f.player, Order.from_code(choice, g.units))
    if f.step <= 1:
        options = order_options(g, f.player, MARCH_KINDS + ("deploy",), order_filter=lambda o: _foot_order(g, o))
        if options:
            return tk.ask(g, f, f.player, options, "march or deploy another Foot unit", next_step=2)
        return None
    tk.apply_board_order(g, f.player, Order.from_code(choice, g.units))
    return None


# -- Wish (13.0, alternate order) ---------------------------------------------------------------
@steps("Wish", 1)
def wish_alternate(g: GameCore, f: Frame, choice):
    """13.0 Wish (alternate order): +1 order (card data); any number of your Sovereign units, chosen
    one at a time, become immune until your next turn (C6) and count as ordered (6.0). On your next
    turn you may not play cards for order effects (plain orders stay allowed)."""
    if f.step == 0:
        g.card_order_ban_next[f.player] = True
    elif choice == A.DONE:
        return None
    else:
        square = decode_square(choice)
        tk.make_immune(g, square, until_turn_of=f.player)
        tk.mark_ordered(g, square)
    units = [sq for sq in tk.units_of(g, f.player, "Sovereign") if not tk.is_ordered(g, sq)]
    if not units:
        return None
    options = unit_options(g, units, "make {unit} on {square} immune")
    options[A.DONE] = "stop choosing"
    return tk.ask(g, f, f.player, options, "choose a Sovereign unit to protect", next_step=1)
