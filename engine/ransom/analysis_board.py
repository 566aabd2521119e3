"""King's Ransom's pieces of the web analysis board (registry ``WebBoard.analysis``, the record board
of engine/interfaces/server/game_analysis.py): the turn plan of the tree search (engine/ransom/entry.py
``analyze``) as ranked choices for its first step, the whole plan as the best choice's line. Pure."""

from __future__ import annotations

__all__ = ["pieces", "choices"]


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


def pieces() -> dict:
    """King's Ransom's analysis pieces (registry ``WebBoard.analysis``)."""
    return {"page": "record", "choices": choices, "evaluate": None, "mark": "",
            "scale": "value for the player deciding (-1 a loss .. +1 a win)"}
