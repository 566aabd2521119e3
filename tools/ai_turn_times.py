#!/usr/bin/env python3
"""How long the server's AI takes for a whole turn at each level (engine/interfaces/server/app.py
AI_LEVELS), measured the way the server plays it: the AI bot decides every decision of its turn
(``choose_within`` under the server's turn budget), against an opponent bot (default the expert,
whose games run long enough to time middle and late turns), in seeded games with random Supplies.

    python tools/ai_turn_times.py                     # every level, 4 games each, 30 AI turns a game
    python tools/ai_turn_times.py --levels strong --games 8 --plot turns.png

Prints per level the number of AI turns timed and the 50th/95th percentile and the longest turn in
seconds. The web board stays playable while p95 is well under 5 s. Progress goes to stderr; Ctrl-C
stops with what was measured.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))    # this checkout's engine, not an installed one

from engine.game.config import GameConfig
from engine.game.state import GameState
from engine.interfaces.server.app import AI_LEVELS
from engine.search.bots import make_bot


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def turn_times(spec: str, games: int, turns: int, budget: float, opponent: str = "expert") -> list[float]:
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
                left = budget - (time.perf_counter() - start)
                g.apply(ai.choose_within(g, max(0.01, left)))
            times.append(time.perf_counter() - start)
            timed += 1
        print(f"  {spec}: game {seed + 1}/{games}, {len(times)} turns", file=sys.stderr, flush=True)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", nargs="+", default=list(AI_LEVELS), choices=list(AI_LEVELS))
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--turns", type=int, default=30, help="AI turns timed per game (default 30)")
    parser.add_argument("--budget", type=float, default=120.0, help="the server's turn budget, seconds (--ai-timeout)")
    parser.add_argument("--opponent", default="expert", help="the bot the AI plays against (default expert)")
    parser.add_argument("--plot", help="write the distribution of turn times to this PNG (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.turns < 1 or not args.budget > 0:
        parser.error("--games and --turns must be at least 1 and --budget positive")
    results = {}
    try:
        for level in args.levels:
            results[level] = turn_times(AI_LEVELS[level], args.games, args.turns, args.budget, args.opponent)
    except KeyboardInterrupt:
        print("ai_turn_times: interrupted; showing what was measured", file=sys.stderr)
    print(f"{'level':8} {'spec':12} {'turns':>6} {'p50 s':>7} {'p95 s':>7} {'max s':>7}")
    for level, times in results.items():
        if times:
            print(f"{level:8} {AI_LEVELS[level]:12} {len(times):6d} {statistics.median(times):7.2f} "
                  f"{percentile(times, 0.95):7.2f} {max(times):7.2f}")
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
