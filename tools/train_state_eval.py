#!/usr/bin/env python3
"""Fit the learned evaluation of full game states (engine/crown/state_eval.py) from self-play.

1. Self-play: seeded full games of For the Crown (random Supplies, the expansion on) between the
   expert bot and itself (``--mix`` of the games: the expert against the greedy bot instead, so
   that weaker play and lopsided decks are seen too). Every decision is random with probability
   ``--epsilon`` (varied play; the game's own rules keep every line legal).
2. Samples: the state at the first decision of each turn (after set-up), at most
   ``--per-game`` per game drawn evenly, labelled with the game's result for Blue (1, 1/2, 0). The
   features are antisymmetric, so one perspective per state suffices.
3. Fit: logistic regression without intercept (Newton's method with a small L2 pull to 0), on
   the games not held out; ``--holdout`` of the games (whole games) measure log-loss and accuracy,
   beside the board-only model (the ``board`` feature alone) as the yardstick.
4. Output: a state_eval.toml with the weights and, in its header and [trained] table, how they were
   made.

    python tools/train_state_eval.py --games 1200 --out engine/data/state_eval.toml
    python tools/train_state_eval.py --data samples.npz --out /tmp/state_eval.toml   # refit saved data

Progress on stderr; Ctrl-C stops the self-play and fits what was played.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.crown.config import GameConfig  # noqa: E402
from engine.crown.players import make_bot  # noqa: E402
from engine.crown.record import FORMAT as RECORD_FORMAT  # noqa: E402
from engine.crown.record import VERSION as RECORD_VERSION  # noqa: E402
from engine.crown.state import GameState, replay  # noqa: E402
from engine.crown.state_eval import FEATURES, StateModel, features  # noqa: E402
from engine.execution import ClusterError, UnitFailed, run_units  # noqa: E402


def play_record(seed: int, opponent: str, epsilon: float, per_game: int, max_turns: int) -> dict:
    """One self-play game, as a compact record: ``seed``, ``config`` and ``steps`` (what
    engine.crown.state.replay needs), ``points`` (the positions kept: the number of decisions taken
    before each, at most ``per_game`` turn starts drawn evenly), Blue's ``result`` (1, 1/2, 0) and
    ``turns``. A unit of engine.execution.run_units: the same game wherever it runs."""
    rng = random.Random(seed)
    state = GameState(GameConfig(seed=seed, max_turns=max_turns))
    names = ["expert", opponent]
    if rng.random() < 0.5:
        names.reverse()
    bots = [make_bot(names[0], seed * 2 + 1), make_bot(names[1], seed * 2 + 2)]
    points, last_turn = [], -1
    while not state.is_terminal():
        if state.phase not in ("setup",) and state.turn != last_turn and state.decision.frame is None:
            last_turn = state.turn
            points.append(len(state.history))
        legal = state.legal_actions()
        if len(legal) > 1 and rng.random() < epsilon:
            action = rng.choice(legal)
        else:
            action = bots[state.current_player()].choose(state)
        state.apply(action)
    if len(points) > per_game:
        points = [points[i] for i in sorted(rng.sample(range(len(points)), per_game))]
    record = state.record()
    r = state.returns()[0]
    return {"seed": seed, "opponent": opponent, "config": record["config"], "steps": record["steps"],
            "points": points, "result": 1.0 if r > 0 else 0.0 if r < 0 else 0.5, "turns": state.turn}


def positions(game: dict):
    """The states of ``game`` (a ``play_record``) at its kept points, in order, by replaying its steps:
    one state, advanced between the points (read each before asking for the next)."""
    wanted = set(game["points"])
    g = replay({"format": RECORD_FORMAT, "version": RECORD_VERSION, "config": game["config"], "steps": []},
               check_fingerprint=False)
    g.auto_chance = False
    for index, (_player, action) in enumerate(game["steps"]):
        if index in wanted:
            yield g
        g.apply(action)


def play(seed: int, opponent: str, epsilon: float, per_game: int, max_turns: int) -> tuple[int, list[list[float]], float, int]:
    """One self-play game: (seed, feature rows for Blue, Blue's result, turns). A unit of
    engine.execution.run_units: the same game wherever it runs."""
    game = play_record(seed, opponent, epsilon, per_game, max_turns)
    return seed, [features(g, 0) for g in positions(game)], game["result"], game["turns"]


def self_play(games: int, seed: int, mix: float, epsilon: float, per_game: int, max_turns: int, cluster: str,
              workers: int | None):
    """The samples of ``games`` self-play games run on ``cluster`` (engine.execution), in game order:
    the same data on any cluster and worker count. Ctrl-C keeps the games finished."""
    rng = random.Random(seed)
    jobs = [(seed * 100_000 + i, "greedy" if rng.random() < mix else "expert", epsilon, per_game, max_turns)
            for i in range(games)]
    finished: dict[int, tuple] = {}
    start = time.perf_counter()
    positions = 0

    def progress(done: int, total: int, index: int, game: tuple) -> None:
        nonlocal positions
        finished[index] = game
        positions += len(game[1])
        if done % 10 == 0 or done == games:
            rate = done / (time.perf_counter() - start)
            print(f"\r  {done}/{games} games, {positions} positions, {rate:.1f} games/s", end="",
                  file=sys.stderr, flush=True)

    try:
        run_units(play, jobs, cluster, workers, progress)
    except KeyboardInterrupt:
        print("\n  stopped: fitting the games played so far", file=sys.stderr)
    print(file=sys.stderr)
    X, y, group, results = [], [], [], []
    for index in sorted(finished):
        game_seed, rows, result, _turns = finished[index]
        X += rows
        y += [result] * len(rows)
        group += [game_seed] * len(rows)
        results.append(result)
    return np.array(X, dtype=float), np.array(y, dtype=float), np.array(group), results


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1e-3, iterations: int = 50, start: np.ndarray | None = None,
        prior: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Logistic regression without intercept by Newton's method; ``y`` may be 1/2 (a draw). It
    minimises the mean log-loss plus ``l2 / 2 * |w|^2``, plus, with ``prior = (centre, precision)``,
    ``(w - centre)' precision (w - centre) / (2 n)`` (n the positions: ``precision`` is in positions,
    a Gaussian prior from earlier data). ``start``: the first weights (default 0)."""
    w = np.zeros(X.shape[1]) if start is None else np.array(start, dtype=float)
    n = len(y)
    centre, precision = prior if prior is not None else (np.zeros(X.shape[1]), np.zeros((X.shape[1], X.shape[1])))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-X @ w))
        grad = X.T @ (p - y) / n + l2 * w + precision @ (w - centre) / n
        hess = (X * (p * (1 - p))[:, None]).T @ X / n + l2 * np.eye(X.shape[1]) + precision / n
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def curvature(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The mean Hessian of the log-loss per position at ``w`` (the Fisher information of one position)."""
    p = 1.0 / (1.0 + np.exp(-X @ w))
    return (X * (p * (1 - p))[:, None]).T @ X / len(X)


def log_loss(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-X @ w)), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def accuracy(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    decided = y != 0.5
    if not decided.any():
        return float("nan")
    return float(np.mean(((X[decided] @ w) > 0) == (y[decided] > 0.5)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1200, help="self-play games (default 1200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    parser.add_argument("--mix", type=float, default=0.25, help="share of expert-vs-greedy games (default 0.25)")
    parser.add_argument("--epsilon", type=float, default=0.03, help="chance of a random decision (default 0.03)")
    parser.add_argument("--per-game", type=int, default=40, help="positions kept per game at most (default 40)")
    parser.add_argument("--max-turns", type=int, default=300, help="C3 turn limit of the games (default 300)")
    parser.add_argument("--holdout", type=float, default=0.2, help="share of games held out (default 0.2)")
    parser.add_argument("--cluster", default="local",
                        help="where the games run: local, ray or ray://HOST:PORT (engine/execution.py)")
    parser.add_argument("--workers", "--processes", type=int, dest="workers",
                        help="workers (default: every core, or every CPU of the Ray cluster; 1: in this process)")
    parser.add_argument("--data", help="refit the samples of an .npz written by --save instead of playing")
    parser.add_argument("--save", help="write the samples to this .npz")
    parser.add_argument("--out", required=True, help="the state_eval.toml to write")
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error("--workers must be at least 1")
    for name in ("games", "per_game", "max_turns"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if not 0 <= args.mix <= 1 or not 0 <= args.epsilon <= 1 or not 0 < args.holdout < 1:
        parser.error("--mix and --epsilon must be in 0..1, --holdout in (0, 1)")
    start = time.perf_counter()
    if args.data:
        try:
            saved = np.load(args.data)
            X, y, group = saved["X"], saved["y"], saved["group"]
        except (OSError, ValueError, KeyError) as exc:
            parser.error(f"--data {args.data}: not samples written by --save ({exc})")
        if X.ndim != 2 or X.shape[1] != len(FEATURES):
            parser.error(f"--data {args.data}: {X.shape[-1]} features per position, expected {len(FEATURES)}")
        games_played = len(set(group.tolist()))
        draws = float(np.mean(y == 0.5))
    else:
        print(f"self-play: {args.games} games ({args.mix:.0%} expert vs greedy, epsilon {args.epsilon})",
              file=sys.stderr)
        try:
            X, y, group, results = self_play(args.games, args.seed, args.mix, args.epsilon, args.per_game,
                                             args.max_turns, args.cluster, args.workers)
        except (ClusterError, UnitFailed) as exc:
            parser.error(str(exc))
        games_played = len(results)
        draws = results.count(0.5) / max(1, len(results))
        if args.save:
            np.savez_compressed(args.save, X=X, y=y, group=group)
    if len(X) < 50:
        print("train_state_eval: error: too few positions to fit", file=sys.stderr)
        return 2
    games = sorted(set(group.tolist()))
    random.Random(args.seed).shuffle(games)
    held = set(games[: max(1, int(len(games) * args.holdout))])
    test = np.array([g in held for g in group.tolist()])
    w = fit(X[~test], y[~test])
    board_only = np.zeros_like(w)
    board_only[0] = fit(X[~test][:, :1], y[~test])[0]
    loss, base_loss = log_loss(X[test], y[test], w), log_loss(X[test], y[test], board_only)
    acc, base_acc = accuracy(X[test], y[test], w), accuracy(X[test], y[test], board_only)
    seconds = time.perf_counter() - start
    trained = {
        "date": _dt.date.today().isoformat(),
        "tool": "tools/train_state_eval.py",
        "games": games_played, "positions": int(len(X)), "held_out_games": len(held),
        "seed": args.seed, "mix_expert_vs_greedy": args.mix, "epsilon": args.epsilon,
        "per_game": args.per_game, "draw_share": round(draws, 4),
        "held_out_log_loss": round(loss, 5), "held_out_accuracy": round(acc, 4),
        "board_only_log_loss": round(base_loss, 5), "board_only_accuracy": round(base_acc, 4),
    }
    header = (
        "Learned evaluation of full game states (engine/crown/state_eval.py: the features, their\n"
        "scales and how the value is computed). Written by tools/train_state_eval.py; refit or edit freely\n"
        f"(every feature needs a finite weight). Trained {trained['date']} on {games_played} self-play games\n"
        f"(expert vs expert, {args.mix:.0%} expert vs greedy; epsilon {args.epsilon}), {len(X)} positions at turn\n"
        f"starts; held-out games ({len(held)}): log-loss {loss:.4f}, accuracy {acc:.3f} on decided games\n"
        f"(the board evaluation alone: {base_loss:.4f}, {base_acc:.3f})."
    )
    Path(args.out).write_text(StateModel(tuple(float(v) for v in w), trained).to_toml(header), encoding="utf-8")
    print(f"{len(X)} positions from {games_played} games in {seconds:.0f} s; held out {len(held)} games:")
    print(f"  full-state model: log-loss {loss:.4f}, accuracy {acc:.3f}")
    print(f"  board alone:      log-loss {base_loss:.4f}, accuracy {base_acc:.3f}")
    for name, value in zip(FEATURES, w):
        print(f"  {name:14s} {value:+.4f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
