"""King's Ransom perft (G8) against the slow reference generator.

Oracle: tests/reference/ransom.py, written separately from docs/kings-ransom.md and RULINGS G
without reading the engine (its own tests derive their counts by hand). The numbers in
tests/data/ransom_perft.epd were produced by that reference; every line names it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.ransom.position import RansomPosition, RansomPositionError, divide, perft, turn_text
from engine.ransom.rules import default_rules
from tests.reference import ransom as ref

EPD = Path(__file__).resolve().parents[1] / "data" / "ransom_perft.epd"


def _suite() -> list[tuple[str, int, int]]:
    cases = []
    for line in EPD.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(";")]
        assert "tests/reference/ransom.py" in parts[-1], "every line names its oracle"
        for part in parts[1:-1]:
            depth, count = part[1:].split()
            cases.append((parts[0], int(depth), int(count)))
    return cases


SUITE = _suite()


@pytest.mark.parametrize("text,depth,count", [c for c in SUITE if c[1] <= 2], ids=lambda v: str(v)[:24])
def test_suite_to_depth_2(text, depth, count):
    assert perft(RansomPosition.parse(text), depth) == count


@pytest.mark.slow
@pytest.mark.parametrize("text,depth,count", [c for c in SUITE if c[1] == 3], ids=lambda v: str(v)[:24])
def test_suite_depth_3(text, depth, count):
    assert perft(RansomPosition.parse(text), depth) == count


def test_start_position_divide_matches_the_reference_line_by_line():
    start = default_rules().startpos
    ours = divide(RansomPosition.parse(start), 2)
    theirs = ref.reference_divide(start, 2)
    assert ours == theirs
    assert sum(ours.values()) == 30951          # the reference's count (tests/data/ransom_perft.epd)


def test_turn_texts_and_their_positions_match_the_reference_on_random_walks():
    """Metamorphic walk: from positions reached by random turns, the turn lists are equal as sets of
    divide texts, and the position after each turn is the reference's (as text)."""
    rng = random.Random(7)
    for game in range(6):
        pos = RansomPosition.parse(default_rules().startpos)
        for _ in range(12):
            turns = pos.turns()
            texts = {turn_text(pos, t): t for t in turns}
            refpos = ref.parse(pos.text())
            assert set(texts) == set(ref.turns(refpos)), pos.text()
            if not turns:
                break
            text = rng.choice(sorted(texts))
            child = pos.copy()
            over = child.apply_turn(texts[text])
            if over:
                break
            assert child.text() == ref.after(refpos, text).text(), (pos.text(), text)
            pos = child


def walk_positions(rng: random.Random, start: str, steps: int) -> list[RansomPosition]:
    """Positions reached by random complete turns from ``start`` (the game may end on the way)."""
    pos = RansomPosition.parse(start)
    out = [pos]
    for _ in range(steps):
        turns = pos.turns()
        if not turns:
            break
        child = pos.copy()
        if child.apply_turn(rng.choice(turns)):
            break
        pos = child
        out.append(pos)
    return out


def test_count_turns_equals_the_turns_built():
    for pos in walk_positions(random.Random(3), default_rules().startpos, 20):
        assert pos.count_turns() == len(pos.turns())


# Hand-derived counts (independent of both generators).
def test_hand_derived_kings_only():
    # Red K b1 and Blue k b6 alone, empty Hands: King b1 -> a1 c1 a2 b2 c2 (5); each answered by
    # the 5 squares around b6 (none of them near rank <= 3): 25.
    pos = RansomPosition.parse("1k1/3/3/3/3/1K1 r -/- -/- -/- 0 1")
    assert perft(pos, 1) == 5 and perft(pos, 2) == 25


def test_hand_derived_flip_then_capture_the_king():
    # Red K a1, face-down Rook c1; Blue k c6 alone. Flip c1 (forced); the Rook reaches c2..c6
    # (c6 takes the King: 1 turn, no play) and b1; the King a2 b1 b2. Hand empty: play:-.
    # 5 + 1 + 3 = 9 turns.
    pos = RansomPosition.parse("2k/3/3/3/3/K1R* r -/- -/- -/- 0 1")
    lines = divide(pos, 1)
    assert len(lines) == 9
    assert "flip:c1 move:c1c6 play:-" in lines


def test_hand_derived_promotion_options():
    # Red Pawn a5, K a1; Blue k c4; Red's Discard holds Q, N and a Pawn. a5-a6 promotes: keep, =Q,
    # =N (no =P: a Pawn for a Pawn changes nothing) = 3; King a1 -> a2 b1 b2 = 3 (b3 is next to c4?
    # no: c4 touches b3, so the King may not go to b3, and b2 is not next to c4). Total 6.
    pos = RansomPosition.parse("3/P2/2k/3/3/K2 r -/- -/- QNP/- 0 1")
    lines = divide(pos, 1)
    assert len(lines) == 6
    assert {"flip:- move:a5a6 play:-", "flip:- move:a5a6=Q play:-", "flip:- move:a5a6=N play:-"} <= set(lines)


def test_bad_position_texts_are_named():
    with pytest.raises(RansomPositionError, match="arena"):
        RansomPosition.parse("4/3/3/3/3/1K1 r -/- -/- -/- 0 1")
    with pytest.raises(RansomPositionError, match="side"):
        RansomPosition.parse("1k1/3/3/3/3/1K1 x -/- -/- -/- 0 1")
    with pytest.raises(RansomPositionError, match="hands"):
        RansomPosition.parse("1k1/3/3/3/3/1K1 r q/- -/- -/- 0 1")
    with pytest.raises(RansomPositionError, match="King"):
        RansomPosition.parse("3/3/3/3/3/1K1 r -/- -/- -/- 0 1")
    with pytest.raises(RansomPositionError, match="face up"):
        RansomPosition.parse("1k1/3/3/3/3/1K*1 r -/- -/- -/- 0 1")
    with pytest.raises(RansomPositionError, match="deck holds"):
        RansomPosition.parse("1k1/3/3/3/3/QK1 r Q/- -/- -/- 0 1")
    with pytest.raises(RansomPositionError, match="threatened"):
        RansomPosition.parse("1k1/1R1/3/3/3/1K1 r -/- -/- -/- 0 1")
