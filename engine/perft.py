"""perft and divide (RULINGS C8, A5): counts of order sequences, computed in the Cython kernels.

perft itself runs entirely in C (copy-make, bulk counting at the last ply). divide loops over the
root orders in Python, one C perft per root order, which is also where progress is reported.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from engine.position import Position

__all__ = ["perft", "divide", "as_position", "ProgressPrinter"]

#: Called after each root order of divide: (index, total, order text, count, seconds so far).
ProgressCallback = Callable[[int, int, str, int, float], None]


def as_position(position: Position | str, promote: str | None = None) -> Position:
    if isinstance(position, Position):
        if promote is None:
            return position
        position = position.to_text()
    return Position.from_text(position, promote=promote)


def perft(position: Position | str, depth: int, cylindrical: bool = False, promote: str | None = None,
          threads: int = 1) -> int:
    """Number of leaf nodes of the order tree ``depth`` plies deep (perft(p, 0) == 1). With
    ``threads`` > 1 the root orders are shared out among threads (the C perft releases the GIL)."""
    pos = as_position(position, promote)
    if threads <= 1 or depth < 2:
        return pos.perft(depth, cylindrical)
    return sum(divide(pos, depth, cylindrical, threads=threads).values())


def divide(
    position: Position | str,
    depth: int,
    cylindrical: bool = False,
    promote: str | None = None,
    progress: ProgressCallback | None = None,
    threads: int = 1,
) -> dict[str, int]:
    """perft of every root order: {order text: count}, in generation order. With ``threads`` > 1
    the root orders are counted in parallel threads (the C perft releases the GIL)."""
    pos = as_position(position, promote)
    if depth < 1:
        raise ValueError("divide needs depth >= 1")
    orders = pos.legal_orders(cylindrical)
    start = time.perf_counter()

    def count(order) -> int:
        child = pos.copy()
        child.push(order, cylindrical)
        return child.perft(depth - 1, cylindrical)

    counts: dict[str, int] = {}
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            futures = [pool.submit(count, order) for order in orders]
            for index, (order, future) in enumerate(zip(orders, futures)):
                counts[order.text()] = future.result()
                if progress:
                    progress(index + 1, len(orders), order.text(), counts[order.text()], time.perf_counter() - start)
        return counts
    for index, order in enumerate(orders):
        counts[order.text()] = count(order)
        if progress:
            progress(index + 1, len(orders), order.text(), counts[order.text()], time.perf_counter() - start)
    return counts


class ProgressPrinter:
    """Progress on stderr for long runs: one overwritten line per root order, only on a terminal
    or when forced, and only after `delay` seconds so quick runs stay quiet."""

    def __init__(self, stream=None, delay: float = 1.0, force: bool = False):
        self.stream = stream or sys.stderr
        self.delay = delay
        self.enabled = force or self.stream.isatty()
        self.shown = False
        self.nodes = 0

    def __call__(self, index: int, total: int, order: str, count: int, elapsed: float) -> None:
        self.nodes += count
        if not self.enabled or elapsed < self.delay:
            return
        rate = self.nodes / elapsed if elapsed > 0 else 0.0
        line = f"[{index}/{total}] {order}: {count:,}  total {self.nodes:,} nodes, {elapsed:.1f}s, {rate / 1e6:.2f} Mnodes/s"
        self.stream.write("\r" + line.ljust(100)[:100])
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
