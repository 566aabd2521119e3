"""Order effects that bend the ordinary orders (13.0 False Orders, Wish; 17.0 Compass, Grimoire,
Land Lore, Secret Trails, Supply Tent, Wanderlust, Wilderness, Zeitgeist)."""


from engine.codes import ST_BANNED, ST_IMMUNE_BLUE, ST_IMMUNE_YELLOW, ST_ORDERED
from engine.crown import actions as A
from engine.crown.scenario import scenario
from engine.notation import BLUE, YELLOW
from tests.crown.support import choose, cid, play, random_play_with_cards, sq, texts, unit_at


def start(board, cards, supply=None, **kw):
    """Blue to move with ``cards`` in hand, plus a Peon so that the turn does not end by itself
    when the card is done (flags set this turn stay visible)."""
    names = sorted(set(cards))
    return scenario(board, hands=(list(cards) + ["Peon"], []), supply=supply or names, **kw)


def end_turn(g, player):
    """Finish ``player``'s turn if it is still running, declining everything (a turn with nothing
    left to decide ends by itself)."""
    while g.current == player and not g.is_terminal():
        g.apply(A.DONE)


# --- False Orders (13.0) ---------------------------------------------------------------------------

def test_13_0_false_orders_marches_an_enemy_unit_and_bans_it_for_its_owners_next_turn():
    g = start("4k3/8/8/3n4/8/2P1p3/8/4K3 w", ["False Orders"])
    play(g, "False Orders")
    options = texts(g)
    assert "d5c3" in options                    # may capture one of my units
    assert "d5e3" not in options                # never one of its owner's
    assert "d5f6" in options
    assert not any(t.startswith("e8") for t in options)   # no Sovereign
    assert "e3e2" in options                    # any enemy non-Sovereign unit, the Pawn too
    choose(g, "d5f6")
    assert unit_at(g, "f6") == ("N", YELLOW)
    assert g.board.has_status(sq("f6"), ST_BANNED)
    end_turn(g, BLUE)                                  # Yellow's turn: the Knight gets no order
    assert g.current == YELLOW
    assert not any(t.startswith("f6") for t in texts(g))
    assert any(t.startswith("e3") for t in texts(g))
    end_turn(g, YELLOW)                                  # the ban ends with Yellow's turn
    assert g.current == BLUE and not g.board.has_status(sq("f6"), ST_BANNED)


def test_13_0_false_orders_attack_captures_my_unit():
    g = start("4k3/8/8/3n4/8/2P5/8/4K3 w", ["False Orders"])
    play(g, "False Orders")
    choose(g, "d5c3")
    assert unit_at(g, "c3") == ("N", YELLOW)
    assert g.board.stock_count(g.units["P"].id) > 0


def test_13_0_false_orders_promotion_type_is_chosen_by_the_owner():
    # C10: Blue picks the move b2b1 once; Yellow then picks the type among the allowed ones.
    g = start("4k3/8/8/8/8/8/1p6/4K3 w", ["False Orders"])
    play(g, "False Orders")
    assert [t for t in texts(g) if t.startswith("b2b1")] == ["b2b1"]
    choose(g, "b2b1")
    assert g.current_player() == YELLOW
    options = texts(g)
    assert "b2b1q (promote to Queen)" in options and len(options) == 4   # Q R B N (core piles)
    choose(g, "b2b1n (promote to Knight)")
    assert g.current_player() == BLUE
    assert unit_at(g, "b1") == ("N", YELLOW)
    assert g.board.has_status(sq("b1"), ST_BANNED)


def test_13_0_false_orders_cannot_order_the_same_enemy_unit_twice_but_ignores_a_prior_ban():
    # d5 is banned by an earlier False Orders: that ban binds only its owner, so False Orders may
    # still use it (Mourning's ban, RULINGS C20, binds every player: tests/crown/test_rules_edge_cases.py).
    g = start("4k3/8/8/3n4/8/8/8/4K3 w - - 0 1 status:d5n", ["False Orders", "False Orders"], orders=2)
    play(g, "False Orders")
    choose(g, "d5f6")
    play(g, "False Orders")
    assert not any(t.startswith("f6") for t in texts(g))   # already ordered this turn (6.0)


def test_13_0_false_orders_with_only_a_sovereign_does_nothing():
    g = start("4k3/8/8/8/8/8/8/4K3 w", ["False Orders"])
    play(g, "False Orders")
    assert g.decision.frame is None and unit_at(g, "e8") == ("K", YELLOW)


# --- Compass (17.0) ---------------------------------------------------------------------------------

def test_17_0_compass_marches_cylindrically_without_attacking():
    g = start("4k3/8/8/p7/8/8/8/R3K3 w", ["Compass"])
    play(g, "Compass")
    options = texts(g)
    assert {"a1h1", "a1g1", "a1f1", "a1a4"} <= options     # wraps from the a file to the h file
    assert "a1a5" not in options                            # no attack
    assert not any(t.startswith("e1") for t in options)    # no Sovereign
    choose(g, "a1g1")
    assert unit_at(g, "g1") == ("R", BLUE) and g.board.has_status(sq("g1"), ST_ORDERED)
    assert g.orders == 0


def test_17_0_compass_skips_ordered_units():
    g = start("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 status:a1o", ["Compass"])
    play(g, "Compass")
    assert g.decision.frame is None


# --- Grimoire (17.0) --------------------------------------------------------------------------------

def test_17_0_grimoire_captures_without_moving_and_orders_the_unit():
    g = start("4k3/8/8/p7/8/8/8/R3K3 w", ["Grimoire"])
    play(g, "Grimoire")
    assert texts(g) == {"Rook on a1"}
    choose(g, "Rook on a1")
    assert texts(g) == {"capture Pawn on a5"}
    choose(g, "capture Pawn on a5")
    assert unit_at(g, "a5") is None and unit_at(g, "a1") == ("R", BLUE)
    assert g.board.has_status(sq("a1"), ST_ORDERED)


def test_17_0_grimoire_charger_may_capture_the_back_unit_only():
    g = start("4k3/8/8/8/8/p7/p7/L3K3 w", ["Grimoire"])
    play(g, "Grimoire")
    choose(g, "Charger on a1")
    assert texts(g) == {"capture Pawn on a2", "capture Pawn on a3"}
    choose(g, "capture Pawn on a3")
    assert unit_at(g, "a3") is None and unit_at(g, "a2") == ("P", YELLOW) and unit_at(g, "a1") == ("L", BLUE)


def test_17_0_grimoire_cannot_capture_an_immune_unit():
    g = start("4k3/8/8/p7/8/8/8/R3K3 w - - 0 1 status:a5b", ["Grimoire"])
    play(g, "Grimoire")
    assert g.decision.frame is None and unit_at(g, "a5") == ("P", YELLOW)


# --- Land Lore (17.0) -------------------------------------------------------------------------------

def test_17_0_land_lore_deploys_anywhere_in_the_first_four_ranks():
    g = start("4k3/8/8/8/8/8/8/4K3[N] w", ["Land Lore"])
    play(g, "Land Lore")
    choose(g, "Knight")
    options = texts(g)
    assert "deploy N@d4" in options and "deploy N@h1" in options
    assert "deploy N@d5" not in options and "deploy N@e1" not in options
    choose(g, "deploy N@d4")
    assert unit_at(g, "d4") == ("N", BLUE) and g.board.barracks_count(BLUE, g.units["N"].id) == 0
    assert g.board.has_status(sq("d4"), ST_ORDERED)


def test_17_0_land_lore_for_yellow_counts_ranks_from_its_side():
    g = scenario("4k3/8/8/8/8/8/8/4K3[n] b", hands=([], ["Land Lore"]), supply=["Land Lore"])
    play(g, "Land Lore")
    choose(g, "Knight")
    options = texts(g)
    assert "deploy N@d5" in options and "deploy N@d4" not in options


def test_17_0_land_lore_with_an_empty_barracks_does_nothing():
    g = start("4k3/8/8/8/8/8/8/4K3 w", ["Land Lore"])
    play(g, "Land Lore")
    assert g.decision.frame is None


# --- Secret Trails (17.0) ---------------------------------------------------------------------------

def test_17_0_secret_trails_moves_one_square_diagonally_and_orders_the_unit():
    g = start("4k3/8/8/8/3N4/2P5/8/4K3 w", ["Secret Trails"])
    play(g, "Secret Trails")
    assert g.orders == 1                                    # +1 order
    assert "King on e1" not in texts(g)                     # no Sovereign
    choose(g, "Knight on d4")
    assert texts(g) == {"d4 to e3", "d4 to c5", "d4 to e5"}   # c3 is occupied
    choose(g, "d4 to e5")
    assert unit_at(g, "e5") == ("N", BLUE) and g.board.has_status(sq("e5"), ST_ORDERED)
    assert not any(t.startswith("e5") for t in texts(g))    # the second order cannot use it


def test_17_0_secret_trails_onto_the_eighth_rank_does_not_promote():
    g = start("k7/2P5/8/8/8/8/8/4K3 w", ["Secret Trails"])
    play(g, "Secret Trails")
    choose(g, "Pawn on c7")
    choose(g, "c7 to d8")
    assert unit_at(g, "d8") == ("P", BLUE)


# --- Supply Tent (17.0) -----------------------------------------------------------------------------

def test_17_0_supply_tent_swaps_with_the_barracks_and_never_twice():
    g = start("4k3/8/8/8/8/8/8/1N2K2R[QK] w", ["Supply Tent"])
    play(g, "Supply Tent")
    options = texts(g)
    assert "send King on e1 to the Barracks" not in options     # no board Sovereign to the Barracks
    choose(g, "send Knight on b1 to the Barracks")
    assert texts(g) == {"Queen", "King"}
    choose(g, "Queen")
    assert unit_at(g, "b1") == ("Q", BLUE) and g.board.has_status(sq("b1"), ST_ORDERED)
    assert "send Queen on b1 to the Barracks" not in texts(g)  # not swapped twice
    choose(g, "send Rook on h1 to the Barracks")
    assert texts(g) == {"King"}                                 # the Knight may not come back
    choose(g, "King")                                           # a Sovereign may come onto the board
    assert unit_at(g, "h1") == ("K", BLUE)
    # Only the Knight and the Rook that went in are left: the card is done.
    assert g.decision.frame is None
    n, r = g.units["N"].id, g.units["R"].id
    assert (g.board.barracks_count(BLUE, n), g.board.barracks_count(BLUE, r)) == (1, 1)


def test_17_0_supply_tent_may_stop_and_skips_ordered_units():
    g = start("4k3/8/8/8/8/8/8/1N2K2R[Q] w - - 0 1 status:h1o", ["Supply Tent"])
    play(g, "Supply Tent")
    assert texts(g) == {"send Knight on b1 to the Barracks", "stop swapping"}
    choose(g, "stop swapping")
    assert g.decision.frame is None and unit_at(g, "b1") == ("N", BLUE)


# --- Wanderlust (17.0) ------------------------------------------------------------------------------

def test_17_0_wanderlust_the_owner_marches_the_chosen_unit_without_attacking():
    g = start("4k3/8/8/3n4/8/2P5/8/4K3 w", ["Wanderlust"])
    play(g, "Wanderlust")
    assert g.orders == 1
    choose(g, "Knight on d5")
    assert g.current_player() == YELLOW                      # C10: the owner chooses
    options = texts(g)
    assert "d5f6" in options and "d5c3" not in options       # no attack
    assert all(t.startswith("d5") for t in options)          # only that unit, no decline
    choose(g, "d5f6")
    assert g.current_player() == BLUE and g.phase == "order" and g.orders == 1
    assert unit_at(g, "f6") == ("N", YELLOW)
    end_turn(g, BLUE)
    assert any(t.startswith("f6") for t in texts(g))          # the free march cost no Yellow order


def test_17_0_wanderlust_warlord_may_null_march_and_a_stuck_unit_does_nothing():
    g = start("4k3/8/8/3w4/8/8/8/4K3 w", ["Wanderlust", "Wanderlust"], orders=2)
    play(g, "Wanderlust")
    choose(g, "Warlord on d5")
    assert "d5d5" in texts(g)
    choose(g, "d5d5")
    # A Yellow Pawn blocked in front cannot march: choosing it does nothing.
    g2 = start("4k3/8/8/3p4/3P4/8/8/4K3 w", ["Wanderlust"])
    play(g2, "Wanderlust")
    choose(g2, "Pawn on d5")
    assert g2.current_player() == BLUE and unit_at(g2, "d5") == ("P", YELLOW)


def test_17_0_wanderlust_promotion_type_is_chosen_by_the_owner():
    g = start("4k3/8/8/8/8/8/1p6/4K3 w", ["Wanderlust"])
    play(g, "Wanderlust")
    choose(g, "Pawn on b2")
    assert g.current_player() == YELLOW and {"b2b1q", "b2b1n"} <= texts(g)
    choose(g, "b2b1r")
    assert unit_at(g, "b1") == ("R", YELLOW)


# --- Wilderness (17.0) ------------------------------------------------------------------------------

def test_17_0_wilderness_swaps_with_an_enemy_unit_which_becomes_immune():
    g = start("4k3/8/8/3p4/3N4/8/8/3R2K1 w", ["Wilderness"])
    play(g, "Wilderness")
    assert g.orders == 1
    assert "Rook on d1" not in texts(g)                       # no adjacent unit
    choose(g, "Knight on d4")
    assert texts(g) == {"swap with Pawn on d5"}
    choose(g, "swap with Pawn on d5")
    assert unit_at(g, "d4") == ("P", YELLOW) and unit_at(g, "d5") == ("N", BLUE)
    assert g.board.has_status(sq("d4"), ST_IMMUNE_YELLOW)
    assert g.board.has_status(sq("d4"), ST_ORDERED) and g.board.has_status(sq("d5"), ST_ORDERED)
    assert not g.board.has_status(sq("d5"), ST_IMMUNE_BLUE)    # my unit gains nothing
    assert "d1d4" not in texts(g)                              # immune: cannot be captured now
    end_turn(g, BLUE)
    assert not g.board.has_status(sq("d4"), ST_IMMUNE_YELLOW)  # its owner's turn: protection over


def test_17_0_wilderness_never_two_enemy_units_and_ordered_units_are_excluded():
    g = start("4k3/8/8/3pp3/8/8/8/N3K3 w", ["Wilderness"])
    play(g, "Wilderness")
    assert g.decision.frame is None                             # only two enemy units are adjacent
    g = start("4k3/8/8/8/8/8/8/NN2K3 w - - 0 1 status:a1o", ["Wilderness"])
    play(g, "Wilderness")
    assert g.decision.frame is None                             # a1 was already ordered
    g = start("4k3/8/8/8/8/8/8/NB2K3 w", ["Wilderness"])
    play(g, "Wilderness")
    choose(g, "Knight on a1")
    choose(g, "swap with Bishop on b1")
    assert unit_at(g, "a1") == ("B", BLUE) and not g.board.has_status(sq("a1"), ST_IMMUNE_BLUE)
    assert g.board.has_status(sq("a1"), ST_ORDERED) and g.board.has_status(sq("b1"), ST_ORDERED)


def test_17_0_wilderness_ordered_enemy_unit_cannot_be_chosen_again_this_turn():
    # The swap orders both units (17.0): a later Wanderlust cannot choose the swapped enemy unit.
    g = start("4k3/8/8/3p4/3N4/8/8/6K1 w", ["Wilderness", "Wanderlust"])
    play(g, "Wilderness")
    choose(g, "Knight on d4")
    choose(g, "swap with Pawn on d5")
    play(g, "Wanderlust")
    assert texts(g) == {"King on e8"}


def test_11_5_wilderness_never_puts_a_defender_unit_on_its_eighth_rank():
    # C13: in The Last Stand the Defender's units never enter the Defender's eighth rank (rank 1).
    from engine.crown.config import GameConfig

    g = scenario("4k3/8/8/8/8/8/3p4/3N2K1 w", hands=(["Wilderness", "Peon"], []),
                 config=GameConfig(variant="last-stand", supply=("Wilderness",)), supply=["Wilderness"])
    play(g, "Wilderness")
    assert g.decision.frame is None and unit_at(g, "d2") == ("P", YELLOW)


# --- Zeitgeist (17.0) -------------------------------------------------------------------------------

def test_17_0_zeitgeist_march_or_attack_then_march_or_deploy_another_foot_unit():
    g = scenario("4k3/8/8/8/8/2p5/PP6/4K3[P] w", hands=(["Zeitgeist"], []), decks=(["Peon"], []),
                 supply=["Zeitgeist"])
    play(g, "Zeitgeist")
    assert len(g.zones[BLUE].hand) == 1                          # drew 1 first
    first = texts(g)
    assert {"a2a3", "b2b3", "b2c3"} <= first
    assert not any("@" in t for t in first)                      # no deploy first
    assert not any(t.startswith("e1") for t in first)            # Foot units only
    choose(g, "a2a3")
    second = texts(g)
    assert {"b2b3", "P@c1"} <= second
    assert "b2c3" not in second                                  # no attack second
    assert not any(t.startswith("a3") for t in second)           # not the same unit
    choose(g, "P@c1")
    assert unit_at(g, "c1") == ("P", BLUE) and g.board.has_status(sq("c1"), ST_ORDERED)
    assert g.decision.frame is None


def test_17_0_zeitgeist_with_one_foot_unit_wastes_a_part():
    g = start("4k3/8/8/8/8/8/P7/4K3 w", ["Zeitgeist"])
    play(g, "Zeitgeist")
    choose(g, "a2a4")
    assert g.decision.frame is None and unit_at(g, "a4") == ("P", BLUE)


# --- Wish, alternate order (13.0) -------------------------------------------------------------------

def test_13_0_wish_alternate_protects_chosen_sovereigns_and_bans_card_orders_next_turn():
    g = start("4k3/8/8/4r3/8/8/8/3UK3 w", ["Wish", "Armor"])
    play(g, "Wish", 1)
    assert g.orders == 1
    assert texts(g) == {"make Anointed on d1 immune", "make King on e1 immune", "stop choosing"}
    choose(g, "make King on e1 immune")
    assert texts(g) == {"make Anointed on d1 immune", "stop choosing"}
    choose(g, "stop choosing")
    assert g.board.has_status(sq("e1"), ST_IMMUNE_BLUE) and g.board.has_status(sq("e1"), ST_ORDERED)
    assert not g.board.has_status(sq("d1"), ST_IMMUNE_BLUE)
    options = texts(g)
    assert not any(t.startswith("e1") for t in options)         # the King counts as ordered
    assert "play Armor (order)" in options                       # card orders are fine this turn
    assert g.card_order_ban_next[BLUE]
    end_turn(g, BLUE)
    assert "e5e1" not in texts(g)                                # Yellow cannot capture the King
    end_turn(g, YELLOW)
    assert g.current == BLUE and not g.board.has_status(sq("e1"), ST_IMMUNE_BLUE)
    assert g.card_order_ban[BLUE]


def test_13_0_wish_alternate_forbids_card_orders_on_the_next_turn():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Wish"], []), decks=(["Armor"] * 6, []), supply=["Wish", "Armor"])
    play(g, "Wish", 1)
    choose(g, "stop choosing")
    end_turn(g, BLUE)
    end_turn(g, YELLOW)
    assert g.current == BLUE and g.zones[BLUE].hand.count(cid(g, "Armor")) == 5
    assert not any(t.startswith("play Armor (order)") for t in texts(g))
    assert any(t.startswith("e1") for t in texts(g))            # plain orders are allowed


# --- random play ------------------------------------------------------------------------------------

CARDS = ["False Orders", "Compass", "Grimoire", "Land Lore", "Secret Trails", "Supply Tent", "Wanderlust",
         "Wilderness", "Zeitgeist", "Wish"]
BOARD = "r1l1k2w/pp1yn1ip/3t4/2m5/5M2/1B1N4/PPT1Y1IP/R1L1K2W[NQ~Kp~Bb] w"


def test_random_play_with_special_orders_never_fails():
    """Seeded random games from a crowded board with these cards in every hand and Deck: no
    exception, the board's Zobrist key stays consistent (flags lifted while generating are
    restored), and cards are played often (half of the time when one can be)."""
    games, played = random_play_with_cards(BOARD, CARDS, CARDS, seed=7)
    assert games >= 50 and played > 5 * games


def test_17_0_supply_tent_unit_sent_to_barracks_cannot_deploy_again_this_turn():
    # 6.0: the Knight swapped into the Barracks was ordered by Supply Tent; a plain deploy of it this
    # turn would be its second order. The Rook that came out is ordered too.
    g = scenario("4k3/8/8/8/8/8/8/1N2K3[R] w", hands=(["Supply Tent", "Peon"], []), supply=["Supply Tent"], orders=2)
    play(g, "Supply Tent", 0)
    choose(g, "send Knight on b1 to the Barracks")
    choose(g, "Rook")                 # nothing left to swap in: the card ends by itself
    assert unit_at(g, "b1") == ("R", 0) and g.board.barracks_count(0, g.units["N"].id) == 1
    assert not any(t.startswith("N@") for t in texts(g))
