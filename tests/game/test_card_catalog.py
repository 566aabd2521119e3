"""The card catalog (engine/data/cards.toml) and the effect registry."""

import pytest

from engine.game.cards import CardCatalog, CardError, default_cards
from engine.game.effects import REGISTRY

#: Effects whose whole behaviour is their printed numbers (applied from data by engine/game/phases.py).
NUMBERS_ONLY = {("Executive Action", 0)}


def test_catalog_matches_rulings_d():
    cards = default_cards()
    assert len(cards) == 46
    assert len(cards.supply_cards("core")) == 4 and len(cards.supply_cards("variable")) == 38
    assert len([c for c in cards.supply_cards("variable") if c.expansion]) == 12
    assert cards["Tower"].cost == 6 and cards["Tower"].effects[0].gold == 3
    assert cards["Versatility"].effects[1].trains == "T" and cards["Versatility"].effects[1].count == 2
    assert cards["Heir"].effects[1].trains == "K"
    assert all(c.pile == (6 if c.role == "core" else 4) for c in cards.supply_cards())   # PROVISIONAL (D)
    assert cards["Squire"].pile == 2


def test_d_the_base_box_holds_the_150_printed_cards():
    """2.0 prints 150 cards; RULINGS D's PROVISIONAL pile sizes add up to it: 4 core piles of 6,
    26 variable piles of 4, 2 Squires and two starting Decks (3.0). Expansion cards are not in it."""
    from engine.game.setup import starting_deck

    base = [c for c in default_cards() if not c.expansion]
    core = sum(c.pile for c in base if c.role == "core")
    variable = sum(c.pile for c in base if c.role == "variable")
    squires = sum(c.pile for c in base if c.role == "alt-starter")
    starters = 2 * sum(starting_deck("standard").values())
    assert (core, variable, squires, starters) == (24, 26 * 4, 2, 12 + 8)
    assert core + variable + squires + starters == 150


def test_every_effect_with_rules_text_has_behaviour():
    """Every effect the rulebook describes beyond its numbers is implemented (registered)."""
    missing = [
        (card.name, index)
        for card in default_cards()
        for index, effect in enumerate(card.effects)
        if effect.rule and (card.name, index) not in REGISTRY and (card.name, index) not in NUMBERS_ONLY
    ]
    assert missing == []


def test_registry_names_only_real_effects():
    cards = default_cards()
    for name, index in REGISTRY:
        assert name in cards.by_name and index in (0, 1)
        assert cards[name].effects[index].kind != "training"


@pytest.mark.parametrize(
    "text, message",
    [
        ('[[card]]\nname = "X"\nrole = "variable"\npile = 4\n[[card.effect]]\nkind = "order"\n[[card.effect]]\nkind = "order"', "needs 'cost'"),
        ('[[card]]\nname = "X"\nrole = "wild"', "field 'role'"),
        ('[[card]]\nname = "X"\nrole = "starter"\n[[card.effect]]\nkind = "order"', "exactly two effects"),
        ('[[card]]\nname = "X"\nrole = "starter"\n[[card.effect]]\nkind = "training"\n[[card.effect]]\nkind = "order"', "needs 'trains'"),
        ('[[card]]\nname = "X"\nrole = "starter"\n[[card.effect]]\nkind = "training"\ntrains = "J"\n[[card.effect]]\nkind = "order"', "unknown unit token 'J'"),
        ('[[card]]\nname = "X"\nrole = "starter"\n[[card.effect]]\nkind = "magic"\n[[card.effect]]\nkind = "order"', "field 'kind'"),
        ('[[card]]\nname = "X"\nrole = "starter"\n[[card.effect]]\nkind = "order"\ngold = -1\n[[card.effect]]\nkind = "order"', "must not be negative"),
    ],
)
def test_malformed_cards_name_card_and_field(text, message):
    with pytest.raises(CardError, match=message):
        CardCatalog.from_toml(text, "my-cards.toml")


def test_cards_cli_json(capsys):
    import json

    from engine.interfaces.cli import main

    assert main(["cards", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == 46 and data[0]["name"] == "Peon"
