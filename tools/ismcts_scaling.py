"""ISMCTS iterations per second on a mid-game state, with 1 and 2 processes (root parallelism).

    python tools/ismcts_scaling.py [--seconds 5] [--processes 1 2] [--repeats 1]

Each run searches with a time budget and reports iterations/s; the last line compares each process
count with one process. A Pool is created per search (fork where available), so short budgets
undercount the parallel rate by the start-up time (printed as overhead).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.crown.config import GameConfig
from engine.crown.pieces import BoardEvaluator, HeuristicPlayout
from engine.crown.state import GameState
from engine.search.ismcts import ISMCTS, RandomPlayout


def midgame_state(seed: int = 1, decisions: int = 150) -> GameState:
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    for _ in range(decisions):
        g.apply(rng.choice(g.legal_actions()))
    return g


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time budget per search (default 5)")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3, help="searches per process count (best is kept)")
    parser.add_argument("--playout", choices=("heuristic", "random"), default="heuristic")
    parser.add_argument("--cutoff", type=int, default=2, help="playout turns before the board evaluator (-1: none)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    g = midgame_state(args.seed)
    playout = HeuristicPlayout() if args.playout == "heuristic" else RandomPlayout()
    cutoff = None if args.cutoff < 0 else args.cutoff
    print(f"mid-game state: turn {g.turn}, phase {g.phase}, {len(g.legal_actions())} legal actions; "
          f"{os.cpu_count()} CPUs; {args.playout} playout, cutoff {cutoff} turns; {args.seconds} s per search",
          flush=True)
    rates: dict[int, float] = {}
    cpu_rates: dict[int, float] = {}
    for r in range(args.repeats):                 # interleaved, so a change in the machine's load hits all counts
        for n in args.processes:
            searcher = ISMCTS(iterations=None, seconds=args.seconds, playout=playout,
                              evaluator=BoardEvaluator() if cutoff is not None else None,
                              max_playout_turns=cutoff, processes=n, seed=args.seed + r)
            before = os.times()
            start = time.perf_counter()
            stats = searcher.search(g)
            wall = time.perf_counter() - start
            after = os.times()
            cpu = (after.user - before.user + after.system - before.system
                   + after.children_user - before.children_user + after.children_system - before.children_system)
            rate = stats.iterations / wall
            rates[n] = max(rates.get(n, 0.0), rate)
            cpu_rates[n] = max(cpu_rates.get(n, 0.0), stats.iterations / cpu if cpu > 0 else 0.0)
            print(f"run {r + 1}/{args.repeats} processes={n}: {stats.iterations} iterations in {wall:.2f} s "
                  f"= {rate:,.0f} it/s, {cpu:.2f} CPU-s ({stats.iterations / max(cpu, 1e-9):,.0f} it per CPU-s), "
                  f"overhead {max(0.0, wall - args.seconds):.2f} s, best {stats.best_text!r} value {stats.value:+.3f}",
                  flush=True)
    base = rates.get(1)
    if base:
        print("best wall rate: " + ", ".join(f"{n} proc {rate:,.0f} it/s = {rate / base:.2f}x" for n, rate in rates.items()))
        print("best per CPU-second: " + ", ".join(f"{n} proc {rate:,.0f}" for n, rate in cpu_rates.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
