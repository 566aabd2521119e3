"""Where seeded work runs: this machine's processes (the embedded default) or a Ray cluster.

Work is a list of **units**: one module-level function and, per unit, its arguments. A unit is a
pure function of its arguments (a game by its seed and settings, a perft subtree by its order
prefix), so it may run anywhere, any number of times. :func:`run_units` returns every unit's result
**in unit order**, whatever ran where and however many workers there were: a run's results are the
same on one core, on two, and on a cluster. A unit whose worker is lost (killed, crashed, its
machine gone) is run again, and its result is kept once, by the unit's index: nothing is counted
twice and nothing is lost.

Clusters (the ``--cluster`` option of ``ftc match``, ``ftc selfplay``, ``ftc perft``, ``ftc serve``
and the tools):

============================  =======================================================================
``local`` (default)           ``workers`` processes of this machine (default: one per core); with one
                              worker the units run in this process, with no pool at all
``ray``                       a Ray on this machine: started with ``workers`` CPUs (default: every
                              core) and stopped at the end, or joined when one is running
                              (``RAY_ADDRESS``)
``ray://HOST:PORT``           a Ray cluster, through its client address
============================  =======================================================================

Ray is an optional extra (``pip install -e '.[ray]'``); without it, a Ray cluster is refused with a
:class:`ClusterError` that says how to install it.

>>> run_units(pow, [(2, 3), (3, 2), (10, 0)], workers=1)
[8, 9, 1]
>>> parse_cluster("ray://head:10001")
Cluster(kind='ray', address='ray://head:10001')
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import queue
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.clusters import RAY_INSTALL, Cluster, ClusterError, Progress, UnitFailed, parse_cluster

__all__ = ["interrupts_held", "Cluster", "ClusterError", "UnitFailed", "parse_cluster", "run_units", "kill_pool", "session", "RAY_INSTALL",
           "DEFAULT_RETRIES", "lower_priority"]

#: How often a unit whose worker was lost is started again before the run fails.
DEFAULT_RETRIES = 3

#: Seconds between looks at a pool whose units do not finish (signals held meanwhile are handed on
#: at each look), and how long one of its workers may be seen dead with nothing finished before the
#: pool counts as stuck (:func:`_run_in_processes`).
LOOK_SECONDS = 0.2
WATCH_SECONDS = 1.0

#: Seconds :func:`kill_pool` waits for the pool's manager thread to end.
THREAD_WAIT = 10.0


#: Linux's scheduler group of this process's session (``sched_autogroup_enabled``), absent elsewhere.
AUTOGROUP = Path("/proc/self/autogroup")


def lower_priority(niceness: int, autogroup: Path = AUTOGROUP) -> None:
    """Raise this process's niceness to at least ``niceness`` (never lowers it; workers started after
    it inherit it). Where Linux groups processes by session (autogroups), the CPU is first shared
    between the groups and a niceness only counts within its own: a loop started in a session of its
    own (``setsid``, a background service) would still take half of a 2-core machine from every other
    session's work. So a process that leads its session raises its group's niceness as well (the
    group is then its own, and its workers'); in another's session, the group is left alone."""
    try:
        now = os.nice(0)
        if now < niceness:
            os.nice(niceness - now)
    except OSError:
        pass                                   # not allowed here: run at the priority there is
    try:
        if os.getsid(0) != os.getpid():
            return
        match = re.search(r"\bnice\s+(-?\d+)", autogroup.read_text())
        if match and int(match.group(1)) < niceness:
            autogroup.write_text(f"{niceness}\n")
    except OSError:
        pass                                   # no autogroups here, or not allowed


@contextlib.contextmanager
def interrupts_held() -> Iterator[Callable[..., None]]:
    """Hold a Ctrl-C (SIGINT) or SIGTERM that comes while the block runs until it has run, so that
    the block's writes (a result file and the index or manifest that lists it) are done together
    or not at all. The signals' handlers are swapped for one that notes the signal; after the block
    the handlers are put back and the first signal noted is handed to its own (a KeyboardInterrupt
    raised, a SIGTERM's default ending the process). Python's handlers run in the main thread only,
    whichever thread the signal reached, so this holds with other threads running (blocking the
    signal in the main thread would not: the kernel gives it to another). Elsewhere than the main
    thread the block runs as it is.

    The block is given a function to call where stopping is safe: a signal noted by then is handed
    on there (a block that waits on other threads' locks stops at such points, never with a lock
    taken and not given back), after the function's argument, if any, has run (the block's
    clean-up, say its worker processes stopped: a SIGTERM's default ends the process at once)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda before=None: None
        return
    noted: list[signal.Signals] = []
    owner = os.getpid()

    def note(received: int, frame) -> None:
        if os.getpid() != owner:                  # a worker forked while the block ran: as before it
            _deliver(previous, signal.Signals(received), frame)
            return
        noted.append(signal.Signals(received))

    def put_back() -> None:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)

    def stop_here(before: Callable[[], None] | None = None) -> None:
        if not noted:
            return
        first = noted[0]
        noted.clear()
        if before is not None:                    # the caller's clean-up, which a SIGTERM's end would skip
            before()
        put_back()
        try:
            _deliver(previous, first, None)
        finally:                                  # a handler that did not raise: held again
            for number in previous:
                signal.signal(number, note)

    previous = {number: signal.signal(number, note) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop_here
    finally:
        put_back()
        if noted:
            _deliver(previous, noted[0], None)


def _deliver(handlers: dict, number: signal.Signals, frame) -> None:
    """Hand signal ``number`` to its handler of ``handlers`` (a default one: raised again with it)."""
    handler = handlers[number]
    signal.signal(number, handler if handler is not None else signal.SIG_DFL)
    if callable(handler):
        handler(number, frame)
    elif handler in (signal.SIG_DFL, None):
        os.kill(os.getpid(), number)


def run_units(fn: Callable[..., Any], units: Sequence[tuple], cluster: str | Cluster = "local",
              workers: int | None = None, progress: Progress | None = None,
              retries: int = DEFAULT_RETRIES) -> list:
    """``[fn(*unit) for unit in units]``, run on ``cluster`` by ``workers`` workers (None: every core
    of this machine, or every CPU of the Ray cluster). ``fn`` must be a module-level function (it is
    sent to other processes by reference) and its results picklable.

    A unit that raises stops the run (UnitFailed, with the unit's index and the error; the other
    units are cancelled). A unit whose worker died is run again, up to ``retries`` times. Ctrl-C stops
    the run: running units are cancelled (local workers are killed) and KeyboardInterrupt propagates.
    """
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if retries < 0:
        raise ValueError(f"retries must be at least 0, got {retries}")
    units = [tuple(unit) for unit in units]
    cluster = parse_cluster(cluster)
    if cluster.kind == "ray":
        from engine.execution_ray import run_units_on_ray

        return run_units_on_ray(fn, units, cluster, workers, progress, retries)
    if workers is None:
        workers = os.cpu_count() or 1
    if workers == 1 or len(units) <= 1:
        return _run_here(fn, units, progress)
    return _run_in_processes(fn, units, min(workers, len(units)), progress, retries)


@contextlib.contextmanager
def session(cluster: str | Cluster = "local", workers: int | None = None) -> Iterator[Cluster]:
    """The cluster connected for the block (yields the parsed Cluster): run_units calls inside reuse
    the connection instead of each making their own. Nothing to connect for ``local``. For Ray, the
    connection installs Ray's own SIGTERM handler: a caller that handles signals installs its
    handlers inside the block."""
    cluster = parse_cluster(cluster)
    if cluster.kind != "ray":
        yield cluster
        return
    from engine.execution_ray import ray_session

    with ray_session(cluster, workers):
        yield cluster


def _run_here(fn, units: list[tuple], progress: Progress | None) -> list:
    results = []
    for index, unit in enumerate(units):
        try:
            result = fn(*unit)
        except Exception as exc:  # noqa: BLE001 - named and re-raised with the unit's index
            raise UnitFailed(index, f"{type(exc).__name__}: {exc}") from exc
        results.append(result)
        if progress:
            progress(index + 1, len(units), index, result)
    return results


def _new_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    # spawn: a clean interpreter per worker (no inherited threads or locks from the caller).
    return concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def kill_pool(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a process pool at once: its running tasks are abandoned (their processes killed), the
    queued ones cancelled. The one place that knows how (the executor itself offers a way only from
    Python 3.14 on).

    A worker killed in the middle of sending its result leaves the pool's reading thread waiting for
    the rest of that message; it would wait for ever, and the interpreter waits for that thread
    when it exits (a Ctrl-C that never ends the command). The pool's own copy of the results pipe's
    writing end is closed too, so that once the killed workers are gone the thread reads the end of
    the pipe, counts the pool broken and stops.

    It returns once that thread has ended (or after ``THREAD_WAIT`` seconds): the exit hook of
    ``concurrent.futures`` wakes each live pool thread through a pipe that the thread closes as it
    ends, without a lock, and a thread still ending at exit could see it closed under the hook
    ("Exception ignored ... Bad file descriptor" after a Ctrl-C). An ended thread's pipe is marked
    closed and the hook leaves it alone."""
    results = getattr(pool, "_result_queue", None)          # before shutdown, which forgets it
    manager = getattr(pool, "_executor_manager_thread", None)  # likewise
    terminate = getattr(pool, "terminate_workers", None)       # Python 3.14+
    if terminate is not None:
        terminate()
    else:
        for process in _pool_processes(pool):
            try:
                process.kill()
            except (OSError, ValueError):
                pass
    pool.shutdown(wait=False, cancel_futures=True)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        manager.join(THREAD_WAIT)


def _pool_processes(pool: concurrent.futures.ProcessPoolExecutor) -> list[multiprocessing.process.BaseProcess]:
    """The worker processes of a pool (the executor does not list them publicly)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _dead_workers(pool: concurrent.futures.ProcessPoolExecutor) -> set[int]:
    """The process ids of the pool's workers that have ended (their sentinels ready; nothing reaped)."""
    sentinels: dict[int, int] = {}
    for process in _pool_processes(pool):
        try:
            sentinels[process.sentinel] = process.pid or 0
        except ValueError:                  # a process object already closed
            continue
    ready = multiprocessing.connection.wait(list(sentinels), timeout=0)
    return {sentinels[sentinel] for sentinel in ready if isinstance(sentinel, int)}


def _run_in_processes(fn, units: list[tuple], workers: int, progress: Progress | None, retries: int) -> list:
    """The units on pools of ``workers`` processes. Signals are held while the pools run and handed
    on between looks at them (``interrupts_held``): a KeyboardInterrupt raised inside the executor's
    own code could leave a lock of its futures taken, and its thread, which the interpreter waits
    for at exit, blocked on it for ever."""
    missing = object()
    results: list = [missing] * len(units)
    lost = [0] * len(units)
    done = 0
    todo = list(range(len(units)))
    with interrupts_held() as stop_here:
        while todo:
            pool = _new_pool(workers)
            try:
                finished: queue.SimpleQueue[concurrent.futures.Future] = queue.SimpleQueue()
                futures = {}
                for i in todo:
                    future = pool.submit(fn, *units[i])
                    futures[future] = i
                    future.add_done_callback(finished.put)
                todo = []
                broken = False
                pending, dead_since = len(futures), dict[int, float]()
                while pending:
                    stop_here(lambda: kill_pool(pool))     # a SIGTERM leaves no worker running
                    try:
                        future = finished.get(timeout=LOOK_SECONDS)
                    except queue.Empty:
                        # A worker that died while sending its result leaves the pool waiting for
                        # the rest of it, blind to the death: a worker dead for WATCH_SECONDS with
                        # nothing finished means the pool is stuck. It is stopped; the units left
                        # run again.
                        now = time.monotonic()
                        for pid in _dead_workers(pool):
                            dead_since.setdefault(pid, now)
                        if any(now - since >= WATCH_SECONDS for since in dead_since.values()):
                            kill_pool(pool)
                            broken = True
                            break
                        continue
                    dead_since.clear()
                    pending -= 1
                    index = futures[future]
                    try:
                        result = future.result()
                    except concurrent.futures.process.BrokenProcessPool:
                        # A worker died: every unit not finished must run again (on a new pool).
                        broken = True
                        continue
                    except Exception as exc:  # noqa: BLE001 - named and re-raised with the unit's index
                        raise UnitFailed(index, f"{type(exc).__name__}: {exc}") from exc
                    if results[index] is missing:
                        results[index] = result
                        done += 1
                        if progress:
                            progress(done, len(units), index, result)
                if broken:
                    todo = [i for i in range(len(units)) if results[i] is missing]
                    for i in todo:
                        lost[i] += 1
                        if lost[i] > retries:
                            raise UnitFailed(i, f"its worker was lost {lost[i]} times")
            except BaseException:
                kill_pool(pool)
                raise
            else:
                pool.shutdown(wait=True)
    return results
