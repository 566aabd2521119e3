"""The turn (4.0-9.0): which decisions each phase offers, what each one does, and the end of a turn
with its win (10.0, C2) and draw (C3) checks."""

from __future__ import annotations

from engine.game import actions as A
from engine.game.state import (ACTION_PHASE, BUY_PHASE, ORDER_PHASE, SETUP_PHASE, Ask, Frame, GameState,
                               PLAYER_NAMES)
from engine.notation import BLUE, YELLOW, square_name
from engine.position import Order, order_text

ORDER_KINDS = ("order", "alternate-order")
ACTION_KINDS = ("action", "alternative-action", "training")
KIND_LABEL = {
    "order": "order", "alternate-order": "alternate order", "action": "action",
    "alternative-action": "alternative action", "training": "training", "treasure": "treasure",
}


def _orders_only(g: GameState, player: int) -> bool:
    """Players with an Order phase only: Point-Buy Chess, the Last Stand's Defender."""
    return g.config.variant == "point-buy" or (g.config.variant == "last-stand" and player == YELLOW)


def effect_label(g: GameState, card: int, index: int) -> str:
    spec = g.cards.cards[card].effects[index]
    label = KIND_LABEL[spec.kind]
    if spec.kind == "training":
        label += f": {g.units[spec.trains].name}" + (f" x{spec.count}" if spec.count > 1 else "")
    return f"play {g.card_name(card)} ({label})"


def playable_effects(g: GameState, player: int, kinds: tuple[str, ...]) -> dict[int, str]:
    from engine.game.effects import can_play

    options = {}
    for card in sorted(set(g.zones[player].hand)):
        for index, spec in enumerate(g.cards.cards[card].effects):
            if spec.kind in kinds and can_play(g, player, card, index):
                options[A.play(card, index)] = effect_label(g, card, index)
    return options


def decide(g: GameState) -> None:
    """Build the current phase's decision, or move on when nothing is left to decide."""
    player = g.current
    if g.phase == SETUP_PHASE:
        from engine.game import setup

        setup.decide(g)
        return
    options: dict[int, str] = {}
    if g.phase == ORDER_PHASE:
        if g.orders > 0:
            for code in g.board_order_codes(player):
                options[code] = order_text(code, g.units)
            if g.config.variant == "last-stand" and player == YELLOW:
                for sq in g.units_of(player):
                    if not g.is_ordered(sq):
                        options[A.square(sq)] = f"evacuate {square_name(sq)}"
            if not _orders_only(g, player) and not g.card_order_ban[player]:
                options.update(playable_effects(g, player, ORDER_KINDS))
        if g.config.variant == "point-buy":
            if not options:
                finish(g, None, "no legal order in Point-Buy Chess (C3)")
            else:
                g.decision = Ask(player, options, "issue an order (one is required in Point-Buy Chess)")
            return
        prompt = f"order phase, {g.orders} order(s) left"
    elif g.phase == ACTION_PHASE:
        if g.actions > 0:
            options.update(playable_effects(g, player, ACTION_KINDS))
        prompt = f"action phase, {g.actions} action(s) left"
    else:
        if not g.bought:
            options.update(playable_effects(g, player, ("treasure",)))
        if g.buys > 0:
            for card in g.supply_ids:
                if g.supply[card] > 0 and g.cost(card) <= g.gold:
                    options[A.buy(card)] = f"buy {g.card_name(card)} ({g.cost(card)} gold)"
        prompt = f"buy phase, {g.gold} gold, {g.buys} buy(s)"
    if not options:
        next_phase(g)
        return
    options[A.DONE] = f"end {g.phase} phase"
    g.decision = Ask(player, options, prompt)


def choose(g: GameState, player: int, action: int) -> None:
    if g.phase == SETUP_PHASE:
        from engine.game import setup

        setup.choose(g, player, action)
        return
    if action == A.DONE:
        next_phase(g)
        return
    if A.is_order(action):
        g.orders -= 1
        g.apply_board_order(player, Order.from_code(action, g.units))
        if g.config.variant == "point-buy":
            next_phase(g)
        return
    kind, arg = A.decode(action)
    if kind == A.K_PLAY:
        play_card(g, player, arg // 2, arg % 2)
    elif kind == A.K_BUY:
        g.buys -= 1
        g.gold -= g.cost(arg)
        g.bought = True
        g.gain(player, arg)
    elif kind == A.K_SQUARE:          # The Last Stand: Evacuate (11.5) costs an order
        g.orders -= 1
        g.send_to_barracks(arg, ordered=True)
    else:
        raise AssertionError(f"unexpected phase action {action}")


def play_card(g: GameState, player: int, card: int, index: int) -> None:
    """Play a card from the hand for one effect (5.0): pay the order/action, apply the printed
    numbers, queue the draws, then the effect's own steps."""
    from engine.game.effects import has_steps

    spec = g.cards.cards[card].effects[index]
    g.move_card(player, card, "hand", "played")
    if spec.kind in ORDER_KINDS:
        g.orders -= 1
    elif spec.kind in ACTION_KINDS:
        g.actions -= 1
    if spec.kind == "training":
        # 7.0 / C9: trash the card and train from the Stock what it holds.
        g.zones[player].played.remove(card)
        g.trash_card(card)
        g.train(player, spec.trains, spec.count)
        return
    earlier_treasures = g.treasures_played
    if spec.kind == "treasure":
        g.treasures_played += 1
    g.gold += spec.gold
    g.orders += spec.orders
    g.actions += spec.actions
    g.buys += spec.buys
    if has_steps(card, index, g):
        frame = Frame(card, index, player)
        frame.data["earlier_treasures"] = earlier_treasures
        g.tasks.append(("frame", frame))
    if spec.draws:
        g.queue_draw(None, player, spec.draws)


def next_phase(g: GameState) -> None:
    player = g.current
    if g.phase == ORDER_PHASE and not _orders_only(g, player):
        g.phase = ACTION_PHASE
    elif g.phase == ACTION_PHASE:
        g.phase = BUY_PHASE
    else:
        housekeeping(g)


def housekeeping(g: GameState) -> None:
    """9.0: discard the hand and the played cards, draw 5, end the turn."""
    player = g.current
    zones = g.zones[player]
    if not _orders_only(g, player):
        zones.discard.extend(zones.hand)
        zones.discard.extend(zones.played)
        zones.hand.clear()
        zones.played.clear()
        zones.known_hand.clear()
    g.phase = "housekeeping"
    g.tasks.append(("end_turn",))
    if not _orders_only(g, player):
        g.queue_draw(None, player, 5)


def start_turn(g: GameState, player: int) -> None:
    g.current = player
    g.board.set_side(player)
    g.phase = ORDER_PHASE
    g.orders, g.actions, g.buys, g.gold = 1, 1, 1, 0
    g.treasures_played = g.discount = 0
    g.bought = False
    g.barracks_ordered = [{}, {}]
    g.card_order_ban[player] = g.card_order_ban_next[player]
    g.card_order_ban_next[player] = False


def finish(g: GameState, winner: int | None, reason: str) -> None:
    g.winner = winner
    g.over_reason = reason
    g.decision = None
    g.tasks.clear()


def state_key(g: GameState) -> int:
    """The full state that C3's repetition rule compares (board and every card zone)."""
    zones = tuple(
        (tuple(z.deck), tuple(z.top), tuple(sorted(z.hand)), tuple(sorted(z.discard)))
        for z in g.zones
    )
    return hash((g.board.key, zones, tuple(g.supply), tuple(sorted(g.trash)), g.current))


def end_turn(g: GameState) -> None:
    player = g.current
    following = player if g.extra_turns[player] > 0 else 1 - player     # 11.4 handicap: extra turns
    g.end_turn_flags(following)
    g.turns_taken[player] += 1
    g.turn += 1
    blue, yellow = g.board.sovereign_present(BLUE), g.board.sovereign_present(YELLOW)
    if g.config.variant == "last-stand":
        if not yellow:
            finish(g, BLUE, f"the Defender has no Sovereign after {g.turns_taken[BLUE]} Attacker turns (11.5)")
            return
    elif not (blue and yellow):
        # C2: a side with no Sovereign loses; with none on either side the mover completed it.
        winner = player if not (blue or yellow) else (BLUE if blue else YELLOW)
        finish(g, winner, f"{PLAYER_NAMES[1 - winner]} has no Sovereign on the board (10.0)")
        return
    if g.turn >= g.config.max_turns:
        finish(g, None, f"draw: {g.config.max_turns} turns (C3)")
        return
    halfmove = g.board.state()["halfmove"]
    if halfmove >= g.config.no_progress_turns:
        finish(g, None, f"draw: {halfmove} turns without capture, training or deploy (C3)")
        return
    key = state_key(g)
    g.repetitions[key] = g.repetitions.get(key, 0) + 1
    if g.repetitions[key] >= 3:
        finish(g, None, "draw: the same position three times (C3)")
        return
    if following == player:
        g.extra_turns[player] -= 1
    start_turn(g, following)
