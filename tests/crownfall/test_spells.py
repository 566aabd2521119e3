"""The twelve spells of 10.0 with their costs, ranges (RULINGS I6) and targets (RULINGS I18)."""

from tests.crownfall.support import banner, begin, legal, play, reg, tower, unstarted

BLUE, RED = 0, 1


def ready(school: int, level: int = 3, mana: int = 10, **options):
    g = unstarted(houses=["redwall", "briar"], **options)
    return g, school, level, mana


def start(g, school, level, mana):
    begin(g)
    g.levels[BLUE][school] = level
    g.mana[BLUE] = mana
    g._legal = None
    return g


def test_fireball_removes_a_banner_in_range_or_destroys_a_damaged_tower():
    g, *rest = ready(0)
    banner(g, RED, "saltmere", 2)
    banner(g, RED, "eastford")
    tower(g, RED, "westwatch", damaged=True)
    start(g, *rest)
    assert not legal(g, "cast", "fireball", "eastford")            # out of the Archmage's range
    play(g, "cast", "fireball", "saltmere")
    assert g.banners[reg("saltmere")] == 1 and g.mana[BLUE] == 8
    play(g, "cast", "fireball", "westwatch", 0, 1)
    assert g.tower_owner[reg("westwatch")] == -1 and g.reserve_towers[RED] == 3 - 1 + 0


def test_a_beacon_extends_spell_range_and_ash_wind_makes_the_first_war_spell_cheaper():
    g, *rest = ready(0, omen_key="ash-wind", advanced_omens=["ash-wind"])
    banner(g, BLUE, "south-barrow")
    tower(g, BLUE, "south-barrow", "beacon")
    banner(g, RED, "eastford")
    start(g, *rest)
    play(g, "cast", "fireball", "eastford")                       # next to the Beacon
    assert g.mana[BLUE] == 9                                      # 2 - 1 (Ash Wind)
    banner(g, RED, "eastford")
    play(g, "cast", "fireball", "eastford")
    assert g.mana[BLUE] == 7


def test_siege_flame_damages_then_destroys():
    g, *rest = ready(0)
    tower(g, RED, "saltmere")
    start(g, *rest)
    play(g, "cast", "siege-flame", "saltmere")
    assert g.damaged[reg("saltmere")] and g.mana[BLUE] == 7
    play(g, "cast", "siege-flame", "saltmere")
    assert g.tower_owner[reg("saltmere")] == -1


def test_ley_shield_blocks_enemy_spells():
    g, *rest = ready(0)
    tower(g, RED, "saltmere")
    start(g, *rest)
    g.shield[reg("saltmere")] = RED
    g._legal = None
    assert not legal(g, "cast", "siege-flame", "saltmere")


def test_ley_shield_is_cast_on_a_node_you_control():
    g, *rest = ready(2)
    banner(g, BLUE, "westhollow")
    start(g, *rest)
    assert not legal(g, "cast", "ley-shield", "westhollow")        # not a node
    play(g, "cast", "ley-shield", "thorn-coast")                   # the Home Tower's region
    assert g.shield[reg("thorn-coast")] == BLUE and g.mana[BLUE] == 7


def test_rift_step_and_gatewalk_move_between_nodes_of_one_active_network():
    g, *rest = ready(1)
    banner(g, BLUE, "thorn-coast")
    banner(g, BLUE, "south-barrow")
    banner(g, BLUE, "westhollow")
    banner(g, BLUE, "dawnmere")
    start(g, *rest)
    play(g, "cast", "gatewalk", "thorn-coast", "dawnmere")        # across the map, nodes of one group
    assert g.mage[BLUE] == reg("dawnmere") and g.mana[BLUE] == 7
    assert not legal(g, "cast", "rift-step", "thorn-coast", "westhollow")   # Westhollow is no node
    play(g, "cast", "rift-step", "thorn-coast", "dawnmere")
    assert g.banners[reg("dawnmere")] == 2


def test_ward_seal_lasts_until_the_casters_next_turn_and_bastion_sigil_repairs_or_wards():
    g, *rest = ready(2)
    banner(g, BLUE, "saltmere")
    start(g, *rest)
    play(g, "cast", "ward-seal", "saltmere")
    assert g.ward[reg("saltmere")] == (BLUE, 2)
    g.damaged[reg("thorn-coast")] = True
    g._legal = None
    play(g, "cast", "bastion-sigil", "thorn-coast", 0, 0)
    assert not g.damaged[reg("thorn-coast")] and g.tower_role[reg("thorn-coast")] == -1
    play(g, "end")                                              # Red's turn, then the round ends
    play(g, "end")
    while g.is_chance_node():
        g.apply(g.chance_outcomes()[0][0])
    assert g.current_player() == BLUE and g.ward[reg("saltmere")] is None     # expired at its start


def test_bell_echo_keeps_the_first_ward_seal_one_turn_longer():
    g, *rest = ready(2, omen_key="bell-echo", advanced_omens=["bell-echo"])
    banner(g, BLUE, "saltmere")
    start(g, *rest)
    play(g, "cast", "ward-seal", "saltmere")
    play(g, "cast", "ward-seal", "thorn-coast")
    assert g.ward[reg("saltmere")] == (BLUE, 3) and g.ward[reg("thorn-coast")] == (BLUE, 2)


def test_summon_host_oathbound_retainers_and_phantom_garrison():
    g, *rest = ready(3)
    banner(g, RED, "saltmere")
    start(g, *rest)
    assert not legal(g, "cast", "summon-host", "saltmere")         # not empty
    play(g, "cast", "summon-host", "westwatch")
    assert g.owner(reg("westwatch")) == BLUE and g.mana[BLUE] == 8
    play(g, "cast", "oathbound-retainers", "westwatch", "briarwood")   # placed, then marched 1 region
    assert g.banners[reg("westwatch")] == 1 and g.owner(reg("briarwood")) == BLUE and g.stage == "turn"
    play(g, "cast", "phantom-garrison", "briarwood")
    assert g.garrison[reg("briarwood")] == (BLUE, 2)
    assert g.current_player() == RED


def test_blink_costs_one_and_is_lost_at_the_end_of_the_turn():
    g, *rest = ready(1, level=1)
    start(g, *rest)
    play(g, "cast", "blink")
    assert g.blink == 1 and g.mana[BLUE] == 9
    play(g, "end")
    assert g.blink == 0
