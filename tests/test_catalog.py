"""The unit catalog (engine/data/units.toml) and the movement-spec compiler."""

import pytest

from engine import Catalog, CatalogError, Position, default_catalog
from tests.support import BASE_TOKENS, EXPANSION_TOKENS

# Point-Buy Chess price list, copied by hand from the rulebook's table.
POINT_BUY = {
    "Pawn": 1, "Striker": 2, "Acolyte": 3, "Bishop": 3, "Knight": 3, "Monk": 3, "Oracle": 3, "Spy": 4,
    "Nightrider": 5, "Rook": 5, "Sniper": 5, "Anointed": 6, "Charger": 6, "Sphinx": 6, "Dragoon": 7,
    "Hero": 7, "King": 7, "Gryphon": 8, "Immortal": 8, "Phantom": 8, "Banshee": 9, "Chancellor": 9,
    "Queen": 9, "Warlord": 10,
}
# Rule 12.0 classes.
CLASSES = {
    "Acolyte": {"Pious"}, "Anointed": {"Pious", "Sovereign"}, "Banshee": {"Regal"}, "Bishop": {"Pious"},
    "Chancellor": {"Regal"}, "Charger": {"Heavy"}, "Dragoon": {"Mounted", "Regal"},
    "Gryphon": {"Heavy", "Regal"}, "Hero": {"Mounted"}, "Immortal": {"Foot"}, "King": {"Sovereign"},
    "Knight": {"Mounted"}, "Monk": {"Pious", "Foot"}, "Nightrider": {"Mounted"}, "Oracle": {"Pious"},
    "Pawn": {"Foot"}, "Phantom": {"Mounted", "Regal"}, "Queen": {"Regal"}, "Rook": {"Heavy"},
    "Sniper": {"Heavy"}, "Sphinx": {"Pious", "Regal"}, "Spy": {"Heavy"}, "Striker": {"Foot"},
    "Warlord": {"Heavy"},
}


def test_catalog_has_every_token_of_rulings_a3():
    catalog = default_catalog()
    assert [u.token for u in catalog] == BASE_TOKENS + EXPANSION_TOKENS


def test_base_prices_are_the_point_buy_list():
    assert {u.name: u.price for u in default_catalog().base_types} == POINT_BUY


def test_base_classes_are_rule_12_0():
    assert {u.name: set(u.classes) for u in default_catalog().base_types} == CLASSES


def test_stock_totals_match_rulings_e():
    catalog = default_catalog()
    assert sum(u.stock for u in catalog.base_types) == 123
    assert sum(u.stock for u in catalog if u.expansion) == 53
    assert all(u.cylindrical for u in catalog if u.expansion)
    assert not any(u.cylindrical for u in catalog.base_types)


def test_provisional_values_are_marked():
    catalog = default_catalog()
    assert all("stock" in u.provisional for u in catalog)
    assert "moves" not in catalog["~B"].provisional  # the Visionary's move is printed (16.0)
    assert "moves" in catalog["~N"].provisional


def _one_unit(fields: str) -> str:
    return '[[unit]]\ntoken = "K"\nname = "King"\nclasses = ["Sovereign"]\nprice = 7\nstock = 4\nmoves = "K"\n' \
        f"[[unit]]\n{fields}\n"


@pytest.mark.parametrize(
    "moves, message",
    [
        ("", "empty movement spec"),
        ("J", "unknown atom 'J'"),
        ("qN", "unknown modifier 'q'"),
        ("N3", "a range needs a rider"),
        ("nN", "n needs a straight or diagonal leaper"),
        ("sF", "select no move of F"),
        ("cxF", "c and x exclude each other"),
        ("R9", "range '9'"),
        ("(teleport)", "unknown pattern (teleport)"),
        ("(charge)5", "range must be 1..3"),
        ("(charge)", "needs a range"),
        ("m(swap)", "takes no modifier"),
        ("xnD K", "cannot be combined with moving captures"),
        ("(charge)3 N", "(charge) cannot be combined"),
        ("K)", "cannot read term"),
    ],
)
def test_malformed_spec_names_unit_and_problem(moves, message):
    text = _one_unit(f'token = "J"\nname = "Jester"\nprice = 1\nstock = 1\nmoves = "{moves}"')
    with pytest.raises(CatalogError) as info:
        Catalog.from_toml(text, "my.toml")
    assert "my.toml" in str(info.value)
    assert "(J)" in str(info.value)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "fields, message",
    [
        ('token = "J"\nname = "Jester"\nprice = 1\nmoves = "K"', "missing field 'stock'"),
        ('token = "J"\nname = "Jester"\nprice = 1\nstock = 1\nmoves = "K"\nclasses = ["Jolly"]', "unknown class 'Jolly'"),
        ('token = "J"\nname = "Jester"\nprice = "cheap"\nstock = 1\nmoves = "K"', "field 'price' must be int"),
        ('token = "JJ"\nname = "Jester"\nprice = 1\nstock = 1\nmoves = "K"', "token 'JJ'"),
        ('token = "K"\nname = "Jester"\nprice = 1\nstock = 1\nmoves = "K"', "token 'K' is used twice"),
        ('token = "J"\nname = "Jester"\nprice = 1\nstock = 1\nmoves = "K"\nspeed = 3', "unknown field 'speed'"),
        ('token = "J"\nname = "Jester"\nprice = 1\nstock = 1\nmoves = "K"\ncaptured_to = "heaven"', "captured_to"),
    ],
)
def test_malformed_entry_names_the_field(fields, message):
    with pytest.raises(CatalogError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Catalog.from_toml(_one_unit(fields), "my.toml")


def test_not_toml_is_reported():
    with pytest.raises(CatalogError, match="not valid TOML"):
        Catalog.from_toml("[[unit]\n", "broken.toml")


def test_a_new_unit_is_one_entry_of_data():
    # An Amazon (Queen + Knight) needs no code: one [[unit]] table.
    text = _one_unit('token = "J"\nname = "Amazon"\nclasses = ["Regal"]\nprice = 12\nstock = 2\nmoves = "Q N"')
    catalog = Catalog.from_toml(text, "amazon.toml")
    pos = Position.from_text("4k3/8/8/8/8/8/8/J3K3 w - - 0 1", catalog=catalog)
    from_a1 = {o.text() for o in pos.legal_orders() if o.origin == 0}
    # Queen from a1 with the King on e1: a2..a8 (7), b2..h8 (7), b1 c1 d1 (3); Knight: b3 c2.
    assert len(from_a1) == 7 + 7 + 3 + 2
    assert {"a1b3", "a1c2", "a1h8", "a1d1"} <= from_a1


def test_units_cli_lists_catalog_as_json(capsys):
    import json

    from engine.interfaces.cli import main

    assert main(["units", "--json"]) == 0
    units = json.loads(capsys.readouterr().out)
    assert len(units) == 34
    assert units[5]["moves"] == "fmW ifmnD fcF"
