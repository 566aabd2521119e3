"""Set-up (3.0), the turn (4.0-9.0), winning (10.0, C2), draws (C3) and the decision API."""

import random
from collections import Counter

import pytest

from engine.crown import actions as A
from engine.crown.config import FIRST_GAME_SUPPLY, ConfigError, GameConfig
from engine.crown.record import fingerprint
from engine.crown.scenario import scenario
from engine.crown.state import CHANCE, GameState, IllegalActionError
from tests.crown.support import KINGS


def names(g, cards):
    return Counter(g.card_name(c) for c in cards)


def test_3_0_standard_set_up():
    g = GameState(GameConfig(seed=4, supply="first-game"))
    for zones in g.zones:
        assert names(g, zones.all_cards()) == {"Peon": 6, "Guard": 4}
        assert len(zones.hand) == 5 and zones.deck_size() == 5
    assert g.board.unit_on(4) == (g.units["K"].id, 0) and g.board.unit_on(60) == (g.units["K"].id, 1)
    supply = {g.card_name(c): g.supply[c] for c in g.supply_ids}
    assert set(supply) == {"Champion", "Clergy", "Tower", "Consort", *FIRST_GAME_SUPPLY}
    assert supply["Tower"] == 6 and supply["Armor"] == 4          # PROVISIONAL pile sizes (RULINGS D)
    assert g.current_player() == 0 and g.phase == "order"


def test_3_0_random_supply_is_seeded():
    a = GameState(GameConfig(seed=1)).supply_ids
    assert a == GameState(GameConfig(seed=1)).supply_ids
    assert any(GameState(GameConfig(seed=s)).supply_ids != a for s in range(2, 6))
    assert len(a) == 14


def test_11_3_enlarged_supply_and_base_only():
    g = GameState(GameConfig(seed=2, variable_piles=13, expansion=False))
    assert len(g.supply_ids) == 17
    assert not any(g.cards.cards[c].expansion for c in g.supply_ids)


def test_11_1_alternative_starters_and_11_2_sovereigns():
    g = GameState(GameConfig(starters=("squire", "parchment"), sovereigns=("U", "~K")))
    assert names(g, g.zones[0].all_cards()) == {"Peon": 6, "Guard": 3, "Squire": 1}
    assert names(g, g.zones[1].all_cards()) == {"Peon": 5, "Guard": 4, "Parchment": 1}
    assert g.board.unit_on(4)[0] == g.units["U"].id and g.board.unit_on(60)[0] == g.units["~K"].id


def test_11_4_handicap_units_and_extra_turns():
    g = GameState(GameConfig(extra_units=(["N@b1", "Q"], []), extra_turns=(0, 1), supply="first-game"))
    assert g.board.unit_on(1) == (g.units["N"].id, 0)
    assert g.board.barracks_count(0, g.units["Q"].id) == 1
    rng = random.Random(0)
    turns = []
    while g.turn < 4:
        if g.turns_taken[0] + g.turns_taken[1] == len(turns):
            turns.append(g.current)
        g.apply(A.DONE if A.DONE in g.legal_actions() else rng.choice(g.legal_actions()))
    assert turns[:4] == [1, 0, 1, 0]     # Yellow's extra turn is a head start (C21)


def test_config_errors_name_the_option():
    with pytest.raises(ConfigError, match="option 'variant'"):
        GameConfig(variant="blitz")
    with pytest.raises(ConfigError, match=r"option 'supply'\[0\]: unknown card 'Dragon'"):
        GameState(GameConfig(supply=("Dragon",)))
    with pytest.raises(ConfigError, match="Tower is not a variable"):
        GameState(GameConfig(supply=("Tower",)))
    with pytest.raises(ConfigError, match="unknown option 'colour'"):
        GameConfig.from_dict({"colour": "blue"})


def test_6_0_promotion_types_are_what_the_supply_trains():
    g = GameState(GameConfig(supply="first-game"))
    allowed = {g.units.units[t].token for t in range(len(g.units)) if g.board.state()["promote_types"] >> t & 1}
    # Core: Knight, Bishop, Rook, Queen; first-game cards train Charger, Chancellor, Acolyte, King
    # (Heir), Hero, Dragoon, Phantom (Refiner has no training), Striker.
    assert allowed == {"N", "B", "R", "Q", "L", "C", "A", "K", "H", "D", "T"}


def test_6_0_one_order_per_unit_per_turn():
    g = scenario("4k3/8/8/8/8/8/4P3/4K3 w", supply=[], orders=2)
    g.apply_text("e2e3")
    texts = set(g.legal_action_texts().values())
    assert "e3e4" not in texts and "e1d1" in texts        # the Pawn was ordered, the King was not


def test_7_0_training_trashes_the_card_and_fills_the_barracks():
    g = scenario(KINGS, hands=(["Champion"], []), supply=[], phase="action")
    g.apply(A.play(g.cards["Champion"].id, 1))
    assert g.board.barracks_count(0, g.units["N"].id) == 1
    assert g.trash == [g.cards["Champion"].id]


def test_c9_training_with_an_empty_stock_still_trashes():
    g = scenario(KINGS + " - - 0 1 stock:-", hands=(["Champion"], []), supply=[], phase="action")
    g.apply(A.play(g.cards["Champion"].id, 1))
    assert g.board.barracks_count(0, g.units["N"].id) == 0
    assert g.trash == [g.cards["Champion"].id]


def test_8_0_buying_and_the_end_of_treasures():
    g = scenario(KINGS, hands=(["Tower", "Peon", "Peon"], []), supply=[], phase="buy")
    g.apply(A.play(g.cards["Tower"].id, 0))
    assert A.buy(g.cards["Tower"].id) not in g.legal_actions()        # 3 gold < 6
    g.apply(A.play(g.cards["Peon"].id, 0))
    g.apply(A.play(g.cards["Peon"].id, 0))
    assert g.gold == 5
    g.buys = 2
    g.apply(A.buy(g.cards["Clergy"].id))
    # After a buy no more treasures may be played (8.0: play treasures, then buy).
    assert not any(A.decode(a)[0] == A.K_PLAY for a in g.legal_actions() if not A.is_order(a))
    assert A.buy(g.cards["Clergy"].id) not in g.legal_actions()       # 2 gold left < 3


def test_8_0_an_empty_pile_cannot_be_bought():
    g = scenario(KINGS, hands=(["Tower", "Tower"], []), supply=[], phase="buy")
    g.supply[g.cards["Champion"].id] = 0
    g.apply(A.play(g.cards["Tower"].id, 0))
    assert A.buy(g.cards["Champion"].id) not in g.legal_actions()


def test_9_0_housekeeping_discards_and_draws_five_reshuffling():
    g = scenario(KINGS, hands=(["Peon", "Guard"], []), decks=(["Tower", "Tower"], []),
                 discards=(["Clergy", "Clergy", "Clergy"], []), supply=[], phase="buy")
    g.apply(A.DONE)
    zones = g.zones[0]
    # Two Towers drawn from the Deck, then the Discard (3 Clergy + Peon + Guard) is reshuffled and
    # three more are drawn (5.0); two remain in the new Deck.
    assert len(zones.hand) == 5 and zones.deck_size() == 2 and zones.discard == []
    assert names(g, zones.hand)["Tower"] == 2
    assert g.current == 1


def test_10_0_capturing_the_last_sovereign_wins_at_the_end_of_the_turn():
    g = scenario("8/8/8/8/8/8/3k4/R3K3 w", supply=[], orders=2)   # the Rook keeps the turn open
    g.apply_text("e1d2")
    assert not g.is_terminal() and g.current_player() == 0   # checked at the end of the turn only
    g.apply(A.DONE)                       # end the order phase; nothing else to do this turn
    assert g.is_terminal() and g.winner == 0 and g.returns() == [1.0, -1.0]


def test_c2_with_no_sovereign_on_either_side_the_mover_wins():
    # Blue's Oracle... simpler: Yellow's King was already gone and Blue's was captured by False
    # Orders in Blue's own turn; model it directly: no Sovereign on either side at Blue's turn end.
    g = scenario("8/8/8/8/8/8/8/4N3 w", supply=[])
    while not g.is_terminal():
        g.apply(A.DONE)
    assert g.winner == 0 and "no Sovereign" in g.over_reason


def test_c3_no_progress_and_turn_limit_draws():
    g = GameState(GameConfig(supply="first-game", no_progress_turns=3))
    while not g.is_terminal():
        g.apply(A.DONE)
    assert g.winner is None and "without capture" in g.over_reason and g.returns() == [0.0, 0.0]
    g = GameState(GameConfig(supply="first-game", max_turns=5))
    rng = random.Random(1)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
    assert g.turn <= 5


def test_c3_threefold_repetition():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", supply=[])
    moves = ["e1d1", "e8d8", "d1e1", "d8e8"] * 3
    for text in moves:
        if g.is_terminal():
            break
        g.apply_text(text)
        while not g.is_terminal() and g.phase != "order":
            g.apply(A.DONE)
    assert g.is_terminal() and "three times" in g.over_reason


def test_illegal_action_leaves_the_state_unchanged():
    g = GameState(GameConfig(seed=3))
    before = fingerprint(g)
    with pytest.raises(IllegalActionError, match="not legal now"):
        g.apply(A.buy(0))
    with pytest.raises(IllegalActionError):
        g.apply_text("e1e3")
    assert fingerprint(g) == before


def test_every_action_has_a_text_and_clones_are_independent():
    g = GameState(GameConfig(seed=8))
    texts = g.legal_action_texts()
    assert texts and all(isinstance(t, str) and t for t in texts.values())
    clone = g.clone()
    clone.apply(A.DONE)
    assert fingerprint(g) != fingerprint(clone)
    assert g.legal_action_texts() == texts


def test_explicit_chance_nodes():
    g = GameState(GameConfig(seed=2, supply="first-game"), auto_chance=False)
    assert g.is_chance_node() and g.current_player() == CHANCE
    outcomes = dict(g.chance_outcomes())
    assert outcomes == {g.cards["Peon"].id: 0.6, g.cards["Guard"].id: 0.4}
    with pytest.raises(IllegalActionError):
        g.apply(g.cards["Tower"].id)
    while g.is_chance_node():
        g.apply(g.cards["Peon"].id if g.zones[g.chance[0]].deck[g.cards["Peon"].id] else g.cards["Guard"].id)
    assert g.current_player() == 0


def test_point_buy_picking_and_mandatory_orders():
    g = GameState(GameConfig(variant="point-buy", budgets=(10, 10)))
    texts = g.legal_action_texts()
    # Budget 10 with no Sovereign yet: only units that leave room for one (cheapest: King 7,
    # Anointed 6) or Sovereigns themselves.
    assert "pick King (7 points, 10 left)" in texts.values()
    assert "pick Queen (9 points, 10 left)" not in texts.values()
    assert "pick Pawn (1 point, 10 left)" in texts.values()                # singular for one point
    assert not [t for t in texts.values() if "1 points" in t]
    assert "stop picking" not in texts.values()
    g.apply_text("pick King (7 points, 10 left)")
    assert "put King in the Barracks" not in g.legal_action_texts().values()   # must be on rank 1
    g.apply_text("place King on e1")
    assert g.current == 1
    rng = random.Random(5)
    while g.phase == "setup":
        g.apply(rng.choice(g.legal_actions()))
    assert A.DONE not in g.legal_actions()    # an order is required every turn
    assert g.board.sovereign_present(0) and g.board.sovereign_present(1)


def test_point_buy_from_a_start_position():
    g = GameState(GameConfig(variant="point-buy", start_position="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"))
    assert len(g.legal_actions()) == 20


def test_11_5_last_stand():
    g = GameState(GameConfig(variant="last-stand", seed=3, supply="first-game"))
    assert g.current == 1 and g.phase == "setup"
    assert g.board.barracks_count(1, g.units["P"].id) == 10
    texts = g.legal_action_texts()
    assert not any("Immortal" in t for t in texts.values())
    assert "stop training" not in texts.values()              # a Sovereign first
    g.apply_text("train King (Heir, 5 gold; 40 left)")
    g.apply_text("stop training")
    g.apply_text("place a King on the first rank")
    g.apply_text("place King on d8")
    assert g.current == 1 and g.phase == "order"              # the Defender moves first
    texts = set(g.legal_action_texts().values())
    assert {"evacuate d8", "P@a7", "P@a8", "d8d7"} <= texts
    assert not g.board.sovereign_present(0)                    # the Attacker has no Sovereign


def test_11_5_defender_never_enters_rank_1_and_attacker_first_rank_is_safe():
    from engine.crown.config import GameConfig as C

    g = scenario("4k3/8/8/8/8/8/2r5/R7 b", supply=[], config=C(variant="last-stand"))
    texts = set(g.legal_action_texts().values())
    assert "c2c1" not in texts and "c2a2" in texts
    assert "c2a1" not in texts               # not a Rook move anyway; the guard: a1 Rook is safe
    g2 = scenario("4k3/8/8/8/8/8/8/R1r5 b", supply=[], config=C(variant="last-stand"))
    assert "c1a1" not in set(g2.legal_action_texts().values())


def test_point_buy_keeps_a_first_rank_square_for_the_sovereign():
    g = GameState(GameConfig(variant="point-buy", budgets=(60, 60)))
    king = g.units["K"].id

    def pick(prefix, avoid=None):
        for action, text in g.legal_action_texts().items():
            if text.startswith(prefix) and (avoid is None or A.decode(action)[1] != avoid):
                g.apply(action)
                return True
        return False

    while True:
        if g.current == 1:                      # Yellow: a King on e8, then into the Barracks (C19)
            if g.board.unit_on(60) is None:
                pick("pick King")
                pick("place King on e8")
            else:
                pick("pick")
                pick("put")
            continue
        free = [sq for sq in range(8) if g.board.unit_on(sq) is None]
        assert pick("pick", avoid=king)
        if len(free) == 1:
            # Blue has no Sovereign yet and one free first-rank square: the pick must wait in
            # the Barracks, the square is kept for the Sovereign.
            texts = list(g.legal_action_texts().values())
            assert texts and all("Barracks" in t for t in texts)
            break
        g.apply(A.square(free[0]))


def test_point_buy_multiple_games_budget_rule():
    from engine.crown.setup import next_budgets

    assert next_budgets((38, 38), winner=0) == (38, 39)
    assert next_budgets((38, 40), winner=1, subtract_from_winner=True) == (38, 39)
    assert next_budgets((38, 38), winner=None) == (38, 38)


def test_point_buy_secret_picks_behind_a_screen():
    config = GameConfig(variant="point-buy", secret_picks=True, budgets=(20, 20), seed=3)
    g = GameState(config)
    share = g.setup_state["share"]
    stock = [g.board.stock_count(t) for t in range(len(g.units))]
    assert [b + y for b, y in zip(*share)] == stock and all(abs(b - y) <= 1 for b, y in zip(*share))

    def pick_army(state, picks):
        player = state.current
        for text in picks:
            state.apply_text(text)
        while state.phase == "setup" and state.current == player:     # C19: spend what is left
            options = state.legal_action_texts()
            state.apply(next(a for a, t in options.items() if t.startswith(("pick", "put"))))

    blue_a = ["pick King (7 points, 20 left)", "place King on e1", "pick Queen (9 points, 13 left)",
              "place Queen on d1"]
    blue_b = ["pick King (7 points, 20 left)", "place King on c1", "pick Rook (5 points, 13 left)",
              "put Rook in the Barracks"]
    a, b = GameState(config), GameState(config)
    pick_army(a, blue_a)
    pick_army(b, blue_b)
    assert a.current == 1 and b.current == 1                  # Blue picked its whole army first
    # Yellow sees neither army: its observations of the two games are identical.
    assert a.observation(1) == b.observation(1)
    assert "Q" not in a.observation(1)["board"].split()[0]
    # Resampling for Yellow draws some legal Blue army; Yellow's view does not change.
    armies = set()
    for seed in range(8):
        sample = a.resample_hidden(1, random.Random(seed))
        assert sample.observation(1) == a.observation(1)
        assert sample.board.sovereign_present(0)
        armies.add(tuple(sorted(sample.board.state()["units"])))
    assert len(armies) > 1
    # When both are done the screen comes off.
    pick_army(a, ["pick King (7 points, 20 left)", "place King on e8"])
    assert a.phase == "order" and "Q" in a.observation(1)["board"].split()[0]


@pytest.mark.parametrize("variant, starters, names", [
    ("standard", ("standard", "standard"), ["Peon", "Guard"]),
    ("standard", ("squire", "parchment"), ["Peon", "Guard", "Squire", "Parchment"]),
    ("last-stand", ("squire", "standard"), ["Peon", "Guard", "Squire"]),
    ("point-buy", ("standard", "standard"), []),
])
def test_starter_cards_are_those_of_the_starting_decks_the_variant_deals(variant, starters, names):
    """variant.decks (who gets a starting Deck) agrees with the set-up; starter_cards names the
    starter cards in play (the web board's card reference lists them)."""
    from engine.crown.setup import starter_cards

    g = GameState(GameConfig(variant=variant, starters=starters))
    assert tuple(p for p in (0, 1) if g.zones[p].all_cards()) == g.variant.decks
    assert starter_cards(g) == names
