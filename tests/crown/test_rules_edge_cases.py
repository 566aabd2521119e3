"""Rules edge cases found by a rules audit (issue 9; RULINGS C15-C19): each test here failed on the
code before its fix."""

import random

import pytest

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.config import ConfigError, GameConfig
from engine.crown.scenario import scenario
from engine.crown.selfplay import card_total
from engine.crown.state import GameState
from engine.notation import BLUE, YELLOW
from tests.crown.support import KINGS, choose, cid, play, sq, texts, unit_at


def end_turn(g):
    """Decline everything left in the current turn (exactly one turn, also before an extra turn)."""
    turn = g.turn
    while not g.is_terminal() and g.turn == turn:
        g.apply(A.DONE)


def starts_with(g, square):
    return {t for t in texts(g) if t.startswith(square)}


# -- C16 / C20: Mourning bans the units of both sides, for exactly the next turn ---------------------
MOURNING_BOARD = "4k3/p7/2N1p3/3p4/8/8/8/3QK3 w"


def _mourning(extra_turns=(0, 0), blue_deck=("Peon",) * 10, blue_hand=("Mourning", "Peon"), orders=1):
    """Blue's Queen d1 takes the d5 Pawn by Mourning: Blue's c6 Knight and Yellow's e6 Pawn stood next
    to it, Yellow's a7 Pawn did not. Yellow holds False Orders and Wanderlust (both issue orders, C16)."""
    g = scenario(MOURNING_BOARD, hands=(list(blue_hand), ["False Orders", "Wanderlust", "Peon"]),
                 decks=(list(blue_deck), ["Peon"] * 10), supply=["Mourning", "False Orders", "Wanderlust"],
                 config=GameConfig(supply=("Mourning", "False Orders", "Wanderlust"), extra_turns=extra_turns),
                 orders=orders)
    play(g, "Mourning")
    choose(g, "d1d5")
    return g


def _false_orders_options(g):
    """The order texts the mover's False Orders offers (on a clone)."""
    probe = g.clone()
    play(probe, "False Orders")
    return texts(probe)


def _yellow_cannot_order_c6_or_e6(g):
    """On Yellow's turn neither False Orders nor Wanderlust may order Blue's c6 Knight, and Yellow
    may not order its own e6 Pawn (both stood next to the captured d5 Pawn)."""
    assert g.current == YELLOW and g.phase == "order"
    assert not starts_with(g, "e6")
    options = _false_orders_options(g)
    assert any(t.startswith("d5") for t in options)          # the Queen may be False-Ordered
    assert not any(t.startswith("c6") for t in options)
    probe = g.clone()
    play(probe, "Wanderlust")
    assert "Queen on d5" in texts(probe) and "Knight on c6" not in texts(probe)


def test_c16_mourning_bans_the_card_players_own_adjacent_units_for_the_opponents_turn():
    g = _mourning(blue_deck=("False Orders",) * 10)
    end_turn(g)
    _yellow_cannot_order_c6_or_e6(g)
    end_turn(g)
    # C20: the ban was Yellow's turn; in Blue's turn after it, both units are free again.
    assert g.current == BLUE and not tk.is_ordered(g, sq("c6")) and not tk.is_ordered(g, sq("e6"))
    assert starts_with(g, "c6")
    assert any(t.startswith("e6") for t in _false_orders_options(g))


def test_c20_mourning_ban_does_not_start_before_the_turn_after_the_capture():
    # The rest of the capture turn is not banned: Blue's False Orders may still order e6 in it.
    g = _mourning(blue_hand=("Mourning", "False Orders", "Peon"), orders=2)
    assert g.current == BLUE and not tk.is_ordered(g, sq("e6")) and not tk.is_ordered(g, sq("c6"))
    assert any(t.startswith("e6") for t in _false_orders_options(g))


def test_c20_mourning_ban_is_the_card_players_extra_turn_and_binds_both_sides():
    # Blue has an extra turn (11.4): the turn after the capture is Blue's own. In it Blue may order
    # neither its c6 Knight nor, by False Orders, Yellow's e6 Pawn; in Yellow's turn after it the
    # ban is over for both.
    g = _mourning(extra_turns=(1, 0), blue_deck=("False Orders",) * 10)
    end_turn(g)
    assert g.current == BLUE and g.phase == "order"                   # Blue's extra turn
    assert not starts_with(g, "c6")
    options = _false_orders_options(g)
    assert any(t.startswith("a7") for t in options)                   # False Orders works: a7 is free
    assert not any(t.startswith("e6") for t in options)
    end_turn(g)
    assert g.current == YELLOW
    assert starts_with(g, "e6")
    assert any(t.startswith("c6") for t in _false_orders_options(g))
    probe = g.clone()
    play(probe, "Wanderlust")
    assert "Knight on c6" in texts(probe)


# -- C21: extra turns (11.4) are a head start, taken before the normal alternation -------------------
def _movers(config, turns):
    """Who takes each of the first ``turns`` turns of a game (seeded random play, set-up included)."""
    g = GameState(config)
    rng = random.Random(0)
    movers = []
    while len(movers) < turns and not g.is_terminal():
        if g.phase != "setup" and sum(g.turns_taken) == len(movers):
            movers.append(g.current)
        actions = g.legal_actions()
        g.apply(A.DONE if A.DONE in actions else rng.choice(actions))
    return movers


B, Y = BLUE, YELLOW


@pytest.mark.parametrize("extra_turns, expected", [
    ((0, 0), [B, Y, B, Y, B]),
    ((0, 1), [Y, B, Y, B, Y]),          # RULINGS C21's own example
    ((0, 2), [Y, Y, B, Y, B]),
    ((1, 0), [B, B, Y, B, Y]),          # C21: Blue, Blue, Yellow
    ((2, 0), [B, B, B, Y, B]),
    ((1, 1), [Y, B, B, Y, B]),          # both head starts first, then Blue, Yellow, ...
])
def test_c21_extra_turns_come_before_the_normal_alternation(extra_turns, expected):
    # Expected sequences derived by hand from C21: the handicapped player's extra turns, then the
    # normal alternation from its usual first player (Blue, 3.0).
    assert _movers(GameConfig(supply="first-game", extra_turns=extra_turns), 5) == expected


@pytest.mark.parametrize("extra_turns, expected", [
    ((0, 0), [Y, B, Y, B]),
    ((1, 0), [B, Y, B, Y]),             # the Attacker's head start precedes the Defender's first turn
    ((0, 1), [Y, Y, B, Y]),
])
def test_c21_extra_turns_in_the_last_stand_where_the_defender_moves_first(extra_turns, expected):
    config = GameConfig(variant="last-stand", supply="first-game", extra_turns=extra_turns)
    assert _movers(config, 4) == expected


def test_c21_extra_turns_in_point_buy_from_a_yellow_to_move_start_position():
    start = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 b"
    config = GameConfig(variant="point-buy", start_position=start, extra_turns=(1, 0))
    assert _movers(config, 4) == [B, Y, B, Y]          # Blue's head start, then Yellow (to move) first


# -- C22: what The Last Stand (11.5) does with a card the Attacker trashes -----------------------------
LAST_STAND = "8/8/8/8/8/8/8/3k4 w"          # the Defender's King on d1; the Attacker has no units


def _last_stand(hand, supply, **counters):
    return scenario(LAST_STAND, hands=(hand, []), decks=(["Peon"] * 5, []), supply=supply,
                    config=GameConfig(variant="last-stand", supply=tuple(supply)), **counters)


def test_c22_last_stand_trashed_supply_card_goes_back_to_its_pile_and_can_be_bought_again():
    g = _last_stand(["Tower", "Peon"], ["Refiner"], phase="action", gold=6)
    tower = cid(g, "Tower")
    g.supply[tower] = 0                                   # the pile is empty: only the return refills it
    total = card_total(g)
    play(g, "Tower", 1)                                   # training (7.0, C9): the card is trashed
    assert g.board.barracks_count(BLUE, g.units["R"].id) == 1
    assert g.supply[tower] == 1 and g.trash == [] and g.set_aside == []
    assert card_total(g) == total
    while g.phase == "action":
        g.apply(A.DONE)
    assert "buy Tower (6 gold)" in texts(g)


@pytest.mark.parametrize("starter", ["Peon", "Guard", "Squire", "Parchment"])
def test_c22_last_stand_trashed_starting_card_is_set_aside_beside_the_supply(starter):
    g = _last_stand(["Refiner", starter], ["Refiner", "Versatility"], phase="action", gold=10)
    total = card_total(g)
    play(g, "Refiner", 1)                                 # trash any card of the Hand, then gain
    g.apply(A.card(cid(g, starter)))
    assert g.set_aside == [cid(g, starter)] and g.trash == []
    assert card_total(g) == total                         # still counted: beside the Supply
    assert g.observation(BLUE)["set_aside"] == [starter] == g.observation(YELLOW)["set_aside"]
    choose(g, "Versatility (2 gold)")                     # the gain: a starter counts as cost 0
    while g.phase == "action":
        g.apply(A.DONE)
    assert g.phase == "buy"
    assert "buy Champion (2 gold)" in texts(g)
    assert not any(t.startswith(f"buy {starter}") for t in texts(g))      # not buyable: it has no pile


def test_c22_standard_game_trashes_both_kinds_of_card():
    g = scenario(KINGS, hands=(["Refiner", "Peon"], []), supply=["Refiner"], phase="action")
    play(g, "Refiner", 1)
    g.apply(A.card(cid(g, "Peon")))
    assert g.trash == [cid(g, "Peon")] and g.set_aside == []


# -- C15: immunity ends at the start of the named player's next turn --------------------------------
def test_c15_armor_immunity_ends_when_the_owners_extra_turn_starts():
    g = scenario("4k3/8/8/8/1p6/8/8/R3K2r w", hands=(["Armor", "Peon"], []), decks=(["Peon"] * 10, ["Peon"] * 10),
                 supply=["Armor"], config=GameConfig(supply=("Armor",), extra_turns=(1, 0)))
    play(g, "Armor")
    choose(g, "a1a3")
    assert tk.is_immune(g, sq("a3"))
    end_turn(g)
    assert g.current == BLUE and not tk.is_immune(g, sq("a3"))         # Blue's next turn has started
    end_turn(g)
    assert g.current == YELLOW and "b4a3" in texts(g)                 # no longer protected


def test_c15_wish_immunity_ends_when_the_owners_extra_turn_starts():
    g = scenario("4k3/8/8/8/8/8/8/r3K3 w", hands=(["Wish", "Peon"], []), decks=(["Peon"] * 10, ["Peon"] * 10),
                 supply=["Wish"], config=GameConfig(supply=("Wish",), extra_turns=(1, 0)))
    play(g, "Wish", 1)
    choose(g, "make King on e1 immune")
    assert tk.is_immune(g, sq("e1"))
    end_turn(g)
    assert g.current == BLUE and not tk.is_immune(g, sq("e1"))
    assert g.card_order_ban[BLUE]                                     # no order cards this turn
    end_turn(g)
    assert g.current == YELLOW and "a1e1" in texts(g)


def test_c15_wilderness_immunity_lasts_through_the_card_players_extra_turn():
    g = scenario("4k3/8/8/3p4/3N4/8/8/3RK3 w", hands=(["Wilderness", "Peon"], []),
                 decks=(["Peon"] * 10, ["Peon"] * 10), supply=["Wilderness"],
                 config=GameConfig(supply=("Wilderness",), extra_turns=(1, 0)))
    play(g, "Wilderness")
    choose(g, "Knight on d4")
    choose(g, "swap with Pawn on d5")
    assert unit_at(g, "d4") == ("P", YELLOW) and tk.is_immune(g, sq("d4"))
    end_turn(g)
    assert g.current == BLUE and tk.is_immune(g, sq("d4"))              # until Yellow's turn, not Blue's
    assert "d1d4" not in texts(g) and "d1d3" in texts(g)
    end_turn(g)
    assert g.current == YELLOW and not tk.is_immune(g, sq("d4"))


# -- C17: Refiner and Destiny may morph a unit an order sent to the Barracks -------------------------
@pytest.mark.parametrize("card", ["Refiner", "Destiny"])
def test_c17_morph_may_choose_a_unit_supply_tent_sent_to_the_barracks(card):
    g = scenario("4k3/8/8/8/8/8/8/N3K3[B] w", hands=(["Supply Tent", card, "Tower", "Peon"], []),
                 decks=(["Peon"] * 10, []), supply=["Supply Tent", card])
    play(g, "Supply Tent")
    choose(g, "send Knight on a1 to the Barracks")
    choose(g, "Bishop")
    assert g.phase == "action"                         # no order left
    play(g, card)
    choose(g, "Tower")
    choose(g, "Knight in your Barracks")
    assert g.board.barracks_count(BLUE, g.units["N"].id) == 0
    assert g.board.barracks_count(BLUE, g.units["R"].id) == 1
    assert g.cards["Tower"].id in g.trash
    # The morphed unit is still the one the order sent there: it is not deployed again this turn.
    assert "R@b1" not in {t for t in texts(g)} and "Rook" not in {t for t in texts(g)}
    assert tk.barracks_types(g, BLUE) == []


# -- C18: optional starters combine -----------------------------------------------------------------
def test_c18_squire_and_parchment_in_one_starting_deck():
    g = GameState(GameConfig(starters=("squire+parchment", "parchment+squire"), supply="first-game"))
    for player in (BLUE, YELLOW):
        names = sorted(g.card_name(c) for c in g.zones[player].all_cards())
        assert names == sorted(["Peon"] * 5 + ["Parchment"] + ["Guard"] * 3 + ["Squire"])
    g = GameState(GameConfig(starters=("squire+parchment", "standard"), supply="first-game"))
    assert sorted(g.card_name(c) for c in g.zones[YELLOW].all_cards()) == sorted(["Peon"] * 6 + ["Guard"] * 4)
    for bad in ("squire+squire", "squire+", "gold", "standard+squire"):
        with pytest.raises(ConfigError, match="starters"):
            GameConfig(starters=(bad, "standard"))


# -- C19: Point-Buy picking goes on while something affordable can be placed ------------------------
def test_c19_no_stop_after_the_king_alone():
    g = GameState(GameConfig(variant="point-buy"))
    g.apply_text("pick King (7 points, 38 left)")
    g.apply_text("place King on e1")
    assert g.current == YELLOW
    g.apply_text("pick King (7 points, 38 left)")
    g.apply_text("place King on e8")
    assert g.current == BLUE
    options = texts(g)
    assert "stop picking" not in options and "pick Queen (9 points, 31 left)" in options


def test_c19_picking_ends_by_itself_when_the_budget_buys_nothing_more():
    for seed in range(6):
        config = GameConfig(variant="point-buy", budgets=(12, 20), seed=seed, secret_picks=seed % 2 == 1)
        g = GameState(config)
        rng = random.Random(seed)
        while g.phase == "setup":
            options = g.legal_action_texts()
            assert "stop picking" not in options.values()
            g.apply(rng.choice(list(options)))
        assert g.phase == "order" and g.current == BLUE
        cheapest = min(u.price for u in g.units.base_types)
        for player in (BLUE, YELLOW):
            spent = sum(g.units.units[t].price for _, t, c in g.board.state()["units"] if c == player)
            spent += sum(g.units.units[t].price * n for t, n in enumerate(g.board.state()["barracks"][player]))
            spent -= 8 * g.units["P"].price                             # the free Pawns
            left = config.budgets[player] - spent
            assert 0 <= left < cheapest or not any(
                u.price <= left and g.board.stock_count(u.id) > 0 for u in g.units.base_types)
