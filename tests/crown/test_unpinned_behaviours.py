"""Behaviours no test pinned down: each test here catches a small planted bug that the rest of the
suite let through (issue 9)."""

import random

import pytest

from engine.codes import ST_BANNED, ST_IMMUNE_BLUE
from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.config import GameConfig
from engine.crown.record import fingerprint
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.notation import BLUE, YELLOW, parse_order_text
from engine.position import Position
from tests.crown.support import card_id, choose, play, sq, texts, unit_at


def end_turn(g):
    """Decline everything left in the current turn (exactly one turn)."""
    turn = g.turn
    while not g.is_terminal() and g.turn == turn:
        g.apply(A.DONE)


def test_evangelism_places_a_pious_unit_an_order_sent_to_the_barracks():
    g = scenario("4k3/8/8/8/8/8/8/2B1KB2[N] w", hands=(["Supply Tent", "Evangelism", "Peon"], []),
                 decks=(["Peon"] * 10, []), supply=["Supply Tent", "Evangelism"])
    play(g, "Supply Tent")
    choose(g, "send Bishop on f1 to the Barracks")
    choose(g, "Knight")
    assert g.phase == "action"
    play(g, "Evangelism")
    choose(g, "Bishop")                 # actions may use it (only deploying it again is barred)
    choose(g, "deploy B@d2")
    assert unit_at(g, "d2") == ("B", BLUE)


def test_c3_no_progress_draw_happens_at_exactly_the_configured_turn():
    g = GameState(GameConfig(supply="first-game", no_progress_turns=3))
    while not g.is_terminal():
        g.apply(A.DONE)
    assert "without capture" in g.over_reason and g.turn == 3


def test_barracks_lock_of_an_ordered_unit_ends_with_the_turn():
    g = scenario("4k3/8/8/8/8/8/8/N3K3[B] w", hands=(["Supply Tent", "Peon"], []),
                 decks=(["Peon"] * 10, ["Peon"] * 10), supply=["Supply Tent"])
    play(g, "Supply Tent")
    choose(g, "send Knight on a1 to the Barracks")
    choose(g, "Bishop")
    assert "N@b1" not in texts(g)
    end_turn(g)
    end_turn(g)
    assert g.current == BLUE and "N@b1" in texts(g)       # it deploys on the next turn


def test_fingerprint_covers_every_part_of_the_state():
    g = scenario("4k3/8/8/8/8/8/8/4K3[N] w", hands=(["Peon", "Armor"], ["Peon"]), decks=(["Peon"], ["Guard"]),
                 deck_tops=(["Guard"], ["Peon"]), discards=(["Peon"], []), supply=["Armor"])
    base = fingerprint(g)
    n = len(g.cards)
    changes = {
        "board status": lambda c: c.board.set_status(sq("e1"), ST_BANNED, True),
        "deck": lambda c: c.zones[YELLOW].deck.__setitem__(0, c.zones[YELLOW].deck[0] + 1),
        "deck top": lambda c: c.zones[BLUE].top.__setitem__(0, (c.zones[BLUE].top[0][0], True)),
        "deck top card": lambda c: c.zones[YELLOW].top.append((card_id(c, "Guard"), False)),
        "hand": lambda c: c.zones[YELLOW].hand.append(card_id(c, "Guard")),
        "discard": lambda c: c.zones[YELLOW].discard.append(card_id(c, "Guard")),
        "played": lambda c: c.zones[BLUE].played.append(card_id(c, "Peon")),
        "known hand": lambda c: c.zones[BLUE].known_hand.append(card_id(c, "Peon")),
        "supply": lambda c: c.supply.__setitem__(card_id(c, "Armor"), 0),
        "trash": lambda c: c.trash.append(card_id(c, "Peon")),
        "current": lambda c: setattr(c, "current", YELLOW),
        "turn": lambda c: setattr(c, "turn", c.turn + 1),
        "phase": lambda c: setattr(c, "phase", "buy"),
        "orders": lambda c: setattr(c, "orders", c.orders + 1),
        "actions": lambda c: setattr(c, "actions", c.actions + 1),
        "buys": lambda c: setattr(c, "buys", c.buys + 1),
        "gold": lambda c: setattr(c, "gold", c.gold + 1),
        "discount": lambda c: setattr(c, "discount", 1),
        "treasures played": lambda c: setattr(c, "treasures_played", 1),
        "bought": lambda c: setattr(c, "bought", True),
        "card order ban": lambda c: c.card_order_ban.__setitem__(YELLOW, True),
        "card order ban next": lambda c: c.card_order_ban_next.__setitem__(BLUE, True),
        "barracks ordered": lambda c: c.barracks_ordered[BLUE].__setitem__(c.units["N"].id, 1),
        "over": lambda c: setattr(c, "over_reason", "draw"),
        "winner": lambda c: setattr(c, "winner", BLUE),
        "decision": lambda c: setattr(c.decision, "actions", [a for a in c.decision.actions if a != A.DONE]),
        "chance": lambda c: setattr(c, "chance", (BLUE, "draw")),
    }
    assert n and len(changes) == 27
    for name, change in changes.items():
        other = g.clone()
        change(other)
        assert fingerprint(other) != base, f"the fingerprint misses {name}"


def test_expansion_promotion_in_order_text():
    parts = parse_order_text("e7e8~b")
    assert parts.origin == sq("e7") and parts.dest == sq("e8") and parts.promotion == "~B"
    pos = Position.from_text("2k5/4P3/8/8/8/8/8/4K3 w - - 0 1", promote="Q~B")
    order = pos.parse_order("e7e8~b")
    assert order.promotion == "~B" and order.text() == "e7e8~b"
    assert {o.text() for o in pos.legal_orders() if o.origin == sq("e7")} == {"e7e8q", "e7e8~b"}
    pos.push(order)
    assert pos.to_text().startswith("2k1~B3/")


def test_threat_check_and_immune_units():
    """C7 with C6: an immune unit still threatens (immunity protects, it does not disarm), and a
    unit that is immune itself stands on no threatened square."""
    g = scenario("4k3/8/8/8/8/8/8/r3K3 w", supply=[])
    assert tk.is_threatened(g, sq("e2"), BLUE, sq("e1")) is False
    assert tk.is_threatened(g, sq("d1"), BLUE, sq("e1")) is True
    g.board.set_status(sq("a1"), 3, True)                       # the Rook is immune (until Yellow's turn)
    assert tk.is_threatened(g, sq("d1"), BLUE, sq("e1")) is True
    g.board.set_status(sq("e1"), ST_IMMUNE_BLUE, True)          # the King is immune (Wish, Armor)
    assert tk.is_threatened(g, sq("d1"), BLUE, sq("e1")) is False


@pytest.mark.parametrize("card, draws", [("Scribes", 3), ("Vigilance", 1), ("Stables", 2)])
def test_a_card_put_back_on_the_deck_is_hidden_from_the_opponent(card, draws):
    index = 1 if card == "Stables" else 0
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=([card, "Patronage", "Peon"], ["Peon"]),
                 decks=(["Guard"] * 6, ["Peon"] * 6), supply=[card], phase="action")
    play(g, card, index)
    choose(g, "Patronage")
    assert g.zones[BLUE].top and g.zones[BLUE].top[-1][0] == card_id(g, "Patronage")
    mine, theirs = g.observation(BLUE), g.observation(YELLOW)
    assert mine["you"]["deck_top"] == ["Patronage"]
    assert theirs["opponent"]["deck_top"] == [None]
    assert "Patronage" not in str(theirs)
    rng = random.Random(1)
    for _ in range(5):
        assert g.resample_hidden(YELLOW, rng).observation(YELLOW) == theirs
