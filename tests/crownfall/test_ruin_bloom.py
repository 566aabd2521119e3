"""Ruin Bloom (X.C, an advanced Omen, RULINGS I19): the first player of the round to newly control a
Ruin gains 1 mana at once. A Banner that attacks out of a Ruin, wins, but cannot enter (a Tower is only
Damaged, RULINGS I10) stays where it was: its player held that Ruin before and holds it after, so the
Omen is not spent on it and waits for a real first capture."""

from tests.crownfall.support import banner, begin, play, reg, tower, unstarted

BLUE, RED = 0, 1
#: Blue (Emberglass, +1 in its first battle of the round against a Tower, RULINGS I17) at Thorn Coast;
#: Red (Briar) at Frostmark, next to the Ruin Dawnmere (RULINGS I1).
BLOOM = {"omen_key": "ruin-bloom", "advanced_omens": ["ruin-bloom"], "houses": ["emberglass", "briar"]}


def test_a_banner_that_wins_but_stays_in_its_own_ruin_takes_nothing_and_the_omen_waits():
    g = unstarted(**BLOOM)
    banner(g, BLUE, "south-barrow")                  # Blue's only piece in the Ruin South Barrow
    tower(g, RED, "eastford")                        # a lone Red Tower next to it
    begin(g)
    blue_mana, red_mana = g.mana[BLUE], g.mana[RED]
    play(g, "march", "south-barrow", "eastford")
    battle = g.events[-1]
    # Banner 1 + Emberglass 1 = 2 against the Tower's 1: Blue wins, the Tower is only Damaged, so the
    # Banner does not enter and stays in South Barrow (I10).
    assert battle["winner"] == BLUE and not battle["entered"] and g.damaged[reg("eastford")]
    assert g.owner(reg("south-barrow")) == BLUE and g.banners[reg("south-barrow")] == 1
    assert g.mana[BLUE] == blue_mana and not g.ruin_bloom_done
    play(g, "end")
    play(g, "raise", "dawnmere")                      # Red is the first to take a Ruin this round
    assert g.owner(reg("dawnmere")) == RED
    assert g.mana[RED] == red_mana + 1 and g.ruin_bloom_done


def test_the_first_real_capture_of_a_ruin_gains_one_mana_and_only_the_first():
    g = unstarted(**BLOOM)
    banner(g, BLUE, "thorn-coast")
    begin(g)
    blue_mana, red_mana = g.mana[BLUE], g.mana[RED]
    play(g, "march", "thorn-coast", "south-barrow")   # into the empty Ruin: newly controlled
    assert g.owner(reg("south-barrow")) == BLUE
    assert g.mana[BLUE] == blue_mana + 1 and g.ruin_bloom_done
    play(g, "end")
    play(g, "raise", "dawnmere")                      # a second new Ruin this round: nothing more
    assert g.owner(reg("dawnmere")) == RED and g.mana[RED] == red_mana


def test_a_ruin_won_in_battle_and_entered_is_a_first_capture():
    g = unstarted(**BLOOM)
    banner(g, BLUE, "thorn-coast")
    tower(g, BLUE, "saltmere", "watchtower")         # supports the attack on South Barrow (9.0)
    banner(g, BLUE, "saltmere")
    banner(g, RED, "south-barrow")
    g.mage[RED] = -1
    begin(g)
    blue_mana = g.mana[BLUE]
    play(g, "march", "thorn-coast", "south-barrow")   # Banner 1 + Watchtower 1 against the Banner's 1
    battle = g.events[-1]
    assert battle["winner"] == BLUE and battle["entered"] and g.owner(reg("south-barrow")) == BLUE
    assert g.mana[BLUE] == blue_mana + 1 and g.ruin_bloom_done
