"""GameState: the full card-and-board game as a sequence of atomic decisions (OpenSpiel style).

A turn (4.0-9.0) is Order phase, Action phase, Buy phase, Housekeeping. Every choice a player makes
is one integer action (engine/game/actions.py) with a readable text; chance is explicit: drawing a
card from a Deck is a chance node whose outcomes are the card types left in it, weighted by count
(the Deck's order is unknown to everyone, C4, so a Deck is a multiset plus the cards known to lie on
top of it). With ``auto_chance=True`` (the default) chance nodes are resolved at once by the state's
seeded generator (C5), so ``legal_actions`` always belongs to a player.

Card effects are small step functions registered by card name (engine/game/effects/); the numbers
printed on a card (gold, +orders, +actions, +buys, draws) are data and are applied before its step
function runs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import _position
from engine.catalog import Catalog, default_catalog
from engine.game import actions as A
from engine.game.cards import CardCatalog, default_cards
from engine.game.config import GameConfig
from engine.notation import BLUE, YELLOW
from engine.position import Order

__all__ = ["GameState", "Frame", "Ask", "CONTINUE", "GameError", "IllegalActionError", "PHASES"]

ORDER_PHASE, ACTION_PHASE, BUY_PHASE, SETUP_PHASE = "order", "action", "buy", "setup"
PHASES = (SETUP_PHASE, ORDER_PHASE, ACTION_PHASE, BUY_PHASE)
CHANCE = -1
TERMINAL = -4

# Kernel status flags (ext/_board.pxd ST_*).
ST_ORDERED, ST_BANNED, ST_IMMUNE_BLUE, ST_IMMUNE_YELLOW, ST_MOURNED = range(5)
PLAYER_NAMES = ("Blue", "Yellow")


def _squares(bits: int):
    """The squares of a bitboard, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


class GameError(ValueError):
    """A game that cannot be set up or continued as asked; the message says why."""


class IllegalActionError(GameError):
    """An action that is not legal in the current state; the state is left unchanged."""


class Frame:
    """One card effect in progress: which effect, whose, at which step, with what it remembers.

    ``data`` holds only immutable values (ints, strings, tuples, frozensets) so that cloning a state
    copies a frame with a shallow dict copy."""

    __slots__ = ("card", "index", "player", "step", "data", "choice")

    def __init__(self, card: int, index: int, player: int):
        self.card, self.index, self.player = card, index, player
        self.step = 0
        self.data: dict = {}
        self.choice: int | None = None

    def copy(self) -> "Frame":
        other = Frame(self.card, self.index, self.player)
        other.step, other.data, other.choice = self.step, dict(self.data), self.choice
        return other


@dataclass
class Ask:
    """A decision a step function asks for: ``player`` chooses one of ``options`` (action -> text)."""

    player: int
    options: dict[int, str]
    prompt: str
    frame: Frame | None = None
    zone: str | None = None       # where the cards of "card" choices come from (actions.CARD_ZONES)


#: Returned by a step function that queued draws or reveals and wants to resume afterwards.
CONTINUE = object()


class PlayerZones:
    """One player's cards. ``deck`` counts cards per card id (its order is unknown, C4); ``top`` lists
    the cards known to lie on top of the Deck, last = top, each with whether the opponent knows it."""

    __slots__ = ("deck", "top", "hand", "discard", "played", "known_hand")

    def __init__(self, n_cards: int):
        self.deck = [0] * n_cards
        self.top: list[tuple[int, bool]] = []
        self.hand: list[int] = []
        self.discard: list[int] = []
        self.played: list[int] = []          # cards played this turn and not trashed (9.0)
        self.known_hand: list[int] = []      # cards of this hand the opponent has seen (reveals)

    def copy(self) -> "PlayerZones":
        other = PlayerZones.__new__(PlayerZones)
        other.deck, other.top, other.hand = list(self.deck), list(self.top), list(self.hand)
        other.discard, other.played, other.known_hand = list(self.discard), list(self.played), list(self.known_hand)
        return other

    def deck_size(self) -> int:
        return sum(self.deck) + len(self.top)

    def all_cards(self) -> list[int]:
        cards = list(self.hand) + list(self.discard) + list(self.played) + [c for c, _ in self.top]
        for card_id, n in enumerate(self.deck):
            cards.extend([card_id] * n)
        return cards


class GameState:
    """The whole game. Create with a GameConfig; drive with legal_actions()/apply()."""

    def __init__(self, config: GameConfig | None = None, cards: CardCatalog | None = None,
                 units: Catalog | None = None, auto_chance: bool = True):
        self.config = config or GameConfig()
        self.cards = cards or default_cards()
        self.units = units or default_catalog()
        self.auto_chance = auto_chance
        self.rng = random.Random(self.config.seed)
        self.board = _position.BoardCore(self.units.tables)
        n = len(self.cards)
        self.zones = [PlayerZones(n), PlayerZones(n)]
        self.supply = [0] * n
        self.trash: list[int] = []
        self.supply_ids: tuple[int, ...] = ()
        self.supply_names: tuple[str, ...] = ()   # the variable piles chosen at set-up
        self.current = BLUE
        self.turn = 0                  # turns completed in the whole game
        self.turns_taken = [0, 0]
        self.extra_turns = list(self.config.extra_turns)
        self.phase = SETUP_PHASE
        self.orders = self.actions = self.buys = self.gold = 0
        self.treasures_played = 0
        self.discount = 0
        self.bought = False
        self.card_order_ban = [False, False]     # Wish (alternate): no card orders this turn
        self.card_order_ban_next = [False, False]
        self.barracks_ordered: list[dict[int, int]] = [{}, {}]   # type -> units ordered into the Barracks this turn
        self.tasks: list = []
        self.decision: Ask | None = None
        self.chance: tuple | None = None          # (player, kind) of a pending chance event
        self.winner: int | None = None            # BLUE, YELLOW, or None
        self.over_reason: str | None = None
        self.history: list[tuple[int, int]] = []  # (player or CHANCE, action or card id)
        self.repetitions: dict[int, int] = {}
        self.promote_types = 0
        self.determinized = False                  # a sample from resample_hidden: no history, no record
        self.setup_state: dict = {}
        from engine.game import setup as game_setup  # the set-up needs the state machinery

        game_setup.set_up(self)
        self._run()

    # -- public API --------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.over_reason is not None

    def is_chance_node(self) -> bool:
        return self.chance is not None and not self.is_terminal()

    def current_player(self) -> int:
        """The player to decide, CHANCE (-1) at a chance node, TERMINAL (-4) when over."""
        if self.is_terminal():
            return TERMINAL
        if self.chance is not None:
            return CHANCE
        return self.decision.player

    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        if self.chance is not None:
            return [card for card, _ in self.chance_outcomes()]
        return list(self.decision.options)

    def action_text(self, action: int) -> str:
        if self.chance is not None:
            return f"draw {self.cards.cards[action].name}"
        return self.decision.options[action]

    def action_fields(self, action: int) -> dict:
        """What a legal action is, as data (``actions.fields``), with the zone a card choice takes
        its card from ("hand", "supply", ...: ``actions.CARD_ZONES``) when the decision says."""
        zone = self.decision.zone if self.decision is not None and self.chance is None else None
        return A.fields(action, self.cards, self.units, zone)

    def legal_action_texts(self) -> dict[int, str]:
        return {a: self.action_text(a) for a in self.legal_actions()}

    def prompt(self) -> str:
        if self.is_terminal():
            return f"game over: {self.over_reason}"
        if self.chance is not None:
            return "chance: a card is drawn"
        return self.decision.prompt

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(card id, probability) of the pending draw or reveal."""
        if self.chance is None:
            return []
        deck = self.zones[self.chance[0]].deck
        total = sum(deck)
        return [(card, n / total) for card, n in enumerate(deck) if n]

    def apply(self, action: int) -> None:
        """Take one decision (or resolve the pending chance event with a card id)."""
        if self.is_terminal():
            raise IllegalActionError("the game is over")
        if self.chance is not None:
            player = self.chance[0]
            if not (0 <= action < len(self.cards) and self.zones[player].deck[action] > 0):
                raise IllegalActionError(f"chance outcome {action} is not a card left in {PLAYER_NAMES[player]}'s Deck")
            self.chance = None
            self._resolve_chance(player, action)
            self._run()
            return
        ask = self.decision
        if action not in ask.options:
            raise IllegalActionError(
                f"action {action} is not legal now ({PLAYER_NAMES[ask.player]}: {ask.prompt}); "
                f"{len(ask.options)} legal actions"
            )
        self.history.append((ask.player, action))
        self.decision = None
        if ask.frame is not None:
            ask.frame.choice = action
        else:
            self._phase_choice(ask.player, action)
        self._run()

    def resign(self, player: int) -> None:
        """``player`` resigns and the opponent wins, whoever is to decide now. The resignation is a
        step of the history (``[player, actions.RESIGN]``), so a record of a resigned game replays."""
        if self.is_terminal():
            raise IllegalActionError("the game is over")
        if player not in (BLUE, YELLOW):
            raise GameError(f"player must be 0 (Blue) or 1 (Yellow), got {player!r}")
        self.history.append((player, A.RESIGN))
        self.winner = 1 - player
        self.over_reason = f"{PLAYER_NAMES[player]} resigned"
        self.decision = None
        self.chance = None
        self.tasks.clear()

    def apply_text(self, text: str) -> None:
        """Apply the legal action whose text is ``text``."""
        for action, label in self.legal_action_texts().items():
            if label == text:
                self.apply(action)
                return
        raise IllegalActionError(f"no legal action reads {text!r} now ({self.prompt()})")

    def returns(self) -> list[float]:
        """+1 for the winner, -1 for the loser, 0 each for a draw or an unfinished game. The Last
        Stand: the Attacker scores 1 - 2*turns/max_turns (fewer turns is better), the Defender the
        opposite."""
        if not self.is_terminal():
            return [0.0, 0.0]
        if self.config.variant == "last-stand":
            attacker = 1.0 - 2.0 * min(self.turns_taken[BLUE], self.config.max_turns) / self.config.max_turns
            return [attacker, -attacker]
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == BLUE else [-1.0, 1.0]

    def score(self) -> int | None:
        """The Last Stand (11.5): the Defender's score, the number of turns the Attacker took."""
        return self.turns_taken[BLUE] if self.config.variant == "last-stand" else None

    def clone(self) -> "GameState":
        other = GameState.__new__(GameState)
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.board = self.board.copy()
        other.zones = [z.copy() for z in self.zones]
        other.supply = list(self.supply)
        other.trash = list(self.trash)
        other.extra_turns = list(self.extra_turns)
        other.turns_taken = list(self.turns_taken)
        other.card_order_ban = list(self.card_order_ban)
        other.card_order_ban_next = list(self.card_order_ban_next)
        other.barracks_ordered = [dict(d) for d in self.barracks_ordered]
        frames = {}
        other.tasks = []
        for task in self.tasks:
            if task[0] == "frame":
                frames[id(task[1])] = copy = task[1].copy()
                other.tasks.append(("frame", copy))
            else:
                other.tasks.append(tuple(task) if not isinstance(task, list) else list(task))
        if self.decision is not None:
            frame = self.decision.frame
            other.decision = Ask(self.decision.player, dict(self.decision.options), self.decision.prompt,
                                 frames.get(id(frame)) if frame is not None else None)
        other.history = list(self.history)
        other.repetitions = dict(self.repetitions)
        other.setup_state = dict(self.setup_state)
        return other

    # -- helpers for effects ----------------------------------------------------------------
    def card_name(self, card_id: int) -> str:
        return self.cards.cards[card_id].name

    def unit_token(self, t: int) -> str:
        return self.units.units[t].token

    def unit_name(self, t: int) -> str:
        return self.units.units[t].name

    def unit_has_class(self, t: int, cls: str) -> bool:
        return cls in self.units.units[t].classes

    def opponent(self, player: int) -> int:
        return 1 - player

    def ask(self, frame: Frame, player: int, options: dict[int, str], prompt: str, next_step: int) -> Ask:
        """Pause ``frame`` until ``player`` picks one of ``options``; it resumes at ``next_step``."""
        if not options:
            raise GameError(f"internal: {self.card_name(frame.card)} asked a question with no answer")
        frame.step = next_step
        return Ask(player, options, f"{self.card_name(frame.card)}: {prompt}", frame)

    def queue_draw(self, frame: Frame | None, player: int, count: int, next_step: int | None = None) -> object:
        """Draw ``count`` cards for ``player`` (5.0: reshuffling the Discard when the Deck is empty);
        the frame resumes at ``next_step`` once they are drawn."""
        if frame is not None and next_step is not None:
            frame.step = next_step
        if count > 0:
            self.tasks.append(["draw", player, count])
        return CONTINUE

    def queue_reveal(self, frame: Frame, player: int, next_step: int, reshuffle: bool = True) -> object:
        """Reveal the top card of ``player``'s Deck into frame.data['revealed'] (None when there is
        none); with reshuffle the Discard becomes the Deck first if the Deck is empty."""
        frame.step = next_step
        self.tasks.append(["reveal", player, frame, reshuffle])
        return CONTINUE

    def board_order_codes(self, player: int, cylindrical: bool = False) -> list[int]:
        """Encoded orders ``player`` could issue with its units now (units ordered or banned this
        turn excluded), after The Last Stand's board rules."""
        self._last_stand_guard(True)
        try:
            codes = self.board.generate_for(player, cylindrical)
        finally:
            self._last_stand_guard(False)
        locked = self.barracks_ordered[player]
        if locked:
            # A unit an order sent to the Barracks this turn cannot be deployed again (6.0).
            codes = [c for c in codes if (c >> 24) & 7 != 2
                     or self.board.barracks_count(player, (c >> 12) & 63) > locked.get((c >> 12) & 63, 0)]
        if self.config.variant == "last-stand" and player == YELLOW:
            # C13: the Defender's units never enter the Defender's eighth rank (rank 1). Kinds 3 and
            # 4 (shoot, swap) move no unit onto their target square.
            codes = [c for c in codes if (c >> 24) & 7 in (3, 4) or (c & 63) >= 8]
        return codes

    def board_orders(self, player: int, cylindrical: bool = False, include_deploys: bool = True) -> list[Order]:
        """board_order_codes as Order objects."""
        orders = [Order.from_code(code, self.units) for code in self.board_order_codes(player, cylindrical)]
        if not include_deploys:
            orders = [o for o in orders if o.kind != "deploy"]
        return orders

    def apply_board_order(self, player: int, order: Order, mark: bool = True) -> None:
        """Play a board order of ``player``'s unit within the current turn; with ``mark`` the unit
        counts as ordered this turn (6.0)."""
        self.board.apply_for(player, order.code)
        if mark:
            self.board.set_status(self.order_unit_square(order), ST_ORDERED, True)

    @staticmethod
    def order_unit_square(order: Order) -> int:
        """Where the ordered unit stands after the order."""
        return order.origin if order.kind == "shoot" else order.dest

    def units_of(self, player: int, cls: str | None = None) -> list[int]:
        """Squares of ``player``'s units (of class ``cls``)."""
        squares = self.board.squares_of(player)
        if cls is None:
            return squares
        return [sq for sq in squares if self.unit_has_class(self.board.unit_on(sq)[0], cls)]

    def barracks_types(self, player: int, cls: str | None = None, include_ordered: bool = False) -> list[int]:
        """Types with units in ``player``'s Barracks (of class ``cls``). Units sent there by an order
        this turn (Supply Tent) were ordered and cannot be deployed again this turn (6.0), unless
        ``include_ordered`` (actions may use them)."""
        locked = self.barracks_ordered[player]
        return [
            t for t in range(len(self.units))
            if self.board.barracks_count(player, t) > (0 if include_ordered else locked.get(t, 0))
            and (cls is None or self.unit_has_class(t, cls))
        ]

    def send_to_barracks(self, square: int, ordered: bool) -> None:
        """Board -> its owner's Barracks; with ``ordered`` the unit counts as ordered this turn."""
        unit = self.board.unit_on(square)
        self.board.to_barracks(square)
        if ordered:
            locked = self.barracks_ordered[unit[1]]
            locked[unit[0]] = locked.get(unit[0], 0) + 1

    def morph_barracks(self, player: int, t: int, new_t: int) -> None:
        """Morph one of ``player``'s Barracks units of type ``t`` into ``new_t`` (Refiner, Destiny).
        Units of a type are interchangeable, so an unlocked one is morphed when there is one; if
        every unit of ``t`` was sent there by an order this turn, the morphed unit keeps that lock
        under its new type (it still may not be deployed this turn, 6.0, C17)."""
        locked = self.barracks_ordered[player]
        self.board.morph_barracks(player, t, new_t)
        if locked.get(t, 0) > self.board.barracks_count(player, t):
            locked[t] -= 1
            locked[new_t] = locked.get(new_t, 0) + 1

    def is_ordered(self, square: int) -> bool:
        return self.board.has_status(square, ST_ORDERED) or self.board.has_status(square, ST_BANNED)

    def mark_ordered(self, square: int) -> None:
        self.board.set_status(square, ST_ORDERED, True)

    def make_immune(self, square: int, until_turn_of: int) -> None:
        """C6: the unit cannot be captured until ``until_turn_of``'s next turn starts (C15: whoever
        moves in between; see end_turn_flags)."""
        self.board.set_status(square, ST_IMMUNE_BLUE if until_turn_of == BLUE else ST_IMMUNE_YELLOW, True)

    def expire_immunity(self, player: int) -> None:
        """C15: the start of ``player``'s turn ends every immunity "until <player>'s next turn"."""
        flag = ST_IMMUNE_BLUE if player == BLUE else ST_IMMUNE_YELLOW
        for square in _squares(self.board.state()["status"][flag]):
            self.board.set_status(square, flag, False)

    def ban_orders(self, square: int) -> None:
        """The unit may not be ordered by its owner until the end of its owner's next (or current)
        turn (False Orders; Mourning's ban of the opponent's units)."""
        self.board.set_status(square, ST_BANNED, True)

    def ban_own_unit(self, square: int) -> None:
        """Mourning (C16) on one of the card player's own units: it may still be ordered in the
        rest of this turn, and no player may order it during the next turn (to the end of the
        opponent's next turn, extra turns (11.4) in between included, C15).

        The unit carries the kernel's "mourned" flag, which does nothing by itself and travels
        with the unit (a swap or a Fog march keeps it); end_turn_flags turns it into the ban when
        the turn changes."""
        self.board.set_status(square, ST_MOURNED, True)

    def end_turn_flags(self, following: int) -> None:
        """End the current turn on the board (kernel end_turn: "ordered" and the mover's bans
        expire) when ``following`` plays next. The kernel assumes the other side moves next; C15
        does not: immunity "until the other side's turn" is kept when the mover plays again (11.4
        extra turns), immunity "until <following>'s turn" ends now (expire_immunity). The mover's
        mourned units (ban_own_unit) are banned now: through the mover's extra turns (ban and
        ordered, the flag stays) and during the opponent's next turn ("ordered", which False
        Orders, Wanderlust and Wilderness pass over and the kernel clears when that turn ends)."""
        player = self.current
        status = self.board.state()["status"]
        other_immune = ST_IMMUNE_YELLOW if player == BLUE else ST_IMMUNE_BLUE
        kept_immune = list(_squares(status[other_immune]))
        own = sum(1 << square for square in self.board.squares_of(player))
        mourned = list(_squares(status[ST_MOURNED] & own))
        self.board.end_turn()
        if following == player:
            for square in kept_immune:
                self.board.set_status(square, other_immune, True)
            for square in mourned:
                self.board.set_status(square, ST_BANNED, True)
                self.board.set_status(square, ST_ORDERED, True)
        else:
            for square in mourned:
                self.board.set_status(square, ST_MOURNED, False)
                self.board.set_status(square, ST_ORDERED, True)
        self.expire_immunity(following)

    def is_immune(self, square: int) -> bool:
        return self.board.has_status(square, ST_IMMUNE_BLUE) or self.board.has_status(square, ST_IMMUNE_YELLOW)

    def is_threatened(self, square: int, player: int, origin: int = -1) -> bool:
        """C7 for ``player``'s unit standing on ``square`` (moved from ``origin`` if given)."""
        self._last_stand_guard(True)
        try:
            return self.board.threatened(square, player, origin, False)
        finally:
            self._last_stand_guard(False)

    def adjacent(self, square: int) -> list[int]:
        f, r = square & 7, square >> 3
        return [
            (r + dr) * 8 + f + df for dr in (-1, 0, 1) for df in (-1, 0, 1)
            if (dr or df) and 0 <= r + dr < 8 and 0 <= f + df < 8
        ]

    def empty_squares(self) -> list[int]:
        occupied = self.board.occupied()
        return [sq for sq in range(64) if not occupied >> sq & 1]

    def rank_of(self, square: int, player: int) -> int:
        """1..8, counted from ``player``'s side (A1)."""
        r = (square >> 3) + 1
        return r if player == BLUE else 9 - r

    def hand_choices(self, player: int, predicate=None, exclude: tuple = ()) -> dict[int, str]:
        """One option per distinct card in the hand (copies are interchangeable)."""
        options = {}
        for card in sorted(set(self.zones[player].hand)):
            if card in exclude or (predicate is not None and not predicate(self.cards.cards[card])):
                continue
            options[A.card(card)] = self.card_name(card)
        return options

    def supply_choices(self, predicate) -> dict[int, str]:
        return {
            A.card(c): f"{self.card_name(c)} ({self.cost(c)} gold)"
            for c in self.supply_ids if self.supply[c] > 0 and predicate(self.cards.cards[c])
        }

    def cost(self, card_id: int) -> int:
        """Cost now, after Quartermaster discounts (never below 0)."""
        return max(0, (self.cards.cards[card_id].cost or 0) - self.discount)

    def move_card(self, player: int, card: int, source: str, dest: str) -> None:
        """Move one copy of ``card`` between ``player``'s zones (hand, discard, played, top, trash)."""
        zones = self.zones[player]
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
            self.trash_card(card)
        elif dest == "played":
            zones.played.append(card)
        else:
            raise GameError(f"internal: unknown zone {dest!r}")

    def reshuffle(self, player: int) -> None:
        """5.0: the Discard is shuffled into the Deck (a multiset: shuffling is drawing at random)."""
        zones = self.zones[player]
        for card in zones.discard:
            zones.deck[card] += 1
        zones.discard.clear()

    def trash_card(self, card: int) -> None:
        """To the Trash; in The Last Stand the Attacker's trashed cards go back to the Supply (11.5)."""
        if self.config.variant == "last-stand" and card in self.supply_ids:
            self.supply[card] += 1
        else:
            self.trash.append(card)

    def gain(self, player: int, card: int) -> None:
        """Take a card from the Supply into the Discard (Gain, glossary)."""
        if self.supply[card] <= 0:
            raise GameError(f"internal: the {self.card_name(card)} pile is empty")
        self.supply[card] -= 1
        self.zones[player].discard.append(card)

    def reveal_hand(self, player: int) -> None:
        """The whole hand becomes known to the opponent (Astrology, Far Sight)."""
        self.zones[player].known_hand = list(self.zones[player].hand)

    def train(self, player: int, token_or_type, count: int = 1) -> int:
        t = token_or_type if isinstance(token_or_type, int) else self.units[token_or_type].id
        return self.board.train(player, t, count)

    # -- the engine loop ---------------------------------------------------------------------
    def _run(self) -> None:
        """Advance until a player must decide, a chance event is pending, or the game is over."""
        from engine.game.effects import run_effect

        while not self.is_terminal() and self.decision is None and self.chance is None:
            if self.tasks:
                task = self.tasks[-1]
                kind = task[0]
                if kind == "draw":
                    if task[2] <= 0:
                        self.tasks.pop()
                        continue
                    if not self._draw_one(task[1]):
                        self.tasks.pop()          # nothing left to draw (5.0): the rest is lost
                    continue
                if kind == "reveal":
                    self._reveal(task)
                    continue
                if kind == "frame":
                    frame = task[1]
                    choice, frame.choice = frame.choice, None
                    result = run_effect(self, frame, choice)
                    if isinstance(result, Ask):
                        self.decision = result
                    elif result is not CONTINUE and self.tasks and self.tasks[-1] is task:
                        self.tasks.pop()
                    continue
                if kind == "end_turn":
                    self.tasks.pop()
                    self._end_turn()
                    continue
                if kind == "call":
                    self.tasks.pop()
                    task[1](self)
                    continue
                raise GameError(f"internal: unknown task {kind!r}")
            self._phase_decision()

    def _draw_one(self, player: int) -> bool:
        zones = self.zones[player]
        if zones.top:
            card, _ = zones.top.pop()
            zones.hand.append(card)
            self._after_draw()
            return True
        if sum(zones.deck) == 0:
            if not zones.discard:
                return False
            self.reshuffle(player)
        if self.auto_chance:
            self._resolve_chance(player, self._sample(zones.deck))
        else:
            self.chance = (player, "draw")
        return True

    def _sample(self, deck: list[int]) -> int:
        pick = self.rng.randrange(sum(deck))
        for card, n in enumerate(deck):
            if pick < n:
                return card
            pick -= n
        raise AssertionError("unreachable")

    def _resolve_chance(self, player: int, card: int) -> None:
        """A chance event's outcome: ``card`` leaves ``player``'s Deck (recorded for replays)."""
        self.history.append((CHANCE, card))
        self._take_from_deck(player, card)

    def _take_from_deck(self, player: int, card: int) -> None:
        zones = self.zones[player]
        zones.deck[card] -= 1
        task = self.tasks[-1]
        if task[0] == "reveal":
            task[2].data["revealed"] = card
            self.tasks.pop()
            return
        zones.hand.append(card)
        self._after_draw()

    def _after_draw(self) -> None:
        task = self.tasks[-1]
        task[2] -= 1
        if task[2] <= 0:
            self.tasks.pop()

    def _reveal(self, task) -> None:
        _, player, frame, reshuffle = task
        zones = self.zones[player]
        if zones.top:
            card, _ = zones.top.pop()
            frame.data["revealed"] = card
            self.tasks.pop()
            return
        if sum(zones.deck) == 0:
            if not reshuffle or not zones.discard:
                frame.data["revealed"] = None
                self.tasks.pop()
                return
            self.reshuffle(player)
        if self.auto_chance:
            self._resolve_chance(player, self._sample(zones.deck))
        else:
            self.chance = (player, "reveal")

    # -- phases ------------------------------------------------------------------------------
    def _phase_decision(self) -> None:
        from engine.game import phases

        phases.decide(self)

    def _phase_choice(self, player: int, action: int) -> None:
        from engine.game import phases

        phases.choose(self, player, action)

    def _end_turn(self) -> None:
        from engine.game import phases

        phases.end_turn(self)

    # -- The Last Stand board rules (11.5, C13) -----------------------------------------------
    def _last_stand_guard(self, on: bool) -> None:
        """The Attacker's units on the Attacker's first rank cannot be captured (C13): while an
        order is generated or played they carry an immunity flag that is taken off afterwards."""
        if self.config.variant != "last-stand":
            return
        if on:
            guarded = []
            for sq in range(8):
                unit = self.board.unit_on(sq)
                if unit and unit[1] == BLUE and not self.board.has_status(sq, ST_IMMUNE_YELLOW):
                    self.board.set_status(sq, ST_IMMUNE_YELLOW, True)
                    guarded.append(sq)
            self.setup_state["guarded"] = tuple(guarded)
        else:
            for sq in self.setup_state.pop("guarded", ()):
                if self.board.unit_on(sq):
                    self.board.set_status(sq, ST_IMMUNE_YELLOW, False)

    # -- hidden information and records (engine/game/observation.py, record.py) ---------------
    def observation(self, player: int) -> dict:
        from engine.game.observation import observation

        return observation(self, player)

    def resample_hidden(self, player: int, rng: random.Random) -> "GameState":
        from engine.game.observation import resample_hidden

        return resample_hidden(self, player, rng)

    def record(self) -> dict:
        from engine.game.record import make_record

        return make_record(self)
