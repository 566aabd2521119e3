"""Ley networks and income (6.0, 11.0, RULINGS I12, I15), end-of-round scoring with Objectives (13.0,
14.0, I14), the win at the end of a round, the tie-breaks (15.0) and the round limit (I8)."""

from engine.crownfall import phases
from engine.crownfall.selfplay import networks_from_scratch
from tests.crownfall.support import anchor, banner, begin, objective, play, reg, tower, unstarted

BLUE, RED = 0, 1


def test_networks_need_the_home_tower_or_two_nodes_and_each_group_counts_alone():
    g = unstarted()
    banner(g, BLUE, "saltmere")                      # joined to the Home Tower at Thorn Coast
    banner(g, BLUE, "dawnmere")
    banner(g, BLUE, "old-abbey")                     # Dawnmere-Old Abbey: two Ruins, apart: active
    banner(g, BLUE, "highmoor")
    begin(g)
    groups = g.networks(BLUE)
    assert {frozenset(x) for x in groups} == {frozenset({reg("saltmere"), reg("thorn-coast")}),
                                             frozenset({reg("dawnmere"), reg("old-abbey"), reg("highmoor")})}
    assert [frozenset(x) for x in groups] == networks_from_scratch(g, BLUE)
    assert g.network_size(BLUE) == 2 and g.arcana_gain(BLUE) == 2           # two Ruins in one group
    g2 = unstarted()
    banner(g2, BLUE, "dawnmere")                     # a lone Ruin: one node, no Home Tower: not active
    begin(g2)
    assert [frozenset(x) for x in g2.networks(BLUE)] == [frozenset({reg("thorn-coast")})]
    assert g2.arcana_gain(BLUE) == 0


def test_income_counts_ruins_sanctums_and_the_keep_in_a_network_with_bright_surge():
    g = unstarted(omen_key="bright-surge")
    banner(g, BLUE, "south-barrow")
    banner(g, BLUE, "keep")
    banner(g, BLUE, "saltmere")
    tower(g, BLUE, "saltmere", "sanctum", damaged=True)
    g.mana[BLUE] = 0
    begin(g)
    assert g.income(BLUE) == {"base": 1, "ruins": 1, "sanctums": 2, "keep": 1, "total": 5}
    assert g.mana[BLUE] == 5


def test_end_of_round_scoring_objectives_arcana_briar_and_dominion():
    g = unstarted(houses=["briar", "emberglass"], objectives=("hold-keep", "two-ruins"))
    for key in ("south-barrow", "keep", "old-abbey", "westhollow", "saltmere"):
        banner(g, BLUE, key)
    begin(g)
    s = phases.score_round(g)[BLUE]
    # Crown: the Keep + Objectives (both met, one point); Arcana: a Ruin, then two Ruins, Briar +1;
    # Dominion: a realm of 6 regions (>= 5), only 1 Tower.
    assert (s["crown"], s["arcana"], s["dominion"]) == (2, 3, 1)
    assert s["objectives"] == ["hold-keep", "two-ruins"]


def test_largest_means_strictly_largest_and_gloam_tide_counts_outer_regions_twice():
    g = unstarted(omen_key="gloam-tide", objectives=("largest-realm", "hold-keep"))
    banner(g, BLUE, "saltmere")                      # Blue: Thorn Coast + Saltmere, both outer: 2 + 2
    banner(g, RED, "dawnmere")
    banner(g, RED, "old-abbey")                      # Red: Frostmark (outer) + two inner: 3 + 1
    begin(g)
    assert g.realm_size(BLUE) == 4 and g.realm_size(RED) == 4
    assert not phases.objective_met(g, BLUE, "largest-realm") and not phases.objective_met(g, RED, "largest-realm")


def test_a_player_with_six_in_two_tracks_wins_at_the_end_of_the_round():
    g = unstarted()
    begin(g)
    g.tracks[BLUE] = [6, 5, 6]
    g.tracks[RED] = [6, 6, 0]
    play(g, "end")
    play(g, "end")
    assert g.is_terminal() and g.winners == (BLUE,) and g.returns() == [1.0, -1.0]   # 17 > 12 combined


def test_tie_breaks_towers_then_ruins_then_a_shared_victory():
    g = unstarted()
    begin(g)
    g.tracks[BLUE] = [6, 6, 0]
    g.tracks[RED] = [6, 6, 0]
    play(g, "end")
    play(g, "end")
    assert g.winners == (BLUE, RED) and g.returns() == [0.0, 0.0]
    g = unstarted()
    banner(g, RED, "old-abbey")
    begin(g)
    g.tracks[BLUE] = [6, 6, 0]
    g.tracks[RED] = [6, 6, 0]
    play(g, "end")
    play(g, "end")
    assert g.winners == (RED,)                      # equal totals and Towers; Red holds a Ruin


def test_the_round_limit_ends_the_game_on_the_tie_breaks():
    g = unstarted(rounds=1)
    banner(g, RED, "old-abbey")                      # Red's network (Home Tower at Frostmark) holds a Ruin
    begin(g)
    play(g, "end")
    play(g, "end")
    assert g.is_terminal() and g.tracks[RED] == [0, 1, 0] and g.tracks[BLUE] == [0, 0, 0]
    assert g.winners == (RED,) and "round limit" in g.over_reason and "Red wins" in g.over_reason


def test_objectives_are_replaced_after_scoring_and_the_deck_reshuffles():
    g = begin(unstarted())
    assert g.objectives == [objective("hold-keep"), objective("two-ruins")]
    play(g, "end")
    play(g, "end")
    assert g.stage == "objective" and g.objectives == [] and len(g.objective_pile) == 6
    for _ in range(2):
        g.apply(g.chance_outcomes()[0][0])
    assert len(g.objectives) == 2 and g.round == 2 and g.stage == "omen"
