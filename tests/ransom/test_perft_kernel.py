"""King's Ransom perft in C (ext/_ransom.pyx) against the Python perft over kernel calls
(engine/ransom/position.py perft_python) and the numbers of tests/data/ransom_perft.epd.

Oracles: the EPD counts come from the slow reference tests/reference/ransom.py (written separately
from the engine); perft_python agrees with that reference to depth 3 (tests/ransom/test_perft.py).
The random walks compare the two engine implementations on positions the EPD does not hold.
"""

from __future__ import annotations

import random
import threading

import pytest

from engine._perft import PerftControl, PerftStopped
from engine.ransom.position import RansomPosition, divide, divide_python, kernel_perft, perft, perft_python
from engine.ransom.rules import default_rules
from tests.ransom.test_perft import SUITE, walk_positions
from tests.ransom.test_reference_ransom import G9_STALEMATES
from tests.reference import ransom as ref


@pytest.mark.parametrize("text,depth,count", [c for c in SUITE if c[1] <= 2], ids=lambda v: str(v)[:24])
def test_kernel_equals_python_and_the_reference_to_depth_2(text, depth, count):
    pos = RansomPosition.parse(text)
    assert kernel_perft(pos, depth) == perft_python(pos, depth) == count
    assert pos.text() == text                       # counting leaves the position as it was


@pytest.mark.slow
@pytest.mark.parametrize("text,depth,count", [c for c in SUITE if c[1] == 3], ids=lambda v: str(v)[:24])
def test_kernel_equals_python_and_the_reference_at_depth_3(text, depth, count):
    pos = RansomPosition.parse(text)
    assert kernel_perft(pos, depth) == count
    assert perft_python(pos, depth) == count


def test_kernel_depth_3_on_the_suite():
    """Depth 3 of the C kernel alone is quick: every EPD line (the Python side is the slow test)."""
    for text, depth, count in SUITE:
        if depth == 3:
            assert kernel_perft(RansomPosition.parse(text), 3) == count, text


def test_depth_0_and_1():
    pos = RansomPosition.parse(default_rules().startpos)
    assert kernel_perft(pos, 0) == 1
    assert kernel_perft(pos, 1) == pos.count_turns() == len(pos.turns()) == 177


def test_random_walks_kernel_equals_python_at_depth_2():
    rng = random.Random(11)
    starts = [default_rules().startpos] + sorted({text for text, _, _ in SUITE})
    seen = 0
    for start in starts:
        for pos in walk_positions(rng, start, 5):
            assert kernel_perft(pos, 2) == perft_python(pos, 2), pos.text()
            seen += 1
    assert seen >= 30


def test_random_walks_kernel_equals_python_at_depth_1_long_games():
    """Deeper into games (captures, promotions, full halves, empty Hands): depth 1 at every step."""
    rng = random.Random(5)
    seen = 0
    for _ in range(8):
        for pos in walk_positions(rng, default_rules().startpos, 60):
            assert kernel_perft(pos, 1) == pos.count_turns(), pos.text()
            seen += 1
    assert seen >= 100


def test_divide_in_c_equals_divide_in_python():
    pos = RansomPosition.parse(SUITE[6][0])
    assert divide(pos, 2) == divide_python(pos, 2)


def test_a_stopped_control_raises_perft_stopped():
    pos = RansomPosition.parse(default_rules().startpos)
    control = PerftControl()
    control.stop(2)
    with pytest.raises(PerftStopped) as info:
        kernel_perft(pos, 3, control)
    assert info.value.reason == 2
    with pytest.raises(PerftStopped):
        perft(pos, 3, control=control)
    with pytest.raises(PerftStopped):
        divide(pos, 3, control=control)


def test_the_control_counts_the_leaves():
    pos = RansomPosition.parse(default_rules().startpos)
    control = PerftControl()
    assert kernel_perft(pos, 3, control) == 3304335
    assert control.nodes == 3304335


def test_stop_from_another_thread_ends_a_deep_count():
    pos = RansomPosition.parse(default_rules().startpos)
    control = PerftControl()
    timer = threading.Timer(0.2, control.stop)
    timer.start()
    try:
        with pytest.raises(PerftStopped):
            kernel_perft(pos, 7, control)               # hours if it were not stopped
    finally:
        timer.cancel()


def test_stop_callable_interrupts_perft_and_divide():
    pos = RansomPosition.parse(default_rules().startpos)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(KeyboardInterrupt):
        perft(pos, 7, stop=stop)
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        divide(pos, 7, stop=stop, interval=0.05)


def test_divide_reports_progress_from_inside_a_subtree():
    pos = RansomPosition.parse(default_rules().startpos)
    reports = []
    control = PerftControl()

    def progress(done, total, nodes):
        reports.append((done, total, nodes))
        if len(reports) >= 3:
            control.stop()

    with pytest.raises(PerftStopped) as info:
        divide(pos, 6, progress=progress, control=control, interval=0.05)
    assert reports and all(r[0] == 0 and r[1] == 177 for r in reports)
    assert info.value.counts == {} and info.value.nodes == control.nodes


@pytest.mark.parametrize("text", G9_STALEMATES)
def test_g9_a_stalemated_position_has_no_turns(text):
    # RULINGS G9: no legal move with the King unthreatened is stalemate whatever the Hand holds, and
    # perft counts no turn of a stalemated position (0 by definition, as the reference says).
    pos = RansomPosition.parse(text)
    for depth in (1, 2, 3):
        assert kernel_perft(pos, depth) == perft_python(pos, depth) == ref.reference_perft(text, depth) == 0
    assert divide(pos, 2) == divide_python(pos, 2) == {}


def test_g9_stalemate_below_the_root_counts_nothing():
    # After R c4-c5 Blue (Hand p) has no legal move and its King is not threatened: that subtree
    # is 0 (hand-derived in tests/ransom/test_reference_ransom.py), and the whole divide equals the
    # reference's line by line at depths 2 and 3.
    text = "k2/3/2R/1R1/3/p1K r -/p -/- -/- 0 1"
    pos = RansomPosition.parse(text)
    for depth in (2, 3):
        ours = divide(pos, depth)
        assert ours == divide_python(pos, depth) == ref.reference_divide(text, depth)
        assert ours["flip:- move:c4c5 play:-"] == 0
        assert kernel_perft(pos, depth) == sum(ours.values())
