"""Ley networks and income (6.0, 11.0, RULINGS I12, I15), end-of-round scoring with Objectives (13.0,
14.0, I14), the win at the end of a round, the tie-breaks (15.0) and the round limit (I8)."""

from engine.crownfall import phases
from engine.crownfall.selfplay import networks_from_scratch
from tests.crownfall.support import MAP, banner, begin, objective, play, reg, tower, unstarted

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


def test_the_keep_pays_its_income_only_inside_an_active_network():
    # I12: the Keep's +1 needs the Keep controlled AND in an active network. A Banner alone on the Keep
    # holds it, but its group {Keep} has one node and no Home Tower: no network, no Keep income.
    g = unstarted()
    banner(g, BLUE, "keep")
    g.mana[BLUE] = 0
    begin(g)
    assert g.owner(reg("keep")) == BLUE and g.networks(BLUE) == [[reg("thorn-coast")]]
    assert g.income(BLUE) == {"base": 1, "ruins": 0, "sanctums": 0, "keep": 0, "total": 1}
    assert g.mana[BLUE] == 1
    # The Keep with the Ruin Dawnmere next to it: two nodes, an active network away from the Home
    # Tower: the Keep now pays (+1 for the Ruin as well, 6.0).
    g = unstarted()
    banner(g, BLUE, "keep")
    banner(g, BLUE, "dawnmere")
    g.mana[BLUE] = 0
    begin(g)
    assert g.income(BLUE) == {"base": 1, "ruins": 1, "sanctums": 0, "keep": 1, "total": 3}
    assert g.mana[BLUE] == 3


def test_outer_dominion_is_met_at_four_outer_regions_and_not_at_three():
    # X.D: control at least 4 outer regions (together or apart: the card asks no link). Blue holds
    # Thorn Coast (home) and Saltmere next to it, and Westwatch apart; Greywater makes the fourth.
    for extra, met in (((), False), (("greywater",), True)):
        g = unstarted(objectives=("outer-dominion", "hold-keep"), advanced_objectives=["outer-dominion"])
        for key in ("saltmere", "westwatch") + extra:
            banner(g, BLUE, key)
        banner(g, BLUE, "south-barrow")              # an inner region does not count
        begin(g)
        outer = sum(MAP.outer[r] for r in g.controlled(BLUE))
        assert outer == 3 + len(extra)
        assert phases.objective_met(g, BLUE, "outer-dominion") is met
        s = phases.score_round(g)[BLUE]
        assert s["objectives"] == (["outer-dominion"] if met else []) and s["crown"] == int(met)


def _finish_round(g):
    play(g, "end")
    play(g, "end")


def test_tie_breaks_towers_come_before_ruins_and_the_total_before_both():
    # 15.0: the combined total, then most Towers, then most Ruins. Blue: Home Tower (Thorn Coast) and a
    # Tower in Saltmere, no Ruin; Red: its Home Tower (Frostmark) and the Ruins Dawnmere and Old Abbey.
    # This end of round Red scores Crown 1 (Objective two-ruins) and Arcana 2 (two Ruins in one
    # network), Blue nothing; the tracks below make both reach 6 in two tracks with 15 each.
    g = unstarted()
    tower(g, BLUE, "saltmere", "stronghold")
    banner(g, RED, "dawnmere")
    banner(g, RED, "old-abbey")
    begin(g)
    g.tracks[BLUE] = [6, 6, 3]
    g.tracks[RED] = [6, 6, 0]
    _finish_round(g)
    assert g.tracks[BLUE] == [6, 6, 3] and g.tracks[RED] == [7, 8, 0]          # 15 and 15
    assert (len(g.towers_of(BLUE)), len(g.ruins_of(BLUE))) == (2, 0)
    assert (len(g.towers_of(RED)), len(g.ruins_of(RED))) == (1, 2)
    assert g.winners == (BLUE,) and g.returns() == [1.0, -1.0]                # Towers decide, not Ruins
    # Blue one point ahead on the total with fewer Towers (1 to 2: Red adds one in Greywater) and fewer
    # Ruins (0 to 2) than Red: the total decides first.
    g = unstarted()
    tower(g, RED, "greywater", "stronghold")
    banner(g, RED, "dawnmere")
    banner(g, RED, "old-abbey")
    begin(g)
    g.tracks[BLUE] = [6, 6, 4]
    g.tracks[RED] = [6, 6, 0]
    _finish_round(g)
    assert sum(g.tracks[BLUE]) == 16 and sum(g.tracks[RED]) == 15
    assert (len(g.towers_of(BLUE)), len(g.ruins_of(BLUE))) == (1, 0)
    assert (len(g.towers_of(RED)), len(g.ruins_of(RED))) == (2, 2)
    assert g.winners == (BLUE,)
