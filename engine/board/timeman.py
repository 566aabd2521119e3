"""Time management: how long to think on one move, from a UCI ``go`` command's clock.

Two limits come out, both in seconds, and go to ``AlphaBeta.search``:

- ``soft`` (``soft_seconds``): the target. Once it has passed, no new iteration starts; the one that
  is running finishes (unless the hard limit ends it first).
- ``hard`` (``seconds``): the deadline. The search returns at once with the best order of the last
  finished iteration (or one the unfinished iteration already proved better, ``AlphaBeta.search``).

The formula (times in milliseconds; ``time`` and ``inc`` are the side to move's clock and increment;
``overhead`` is the Move Overhead option, the time lost per move to the GUI and the pipes)::

    usable = max(0, time - overhead)
    moves  = min(movestogo, 50) if movestogo is given, else 30   (the horizon the time is shared over)
    soft   = min(usable / moves + 0.75 * inc, 0.5 * usable)
    hard   = min(4 * soft, 0.8 * usable)
    both at least MINIMUM_MS (a move is always searched to depth 1)

so a soft target is a fair share of the remaining time plus most of the increment, an iteration
may run over it up to four times (iterations grow by a factor of a few per depth), and no single
move ever spends more than 80% of what is left. With ``movestogo 1`` the move may use half of the
time as its target and 80% as its deadline. ``movetime`` is a fixed time per move: hard =
movetime - overhead (at least MINIMUM_MS), no soft limit (the whole time is used, as the UCI
specification asks).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["TimeLimits", "DEFAULT_MOVES_TO_GO", "MAX_MOVES_TO_GO", "MINIMUM_MS", "clock_limits",
           "movetime_limits"]

DEFAULT_MOVES_TO_GO = 30   # moves the remaining time is shared over when the GUI does not say
MAX_MOVES_TO_GO = 50       # a larger movestogo is treated as this (the game rarely lasts longer)
MINIMUM_MS = 5             # never plan less than this: depth 1 must finish
SOFT_SHARE_OF_INCREMENT = 0.75
SOFT_CAP = 0.5             # the target never exceeds this share of the usable time
HARD_FACTOR = 4.0          # the deadline is this many soft targets ...
HARD_CAP = 0.8             # ... but never more than this share of the usable time


@dataclass(frozen=True)
class TimeLimits:
    """Seconds for ``AlphaBeta.search``: ``soft`` -> soft_seconds, ``hard`` -> seconds (None = no limit)."""

    soft: float | None
    hard: float | None


def clock_limits(time_ms: float, inc_ms: float = 0, movestogo: int | None = None,
                 overhead_ms: float = 0) -> TimeLimits:
    """Soft and hard limits for a move with ``time_ms`` left on the clock (see the module text)."""
    if movestogo is not None and movestogo < 1:
        movestogo = None
    time_ms, inc_ms, overhead_ms = max(0.0, time_ms), max(0.0, inc_ms), max(0.0, overhead_ms)
    usable = max(0.0, time_ms - overhead_ms)
    moves = min(movestogo, MAX_MOVES_TO_GO) if movestogo else DEFAULT_MOVES_TO_GO
    soft = min(usable / moves + SOFT_SHARE_OF_INCREMENT * inc_ms, SOFT_CAP * usable)
    hard = min(HARD_FACTOR * soft, HARD_CAP * usable)
    soft, hard = max(soft, MINIMUM_MS), max(hard, MINIMUM_MS)
    return TimeLimits(soft / 1000.0, hard / 1000.0)


def movetime_limits(movetime_ms: float, overhead_ms: float = 0) -> TimeLimits:
    """A fixed time per move: the hard limit is the move time less the overhead."""
    return TimeLimits(None, max(MINIMUM_MS, movetime_ms - max(0.0, overhead_ms)) / 1000.0)


@contextmanager
def capped_seconds(searcher, seconds: float | None, floor: float = 0.01) -> Iterator[None]:
    """Within the block, ``searcher.seconds`` (a search's per-decision budget) is at most ``seconds``
    and at least ``floor``; afterwards it is what it was, also when the block raises. ``seconds``
    None leaves the budget alone. One place for "spend only what is left of a budget" (a guide's or a
    planner's time counts against the search's, a plan's steps share the plan's time).

    >>> class Search: seconds = 2.0
    >>> s = Search()
    >>> with capped_seconds(s, 0.5):
    ...     s.seconds
    0.5
    >>> s.seconds
    2.0
    >>> s.seconds = None
    >>> with capped_seconds(s, -1.0):
    ...     s.seconds
    0.01
    """
    configured = searcher.seconds
    if seconds is not None:
        seconds = max(floor, seconds)
        searcher.seconds = seconds if configured is None else min(configured, seconds)
    try:
        yield
    finally:
        searcher.seconds = configured
