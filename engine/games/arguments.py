"""The argparse types of `ftc`'s options, for the command line (engine/interfaces/cli.py) and the
commands a game adds to it through its registry entry (``CliPieces.commands``), so that both check
and word a bad value alike ("expected an integer 1..256, got 0")."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["integer", "positive"]


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in low..high (no upper bound when ``high`` is None)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected an integer {span}, got {value}")
        return value
    return parse


def positive(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value
