"""Crusade & Conquer on an edited layout where level-2 squares touch level-0 ones (RULINGS H1 is
PROVISIONAL; the shipped board has no such pair, so only another layout shows H3's two-level rule).

H3: no single step of a move goes two levels up or down: a ride (Rook, Bishop, Queen) stops before a
square two levels from the one before it, a King, a Pawn and a Flag Bearer never step there, a Knight
never lands there (H4), a Dragon's step does not go there (its flight ignores heights, H7); attacks
follow the same paths. The absent and present moves below are derived by hand from H3, H4 and H7;
every count (legal moves, perft, divide) is the independent reference's (tests/reference/crusade.py,
written from the rules without the engine), computed here as the oracle.

The layout (heights, rank 8 first; the castles as H1):

    8  0 0 1 2 2 1 0 0
    7  0 0 1 1 1 1 0 0
    6  0 2 0 0 0 0 0 0      b6: level 2 in the field
    5  0 0 1 0 2 0 0 0      c5: level 1, e5: level 2
    4  0 0 0 2 0 0 0 0      d4: level 2
    3  0 0 0 0 0 0 0 0
    2  0 0 1 1 1 1 0 0
    1  0 0 1 2 2 1 0 0
       a b c d e f g h
"""

from __future__ import annotations

import random

import pytest

from engine.catalog import crusade_catalog
from engine.crusade.position import CrusadePosition, layout_catalog
from tests.reference import crusade as reference

LAYOUT = "00122100/00111100/02000000/00102000/00020000/00000000/00111100/00122100 e1 e8"

#: Blue: K f4, Q d4 (level 2), R h5, N g6, P a5. Red: k a8, r a4, b b6 (level 2), d d5, p e6, f g7.
BOARD = "k7/6f1/1b2p1N1/P2d3R/r2Q1K2/8/8/8"
BLUE_TO_MOVE = f"{BOARD} w - 0 1"
RED_TO_MOVE = f"{BOARD} b - 0 1"
#: The Red King on f6, diagonally past e5 (level 2) from the Blue Queen on d4 (level 2).
KING_PAST_E5 = "6f1/8/1b2pk2/P2d3R/r2Q1K2/8/8/8 b - 0 1"
POSITIONS = [BLUE_TO_MOVE, RED_TO_MOVE, KING_PAST_E5]


def engine(text: str) -> CrusadePosition:
    return CrusadePosition.from_text(text, layout_catalog(LAYOUT))


def oracle(text: str):
    return reference.parse(text, reference.parse_layout(LAYOUT))


def test_the_layout_has_level_2_next_to_level_0_and_the_shipped_board_has_none():
    def two_level_pairs(heights):
        return {(a, b) for a in range(64) for b in range(64)
                if max(abs(a % 8 - b % 8), abs(a // 8 - b // 8)) == 1 and heights[a] - heights[b] == 2}
    assert two_level_pairs(layout_catalog(LAYOUT).board.heights)
    assert not two_level_pairs(crusade_catalog().board.heights)


def test_no_two_level_drop_or_climb_and_the_one_level_moves_stay():
    blue = set(engine(BLUE_TO_MOVE).legal_moves())
    # Drops from d4 (level 2) to level 0: the Queen's d3 d5(capture) c3 c4 e3 e4, and f6 after a
    # level-2 square (d4-e5-f6). Climbs to level 2: the Rook's h5-g5-f5-e5, the King's f4-e5, the
    # Knight's g6-e5, the Pawn's capture a5xb6.
    assert not {"d4d3", "d4d5", "d4c3", "d4c4", "d4e3", "d4e4", "d4f6", "h5e5", "f4e5", "g6e5", "a5b6"} & blue
    # One level (d4-c5), the same level (d4-e5), and the level-0 slides before the climb stay.
    assert {"d4c5", "d4e5", "h5f5", "h5g5", "f4g5", "g6e7", "a5a6"} <= blue
    red = set(engine(RED_TO_MOVE).legal_moves())
    # Drops from b6 (level 2): the Bishop's a7 and a5 (a capture). Climbs: the Rook's a4-b4-c4-d4
    # (a capture), the Dragon's steps d5-d4 (a capture) and d5-e5, the Pawn's e6-e5.
    assert not {"b6a7", "b6a5", "a4d4", "d5d4", "d5e5", "e6e5"} & red
    assert {"b6c5", "b6c7", "a4c4", "d5c5", "d5f7"} <= red          # d5f7: the flight over e6 (H7)
    # Attacks follow the same paths: the Queen on d4 does not reach f6 through e5 (a drop of two).
    past = engine(KING_PAST_E5)
    assert not past.in_check() and "f6e5" not in past.legal_moves() and "f6e7" in past.legal_moves()


@pytest.mark.parametrize("text", POSITIONS)
def test_legal_moves_and_status_equal_the_reference(text):
    pos, ref = engine(text), oracle(text)
    assert sorted(pos.legal_moves()) == sorted(reference.move_text(m) for m in reference.legal_moves(ref))
    assert pos.in_check() == reference.in_check(ref) and pos.status() == reference.status(ref)


@pytest.mark.parametrize("text", POSITIONS)
def test_perft_d1_to_d3_and_divide_equal_the_reference(text):
    pos, ref = engine(text), oracle(text)
    for depth in (1, 2, 3):
        assert pos.perft(depth) == reference.perft(ref, depth), f"D{depth} of {text}"
    assert pos.divide(2) == reference.divide(ref, 2)


@pytest.mark.slow
@pytest.mark.parametrize("text", POSITIONS)
def test_perft_d4_equals_the_reference(text):
    assert engine(text).perft(4) == reference.perft(oracle(text), 4)


def test_moves_agree_with_the_reference_along_random_games_on_the_layout():
    rng = random.Random(39)
    for text in POSITIONS:
        for _ in range(3):
            pos, ref = engine(text), oracle(text)
            for _ in range(30):
                ours = sorted(pos.legal_moves())
                assert ours == sorted(reference.move_text(m) for m in reference.legal_moves(ref)), pos.text()
                if not ours:
                    break
                move = rng.choice(ours)
                pos.push(move)
                ref = reference.play(ref, move)
                assert pos.text() == ref.text()
