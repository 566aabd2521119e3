#!/usr/bin/env python3
"""Strength that grows with time (issue 28): the same full-game AI at several time budgets per
decision, each against the same opponent (default the expert), side by side in one run, with the
95% (Wilson) interval of each score, and a plot of score against time.

    python tools/strength_vs_time.py --budgets 0.2 0.5 2 --games 40 --plot docs/results/ai-strength-vs-time.png
    python tools/strength_vs_time.py --budgets 0.5 --games 40 --opponent ismcts:2s      # 0.5 s against 2 s

Games come in seeded pairs with colours swapped (engine/search/match.py), so every budget meets the
same set-ups; ``--seed`` makes the run repeatable up to the clock (a time budget is not
deterministic). ``--workers`` plays games in parallel (engine.execution; default 1: a time budget
measured on a busy machine is a smaller budget). ``--json FILE`` keeps every game's outcome, so a
plot can be redrawn with ``--replot FILE``. Progress goes to stderr; Ctrl-C stops with what was
played.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))    # this checkout's engine

from engine.search.match import MatchResult, run_match


def _result_from_json(doc: dict) -> MatchResult:
    result = MatchResult(doc["a"], doc["b"])
    for outcome, turns in zip(doc["outcomes"], doc["turns"]):
        result.add(outcome, turns)
    return result


def plot(results: dict[float, MatchResult], opponent: str, path: str) -> None:
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("strength_vs_time: --plot needs matplotlib: pip install -e '.[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = sorted(results)
    scores = [100 * results[b].score for b in budgets]
    lows = [100 * results[b].interval()[0] for b in budgets]
    highs = [100 * results[b].interval()[1] for b in budgets]
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.errorbar(budgets, scores, yerr=[[s - lo for s, lo in zip(scores, lows)], [hi - s for s, hi in zip(scores, highs)]],
                marker="o", capsize=4, label="score with its 95% interval")
    for b, s in zip(budgets, scores):
        ax.annotate(f"{s:.0f}% ({results[b].games} games)", (b, s), textcoords="offset points", xytext=(6, 6),
                    fontsize=8)
    ax.set_xscale("log")
    ax.set_xticks(budgets, [f"{b:g} s" for b in budgets])
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 100)
    ax.set_xlabel("seconds per decision (ismcts:Ns)")
    ax.set_ylabel(f"score against {opponent} (%)")
    ax.set_title("The full-game AI: strength against time")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.2, 0.5, 2.0], help="seconds per decision")
    parser.add_argument("--games", type=int, default=40, help="games per budget (even: pairs; default 40)")
    parser.add_argument("--opponent", default="expert", help="the opponent's bot spec (default expert)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--plot", help="write the score-vs-time plot to this PNG")
    parser.add_argument("--json", help="write every game's outcome to this file")
    parser.add_argument("--replot", help="draw the plot from a --json file instead of playing")
    args = parser.parse_args(argv)
    if args.replot:
        try:
            doc = json.loads(Path(args.replot).read_text(encoding="utf-8"))
            results = {float(b): _result_from_json(r) for b, r in doc["budgets"].items()}
            opponent = doc["opponent"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"--replot {args.replot}: not a file this tool wrote ({exc})")
        if args.plot:
            plot(results, opponent, args.plot)
        return 0
    if args.games < 2 or args.games % 2 or args.workers < 1 or any(not b > 0 for b in args.budgets):
        parser.error("--games must be even and at least 2, --workers at least 1, budgets positive")
    results: dict[float, MatchResult] = {}
    try:
        for budget in args.budgets:
            spec = f"ismcts:{budget:g}s"

            def progress(live: MatchResult, spec=spec) -> None:
                print(f"  {spec} vs {args.opponent}: {live.summary()}", file=sys.stderr, flush=True)

            results[budget] = run_match(spec, args.opponent, args.games, seed=args.seed, progress=progress,
                                        workers=args.workers)
    except KeyboardInterrupt:
        print("strength_vs_time: interrupted; showing the budgets that finished", file=sys.stderr)
    print(f"{'budget':>8} {'games':>6} {'score':>7} {'95% interval':>16}")
    for budget, result in sorted(results.items()):
        lo, hi = result.interval()
        print(f"{budget:7g}s {result.games:6d} {100 * result.score:6.1f}% {100 * lo:7.1f}%-{100 * hi:5.1f}%")
    if args.json and results:
        Path(args.json).write_text(json.dumps({"opponent": args.opponent, "seed": args.seed, "budgets": {
            str(b): {"a": r.a, "b": r.b, "outcomes": r.outcomes, "turns": r.turns} for b, r in results.items()}},
            indent=1), encoding="utf-8")
    if args.plot and results:
        plot(results, args.opponent, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
