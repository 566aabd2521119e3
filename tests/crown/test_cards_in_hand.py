"""Card-manipulation effects (13.0 Astrology, Destiny, Executive Action, False Orders, Refiner,
Sacrifice, Sanctuary, Scribes, Stables, Versatility, Vigilance, Wish; 17.0 Compass, Far Sight,
Supply Tent)."""

import random
from collections import Counter

import pytest

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.config import GameConfig
from engine.crown.effects import has_steps
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.notation import BLUE, YELLOW
from tests.crown.support import KINGS, cid, play


def names(g, cards):
    return sorted(g.card_name(c) for c in cards)


def pick(g, name):
    """Choose a card (from the Hand, the Supply, or a name to say)."""
    g.apply(A.card(cid(g, name)))


def options(g):
    return sorted(g.legal_action_texts().values())


def unit_t(g, token):
    return g.units[token].id


def all_cards_count(g):
    """Every card of the game: both players' zones, the Trash, the Supply."""
    return sum(len(z.all_cards()) for z in g.zones) + len(g.trash) + sum(g.supply)


# --- Astrology, Executive Action ------------------------------------------------------------------

def test_13_0_astrology_reveals_the_opponents_hand_and_earns_order_buy_gold():
    g = scenario(KINGS, hands=(["Astrology"], ["Peon", "Tower", "Guard"]), supply=["Astrology"])
    assert g.zones[YELLOW].known_hand == []
    play(g, "Astrology", 0)
    assert sorted(g.zones[YELLOW].known_hand) == sorted(g.zones[YELLOW].hand)
    assert names(g, g.zones[YELLOW].known_hand) == ["Guard", "Peon", "Tower"]
    assert (g.orders, g.buys, g.gold) == (1, 2, 1)        # paid 1 order, earned 1
    assert g.phase == "order" and g.decision.frame is None  # no question asked


def test_13_0_astrology_revealed_card_stops_being_known_when_it_leaves_the_hand():
    g = scenario(KINGS, hands=(["Astrology", "Far Sight"], ["Peon", "Tower"]), supply=["Astrology", "Far Sight"])
    play(g, "Astrology", 0)
    g.apply(A.DONE)                                         # to the Action phase
    play(g, "Far Sight", 0)
    pick(g, "Tower")
    assert names(g, g.zones[YELLOW].known_hand) == ["Peon"] == names(g, g.zones[YELLOW].hand)


def test_13_0_executive_action_order_is_numbers_only():
    g = scenario(KINGS, hands=(["Executive Action"], []), decks=(["Peon", "Peon", "Guard"], []),
                 supply=["Executive Action"])
    assert not has_steps(g, cid(g, "Executive Action"), 0)
    play(g, "Executive Action", 0)
    assert len(g.zones[BLUE].hand) == 2                     # draw 2
    assert (g.orders, g.actions) == (0, 2)                  # the order was used, +1 action
    assert g.phase == "action"                              # no order left: on to the Action phase


# --- Destiny, Refiner (trash and morph) -------------------------------------------------------------

def test_13_0_destiny_trashes_a_training_card_and_morphs_a_board_unit():
    g = scenario("4k3/8/8/8/8/8/4P3/4K3 w", hands=(["Destiny", "Champion", "Peon"], []),
                 decks=(["Guard"], []), supply=["Destiny"], phase="action")
    knights = g.board.stock_count(unit_t(g, "N"))
    pawns = g.board.stock_count(unit_t(g, "P"))
    play(g, "Destiny", 0)
    assert g.actions == 1                                   # paid 1, earned 1
    assert "Guard" in names(g, g.zones[BLUE].hand)          # drew first
    # Guard, Champion and Peon all have training effects (Pawn, Knight, Pawn).
    assert options(g) == ["Champion", "Guard", "Peon"]
    pick(g, "Champion")
    assert names(g, g.trash) == ["Champion"]
    assert options(g) == ["King on e1", "Pawn on e2"]
    g.apply(A.square(12))                                   # e2
    assert g.board.unit_on(12) == (unit_t(g, "N"), BLUE)
    assert g.board.stock_count(unit_t(g, "N")) == knights - 1
    assert g.board.stock_count(unit_t(g, "P")) == pawns + 1
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Peon"]


def test_13_0_destiny_may_morph_a_barracks_unit_and_x2_trains_one_morph():
    g = scenario(KINGS.replace(" w", "[N] w"), hands=(["Destiny", "Versatility"], []),
                 supply=["Destiny", "Versatility"], phase="action")
    play(g, "Destiny", 0)
    pick(g, "Versatility")                                  # Training x2: Striker -> still one morph
    texts = options(g)
    assert "Knight in your Barracks" in texts and "King on e1" in texts
    g.apply(A.unit_type(unit_t(g, "N")))
    assert tk.barracks_types(g, BLUE) == [unit_t(g, "T")]
    assert g.board.barracks_count(BLUE, unit_t(g, "T")) == 1
    assert g.board.unit_on(4) == (unit_t(g, "K"), BLUE)


def test_13_0_destiny_can_trash_the_card_it_just_drew():
    g = scenario(KINGS, hands=(["Destiny"], []), decks=(["Tower"], []), supply=["Destiny"], phase="action")
    play(g, "Destiny", 0)
    assert options(g) == ["Tower"]
    pick(g, "Tower")
    assert g.zones[BLUE].hand == [] and names(g, g.trash) == ["Tower"]


def test_13_0_destiny_without_training_card_does_nothing():
    # Executive Action and Wish have no training effect (nor do e.g. Refiner, Stables, Compass).
    g = scenario(KINGS, hands=(["Destiny", "Executive Action"], []), decks=(["Wish"], []),
                 supply=["Destiny", "Executive Action", "Wish"], phase="action")
    play(g, "Destiny", 0)
    assert g.decision.frame is None                         # back to the phase: nothing asked
    assert names(g, g.zones[BLUE].hand) == ["Executive Action", "Wish"]
    assert g.trash == []


def test_13_0_destiny_trashes_even_when_no_unit_can_be_morphed():
    # Executive Action (no training effect) keeps the Action phase open after Destiny.
    g = scenario("4k3/8/8/8/8/8/8/8 w", hands=(["Destiny", "Champion", "Executive Action"], []),
                 supply=["Destiny", "Executive Action"], phase="action")
    play(g, "Destiny", 0)
    pick(g, "Champion")
    assert names(g, g.trash) == ["Champion"]
    assert g.decision.frame is None


def test_5_0_destiny_morph_is_skipped_when_the_stock_has_none_of_the_type():
    g = scenario("4k3/8/8/8/8/8/4P3/4K3 w stock:P5", hands=(["Destiny", "Champion"], []),
                 supply=["Destiny"], phase="action")
    play(g, "Destiny", 0)
    pick(g, "Champion")
    assert names(g, g.trash) == ["Champion"]
    assert g.decision.frame is None
    assert g.board.unit_on(12) == (unit_t(g, "P"), BLUE)


def test_13_0_destiny_morph_keeps_the_units_status():
    g = scenario("4k3/8/8/8/8/8/4P3/4K3 w status:e2o", hands=(["Destiny", "Champion", "Executive Action"], []),
                 supply=["Destiny", "Executive Action"], phase="action")
    play(g, "Destiny", 0)
    pick(g, "Champion")
    g.apply(A.square(12))
    assert g.board.unit_on(12) == (unit_t(g, "N"), BLUE) and tk.is_ordered(g, 12)


def test_13_0_destiny_may_choose_a_unit_already_of_that_type():
    # Ruling (module docstring): as promotion offers every allowed type, a unit of the trained type
    # may be chosen and stays as it is, so the King need not be morphed into a Pawn here.
    g = scenario("4k3/8/8/8/8/8/4P3/4K3 w", hands=(["Destiny", "Guard", "Executive Action"], []),
                 supply=["Destiny", "Executive Action"], phase="action")
    play(g, "Destiny", 0)
    pick(g, "Guard")                                        # trains a Pawn
    assert options(g) == ["King on e1", "Pawn on e2"]
    g.apply(A.square(12))
    assert g.board.unit_on(12) == (unit_t(g, "P"), BLUE) and g.board.unit_on(4) == (unit_t(g, "K"), BLUE)
    assert names(g, g.trash) == ["Guard"]


def test_13_0_refiner_morphs_only_a_barracks_unit():
    g = scenario("4k3/8/8/8/8/8/4P3/4K3[BN] w", hands=(["Refiner", "Tower"], []), decks=(["Peon"], []),
                 supply=["Refiner"], phase="action")
    play(g, "Refiner", 0)
    assert g.actions == 1
    pick(g, "Tower")
    assert options(g) == ["Bishop in your Barracks", "Knight in your Barracks"]
    g.apply(A.unit_type(unit_t(g, "B")))
    assert g.board.barracks_count(BLUE, unit_t(g, "R")) == 1
    assert g.board.barracks_count(BLUE, unit_t(g, "B")) == 0
    assert g.board.unit_on(12) == (unit_t(g, "P"), BLUE)
    assert names(g, g.trash) == ["Tower"] and names(g, g.zones[BLUE].hand) == ["Peon"]


def test_13_0_refiner_with_empty_barracks_still_trashes():
    g = scenario("4k3/8/8/8/8/8/4P3/4K3 w", hands=(["Refiner", "Tower"], []), supply=["Refiner"], phase="action")
    play(g, "Refiner", 0)
    pick(g, "Tower")
    assert names(g, g.trash) == ["Tower"] and g.decision.frame is None


def test_13_0_refiner_alternative_trashes_and_gains_up_to_cost_plus_two():
    g = scenario(KINGS, hands=(["Refiner", "Clergy"], []), decks=(["Peon"], []),
                 supply=["Refiner", "Versatility", "Wish", "Legend"], phase="action")
    play(g, "Refiner", 1)
    assert g.actions == 1
    assert options(g) == ["Clergy", "Peon"]
    pick(g, "Clergy")                                       # cost 3: up to 5
    assert names(g, g.trash) == ["Clergy"]
    assert options(g) == ["Champion (2 gold)", "Clergy (3 gold)", "Consort (5 gold)", "Legend (4 gold)",
                          "Refiner (4 gold)", "Versatility (2 gold)"]
    pick(g, "Consort")
    assert names(g, g.zones[BLUE].discard) == ["Consort"]
    assert g.supply[cid(g, "Consort")] == g.cards["Consort"].pile - 1


def test_13_0_refiner_alternative_starter_card_counts_as_cost_zero():
    g = scenario(KINGS, hands=(["Refiner", "Peon"], []), supply=["Refiner", "Versatility"], phase="action")
    play(g, "Refiner", 1)
    pick(g, "Peon")
    assert options(g) == ["Champion (2 gold)", "Versatility (2 gold)"]


def test_13_0_refiner_alternative_nothing_affordable_no_gain():
    g = scenario(KINGS, hands=(["Refiner", "Guard"], []), supply=["Refiner"], phase="action")
    g.supply[cid(g, "Champion")] = 0                        # the only pile costing 2 or less is empty
    play(g, "Refiner", 1)
    pick(g, "Guard")
    assert names(g, g.trash) == ["Guard"] and g.zones[BLUE].discard == []
    assert g.decision.frame is None


def test_13_0_refiner_alternative_uses_current_costs_with_quartermaster_discount():
    g = scenario(KINGS, hands=(["Refiner", "Clergy"], []), supply=["Refiner"], phase="action")
    g.discount = 1                                          # as if a Quartermaster treasure was played
    play(g, "Refiner", 1)
    pick(g, "Clergy")                                       # 3 - 1 = 2: up to 4 at current costs
    assert "Consort (4 gold)" in options(g) and "Tower (5 gold)" not in options(g)


def test_13_0_refiner_alternative_empty_hand_does_nothing():
    g = scenario(KINGS, hands=(["Refiner"], []), supply=["Refiner"], phase="action")
    play(g, "Refiner", 1)
    assert g.trash == [] and g.zones[BLUE].discard == [] and g.decision.frame is None


# --- Sacrifice ------------------------------------------------------------------------------------

def test_13_0_sacrifice_discards_not_trashes_then_gains_up_to_six():
    g = scenario(KINGS, hands=(["Sacrifice", "Tower", "Peon"], []), supply=["Sacrifice", "Wish"], phase="action")
    play(g, "Sacrifice", 0)
    pick(g, "Tower")
    assert g.trash == [] and names(g, g.zones[BLUE].discard) == ["Tower"]
    assert "Wish (6 gold)" in options(g) and "Tower (6 gold)" in options(g)
    pick(g, "Wish")
    assert names(g, g.zones[BLUE].discard) == ["Tower", "Wish"]
    assert names(g, g.zones[BLUE].hand) == ["Peon"]


def test_13_0_sacrifice_with_empty_hand_has_no_effect():
    g = scenario(KINGS, hands=(["Sacrifice"], []), supply=["Sacrifice"], phase="action")
    play(g, "Sacrifice", 0)
    assert g.zones[BLUE].discard == [] and g.decision.frame is None
    assert sum(g.supply) == sum(g.cards.cards[c].pile for c in g.supply_ids)


# --- Sanctuary, Versatility, Supply Tent --------------------------------------------------------------

def test_13_0_sanctuary_alternate_draws_two_then_discards_exactly_two():
    g = scenario(KINGS, hands=(["Sanctuary", "Sanctuary", "Guard"], []), decks=(["Tower", "Tower"], []),
                 supply=["Sanctuary"])
    play(g, "Sanctuary", 1)
    assert (g.orders, g.gold) == (1, 1)
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Sanctuary", "Tower", "Tower"]
    assert "Sanctuary" in options(g) and "decline" not in options(g) and "none" not in options(g)
    pick(g, "Tower")                                        # a drawn card may be discarded
    pick(g, "Sanctuary")                                    # another Sanctuary may be discarded
    assert names(g, g.zones[BLUE].discard) == ["Sanctuary", "Tower"]
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Tower"]
    assert names(g, g.zones[BLUE].played) == ["Sanctuary"]
    assert g.decision.frame is None


def test_13_0_sanctuary_alternate_must_discard_two_even_with_nothing_drawn():
    g = scenario(KINGS, hands=(["Sanctuary", "Guard", "Peon"], []), supply=["Sanctuary"])
    play(g, "Sanctuary", 1)
    pick(g, "Guard")
    assert options(g) == ["Peon"]
    pick(g, "Peon")
    assert g.zones[BLUE].hand == []


def test_13_0_sanctuary_alternate_fewer_cards_discards_the_whole_hand():
    g = scenario(KINGS, hands=(["Sanctuary", "Guard"], []), supply=["Sanctuary"])
    play(g, "Sanctuary", 1)
    pick(g, "Guard")
    assert g.zones[BLUE].hand == [] and g.decision.frame is None


def test_13_0_versatility_discards_up_to_four_then_draws_as_many():
    g = scenario(KINGS, hands=(["Versatility", "Versatility", "Peon", "Guard"], []),
                 decks=(["Tower", "Tower", "Tower"], []), supply=["Versatility"])
    play(g, "Versatility", 0)
    assert g.orders == 1
    assert "discard nothing" in options(g)
    pick(g, "Versatility")                                  # another Versatility may be discarded
    pick(g, "Peon")
    g.apply(A.DONE)                                         # stop after 2
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Tower", "Tower"]
    assert names(g, g.zones[BLUE].discard) == ["Peon", "Versatility"]
    assert g.decision.frame is None


def test_13_0_versatility_stops_asking_after_four():
    g = scenario(KINGS, hands=(["Versatility", "Peon", "Peon", "Peon", "Peon", "Guard"], []),
                 decks=(["Tower"] * 5, []), supply=["Versatility"])
    play(g, "Versatility", 0)
    for _ in range(4):
        pick(g, "Peon")
    assert g.decision.frame is None
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Tower", "Tower", "Tower", "Tower"]


def test_13_0_versatility_discarding_nothing_draws_nothing():
    g = scenario(KINGS, hands=(["Versatility", "Peon"], []), decks=(["Tower"], []), supply=["Versatility"])
    play(g, "Versatility", 0)
    g.apply(A.DONE)
    assert names(g, g.zones[BLUE].hand) == ["Peon"] and g.zones[BLUE].deck_size() == 1


def test_13_0_versatility_redraw_reshuffles_the_discarded_cards_when_the_deck_is_empty():
    g = scenario(KINGS, hands=(["Versatility", "Peon", "Guard"], []), supply=["Versatility"])
    play(g, "Versatility", 0)
    pick(g, "Peon")
    pick(g, "Guard")
    # 5.0: the Deck is empty, so the Discard (the two discarded cards) is reshuffled and redrawn.
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Peon"] and g.zones[BLUE].discard == []


def test_17_0_supply_tent_alternate_discards_up_to_three_draws_and_earns_gold():
    g = scenario(KINGS, hands=(["Supply Tent", "Peon", "Peon", "Guard", "Guard"], []),
                 decks=(["Tower"] * 4, []), supply=["Supply Tent"])
    play(g, "Supply Tent", 1)
    assert g.orders == 1
    pick(g, "Peon")
    pick(g, "Peon")
    pick(g, "Guard")
    assert g.decision.frame is None                         # 3 is the limit
    assert g.gold == 3
    assert names(g, g.zones[BLUE].hand) == ["Guard", "Tower", "Tower", "Tower"]


def test_17_0_supply_tent_alternate_stop_early_and_gold_per_discard():
    g = scenario(KINGS, hands=(["Supply Tent", "Peon", "Guard"], []), decks=(["Tower"], []), supply=["Supply Tent"])
    play(g, "Supply Tent", 1)
    pick(g, "Peon")
    g.apply(A.DONE)
    assert g.gold == 1 and names(g, g.zones[BLUE].hand) == ["Guard", "Tower"]


# --- Scribes, Stables, Vigilance, Compass (back on the Deck) --------------------------------------------

def test_13_0_scribes_may_put_one_card_back_on_top():
    g = scenario(KINGS, hands=(["Scribes", "Guard"], []), decks=(["Peon", "Peon", "Tower", "Clergy"], []),
                 supply=["Scribes"], phase="action")
    play(g, "Scribes", 0)
    assert g.buys == 2 and len(g.zones[BLUE].hand) == 4
    assert "put no card back" in options(g)
    pick(g, "Guard")
    assert g.zones[BLUE].top == [(cid(g, "Guard"), False)]  # known to its owner only
    assert g.zones[BLUE].deck_size() == 2


def test_13_0_scribes_may_decline():
    g = scenario(KINGS, hands=(["Scribes", "Guard"], []), decks=(["Peon"] * 3, []), supply=["Scribes"], phase="action")
    play(g, "Scribes", 0)
    g.apply(A.DONE)
    assert len(g.zones[BLUE].hand) == 4 and g.zones[BLUE].top == []


def test_13_0_scribes_put_back_card_becomes_the_deck():
    g = scenario(KINGS, hands=(["Scribes", "Scribes"], []), decks=(["Tower"] * 3, []),
                 supply=["Scribes"], phase="action")
    play(g, "Scribes", 0)                                   # draws the whole Deck
    assert g.zones[BLUE].deck_size() == 0
    pick(g, "Scribes")
    assert g.zones[BLUE].deck_size() == 1
    assert g.zones[BLUE].top == [(cid(g, "Scribes"), False)]
    assert names(g, g.zones[BLUE].hand) == ["Tower", "Tower", "Tower"]


def test_13_0_stables_action_must_put_a_card_back():
    g = scenario(KINGS, hands=(["Stables", "Guard"], []), decks=(["Peon", "Tower"], []),
                 supply=["Stables"], phase="action")
    play(g, "Stables", 1)
    assert (g.actions, g.buys) == (1, 2)
    assert options(g) == ["Guard", "Peon", "Tower"]         # no way to decline
    pick(g, "Tower")
    assert g.zones[BLUE].top == [(cid(g, "Tower"), False)]
    assert g.zones[BLUE].deck_size() == 1                   # the Deck was empty: it becomes the Deck


def test_13_0_vigilance_must_put_back_even_if_nothing_was_drawn():
    g = scenario(KINGS, hands=(["Vigilance", "Peon"], []), supply=["Vigilance"], phase="action")
    play(g, "Vigilance", 0)
    assert (g.actions, g.buys, g.gold) == (1, 2, 2)
    assert options(g) == ["Peon"]
    pick(g, "Peon")
    assert g.zones[BLUE].hand == [] and g.zones[BLUE].top == [(cid(g, "Peon"), False)]


def test_13_0_vigilance_with_empty_hand_ignores_the_put_back():
    g = scenario(KINGS, hands=(["Vigilance"], []), supply=["Vigilance"], phase="action")
    play(g, "Vigilance", 0)
    assert g.decision.frame is None and g.gold == 2


def test_13_0_put_back_card_is_drawn_next():
    g = scenario(KINGS, hands=(["Vigilance", "Vigilance", "Guard"], []), decks=(["Peon"] * 6, []),
                 supply=["Vigilance"], phase="action")
    play(g, "Vigilance", 0)
    pick(g, "Guard")
    play(g, "Vigilance", 0)                                 # its draw takes the Guard back
    assert "Guard" in names(g, g.zones[BLUE].hand)


def test_17_0_compass_alternate_puts_three_back_in_chosen_order():
    g = scenario(KINGS, hands=(["Compass", "Guard"], []), decks=(["Tower", "Clergy", "Peon", "Peon"], []),
                 supply=["Compass"])
    play(g, "Compass", 1)
    assert (g.orders, g.gold) == (1, 1) and len(g.zones[BLUE].hand) == 4
    pick(g, "Guard")
    pick(g, "Tower")
    assert g.decision.frame is not None
    hand = names(g, g.zones[BLUE].hand)
    third = hand[0]
    pick(g, third)
    # The last one put back is on top (drawn first).
    assert [g.card_name(c) for c, _ in g.zones[BLUE].top] == ["Guard", "Tower", third]
    assert all(not known for _, known in g.zones[BLUE].top)
    assert len(g.zones[BLUE].hand) == 1 and g.decision.frame is None


def test_17_0_compass_alternate_with_three_or_fewer_cards_puts_the_whole_hand_back():
    g = scenario(KINGS, hands=(["Compass"], []), decks=(["Tower", "Peon"], []), supply=["Compass"])
    play(g, "Compass", 1)                                   # only 2 cards could be drawn
    assert len(g.zones[BLUE].hand) == 2
    pick(g, "Peon")
    pick(g, "Tower")
    assert g.zones[BLUE].hand == []
    assert [g.card_name(c) for c, _ in g.zones[BLUE].top] == ["Peon", "Tower"]


# --- Wish --------------------------------------------------------------------------------------------

def test_13_0_wish_reveals_until_the_named_card():
    g = scenario(KINGS, hands=(["Wish"], []), deck_tops=(["Peon", "Tower", "Guard", "Clergy"], []),
                 supply=["Wish"])
    play(g, "Wish", 0)
    assert g.orders == 1
    assert len(options(g)) == len(g.cards)                 # any card of the catalog may be named
    pick(g, "Tower")
    zones = g.zones[BLUE]
    assert names(g, zones.hand) == ["Tower"]
    assert names(g, zones.known_hand) == ["Tower"]          # it was revealed
    assert names(g, zones.discard) == ["Clergy", "Guard"]
    assert zones.top == [(cid(g, "Peon"), False)]


def test_13_0_wish_reshuffles_the_discard_but_not_the_revealed_cards():
    g = scenario(KINGS, hands=(["Wish"], []), deck_tops=(["Guard"], []),
                 discards=(["Tower", "Peon", "Peon"], []), supply=["Wish"])
    total = all_cards_count(g)
    play(g, "Wish", 0)
    pick(g, "Tower")
    zones = g.zones[BLUE]
    assert names(g, zones.hand) == ["Tower"]
    assert "Guard" in names(g, zones.discard)               # the revealed Guard was set aside
    assert zones.deck[cid(g, "Guard")] == 0
    assert all_cards_count(g) == total


def test_13_0_wish_not_found_discards_everything_revealed():
    g = scenario(KINGS, hands=(["Wish"], []), deck_tops=(["Peon", "Guard"], []), discards=(["Clergy"], []),
                 supply=["Wish"])
    play(g, "Wish", 0)
    pick(g, "Tower")                                        # a card Blue does not own
    zones = g.zones[BLUE]
    assert zones.hand == [] and zones.deck_size() == 0
    assert names(g, zones.discard) == ["Clergy", "Guard", "Peon"]
    assert g.decision.frame is None


def test_13_0_wish_never_finds_cards_played_this_turn():
    g = scenario(KINGS, hands=(["Astrology", "Wish"], []), discards=(["Peon"], []), supply=["Wish", "Astrology"])
    play(g, "Astrology", 0)
    play(g, "Wish", 0)
    pick(g, "Astrology")
    zones = g.zones[BLUE]
    assert zones.hand == []
    assert names(g, zones.played) == ["Astrology", "Wish"]
    assert names(g, zones.discard) == ["Peon"]


def test_13_0_wish_with_chance_nodes_reveals_one_card_at_a_time():
    g = scenario(KINGS, hands=(["Wish"], []), decks=(["Peon", "Tower"], []), supply=["Wish"], auto_chance=False)
    play(g, "Wish", 0)
    pick(g, "Tower")
    assert g.is_chance_node()
    assert sorted(p for _, p in g.chance_outcomes()) == [0.5, 0.5]
    g.apply(cid(g, "Peon"))
    assert g.is_chance_node() and g.chance_outcomes() == [(cid(g, "Tower"), 1.0)]
    g.apply(cid(g, "Tower"))
    assert names(g, g.zones[BLUE].hand) == ["Tower"] and names(g, g.zones[BLUE].discard) == ["Peon"]


# --- False Orders, Far Sight ----------------------------------------------------------------------------

def test_13_0_false_orders_action_trash_the_revealed_card():
    g = scenario(KINGS, hands=(["False Orders"], []), deck_tops=([], ["Peon", "Tower"]),
                 supply=["False Orders"], phase="action")
    play(g, "False Orders", 1)
    assert g.decision.player == BLUE
    assert g.zones[YELLOW].top[-1] == (cid(g, "Tower"), True)   # known to both while deciding
    assert options(g) == ["put the revealed Tower back on top", "trash the revealed Tower"]
    g.apply(A.yes())
    assert names(g, g.trash) == ["Tower"] and g.zones[YELLOW].top == [(cid(g, "Peon"), False)]


def test_13_0_false_orders_action_put_back_is_known_to_both():
    g = scenario(KINGS, hands=(["False Orders"], []), deck_tops=([], ["Tower"]), supply=["False Orders"],
                 phase="action")
    play(g, "False Orders", 1)
    g.apply(A.no())
    assert g.trash == [] and g.zones[YELLOW].top == [(cid(g, "Tower"), True)]


def test_13_0_false_orders_action_reshuffles_the_opponents_discard():
    g = scenario(KINGS, hands=(["False Orders"], []), discards=([], ["Clergy"]), supply=["False Orders"],
                 phase="action")
    play(g, "False Orders", 1)
    assert g.zones[YELLOW].discard == []
    g.apply(A.yes())
    assert names(g, g.trash) == ["Clergy"]


def test_13_0_false_orders_action_nothing_to_reveal():
    g = scenario(KINGS, hands=(["False Orders"], ["Peon"]), supply=["False Orders"], phase="action")
    play(g, "False Orders", 1)
    assert g.decision.frame is None and g.trash == []


def test_17_0_far_sight_opponent_discards_every_card_of_the_name():
    g = scenario(KINGS, hands=(["Far Sight"], ["Peon", "Peon", "Guard", "Tower"]), supply=["Far Sight"],
                 phase="action")
    play(g, "Far Sight", 0)
    assert g.gold == 1
    assert len(options(g)) == len(g.cards)
    pick(g, "Peon")
    assert names(g, g.zones[YELLOW].discard) == ["Peon", "Peon"]
    assert names(g, g.zones[YELLOW].hand) == ["Guard", "Tower"]
    assert names(g, g.zones[YELLOW].known_hand) == ["Guard", "Tower"]


def test_17_0_far_sight_no_card_of_that_name_discards_nothing_but_reveals():
    g = scenario(KINGS, hands=(["Far Sight"], ["Guard", "Tower"]), supply=["Far Sight"], phase="action")
    play(g, "Far Sight", 0)
    pick(g, "Wish")
    assert g.zones[YELLOW].discard == []
    assert names(g, g.zones[YELLOW].known_hand) == ["Guard", "Tower"]


# --- random play ------------------------------------------------------------------------------------

MY_SUPPLY = ("Astrology", "Destiny", "Refiner", "Sacrifice", "Sanctuary", "Scribes", "Stables", "Vigilance",
             "Versatility", "Compass", "Supply Tent", "Wish", "False Orders", "Far Sight", "Executive Action")


@pytest.mark.parametrize("chunk", range(2))
def test_random_play_with_card_manipulation_supply(chunk):
    """Random legal actions over seeded games: no exception, every card stays somewhere, a revealed
    Hand card is always in the Hand, and each effect's decisions are reached."""
    seen = Counter()
    for seed in range(chunk * 100, chunk * 100 + 100):
        rng = random.Random(seed)
        supply = tuple(rng.sample(MY_SUPPLY, 10))
        g = GameState(GameConfig(seed=seed, supply=supply, max_turns=60))
        total = all_cards_count(g)
        for _ in range(250):
            if g.is_terminal():
                break
            actions = g.legal_actions()
            if g.decision is not None and g.decision.frame is not None:
                seen[g.card_name(g.decision.frame.card)] += 1
            # Prefer playing cards: a random walk that mostly ends phases would test little.
            plays = [a for a in actions if not A.is_order(a) and A.decode(a)[0] == A.K_PLAY]
            g.apply(rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(actions))
            assert all_cards_count(g) == total
            for zones in g.zones:
                assert not Counter(zones.known_hand) - Counter(zones.hand)
                assert min(zones.deck) >= 0
    assert len(seen) >= 8, seen


CARD_POOL = MY_SUPPLY + ("Peon", "Guard", "Champion", "Clergy", "Tower", "Versatility", "Wish", "Destiny")
BOARDS = ("4k3/pp6/8/8/8/8/PP2P3/4K3[NBm] w", "4k3/8/8/8/8/8/8/4K3 w", "r3k3/8/8/8/8/8/3P4/3QK3[P] w stock:P1Q0N0")


def _same_state(a, b):
    return (a.board.key == b.board.key and a.trash == b.trash and a.supply == b.supply
            and a.gold == b.gold and a.history == b.history
            and all((x.deck, x.top, x.hand, x.discard, x.known_hand) == (y.deck, y.top, y.hand, y.discard, y.known_hand)
                    for x, y in zip(a.zones, b.zones)))


def test_random_play_from_stacked_hands():
    """Hands, Decks and Discards full of this family's cards, then random legal actions for a few
    turns: no exception, cards conserved, and a clone taken at an effect's question continues
    exactly like the original (f.data holds everything a step needs)."""
    seen = Counter()
    for seed in range(400):
        rng = random.Random(1000 + seed)
        hands = tuple([rng.choice(CARD_POOL) for _ in range(rng.randrange(2, 7))] for _ in range(2))
        decks = tuple([rng.choice(CARD_POOL) for _ in range(rng.randrange(0, 8))] for _ in range(2))
        discards = tuple([rng.choice(CARD_POOL) for _ in range(rng.randrange(0, 5))] for _ in range(2))
        g = scenario(rng.choice(BOARDS), hands=hands, decks=decks, discards=discards, supply=list(MY_SUPPLY[:10]),
                     phase=rng.choice(("order", "action")), orders=2, actions=3,
                     config=GameConfig(seed=seed, supply=MY_SUPPLY[:10], max_turns=8))
        total = all_cards_count(g)
        for _ in range(120):
            if g.is_terminal():
                break
            actions = g.legal_actions()
            action = rng.choice(actions)
            if g.decision.frame is not None:
                seen[g.card_name(g.decision.frame.card)] += 1
                if rng.random() < 0.3:
                    twin = g.clone()
                    twin.apply(action)
                    g.apply(action)
                    assert _same_state(g, twin)
                    continue
            g.apply(action)
            assert all_cards_count(g) == total
            for zones in g.zones:
                assert not Counter(zones.known_hand) - Counter(zones.hand)
    mine = {"Destiny", "Refiner", "Sacrifice", "Sanctuary", "Scribes", "Stables", "Vigilance", "Versatility",
            "Compass", "Supply Tent", "Wish", "False Orders", "Far Sight"}
    assert mine <= set(seen), mine - set(seen)


def test_card_choices_say_which_zone_the_card_comes_from():
    """A client draws a card choice where the card is (GameState.action_fields' "zone"): the Hand
    for Sacrifice's discard, the Supply for its gain, a name for Wish."""
    g = scenario(KINGS, hands=(["Sacrifice", "Tower", "Peon"], []), supply=["Sacrifice", "Wish"], phase="action")
    play(g, "Sacrifice", 0)
    assert {g.action_fields(a)["zone"] for a in g.legal_actions()} == {"hand"}
    assert g.action_fields(A.card(cid(g, "Tower"))) == {"type": "card", "card": "Tower", "zone": "hand"}
    pick(g, "Tower")
    assert {g.action_fields(a)["zone"] for a in g.legal_actions()} == {"supply"}
    g = scenario(KINGS, hands=(["Wish"], []), supply=["Wish"], phase="order")
    play(g, "Wish", 0)
    assert {g.action_fields(a)["zone"] for a in g.legal_actions()} == {"name"}
    g.apply(g.legal_actions()[0])
    assert all(g.action_fields(a).get("zone") is None for a in g.legal_actions())   # a phase's own decision
