"""Tic-tac-toe's registry entry: written against engine/games only (a test of the seam, issue 24).
Imported by the test fixture, or by a subprocess `ftc` through ``FTC_GAMES=tests.toygame.entry``."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from engine.games.registry import Bots, Game, record_format, register
from tests.toygame.state import LINES, NAME, RECORD_FORMAT, TicTacToe, ToyError, replay

OPTIONS = ("variant", "seed")
BOT_NAMES = ("random", "perfect")


def config(data: Any = None, where: str = "config") -> dict:
    """Options: ``seed`` (an integer; kept in the record), ``variant`` (the game's name)."""
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ToyError(f"{where}: expected an object of game options, got {type(data).__name__}")
    for key in data:
        if key not in OPTIONS:
            raise ToyError(f"{where}.{key}: {NAME} has no option {key!r} (its options: {', '.join(OPTIONS)})")
    if data.get("variant", NAME) != NAME:
        raise ToyError(f"{where}.variant: expected {NAME!r}, got {data['variant']!r}")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ToyError(f"{where}.seed: expected an integer, got {seed!r}")
    return {"seed": seed}


@cache
def _value(board: tuple, player: int) -> int:
    """Negamax value of ``board`` for ``player`` to move: +1 a win, 0 a draw, -1 a loss."""
    state = TicTacToe()
    state.board = list(board)
    state.history = [s for s in range(9) if board[s] >= 0]
    best = -2
    for a in range(9):
        if board[a] >= 0:
            continue
        child = state.clone()
        child.board[a] = player
        child.history = state.history + [a]
        if any(all(child.board[s] == player for s in line) for line in LINES):
            return 1
        value = 0 if len(child.history) == 9 else -_value(tuple(child.board), 1 - player)
        best = max(best, value)
    return best


class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def reset(self) -> None:
        pass

    def choose(self, state) -> int:
        return self.rng.choice(state.legal_actions())

    def choose_within(self, state, seconds: float) -> int:
        return self.choose(state)


class PerfectBot(RandomBot):
    """Plays a move of the best negamax value (ties broken by the seeded generator): never loses."""

    name = "perfect"

    def choose(self, state) -> int:
        player = state.current_player()
        scored = {}
        for a in state.legal_actions():
            child = state.clone()
            child.apply(a)
            scored[a] = (child.returns()[player] if child.is_terminal()
                         else -_value(tuple(child.board), 1 - player))
        best = max(scored.values())
        return self.rng.choice([a for a, v in scored.items() if v == best])


def make_bot(spec: str, seed: int = 0):
    if spec not in BOT_NAMES:
        raise ValueError(f"unknown bot {spec!r} for {NAME}; known: {', '.join(BOT_NAMES)}")
    return (RandomBot if spec == "random" else PerfectBot)(seed)


recognise = record_format(RECORD_FORMAT)


GAME = register(Game(
    name=NAME,
    title="Tic-tac-toe",
    description="Three in a row on a 3x3 board (a test game: the registry's seam)",
    players=range(2, 3),
    variants=(),
    docs="",
    config=config,
    new_state=lambda cfg: TicTacToe(cfg["seed"]),
    replay=replay,
    recognise=recognise,
    bots=Bots(bot_names=BOT_NAMES, make_bot=make_bot, bot_words={"perfect": "perfect play"}),
))
