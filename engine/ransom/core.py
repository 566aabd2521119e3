"""King's Ransom's state as data: the position, the step of the turn and its legal actions, the
pending chance node, the history and the public log, and the questions one may ask of it (the
kernel-facing part of the state protocol: current player, legal actions, chance outcomes, texts
and fields of actions, returns) with ``clone``. Nothing here plays a turn: the driver
(engine/ransom/state.py, ``RansomState``) sets a game up and applies actions through the turn's
steps (phases.py).

Imports run one way inside engine/ransom (docs/architecture.md)::

    rules, actions, position -> core -> phases -> state
                                core -> observation, record

A decision is the step being decided (``step``: flip, move, promote, play) with its legal actions
(``actions``, dense integers of engine/ransom/actions.py); their texts are made only when asked
(``action_text``). A chance node is ``chance``: (the side whose Deck gives a card, where it goes:
a square or "hand" at the deal, "draw" in the Draw step).
"""

from __future__ import annotations

import random

from engine import codes
from engine.games.protocol import CHANCE, TERMINAL
from engine.notation import square_name
from engine.ransom import actions as RA
from engine.ransom.position import RansomPosition, TurnOptions
from engine.ransom.rules import BLUE, PLAYER_NAMES, RED, RansomRules, default_rules

__all__ = ["RansomCore", "RansomError", "IllegalRansomAction", "RansomVariant", "VARIANT", "RECORD_FORMAT",
           "RESIGN", "DEAL", "FLIP", "MOVE", "PROMOTE", "PLAY", "DRAW", "OVER", "CHANCE", "TERMINAL"]

VARIANT = "kings-ransom"
RECORD_FORMAT = "ftc-ransom-record"
#: A resignation in the history and the record: ``[player, RESIGN]`` (any time before the end).
RESIGN = -2
DEAL, FLIP, MOVE, PROMOTE, PLAY = "deal", "flip", "move", "promote", "play"
#: The steps that are no player's decision: the Draw step (a chance node when the Deck's order is
#: unknown) and the end of the game.
DRAW, OVER = "draw", "over"


class RansomError(ValueError):
    """A King's Ransom game that cannot be set up or continued as asked; the message says why."""


class IllegalRansomAction(RansomError):
    """An action that is not legal now; the state is left unchanged."""


class RansomVariant:
    """What the search's generic helpers ask of a variant (engine/crown/board_eval.py board_winner):
    a board decides the game when a King is missing (G7: capturing it wins)."""

    name = VARIANT

    def __init__(self, rules: RansomRules):
        self.king = rules.king_type

    def board_winner(self, board, mover: int) -> int | None:
        present = [any(board.unit_on(sq)[0] == self.king for sq in board.squares_of(side)) for side in (RED, BLUE)]
        if all(present):
            return None
        return RED if present[RED] else BLUE if present[BLUE] else mover


class RansomCore:
    """The whole game of King's Ransom as data, with the read-only API (``current_player``,
    ``legal_actions``, ``action_text``, ``returns``, ...) and ``clone``. Created by ``RansomState``
    (engine/ransom/state.py), which deals or starts the first turn and applies actions; with its
    ``apply`` it implements the state protocol (engine/games/protocol.py)."""

    #: The registry name of the game (engine/games: this package's entry.py).
    game = VARIANT
    num_players = 2
    variant_name = VARIANT
    player_names = PLAYER_NAMES

    def __init__(self, seed: int | None, rules: RansomRules | None, auto_chance: bool,
                 position: RansomPosition | None):
        self.rules = rules or default_rules()
        self.variant = RansomVariant(self.rules)
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(32)
        self.rng = random.Random(self.seed)
        self.auto_chance = auto_chance
        self.history: list[tuple[int, int]] = []    # (player or CHANCE, action or outcome)
        self.log: list[tuple[int, str]] = []        # public events: (player, text) as both see them
        self.keep_log = True                        # determinizations keep none (search speed)
        self.over_reason: str | None = None
        self.winner: int | None = None
        self.step = DEAL
        self.options: TurnOptions | None = None
        #: The player whose King is in check as announced (G6, G9), or None: set when a Move step
        #: ends (the mover's face-up cards threaten the other King) and again when a turn starts
        #: (a face-down card played in between may have blocked the threat).
        self.check: int | None = None
        self.flipped: int | None = None
        self.moved: int | None = None
        self.actions: list[int] = []
        self.chance: tuple[int, object] | None = None      # (player, square or "hand" or "draw")
        self.deal: list[tuple[int, object]] = []
        self.start_text: str | None = None
        self.from_position = position is not None
        if position is not None:
            self.pos = position.copy()
            self.start_text = position.text() if not any(position.pools[0] + position.pools[1]) else None
        else:
            self.pos = RansomPosition(self.rules)

    # -- the questions of the search interface ---------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.over_reason is not None

    def is_chance_node(self) -> bool:
        return self.chance is not None

    def current_player(self) -> int:
        if self.over_reason is not None:
            return TERMINAL
        if self.chance is not None:
            return CHANCE
        return self.pos.side

    @property
    def current(self) -> int:
        """The side whose turn it is."""
        return self.pos.side

    @property
    def phase(self) -> str:
        """The step of the turn being decided: flip, move, promote, play (or deal, draw, over)."""
        return self.step

    @property
    def turn(self) -> int:
        """Turns begun so far, both sides counted (1 = Red's first)."""
        return 2 * (self.pos.turn - 1) + self.pos.side + 1

    @property
    def turn_number(self) -> int:
        """The turn in play as players count it, 1 first: ``turn`` (as For the Crown's ``turn_number``)."""
        return self.turn

    @property
    def board(self):
        """The arena's kernel board (read it; the game changes it)."""
        return self.pos.core

    def legal_actions(self) -> list[int]:
        if self.over_reason is not None or self.chance is not None:
            return []
        return list(self.actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.chance is None:
            return []
        pool = self.pos.pools[self.chance[0]]
        total = sum(pool)
        return [(t, n / total) for t, n in enumerate(pool) if n > 0]

    def action_text(self, action: int) -> str:
        if self.chance is not None:
            return f"{PLAYER_NAMES[self.chance[0]]} draws {self._name(action)}"
        kind = RA.decode(action)
        if kind[0] == "flip":
            return f"flip {square_name(kind[1])}"
        if kind[0] == "move":
            return "move " + self.pos.move_text(kind[1])
        if kind[0] == "promote":
            return "keep the Pawn" if kind[1] is None else f"promote to {self.rules.catalog.units[kind[1]].token}"
        token = self.rules.catalog.units[kind[1]].token
        if kind[0] == "discard":
            return f"play {token}@discard"
        return f"play {token}@{square_name(kind[2])}"

    def action_fields(self, action: int) -> dict:
        """What an action is, as plain data (clients draw it): kind, squares, card."""
        kind = RA.decode(action)
        units = self.rules.catalog.units
        if kind[0] == "flip":
            return {"kind": "flip", "square": square_name(kind[1])}
        if kind[0] == "move":
            code = kind[1]
            return {"kind": "move", "from": square_name(codes.order_origin(code)),
                    "to": square_name(codes.order_dest(code)), "card": units[codes.order_unit(code)].token}
        if kind[0] == "promote":
            return {"kind": "promote", "card": None if kind[1] is None else units[kind[1]].token}
        if kind[0] == "discard":
            return {"kind": "discard", "card": units[kind[1]].token}
        return {"kind": "play", "card": units[kind[1]].token, "square": square_name(kind[2])}

    def legal_action_texts(self) -> dict[int, str]:
        return {a: self.action_text(a) for a in self.legal_actions()}

    def prompt(self) -> str:
        if self.over_reason is not None:
            return self.over_reason
        prompts = {FLIP: "flip one of your face-down cards", MOVE: "move a face-up card",
                   PROMOTE: "exchange the Pawn for a card of your Discard pile, or keep it",
                   PLAY: "play a card from your Hand face down"}
        return prompts.get(self.step, self.step)

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == RED else [-1.0, 1.0]

    def _name(self, t: int) -> str:
        return self.rules.catalog.units[t].name

    # -- copies ------------------------------------------------------------------------------------------
    def clone(self, history: bool = True, copy_rng: bool = True):
        """An independent copy (``history``: with the decisions so far); its chance generator is a
        copy of this one's, or (``copy_rng`` False) left for the caller to set (a determinization
        gets its own: copying it first would be work thrown away)."""
        cls = self.__class__
        other = cls.__new__(cls)
        other.__dict__.update(self.__dict__)
        other.pos = self.pos.copy()
        other.rng = None
        if copy_rng:
            other.rng = random.Random()
            other.rng.setstate(self.rng.getstate())
        other.history = list(self.history) if history else []
        other.log = list(self.log)
        other.actions = list(self.actions)
        other.deal = list(self.deal)
        return other
