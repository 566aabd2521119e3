"""Stopping and watching a running C perft (engine._perft.PerftControl, engine.perft): the stop flag
makes the C call return within a fraction of a second, the live node count grows while it runs and
equals the count when it finishes, and progress reports come from inside deep subtrees."""

import io
import signal
import threading
import time

import pytest

from engine import NAMED_POSITIONS, Position, divide, perft
from engine.perft import PerftControl, PerftProgress, PerftStopped, ProgressPrinter, stop_on_signals

START = NAMED_POSITIONS["startpos"]
#: perft 7 of the start position takes a minute or more: a stop is all that ends it within a test.
DEEP = 7


def _stop_later(control: PerftControl, seconds: float, reason: int = 0) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(seconds), control.stop(reason)), daemon=True)
    thread.start()
    return thread


def _returns_within(fn, seconds: float):
    """fn() in a daemon thread: (its result or exception, seconds it took); fails past ``seconds``
    (a walk that ignores the flag would otherwise hold the test for minutes)."""
    box = {}

    def call():
        start = time.perf_counter()
        try:
            box["value"] = fn()
        except BaseException as exc:     # noqa: BLE001 - handed to the test
            box["value"] = exc
        box["took"] = time.perf_counter() - start

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still counting {seconds} s later: the stop flag was not seen")
    return box["value"], box["took"]


def test_the_stop_flag_makes_the_c_call_return_promptly():
    control = PerftControl()
    core = Position.from_text(START)._core
    _stop_later(control, 0.4, reason=7)
    result, took = _returns_within(lambda: core.perft(DEEP, False, control), 10)
    assert isinstance(result, PerftStopped), result
    assert took < 0.4 + 0.5, took
    assert result.reason == 7 and control.stopped and control.reason == 7
    assert result.nodes == control.nodes > 0


def test_position_perft_and_perft_take_the_control_too():
    for call in (lambda c: Position.from_text(START).perft(DEEP, control=c),
                 lambda c: perft(START, DEEP, control=c),
                 lambda c: perft(START, DEEP, threads=2, control=c)):
        control = PerftControl()
        _stop_later(control, 0.3)
        result, took = _returns_within(lambda: call(control), 10)
        assert isinstance(result, PerftStopped) and took < 1.0, (result, took)


def test_a_stopped_control_stops_later_calls_at_once():
    control = PerftControl()
    control.stop(3)
    control.stop(9)                      # the first reason is kept
    with pytest.raises(PerftStopped) as caught:
        Position.from_text(START).perft(DEEP, control=control)
    assert caught.value.nodes == 0 and caught.value.reason == 3


@pytest.mark.parametrize("threads", [1, 2])
def test_divide_stops_promptly_and_keeps_the_root_orders_it_finished(threads):
    control = PerftControl()
    _stop_later(control, 0.5)
    result, took = _returns_within(lambda: divide(START, DEEP, threads=threads, control=control), 10)
    assert isinstance(result, PerftStopped) and took < 1.5, (result, took)
    assert result.counts == {} and result.nodes == control.nodes > 0


def test_the_node_count_is_live_and_exact_at_the_end():
    control = PerftControl()
    seen = []
    thread = threading.Thread(target=lambda: seen.append(perft(START, 6, control=control)))
    thread.start()
    samples = []
    while thread.is_alive():
        samples.append(control.nodes)
        time.sleep(0.02)
    thread.join()
    assert seen == [120897438] and control.nodes == 120897438 and not control.stopped
    assert len(set(samples)) >= 3 and samples == sorted(samples), samples[:10]


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_small_counts_are_added_exactly(depth):
    control = PerftControl()
    assert Position.from_text(START).perft(depth, control=control) == control.nodes == [1, 20, 400, 8902][depth]
    control = PerftControl()
    counts = divide(START, max(depth, 1), threads=2, control=control)
    assert sum(counts.values()) == control.nodes


def test_divide_reports_progress_inside_the_first_root_order():
    reports: list[PerftProgress] = []
    control = PerftControl()

    def progress(report: PerftProgress):
        reports.append(report)
        if len(reports) == 3:
            control.stop()

    result, _ = _returns_within(lambda: divide(START, DEEP, progress=progress, control=control, interval=0.1), 30)
    assert isinstance(result, PerftStopped), result
    assert len(reports) == 3 and all(r.roots_done == 0 and r.finished is None and r.roots_total == 20 for r in reports)
    assert 0 < reports[0].nodes < reports[2].nodes


def test_divide_reports_each_root_order_once_done():
    reports: list[PerftProgress] = []
    counts = divide(START, 3, progress=reports.append)
    finished = [r.finished for r in reports if r.finished is not None]
    assert sorted(finished) == sorted(counts.items())
    assert [r.roots_done for r in reports if r.finished] == list(range(1, 21))


def test_a_raising_progress_callback_stops_the_workers():
    control = PerftControl()

    def progress(report):
        raise RuntimeError("planted")

    result, took = _returns_within(lambda: divide(START, DEEP, progress=progress, control=control, interval=0.1), 10)
    assert isinstance(result, RuntimeError) and control.stopped and took < 1.5


def test_stop_on_signals_stops_the_control_and_restores_the_handlers():
    control = PerftControl()
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with stop_on_signals(control):
        signal.raise_signal(signal.SIGTERM)
        assert control.stopped and control.reason == signal.SIGTERM
        signal.raise_signal(signal.SIGINT)          # no KeyboardInterrupt while inside
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    assert control.reason == signal.SIGTERM


def _report(nodes, elapsed, done=0):
    return PerftProgress(nodes, done, 20, elapsed, None)


def test_progress_printer_waits_then_writes_a_few_lines_a_second():
    stream = io.StringIO()
    printer = ProgressPrinter(stream, delay=1.0, force=True, interval=0.5)
    for step in range(1, 31):                        # a report every 0.1 s for 3 s
        printer(_report(step * 1_000_000, step / 10))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 5, lines                     # at 1.0, 1.5, 2.0, 2.5, 3.0 s
    assert lines[0] == "perft: 0/20 root orders done, 10,000,000 nodes, 1.0 s, 10.00 Mnodes/s"


def test_progress_printer_is_quiet_off_a_terminal_unless_forced():
    stream = io.StringIO()
    printer = ProgressPrinter(stream)
    printer(_report(5, 9.0))
    printer.close()
    assert stream.getvalue() == ""
