"""perft and divide (RULINGS C8, A5): counts of order sequences, computed in the Cython kernels.

perft itself runs entirely in C (copy-make, bulk counting at the last ply). divide runs one C perft
per root order in worker threads (the C perft releases the GIL) while the calling thread waits,
reports progress and stays free to run signal handlers.

Every C perft of one run can share a PerftControl (engine._perft, layout in ext/_perft.pxd): its
``stop()`` makes them all return within microseconds (they raise PerftStopped), and its ``nodes``
is the live count of leaves, read by the progress reports while deep subtrees are still counted.
``stop_on_signals`` turns SIGINT and SIGTERM into such a stop (the CLI uses it).

``divide_on_cluster`` counts on other processes or a Ray cluster instead (engine/execution.py): its
units are subtrees below the root (root orders, or pairs of orders when there are more workers
than root orders), each a pure function of the position's text and the orders leading to it;
``raise_on_signals`` turns SIGINT and SIGTERM into a KeyboardInterrupt there, which cancels the
units (and a PerftStopped).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass

from engine._perft import PerftControl, PerftStopped
from engine.execution import Cluster, run_units
from engine.position import Position

__all__ = ["perft", "divide", "divide_on_cluster", "perft_unit", "as_position", "ProgressPrinter", "PerftProgress",
           "PerftControl", "PerftStopped", "stop_on_signals", "raise_on_signals"]


@dataclass(frozen=True)
class PerftProgress:
    """A progress report of divide: sent every ``interval`` seconds while it counts and whenever a
    root order's count is complete."""

    nodes: int                          # leaves counted so far, in finished and running subtrees
    roots_done: int                     # root orders counted in full
    roots_total: int
    elapsed: float                      # seconds since divide started
    finished: tuple[str, int] | None    # (root order, its count) that just completed, or None
    counted: str = "root orders"        # what roots_done counts (divide_on_cluster: "units", subtrees)


ProgressCallback = Callable[[PerftProgress], None]


def as_position(position: Position | str, promote: str | None = None) -> Position:
    """``position`` itself, or the Position its text describes, with ``promote``'s promotion types
    when given: for a Position, a new one of the same catalog and board (the one passed in is left
    as it was)."""
    if not isinstance(position, Position):
        return Position.from_text(position, promote=promote)
    if promote is None:
        return position
    data = position.data()
    data.promote_mask = position.promote_mask_from_tokens(promote)
    result = Position(position.catalog)
    result.load(data)
    return result


def perft(position: Position | str, depth: int, cylindrical: bool = False, promote: str | None = None,
          threads: int = 1, control: PerftControl | None = None) -> int:
    """Number of leaf nodes of the order tree ``depth`` plies deep (perft(p, 0) == 1). With
    ``threads`` > 1 the root orders are shared out among threads (the C perft releases the GIL).
    With a ``control``, its ``stop()`` (from another thread) makes this raise PerftStopped at once."""
    pos = as_position(position, promote)
    if threads <= 1 or depth < 2:
        return pos.perft(depth, cylindrical, control)
    return sum(divide(pos, depth, cylindrical, threads=threads, control=control).values())


def divide(
    position: Position | str,
    depth: int,
    cylindrical: bool = False,
    promote: str | None = None,
    progress: ProgressCallback | None = None,
    threads: int = 1,
    control: PerftControl | None = None,
    interval: float = 0.25,
) -> dict[str, int]:
    """perft of every root order: {order text: count}, in generation order.

    The root orders are counted by ``threads`` worker threads (the C perft releases the GIL) while
    this thread waits: ``progress`` (if given) receives a PerftProgress every ``interval`` seconds and
    after each root order, in this thread. When ``control`` is stopped (from a signal handler or
    another thread) every count in progress ends within microseconds and PerftStopped is raised,
    carrying the root orders counted in full. An exception here (KeyboardInterrupt, a raising
    ``progress``) stops the workers before it propagates."""
    pos = as_position(position, promote)
    if depth < 1:
        raise ValueError("divide needs depth >= 1")
    if threads < 1:
        raise ValueError(f"divide needs threads >= 1, got {threads}")
    orders = pos.legal_orders(cylindrical)
    control = PerftControl() if control is None else control
    start = time.perf_counter()

    def count(order) -> int:
        child = pos.copy()
        child.push(order, cylindrical)
        return child.perft(depth - 1, cylindrical, control)

    results: dict[int, int] = {}
    stopped = False

    def report(finished: tuple[str, int] | None) -> None:
        if progress is not None:
            progress(PerftProgress(control.nodes, len(results), len(orders), time.perf_counter() - start, finished))

    with ThreadPoolExecutor(threads, thread_name_prefix="ftc-perft") as pool:
        pending = {pool.submit(count, order): index for index, order in enumerate(orders)}
        try:
            while pending:
                done, _ = wait(pending, timeout=interval, return_when=FIRST_COMPLETED)
                for future in done:
                    index = pending.pop(future)
                    try:
                        results[index] = future.result()
                    except PerftStopped:
                        stopped = True
                        continue
                    report((orders[index].text(), results[index]))
                if not done:
                    report(None)
        except BaseException:
            control.stop()          # the running counts end at once, the queued ones never start
            raise
    if stopped:
        raise PerftStopped(control.nodes, control.reason, {orders[i].text(): results[i] for i in sorted(results)})
    return {order.text(): results[index] for index, order in enumerate(orders)}


def perft_unit(position_text: str, promote: str | None, cylindrical: bool, prefix: tuple[str, ...],
               depth: int) -> int:
    """perft ``depth`` plies below the position reached by the orders ``prefix`` (order texts) from
    the position ``position_text``: a unit of engine.execution, the same count wherever it runs."""
    position = as_position(position_text, promote)
    for text in prefix:
        position.push(text, cylindrical)
    return position.perft(depth, cylindrical)


def divide_on_cluster(
    position: Position | str,
    depth: int,
    cylindrical: bool = False,
    promote: str | None = None,
    cluster: str | Cluster = "local",
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    interval: float = 0.25,
    control: PerftControl | None = None,
) -> dict[str, int]:
    """divide (perft of every root order, in generation order) with the subtrees counted as units on
    ``cluster`` by ``workers`` workers (None: every core or CPU): the root orders, or every pair of
    orders when there are more workers than root orders (and depth >= 2), summed back per root
    order. ``progress`` receives a PerftProgress after each unit and every ``interval`` seconds
    (``counted`` "units"; ``nodes`` those of the finished units; ``finished`` a root order whose
    units are all done), from this thread or a timer thread, never from two at once. A
    KeyboardInterrupt meanwhile (Ctrl-C, or a signal under ``raise_on_signals(control)``) cancels the
    units and becomes PerftStopped with the nodes counted, the root orders counted in full and, as
    its reason, that of ``control`` when it was stopped (else SIGINT)."""
    pos = as_position(position, promote)
    if depth < 1:
        raise ValueError("divide needs depth >= 1")
    text = pos.to_text()                   # holds the promotion types
    roots = [order.text() for order in pos.legal_orders(cylindrical)]
    units: list[tuple] = []
    if depth >= 2 and (workers or os.cpu_count() or 1) > len(roots):
        for root in roots:
            child = pos.copy()
            child.push(root, cylindrical)
            units += [(text, None, cylindrical, (root, order.text()), depth - 2)
                      for order in child.legal_orders(cylindrical)]
    else:
        units = [(text, None, cylindrical, (root,), depth - 1) for root in roots]
    sums = dict.fromkeys(roots, 0)
    left = dict.fromkeys(roots, 0)
    for unit in units:
        left[unit[3][0]] += 1
    nodes = done = 0
    start = time.perf_counter()
    lock = threading.Lock()            # the units finish in this thread, the reports also come from a timer

    def report(finished: tuple[str, int] | None) -> None:
        if progress is not None:
            progress(PerftProgress(nodes, done, len(units), time.perf_counter() - start, finished, "units"))

    def finished(done_now: int, total: int, index: int, count: int) -> None:
        nonlocal nodes, done
        root = units[index][3][0]
        with lock:
            sums[root] += count
            left[root] -= 1
            nodes += count
            done = done_now
            report((root, sums[root]) if left[root] == 0 else None)

    quiet = threading.Event()

    def tick() -> None:                # a report every ``interval`` seconds while units run
        while not quiet.wait(interval):
            with lock:
                report(None)

    timer = threading.Thread(target=tick, name="ftc-perft-progress", daemon=True)
    if progress is not None:
        timer.start()
    try:
        counts = run_units(perft_unit, units, cluster, workers, finished)
    except KeyboardInterrupt:       # Ctrl-C, or a signal under raise_on_signals: the units are cancelled
        reason = control.reason if control is not None and control.stopped else signal.SIGINT
        raise PerftStopped(nodes, reason, {root: sums[root] for root in roots if left[root] == 0}) from None
    finally:
        quiet.set()
        if timer.is_alive():
            timer.join()
    result = dict.fromkeys(roots, 0)
    for unit, count in zip(units, counts):
        result[unit[3][0]] += count
    return result


def raise_on_signals(control: PerftControl,
                     signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)):
    """While inside, each of ``signals`` stops ``control`` (its reason: the signal number) and raises
    KeyboardInterrupt in the main thread, wherever it waits (no library's ``except Exception``
    swallows it): divide_on_cluster then cancels its units and raises PerftStopped with the
    control's reason. The previous handlers are back on leaving. Outside the main thread it changes
    nothing."""
    return stop_on_signals(control, signals, interrupt=True)


@contextmanager
def stop_on_signals(control: PerftControl, signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM),
                    interrupt: bool = False) -> Iterator[PerftControl]:
    """While inside, each of ``signals`` stops ``control`` (its reason: the signal number) instead of
    its usual effect (and, with ``interrupt``, raises KeyboardInterrupt in the main thread); the
    previous handlers are back on leaving. Python runs signal handlers in the main thread, between
    bytecodes: the C perft must run in other threads meanwhile (divide does). Outside the main
    thread (where no handler can be set) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield control
        return

    def handler(signum, _frame):
        control.stop(signum)
        if interrupt:
            raise KeyboardInterrupt(signum)

    previous = {}
    try:
        for sig in signals:
            previous[sig] = signal.signal(sig, handler)
        yield control
    finally:
        for sig, old in previous.items():
            signal.signal(sig, signal.SIG_DFL if old is None else old)


class ProgressPrinter:
    """A divide progress callback that writes to stderr: root orders done, nodes so far and nodes/s,
    at most once every ``interval`` seconds and only after ``delay`` seconds (quick runs stay quiet).
    On a terminal it keeps overwriting one line; elsewhere it writes only when forced (--progress),
    one line per report."""

    def __init__(self, stream=None, delay: float = 1.0, force: bool = False, interval: float = 0.5):
        self.stream = stream or sys.stderr
        self.delay = delay
        self.interval = interval
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.enabled = force or self.tty
        self.shown = False
        self.last: float | None = None       # elapsed seconds at the last line written

    def __call__(self, report: PerftProgress) -> None:
        if not self.enabled or report.elapsed < self.delay:
            return
        if self.last is not None and report.elapsed - self.last < self.interval:
            return
        self.last = report.elapsed
        rate = report.nodes / report.elapsed if report.elapsed > 0 else 0.0
        line = (f"perft: {report.roots_done}/{report.roots_total} {report.counted} done, {report.nodes:,} nodes, "
                f"{report.elapsed:.1f} s, {rate / 1e6:.2f} Mnodes/s")
        self.stream.write("\r" + line.ljust(100) if self.tty else line + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """End the overwritten line (on a terminal), so what follows starts on a line of its own."""
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()
        self.shown = False
