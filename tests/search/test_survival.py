"""engine/crown/survival.py: what a losing player may defend with next turn, and its data file's
errors. The expectations are derived by hand from the rules of the draw (9.0: five cards; the known
top first, then the Deck's multiset, then the reshuffled Discard) and from the weights given."""

from __future__ import annotations

import math

import pytest

from engine.crown.scenario import scenario
from engine.crown.survival import DefenceWeights, SurvivalError, defence_resources, load_weights


def test_a_deck_of_ten_gives_half_of_each_card_and_the_discard_does_not_count():
    # Deck: 5 Heir + 5 Peon (10 cards): the next five draw each card with probability 1/2, so
    # 2.5 Heirs are expected; the Discard's Heirs are not reached. Heir's weight 0.8, nothing else.
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", decks=(["Heir"] * 5 + ["Peon"] * 5, []), supply=[])
    g.zones[0].discard.extend([g.cards.cards.index(g.cards["Heir"])] * 4)
    weights = DefenceWeights({"Heir": 0.8}, blocker=0.0)
    assert defence_resources(g, 0, weights) == pytest.approx(1 - math.exp(-0.8 * 2.5))


def test_a_short_deck_is_drawn_whole_and_the_rest_comes_from_the_reshuffle():
    # Deck: 2 Peon; the other three cards come from the Discard, Hand and played cards reshuffled:
    # 2 Heir + 4 Peon there (6 cards): 3/6 of each, so 1 Heir expected.
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", decks=(["Peon"] * 2, []), hands=(["Heir", "Peon"], []), supply=[])
    heir, peon = (g.cards.cards.index(g.cards[name]) for name in ("Heir", "Peon"))
    g.zones[0].discard.extend([heir, peon, peon, peon])
    weights = DefenceWeights({"Heir": 0.5}, blocker=0.0)
    assert defence_resources(g, 0, weights) == pytest.approx(1 - math.exp(-0.5 * 1.0))


def test_the_weights_file_errors_name_the_file_and_the_field(tmp_path):
    bad = tmp_path / "survival.toml"
    bad.write_text("[defence]\nHeir = 1.5\n", encoding="utf-8")
    with pytest.raises(SurvivalError, match=r"survival.toml: \[defence\] 'Heir' must be a number from 0 to 1"):
        load_weights(bad)
    bad.write_text("[barracks]\nblockers = 0.5\n", encoding="utf-8")
    with pytest.raises(SurvivalError, match=r"\[barracks\] 'blockers' is not a field; known: blocker"):
        load_weights(bad)
    bad.write_text("[defence\n", encoding="utf-8")
    with pytest.raises(SurvivalError, match="not valid TOML"):
        load_weights(bad)
    with pytest.raises(SurvivalError, match="cannot read the survival weights"):
        load_weights(tmp_path / "missing.toml")
    assert load_weights().cards["Heir"] > 0          # the shipped file reads
