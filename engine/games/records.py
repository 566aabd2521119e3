"""Points of a saved game of any registered game: its decisions in order, ``--at`` values that name
one, and the game at a point as its player saw it (`ftc analyze RECORD --at ...`, the analysis board).
The record's game comes from the registry (``Game.walk``); nothing here knows a game."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.games import registry

__all__ = ["MAX_GAME_FILE_BYTES", "GameFileError", "read_game_file", "RecordPoint", "record_points", "parse_at",
           "find_point", "state_at", "state_before", "log_for"]

#: The largest game file (a record, a position view) any command or the server reads: 16 MiB.
MAX_GAME_FILE_BYTES = 16 * 1024 * 1024


class GameFileError(ValueError):
    """A game file that cannot be read (too big, not JSON); the message names the file."""


def read_game_file(path: str | Path, what: str = "record"):
    """The JSON document in the file ``path``, of at most MAX_GAME_FILE_BYTES; GameFileError naming
    the file (and ``what`` it should be) when it is too big or not JSON. The one reader of game files."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_GAME_FILE_BYTES:
        raise GameFileError(f"{path}: {size} bytes is more than the {MAX_GAME_FILE_BYTES} a {what} may have")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GameFileError(f"{path}: not a JSON {what}: {exc}") from None


@dataclass(frozen=True)
class RecordPoint:
    """A decision of a game record: ``decision`` its number (1 = the game's first decision; chance
    draws and resignations are not decisions), ``step`` the index of its step in the record,
    ``player`` who decided (``name``: Blue, Yellow; Red, Blue in King's Ransom) and ``turn`` the
    turn it was taken in, as shown to players (1 first)."""

    decision: int
    step: int
    player: int
    name: str
    turn: int


def _walk(state, steps, resign: int, names, until: int | None = None):
    """Replay ``steps`` on ``state`` (a fresh state of the record's set-up, chance not automatic):
    every decision as a RecordPoint, or, with ``until``, the state just before step ``until``.
    The record was checked by the game's own replay before, so every step is legal here."""
    points: list[RecordPoint] = []
    for index, (player, action) in enumerate(steps):
        if index == until:
            return state
        if resign is not None and action == resign and player >= 0 and not state.is_terminal():
            state.resign(player)
            continue
        if player >= 0:
            points.append(RecordPoint(len(points) + 1, index, player, names(player), state.turn_number))
        state.apply(action)
    return state if until is not None else points


def _game(record: dict) -> tuple[Any, list, int, Callable[[int], str]]:
    """(fresh state, steps, resign code, player names) of a record of a registered game (its
    ``Game.walk``; a game without one has no points to name)."""
    game = registry.for_record(record)
    if game.walk is None:
        raise ValueError(f"--at: {game.title} records have no decisions to name")
    fresh, steps, resign = game.walk(record)
    return fresh, steps, resign, game.seat


def record_points(record: dict) -> list[RecordPoint]:
    """Every decision of a (checked) game record, in order."""
    return _walk(*_game(record))


def parse_at(text: str) -> tuple[str, int]:
    """An ``--at`` value: ``N`` (decision N, 1 = the first) or ``turn:T`` (the first decision of turn
    T, 1 = the first turn) -> ("decision", N) or ("turn", T). ValueError names the form."""
    kind, _, number = text.rpartition(":")
    if kind not in ("", "turn") or not number.isdigit() or int(number) < 1:
        raise ValueError(f"--at {text!r}: expected a decision number N (1 = the first decision) or turn:T "
                         f"(the first decision of turn T, 1 = the first turn)")
    return ("turn" if kind else "decision"), int(number)


def find_point(points: list[RecordPoint], at: tuple[str, int]) -> RecordPoint:
    """The decision ``at`` (from :func:`parse_at`) names; ValueError with the record's valid range."""
    kind, number = at
    if not points:
        raise ValueError("--at: the record has no decision to analyse")
    if kind == "decision":
        if number <= len(points):
            return points[number - 1]
        raise ValueError(f"--at {number}: the record has decisions 1..{len(points)}")
    for point in points:
        if point.turn == number:
            return point
    turns = sorted({point.turn for point in points})
    raise ValueError(f"--at turn:{number}: no decision in that turn; the record has decisions in turns "
                     f"{turns[0]}..{turns[-1]}")


def state_at(record: dict, point: RecordPoint, seed: int = 0, viewer: int | None = None):
    """The game at ``point`` as its player (or ``viewer``, another seat) saw it then: a state that
    player cannot tell from the real one (every card hidden from them sampled again,
    ``resample_hidden``), so an analysis of it reads nothing the player did not know."""
    state = state_before(record, point)
    state.auto_chance = True             # as a replayed game: the searches draw for themselves
    return state.resample_hidden(point.player if viewer is None else viewer, random.Random(seed))


def state_before(record: dict, point: RecordPoint):
    """The real game just before ``point`` (every hidden card as it was: only for a view built for
    one seat, engine/games/view.py, which hides what that seat may not know)."""
    return _walk(*_game(record), until=point.step)


def log_for(record: dict, viewer: int, step: Callable) -> list[dict]:
    """Every decision of a (checked) record as ``viewer`` saw it, one entry per ``record_points``
    point (a resignation is no decision): ``step(state, player, action, viewer)`` applies the action
    and returns its log entry with what ``viewer`` may not know left out (the game's ``WebBoard.step``,
    engine/games/view.py)."""
    state, steps, resign, _names = _game(record)
    entries: list[dict] = []
    for player, action in steps:
        if resign is not None and action == resign and player >= 0 and not state.is_terminal():
            state.resign(player)
        elif player >= 0:
            entries.append(step(state, player, action, viewer))
        else:
            state.apply(action)
    return entries
