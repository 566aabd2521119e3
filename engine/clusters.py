"""What engine/execution.py and its Ray backend (engine/execution_ray.py) share: the parsed
``--cluster`` value, its errors and the progress callback's type. Both import it, and neither
imports the other at module level: the Ray backend is loaded by execution.py only when a Ray
cluster is asked for (Ray is an optional extra), and it needs nothing of execution.py but these.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Cluster", "ClusterError", "UnitFailed", "Progress", "parse_cluster", "RAY_INSTALL"]

RAY_INSTALL = "pip install -e '.[ray]'  (or: pip install 'ray>=2.9')"
_RAY_ADDRESS = re.compile(r"ray://[A-Za-z0-9._-]+:[0-9]{1,5}")

#: progress(done, total, index, result): called in the caller's process after each unit, in the order
#: units finish (which differs from run to run; the returned list does not).
Progress = Callable[[int, int, int, Any], None]


class ClusterError(ValueError):
    """A cluster that cannot be used: a bad ``--cluster`` value, Ray not installed, no Ray at the
    address. The message names the value and what to do."""


class UnitFailed(RuntimeError):
    """A unit that raised (a bug or bad input: it is not run again), or whose worker was lost more
    than ``retries`` times. ``index`` is the unit's place in the list."""

    def __init__(self, index: int, message: str):
        super().__init__(f"unit {index}: {message}")
        self.index = index


@dataclass(frozen=True)
class Cluster:
    """A parsed ``--cluster`` value: ``kind`` "local" or "ray"; ``address`` the Ray client address
    (``ray://HOST:PORT``), None for this machine."""

    kind: str
    address: str | None = None


def parse_cluster(spec: str | Cluster) -> Cluster:
    """``local``, ``ray`` or ``ray://HOST:PORT`` as a :class:`Cluster`; ClusterError names a bad one.

    >>> parse_cluster("local")
    Cluster(kind='local', address=None)
    >>> parse_cluster("mars")
    Traceback (most recent call last):
    ...
    engine.clusters.ClusterError: --cluster 'mars': expected local, ray or ray://HOST:PORT
    """
    if isinstance(spec, Cluster):
        return spec
    text = str(spec).strip()
    if text in ("local", "ray"):
        return Cluster(text)
    if _RAY_ADDRESS.fullmatch(text) and 0 < int(text.rsplit(":", 1)[1]) < 65536:
        return Cluster("ray", text)
    raise ClusterError(f"--cluster {str(spec)[:80]!r}: expected local, ray or ray://HOST:PORT")
