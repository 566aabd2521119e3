"""Battles (9.0) with every modifier and cap: Banners, Archmages, Watchtowers (cap 2, once a round,
RULINGS I5, I18), Strongholds (Redwall +2), Wards and Phantom Garrison (one +1, RULINGS I15),
Emberglass, Scorch Ward, results on Banners and Towers (RULINGS I10), retreats (I11), Ley Shield."""

from tests.crownfall.support import banner, begin, legal, play, reg, tower, unstarted

BLUE, RED = 0, 1
PLAIN = {"houses": ["redwall", "briar"]}


def test_watchtowers_count_two_at_most_and_each_supports_once_a_round():
    g = unstarted(houses=["redwall", "briar"], homes=["saltmere", "eastford"])
    tower(g, BLUE, "saltmere", "watchtower")                    # the Home Tower given a role
    for key in ("old-abbey", "greywater"):                       # three Watchtowers next to Eastford
        banner(g, BLUE, key)
        tower(g, BLUE, key, "watchtower")
    banner(g, BLUE, "south-barrow")
    banner(g, RED, "eastford")                                   # Red's Home Tower stands there too
    g.mage[RED] = -1                                             # Red's Archmage is out this round
    begin(g)
    play(g, "march", "south-barrow", "eastford")
    att = g.events[-1]["attack"]
    # 1 Banner + 2 Watchtowers (the cap; the first two in map order: Old Abbey, Greywater) = 3 > 2.
    assert att["watchtowers"] == 2 and att["total"] == 3 and g.events[-1]["defense"]["total"] == 2
    assert g.watch_used == {reg("old-abbey"), reg("greywater")}
    assert g.events[-1]["winner"] == BLUE and g.damaged[reg("eastford")] and g.banners[reg("eastford")] == 0
    assert g.banners[reg("south-barrow")] == 1                   # a Tower still stands: no entry (I10)
    play(g, "march", "south-barrow", "eastford")                 # only Saltmere is left unspent
    assert g.events[-1]["attack"]["watchtowers"] == 1 and g.events[-1]["defense"]["total"] == 1
    assert g.events[-1]["winner"] == BLUE and g.tower_owner[reg("eastford")] == -1
    assert g.owner(reg("eastford")) == BLUE and g.flags[BLUE]["tower-kill"]


def test_stronghold_and_the_redwall_stronghold():
    for house, bonus in (("briar", 1), ("redwall", 2)):
        g = unstarted(houses=["emberglass", house])
        banner(g, BLUE, "greywater")
        banner(g, RED, "old-abbey")
        tower(g, RED, "old-abbey", "stronghold")
        begin(g)
        g.flags[BLUE]["ember"] = True                 # Emberglass's bonus already used this round
        play(g, "march", "greywater", "old-abbey")
        assert g.events[-1]["defense"]["stronghold"] == bonus
        assert g.events[-1]["defense"]["total"] == 2 + bonus


def test_emberglass_gets_one_plus_one_against_a_tower_once_a_round():
    g = unstarted(houses=["emberglass", "briar"], homes=["frostmark", "thorn-coast"])
    banner(g, BLUE, "greywater", 2)
    tower(g, RED, "old-abbey")
    begin(g)
    play(g, "march", "greywater", "old-abbey")
    first = g.events[-1]
    assert first["attack"]["house"] == 1 and first["attack"]["total"] == 2 and first["defense"]["total"] == 1
    assert first["winner"] == BLUE and g.damaged[reg("old-abbey")]
    play(g, "march", "greywater", "old-abbey")
    assert g.events[-1]["attack"]["house"] == 0 and g.events[-1]["winner"] == RED


def test_a_ward_gives_one_and_is_used_up_a_phantom_garrison_is_not_and_they_do_not_add():
    g = unstarted(**PLAIN)
    banner(g, BLUE, "saltmere", 3)
    banner(g, RED, "eastford")
    begin(g)
    g.ward[reg("eastford")] = (RED, None)
    g.garrison[reg("eastford")] = (RED, 5)
    play(g, "march", "saltmere", "eastford")
    assert g.events[-1]["defense"]["spell-or-ward"] == 1 and g.events[-1]["defense"]["total"] == 2
    assert g.ward[reg("eastford")] == (RED, None)               # the Garrison filled the line: Ward kept
    g.garrison[reg("eastford")] = None
    g.watch_used.clear()
    play(g, "march", "saltmere", "eastford")
    assert g.events[-1]["defense"]["spell-or-ward"] == 1 and g.ward[reg("eastford")] is None


def test_the_defending_archmage_and_a_lone_attacking_archmage():
    g = unstarted(**PLAIN)
    banner(g, BLUE, "saltmere")
    banner(g, RED, "eastford")
    begin(g)
    g.mage[RED] = reg("eastford")
    g.mage[BLUE] = reg("saltmere")
    play(g, "mage", "eastford")                                  # 1 against Banner + Archmage = 2
    assert g.events[-1]["attack"] == {"banner": 0, "archmage": 1, "watchtowers": 0, "spell": 0, "house": 0,
                                      "total": 1}
    assert g.events[-1]["defense"]["total"] == 2
    # Lost: back to the one adjacent region Blue controls (Saltmere) -- with one option, no question.
    assert g.mage[BLUE] == reg("saltmere")


def test_a_retreat_with_two_options_is_its_owners_choice_and_with_none_the_archmage_is_out():
    g = unstarted(**PLAIN)
    banner(g, BLUE, "saltmere")
    banner(g, BLUE, "south-barrow")
    banner(g, RED, "eastford")
    begin(g)
    g.mage[BLUE] = reg("saltmere")
    play(g, "mage", "eastford")
    assert g.stage == "place" and g.current_player() == BLUE
    assert sorted(g.place_options) == [reg("south-barrow"), reg("saltmere")]
    play(g, "place", "south-barrow")
    assert g.mage[BLUE] == reg("south-barrow") and g.stage == "turn"
    g2 = unstarted(**PLAIN)
    banner(g2, RED, "eastford")
    begin(g2)
    g2.mage[BLUE] = reg("greywater")
    play(g2, "mage", "eastford")
    assert g2.mage[BLUE] == -1                                   # out until the end of the round


def test_scorch_ward_switches_off_a_stronghold_and_a_watchtower_until_the_turn_ends():
    g = unstarted(houses=["emberglass", "briar"], homes=["frostmark", "thorn-coast"])
    banner(g, BLUE, "greywater", 2)
    banner(g, RED, "old-abbey")
    tower(g, RED, "old-abbey", "stronghold")
    banner(g, RED, "eastford")
    tower(g, RED, "eastford", "watchtower")
    begin(g)
    g.levels[BLUE][0] = 3
    g.mana[BLUE] = 6
    g.flags[BLUE]["ember"] = True
    g.mage[BLUE] = reg("greywater")
    g._legal = None
    play(g, "cast", "scorch-ward", "old-abbey")
    play(g, "cast", "scorch-ward", "eastford")
    play(g, "march", "greywater", "old-abbey")
    d = g.events[-1]["defense"]
    assert d["stronghold"] == 0 and d["watchtowers"] == 0 and d["tower"] == 1
    assert reg("eastford") not in g.watch_used                    # switched off, not spent (I18)
    assert not g.scorch                                           # Blue's turn is over


def test_ley_shield_lets_a_tower_lose_one_step_a_round():
    g = unstarted(houses=["emberglass", "redwall"], homes=["frostmark", "thorn-coast"])
    banner(g, BLUE, "greywater", 3)
    tower(g, RED, "old-abbey", "beacon")
    begin(g)
    g.shield[reg("old-abbey")] = RED
    play(g, "march", "greywater", "old-abbey")                    # Emberglass +1: 2 > 1, damaged
    assert g.damaged[reg("old-abbey")]
    g.watch_used.clear()
    g.flags[BLUE]["ember"] = False
    play(g, "march", "greywater", "old-abbey")                    # won again, but the step is ignored
    assert g.events[-1]["winner"] == BLUE and g.tower_owner[reg("old-abbey")] == RED
    assert g.banners[reg("greywater")] == 3 and not g.events[-1]["entered"]


def test_red_harvest_gives_the_first_winner_a_crown_at_once():
    g = unstarted(omen_key="red-harvest", **PLAIN)
    banner(g, BLUE, "saltmere", 2)
    banner(g, RED, "eastford")
    begin(g)
    play(g, "march", "saltmere", "eastford")                      # 1 v 1: Red (defender) wins
    assert g.tracks[RED][0] == 1 and g.tracks[BLUE][0] == 0
    assert not legal(g, "march", "saltmere", "saltmere")


def test_red_harvest_gives_each_player_one_crown_a_round_however_many_battles_they_win():
    # I16: a win by either side counts, the Crown comes at the first one, and only the first of the round.
    g = unstarted(omen_key="red-harvest", **PLAIN)
    tower(g, BLUE, "thorn-coast", "watchtower")                   # the Home Tower given a role
    banner(g, BLUE, "saltmere", 3)
    banner(g, RED, "eastford")
    banner(g, RED, "south-barrow")
    begin(g)
    play(g, "march", "saltmere", "eastford")                      # 1 v 1: Red, defending, wins
    play(g, "march", "saltmere", "eastford")                      # Red wins again
    assert [e["winner"] for e in g.events if "battle" in e] == [RED, RED]
    assert g.tracks[RED][0] == 1 and g.tracks[BLUE][0] == 0
    play(g, "march", "saltmere", "south-barrow")                  # Banner + Watchtower (Thorn Coast) 2 v 1
    assert g.events[-1]["winner"] == BLUE and g.events[-1]["entered"]
    assert g.tracks[BLUE][0] == 1
    play(g, "march", "eastford", "south-barrow")                  # Red's turn: 1 v 1, Blue defends and wins
    assert g.events[-1]["winner"] == BLUE
    assert [e["winner"] for e in g.events if "battle" in e] == [RED, RED, BLUE, BLUE]
    assert g.tracks[BLUE][0] == 1 and g.tracks[RED][0] == 1       # two wins each, one Crown each
