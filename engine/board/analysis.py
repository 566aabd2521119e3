""""What are the best orders here?": analysis of board positions by alpha-beta, as a dict for machines
and as text for people (`ftc analyze` with a position; the analysis board's live search)."""

from __future__ import annotations

from engine.board.alphabeta import AlphaBeta
from engine.position import Position

__all__ = ["analyze_position", "format_position_analysis"]


def analyze_position(position: Position, depth: int | None = None, seconds: float | None = None, top: int = 3,
                     progress=None, searcher: AlphaBeta | None = None, cylindrical: bool = False) -> dict:
    """The best ``top`` orders of a board position by alpha-beta (``AlphaBeta.search``: its limits,
    ``progress`` callback and Compass mode ``cylindrical``), as ``SearchResult.to_json`` with the
    position's text, its side to move ('w' or 'b') and ``complete``."""
    searcher = searcher or AlphaBeta()
    result = searcher.search(position, depth=depth, seconds=seconds, top=top, progress=progress,
                             cylindrical=cylindrical)
    report = result.to_json()
    report["position"] = position.to_text()
    report["side"] = position.turn
    report["complete"] = result.complete
    return report


def format_position_analysis(report: dict) -> str:
    lines = [f"position: {report['position']}"]
    if not report["lines"]:
        lines.append("no legal order: the game is over (or drawn, C3)")
    for i, line in enumerate(report["lines"], 1):
        lines.append(f"{i}. {line['order']:<8} {line['score_text']:>10}   pv: {' '.join(line['pv'])}")
    lines.append(f"depth {report['depth']} (selective {report['seldepth']}), {report['nodes']:,} nodes, "
                 f"{report['seconds']:.2f} s, {report['nps']:,} nodes/s"
                 + (f", evaluation {report['evaluation']}" if "evaluation" in report else ""))
    return "\n".join(lines)
