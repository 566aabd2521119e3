#!/usr/bin/env python3
"""Tune the board evaluation's weights from self-play (Texel's method).

1. Self-play: the alpha-beta search plays itself from the start position (orthodox armies; or
   Point-Buy armies picked at random with --armies random) after seeded random opening orders,
   each order searched to a fixed node budget. Games end as RULINGS C3/C8 say (a Sovereign
   captured, no order, threefold repetition, the turn limit).
2. Labels: every position of a game after the opening gets the game's result from its side to
   move's view (1, 1/2, 0); positions right before or after a capture are dropped (not quiet).
3. Fit: the evaluation is linear in its weights (``eval_features``: material plus weight x
   feature). First the scale K of the logistic curve P(win) = 1 / (1 + 10^(-K * eval / 400)) is
   fitted with today's weights, then the weights minimise the mean squared error between result and
   P(win), by gradient descent with a small pull towards today's weights (L2).
4. Output: an eval.toml with the fitted weights (rounded) and how they were made in its header.

    python tools/tune_eval.py --games 800 --nodes 1500 --out engine/data/eval.toml
    python tools/tune_eval.py --data positions.npz --out /tmp/eval.toml     # refit saved data

Shows progress on stderr; Ctrl-C stops the self-play and fits what was played.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import NAMED_POSITIONS, Position, _search  # noqa: E402
from engine.board.alphabeta import AlphaBeta  # noqa: E402
from engine.board.evaluate import EvalWeights, load_weights  # noqa: E402
from engine.execution import ClusterError, UnitFailed, run_units  # noqa: E402

FEATURES = _search.FEATURE_NAMES


def weights_vector(w: EvalWeights) -> np.ndarray:
    return np.array(w.feature_values(FEATURES), dtype=float)


def weights_from_vector(base: EvalWeights, vector: np.ndarray) -> EvalWeights:
    return base.with_feature_values(FEATURES, np.rint(vector).astype(int).tolist())


def play_game(seed: int, nodes: int, opening: int, start_text: str, max_plies: int) -> list[tuple[float, list[float], float]]:
    """One self-play game; [(material, features, result for the side to move)] of quiet positions.
    A unit of engine.execution.run_units: the same game wherever it runs."""
    rng = random.Random(seed)
    searcher = AlphaBeta(tt_megabytes=4)
    pos = Position.from_text(start_text)
    seen: dict[str, int] = {}
    samples = []
    captures = []
    result_for_blue = 0.5
    for ply in range(max_plies):
        if pos.is_over():
            loser = pos.to_text().split()[1]          # the side to move has lost its last Sovereign
            result_for_blue = 0.0 if loser == "w" else 1.0
            break
        orders = pos.legal_orders()
        if not orders:
            break                                    # no order: a draw (C3)
        key = " ".join(pos.to_text().split()[:2])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3:
            break
        if ply < opening:
            order = rng.choice(orders)
        else:
            order = searcher.search(pos, nodes=nodes).best
            material, feats = searcher._kernel.eval_features(pos._core)
            samples.append((ply, pos.to_text().split()[1], material, feats))
        captures.append(order.kind in ("attack", "shoot"))
        pos.push(order)
    out = []
    for ply, side, material, feats in samples:
        if captures[ply] or (ply > 0 and captures[ply - 1]):
            continue                                 # not quiet
        result = result_for_blue if side == "w" else 1.0 - result_for_blue
        out.append((material, feats, result))
    return out


def self_play(games: int, nodes: int, opening: int, seed: int, cluster: str, workers: int | None, max_plies: int):
    """The labelled positions of ``games`` self-play games run on ``cluster`` (engine.execution), in
    game order: the same data on any cluster and worker count. Ctrl-C keeps the games finished."""
    start = NAMED_POSITIONS["startpos"]
    jobs = [(seed * 100_003 + g, nodes, opening, start, max_plies) for g in range(games)]
    finished: dict[int, list] = {}
    began = time.perf_counter()
    positions = 0

    def progress(done: int, total: int, index: int, game: list) -> None:
        nonlocal positions
        finished[index] = game
        positions += len(game)
        rate = done / (time.perf_counter() - began)
        print(f"\rself-play: {done}/{games} games, {positions} positions, {rate:.2f} games/s ",
              end="", file=sys.stderr, flush=True)

    try:
        run_units(play_game, jobs, cluster, workers, progress)
    except KeyboardInterrupt:
        print("\nstopped: fitting the games played so far", file=sys.stderr)
    print(file=sys.stderr)
    rows = [row for index in sorted(finished) for row in finished[index]]
    material = np.array([r[0] for r in rows], dtype=float)
    features = np.array([r[1] for r in rows], dtype=float)
    results = np.array([r[2] for r in rows], dtype=float)
    return material, features, results, len(finished)


def _predict(k: float, evals: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.power(10.0, -k * evals / 400.0))


def fit_k(evals: np.ndarray, results: np.ndarray) -> float:
    best_k, best_loss = 1.0, math.inf
    for k in np.linspace(0.1, 3.0, 59):
        loss = float(np.mean((results - _predict(k, evals)) ** 2))
        if loss < best_loss:
            best_k, best_loss = float(k), loss
    return best_k


def fit_weights(material, features, results, w0: np.ndarray, k: float, steps: int = 3000, l2: float = 1e-6,
                rate: float = 1.0):
    """Gradient descent (Adam) on the mean squared error of P(win)."""
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    scale = np.maximum(np.abs(features).mean(axis=0), 1e-3)
    c = k * math.log(10) / 400.0
    for step in range(1, steps + 1):
        evals = material + features @ w
        p = _predict(k, evals)
        grad = -2.0 * ((results - p) * p * (1 - p) * c) @ features / len(results) + 2 * l2 * (w - w0)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-9) / scale * scale.mean()
        if step % 500 == 0:
            loss = float(np.mean((results - _predict(k, material + features @ w)) ** 2))
            print(f"fit: step {step}, loss {loss:.6f}", file=sys.stderr, flush=True)
    return w


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--nodes", type=int, default=1500, help="search nodes per order in self-play")
    parser.add_argument("--opening", type=int, default=8, help="random opening orders (plies)")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cluster", default="local",
                        help="where the games run: local, ray or ray://HOST:PORT (engine/execution.py)")
    parser.add_argument("--workers", "--processes", type=int, dest="workers",
                        help="workers (default: every core, or every CPU of the Ray cluster; 1: in this process)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--data", help="fit positions saved earlier (.npz) instead of playing")
    parser.add_argument("--save-data", help="save the labelled positions (.npz)")
    parser.add_argument("--out", required=True, help="where to write the tuned eval.toml")
    args = parser.parse_args(argv)
    for name in ("games", "nodes", "steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.workers is not None and args.workers < 1:
        parser.error("--workers must be at least 1")
    base = load_weights()
    if args.data:
        data = np.load(args.data)
        material, features, results, games = data["material"], data["features"], data["results"], int(data["games"])
    else:
        try:
            material, features, results, games = self_play(args.games, args.nodes, args.opening, args.seed,
                                                            args.cluster, args.workers, args.max_plies)
        except (ClusterError, UnitFailed) as exc:
            parser.error(str(exc))
        if args.save_data:
            np.savez_compressed(args.save_data, material=material, features=features, results=results, games=games)
    if len(results) < 100:
        print("tune_eval: error: fewer than 100 positions to fit", file=sys.stderr)
        return 2
    w0 = weights_vector(base)
    k = fit_k(material + features @ w0, results)
    before = float(np.mean((results - _predict(k, material + features @ w0)) ** 2))
    w = fit_weights(material, features, results, w0, k, args.steps)
    after = float(np.mean((results - _predict(k, material + features @ w)) ** 2))
    tuned = weights_from_vector(base, w)
    header = (
        "# Board evaluation weights (engine/board/evaluate.py; the evaluation runs in ext/_search.pyx).\n"
        "# Scores are in centi-points: a unit on the board is worth 100 x its Point-Buy price\n"
        "# (engine/data/units.toml). Tapered pairs are [middlegame, endgame]; per-rank pairs list relative\n"
        "# ranks 1..8. Piece-square tables come from each unit's empty-board reach times pst_mobility.\n"
        "# Field meanings, types and defaults: engine/board/evaluate.py (EvalWeights).\n"
        f"# Tuned by tools/tune_eval.py on {_dt.date.today().isoformat()} (Texel's method): {games} self-play games\n"
        f"# from the start position ({args.opening} random opening plies, {args.nodes} nodes per order, seed {args.seed}),\n"
        f"# {len(results)} quiet positions; logistic scale K = {k:.2f}; mean squared error {before:.5f} -> {after:.5f}.\n"
    )
    Path(args.out).write_text(header + "[weights]\n" + tuned.to_toml(), encoding="utf-8")
    print(f"positions {len(results)}, K {k:.2f}, loss {before:.5f} -> {after:.5f}; written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
