"""King's Ransom's rules file (engine/ransom/rules.py RansomRules.from_toml / load): every way a file
can be wrong is refused at load time with an error naming the file, the table and the field."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import pytest

from engine.ransom.rules import RansomRules, RansomRulesError, default_rules
from engine.ransom.state import RansomState

SHIPPED = resources.files("engine.data").joinpath("ransom.toml").read_text(encoding="utf-8")
SOURCE = "my-ransom.toml"


def edited(old: str, new: str) -> str:
    """The shipped file with the line ``old`` (exactly one) replaced by ``new``."""
    pattern = re.compile(rf"^{re.escape(old)}$", re.M)
    assert len(pattern.findall(SHIPPED)) == 1, old
    return pattern.sub(new.replace("\\", "\\\\"), SHIPPED)


def refused(text: str) -> str:
    with pytest.raises(RansomRulesError) as info:
        RansomRules.from_toml(text, SOURCE)
    message = str(info.value)
    assert message.startswith(SOURCE + ": "), message
    return message


def test_the_shipped_file_loads_and_an_edited_copy_is_used():
    rules = RansomRules.from_toml(edited("hand = 3", "hand = 2"), SOURCE)
    assert rules.hand == 2 and rules.deck == default_rules().deck and rules.source == SOURCE
    g = RansomState(1, rules=rules)
    assert [sum(h) for h in g.pos.hands] == [2, 2]


def test_not_toml():
    assert "not valid TOML" in refused("[deck\nK = 1")


@pytest.mark.parametrize("table", ["deck", "setup", "rules", "perft"])
def test_a_missing_table_is_named(table):
    text = re.sub(rf"^\[{table}\]\n(?:[^\[\n].*\n|\n)*", "", SHIPPED, flags=re.M)
    assert set(tomllib.loads(text)) == {"deck", "setup", "rules", "perft"} - {table}
    assert f"missing table [{table}]" in refused(text)


@pytest.mark.parametrize("old,new,where", [
    ('king = "b1"', "king = 1", "[setup] field 'king': expected str"),
    ('face_down = ["a1", "c1", "b2", "b3"]', 'face_down = "a1"', "[setup] field 'face_down': expected list"),
    ("hand = 3", 'hand = "3"', "[setup] field 'hand': expected int"),
    ("hand = 3", "hand = true", "[setup] field 'hand': expected int"),
    ("no_capture_turns = 200", "no_capture_turns = 2.5", "[rules] field 'no_capture_turns': expected int"),
    ("no_capture_turns = 200", "", "[rules] field 'no_capture_turns': expected int, got None"),
    ('startpos = "n*kb*/1p*1/1i*1/1P*1/1P*1/R*KN* r QBI/qrp PNPIPBPRPNPIPPPP/pnpipbprpnpipppp -/- 0 1"',
     "startpos = 7", "[perft] field 'startpos': expected str"),
])
def test_a_field_of_the_wrong_type_is_named(old, new, where):
    assert where in refused(edited(old, new))


@pytest.mark.parametrize("old,new,where", [
    ("Q = 1", "X = 1", "[deck] field 'X': not a card token"),
    ("Q = 1", "Q = -1", "[deck] field 'Q': expected a count >= 0, got -1"),
    ("Q = 1", "Q = true", "[deck] field 'Q': expected a count >= 0, got True"),
    ("Q = 1", 'Q = "1"', "[deck] field 'Q': expected a count >= 0"),
    ("K = 1", "K = 2", "[deck] field 'K': a deck holds exactly one King"),
    ("K = 1", "", "[deck] field 'K': a deck holds exactly one King"),
    ("provisional = true", 'provisional = "yes"', "[deck] field 'provisional': expected bool"),
])
def test_a_bad_deck_is_named(old, new, where):
    assert where in refused(edited(old, new))


@pytest.mark.parametrize("old,new,where", [
    ('king = "b1"', 'king = "d1"', "[setup] field 'king': 'd1' is not a square of the 3x6 arena"),
    ('king = "b1"', 'king = "b7"', "[setup] field 'king': 'b7' is not a square of the 3x6 arena"),
    ('king = "b1"', 'king = "b"', "[setup] field 'king': 'b' is not a square of the 3x6 arena"),
    ('face_down = ["a1", "c1", "b2", "b3"]', 'face_down = ["a1", "c1", "b2", 3]',
     "[setup] field 'face_down': 3 is not a square of the 3x6 arena"),
    ('face_down = ["a1", "c1", "b2", "b3"]', 'face_down = ["a1", "c1", "b2", "a1"]',
     "[setup] field 'face_down': squares repeat or hold the King"),
    ('face_down = ["a1", "c1", "b2", "b3"]', 'face_down = ["a1", "c1", "b2", "b1"]',
     "[setup] field 'face_down': squares repeat or hold the King"),
    ('face_down = ["a1", "c1", "b2", "b3"]', 'face_down = ["a1", "c1", "b2", "b4"]',
     "[setup] field 'face_down': set-up squares must lie in Red's half (ranks 1-3)"),
    ('king = "b1"', 'king = "b4"', "[setup] field 'king': set-up squares must lie in Red's half (ranks 1-3)"),
    ("hand = 3", "hand = -1", "[setup] field 'hand': must be >= 0"),
    ("no_capture_turns = 200", "no_capture_turns = 0", "[rules] field 'no_capture_turns': must be >= 1"),
])
def test_a_bad_set_up_or_limit_is_named(old, new, where):
    assert where in refused(edited(old, new))


def test_the_hand_may_take_every_card_left_but_not_one_more():
    # The shipped deck has 24 cards: the King stands on the arena and 4 are dealt face down, so
    # 24 - 1 - 4 = 19 cards are left to draw. 19 deals a game with an empty Deck; 20 is refused
    # at load time (it would run out mid-deal).
    rules = RansomRules.from_toml(edited("hand = 3", "hand = 19"), SOURCE)
    g = RansomState(1, rules=rules)
    assert [sum(h) for h in g.pos.hands] == [19, 19] and g.pos.deck_size(0) == g.pos.deck_size(1) == 0
    message = refused(edited("hand = 3", "hand = 20"))
    assert "[setup] field 'hand': 20 cards cannot be drawn" in message and "at most 19" in message


def test_an_unknown_field_or_table_is_named():
    # A misspelt field would otherwise be ignored and its default-less neighbour reported missing,
    # or, for an extra table, silently read as nothing.
    assert "[setup] field 'hnad': unknown field (fields: king, face_down, hand)" in refused(
        edited("hand = 3", "hand = 3\nhnad = 4"))
    assert "unknown table [perf] (tables: [deck], [setup], [rules], [perft])" in refused(
        SHIPPED + "\n[perf]\ndepth = 3\n")


def test_an_unreadable_file_is_named(tmp_path):
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(RansomRulesError, match=rf"^{re.escape(str(missing))}: cannot read"):
        RansomRules.load(missing)
    good = tmp_path / "good.toml"
    good.write_text(SHIPPED, encoding="utf-8")
    assert RansomRules.load(good).source == str(good)
