"""Order effects that move, place or deploy units (6.0, 13.0; engine/crown/effects/orders.py)."""

import random
import time

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.config import GameConfig
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.notation import BLUE, YELLOW
from tests.crown.support import card_id, play, sq, texts, unit_at

ORDER_CARDS = ["Academy", "Armor", "Aviary", "Bureaucracy", "Heir", "Mourning", "Onslaught", "Quartermaster",
               "Sanctuary", "Stables", "Temple", "Executive Action"]


# Every Blue hand below holds a Peon as well: its training effect keeps the Action phase (and its
# treasure the Buy phase) waiting for a decision, so the turn does not end by itself and the
# "ordered" flags of the turn can still be inspected.


def end_turn(g):
    """Decline everything left in the current player's turn."""
    player = g.current
    while not g.is_terminal() and g.current == player:
        g.apply(A.DONE)


def orders_from(g, square):
    """Texts of the plain phase orders of the unit on ``square`` offered now."""
    return {t for t in texts(g) if t.startswith(square) and not t.startswith("play")}


# -- Guard ------------------------------------------------------------------------------------------
def test_13_0_guard_deploys_next_to_a_sovereign():
    g = scenario("4k3/8/8/8/4K3/8/8/8[N] w", hands=(["Guard", "Peon"], []))
    play(g, "Guard")
    assert texts(g) == {"Knight"}
    g.apply_text("Knight")
    options = texts(g)
    # The eight squares around e4, plus the usual first rank (a Knight is not Foot: no second rank).
    for name in ("d3", "e3", "f3", "d4", "f4", "d5", "e5", "f5", "a1", "h1"):
        assert f"deploy Knight to {name}" in options
    assert "deploy Knight to a2" not in options and "deploy Knight to e6" not in options
    g.apply_text("deploy Knight to d5")
    assert unit_at(g, "d5") == ("N", BLUE)
    assert g.board.barracks_count(BLUE, g.units["N"].id) == 0
    assert tk.is_ordered(g, sq("d5"))            # 6.0: the deployed unit received the card's order
    assert g.phase == "action"               # the only order was spent on the card


def test_13_0_guard_foot_unit_keeps_usual_second_rank_and_skips_occupied_squares():
    g = scenario("4k3/8/8/8/8/8/3P4/4K3[P] w", hands=(["Guard", "Peon"], []))
    play(g, "Guard")
    g.apply_text("Pawn")
    options = texts(g)
    assert "deploy Pawn to d2" not in options         # occupied
    assert {"deploy Pawn to e2", "deploy Pawn to a2", "deploy Pawn to f1"} <= options


def test_13_0_guard_with_empty_barracks_does_nothing_5_0():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Guard", "Peon"], []))
    play(g, "Guard")
    assert g.phase == "action"
    assert g.zones[BLUE].played == [card_id(g, "Guard")]


# -- Squire -----------------------------------------------------------------------------------------
def test_13_0_squire_deploys_any_unit_to_the_second_rank():
    g = scenario("4k3/8/8/8/8/8/P7/4K3[R] w", hands=(["Squire", "Peon"], []), supply=[])
    play(g, "Squire")
    g.apply_text("Rook")
    options = texts(g)
    assert options == {f"deploy Rook to {f}2" for f in "bcdefgh"}     # second rank only, a2 taken
    g.apply_text("deploy Rook to d2")
    assert unit_at(g, "d2") == ("R", BLUE) and tk.is_ordered(g, sq("d2"))


def test_13_0_squire_with_full_second_rank_does_nothing():
    g = scenario("4k3/8/8/8/8/8/PPPPPPPP/4K3[R] w", hands=(["Squire", "Peon"], []))
    play(g, "Squire")
    assert g.phase == "action"
    assert g.board.barracks_count(BLUE, g.units["R"].id) == 1


# -- Academy ----------------------------------------------------------------------------------------
def test_13_0_academy_deploys_foot_unit_then_gives_an_order_for_another_unit():
    g = scenario("4k3/8/8/8/8/8/8/4K3[MN] w", hands=(["Academy", "Peon"], []), supply=["Academy"])
    play(g, "Academy")
    options = texts(g)
    assert "M@d2" in options and "M@a1" in options      # usual rule: first or second rank for Foot
    assert not any(t.startswith("N@") for t in options)  # only Foot units
    g.apply_text("M@d2")
    assert unit_at(g, "d2") == ("M", BLUE)
    assert g.orders == 1                                 # C11: +1 order (data)
    options = texts(g)
    assert not orders_from(g, "d2")                      # the Monk was ordered by the card
    assert "e1e2" in options and "N@b1" in options


def test_13_0_academy_without_foot_unit_still_gives_the_order():
    g = scenario("4k3/8/8/8/8/8/8/4K3[N] w", hands=(["Academy", "Peon"], []), supply=["Academy"])
    play(g, "Academy")
    assert g.phase == "order" and g.orders == 1          # 5.0: only the deploy is skipped
    assert "N@b1" in texts(g)                            # a plain deploy with the new order


# -- Armor ------------------------------------------------------------------------------------------
def test_13_0_armor_marches_heavy_unit_and_makes_it_immune_until_next_turn():
    g = scenario("4k3/8/8/8/1p6/8/p7/R3K2r w", hands=(["Armor", "Peon"], []), supply=["Armor"])
    play(g, "Armor")
    options = texts(g)
    assert "a1a2" not in options                         # no attack with Armor
    assert "e1e2" not in options                         # the King is not Heavy
    assert {"a1b1", "a1c1", "a1d1"} == options
    g = scenario("4k3/8/8/8/1p6/8/8/R3K2r w", hands=(["Armor", "Peon"], ["Peon"]), decks=([], ["Peon"] * 5),
                 supply=["Armor"])
    play(g, "Armor")
    g.apply_text("a1a3")
    assert tk.is_ordered(g, sq("a3")) and tk.is_immune(g, sq("a3"))
    end_turn(g)
    assert g.current == YELLOW
    yellow = texts(g)
    # C6: neither the pawn (b4xa3) nor the Rook, once it stands on rank 3, may capture it.
    assert "b4a3" not in yellow and "b4b3" in yellow
    assert "h1h3" in yellow
    g.apply_text("h1h3")
    assert g.current == YELLOW and tk.is_immune(g, sq("a3"))   # still protected for all of Yellow's turn
    end_turn(g)
    assert g.current == BLUE and not tk.is_immune(g, sq("a3"))   # protection ends as Blue's turn starts


def test_13_0_armor_marches_a_spy_by_swapping():
    # 12.0 Spy: its march is a swap with a friendly unit; Armor may use it.
    g = scenario("4k3/8/8/8/8/8/8/Y3K3 w", hands=(["Armor", "Peon"], []))
    play(g, "Armor")
    assert texts(g) == {"a1e1"}
    g.apply_text("a1e1")
    assert unit_at(g, "e1") == ("Y", BLUE) and unit_at(g, "a1") == ("K", BLUE)
    assert tk.is_immune(g, sq("e1")) and tk.is_ordered(g, sq("e1"))
    assert not tk.is_ordered(g, sq("a1"))                   # B15: the swapped unit is not ordered


# -- Aviary -----------------------------------------------------------------------------------------
def test_13_0_aviary_places_regal_unit_on_unthreatened_square_c7():
    # The Queen on a4 shields a3 from the Rook on a8; once she leaves a4, a3 is threatened (C7).
    g = scenario("r3k3/8/8/8/Q7/8/8/4K3 w", hands=(["Aviary", "Peon"], []), supply=["Aviary"])
    play(g, "Aviary")
    assert texts(g) == {"Queen on a4"}
    g.apply_text("Queen on a4")
    options = texts(g)
    assert "place Queen on a3" not in options            # on the a-file once the Queen has left a4
    assert "place Queen on b8" not in options            # next to the Rook
    assert "place Queen on d7" not in options            # next to the King
    assert "place Queen on h1" in options and "place Queen on c3" in options
    g.apply_text("place Queen on c3")
    assert unit_at(g, "c3") == ("Q", BLUE) and unit_at(g, "a4") is None
    assert tk.is_ordered(g, sq("c3"))


def test_13_0_aviary_cannot_choose_an_ordered_regal_unit():
    g = scenario("4k3/8/8/8/8/8/8/Q2EK3 w - - 0 1 status:a1o", hands=(["Aviary", "Peon"], []))
    play(g, "Aviary")
    assert texts(g) == {"Banshee on d1"}


def test_13_0_aviary_without_regal_units_does_nothing():
    g = scenario("4k3/8/8/8/8/8/8/R3K3 w", hands=(["Aviary", "Peon"], []))
    play(g, "Aviary")
    assert g.phase == "action"


# -- Bureaucracy ------------------------------------------------------------------------------------
def test_13_0_bureaucracy_foot_unit_marches_or_attacks_then_another_order():
    g = scenario("4k3/8/8/8/8/3p4/4P3/4K2N w", hands=(["Bureaucracy", "Peon"], []), supply=["Bureaucracy"])
    play(g, "Bureaucracy")
    options = texts(g)
    assert {"e2e3", "e2e4", "e2d3"} <= options           # march or attack
    assert "h1g3" not in options and "e1d1" not in options
    g.apply_text("e2d3")
    assert unit_at(g, "d3") == ("P", BLUE)
    assert g.orders == 1                                 # C11
    assert not orders_from(g, "d3") and "h1g3" in texts(g)


def test_13_0_bureaucracy_promotion_choices_6_0():
    g = scenario("7k/4P3/8/8/8/8/8/4K3 w", hands=(["Bureaucracy", "Peon"], []), supply=["Bureaucracy"])
    play(g, "Bureaucracy")
    options = texts(g)
    assert {"e7e8q", "e7e8n", "e7e8c"} <= options        # Chancellor: trained by Bureaucracy
    g.apply_text("e7e8c")
    assert unit_at(g, "e8") == ("C", BLUE)
    assert tk.is_ordered(g, sq("e8"))


def test_13_0_bureaucracy_with_no_foot_unit_still_gives_the_order():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Bureaucracy", "Peon"], []), supply=["Bureaucracy"])
    play(g, "Bureaucracy")
    assert g.phase == "order" and g.orders == 1          # 5.0: only the march is skipped


# -- Temple -----------------------------------------------------------------------------------------
def test_13_0_temple_marches_pious_unit_then_another_order():
    g = scenario("4k3/8/8/2p5/8/O7/8/4K1B1 w", hands=(["Temple", "Peon"], []), supply=["Temple"])
    play(g, "Temple")
    options = texts(g)
    assert "a3c5" not in options                         # an Oracle's shot is an attack, not a march
    assert {"a3b4", "a3b2", "g1h2", "g1f2"} <= options
    assert "e1e2" not in options
    g.apply_text("g1h2")
    assert g.orders == 1 and not orders_from(g, "h2")
    assert "a3c5" in texts(g)                            # the other unit may attack with the new order


# -- Heir -------------------------------------------------------------------------------------------
def test_13_0_heir_marches_sovereign_to_unthreatened_square_only():
    g = scenario("3rk3/8/8/8/8/8/8/rK6 w", hands=(["Heir", "Peon"], []), supply=["Heir"])
    play(g, "Heir")
    options = texts(g)
    assert "b1a1" not in options                         # an attack: Heir only marches
    assert "b1c1" not in options                         # C7: the Rook on a1 sees c1 once b1 is empty
    assert "b1a2" not in options                         # on the a1 Rook's file
    assert {"b1b2", "b1c2"} <= options
    g.apply_text("b1c2")
    assert g.orders == 1 and not orders_from(g, "c2")


def test_13_0_heir_cannot_be_played_when_no_sovereign_can_reach_a_safe_square():
    g = scenario("1r2k3/8/8/8/8/8/7r/K7 w", hands=(["Heir", "Peon"], []), supply=["Heir"])
    assert "play Heir (order)" not in texts(g)
    assert "a1a2" in texts(g)                            # a plain order may still go there
    g2 = scenario("1r2k3/8/8/8/8/8/8/K7 w", hands=(["Heir", "Peon"], []), supply=["Heir"])
    assert "play Heir (order)" in texts(g2)              # a2 is safe without the h2 Rook


def test_13_0_heir_needs_an_unordered_sovereign():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w - - 0 1 status:e1o", hands=(["Heir", "Peon"], []), supply=["Heir"])
    assert "play Heir (order)" not in texts(g)


# -- Mourning ---------------------------------------------------------------------------------------
def test_13_0_mourning_bans_units_adjacent_to_the_captured_unit():
    # Queen d1 takes the Knight on d5; c6 and e4 stood next to it, a7 did not.
    g = scenario("4k3/p7/2p5/3n4/2P1p3/8/8/3QK3 w", hands=(["Mourning", "Peon"], []), supply=["Mourning"])
    play(g, "Mourning")
    options = texts(g)
    assert "d1d5" in options and "d1d3" not in options   # attack only
    g.apply_text("d1d5")
    assert unit_at(g, "d5") == ("Q", BLUE) and tk.is_ordered(g, sq("d5"))
    # C16 / RULINGS C20: the units of both sides that stood next to d5 are mourned (flag 4): banned
    # in the next turn, free in the rest of this one; a7 and the attacker itself are not.
    for name in ("c6", "e4", "c4"):
        assert g.board.has_status(sq(name), 4) and not tk.is_ordered(g, sq(name))
    assert not g.board.has_status(sq("a7"), 4) and not g.board.has_status(sq("d5"), 4)
    end_turn(g)
    assert g.current == YELLOW
    for name in ("c6", "e4", "c4"):                     # held during Yellow's turn
        assert tk.is_ordered(g, sq(name)) and not g.board.has_status(sq(name), 4)
    yellow = texts(g)
    assert "a7a6" in yellow and "e8e7" in yellow
    assert not any(t.startswith(("c6", "e4")) for t in yellow)
    g.apply_text("a7a6")
    end_turn(g)
    assert not tk.is_ordered(g, sq("c6")) and not tk.is_ordered(g, sq("e4"))   # the ban ended with Yellow's turn
    assert not tk.is_ordered(g, sq("c4"))


def test_13_0_mourning_needs_a_regal_attacker():
    g = scenario("4k3/8/8/3n4/8/8/8/3RK3 w", hands=(["Mourning", "Peon"], []), supply=["Mourning"])
    play(g, "Mourning")
    assert g.phase == "action"                           # 5.0: no Regal unit can attack
    assert unit_at(g, "d5") == ("N", YELLOW)


# -- Onslaught --------------------------------------------------------------------------------------
def test_13_0_onslaught_marches_and_deploys_up_to_four_foot_units():
    g = scenario("4k3/8/8/8/8/3p4/P1P5/4K2N[PN] w", hands=(["Onslaught", "Peon"], []), supply=["Onslaught"])
    play(g, "Onslaught")
    options = texts(g)
    assert {"a2a3", "a2a4", "c2c3", "c2c4", "P@b2", "P@g1", "P@h2", "decline"} <= options
    assert "c2d3" not in options                         # no attacks
    assert not any(t.startswith("N@") for t in options)  # Foot units only
    assert "h1g3" not in options and "e1e2" not in options
    g.apply_text("P@b2")
    assert not orders_from(g, "b2")                      # a deployed unit cannot then march
    assert not any(t.startswith("P@") for t in texts(g)) # the Barracks' only Pawn is on the board
    g.apply_text("a2a4")
    assert not orders_from(g, "a4")                      # no unit twice
    g.apply_text("c2c3")
    # Three Foot units moved and none is left: the card ends by itself, its one order spent.
    assert g.phase == "action"
    assert all(tk.is_ordered(g, sq(s)) for s in ("b2", "a4", "c3"))
    assert unit_at(g, "d3") == ("P", YELLOW)


def test_13_0_onslaught_stops_after_four_or_when_declined():
    g = scenario("4k3/8/8/8/8/8/PPPPPP2/4K3 w", hands=(["Onslaught", "Onslaught", "Peon"], []),
                 supply=["Onslaught"], orders=2)
    play(g, "Onslaught")
    for move in ("a2a3", "b2b3", "c2c3", "d2d3"):
        g.apply_text(move)
    assert g.decision.frame is None                      # four units moved: the card is done
    assert "e2e3" in texts(g)                            # the fifth Pawn may take the second order
    play(g, "Onslaught")
    g.apply_text("e2e4")
    g.apply_text("decline")                              # the player may stop early
    assert g.phase == "action"
    assert all(tk.is_ordered(g, sq(s)) for s in ("a3", "b3", "c3", "d3", "e4"))
    assert not tk.is_ordered(g, sq("f2"))


def test_13_0_onslaught_cannot_use_ordered_foot_unit():
    g = scenario("4k3/8/8/8/8/8/PP6/4K3 w", hands=(["Onslaught", "Peon"], []), supply=["Onslaught"], orders=2)
    g.apply_text("a2a3")                                 # a plain order first
    play(g, "Onslaught")
    assert not any(t.startswith("a3") for t in texts(g)) and "b2b3" in texts(g)


# -- Quartermaster ----------------------------------------------------------------------------------
def test_13_0_quartermaster_deploys_two_units_to_the_first_rank_only():
    g = scenario("4k3/8/8/8/8/8/8/4K3[PN] w", hands=(["Quartermaster", "Peon"], []), supply=["Quartermaster"])
    play(g, "Quartermaster")
    options = texts(g)
    assert "P@a1" in options and "N@h1" in options
    assert "P@a2" not in options                         # first rank only, even for Foot units
    g.apply_text("P@a1")
    assert "P@a1" not in texts(g) and "N@a1" not in texts(g)  # a different square
    assert texts(g) == {f"N@{f}1" for f in "bcdfgh"}
    g.apply_text("N@b1")
    assert unit_at(g, "a1") == ("P", BLUE) and unit_at(g, "b1") == ("N", BLUE)
    assert tk.is_ordered(g, sq("a1")) and tk.is_ordered(g, sq("b1"))
    assert g.phase == "action"


def test_13_0_quartermaster_unusable_with_fewer_than_two_empty_first_rank_squares():
    g = scenario("4k3/8/8/8/8/8/8/RNBQKBN1[PP] w", hands=(["Quartermaster", "Peon"], []), supply=["Quartermaster"])
    assert "play Quartermaster (order)" not in texts(g)
    g2 = scenario("4k3/8/8/8/8/8/8/RNBQKB2[PP] w", hands=(["Quartermaster", "Peon"], []), supply=["Quartermaster"])
    assert "play Quartermaster (order)" in texts(g2)


def test_13_0_quartermaster_with_one_barracks_unit_deploys_it_alone():
    g = scenario("4k3/8/8/8/8/8/8/4K3[R] w", hands=(["Quartermaster", "Peon"], []), supply=["Quartermaster"])
    play(g, "Quartermaster")
    g.apply_text("R@a1")
    assert g.phase == "action" and unit_at(g, "a1") == ("R", BLUE)


# -- Sanctuary --------------------------------------------------------------------------------------
def test_13_0_sanctuary_castles_rook_and_king():
    g = scenario("4k3/8/8/8/8/8/8/4K2R w", hands=(["Sanctuary", "Peon"], []), supply=["Sanctuary"])
    play(g, "Sanctuary")
    options = texts(g)
    assert "h1f1" in options and "h1g1" not in options    # g1 is not next to the King
    assert "h1h5" not in options and "e1e2" not in options
    g.apply_text("h1f1")
    assert texts(g) == {"King on e1"}
    g.apply_text("King on e1")
    assert texts(g) == {"move King to " + s for s in ("e2", "f2", "g1", "g2")}
    g.apply_text("move King to g1")
    assert unit_at(g, "g1") == ("K", BLUE) and unit_at(g, "f1") == ("R", BLUE)
    assert tk.is_ordered(g, sq("g1")) and tk.is_ordered(g, sq("f1"))


def test_13_0_sanctuary_without_a_march_next_to_a_friend_does_nothing():
    # The Rook's only marches (h2..h8) end next to no Blue unit; h1g1 would be an attack.
    g = scenario("4k3/8/8/8/8/8/8/4K1pR w", hands=(["Sanctuary", "Peon"], []), supply=["Sanctuary"])
    play(g, "Sanctuary")
    assert g.phase == "action" and unit_at(g, "h1") == ("R", BLUE)


def test_13_0_sanctuary_ordered_neighbour_is_not_moved():
    g = scenario("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1 status:e1o", hands=(["Sanctuary", "Peon"], []), supply=["Sanctuary"])
    play(g, "Sanctuary")
    assert "e2d2" in texts(g)                            # ends next to the (already ordered) King
    g.apply_text("e2d2")
    assert g.phase == "action"                           # the move part is skipped (5.0, 6.0)
    assert unit_at(g, "e1") == ("K", BLUE) and tk.is_ordered(g, sq("d2"))


def test_13_0_sanctuary_chooses_one_of_several_neighbours():
    g = scenario("4k3/8/8/8/3R4/8/8/2B1K3 w", hands=(["Sanctuary", "Peon"], []), supply=["Sanctuary"])
    play(g, "Sanctuary")
    g.apply_text("d4d2")                                 # next to the Bishop and the King
    assert texts(g) == {"King on e1", "Bishop on c1"}
    g.apply_text("Bishop on c1")
    assert texts(g) == {"move Bishop to " + s for s in ("d1", "c2", "e2", "c3", "d3", "e3")}
    g.apply_text("move Bishop to e3")
    assert unit_at(g, "e3") == ("B", BLUE) and unit_at(g, "c1") is None
    assert tk.is_ordered(g, sq("e3")) and not tk.is_ordered(g, sq("e1"))


# -- Stables ----------------------------------------------------------------------------------------
def test_13_0_stables_marches_the_same_mounted_unit_twice():
    g = scenario("4k3/8/8/3p4/8/8/8/1N2K1B1 w", hands=(["Stables", "Peon"], []), supply=["Stables"])
    play(g, "Stables")
    options = texts(g)
    assert {"b1c3", "b1a3", "b1d2"} <= options and "g1h2" not in options
    g.apply_text("b1c3")
    options = texts(g)
    assert all(t.startswith("c3") for t in options)     # only the same unit
    assert "c3d5" not in options                         # no attacks
    assert {"c3b1", "c3e4", "c3b5"} <= options
    g.apply_text("c3e4")
    assert unit_at(g, "e4") == ("N", BLUE) and tk.is_ordered(g, sq("e4"))
    assert g.phase == "action"


# -- Executive Action -------------------------------------------------------------------------------
def test_13_0_executive_action_deploys_for_an_action():
    g = scenario("4k3/8/8/8/8/8/8/4K3[P] w", hands=(["Executive Action", "Peon"], []), supply=["Executive Action"],
                 phase="action")
    play(g, "Executive Action", 1)
    assert g.actions == 0
    options = texts(g)
    assert {"P@a1", "P@d2"} <= options
    g.apply_text("P@d2")
    assert unit_at(g, "d2") == ("P", BLUE)
    assert g.board.barracks_count(BLUE, g.units["P"].id) == 0
    assert g.phase == "buy"


def test_13_0_executive_action_with_empty_barracks_does_nothing():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Executive Action", "Peon"], []), supply=["Executive Action"],
                 phase="action")
    play(g, "Executive Action", 1)
    assert g.phase == "buy"


# -- random play ------------------------------------------------------------------------------------
def test_orders_family_random_play_smoke():
    """Random legal decisions in full games and in scenarios crowded with these cards: no exception,
    and every effect's decisions stay answerable."""
    start = time.perf_counter()
    rng = random.Random(1234)
    supply = ("Academy", "Armor", "Aviary", "Bureaucracy", "Heir", "Mourning", "Onslaught", "Quartermaster",
              "Sanctuary", "Stables", "Temple", "Executive Action")
    boards = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[PPMNIYqdl] w",
        "r3k2r/pp1g1ppp/2e5/3Y4/1F1x4/2L5/PPPPD1PP/R1W1K2R[PMIT~Pppm] w",
        "4k3/8/8/8/8/8/8/4K3[PPPPMMIRNQEDFGXY] w",
        "2c1k1f1/1pp1p1p1/8/8/8/8/1PP1P1P1/2C1K1D1[IIMT] b",
    ]
    games = 0
    for seed in range(250):
        if seed % 2 == 0:
            board = boards[seed % len(boards)]
            hands = [rng.choices(ORDER_CARDS + ["Guard", "Squire"], k=6) for _ in range(2)]
            g = scenario(board, hands=(hands[0], hands[1]), decks=(hands[1], hands[0]), supply=list(supply),
                         orders=3, actions=2, config=GameConfig(supply=supply, seed=seed))
        else:
            g = GameState(GameConfig(supply=supply, seed=seed))
        steps = 0
        while not g.is_terminal() and steps < 150:
            g.apply(rng.choice(g.legal_actions()))
            steps += 1
        games += 1
    assert games == 250
    assert time.perf_counter() - start < 20
