#!/usr/bin/env python3
"""Full-game speed of this checkout against an earlier commit, measured in one run.

    python tools/compare_versions.py --base 4e4841e            # the commit before issue 11
    python tools/compare_versions.py --base HEAD~3 --rounds 5 --plot versions.png

The base commit is checked out into a temporary folder and its kernels are built there
(``python setup.py build_ext --inplace``, about a minute; tools/checkouts.py). Then the same
workloads run in fresh processes, alternating base and this checkout round by round so that both see
the same machine load; each workload is timed in every round and the median is reported, with the ratio
base time / our time (above 1: we are faster). The workloads use only the API both versions have:

- random full game: seeded random games from the start to the end (ms per game);
- clone: a mid-game state (150 random decisions in) cloned (µs per clone);
- decisions: a random game's decisions (the state building each decision, ``legal_actions``,
  ``apply``), without texts and with every option named (``legal_action_texts``) as a board
  showing them would (µs per decision);
- ISMCTS: iterations per second of the default searcher (heuristic playouts cut after two turns,
  board evaluation) and of random playouts to the end of the game, on the mid-game state; and of
  King's Ransom's searcher (its card-aware playouts and evaluator) ten decisions into a game;
- the newer games: seeded random Crusade & Conquer and three-player Crownfall games through the
  registry (ms per game);
- alpha-beta: nodes per second of the board search from the standard position (a node budget).

``--only TEXT`` (repeatable) runs only the workloads whose name contains one of the texts.

Progress goes to stderr; Ctrl-C stops the run (the checkout is removed either way).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.checkouts import CheckoutError, build_kernels, export_commit, resolve_commit  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: Run by ``python -`` with the checkout as the working directory (its engine comes first on
#: sys.path). Prints one JSON object: workload -> seconds per unit.
WORKLOAD = r'''
import json, random, sys, time
try:                                   # For the Crown's package: engine/crown/ since issue 41
    from engine.crown.config import GameConfig
    from engine.crown.state import GameState
except ImportError:
    from engine.game.config import GameConfig
    from engine.game.state import GameState
try:                                   # the board search: engine/board/ since issue 41
    from engine.board.alphabeta import AlphaBeta
except ImportError:
    from engine.search.alphabeta import AlphaBeta
from engine import NAMED_POSITIONS, Position
from engine.games import registry
from engine.search.ismcts import ISMCTS, RandomPlayout
from engine.ransom.state import RansomState
try:                                   # King's Ransom's players: engine/ransom/ since issue 24
    from engine.ransom.players import ransom_ismcts
except ImportError:
    from engine.search.ransom import ransom_ismcts
scale = float(sys.argv[1])
only = sys.argv[2:]

def want(name):
    return not only or any(text in name for text in only)

def crown_searcher(**options):
    """An ISMCTS with For the Crown's pieces made before the timing starts: since issue 24 they are
    bound at the first search unless the game is named (before, at construction)."""
    try:
        return ISMCTS(game="crown", **options)
    except TypeError:
        return ISMCTS(**options)

def timed(fn, repeat):
    start = time.perf_counter()
    for i in range(repeat):
        fn(i)
    return (time.perf_counter() - start) / repeat

def random_game(seed):
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))

def midgame(seed=1, decisions=150):
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    for _ in range(decisions):
        g.apply(rng.choice(g.legal_actions()))
    return g

def played(seed, texts):
    """A seeded random game; with ``texts`` every decision's options are also named, as a board
    showing them would. Returns the number of decisions."""
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    n = 0
    while not g.is_terminal():
        if texts:
            g.legal_action_texts()
        g.apply(rng.choice(g.legal_actions()))
        n += 1
    return n

result = {}
if want("random full game"):
    result["random full game"] = timed(random_game, max(5, int(40 * scale)))
g = midgame()
if want("clone"):
    result["clone"] = timed(lambda i: g.clone(), max(100, int(3000 * scale)))
games = range(100, 100 + max(5, int(30 * scale)))
if want("decisions, no texts") or want("decisions with texts"):
    decisions = sum(played(seed, False) for seed in games)
if want("decisions, no texts"):
    result["decisions, no texts"] = timed(lambda i: [played(seed, False) for seed in games], 1) / decisions
if want("decisions with texts"):
    result["decisions with texts"] = timed(lambda i: [played(seed, True) for seed in games], 1) / decisions
n = max(30, int(300 * scale))
if want("ISMCTS default (s/iteration)"):
    searcher = crown_searcher(iterations=n, seed=1)
    result["ISMCTS default (s/iteration)"] = timed(lambda i: searcher.search(g), 1) / n
if want("ISMCTS random playouts (s/iteration)"):
    searcher = crown_searcher(iterations=n // 3, seed=1, playout=RandomPlayout(), evaluator=None)
    result["ISMCTS random playouts (s/iteration)"] = timed(lambda i: searcher.search(g), 1) / (n // 3)
if want("King's Ransom ISMCTS (s/iteration)"):
    rg = RansomState(5)
    rng = random.Random(5)
    for _ in range(10):
        rg.apply(rng.choice(rg.legal_actions()))
    searcher = ransom_ismcts(iterations=3 * n, seed=1)
    result["King's Ransom ISMCTS (s/iteration)"] = timed(lambda i: searcher.search(rg), 1) / (3 * n)

def registry_game(name, seed, **config):
    game = registry.get(name)
    state = game.new_state(game.config({"seed": seed, **config}))
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))

for name, config in (("crusade", {}), ("crownfall", {"players": 3})):
    label = f"{name} random full game"
    if want(label):
        result[label] = timed(lambda i: registry_game(name, 200 + i, **config), max(3, int(20 * scale)))
if want("alpha-beta (s/node)"):
    nodes = max(20000, int(400000 * scale))
    searcher = AlphaBeta()
    start = Position.from_text(NAMED_POSITIONS["startpos"])
    began = time.perf_counter()
    found = searcher.search(start, nodes=nodes)
    result["alpha-beta (s/node)"] = (time.perf_counter() - began) / max(1, found.nodes)
print(json.dumps(result))
'''

UNITS = {  # workload -> (unit label, factor from seconds)
    "random full game": ("ms/game", 1e3),
    "clone": ("µs/clone", 1e6),
    "decisions, no texts": ("µs/decision", 1e6),
    "decisions with texts": ("µs/decision", 1e6),
    "ISMCTS default (s/iteration)": ("iterations/s", None),
    "ISMCTS random playouts (s/iteration)": ("iterations/s", None),
    "King's Ransom ISMCTS (s/iteration)": ("iterations/s", None),
    "crusade random full game": ("ms/game", 1e3),
    "crownfall random full game": ("ms/game", 1e3),
    "alpha-beta (s/node)": ("nodes/s", None),
}


def fail(message: str) -> None:
    print(f"compare_versions: {message}", file=sys.stderr)
    sys.exit(2)


def measure(checkout: Path, scale: float, only: list[str]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-", str(scale), *only], input=WORKLOAD, cwd=checkout, capture_output=True,
                          text=True)
    if done.returncode != 0:
        fail(f"the workloads failed in {checkout}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def shown(name: str, seconds: float) -> float:
    unit, factor = UNITS[name]
    return 1.0 / seconds if factor is None else seconds * factor


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit to compare with (any git revision)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--scale", type=float, default=1.0, help="work per round (default 1.0; 0.2 for a quick look)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only the workloads whose name contains TEXT (repeatable)")
    parser.add_argument("--plot", help="write a bar chart of the ratios to this PNG file (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        fail(f"--rounds must be at least 1, got {args.rounds}")
    if not args.scale > 0:
        fail(f"--scale must be positive, got {args.scale}")
    unmatched = [text for text in args.only if not any(text in name for name in UNITS)]
    if unmatched:
        fail(f"--only {unmatched[0]!r} names no workload; the workloads: {', '.join(UNITS)}")
    try:
        base_commit = resolve_commit(args.base, ROOT)
    except CheckoutError as exc:
        fail(str(exc))
    workdir = Path(tempfile.mkdtemp(prefix="ftc-base-"))
    base = workdir / "base"
    results: dict[str, dict[str, list[float]]] = {"base": {}, "ours": {}}
    try:
        print(f"checking out {base_commit[:12]} and building its kernels ...", file=sys.stderr, flush=True)
        export_commit(base_commit, base, ROOT)
        build_kernels(base)
        for round_ in range(1, args.rounds + 1):
            for label, checkout in (("base", base), ("ours", ROOT)):
                print(f"round {round_}/{args.rounds}: {label} ...", file=sys.stderr, flush=True)
                for name, seconds in measure(checkout, args.scale, args.only).items():
                    results[label].setdefault(name, []).append(seconds)
    except CheckoutError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        print("compare_versions: interrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"base {base_commit[:12]} against this checkout, median of {args.rounds} alternating rounds")
    print(f"{'workload':40} {'base':>12} {'ours':>12}  {'unit':14} {'speed-up':>8}")
    ratios = {}
    for name in [n for n in UNITS if n in results["ours"]]:
        b, o = statistics.median(results["base"][name]), statistics.median(results["ours"][name])
        ratios[name] = b / o
        print(f"{name:40} {shown(name, b):12.1f} {shown(name, o):12.1f}  {UNITS[name][0]:14} {b / o:7.2f}x")
    if args.plot:
        try:
            import matplotlib
        except ImportError:
            fail("--plot needs matplotlib: pip install -e '.[plot]'")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 3.5))
        names = list(ratios)
        ax.barh(names, [ratios[n] for n in names], color="#4a7")
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.axvline(2.0, color="#c44", linestyle="--", linewidth=0.8, label="2x target")
        ax.set_xlabel(f"speed-up over {base_commit[:10]} (base time / our time)")
        ax.invert_yaxis()
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
