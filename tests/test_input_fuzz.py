"""Bad input never crashes: random position texts, order texts and movement specs either work or
raise the documented ValueError subclass with a message (never IndexError, KeyError, ...)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import OrderTextError, Position, PositionTextError
from engine.movespec import SpecError, compile_spec
from engine.position import IllegalOrderError

TOKENS = list("KQRBNPAUECLDGHIMZOFSXYTWkqrbnpauecldghimzofsxytw") + ["~b", "~P", "~k", "~Z", "~", "~1"]
FEN_CHARS = st.sampled_from(TOKENS + list("12345678/ []0-:,wbnosWB9x"))
texts = st.lists(FEN_CHARS, max_size=80).map("".join)
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"


def mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(chars) + 1)
        op = rng.random()
        if op < 0.4 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op < 0.8:
            chars.insert(i, rng.choice(TOKENS + list("12345678/ []:,")))
        elif chars:
            chars[min(i, len(chars) - 1)] = rng.choice(TOKENS)
    return "".join(chars)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(text=texts)
def test_random_position_text_parses_or_names_the_problem(text):
    try:
        position = Position.from_text(text)
    except PositionTextError as exc:
        assert str(exc).startswith("position text")
    else:
        assert Position.from_text(position.to_text()).to_text() == position.to_text()


def test_mutated_fens_parse_or_name_the_problem():
    rng = random.Random(5)
    parsed = 0
    for _ in range(3000):
        text = mutate(START + " stock:Q2 status:e1o", rng)
        try:
            position = Position.from_text(text)
        except PositionTextError as exc:
            assert str(exc).startswith("position text")
            continue
        parsed += 1
        position.legal_orders()
        assert Position.from_text(position.to_text()).to_text() == position.to_text()
    assert parsed > 100


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=st.text(alphabet="abcdefghijklmnopqrstuvwxyz12345678~@ABNQRKP-", max_size=8))
def test_random_order_text_is_legal_or_refused_with_a_reason(text):
    position = Position.from_text(START + " promote:NQ")
    try:
        order = position.parse_order(text)
    except (OrderTextError, IllegalOrderError) as exc:
        assert "order" in str(exc)
    else:
        assert order.text() == text.strip()


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(spec=st.lists(st.sampled_from(list("mcxfbslrvniWFDNAHCZGKRBQ()-0123456789 ") + ["(charge)", "(swap)", "(warlord)"]),
                     max_size=12).map("".join))
def test_random_movement_spec_compiles_or_names_the_term(spec):
    try:
        compile_spec(spec, "J")
    except SpecError as exc:
        assert "unit J" in str(exc)
