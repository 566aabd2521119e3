#!/usr/bin/env python3
"""What more budget buys the horizon search (engine/crown/horizon.py, issue 44), measured on states of
seeded expert-vs-expert games (For the Crown, random Supplies) where the planner offers at least two
candidate lines:

- per work budget (whole turns simulated: the reproducible budget, ``max_work``), the mean depth
  reached (whole turns past the candidate's), how often the choice differs from the one at the
  previous budget, and how often it equals the choice at the largest budget;
- per depth, how well the value of the chosen line predicts the game's result (the experts played
  on to the end): the Brier score and the accuracy of value > 0.5, against the learned model's
  value of the state itself (depth 0, no search).

    python tools/horizon_stats.py                       # 6 games, a state every 5th turn
    python tools/horizon_stats.py --games 10 --every 3 --width 2 --budgets 25 50 100 200 400

Small samples: the lines printed say how many states each number rests on. Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))    # this checkout's engine, not an installed one

from engine.crown.config import GameConfig
from engine.crown.core import ORDER_PHASE
from engine.crown.expert import ExpertBot
from engine.crown.horizon import HorizonSearch, candidate_lines
from engine.crown.planner import TurnPlanner
from engine.crown.state import GameState
from engine.crown.state_eval import logit


def game_states(seed: int, every: int, max_turns: int = 200) -> tuple[list, int | None]:
    """States at the start of a player's Order phase (every ``every``-th turn from turn 4) of one
    expert-vs-expert game, and its winner (None: a draw or the turn limit)."""
    g = GameState(GameConfig(seed=seed))
    bots = [ExpertBot(seed, depth=2, nodes=4_000), ExpertBot(seed + 1, depth=2, nodes=4_000)]
    states, last = [], None
    while not g.is_terminal() and g.turn < max_turns:
        player = g.current_player()
        if player >= 0 and g.phase == ORDER_PHASE and g.turn != last and g.turn >= 4 and g.turn % every == 0:
            last = g.turn
            states.append(g.clone())
        g.apply(bots[player].choose(g))
    return states, (g.winner if g.is_terminal() else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--every", type=int, default=5, help="a state every N-th turn (default 5)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[20, 40, 80, 160, 320],
                        help="work budgets, whole turns simulated (default 20 40 80 160 320)")
    parser.add_argument("--width", type=int, default=1)
    parser.add_argument("--max-depth", type=int, default=3)
    parser.add_argument("--leaf-depth", type=int, default=2)
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args(argv)
    if args.games < 1 or args.every < 1 or min(args.budgets) < 1:
        parser.error("--games, --every and every budget must be at least 1")
    budgets = sorted(args.budgets)
    rows = []            # per state: (player, winner, static value, {budget: result})
    for game in range(args.games):
        states, winner = game_states(args.seed + game, args.every)
        for g in states:
            player = g.current_player()
            answer = TurnPlanner(reply_depth=3, max_nodes=4_000, verify=False).plan(g, random.Random(0))
            lines = candidate_lines(answer)
            if len(lines) < 2:
                continue
            static = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit(g.resample_hidden(player, random.Random(0)),
                                                                             player)))))
            results = {}
            for budget in budgets:
                search = HorizonSearch(max_depth=args.max_depth, width=args.width, leaf_depth=args.leaf_depth)
                results[budget] = search.search(g, [line for _, line in lines], seed=game * 1000 + g.turn,
                                                max_work=budget)
            rows.append((player, winner, static, results))
        print(f"  game {game + 1}/{args.games}: {len(rows)} states so far", file=sys.stderr, flush=True)
    if not rows:
        print("no state with two candidate lines")
        return 1
    print(f"{len(rows)} states of {args.games} games (width {args.width}, leaf depth {args.leaf_depth})")
    print(f"{'budget':>7} {'mean depth':>10} {'changed':>8} {'= largest':>10}")
    previous = None
    for budget in budgets:
        depth = sum(r[3][budget].depth for r in rows) / len(rows)
        same = sum(r[3][budget].choice == r[3][budgets[-1]].choice for r in rows) / len(rows)
        changed = "" if previous is None else \
            f"{sum(r[3][budget].choice != r[3][previous].choice for r in rows) / len(rows):7.0%}"
        print(f"{budget:7d} {depth:10.2f} {changed:>8} {same:10.0%}")
        previous = budget
    print(f"\n{'depth':>5} {'states':>6} {'Brier':>7} {'accuracy':>9}   (the chosen line's value vs the game's result)")
    decided = [r for r in rows if r[1] is not None]
    predictions: dict[int, list[tuple[float, float]]] = {0: [(r[2], float(r[1] == r[0])) for r in decided]}
    for r in decided:
        result = r[3][budgets[-1]]
        for d, means in result.means.items():
            if result.rounds[d] >= 2:
                predictions.setdefault(d, []).append((means[result.choice], float(r[1] == r[0])))
    for d in sorted(predictions):
        pairs = predictions[d]
        brier = sum((p - y) ** 2 for p, y in pairs) / len(pairs)
        accuracy = sum((p > 0.5) == (y > 0.5) for p, y in pairs) / len(pairs)
        print(f"{d:5d} {len(pairs):6d} {brier:7.3f} {accuracy:9.0%}" + ("   (the model on the state, no search)"
                                                                      if d == 0 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
