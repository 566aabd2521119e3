"""Crusade & Conquer perft in the kernel against the independent reference.

Every count here comes from tests/data/crusade_perft.epd, whose numbers were produced by the slow
reference generator tests/reference/crusade.py, written from the rulebook and RULINGS H1-H9
without reading the engine; the kernel (engine.crusade.position, ext/) must give each one exactly.
The divide checks compare the kernel's per-move counts with the reference's own divide, computed
here (the same oracle, at depths it answers in well under a second).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.catalog import crusade_catalog
from engine.crusade.position import CrusadePosition, layout_catalog
from tests.reference import crusade as reference

EPD = Path(__file__).resolve().parents[1] / "data" / "crusade_perft.epd"


def _lines():
    """(line number, position text, layout text or None, {depth: count}, covers) of the EPD file,
    read with the format its header documents (fields separated by " ;")."""
    out = []
    for number, line in enumerate(EPD.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(" ;")]
        layout, counts, covers = None, {}, ""
        for field in fields[1:]:
            if field.startswith("layout "):
                layout = field[len("layout "):]
            elif field.startswith("covers:"):
                covers = field[len("covers:"):].strip()
            else:
                depth, _, count = field[1:].partition(" ")
                counts[int(depth)] = int(count)
        out.append((number, fields[0], layout, counts, covers))
    return out


LINES = _lines()


def _position(text, layout):
    return CrusadePosition.from_text(text, layout_catalog(layout) if layout else crusade_catalog())


def _ids(lines):
    return [f"line{number}" for number, *_ in lines]


def test_the_file_covers_what_the_issue_asks():
    # 23 positions, each with D1-D4 (the reference's numbers), one on a passed-in layout.
    assert len(LINES) == 23
    assert all(sorted(counts) == [1, 2, 3, 4] for *_, counts, _ in LINES)
    assert sum(1 for _, _, layout, _, _ in LINES if layout) == 1


@pytest.mark.parametrize("number, text, layout, counts, covers", LINES, ids=_ids(LINES))
def test_kernel_perft_d1_to_d3_equals_the_reference(number, text, layout, counts, covers):
    pos = _position(text, layout)
    for depth in (1, 2, 3):
        assert pos.perft(depth) == counts[depth], f"line {number} D{depth} ({covers})"


@pytest.mark.slow
@pytest.mark.parametrize("number, text, layout, counts, covers", LINES, ids=_ids(LINES))
def test_kernel_perft_d4_equals_the_reference(number, text, layout, counts, covers):
    assert _position(text, layout).perft(4) == counts[4], f"line {number} D4 ({covers})"


@pytest.mark.parametrize("number, text, layout, counts, covers", LINES, ids=_ids(LINES))
def test_position_text_round_trips(number, text, layout, counts, covers):
    # Every line of the file is written in the canonical form (the reference writes it so).
    pos = _position(text, layout)
    assert pos.text() == text
    again = _position(pos.text(), layout)
    assert again.text() == text and again.core.key == pos.core.key


@pytest.mark.parametrize("number, text, layout, counts, covers", LINES, ids=_ids(LINES))
def test_divide_d2_equals_the_references_divide(number, text, layout, counts, covers):
    # The reference's divide (move text -> count) is the oracle; the kernel's divide sums to perft.
    pos = _position(text, layout)
    ref_layout = reference.parse_layout(layout) if layout else reference.DEFAULT_LAYOUT
    expected = reference.divide(reference.parse(text, ref_layout), 2)
    got = pos.divide(2)
    assert got == expected
    assert sum(got.values()) == counts[2]


def test_divide_d3_of_the_start_position_equals_the_references():
    expected = reference.divide("startpos", 3)
    got = CrusadePosition.from_text("startpos").divide(3)
    assert got == expected and sum(got.values()) == 7714


def test_legal_moves_and_positions_agree_with_the_reference_along_random_games():
    # Random games from a few lines of the file: at every ply the kernel's legal moves and the
    # position text after each move equal the reference's (text, moves and play are its API).
    import random
    rng = random.Random(26)
    for number, text, layout, _, _ in LINES[:4] + LINES[9:12] + LINES[14:18]:
        pos = _position(text, layout)
        ref = reference.parse(text, reference.parse_layout(layout) if layout else reference.DEFAULT_LAYOUT)
        for _ in range(40):
            ours = sorted(pos.legal_moves())
            theirs = sorted(reference.move_text(m) for m in reference.legal_moves(ref))
            assert ours == theirs, f"line {number}: {pos.text()}"
            assert pos.status() == reference.status(ref)
            if not ours:
                break
            move = rng.choice(ours)
            pos.push(move)
            ref = reference.play(ref, move)
            assert pos.text() == ref.text(), f"line {number} after {move}"
            assert pos.core.key == pos.core.recomputed_key()
            assert pos.core.foot == pos.core.recomputed_foot()


def test_the_legality_shortcut_counts_as_testing_every_move():
    # The kernel tries only the King's moves and those leaving one of its eight lines when the King
    # is not attacked (Rules.line_discoveries). A catalog with one more unit type whose named
    # pattern could expose the King another way (a Phantom's knight path) turns the shortcut off;
    # that unit never stands on these boards, so both catalogs must count alike, and as the
    # reference (the file's D3).
    from importlib import resources
    text = resources.files("engine.data").joinpath("crusade_units.toml").read_text(encoding="utf-8")
    text += '\n[[unit]]\ntoken = "Z"\nname = "Phantom"\nprice = 0\nstock = 0\nmoves = "(phantom)"\n'
    from engine.catalog import Catalog
    every_move = Catalog.from_toml(text, "crusade_units.toml + Phantom")
    for number, position, layout, counts, _ in LINES:
        catalog = every_move.with_board(layout_catalog(layout).board) if layout else every_move
        assert CrusadePosition.from_text(position, catalog).perft(3) == counts[3], f"line {number}"
