#!/usr/bin/env python3
"""How long the server's AI takes for a whole turn at each level (engine/interfaces/server/app.py
AI_LEVELS), measured the way the server plays it: the AI bot decides every decision of its turn
(``choose_within`` under the server's turn budget), against an opponent bot (default the expert,
whose games run long enough to time middle and late turns), in seeded games with random Supplies.

    python tools/ai_turn_times.py                     # every level, 4 games each, 30 AI turns a game
    python tools/ai_turn_times.py --levels strong --games 8 --plot turns.png
    python tools/ai_turn_times.py --levels normal --bot ismcts-narrow   # an option at the level's budget

Prints per level the number of AI turns timed and the 50th/95th percentile and the longest turn in
seconds. The web board stays playable while p95 is well under 5 s. Then, per level and per source
of the decision (the planner's win or line, the prior, the tree: SearchStats.source) and the phase
it was taken in, how many decisions, the median share of the decision's time budget they used and
the largest overshoot of it: whether the AI spends the time it is given (issue 28), and who decides
(issue 44: "prior" in the Order or Action phase is the expert's choice taken because the planner
had no answer in time; in the Buy phase it is the AI's rule). Progress goes to stderr; Ctrl-C stops
with what was measured.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))    # this checkout's engine, not an installed one

from engine.crown.config import GameConfig
from engine.crown.players import BOT_NAMES, make_bot
from engine.crown.state import GameState
from engine.interfaces.server.app import AI_LEVELS


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def spec_seconds(spec: str) -> float | None:
    """The per-decision time budget a bot spec names ("ismcts:0.5s" -> 0.5), or None."""
    tail = spec.rpartition(":")[2]
    return float(tail[:-1]) if tail.endswith("s") and tail[:-1].replace(".", "", 1).isdigit() else None


def turn_times(spec: str, games: int, turns: int, budget: float, opponent: str = "expert",
               decisions: list | None = None) -> list[float]:
    """Whole AI turns' seconds; ``decisions`` (if given) collects ("source/phase", seconds) of each
    decision."""
    times = []
    for seed in range(games):
        g = GameState(GameConfig(seed=1000 + seed))
        ai, human = make_bot(spec, seed=seed), make_bot(opponent, seed)
        ai_player = seed % 2                     # alternate sides
        timed = 0
        while not g.is_terminal() and timed < turns:
            if g.current_player() != ai_player:
                g.apply(human.choose(g))
                continue
            start, turn = time.perf_counter(), g.turn
            while not g.is_terminal() and g.current_player() == ai_player and g.turn == turn:
                left = max(0.01, budget - (time.perf_counter() - start))
                if decisions is not None and hasattr(ai, "search_within"):
                    began, phase = time.perf_counter(), g.phase
                    stats = ai.search_within(g, left)
                    decisions.append((f"{stats.source}/{phase}", time.perf_counter() - began))
                    g.apply(stats.best)
                else:
                    g.apply(ai.choose_within(g, left))
            times.append(time.perf_counter() - start)
            timed += 1
        print(f"  {spec}: game {seed + 1}/{games}, {len(times)} turns", file=sys.stderr, flush=True)
    return times


def level_spec(level: str, bot: str = "ismcts") -> str:
    """The bot spec of a server level, with ``bot`` (a variant of the full-game AI, e.g.
    "ismcts-narrow") in place of the AI at the level's budget; a level that is not the AI keeps its bot.

    >>> level_spec("normal"), level_spec("normal", "ismcts-narrow"), level_spec("easy", "ismcts-narrow")
    ('ismcts:0.5s', 'ismcts-narrow:0.5s', 'greedy')
    """
    name, colon, budget = AI_LEVELS[level].partition(":")
    return f"{bot}{colon}{budget}" if name == "ismcts" else AI_LEVELS[level]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", nargs="+", default=list(AI_LEVELS), choices=list(AI_LEVELS))
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--turns", type=int, default=30, help="AI turns timed per game (default 30)")
    parser.add_argument("--budget", type=float, default=120.0, help="the server's turn budget, seconds (--ai-timeout)")
    parser.add_argument("--opponent", default="expert", help="the bot the AI plays against (default expert)")
    parser.add_argument("--plot", help="write the distribution of turn times to this PNG (needs matplotlib)")
    parser.add_argument("--bot", default="ismcts", help="the full-game AI's variant at the levels' budgets "
                        "(default ismcts; e.g. ismcts-narrow, ismcts-horizon)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.turns < 1 or not args.budget > 0:
        parser.error("--games and --turns must be at least 1 and --budget positive")
    if not (args.bot in BOT_NAMES and args.bot.startswith("ismcts")):
        parser.error(f"--bot {args.bot!r}: not a variant of the full-game AI; known: "
                     + ", ".join(name for name in BOT_NAMES if name.startswith("ismcts")))
    specs = {level: level_spec(level, args.bot) for level in args.levels}
    results, per_decision = {}, {}
    try:
        for level in args.levels:
            per_decision[level] = []
            results[level] = turn_times(specs[level], args.games, args.turns, args.budget, args.opponent,
                                        per_decision[level])
    except KeyboardInterrupt:
        print("ai_turn_times: interrupted; showing what was measured", file=sys.stderr)
    print(f"{'level':8} {'spec':18} {'turns':>6} {'p50 s':>7} {'p95 s':>7} {'max s':>7}")
    for level, times in results.items():
        if times:
            print(f"{level:8} {specs[level]:18} {len(times):6d} {statistics.median(times):7.2f} "
                  f"{percentile(times, 0.95):7.2f} {max(times):7.2f}")
    print(f"\n{'level':8} {'source/phase':16} {'decisions':>9} {'median used':>12} {'max over s':>11}")
    for level, rows in per_decision.items():
        allowed = spec_seconds(specs[level])
        if not rows or allowed is None:
            continue
        for source in sorted({src for src, _ in rows}):
            took = [t for src, t in rows if src == source]
            print(f"{level:8} {source:16} {len(took):9d} {statistics.median(took) / allowed:11.0%} "
                  f"{max(0.0, max(took) - allowed):11.3f}")
    if args.plot and results:
        try:
            import matplotlib
        except ImportError:
            parser.error("--plot needs matplotlib: pip install -e '.[plot]'")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 3.5))
        try:
            ax.boxplot([results[level] for level in results], orientation="horizontal")
        except TypeError:                          # matplotlib before 3.10
            ax.boxplot([results[level] for level in results], vert=False)
        ax.set_yticks(range(1, len(results) + 1), list(results))
        ax.axvline(5.0, color="#c44", linestyle="--", linewidth=0.8, label="5 s")
        ax.set_xlabel("seconds for a whole AI turn")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
