"""The rules' example round (17.0) played step by step, with the mana and the battle it states."""

from tests.crownfall.support import anchor, banner, begin, legal, play, reg, tower, unstarted

BLUE, RED = 0, 1


def example(watchtower_at_thorn_coast: bool = False):
    # Blue is the Tidebound Court at Thorn Coast (the two-player default set-up, RULINGS I2); Blue holds
    # Thorn Coast (Home Tower, Archmage, a Banner), South Barrow (a Banner, an Anchor) and the Keep
    # (a Banner: 17.0 has the network touch the Keep "through" it); Red holds Eastford with a Banner.
    g = unstarted()
    assert g.houses[BLUE].key == "tidebound" and g.home[BLUE] == reg("thorn-coast")
    banner(g, BLUE, "thorn-coast")
    banner(g, BLUE, "south-barrow")
    anchor(g, BLUE, "south-barrow")
    banner(g, BLUE, "keep")
    banner(g, RED, "eastford")
    if watchtower_at_thorn_coast:
        tower(g, BLUE, "thorn-coast", "watchtower")
    g.levels[BLUE][1] = 2                          # Travel II unlocked
    g.mana[BLUE] = 0
    return begin(g)


def test_income_then_rift_step_then_a_lost_battle():
    g = example()
    # Income: 1 base, +1 for South Barrow (a Ruin), +1 for the Keep in the active network = 3.
    assert g.income(BLUE) == {"base": 1, "ruins": 1, "sanctums": 0, "keep": 1, "total": 3}
    assert g.mana[BLUE] == 3 and g.current_player() == BLUE and g.actions_left == 3
    # Action 1: Rift Step (2 mana) moves the Thorn Coast Banner to South Barrow through the network.
    play(g, "cast", "rift-step", "thorn-coast", "south-barrow")
    assert g.mana[BLUE] == 1 and g.banners[reg("south-barrow")] == 2 and g.banners[reg("thorn-coast")] == 0
    assert g.owner(reg("thorn-coast")) == BLUE                     # the Home Tower still holds it
    # Action 2: March from South Barrow into Eastford: 1 (a Banner) against 1 (a Banner), the defender holds.
    play(g, "march", "south-barrow", "eastford")
    battle = g.events[-1]
    assert battle["attack"]["total"] == 1 and battle["attack"]["archmage"] == 0
    assert battle["defense"]["total"] == 1 and battle["winner"] == RED and not battle["entered"]
    assert g.banners[reg("south-barrow")] == 1 and g.reserve_banners[BLUE] == 6 - 3 + 1
    assert g.owner(reg("eastford")) == RED and g.actions_left == 1
    # Action 3: Summon Host is not legal here (no Summoning, and 1 mana left for a 2-mana spell).
    assert not legal(g, "cast", "summon-host", "saltmere")


def test_a_watchtower_at_thorn_coast_gives_no_support_in_eastford():
    g = example(watchtower_at_thorn_coast=True)
    play(g, "cast", "rift-step", "thorn-coast", "south-barrow")
    play(g, "march", "south-barrow", "eastford")
    assert g.events[-1]["attack"]["watchtowers"] == 0 and g.events[-1]["winner"] == RED


def test_summon_host_from_the_archmage_at_thorn_coast_when_it_can_be_paid():
    g = example()
    g.levels[BLUE][3] = 1                          # Summoning I
    g._legal = None
    play(g, "cast", "summon-host", "saltmere")     # empty and adjacent to the Archmage's Thorn Coast
    assert g.owner(reg("saltmere")) == BLUE and g.mana[BLUE] == 1
    assert not legal(g, "cast", "summon-host", "eastford")          # Red's: not empty
