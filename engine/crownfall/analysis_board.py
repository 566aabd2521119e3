"""Crownfall's pieces of the web analysis board (registry ``WebBoard.analysis``, the record board of
engine/interfaces/server/game_analysis.py): the tree search's report (engine/crownfall/entry.py
``analyze``) as ranked actions, each with the regions it names (the page highlights the best one's on
the map crownfall.js draws), and the evaluation graph: the tree search's own evaluation of a table
(engine/crownfall/pieces.py ``CrownfallEvaluator``) for the loaded seat, whichever of the 2 to 4
seats it is (a game of more than two has no single "for the other side"). Pure functions."""

from __future__ import annotations

from engine.crownfall.pieces import CrownfallEvaluator
from engine.crownfall.players import read_text

__all__ = ["pieces", "choices", "evaluate", "read_state"]

_EVALUATOR = CrownfallEvaluator()

#: The fields of an action that name a region of the map (engine/crownfall/actions.py).
_REGION_FIELDS = ("region", "from", "to")


def _regions(state, action: int) -> list[str]:
    try:
        fields = state.action_fields(action)
    except (ValueError, IndexError, KeyError):
        return []
    return [fields[key] for key in _REGION_FIELDS if isinstance(fields.get(key), str)]


def choices(report: dict, state) -> dict:
    """The report's actions ranked by visits (values -1 a loss .. +1 a win for the player deciding),
    each with the regions it names; ``value``: the best action's value for that player."""
    ranked = [{"text": a["text"], "value": a["value"], "value_text": f"{a['value']:+.2f}",
               "line": [f"{100 * a['share']:.0f}% of the visits"], "arrow": None,
               "highlight": _regions(state, a["action"])}
              for a in report.get("actions", [])]
    value = report.get("value")
    return {"choices": ranked, "over": report.get("over"), "value": value,
            "value_text": None if value is None else f"{value:+.2f}",
            "info": f"{report.get('iterations', 0):,} iterations, {report.get('seconds', 0):.1f} s"}


def evaluate(state, seat: int) -> float:
    """The evaluation graph's value of ``state`` for ``seat``: ``CrownfallEvaluator``'s (-1 a loss ..
    +1 a win; a finished game its result: a sole winner +1, each other seat -1/(n-1)). Nothing of
    Crownfall is hidden from a seat but the order of the cards not yet drawn, which it does not read."""
    return round(_EVALUATOR(state, seat), 4)


def read_state(text: str):
    """A position as JSON (engine/crownfall/position.py, as `ftc analyze --game crownfall` reads it)
    or "startpos" (two players, seed 0): the board's pasted position. The JSON names every card,
    the decks too: it is what the one pasting it says. A ValueError names what is wrong."""
    return read_text(text)


def pieces() -> dict:
    """Crownfall's analysis pieces (registry ``WebBoard.analysis``)."""
    return {"page": "record", "choices": choices, "evaluate": evaluate, "mark": "region",
            "scale": "value for the player deciding (-1 a loss .. +1 a win); the graph: the loaded seat's",
            "read_state": read_state,
            "position_hint": "a position as JSON (ftc perft --game crownfall's format) or startpos"}
