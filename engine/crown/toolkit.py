"""What card effects, phases and set-ups change a game with: asking a decision, queueing draws and
reveals, moving cards between zones, the board orders a player may issue, status flags with their
timing (C6, C15, C16, C20), gaining, trashing and training.

Every function takes the state first (``tk.queue_draw(g, ...)``). Board changes go through the
kernel's BoardCore primitives, so the Zobrist key stays exact; the variant's board rules (The Last
Stand, C13) come from ``g.variant`` (engine/crown/variants.py).
"""

from __future__ import annotations

from engine import codes
from engine.crown import actions as A
from engine.crown.core import CONTINUE, Ask, Draw, Frame, GameCore, GameError, Reveal
from engine.notation import BLUE
from engine.position import Order

__all__ = [
    "ask", "queue_draw", "queue_reveal", "board_order_codes", "board_orders", "apply_board_order", "units_of",
    "barracks_types", "send_to_barracks", "morph_barracks", "is_ordered", "mark_ordered", "make_immune",
    "expire_immunity", "ban_orders", "mourn", "end_turn_flags", "end_board_turn", "is_immune", "is_threatened",
    "adjacent",
    "empty_squares", "rank_of", "hand_choices", "supply_choices", "move_card", "reshuffle", "trash_card", "gain",
    "reveal_hand", "train", "unit_has_class", "unit_token", "opponent", "order_unit_square",
]

_FIRST_RANK = 0xFF


def unit_token(g: GameCore, t: int) -> str:
    return g.units.units[t].token


def unit_has_class(g: GameCore, t: int, cls: str) -> bool:
    return cls in g.units.units[t].classes


def opponent(player: int) -> int:
    return 1 - player


# -- decisions and tasks -------------------------------------------------------------------------
def ask(g: GameCore, frame: Frame, player: int, options: dict[int, str], prompt: str, next_step: int,
        zone: str | None = None) -> Ask:
    """Pause ``frame`` until ``player`` picks one of ``options`` (action -> text); it resumes at
    ``next_step``. ``zone``: where the cards of "card" options come from (actions.CARD_ZONES)."""
    if not options:
        raise GameError(f"internal: {g.card_name(frame.card)} asked a question with no answer")
    frame.step = next_step
    return Ask.of(player, options, f"{g.card_name(frame.card)}: {prompt}", frame, zone=zone)


def queue_draw(g: GameCore, frame: Frame | None, player: int, count: int, next_step: int | None = None) -> object:
    """Draw ``count`` cards for ``player`` (5.0: reshuffling the Discard when the Deck is empty);
    the frame resumes at ``next_step`` once they are drawn."""
    if frame is not None and next_step is not None:
        frame.step = next_step
    if count > 0:
        g.tasks.append(Draw(player, count))
    return CONTINUE


def queue_reveal(g: GameCore, frame: Frame, player: int, next_step: int, reshuffle: bool = True) -> object:
    """Reveal the top card of ``player``'s Deck into frame.data['revealed'] (None when there is
    none); with reshuffle the Discard becomes the Deck first if the Deck is empty."""
    frame.step = next_step
    g.tasks.append(Reveal(player, frame, reshuffle))
    return CONTINUE


# -- board orders --------------------------------------------------------------------------------
def board_order_codes(g: GameCore, player: int, cylindrical: bool = False) -> list[int]:
    """Encoded orders ``player`` could issue with its units now (units ordered or banned this
    turn excluded), under the variant's board rules."""
    codes_ = g.variant.generate(g, player, cylindrical)
    locked = g.barracks_ordered[player]
    if locked:
        # A unit an order sent to the Barracks this turn cannot be deployed again (6.0).
        board = g.board
        codes_ = [c for c in codes_ if codes.order_kind(c) != codes.DEPLOY
                  or board.barracks_count(player, codes.order_unit(c)) > locked.get(codes.order_unit(c), 0)]
    return codes_


def board_orders(g: GameCore, player: int, cylindrical: bool = False, include_deploys: bool = True) -> list[Order]:
    """board_order_codes as Order objects."""
    orders = [Order.from_code(code, g.units) for code in board_order_codes(g, player, cylindrical)]
    if not include_deploys:
        orders = [o for o in orders if o.kind != "deploy"]
    return orders


def apply_board_order(g: GameCore, player: int, order: Order | int, mark: bool = True) -> None:
    """Play a board order (an Order or its code) of ``player``'s unit within the current turn;
    with ``mark`` the unit counts as ordered this turn (6.0)."""
    code = order if isinstance(order, int) else order.code
    g.board.apply_for(player, code)
    if mark:
        g.board.set_status(codes.order_unit_square(code), codes.ST_ORDERED, True)


def order_unit_square(order: Order) -> int:
    """Where the ordered unit stands after the order."""
    return codes.order_unit_square(order.code)


# -- units and squares ---------------------------------------------------------------------------
def units_of(g: GameCore, player: int, cls: str | None = None) -> list[int]:
    """Squares of ``player``'s units (of class ``cls``)."""
    squares = g.board.squares_of(player)
    if cls is None:
        return squares
    return [sq for sq in squares if unit_has_class(g, g.board.unit_on(sq)[0], cls)]


def barracks_types(g: GameCore, player: int, cls: str | None = None, include_ordered: bool = False) -> list[int]:
    """Types with units in ``player``'s Barracks (of class ``cls``). Units sent there by an order
    this turn (Supply Tent) were ordered and cannot be deployed again this turn (6.0), unless
    ``include_ordered`` (actions may use them)."""
    locked = g.barracks_ordered[player]
    return [
        t for t in range(len(g.units))
        if g.board.barracks_count(player, t) > (0 if include_ordered else locked.get(t, 0))
        and (cls is None or unit_has_class(g, t, cls))
    ]


def send_to_barracks(g: GameCore, square: int, ordered: bool) -> None:
    """Board -> its owner's Barracks; with ``ordered`` the unit counts as ordered this turn."""
    unit = g.board.unit_on(square)
    g.board.to_barracks(square)
    if ordered:
        locked = g.barracks_ordered[unit[1]]
        locked[unit[0]] = locked.get(unit[0], 0) + 1


def morph_barracks(g: GameCore, player: int, t: int, new_t: int) -> None:
    """Morph one of ``player``'s Barracks units of type ``t`` into ``new_t`` (Refiner, Destiny).
    Units of a type are interchangeable, so an unlocked one is morphed when there is one; if
    every unit of ``t`` was sent there by an order this turn, the morphed unit keeps that lock
    under its new type (it still may not be deployed this turn, 6.0, C17)."""
    locked = g.barracks_ordered[player]
    g.board.morph_barracks(player, t, new_t)
    if locked.get(t, 0) > g.board.barracks_count(player, t):
        locked[t] -= 1
        locked[new_t] = locked.get(new_t, 0) + 1


def adjacent(square: int) -> list[int]:
    f, r = square % 8, square // 8
    return [
        (r + dr) * 8 + f + df for dr in (-1, 0, 1) for df in (-1, 0, 1)
        if (dr or df) and 0 <= r + dr < 8 and 0 <= f + df < 8
    ]


def empty_squares(g: GameCore) -> list[int]:
    occupied = g.board.occupied()
    return [sq for sq in range(64) if not occupied >> sq & 1]


def rank_of(square: int, player: int) -> int:
    """1..8, counted from ``player``'s side (A1)."""
    r = square // 8 + 1
    return r if player == BLUE else 9 - r


def train(g: GameCore, player: int, token_or_type, count: int = 1) -> int:
    t = token_or_type if isinstance(token_or_type, int) else g.units[token_or_type].id
    return g.board.train(player, t, count)


# -- status flags and their timing ---------------------------------------------------------------
def is_ordered(g: GameCore, square: int) -> bool:
    return g.board.has_status(square, codes.ST_ORDERED) or g.board.has_status(square, codes.ST_BANNED)


def mark_ordered(g: GameCore, square: int) -> None:
    g.board.set_status(square, codes.ST_ORDERED, True)


def make_immune(g: GameCore, square: int, until_turn_of: int) -> None:
    """C6: the unit cannot be captured until ``until_turn_of``'s next turn starts (C15: whoever
    moves in between; see end_turn_flags)."""
    g.board.set_status(square, codes.immune_flag(until_turn_of), True)


def is_immune(g: GameCore, square: int) -> bool:
    return g.board.has_status(square, codes.ST_IMMUNE_BLUE) or g.board.has_status(square, codes.ST_IMMUNE_YELLOW)


def expire_immunity(g: GameCore, player: int) -> None:
    """C15: the start of ``player``'s turn ends every immunity "until <player>'s next turn"."""
    _expire_board_immunity(g.board, player)


def _expire_board_immunity(board, player: int) -> None:
    board.set_status_bits(codes.immune_flag(player), 0)


def ban_orders(g: GameCore, square: int) -> None:
    """False Orders (13.0): the enemy unit may not be ordered by its owner until the end of its
    owner's next (or current) turn. The ban binds the owner only (the kernel's ST_BANNED, which
    expires when its owner's turn ends)."""
    g.board.set_status(square, codes.ST_BANNED, True)


def mourn(g: GameCore, square: int) -> None:
    """Mourning's ban (C16, RULINGS C20) on the unit on ``square``, of either side: no one may order
    it during the turn that follows the current one, whoever takes that turn (an extra turn of the
    card player, 11.4, included); in the rest of the current turn it is still free.

    The unit carries the kernel's "mourned" flag, which does nothing by itself and travels with the
    unit (a swap or a Fog march keeps it); end_turn_flags turns it into the ban when the turn ends."""
    g.board.set_status(square, codes.ST_MOURNED, True)


def end_turn_flags(g: GameCore, following: int) -> None:
    """End the current turn on the board (kernel end_turn: "ordered" and the mover's bans
    expire) when ``following`` plays next: ``end_board_turn`` with the player to move."""
    end_board_turn(g.board, g.current, following)


def end_board_turn(board, player: int, following: int) -> None:
    """End ``player``'s turn on ``board`` as the game does when ``following`` plays next (the
    turn planner ends the turn of a line's board the same way, so its reply search sees the next
    turn's bans). The kernel assumes the other side moves next; C15 does not: immunity "until the
    other side's turn" is kept when the mover plays again (11.4 extra turns), immunity "until
    <following>'s turn" ends now (expire_immunity).

    Mourned units (mourn) of both sides become "ordered" for the turn that starts now, whoever
    takes it (C20): no player may order them in it, by any means (the kernel's generator, False
    Orders and Wanderlust all pass over ordered units), and the kernel clears "ordered" when that
    turn ends, so the ban lasts exactly one turn."""
    other_immune = codes.immune_flag(1 - player)
    kept_immune = board.status_bits(other_immune)
    mourned = board.status_bits(codes.ST_MOURNED)
    board.end_turn()
    if following == player and kept_immune:
        board.set_status_bits(other_immune, board.status_bits(other_immune) | kept_immune)
    if mourned:
        board.set_status_bits(codes.ST_MOURNED, 0)
        board.set_status_bits(codes.ST_ORDERED, board.status_bits(codes.ST_ORDERED) | mourned)
    _expire_board_immunity(board, following)


def is_threatened(g: GameCore, square: int, player: int, origin: int = -1) -> bool:
    """C7 for ``player``'s unit standing on ``square`` (moved from ``origin`` if given); the
    kernel's guarded squares count (The Last Stand, C13)."""
    return g.board.threatened(square, player, origin, False)


# -- cards ---------------------------------------------------------------------------------------
def hand_choices(g: GameCore, player: int, predicate=None, exclude: tuple = ()) -> dict[int, str]:
    """One option per distinct card in the hand (copies are interchangeable)."""
    options = {}
    for card in sorted(set(g.zones[player].hand)):
        if card in exclude or (predicate is not None and not predicate(g.cards.cards[card])):
            continue
        options[A.card(card)] = g.card_name(card)
    return options


def supply_choices(g: GameCore, predicate) -> dict[int, str]:
    return {
        A.card(c): f"{g.card_name(c)} ({g.cost(c)} gold)"
        for c in g.supply_ids if g.supply[c] > 0 and predicate(g.cards.cards[c])
    }


def move_card(g: GameCore, player: int, card: int, source: str, dest: str) -> None:
    """Move one copy of ``card`` between ``player``'s zones (hand, discard, played, top, trash)."""
    zones = g.zones[player]
    if source == "hand":
        zones.hand.remove(card)
        if card in zones.known_hand:
            zones.known_hand.remove(card)
    elif source == "discard":
        zones.discard.remove(card)
    elif source == "played":
        zones.played.remove(card)
    else:
        raise GameError(f"internal: unknown source zone {source!r}")
    if dest == "hand":
        zones.hand.append(card)
    elif dest == "discard":
        zones.discard.append(card)
    elif dest == "top":
        zones.top.append((card, False))
    elif dest == "trash":
        trash_card(g, card)
    elif dest == "played":
        zones.played.append(card)
    else:
        raise GameError(f"internal: unknown zone {dest!r}")


def reshuffle(g: GameCore, player: int) -> None:
    """5.0: the Discard is shuffled into the Deck (a multiset: shuffling is drawing at random)."""
    zones = g.zones[player]
    for card in zones.discard:
        zones.deck[card] += 1
    zones.discard.clear()


def trash_card(g: GameCore, card: int) -> None:
    """To the Trash, or wherever the variant sends trashed cards: in The Last Stand (11.5, RULINGS
    C22) a card goes back to its Supply pile, and a starting card, which has no pile, is set aside
    beside the Supply (``g.set_aside``: never bought, not in the Trash)."""
    if not g.variant.trash_returns_to_supply:
        g.trash.append(card)
    elif card in g.supply_ids:
        g.supply[card] += 1
    else:
        g.set_aside.append(card)


def gain(g: GameCore, player: int, card: int) -> None:
    """Take a card from the Supply into the Discard (Gain, glossary)."""
    if g.supply[card] <= 0:
        raise GameError(f"internal: the {g.card_name(card)} pile is empty")
    g.supply[card] -= 1
    g.zones[player].discard.append(card)


def reveal_hand(g: GameCore, player: int) -> None:
    """The whole hand becomes known to the opponent (Astrology, Far Sight)."""
    g.zones[player].known_hand = list(g.zones[player].hand)
