"""Differential tests: the engine's move generator against the slow independent reference
(tests/reference/movegen.py, written from rulings B1-B19 (docs/rules/rulings.md) without reading the engine).

Random positions are produced as position TEXT (RULINGS A3 + the contract's stock:/promote:/status:
fields) by one generator that runs either on hypothesis draws (shrinkable) or on a seeded
random.Random (bulk).  Every failure message carries the position text and both one-sided
differences, so a failing case can be pasted straight into `ftc perft`.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.notation import square_name
from tests.reference.movegen import (
    ALL_TYPES,
    FOOT,
    SOVEREIGN,
    generate,
    make,
    parse,
    reference_divide,
    reference_orders,
    reference_perft,
)
from tests.support import board_text

FILES = "abcdefgh"
NON_SOVEREIGN = [t for t in ALL_TYPES if t not in SOVEREIGN]
FOOT_TYPES = sorted(FOOT)


# --------------------------------------------------------------------------------------------
# Random position text
# --------------------------------------------------------------------------------------------

class RandomChooser:
    """Choice primitives over random.Random."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def chance(self, p):
        return self.rng.random() < p


class DrawChooser:
    """The same primitives over hypothesis draws, so that failures shrink."""

    def __init__(self, draw):
        self.draw = draw

    def int(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def pick(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def chance(self, p):
        # integer draw keeps shrinking toward "no"
        return self.draw(st.integers(0, 99)) < int(p * 100)


def tok_text(tok: str, color: str) -> str:
    return tok if color == "w" else tok.lower()


def random_position(ch, max_units=18) -> tuple[str, str | None]:
    """Return (position text, promote argument or None)."""
    board = {}

    def free_square(rank_range=(0, 7)):
        for _ in range(64):
            s = ch.int(rank_range[0], rank_range[1]) * 8 + ch.int(0, 7)
            if s not in board:
                return s
        return None

    # Sovereigns: normally one (sometimes two) per side, occasionally none for one side.
    for color in "wb":
        if ch.chance(0.06):
            continue
        for _ in range(1 + ch.chance(0.15)):
            s = free_square()
            if s is not None:
                board[s] = (ch.pick(["K", "K", "U", "~K"]), color)

    n = ch.int(0, max_units)
    for _ in range(n):
        color = ch.pick("wb")
        if ch.chance(0.25):
            tok = ch.pick(FOOT_TYPES)
            # Foot units near their eighth rank (promotion), or on their first two ranks
            if ch.chance(0.7):
                ranks = (5, 7) if color == "w" else (0, 2)
            else:
                ranks = (0, 1) if color == "w" else (6, 7)
            s = free_square(ranks)
        else:
            tok = ch.pick(NON_SOVEREIGN if ch.chance(0.9) else ALL_TYPES)
            s = free_square()
        if s is not None:
            board[s] = (tok, color)

    text = board_text({square_name(sq): tok_text(*u) for sq, u in board.items()})

    barracks = []
    if ch.chance(0.5):
        for _ in range(ch.int(1, 5)):
            barracks.append(tok_text(ch.pick(ALL_TYPES if ch.chance(0.6) else FOOT_TYPES),
                                     ch.pick("wb")))
    if barracks:
        text += "[" + "".join(barracks) + "]"
    elif ch.chance(0.1):
        text += "[]"

    text += " " + ch.pick("wb")
    if ch.chance(0.7):
        text += " - - 0 1"

    if ch.chance(0.35):
        if ch.chance(0.15):
            text += " stock:-"
        else:
            items = {}
            for _ in range(ch.int(1, 8)):
                items[ch.pick(ALL_TYPES)] = ch.int(0, 3)
            text += " stock:" + "".join(f"{t}{n}" for t, n in items.items())
    if ch.chance(0.35):
        if ch.chance(0.15):
            text += " promote:-"
        else:
            types = {ch.pick(ALL_TYPES) for _ in range(ch.int(1, 6))}
            text += " promote:" + "".join(sorted(types))
    if board and ch.chance(0.3):
        items = {}
        for _ in range(ch.int(1, 3)):
            s = ch.pick(sorted(board))
            flags = ch.pick(["o", "n", "w", "b", "wb", "on", "ow"])
            items[s] = flags
        text += " status:" + ",".join(FILES[s % 8] + str(s // 8 + 1) + fl
                                       for s, fl in sorted(items.items()))

    promote_arg = None
    if ch.chance(0.1):
        promote_arg = "".join(sorted({ch.pick(ALL_TYPES) for _ in range(ch.int(1, 4))}))
    return text, promote_arg


@st.composite
def positions(draw, max_units=18):
    return random_position(DrawChooser(draw), max_units)


# --------------------------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------------------------

def engine_orders(text, cylindrical, promote):
    pos = engine.Position.from_text(text, promote=promote)
    return {o.text() for o in pos.legal_orders(cylindrical=cylindrical)}


def assert_same_orders(text, cylindrical, promote=None):
    got = engine_orders(text, cylindrical, promote)
    want = reference_orders(text, cylindrical, promote)
    assert got == want, (
        f"\nposition: {text!r} cylindrical={cylindrical} promote={promote!r}"
        f"\nonly in engine:    {sorted(got - want)}"
        f"\nonly in reference: {sorted(want - got)}")
    return len(want)


def assert_same_perft(text, depth, cylindrical, promote=None):
    got = engine.perft(text, depth, cylindrical=cylindrical, promote=promote)
    want = reference_perft(text, depth, cylindrical, promote)
    if got != want:
        ediv = engine.divide(text, depth, cylindrical=cylindrical, promote=promote)
        rdiv = reference_divide(text, depth, cylindrical, promote)
        diff = {k: (ediv.get(k), rdiv.get(k)) for k in set(ediv) | set(rdiv)
                if ediv.get(k) != rdiv.get(k)}
        raise AssertionError(
            f"\nposition: {text!r} depth={depth} cylindrical={cylindrical} promote={promote!r}"
            f"\nengine {got} reference {want}; differing root orders (engine, reference): {diff}")


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------

@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_orders_match_reference(case):
    text, promote = case
    for cylindrical in (False, True):
        assert_same_orders(text, cylindrical, promote)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_units=10), st.booleans())
def test_perft2_matches_reference(case, cylindrical):
    text, promote = case
    assert_same_perft(text, 2, cylindrical, promote)


def test_orders_match_reference_bulk():
    rng = random.Random(20240601)
    chooser = RandomChooser(rng)
    compared = orders = 0
    for _ in range(10000):
        text, promote = random_position(chooser)
        for cylindrical in (False, True):
            orders += assert_same_orders(text, cylindrical, promote)
            compared += 1
    assert compared == 20000
    assert orders > 400_000  # the positions were not trivially empty


def test_perft2_matches_reference_bulk():
    rng = random.Random(7)
    chooser = RandomChooser(rng)
    nodes = 0
    for i in range(600):
        text, promote = random_position(chooser, max_units=12)
        assert_same_perft(text, 2, i % 2 == 1, promote)
        nodes += reference_perft(text, 2, i % 2 == 1, promote)
    assert nodes > 200_000


def test_every_unit_alone_on_every_square():
    """Each of the 34 types, both colours, on each square of an otherwise empty board (Sovereigns
    on a1/h8), both modes: the full single-unit movement tables."""
    compared = 0
    for tok in ALL_TYPES:
        for color in "wb":
            for sq in range(1, 63):
                units = {0: "K", 63: "k", sq: tok_text(tok, color)}
                text = board_text({square_name(s): u for s, u in units.items()}) + " " + color
                for cylindrical in (False, True):
                    assert_same_orders(text, cylindrical)
                    compared += 1
    assert compared == 34 * 2 * 62 * 2


def test_status_flags_lapse():
    """Contract status flags across turns (C1, C8: each order is one turn).
    `o` (already ordered this turn) lapses when the turn passes: Blue K b1 has 5 orders (b1a1
    captures the last Yellow Sovereign, 0 below it); after each other one the Yellow King on a1
    has 3 orders, perft 2 = 12.
    `n` (may not be ordered) marks units that False Orders (13.0) bars from their
    owner's next turn, so it lasts until its owner's turn is over: the flagged Yellow King has no
    order in Yellow's coming turn (perft 2 = 0), and a flagged Blue King with Yellow to move is
    still barred in Blue's turn, free again in Blue's turn after that."""
    text = "8/8/8/8/8/8/8/kK6 w - - 0 1 status:a1o"
    assert reference_perft(text, 2) == 12
    assert engine.perft(text, 2) == 12
    text = "8/8/8/8/8/8/8/kK6 w - - 0 1 status:a1n"
    assert reference_perft(text, 2) == 0
    assert engine.perft(text, 2) == 0
    text = "7k/8/8/8/8/8/8/RK6 b - - 0 1 status:b1n"
    for d in (1, 2, 3, 4):
        assert engine.perft(text, d) == reference_perft(text, d)
    pos = engine.Position.from_text(text)
    pos.push(pos.parse_order("h8g8"))
    assert {o.text()[:2] for o in pos.legal_orders()} == {"a1"}
    pos.push(pos.parse_order("a1a2"))
    pos.push(pos.parse_order("g8h8"))
    assert "b1b2" in {o.text() for o in pos.legal_orders()}


def test_promoted_unit_does_not_inherit_immunity():
    """B18: the Foot unit is replaced by a unit taken from the Stock and itself returns to the Stock;
    status flags are per unit (A2), so the immunity of the Pawn (`w`: until Blue's next turn) leaves
    with it and the new Queen on c8 can be captured by the Rook during Yellow's turn."""
    text = "7k/2P5/8/8/8/8/8/K1r5 w - - 0 1 stock:Q1 promote:Q status:c7w"
    ref = parse(text)
    assert "c1c8" in generate(make(ref, generate(ref)["c7c8q"]))
    pos = engine.Position.from_text(text)
    pos.push(pos.parse_order("c7c8q"))
    assert "c1c8" in {o.text() for o in pos.legal_orders()}
    assert_same_perft(text, 2, False)


def test_perft_fixed_positions():
    cases = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 promote:NBRQ", 3),
        ("r1f1k2w/1p1y1T2/2z1~n3/1o3l2/3~L4/2g1X3/1I3P2/W2K1S1~B[Im~p] w - - 0 1", 2),
        ("r1f1k2w/1p1y1T2/2z1~n3/1o3l2/3~L4/2g1X3/1I3P2/W2K1S1~B[Im~p] b - - 0 1", 2),
        ("4k3/1P1T1M1I/8/8/8/8/1p1t1m1i/4K3[~P~M] w - - 0 1 stock:Q1~B1I1", 2),
        ("4k3/1P1T1M1I/8/8/8/8/1p1t1m1i/4K3[~P~M] b - - 0 1 stock:Q1~B1I1", 2),
    ]
    for text, depth in cases:
        for cylindrical in (False, True):
            assert_same_perft(text, depth, cylindrical)
