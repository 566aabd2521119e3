"""Tests of the slow Crownfall reference (tests/reference/crownfall.py) itself.

Every count below is derived BY HAND in the comment above it, from the rulebook (crownfall.txt) and
RULINGS I1-I20 (with the module's numbered Readings where they are silent), not from running the
reference.  The map is RULINGS I1's: the Keep touches the four inner regions (dawnmere, old-abbey,
south-barrow, westhollow; the first three are Ruins), the inner ring is a cycle in that order, the
outer ring is the cycle highmoor, frostmark, greywater, eastford, saltmere, thorn-coast, westwatch,
briarwood, and the ring-to-ring borders are highmoor-dawnmere, frostmark-dawnmere,
frostmark-old-abbey, greywater-old-abbey, eastford-old-abbey, eastford-south-barrow,
saltmere-south-barrow, thorn-coast-south-barrow, thorn-coast-westhollow, westwatch-westhollow,
briarwood-westhollow, briarwood-dawnmere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reference import crownfall as cf
from tests.reference.crownfall import (
    ActionError,
    MapError,
    PositionError,
    apply,
    apply_with_events,
    count,
    divide,
    legal_actions,
)

COUNTS = Path(__file__).resolve().parent / "data" / "crownfall_counts.jsonl"


def tower(role="none", damaged=False):
    return {"role": role, "damaged": damaged, "spent": False}


def region(seat, banners=0, tower_=None, **extra):
    rec = {"player": seat, "banners": banners, "tower": tower_, "anchor": False, "ward": None,
           "garrison": 0, "shield": False, "steps": 0}
    rec.update(extra)
    return rec


def make(seats, regions, *, omen="gloam-tide", seat=0, actions_left=3, mana=(0, 0),
         archmages=None, spells=None, objectives=("hold-keep", "two-ruins"), **top):
    """A position in a turn: seats = [(house, home)], regions = {id: record}."""
    pos = cf.new_game(len(seats), seats=seats)
    pos["regions"] = regions
    for i, p in enumerate(pos["players"]):
        p["mana"] = mana[i]
        if archmages is not None:
            p["archmage"] = archmages[i]
        if spells is not None and spells[i] is not None:
            p["spells"].update(spells[i])
    pos.update(phase="turn", seat=seat, actions_left=actions_left, omen=omen, omens_seen=[omen],
               objectives=list(objectives),
               objective_deck=[o for o in cf.OBJECTIVES if o not in objectives])
    pos.update(top)
    return cf.check(pos)


def kinds(pos, prefix):
    return sorted(a for a in legal_actions(pos) if a.startswith(prefix))


TWO = [("tidebound", "thorn-coast"), ("emberglass", "frostmark")]


# --------------------------------------------------------------------------------------------
# The rules' example round (17.0)
# --------------------------------------------------------------------------------------------

def example_position():
    # Blue (seat 0, Tidebound) holds Thorn Coast (Home Tower, Archmage, a Banner), South Barrow (a
    # Banner and an Anchor) and Starfall Keep (a Banner), Travel II; Red (seat 1, Emberglass, home
    # Frostmark) holds Eastford with a Banner.  The round's Omen is still to be revealed.
    pos = make(TWO, {
        "thorn-coast": region(0, 1, tower()),
        "south-barrow": region(0, 1, anchor=True),
        "starfall-keep": region(0, 1),
        "frostmark": region(1, 0, tower()),
        "eastford": region(1, 1),
    }, spells=[{"travel": 2}, None])
    pos.update(phase="omen", omen=None, omens_seen=["red-harvest"])
    return cf.check(pos)


def test_example_round_17():
    pos = example_position()
    # Omen: Gloam Tide changes neither Income nor the battle.
    pos, events = apply_with_events(pos, "omen gloam-tide")
    # Income (6.0): 1 base + 1 South Barrow (a Ruin) + 1 Keep in the network (Thorn Coast's Home
    # Tower - South Barrow - Keep is one active group, RULINGS I12) = 3; Red: 1 base.
    assert {e["income"]: e["mana"] for e in events if "income" in e} == {0: 3, 1: 1}
    assert pos["players"][0]["mana"] == 3 and pos["phase"] == "turn" and pos["seat"] == 0
    # Action 1: Rift Step (cost 2) moves the Thorn Coast Banner to South Barrow, both nodes of
    # the active network (Home Tower, Ruin with Anchor).
    assert "cast rift-step thorn-coast south-barrow" in legal_actions(pos)
    pos = apply(pos, "cast rift-step thorn-coast south-barrow")
    assert pos["players"][0]["mana"] == 1
    assert pos["regions"]["south-barrow"]["banners"] == 2
    assert pos["regions"]["thorn-coast"]["banners"] == 0
    assert cf.controller(pos, "thorn-coast") == 0  # the Home Tower still controls
    # Action 2: March South Barrow -> Eastford: Blue 1 (a Banner), Red 1 (a Banner); no
    # Watchtower (Thorn Coast is not next to Eastford); the tie goes to Red; Blue's Banner is lost.
    pos, events = apply_with_events(pos, "march banner south-barrow>eastford")
    [battle] = [e for e in events if "battle" in e]
    assert (battle["attack"], battle["defence"], battle["winner"]) == (1, 1, "defender")
    assert battle["attack_terms"]["banner"] == 1 and battle["attack_terms"]["watchtowers"] == 0
    assert battle["defence_terms"]["banner"] == 1
    assert pos["regions"]["south-barrow"]["banners"] == 1
    assert pos["regions"]["eastford"] == region(1, 1)
    assert cf.reserve(pos, 0, "banners") == 6 - 2  # Keep and South Barrow keep one each
    # Action 3: Summon Host is not Blue's (no Summoning I); Blue has 1 action left.
    assert pos["actions_left"] == 1
    assert not kinds(pos, "cast summon-host")


def test_example_round_watchtower_at_thorn_coast_does_not_support_eastford():
    # 17.0's aside: even a Watchtower at Thorn Coast would not support a battle at Eastford.
    pos = apply(example_position(), "omen gloam-tide")
    pos["regions"]["thorn-coast"]["tower"]["role"] = "watchtower"
    pos, events = apply_with_events(pos, "march banner south-barrow>eastford")
    [battle] = [e for e in events if "battle" in e]
    assert battle["attacker_watchtowers"] == [] and battle["winner"] == "defender"
    assert pos["regions"]["thorn-coast"]["tower"]["spent"] is False


def test_example_round_summon_host_when_known():
    # With Summoning I and 2 mana, Summon Host from the Archmage (and Home Tower) at Thorn Coast
    # reaches its empty neighbours: saltmere, westhollow, westwatch (south-barrow is Blue's).
    pos = apply(example_position(), "omen gloam-tide")
    pos["players"][0]["spells"]["summoning"] = 1
    assert kinds(pos, "cast summon-host") == sorted(
        ["cast summon-host saltmere", "cast summon-host westhollow", "cast summon-host westwatch"])


# --------------------------------------------------------------------------------------------
# Counts derived by hand
# --------------------------------------------------------------------------------------------

def test_start_position_actions():
    # 2 players (RULINGS I2): Tidebound at thorn-coast, mana 1 + Income 1 = 2, Travel I.
    # end 1; Archmage one region: south-barrow, westhollow, saltmere, westwatch = 4; two regions
    # with Tidebound's extra (a March from an outer region): via south-barrow keep, old-abbey,
    # westhollow, eastford, saltmere (5), via westhollow keep, dawnmere, south-barrow, westwatch,
    # briarwood (5), via saltmere south-barrow, eastford (2), via westwatch westhollow, briarwood
    # (2) = 14; raise on the 4 empty neighbours = 4; anchor thorn-coast (a Tower, 1 mana) = 1;
    # research 4 schools = 4; cast blink = 1.  1 + 4 + 14 + 4 + 1 + 4 + 1 = 29.
    pos = cf.new_game(2)
    pos = apply(pos, "omen red-harvest")
    pos = apply(pos, "objectives two-ruins largest-realm")
    assert pos["players"][0]["mana"] == 2
    assert len(legal_actions(pos)) == 29
    assert count(pos, 1) == 29


def lone_banner():
    # Seat 0 (Redwall): one Banner on the Keep, Archmage out, 0 mana, no Tower.  Seat 1
    # (Emberglass): Home Tower and Archmage at frostmark, 0 mana.
    return make([("redwall", "eastford"), ("emberglass", "frostmark")], {
        "starfall-keep": region(0, 1), "frostmark": region(1, 0, tower())},
        archmages=[None, "frostmark"])


def test_lone_banner_depth_1():
    # end 1; march keep -> 4 inner regions (all empty) = 4; raise on the 4 inner regions = 4;
    # fortify keep with 4 roles = 4; no mana: no anchor, research or cast.  13.
    assert count(lone_banner(), 1) == 13


def test_lone_banner_depth_2():
    # After "end": seat 1 has end 1 + Archmage to highmoor, greywater, dawnmere, old-abbey 4 +
    # raise there 4 = 9.
    # After march keep>X the Banner stands on X with 2 actions left: end 1 + marches to X's 6
    # neighbours + raise on X's empty neighbours + fortify 4.  dawnmere: neighbours keep,
    # old-abbey, westhollow, highmoor, frostmark (seat 1's), briarwood: 6 marches, 5 raises -> 16;
    # old-abbey: keep, dawnmere, south-barrow, frostmark, greywater, eastford: 6, 5 -> 16;
    # south-barrow and westhollow have no enemy neighbour: 6, 6 -> 17 each.  66.
    # After raise X (Banners on keep and X): end 1 + marches 4 (keep) + 6 (X) + raises (the other
    # 3 inner regions and X's empty outer neighbours) + fortify 8.  dawnmere: outer highmoor,
    # briarwood -> 5 raises: 24; old-abbey: greywater, eastford -> 5: 24; south-barrow: eastford,
    # saltmere, thorn-coast -> 6: 25; westhollow: thorn-coast, westwatch, briarwood -> 6: 25.  98.
    # After fortify keep <role> (the Banner became the Tower): end 1 + raise 4 = 5, x4 = 20.
    # 9 + 66 + 98 + 20 = 193.
    pos = lone_banner()
    assert count(pos, 2) == 193
    d = divide(pos, 2)
    assert d["end"] == 9 and d["march banner starfall-keep>dawnmere"] == 16
    assert d["raise south-barrow"] == 25 and d["fortify starfall-keep beacon"] == 5


def test_march_paths_with_blink_and_tide():
    # Tidebound Banner on saltmere (outer), one Blink cast: 1-step 3 (eastford, thorn-coast,
    # south-barrow); 2-step paths 3 + 3 + 5 = 11, each with +blink or +tide = 22; 3-step paths
    # need both: via eastford 2 + 5 + 4 = 11, via thorn-coast 2 + 4 + 5 = 11, via south-barrow
    # 3 + 5 + 5 + 2 + 2 = 17 (distinct regions, reading 1) = 39.  3 + 22 + 39 = 64.
    pos = make(TWO, {"saltmere": region(0, 1), "frostmark": region(1, 0, tower())},
               archmages=[None, "frostmark"], blinks=1)
    marches = kinds(pos, "march")
    assert len(marches) == 64
    assert "march banner saltmere>eastford>greywater +blink" in marches
    assert "march banner saltmere>eastford>greywater +tide" in marches
    assert "march banner saltmere>south-barrow>starfall-keep>dawnmere +blink +tide" in marches
    # Using the Blink spends it; Tidebound's extra stays for a later March (reading 3).
    after = apply(pos, "march banner saltmere>eastford>greywater +blink")
    assert after["blinks"] == 0 and after["players"][0]["flags"]["tide"] is False


def test_march_stops_at_an_enemy_piece():
    # Blink (emberglass has none: give it Travel I via a cast blink) and a Banner on the Keep;
    # seat 1's Banner on dawnmere.  1-step 4; 2-step with +blink through old-abbey (dawnmere,
    # south-barrow, frostmark, greywater, eastford = 5), south-barrow (old-abbey, westhollow,
    # eastford, saltmere, thorn-coast = 5), westhollow (dawnmere, south-barrow, thorn-coast,
    # westwatch, briarwood = 5), but none through dawnmere (its enemy Banner ends the March).  19.
    pos = make([("emberglass", "frostmark"), ("briar", "highmoor")],
               {"starfall-keep": region(0, 1), "dawnmere": region(1, 1)},
               archmages=[None, None], blinks=1)
    marches = kinds(pos, "march")
    assert len(marches) == 19
    assert not [m for m in marches if ">dawnmere>" in m]


def test_silent_roads():
    # Emberglass Banners on the Keep and dawnmere, Silent Roads: from the Keep 4 one-step and,
    # through dawnmere (controlled to controlled, RULINGS I13), 5 more (old-abbey, westhollow,
    # highmoor, frostmark, briarwood); from dawnmere 6 one-step and, through the Keep, 3
    # (old-abbey, south-barrow, westhollow).  18.  After one qualifying March no more 2-step
    # Marches (reading 3): 4 + 6 = 10 one-step ones (the Keep's Banner now on westhollow:
    # westhollow 6 + dawnmere 6 = 12 after keep>westhollow).
    pos = make([("emberglass", "frostmark"), ("briar", "greywater")],
               {"starfall-keep": region(0, 1), "dawnmere": region(0, 1)},
               archmages=[None, None], omen="silent-roads")
    assert len(kinds(pos, "march")) == 18
    after = apply(pos, "march banner starfall-keep>dawnmere")
    assert after["players"][0]["flags"]["silent"] is True
    # both Banners on dawnmere: 6 one-step Marches from it
    assert len(kinds(after, "march")) == 6


def test_ash_winter():
    # RULINGS I16: each step into a Ruin costs 1 mana.  Banner on the Keep: with 0 mana only
    # westhollow (not a Ruin); with 1 mana all 4.
    regions = {"starfall-keep": region(0, 1)}
    seats = [("redwall", "eastford"), ("briar", "highmoor")]
    poor = make(seats, dict(regions), archmages=[None, None], omen="ash-winter")
    assert kinds(poor, "march") == ["march banner starfall-keep>westhollow"]
    rich = make(seats, dict(regions), archmages=[None, None], omen="ash-winter", mana=(1, 0))
    assert len(kinds(rich, "march")) == 4
    after = apply(rich, "march banner starfall-keep>dawnmere")
    assert after["players"][0]["mana"] == 0


def test_raise_banner_emptiness():
    # RULINGS I18: an enemy Archmage makes a region not empty, one's own does not.  Seat 0 holds
    # the Keep; its Archmage on dawnmere, seat 1's on old-abbey: raise dawnmere, south-barrow,
    # westhollow (3).
    pos = make([("redwall", "eastford"), ("briar", "highmoor")],
               {"starfall-keep": region(0, 1)}, archmages=["dawnmere", "old-abbey"])
    assert kinds(pos, "raise") == ["raise dawnmere", "raise south-barrow", "raise westhollow"]


def test_anchor_places_and_open_veins():
    # Anchor (7.0): a controlled region with a Ruin, a Tower or the Keep; 1 mana (RULINGS I4),
    # none under Open Veins.  Seat 0: Banners on the Keep, dawnmere (Ruin), westhollow (no Ruin),
    # a Tower on highmoor: anchor keep, dawnmere, highmoor = 3 with 1 mana; 0 mana: none; 0 mana
    # and Open Veins: 3.
    regions = {"starfall-keep": region(0, 1), "dawnmere": region(0, 1), "westhollow": region(0, 1),
               "highmoor": region(0, 0, tower())}
    seats = [("briar", "highmoor"), ("redwall", "eastford")]
    pos = make(seats, cf.clone(regions), archmages=[None, None], mana=(1, 0))
    assert kinds(pos, "anchor") == ["anchor dawnmere", "anchor highmoor", "anchor starfall-keep"]
    assert kinds(make(seats, cf.clone(regions), archmages=[None, None]), "anchor") == []
    veins = make(seats, cf.clone(regions), archmages=[None, None], omen="open-veins")
    assert len(kinds(veins, "anchor")) == 3
    assert apply(veins, "anchor dawnmere")["players"][0]["mana"] == 0


def test_battle_terms_and_caps():
    # Emberglass Banner from westhollow attacks Redwall's dawnmere (Banner, Stronghold, Archmage).
    # Attacker: Banner 1 + Watchtowers on keep, westhollow, briarwood, highmoor... adjacent to
    # dawnmere and Emberglass's: keep, westhollow, briarwood (3 eligible, at most 2: keep and
    # westhollow in map order) + Emberglass's first battle against a Tower 1 = 4.
    # Defender: Banner 1 + Tower 1 + Archmage 1 + Redwall Stronghold 2 = 5.  Defender wins; the
    # attacking Banner is lost; briarwood's Watchtower is not spent (RULINGS I18).
    pos = make([("emberglass", "frostmark"), ("redwall", "eastford")], {
        "starfall-keep": region(0, 0, tower("watchtower")),
        "westhollow": region(0, 1, tower("watchtower")),
        "briarwood": region(0, 0, tower("watchtower")),
        "dawnmere": region(1, 1, tower("stronghold")),
    }, archmages=[None, "dawnmere"])
    pos, events = apply_with_events(pos, "march banner westhollow>dawnmere")
    [b] = [e for e in events if "battle" in e]
    assert b["attack_terms"] == {"banner": 1, "archmage": 0, "watchtowers": 2, "spell": 0, "house": 1}
    assert b["defence_terms"] == {"banner": 1, "tower": 1, "archmage": 1, "watchtowers": 0,
                                  "stronghold": 2, "spell": 0}
    assert (b["attack"], b["defence"], b["winner"]) == (4, 5, "defender")
    assert b["attacker_watchtowers"] == ["starfall-keep", "westhollow"]
    assert pos["regions"]["briarwood"]["tower"]["spent"] is False
    assert pos["regions"]["westhollow"]["banners"] == 0
    assert pos["players"][0]["flags"]["ember"] is True


def test_attacker_win_damages_tower_and_stays():
    # RULINGS I10: a Banner (1) + 2 Watchtowers (keep, old-abbey) = 3 beats dawnmere's Banner +
    # Tower (no role) = 2: the Banner is removed, the Tower Damaged, the attacker stays on
    # westhollow (reading 5).  A second attack (Watchtowers spent: 1 vs Tower 1) fails; with the
    # Tower destroyed by Fireball (the Archmage on westhollow is next to dawnmere) the region is
    # free and its Anchor goes back (RULINGS I11).  The Archmage on westhollow adds nothing: only
    # an attacking Archmage counts (RULINGS I10).
    pos = make([("briar", "greywater"), ("redwall", "eastford")], {
        "starfall-keep": region(0, 0, tower("watchtower")),
        "old-abbey": region(0, 0, tower("watchtower")),
        "westhollow": region(0, 2),
        "dawnmere": region(1, 1, tower(), anchor=True),
    }, archmages=["westhollow", None], mana=(2, 0), spells=[{"war": 1}, None])
    pos, events = apply_with_events(pos, "march banner westhollow>dawnmere")
    [b] = [e for e in events if "battle" in e]
    assert (b["attack"], b["defence"], b["winner"]) == (3, 2, "attacker")
    assert pos["regions"]["dawnmere"]["banners"] == 0
    assert pos["regions"]["dawnmere"]["tower"]["damaged"] is True
    assert pos["regions"]["westhollow"]["banners"] == 2
    assert pos["players"][0]["flags"]["tower_win"] is True
    pos = apply(pos, "cast fireball dawnmere tower")
    assert "dawnmere" not in pos["regions"]
    assert cf.reserve(pos, 1, "anchors") == 4 and cf.reserve(pos, 1, "towers") == 3


def test_ward_and_phantom_garrison():
    # RULINGS I15: the spell-or-Ward line is +1 at most; Phantom Garrison fills it without being
    # used up and the Ward stays; without the Garrison the Ward gives +1 and is removed.
    # Attacker Banner + Watchtower on the Keep = 2 vs defender Banner 1 + 1 = 2: defender wins.
    regions = {"starfall-keep": region(0, 1, tower("watchtower")),
               "dawnmere": region(1, 1, ward={"turns": 1}, garrison=1)}
    seats = [("briar", "greywater"), ("redwall", "eastford")]
    pos = make(seats, cf.clone(regions), archmages=[None, None])
    after, events = apply_with_events(pos, "march banner starfall-keep>dawnmere")
    [b] = [e for e in events if "battle" in e]
    assert (b["attack"], b["defence"], b["defence_terms"]["spell"]) == (2, 2, 1)
    assert after["regions"]["dawnmere"]["ward"] == {"turns": 1}
    regions["dawnmere"]["garrison"] = 0
    after, events = apply_with_events(make(seats, regions, archmages=[None, None]),
                                      "march banner starfall-keep>dawnmere")
    assert [e["winner"] for e in events if "battle" in e] == ["defender"]
    assert after["regions"]["dawnmere"]["ward"] is None


def test_archmage_retreat_is_a_decision():
    # A lone Archmage (strength 1, RULINGS I10) from the Keep attacks dawnmere's Banner (1): the
    # tie goes to the defender; the Archmage falls back to a region next to dawnmere that its
    # owner controls: old-abbey or westhollow (not the Keep: it is empty) -> 2 choices, made by
    # seat 0 (reading 6); then 2 actions remain.
    pos = make([("briar", "greywater"), ("redwall", "eastford")], {
        "old-abbey": region(0, 1), "westhollow": region(0, 1), "dawnmere": region(1, 1)},
        archmages=["starfall-keep", None])
    after = apply(pos, "march archmage starfall-keep>dawnmere")
    assert after["phase"] == "retreat" and cf.to_move(after) == 0
    assert legal_actions(after) == ["retreat old-abbey", "retreat westhollow"]
    assert count(after, 1) == 2
    back = apply(after, "retreat westhollow")
    assert back["players"][0]["archmage"] == "westhollow"
    assert back["phase"] == "turn" and back["actions_left"] == 2


def test_spell_targets_and_ley_shield():
    # Seat 0 (War II) with its Archmage on the Keep: range = keep + the 4 inner regions.  Seat 1
    # holds dawnmere (Banner, Damaged Tower), old-abbey (Tower, Ley Shield), highmoor (Banner, out
    # of range).  Fireball: dawnmere banner, dawnmere tower (old-abbey is shielded) = 2; Siege
    # Flame: dawnmere only = 1; Scorch Ward (War III): range 5 minus old-abbey = 4.
    pos = make([("briar", "greywater"), ("redwall", "eastford")], {
        "dawnmere": region(1, 1, tower("none", damaged=True)),
        "old-abbey": region(1, 0, tower("sanctum"), shield=True),
        "highmoor": region(1, 1)},
        archmages=["starfall-keep", None], mana=(9, 0), spells=[{"war": 3}, None])
    assert kinds(pos, "cast fireball") == ["cast fireball dawnmere banner", "cast fireball dawnmere tower"]
    assert kinds(pos, "cast siege-flame") == ["cast siege-flame dawnmere"]
    assert len(kinds(pos, "cast scorch-ward")) == 4
    after = apply(pos, "cast siege-flame dawnmere")
    assert after["regions"]["dawnmere"]["tower"] is None and after["players"][0]["mana"] == 6


def test_networks_rift_step_and_gatewalk():
    # Seat 0 (home greywater, Home Tower there): controlled greywater, old-abbey (Ruin), keep,
    # and apart from them briarwood (Banner + Sanctum) and westwatch (Banner + Beacon).  Groups: {greywater, old-abbey, keep}:
    # active (Home Tower), nodes greywater, old-abbey, keep; {westwatch, briarwood}: two nodes
    # (Beacon, Sanctum), active.  Rift Step from a node with a Banner to another of its group:
    # old-abbey -> greywater, keep; keep -> greywater, old-abbey; briarwood -> westwatch;
    # westwatch -> briarwood = 6 (greywater has no Banner).  Gatewalk from the Archmage on the
    # Keep: greywater, old-abbey = 2.
    pos = make([("briar", "greywater"), ("redwall", "eastford")], {
        "greywater": region(0, 0, tower()), "old-abbey": region(0, 1), "starfall-keep": region(0, 1),
        "briarwood": region(0, 1, tower("sanctum")), "westwatch": region(0, 1, tower("beacon"))},
        archmages=["starfall-keep", None], mana=(9, 0), spells=[{"travel": 3}, None])
    assert len(kinds(pos, "cast rift-step")) == 6
    assert kinds(pos, "cast gatewalk") == ["cast gatewalk greywater", "cast gatewalk old-abbey"]
    # Income: 1 + 1 Ruin + 1 Sanctum + 1 Keep in an active group = 4
    assert cf.income(pos, 0) == 4
    # Arcana: the home group has 1 Ruin and the Keep: 2, Briar +1 = 3
    assert cf.arcana_gain(pos, 0) == 3


def test_end_of_round_chance_steps():
    # Seat 1 controls nothing, has no Archmage and 0 mana: its only action is "end" (D1 = 1),
    # which ends round 1.  Expanded: 4 Objectives left -> 6 pairs, 2 Omens left (bright-surge,
    # gloam-tide, neither touches seat 0's actions) -> 12 outcomes; then seat 0 (Briar, Home
    # Tower and Archmage at highmoor, Income 1 -> 1 mana): end 1, Archmage to frostmark, dawnmere,
    # briarwood 3, raise there 3, anchor highmoor 1, research 4, ward-seal highmoor 1 = 13.
    # D2 = 12 x 13 = 156 expanded, 13 fixed.
    pos = make([("briar", "highmoor"), ("redwall", "westwatch")],
               {"highmoor": region(0, 0, tower())}, seat=1, actions_left=1,
               archmages=["highmoor", None], omen="red-harvest",
               omens_seen=["red-harvest", "ash-winter", "silent-roads", "open-veins"],
               objectives=["hold-keep", "two-ruins"],
               objective_deck=["largest-realm", "three-towers", "linked-outer", "tower-battle"],
               omen_next=["gloam-tide", "bright-surge"],
               objective_next=["linked-outer", "largest-realm", "three-towers", "tower-battle"])
    assert legal_actions(pos) == ["end"]
    assert count(pos, 1) == 1
    assert count(pos, 2) == 156
    assert count(pos, 2, "fixed") == 13
    after = apply(pos, "end")
    assert after["phase"] == "objectives" and after["round"] == 2
    assert len(legal_actions(after)) == 6
    # the out-of-play Archmage of seat 1 went home (RULINGS I11)
    assert after["players"][1]["archmage"] == "westwatch"


def test_scoring_win_and_tie_breaks():
    # End of round 3: seat 0 (5 Crown, 6 Arcana) holds the Keep (+1 Crown -> 6): two tracks at 6,
    # wins (15.0).  Seat 1 (6 Crown, 5 Dominion, 3 Towers -> +1 Dominion -> 6) also reaches two
    # tracks: tie-break by total: seat 0 6 + 6 + 0 = 12 (+ Arcana 0: no Ruin network), seat 1
    # 6 + 0 + 6 = 12; Towers 0 vs 3: seat 1 wins.
    pos = make([("briar", "greywater"), ("redwall", "eastford")], {
        "starfall-keep": region(0, 1),
        "frostmark": region(1, 0, tower()), "eastford": region(1, 0, tower()),
        "saltmere": region(1, 0, tower())},
        seat=1, actions_left=1, archmages=[None, None], round=3,
        objectives=["two-ruins", "tower-battle"])
    pos["players"][0].update(crown=5, arcana=6)
    pos["players"][1].update(crown=6, dominion=5)
    over, events = apply_with_events(pos, "end")
    assert {e["score"]: (e["crown"], e["arcana"], e["dominion"]) for e in events if "score" in e} \
        == {0: (1, 0, 0), 1: (0, 0, 1)}
    assert over["phase"] == "over" and over["winners"] == [1]
    assert count(over, 1) == 0 and count(over, 0) == 1


def test_round_limit():
    # RULINGS I8: after round 6 with nobody at two thresholds the tie-breaks decide among all:
    # totals 3 vs 3 after scoring (seat 0 +1 Crown for the Keep), Towers 0 vs 0, Ruins 0 vs 0:
    # a shared victory.
    pos = make([("briar", "greywater"), ("redwall", "eastford")],
               {"starfall-keep": region(0, 1)}, seat=1, actions_left=1,
               archmages=[None, None], round=6, objectives=["two-ruins", "tower-battle"])
    pos["players"][0].update(crown=2)
    pos["players"][1].update(arcana=3)
    over = apply(pos, "end")
    assert over["phase"] == "over" and over["winners"] == [0, 1]


def test_objectives_met():
    # Seat 0 holds the Keep, dawnmere and old-abbey (two Ruins, a realm of 3 > 1) and briarwood +
    # highmoor (two linked outer regions); seat 1 holds eastford.
    pos = make([("briar", "greywater"), ("redwall", "eastford")], {
        "starfall-keep": region(0, 1), "dawnmere": region(0, 1), "old-abbey": region(0, 1),
        "highmoor": region(0, 1), "briarwood": region(0, 1), "eastford": region(1, 1)},
        archmages=[None, None], objectives=["keep-and-inner", "three-towers"])
    assert cf.objectives_met(pos, 0) == ["keep-and-inner"]
    pos["objectives"] = ["largest-realm", "linked-outer"]
    # groups: {keep, dawnmere, old-abbey, highmoor, briarwood} (dawnmere touches highmoor and
    # briarwood): realm 5 > 1
    assert cf.objectives_met(pos, 0) == ["largest-realm", "linked-outer"]
    assert cf.objectives_met(pos, 1) == []


# --------------------------------------------------------------------------------------------
# Self-consistency, the data file, bad input
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("build", [lone_banner, example_position,
                                   lambda: cf.random_play(cf.new_game(3, seed=1), 20, 3)])
def test_count_is_the_sum_over_first_actions(build):
    pos = build()
    while cf.is_chance(pos):
        pos = apply(pos, legal_actions(pos)[0])
    for depth in (1, 2):
        assert count(pos, depth) == sum(divide(pos, depth).values())
        assert count(pos, depth) == sum(count(apply(pos, a), depth - 1) for a in legal_actions(pos))


def test_counts_file_depths_1_and_2():
    lines = cf.read_counts(COUNTS)
    assert len(lines) >= 6
    assert {len(pos["players"]) for _, pos, _, _ in lines} == {2, 3, 4}
    for number, pos, counts, covers in lines:
        assert covers
        for mode in cf.CHANCE_MODES:
            for depth in (1, 2):
                assert count(pos, depth, mode) == counts[mode][depth], (number, mode, depth)


@pytest.mark.slow
def test_counts_file_depth_3():
    for number, pos, counts, _ in cf.read_counts(COUNTS):
        for mode in cf.CHANCE_MODES:
            assert count(pos, 3, mode) == counts[mode][3], (number, mode)


def test_positions_round_trip_through_json():
    pos = cf.random_play(cf.new_game(4, seed=2), 30, 9)
    assert cf.parse(cf.dump(pos)) == pos


@pytest.mark.parametrize("change, message", [
    (lambda p: p.update(phase="dance"), "position.phase"),
    (lambda p: p["players"][0].update(home="starfall-keep"), "players[0].home"),
    (lambda p: p["regions"].update(nowhere=region(0, 1)), "unknown region 'nowhere'"),
    (lambda p: p["regions"].update(dawnmere=region(0, 7)), "7 banners on the map"),
    (lambda p: p["regions"].update(westhollow=region(0, 1, anchor=True)), "regions.westhollow.anchor"),
    (lambda p: (p["regions"].update(saltmere=region(0, 1)), p["players"][1].update(archmage="saltmere")),
     "another player's pieces"),
    (lambda p: p["players"][1].update(archmage="thorn-coast"), "also holds seat 1's Archmage"),
    (lambda p: p["players"][0]["spells"].update(war=4), "spells.war"),
    (lambda p: p.pop("round"), "missing field 'round'"),
])
def test_bad_positions_are_named(change, message):
    pos = cf.new_game(2)
    change(pos)
    with pytest.raises(PositionError, match=message.replace("(", r"\(").replace("[", r"\[")):
        cf.parse(json.dumps(pos))


def test_bad_actions_and_maps():
    pos = apply(apply(cf.new_game(2), "omen red-harvest"), "objectives two-ruins largest-realm")
    with pytest.raises(ActionError, match="not legal"):
        apply(pos, "raise starfall-keep")
    with pytest.raises(PositionError, match="not JSON"):
        cf.parse("{")
    with pytest.raises(MapError, match="unknown region 'atlantis'"):
        cf.GameMap(cf.REGIONS, cf.ADJACENT + [("dawnmere", "atlantis")])
    with pytest.raises(MapError, match="listed twice"):
        cf.GameMap(cf.REGIONS, cf.ADJACENT + [("old-abbey", "dawnmere")])


def test_income_needs_the_keep_in_an_active_network():
    # RULINGS I12, I15: seat 0 holds the Keep alone (one node, no Home Tower: not active), its
    # Home Tower on greywater and a Damaged Sanctum on briarwood.  Income 1 + Sanctum 1 = 2; under
    # Bright Surge the Sanctum gives 2: 3.  With dawnmere (a Ruin) beside the Keep, {keep,
    # dawnmere} has two nodes and is active: 1 + Ruin 1 + Sanctum 1 + Keep 1 = 4.
    regions = {"starfall-keep": region(0, 1), "greywater": region(0, 0, tower()),
               "briarwood": region(0, 0, tower("sanctum", damaged=True))}
    seats = [("briar", "greywater"), ("redwall", "eastford")]
    pos = make(seats, cf.clone(regions), archmages=[None, None])
    assert cf.income(pos, 0) == 2
    assert cf.income(make(seats, cf.clone(regions), archmages=[None, None], omen="bright-surge"), 0) == 3
    regions["dawnmere"] = region(0, 1)
    assert cf.income(make(seats, regions, archmages=[None, None]), 0) == 4


def test_turn_order_and_three_actions():
    # 6.0, RULINGS I4, I16: three actions, then the next seat in order; "end" passes at once.
    pos = apply(apply(cf.new_game(3), "omen gloam-tide"), "objectives hold-keep two-ruins")
    assert (pos["seat"], pos["actions_left"]) == (0, 3)
    for left in (2, 1):
        pos = apply(pos, "research war")
        assert (pos["seat"], pos["actions_left"]) == (0, left)
    pos = apply(pos, "end")
    assert (pos["seat"], pos["actions_left"]) == (1, 3)
    # seat 1 (Emberglass, Home Tower at highmoor, 2 mana after Income): two researches and a Banner
    pos = apply(apply(apply(pos, "research war"), "research summoning"), "raise dawnmere")
    assert (pos["seat"], pos["actions_left"]) == (2, 3)
