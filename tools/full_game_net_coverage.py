#!/usr/bin/env python3
"""How much of For the Crown's full game a board net can judge, and how well (issue 43's full-game clause).

The full-game AI's board judgements may use the learned net (engine/data/evaluation.toml's
``full_game``), but the kernel falls back to the classical evaluation on any board that holds a unit
of a type the net never saw in training (its header's ``untrained`` list, docs/nnue.md). This tool
plays seeded expert self-play games of the full game (tools/train_state_eval.py's games: random
Supplies, the expansion on) and, at the start of up to ``--per-game`` turns of each, records:

- whether the net judges the board at all (``Network.knows``), and which untrained types keep it
  from doing so (on the board or in a Barracks);
- on the boards it judges, its value and the classical value for Blue, their correlation, and how
  well each predicts the game's winner (the lowest log-loss over a logistic scale, and the share
  of decided games whose winner the sign names).

    python tools/full_game_net_coverage.py --games 40 --workers 2 [--net FILE] [--json out.json]

A search that meets judged and unjudged boards in one tree mixes two evaluations; the share below
says how often that happens.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from train_state_eval import play_record, positions  # noqa: E402

from engine import _search  # noqa: E402
from engine.board.evaluate import default_weights, evaluation_name, load_network  # noqa: E402
from engine.board.nnue import NetFileError  # noqa: E402
from engine.catalog import default_catalog  # noqa: E402
from engine.execution import ClusterError, UnitFailed, run_units  # noqa: E402

__all__ = ["main", "game_rows", "summary"]


def _types_held(board) -> set[int]:
    """The unit types on ``board`` or in either Barracks."""
    held: set[int] = set()
    for player in (0, 1):
        held.update(board.unit_on(sq)[0] for sq in board.squares_of(player))
        held.update(t for t, n in enumerate(board.barracks_counts(player)) if n)
    return held


def game_rows(seed: int, net: str | None, per_game: int, max_turns: int) -> list[dict]:
    """One expert self-play game (seed ``seed``): a row per kept turn start with ``turn``, ``knows``,
    ``untrained`` (the tokens of the untrained types held), ``classical`` and ``net`` (centi-points
    for Blue; equal where the net does not judge) and Blue's ``result``. A unit of run_units."""
    game = play_record(seed, "expert", 0.05, per_game, max_turns)
    rows: list[dict] = []
    evaluations = None
    for g in positions(game):
        catalog = g.units
        if evaluations is None:
            network = load_network(net, catalog)
            untrained = set(network.untrained)
            weights = default_weights().kernel_dict(catalog)
            evaluations = (network, untrained, _search.Evaluation(catalog.tables, weights, None),
                           _search.Evaluation(catalog.tables, weights, network))
        network, untrained, classical, learned = evaluations
        held = _types_held(g.board)
        rows.append({"turn": g.turn, "knows": bool(network.knows(g.board)),
                     "untrained": sorted(catalog.units[t].token for t in held & untrained),
                     "classical": _search.board_value(g.board, 0, classical, False, False),
                     "net": _search.board_value(g.board, 0, learned, False, False),
                     "result": game["result"]})
    return rows


def _prediction(values: np.ndarray, results: np.ndarray) -> tuple[float, float, float]:
    """(lowest log-loss over logistic scales 50..5000, that scale, accuracy of the sign) on decided games."""
    decided = results != 0.5
    x, y = values[decided], results[decided]
    if not len(x):
        return math.nan, math.nan, math.nan
    best = (math.inf, math.nan)
    for scale in np.geomspace(50, 5000, 61):
        p = 1 / (1 + np.exp(-np.clip(x / scale, -30, 30)))
        loss = float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
        best = min(best, (loss, float(scale)))
    return best[0], best[1], float(np.mean((x > 0) == (y > 0.5)))


def summary(rows: list[dict]) -> dict:
    """The share of boards judged, the untrained types by the share of boards holding them, and on the
    judged boards the two evaluations side by side."""
    judged = [r for r in rows if r["knows"]]
    types = Counter(t for r in rows for t in r["untrained"])
    out: dict = {"states": len(rows), "judged": len(judged),
                 "judged_share": len(judged) / len(rows) if rows else math.nan,
                 "untrained_types": {t: n / len(rows) for t, n in types.most_common()}}
    if len(judged) >= 2:
        c = np.array([r["classical"] for r in judged], float)
        n = np.array([r["net"] for r in judged], float)
        y = np.array([r["result"] for r in judged], float)
        out["correlation"] = float(np.corrcoef(c, n)[0, 1]) if c.std() and n.std() else math.nan
        for name, values in (("classical", c), ("net", n)):
            loss, scale, accuracy = _prediction(values, y)
            out[name] = {"log_loss": loss, "scale": scale, "accuracy": accuracy,
                         "decided": int(np.sum(y != 0.5))}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/full_game_net_coverage.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="expert self-play games (default 40)")
    parser.add_argument("--seed", type=int, default=5000, help="the first game's seed (default 5000)")
    parser.add_argument("--per-game", type=int, default=12, help="turn starts kept a game (default 12)")
    parser.add_argument("--max-turns", type=int, default=200, help="the games' turn limit (default 200)")
    parser.add_argument("--net", help="the net file (default: the shipped net)")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    parser.add_argument("--json", help="write the summary and the rows here")
    args = parser.parse_args(argv)
    for name in ("games", "per_game", "max_turns", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1 (got {getattr(args, name)})")
    try:
        name = evaluation_name(load_network(args.net))
    except NetFileError as exc:
        parser.error(f"--net: {exc}")
    jobs = [(args.seed + i, args.net, args.per_game, args.max_turns) for i in range(args.games)]
    done: dict[int, list[dict]] = {}

    def progress(finished: int, total: int, index: int, rows: list[dict]) -> None:
        done[index] = rows
        print(f"\r  {finished}/{total} games", end="", file=sys.stderr, flush=True)

    try:
        run_units(game_rows, jobs, "local", args.workers, progress)
    except KeyboardInterrupt:
        print("\n  stopped: the games played so far", file=sys.stderr)
    except (ClusterError, UnitFailed) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 1
    print(file=sys.stderr)
    rows = [r for i in sorted(done) for r in done[i]]
    result = summary(rows)
    print(f"net {name}: {len(done)} games, {result['states']} turn starts")
    print(f"judged by the net: {result['judged']} ({result['judged_share']:.1%}); the rest fall back to classical")
    names = {u.token: u.name for u in default_catalog().units}
    for token, share in result["untrained_types"].items():
        print(f"  untrained type {token} ({names.get(token, '?')}): on {share:.1%} of the boards")
    if "net" in result:
        print(f"on the judged boards: correlation of the two values {result['correlation']:.3f}")
        print("evaluation  log-loss  scale  winner by sign  decided")
        for key in ("classical", "net"):
            r = result[key]
            print(f"{key:<10}  {r['log_loss']:.4f}  {r['scale']:6.0f}  {r['accuracy']:.1%}  {r['decided']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"net": name, "summary": result, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
