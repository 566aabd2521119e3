"""GameConfig owns its schema (engine/crown/config.py): GameConfig.from_json takes untrusted JSON and
either returns a config that sets up a game, or raises ConfigError naming the option and the place
in it, with a short, encodable message. The same checks run for a GameConfig built in Python."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import NAMED_POSITIONS
from engine.catalog import default_catalog
from engine.crown.cards import default_cards
from engine.crown.config import STARTERS, ConfigError, GameConfig, describe, parse_extra_unit
from engine.crown.state import GameError, GameState

START = NAMED_POSITIONS["startpos"]
HUGE = "x" * 100_000


def check_message(exc: ConfigError) -> str:
    """Every message is short, encodable, and never echoes a long input."""
    message = str(exc)
    message.encode("utf-8")              # no lone surrogates
    assert len(message) < 600, message
    assert "x" * 50 not in message and "[[[[[" not in message
    return message


@pytest.mark.parametrize(
    "data, words",
    [
        # integers: true ints only, in range
        ({"defender_gold": 1.5}, ["option 'defender_gold'", "0..200", "a number 1.5"]),
        ({"defender_gold": 201}, ["option 'defender_gold'", "an integer 201"]),
        ({"defender_gold": 40.0}, ["option 'defender_gold'", "a number 40.0"]),
        ({"max_turns": float("inf")}, ["option 'max_turns'", "1..100000", "Infinity"]),
        ({"max_turns": float("nan")}, ["option 'max_turns'", "NaN"]),
        ({"max_turns": 0}, ["option 'max_turns'", "1..100000"]),
        ({"no_progress_turns": 10**6}, ["option 'no_progress_turns'"]),
        ({"no_progress_turns": -float("inf")}, ["option 'no_progress_turns'", "-Infinity"]),
        ({"seed": True}, ["option 'seed'", "a boolean true"]),
        ({"seed": -1}, ["option 'seed'", "0..2**63-1", "-1"]),
        ({"seed": 2**70}, ["option 'seed'", "0..2**63-1"]),
        ({"seed": 2**63}, ["option 'seed'"]),
        ({"seed": 10**400}, ["option 'seed'", "bit integer"]),
        ({"seed": "7"}, ["option 'seed'", 'a string "7"']),
        ({"seed": None}, ["option 'seed'", "null"]),
        ({"variable_piles": 41}, ["option 'variable_piles'", "0..40"]),
        ({"variable_piles": False}, ["option 'variable_piles'", "boolean"]),
        ({"extra_turns": [1.5, 0]}, ["option 'extra_turns'[0]", "0..10", "1.5"]),
        ({"extra_turns": [0, 11]}, ["option 'extra_turns'[1]", "0..10"]),
        ({"extra_turns": [0, True]}, ["option 'extra_turns'[1]", "boolean"]),
        ({"extra_turns": [0]}, ["option 'extra_turns'", "two integers [Blue, Yellow]"]),
        ({"extra_turns": "00"}, ["option 'extra_turns'", "a string"]),
        ({"budgets": [1e9, 3]}, ["option 'budgets'[0]", "1..200", "1000000000.0"]),
        ({"budgets": [0, 3]}, ["option 'budgets'[0]", "1..200"]),
        ({"budgets": [1]}, ["option 'budgets'", "two integers"]),
        ({"budgets": {"blue": 1, "yellow": 2}}, ["option 'budgets'", "an object"]),
        # booleans
        ({"expansion": 1}, ["option 'expansion'", "true or false", "an integer 1"]),
        ({"secret_picks": "yes"}, ["option 'secret_picks'", "true or false"]),
        ({"secret_picks": None}, ["option 'secret_picks'", "null"]),
        # names
        ({"variant": "chess"}, ["option 'variant'", "standard, point-buy, last-stand", '"chess"']),
        ({"variant": ["standard"]}, ["option 'variant'", "an array"]),
        ({"starters": ["standard", "squire+"]}, ["option 'starters'[1]", '"squire+"']),
        ({"starters": "standard"}, ["option 'starters'", "two Starting Decks"]),
        ({"sovereigns": ["K", "Q"]}, ["option 'sovereigns'[1]", "K, U, ~K", '"Q"']),
        ({"sovereigns": ["K", "K", "K"]}, ["option 'sovereigns'", "an array [\"K\",\"K\",\"K\"]"]),
        # supply
        ({"supply": "everything"}, ["option 'supply'", "random, first-game"]),
        ({"supply": ["Armor", 3]}, ["option 'supply'[1]", "a card name", "an integer 3"]),
        ({"supply": ["Dragon"]}, ["option 'supply'[0]", "unknown card 'Dragon'"]),
        ({"supply": ["Tower"]}, ["option 'supply'[0]", "Tower is not a variable Supply card"]),
        ({"supply": ["Armor", "Armor"]}, ["option 'supply'[1]", "listed twice"]),
        ({"supply": ["\ud800"]}, ["option 'supply'[0]", "unknown card", "\\ud800"]),
        ({"supply": ["Armor"] * 41}, ["option 'supply'", "at most 40", "an array of 41 items"]),
        ({"supply": [HUGE]}, ["option 'supply'[0]", "a string of 100000 characters"]),
        ({"supply": HUGE}, ["option 'supply'", "a string of 100000 characters"]),
        ({"supply": None}, ["option 'supply'", "null"]),
        # extra units
        ({"extra_units": [[1, 2], []]}, ["option 'extra_units'[0][0]", "an integer 1"]),
        ({"extra_units": [["N@b1"]]}, ["option 'extra_units'", "two arrays of units"]),
        ({"extra_units": [["Wz"], []]}, ["option 'extra_units'[0][0]", "unknown unit token 'Wz'"]),
        ({"extra_units": [[], ["N@z9"]]}, ["option 'extra_units'[1][0]", "'z9' is not a square"]),
        ({"extra_units": [[], ["N@"]]}, ["option 'extra_units'[1][0]", "is not a square"]),
        ({"extra_units": [[], ["N@b1@c2"]]}, ["option 'extra_units'[1][0]", "is not a square"]),
        ({"extra_units": [["n@b1"], []]}, ["option 'extra_units'[0][0]", "unknown unit token 'n'"]),
        ({"extra_units": [["N"] * 33, []]}, ["option 'extra_units'[0]", "at most 32", "33 items"]),
        ({"extra_units": [[HUGE], []]}, ["option 'extra_units'[0][0]", "a string of 100000 characters"]),
        ({"extra_units": [[[[[[[1]]]]]], {"a": [1, 2, 3]}]}, ["option 'extra_units'[0][0]", "an array"]),
        ({"extra_units": [[], {"a": [1, 2, 3]}]}, ["option 'extra_units'[1]", "an object"]),
        # start position
        ({"start_position": "garbage"}, ["option 'start_position'", "position text"]),
        ({"start_position": ""}, ["option 'start_position'", "position text"]),
        ({"start_position": "\ud800"}, ["option 'start_position'", "position text"]),
        ({"start_position": "\ud800/8/8/8/8/8/8/8 w"}, ["option 'start_position'", "\\ud800"]),
        ({"start_position": START.replace("w", "\ud800" * 3000)}, ["option 'start_position'", "side to move"]),
        ({"start_position": HUGE}, ["option 'start_position'", "a string of 100000 characters"]),
        ({"start_position": 5}, ["option 'start_position'", "an integer 5"]),
        ({"start_position": "8/8/8/8/8/8/8/9 w"}, ["option 'start_position'", "rank 1"]),
        # the object itself and its keys
        ({"sed": 1}, ["unknown option 'sed'", "seed"]),
        ({HUGE: 1}, ["unknown option (a string of 100000 characters)"]),
        ({"\ud800": 1}, ["unknown option '\\ud800'"]),
        ([1, 2], ["config: expected an object of game options", "an array [1,2]"]),
        (None, ["config: expected an object", "null"]),
        ("x" * 5000, ["config: expected an object", "a string of 5000 characters"]),
        ([[[[[[[[[[[]]]]]]]]]]], ["config: expected an object", "an array"]),
    ],
)
def test_bad_input_is_refused_naming_the_option(data, words):
    with pytest.raises(ConfigError) as info:
        GameConfig.from_json(data)
    message = check_message(info.value)
    for word in words:
        assert word in message, (word, message)


def test_the_error_names_its_place_for_other_interfaces():
    with pytest.raises(ConfigError) as info:
        GameConfig.from_json({"extra_turns": [0, 1.5]})
    exc = info.value
    assert (exc.option, exc.index, exc.path) == ("extra_turns", (1,), "extra_turns[1]")
    assert exc.detail == "expected an integer 0..10, got a number 1.5"
    assert isinstance(exc, ValueError)
    with pytest.raises(ConfigError) as info:
        GameConfig.from_json([1])
    assert info.value.option is None and info.value.path is None


def test_python_construction_runs_the_same_checks():
    with pytest.raises(ConfigError, match=r"option 'extra_turns'\[0\]: expected an integer 0..10, got a number 1.5"):
        GameConfig(extra_turns=(1.5, 0))
    with pytest.raises(ConfigError, match="option 'seed'"):
        GameConfig(seed=True)
    with pytest.raises(ConfigError, match="option 'supply'"):
        GameConfig(supply={"Armor"})                 # not JSON: described by its type
    config = GameConfig(extra_units=(["N@b1", "Q"], []), supply=["Armor", "Heir"], budgets=[10, 12])
    assert config.extra_units == (("N@b1", "Q"), ()) and config.supply == ("Armor", "Heir")
    assert config.budgets == (10, 12)


def test_every_starter_name_is_accepted():
    for starter in STARTERS:
        GameState(GameConfig.from_json({"starters": [starter, starter]}))


def test_named_positions_become_their_text():
    config = GameConfig.from_json({"variant": "point-buy", "start_position": "startpos"})
    assert config.start_position == START
    assert GameState(config).phase == "order"


def test_describe_is_short_and_ascii():
    assert describe(1.5) == "a number 1.5"
    assert describe("\ud800") == 'a string "\\ud800"'
    assert describe("é") == 'a string "\\u00e9"'
    assert describe(HUGE) == "a string of 100000 characters"
    assert describe(list(range(1000))).startswith("an array of 1000 items [0,1,2,3,...]")
    assert describe({"a": {"b": {"c": 1}}}) == 'an object {"a":{"b":{...}}}'
    for value in (HUGE, list(range(10**5)), {str(i): HUGE for i in range(100)}, 10**5000, float("nan")):
        text = describe(value)
        assert len(text) < 120 and text.isascii()


def test_extra_unit_texts_have_one_parser():
    catalog = default_catalog()
    unit, square = parse_extra_unit("N@b1", catalog)
    assert unit.token == "N" and square == 1
    unit, square = parse_extra_unit("~K", catalog)
    assert unit.token == "~K" and square is None
    with pytest.raises(ConfigError, match=r"option 'extra_units'\[1\]\[2\]: unknown unit token 'J'"):
        parse_extra_unit("J@a1", catalog, ("extra_units", 1, 2))


# -- what only the set-up can tell: a ConfigError (or a game that ends at once), nothing else ----------
@pytest.mark.parametrize(
    "data, words",
    [
        ({"extra_units": [["Q@e1"], []]}, ["option 'extra_units'[0][0]", "e1 is already occupied"]),
        ({"variant": "point-buy", "extra_units": [[], ["N@a7"]]}, ["option 'extra_units'[1][0]", "a7 is already occupied"]),
        ({"extra_units": [["Q"] * 5, []]}, ["option 'extra_units'[0][4]", "Stock has fewer than 1 Queen"]),
        ({"extra_units": [["Q@a3", "Q@b3", "Q@c3", "Q@d3", "Q@f3"], []]}, ["option 'extra_units'[0][4]", "Stock has no Queen left"]),
        ({"sovereigns": ["U", "U"], "extra_units": [["U", "U"], ["U"]]}, ["Stock has fewer than 1 Anointed"]),
        ({"sovereigns": ["U", "U"], "extra_units": [["U@a3", "U@b3"], ["U@a6"]]}, ["option 'extra_units'[1][0]", "Stock has no Anointed left"]),
        ({"variable_piles": 40}, ["option 'variable_piles'", "variable piles exist"]),
        ({"supply": "random", "variable_piles": 30, "expansion": False}, ["option 'variable_piles'"]),
    ],
)
def test_set_up_errors_are_config_errors(data, words):
    config = GameConfig.from_json(data)
    with pytest.raises(ConfigError) as info:
        GameState(config)
    message = check_message(info.value)
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize(
    "data, reason",
    [
        # No Sovereign on a side (or none at all) in a fixed start position: the game is decided at once.
        ({"variant": "point-buy", "start_position": "8/8/8/8/8/8/8/8 w"}, "no legal order"),
        ({"variant": "point-buy", "start_position": "P6P/8/8/8/8/8/8/p6p w - - 0 1 promote:-"}, "no legal order"),
        # Too little gold for any Sovereign: the Defender cannot field an army (it used to hang).
        ({"variant": "last-stand", "defender_gold": 0}, "the Defender cannot field a Sovereign"),
        ({"variant": "last-stand", "defender_gold": 1}, "the Defender cannot field a Sovereign"),
        # Every Sovereign of the Stock given to the Attacker: the same.
        ({"variant": "last-stand", "extra_units": [["K"] * 4 + ["U"] * 4 + ["~K"] * 4, []]},
         "the Defender cannot field a Sovereign"),
        ({"variant": "point-buy", "budgets": [1, 1]}, "cannot field a Sovereign"),
    ],
)
def test_hopeless_set_ups_end_the_game_at_once(data, reason):
    g = GameState(GameConfig.from_json(data))
    assert g.is_terminal() and reason in g.over_reason


def test_odd_but_playable_set_ups_can_be_played():
    for data in (
        {"variant": "point-buy", "start_position": "KKKKKKKK/KKKKKKKK/8/8/8/8/8/8 w"},
        {"variant": "point-buy", "start_position": "k7/8/8/8/8/8/8/K7[IIIIIIII] w - - 0 1 stock:-"},
        {"extra_units": [["P@a8", "P@h1"], ["P@a1"]], "extra_turns": [10, 10]},
        {"variant": "last-stand", "extra_units": [["K@a1"], ["P@a8"]], "defender_gold": 200},
        {"variant": "point-buy", "budgets": [200, 200], "secret_picks": True},
        {"supply": [], "variable_piles": 0, "max_turns": 1, "no_progress_turns": 1},
    ):
        g = GameState(GameConfig.from_json(data))
        assert g.is_terminal() or g.legal_actions(), data
        for _ in range(40):
            if g.is_terminal():
                break
            g.apply(g.legal_actions()[-1])
            assert g.is_terminal() or g.legal_actions(), data


# -- round trip ----------------------------------------------------------------------------------------
VALID = [
    {},
    {"variant": "point-buy", "start_position": START, "budgets": [20, 45], "secret_picks": True},
    {"seed": 2**63 - 1, "supply": ["Armor", "Heir"], "variable_piles": 0, "expansion": False},
    {"starters": ["squire", "parchment"], "sovereigns": ["U", "~K"], "extra_turns": [0, 10]},
    {"extra_units": [["N@b1", "Q"], ["~K", "P@d5"]], "supply": "first-game"},
    {"variant": "last-stand", "defender_gold": 0, "no_progress_turns": 1, "max_turns": 100_000},
]


@pytest.mark.parametrize("data", VALID)
def test_valid_configs_round_trip(data):
    config = GameConfig.from_json(data)
    dumped = config.to_dict()
    assert json.loads(json.dumps(dumped)) == dumped
    assert GameConfig.from_json(json.loads(json.dumps(dumped))) == config
    assert GameConfig.from_dict(dumped) == config
    assert GameConfig(**{k: v for k, v in data.items()}) == config


# -- fuzz ------------------------------------------------------------------------------------------------
# Any text, lone surrogates included.
any_text = st.text(st.characters(exclude_categories=()), max_size=12)
json_scalars = (st.none() | st.booleans() | st.integers() | st.integers(-3, 300)
                | st.floats(allow_nan=True, allow_infinity=True) | any_text)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(any_text, inner, max_size=3), max_leaves=12)

def pair(item):
    return st.lists(item, min_size=2, max_size=2)


SQUARES = [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]
unit_texts = st.builds(lambda unit, square: unit if square is None else f"{unit}@{square}",
                       st.sampled_from([u.token for u in default_catalog()]), st.none() | st.sampled_from(SQUARES))
VARIABLE_CARDS = sorted(c.name for c in default_cards().supply_cards("variable"))
POSITIONS = [START, "startpos", "crown", "8/8/8/8/8/8/8/8 w", "4k3/8/8/8/8/8/8/4K3 b",
             "KKKKKKKK/KKKKKKKK/8/8/8/8/8/8 w", "k7/8/8/8/8/8/8/K7[QQ] w - - 0 1 stock:-",
             "P6P/8/8/8/8/8/8/p6p w - - 0 1 promote:-", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 status:e1nw,e8ob"]

# Per option: valid values (most examples get past validation into the set-up) ...
VALID_VALUES = {
    "variant": st.sampled_from(["standard", "point-buy", "last-stand"]),
    "seed": st.integers(0, 2**63 - 1),
    "supply": st.sampled_from(["random", "first-game"]) | st.lists(st.sampled_from(VARIABLE_CARDS), unique=True, max_size=12),
    "variable_piles": st.integers(0, 40),
    "expansion": st.booleans(),
    "starters": pair(st.sampled_from(STARTERS)),
    "sovereigns": pair(st.sampled_from(["K", "U", "~K"])),
    "extra_turns": pair(st.integers(0, 10)),
    "extra_units": pair(st.lists(unit_texts, max_size=8)),
    "budgets": pair(st.integers(1, 200)),
    "start_position": st.none() | st.sampled_from(POSITIONS),
    "secret_picks": st.booleans(),
    "defender_gold": st.integers(0, 200),
    "no_progress_turns": st.integers(1, 20) | st.just(100_000),
    "max_turns": st.integers(1, 20) | st.just(100_000),
}
# ... and values just outside, or anything at all, for one option of a valid config.
BAD_VALUES = {
    "variant": st.sampled_from(["chess", "Standard", ""]),
    "seed": st.sampled_from([-1, 2**63, 1.0, True]),
    "supply": st.sampled_from(["all", ["Tower"], ["Armor", "Armor"], ["Dragon"], [3]]),
    "variable_piles": st.sampled_from([-1, 41, 10.0]),
    "expansion": st.sampled_from([0, 1, "true"]),
    "starters": st.sampled_from([["standard"], ["standard", "x"], ["squire+parchment", "standard"]]),
    "sovereigns": st.sampled_from([["K"], ["K", "Q"], ["k", "K"]]),
    "extra_turns": st.sampled_from([[0, 11], [-1, 0], [0.5, 0]]),
    "extra_units": st.sampled_from([[["J"], []], [["N@z9"], []], [["N@"], []], [[], ["N"] * 33], [["N"]]]),
    "budgets": st.sampled_from([[0, 1], [1, 201], [1]]),
    "start_position": st.sampled_from(["", "garbage", "8/8/8 w", "x" * 5000]),
    "secret_picks": st.sampled_from([0, None]),
    "defender_gold": st.sampled_from([-1, 201, 1.5]),
    "no_progress_turns": st.sampled_from([0, 100_001, float("nan")]),
    "max_turns": st.sampled_from([0, float("inf")]),
}
valid_configs = st.fixed_dictionaries({}, optional=VALID_VALUES)


@st.composite
def near_valid(draw):
    data = draw(valid_configs)
    if draw(st.integers(0, 3)) == 0:           # one option in four configs is spoilt
        key = draw(st.sampled_from(sorted(VALID_VALUES)))
        data[key] = draw(BAD_VALUES[key] | json_values)
    return data


anything = json_values | st.dictionaries(st.sampled_from(sorted(VALID_VALUES)) | any_text, json_values, max_size=4)


INT_OPTIONS = ("seed", "variable_piles", "defender_gold", "no_progress_turns", "max_turns")


def assert_well_typed(config: GameConfig) -> None:
    """What validation lets through has exactly the documented types."""
    for name in INT_OPTIONS:
        assert type(getattr(config, name)) is int, name
    for name in ("extra_turns", "budgets"):
        assert type(getattr(config, name)) is tuple and all(type(x) is int for x in getattr(config, name)), name
    for name in ("starters", "sovereigns"):
        assert type(getattr(config, name)) is tuple and all(type(x) is str for x in getattr(config, name)), name
    assert all(type(x) is str for side in config.extra_units for x in side)
    assert type(config.expansion) is bool and type(config.secret_picks) is bool
    assert config.start_position is None or type(config.start_position) is str
    assert config.supply in ("random", "first-game") or all(type(x) is str for x in config.supply)


def accept_or_refuse(data) -> None:
    try:
        config = GameConfig.from_json(data)
    except ConfigError as exc:
        check_message(exc)
        return
    assert_well_typed(config)
    assert GameConfig.from_json(json.loads(json.dumps(config.to_dict()))) == config
    try:
        g = GameState(config)
    except (ConfigError, GameError) as exc:
        str(exc).encode("utf-8")
        return
    # Set up: the game is over at once, or somebody has something to do (it never hangs); a few
    # decisions (the first legal action) go through.
    for _ in range(12):
        actions = g.legal_actions()
        assert g.is_terminal() or actions
        if not actions:
            break
        g.apply(actions[len(actions) // 2])


@settings(max_examples=1000, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=near_valid())
def test_fuzz_near_valid_configs_set_up_or_are_refused(data):
    accept_or_refuse(data)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=anything)
def test_fuzz_arbitrary_json_is_refused_with_config_error(data):
    accept_or_refuse(data)
