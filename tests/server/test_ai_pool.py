"""The AI pool's scheduling and fault containment, with real worker processes (engine/interfaces/
server/ai.py, docs/server.md "Failure guarantees"): a task's time starts when it starts on a
worker, a task that overruns or whose worker dies costs that task alone (one worker replaced, the
others run on), and the queue is fair: game turns before hints, the client running the fewest tasks
first, round-robin among equals, one worker kept for clients running nothing. Ordering is asserted
from the pool's own log of started tasks, not from wall times."""

import asyncio
import os
import signal
import time

import pytest

from engine.interfaces.server.ai import GRACE_SECONDS, HINT, TURN, AIFailure, AIPool, FairQueue
from tests.server import faulty_ai
from tests.server.support import alive


def _pool(workers):
    pool = AIPool("process", workers)
    deadline = time.monotonic() + 60
    while len(pool.worker_pids()) < workers or not all(s.ready for s in pool._slots):
        assert time.monotonic() < deadline, "the workers should start"
        time.sleep(0.05)
    return pool


@pytest.fixture
def two_workers():
    pool = _pool(2)
    yield pool
    pool.close()


@pytest.fixture
def one_worker():
    pool = _pool(1)
    yield pool
    pool.close()


async def _running(pool, count, seconds=20.0):
    """Wait until ``count`` tasks run."""
    deadline = time.monotonic() + seconds
    while len(pool.tasks()) < count:
        assert time.monotonic() < deadline, pool.tasks()
        await asyncio.sleep(0.02)


def test_a_task_waiting_in_the_queue_is_not_killed_for_waiting(two_workers):
    """Two busy turns hold both workers for longer than a hint's whole limit (its seconds plus the
    grace); the hint waits for a worker and then answers, with its own deadline counted from its
    start. No worker is replaced and both turns answer."""
    pool = two_workers
    busy = GRACE_SECONDS + 1.0

    async def main():
        turns = [asyncio.ensure_future(pool.run(faulty_ai.nap, busy, seconds=busy + 1, client=c)) for c in "AB"]
        await _running(pool, 2)
        queued = time.time()
        hint = await pool.run(faulty_ai.nap, 0.05, seconds=0.2, client="C", priority=HINT)
        return await asyncio.gather(*turns), hint, queued

    turns, (pid, started, deadline), queued = asyncio.run(main())
    assert started - queued >= busy - 0.5                      # it did wait for a worker ...
    assert 0.15 <= deadline - started <= 0.25                  # ... and its 0.2 s began when it started
    assert len(turns) == 2 and pool.restarts == 0


def test_a_task_that_overruns_costs_that_task_alone(two_workers):
    """A hung task is stopped after its seconds plus the grace by killing its worker, which alone
    is replaced; the task running beside it answers, and the next task runs on the new worker."""
    pool = two_workers

    async def main():
        await asyncio.sleep(0)
        hung = asyncio.ensure_future(pool.run(faulty_ai.nap_then_hang, 0.0, seconds=0.2, client="A"))
        beside = asyncio.ensure_future(pool.run(faulty_ai.nap, GRACE_SECONDS + 1.5, seconds=30, client="B"))
        await _running(pool, 2)
        [(_, _, _, hung_pid)] = [t for t in pool.tasks() if t[0] == "A"]
        with pytest.raises(AIFailure, match="no answer within 3.2 s"):
            await hung
        return hung_pid, await beside, await pool.run(faulty_ai.nap, 0.0, seconds=1, client="A")

    hung_pid, (beside_pid, _, _), (next_pid, _, _) = asyncio.run(main())
    assert pool.restarts == 1
    deadline = time.monotonic() + 10
    while alive(hung_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(hung_pid)                                 # the runaway search burns no core
    assert beside_pid in pool.worker_pids() and next_pid not in (hung_pid,)
    assert len(pool.worker_pids()) == 2


def test_a_killed_worker_costs_only_its_own_task(two_workers):
    """SIGKILL to one of two busy workers: its task fails ("a worker died"), the other task answers,
    and that one worker is replaced."""
    pool = two_workers

    async def main():
        tasks = {c: asyncio.ensure_future(pool.run(faulty_ai.nap, 1.5, seconds=10, client=c)) for c in "AB"}
        await _running(pool, 2)
        [(_, _, _, victim)] = [t for t in pool.tasks() if t[0] == "A"]
        os.kill(victim, signal.SIGKILL)
        results = await asyncio.gather(*tasks.values(), return_exceptions=True)
        return victim, dict(zip(tasks, results))

    victim, results = asyncio.run(main())
    assert isinstance(results["A"], AIFailure) and "a worker died (exit code -9)" in str(results["A"])
    assert isinstance(results["B"], tuple) and results["B"][0] != victim
    assert pool.restarts == 1 and victim not in pool.worker_pids()


def test_one_client_cannot_hold_every_worker_while_another_waits(two_workers):
    """Client A floods the pool with expensive turns while client B plays; B's turn, sent after
    them, starts at once on the worker kept for the other clients, before A's second turn."""
    pool = two_workers

    async def main():
        await pool.run(faulty_ai.nap, 0.0, seconds=5, client="B")      # B plays: an active client
        flood = [asyncio.ensure_future(pool.run(faulty_ai.nap, 0.6, seconds=5, client="A")) for _ in range(4)]
        await _running(pool, 1)
        await asyncio.sleep(0.2)
        assert [t[0] for t in pool.tasks()] == ["A"]           # A's second turn waits: one worker is kept
        b = await pool.run(faulty_ai.nap, 0.0, seconds=5, client="B")
        await asyncio.gather(*flood)
        return b

    asyncio.run(main())
    started = list(pool.started_log)[1:]
    assert [client for client, *_ in started] == ["A", "B", "A", "A", "A"]
    b_wait = started[1][3]
    a_waits = [wait for client, _, _, wait in started if client == "A"]
    assert b_wait < max(a_waits)                               # B did not queue behind A's flood


def test_turns_start_before_hints_and_clients_take_turns(one_worker):
    """One worker, busy: then a hint (C), two turns of A, and a turn of B are queued, in this order.
    Turns go first, B's before A's second (round-robin: A was served more recently), the hint last."""
    pool = one_worker

    async def main():
        first = asyncio.ensure_future(pool.run(faulty_ai.nap, 0.5, seconds=5, client="A"))
        await _running(pool, 1)
        waiting = [pool.run(faulty_ai.nap, 0.0, seconds=5, client="C", priority=HINT)]
        waiting += [pool.run(faulty_ai.nap, 0.0, seconds=5, client=c, priority=TURN) for c in "AAB"]
        waiting = [asyncio.ensure_future(w) for w in waiting]
        await asyncio.gather(first, *waiting)

    asyncio.run(main())
    assert [(client, priority) for client, priority, *_ in pool.started_log] == [
        ("A", TURN), ("B", TURN), ("A", TURN), ("A", TURN), ("C", HINT)]


def test_the_fair_queue_keeps_one_worker_for_the_other_active_clients():
    """The rule on its own: while another client is active, a client already running a task does
    not take the last idle worker (it may take one of two); a lone client may take it."""
    from engine.interfaces.server.ai import _Job

    loop = asyncio.new_event_loop()

    def job(client):
        return _Job(faulty_ai.nap, (0,), 1.0, client, TURN, loop, loop.create_future(), loop.create_future())

    try:
        alone = FairQueue()
        first = job("A")
        alone.push(first)
        alone.running["A"] = 1
        assert alone.pick(1) is first                             # nobody else plays: every worker is A's
        shared = FairQueue()
        b = job("B")
        shared.push(b)
        assert shared.pick(1) is b                                # B was active ...
        shared.running["B"] = 0
        a = job("A")
        shared.push(a)
        shared.running["A"] = 1
        assert shared.pick(1) is None and len(shared) == 1        # ... so A keeps one worker free
        assert shared.pick(2) is a and len(shared) == 0
        stale = FairQueue(active_seconds=0.0)                     # B's activity is long past
        stale.push(job("B"))
        stale.pick(1)
        late = job("A")
        stale.push(late)
        stale.running["A"] = 1
        assert stale.pick(1) is late
    finally:
        loop.close()


def test_analysis_searches_run_below_game_turns():
    """The analysis board's search threads run at a lower CPU priority than the server and its AI
    workers (Linux: nice 10 for those threads alone), so game turns get the cores first."""
    import threading

    from engine.interfaces.server.analysis import Analysis
    from engine.interfaces.server.app import Limits

    if not hasattr(os, "setpriority"):
        pytest.skip("no thread priorities here")
    if os.getpriority(os.PRIO_PROCESS, 0) >= 19:
        pytest.skip("the tests run at the lowest priority already (nice 19): nothing can be lower")
    analysis = Analysis(Limits())
    try:
        own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        theirs = analysis.pool.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()
    finally:
        analysis.close()
    assert theirs >= min(own + 10, 19) and theirs > own


def test_the_workers_yield_the_cpu_to_the_server(one_worker):
    """A worker process runs at a lower CPU priority than the server's process (ai.WORKER_NICE), so a
    search that fills its core never keeps the server's own work (requests, pushes, the instant lane)
    waiting for one; the analysis board's threads are lower than the workers."""
    import threading

    from engine.interfaces.server.ai import WORKER_NICE
    from engine.interfaces.server.analysis import Analysis
    from engine.interfaces.server.app import Limits

    if not hasattr(os, "setpriority"):
        pytest.skip("no priorities here")
    own = os.getpriority(os.PRIO_PROCESS, 0)
    (worker,) = one_worker.worker_pids()
    assert os.getpriority(os.PRIO_PROCESS, worker) == min(own + WORKER_NICE, 19) > own
    analysis = Analysis(Limits())
    try:
        theirs = analysis.pool.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()
    finally:
        analysis.close()
    assert theirs >= os.getpriority(os.PRIO_PROCESS, worker) and (theirs > os.getpriority(os.PRIO_PROCESS, worker)
                                                                  or theirs == 19)


def test_serve_takes_the_cap_of_a_decisions_seconds():
    """`ftc serve --max-ai-seconds` is the server's cap (Limits.ai_max_seconds), 10 s by default."""
    from engine.interfaces.cli import build_parser

    assert build_parser().parse_args(["serve"]).max_ai_seconds == 10.0
    assert build_parser().parse_args(["serve", "--max-ai-seconds", "2.5"]).max_ai_seconds == 2.5
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--max-ai-seconds", "0"])


def test_a_ctrl_c_to_the_process_group_never_interrupts_a_worker_that_is_still_starting(capfd):
    """A terminal's Ctrl-C reaches every process of the server's group, the workers that are still
    importing the engine too; they must ignore it from their first instruction (the server stops them
    itself), not die with a KeyboardInterrupt traceback."""
    pool = AIPool("process", 2)
    try:
        pids = [slot.process.pid for slot in pool._slots]
        for pid in pids:                             # at once: before either has reached _worker_init
            os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 60
        while not all(s.ready for s in pool._slots):
            assert time.monotonic() < deadline, "the workers should start"
            time.sleep(0.05)
        assert [slot.process.pid for slot in pool._slots] == pids and all(alive(pid) for pid in pids)
    finally:
        pool.close()
    assert "KeyboardInterrupt" not in capfd.readouterr().err
