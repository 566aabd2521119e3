"""Statistics every game's balance and match reports share: a result with its 95% interval (Wilson
for a score, Newcombe's hybrid for a difference of scores, the normal approximation for means and
differences of means) and the report files (CSV rows and JSON). Game-free: the games' balance
modules (engine/crown/balance.py, engine/crownfall/balance.py) gather their own summaries and rows."""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path

from engine.search.match import MatchResult

__all__ = ["Z95", "interval", "score_interval", "difference_interval", "mean_interval", "mean_difference_interval",
           "write_csv", "write_json", "write_report_files"]

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.96


# -- intervals --------------------------------------------------------------------------------------
def interval(estimate, low, high, n) -> dict:
    """An estimate with its interval and count, as every report row holds it."""
    return {"estimate": estimate, "low": low, "high": high, "n": n}


def score_interval(scores: Sequence[float]) -> dict:
    """Mean score (1 win, 0.5 draw, 0 loss) with its 95% Wilson interval (match.MatchResult)."""
    result = MatchResult("", "")
    for s in scores:
        result.add(float(s), 0)
    if not result.games:
        return interval(None, None, None, 0)
    low, high = result.interval(Z95)
    return interval(result.score, low, high, result.games)


def difference_interval(a: Sequence[float], b: Sequence[float]) -> dict:
    """Mean score of ``a`` minus that of ``b`` with Newcombe's hybrid score interval (95%, from the
    two Wilson intervals); ``n`` is [len(a), len(b)]."""
    if not a or not b:
        return interval(None, None, None, [len(a), len(b)])
    x, y = score_interval(a), score_interval(b)
    d = x["estimate"] - y["estimate"]
    low = d - math.sqrt((x["estimate"] - x["low"]) ** 2 + (y["high"] - y["estimate"]) ** 2)
    high = d + math.sqrt((x["high"] - x["estimate"]) ** 2 + (y["estimate"] - y["low"]) ** 2)
    return interval(d, low, high, [len(a), len(b)])


def mean_interval(values: Sequence[float]) -> dict:
    """Mean with its 95% normal interval (none from fewer than 2 values)."""
    n = len(values)
    if n == 0:
        return interval(None, None, None, 0)
    mean = sum(values) / n
    if n < 2:
        return interval(mean, None, None, n)
    half = Z95 * statistics.stdev(values) / math.sqrt(n)
    return interval(mean, mean - half, mean + half, n)


def mean_difference_interval(a: Sequence[float], b: Sequence[float]) -> dict:
    """Mean of ``a`` minus mean of ``b`` with the 95% normal (Welch) interval."""
    if len(a) < 2 or len(b) < 2:
        d = (sum(a) / len(a) - sum(b) / len(b)) if a and b else None
        return interval(d, None, None, [len(a), len(b)])
    d = statistics.fmean(a) - statistics.fmean(b)
    half = Z95 * math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return interval(d, d - half, d + half, [len(a), len(b)])



def write_csv(report: dict, path: str | Path, rows) -> None:
    """Every number of a report as CSV: a header (section, name, metric, estimate, low, high, n) and
    ``rows`` in that shape (each game's balance module makes its own)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["section", "name", "metric", "estimate", "low", "high", "n"])
        writer.writerows(rows)


def write_json(report: dict, path: str | Path) -> None:
    """The report as JSON (every number, with its interval and count)."""
    Path(path).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def write_report_files(report: dict, folder: str | Path, write_rows) -> list[Path]:
    """A balance report's files in ``folder``: ``balance.csv`` (``write_rows(report, path)``, the
    game's own rows) and ``balance.json``; their paths. Every game's report is written this way."""
    folder = Path(folder)
    write_rows(report, folder / "balance.csv")
    write_json(report, folder / "balance.json")
    return [folder / "balance.csv", folder / "balance.json"]
