"""The King's Ransom game as decisions: set-up (G3), the turn (G4), promotion (G5), legality with
hidden cards (G6), the end (G7), hidden information and records."""

from __future__ import annotations

import random

import pytest

from engine import codes
from engine.notation import parse_square
from engine.ransom import actions as RA
from engine.ransom.core import FLIP, PLAY
from engine.ransom.position import STALEMATE, RansomPosition
from engine.ransom.rules import BLUE, RED, default_rules
from engine.ransom.selfplay import check_invariants, play_one
from engine.ransom.state import CHANCE, TERMINAL, IllegalRansomAction, RansomError, RansomState, replay
from tests.ransom.test_reference_ransom import G9_STALEMATES

RULES = default_rules()


def state_at(text: str, seed: int = 1, auto_chance: bool = True) -> RansomState:
    return RansomState(seed, position=RansomPosition.parse(text), auto_chance=auto_chance)


def texts(g: RansomState) -> set[str]:
    return set(g.legal_action_texts().values())


def sq(name: str) -> int:
    return parse_square(name)


# -- set-up (G3) ----------------------------------------------------------------------------------
def test_set_up_deals_face_down_cards_around_the_king_and_three_to_each_hand():
    g = RansomState(seed=11)
    pos = g.pos
    assert pos.core.unit_on(sq("b1")) == (RULES.king_type, RED)
    assert pos.core.unit_on(sq("b6")) == (RULES.king_type, BLUE)
    for red, blue in (("a1", "a6"), ("c1", "c6"), ("b2", "b5"), ("b3", "b4")):
        assert pos.card_on(sq(red))[1:] == (RED, True)
        assert pos.card_on(sq(blue))[1:] == (BLUE, True)
    for side in (RED, BLUE):
        assert sum(pos.hands[side]) == 3
        assert pos.deck_size(side) == 24 - 1 - 4 - 3
        assert pos.card_counts(side) == list(RULES.deck)
    assert g.current_player() == RED and g.phase == "flip"


def test_set_up_is_explicit_chance_when_asked():
    g = RansomState(seed=2, auto_chance=False)
    assert g.current_player() == CHANCE and g.is_chance_node()
    outcomes = dict(g.chance_outcomes())
    # The Deck without its King: 23 cards, 12 of them Pawns (G2).
    assert outcomes[RULES.pawn_type] == pytest.approx(12 / 23)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    deals = 0
    while g.is_chance_node():
        g.apply(g.chance_outcomes()[0][0])
        deals += 1
    assert deals == 2 * (4 + 3)
    with pytest.raises(IllegalRansomAction):
        RansomState(seed=2, auto_chance=False).apply(99)


# -- the turn (G4) --------------------------------------------------------------------------------
def test_a_turn_is_flip_move_play_then_draw():
    g = RansomState(seed=5)
    pos = g.pos
    hand_before = sum(pos.hands[RED])
    g.apply(g.legal_actions()[0])                       # flip
    assert g.phase == "move"
    g.apply(g.legal_actions()[0])                       # move
    assert g.phase in ("play", "promote")
    assert all(RA.decode(a)[0] in ("play", "discard") for a in g.legal_actions())
    g.apply(g.legal_actions()[0])                       # play
    assert sum(pos.hands[RED]) == hand_before           # played one, drew one
    assert g.current_player() == BLUE and g.phase == "flip"


def test_face_down_cards_never_move_and_the_flipped_card_may():
    # Red: K a1, face-down Rook c1 and Knight b2; Blue k c6.
    g = state_at("2k/3/3/3/1N*1/K1R* r -/- -/- -/- 0 1")
    assert texts(g) == {"flip b2", "flip c1"}
    g.apply_text("flip c1")
    moves = texts(g)
    assert "move c1c6" in moves                         # the newly flipped Rook takes the King at once
    assert not any(t.startswith("move b2") for t in moves)   # still face down: never moves
    g.apply_text("move c1c6")
    assert g.is_terminal() and g.winner == RED and "captures the King" in g.over_reason
    assert g.returns() == [1.0, -1.0] and g.current_player() == TERMINAL


def test_face_down_enemy_cards_give_no_check_but_face_up_ones_do():
    # A face-down Blue Rook on a4 faces the Red King on a1: no check, the King may go to a2.
    hidden = state_at("2k/3/r*2/3/3/K2 r -/- -/- -/- 0 1")
    assert hidden.check is None and hidden.observation(RED)["check"] is None
    assert "move a1a2" in texts(hidden)
    shown = state_at("2k/3/r2/3/3/K2 r -/- -/- -/- 0 1")
    assert shown.check == RED
    assert texts(shown) == {"move a1b1", "move a1b2"}   # off the a-file, never into it


def checks(g: RansomState) -> list:
    """The ``check`` field of both players' observations."""
    return [g.observation(RED)["check"], g.observation(BLUE)["check"]]


def test_g9_check_is_announced_when_the_move_step_ends():
    # Red R a2-c2 threatens Blue's k c6 up the c-file: both players are told at once, in the Play
    # step, and the log says so; it lasts into Blue's turn until Blue's Move step ends.
    g = state_at("2k/3/3/3/R2/K2 r NQ/- -/- -/- 0 1")
    assert checks(g) == [None, None]
    g.apply_text("move a2c2")
    assert g.phase == "play" and g.check == BLUE and checks(g) == [BLUE, BLUE]
    assert g.log[-1] == (RED, "check: Blue's King is threatened")
    g.apply_text("play N@b1")
    assert g.current_player() == BLUE and checks(g) == [BLUE, BLUE]
    g.apply_text("move c6b6")
    assert checks(g) == [None, None]


def test_g9_check_blocked_by_the_play_step_is_still_announced():
    # The same check, then Red plays a card face down on c3, between the Rook and the King: the
    # announcement was made when the move ended; at Blue's turn the King is no longer threatened
    # (face-down cards block rides and give no check, G6), so the check is withdrawn.
    g = state_at("2k/3/3/3/R2/K2 r NQ/- -/- -/- 0 1")
    g.apply_text("move a2c2")
    assert checks(g) == [BLUE, BLUE]
    g.apply_text("play N@c3")
    assert g.current_player() == BLUE and checks(g) == [None, None]
    assert (RED, "check: Blue's King is threatened") in [tuple(e) for e in g.log]


def test_g9_check_by_a_promoted_card_is_announced_after_the_exchange():
    # Red P a5-a6 and takes a Rook from the Discard pile: the Rook on a6 threatens c6 along rank 6
    # (b6 empty). The Pawn alone threatened nothing: no check while the promotion is chosen.
    g = state_at("2k/P2/3/3/3/K2 r N/- -/- R/- 0 1")
    g.apply_text("move a5a6")
    assert g.phase == "promote" and checks(g) == [None, None]
    g.apply_text("promote to R")
    assert g.phase == "play" and checks(g) == [BLUE, BLUE]
    assert g.log[-1] == (RED, "check: Blue's King is threatened")
    g.apply_text("play N@b1")
    assert texts(g) == {"move c6b5", "move c6c5"}             # b6 is on the Rook's rank


def test_a_full_half_offers_replace_and_discard_but_never_the_king():
    # Red's half (ranks 1-3) is full: eight face-down Pawns and the King. The Rook a4 moves up;
    # the play step may only replace one of the eight Pawns (never the King on b1) or discard.
    full = state_at("1k1/3/RPR/P*P*P*/P*P*P*/P*KP* r N/- -/- -/- 0 1")
    full.apply_text("flip a1")
    full.apply_text("move a4a5")
    options = texts(full)
    assert "play N@discard" in options and "play N@b1" not in options
    assert "play N@a1" in options and "play N@b3" in options
    assert len(options) == 8 + 1
    full.apply_text("play N@b3")
    pos = full.pos
    assert pos.card_on(sq("b3")) == (RULES.catalog["N"].id, RED, True)
    assert pos.discards[RED][RULES.pawn_type] == 1           # the replaced card, face up
    assert any("replacing Pawn (face down)" in text for _, text in full.log)


def test_promotion_from_the_discard_pile():
    g = state_at("3/P2/2k/3/3/K2 r -/- -/- QNP/- 0 1")
    g.apply_text("move a5a6")
    assert g.phase == "promote"
    assert texts(g) == {"keep the Pawn", "promote to Q", "promote to N"}
    g.apply_text("promote to Q")
    pos = g.pos
    assert pos.card_on(sq("a6")) == (RULES.catalog["Q"].id, RED, False)
    assert pos.discards[RED][RULES.catalog["Q"].id] == 0
    assert pos.discards[RED][RULES.pawn_type] == 2


@pytest.mark.parametrize("text", G9_STALEMATES)
def test_g9_no_legal_move_with_the_king_unthreatened_is_stalemate_whatever_the_hand(text):
    # The three kinds of issue 22 (a Pawn stuck on a6, a blocked Pawn on a2, a Pawn still blocked
    # after the mandatory flip), each with cards in Hand; the positions are explained in
    # tests/ransom/test_reference_ransom.py.
    g = state_at(text)
    assert g.is_terminal() and g.winner is None
    assert g.over_reason == "draw: Red is stalemated (G9)"
    assert g.returns() == [0.0, 0.0] and g.legal_actions() == []
    pos = RansomPosition.parse(text)
    assert pos.turn_options().status == STALEMATE and pos.turns() == [] and pos.count_turns() == 0


def test_g9_the_flip_must_allow_the_mandatory_move():
    # Red K a1, P* a2 blocked by n* a3, N* c1; Blue r b4 covers b1 b2 b3. Flipping a2 would leave
    # no move; flipping c1 lets the Knight go to b3: only that flip is offered.
    g = state_at("2k/3/1r1/n*2/P*2/K1N* r Q/- -/- -/- 0 1")
    assert texts(g) == {"flip c1"}
    g.apply_text("flip c1")
    assert texts(g) == {"move c1b3"}


def test_checkmate_and_king_alone_stalemate():
    mate = state_at("2k/3/rr1/3/3/K2 r -/- -/- -/- 0 1")
    assert mate.is_terminal() and mate.winner == BLUE and "checkmated" in mate.over_reason
    alone = state_at("2k/3/1r1/3/2r/K2 r Q/- -/- -/- 0 1")
    assert alone.is_terminal() and alone.winner is None


def test_two_hundred_turns_without_a_capture_draw():
    g = state_at("2k/3/3/3/3/K2 r -/- -/- -/- 199 120")
    g.apply_text("move a1a2")
    assert g.is_terminal() and g.winner is None and "200 turns without a capture" in g.over_reason


def test_draw_is_a_chance_node_over_the_deck():
    pos = RansomPosition.parse("2k/3/3/3/3/K2 r N/- -/- -/- 0 1")
    pos.pools[RED][RULES.catalog["Q"].id] = 1
    pos.pools[RED][RULES.pawn_type] = 3
    g = RansomState(1, position=pos, auto_chance=False)
    g.apply_text("move a1a2")
    g.apply(next(a for a in g.legal_actions() if g.action_text(a) == "play N@b1"))
    assert g.is_chance_node()
    assert dict(g.chance_outcomes()) == pytest.approx({RULES.catalog["Q"].id: 0.25, RULES.pawn_type: 0.75})
    g.apply(RULES.pawn_type)
    assert g.pos.hands[RED][RULES.pawn_type] == 1 and g.current_player() == BLUE


def test_an_illegal_action_changes_nothing():
    g = RansomState(seed=4)
    before = g.fingerprint()
    with pytest.raises(IllegalRansomAction, match="not legal"):
        g.apply(RA.play(0, 20))
    with pytest.raises(IllegalRansomAction, match="not a legal action"):
        g.apply_text("move a1a6")
    assert g.fingerprint() == before


# -- hidden information ----------------------------------------------------------------------------
def test_observation_hides_the_opponents_face_down_cards_and_hand():
    g = RansomState(seed=9)
    obs = g.observation(RED)
    blue_down = [c for c in obs["arena"] if c["owner"] == BLUE and c["face_down"]]
    assert len(blue_down) == 4 and all(c["card"] is None for c in blue_down)
    red_down = [c for c in obs["arena"] if c["owner"] == RED and c["face_down"]]
    assert all(c["card"] is not None for c in red_down)          # the owner may look (G3)
    assert len(obs["hand"]) == 3 and obs["hand_sizes"] == [3, 3]
    assert "hands" not in obs and "pools" not in obs


def test_the_opponents_hand_is_shown_once_the_game_is_over():
    g = state_at("2k/3/3/3/3/K1R* r Q/np -/- -/- 0 1")
    assert g.observation(RED)["opponent_hand"] is None and g.observation(BLUE)["opponent_hand"] is None
    g.apply_text("flip c1")
    g.apply_text("move c1c6")
    assert g.is_terminal()
    assert sorted(g.observation(RED)["opponent_hand"]) == ["N", "P"]
    assert g.observation(BLUE)["opponent_hand"] == ["Q"]


def test_resample_hidden_reads_nothing_hidden():
    """Twin states that differ only in Blue's hidden cards give Red identical determinizations."""
    a = RansomState(seed=21)
    b = a.clone()
    pos = b.pos
    down = [s for s in codes.squares(pos.core.colour_bits(BLUE) & pos.face_down)]
    # Swap Blue's hidden cards around: a face-down card with a card of the Hand, when they differ.
    hand_type = next(t for t, n in enumerate(pos.hands[BLUE]) if n)
    table_type = pos.core.unit_on(down[0])[0]
    pos.hands[BLUE][hand_type] -= 1
    pos.hands[BLUE][table_type] += 1
    pos.core.remove(down[0])
    pos.core.place(down[0], hand_type, BLUE)
    pos._sync_flags()
    assert a.information_key(RED) == b.information_key(RED)
    da = a.resample_hidden(RED, random.Random(5))
    db = b.resample_hidden(RED, random.Random(5))
    assert da.fingerprint() == db.fingerprint()


def test_resample_hidden_forgets_the_deck_order_of_a_position_text():
    """A position text may list the Decks in order (so a game from it has a record), but the order
    is known to no player: a determinization pools both Decks, the player's own included, and
    leaves the game it came from as it was."""
    text = "2k/3/3/3/3/K2 r N/n QRBP/qrbp -/- 0 1"
    g = state_at(text)
    ordered = [RULES.catalog[c].id for c in "QRBP"]
    counts = [ordered.count(t) for t in range(len(RULES.deck))]
    for player in (RED, BLUE):
        d = g.resample_hidden(player, random.Random(player))
        assert d.pos.decks == [[], []]
        assert d.pos.pools[player] == counts                    # the own Deck: same cards, no order
        assert sum(d.pos.pools[1 - player]) == 4
        assert d.information_key(player) == g.information_key(player)
    assert g.pos.decks[RED] == ordered and g.pos.text() == text
    # Red's next draw in the determinizations is any card of its Deck, not always the listed top Q.
    drawn = set()
    for seed in range(20):
        d = g.resample_hidden(RED, random.Random(seed))
        d.apply_text("move a1a2")
        d.apply_text("play N@b1")
        drawn |= {t for t, n in enumerate(d.pos.hands[RED]) if n}
    assert drawn == set(ordered)
    # A text that holds fewer cards than a deck does not tell Red which: twin games that differ only
    # in Blue's hidden cards (its Deck here) give Red the same determinizations.
    twin = state_at("2k/3/3/3/3/K2 r N/n QRBP/pppp -/- 0 1")
    for seed in range(3):
        assert (g.resample_hidden(RED, random.Random(seed)).fingerprint()
                == twin.resample_hidden(RED, random.Random(seed)).fingerprint())


def test_invariants_hold_through_random_games():
    for seed in range(5):
        rng = random.Random(seed)
        g = RansomState(seed)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_actions()))
            assert check_invariants(g, rng) == []


# -- records ---------------------------------------------------------------------------------------
def test_a_record_replays_to_the_same_state_and_goes_on_the_same_way():
    g = play_one(3, random.Random(3))
    again = replay(g.record())
    assert again.fingerprint() == g.fingerprint()
    mid = RansomState(seed=8)
    rng = random.Random(1)
    for _ in range(15):
        mid.apply(rng.choice(mid.legal_actions()))
    copy = replay(mid.record())
    for _ in range(30):
        if mid.is_terminal():
            break
        action = rng.choice(mid.legal_actions())
        mid.apply(action)
        copy.apply(action)
        assert copy.fingerprint() == mid.fingerprint()


def test_bad_records_are_named():
    with pytest.raises(RansomError, match="not a King's Ransom record"):
        replay({"format": "x"})
    record = RansomState(seed=1).record()
    record["actions"] = [[0, 5]]
    with pytest.raises(RansomError, match=r"actions\[0\]"):
        replay(record)


def test_a_world_dealt_for_the_seat_not_to_move_offers_that_worlds_choices():
    """A determinization for the seat that is not to move (the record board analyses the other
    seat's decision as the loaded seat saw it: engine.games.records.state_at with a viewer) deals the
    mover's Hand and face-down cards again: the mover's choices are those of the cards it holds in
    that world (a Play step offers the Hand dealt there; a Flip step moves the card flipped as it
    lies there), so every legal action of the world applies, and the world's own determinization
    for the mover (what a search then does) keeps them so. Before the fix the world kept the true
    game's choices: 'play: no Bishop in Blue's Hand' from the search."""
    checked = {FLIP: 0, PLAY: 0}
    for seed in range(6):
        rng = random.Random(seed)
        g = RansomState(seed)
        while not g.is_terminal() and sum(checked.values()) < 400:
            mover = g.current_player()
            if mover >= 0 and g.step in checked:
                for i in range(2):
                    world = g.resample_hidden(1 - mover, random.Random(100 * seed + i))
                    again = world.resample_hidden(mover, random.Random(i))
                    for d in (world, again):
                        for action in d.legal_actions():
                            after = d.clone()
                            after.apply(action)                   # raised for a choice of the true game
                            while not after.is_terminal() and after.current_player() == mover:
                                after.apply(after.legal_actions()[0])
                    checked[g.step] += 1
            g.apply(rng.choice(g.legal_actions()))
    assert checked[FLIP] and checked[PLAY]
