"""King's Ransom's pieces of the web analysis board (registry ``WebBoard.analysis``, the record board
of engine/interfaces/server/game_analysis.py): the turn plan of the tree search (engine/ransom/entry.py
``analyze``) as ranked choices for its first step, the whole plan as the best choice's line. Pure."""

from __future__ import annotations

from engine.ransom.commands import position
from engine.ransom.state import RansomState

__all__ = ["pieces", "choices", "read_state"]


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
    return {"page": "record", "choices": choices, "evaluate": None, "mark": "",
            "scale": "value for the player deciding (-1 a loss .. +1 a win)", "read_state": read_state,
            "position_hint": "a position text (arena side hands decks discards no-capture-turns turn) or startpos"}
