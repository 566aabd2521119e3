"""Metamorphic tests: symmetries of the rules must map order sets onto order sets.

(a) Mirroring files (a<->h): every movement pattern is left/right symmetric, so the order set of the
    mirrored position text is the mirrored order set, flat and cylindrical.
(b) Rotating every unit by k files (k = 1..7): the cylinder has no distinguished file, so with
    cylindrical=True (every unit wraps, RULINGS B17) -- and in default mode for positions made only of
    expansion units (always cylindrical, 16.0) -- the order set rotates with the board.
(c) Colour flip (swap colours, mirror ranks, swap side to move, swap the immunity flags w<->b): the
    rules treat Blue and Yellow alike, so order sets correspond and perft(..., 3) is preserved.

The transformations of position text and order text below are test helpers written for this file.
"""

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Position, perft
from tests.support import BASE_TOKENS, EXPANSION_TOKENS, board_text, norm

FILES = "abcdefgh"
TOKEN = re.compile(r"~?[A-Za-z]|\d")

SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- text helpers
def lower(tok):
    return tok[:-1] + tok[-1].lower()


def swapcase(tok):
    return tok[:-1] + (tok[-1].lower() if tok[-1].isupper() else tok[-1].upper())


def parse_board(field):
    units = {}
    for i, row in enumerate(field.split("/")):
        rank, file = 7 - i, 0
        for tok in TOKEN.findall(row):
            if tok.isdigit():
                file += int(tok)
            else:
                units[(file, rank)] = tok
                file += 1
    return units


def render_board(units):
    """units keyed by (file, rank), both 0-based."""
    return board_text({f"{'abcdefgh'[f]}{r + 1}": token for (f, r), token in units.items()})


def sq_name(fr):
    return FILES[fr[0]] + str(fr[1] + 1)


def sq_parse(name):
    return FILES.index(name[0]), int(name[1]) - 1


def transform_text(text, sqmap, flip_colour=False):
    """Apply a square map (and optionally the colour flip) to a whole position text."""
    fields = text.split()
    first, side, rest = fields[0], fields[1], fields[2:]
    board, _, barracks = first.partition("[")
    units = parse_board(board)
    new_units = {}
    for fr, tok in units.items():
        new_units[sqmap(fr)] = swapcase(tok) if flip_colour else tok
    out = render_board(new_units)
    if barracks:
        toks = TOKEN.findall(barracks.rstrip("]"))
        if flip_colour:
            toks = [swapcase(t) for t in toks]
        out += "[" + "".join(toks) + "]"
    if flip_colour:
        side = {"w": "b", "b": "w"}[side]
    new_rest = []
    for field in rest:
        if field.startswith("status:") and field != "status:-":
            items = []
            for item in field[len("status:"):].split(","):
                square, flags = item[:2], item[2:]
                if flip_colour:
                    flags = flags.translate(str.maketrans("wb", "bw"))
                items.append(sq_name(sqmap(sq_parse(square))) + flags)
            field = "status:" + ",".join(items)
        new_rest.append(field)
    return " ".join([out, side] + new_rest)


def transform_order(order, sqmap):
    if "@" in order:
        tok, square = order.split("@")
        return tok.upper() + "@" + sq_name(sqmap(sq_parse(square)))
    return sq_name(sqmap(sq_parse(order[:2]))) + sq_name(sqmap(sq_parse(order[2:4]))) + order[4:]


def order_list(text, cylindrical=False):
    orders = [norm(str(o)) for o in Position.from_text(text).legal_orders(cylindrical=cylindrical)]
    assert len(orders) == len(set(orders)), f"duplicate orders in {text}"
    return orders


def mirror_files(fr):
    return 7 - fr[0], fr[1]


def mirror_ranks(fr):
    return fr[0], 7 - fr[1]


def rotate(k):
    return lambda fr: ((fr[0] + k) % 8, fr[1])


# --------------------------------------------------------------------------- self-checks of helpers
def test_helpers_round_trip_and_involution():
    text = "r~b2k3/8/8/3Q4/8/8/1~P6/4K3[N~zp] w - - 0 1 promote:NQ status:d5o,e1w"
    assert transform_text(transform_text(text, mirror_files), mirror_files) == text
    flipped = transform_text(text, mirror_ranks, flip_colour=True)
    assert flipped.split()[0] == "4k3/1~p6/8/8/3q4/8/8/R~B2K3[n~ZP]"
    assert flipped.split()[1] == "b"
    assert flipped.endswith("status:d4o,e8b")
    assert transform_order("e7e8~b", mirror_files) == "d7d8~b"
    assert transform_order("n@e8", mirror_ranks) == "N@e1"
    assert transform_order("a4h4", rotate(1)) == "b4a4"


# --------------------------------------------------------------------------- strategies
SOVEREIGNS = ["K", "U", "~K"]


@st.composite
def position_texts(draw, tokens=tuple(BASE_TOKENS + EXPANSION_TOKENS), sovereigns=tuple(SOVEREIGNS),
                   barracks_tokens=tuple(BASE_TOKENS + EXPANSION_TOKENS), max_units=10, with_status=True):
    n = draw(st.integers(0, max_units))
    squares = draw(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)),
                            min_size=n + 2, max_size=n + 2, unique=True))
    units = {squares[0]: draw(st.sampled_from(sovereigns)),
             squares[1]: lower(draw(st.sampled_from(sovereigns)))}
    for fr in squares[2:]:
        tok = draw(st.sampled_from(tokens))
        units[fr] = tok if draw(st.booleans()) else lower(tok)
    text = render_board(units)
    barracks = draw(st.lists(st.sampled_from(barracks_tokens), max_size=2))
    barracks = [t if draw(st.booleans()) else lower(t) for t in barracks]
    if barracks:
        text += "[" + "".join(barracks) + "]"
    text += " " + draw(st.sampled_from("wb")) + " - - 0 1"
    text += draw(st.sampled_from(["", " promote:NQ", " promote:Q~B", " promote:-"]))
    if with_status:
        flagged = draw(st.lists(st.sampled_from(sorted(units)), max_size=2, unique=True))
        if flagged:
            items = [sq_name(fr) + draw(st.sampled_from(["o", "n", "w", "b"])) for fr in flagged]
            text += " status:" + ",".join(items)
    return text


# --------------------------------------------------------------------------- fixed positions
CHESS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
ZOO = "kqrbnpau/ecldghim/zofsxytw/8/8/ZOFSXYTW/ECLDGHIM/KQRBNPAU w - - 0 1"
EXP_ZOO = "~k~b~p~n~z~r~m~g/~h~l6/8/8/8/8/~H~L6/~K~B~P~N~Z~R~M~G w - - 0 1"
MIDGAME = ("r3k2~l/1p1zo1p1/2w1~n3/3Q4/2f1S3/1~G3P2/P1T2Y2/1~K2K2R[Pn] w - - 0 1 "
           "promote:NQ status:d5o,c4w")
SPARSE = "4k3/1P4p1/8/2Wo4/4M3/8/1p6/4K3[Ii] b - - 0 1 promote:Q~B"
FIXED = [CHESS, ZOO, EXP_ZOO, MIDGAME, SPARSE]


def check_mirror(text, cylindrical):
    orig = order_list(text, cylindrical)
    mirrored = order_list(transform_text(text, mirror_files), cylindrical)
    assert sorted(transform_order(o, mirror_files) for o in orig) == sorted(mirrored), text


def check_rotation(text, cylindrical, k):
    orig = order_list(text, cylindrical)
    rotated = order_list(transform_text(text, rotate(k)), cylindrical)
    assert sorted(transform_order(o, rotate(k)) for o in orig) == sorted(rotated), (text, k)


def check_colour_flip(text, cylindrical, depth):
    flipped = transform_text(text, mirror_ranks, flip_colour=True)
    orig = order_list(text, cylindrical)
    assert sorted(transform_order(o, mirror_ranks) for o in orig) == \
        sorted(order_list(flipped, cylindrical)), text
    if depth:
        assert perft(text, depth, cylindrical=cylindrical) == \
            perft(flipped, depth, cylindrical=cylindrical), text


# --------------------------------------------------------------------------- (a) mirror files
@settings(max_examples=200, **SETTINGS)
@given(position_texts(), st.booleans())
def test_mirror_files_mirrors_order_set(text, cylindrical):
    check_mirror(text, cylindrical)


def test_mirror_files_fixed_positions():
    for text in FIXED:
        for cylindrical in (False, True):
            check_mirror(text, cylindrical)


def test_mirror_files_preserves_perft_fixed():
    for text in (MIDGAME, SPARSE):
        for cylindrical in (False, True):
            assert perft(text, 2, cylindrical=cylindrical) == \
                perft(transform_text(text, mirror_files), 2, cylindrical=cylindrical)


# --------------------------------------------------------------------------- (b) rotate files
@settings(max_examples=120, **SETTINGS)
@given(position_texts())
def test_rotation_cylindrical_mode(text):
    for k in range(1, 8):
        check_rotation(text, True, k)


@settings(max_examples=120, **SETTINGS)
@given(position_texts(tokens=tuple(EXPANSION_TOKENS), sovereigns=("~K",),
                      barracks_tokens=tuple(EXPANSION_TOKENS)))
def test_rotation_expansion_only_default_mode(text):
    for k in range(1, 8):
        check_rotation(text, False, k)


def test_rotation_fixed_positions():
    for k in range(1, 8):
        for text in FIXED:
            check_rotation(text, True, k)
        check_rotation(EXP_ZOO, False, k)


def test_rotation_preserves_perft_fixed():
    for k in (1, 3, 4):
        assert perft(MIDGAME, 2, cylindrical=True) == \
            perft(transform_text(MIDGAME, rotate(k)), 2, cylindrical=True)
        assert perft(EXP_ZOO, 2) == perft(transform_text(EXP_ZOO, rotate(k)), 2)


def test_rotation_breaks_for_flat_base_units():
    # Sanity check that the rotation test can fail: a flat Rook on a1 vs. on b1 (own N on d1 / e1).
    text = "4k3/8/8/8/8/8/8/R2N3K w - - 0 1"
    orig = order_list(text)
    rotated = order_list(transform_text(text, rotate(1)))
    assert sorted(transform_order(o, rotate(1)) for o in orig) != sorted(rotated)


# --------------------------------------------------------------------------- (c) colour flip
@settings(max_examples=200, **SETTINGS)
@given(position_texts(), st.booleans())
def test_colour_flip_maps_order_set(text, cylindrical):
    check_colour_flip(text, cylindrical, depth=0)


@settings(max_examples=80, **SETTINGS)
@given(position_texts(max_units=8), st.booleans())
def test_colour_flip_preserves_perft_3(text, cylindrical):
    check_colour_flip(text, cylindrical, depth=3)


def test_colour_flip_fixed_positions():
    for text in FIXED:
        for cylindrical in (False, True):
            check_colour_flip(text, cylindrical, depth=0)
    for text in (CHESS, MIDGAME, SPARSE):
        check_colour_flip(text, False, depth=3)
    check_colour_flip(SPARSE, True, depth=3)


def test_chess_start_is_its_own_colour_flip():
    flipped = transform_text(CHESS, mirror_ranks, flip_colour=True)
    assert flipped.split()[0] == CHESS.split()[0] and flipped.split()[1] == "b"
    assert perft(CHESS, 3) == perft(flipped, 3) == 8902
