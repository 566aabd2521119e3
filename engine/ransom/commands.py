"""King's Ransom's parts of the commands every game offers (`ftc perft`, `ftc analyze`), given to the
command line through the game's registry entry (engine/ransom/entry.py: ``perft_run``, ``walk``,
``analyze_text``, ``format_analysis``), so that the command line never tells the games apart.

- perft counts complete turns (RULINGS G8; docs/kings-ransom.md): the first level in Python, each
  subtree in C in a worker thread (engine/ransom/position.py ``divide``), so a signal stops it;
- a position text is analysed as a game from that position (the side to move's best turn, searched
  from its own information set: engine/ransom/players.py ``analyze_ransom``).
"""

from __future__ import annotations

import time

from engine.perft import PerftProgress
from engine.ransom import position as ransom_position
from engine.ransom.players import analyze_ransom, format_ransom_analysis
from engine.ransom.rules import default_rules
from engine.ransom.state import RESIGN, RansomState
from engine.search.ismcts import step_line

__all__ = ["position", "parse_position", "perft_run", "walk", "analyze_text", "format_analysis"]


def position(text: str) -> ransom_position.RansomPosition:
    """A position text or "startpos" (ValueError: what is wrong)."""
    rules = default_rules()
    return ransom_position.RansomPosition.parse(rules.startpos if text.strip() == "startpos" else text, rules)


def parse_position(text: str) -> ransom_position.RansomPosition:
    """:func:`position`, the ValueError naming the text too (the command line's message)."""
    try:
        return position(text)
    except ValueError as exc:
        raise ValueError(f"King's Ransom position {text!r}: {exc}") from None


def perft_run(text: str, depth: int, divided: bool, options: dict, progress, control) -> tuple[dict | None, int, float]:
    """Complete turns ``depth`` turns deep: ({first turn's divide text: count} or None, total, seconds).
    ``progress`` gets a PerftProgress after each first-level turn; ``control`` stops the count
    (PerftStopped with the first-level turns counted in full)."""
    start_position = parse_position(text)
    start = time.perf_counter()
    if depth == 0:
        return None, 1, 0.0

    def report(done: int, total: int, nodes: int) -> None:
        progress(PerftProgress(nodes, done, total, time.perf_counter() - start, None, "turns"))

    counts = ransom_position.divide(start_position, depth, progress=report, control=control)
    return counts, sum(counts.values()), time.perf_counter() - start


def walk(record: dict) -> tuple[RansomState, list, int]:
    """(a fresh state of the record's deal and start, chance not automatic; its actions; the resign
    code): the record was checked by ``replay`` before."""
    start = record.get("start")
    fresh = RansomState(record["seed"], auto_chance=False,
                        position=None if start is None else ransom_position.RansomPosition.parse(start))
    return fresh, record["actions"], RESIGN


def analyze_text(text: str, options: dict, progress) -> dict:
    """The side to move's best turn from a position text (the Decks dealt with ``seed``)."""
    state = RansomState(options.get("seed", 0), position=parse_position(text))
    return analyze_ransom(state, iterations=options.get("iterations"), seconds=options.get("seconds"),
                          top=options.get("top", 3), seed=options.get("seed", 0),
                          progress=lambda *step: progress(step_line(*step)),
                          processes=options.get("processes", 1))


def format_analysis(report: dict) -> str:
    return format_ransom_analysis(report)
