"""King's Ransom players: the same ISMCTS (no peeking), the evaluator, the baselines."""

from __future__ import annotations

import random

import pytest

from engine import codes
from engine.games.registry import get as get_game
from engine.ransom.players import RansomEvaluator, RansomGreedyBot, RansomISMCTSBot, make_ransom_bot, ransom_ismcts
from engine.ransom.position import RansomPosition
from engine.ransom.rules import BLUE, RED
from engine.ransom.state import RansomState
from engine.search.match import play_match


def twin_with_other_hidden_cards(g: RansomState, hidden_side: int) -> RansomState:
    """A copy of ``g`` in which ``hidden_side``'s face-down cards and Hand are dealt differently
    (the other player cannot tell the two apart)."""
    twin = g.clone()
    pos = twin.pos
    down = list(codes.squares(pos.core.colour_bits(hidden_side) & pos.face_down))
    cards = [pos.core.unit_on(s)[0] for s in down]
    cards += [t for t, n in enumerate(pos.hands[hidden_side]) for _ in range(n)]
    rotated = cards[1:] + cards[:1]
    assert rotated != cards
    for s in down:
        pos.core.remove(s)
    for s, t in zip(down, rotated):
        pos.core.place(s, t, hidden_side)
    hand = [0] * len(pos.hands[hidden_side])
    for t in rotated[len(down):]:
        hand[t] += 1
    pos.hands[hidden_side] = hand
    pos._sync_flags()
    assert twin.information_key(1 - hidden_side) == g.information_key(1 - hidden_side)
    assert twin.fingerprint() != g.fingerprint()
    return twin


def test_ismcts_cannot_peek():
    g = RansomState(seed=31)
    twin = twin_with_other_hidden_cards(g, BLUE)
    a = ransom_ismcts(iterations=150, seed=4).search(g)
    b = ransom_ismcts(iterations=150, seed=4).search(twin)
    assert a.visits == b.visits and a.best == b.best


def test_greedy_cannot_peek_at_face_down_victims():
    # Red's flipped Rook a1 may take a face-down Blue card on a4 or a face-up Blue Pawn on c1...
    # the greedy values a face-down card at the mean of what it may be, whatever it really is.
    text_queen = "1k1/3/q*2/3/3/R*Kp r -/- -/- -/- 0 1"
    text_pawn = "1k1/3/p*2/3/3/R*Kp r -/- -/- -/- 0 1"
    choices = []
    for text in (text_queen, text_pawn):
        g = RansomState(1, position=RansomPosition.parse(text))
        g.apply_text("flip a1")
        choices.append(g.action_text(RansomGreedyBot(seed=2).choose(g)))
    assert choices[0] == choices[1] == "move a1a4"     # the mean of Blue's unseen cards beats a Pawn


def test_greedy_takes_the_king_when_it_can():
    g = RansomState(1, position=RansomPosition.parse("2k/3/3/3/3/K1R* r -/- -/- -/- 0 1"))
    g.apply_text("flip c1")
    assert g.action_text(RansomGreedyBot().choose(g)) == "move c1c6"


def test_the_evaluator_counts_material_for_the_right_side():
    up = RansomState(1, position=RansomPosition.parse("1k1/3/3/3/Q2/1K1 b -/- -/- -/- 0 1"))
    ev = RansomEvaluator()
    assert ev(up, RED) > 0.3 and ev(up, BLUE) < -0.3
    assert ev(up, RED) == pytest.approx(-ev(up, BLUE))


def test_the_tree_is_reused_within_a_turn():
    g = RansomState(seed=12)
    bot = RansomISMCTSBot(iterations=200, seed=1)
    stats = bot.search(g)
    assert bot.searcher._tree is not None                 # kept for the move decision after the flip
    g.apply(stats.best)
    root = bot.searcher._reused_root(g, g.current_player(), random.Random(0))
    assert root is not None and root.visits > 0


def test_ismcts_beats_random():
    game = get_game("kings-ransom")
    result = play_match(lambda s: game.bots.make_bot("ismcts:150", s),
                        lambda s: game.bots.make_bot("random", s), 4, seed=3,
                        config={"variant": "kings-ransom"})
    assert result.wins == 4


def test_bot_specs():
    assert isinstance(make_ransom_bot("ismcts:1s", 1), RansomISMCTSBot)
    assert make_ransom_bot("ismcts:1s").searcher.seconds == 1.0
    for bad in ("ismcts:0", "ismcts:xs", "greedy:3", "expert"):
        with pytest.raises(ValueError, match="bot"):
            make_ransom_bot(bad)
    with pytest.raises(ValueError, match=r"config\.supply: kings-ransom has no option 'supply' \(its options: "
                                         r"variant, seed, chance\)"):
        get_game("kings-ransom").start({"variant": "kings-ransom", "supply": "random"})
