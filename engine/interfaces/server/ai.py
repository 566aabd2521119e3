"""The AI's turns, computed in worker processes under a deadline.

One AI turn is every decision the AI takes until the human must decide (or the game ends): up to
hundreds of decisions. The server gives the whole turn one budget (``turn_seconds``):

- The worker receives the deadline and keeps to it: each decision's search is capped by the time
  left, and when too little is left the remaining decisions of the turn are taken by the greedy bot
  (in the worker, at once). Each such fallback is reported back and logged.
- Past the deadline plus a grace period the server stops waiting: the workers are killed (an
  abandoned search never keeps burning a core), the pool is recreated for the next turn, and the
  greedy bot takes the turn on the server. A worker that crashed or raised is handled the same way.
- Workers exit with the server: each one asks the kernel for a signal when its parent dies
  (Linux ``PR_SET_PDEATHSIG``) and also watches its parent's pid, so a server killed with SIGKILL
  leaves no worker behind.

On a Ray cluster (``AIPool("ray")`` or ``AIPool("ray://HOST:PORT")``, ``ftc serve --cluster``) the same
functions run as Ray tasks, with the same deadlines and fallbacks: a task that gives no answer in time
is cancelled (``ray.cancel(force=True)``, which kills its worker), a lost worker is an AIFailure, and
Ray starts new workers for the next turn. The connection is engine/execution_ray.py's ``ray_session``
(a local Ray it started is stopped when the pool is closed).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import random
import time
from dataclasses import dataclass, field

from engine.execution import Cluster, kill_pool, parse_cluster
from engine.game.observation import resample_hidden
from engine.interfaces.server.ransom import is_ransom, make_game_bot, replay_any
from engine.search.bots import GreedyBot

__all__ = ["AIPool", "AIFailure", "AIClosed", "LOCAL_KINDS", "TurnResult", "ai_turn", "greedy_turn", "hint_for",
           "hint_turn", "greedy_hint", "HINT_ALTERNATIVES", "RESERVE_SECONDS", "GRACE_SECONDS"]

log = logging.getLogger("ftc.server")

#: A decision is never started with less time than this left in the turn: the greedy bot takes the
#: rest of the turn instead.
RESERVE_SECONDS = 0.3
#: How long past the turn's deadline the server waits for a worker before it kills it.
GRACE_SECONDS = 3.0
#: How long a new worker may take to start (spawn and imports: about a second, more on a loaded
#: machine) before its turn is given up (the greedy bot takes it).
START_SECONDS = 60.0
#: Decisions one AI turn may hold at most (a safety bound; real turns hold far fewer).
MAX_DECISIONS = 2000


@dataclass
class TurnResult:
    """The actions of one AI turn, in order, and how they were chosen."""

    actions: list[int]
    fallbacks: list[str] = field(default_factory=list)   # why the greedy bot stepped in, if it did


def _decide(state, human: int, bot, deadline: float, fallback_seed: int) -> TurnResult:
    result = TurnResult([])
    greedy = None
    while not state.is_terminal() and state.current_player() != human and len(result.actions) < MAX_DECISIONS:
        left = deadline - time.time()
        if greedy is None and left < RESERVE_SECONDS:
            result.fallbacks.append(f"the turn's time ran out after {len(result.actions)} decisions: "
                                    "the greedy bot took the rest")
            greedy = GreedyBot(fallback_seed) if not is_ransom(state) else make_game_bot(state, "greedy", fallback_seed)
        if greedy is not None:
            action = greedy.choose(state)
        else:
            action = bot.choose_within(state, left - RESERVE_SECONDS)
        state.apply(action)
        result.actions.append(action)
    return result


def ai_turn(record: dict, bot_spec: str, seed: int, human: int, deadline: float) -> TurnResult:
    """Run in a worker: replay the game and let the bot decide until the human must, keeping to
    ``deadline`` (a ``time.time()`` value)."""
    state = replay_any(record)
    return _decide(state, human, make_game_bot(state, bot_spec, seed), deadline, seed)


def greedy_turn(state, human: int, seed: int) -> list[int]:
    """The server's own fallback: the greedy bot takes the AI's turn on ``state`` (a copy)."""
    return _decide(state, human, None, 0.0, seed).actions


# -- hints: the AI's search for the human ------------------------------------------------------------
#: Alternatives a hint lists at most (tree decisions: the root actions by visits).
HINT_ALTERNATIVES = 4


def hint_for(state, human: int, bot_spec: str, seed: int, seconds: float) -> dict:
    """The full-game AI's suggestion for ``human``'s decision in ``state``, from ``human``'s own
    information set only: the search runs on a determinization (``resample_hidden``, seeded by
    ``seed``, a server secret) and never sees the state itself, so the opponent's hidden cards, the
    Deck orders and the game's generator cannot shape the answer. ``{action, text, source,
    alternatives: [{action, text, share}] (tree decisions), iterations, seconds}``."""
    if state.is_terminal() or state.current_player() != human:
        raise ValueError("a hint is for the human's own decision")
    rng = random.Random(seed)
    sample = state.resample_hidden(human, rng) if is_ransom(state) else resample_hidden(state, human, rng)
    bot = make_game_bot(state, bot_spec, rng.getrandbits(62))
    if not hasattr(bot, "search_within"):
        raise ValueError(f"hints use the full-game AI (ismcts), not {bot_spec!r}")
    stats = bot.search_within(sample, seconds)
    total = sum(stats.visits.values())
    alternatives = []
    if stats.source == "search" and total:
        order = sorted(stats.visits, key=lambda a: (-stats.visits[a], a))[:HINT_ALTERNATIVES]
        alternatives = [{"action": a, "text": stats.texts.get(a), "share": round(stats.visits[a] / total, 4)}
                        for a in order]
    return {"action": stats.best, "text": stats.best_text, "source": stats.source, "alternatives": alternatives,
            "iterations": stats.iterations, "seconds": round(stats.seconds, 3)}


def greedy_hint(state, human: int, seed: int) -> dict:
    """The fallback when the search cannot answer: the greedy bot's choice in a determinization of
    ``human``'s information set (like ``hint_for``, it never sees the state itself)."""
    rng = random.Random(seed)
    sample = state.resample_hidden(human, rng) if is_ransom(state) else resample_hidden(state, human, rng)
    bot = make_game_bot(state, "greedy", rng.getrandbits(62)) if is_ransom(state) else GreedyBot(rng.getrandbits(62))
    action = bot.choose(sample)
    return {"action": action, "text": sample.action_text(action), "source": "greedy", "alternatives": [],
            "iterations": 0, "seconds": 0.0}


def hint_turn(record: dict, human: int, bot_spec: str, seed: int, deadline: float) -> dict:
    """Run in a worker: replay the game and search the human's decision (``hint_for``) until
    ``deadline`` (a ``time.time()`` value) less the reserve."""
    return hint_for(replay_any(record), human, bot_spec, seed, max(0.05, deadline - time.time() - RESERVE_SECONDS))


# -- worker processes ------------------------------------------------------------------------------
def _worker_init(parent: int) -> None:
    """Make this worker exit when the server process dies, however it dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)          # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:                 # the parent died before prctl took effect
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="ftc-parent-watch", daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the server's to handle


def _started() -> int:
    """A worker's first task: it returns once the worker has started and imported the engine."""
    return os.getpid()


def _succeeded(future) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None


def _unawaited(future) -> None:
    """Let ``future`` end unseen: an error it may still get (a cancelled Ray task reports one) is
    taken, not logged as never retrieved."""
    future.add_done_callback(lambda f: f.cancelled() or f.exception())


class AIFailure(Exception):
    """The worker gave no answer in time, crashed or raised; the message says which."""


class AIClosed(AIFailure):
    """The pool was closed (the server is shutting down): the turn was not computed."""


#: The values of ``AIPool``'s ``kind`` that run on this machine; any ``--cluster`` value of Ray
#: (``ray``, ``ray://HOST:PORT``) runs on a Ray cluster.
LOCAL_KINDS = ("process", "thread")


class AIPool:
    """The AI's workers: ``kind`` "process" (the default: this machine's processes; also "local", as
    ``--cluster`` says it), "thread" (for tests that need no processes), or a Ray cluster: "ray" (a
    local Ray started with ``workers`` CPUs, or the one ``RAY_ADDRESS`` names) or "ray://HOST:PORT"
    (then ``kind`` is "ray" and ``cluster`` holds the address). A broken or hung pool is replaced,
    so one bad turn never degrades later ones. Connecting to Ray happens here: ClusterError (a
    ValueError) when Ray is missing or nothing answers at the address."""

    def __init__(self, kind: str, workers: int):
        if workers < 1:
            raise ValueError(f"ai_workers must be >= 1, got {workers}")
        if kind in LOCAL_KINDS:
            self.cluster = Cluster("local")
        else:
            self.cluster = parse_cluster(kind)          # ClusterError names a value that is none of them
            kind = "process" if self.cluster.kind == "local" else "ray"
        self.kind, self.workers = kind, workers
        self.restarts = 0
        self.closed = False
        self._session = contextlib.ExitStack()      # the Ray connection (kind "ray"), closed by close()
        self._ray = None
        self._remote: dict = {}                     # fn -> its Ray remote function
        self._running: dict = {}                    # Ray task -> the future close() resolves
        self._starting_refs: list = []
        if kind == "ray":
            from engine.execution_ray import ray_session

            self._ray = self._session.enter_context(ray_session(self.cluster, workers))
        self._pool = self._make()

    def _make(self):
        if self.kind == "thread":
            self._starting = []
            return concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="ftc-ai")
        if self.kind == "ray":
            # Ray starts its workers itself; these tasks make sure one has started and imported the
            # engine before a turn's time starts (ready()).
            self._starting_refs = [self._task(_started).remote() for _ in range(self.workers)]
            self._starting = [ref.future() for ref in self._starting_refs]
            return None
        pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init,
            initargs=(os.getpid(),))
        # Start every worker now, not at the first turn: a turn's time is for thinking.
        self._starting = [pool.submit(_started) for _ in range(self.workers)]
        return pool

    def _task(self, fn):
        """``fn`` as a Ray task of one CPU that is never retried (a lost worker is the turn's
        failure: the greedy bot takes it, within the turn's time)."""
        task = self._remote.get(fn)
        if task is None:
            task = self._remote[fn] = self._ray.remote(num_cpus=1, max_retries=0, retry_exceptions=False)(fn)
        return task

    def _cancel(self, refs) -> None:
        for ref in list(refs):
            with contextlib.suppress(Exception):           # finished already, or the connection is gone
                self._ray.cancel(ref, force=True)

    async def ready(self, timeout: float = START_SECONDS) -> None:
        """Wait until a worker has started (at once when one has), so that the deadline of the turn
        that follows is spent thinking, not spawning: after a start or a restart of the pool a worker
        needs about a second (more on a loaded machine; on Ray, until the cluster has run a first
        task). AIFailure when none starts within ``timeout`` (the pool is replaced); AIClosed when
        the pool is closed."""
        if self.closed:
            raise AIClosed("the AI's workers are closed: the server is shutting down")
        starting = self._starting
        if not starting or any(_succeeded(f) for f in starting):
            return
        waiters = [asyncio.wrap_future(f) for f in starting]
        done, pending = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for waiter in pending:
            _unawaited(waiter)
        if self.closed:
            raise AIClosed("the AI's workers are closed: the server is shutting down")
        if not any(_succeeded(w) for w in done):
            self.restart(f"no worker started within {timeout:.0f} s")
            raise AIFailure(f"no worker started within {timeout:.0f} s")

    def worker_pids(self) -> list[int]:
        """The pids of the live worker processes of a process pool (empty for a thread pool and on
        Ray, whose workers may be on other machines)."""
        processes = getattr(self._pool, "_processes", None) or {}
        return [p.pid for p in list(processes.values()) if p.is_alive()]

    def _kill(self) -> None:
        kill_pool(self._pool)

    def restart(self, why: str) -> None:
        """Replace the workers (killing the old ones; on Ray: cancel the pool's tasks, and Ray starts
        new workers); a closed pool stays closed."""
        if self.closed:
            return
        log.warning("AI workers restarted: %s", why)
        if self.kind == "process":
            self._kill()
        elif self.kind == "ray":
            self._cancel(self._starting_refs)
        else:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self.restarts += 1
        self._pool = self._make()

    async def run(self, fn, *args, timeout: float):
        """``fn(*args)`` in a worker; AIFailure when it does not answer within ``timeout`` seconds,
        crashes or raises. After a timeout or a crash the workers are replaced. AIClosed when the
        pool is closed before or while it runs (a running turn is abandoned: its worker is killed)."""
        if self.closed:
            raise AIClosed("the AI's workers are closed: the server is shutting down")
        if self.kind == "ray":
            return await self._run_on_ray(fn, args, timeout)
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._pool, fn, *args)
        except (RuntimeError, concurrent.futures.BrokenExecutor) as exc:      # shut down or broken
            self.restart(f"the pool could not take work ({exc})")
            future = loop.run_in_executor(self._pool, fn, *args)
        try:
            return await asyncio.wait_for(future, timeout=timeout)
        except asyncio.TimeoutError:
            if self.kind == "process":
                self.restart(f"a worker gave no answer within {timeout:.1f} s")
            raise AIFailure(f"no answer within {timeout:.1f} s") from None
        except concurrent.futures.BrokenExecutor as exc:
            if self.closed:
                raise AIClosed("the server shut down while the AI was thinking") from None
            self.restart(f"a worker died ({exc})")
            raise AIFailure(f"a worker died: {exc}") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:                                               # noqa: BLE001 - the worker raised
            raise AIFailure(f"the worker raised {type(exc).__name__}: {exc}") from None

    async def _run_on_ray(self, fn, args: tuple, timeout: float):
        """run() as a Ray task: cancelled (its worker killed) when it does not answer in time, when
        the pool is closed, and when the request waiting for it is cancelled."""
        ray = self._ray
        try:
            ref = self._task(fn).remote(*args)
        except Exception as exc:                                               # noqa: BLE001 - the connection failed
            raise AIFailure(f"Ray did not take the task ({type(exc).__name__}: {exc})") from None
        closing = concurrent.futures.Future()        # resolved by close(): no answer will come
        self._running[ref] = closing
        answer = asyncio.wrap_future(ref.future())
        stop = asyncio.wrap_future(closing)
        try:
            done, _ = await asyncio.wait({answer, stop}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if self.closed:
                raise AIClosed("the server shut down while the AI was thinking")
            if answer not in done:
                self._cancel([ref])
                self.restart(f"a Ray task gave no answer within {timeout:.1f} s (cancelled)")
                raise AIFailure(f"no answer within {timeout:.1f} s")
            exc = answer.exception()
            if exc is None:
                return answer.result()
            if isinstance(exc, ray.exceptions.RayTaskError):
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                raise AIFailure(f"the worker raised {type(cause).__name__}: {cause}")
            self.restart(f"a worker died ({type(exc).__name__})")
            raise AIFailure(f"a worker died ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})")
        except asyncio.CancelledError:
            self._cancel([ref])                      # nobody waits for the answer: free the CPU
            raise
        finally:
            # ``answer`` is left to Ray (a cancelled task still reports, and Ray's future must not
            # be cancelled under it); ``closing`` is ours.
            self._running.pop(ref, None)
            _unawaited(answer)
            stop.cancel()

    def close(self) -> None:
        """Stop for good: kill the worker processes at once (on Ray: cancel the running tasks and
        disconnect, stopping a local Ray this pool started; a turn they compute is abandoned and its
        run() raises AIClosed) and take no more work. Calling it again does nothing."""
        if self.closed:
            return
        self.closed = True
        if self.kind == "process":
            self._kill()
        elif self.kind == "ray":
            running = list(self._running.items())
            self._cancel([ref for ref, _ in running] + self._starting_refs)
            for _, closing in running:
                if not closing.done():
                    closing.set_result(None)
            self._session.close()
        else:
            self._pool.shutdown(wait=False, cancel_futures=True)
