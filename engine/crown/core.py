"""The full game's state as data: the board, every card zone, the counters of the turn, the pending
decision and the task stack, and the questions one may ask of it. Nothing here changes a game: the
driver (engine/crown/state.py, ``GameState``) applies actions; the toolkit (toolkit.py) is what card
effects, phases and set-ups change a state with.

Imports run one way inside engine/crown (docs/architecture.md)::

    actions, cards, config -> core -> toolkit -> effects -> phases -> setup -> variants -> state
                              core -> observation, record

A decision is an ``Ask``: who decides, the legal actions (dense integers, engine/crown/actions.py),
a prompt, and how to name an action when a text is asked for. Texts are made only when asked
(``action_text``), as OpenSpiel does: most decisions of a search are never read by a person.

Work inside a turn is a stack of typed tasks (``Draw``, ``Reveal``, ``RunFrame``, ``EndTurn``); a
card effect in progress is a ``Frame`` whose ``data`` holds immutable values only, so a state can be
cloned at any decision.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import _position
from engine.catalog import Catalog
from engine.crown import actions as A
from engine.crown.cards import CardCatalog
from engine.crown.config import GameConfig
from engine.games.protocol import CHANCE, TERMINAL
from engine.notation import BLUE

__all__ = [
    "GameCore", "Frame", "Ask", "CONTINUE", "GameError", "IllegalActionError", "PlayerZones",
    "Draw", "Reveal", "RunFrame", "EndTurn", "END_TURN",
    "PHASES", "ORDER_PHASE", "ACTION_PHASE", "BUY_PHASE", "SETUP_PHASE", "HOUSEKEEPING", "CHANCE", "TERMINAL",
    "PLAYER_NAMES",
]

ORDER_PHASE, ACTION_PHASE, BUY_PHASE, SETUP_PHASE = "order", "action", "buy", "setup"
#: Cards a player draws for a hand: at set-up and at the end of each of its turns (9.0).
HAND_SIZE = 5
HOUSEKEEPING = "housekeeping"
PHASES = (SETUP_PHASE, ORDER_PHASE, ACTION_PHASE, BUY_PHASE)
PLAYER_NAMES = ("Blue", "Yellow")


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

    def copy(self) -> Frame:
        other = Frame(self.card, self.index, self.player)
        other.step, other.data, other.choice = self.step, dict(self.data), self.choice
        return other


#: Names an action of a decision: ``labeler(state, action) -> text``. A module-level function, never
#: a closure over a state, so that a cloned decision names actions of the clone.
Labeler = Callable[["GameCore", int], str]


class Ask:
    """A decision: ``player`` chooses one of ``actions``.

    The texts come from ``labels`` (action -> text, built by the asker) or, made only when asked,
    from ``labeler(state, action)``. ``frame`` is the effect that resumes with the choice (None for
    a phase's own decision). ``zone`` says where the cards of "card" choices come from
    (``actions.CARD_ZONES``)."""

    __slots__ = ("player", "actions", "prompt", "frame", "labels", "labeler", "zone")

    def __init__(self, player: int, actions: list[int], prompt: str, frame: Frame | None = None,
                 labels: dict[int, str] | None = None, labeler: Labeler | None = None, zone: str | None = None):
        self.player, self.actions, self.prompt, self.frame = player, actions, prompt, frame
        self.labels, self.labeler, self.zone = labels, labeler, zone

    @classmethod
    def of(cls, player: int, options: dict[int, str], prompt: str, frame: Frame | None = None,
           zone: str | None = None) -> Ask:
        """A decision whose options come with their texts (action -> text)."""
        return cls(player, list(options), prompt, frame, labels=options, zone=zone)

    def text(self, state: GameCore, action: int) -> str:
        if self.labels is not None:
            return self.labels[action]
        return self.labeler(state, action)

    def copy(self, frame: Frame | None) -> Ask:
        return Ask(self.player, self.actions, self.prompt, frame, self.labels, self.labeler, self.zone)


#: Returned by a step function that queued draws or reveals and wants to resume afterwards.
CONTINUE = object()


class Draw:
    """Task: draw ``count`` cards for ``player`` (5.0)."""

    __slots__ = ("player", "count")

    def __init__(self, player: int, count: int):
        self.player, self.count = player, count


class Reveal:
    """Task: reveal the top card of ``player``'s Deck into ``frame.data['revealed']``; with
    ``reshuffle`` the Discard becomes the Deck first if the Deck is empty."""

    __slots__ = ("player", "frame", "reshuffle")

    def __init__(self, player: int, frame: Frame, reshuffle: bool):
        self.player, self.frame, self.reshuffle = player, frame, reshuffle


class RunFrame:
    """Task: run (or resume) a card effect's steps."""

    __slots__ = ("frame",)

    def __init__(self, frame: Frame):
        self.frame = frame


class EndTurn:
    """Task: the turn ends (after housekeeping's draws)."""

    __slots__ = ()


END_TURN = EndTurn()


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

    def copy(self) -> PlayerZones:
        other = PlayerZones.__new__(PlayerZones)
        other.deck, other.top, other.hand = self.deck[:], self.top[:], self.hand[:]
        other.discard, other.played, other.known_hand = self.discard[:], self.played[:], self.known_hand[:]
        return other

    def deck_size(self) -> int:
        return sum(self.deck) + len(self.top)

    def all_cards(self) -> list[int]:
        cards = list(self.hand) + list(self.discard) + list(self.played) + [c for c, _ in self.top]
        for card_id, n in enumerate(self.deck):
            cards.extend([card_id] * n)
        return cards


class GameCore:
    """The whole game as data, with the read-only API (OpenSpiel style: ``current_player``,
    ``legal_actions``, ``action_text``, ``returns``, ...) and ``clone``. Created empty by
    ``GameState`` (engine/crown/state.py), which sets a game up and applies actions. It implements
    the state protocol (engine/games/protocol.py) with the driver's ``apply``."""

    #: The registry name of the game (engine/games: this package's entry.py).
    game = "crown"
    num_players = 2

    def __init__(self, config: GameConfig, cards: CardCatalog, units: Catalog, auto_chance: bool, variant):
        self.config = config
        self.cards = cards
        self.units = units
        self.variant = variant                      # the rules of config.variant (engine/crown/variants.py)
        self.auto_chance = auto_chance
        self._rng = random.Random(config.seed)
        self._rng_shared = False                   # clones share a generator until one draws (rng)
        self.board = _position.BoardCore(units.tables)
        n = len(cards)
        self.zones = [PlayerZones(n), PlayerZones(n)]
        self.supply = [0] * n
        self.trash: list[int] = []
        #: Starting cards The Last Stand's Attacker trashed (RULINGS C22): beside the Supply, out of
        #: the game, never bought; public like the Trash.
        self.set_aside: list[int] = []
        self.supply_ids: tuple[int, ...] = ()
        self.supply_names: tuple[str, ...] = ()   # the variable piles chosen at set-up
        self.current = BLUE
        self.turn = 0                  # turns completed in the whole game
        self.turns_taken = [0, 0]
        self.extra_turns = list(config.extra_turns)
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
        self.determinized = False                  # a sample from resample_hidden: no history, no record
        self.setup_state: dict = {}

    # -- the read-only API ---------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.over_reason is not None

    def is_chance_node(self) -> bool:
        return self.chance is not None and self.over_reason is None

    @property
    def turn_number(self) -> int:
        """The turn in play as players count it, 1 first (King's Ransom counts the same way): what a
        user is shown. ``turn`` stays the count of turns completed, from 0 (records hash it)."""
        return self.turn + 1

    def current_player(self) -> int:
        """The player to decide, CHANCE (-1) at a chance node, TERMINAL (-4) when over."""
        if self.over_reason is not None:
            return TERMINAL
        if self.chance is not None:
            return CHANCE
        return self.decision.player

    def legal_actions(self) -> list[int]:
        if self.over_reason is not None:
            return []
        if self.chance is not None:
            return [card for card, _ in self.chance_outcomes()]
        return list(self.decision.actions)

    def action_text(self, action: int) -> str:
        """The text of a legal action (made on demand)."""
        if self.chance is not None:
            return f"draw {self.cards.cards[action].name}"
        return self.decision.text(self, action)

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

    def returns(self) -> list[float]:
        """+1 for the winner, -1 for the loser, 0 each for a draw or an unfinished game (the
        variant may score otherwise: The Last Stand, engine/crown/variants.py)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        return self.variant.returns(self)

    def score(self) -> int | None:
        """The variant's score, if it keeps one (The Last Stand, 11.5: the Attacker's turns)."""
        return self.variant.score(self)

    def card_name(self, card_id: int) -> str:
        return self.cards.cards[card_id].name

    def unit_name(self, t: int) -> str:
        return self.units.units[t].name

    def cost(self, card_id: int) -> int:
        """Cost now, after Quartermaster discounts (never below 0)."""
        return max(0, (self.cards.cards[card_id].cost or 0) - self.discount)

    # -- chance ------------------------------------------------------------------------------
    @property
    def rng(self) -> random.Random:
        """The state's chance generator (C5). A clone shares its original's generator until either
        of them uses it: then that one takes its own copy first (copying a generator's state costs
        more than the rest of a clone, and most clones of a search never draw with it)."""
        if self._rng_shared:
            rng = random.Random.__new__(random.Random)
            rng.setstate(self._rng.getstate())
            self._rng, self._rng_shared = rng, False
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng, self._rng_shared = value, False

    # -- copying -------------------------------------------------------------------------------
    def clone(self, history: bool = True):
        """An independent copy (same class), sharing only immutable parts and the catalogs. With
        ``history`` False the copy has no history and no repetition counts (a determinization,
        observation.resample_hidden, must not carry the true game's)."""
        other = self.__class__.__new__(self.__class__)
        d = other.__dict__
        d.update(self.__dict__)
        self._rng_shared = other._rng_shared = True
        other.board = self.board.copy()
        other.zones = [self.zones[0].copy(), self.zones[1].copy()]
        other.supply = self.supply[:]
        other.trash = self.trash[:]
        other.set_aside = self.set_aside[:]
        other.extra_turns = self.extra_turns[:]
        other.turns_taken = self.turns_taken[:]
        other.card_order_ban = self.card_order_ban[:]
        other.card_order_ban_next = self.card_order_ban_next[:]
        other.barracks_ordered = [dict(self.barracks_ordered[0]), dict(self.barracks_ordered[1])]
        frames = {}
        tasks = []
        for task in self.tasks:
            cls = task.__class__
            if cls is RunFrame:
                frames[id(task.frame)] = copy = task.frame.copy()
                tasks.append(RunFrame(copy))
            elif cls is Draw:
                tasks.append(Draw(task.player, task.count))
            elif cls is Reveal:
                frame = frames.get(id(task.frame))
                if frame is None:
                    frames[id(task.frame)] = frame = task.frame.copy()
                tasks.append(Reveal(task.player, frame, task.reshuffle))
            else:
                tasks.append(task)
        other.tasks = tasks
        decision = self.decision
        if decision is not None:
            frame = decision.frame
            other.decision = decision.copy(frames.get(id(frame)) if frame is not None else None)
        other.history = self.history[:] if history else []
        other.repetitions = dict(self.repetitions) if history else {}
        other.setup_state = dict(self.setup_state)
        return other
