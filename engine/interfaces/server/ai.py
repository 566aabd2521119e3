"""The AI's turns, computed in worker processes under a deadline.

One AI turn is every decision the AI takes until the human must decide (or the game ends): up to
hundreds of decisions. The server gives the whole turn one budget (``turn_seconds``), counted from
when the turn starts on a worker (never from when it was queued):

- The worker receives the deadline and keeps to it: each decision's search is capped by half the
  time left beyond a reserve (``DECISION_SHARE``, so the decisions after it have time too), and when
  too little is left the remaining decisions of the turn are taken by the greedy bot
  (in the worker, at once). Each such fallback is reported back, logged and shown to the player.
- Past the deadline plus a grace period the server stops waiting: that task's worker alone is
  killed (an abandoned search never keeps burning a core) and replaced, and the greedy bot takes the
  turn on the server. A worker that crashed fails its own task only and is replaced; one that raised
  is kept. Every other task runs on (``AIPool``: one process and one pipe per worker).
- Work waits in a ``FairQueue``: a queue per client, game turns before hints, the client running
  the fewest tasks first (round-robin among equals), and one worker kept for clients running nothing.
- A turn of instant bots (``INSTANT_BOTS``: the easy AI) never waits behind a search: when no worker
  is free for it at once it runs in the pool's instant lane, a thread of the server's process with
  a FairQueue of its own (``AIPool.run(..., instant=True)``).
- A turn's clock is charged from when it starts on a worker (``TurnResult.began``), never for its
  wait in the queue (core.py ``_clock_through``).
- Workers exit with the server: each one asks the kernel for a signal when its parent dies
  (Linux ``PR_SET_PDEATHSIG``) and also watches its parent's pid, so a server killed with SIGKILL
  leaves no worker behind.

On a Ray cluster (``AIPool("ray")`` or ``AIPool("ray://HOST:PORT")``, ``ftc serve --cluster``) the same
functions run as Ray tasks from the same queue, never more at once than ``workers``, with the same
deadlines and fallbacks: a task that gives no answer in time is cancelled (``ray.cancel(force=True)``,
which kills its worker), a lost worker is that task's AIFailure, and Ray starts new workers. The
connection is engine/execution_ray.py's ``ray_session`` (a local Ray it started is stopped when the
pool is closed).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import logging
import multiprocessing
import os
import random
import signal
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field

from engine.execution import Cluster, parse_cluster
from engine.games import registry

__all__ = ["AIPool", "AIFailure", "AIClosed", "FairQueue", "TURN", "HINT", "LOCAL_KINDS", "TurnResult", "ai_turn", "timed_turn",
           "INSTANT_BOTS", "INSTANT_THREADS", "instant", "WORKER_NICE", "ANALYSIS_NICE",
           "greedy_turn", "hint_for", "hint_turn", "fallback_bot", "resample_hidden", "below_game_turns", "greedy_hint", "HINT_ALTERNATIVES", "RESERVE_SECONDS", "DECISION_SHARE", "GRACE_SECONDS"]

log = logging.getLogger("ftc.server")

#: A decision is never started with less time than this left in the turn: the greedy bot takes the
#: rest of the turn instead.
RESERVE_SECONDS = 0.3
#: The most of what a turn has left (beyond the reserve) that one decision may use, so that the
#: decisions after it in the turn always have time: a search that spends its whole budget (the
#: planner's verification, engine/crown/planner.py) never hands the rest of a short turn to the
#: greedy bot. With the default turn budget a decision's own budget (0.5 s at `normal`) is far smaller.
DECISION_SHARE = 0.5
#: How long past the turn's deadline the server waits for a worker before it kills it.
GRACE_SECONDS = 3.0
#: How long a new worker may take to start (spawn and imports: about a second, more on a loaded
#: machine) before its turn is given up (the greedy bot takes it).
START_SECONDS = 60.0
#: Decisions one AI turn may hold at most (a safety bound; real turns hold far fewer).
MAX_DECISIONS = 2000
#: The bots that decide without a search (the greedy bot weighs each action one step ahead, the
#: random bot none): a turn of theirs takes milliseconds (a whole Crownfall turn of three seats about
#: 25 ms), so it never waits behind a search (``AIPool``'s instant lane).
INSTANT_BOTS = frozenset({"greedy", "random"})
#: How much lower the CPU priority of a worker process is than the server's (Unix nice): a search
#: fills its core for seconds, and the server's own work (requests, pushes, the instant lane) must not
#: wait behind it for a core (at 10 the kernel gives the server about nine tenths of a core a worker
#: also wants; a search keeps to its deadline whatever it gets). The analysis board's threads are
#: lower still (``ANALYSIS_NICE``).
WORKER_NICE = 10
#: How much lower the analysis board's search threads run than the server (``below_game_turns``).
ANALYSIS_NICE = 15
#: Threads of the instant lane: one, in the server's own process (an instant turn holds Python's
#: interpreter lock the whole time: a second thread would add nothing).
INSTANT_THREADS = 1


def instant(bot_spec) -> bool:
    """Whether a turn of ``bot_spec`` (one spec, or a dict seat -> spec) is played by instant bots
    only (INSTANT_BOTS)."""
    specs = bot_spec.values() if isinstance(bot_spec, dict) else (bot_spec,)
    return all(spec in INSTANT_BOTS for spec in specs)


def resample_hidden(state, player: int, rng: random.Random):
    """A determinization of ``player``'s information set (the state protocol's ``resample_hidden``):
    what hints search, never the state itself."""
    return state.resample_hidden(player, rng)


class _RandomChoice:
    """Any legal action, from a seeded generator: the fallback of a game without a greedy bot."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, state) -> int:
        return self.rng.choice(state.legal_actions())


def fallback_bot(state, seed: int):
    """The bot that answers when the AI's search cannot: the game's greedy bot (its registry entry's
    ``make_bot("greedy")``), or a seeded random choice for a game without one."""
    game = registry.for_state(state)
    return game.bots.make_bot("greedy", seed) if "greedy" in game.bots.bot_names else _RandomChoice(seed)


@dataclass
class TurnResult:
    """The actions of one AI turn, in order, when each was chosen (``times``: ``time.time()`` of the
    worker, one per action), how they were chosen, and when the turn started on its worker
    (``began``, the worker's ``time.time()``; None: not known). A seat's clock is charged from
    ``began`` on, never for the time the turn waited for a worker (core.py ``_clock_through``)."""

    actions: list[int]
    fallbacks: list[str] = field(default_factory=list)   # why the greedy bot stepped in, if it did
    times: list[float] = field(default_factory=list)
    began: float | None = None


def _stops(human) -> frozenset:
    """The seats the AI never decides for: one seat (the human's), or the game's human and bot seats."""
    return frozenset((human,)) if isinstance(human, int) else frozenset(human)


def _decide(state, human, bots, deadline: float, fallback_seed: int, budgets: dict | None = None,
            greedy_seats=()) -> TurnResult:
    """Decide for every seat not in ``human`` (a seat or a collection of seats) until one of them
    must decide (or the game ends), within ``deadline``: ``bots(seat)`` is the bot of an AI seat
    (None: the greedy bot takes every decision). ``budgets``: seconds each timed seat may think in
    this turn (its clock's share, clocks.py ``turn_budget``); a seat past its share has the rest of
    its decisions of this turn taken by the greedy bot, so the AI never runs out of time.
    ``greedy_seats``: seats the greedy bot plays (a seat that ran out of time in a game without
    resignation)."""
    stops = _stops(human)
    result = TurnResult([])
    greedy = None
    budgets = dict(budgets or {})
    spent: dict[int, float] = {}
    while not state.is_terminal() and state.current_player() not in stops and len(result.actions) < MAX_DECISIONS:
        left = deadline - time.time()
        player = state.current_player()
        if greedy is None and left < RESERVE_SECONDS:
            result.fallbacks.append(f"the turn's time ran out after {len(result.actions)} decisions: "
                                    "the greedy bot took the rest")
            greedy = fallback_bot(state, fallback_seed)
        seat_left = budgets[player] - spent.get(player, 0.0) if player in budgets else None
        started = time.time()
        if greedy is not None or bots is None:
            greedy = greedy or fallback_bot(state, fallback_seed)
            action = greedy.choose(state)
        elif player in greedy_seats or (seat_left is not None and seat_left < RESERVE_SECONDS):
            action = fallback_bot(state, fallback_seed + len(result.actions)).choose(state)
        else:
            action = bots(player).choose_within(state, (min(left, left if seat_left is None else seat_left)
                                                 - RESERVE_SECONDS) * DECISION_SHARE)
        spent[player] = spent.get(player, 0.0) + time.time() - started
        state.apply(action)
        result.actions.append(action)
        result.times.append(time.time())
    return result


def _bots(state, bot_spec, seed: int):
    """``bots(seat)`` for ``_decide``: one bot of ``bot_spec`` for every AI seat, or, when it is a
    dict seat -> spec, each AI seat its own bot (made when first asked)."""
    game = registry.for_state(state)
    if isinstance(bot_spec, str):
        bot = game.bots.make_bot(bot_spec, seed)
        return lambda seat: bot
    made: dict = {}

    def bots(seat):
        if seat not in made:
            made[seat] = game.bots.make_bot(bot_spec[seat], (seed + seat) % 2**63)
        return made[seat]

    return bots


def ai_turn(record: dict, bot_spec, seed: int, human, deadline: float) -> TurnResult:
    """Run in a worker: replay the game and let the AI decide until a seat of ``human`` (the human's
    seat, or every human and bot seat) must, keeping to ``deadline`` (a ``time.time()`` value).
    ``bot_spec``: one spec for every AI seat, or a dict seat -> spec (each AI seat its own bot)."""
    began = time.time()
    state = registry.replay(record)
    result = _decide(state, human, _bots(state, bot_spec, seed), deadline, seed)
    result.began = began
    return result


def timed_turn(record: dict, bot_spec, seed: int, human, clocks: dict, deadline: float) -> TurnResult:
    """``ai_turn`` of a game on a clock: ``clocks`` is ``{"budgets": {seat: seconds}, "greedy": [seats]}``,
    the seconds each timed seat may think in this turn and the seats the greedy bot plays
    (``_decide``)."""
    began = time.time()
    state = registry.replay(record)
    budgets = {int(seat): seconds for seat, seconds in clocks.get("budgets", {}).items()}
    result = _decide(state, human, _bots(state, bot_spec, seed), deadline, seed, budgets,
                     frozenset(clocks.get("greedy", ())))
    result.began = began
    return result


def greedy_turn(state, human, seed: int) -> list[int]:
    """The server's own fallback: the greedy bot takes the AI's turn on ``state`` (a copy) until a
    seat of ``human`` must decide."""
    return _decide(state, human, None, 0.0, seed).actions


# -- hints: the AI's search for the human ------------------------------------------------------------
#: Alternatives a hint lists at most (tree decisions: the root actions by visits).
HINT_ALTERNATIVES = 4


def hint_for(state, human: int, bot_spec: str, seed: int, seconds: float) -> dict:
    """The full-game AI's suggestion for ``human``'s decision in ``state``, from ``human``'s own
    information set only: the search runs on a determinization (``resample_hidden``, seeded by
    ``seed``, a server secret) and never sees the state itself, so the opponent's hidden cards, the
    Deck orders and the game's generator cannot shape the answer. ``bot_spec`` names a bot with
    ``search_within`` (an ismcts, or a game's own search such as Crusade & Conquer's alpha-beta).
    ``{action, text, source, alternatives: [{action, text, share}] (tree decisions), iterations,
    seconds}``."""
    if state.is_terminal() or state.current_player() != human:
        raise ValueError("a hint is for the human's own decision")
    rng = random.Random(seed)
    sample = resample_hidden(state, human, rng)
    bot = registry.for_state(state).bots.make_bot(bot_spec, rng.getrandbits(62))
    if not hasattr(bot, "search_within"):
        raise ValueError(f"hints use a search (a bot with search_within, such as ismcts), not {bot_spec!r}")
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
    bot = fallback_bot(state, rng.getrandbits(62))
    action = bot.choose(sample)
    return {"action": action, "text": sample.action_text(action), "source": "greedy", "alternatives": [],
            "iterations": 0, "seconds": 0.0}


def hint_turn(record: dict, human: int, bot_spec: str, seed: int, deadline: float) -> dict:
    """Run in a worker: replay the game and search the human's decision (``hint_for``) until
    ``deadline`` (a ``time.time()`` value) less the reserve."""
    return hint_for(registry.replay(record), human, bot_spec, seed, max(0.05, deadline - time.time() - RESERVE_SECONDS))


def below_game_turns() -> None:
    """Lower the calling thread's CPU priority (Linux: ANALYSIS_NICE below the server's, for this
    thread alone; the AI's workers are WORKER_NICE below it), so that work done in the server's own
    threads for a player (the analysis board's searches) yields the cores to the game turns of the
    AI's workers. Elsewhere it does nothing."""
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + ANALYSIS_NICE))


# -- worker processes ------------------------------------------------------------------------------
def _worker_init(parent: int) -> None:
    """Make this worker exit when the server process dies, however it dies, and yield the CPU to the
    server's own process (WORKER_NICE)."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(WORKER_NICE)
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


def _start_deaf_to_ctrl_c(process) -> None:
    """Start a worker process that ignores SIGINT from its first instruction. A terminal's Ctrl-C goes
    to the server's whole process group, and a worker still importing the engine would die of it with
    a traceback; the server stops its workers itself. An ignored disposition survives exec (and Python
    keeps it), but only the main thread may change one: there (the pool's first workers) SIGINT is
    ignored for the moment of the spawn; a worker replaced later from a pipe's reader thread ignores
    it from _worker_init on."""
    if threading.current_thread() is not threading.main_thread():
        process.start()
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, previous)


def _timed(fn, args: tuple, seconds: float):
    """Run a task: ``fn(*args, deadline)``, its deadline (a ``time.time()`` value) ``seconds`` from
    now, when the task starts on its worker (never from when it was queued)."""
    return fn(*args, time.time() + seconds)


def _worker_main(conn, parent: int) -> None:
    """A worker process: say it is ready (the engine is imported), then run one task at a time
    from its pipe, answering ("ok", result) or ("raised", what was raised)."""
    _worker_init(parent)
    registry.games()              # every game's entry imported before a turn's time can start
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if message is None:
            os._exit(0)
        fn, args, seconds = message
        try:
            reply = ("ok", _timed(fn, args, seconds))
        except BaseException as exc:                                          # noqa: BLE001 - reported
            reply = ("raised", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except Exception as exc:                                              # noqa: BLE001 - unpicklable
            conn.send(("raised", f"its answer could not be sent back ({type(exc).__name__}: {exc})"))


def _started() -> int:
    """A Ray worker's first task: it returns once the worker has started and imported the engine
    (every game's entry)."""
    registry.games()
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

#: Priorities of the pool's work: a game's AI turn is started before any hint that waits.
TURN, HINT = 0, 1


@dataclass(eq=False)
class _Job:
    """One task of the pool: waiting in its client's queue, then running on one worker."""

    fn: object
    args: tuple
    seconds: float                  # the task's time, counted from its start on a worker
    client: str
    priority: int
    loop: asyncio.AbstractEventLoop
    started: asyncio.Future         # the monotonic time it started on a worker
    answer: asyncio.Future
    queued: float = field(default_factory=time.monotonic)
    slot: object = None             # the _Slot it runs on
    ref: object = None              # its Ray task

    def settle(self, which: str, value=None, error: BaseException | None = None) -> None:
        """Resolve ``started`` or ``answer`` from any thread (once; later calls do nothing)."""
        def apply():
            future = self.started if which == "started" else self.answer
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)
        with contextlib.suppress(RuntimeError):          # the loop is closed: nobody waits
            self.loop.call_soon_threadsafe(apply)


#: A client that sent the pool work within this many seconds is active: while another client is,
#: a client already running a task does not take the last idle worker (FairQueue).
ACTIVE_SECONDS = 120.0


class FairQueue:
    """The tasks waiting for a worker, one queue per client and priority. The next task is the
    first of the highest priority (game turns before hints); among its clients, the one running the
    fewest tasks, ties broken round-robin (the client served longest ago first). While more than one
    client is active (sent work within ACTIVE_SECONDS), a client that already runs a task never
    takes the last idle worker: one is kept for the others, so no client holds every worker while
    another plays. A lone client (or every client behind one proxy address) may use them all."""

    def __init__(self, active_seconds: float = ACTIVE_SECONDS):
        self._queues: list[dict[str, deque]] = [{}, {}]      # priority -> client -> its tasks
        self.running: Counter = Counter()                    # client -> its tasks running now
        self._served: dict[str, int] = {}                    # client -> when it was last served (a count)
        self._serves = 0
        self._seen: dict[str, float] = {}                    # client -> when it last sent work (monotonic)
        self.active_seconds = active_seconds

    def __len__(self) -> int:
        return sum(len(q) for queues in self._queues for q in queues.values())

    def push(self, job: _Job) -> None:
        self._queues[job.priority].setdefault(job.client, deque()).append(job)
        now = time.monotonic()
        self._seen.pop(job.client, None)
        self._seen[job.client] = now                         # the dict stays in order of last use
        for client, seen in list(self._seen.items()):
            if now - seen < self.active_seconds:
                break
            del self._seen[client]
            self._served.pop(client, None)

    def _shared(self, now: float) -> bool:
        """Whether more than one client is active."""
        return sum(1 for seen in self._seen.values() if now - seen < self.active_seconds) > 1

    def remove(self, job: _Job) -> bool:
        queue = self._queues[job.priority].get(job.client)
        if queue is None or job not in queue:
            return False
        queue.remove(job)
        if not queue:
            del self._queues[job.priority][job.client]
        return True

    def pick(self, idle: int) -> _Job | None:
        """The task to start on one of ``idle`` idle workers, taken from its queue; None when no
        waiting task may start now."""
        keep_one = idle < 2 and self._shared(time.monotonic())
        for queues in self._queues:
            allowed = [client for client in queues if not (keep_one and self.running[client])]
            if not allowed:
                continue
            client = min(allowed, key=lambda c: (self.running[c], self._served.get(c, -1)))
            self._serves += 1
            self._served[client] = self._serves
            queue = queues[client]
            job = queue.popleft()
            if not queue:
                del queues[client]
            return job
        return None

    def drain(self) -> list[_Job]:
        jobs = [job for queues in self._queues for queue in queues.values() for job in queue]
        self._queues = [{}, {}]
        return jobs


class _Slot:
    """One worker: a process with its own pipe (kind "process"), or a place for one task (a thread,
    or a Ray task: Ray runs it on a worker of its own)."""

    def __init__(self, pool: AIPool, index: int):
        self.pool, self.index = pool, index
        self.job: _Job | None = None
        self.gone = False                    # killed or replaced: what it reports later is ignored
        self.started = concurrent.futures.Future()      # resolved when it can take a task
        self.process = self.conn = None
        if pool.kind == "process":
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            self.process = context.Process(target=_worker_main, args=(theirs, os.getpid()), daemon=True,
                                           name=f"ftc-ai-{index}")
            _start_deaf_to_ctrl_c(self.process)
            theirs.close()
            self.conn = ours
            threading.Thread(target=self._read, name=f"ftc-ai-{index}-pipe", daemon=True).start()
        elif pool.kind == "thread":
            self.started.set_result(None)
        else:
            self.started = pool._ray_started

    @property
    def ready(self) -> bool:
        return self.started.done() and not self.gone

    def _read(self) -> None:
        """The pipe of a worker process, read in a thread: its readiness, its answers, its end."""
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                # Only this thread closes the pipe: closed from another one while read here, its
                # number could be reused by a new worker's pipe and read by this thread.
                with contextlib.suppress(OSError):
                    self.conn.close()
                self.pool._lost(self)
                return
            except Exception as exc:                                          # noqa: BLE001 - unreadable answer
                message = ("raised", f"its answer could not be read ({type(exc).__name__}: {exc})")
            if message[0] == "ready":
                with contextlib.suppress(concurrent.futures.InvalidStateError):     # closed meanwhile
                    self.started.set_result(message[1])
                self.pool._dispatch_now()
            else:
                self.pool._finished(self, message)

    def kill(self) -> None:
        self.gone = True
        if self.process is not None:
            with contextlib.suppress(OSError, ValueError):
                self.process.kill()           # its pipe ends with it: the reader sees the end and closes it


class AIPool:
    """The AI's workers: ``kind`` "process" (the default: this machine's processes; also "local", as
    ``--cluster`` says it), "thread" (for tests that need no processes), or a Ray cluster: "ray" (a
    local Ray started with ``workers`` CPUs, or the one ``RAY_ADDRESS`` names) or "ray://HOST:PORT"
    (then ``kind`` is "ray" and ``cluster`` holds the address). Connecting to Ray happens here:
    ClusterError (a ValueError) when Ray is missing or nothing answers at the address.

    Tasks wait in a FairQueue (per client, game turns before hints) and run one per worker. A fault is
    the task's own: a task that overruns its time is stopped by killing its worker process (on Ray:
    cancelling its task), a worker that dies fails its task only, and that one worker is replaced;
    every other task runs on. ``restarts`` counts the workers replaced. Kind "thread" cannot stop a
    thread: a task that overruns is abandoned to finish on its own and its place given to the next.
    An instant bot's turn that finds no worker free for it runs in the instant lane (``lane``: a pool
    of kind "thread" of its own, ``instant_lane`` False there), never behind a search."""

    def __init__(self, kind: str, workers: int, instant_lane: bool = True):
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
        #: (client, priority, task name, seconds waited in the queue) of the latest tasks started.
        self.started_log: deque = deque(maxlen=1000)
        self._lock = threading.RLock()
        self._queue = FairQueue()
        self._session = contextlib.ExitStack()      # the Ray connection (kind "ray"), closed by close()
        self._ray = None
        self._remote = None
        self._starting_refs: list = []
        self._threads = None
        if kind == "ray":
            from engine.execution_ray import ray_session

            self._ray = self._session.enter_context(ray_session(self.cluster, workers))
        elif kind == "thread":
            # Room for tasks abandoned after their time (a thread cannot be stopped) besides the slots.
            self._threads = concurrent.futures.ThreadPoolExecutor(workers + 16, thread_name_prefix="ftc-ai")
        self._slots: list[_Slot] = []
        self._make()
        #: The instant lane (``run(..., instant=True)``): an instant bot's turn that finds no worker
        #: free for it runs here, at once, in a thread of this process (a FairQueue of its own: clients
        #: take turns there too), never behind a search. None: no lane (the lane itself).
        self.lane = AIPool("thread", INSTANT_THREADS, instant_lane=False) if instant_lane else None

    # -- workers -------------------------------------------------------------------------------
    def _make(self) -> None:
        """Start every worker now, not at the first turn: a turn's time is for thinking."""
        if self.kind == "ray":
            # Ray starts its workers itself; these tasks make sure one has started and imported the
            # engine before a turn's time starts (ready()).
            self._starting_refs = [self._task(_started).remote() for _ in range(self.workers)]
            futures = [ref.future() for ref in self._starting_refs]
            self._ray_started = concurrent.futures.Future()

            def one_started(future, first=self._ray_started):
                if _succeeded(future) and not first.done():
                    with contextlib.suppress(concurrent.futures.InvalidStateError):   # closed meanwhile
                        first.set_result(None)
                    self._dispatch_now()
            for future in futures:
                future.add_done_callback(one_started)
            self._starting = futures
        self._slots = [_Slot(self, i) for i in range(self.workers)]
        if self.kind != "ray":
            self._starting = [slot.started for slot in self._slots]

    def _replace(self, slot: _Slot, why: str) -> None:
        """Kill one worker (a running task of it is the caller's to answer) and start its successor.
        Called with the lock held."""
        slot.kill()
        if self.closed:
            return
        log.warning("AI worker %d replaced: %s", slot.index, why)
        self.restarts += 1
        successor = _Slot(self, slot.index)
        self._slots[self._slots.index(slot)] = successor
        if self.kind == "process":
            self._starting = [s.started for s in self._slots]

    def _task(self, fn):
        """``fn`` as a Ray task of one CPU that is never retried (a lost worker is the task's
        failure: the greedy bot takes its turn, within the turn's time)."""
        return self._ray.remote(num_cpus=1, max_retries=0, retry_exceptions=False)(fn)

    def _cancel(self, refs) -> None:
        for ref in list(refs):
            with contextlib.suppress(Exception):           # finished already, or the connection is gone
                self._ray.cancel(ref, force=True)

    async def ready(self, timeout: float = START_SECONDS) -> None:
        """Wait until a worker has started (at once when one has), so that the first tasks after a
        start or a restart do not wait for spawning in their callers' time: a worker needs about a
        second (more on a loaded machine; on Ray, until the cluster has run a first task).
        AIFailure when none starts within ``timeout`` (the workers are replaced); AIClosed when the
        pool is closed."""
        give_up = time.monotonic() + timeout
        while True:
            if self.closed:
                raise AIClosed("the AI's workers are closed: the server is shutting down")
            starting = self._starting              # read again: a worker that died starting is replaced
            if not starting or any(_succeeded(f) for f in starting):
                return
            left = give_up - time.monotonic()
            if left <= 0:
                break
            pending = [asyncio.wrap_future(f) for f in starting if not f.done()]
            if not pending:
                await asyncio.sleep(min(left, 0.2))
                continue
            _, waiting = await asyncio.wait(pending, timeout=min(left, 1.0), return_when=asyncio.FIRST_COMPLETED)
            for waiter in waiting:
                _unawaited(waiter)
        self.restart(f"no worker started within {timeout:.0f} s")
        raise AIFailure(f"no worker started within {timeout:.0f} s")

    def tasks(self) -> list[tuple[str, int, str, int | None]]:
        """The running tasks: (client, priority, task name, worker pid or None off this machine)."""
        with self._lock:
            return [(s.job.client, s.job.priority, getattr(s.job.fn, "__name__", "?"),
                     s.process.pid if s.process is not None else None) for s in self._slots if s.job is not None]

    def worker_pids(self) -> list[int]:
        """The pids of the live worker processes of a process pool (empty for a thread pool and on
        Ray, whose workers may be on other machines)."""
        return [s.process.pid for s in list(self._slots)
                if s.process is not None and not s.gone and s.process.is_alive()]

    def restart(self, why: str) -> None:
        """Replace every worker (killing the old ones; their tasks fail; on Ray: cancel the tasks and
        the start-up tasks, and Ray starts new workers); a closed pool stays closed."""
        with self._lock:
            if self.closed:
                return
            log.warning("AI workers restarted: %s", why)
            if self.kind == "ray":
                self._cancel(self._starting_refs)
            for slot in self._slots:
                job = slot.job
                if job is not None:
                    self._done(slot, job)
                    if job.ref is not None:
                        self._cancel([job.ref])
                    job.settle("answer", error=AIFailure(f"its worker was restarted ({why})"))
                slot.kill()
                self.restarts += 1
            self._make()

    # -- scheduling ----------------------------------------------------------------------------
    def _dispatch_now(self) -> None:
        with self._lock:
            self._dispatch()

    def _dispatch(self) -> None:
        """Start waiting tasks on idle workers, in the FairQueue's order. Called with the lock held."""
        while not self.closed:
            idle = [slot for slot in self._slots if slot.ready and slot.job is None]
            if not idle:
                return
            job = self._queue.pick(len(idle))
            if job is None:
                return
            self._start(job, idle[0])

    def _start(self, job: _Job, slot: _Slot) -> None:
        now = time.monotonic()
        slot.job, job.slot = job, slot
        self._queue.running[job.client] += 1
        self.started_log.append((job.client, job.priority, getattr(job.fn, "__name__", "?"), now - job.queued))
        job.settle("started", now)
        if self.kind == "process":
            try:
                slot.conn.send((job.fn, job.args, job.seconds))
            except (OSError, ValueError):
                pass                         # the worker is dying: its reader reports it (_lost)
            except Exception as exc:                                           # noqa: BLE001 - not picklable
                self._done(slot, job)
                job.settle("answer", error=AIFailure(f"the task could not be sent ({type(exc).__name__}: {exc})"))
        elif self.kind == "thread":
            future = self._threads.submit(_timed, job.fn, job.args, job.seconds)
            future.add_done_callback(lambda f: self._finished(slot, ("ok", f.result()) if f.exception() is None
                                                              else ("raised", f"{type(f.exception()).__name__}: "
                                                                              f"{f.exception()}")))
        else:
            try:
                task = self._task(_timed).options(name=getattr(job.fn, "__name__", "ai_task"))
                job.ref = task.remote(job.fn, job.args, job.seconds)
            except Exception as exc:                                       # noqa: BLE001 - the connection failed
                self._done(slot, job)
                job.settle("answer", error=AIFailure(f"Ray did not take the task ({type(exc).__name__}: {exc})"))
                return
            job.ref.future().add_done_callback(lambda f: self._ray_finished(slot, job, f))

    def _done(self, slot: _Slot, job: _Job) -> None:
        """``job`` leaves ``slot``; the next task may start. Called with the lock held."""
        slot.job = None
        self._queue.running[job.client] -= 1
        if self._queue.running[job.client] <= 0:
            del self._queue.running[job.client]

    def _finished(self, slot: _Slot, message: tuple) -> None:
        """A worker's answer ("ok", result) or ("raised", text)."""
        with self._lock:
            job = slot.job
            if slot.gone or job is None:
                return                       # abandoned: the task was already answered
            self._done(slot, job)
            if message[0] == "ok":
                job.settle("answer", message[1])
            else:
                job.settle("answer", error=AIFailure(f"the worker raised {message[1]}"))
            self._dispatch()

    def _lost(self, slot: _Slot) -> None:
        """A worker process ended by itself (a crash, the OOM killer, a kill from outside): its task
        fails, and it alone is replaced."""
        with self._lock:
            if slot.gone or self.closed:
                return
            slot.process.join(1.0)
            code = slot.process.exitcode
            why = f"a worker died (exit code {code})" if code is not None else "a worker died"
            job = slot.job
            if job is not None:
                self._done(slot, job)
                job.settle("answer", error=AIFailure(why))
            if not slot.started.done():                      # ready() must not wait for it
                with contextlib.suppress(concurrent.futures.InvalidStateError):
                    slot.started.set_exception(AIFailure(f"{why} while starting"))
            if _succeeded(slot.started):
                self._replace(slot, why)
                self._dispatch()
            else:
                # It died while starting (a broken installation, no memory): try again in a second,
                # not in a loop; ready() gives up on the pool after START_SECONDS.
                slot.gone = True
                timer = threading.Timer(1.0, self._respawn, args=(slot, why))
                timer.daemon = True
                timer.start()

    def _respawn(self, slot: _Slot, why: str) -> None:
        with self._lock:
            if not self.closed and slot in self._slots:
                self._replace(slot, why + " while starting")

    def _ray_finished(self, slot: _Slot, job: _Job, future) -> None:
        with self._lock:
            if slot.gone or slot.job is not job:
                return
            self._done(slot, job)
            exc = None if future.cancelled() else future.exception()
            if future.cancelled():
                job.settle("answer", error=AIFailure("the Ray task was cancelled"))
            elif exc is None:
                job.settle("answer", future.result())
            elif isinstance(exc, self._ray.exceptions.RayTaskError):
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                job.settle("answer", error=AIFailure(f"the worker raised {type(cause).__name__}: {cause}"))
            else:
                first = str(exc).splitlines()[0] if str(exc) else ""
                job.settle("answer", error=AIFailure(f"a worker died ({type(exc).__name__}: {first})"))
                self._replace(slot, f"a worker died ({type(exc).__name__})")
            self._dispatch()

    def _abandon(self, job: _Job, why: str) -> None:
        """Nobody waits for ``job`` any more (its time ran out, or its caller went away): take it out
        of its queue, or stop it where it runs (its worker killed and replaced; on Ray its task
        cancelled; a thread is left to finish)."""
        with self._lock:
            if self._queue.remove(job):
                return
            slot = job.slot
            if slot is None or slot.job is not job or slot.gone:
                return
            self._done(slot, job)
            if self.kind == "thread":
                self._slots[self._slots.index(slot)] = _Slot(self, slot.index)
                slot.gone = True
            else:
                if job.ref is not None:
                    self._cancel([job.ref])
                self._replace(slot, why)
            self._dispatch()

    async def run(self, fn, *args, seconds: float, client: str = "", priority: int = TURN, instant: bool = False):
        """``fn(*args, deadline)`` on a worker, ``deadline`` being ``seconds`` (a ``time.time()``
        value) from when it starts there. The task waits for a worker in ``client``'s queue at
        ``priority`` (TURN or HINT; FairQueue); once started it has ``seconds`` plus GRACE_SECONDS to
        answer, else its worker is killed and replaced. ``instant``: the task is an instant bot's
        turn (``instant()``): it never waits for a worker: when none is free for it at once it runs
        in the instant lane (``lane``) instead. AIFailure when it overruns, its worker dies or it
        raises (no other task is touched); AIClosed when the pool is closed before or while it
        runs."""
        if priority not in (TURN, HINT):
            raise ValueError(f"priority must be TURN or HINT, got {priority!r}")
        loop = asyncio.get_running_loop()
        job = _Job(fn, args, seconds, client, priority, loop, loop.create_future(), loop.create_future())
        with self._lock:
            if self.closed:
                raise AIClosed("the AI's workers are closed: the server is shutting down")
            self._queue.push(job)
            self._dispatch()
            waits = instant and self.lane is not None and job.slot is None
            if waits:                             # no worker free for it: the instant lane takes it
                self._queue.remove(job)
        if waits:
            return await self.lane.run(fn, *args, seconds=seconds, client=client, priority=priority)
        limit = seconds + GRACE_SECONDS
        try:
            started = await job.started
            return await asyncio.wait_for(job.answer, max(0.0, started + limit - time.monotonic()))
        except TimeoutError:
            self._abandon(job, f"its task gave no answer within {limit:.1f} s")
            raise AIFailure(f"no answer within {limit:.1f} s") from None
        except BaseException:
            self._abandon(job, "nobody waits for its answer")
            raise

    def close(self) -> None:
        """Stop for good: kill the worker processes at once (on Ray: cancel the running tasks and
        disconnect, stopping a local Ray this pool started); every waiting and running task is
        answered with AIClosed, and no more work is taken. Calling it again does nothing."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            closed = AIClosed("the server shut down while the AI was thinking")
            for job in self._queue.drain():
                job.settle("started", error=closed)
            refs = list(self._starting_refs)
            for slot in self._slots:
                job = slot.job
                slot.kill()
                if not slot.started.done():                  # ready() must not wait for it
                    with contextlib.suppress(concurrent.futures.InvalidStateError):
                        slot.started.set_exception(AIClosed("the AI's workers are closed"))
                if job is not None:
                    if job.ref is not None:
                        refs.append(job.ref)
                    job.settle("answer", error=closed)
            if self.kind == "ray":
                self._cancel(refs)
        if self.kind == "ray":
            self._session.close()
        elif self.kind == "thread":
            self._threads.shutdown(wait=False, cancel_futures=True)
        if self.lane is not None:
            self.lane.close()
