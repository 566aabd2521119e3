"""C4/C12 hidden information: observations, and resample_hidden for information-set search."""

import random
from collections import Counter
from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.observation import hidden_pool
from engine.crown.scenario import scenario
from tests.crown.support import random_midgame


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 300), observer=st.sampled_from([0, 1]))
def test_resample_is_consistent_with_the_observation(seed, steps, observer):
    g = random_midgame(seed, steps)
    sample = g.resample_hidden(observer, random.Random(seed))
    assert sample.observation(observer) == g.observation(observer)
    # The observer's own cards and every public zone are untouched; the opponent owns the same cards.
    other = 1 - observer
    assert Counter(sample.zones[other].all_cards()) == Counter(g.zones[other].all_cards())
    assert sample.zones[observer].hand == g.zones[observer].hand
    assert Counter(hidden_pool(sample, observer)) == Counter(hidden_pool(g, observer))


def test_observation_hides_the_opponent_hand_and_deck_order():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Tower"], ["Wish", "Heir"]), decks=(["Peon"], ["Clergy"]),
                 supply=["Wish", "Heir"])
    obs = g.observation(0)
    text = repr(obs)
    assert "Wish" not in text.replace("'Wish': 4", "") and "Heir" not in text.replace("'Heir': 4", "")
    assert obs["opponent"]["hand_size"] == 2 and obs["opponent"]["hand_known"] == []
    assert obs["you"]["hand"] == ["Tower"]
    # The opponent's decision options (which could name their cards) are not shown.
    g2 = scenario("4k3/8/8/8/8/8/8/4K3 b", hands=([], ["Wish"]), supply=["Wish"])
    assert g2.observation(0)["decision"] == {"player": 1}


def test_revealed_cards_are_known_until_they_leave_the_hand():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=([], ["Wish", "Peon"]), supply=["Wish"])
    tk.reveal_hand(g, 1)
    assert g.observation(0)["opponent"]["hand_known"] == ["Peon", "Wish"]
    sample = g.resample_hidden(0, random.Random(1))
    assert sorted(sample.zones[1].hand) == sorted(g.zones[1].hand)     # nothing unknown to redraw
    tk.move_card(g, 1, g.cards["Wish"].id, "hand", "discard")
    assert g.observation(0)["opponent"]["hand_known"] == ["Peon"]


def test_resample_is_uniform_over_the_unknown_cards():
    # Opponent's unknown pool: 6 Peon + 4 Guard, 5 of them in the hand. The number of Guards in a
    # resampled hand must follow the hypergeometric distribution C(4,k) C(6,5-k) / C(10,5).
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=([], ["Peon"] * 3 + ["Guard"] * 2),
                 decks=([], ["Peon"] * 3 + ["Guard"] * 2), supply=[])
    rng = random.Random(11)
    guard = g.cards["Guard"].id
    counts = Counter(g.resample_hidden(0, rng).zones[1].hand.count(guard) for _ in range(4000))
    expected = {k: comb(4, k) * comb(6, 5 - k) / comb(10, 5) * 4000 for k in range(5)}
    chi2 = sum((counts[k] - expected[k]) ** 2 / expected[k] for k in range(5))
    assert chi2 < 18.5        # chi-square, 4 degrees of freedom, p = 0.001


def test_resampled_future_draws_are_not_the_true_ones():
    deck = ["Peon"] * 4 + ["Guard"] * 3 + ["Tower", "Clergy", "Champion"]
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Peon"], []), decks=(deck, []), supply=[], phase="buy")
    futures = set()
    for i in range(20):
        s = g.resample_hidden(0, random.Random(i))
        s.apply(A.DONE)                      # end the turn: Blue draws 5 of its 10 cards
        futures.add(tuple(sorted(s.zones[0].hand)))
    assert len(futures) > 1      # the chance generator was reseeded: no peeking at the true draws


def test_a_determinization_keeps_no_trace_of_the_true_cards():
    import pytest

    from engine.crown.state import GameError

    g = random_midgame(4, 120)
    sample = g.resample_hidden(g.current, random.Random(2))
    assert sample.history == [] and sample.repetitions == {}
    with pytest.raises(GameError, match="has no record"):
        sample.record()
    assert g.record()["steps"]                     # the true game still has its record
