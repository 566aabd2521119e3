"""Each action kind of 7.0 with its costs and limits (RULINGS I3, I4, I11, I13)."""

from engine.crownfall import actions as A
from tests.crownfall.support import banner, begin, legal, play, reg, unstarted

BLUE, RED = 0, 1


def test_three_actions_then_the_next_player_and_ending_early():
    g = begin(unstarted())
    play(g, "raise", "saltmere")
    play(g, "raise", "westwatch")
    assert g.current_player() == BLUE and g.actions_left == 1
    play(g, "raise", "south-barrow")
    assert g.current_player() == RED and g.actions_left == 3
    play(g, "end")
    assert g.current_player() == -1 and g.stage == "objective"        # end of round 1: new Objectives drawn


def test_raise_banner_needs_an_empty_region_next_to_one_you_control():
    g = begin(unstarted())
    assert legal(g, "raise", "saltmere") and not legal(g, "raise", "eastford")     # not adjacent to Thorn Coast
    assert not legal(g, "raise", "thorn-coast")                                    # Blue's Tower stands there
    g.mage[RED] = reg("westwatch")                                                 # an enemy Archmage: not empty
    g._legal = None
    assert not legal(g, "raise", "westwatch")


PLAIN = {"houses": ["redwall", "emberglass"]}          # Blue without the Tidebound extra region


def test_a_banner_march_claims_an_empty_region_and_an_archmage_alone_does_not():
    g = begin(unstarted(**PLAIN))
    play(g, "mage", "saltmere")
    assert g.mage[BLUE] == reg("saltmere") and g.owner(reg("saltmere")) == -1
    play(g, "raise", "westwatch")
    play(g, "march", "westwatch", "westhollow")
    assert g.owner(reg("westhollow")) == BLUE and g.owner(reg("westwatch")) == -1


def test_fortify_puts_a_tower_with_its_role_and_returns_the_banner():
    g = begin(unstarted())
    play(g, "raise", "saltmere")
    reserve = (g.reserve_banners[BLUE], g.reserve_towers[BLUE])
    play(g, "fortify", "saltmere", "sanctum")
    r = reg("saltmere")
    assert (g.tower_owner[r], g.rules.roles[g.tower_role[r]], g.banners[r]) == (BLUE, "sanctum", 0)
    assert (g.reserve_banners[BLUE], g.reserve_towers[BLUE]) == (reserve[0] + 1, reserve[1] - 1)
    assert not legal(g, "fortify", "thorn-coast", "beacon")                       # no Banner there


def test_anchor_costs_one_mana_needs_a_ruin_tower_or_keep_and_is_free_under_open_veins():
    g = unstarted(omen_key="gloam-tide")
    banner(g, BLUE, "westhollow")
    banner(g, BLUE, "south-barrow")
    begin(g)
    assert not legal(g, "anchor", "westhollow")                   # neither Ruin, nor Tower, nor Keep
    before = g.mana[BLUE]
    play(g, "anchor", "south-barrow")
    assert g.mana[BLUE] == before - 1 and g.anchor[reg("south-barrow")] == BLUE
    g2 = unstarted(omen_key="open-veins")
    begin(g2)
    before = g2.mana[BLUE]
    play(g2, "anchor", "thorn-coast")
    assert g2.mana[BLUE] == before


def test_an_anchor_returns_when_its_region_is_lost():
    g = unstarted()
    banner(g, BLUE, "south-barrow")
    begin(g)
    play(g, "anchor", "south-barrow")
    play(g, "march", "south-barrow", "keep")
    assert g.anchor[reg("south-barrow")] == -1 and g.reserve_anchors[BLUE] == 4


def test_research_in_order_one_mana_each_up_to_three():
    g = begin(unstarted())
    g.mana[BLUE] = 5
    g._legal = None
    assert not legal(g, "cast", "rift-step", "thorn-coast", "thorn-coast")
    play(g, "research", "travel")
    play(g, "research", "travel")
    assert g.levels[BLUE][1] == 3 and g.mana[BLUE] == 3
    assert not legal(g, "research", "travel")


def test_action_numbers_are_dense_and_decode_back():
    R = 13
    seen = set()
    for a in range(A.action_count(R)):
        kind = A.decode(a, R)
        assert kind[0] != "unknown"
        seen.add(kind)
    assert len(seen) == A.action_count(R)
    assert A.decode(A.action_count(R), R) == ("unknown", A.action_count(R))


def test_blink_lets_one_march_go_two_regions_and_the_march_may_stop():
    g = begin(unstarted(**PLAIN))
    g.levels[BLUE][1] = 1
    play(g, "cast", "blink")
    play(g, "mage", "westhollow")
    assert g.stage == "march"
    play(g, "step", "blink", "keep")
    assert g.mage[BLUE] == reg("keep") and g.stage == "turn" and g.actions_left == 1
    g2 = begin(unstarted(**PLAIN))
    g2.levels[BLUE][1] = 1
    play(g2, "cast", "blink")
    play(g2, "mage", "westhollow")
    play(g2, "stop")
    assert g2.blink == 1 and g2.stage == "turn"          # unused: another March this turn may take it


def test_tidebound_once_a_round_from_an_outer_region_and_silent_roads():
    g = begin(unstarted())                             # Blue is Tidebound, home Thorn Coast (outer)
    play(g, "mage", "saltmere")
    play(g, "step", "tidebound", "eastford")
    assert g.mage[BLUE] == reg("eastford") and g.flags[BLUE]["tide"]
    play(g, "mage", "greywater")
    assert g.stage == "turn"                           # used this round: no step offered
    g2 = unstarted(omen_key="silent-roads", **PLAIN)
    banner(g2, BLUE, "saltmere")
    banner(g2, BLUE, "thorn-coast")
    begin(g2)
    play(g2, "march", "thorn-coast", "saltmere")       # between two regions Blue controls: +1
    play(g2, "step", "silent-roads", "eastford")
    assert g2.owner(reg("eastford")) == BLUE


def test_ash_winter_charges_a_step_into_a_ruin_and_forbids_it_unpaid():
    g = unstarted(omen_key="ash-winter", **PLAIN)
    begin(g)
    before = g.mana[BLUE]
    play(g, "mage", "south-barrow")
    assert g.mana[BLUE] == before - 1
    g.mana[BLUE] = 0
    g._legal = None
    assert not legal(g, "mage", "old-abbey") and legal(g, "mage", "keep")


def test_illegal_actions_are_refused_by_name_and_change_nothing():
    import pytest

    from engine.crownfall.core import CrownfallError
    g = begin(unstarted())
    before = g.record()
    with pytest.raises(CrownfallError, match="not legal now for Blue"):
        g.apply(A.encode_raise(reg("eastford"), 13))
    assert g.record() == before
    with pytest.raises(CrownfallError, match="not legal"):
        g.apply("raise")
