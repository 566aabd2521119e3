"""Crusade & Conquer's parts of `ftc perft` (the registry entry's ``perft``, ``divide``, ``position``
and ``perft_run``): the position text or "startpos" read with located errors, the first level in
Python, each subtree counted in the kernel (engine.crusade.position) in a worker thread while this
thread waits, so that Ctrl-C and SIGTERM stop it within a fraction of a second."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from engine._perft import PerftControl, PerftStopped
from engine.crusade.position import CrusadeError, CrusadePosition
from engine.perft import PerftProgress

__all__ = ["parse_position", "position_text", "perft", "divide", "perft_run"]

#: Seconds between progress reports while one first-level subtree is counted.
INTERVAL = 0.5


def parse_position(text: str) -> CrusadePosition:
    """A position text or "startpos"; the ValueError names the text and what is wrong."""
    try:
        return CrusadePosition.from_text(text)
    except CrusadeError as exc:
        raise ValueError(f"Crusade & Conquer position {text!r}: {exc}") from None


def position_text(text: str) -> str:
    """A position text (or "startpos") written out in full."""
    return parse_position(text).text()


def _depth(depth) -> int:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"perft depth must be an integer >= 0, got {depth!r}")
    return depth


def perft(text: str, depth: int) -> int:
    """H9: legal move sequences ``depth`` plies deep from a position text, counted in the kernel."""
    return parse_position(text).perft(_depth(depth))


def divide(text: str, depth: int) -> dict[str, int]:
    """{move text: perft of depth - 1 after it} from a position text."""
    if _depth(depth) < 1:
        raise ValueError(f"divide needs a depth >= 1, got {depth}")
    return parse_position(text).divide(depth)


def _subtree(pool: ThreadPoolExecutor, pos: CrusadePosition, depth: int, control: PerftControl, tick) -> int:
    """One kernel count in the worker thread; ``tick()`` every INTERVAL seconds while it runs."""
    future = pool.submit(pos.perft, depth, control)
    try:
        while True:
            try:
                return future.result(timeout=INTERVAL)
            except FutureTimeout:
                tick()
    except BaseException:
        control.stop()                      # the worker returns at once
        raise


def perft_run(text: str, depth: int, divided: bool, options: dict, progress, control) -> tuple[dict | None, int, float]:
    """`ftc perft --game crusade`: ({move text: count} or None, total, seconds). ``progress`` gets a
    PerftProgress after each first-level move and every INTERVAL seconds inside one; ``control``
    stops the count (PerftStopped with the first-level moves counted in full)."""
    if options:
        raise ValueError(f"--{next(iter(options))}: not an option of Crusade & Conquer perft")
    start_position = parse_position(text)
    _depth(depth)
    start = time.perf_counter()
    if depth == 0:
        return None, 1, 0.0
    control = PerftControl() if control is None else control
    out: dict[str, int] = {}
    nodes = 0
    orders = start_position.legal_orders()
    with ThreadPoolExecutor(1, thread_name_prefix="ftc-crusade-perft") as pool:
        for i, order in enumerate(orders):
            if control.stopped:
                raise PerftStopped(nodes, control.reason, out)
            move = start_position.order_text(order)
            child = start_position.copy()
            child.core.push(order)
            if depth == 1:
                count = 1
            else:
                base = control.nodes

                def tick(done=i, base=base) -> None:
                    progress(PerftProgress(nodes + control.nodes - base, done, len(orders),
                                           time.perf_counter() - start, None))

                try:
                    count = _subtree(pool, child, depth - 1, control, tick)
                except PerftStopped as stopped:
                    raise PerftStopped(nodes + control.nodes - base, stopped.reason, out) from None
            out[move] = count
            nodes += count
            progress(PerftProgress(nodes, i + 1, len(orders), time.perf_counter() - start, (move, count)))
    return (out if divided else None), nodes, time.perf_counter() - start
