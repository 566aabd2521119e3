"""Tests of the slow Crusade & Conquer reference (tests/reference/crusade.py) itself.

Every count below is derived BY HAND in the comment above it, from the rulebook and RULINGS H1-H9,
not from running the reference.  Default layout (H1): heights 2 on d1 e1 d8 e8, 1 on c1 f1 c2-f2 and
c8 f8 c7-f7, 0 elsewhere; X e1 (Blue) and e8 (Red).  A King on a1 with nothing near has a2 b1 b2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reference import crusade
from tests.reference.crusade import (
    HEIGHT_ROWS,
    START_TEXT,
    Layout,
    MoveTextError,
    PositionTextError,
    divide,
    legal_moves,
    move_text,
    parse,
    perft,
    play,
    status,
)

EPD = Path(__file__).resolve().parent / "data" / "crusade_perft.epd"


def moves(text, layout=crusade.DEFAULT_LAYOUT):
    return sorted(move_text(m) for m in legal_moves(parse(text, layout)))


def moves_from(text, square, layout=crusade.DEFAULT_LAYOUT):
    return sorted(m for m in moves(text, layout) if m.startswith(square))


def layout_with(changes):
    """The default layout with some squares' heights changed: {"b2": 2, ...}."""
    rows = [list(r) for r in HEIGHT_ROWS]
    for name, height in changes.items():
        f, r = crusade.sq_parse(name)
        rows[7 - r][f] = str(height)
    return Layout.from_rows(["".join(r) for r in rows], "e1", "e8")


# --------------------------------------------------------------------------------------------
# The start position (H1, H2)
# --------------------------------------------------------------------------------------------

def test_start_position_moves():
    # Blue: Pawns a2 b2 g2 h2 on the field: one and two steps = 8.  Castle Pawns c2 f2 (height 1):
    # one step down to c3 f3, no double step (H5) = 2.  Knights b1 -> a3 c3, g1 -> f3 h3 (d2, e2
    # hold teammates) = 4.  Dragon d2: steps c3 d3 e3 (height 1 -> 0); every teammate line it could
    # fly over (c2-b2-a2, e2-h2, c1, d1, e1) runs off the board = 3.  Flag Bearer e2: d3 f3 (d1 f1
    # are teammates) = 2.  Rooks, Bishops, Queen, King are boxed in.  8 + 2 + 4 + 3 + 2 = 19.
    assert moves("startpos") == sorted([
        "a2a3", "a2a4", "b2b3", "b2b4", "g2g3", "g2g4", "h2h3", "h2h4", "c2c3", "f2f3",
        "b1a3", "b1c3", "g1f3", "g1h3", "d2c3", "d2d3", "d2e3", "e2d3", "e2f3"])
    # D2: Red's position mirrors Blue's, and no Blue first move reaches rank 5 or attacks a
    # square Red's first moves use, so Red has 19 replies to each: 19 * 19 = 361.
    assert perft(START_TEXT, 2) == 361


# --------------------------------------------------------------------------------------------
# Levels (H3, H4)
# --------------------------------------------------------------------------------------------

def test_rook_slide_stops_on_entering_the_castle():
    # Blue R a2, K h4; Red k h6.  Rook: a3-a8 (6), a1 (1), right b2 then c2, where the height
    # changes 0 -> 1 and the slide ends (H3): 2.  King h4: g3 h3 g4 (g5 h5 are next to k h6) = 3.
    text = "8/8/7k/8/7K/8/R7/8 w - 0 1"
    assert moves_from(text, "a2") == sorted(
        ["a2a3", "a2a4", "a2a5", "a2a6", "a2a7", "a2a8", "a2a1", "a2b2", "a2c2"])
    assert perft(text, 1) == 12


def test_slide_stops_at_a_level_change_with_and_without_a_capture():
    # Red n on c2 (height 1): the Rook's slide to the right captures there and ends (b2, c2x).
    # Red n on d2 instead: the slide still ends on c2 (level change), so d2 is out of reach.
    # Both: rook 6 + 1 + 2 = 9, King h4 g3 h3 g4 = 3 (the knight reaches neither), 12.
    with_capture = "8/8/7k/8/7K/8/R1n5/8 w - 0 1"
    assert moves_from(with_capture, "a2")[-2:] == ["a2b2", "a2c2"]
    assert perft(with_capture, 1) == 12
    beyond = "8/8/7k/8/7K/8/R2n4/8 w - 0 1"
    assert "a2d2" not in moves(beyond) and "a2c2" in moves(beyond)
    assert perft(beyond, 1) == 12


def test_queen_on_the_upper_floor_stops_at_every_level_change():
    # Blue Q d1 (height 2), K a1; Red k h8.  Queen: left c1 (2 -> 1, ends); right e1 (2, same),
    # then f1 (2 -> 1, ends); up d2 (ends); diagonals c2, e2 (end) = 6.  King a1 = 3.  9.
    text = "7k/8/8/8/8/8/8/K2Q4 w - 0 1"
    assert moves_from(text, "d1") == sorted(["d1c1", "d1e1", "d1f1", "d1d2", "d1c2", "d1e2"])
    assert perft(text, 1) == 9


def test_two_level_step_refused_on_a_passed_in_layout():
    # A layout with b2 at height 2 next to field squares (H3: no movement crosses two levels).
    # Blue K a1: a2, b1 (b2 refused) = 2.  Blue R b4: up b5-b8 (4), down b3 only (b3 -> b2 climbs
    # two levels), left a4, right c4-h4 (6) = 12.  Red k h8.  14.
    layout = layout_with({"b2": 2})
    text = "7k/8/8/8/1R6/8/8/K7 w - 0 1"
    assert moves_from(text, "a1", layout) == ["a1a2", "a1b1"]
    assert "b4b3" in moves(text, layout) and "b4b2" not in moves(text, layout)
    assert perft(parse(text, layout), 1) == 14
    # The default layout has no such step: K a1 also has b2, R b4 also b2 and b1: 17.
    assert perft(text, 1) == 17


def test_knight_leaps_check_the_height_difference_only():
    # Blue N d1 (height 2): f2 (height 1) allowed; b2, c3, e3 (height 0) differ by 2: refused (H4).
    # Blue N e2 (height 1): c1 (1, difference 0), c3 d4 f4 g3 g1 (0, difference 1), jumping over
    # whatever stands between = 6.  King a1 = 3.  1 + 6 + 3 = 10.
    text = "7k/8/8/8/8/8/4N3/K2N4 w - 0 1"
    assert moves_from(text, "d1") == ["d1f2"]
    assert moves_from(text, "e2") == sorted(["e2c1", "e2c3", "e2d4", "e2f4", "e2g3", "e2g1"])
    assert perft(text, 1) == 10


# --------------------------------------------------------------------------------------------
# Pawns (H5)
# --------------------------------------------------------------------------------------------

def test_pawn_steps_with_levels_on_a_passed_in_layout():
    # Layout: a3 height 1, b4 height 1, d4 height 2, the rest as H1.  Blue K h1, P a2 b2 c3;
    # Red k h8, n d4.  P a2: a3 (0 -> 1), and no double step: H3 stops it on a3.  P b2: b3, and
    # b4 (b3 level with b2, b4 one level up: the second square may change level).  P c3: c4; the
    # capture on d4 climbs two levels: refused.  K h1: g1 g2 h2 (the knight on d4, height 2,
    # reaches no square: all its landing squares are two levels down).  1 + 2 + 1 + 3 = 7.
    layout = layout_with({"a3": 1, "b4": 1, "d4": 2})
    text = "7k/8/8/8/3n4/2P5/PP6/7K w - 0 1"
    assert moves(text, layout) == sorted(
        ["a2a3", "b2b3", "b2b4", "c3c4", "h1g1", "h1g2", "h1h2"])


def test_castle_pawns_have_no_double_step():
    # Red to move, Red p c7 (castle, height 1) and p a7 (field); Blue K a1, Red k h8.
    # c7: c6 only (H5: no double step from inside the castle).  a7: a6, a5.  k h8: g8 g7 h7.  6.
    text = "7k/p1p5/8/8/8/8/8/K7 b - 0 1"
    assert moves(text) == sorted(["c7c6", "a7a6", "a7a5", "h8g8", "h8g7", "h8h7"])
    # On the default board c6 is already a level change, which would end the move anyway; with
    # c6 and c5 raised to height 1 nothing stops the Pawn on c6 but the castle start itself:
    # still c6 only.
    layout = layout_with({"c6": 1, "c5": 1})
    assert moves_from(text, "c7", layout) == ["c7c6"]


def test_promotion_with_and_without_fallen_pieces():
    # Blue P a7, K a1; Red k h6.  Fallen: Blue Q, N, N; Red n.  The Pawn reaching a8 gives one
    # move per choice (H9): keep (=P), Queen, Knight (two fallen Knights are one choice; Red's
    # fallen Knight is not Blue's) = 3.  King a1 = 3.  6.
    text = "8/P7/7k/8/8/8/8/K7 w [QNNn] 0 1"
    assert moves_from(text, "a7") == ["a7a8=N", "a7a8=P", "a7a8=Q"]
    assert perft(text, 1) == 6
    # With nothing fallen the only choice is to keep the Pawn: 1 + 3 = 4.
    assert moves_from("8/P7/7k/8/8/8/8/K7 w - 0 1", "a7") == ["a7a8=P"]
    assert perft("8/P7/7k/8/8/8/8/K7 w - 0 1", 1) == 4
    # Exchanging takes one Queen out of the fallen pieces; the Pawn leaves the game (H5).
    after = play(parse(text), "a7a8=Q")
    assert after.text() == "Q7/8/7k/8/8/8/8/K7 b [NNn] 0 1"


def test_kept_pawn_never_moves_again():
    # Blue P a8 (kept on the far rank), K a1; Red k h8.  The Pawn has no move (nor any capture
    # off the board); only King a1's 3.  After a7a8=P on the board above, the same holds: Red k
    # h6 has g5 g6 g7 h5 h7 = 5 replies, then Blue again has only the King's 3: 5 * 3 = 15.
    assert moves("P6k/8/8/8/8/8/8/K7 w - 0 1") == ["a1a2", "a1b1", "a1b2"]
    kept = play(parse("8/P7/7k/8/8/8/8/K7 w [Q] 0 1"), "a7a8=P")
    assert kept.text() == "P7/8/7k/8/8/8/8/K7 b [Q] 0 1"
    assert perft(kept, 2) == 15


# --------------------------------------------------------------------------------------------
# Flag Bearer (H6), Dragon (H7)
# --------------------------------------------------------------------------------------------

def test_flag_bearer_is_captured_by_the_king_only():
    # Red to move: k c5, r a4, p e5, n b3; Blue F d4, K h1.
    # k c5: b4 b5 b6 c4 c6 d5 d6, and d4 capturing the Flag Bearer (H6) = 8.
    # r a4: a5-a8, a3-a1, b4, c4; the Flag Bearer on d4 stops it and cannot be taken = 9.
    # p e5: e4; its capture onto d4 is refused = 1.  n b3: a1, c1, d2, a5 (c5 own, d4 refused) = 4.
    # 8 + 9 + 1 + 4 = 22.  The Flag Bearer next to the Red King gives no check (it never captures).
    text = "8/8/8/2k1p3/r2F4/1n6/8/7K b - 0 1"
    got = moves(text)
    assert "c5d4" in got and not {"a4d4", "e5d4", "b3d4"} & set(got)
    assert moves_from(text, "b3") == sorted(["b3a1", "b3c1", "b3d2", "b3a5"])
    assert len(got) == 22
    # The same board with Blue to move: the Flag Bearer d4 steps to c3 or e3; c5 (Red King) and
    # e5 (Red Pawn) are occupied and it never captures = 2.
    assert moves_from(text.replace(" b ", " w "), "d4") == ["d4c3", "d4e3"]


def test_dragon_steps_and_flights():
    # Blue D d4.  N: over N d5 onto Red p d6: capture.  NE: over P e5, Red n f6 breaks the line:
    # the flight captures on f6 and never reaches g7.  E: over B e4, B f4, lands on empty g4.
    # SE: over N e3, P f2, N g1 and off the board: none.  SW: over P c3 onto Red f b2: refused.
    # S d3, W c4, NW c5: empty, plain steps.  6 moves.  (Blue K h1, Red k a8 safe.)
    text = "k7/8/3p1n2/3NP3/3DBB2/2P1N3/1f3P2/6NK w - 0 1"
    assert moves_from(text, "d4") == sorted(["d4d6", "d4f6", "d4g4", "d4d3", "d4c4", "d4c5"])
    # Attacks follow the same paths (H3): Red k d6 is in check from the Dragon d4's flight over
    # the Knight d5 (the Knight itself does not reach d6).
    check = parse("8/8/3k4/3N4/3D4/8/8/7K b - 0 1")
    assert crusade.in_check(check)


def test_dragon_flight_ignores_heights_its_step_does_not():
    # Blue D d3 (height 0), P d2 (height 1), K a1; Red k h8.  Dragon: steps d4 e4 e3 c3 c4, e2 and
    # c2 (one level up); south the Pawn d2 is a teammate: the flight lands on d1, two levels up
    # (H7 ignores heights) = 8.  Pawn d2 is blocked by the Dragon.  King a1 = 3.  11.
    text = "7k/8/8/8/8/3D4/3P4/K7 w - 0 1"
    assert moves_from(text, "d3") == sorted(
        ["d3d4", "d3e4", "d3e3", "d3c3", "d3c4", "d3e2", "d3c2", "d3d1"])
    assert perft(text, 1) == 11
    # With e2 raised to height 2 the step d3-e2 climbs two levels: refused (H7: H3 applies to
    # the step); the flight to d1 stays.  7 + 3 = 10.
    layout = layout_with({"e2": 2})
    assert "d3e2" not in moves(text, layout) and "d3d1" in moves(text, layout)
    assert perft(parse(text, layout), 1) == 10


# --------------------------------------------------------------------------------------------
# The end of the game (H8)
# --------------------------------------------------------------------------------------------

def test_flag_bearer_step_onto_the_x_ends_the_game():
    # Blue F d7 (height 1), K a1; Red k h8.  F: c8, e8 (Red's X, one level up), c6, e6 = 4;
    # King 3: D1 7.  After d7e8 the game is over (H8b): no Red move.  After each other move Red's
    # k h8 has g8 g7 h7: 6 * 3 = 18.
    text = "7k/3F4/8/8/8/8/8/K7 w - 0 1"
    assert perft(text, 1) == 7
    won = play(parse(text), "d7e8")
    assert status(won) == "x-win" and legal_moves(won) == []
    assert divide(text, 2)["d7e8"] == 0
    assert perft(text, 2) == 18


def test_flag_bearer_revived_on_the_x_does_not_win():
    # Blue P e7, K a1, fallen [F]; Red k h5.  e7 -> e8 (one level up): keep or revive the Flag
    # Bearer = 2; King 3: D1 5.  Red k h5: g4 g5 g6 h4 h6 after every one of them (H8b: the
    # exchange put the Flag Bearer on e8, it did not step there): 5 * 5 = 25.
    text = "8/4P3/8/7k/8/8/8/K7 w [F] 0 1"
    assert perft(text, 1) == 5
    revived = play(parse(text), "e7e8=F")
    assert status(revived) == "play"
    assert revived.text() == "4F3/8/8/7k/8/8/8/K7 b - 0 1 revived:e8"
    assert perft(text, 2) == 25
    # Without the mark, the same board with Red to move is a finished game.
    assert status(parse("4F3/8/8/7k/8/8/8/K7 b - 0 1")) == "x-win"


def test_pinned_flag_bearer_may_not_step_onto_the_x():
    # Blue K c7 (height 1), F d7; Red r e7, k h8.  The Rook slides along the lower floor e7-d7-c7,
    # so every Flag Bearer move (e8 included) would leave the King capturable: none (H8a).
    # King c7: b8 c8 d8 b7 b6 c6 d6 (the rook's slides end on e8, e6, f7 g7) = 7.
    text = "7k/2KFr3/8/8/8/8/8/8 w - 0 1"
    assert moves(text) == sorted(["c7b8", "c7c8", "c7d8", "c7b7", "c7b6", "c7c6", "c7d6"])


def test_check_follows_the_level_paths():
    # Red k e8 (height 2), Blue K a1.  Blue N c7 (height 1) attacks e8: check; Red's King has
    # d8 d7 e7 f7 f8 (the knight attacks a8 a6 b5 d5 e6 e8): 5.
    checked = "4k3/2N5/8/8/8/8/8/K7 b - 0 1"
    assert crusade.in_check(parse(checked)) and perft(checked, 1) == 5
    # Blue N f6 (height 0) cannot reach e8 (two levels up): no check; it does reach d7 (one
    # level): the King has d8 e7 f7 f8 = 4.
    quiet = "4k3/8/5N2/8/8/8/8/K7 b - 0 1"
    assert not crusade.in_check(parse(quiet)) and perft(quiet, 1) == 4
    # Blue R a8: its slide ends on c8 (0 -> 1): no check, d8 and f8 are free: 5.
    rook = "R3k3/8/8/8/8/8/8/K7 b - 0 1"
    assert not crusade.in_check(parse(rook)) and perft(rook, 1) == 5


def test_checkmate_and_stalemate():
    # Red k h8, Blue Q g7 (guarded by K f6): check, g8 h7 g7 all covered: checkmate (H8a).
    mate = parse("7k/6Q1/5K2/8/8/8/8/8 b - 0 1")
    assert status(mate) == "checkmate" and legal_moves(mate) == []
    # Red k a8, Blue Q b6, K h1: a7 b7 b8 covered, no check: stalemate, a draw.
    stale = parse("k7/8/1Q6/8/8/8/8/7K b - 0 1")
    assert status(stale) == "stalemate" and perft(stale, 3) == 0


# --------------------------------------------------------------------------------------------
# Self-consistency, position text, errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    START_TEXT,
    "8/P7/7k/8/8/8/8/K7 w [QNNn] 0 1",
    "k7/8/3p1n2/3NP3/3DBB2/2P1N3/1f3P2/6NK w - 0 1",
    "4F3/8/8/7k/8/8/8/K7 b - 0 1 revived:e8",
])
def test_perft_is_the_sum_of_divide_and_text_round_trips(text):
    assert parse(text).text() == text
    for depth in (1, 2):
        assert sum(divide(text, depth).values()) == perft(text, depth)


def test_clocks_follow_captures_and_pawn_moves():
    # H8c: a King move adds one ply; a Pawn move resets; a Red move ends a full move.
    pos = play(parse("7k/8/8/8/8/8/P7/K7 w - 7 3"), "a1b1")
    assert (pos.halfmove, pos.fullmove) == (8, 3)
    pos = play(pos, "h8g8")
    assert (pos.halfmove, pos.fullmove) == (9, 4)
    pos = play(pos, "a2a4")
    assert (pos.halfmove, pos.fullmove) == (0, 4)


@pytest.mark.parametrize("text, says", [
    ("", "needs at least 3 fields"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP w - 0 1", "needs 8 ranks"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNRR w -", "rank 1 has more than 8 squares"),
    ("rnbqkbnr/pppdfppp/8/8/8/7/PPPDFPPP/RNBQKBNR w -", "rank 3 has 7 squares"),
    ("rnbqkbnr/pppdxppp/8/8/8/8/PPPDFPPP/RNBQKBNR w -", "'x' is not a piece letter"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR r -", "side to move"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w Q", "must be '-' or letters in brackets"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w [K]", "a King is never captured"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w [p]", "a captured Pawn is never revived"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w - x 1", "halfmove clock"),
    ("rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w - 0", "expected '<halfmove> <fullmove>'"),
    ("7k/8/8/8/8/8/8/8 w -", "Blue needs exactly one King"),
    ("7k/8/8/8/8/8/8/K6P w -", "Blue Pawn on h1, its own first rank"),
    ("7k/6Q1/8/8/8/8/8/K7 w -", "Red's King is attacked with Blue to move"),
    ("7k/8/8/8/8/8/8/K7 w - 0 1 revived:e8", "revived: e8 must hold a Flag Bearer"),
    ("7k/8/8/8/8/8/8/K7 w - 0 1 revived:z9", "'z9' is not a square"),
])
def test_bad_position_text_is_named(text, says):
    with pytest.raises(PositionTextError) as err:
        parse(text)
    assert says in str(err.value)


def test_bad_move_text_is_named():
    start = parse(START_TEXT)
    for text, says in (("e2", "expected <from><to>"), ("a2a5", "is not legal"),
                       ("a2a4=Q", "is not legal"), ("a2a4=", "after '='")):
        with pytest.raises(MoveTextError) as err:
            play(start, text)
        assert says in str(err.value)


def test_command_line_reports_errors_without_a_traceback(capsys):
    assert crusade.main(["perft", "startpos", "2", "--divide"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "a2a3: 19" and out[-1] == "Nodes searched: 361"
    assert crusade.main(["perft", "8/8 w -", "1"]) == 2
    assert "error: board: needs 8 ranks" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# The EPD file (tests/data/crusade_perft.epd): counts by this reference, format in its docstring
# --------------------------------------------------------------------------------------------

def test_the_epd_file_reads_back_and_its_shallow_counts_hold():
    rows = crusade.read_epd(EPD)
    assert len(rows) >= 20
    for number, pos, counts, covers in rows:
        assert covers, f"line {number} says what it covers"
        assert sorted(counts)[:3] == [1, 2, 3], number
        assert parse(pos.text(), pos.layout).text() == pos.text(), number
        assert [perft(pos, d) for d in (1, 2)] == [counts[1], counts[2]], number
    # The first line is the start position, whose D1 and D2 are derived by hand above.
    assert rows[0][1].text() == START_TEXT and rows[0][2][1] == 19 and rows[0][2][2] == 361
    # At least one line is on a passed-in layout (two-level refusals the H1 board cannot show).
    assert any(pos.layout != crusade.DEFAULT_LAYOUT for _, pos, _, _ in rows)


@pytest.mark.slow
def test_the_epd_file_counts_hold_to_depth_3():
    for number, pos, counts, _ in crusade.read_epd(EPD):
        assert perft(pos, 3) == counts[3], number


def test_a_bad_epd_line_is_located(tmp_path):
    bad = tmp_path / "bad.epd"
    bad.write_text("# comment\n7k/8/8/8/8/8/8/K7 w - 0 1 ;D1 3 ;D2 x ; covers: nothing\n")
    with pytest.raises(ValueError, match="bad.epd:2: 'D2 x': count is not a number"):
        crusade.read_epd(bad)
    bad.write_text("7k/8/8/8/8/8/8/8 w - 0 1 ;D1 3 ; covers: nothing\n")
    with pytest.raises(ValueError, match="bad.epd:1: board: Blue needs exactly one King"):
        crusade.read_epd(bad)
