"""The turn (4.0-9.0): which decisions each phase offers, what each one does, and the end of a turn
with its win (10.0, C2) and draw (C3) checks. What differs between variants (who has an Order phase
only, The Last Stand's Evacuate and win, Point-Buy's one required order) comes from ``g.variant``
(engine/crown/variants.py).

A phase's decision lists its actions; their texts are made only when asked (``phase_label``).
"""

from __future__ import annotations

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import (
    ACTION_PHASE,
    BUY_PHASE,
    END_TURN,
    HAND_SIZE,
    HOUSEKEEPING,
    ORDER_PHASE,
    SETUP_PHASE,
    Ask,
    Frame,
    GameCore,
    RunFrame,
)
from engine.crown.effects import effect_checks, has_steps
from engine.position import order_text

__all__ = ["decide", "choose", "play_card", "next_phase", "housekeeping", "start_turn", "start_play", "finish",
           "end_turn", "state_key", "effect_label", "phase_label", "KIND_LABEL"]

KIND_LABEL = {
    "order": "order", "alternate-order": "alternate order", "action": "action",
    "alternative-action": "alternative action", "training": "training", "treasure": "treasure",
}


def effect_label(g: GameCore, card: int, index: int) -> str:
    spec = g.cards.cards[card].effects[index]
    label = KIND_LABEL[spec.kind]
    if spec.kind == "training":
        label += f": {g.units[spec.trains].name}" + (f" x{spec.count}" if spec.count > 1 else "")
    return f"play {g.card_name(card)} ({label})"


def phase_label(g: GameCore, action: int) -> str:
    """The text of an action of a phase's own decision (the Ask's labeler)."""
    if A.is_order(action):
        return order_text(action, g.units)
    kind = A.kind_of(action)
    if kind == A.K_DONE:
        return f"end {g.phase} phase"
    if kind == A.K_PLAY:
        return effect_label(g, A.play_card(action), A.play_effect(action))
    if kind == A.K_BUY:
        card = A.argument(action)
        return f"buy {g.card_name(card)} ({g.cost(card)} gold)"
    return g.variant.order_action_text(g, action)


def _add_playable(g: GameCore, player: int, phase: str, actions: list[int]) -> None:
    """Append the plays of ``player``'s hand cards whose effects belong to ``phase`` (one per
    distinct card and effect; copies are interchangeable), preconditions checked."""
    hand = g.zones[player].hand
    if not hand:
        return
    phase_effects = g.cards.phase_effects
    checks = effect_checks(g.cards)
    for card in sorted(set(hand)):
        for index in phase_effects[card][phase]:
            check = checks[card][index]
            if check is None or check(g, player):
                actions.append(A.play(card, index))


def decide(g: GameCore) -> None:
    """Build the current phase's decision, or move on when nothing is left to decide."""
    player = g.current
    phase = g.phase
    variant = g.variant
    if phase == SETUP_PHASE:
        variant.setup_decide(g)
        return
    if phase == ORDER_PHASE:
        actions: list[int] = []
        if g.orders > 0:
            actions = tk.board_order_codes(g, player)
            extra = variant.extra_order_actions(g, player)
            if extra:
                actions.extend(extra)
            if not variant.orders_only(player) and not g.card_order_ban[player]:
                _add_playable(g, player, "order", actions)
        if variant.one_order_per_turn:
            if not actions:
                finish(g, None, "no legal order in Point-Buy Chess (C3)")
            else:
                g.decision = Ask(player, actions, "issue an order (one is required in Point-Buy Chess)",
                                 labeler=phase_label)
            return
        prompt = f"order phase, {g.orders} order(s) left"
    elif phase == ACTION_PHASE:
        actions = []
        if g.actions > 0:
            _add_playable(g, player, "action", actions)
        prompt = f"action phase, {g.actions} action(s) left"
    else:
        actions = []
        if not g.bought:
            _add_playable(g, player, "buy", actions)
        if g.buys > 0:
            costs, supply, budget = g.cards.costs, g.supply, g.gold + g.discount
            buy = A.buy
            for card in g.supply_ids:
                if supply[card] > 0 and costs[card] <= budget:      # cost() = max(0, cost - discount)
                    actions.append(buy(card))
        prompt = f"buy phase, {g.gold} gold, {g.buys} buy(s)"
    if not actions:
        next_phase(g)
        return
    actions.append(A.DONE)
    g.decision = Ask(player, actions, prompt, labeler=phase_label)


def choose(g: GameCore, player: int, action: int) -> None:
    if g.phase == SETUP_PHASE:
        g.variant.setup_choose(g, player, action)
        return
    if action == A.DONE:
        next_phase(g)
        return
    if A.is_order(action):
        g.orders -= 1
        tk.apply_board_order(g, player, action)
        if g.variant.one_order_per_turn:
            next_phase(g)
        return
    kind, arg = A.decode(action)
    if kind == A.K_PLAY:
        play_card(g, player, A.play_card(action), A.play_effect(action))
    elif kind == A.K_BUY:
        g.buys -= 1
        g.gold -= g.cost(arg)
        g.bought = True
        tk.gain(g, player, arg)
    else:
        g.variant.choose_order_action(g, player, action)


def play_card(g: GameCore, player: int, card: int, index: int) -> None:
    """Play a card from the hand for one effect (5.0): pay the order/action, apply the printed
    numbers, queue the draws, then the effect's own steps."""
    spec = g.cards.cards[card].effects[index]
    tk.move_card(g, player, card, "hand", "played")
    phase = spec.phase
    if phase == ORDER_PHASE:
        g.orders -= 1
    elif phase == ACTION_PHASE:
        g.actions -= 1
    if spec.kind == "training":
        # 7.0 / C9: trash the card and train from the Stock what it holds.
        g.zones[player].played.remove(card)
        tk.trash_card(g, card)
        tk.train(g, player, spec.trains, spec.count)
        return
    earlier_treasures = g.treasures_played
    if spec.kind == "treasure":
        g.treasures_played += 1
    g.gold += spec.gold
    g.orders += spec.orders
    g.actions += spec.actions
    g.buys += spec.buys
    if has_steps(g, card, index):
        frame = Frame(card, index, player)
        frame.data["earlier_treasures"] = earlier_treasures
        g.tasks.append(RunFrame(frame))
    if spec.draws:
        tk.queue_draw(g, None, player, spec.draws)


def next_phase(g: GameCore) -> None:
    if g.phase == ORDER_PHASE and not g.variant.orders_only(g.current):
        g.phase = ACTION_PHASE
    elif g.phase == ACTION_PHASE:
        g.phase = BUY_PHASE
    else:
        housekeeping(g)


def housekeeping(g: GameCore) -> None:
    """9.0: discard the hand and the played cards, draw 5, end the turn."""
    player = g.current
    zones = g.zones[player]
    orders_only = g.variant.orders_only(player)
    if not orders_only:
        zones.discard.extend(zones.hand)
        zones.discard.extend(zones.played)
        zones.hand.clear()
        zones.played.clear()
        zones.known_hand.clear()
    g.phase = HOUSEKEEPING
    g.tasks.append(END_TURN)
    if not orders_only:
        tk.queue_draw(g, None, player, HAND_SIZE)


def start_turn(g: GameCore, player: int) -> None:
    g.current = player
    g.board.set_side(player)
    g.phase = ORDER_PHASE
    g.orders, g.actions, g.buys, g.gold = 1, 1, 1, 0
    g.treasures_played = g.discount = 0
    g.bought = False
    g.barracks_ordered = [{}, {}]
    g.card_order_ban[player] = g.card_order_ban_next[player]
    g.card_order_ban_next[player] = False


def start_play(g: GameCore, first: int) -> None:
    """Start the first turn of the game, ``first`` being the player who opens the normal
    alternation (Blue; the Defender in The Last Stand; a Point-Buy start position's side to move).

    Extra turns (11.4) are a head start taken before that alternation begins (RULINGS C21): the
    other player's extra turns come first (this first turn is one of them), then ``first`` plays
    its own extra turns followed by its first normal turn, and the players alternate. end_turn
    does the rest: after a turn its player moves again while it has extra turns left. So Yellow
    with one extra turn plays Yellow, Blue, Yellow, Blue; Blue with one plays Blue, Blue, Yellow."""
    second = 1 - first
    if g.extra_turns[second] > 0:
        g.extra_turns[second] -= 1
        first = second
    start_turn(g, first)


def finish(g: GameCore, winner: int | None, reason: str) -> None:
    g.winner = winner
    g.over_reason = reason
    g.decision = None
    g.tasks.clear()


def state_key(g: GameCore) -> int:
    """The full state that C3's repetition rule compares (board and every card zone)."""
    zones = tuple(
        (tuple(z.deck), tuple(z.top), tuple(sorted(z.hand)), tuple(sorted(z.discard)))
        for z in g.zones
    )
    return hash((g.board.key, zones, tuple(g.supply), tuple(sorted(g.trash)), tuple(sorted(g.set_aside)),
                 g.current))


def end_turn(g: GameCore) -> None:
    player = g.current
    following = player if g.extra_turns[player] > 0 else 1 - player     # 11.4 extra turns (start_play)
    tk.end_turn_flags(g, following)
    g.turns_taken[player] += 1
    g.turn += 1
    ended = g.variant.sovereign_check(g, player)
    if ended is not None:
        finish(g, *ended)
        return
    if g.turn >= g.config.max_turns:
        finish(g, None, f"draw: {g.config.max_turns} turns (C3)")
        return
    halfmove = g.board.halfmove
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

