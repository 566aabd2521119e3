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

from engine.crownfall.position import (
    PositionError,
    chance_children,
    count,
    decisions,
    divide,
    read_position,
    write_position,
)
from tests.reference import crownfall as reference

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


def timed_position():
    """A position using the fields the data file leaves at their defaults: a spent, damaged Watchtower
    that took a structure step this round, both kinds of Ward, Phantom Garrison, Ley Shield, a Scorch
    Ward, Blinks and flags; the reference's own check accepts it."""
    pos = json.loads(json.dumps(LINES[3]["position"]))
    mine = [r for r, rec in pos["regions"].items() if rec["player"] == pos["seat"]]
    assert len(mine) >= 2
    pos["regions"][mine[0]].update(tower={"role": "watchtower", "damaged": True, "spent": True},
                                   ward={"turns": 1}, garrison=1, shield=True, steps=1)
    pos["regions"][mine[1]].update(ward={"turns": None})
    pos["blinks"], pos["scorched"] = 2, [mine[1]]
    pos["players"][pos["seat"]]["flags"].update(ember=True, tide=True, tower_win=True)
    reference.parse(pos)
    return pos


def test_every_timed_field_round_trips():
    pos = timed_position()
    assert write_position(read_position(pos)) == pos


def _same_rules_state(pos):
    """The position without what only one side records: the "ember" flag of a House other than
    Emberglass (the reference marks every player's first battle against a Tower; only Emberglass's
    mark has a use)."""
    for p in pos["players"]:
        if p["house"] != "emberglass":
            p["flags"]["ember"] = False
    return pos


def test_every_decision_leads_where_the_reference_leads():
    # the oracle is the independent reference: from a position with Summoning III, Warding III and
    # every timed effect, the engine offers the reference's decisions and each leads to the
    # reference's position (RULINGS I18: Phantom Garrison and Ley Shield act on any region the caster
    # controls; a shielded Tower loses at most one structure step in the whole round)
    pos = timed_position()
    player = pos["players"][pos["seat"]]
    player["spells"].update(summoning=3, warding=3)
    player["mana"] = 12
    ours = dict(decisions(read_position(pos)))
    theirs = reference.legal_actions(reference.parse(pos))
    assert sorted(ours) == sorted(theirs)
    for text, child in ours.items():
        while child.is_chance_node() and len(chance_children(child, "expanded")) == 1:
            child = chance_children(child, "expanded")[0]      # the reference draws a sure outcome in apply
        assert (_same_rules_state(write_position(child))
                == _same_rules_state(reference.apply(reference.parse(pos), text))), text


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


def test_an_expanded_draw_keeps_the_fixed_order_only_on_its_head():
    # the position format's rule: drawing the head of omen_next pops it, any other Omen clears it
    pos = LINES[5]["position"]
    head, rest = pos["omen_next"][0], pos["omen_next"][1:]
    children = {write_position(c)["omens_seen"][-1]: write_position(c) for c in
                chance_children(read_position(pos), "expanded")}
    assert sorted(children) == sorted(pos["omen_next"])
    assert children[head]["omen_next"] == rest
    assert all(children[k]["omen_next"] is None for k in children if k != head)
