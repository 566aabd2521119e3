"""King's Ransom's pieces of the web analysis board (registry ``WebBoard.analysis``, the record board
of engine/interfaces/server/game_analysis.py): the turn plan of the tree search (engine/ransom/entry.py
``analyze``) as ranked choices for its first step, the whole plan as the best choice's line, and the
evaluation graph: the tree search's own leaf evaluation (engine/ransom/players.py ``RansomEvaluator``)
for the loaded seat. Pure functions."""

from __future__ import annotations

import random

from engine.ransom.commands import position
from engine.ransom.players import RansomEvaluator
from engine.ransom.state import RansomState

__all__ = ["pieces", "choices", "evaluate", "read_state", "DEALS"]

#: The deals of the cards hidden from the seat that the graph's value is the mean over: the
#: evaluator values a face-down card at what it is in one deal, so one deal alone would swing the
#: graph by whatever it happened to put under the opponent's cards.
DEALS = 16
_EVALUATOR = RansomEvaluator()


def choices(report: dict, state) -> dict:
    """The first step's alternatives ranked by visits (values -1 a loss .. +1 a win for the player
    deciding); the best one's line is the plan's steps."""
    plan = report.get("plan") or []
    ranked = []
    if plan:
        texts = [step["text"] for step in plan]
        for rank, alt in enumerate(plan[0].get("alternatives", [])):
            line = texts if rank == 0 and alt["text"] == texts[0] else [alt["text"]]
            ranked.append({"text": alt["text"], "value": alt["value"], "value_text": f"{alt['value']:+.2f}",
                           "line": line, "arrow": None, "highlight": []})
    value = report.get("value")
    over = report.get("over")
    return {"choices": ranked, "over": over, "value": value,
            "value_text": None if value is None else f"{value:+.2f}",
            "info": f"{sum(step.get('iterations', 0) for step in plan):,} iterations" if plan else ""}


def evaluate(state, seat: int) -> float:
    """The evaluation graph's value of ``state`` for ``seat``: ``RansomEvaluator``'s (-1 a loss ..
    +1 a win) averaged over DEALS deals of the cards hidden from ``seat`` (``resample_hidden``
    seeded 0..DEALS-1), so it reads nothing but what ``seat`` knows of ``state``; a finished game
    scores its result."""
    total = sum(_EVALUATOR(state.resample_hidden(seat, random.Random(deal)), seat) for deal in range(DEALS))
    return round(total / DEALS, 4)


def read_state(text: str) -> RansomState:
    """A position text (docs/kings-ransom.md; or "startpos") as a game that starts there, as `ftc
    analyze --game kings-ransom TEXT` reads it (seed 0): the board's pasted position. The text names
    every card, the face-down ones and the Decks too: it is what the one pasting it says. A
    ValueError names what is wrong."""
    try:
        return RansomState(0, position=position(text))
    except ValueError as exc:
        raise ValueError(f"King's Ransom position: {exc}") from None


def pieces() -> dict:
    """King's Ransom's analysis pieces (registry ``WebBoard.analysis``)."""
    return {"page": "record", "choices": choices, "evaluate": evaluate, "mark": "",
            "scale": "value for the player deciding (-1 a loss .. +1 a win); the graph: the loaded seat's",
            "read_state": read_state,
            "position_hint": "a position text (arena side hands decks discards no-capture-turns turn) or startpos"}
