"""For the Crown's pieces of the analysis board (docs/server.md, "The analysis board"): a board
position read from its text and described as the page draws it, and a game record (or a position
view) walked through with its boards and evaluations. Pure functions: the page, the endpoints and the
live search are the server's (engine/interfaces/server/analysis.py), which finds these pieces through
For the Crown's registry entry (``WebBoard.analysis``: ``board_pieces``)."""

from __future__ import annotations

from typing import Any

from engine import NAMED_POSITIONS
from engine.crown import actions as A
from engine.crown.analysis import evaluation_history
from engine.crown.core import CHANCE
from engine.crown.knowledge import FORMAT as VIEW_FORMAT
from engine.crown.knowledge import load_view
from engine.crown.record import MAX_RECORD_BYTES, RecordError, check_header
from engine.crown.state import GameState, replay
from engine.notation import BLUE, YELLOW, square_name
from engine.position import Position

__all__ = ["board_pieces", "describe_position", "read_position", "record_walkthrough", "view_walkthrough",
           "AnalysisRequestError"]


class AnalysisRequestError(ValueError):
    """A socket message or request that cannot be served; the message names the field and what is wrong."""


# -- positions -------------------------------------------------------------------------------------
def read_position(text: Any) -> Position:
    """The position of ``text`` (position text, RULINGS A3, or a name of ``engine.NAMED_POSITIONS``).
    AnalysisRequestError carries the parser's message (it names the field and the character)."""
    if not isinstance(text, str):
        raise AnalysisRequestError(f"field 'position': expected position text (a string), got {_kind(text)}")
    try:
        return Position.from_text(NAMED_POSITIONS.get(text.strip(), text))
    except ValueError as exc:          # PositionTextError and the kernel's set-up checks
        raise AnalysisRequestError(str(exc)) from None


def describe_position(position: Position, cylindrical: bool = False) -> dict:
    """A position as the analysis board draws it: its canonical text, side to move, units (square
    index, name, token, colour 0 Blue / 1 Yellow), both Barracks and the Stock ({token: count}),
    whether the game is over (a Sovereign missing, C2) and how many orders the side to move has."""
    data = position.data()
    tokens = [u.token for u in position.catalog.units]
    units = [{"square": sq, "name": square_name(sq), "token": tokens[t], "colour": colour}
             for sq, (t, colour) in sorted(data.units.items())]
    return {
        "position": position.to_text(),
        "side": position.turn,
        "compass": cylindrical,
        "units": units,
        "barracks": [{tokens[t]: n for t, n in enumerate(data.barracks[c]) if n} for c in (BLUE, YELLOW)],
        "stock": position.stock(),
        "over": position.is_over(),
        "orders": position.count_orders(cylindrical),
    }


# -- game records ----------------------------------------------------------------------------------
def record_walkthrough(record: Any, max_steps: int) -> dict:
    """A game record as the analysis board steps through it: ``moves`` (every player's decision:
    turn, player, text, fields), ``boards`` (the distinct board positions, as position text) and
    ``board_at`` (for each place 0..len(moves), 0 before the first move, the index of its board),
    ``evaluations`` (the board evaluation for Blue, in points, at the start of every turn and at the
    game's end, each with the place ``move`` it belongs to) and ``result``. Chance steps (cards drawn)
    are played but not listed. RecordError names the field or the step that is wrong."""
    if isinstance(record, dict) and record.get("format") == VIEW_FORMAT:
        return view_walkthrough(record)
    config, steps = check_header(record)
    if len(steps) > max_steps:
        raise RecordError(f"record: {len(steps)} steps; the analysis board reads at most {max_steps}")
    final = replay(record)              # checks every step and the fingerprint
    state = GameState(config, auto_chance=False)
    catalog = state.units
    boards: list[str] = []
    index_of: dict[str, int] = {}

    def board_index() -> int:
        text = Position.from_core(state.board, catalog).to_text()
        if text not in index_of:
            index_of[text] = len(boards)
            boards.append(text)
        return index_of[text]

    moves: list[dict] = []
    board_at = [board_index()]
    place_after_step = [0]               # steps played -> the place in the move list
    for player, action in steps:
        if action == A.RESIGN and player in (BLUE, YELLOW) and not state.is_terminal():
            moves.append({"turn": state.turn_number, "player": player, "text": "resigns",
                          "fields": A.fields(A.RESIGN, state.cards, state.units)})
            state.resign(player)
            board_at.append(board_at[-1])
        elif player == CHANCE:
            state.apply(action)
            board_at[-1] = board_index()  # a draw changes no board, but what it triggers may
        else:
            moves.append({"turn": state.turn_number, "player": player, "text": state.action_text(action),
                          "fields": state.action_fields(action)})
            state.apply(action)
            board_at.append(board_index())
        place_after_step.append(len(moves))
    evaluations = [{"turn": p["turn"], "blue": round(p["blue"], 2), "move": place_after_step[p["step"]]}
                   for p in evaluation_history(record)]
    return {
        "variant": config.variant,
        "moves": moves,
        "boards": boards,
        "board_at": board_at,
        "evaluations": evaluations,
        "result": {"over": final.over_reason, "winner": final.winner, "turns": final.turn},
    }


def view_walkthrough(doc: Any) -> dict:
    """A position view (engine/crown/knowledge.py: the web board's "Download what I know" file) in
    the shape of ``record_walkthrough``: no moves, its one board, no evaluation graph, and ``view``
    (the seat it was written for, the turn and whose decision it is). ViewError names the field."""
    state = load_view(doc)
    text = Position.from_core(state.board, state.units).to_text()
    to_move = None if state.is_terminal() else state.current_player()
    return {
        "variant": state.config.variant, "moves": [], "boards": [text], "board_at": [0], "evaluations": [],
        "result": {"over": state.over_reason, "winner": state.winner, "turns": state.turn},
        "view": {"seat": doc["seat"], "turn": state.turn_number, "to_move": to_move},
    }


def board_pieces() -> dict:
    """The analysis board's pieces of For the Crown (its registry entry's ``WebBoard.analysis``): how
    a position is read (``read_position``: a ValueError names what is wrong) and described, how a
    record is walked through (``record_walkthrough``: ``record_error`` names what is wrong), and the
    largest record it reads (``max_record_bytes``)."""
    return {"page": "board", "read_position": read_position, "describe_position": describe_position,
            "record_walkthrough": record_walkthrough, "record_error": RecordError,
            "max_record_bytes": MAX_RECORD_BYTES}


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
