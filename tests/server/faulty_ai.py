"""AI turn functions that misbehave, run by the server's real process pool in the fault tests. A
function reaches a spawned worker by its qualified name (tests.server.faulty_ai.hang), so the worker
imports this module: it must stay importable on its own, from the repository's root, which the
spawned workers have on their sys.path as the parent has (pytest's `pythonpath`)."""

import os
import time


def hang(record, bot_spec, seed, human, deadline):
    """A search that ignores its deadline and never ends."""
    while True:
        time.sleep(0.05)


def crash(record, bot_spec, seed, human, deadline):
    """A worker that dies (as a segfault or the OOM killer would end it)."""
    os._exit(3)


def boom(record, bot_spec, seed, human, deadline):
    """A worker that raises."""
    raise RuntimeError("planted failure in the AI worker")
