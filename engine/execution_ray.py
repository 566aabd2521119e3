"""Units on Ray (engine/execution.py's ``--cluster ray`` and ``ray://HOST:PORT``).

Imported only when a Ray cluster is asked for: Ray is an optional extra (``pip install -e '.[ray]'``).

- :func:`ray_session` connects: to ``ray://HOST:PORT`` (a cluster's client address), to the Ray this
  machine already runs (``RAY_ADDRESS`` set), or to a new local Ray with ``workers`` CPUs, which it
  stops again at the end. Sessions nest: an inner one reuses the outer connection.
- :func:`run_units_on_ray` runs the units as Ray tasks (one CPU each). A task whose worker dies is
  retried by Ray itself (``max_retries``: system failures only; a unit that raises is not retried),
  and each unit's result is stored once, by its index: a lost worker changes nothing in the results.
  Ctrl-C cancels every task that has not finished (``ray.cancel(force=True)``); so does a unit that
  raises. The run raises only once the cancelled tasks have ended (at most ``CANCEL_WAIT_SECONDS``),
  so that the session is never stopped while their workers are being killed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from engine.clusters import RAY_INSTALL, Cluster, ClusterError, Progress, UnitFailed

__all__ = ["import_ray", "ray_session", "run_units_on_ray"]

_depth = 0                      # how many ray_session blocks are open in this process

#: At most how long a run that stops (a unit raised, Ctrl-C) waits for its cancelled tasks to end.
CANCEL_WAIT_SECONDS = 30.0


def import_ray():
    """The ``ray`` module; ClusterError saying how to install it when it is missing."""
    try:
        import ray
    except ImportError as exc:
        raise ClusterError(f"--cluster ray needs Ray, which is not installed ({exc}): {RAY_INSTALL}") from None
    return ray


@contextlib.contextmanager
def ray_session(cluster: Cluster, workers: int | None = None) -> Iterator[Any]:
    """A connection to the Ray of ``cluster`` for the block (yields the ``ray`` module).
    ClusterError when Ray is missing or nothing answers at the address."""
    global _depth
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        options = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        try:
            if cluster.address is not None:
                ray.init(address=cluster.address, **options)
            elif os.environ.get("RAY_ADDRESS"):
                ray.init(address=os.environ["RAY_ADDRESS"], **options)
            else:
                ray.init(num_cpus=workers or os.cpu_count() or 1, **options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = cluster.address or os.environ.get("RAY_ADDRESS") or "a local Ray"
            raise ClusterError(f"--cluster {cluster.address or 'ray'}: cannot connect to {where}: {exc}") from None
        except BaseException:
            # Interrupted while starting (Ctrl-C, a signal raising): stop what was started so far.
            with contextlib.suppress(Exception):
                ray.shutdown()
            raise
        started = True
    _depth += 1
    try:
        yield ray
    finally:
        _depth -= 1
        if started and _depth == 0:
            ray.shutdown()


def run_units_on_ray(fn: Callable, units: list[tuple], cluster: Cluster, workers: int | None,
                     progress: Progress | None, retries: int) -> list:
    """engine.execution.run_units on Ray: the same results, in unit order."""
    with ray_session(cluster, workers) as ray:
        task = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(fn)
        refs = [task.remote(*unit) for unit in units]
        index_of = {ref: i for i, ref in enumerate(refs)}
        missing = object()
        results: list = [missing] * len(units)
        pending = list(refs)
        done = 0
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    i = index_of[ref]
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                        raise UnitFailed(i, f"{type(cause).__name__}: {cause}") from None
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                            ray.exceptions.ObjectLostError) as exc:
                        raise UnitFailed(i, f"its worker was lost more than {retries} times ({type(exc).__name__})") \
                            from None
                    if results[i] is missing:
                        results[i] = result
                        done += 1
                        if progress:
                            progress(done, len(units), i, result)
        except BaseException:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            # The cancellations end the tasks (their workers killed) a little later: wait for them, so
            # that the session is never stopped (Ray shut down) while they are under way.
            if pending:
                with contextlib.suppress(Exception):
                    ray.wait(pending, num_returns=len(pending), timeout=CANCEL_WAIT_SECONDS)
            raise
        return results
