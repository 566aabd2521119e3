"""The rules texts say what the engine counts for H8c's draw (RULINGS H8): the number of plies without a
capture or a Pawn move is the engine's DRAW_PLIES, named in plies (one side's move each), never in
moves, which a chess player reads as a move of both sides. The texts are the rules page
(docs/rules/crusade-and-conquer.md) and the rulings page's H8 (docs/rules/rulings.md)."""

from __future__ import annotations

import re

import pytest

from engine.crusade.state import DRAW_PLIES, CrusadeConfig, CrusadeState
from tests.support import ROOT

RULES = ROOT / "docs" / "rules"


def passage(page: str, start: str, end: str) -> str:
    """The text of ``page`` from ``start`` to the next ``end`` after it, joined into one line."""
    text = (RULES / page).read_text(encoding="utf-8")
    at = text.index(start)
    stop = text.find(end, at + len(start))
    return " ".join(text[at:stop if stop >= 0 else len(text)].split())


DRAW_TEXTS = {
    "crusade-and-conquer.md": passage("crusade-and-conquer.md", "**Draws when engines play.**", "\n\n"),
    "rulings.md H8(c)": passage("rulings.md", "(c) For engines:", "\n\n"),
}


@pytest.mark.parametrize("name", sorted(DRAW_TEXTS))
def test_the_draw_rule_counts_the_engines_plies(name):
    text = DRAW_TEXTS[name]
    counts = re.findall(r"\b(\d+)\s+(plies|ply|moves|move|turns)\b", text)
    assert counts, f"{name}: no count in {text!r}"
    number, unit = counts[0]
    assert (int(number), unit) == (DRAW_PLIES, "plies"), f"{name}: {text!r}"
    # Any count in moves is of one side's moves: half the plies, "by each side".
    for number, unit in counts[1:]:
        if unit.startswith("move"):
            assert int(number) == DRAW_PLIES // 2 and re.search(rf"\b{number} (?:moves )?by each side", text), (
                f"{name}: {text!r}")


def test_the_engine_counts_one_ply_for_each_side_and_draws_at_the_limit():
    # What DRAW_PLIES counts: Blue's King move and Red's King move each add one to the clock; the
    # game is drawn when the clock reaches DRAW_PLIES, not before.
    state = CrusadeState(CrusadeConfig(position=f"4k3/8/8/8/8/8/8/K6R w - {DRAW_PLIES - 2} 40"))
    state.apply_text("a1a2")
    assert state.pos.core.halfmove == DRAW_PLIES - 1 and not state.is_terminal()
    state.apply_text("e8f7")
    assert state.pos.core.halfmove == DRAW_PLIES and state.is_terminal()
    assert state.end == "plies" and state.returns() == [0.0, 0.0]
