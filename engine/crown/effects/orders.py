"""Order effects that move, place or deploy units (6.0, 13.0), plus Executive Action's deploying action.

Common ground for every effect here:
- 6.0 / C1: a card played for an order effect issues an order to every unit it deploys, marches,
  attacks with or moves, so each such unit is marked ordered, and only units not yet ordered (nor
  banned) this turn can be chosen. The kernel's order generator already leaves ordered and banned
  units out.
- 5.0: an instruction that cannot be carried out is skipped; the card is still played. Only Heir
  and Quartermaster have a precondition (@playable), because 13.0 says they cannot be used.
- "March" includes a Spy's swap (12.0 Spy: it marches by swapping), so a Spy can be marched by
  Armor or Sanctuary. Marches into the eighth rank promote (6.0): the kernel's order codes already
  carry the promotion choice, made by the unit's owner, the player of the card (C10).
- "+1 order" of Academy, Bureaucracy, Heir and Temple is card data, granted by the phase code (C11).

Rulings taken here where 13.0 leaves room (see each function):
- Guard: the Sovereign-adjacent squares are offered in addition to the usual deploy squares.
- Mourning: the units of both sides next to a captured unit are banned for the next turn (C16,
  RULINGS C20); the attacking unit never counts (it stands on the square of its capture): see
  mourning().
- Quartermaster: with one unit in the Barracks, one deploy happens (5.0).
- Sanctuary: the marched Heavy unit must end next to another of the player's units; the unit moved
  afterwards must be one that can still receive an order this turn, else that part is skipped.
- Executive Action (action): the deployed unit counts as ordered, as after a plain deploy.
"""

from __future__ import annotations

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import Frame, GameCore
from engine.crown.effects._common import (
    ask_order,
    foot,
    free_move,
    has_class,
    order_options,
    play_order,
    square_options,
    unit_options,
)
from engine.crown.effects.registry import decode_square, decode_unit, playable, steps
from engine.notation import square_name
from engine.position import Order

#: Kinds of kernel orders that are a "march" (12.0 Spy: a swap is its march).
MARCH_KINDS = ("march", "swap")


# -- local building blocks ---------------------------------------------------------------------
def _type_has_class(g: GameCore, token: str, cls: str) -> bool:
    return tk.unit_has_class(g, g.units[token].id, cls)


def _deploy_options(g: GameCore, player: int, cls: str | None = None, first_rank_only: bool = False) -> dict[int, str]:
    """Deploys by the usual rule (6.0, B19: first rank, Foot also second rank), as kernel order
    codes; only types of class ``cls``; only first-rank squares with ``first_rank_only``."""
    def keep(order: Order) -> bool:
        if cls is not None and not _type_has_class(g, order.unit, cls):
            return False
        return not first_rank_only or tk.rank_of(order.dest, player) == 1

    return order_options(g, player, kinds=("deploy",), order_filter=keep)


def _play(g: GameCore, f: Frame, action: int, mark: bool = True) -> int:
    """Play a chosen kernel order for the card's player; returns the unit's square afterwards."""
    order = play_order(g, f.player, action, mark)
    return tk.order_unit_square(order)


def _ask_deploy_type(g: GameCore, f: Frame, squares_for, prompt: str, next_step: int):
    """First half of a deploy to squares outside the usual rule (Guard, Squire): choose a Barracks
    unit type that has somewhere to go. ``squares_for(t)`` lists the allowed empty squares."""
    options = {
        A.unit_type(t): g.unit_name(t) for t in tk.barracks_types(g, f.player) if squares_for(t)
    }
    if not options:
        return None                     # 5.0: nothing to deploy, or nowhere to put it
    return tk.ask(g, f, f.player, options, prompt, next_step)


def _ask_deploy_square(g: GameCore, f: Frame, t: int, squares, next_step: int):
    f.data["type"] = t
    return tk.ask(g, f, f.player, square_options(sorted(squares), f"deploy {g.unit_name(t)} to {{square}}"),
                 f"where does the {g.unit_name(t)} go", next_step)


def _deploy_to(g: GameCore, f: Frame, square: int) -> None:
    g.board.deploy(f.player, f.data["type"], square)
    tk.mark_ordered(g, square)


def _empty_in_rank(g: GameCore, player: int, rank: int) -> list[int]:
    return [sq for sq in tk.empty_squares(g) if tk.rank_of(sq, player) == rank]


# -- Guard, Squire: deploys to unusual squares -----------------------------------------------------
def _guard_squares(g: GameCore, player: int, t: int) -> set[int]:
    empty = set(tk.empty_squares(g))
    usual = {sq for sq in empty if tk.rank_of(sq, player) == 1
             or (tk.rank_of(sq, player) == 2 and tk.unit_has_class(g, t, "Foot"))}
    near = {adj for sov in tk.units_of(g, player, "Sovereign") for adj in tk.adjacent(sov) if adj in empty}
    return usual | near


@steps("Guard", 0)
def guard(g: GameCore, f: Frame, choice):
    """13.0 Guard: deploy a Barracks unit; besides the usual deploy squares (6.0: first rank, or
    second rank for a Foot unit) it may go to any empty square adjacent to one of the player's
    Sovereign units. Ruling: the card widens the choice ("can ... instead"), so the usual squares
    stay available. The deployed unit is ordered (6.0)."""
    if f.step == 0:
        return _ask_deploy_type(g, f, lambda t: _guard_squares(g, f.player, t), "choose a unit to deploy", 1)
    if f.step == 1:
        t = decode_unit(choice)
        return _ask_deploy_square(g, f, t, _guard_squares(g, f.player, t), 2)
    _deploy_to(g, f, decode_square(choice))


@steps("Squire", 0)
def squire(g: GameCore, f: Frame, choice):
    """13.0 Squire: place a Barracks unit of any type on an empty square of the player's second
    rank (a deploy, so the unit is ordered: 6.0). Nothing happens with an empty Barracks or a full
    second rank (5.0)."""
    if f.step == 0:
        return _ask_deploy_type(g, f, lambda t: _empty_in_rank(g, f.player, 2), "choose a unit to deploy", 1)
    if f.step == 1:
        return _ask_deploy_square(g, f, decode_unit(choice), _empty_in_rank(g, f.player, 2), 2)
    _deploy_to(g, f, decode_square(choice))


# -- deploys by the usual rule ---------------------------------------------------------------------
@steps("Academy", 0)
def academy(g: GameCore, f: Frame, choice):
    """13.0 Academy: deploy a Foot unit from the Barracks by the usual rule (first or second rank);
    +1 order is card data and cannot go to that unit, which is ordered (C11)."""
    if f.step == 0:
        return ask_order(g, f, _deploy_options(g, f.player, "Foot"), "deploy a Foot unit", 1)
    _play(g, f, choice)


@steps("Executive Action", 1)
def executive_action(g: GameCore, f: Frame, choice):
    """13.0 Executive Action (action): a plain deploy (6.0, B19) paid with an action instead of an
    order. Ruling: the deployed unit counts as ordered, exactly as after a plain deploy (it changes
    nothing in the Action phase: actions may move ordered units)."""
    if f.step == 0:
        return ask_order(g, f, _deploy_options(g, f.player), "deploy a unit", 1)
    _play(g, f, choice)


@playable("Quartermaster", 0)
def quartermaster_playable(g: GameCore, player: int) -> bool:
    """13.0 Quartermaster (order) cannot be used with fewer than 2 empty first-rank squares."""
    return len(_empty_in_rank(g, player, 1)) >= 2


@steps("Quartermaster", 0)
def quartermaster(g: GameCore, f: Frame, choice):
    """13.0 Quartermaster (order): deploy two Barracks units, each to a different empty square of
    the first rank (never the second rank, even for Foot units). With only one unit in the Barracks
    it alone is deployed, with none nothing happens (5.0: only the impossible part is ignored)."""
    if f.step == 1:
        _play(g, f, choice)
        f.data["deployed"] = f.data.get("deployed", 0) + 1
    if f.data.get("deployed", 0) >= 2:
        return None
    prompt = "deploy a unit to your first rank" + (" (second unit)" if f.data.get("deployed") else "")
    return ask_order(g, f, _deploy_options(g, f.player, first_rank_only=True), prompt, 1)


# -- single marches and attacks --------------------------------------------------------------------
@steps("Armor", 0)
def armor(g: GameCore, f: Frame, choice):
    """13.0 Armor: march a Heavy unit on the board (no attack); it cannot be captured until the
    player's next turn starts (C6)."""
    if f.step == 0:
        options = order_options(g, f.player, MARCH_KINDS, unit_filter=lambda sq: has_class(g, sq, "Heavy"))
        return ask_order(g, f, options, "march a Heavy unit", 1)
    tk.make_immune(g, _play(g, f, choice), until_turn_of=f.player)


@steps("Bureaucracy", 0)
def bureaucracy(g: GameCore, f: Frame, choice):
    """13.0 Bureaucracy: march or attack with a Foot unit on the board (promotion as usual, 6.0);
    +1 order is card data, not for that unit (C11)."""
    if f.step == 0:
        options = order_options(g, f.player, ("march", "attack"), unit_filter=lambda sq: foot(g, sq))
        return ask_order(g, f, options, "march or attack with a Foot unit", 1)
    _play(g, f, choice)


@steps("Temple", 0)
def temple(g: GameCore, f: Frame, choice):
    """13.0 Temple: march a Pious unit on the board (a Monk reaching the eighth rank promotes, 6.0);
    +1 order is card data, not for that unit (C11)."""
    if f.step == 0:
        options = order_options(g, f.player, MARCH_KINDS, unit_filter=lambda sq: has_class(g, sq, "Pious"))
        return ask_order(g, f, options, "march a Pious unit", 1)
    _play(g, f, choice)


def _heir_options(g: GameCore, player: int) -> dict[int, str]:
    """Marches of the player's Sovereign units that end on a square no enemy could attack with the
    unit standing there (C7)."""
    return order_options(
        g, player, ("march",), unit_filter=lambda sq: has_class(g, sq, "Sovereign"),
        order_filter=lambda o: not tk.is_threatened(g, o.dest, player, o.origin),
    )


@playable("Heir", 0)
def heir_playable(g: GameCore, player: int) -> bool:
    """13.0 Heir: a Sovereign unit that cannot march to an unthreatened square cannot be chosen;
    with no such Sovereign unit the card cannot be used."""
    return bool(_heir_options(g, player))


@steps("Heir", 0)
def heir(g: GameCore, f: Frame, choice):
    """13.0 Heir: march a Sovereign unit (no attack) to an unthreatened square (C7); +1 order is card
    data, not for that unit (C11)."""
    if f.step == 0:
        return ask_order(g, f, _heir_options(g, f.player), "march a Sovereign unit to an unthreatened square", 1)
    _play(g, f, choice)


@steps("Mourning", 0)
def mourning(g: GameCore, f: Frame, choice):
    """13.0 Mourning: attack with a Regal unit by its normal movement; the units that stood adjacent
    to a captured unit (to any of them, should one attack capture several) cannot be ordered during
    the next turn: units of either side, by either player (C16: False Orders and Wanderlust issue
    orders too). RULINGS C20: "the next turn" is exactly the one turn after this one, whoever takes
    it (the card player's own extra turn under 11.4), the rest of this turn is not banned, and the
    ban is over when the turn after it begins. tk.mourn marks the units; tk.end_turn_flags applies
    the ban at the turn change.

    Rulings: adjacency is judged on the board right after the attack, around the squares the
    captured units stood on. The attacking unit never counts: after a normal attack it stands on
    the captured unit's own square, which is not adjacent to itself, and 13.0 speaks of the units
    around the victim, not of the unit that struck it (this also settles the case of a unit
    capturing several in a line and stopping next to one of them)."""
    if f.step == 0:
        options = order_options(g, f.player, ("attack", "shoot"), unit_filter=lambda sq: has_class(g, sq, "Regal"))
        return ask_order(g, f, options, "attack with a Regal unit", 1)
    enemy = tk.opponent(f.player)
    before = set(tk.units_of(g, enemy))
    attacker = _play(g, f, choice)
    captured = before - set(tk.units_of(g, enemy))
    for square in sorted({adj for sq in captured for adj in tk.adjacent(sq)}):
        if square == attacker:
            continue
        if g.board.unit_on(square) is not None:
            tk.mourn(g, square)


# -- placements that ignore movement ---------------------------------------------------------------
def _aviary_squares(g: GameCore, player: int, origin: int) -> list[int]:
    return [sq for sq in tk.empty_squares(g) if not tk.is_threatened(g, sq, player, origin)]


@steps("Aviary", 0)
def aviary(g: GameCore, f: Frame, choice):
    """13.0 Aviary: place one of the player's Regal units on any empty square that would be
    unthreatened with it standing there (C7), instead of moving it normally. The placed unit is
    ordered (6.0); a Regal unit with no such square cannot be chosen, and with none at all nothing
    happens (5.0)."""
    return free_move(g, f, choice, lambda: [sq for sq in tk.units_of(g, f.player, "Regal") if not tk.is_ordered(g, sq)],
                     lambda sq: _aviary_squares(g, f.player, sq), "choose a Regal unit to place",
                     "choose an unthreatened square", mark=True, square_label="place {unit} on {square}")


# -- several moves -------------------------------------------------------------------------------
@steps("Onslaught", 0)
def onslaught(g: GameCore, f: Frame, choice):
    """13.0 Onslaught: up to four Foot units, one at a time in any order, each either marches (on
    the board) or deploys (from the Barracks, usual rule); no attacks. Each unit is ordered as it
    goes, so none moves twice and a deployed unit cannot then march. The player may stop at any
    point (DONE). A march into the eighth rank promotes as usual (6.0)."""
    if f.step == 1:
        if choice == A.DONE:
            return None
        _play(g, f, choice)
        f.data["moved"] = f.data.get("moved", 0) + 1
    moved = f.data.get("moved", 0)
    if moved >= 4:
        return None
    options = order_options(
        g, f.player, ("march", "deploy"), unit_filter=lambda sq: foot(g, sq),
        order_filter=lambda o: o.kind != "deploy" or _type_has_class(g, o.unit, "Foot"),
    )
    if not options:
        return None
    return ask_order(g, f, options, f"march or deploy a Foot unit ({moved} of 4 so far)", 1, optional=True)


@steps("Stables", 0)
def stables(g: GameCore, f: Frame, choice):
    """13.0 Stables: march a Mounted unit on the board, then march the same unit again (no attacks).
    If the second march is impossible it is skipped (5.0). The unit is ordered once both are done
    (the kernel would not generate a second march for an ordered unit, so the mark waits)."""
    if f.step == 0:
        options = order_options(g, f.player, MARCH_KINDS, unit_filter=lambda sq: has_class(g, sq, "Mounted"))
        return ask_order(g, f, options, "march a Mounted unit", 1)
    if f.step == 1:
        square = _play(g, f, choice, mark=False)
        f.data["square"] = square
        options = order_options(g, f.player, MARCH_KINDS, unit_filter=lambda sq: sq == square)
        if options:
            return ask_order(g, f, options, f"march the unit on {square_name(square)} again", 2)
        tk.mark_ordered(g, square)
        return None
    _play(g, f, choice)


def _sanctuary_ends_near_friend(g: GameCore, player: int, order: Order) -> bool:
    """Whether the Heavy unit, after ``order``, stands adjacent to another of the player's units."""
    mine = set(tk.units_of(g, player))
    if order.kind == "march":           # a swap exchanges two squares: the set stays the same
        mine = (mine - {order.origin}) | {order.dest}
    return any(adj in mine for adj in tk.adjacent(order.dest))


def _sanctuary_movers(g: GameCore, player: int, heavy: int) -> list[int]:
    empty = set(tk.empty_squares(g))
    if not any(adj in empty for adj in tk.adjacent(heavy)):
        return []
    return [sq for sq in tk.adjacent(heavy)
            if (u := g.board.unit_on(sq)) is not None and u[1] == player and not tk.is_ordered(g, sq)]


@steps("Sanctuary", 0)
def sanctuary(g: GameCore, f: Frame, choice):
    """13.0 Sanctuary (order): march a Heavy unit so that it ends adjacent to another of the
    player's units, then move one unit adjacent to it (player's choice) to an empty square also
    adjacent to the Heavy unit, ignoring movement; no attacks, no promotion (6.0: placed, not
    marched). Both units are ordered (6.0). Rulings: the march needs only to end next to one of the
    player's units; the unit moved next must be one that can still be ordered this turn (6.0), and
    when none can, or no empty square touches the Heavy unit, that part is skipped (5.0). The move
    is not optional when possible."""
    if f.step == 0:
        options = order_options(g, f.player, MARCH_KINDS, unit_filter=lambda sq: has_class(g, sq, "Heavy"),
                                order_filter=lambda o: _sanctuary_ends_near_friend(g, f.player, o))
        return ask_order(g, f, options, "march a Heavy unit next to another of your units", 1)
    if f.step == 1:
        heavy = _play(g, f, choice)
        f.data["heavy"] = heavy
        movers = _sanctuary_movers(g, f.player, heavy)
        if not movers:
            return None
        return tk.ask(g, f, f.player, unit_options(g, movers), f"choose a unit next to {square_name(heavy)} to move", 2)
    if f.step == 2:
        origin = decode_square(choice)
        f.data["origin"] = origin
        heavy = f.data["heavy"]
        empty = set(tk.empty_squares(g))
        squares = [sq for sq in tk.adjacent(heavy) if sq in empty]
        name = g.unit_name(g.board.unit_on(origin)[0])
        return tk.ask(g, f, f.player, square_options(squares, f"move {name} to {{square}}"),
                     f"where does the {name} on {square_name(origin)} go", 3)
    dest = decode_square(choice)
    g.board.move_unit(f.data["origin"], dest)
    tk.mark_ordered(g, dest)
