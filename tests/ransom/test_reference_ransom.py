"""Tests of the slow King's Ransom reference (tests/reference/ransom.py) itself.

Every count below is derived BY HAND in the comment above it, from the rules (G1-G8, FAQ) and the
contract docs/kings-ransom.md, not from running the reference.  Squares: files a-c, ranks 1-6;
Red moves up from rank 1, Blue down from rank 6.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.reference import ransom
from tests.reference.ransom import after, parse, reference_divide, reference_perft, status, turns

ROOT = Path(__file__).resolve().parents[2]
EPD = ROOT / "tests" / "data" / "ransom_perft.epd"
START = ("n*kb*/1p*1/1i*1/1P*1/1P*1/R*KN* r QBI/qrp PNPIPBPRPNPIPPPP/pnpipbprpnpipppp -/- 0 1")


def perfts(text, depth):
    return [reference_perft(text, d) for d in range(1, depth + 1)]


# --------------------------------------------------------------------------------------------
# Kings only
# --------------------------------------------------------------------------------------------

def test_two_kings_far_apart():
    # Red K b1, Blue k b6, empty Hands, nothing face down: flip:- and play:- every turn.
    # D1: b1 -> a1 c1 a2 b2 c2 = 5; none is next to b6.
    # D2: after any of them Red's King is on rank <= 2 and attacks rank <= 3, so Blue's k b6 has
    # all of a6 c6 a5 b5 c5: 5 x 5 = 25.
    text = "1k1/3/3/3/3/1K1 r -/- -/- -/- 0 1"
    assert perfts(text, 2) == [5, 25]
    assert "flip:- move:b1a2 play:-" in turns(parse(text))


def test_kings_facing_each_other():
    # Red K b3, Blue k b5.  D1: b3's 8 neighbours a2 b2 c2 a3 c3 a4 b4 c4, minus a4 b4 c4 (next to
    # b5) = 5.
    # D2: k b5 has 8 neighbours a4 b4 c4 a5 c5 a6 b6 c6.  Red K on a2/b2/c2 attacks only ranks 1-3:
    # 8 each = 24.  Red K a3 attacks a4 b4: 6.  Red K c3 attacks b4 c4: 6.  24 + 6 + 6 = 36.
    assert perfts("3/1k1/3/1K1/3/3 r -/- -/- -/- 0 1", 2) == [5, 36]


# --------------------------------------------------------------------------------------------
# Flip x move x play
# --------------------------------------------------------------------------------------------

def test_one_face_down_card_and_one_card_in_hand():
    # Red K a1, R* c1 (face down), Hand N; Blue k a6 alone.  Flip: c1 (the only one).
    # Moves: Rook c1 -> c2 c3 c4 c5 c6, b1 (a1 own King) = 6; King a1 -> a2 b1 b2 = 3.  9 moves.
    # Plays: N onto an empty square of ranks 1-3 after the move.  Before: a1, c1 taken, 7 empty.
    #   Rook c2, c3, b1: still 2 taken -> 7 each = 21; Rook c4, c5, c6: only K left -> 8 each = 24;
    #   King a2, b1, b2: 2 taken -> 7 each = 21.  21 + 24 + 21 = 66.
    text = "k2/3/3/3/3/K1R* r N/- -/- -/- 0 1"
    assert reference_perft(text, 1) == 66
    ts = turns(parse(text))
    assert all(t.startswith("flip:c1 ") for t in ts)
    assert "flip:c1 move:c1c4 play:N@c1" in ts  # the vacated square can take the card


def test_promotion_with_queen_and_knight_in_discard():
    # Red P a5, K a1, Discard QN, empty Hand; Blue k c4.  Pawn a5 -> a6 (empty): keep, =Q, =N
    # = 3 options (G5).  King a1 -> a2 b1 b2 (k c4 reaches ranks 3-5 only) = 3.  Total 6.
    text = "3/P2/2k/3/3/K2 r -/- -/- QN/- 0 1"
    ts = turns(parse(text))
    assert len(ts) == 6
    assert {"flip:- move:a5a6 play:-", "flip:- move:a5a6=Q play:-",
            "flip:- move:a5a6=N play:-"} <= set(ts)
    p = after(parse(text), "flip:- move:a5a6=Q play:-")
    assert p.board[(0, 5)] == ransom.Card("Q", "r", False)
    assert p.discards["r"] == ("N", "P")


def test_promotion_readings_the_contract_leaves_open():
    # READINGS (switches in ransom.py, flagged for the project to rule on):
    # (1) PROMOTE_TO_PAWN = False: a Pawn in the Discard pile gives no "=P" option (the result is
    #     the same as keeping the Pawn).  Red P a5, Discard QP, K a1; Blue k c4: a5a6 keep / =Q
    #     = 2, King 3 -> 5 (it would be 6 with "=P").  This reading changes D3 of two lines of
    #     tests/data/ransom_perft.epd (913238 -> 917846, 56056 -> 56224).
    assert ransom.PROMOTE_TO_PAWN is False
    assert reference_perft("3/P2/2k/3/3/K2 r -/- -/- QP/- 0 1", 1) == 5
    # (2) KING_CAPTURE_PROMOTES = False: a Pawn taking the King on the back row ends the game
    #     with no promotion choice.  Red P a5, Discard Q, K a1; Blue k b6: a5a6 keep / =Q = 2,
    #     a5xb6 = 1, King a1 -> a2 b1 b2 = 3: 6 (it would be 7 with a choice).
    assert ransom.KING_CAPTURE_PROMOTES is False
    ts = turns(parse("1k1/P2/3/3/3/K2 r -/- -/- Q/- 0 1"))
    assert len(ts) == 6 and "flip:- move:a5b6 play:-" in ts


def test_full_own_half_forces_replace_or_discard():
    # Red: K b1; face-down Pawns on a1 c1 a2 b2 c2 a3 b3 c3 (own half full); face-up R a4, P b4,
    # R c4; Hand NP.  Blue: k b6 alone.
    # Flips: 8.  Whatever is flipped, that Pawn is blocked (own card ahead, own cards diagonally),
    # the King is boxed in, and the movers are R a4 -> a5 a6, R c4 -> c5 c6, P b4 -> b5: 5 moves,
    # none of them frees a square of ranks 1-3.  Plays: own half full -> replace one of the 8
    # non-King own cards or discard = 9 per kind, 2 kinds = 18.  D1 = 8 x 5 x 18 = 720.
    # D2: flip and play do not change what attacks Blue, so D2 = 8 x 18 x (sum over the 5 moves
    # of Blue's replies).  k b6 -> a6 c6 a5 b5 c5:
    #   R a5: a6 (R a5), c6 (R c4), a5 (defended by P b4), b5 (R a5), c5 (R c4, P b4): 0, not
    #         in check, Hand empty -> stalemate, 0.
    #   R a6 (check): xa6 (undefended) and b5 only: 2.   R c5: 0 (mirror).   R c6: 2 (mirror).
    #   P b5: a6 c6 (pawn), a5 (R a4), c5 (R c4) attacked; xb5 is free (R a4 now sees b4, c4
    #         only): 1.
    #   0 + 2 + 0 + 2 + 1 = 5; D2 = 144 x 5 = 720.
    text = "1k1/3/RPR/P*P*P*/P*P*P*/P*KP* r NP/- -/- -/- 0 1"
    assert perfts(text, 2) == [720, 720]
    ts = turns(parse(text))
    assert "flip:a2 move:a4a5 play:N@discard" in ts
    assert "flip:a2 move:a4a5 play:P@b2" in ts
    assert not any(t.endswith("@b1") for t in ts)  # never the King
    p = after(parse(text), "flip:a2 move:a4a5 play:N@c3")
    assert p.board[(2, 2)] == ransom.Card("N", "r", True)
    assert p.discards["r"] == ("P",) and p.hands["r"] == ("P",)


# --------------------------------------------------------------------------------------------
# Check, checkmate, stalemate (G7, G9)
# --------------------------------------------------------------------------------------------

def test_check_only_the_flipped_card_can_answer():
    # Red K a1, face-down P* b1 and N* b2; Blue r a4 (face up, checks down the a-file), k c6.
    # King: a2 on the file, b1 b2 own: no move.  Flip b1 (Pawn): b2 own ahead, a2 c2 empty: no
    # move -> this flip is not offered.  Flip b2 (Knight): b2 -> a4 (takes the Rook, legal) or c4
    # (still in check, illegal).  Hand empty.  D1 = 1.
    # D2: Blue k c6 -> b6 (N a4 attacks b6), c5 (N a4 attacks c5), b5 (free): 1.
    text = "2k/3/r2/3/1N*1/KP*1 r -/- -/- -/- 0 1"
    assert turns(parse(text)) == ["flip:b2 move:b2a4 play:-"]
    assert perfts(text, 2) == [1, 1]


def test_checkmate():
    # As above but b2 is a Pawn: flipped, it may go to b3 (check stays: illegal) and has nothing
    # to take; the b1 Pawn is blocked.  In check, no flip allows a legal move: checkmate, even
    # with a card in Hand.
    text = "2k/3/r2/3/1P*1/KP*1 r Q/- -/- -/- 0 1"
    assert status(parse(text)) == "checkmate"
    assert turns(parse(text)) == []
    assert reference_perft(text, 1) == 0 and reference_perft(text, 2) == 0
    # Red K a1 alone, Blue r a4 and r b4: a2 (a-file), b1 b2 (b-file), a1 in check.
    assert status(parse("2k/3/rr1/3/3/K2 r -/- -/- -/- 0 1")) == "checkmate"


def test_stalemate_king_alone_with_cards_in_hand():
    # Red K a1 alone (nothing face down), Hand Q; Blue r b4 (b-file: b1 b2), r c2 (rank 2: a2 b2).
    # a1 is not attacked; a2 b1 b2 all are.  King alone on the arena -> stalemate (FAQ), even
    # though the Hand has a card.
    text = "2k/3/1r1/3/2r/K2 r Q/- -/- -/- 0 1"
    assert status(parse(text)) == "stalemate"
    assert reference_perft(text, 1) == 0


# G9 stalemate: no legal move in the Move step, King not threatened, whatever the Hand holds.
# The three positions below are the three kinds issue 22 found; each has a Hand, so before G9 the
# move step was skipped and a card played.
G9_STALEMATES = [
    # Red K a1, face-up P a6 on Blue's back row: nothing ahead, nothing diagonal on the arena. Blue
    # r b3 (b-file: b2 b1) and r c2 (rank 2: b2 a2); a1 itself is not attacked. King a2 b1 b2 are
    # all threatened: no legal move; Hand Q.
    "P1k/3/3/1r1/2r/K2 r Q/- -/- -/- 0 1",
    # Red K a1, face-up P a2 blocked by Blue's face-down n* a3, b3 empty (nothing to take); Blue r
    # b4 covers b1 b2; a1 not attacked. Hand QN.
    "2k/3/1r1/n*2/P2/K2 r QN/- -/- -/- 0 1",
    # As above with the Pawn face down: the flip of a2 is mandatory and the flipped Pawn is still
    # blocked, so no flip allows a move. Hand QN.
    "2k/3/1r1/n*2/P*2/K2 r QN/- -/- -/- 0 1",
]


@pytest.mark.parametrize("text", G9_STALEMATES)
def test_g9_no_legal_move_unthreatened_is_stalemate_whatever_the_hand(text):
    pos = parse(text)
    assert status(pos) == "stalemate"
    assert turns(pos) == []
    assert reference_perft(text, 1) == 0 and reference_perft(text, 2) == 0
    assert reference_divide(text, 2) == {}


def test_g9_only_a_flip_that_allows_a_move_is_offered():
    # Red K a1, P* a2 blocked by n* a3, N* c1; Blue r b4 (b1 b2 b3). Flip a2: the Pawn has no
    # move and the King none (a2 own, b1 b2 threatened): this flip is not offered. Flip c1: the
    # Knight goes to b3 (a2 is own); the King stays safe. After N c1-b3 Red's half has b1 b2 c1
    # c2 c3 empty: 5 plays of Q. D1 = 5, every turn starting flip:c1.
    text = "2k/3/1r1/n*2/P*2/K1N* r Q/- -/- -/- 0 1"
    ts = turns(parse(text))
    assert len(ts) == 5 and all(t.startswith("flip:c1 move:c1b3 play:Q@") for t in ts)


def test_g9_stalemate_with_a_hand_at_depth_2():
    # Red K c1, R b3, R c4; Blue k a6, face-up p a1 (on Red's back row: stuck), Hand p. Red plays
    # R c4-c5: Blue's k a6 then has a5 (R c5 along rank 5), b5 (both Rooks), b6 (R b3 up the
    # b-file): no square, a6 itself not attacked, the Pawn cannot move: stalemate (G9) though the
    # Hand holds p, so that subtree is 0. Before G9 it was 7 (move skipped, p played on b6 c6 a5 b5
    # a4 b4 c4).
    text = "k2/3/2R/1R1/3/p1K r -/p -/- -/- 0 1"
    after_move = after(parse(text), "flip:- move:c4c5 play:-")
    assert status(after_move) == "stalemate"
    assert reference_divide(text, 2)["flip:- move:c4c5 play:-"] == 0


def test_face_down_enemy_card_gives_no_check():
    # Red K a1 alone; Blue r* face down on a4 (a2 a3 empty), k c6.  Face-down gives no check
    # (G6): a2 b1 b2 = 3.
    # D2: Blue must flip a4 (Rook).  Red K a2: Rook a3, xa2 (King, legal, ends), a5 a6, b4 c4 = 6;
    # k c6 -> b6 b5 c5 = 3: 9.  Red K b1 or b2: Rook a3 a2 a1 a5 a6 b4 c4 = 7, + 3 = 10 each.
    # 9 + 10 + 10 = 29.
    assert perfts("2k/3/r*2/3/3/K2 r -/- -/- -/- 0 1", 2) == [3, 29]
    # Face up the Rook checks: a2 is on the file, b1 b2 remain: 2.
    assert reference_perft("2k/3/r2/3/3/K2 r -/- -/- -/- 0 1", 1) == 2
    # A face-down card blocks a ride: Blue r a6 face up, p* a4 between: no check, 3 moves.
    assert reference_perft("r1k/3/p*2/3/3/K2 r -/- -/- -/- 0 1", 1) == 3


def test_king_capture_ends_the_game():
    # Red K a1, R* c1; Blue k c6 alone.  Flip c1.  Rook c2 c3 c4 c5, xc6 (King), b1 = 6; King
    # a2 b1 b2 = 3.  D1 = 9.
    # D2: xc6 is a leaf: 1.  Blue's k c6 -> b6 b5 c5:
    #   R c2/c3/c4 (check on the file): b6 b5 = 2 each -> 6.  R c5: xc5 (undefended), b6; b5 on
    #   rank 5: 2.  R b1: b6 b5 on the b-file, c5 ok: 1.  King moves (Rook c1 checks up the file):
    #   b6 b5 = 2 each -> 6.  1 + 6 + 2 + 1 + 6 = 16.
    text = "2k/3/3/3/3/K1R* r -/- -/- -/- 0 1"
    assert perfts(text, 2) == [9, 16]
    capture = "flip:c1 move:c1c6 play:-"
    assert reference_divide(text, 2)[capture] == 1
    assert reference_divide(text, 3)[capture] == 1  # no successors at any depth
    assert status(after(parse(text), capture)) == "king captured"


def test_blue_pawn_promotes_on_rank_1_and_captures_face_down():
    # Blue to move: p b2, k c6, Discard q; Red K a4, R* c1 (face down).  Pawn b2 -> b1 and xc1,
    # each keep or =q: 4.  k c6 -> b6 c5 (b5 next to Red's King): 2.  Total 6.
    text = "2k/3/K2/3/1p1/2R* b -/- -/- -/q 5 7"
    ts = turns(parse(text))
    assert len(ts) == 6 and "flip:- move:b2c1=q play:-" in ts
    p = after(parse(text), "flip:- move:b2c1=Q play:-")  # either case is read
    assert p.board[(2, 0)] == ransom.Card("Q", "b", False)
    assert p.discards == {"r": ("R",), "b": ("P",)}   # the captured card is revealed
    assert (p.side, p.no_capture, p.turn_number) == ("r", 0, 8)
    q = after(parse(text), "flip:- move:c6b6 play:-")
    assert (q.side, q.no_capture, q.turn_number) == ("r", 6, 8)


# --------------------------------------------------------------------------------------------
# The start position and the data file
# --------------------------------------------------------------------------------------------

def test_start_position_depth_1():
    # Red: R* a1, K b1, N* c1, P* b2, P* b3; Hand QBI.  Blue has no face-up card but its King.
    # King b1 -> a2 c2 after every flip (2).  Flip a1 (Rook): a2 a3 a4 a5 xa6 (+2 King) = 7.
    # Flip c1 (Knight): a2 (b3 own) (+2) = 3.  Flip b2 / b3 (Pawns, blocked, nothing to take): 2
    # each.  Empty squares of ranks 1-3 after the move (4 before: a2 c2 a3 c3):
    #   flip a1: Ra2 4, Ra3 4, Ra4 Ra5 Rxa6 5 each, K 4+4 -> 31; flip c1: Na2 4, K 4+4 -> 12;
    #   flips b2, b3: 8 each.  59 squares x 3 kinds (Q B I) = 177.
    pos = parse(START)
    assert pos.text() == START
    assert reference_perft(START, 1) == 177
    div = reference_divide(START, 1)
    assert sum(div.values()) == 177 and set(div) == set(turns(pos))


def test_contract_start_position_parses():
    doc = (ROOT / "docs" / "kings-ransom.md").read_text(encoding="utf-8")
    i = doc.index("The perft start position")
    text = re.search(r"```[^\n]*\n(.*?)\n```", doc[i:], re.S).group(1).strip()
    assert text == START
    assert sum(reference_divide(text, 1).values()) == reference_perft(text, 1)


def epd_lines():
    out = []
    for line in EPD.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        text, *fields = [f.strip() for f in line.split(";")]
        counts = {int(f.split()[0][1:]): int(f.split()[1]) for f in fields if f.startswith("D")}
        out.append((text, counts))
    return out


@pytest.mark.parametrize("text,counts", epd_lines())
def test_epd_file_matches_reference(text, counts):
    assert parse(text).text() == text
    for d in (1, 2):
        assert reference_perft(text, d) == counts[d]
    div = reference_divide(text, 2)
    assert sum(div.values()) == counts[2]


@pytest.mark.parametrize("text,counts", epd_lines())
def test_turns_are_distinct_and_round_trip(text, counts):
    pos = parse(text)
    ts = turns(pos)
    assert len(ts) == len(set(ts)) == counts[1] == ransom._count_last_ply(pos)
    for t in ts:
        nxt = after(pos, t)
        if status(nxt) == "king captured":  # parse wants both Kings on the arena
            continue
        assert parse(nxt.text()).text() == nxt.text()


# --------------------------------------------------------------------------------------------
# Malformed text
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    "",
    "1k1/3/3/3/3/1K1 r -/- -/- -/- 0",               # 6 fields
    "1k1/3/3/3/1K1 r -/- -/- -/- 0 1",               # 5 ranks
    "1k1/3/3/3/3/1K2 r -/- -/- -/- 0 1",             # 4 files
    "1k1/3/3/3/3/1X1 r -/- -/- -/- 0 1",             # bad token
    "1k1/3/3/3/3/1K1 w -/- -/- -/- 0 1",             # bad side
    "1k1/3/3/3/3/1K1 r q/- -/- -/- 0 1",             # Blue card in Red's hand
    "1k1/3/3/3/3/1K1 r - -/- -/- 0 1",               # hands without '/'
    "1k1/3/3/3/3/1K1 r -/- -/- -/- x 1",             # counter
    "1k1/3/3/3/3/1K1 r -/- -/- -/- 0 0",             # turn number from 1
    "3/3/3/3/3/1K1 r -/- -/- -/- 0 1",               # no Blue King
    "1k1/3/3/3/3/1K*1 r -/- -/- -/- 0 1",            # face-down King
])
def test_parse_rejects_malformed_text(bad):
    with pytest.raises(ValueError):
        parse(bad)


def test_after_rejects_an_illegal_turn():
    with pytest.raises(ValueError):
        after(parse("1k1/3/3/3/3/1K1 r -/- -/- -/- 0 1"), "flip:- move:b1b3 play:-")
