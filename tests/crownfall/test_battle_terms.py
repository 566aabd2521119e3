"""A battle's terms with their sources (CrownfallCore.battle_terms, the one computation the battle
uses): which Watchtowers count and how many were eligible before the cap of two (9.0, RULINGS I18),
which defence spells or Wards were there before the cap of one (I15), a Stronghold switched off by
Scorch Ward, the House ability; every battle's event keeps them, and their totals decide it."""

import random

from engine.crownfall.config import CrownfallConfig
from engine.crownfall.state import CrownfallState
from tests.crownfall.support import banner, begin, play, reg, tower, unstarted

BLUE, RED = 0, 1


def values(side: dict) -> dict:
    return {term: detail["value"] for term, detail in side.items()}


def test_watchtowers_beyond_the_cap_are_named_as_eligible_but_not_counted():
    g = unstarted(houses=["redwall", "briar"], homes=["saltmere", "eastford"])
    tower(g, BLUE, "saltmere", "watchtower")
    for key in ("old-abbey", "greywater"):
        banner(g, BLUE, key)
        tower(g, BLUE, key, "watchtower")
    banner(g, BLUE, "south-barrow")
    banner(g, RED, "eastford")
    g.mage[RED] = -1
    begin(g)
    before = g.battle_terms(BLUE, "banner", reg("eastford"))
    watch = before["attack"]["watchtowers"]
    # Three adjacent Watchtowers, the first two in map order count (Old Abbey, Greywater: I18).
    assert watch == {"value": 2, "regions": ["old-abbey", "greywater"], "eligible": 3, "cap": 2}
    assert values(before["attack"]) == {"banner": 1, "archmage": 0, "watchtowers": 2, "spell": 0, "house": 0}
    assert values(before["defense"]) == {"banner": 1, "tower": 1, "archmage": 0, "watchtowers": 0, "stronghold": 0,
                                         "spell-or-ward": 0}
    play(g, "march", "south-barrow", "eastford")
    event = g.events[-1]
    assert event["terms"] == before                       # the event keeps what decided the battle
    assert event["attack"]["total"] == 3 and event["defense"]["total"] == 2 and event["winner"] == BLUE


def test_a_garrison_and_a_ward_are_both_named_and_give_one():
    g = unstarted(houses=["redwall", "briar"])
    banner(g, BLUE, "saltmere", 3)
    banner(g, RED, "eastford")
    begin(g)
    g.ward[reg("eastford")] = (RED, None)
    g.garrison[reg("eastford")] = (RED, 5)
    terms = g.battle_terms(BLUE, "banner", reg("eastford"))
    assert terms["defense"]["spell-or-ward"] == {"value": 1, "sources": ["phantom-garrison", "ward"], "cap": 1}


def test_a_scorched_stronghold_and_the_redwall_stronghold_and_emberglass():
    g = unstarted(houses=["emberglass", "redwall"], homes=["frostmark", "thorn-coast"])
    banner(g, BLUE, "greywater", 2)
    banner(g, RED, "old-abbey")
    tower(g, RED, "old-abbey", "stronghold")
    begin(g)
    terms = g.battle_terms(BLUE, "banner", reg("old-abbey"))
    assert terms["defense"]["stronghold"] == {"value": 2, "redwall": True, "scorched": False}
    assert terms["attack"]["house"] == {"value": 1, "house": "emberglass"}
    g.scorch.add(reg("old-abbey"))
    assert g.battle_terms(BLUE, "banner", reg("old-abbey"))["defense"]["stronghold"] == \
        {"value": 0, "redwall": True, "scorched": True}


def test_in_random_games_every_battle_is_decided_by_its_terms():
    battles = 0
    for seed in range(6):
        state = CrownfallState(CrownfallConfig.from_json({"players": 2 + seed % 3, "seed": seed}))
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        for event in state.events:
            if "battle" not in event:
                continue
            battles += 1
            for side in ("attack", "defense"):
                assert values(event["terms"][side]) | {"total": sum(values(event["terms"][side]).values())} \
                    == event[side]
            attacker_won = event["attack"]["total"] > event["defense"]["total"]     # ties: the defender (9.0)
            assert event["winner"] == (event["attacker"] if attacker_won else event["defender"])
    assert battles >= 5, battles
