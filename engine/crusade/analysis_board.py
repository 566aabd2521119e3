"""Crusade & Conquer's pieces of the web analysis board (registry ``WebBoard.analysis``, the record
board of engine/interfaces/server/game_analysis.py): the alpha-beta's report (engine/crusade/search.py
``analyze``) as ranked choices with an arrow per first move, and the static evaluation of a point for
the evaluation graph. Pure functions; the page draws the board with crusade.js."""

from __future__ import annotations

import re

from engine.crusade.position import CrusadeError, CrusadePosition
from engine.crusade.search import CrusadeSearch, position_of
from engine.crusade.state import CrusadeConfig, CrusadeState

__all__ = ["pieces", "choices", "evaluate", "read_state"]

#: A move's from- and to-squares at the start of its text ("e2e4", "e7e8=Q").
_SQUARES = re.compile(r"^([a-p][0-9]{1,2})([a-p][0-9]{1,2})")
#: The seat whose view the bar and the graph show: Blue, who moves first ("w" in the position text).
_BLUE_SIDE = "w"


def _arrow(order: str) -> list[str] | None:
    match = _SQUARES.match(order)
    return [match.group(1), match.group(2)] if match else None


def choices(report: dict, state) -> dict:
    """The report's lines as ranked choices (centi-points for the side to move, shown in Pawns), each
    with the squares of its arrow; ``value``: the best line's score for Blue (seat 0)."""
    sign = 1 if report.get("side") == _BLUE_SIDE else -1
    ranked = [{"text": line["order"], "value": line["score"], "value_text": line["score_text"],
               "line": list(line.get("pv", [])), "arrow": _arrow(line["order"]), "highlight": []}
              for line in report.get("lines", [])]
    score = report.get("score")
    return {"choices": ranked, "over": report.get("over"),
            "value": None if score is None else sign * score / 100.0,
            "value_text": None if score is None else f"{sign * score / 100.0:+.2f}",
            "info": f"alpha-beta depth {report['depth']}, {report['nodes']:,} nodes" if "depth" in report else ""}


def evaluate(state, seat: int) -> float:
    """The static evaluation of a point for Blue (seat 0), in Pawns: the evaluation graph's value,
    Blue's whichever ``seat`` the record is seen as (nothing is hidden in this game, and the bar
    shows Blue's value too)."""
    position = position_of(state)
    score = CrusadeSearch(tt_megabytes=1).evaluate(position)
    return round((score if state.current_player() == 0 else -score) / 100.0, 2)


def read_state(text: str) -> CrusadeState:
    """A position text (docs/crusade.md, "Positions, moves, perft"; or "startpos") as a game that starts
    there: the board's pasted position. A ValueError names what is wrong."""
    try:
        return CrusadeState(CrusadeConfig(position=CrusadePosition.from_text(text).text()))
    except CrusadeError as exc:
        raise ValueError(f"Crusade & Conquer position: {exc}") from None


def pieces() -> dict:
    """Crusade & Conquer's analysis pieces (registry ``WebBoard.analysis``)."""
    return {"page": "record", "choices": choices, "evaluate": evaluate, "mark": "square",
            "scale": "Pawns for Blue", "read_state": read_state,
            "position_hint": "a position text (board side fallen [halfmove turn]) or startpos"}
