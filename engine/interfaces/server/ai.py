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
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import random
import time
from dataclasses import dataclass, field

from engine.game.observation import resample_hidden
from engine.game.state import replay
from engine.search.bots import GreedyBot, ISMCTSBot, make_bot

__all__ = ["AIPool", "AIFailure", "AIClosed", "TurnResult", "ai_turn", "greedy_turn", "hint_for", "hint_turn",
           "greedy_hint", "HINT_ALTERNATIVES", "RESERVE_SECONDS", "GRACE_SECONDS"]

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
            greedy = GreedyBot(fallback_seed)
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
    return _decide(replay(record), human, make_bot(bot_spec, seed), deadline, seed)


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
    sample = resample_hidden(state, human, rng)
    bot = make_bot(bot_spec, rng.getrandbits(62))
    if not isinstance(bot, ISMCTSBot):
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
    sample = resample_hidden(state, human, rng)
    action = GreedyBot(rng.getrandbits(62)).choose(sample)
    return {"action": action, "text": sample.action_text(action), "source": "greedy", "alternatives": [],
            "iterations": 0, "seconds": 0.0}


def hint_turn(record: dict, human: int, bot_spec: str, seed: int, deadline: float) -> dict:
    """Run in a worker: replay the game and search the human's decision (``hint_for``) until
    ``deadline`` (a ``time.time()`` value) less the reserve."""
    return hint_for(replay(record), human, bot_spec, seed, max(0.05, deadline - time.time() - RESERVE_SECONDS))


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


class AIFailure(Exception):
    """The worker gave no answer in time, crashed or raised; the message says which."""


class AIClosed(AIFailure):
    """The pool was closed (the server is shutting down): the turn was not computed."""


class AIPool:
    """The AI's workers: ``kind`` "process" (the default) or "thread" (for tests that need no
    processes). A broken or hung pool is replaced, so one bad turn never degrades later ones."""

    def __init__(self, kind: str, workers: int):
        if kind not in ("process", "thread"):
            raise ValueError(f"ai_pool must be 'process' or 'thread', got {kind!r}")
        if workers < 1:
            raise ValueError(f"ai_workers must be >= 1, got {workers}")
        self.kind, self.workers = kind, workers
        self.restarts = 0
        self.closed = False
        self._pool = self._make()

    def _make(self):
        if self.kind == "thread":
            self._starting = []
            return concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="ftc-ai")
        pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init,
            initargs=(os.getpid(),))
        # Start every worker now, not at the first turn: a turn's time is for thinking.
        self._starting = [pool.submit(_started) for _ in range(self.workers)]
        return pool

    async def ready(self, timeout: float = START_SECONDS) -> None:
        """Wait until a worker has started (at once when one has), so that the deadline of the turn
        that follows is spent thinking, not spawning: after a start or a restart of the pool a worker
        needs about a second (more on a loaded machine). AIFailure when none starts within
        ``timeout`` (the pool is replaced); AIClosed when the pool is closed."""
        if self.closed:
            raise AIClosed("the AI's workers are closed: the server is shutting down")
        starting = self._starting
        if not starting or any(_succeeded(f) for f in starting):
            return
        waiters = [asyncio.wrap_future(f) for f in starting]
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if self.closed:
            raise AIClosed("the AI's workers are closed: the server is shutting down")
        if not any(_succeeded(w) for w in done):
            self.restart(f"no worker started within {timeout:.0f} s")
            raise AIFailure(f"no worker started within {timeout:.0f} s")

    def worker_pids(self) -> list[int]:
        """The pids of the live worker processes (empty for a thread pool)."""
        processes = getattr(self._pool, "_processes", None) or {}
        return [p.pid for p in list(processes.values()) if p.is_alive()]

    def _kill(self) -> None:
        pool = self._pool
        terminate = getattr(pool, "terminate_workers", None)       # Python 3.14+
        if terminate is not None:
            terminate()
        else:
            # Before 3.14 the executor offers no way to stop a running task: kill its processes.
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                try:
                    process.kill()
                except (OSError, ValueError):
                    pass
        pool.shutdown(wait=False, cancel_futures=True)

    def restart(self, why: str) -> None:
        """Replace the workers (killing the old ones); a closed pool stays closed."""
        if self.closed:
            return
        log.warning("AI workers restarted: %s", why)
        if self.kind == "process":
            self._kill()
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

    def close(self) -> None:
        """Stop for good: kill the worker processes at once (a turn they compute is abandoned and
        its run() raises AIClosed) and take no more work. Calling it again does nothing."""
        if self.closed:
            return
        self.closed = True
        if self.kind == "process":
            self._kill()
        else:
            self._pool.shutdown(wait=False, cancel_futures=True)
