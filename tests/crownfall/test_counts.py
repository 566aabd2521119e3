"""Crownfall's action count against the independent reference.

Every number in tests/data/crownfall_counts.jsonl was computed by tests/reference/crownfall.py, the slow
reference written from the rulebook and RULINGS I without reading the engine (its module docstring);
the engine reads each position through engine.crownfall.position and must count the same number of
decision sequences in both chance modes. Depths 1-2 run by default, depth 3 is marked slow.
The reading differences found on the way are documented in docs/crownfall.md ("Counting against the
reference").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.crownfall.position import PositionError, count, divide, read_position, write_position

COUNTS = Path(__file__).resolve().parents[1] / "data" / "crownfall_counts.jsonl"
LINES = [json.loads(line) for line in COUNTS.read_text().splitlines() if line.strip()]
CASES = [(i, mode, depth) for i in range(len(LINES)) for mode in ("fixed", "expanded") for depth in (1, 2, 3)]


def _param(i, mode, depth):
    marks = [pytest.mark.slow] if depth == 3 else []
    return pytest.param(i, mode, depth, marks=marks, id=f"line{i + 1}-{mode}-d{depth}")


@pytest.mark.parametrize("i,mode,depth", [_param(*c) for c in CASES])
def test_count_equals_the_reference(i, mode, depth):
    line = LINES[i]
    # the expected number comes from the independent reference (tests/reference/crownfall.py)
    assert count(read_position(line["position"]), depth, mode) == line[mode][str(depth)], line["covers"]


@pytest.mark.parametrize("i", range(len(LINES)))
def test_position_round_trip(i):
    pos = LINES[i]["position"]
    assert write_position(read_position(pos)) == pos


def test_every_timed_field_round_trips():
    # a position using the fields the data file leaves at their defaults: a spent Watchtower, a damaged
    # Tower, an Anchor, both kinds of Ward, Phantom Garrison, Ley Shield, structure steps, a Scorch Ward,
    # Blinks and flags; the reference's own check accepts it
    pos = json.loads(json.dumps(LINES[3]["position"]))
    mine = [r for r, rec in pos["regions"].items() if rec["player"] == pos["seat"]]
    assert len(mine) >= 2
    pos["regions"][mine[0]].update(tower={"role": "watchtower", "damaged": True, "spent": True},
                                   ward={"turns": 1}, garrison=1, shield=True, steps=1)
    pos["regions"][mine[1]].update(ward={"turns": None})
    pos["blinks"], pos["scorched"] = 2, [mine[1]]
    pos["players"][pos["seat"]]["flags"].update(ember=True, tide=True, tower_win=True)
    from tests.reference import crownfall as reference
    reference.parse(pos)
    assert write_position(read_position(pos)) == pos


def test_a_march_never_returns_to_a_region_it_left():
    # line 1: Tidebound's Archmage at thorn-coast may March two regions; thorn-coast>b>thorn-coast
    # is not a move (reading in docs/crownfall.md), so no path revisits a region.
    marches = [t for t in divide(read_position(LINES[0]["position"]), 1) if t.startswith("march")]
    assert marches
    for text in marches:
        path = text.split()[2].split(">")
        assert len(set(path)) == len(path), text


def test_a_bad_field_is_located():
    pos = json.loads(json.dumps(LINES[0]["position"]))
    pos["players"][1]["mana"] = -1
    with pytest.raises(PositionError, match=r"position\.players\[1\]\.mana: expected an integer >= 0, got -1"):
        read_position(pos)
    pos = json.loads(json.dumps(LINES[0]["position"]))
    pos["regions"]["atlantis"] = {"player": 0, "banners": 1}
    with pytest.raises(PositionError, match=r"position\.regions: unknown region 'atlantis'"):
        read_position(pos)
    pos = json.loads(json.dumps(LINES[0]["position"]))
    pos["phase"] = "lunch"
    with pytest.raises(PositionError, match=r"position\.phase: expected one of"):
        read_position(pos)


def test_fixed_mode_needs_the_decks():
    pos = json.loads(json.dumps(LINES[5]["position"]))
    assert pos["phase"] == "omen"
    pos["omen_next"] = None
    with pytest.raises(PositionError, match=r"position\.omen_next"):
        count(read_position(pos), 1, "fixed")
