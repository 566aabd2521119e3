"""Every worked example of the rulebooks' unit descriptions (12.0), cylindrical movement (16.0) and the
RULINGS clauses that settle them (B1-B19, C6, C8). Each test names its rule and derives the expected
orders by hand in its comments; no expectation is computed by the engine.

Conventions: Blue = uppercase, moves first, toward rank 8; Yellow = lowercase. Order texts per
RULINGS A4. Deploy texts are compared with the unit token upper-cased (the rule fixes the squares;
the token's case for Yellow is a notation detail).
"""

from collections import Counter

import pytest

from engine import Position, divide, perft
from tests.support import board_text, norm

BASE24 = "K Q R B N P A U E C L D G H I M Z O F S X Y T W".split()


# --------------------------------------------------------------------------- helpers


def text_of(units, side="w", barracks="", tail=""):
    text = board_text(units) + (f"[{barracks}]" if barracks else "") + f" {side} - - 0 1"
    return text + (" " + tail if tail else "")


def position(units, side="w", barracks="", tail="", promote=None):
    return Position.from_text(text_of(units, side, barracks, tail), promote=promote)


def orders(pos, cylindrical=False):
    return {norm(str(o)) for o in pos.legal_orders(cylindrical=cylindrical)}


def orders_list(pos, cylindrical=False):
    return [norm(str(o)) for o in pos.legal_orders(cylindrical=cylindrical)]


def orders_from(pos, square, cylindrical=False):
    return {o for o in orders(pos, cylindrical) if o[:2] == square}


def deploys(pos):
    return {o for o in orders(pos) if "@" in o}


def board_of(pos):
    """Parse the board field of pos.to_text() into {"e4": "Q", ...}."""
    field = pos.to_text().split()[0].split("[")[0]
    out = {}
    for i, row in enumerate(field.split("/")):
        rank = 8 - i
        file = 0
        j = 0
        while j < len(row):
            ch = row[j]
            if ch.isdigit():
                file += int(ch)
                j += 1
                continue
            tok = row[j:j + 2] if ch == "~" else ch
            out["abcdefgh"[file] + str(rank)] = tok
            file += 1
            j += len(tok)
    return out


def barracks_of(pos):
    first = pos.to_text().split()[0]
    if "[" not in first:
        return Counter()
    inner = first.split("[")[1].rstrip("]")
    toks, j = [], 0
    while j < len(inner):
        tok = inner[j:j + 2] if inner[j] == "~" else inner[j]
        toks.append(tok)
        j += len(tok)
    return Counter(toks)


def squares(s):
    return s.split()


# =========================================================================== 12.0 Nightrider
def test_12_0_nightrider_a1_reaches_c5_through_b3():
    # 12.0 Nightrider example: a1 -> c5 is two (1,2) steps through b3; b3 empty -> allowed.
    pos = position({"a1": "Z", "h1": "K", "e8": "k"})
    got = orders_from(pos, "a1")
    assert {"a1b3", "a1c5", "a1d7"} <= got


@pytest.mark.parametrize("blocker", ["N", "n"])
def test_12_0_nightrider_a1_blocked_on_b3_cannot_reach_c5_or_d7(blocker):
    # 12.0 Nightrider: any unit on b3 stops the ride; an enemy there is captured, a friend is not.
    pos = position({"a1": "Z", "b3": blocker, "h1": "K", "e8": "k"})
    got = orders_from(pos, "a1")
    assert "a1c5" not in got and "a1d7" not in got
    assert ("a1b3" in got) == (blocker == "n")
    # the other ray (2,1): c2 e3 g4 is untouched
    assert {"a1c2", "a1e3", "a1g4"} <= got


@pytest.mark.parametrize("c5", [None, "N", "n"])
def test_12_0_nightrider_a1_reaches_d7_only_if_b3_and_c5_empty(c5):
    # 12.0 Nightrider: a1 -> d7 needs both b3 and c5 empty.
    units = {"a1": "Z", "h1": "K", "e8": "k"}
    if c5:
        units["c5"] = c5
    got = orders_from(position(units), "a1")
    assert ("a1d7" in got) == (c5 is None)
    assert ("a1c5" in got) == (c5 != "N")  # empty: march; enemy: capture; own: blocked


# =========================================================================== 12.0 Phantom
@pytest.mark.parametrize("c2", [False, True])
@pytest.mark.parametrize("g2", [False, True])
@pytest.mark.parametrize("e2", [False, True])
def test_12_0_phantom_e1_reaches_e3_if_c2_or_g2_empty(c2, g2, e2):
    # 12.0 Phantom example / B9: e1 -> e3 is two (1,2) leaps, via c2 or via g2 (the only two first
    # landings from which e3 is a knight leap). The first landing must be empty; e2 is irrelevant.
    units = {"e1": "F", "a8": "K", "h8": "k"}
    if c2:
        units["c2"] = "N"
    if g2:
        units["g2"] = "N"
    if e2:
        units["e2"] = "n"
    pos = position(units)
    got = orders_from(pos, "e1")
    assert ("e1e3" in got) == (not (c2 and g2))
    # several paths to one square are one move (B9)
    assert orders_list(pos).count("e1e3") <= 1


def test_12_0_phantom_never_stops_after_one_leap_and_captures_on_the_second():
    # B9: e1's knight squares c2 g2 d3 f3 are never destinations (odd offsets); an enemy on e3 (via the
    # empty c2 / g2) is captured; an enemy on the first landing d3 only blocks paths through d3.
    pos = position({"e1": "F", "e3": "p", "d3": "n", "a8": "K", "h8": "k"})
    got = orders_from(pos, "e1")
    assert not got & {"e1c2", "e1g2", "e1d3", "e1f3"}
    assert "e1e3" in got
    # First landings c2 g2 f3 (d3 occupied). via c2: d4 b4 e3 a3 e1 a1; via g2: h4 f4 e3 e1;
    # via f3: g5 e5 g1 e1 h4 d4 h2 d2.  (c5 b2 f2 c1, reachable only through d3, are gone.)
    want = {"e1" + s for s in squares("g5 e5 h4 d4 h2 d2 g1 e1 a1 a3 b4 e3 f4")}
    assert got == want


def test_b16_phantom_null_march_is_one_distinct_order():
    # B9/B16: the Phantom may land back on e1 (its start counts as empty): "e1e1", counted once.
    pos = position({"e1": "F", "a8": "K", "h8": "k"})
    assert orders_list(pos).count("e1e1") == 1


# =========================================================================== 16.0 Visionary
def test_16_0_visionary_f1_wraps_through_h3_to_a4_and_stops_at_e8():
    # 16.0 example: f1 -> g2 h3, then wraps to a4 b5 c6 d7 e8 and cannot go past e8. The other
    # diagonal: e2 d3 c4 b5 a6, wraps to h7 g8. b5 is reached both ways: one move.
    pos = position({"f1": "~B", "a1": "K", "h8": "k"})
    want = {"f1" + s for s in squares("g2 h3 a4 b5 c6 d7 e8 e2 d3 c4 a6 h7 g8")}
    assert orders_from(pos, "f1") == want
    assert orders_from(pos, "f1", cylindrical=True) == want
    assert orders_list(pos).count("f1b5") == 1


def test_16_0_visionary_wrapped_ray_is_blocked_like_any_ride():
    # An enemy on a4 is captured and ends the NE ray (no b5 via that ray; b5 still via NW e2-d3-c4).
    pos = position({"f1": "~B", "a4": "n", "a1": "K", "h8": "k"})
    want = {"f1" + s for s in squares("g2 h3 a4 e2 d3 c4 b5 a6 h7 g8")}
    assert orders_from(pos, "f1") == want


def test_16_0_bishop_on_f1_wraps_only_in_cylindrical_mode():
    # A base Bishop is flat by default; with cylindrical=True (Compass) it moves like the Visionary.
    pos = position({"f1": "B", "a1": "K", "h8": "k"})
    assert orders_from(pos, "f1") == {"f1" + s for s in squares("g2 h3 e2 d3 c4 b5 a6")}
    assert orders_from(pos, "f1", cylindrical=True) == {
        "f1" + s for s in squares("g2 h3 a4 b5 c6 d7 e8 e2 d3 c4 a6 h7 g8")}


# =========================================================================== 12.0 Charger
def test_12_0_charger_captures_every_enemy_it_passes():
    # 12.0 Charger / B12: a1 north with enemies on a2 and a3: a1a2 (takes a2), a1a3 (takes a2, a3),
    # a1a4 (passes both, stops on empty a4: takes both). Range 3: no a5.
    pos = position({"a1": "L", "a2": "p", "a3": "n", "h1": "K", "h8": "k"})
    got = orders_from(pos, "a1")
    assert {"a1a2", "a1a3", "a1a4"} <= got
    assert "a1a5" not in got
    pos.push(pos.parse_order("a1a4"))
    board = board_of(pos)
    assert board.get("a4") == "L"
    assert "a1" not in board and "a2" not in board and "a3" not in board
    assert pos.turn == "b"


def test_12_0_charger_stopping_on_first_enemy_captures_only_it():
    pos = position({"a1": "L", "a2": "p", "a3": "n", "h1": "K", "h8": "k"})
    pos.push(pos.parse_order("a1a2"))
    board = board_of(pos)
    assert board.get("a2") == "L" and board.get("a3") == "n"


def test_12_0_charger_cannot_pass_or_capture_friendly_units():
    # 12.0 Charger: own N on a3 stops the ride: only a2 (empty) northward; eastward b1 c1 d1 free.
    pos = position({"a1": "L", "a3": "N", "h1": "K", "h8": "k"})
    assert orders_from(pos, "a1") == {"a1a2", "a1b1", "a1c1", "a1d1"}
    # enemy a2 then own a3: can take a2 but not continue.
    pos = position({"a1": "L", "a2": "p", "a3": "N", "h1": "K", "h8": "k"})
    assert orders_from(pos, "a1") == {"a1a2", "a1b1", "a1c1", "a1d1"}


def test_b12_charger_three_enemies_in_a_row():
    # B12: enemies a2 a3 a4: a1a2, a1a3, a1a4, each one move; after a1a4 all three are gone.
    pos = position({"a1": "L", "a2": "p", "a3": "p", "a4": "p", "a5": "p", "h1": "K", "h8": "k"})
    north = {o for o in orders_from(pos, "a1") if o[2] == "a"}
    assert north == {"a1a2", "a1a3", "a1a4"}
    pos.push(pos.parse_order("a1a4"))
    board = board_of(pos)
    assert board.get("a4") == "L" and board.get("a5") == "p"
    assert not {"a1", "a2", "a3"} & set(board)


def test_c6_charger_cannot_pass_an_immune_enemy():
    # C6/B12: an immune enemy blocks like a friend (cannot be passed nor captured).
    pos = position({"a1": "L", "a2": "p", "a3": "n", "h1": "K", "h8": "k"}, tail="status:a3b")
    north = {o for o in orders_from(pos, "a1") if o[2] == "a"}
    assert north == {"a1a2"}


# =========================================================================== 12.0 Oracle
def test_12_0_oracle_captures_two_away_and_stays_on_its_square():
    # 12.0 Oracle / B13: enemy on d6, d5 empty: order "d4d6"; afterwards the Oracle is still on d4 and
    # d6 is empty.
    pos = position({"d4": "O", "d6": "p", "a1": "K", "h8": "k"})
    assert "d4d6" in orders_from(pos, "d4")
    pos.push(pos.parse_order("d4d6"))
    board = board_of(pos)
    assert board.get("d4") == "O"
    assert "d6" not in board
    assert pos.turn == "b"
    pos.pop()
    assert board_of(pos).get("d6") == "p"


def test_12_0_oracle_attack_needs_an_empty_middle_square():
    # 12.0 Oracle: any unit between blocks. f6 behind e5 (own) and b6 behind c5 (enemy) are safe;
    # b2 over empty c3 is hit.
    pos = position({"d4": "O", "e5": "N", "f6": "n", "c5": "p", "b6": "b", "b2": "r",
                    "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    # marches: c3 e3 (c5 e5 occupied); shoots: b2 only.  c5 is adjacent: never capturable.
    assert got == {"d4c3", "d4e3", "d4b2"}


def test_12_0_oracle_only_exactly_two_away_straight_or_diagonal():
    # enemies at distance 1 (e4), a knight's leap (e6) and 3 away (d7, g7) are all out of reach;
    # d2 (2 straight, d3 empty) is hit.
    pos = position({"d4": "O", "e4": "p", "e6": "p", "d7": "p", "g7": "p", "d2": "p",
                    "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert got == {"d4c3", "d4c5", "d4e3", "d4e5", "d4d2"}


def test_b13_oracle_marches_only_diagonally_one():
    pos = position({"d4": "O", "a1": "K", "h8": "k"})
    assert orders_from(pos, "d4") == {"d4c3", "d4c5", "d4e3", "d4e5"}


# =========================================================================== 12.0 Spy
def test_12_0_spy_swaps_with_a_friendly_unit_at_any_distance():
    # 12.0 Spy / B15: the order text is the friendly unit's square; the two units exchange places.
    pos = position({"d4": "Y", "h8": "R", "a1": "K", "e8": "k"})
    got = orders_from(pos, "d4")
    assert got == {"d4h8", "d4a1"}          # no march to empty squares, nothing to attack
    pos.push(pos.parse_order("d4h8"))
    board = board_of(pos)
    assert board.get("h8") == "Y" and board.get("d4") == "R"


def test_12_0_spy_attacks_one_square_any_direction():
    pos = position({"d4": "Y", "e5": "p", "c3": "n", "d6": "b", "a1": "K", "h8": "k"})
    assert orders_from(pos, "d4") == {"d4e5", "d4c3", "d4a1"}


def test_12_0_spy_swapped_foot_unit_on_eighth_rank_is_not_promoted():
    # 12.0 Spy example: a Spy on the eighth rank (e8) swaps with a Foot unit (P a2): the Pawn lands on
    # e8 without promotion -- a single order "e8a2", no promotion suffix.
    pos = position({"e8": "Y", "a2": "P", "h1": "K", "a8": "k"})
    got = orders_from(pos, "e8")
    assert {o for o in got if o.startswith("e8a2")} == {"e8a2"}
    pos.push(pos.parse_order("e8a2"))
    board = board_of(pos)
    assert board.get("e8") == "P" and board.get("a2") == "Y"


def test_12_0_spy_may_swap_with_a_unit_already_ordered():
    # 12.0 Spy example (Temple): the Bishop was ordered this turn (status o) and may not be ordered
    # again, but the Spy may still swap with it.
    pos = position({"d4": "Y", "c1": "B", "a1": "K", "h8": "k"}, tail="status:c1o")
    assert "d4c1" in orders_from(pos, "d4")
    assert orders_from(pos, "c1") == set()


def test_12_0_spy_without_friends_cannot_march():
    # Only the King is friendly: the single swap is with the King.
    pos = position({"d4": "Y", "a1": "K", "h8": "k"})
    assert orders_from(pos, "d4") == {"d4a1"}


# =========================================================================== 12.0 Sniper
def test_12_0_sniper_marches_one_or_two_only():
    # 12.0 Sniper / B14: marching at most 2 squares.
    pos = position({"d4": "S", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert {"d4d5", "d4d6"} <= got and "d4d7" not in got and "d4d8" not in got


def test_12_0_sniper_attacks_only_at_two_or_more_along_a_clear_line():
    # d6 at distance 2 (d5 empty): attack; h4 at distance 4 (e4 f4 g4 empty): attack.
    pos = position({"d4": "S", "d6": "p", "h4": "n", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert {"d4d6", "d4h4"} <= got
    assert "d4d7" not in got  # behind the target


def test_12_0_sniper_unit_at_distance_one_blocks_the_ray():
    # B14: an enemy on d5 (distance 1) can't be attacked and shields d7 behind it; an own unit on e4
    # shields h4 behind it.
    pos = position({"d4": "S", "d5": "p", "d7": "n", "e4": "N", "h4": "r", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert not got & {"d4d5", "d4d6", "d4d7", "d4e4", "d4f4", "d4h4"}


def test_b14_sniper_first_square_march_second_both_third_attack():
    # 12.0 Sniper: 1st square march only, 2nd march or attack, 3rd+ attack only.
    pos = position({"d4": "S", "f6": "p", "b2": "n", "g1": "b", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    # NE: e5 march, f6 attack. SW: c3 march, b2 attack (a1 own K beyond). SE: e3 f2 march, g1 attack.
    assert {"d4e5", "d4f6", "d4c3", "d4b2", "d4e3", "d4f2", "d4g1"} <= got


# =========================================================================== 12.0 Warlord
def test_b16_warlord_null_march():
    # B10/B16: the Warlord may step out and back: "e4e4" is a legal order, counted once.
    pos = position({"e4": "W", "a1": "K", "h8": "k"})
    assert orders_list(pos).count("e4e4") == 1


def test_b10_warlord_fully_surrounded_by_friends_has_no_orders():
    # Every first step is blocked: no move at all, not even the null march.
    ring = {sq: "N" for sq in squares("d3 d4 d5 e3 e5 f3 f4 f5")}
    pos = position({"e4": "W", **ring, "a1": "K", "h8": "k"})
    assert orders_from(pos, "e4") == set()


def test_12_0_warlord_capture_ends_the_move():
    # 12.0 Warlord: enemies on d5 e5 f5 can be captured, but e6 (reachable only through d5, e5 or
    # f5) and c6 (only through d5) are not reachable; c5 is via the empty d4 (or d5, irrelevant).
    pos = position({"e4": "W", "d5": "p", "e5": "p", "f5": "p", "a1": "K", "h8": "k"})
    got = orders_from(pos, "e4")
    assert {"e4d5", "e4e5", "e4f5", "e4c5", "e4g5"} <= got
    assert not got & {"e4e6", "e4c6", "e4d6", "e4f6", "e4g6"}


def test_b10_warlord_middle_square_must_be_empty():
    # Own N on d5: c6 (only via d5) unreachable; d6 is via c5 or e5, still reachable.
    pos = position({"e4": "W", "d5": "N", "a1": "K", "h8": "k"})
    got = orders_from(pos, "e4")
    assert "e4c6" not in got and "e4d5" not in got
    assert {"e4d6", "e4c5", "e4e6"} <= got


def test_b10_warlord_captures_on_second_step_after_empty_first():
    pos = position({"e4": "W", "e6": "p", "a1": "K", "h8": "k"})
    assert "e4e6" in orders_from(pos, "e4")


# =========================================================================== 12.0 Gryphon / Sphinx
def test_b11_gryphon_rides_only_outward_after_the_diagonal_step():
    # After the NE step to e5 it rides N (e6 e7 e8) or E (f5 g5 h5), never W/S; it never moves
    # straight from the start (d5 d3 c4 e4 are not reachable in flat mode).
    pos = position({"d4": "G", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert {"d4e5", "d4e6", "d4e8", "d4f5", "d4h5"} <= got
    assert not got & {"d4d5", "d4d3", "d4c4", "d4e4", "d4d6", "d4b6", "d4f6", "d4f7"}


def test_12_0_gryphon_capture_on_the_diagonal_step_ends_the_move():
    # Enemy on e5: d4e5 captures; e6 e7 e8 f5 g5 h5 (only through e5) are gone.
    pos = position({"d4": "G", "e5": "p", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert "d4e5" in got
    assert not got & {"d4e6", "d4e7", "d4e8", "d4f5", "d4g5", "d4h5"}


def test_b11_gryphon_ride_is_blocked_and_captures_at_its_end():
    # Enemy on e7 and own N on g5: N ride e6, e7(capture); E ride f5 only.
    pos = position({"d4": "G", "e7": "p", "g5": "N", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert {"d4e6", "d4e7", "d4f5"} <= got
    assert not got & {"d4e8", "d4g5", "d4h5"}


def test_12_0_sphinx_capture_on_the_straight_step_ends_the_move():
    # Enemy on d5: d4d5 captures; e6 f7 g8 c6 b7 a8 (only through d5) are gone.
    pos = position({"d4": "X", "d5": "p", "a1": "K", "h4": "k"})
    got = orders_from(pos, "d4")
    assert "d4d5" in got
    assert not got & {"d4e6", "d4f7", "d4g8", "d4c6", "d4b7", "d4a8"}


def test_b11_sphinx_rides_only_outward_after_the_straight_step():
    # After the step north to d5: NE e6.. or NW c6..; never diagonal directly from d4.
    pos = position({"d4": "X", "a1": "K", "h4": "k"})
    got = orders_from(pos, "d4")
    assert {"d4d5", "d4e6", "d4c6", "d4g8", "d4a8"} <= got
    assert not got & {"d4e5", "d4c5", "d4e3", "d4c3", "d4d6", "d4d7"}


# =========================================================================== 12.0 Striker
def test_12_0_striker_backward_ride_is_march_only():
    # B2: d4 backward d3 d2 then enemy on d1: no capture backward; forward/diagonal attacks allowed.
    pos = position({"d4": "T", "d1": "n", "c5": "p", "e5": "N", "a8": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert got == {"d4d5", "d4c5", "d4d3", "d4d2"}


def test_12_0_striker_attacks_straight_forward_too():
    pos = position({"d4": "T", "d5": "p", "a8": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert got == {"d4d5", "d4c5", "d4e5", "d4d3", "d4d2", "d4d1"}


# =========================================================================== 12.0 Monk / Acolyte / Anointed
def test_12_0_monk_cannot_stop_on_the_middle_square_and_is_blocked_by_it():
    # B3: straight moves are exactly 2: d6 b4 f4 d2 with empty middles; d5 c4 e4 d3 are never
    # destinations. An enemy on e4 (middle) blocks f4 and is not capturable (not a Monk square).
    pos = position({"d4": "M", "e4": "p", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert got == {"d4c3", "d4c5", "d4e3", "d4e5", "d4d6", "d4b4", "d4d2"}


def test_12_0_acolyte_leaps_over_everything():
    # 12.0 Acolyte: a full ring of own units does not stop the 2-square leaps.
    ring = {sq: "N" for sq in squares("c3 c4 c5 d3 d5 e3 e4 e5")}
    pos = position({"d4": "A", **ring, "a1": "K", "h8": "k"})
    assert orders_from(pos, "d4") == {"d4b2", "d4b6", "d4f2", "d4f6", "d4b4", "d4f4"}


def test_12_0_acolyte_moves_two_straight_only_sideways():
    pos = position({"d4": "A", "a1": "K", "h8": "k"})
    got = orders_from(pos, "d4")
    assert {"d4b4", "d4f4"} <= got and not got & {"d4d6", "d4d2", "d4d5", "d4c4"}


def test_12_0_anointed_two_diagonal_is_a_ride():
    # B5: e5 occupied (own) blocks f6; c5 enemy captured, b6 blocked; c3 e3 b2 f2 free.
    pos = position({"d4": "U", "e5": "N", "c5": "p", "a8": "K", "h8": "k"})
    assert orders_from(pos, "d4") == {"d4c5", "d4c3", "d4b2", "d4e3", "d4f2"}


# =========================================================================== 12.0 Immortal
def test_12_0_immortal_captured_goes_to_owners_barracks():
    # B6: Blue Q takes the Yellow Immortal on d5: it goes to Yellow's Barracks (not the Stock), and
    # Yellow may deploy it (Foot: ranks 8 and 7 for Yellow, B19): 7 empty squares of rank 8 (k on e8)
    # + 8 of rank 7 = 15 deploy orders.
    pos = position({"d1": "Q", "d5": "i", "a1": "K", "e8": "k"})
    pos.push(pos.parse_order("d1d5"))
    assert barracks_of(pos) == Counter({"i": 1})
    want = {f"I@{f}{r}" for f in "abcdefgh" for r in (7, 8)} - {"I@e8"}
    assert deploys(pos) == want


def test_12_0_ordinary_captured_unit_does_not_go_to_barracks():
    pos = position({"d1": "Q", "d5": "n", "a1": "K", "e8": "k"})
    pos.push(pos.parse_order("d1d5"))
    assert barracks_of(pos) == Counter()
    assert deploys(pos) == set()


def test_b6_immortal_captured_is_not_returned_to_the_stock():
    # With an empty Stock, capturing a Queen on the promotion square makes "q" available (it is back
    # in the Stock), capturing an Immortal does not (it went to the Barracks): only the bare order.
    pos = position({"b7": "P", "a8": "q", "c8": "i", "h1": "K", "h8": "k"}, tail="stock:-")
    got = orders_from(pos, "b7")
    assert got == {"b7a8q", "b7c8", "b7b8"}


# =========================================================================== 12.0 Pawn (B1)
@pytest.mark.parametrize("start,want", [
    ("a1", "a2 a3"),     # Blue rank 1: double step allowed (B1)
    ("b2", "b3 b4"),     # rank 2: double step
    ("c3", "c4"),        # rank 3: single only
    ("d7", "d8"),        # (promotion expanded below; here restricted to promote:-)
])
def test_12_0_pawn_double_step_from_rank_one_or_two(start, want):
    pos = position({start: "P", "h1": "K", "h8": "k"}, tail="promote:-")
    assert orders_from(pos, start) == {start + s for s in want.split()}


def test_12_0_pawn_double_step_does_not_leap():
    # e2 with a unit on e3: no march at all; d2 with a unit on d4: d3 only (plus d2e3, the capture
    # of the knight on e3, diagonally forward of d2).
    pos = position({"e2": "P", "e3": "n", "d2": "P", "d4": "N", "h1": "K", "h8": "k"})
    assert orders_from(pos, "e2") == set()
    assert orders_from(pos, "d2") == {"d2d3", "d2e3"}


@pytest.mark.parametrize("start,want", [("e8", "e7 e6"), ("e7", "e6 e5"), ("e6", "e5")])
def test_12_0_yellow_pawn_double_step_from_its_rank_one_or_two(start, want):
    pos = position({start: "p", "a1": "K", "h1": "k"}, side="b")
    assert orders_from(pos, start) == {start + s for s in want.split()}


def test_b1_pawn_attacks_diagonally_only():
    pos = position({"e4": "P", "e5": "p", "d5": "n", "f5": "N", "a1": "K", "h8": "k"})
    assert orders_from(pos, "e4") == {"e4d5"}


# =========================================================================== B18 promotion
def test_b18_promotion_default_offers_every_base_type():
    # Default promote: the 24 base types; every one has >= 1 unit in the default Stock here.
    pos = position({"e7": "P", "a1": "K", "h1": "k"})
    assert orders_from(pos, "e7") == {"e7e8" + t.lower() for t in BASE24}


def test_b18_promotion_restricted_by_from_text_argument():
    pos = position({"e7": "P", "a1": "K", "h1": "k"}, promote="NBRQ")
    assert orders_from(pos, "e7") == {"e7e8n", "e7e8b", "e7e8r", "e7e8q"}


def test_b18_promotion_restricted_by_promote_field():
    pos = position({"e7": "P", "a1": "K", "h1": "k"}, tail="promote:NBRQ")
    assert orders_from(pos, "e7") == {"e7e8n", "e7e8b", "e7e8r", "e7e8q"}


def test_b18_promotion_to_expansion_type_uses_tilde_token():
    pos = position({"e7": "P", "a1": "K", "h1": "k"}, promote="Q~B")
    assert orders_from(pos, "e7") == {"e7e8q", "e7e8~b"}


def test_b18_default_stock_exhausted_type_cannot_be_chosen():
    # RULINGS E: 4 Queens in all; 4 on the board -> Stock Q = 0 -> 23 choices (no q).
    pos = position({"e7": "P", "a2": "Q", "b2": "Q", "c2": "Q", "h2": "q", "a1": "K", "h1": "k"})
    assert orders_from(pos, "e7") == {"e7e8" + t.lower() for t in BASE24 if t != "Q"}


def test_b18_explicit_stock_limits_choices():
    pos = position({"e7": "P", "a1": "K", "h1": "k"}, tail="stock:N1")
    assert orders_from(pos, "e7") == {"e7e8n"}


@pytest.mark.parametrize("tail", ["stock:-", "promote:-"])
def test_b18_no_choice_leaves_the_unit_unpromoted(tail):
    # B18: if no type can be chosen, a single order without suffix; the Pawn stays a Pawn on e8.
    pos = position({"e7": "P", "a1": "K", "h1": "k"}, tail=tail)
    assert orders_from(pos, "e7") == {"e7e8"}
    pos.push(pos.parse_order("e7e8"))
    assert board_of(pos).get("e8") == "P"


def test_b18_captured_unit_is_back_in_the_stock_before_the_choice():
    # Empty Stock; capturing the Yellow queen on d8 makes Q choosable for that order only.
    pos = position({"e7": "P", "d8": "q", "a1": "K", "h1": "k"}, tail="stock:-")
    assert orders_from(pos, "e7") == {"e7d8q", "e7e8"}


def test_b18_promoted_unit_replaced_and_pawn_returns_to_stock():
    # stock:Q1 only. e7e8q: the Queen leaves the Stock (Q0) and the Pawn returns (P1). After a Yellow
    # King move, the second Pawn d7 can only become a Pawn ("d7d8p").
    pos = position({"e7": "P", "d7": "P", "a1": "K", "h1": "k"}, tail="stock:Q1")
    assert orders_from(pos, "e7") == {"e7e8q"}
    pos.push(pos.parse_order("e7e8q"))
    assert board_of(pos).get("e8") == "Q"
    pos.push(pos.parse_order("h1h2"))
    assert orders_from(pos, "d7") == {"d7d8p"}


def test_b18_promotion_on_a_move_within_the_eighth_rank():
    # B18: an Immortal (Foot) already on e8 stepping to d8/f8 promotes; to d7 e7 f7 it does not.
    pos = position({"e8": "I", "a1": "K", "h1": "k"}, promote="NQ")
    assert orders_from(pos, "e8") == {"e8d8n", "e8d8q", "e8f8n", "e8f8q", "e8d7", "e8e7", "e8f7"}


def test_b18_striker_monk_courier_pilgrim_promote():
    # Every Foot type promotes when its move ends on the 8th rank (promote:Q).
    pos = position({"b7": "T", "d6": "M", "f7": "~P", "h6": "~M", "a1": "K", "a3": "k"},
                   promote="Q")
    assert "b7b8q" in orders_from(pos, "b7") and "b7b8" not in orders_from(pos, "b7")
    assert "d6d8q" in orders_from(pos, "d6")                 # Monk 2 straight
    assert "f7f8q" in orders_from(pos, "f7")                 # Courier forward
    assert "h6h8q" in orders_from(pos, "h6")                 # Pilgrim 2 straight
    assert "d6c7" in orders_from(pos, "d6")                  # not the 8th rank: no suffix


def test_b18_non_foot_units_never_promote():
    pos = position({"e7": "N", "b7": "R", "a1": "K", "h1": "k"})
    assert {"e7c8", "e7g8"} <= orders_from(pos, "e7")
    assert "b7b8" in orders_from(pos, "b7")
    assert not any(len(o) > 4 for o in orders_from(pos, "e7") | orders_from(pos, "b7"))


def test_b18_yellow_promotion_on_rank_one():
    pos = position({"d2": "p", "a8": "K", "h8": "k"}, side="b", promote="NQ")
    assert orders_from(pos, "d2") == {"d2d1n", "d2d1q"}


# =========================================================================== B19 deploy
def test_b19_deploy_to_empty_first_rank_squares_one_order_per_type_and_square():
    # Blue Barracks: two Knights. Rank 1 empty except K e1: 7 squares, one order each (B19).
    pos = position({"e1": "K", "e8": "k"}, barracks="NN")
    assert deploys(pos) == {f"N@{f}1" for f in "abcdfgh"}
    assert sum(1 for o in orders_list(pos) if "@" in o) == 7


def test_b19_foot_units_may_deploy_to_the_second_rank():
    # Pawn: rank 1 (7 empty) + rank 2 (8 minus own N on c2 = 7): 14.
    pos = position({"e1": "K", "c2": "N", "e8": "k"}, barracks="P")
    want = {f"P@{f}1" for f in "abcdfgh"} | {f"P@{f}2" for f in "abdefgh"}
    assert deploys(pos) == want


@pytest.mark.parametrize("token,foot", [("I", True), ("T", True), ("M", True), ("~P", True),
                                        ("~M", True), ("~N", False), ("Q", False), ("U", False)])
def test_b19_deploy_ranks_by_class(token, foot):
    pos = position({"e1": "K", "e8": "k"}, barracks=token)
    ranks = (1, 2) if foot else (1,)
    want = {f"{token}@{f}{r}" for f in "abcdefgh" for r in ranks} - {f"{token}@e1"}
    assert deploys(pos) == want


def test_b19_yellow_deploys_to_its_own_first_and_second_rank():
    # Yellow Barracks n and p: n to rank 8 (7 empty), p to ranks 8 and 7 (15).
    pos = position({"e1": "K", "e8": "k"}, side="b", barracks="np")
    want = {f"N@{f}8" for f in "abcdfgh"} | {f"P@{f}8" for f in "abcdfgh"} | \
        {f"P@{f}7" for f in "abcdefgh"}
    assert deploys(pos) == want


def test_b19_only_the_side_to_move_deploys_and_deploy_empties_the_barracks():
    pos = position({"e1": "K", "e8": "k"}, barracks="Nn")
    assert {o for o in deploys(pos)} == {f"N@{f}1" for f in "abcdfgh"}
    order = next(o for o in pos.legal_orders() if str(o).upper() == "N@A1")
    pos.push(order)
    assert board_of(pos).get("a1") == "N"
    assert barracks_of(pos) == Counter({"n": 1})


# =========================================================================== status flags (A3, C1, C6)
@pytest.mark.parametrize("flag", ["o", "n"])
def test_c1_ordered_or_banned_unit_gets_no_orders(flag):
    pos = position({"d1": "Q", "b1": "N", "a1": "K", "h8": "k"}, tail=f"status:d1{flag}")
    assert orders_from(pos, "d1") == set()
    assert orders_from(pos, "b1") == {"b1a3", "b1c3", "b1d2"}


@pytest.mark.parametrize("flag", ["w", "b"])
def test_c6_immune_unit_cannot_be_captured_but_blocks(flag):
    # Queen d1 north: d2 d3 d4 then the immune enemy on d5: no capture, nothing beyond.
    pos = position({"d1": "Q", "d5": "p", "a1": "K", "h8": "k"}, tail=f"status:d5{flag}")
    north = {o for o in orders_from(pos, "d1") if o[2] == "d"}
    assert north == {"d1d2", "d1d3", "d1d4"}


def test_c6_immune_unit_cannot_be_shot_by_oracle_or_sniper():
    pos = position({"d4": "O", "d6": "p", "a4": "S", "a7": "n", "a1": "K", "h8": "k"},
                   tail="status:d6b,a7w")
    assert "d4d6" not in orders_from(pos, "d4")
    assert "a4a7" not in orders_from(pos, "a4")


def test_c6_immune_sovereign_cannot_be_captured():
    pos = position({"d1": "Q", "d8": "k", "a1": "K"}, tail="status:d8b")
    assert "d1d8" not in orders_from(pos, "d1")


# =========================================================================== 10.0 / C8 Sovereigns
def test_c8_side_without_sovereign_has_no_orders():
    # Yellow has no Sovereign on the board: the game is over, Blue has no orders.
    pos = position({"e1": "K", "d1": "Q", "e8": "n"})
    assert pos.legal_orders() == []
    assert perft(pos, 1) == 0
    assert perft(pos, 0) == 1


def test_c8_side_to_move_without_sovereign_has_no_orders():
    pos = position({"e1": "N", "d1": "Q", "e8": "k"})
    assert pos.legal_orders() == []
    assert perft(pos, 2) == 0


def test_c8_sovereign_in_barracks_does_not_count():
    pos = position({"e1": "K", "d1": "Q"}, barracks="k")
    assert pos.legal_orders() == []


@pytest.mark.parametrize("sovereign", ["u", "~k", "k"])
def test_12_0_anointed_and_khan_are_sovereigns(sovereign):
    pos = position({"e1": "K", "h7": sovereign})
    assert len(pos.legal_orders()) == 5  # K e1: d1 d2 e2 f2 f1


def test_c8_capturing_the_last_sovereign_ends_the_game():
    # d1d8 takes the only Yellow Sovereign: no Yellow replies below it.
    pos = position({"d1": "Q", "d8": "k", "a1": "K"})
    counts = divide(pos, 2)
    assert counts["d1d8"] == 0
    assert perft(pos, 1) == len(pos.legal_orders())


def test_12_0_two_sovereigns_one_captured_game_goes_on():
    # Yellow has k and u: losing one Sovereign is not losing (10.0).
    pos = position({"d1": "Q", "d8": "k", "h7": "u", "a1": "K"})
    counts = divide(pos, 2)
    assert counts["d1d8"] > 0


# =========================================================================== C8 perft sanity
def test_c8_perft_one_equals_number_of_orders_and_orders_are_unique():
    pos = position({"e4": "W", "e1": "F", "b1": "L", "b2": "p", "a1": "K", "h8": "k", "g7": "i"},
                   barracks="Pn")
    lst = orders_list(pos)
    assert len(lst) == len(set(lst))
    assert perft(pos, 1) == len(lst)


def test_push_pop_restores_the_position_text():
    pos = position({"e7": "P", "d8": "q", "d4": "O", "d6": "p", "a1": "K", "h1": "k", "c3": "Y"},
                   barracks="Ii", tail="status:c3w")
    before = pos.to_text()
    for order in pos.legal_orders():
        pos.push(order)
        popped = pos.pop()
        assert str(popped) == str(order)
        assert pos.to_text() == before, str(order)


# =========================================================================== 16.0 / B17 more wraps
def test_16_0_sniper_attacks_through_the_wrap_when_the_direct_ray_is_blocked():
    # B14 + B17: own N on b1 blocks the eastward ray at distance 1, so c1 is safe in flat mode; in
    # cylindrical mode the westward ray h1 g1 f1 e1 d1 is empty and reaches c1 at distance 6.
    # Other rays: a2 a3 (north), b2 c3 (NE); cylindrical adds h1 g1 (march west) and h2 g3 (NW).
    pos = position({"a1": "S", "b1": "N", "c1": "n", "e2": "K", "e8": "k"})
    assert orders_from(pos, "a1") == {"a1a2", "a1a3", "a1b2", "a1c3"}
    assert orders_from(pos, "a1", cylindrical=True) == {
        "a1" + s for s in squares("a2 a3 b2 c3 h1 g1 c1 h2 g3")}


def test_b17_sniper_wrapped_ray_reaches_an_adjacent_enemy_from_behind():
    # B14 + B17: enemy on b1 is at distance 1 eastward (no attack that way), but the westward ray
    # h1 g1 f1 e1 d1 c1 is clear and meets b1 at distance 7 >= 2: attack "a1b1" (cylindrical only).
    pos = position({"a1": "S", "b1": "n", "e2": "K", "e8": "k"})
    assert "a1b1" not in orders_from(pos, "a1")
    assert orders_from(pos, "a1", cylindrical=True) == {
        "a1" + s for s in squares("a2 a3 b2 c3 h1 g1 b1 h2 g3")}


def test_16_0_charger_captures_across_the_wrap():
    # B12 + B17: Charger a1, enemies g1 h1; westward through the wrap: a1h1 (takes h1), a1g1 (h1, g1),
    # a1f1 (passes both). Eastward b1 c1 d1, north a2 a3 a4.
    pos = position({"a1": "L", "g1": "p", "h1": "n", "e2": "K", "e8": "k"})
    assert orders_from(pos, "a1") == {"a1" + s for s in squares("b1 c1 d1 a2 a3 a4")}
    assert orders_from(pos, "a1", cylindrical=True) == {
        "a1" + s for s in squares("b1 c1 d1 a2 a3 a4 h1 g1 f1")}
    pos.push(pos.parse_order("a1f1", cylindrical=True), cylindrical=True)
    board = board_of(pos)
    assert board.get("f1") == "L" and not {"a1", "g1", "h1"} & set(board)


def test_b6_immortal_passed_by_a_charger_goes_to_barracks():
    # B12 + B6: the Charger takes the pawn (to the Stock) and the Immortal (to Yellow's Barracks).
    pos = position({"a1": "L", "a3": "p", "a4": "i", "e2": "K", "e8": "k"})
    pos.push(pos.parse_order("a1a4"))
    assert board_of(pos).get("a4") == "L"
    assert barracks_of(pos) == Counter({"i": 1})


def test_b6_immortal_shot_by_an_oracle_goes_to_barracks():
    pos = position({"d4": "O", "d6": "i", "e1": "K", "e8": "k"})
    pos.push(pos.parse_order("d4d6"))
    assert board_of(pos).get("d4") == "O" and "d6" not in board_of(pos)
    assert barracks_of(pos) == Counter({"i": 1})


# =========================================================================== B18 within the 8th rank
@pytest.mark.parametrize("token,want", [
    # Monk e8: sideways 2 to c8/g8 (promotes), diagonal d7/f7, 2 back e6 (no promotion).
    ("M", "e8c8q e8g8q e8d7 e8f7 e8e6"),
    # Pilgrim: same pattern as the Monk (cylindrical, nothing wraps from e8).
    ("~M", "e8c8q e8g8q e8d7 e8f7 e8e6"),
    # Courier e8: cannot go forward; sideways d8/f8 stay on the 8th rank: promotes.
    ("~P", "e8d8q e8f8q"),
    # Striker e8: only the backward ride (march), ending below the 8th rank: no promotion.
    ("T", "e8e7 e8e6 e8e5 e8e4 e8e3 e8e2 e8e1"),
])
def test_b18_foot_unit_moving_within_the_eighth_rank_promotes(token, want):
    pos = position({"e8": token, "a1": "K", "a7": "k"}, promote="Q")
    assert orders_from(pos, "e8") == set(want.split())


# =========================================================================== status flags over turns
def test_c6_immunity_flag_b_ends_when_yellows_turn_starts():
    # "b": immune until Yellow's next turn starts. Blue can't take d5 now; after Blue's order Yellow's
    # turn starts, the flag is gone, and two plies later Blue can take d5.
    pos = position({"d1": "Q", "d5": "p", "a1": "K", "e8": "k"}, tail="status:d5b")
    assert "d1d5" not in orders_from(pos, "d1")
    pos.push(pos.parse_order("a1a2"))
    pos.push(pos.parse_order("e8e7"))
    assert "d1d5" in orders_from(pos, "d1")


def test_c6_immunity_flag_w_protects_through_the_opponents_turn():
    # Armor (13.0): Blue's unit immune until Blue's next turn ("w"): Yellow can't take it in between.
    pos = position({"d2": "N", "d5": "q", "a1": "K", "e8": "k"}, tail="status:d2w")
    pos.push(pos.parse_order("a1a2"))
    assert "d5d2" not in orders_from(pos, "d5")
    # ... while a "b" flag on the Blue unit expires as Yellow's turn starts.
    pos = position({"d2": "N", "d5": "q", "a1": "K", "e8": "k"}, tail="status:d2b")
    pos.push(pos.parse_order("a1a2"))
    assert "d5d2" in orders_from(pos, "d5")


def test_c1_ordered_flag_lasts_only_for_this_turn():
    pos = position({"d1": "Q", "a1": "K", "e8": "k"}, tail="status:d1o")
    pos.push(pos.parse_order("a1a2"))
    pos.push(pos.parse_order("e8e7"))
    assert len(orders_from(pos, "d1")) > 0


def test_12_0_spy_may_swap_with_a_unit_that_may_not_be_ordered():
    # A swap does not order the swapped unit (12.0 Spy), so a unit flagged "n" may be swapped with.
    pos = position({"d4": "Y", "c1": "B", "a1": "K", "h8": "k"}, tail="status:c1n")
    assert "d4c1" in orders_from(pos, "d4")
    assert orders_from(pos, "c1") == set()


# =========================================================================== B18 / contract: Stock and promote
def test_b18_default_stock_is_clamped_at_zero():
    # RULINGS E: 4 Queens exist; 6 are on the board (5 Blue + the Yellow one on d8) -> Stock Q = 0
    # (clamped, not -2). e7e8: no "q". e7d8 captures the Yellow Queen, which returns to the Stock
    # (Q = 1), so "e7d8q" is a choice.
    pos = position({"e7": "P", "d8": "q", "a2": "Q", "b2": "Q", "c2": "Q", "d2": "Q", "e2": "Q",
                    "a1": "K", "h8": "k"})
    got = orders_from(pos, "e7")
    assert "e7d8q" in got and "e7e8q" not in got
    assert got == {"e7d8" + t.lower() for t in BASE24} | \
        {"e7e8" + t.lower() for t in BASE24 if t != "Q"}


def test_contract_promote_argument_overrides_the_text_field():
    pos = position({"e7": "P", "a1": "K", "h8": "k"}, tail="promote:Q~B", promote="N")
    assert orders_from(pos, "e7") == {"e7e8n"}


def test_contract_perft_and_divide_promote_argument():
    # K a1: a2 b1 b2 (3) + the pawn's promotions.
    text = text_of({"e7": "P", "a1": "K", "h8": "k"})
    assert perft(text, 1) == 3 + 24
    assert perft(text, 1, promote="NQ") == 5
    assert set(divide(text, 1, promote="NQ")) == {"a1a2", "a1b1", "a1b2", "e7e8n", "e7e8q"}
    text = text_of({"e7": "P", "a1": "K", "h8": "k"}, tail="promote:Q~B")
    assert set(divide(text, 1)) == {"a1a2", "a1b1", "a1b2", "e7e8q", "e7e8~b"}


def test_contract_perft_and_divide_promote_argument_on_a_position_object():
    # The same contract for a Position: promote overrides its promotion types exactly as for the
    # text (K a1: a2 b1 b2 (3) + e7e8n, e7e8q), and the Position passed in is left as it was.
    text = text_of({"e7": "P", "a1": "K", "h8": "k"})
    pos = Position.from_text(text)
    assert perft(pos, 1, promote="NQ") == 5
    assert set(divide(pos, 1, promote="NQ")) == {"a1a2", "a1b1", "a1b2", "e7e8n", "e7e8q"}
    assert perft(pos, 2, promote="NQ", threads=2) == perft(text, 2, promote="NQ")
    assert perft(pos, 1) == 3 + 24 and pos.to_text() == text


def test_contract_promote_argument_keeps_the_positions_catalog():
    # A Position of King's Ransom's 3x6 catalog: Rook a1 reaches a2-a6 and b1 (c1 is its own King),
    # King c1 reaches b1 b2 c2: 9 orders, with or without promote (no Foot unit), never the 8x8
    # board's 13.
    from engine.catalog import ransom_catalog

    pos = Position.from_text("8/8/2k5/8/8/8/8/R1K5 w", catalog=ransom_catalog())
    assert perft(pos, 1) == 9
    assert perft(pos, 1, promote="Q") == 9
    assert set(divide(pos, 1, promote="Q")) == {"a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1b1", "c1b1", "c1b2",
                                                "c1c2"}


def test_c8_divide_sums_to_perft():
    text = text_of({"e4": "W", "e1": "F", "b1": "L", "b2": "p", "a1": "K", "h8": "k", "g7": "i",
                    "d7": "P"}, barracks="Pn", tail="promote:NQ")
    for cyl in (False, True):
        counts = divide(text, 2, cylindrical=cyl)
        assert sum(counts.values()) == perft(text, 2, cylindrical=cyl)
        assert len(counts) == perft(text, 1, cylindrical=cyl)


def test_13_0_false_orders_ban_on_an_enemy_unit_lasts_through_its_owners_next_turn():
    # 13.0 False Orders: the unit cannot be issued orders on its owner's next turn. In
    # position text that is an "n" flag on the non-moving side's unit: it survives the turn change
    # and expires when its owner's turn ends (notation.py, status field).
    pos = position({"a1": "K", "d5": "n", "h8": "k"}, tail="status:d5n")
    pos.push(pos.parse_order("a1a2"))           # Blue's turn ends, Yellow's turn starts
    assert orders_from(pos, "d5") == set()      # banned during Yellow's turn
    pos.push(pos.parse_order("h8h7"))           # Yellow's turn ends: the ban is over
    pos.push(pos.parse_order("a2a1"))
    assert len(orders_from(pos, "d5")) == 8     # knight d5: b4 b6 c3 c7 e3 e7 f4 f6


def test_6_0_ordered_flag_expires_when_the_turn_ends():
    # "o" marks a unit ordered in the current turn (6.0: one order per unit per turn); it means
    # nothing once that turn is over, whoever owns the unit.
    pos = position({"a1": "K", "d5": "n", "h8": "k"}, tail="status:d5o")
    pos.push(pos.parse_order("a1a2"))
    assert len(orders_from(pos, "d5")) == 8
