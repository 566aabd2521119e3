"""The card catalog (engine/data/cards.toml) and the effect registry."""

import re

import pytest

from engine.catalog import default_catalog
from engine.crown.cards import CardCatalog, CardError, default_cards
from engine.crown.effects import REGISTRY
from tests.support import copied_runs, maintainers_texts

#: Effects whose whole behaviour is their printed numbers (applied from data by engine/crown/phases.py).
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
    from engine.crown.setup import starting_deck

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


_TWO_EFFECTS = '[[card]]\nname = "X"\nrole = "starter"\n[[card.effect]]\nkind = "treasure"\ngold = 1\n{first}\n' \
               '[[card.effect]]\nkind = "training"\ntrains = "P"\n{second}\n'


@pytest.mark.parametrize(
    "first, second, message",
    [
        ("", 'text = "Trash it (7.0)."', r"card #1 \(X\) effect 1: missing field 'text'"),
        ('text = "+1 gold (8.0)."', 'text = "  "', r"card #1 \(X\) effect 2: field 'text' must not be empty"),
        ('text = "+1 gold (8.0)."', "text = 3", r"card #1 \(X\) effect 2: field 'text' must be str"),
    ],
)
def test_every_effect_needs_its_plain_words_text(first, second, message):
    with pytest.raises(CardError, match=message):
        CardCatalog.from_toml(_TWO_EFFECTS.format(first=first, second=second), "my-cards.toml")
    ok = CardCatalog.from_toml(_TWO_EFFECTS.format(first='text = "+1 gold (8.0)."', second='text = "Trash it (7.0)."'))
    assert [e.text for e in ok["X"].effects] == ["+1 gold (8.0).", "Trash it (7.0)."]


# -- the texts agree with the numbers ------------------------------------------------------------
_NUMBER = r"(\d+|one|two|three|four|five|six)"
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
#: How cards.toml's header says each number is written in a text ("+2 gold", "draw 1 card").
_PATTERNS = {
    "gold": rf"\+{_NUMBER} gold\b",
    "orders": rf"\+{_NUMBER} orders?\b",
    "actions": rf"\+{_NUMBER} actions?\b",
    "buys": rf"\+{_NUMBER} buys?\b",
    "draws": rf"\bdraw {_NUMBER} cards?\b",
}


def _numbers_in(text: str) -> dict[str, list[int]]:
    found = {}
    for field, pattern in _PATTERNS.items():
        values = [int(m) if m.isdigit() else _WORDS[m] for m in re.findall(pattern, text, flags=re.IGNORECASE)]
        if values:
            found[field] = values
    return found


def _effects():
    return [(card, index, effect) for card in default_cards() for index, effect in enumerate(card.effects)]


def test_every_effect_text_states_exactly_its_numbers():
    """Each number of the data (gold, orders, actions, buys, draws) is in the text, and the text states
    no number the data does not have: "+2 gold" in a text means gold = 2, so texts cannot drift."""
    wrong = []
    for card, index, effect in _effects():
        expected = {field: [getattr(effect, field)] for field in _PATTERNS if getattr(effect, field)}
        if _numbers_in(effect.text) != expected:
            wrong.append((card.name, index + 1, expected, _numbers_in(effect.text), effect.text))
    assert wrong == []


def test_training_texts_name_the_unit_and_the_count():
    units = default_catalog()
    names = {u.name for u in units}
    checked = 0
    for card, index, effect in _effects():
        if effect.kind != "training":
            continue
        unit = units.by_token[effect.trains].name
        assert re.search(rf"\b{unit}s?\b", effect.text), (card.name, effect.text)
        others = [n for n in names - {unit} if re.search(rf"\b{n}s?\b", effect.text)]
        assert others == [], (card.name, others)
        count_words = {w for w, n in _WORDS.items() if n == effect.count}
        if effect.count > 1:
            assert f"(x{effect.count})" in effect.text and any(w in effect.text for w in count_words), card.name
        else:
            assert not re.search(r"\(x\d\)|\btwo\b", effect.text), card.name
        checked += 1
    assert checked == sum(1 for c in default_cards() for e in c.effects if e.kind == "training") > 30


def test_texts_cite_their_rule_and_mark_what_is_provisional():
    for card, index, effect in _effects():
        assert effect.text.strip() == effect.text and effect.text.endswith((".", "]")), (card.name, index)
        if effect.rule:
            assert f"({effect.rule}" in effect.text or f"{effect.rule})" in effect.text, (card.name, index)
        else:
            assert re.search(r"\(\d+\.\d+\)", effect.text), (card.name, index)
        provisional = f"effect {index + 1}" in card.provisional
        assert ("[provisional" in effect.text) == provisional, (card.name, index + 1, effect.text)


def test_texts_paraphrase_and_never_copy_the_rulebooks():
    """The project's own words: no card text shares a run of 7 words with a rulebook or the rulings
    file, the maintainers' copies beside the project (tests.support.maintainers_texts; skipped where
    there are none)."""
    sources = maintainers_texts()
    if not sources:
        pytest.skip("no rulebooks beside the project (FTC_RULEBOOKS names their folder)")
    copied = copied_runs({f"{card.name} effect {index + 1}": effect.text for card, index, effect in _effects()}, sources)
    assert copied == []


def test_to_json_carries_every_effects_text():
    data = [c.to_json() for c in default_cards()]
    assert all(e["text"] == spec.text for c, card in zip(data, default_cards()) for e, spec in zip(c["effects"], card.effects))
    assert data[0]["effects"][0]["text"].startswith("+1 gold")


def test_cards_cli_json(capsys):
    import json

    from engine.interfaces.cli import main

    assert main(["cards", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == 46 and data[0]["name"] == "Peon"
