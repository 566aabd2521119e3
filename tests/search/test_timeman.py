"""Time management (engine/board/timeman.py): the documented formula and its guarantees."""

import pytest

from engine.board.timeman import (
    DEFAULT_MOVES_TO_GO,
    MINIMUM_MS,
    TimeLimits,
    clock_limits,
    movetime_limits,
)


def test_formula_without_movestogo():
    # usable 59970 ms; soft = 59970/30 + 0.75*1000 = 2749 ms; hard = 4 * soft.
    limits = clock_limits(60000, 1000, None, 30)
    assert limits.soft == pytest.approx((59970 / DEFAULT_MOVES_TO_GO + 750) / 1000)
    assert limits.hard == pytest.approx(4 * limits.soft)


def test_formula_with_movestogo_and_caps():
    limits = clock_limits(10000, 0, 10, 0)
    assert limits == TimeLimits(pytest.approx(1.0), pytest.approx(4.0))
    last = clock_limits(10000, 0, 1, 0)                  # the last move before the time control
    assert last.soft == pytest.approx(5.0) and last.hard == pytest.approx(8.0)
    assert clock_limits(10000, 0, 500, 0) == clock_limits(10000, 0, 50, 0)   # movestogo capped at 50
    assert clock_limits(10000, 0, 0, 0) == clock_limits(10000, 0, None, 0)   # 0 = not given


@pytest.mark.parametrize("time_ms", [0, 1, 40, 500, 3000, 60000, 3_600_000])
@pytest.mark.parametrize("inc_ms", [0, 100, 5000])
@pytest.mark.parametrize("movestogo", [None, 1, 5, 40])
def test_guarantees(time_ms, inc_ms, movestogo):
    overhead = 30
    limits = clock_limits(time_ms, inc_ms, movestogo, overhead)
    assert MINIMUM_MS / 1000 <= limits.soft <= limits.hard
    usable = max(0, time_ms - overhead)
    # Never more than 80% of what is left (beyond the floor that lets depth 1 finish).
    assert limits.hard <= max(0.8 * usable, MINIMUM_MS) / 1000 + 1e-12


def test_more_time_or_increment_never_means_less_thinking():
    assert clock_limits(20000, 0).soft < clock_limits(40000, 0).soft
    assert clock_limits(20000, 0).soft < clock_limits(20000, 500).soft
    assert clock_limits(20000, 0, None, 0).hard > clock_limits(20000, 0, None, 1000).hard


def test_negative_clock_is_the_minimum():
    assert clock_limits(-500, 0) == TimeLimits(MINIMUM_MS / 1000, MINIMUM_MS / 1000)


def test_movetime():
    assert movetime_limits(100, 30) == TimeLimits(None, pytest.approx(0.07))
    assert movetime_limits(10, 30) == TimeLimits(None, MINIMUM_MS / 1000)
