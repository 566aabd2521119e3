"""AI turn functions that misbehave (or report where they ran), run by the server's real process pool
and by Ray tasks in the fault tests. A function reaches a spawned worker by its qualified name
(tests.server.faulty_ai.hang), so the worker imports this module: it must stay importable on its
own, from the repository's root, which the spawned workers have on their sys.path as the parent has
(pytest's `pythonpath`; Ray's workers: the driver's working folder)."""

import os
import time

from engine.interfaces.server.ai import ai_turn


def hang(record, bot_spec, seed, human, deadline):
    """A search that ignores its deadline and never ends."""
    while True:
        time.sleep(0.05)


def hang_and_tell(record, bot_spec, seed, human, deadline):
    """``hang``, after creating the file FTC_TEST_AI_THINKING names: a test waits for it to know that
    a turn is being computed (the worker process exists before any turn, so its presence says nothing)."""
    open(os.environ["FTC_TEST_AI_THINKING"], "w").close()
    hang(record, bot_spec, seed, human, deadline)


def crash(record, bot_spec, seed, human, deadline):
    """A worker that dies (as a segfault or the OOM killer would end it)."""
    os._exit(3)


def boom(record, bot_spec, seed, human, deadline):
    """A worker that raises."""
    raise RuntimeError("planted failure in the AI worker")


def where(record, bot_spec, seed, human, deadline):
    """The real AI turn, which also appends this worker's pid to the file FTC_TEST_AI_PIDS names."""
    with open(os.environ["FTC_TEST_AI_PIDS"], "a") as f:
        f.write(f"{os.getpid()}\n")
    return ai_turn(record, bot_spec, seed, human, deadline)


def hang_when_told(record, bot_spec, seed, human, deadline):
    """The real AI turn until the file FTC_TEST_AI_HANG names exists; from then on, ``hang``."""
    if os.path.exists(os.environ["FTC_TEST_AI_HANG"]):
        hang(record, bot_spec, seed, human, deadline)
    return ai_turn(record, bot_spec, seed, human, deadline)


def nap(seconds, deadline):
    """A busy task of ``seconds``; answers (its pid, when it started, its deadline), time.time() values."""
    started = time.time()
    time.sleep(seconds)
    return os.getpid(), started, deadline


def nap_then_hang(seconds, deadline):
    """``nap``, then ``hang``: a task that overruns its time."""
    time.sleep(seconds)
    while True:
        time.sleep(0.05)


def slow_turn(record, bot_spec, seed, human, deadline):
    """The real AI turn after 4 s of something else: a busy worker."""
    time.sleep(4.0)
    return ai_turn(record, bot_spec, seed, human, deadline)


def held(record, bot_spec, seed, human, deadline):
    """An ISMCTS turn that holds its worker until a second before its deadline (a real search may
    end its turn early: a planned or forced decision takes no time), then the real greedy turn;
    any other bot's turn as it is."""
    if bot_spec.startswith("ismcts"):
        time.sleep(max(0.0, deadline - time.time() - 1.0))
        return ai_turn(record, "greedy", seed, human, deadline)
    return ai_turn(record, bot_spec, seed, human, deadline)
