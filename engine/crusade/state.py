"""CrusadeState: Crusade & Conquer as a state of the protocol (engine/games/protocol.py) over
CrusadePosition (engine/crusade/position.py): two players (0 Blue, 1 Red), no chance, open
information (``resample_hidden`` is a clone). The actions are the kernel's move codes; an action's
text is its move text (``e2e4``, ``e7e8=Q``).

The game ends (RULINGS H8) when the side to move is checkmated (the mover wins), has no move with
its King safe (stalemate: a draw), when a Flag Bearer has stepped onto the opposing X (its side
wins), and, for automated play (H8c), with a draw after 100 plies without a capture or a Pawn move or
on the third occurrence of the same position (the board, the side to move and the fallen pieces).
A player may also resign (the web board's Resign): the other side wins. The observation's ``end``
names how the game ended: "checkmate", "stalemate", "x-win", "plies" (H8c's 100 plies),
"repetition" (H8c's third occurrence), "resigned", or None while it goes on.

Configuration (``CrusadeConfig.from_json``): ``seed`` (kept in the record; the game has no chance)
and ``position`` (a position text or "startpos", the default). A record is
``{"format": "crusade-record", "version": 1, "seed", "start", "moves": [move texts]}``, plus
``"resigned": <player>`` when a player resigned after those moves.

>>> s = CrusadeState()
>>> s.current_player(), len(s.legal_actions()) > 0, s.is_terminal()
(0, True, False)
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine._position import decode_order
from engine.catalog import square_name
from engine.crusade.position import BLUE, CrusadeError, CrusadePosition
from engine.games.protocol import TERMINAL
from engine.quiet import at, shown

__all__ = ["GAME_NAME", "RECORD_FORMAT", "SEATS", "CrusadeConfig", "CrusadeConfigError", "CrusadeState",
           "CrusadeActionError", "CrusadeRecordError", "replay", "DRAW_PLIES", "REPETITIONS"]

GAME_NAME = "crusade"
RECORD_FORMAT = "crusade-record"
RECORD_VERSION = 1
SEATS = ("Blue", "Red")
#: H8c: plies without a capture or a Pawn move that end the game in a draw.
DRAW_PLIES = 100
#: H8c: the occurrence of one position that ends the game in a draw.
REPETITIONS = 3
MAX_SEED = 2**63 - 1
OPTIONS = ("variant", "seed", "position")


class CrusadeConfigError(ValueError):
    """A bad game option; the message starts with ``where.option``."""


class CrusadeActionError(CrusadeError):
    """An action that is not legal now (the state is left unchanged)."""


class CrusadeRecordError(CrusadeError):
    """A record that cannot be replayed; the message names the field (``record.moves[i]``)."""


@dataclass(frozen=True)
class CrusadeConfig:
    seed: int = 0
    position: str = "startpos"

    @classmethod
    def from_json(cls, data: Any, where: str = "config") -> CrusadeConfig:
        """A configuration from JSON-decoded ``data``; CrusadeConfigError names ``where.option``."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise CrusadeConfigError(f"{where}: expected an object of game options, got {type(data).__name__}")
        for key in data:
            if key not in OPTIONS:
                raise CrusadeConfigError(f"{at(where, key)}: Crusade & Conquer has no option {shown(key)} "
                                         f"(its options: {', '.join(OPTIONS)})")
        if "variant" in data and data["variant"] != GAME_NAME:
            raise CrusadeConfigError(f"{where}.variant: expected {GAME_NAME!r}, got {shown(data['variant'])}")
        seed = data.get("seed", 0)
        if seed is None:
            seed = 0
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
            raise CrusadeConfigError(f"{where}.seed: expected an integer 0..{MAX_SEED}, got {shown(seed)}")
        position = data.get("position", "startpos")
        if not isinstance(position, str):
            raise CrusadeConfigError(f"{where}.position: expected a position text or \"startpos\", got "
                                     f"{type(position).__name__}")
        try:
            CrusadePosition.from_text(position)
        except CrusadeError as exc:
            raise CrusadeConfigError(f"{where}.position: {exc}") from None
        return cls(seed, position.strip())


class CrusadeState:
    """A game of Crusade & Conquer (module docstring)."""

    game = GAME_NAME
    num_players = 2
    auto_chance = True          # the game has no chance; kept for the layers that set it

    def __init__(self, config: CrusadeConfig | None = None):
        self.config = config or CrusadeConfig()
        self.pos = CrusadePosition.from_text(self.config.position)
        self.start = self.pos.text()
        self.history: list[int] = []
        self.texts: list[str] = []
        self.seen: Counter = Counter({self._position_key(): 1})
        self.winner: int | None = None
        self.over_reason: str | None = None
        #: How the game ended (module docstring), None while it goes on.
        self.end: str | None = None
        #: The player who resigned, if one did.
        self.resigned: int | None = None
        self._legal: list[int] | None = None
        self._settle()

    # -- the end ---------------------------------------------------------------------------------
    def _position_key(self) -> tuple:
        """What makes two positions the same for H8c's repetition: the board, the side to move and
        the fallen pieces (which decide the promotion choices), and an X win pending."""
        core = self.pos.core
        return (core.key, core.side, tuple(core.barracks_counts(0)), tuple(core.barracks_counts(1)), core.won_on_x)

    def _settle(self) -> None:
        """Decide whether the game is over after the last move (or at the start)."""
        self._legal = None
        status = self.pos.status()
        mover, to_move = 1 - self.pos.side, self.pos.side
        if status == "x-win":
            self.winner, self.over_reason = mover, f"{SEATS[mover]}'s Flag Bearer reached the X: {SEATS[mover]} wins"
        elif status == "checkmate":
            self.winner, self.over_reason = mover, f"{SEATS[to_move]} is checkmated: {SEATS[mover]} wins"
        elif status == "stalemate":
            self.over_reason = f"{SEATS[to_move]} has no legal move and is not in check: a draw"
        elif self.pos.core.halfmove >= DRAW_PLIES:
            status, self.over_reason = "plies", f"{DRAW_PLIES} plies without a capture or a Pawn move: a draw"
        elif self.seen[self._position_key()] >= REPETITIONS:
            status, self.over_reason = "repetition", "the same position for the third time: a draw"
        self.end = None if self.over_reason is None else status

    def resign(self, player: int) -> None:
        """``player`` resigns: the other side wins (kept in the record as ``resigned``)."""
        if self.over_reason is not None:
            raise CrusadeActionError(f"resign: the game is over ({self.over_reason})")
        if player not in (0, 1) or isinstance(player, bool):
            raise CrusadeActionError(f"resign: player {player!r}: expected 0 (Blue) or 1 (Red)")
        self._legal = None
        self.resigned, self.winner, self.end = player, 1 - player, "resigned"
        self.over_reason = f"{SEATS[player]} resigns: {SEATS[1 - player]} wins"

    # -- the protocol ----------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.over_reason is not None else self.pos.side

    def legal_actions(self) -> list[int]:
        if self.over_reason is not None:
            return []
        if self._legal is None:
            self._legal = self.pos.legal_orders()
        return list(self._legal)

    def apply(self, action: int) -> None:
        if self.over_reason is not None:
            raise CrusadeActionError(f"action {action!r}: the game is over ({self.over_reason})")
        if not isinstance(action, int) or isinstance(action, bool) or action not in self.legal_actions():
            raise CrusadeActionError(f"action {action!r} is not a legal move for {SEATS[self.pos.side]} in "
                                     f"{self.pos.text()}")
        text = self.pos.order_text(action)
        self.pos.core.push(action)
        self.history.append(action)
        self.texts.append(text)
        self.seen[self._position_key()] += 1
        self._settle()

    def apply_text(self, text: str) -> None:
        """Play a move given as its text (MoveTextError names what is wrong)."""
        if self.over_reason is not None:
            raise CrusadeActionError(f"move {text!r}: the game is over ({self.over_reason})")
        self.apply(self.pos.parse_move(text))

    def action_text(self, action: int) -> str:
        return self.pos.order_text(action)

    def action_fields(self, action: int) -> dict:
        """The move as data: its squares, the piece, what it captures and what a Pawn becomes."""
        kind, origin, dest, unit, promo = decode_order(action)
        units = self.pos.catalog.units
        target = self.pos.core.unit_on(dest)
        text = self.pos.order_text(action)
        return {"kind": "move", "text": text, "player": self.pos.side, "from": square_name(origin),
                "to": square_name(dest), "piece": units[unit].token,
                "capture": None if target is None else units[target[0]].token,
                "promotion": text.partition("=")[2] or None}

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list:
        return []

    def is_terminal(self) -> bool:
        return self.over_reason is not None

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == BLUE else [-1.0, 1.0]

    def observation(self, player: int | None) -> dict:
        """Everything is open: the same for both players and for a spectator (None)."""
        return {"position": self.pos.text(), "to_move": None if self.is_terminal() else self.pos.side,
                "in_check": self.pos.in_check(), "moves": list(self.texts),
                "fallen": [self.pos.fallen(0), self.pos.fallen(1)], "over": self.over_reason,
                "winner": self.winner, "end": self.end}

    def resample_hidden(self, player: int, rng: random.Random) -> CrusadeState:
        return self.clone()

    def information_key(self, player: int):
        return self.public_key()

    def public_key(self):
        return (self.start, tuple(self.history))

    def clone(self) -> CrusadeState:
        other = CrusadeState.__new__(CrusadeState)
        other.config, other.start = self.config, self.start
        other.pos = CrusadePosition(self.pos.catalog)
        other.pos.core = self.pos.core.copy()
        other.history, other.texts, other.seen = list(self.history), list(self.texts), Counter(self.seen)
        other.winner, other.over_reason, other.end, other.resigned = self.winner, self.over_reason, self.end, self.resigned
        other._legal = None if self._legal is None else list(self._legal)
        return other

    def record(self) -> dict:
        record = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "seed": self.config.seed,
                  "start": self.start, "moves": list(self.texts)}
        if self.resigned is not None:
            record["resigned"] = self.resigned
        return record

    # -- presentation (what the interfaces show) ---------------------------------------------------
    @property
    def current(self) -> int:
        return self.pos.side

    @property
    def turn(self) -> int:
        return len(self.history) + (0 if self.is_terminal() else 1)

    turn_number = turn

    @property
    def phase(self) -> str:
        return "over" if self.is_terminal() else "move"

    def prompt(self) -> str:
        if self.over_reason is not None:
            return self.over_reason
        check = " (in check)" if self.pos.in_check() else ""
        return f"{SEATS[self.pos.side]} to move{check}"

    def legal_action_texts(self) -> dict[int, str]:
        return {a: self.pos.order_text(a) for a in self.legal_actions()}


def replay(record: Any) -> CrusadeState:
    """The game a record describes; CrusadeRecordError names the field and what is wrong."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise CrusadeRecordError(f"record: expected an object with format {RECORD_FORMAT!r}")
    if record.get("version", RECORD_VERSION) != RECORD_VERSION:
        raise CrusadeRecordError(f"record.version: expected {RECORD_VERSION}, got {record.get('version')!r}")
    try:
        config = CrusadeConfig.from_json({"seed": record.get("seed", 0), "position": record.get("start", "startpos")},
                                         "record")
    except CrusadeConfigError as exc:
        raise CrusadeRecordError(str(exc).replace("record.position", "record.start")) from None
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise CrusadeRecordError("record.moves: expected a list of move texts")
    state = CrusadeState(config)
    for i, move in enumerate(moves):
        try:
            state.apply_text(move)
        except CrusadeError as exc:
            raise CrusadeRecordError(f"record.moves[{i}]: {exc}") from None
    if "resigned" in record:
        who = record["resigned"]
        if who not in (0, 1) or isinstance(who, bool):
            raise CrusadeRecordError(f"record.resigned: expected 0 (Blue) or 1 (Red), got {who!r}"[:200])
        if state.is_terminal():
            raise CrusadeRecordError(f"record.resigned: the game was already over ({state.over_reason})")
        state.resign(who)
    return state


def walk(record: dict) -> tuple[CrusadeState, list, None]:
    """(a fresh state of the record's start, its moves as (player, move code) pairs, None: a
    resignation is no step of the moves): how engine/games/records.py names the record's decisions
    (`ftc analyze RECORD --at`, `ftc review`). The record was checked by ``replay`` before."""
    config = CrusadeConfig.from_json({"seed": record.get("seed", 0), "position": record.get("start", "startpos")},
                                     "record")
    state, steps = CrusadeState(config), []
    for move in record["moves"]:
        code = state.pos.parse_move(move)
        steps.append((state.current_player(), code))
        state.apply(code)
    return CrusadeState(config), steps, None
