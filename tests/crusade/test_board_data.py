"""Crusade & Conquer's board and pieces as data: the [board] levels and X squares, the [rules]
switches and the unit fields, their located errors, and the level rules applied by the one generator
to movements of any unit (RULINGS H1, H3-H7).

Every expected set or count below is derived by hand in the comment above it (or comes from the
oracle named there); nothing is computed by the engine.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine._position import BoardCore, decode_order
from engine.catalog import Catalog, CatalogError, crusade_catalog, default_catalog, parse_square, square_name
from engine.crusade.position import (
    CrusadePosition,
    LayoutError,
    MoveTextError,
    PositionTextError,
    layout_catalog,
    layout_text,
)
from engine.notation import parse_position
from engine.position import load_core
from tests.support import ROOT

FLAT = "0" * 8


def sq(name):
    return parse_square(name)


# ------------------------------------------------------------------------------ the shipped data

def test_shipped_board_is_the_provisional_layout_of_h1():
    # H1: upper floor d1 e1 d8 e8 (2); lower floor c1 f1 c2 d2 e2 f2 and c8 f8 c7 d7 e7 f7 (1);
    # every other square the field (0). X: e1 (Blue), e8 (Red).
    board = crusade_catalog().board
    upper = {"d1", "e1", "d8", "e8"}
    lower = {"c1", "f1", "c2", "d2", "e2", "f2", "c8", "f8", "c7", "d7", "e7", "f7"}
    for s in range(64):
        want = 2 if square_name(s) in upper else 1 if square_name(s) in lower else 0
        assert board.heights[s] == want, square_name(s)
    assert board.x == (sq("e1"), sq("e8"))
    assert layout_text(crusade_catalog()) == \
        "00122100/00111100/00000000/00000000/00000000/00000000/00111100/00122100 e1 e8"


def test_shipped_rules_and_pieces():
    cat = crusade_catalog()
    assert (cat.rules.promotion, cat.rules.deploys, cat.rules.legality, cat.rules.foot_resets_clock) == \
        ("fallen", False, "chess", True)
    assert [u.token for u in cat.units] == list("KQRBNPDF")
    assert [u.token for u in cat.units if u.captured_to == "barracks"] == list("QRBNDF")   # H5
    assert [u.token for u in cat.units if u.captured_by == "sovereign"] == ["F"]          # H6
    assert [u.token for u in cat.units if u.wins_on_x] == ["F"]                           # H8b
    assert cat["D"].compiled.patterns == {"flight": 3}                                    # H7: m | c


def test_flat_catalogs_have_no_levels():
    # For the Crown and King's Ransom: no heights, no X, For the Crown's rule switches.
    from engine.catalog import ransom_catalog
    for cat in (default_catalog(), ransom_catalog()):
        assert cat.board.heights == () and cat.board.x == ()
        assert cat.rules.promotion == "stock" and cat.rules.legality == "sovereign-capture"


def test_the_alpha_beta_refuses_levels_without_chess_legality_rather_than_search_them_wrongly():
    # The search knows levels, X squares and the [rules] switches with chess legality (Crusade &
    # Conquer, docs/crusade.md); the same board with Sovereign-capture legality (C8) is refused.
    from engine._search import AlphaBeta, Evaluation
    from engine.board.evaluate import default_weights
    from engine.catalog import Catalog, CatalogRules
    crusade = crusade_catalog()
    weights = default_weights().kernel_dict(crusade)
    for make in (AlphaBeta, Evaluation):
        make(crusade.tables, weights)                                   # supported: no error
    capture = Catalog(list(crusade.units), "levels-with-capture.toml", crusade.board,
                      CatalogRules(promotion="fallen", deploys=False, legality="sovereign-capture"))
    for make in (AlphaBeta, Evaluation):
        with pytest.raises(ValueError, match="only with chess legality .* levels-with-capture.toml does not"):
            make(capture.tables, weights)


# ------------------------------------------------------------------------------ located errors

_UNITS = '''
[[unit]]
token = "K"
name = "King"
classes = ["Sovereign"]
price = 0
stock = 0
moves = "K"
'''


def _board(**fields):
    lines = ["[board]"]
    for key, value in fields.items():
        lines.append(f"{key} = {value}")
    return "\n".join(lines) + "\n" + _UNITS


ROWS_OK = '["00122100","00111100","00000000","00000000","00000000","00000000","00111100","00122100"]'


@pytest.mark.parametrize("fields, message", [
    ({"heights": '["0000"]'}, "<t>: table [board]: field 'heights': expected 8 rows (ranks 8 to 1), got 1"),
    ({"heights": ROWS_OK.replace('"00000000","00111100","00122100"]', '"00030000","00111100","00122100"]')},
     "<t>: table [board]: field 'heights': d3: height must be 0, 1 or 2, got '3'"),
    ({"heights": ROWS_OK.replace('"00111100","00122100"]', '"0011110","00122100"]')},
     "<t>: table [board]: field 'heights': rank 2: expected 8 heights (files a-h), got 7 in '0011110'"),
    ({"heights": "3"}, "<t>: table [board]: field 'heights': expected a list of 8 strings of heights"),
    ({"x": '["e1"]'}, "<t>: table [board]: field 'x': expected two square names"),
    ({"x": '["e1", "z9"]'}, "<t>: table [board]: field 'x': the other side's X: 'z9' is not a square of the 8x8 board"),
    ({"files": 3, "x": '["e1", "a6"]'}, "<t>: table [board]: field 'x': Blue's X: 'e1' is not a square of the 3x8 board"),
    ({"x": '["e1", "e1"]'}, "<t>: table [board]: field 'x': both X squares are e1: they must differ"),
    ({"levels": 1}, "<t>: table [board]: unknown field 'levels'; known: files, ranks, heights, x"),
])
def test_board_data_errors_name_the_field_and_square(fields, message):
    with pytest.raises(CatalogError) as err:
        Catalog.from_toml(_board(**fields), "<t>")
    assert str(err.value).startswith(message)


@pytest.mark.parametrize("table, message", [
    ('promotion = "any"', "<t>: table [rules]: field 'promotion' must be one of 'stock', 'fallen', got 'any'"),
    ('deploys = "no"', "<t>: table [rules]: field 'deploys' must be one of true, false, got 'no'"),
    ('legality = 1', "<t>: table [rules]: field 'legality' must be one of 'sovereign-capture', 'chess', got 1"),
    ('clock = 1', "<t>: table [rules]: unknown field 'clock'; known: promotion, deploys, legality, foot_resets_clock"),
])
def test_rules_table_errors(table, message):
    with pytest.raises(CatalogError) as err:
        Catalog.from_toml(f"[rules]\n{table}\n{_UNITS}", "<t>")
    assert str(err.value) == message


@pytest.mark.parametrize("field, message", [
    ('captured_to = "void"', "field 'captured_to' must be one of 'stock', 'barracks', 'gone', got 'void'"),
    ('captured_by = "king"', "field 'captured_by' must be one of 'any', 'sovereign', got 'king'"),
    ("wins_on_x = true", "unit K: field 'wins_on_x' needs the X squares (field 'x' of the [board] table)"),
    ('moves = "K (fly)"', "unknown pattern (fly); known: charge, flight, gryphon, phantom, sphinx, swap, warlord"),
])
def test_unit_field_errors(field, message):
    with pytest.raises(CatalogError) as err:
        Catalog.from_toml(_UNITS.replace('moves = "K"', 'moves = "K"\n' + field)
                          if not field.startswith("moves") else _UNITS.replace('moves = "K"', field), "<t>")
    assert message in str(err.value) and str(err.value).startswith("<t>")


@pytest.mark.parametrize("text, message", [
    ("00122100/00111100 e1 e8", "layout: levels: expected 8 rows (ranks 8 to 1), got 2"),
    ("00122100/00111100/0/00000000/00000000/00000000/00111100/00122100 e1 e8",
     "layout: levels: rank 6: expected 8 heights (files a-h), got 1 in '0'"),
    ("00122100/00111100/00000000/00000000/00000000/00000000/00111100/00122100 e1", "layout: expected"),
    ("00122100/00111100/00000000/00000000/00000000/00000000/00111100/00122100 e1 e9",
     "layout: X squares: the other side's X: 'e9' is not a square of the 8x8 board"),
])
def test_layout_text_errors(text, message):
    with pytest.raises(LayoutError) as err:
        layout_catalog(text)
    assert str(err.value).startswith(message)


# ------------------------------------------------------------------------------ flat boards

def _fairy_lines():
    for line in (ROOT / "tests" / "data" / "perft_fairy.epd").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            parts = [p.strip() for p in line.split(";")]
            counts = {int(p[1:].split()[0]): int(p.split()[1]) for p in parts[1:] if p.startswith("D")}
            yield parts[0], counts


def test_a_board_of_equal_levels_moves_every_fairy_unit_as_the_flat_board():
    # Levels that never change stop nothing: with every square at level 0 the level rules' walk
    # (no slider lookups, H3's stop test on every square) must give Fairy-Stockfish's counts
    # (tests/data/perft_fairy.epd, source pyffish) for every unit of For the Crown, D1-D3.
    cat = default_catalog()
    level = cat.with_board(replace(cat.board, heights=(0,) * 64))
    checked = 0
    for text, counts in _fairy_lines():
        core = BoardCore(level.tables)
        load_core(core, parse_position(text, level))
        for depth in (1, 2, 3):
            if depth in counts:
                assert core.perft(depth) == counts[depth], f"D{depth} {text}"
                checked += 1
    assert checked >= 30


# ------------------------------------------------------------------------------ level rules, any unit

_PATTERN_UNITS = _UNITS + '''
[[unit]]
token = "W"
name = "Warlord"
price = 0
stock = 0
moves = "(warlord)"

[[unit]]
token = "C"
name = "Charger"
price = 0
stock = 0
moves = "(charge)3"

[[unit]]
token = "G"
name = "Gryphon"
price = 0
stock = 0
moves = "(gryphon)"

[[unit]]
token = "S"
name = "Sniper"
price = 0
stock = 0
moves = "mQ2 cQ2-"
'''


def _levels_catalog(rows):
    board = "[board]\nheights = [" + ",".join(f'"{r}"' for r in rows) + ']\nx = ["e1", "e8"]\n'
    return Catalog.from_toml(board + _PATTERN_UNITS, "<levels>")


def _targets(cat, pieces, square):
    """Destinations from ``square`` with ``pieces`` ({square: (token, colour)}) on the board."""
    core = BoardCore(cat.tables)
    n = len(cat.units)
    core.setup([(sq(s), cat[t].id, c) for s, (t, c) in pieces.items()], [[0] * n, [0] * n], [0] * n, 0, 0, 0, 1, [])
    return sorted(square_name(decode_order(code)[2]) for code in core.generate(over_without_sovereign=False)
                  if decode_order(code)[1] == sq(square))


# d4 at level 1 and e4 at level 2 on an otherwise flat board (rank 8 first).
BUMP = [FLAT, FLAT, FLAT, FLAT, "00012000", FLAT, FLAT, FLAT]


def test_warlord_second_step_only_from_a_square_at_its_level():
    # Warlord on c4 (level 0): first steps b3 b4 b5 c3 c5 d3 d5 and d4 (level 1; a step that changes
    # level ends the move: H3). Second steps from the seven level-0 squares: every square within two
    # King steps of c4 except through d4 -- a2..e2 row (a2 b2 c2 d2 e2), rank 3 a3..e3, rank 4 a4 b4
    # (c4 itself: back home, allowed by B10) e4 is level 2: from d3/d5 (level 0) to e4 is two levels:
    # refused; rank 5 a5..e5, rank 6 a6..e6. King far away on h1.
    cat = _levels_catalog(BUMP)
    got = _targets(cat, {"c4": ("W", 0), "h1": ("K", 0), "h8": ("K", 1)}, "c4")
    want = sorted([f"{f}{r}" for r in (2, 3, 5, 6) for f in "abcde"] + ["a4", "b4", "c4", "d4"])
    assert got == want


def test_charge_stops_at_the_first_level_change():
    # Charger on a4 (level 0), Red pawn-less board: right b4 c4 (level 0), d4 (level 1: the charge
    # ends there, H3), so e4 (range 3 would reach d4 only anyway); up a5 a6 a7; down a3 a2 a1.
    # Red King on d4: the charge captures it on d4 and ends.
    cat = _levels_catalog(BUMP)
    assert _targets(cat, {"a4": ("C", 0), "h1": ("K", 0), "h8": ("K", 1)}, "a4") == \
        sorted(["b4", "c4", "d4", "a5", "a6", "a7", "a3", "a2", "a1"])
    assert "d4" in _targets(cat, {"a4": ("C", 0), "h1": ("K", 0), "d4": ("K", 1)}, "a4")


def test_gryphon_ride_ends_after_a_step_that_changes_level():
    # Gryphon on c3 (level 0): diagonal step to d4 (level 1) ends the move there (H3), no ride
    # after it; to b4, b2, d2 (level 0) and then straight outward rides: from b4 left a4, up b5-b8;
    # from b2 left a2, down b1; from d2 right e2-h2, down d1. King h8 Red, h1... Blue King on h3.
    cat = _levels_catalog(BUMP)
    got = _targets(cat, {"c3": ("G", 0), "h3": ("K", 0), "h8": ("K", 1)}, "c3")
    want = sorted(["d4", "b4", "a4", "b5", "b6", "b7", "b8", "b2", "a2", "b1",
                   "d2", "e2", "f2", "g2", "h2", "d1"])
    assert got == want


def test_sniper_ride_ends_on_the_first_square_at_another_level():
    # d4 and e4 both at level 1 on a flat board. Sniper on a4 (level 0): marches 1-2 squares (mQ2),
    # captures at distance 2 or more past empty squares (cQ2-). To the right its ride reaches d4,
    # the first square at another level, and ends there (H3): a Red King on d4 can be captured, one
    # on e4 (same level as d4, one above a4) cannot.
    cat = _levels_catalog([FLAT, FLAT, FLAT, FLAT, "00011000", FLAT, FLAT, FLAT])
    far = _targets(cat, {"a4": ("S", 0), "a1": ("K", 0), "e4": ("K", 1)}, "a4")
    assert "e4" not in far and {"b4", "c4"} <= set(far)
    assert "d4" in _targets(cat, {"a4": ("S", 0), "a1": ("K", 0), "d4": ("K", 1)}, "a4")


# ------------------------------------------------------------------------------ position and move text

@pytest.mark.parametrize("text, message", [
    ("", "needs at least 3 fields: <board> <side> <fallen>, got 0"),
    ("8/8/8/8/8/8/8/K6k w", "needs at least 3 fields"),
    ("8/8/8/8/8/8/K6k w -", "board: needs 8 ranks separated by '/', got 7"),
    ("8/8/8/8/8/8/8/K6kx w -", "board: rank 1: 'x' is not a piece letter (KQRBNPDF, lowercase for Red) or a digit 1-8"),
    ("8/8/8/8/8/8/8/K5k w -", "board: rank 1 has 7 squares, needs 8"),
    ("8/8/8/8/8/8/8/K7k w -", "board: rank 1 has more than 8 squares"),
    ("8/8/8/8/8/8/8/K7 w -", "board: Red needs exactly one King, found 0"),
    ("8/8/8/8/8/8/8/KP5k w -", "board: Blue Pawn on b1, its own first rank, where no Pawn can stand"),
    ("8/8/8/8/8/8/8/K6k x -", "side to move: 'x' must be 'w' (Blue) or 'b' (Red)"),
    ("8/8/8/8/8/8/8/K6k w Q", "fallen pieces: 'Q' must be '-' or letters in brackets, e.g. [Qn]"),
    ("8/8/8/8/8/8/8/K6k w [Pq]", "fallen pieces: 'P' cannot be listed: a Pawn is never revived (RULINGS H5)"),
    ("8/8/8/8/8/8/8/K6k w [X]", "fallen pieces: 'X' is not a piece letter (QRBNDF)"),
    ("8/8/8/8/8/8/8/K6k w - 3", "after the fallen pieces: expected '<halfmove> <fullmove>'"),
    ("8/8/8/8/8/8/8/K6k w - x 1", "halfmove clock: must be an integer 0..1000000, got 'x'"),
    ("8/8/8/8/8/8/8/K6k w - 0 0", "fullmove number: must be an integer 1..1000000, got '0'"),
    ("8/8/8/8/8/8/8/K6k w - 0 1 revived:e8", "revived: e8 must hold a Flag Bearer standing on the opposing side's X"),
    ("8/8/8/8/8/8/8/K6k w - 0 1 revived:z1", "revived: 'z1' is not a square of the board"),
    ("7k/8/8/8/8/8/8/K6R w - 0 1", "board: Red's King is attacked with Blue to move"),
    (None, "a position text must be a string, got NoneType"),
])
def test_position_text_errors_are_located(text, message):
    with pytest.raises(PositionTextError) as err:
        CrusadePosition.from_text(text)
    assert str(err.value).startswith(message)


def test_x_win_and_revived_flag_bearer_in_text():
    # Blue Flag Bearer on e8 (Red's X) with Red to move and not listed: it has just stepped there and
    # won (H8b): no moves, status x-win; listed as revived: the game goes on (Red King a8 moves:
    # a7 b7 b8 = 3).
    won = CrusadePosition.from_text("k3F3/8/8/8/8/8/8/K7 b - 0 1")
    assert won.status() == "x-win" and won.legal_moves() == [] and won.perft(2) == 0
    alive = CrusadePosition.from_text("k3F3/8/8/8/8/8/8/K7 b - 0 1 revived:e8")
    assert alive.status() == "play" and sorted(alive.legal_moves()) == ["a8a7", "a8b7", "a8b8"]
    assert alive.text() == "k3F3/8/8/8/8/8/8/K7 b - 0 1 revived:e8"
    assert won.core.key != alive.core.key
    # With Blue to move the mark is implied, and written.
    assert CrusadePosition.from_text("k3F3/8/8/8/8/8/8/K7 w - 0 1").text() == \
        "k3F3/8/8/8/8/8/8/K7 w - 0 1 revived:e8"


def test_promotion_exchange_and_keep_with_the_clock():
    # Blue Pawn b7, fallen Blue Queen and Red Knight; Blue K d4, Red k h8... b7b8 as keep (=P) or
    # exchange for the Queen (=Q); the Red Knight is Red's and cannot be chosen. After =Q the Queen
    # stands on b8, Blue's fallen list is empty, Red's still holds the Knight; the Pawn move resets
    # the clock (H8c) and Red's move ends Blue's fullmove 7.
    pos = CrusadePosition.from_text("7k/1P6/8/8/3K4/8/8/8 w [Qn] 12 7")
    assert sorted(m for m in pos.legal_moves() if m.startswith("b7")) == ["b7b8=P", "b7b8=Q"]
    pos.push("b7b8=q")
    assert pos.text() == "1Q5k/8/8/8/3K4/8/8/8 b [n] 0 7"
    pos.push("h8g7")
    assert pos.text() == "1Q6/6k1/8/8/3K4/8/8/8 w [n] 1 8"
    pos.pop()
    pos.pop()
    pos.push("b7b8=P")
    assert pos.text() == "1P5k/8/8/8/3K4/8/8/8 b [Qn] 0 7"


@pytest.mark.parametrize("move, message", [
    ("e2", "move 'e2': expected <from><to>[=<type>], e.g. e2e4 or e7e8=Q"),
    ("e2e9", "move 'e2e9': expected <from><to>[=<type>]"),
    ("e2e4=X", "move 'e2e4=X': after '=' comes one type letter (QRBNDF or P)"),
    ("e2e4", "move 'e2e4' is not legal in rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w - 0 1"),
    (None, "a move text must be a string, got NoneType"),
])
def test_move_text_errors(move, message):
    with pytest.raises(MoveTextError) as err:
        CrusadePosition.from_text("startpos").parse_move(move)
    assert str(err.value).startswith(message)
