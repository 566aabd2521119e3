"""Treasure effects (8.0, 13.0 Legend and Quartermaster, 17.0 Plunder and Land Lore)."""

from engine.crown import actions as A
from engine.crown.scenario import scenario
from tests.crown.support import KINGS, card_id, play


def test_13_0_legend_counts_earlier_treasures_only():
    # 13.0 example: Tower, Tower, Legend = 3 + 3 + 2 = 8 gold.
    g = scenario(KINGS, hands=(["Tower", "Tower", "Legend"], []), supply=["Legend"], phase="buy")
    play(g, "Tower", 0)
    play(g, "Tower", 0)
    play(g, "Legend", 0)
    assert g.gold == 8


def test_13_0_two_legends_second_counts_first():
    g = scenario(KINGS, hands=(["Legend", "Legend", "Clergy"], []), supply=["Legend"], phase="buy")
    play(g, "Legend", 0)   # no earlier treasure: 0
    play(g, "Legend", 0)   # counts the first Legend: 1
    play(g, "Clergy", 0)   # 2
    assert g.gold == 3


def test_13_0_legend_ignores_cards_played_for_other_effects():
    g = scenario(KINGS, hands=(["Legend", "Peon"], []), supply=["Legend"], phase="action")
    play(g, "Peon", 1)                       # trained a Pawn: not a treasure effect
    assert g.phase == "buy"                  # no action left: the Action phase ended by itself
    play(g, "Legend", 0)
    assert g.gold == 0


def test_13_0_quartermaster_discount_and_floor():
    # 13.0 example: Quartermaster + Clergy = 3 gold buys a 4-cost card (cost 3 after discount).
    g = scenario(KINGS, hands=(["Quartermaster", "Clergy"], []), supply=["Quartermaster", "Versatility"], phase="buy")
    play(g, "Quartermaster", 1)
    play(g, "Clergy", 0)
    assert (g.gold, g.buys) == (3, 2)
    assert g.cost(card_id(g, "Quartermaster")) == 3
    assert A.buy(card_id(g, "Quartermaster")) in g.legal_actions()
    # Champion costs 2 -> 1; Versatility 2 -> 1: two buys of total 2 gold after discount.
    g.apply(A.buy(card_id(g, "Versatility")))
    assert g.gold == 2
    g.apply(A.buy(card_id(g, "Champion")))   # the last buy: the turn ends (9.0)
    # Housekeeping reshuffled the Discard and drew it: Blue now owns the two bought cards.
    owned = sorted(g.zones[0].all_cards())
    assert owned == sorted(card_id(g, n) for n in ("Quartermaster", "Clergy", "Versatility", "Champion"))


def test_13_0_quartermaster_discounts_stack_but_never_below_zero():
    g = scenario(KINGS, hands=(["Quartermaster", "Quartermaster", "Quartermaster"], []),
                 supply=["Quartermaster"], phase="buy")
    for _ in range(3):
        play(g, "Quartermaster", 1)
    assert g.cost(card_id(g, "Champion")) == 0     # 2 - 3, floored at 0
    assert g.cost(card_id(g, "Tower")) == 3


def test_17_0_plunder_discards_then_earns():
    g = scenario(KINGS, hands=(["Plunder", "Guard"], []), supply=["Plunder"], phase="buy")
    play(g, "Plunder", 0)
    g.apply(A.card(card_id(g, "Guard")))
    assert (g.gold, g.buys) == (3, 2)
    assert g.zones[0].discard == [card_id(g, "Guard")]


def test_17_0_plunder_with_empty_hand_does_nothing():
    g = scenario(KINGS, hands=(["Plunder"], []), supply=["Plunder"], phase="buy")
    play(g, "Plunder", 0)
    assert (g.gold, g.buys) == (0, 1)


def test_17_0_land_lore_counts_ranks_with_more_foot_units():
    # Rank 2: Blue 2 Pawns vs 1 Yellow Pawn -> +1; rank 3: a Blue Monk vs a Yellow Striker -> tie, 0;
    # rank 7: Yellow only -> 0; rank 4: a Blue Immortal (Foot) -> +1. Knights do not count.
    board = "4k3/pp6/8/8/I7/M1t5/PP1p4/4K1N1 w"
    g = scenario(board, hands=(["Land Lore"], []), supply=["Land Lore"], phase="buy")
    play(g, "Land Lore", 1)
    assert g.gold == 2
