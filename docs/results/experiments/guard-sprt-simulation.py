"""How the nnue-loop guard's SPRT decides (docs/nnue-loop.md, "The guard"): simulated guards of
engine/search/sprt.py's SPRT at several true Elo differences, as a markdown table.

Each guard plays game pairs until its SPRT crosses a bound or the cap (guard_max_games) is reached,
which the loop counts as a rejection. A pair is one opening played with the colours swapped: the
opening moves the candidate's expected score by +b in one game and -b in the other (b uniform in
[-0.15, 0.15]), a game of expected score x is won with probability x - 0.15 and drawn with
probability 0.3 (the pair model of tests/search/test_sprt.py). Seeded: the same table every run.

    python docs/results/experiments/guard-sprt-simulation.py [ELO0 ELO1 MAX_GAMES RUNS]
"""
import random
import statistics
import sys

from engine.search.sprt import SPRT, elo_to_score

DRAW, SPREAD = 0.3, 0.15


def game(rng: random.Random, expected: float) -> float:
    u = rng.random()
    return 1.0 if u < expected - DRAW / 2 else 0.5 if u < expected + DRAW / 2 else 0.0


def guard(rng: random.Random, elo: float, bounds: tuple[float, float], max_games: int) -> tuple[str, int]:
    test = SPRT(bounds[0], bounds[1], 0.05, 0.05, max_games)
    s = elo_to_score(elo)
    games = 0
    while games < max_games:
        b = rng.uniform(-SPREAD, SPREAD)
        test.add_pair(game(rng, s + b), game(rng, s - b))
        games += 2
        if test.status() in ("H1 accepted", "H0 accepted"):
            return test.status(), games
    return "undecided", games


def main() -> None:
    args = [float(x) for x in sys.argv[1:]] or [-60.0, 0.0, 400, 1000]
    bounds, max_games, runs = (args[0], args[1]), int(args[2]), int(args[3])
    rng = random.Random(43)
    print("| true Elo | passes (H1) | fails (H0) | undecided (rejected) | games, mean | games, median |")
    print("|---:|---:|---:|---:|---:|---:|")
    for elo in (10, 0, -15, -30, -60, -90):
        ends = [guard(rng, elo, bounds, max_games) for _ in range(runs)]
        share = {k: sum(e == k for e, _ in ends) / runs for k in ("H1 accepted", "H0 accepted", "undecided")}
        games = [g for _, g in ends]
        print(f"| {elo:+d} | {share['H1 accepted']:.0%} | {share['H0 accepted']:.0%} | {share['undecided']:.0%} "
              f"| {statistics.mean(games):.0f} | {statistics.median(games):.0f} |")


if __name__ == "__main__":
    main()
