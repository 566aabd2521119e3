#!/usr/bin/env python3
"""Tree iterations per second of the full-game search, before and after issue 12, in one run.

    python tools/ismcts_speed.py [--seconds 2] [--states 6]

Each configuration searches the same middle-game decisions (expert self-play, several seeds) with a
time budget and the tree forced (no planner shortcut, no trusted phase), so what is counted is the
tree's own iterations:

- plain: the search before issue 12 (UCB1, heuristic playouts, board evaluator);
- prior: the expert's choice as PUCT prior, heuristic playouts, the learned evaluation of full
  states (today's defaults for the decisions the tree takes);
- random: random playouts to the end of the game (no evaluator).

Prints iterations/s per configuration (median over the states) and the ratio to plain. Progress on
stderr; Ctrl-C stops with what was measured.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.crown.config import GameConfig  # noqa: E402
from engine.crown.expert import ExpertBot  # noqa: E402
from engine.crown.pieces import BoardEvaluator, ExpertPrior  # noqa: E402
from engine.crown.state import GameState  # noqa: E402
from engine.search.ismcts import ISMCTS, RandomPlayout  # noqa: E402

CONFIGS = {
    "plain": lambda s: ISMCTS(iterations=None, seconds=s, prior=None, planner=None, evaluator=BoardEvaluator()),
    "prior": lambda s: ISMCTS(iterations=None, seconds=s, prior=ExpertPrior(), planner=None, trusted_phases=()),
    "random": lambda s: ISMCTS(iterations=None, seconds=s, prior=None, planner=None, playout=RandomPlayout(),
                               evaluator=None),
}


def states(count: int) -> list[GameState]:
    found = []
    for seed in range(count):
        g = GameState(GameConfig(seed=500 + seed))
        bots = [ExpertBot(1), ExpertBot(2)]
        while g.turn < 10 + 3 * seed and not g.is_terminal():
            g.apply(bots[g.current_player()].choose(g))
        while not g.is_terminal() and len(g.legal_actions()) < 3:
            g.apply(bots[g.current_player()].choose(g))
        if not g.is_terminal():
            found.append(g)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="budget of each search (default 2)")
    parser.add_argument("--states", type=int, default=6, help="middle-game decisions searched (default 6)")
    args = parser.parse_args(argv)
    if not args.seconds > 0 or args.states < 1:
        parser.error("--seconds must be positive and --states at least 1")
    rates: dict[str, list[float]] = {name: [] for name in CONFIGS}
    try:
        for i, g in enumerate(states(args.states), 1):
            for name, make in CONFIGS.items():
                stats = make(args.seconds).search(g)
                rates[name].append(stats.iterations / stats.seconds)
            print(f"  state {i}/{args.states} ({g.phase} phase, turn {g.turn})", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("ismcts_speed: interrupted; showing what was measured", file=sys.stderr)
    if not rates["plain"]:
        return 1
    base = statistics.median(rates["plain"])
    print(f"{'config':8} {'it/s (median)':>14} {'vs plain':>9}")
    for name, values in rates.items():
        if values:
            median = statistics.median(values)
            print(f"{name:8} {median:14.0f} {median / base:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
