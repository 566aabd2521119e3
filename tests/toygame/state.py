"""Tic-tac-toe as a state of the protocol (engine/games/protocol.py), plus the presentation members
the interfaces show (``turn_number``, ``current``, ``prompt()``, ``over_reason``, ``winner``, ``resign``). Squares a1..c3 (file a-c, rank 1-3)
are the actions 0..8 (a1 = 0, b1 = 1, ..., c3 = 8); X (player 0) moves first. No hidden information
and no chance: ``resample_hidden`` is a clone."""

from __future__ import annotations

import random

from engine.games.protocol import TERMINAL

NAME = "tictactoe"
RECORD_FORMAT = "toy-tictactoe-record"
MARKS = ("X", "O")
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class ToyError(ValueError):
    """An illegal move or a bad record; the message says which and why."""


def square_name(square: int) -> str:
    return "abc"[square % 3] + str(square // 3 + 1)


class TicTacToe:
    game = NAME
    num_players = 2

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.board = [-1] * 9
        self.history: list[int] = []
        self.winner: int | None = None
        self.over_reason: str | None = None

    # -- the protocol ----------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.over_reason is not None else len(self.history) % 2

    def legal_actions(self) -> list[int]:
        return [] if self.over_reason is not None else [s for s in range(9) if self.board[s] < 0]

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ToyError(f"action {action!r} is not legal now (legal: {self.legal_actions()})")
        player = self.current_player()
        self.board[action] = player
        self.history.append(action)
        if any(all(self.board[s] == player for s in line) for line in LINES):
            self.winner, self.over_reason = player, f"{MARKS[player]} made a line"
        elif len(self.history) == 9:
            self.over_reason = "the board is full: a draw"

    def action_text(self, action: int) -> str:
        return square_name(action)

    def action_fields(self, action: int) -> dict:
        return {"kind": "mark", "square": square_name(action), "mark": MARKS[len(self.history) % 2]}

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list:
        return []

    def is_terminal(self) -> bool:
        return self.over_reason is not None

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def observation(self, player: int | None) -> dict:
        rows = ["".join("." if v < 0 else MARKS[v] for v in self.board[r * 3:r * 3 + 3]) for r in (2, 1, 0)]
        return {"board": rows, "to_move": None if self.is_terminal() else len(self.history) % 2,
                "moves": [square_name(a) for a in self.history]}

    def resample_hidden(self, player: int, rng: random.Random) -> TicTacToe:
        return self.clone()

    def information_key(self, player: int):
        return self.public_key()

    def public_key(self):
        return tuple(self.board)

    def clone(self) -> TicTacToe:
        other = TicTacToe(self.seed)
        other.board, other.history = list(self.board), list(self.history)
        other.winner, other.over_reason = self.winner, self.over_reason
        return other

    def record(self) -> dict:
        return {"format": RECORD_FORMAT, "seed": self.seed, "actions": list(self.history)}

    # -- presentation ----------------------------------------------------------------------------
    @property
    def turn(self) -> int:
        return len(self.history) + (0 if self.is_terminal() else 1)

    turn_number = turn

    @property
    def current(self) -> int:
        return len(self.history) % 2

    @property
    def phase(self) -> str:
        return "over" if self.is_terminal() else "mark"

    def prompt(self) -> str:
        return self.over_reason or f"{MARKS[self.current]}: mark an empty square"

    def legal_action_texts(self) -> dict[int, str]:
        return {a: self.action_text(a) for a in self.legal_actions()}

    def resign(self, player: int) -> None:
        """Tic-tac-toe has no resignation (a game is over in nine moves at most)."""
        if self.over_reason is not None:
            raise ToyError(f"resign: the game is over ({self.over_reason})")
        raise ToyError(f"resign: {NAME} has no resignation")


def replay(record) -> TicTacToe:
    """The game a record describes; ToyError names what is wrong."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ToyError(f"record: expected an object with format {RECORD_FORMAT!r}")
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise ToyError("record.actions: expected a list of squares 0..8")
    state = TicTacToe(record.get("seed"))
    for i, action in enumerate(actions):
        try:
            state.apply(action)
        except ToyError as exc:
            raise ToyError(f"record.actions[{i}]: {exc}") from None
    return state
