#!/usr/bin/env python3
"""Train the learned board evaluation (NNUE, engine/board/nnue.py) on `ftc nnue-data` shards.

    python tools/train_nnue.py --data nnue-data/ --out engine/data/ftc.nnue --plot docs/results/nnue-training.png
    python tools/train_nnue.py --data more-data/ --init engine/data/ftc.nnue --out /tmp/tuned.nnue --lr 3e-4

Needs PyTorch (`pip install -e '.[train]'`). Progress per epoch on stderr (training and validation
loss, positions/s, ETA); Ctrl-C writes the best net so far and exits 130. The same data, options,
--seed and --threads give the same weights; with SOURCE_DATE_EPOCH set, the same file byte for byte.
docs/nnue-training.md describes the options, the loss and the quantisation.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# OpenMP threads that wait for work by sleeping, not spinning: with --threads 2 on a machine whose
# cores are busy, spinning threads made training 20 times slower here. Set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.board.nnue import HIDDEN_SIZES  # noqa: E402
from engine.board.nnue_train import INSTALL_HINT, SCHEDULES, Options, TrainError, load_dataset, plot_history, train  # noqa: E402


def parser() -> argparse.ArgumentParser:
    d = Options()
    p = argparse.ArgumentParser(prog="train_nnue", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--data", required=True, metavar="FOLDER", help="folder of shard-<seed>.npz files (ftc nnue-data)")
    p.add_argument("--out", required=True, metavar="FILE", help="the net file to write")
    p.add_argument("--hidden", type=int, choices=HIDDEN_SIZES, default=None,
                   help="accumulator width per perspective (default 128, or the --init net's; wider than the --init "
                        "net widens it: its values unchanged, the new units' output weights 0)")
    p.add_argument("--epochs", type=int, default=d.epochs, help="passes over the training positions")
    p.add_argument("--batch", type=int, default=d.batch, help="positions per optimiser step")
    p.add_argument("--lr", type=float, default=d.lr, help="AdamW learning rate (the schedule's start)")
    p.add_argument("--schedule", choices=SCHEDULES, default=d.schedule,
                   help="learning rate over the epochs: cosine down to lr/100, step (times --gamma every "
                        "--step-epochs), constant")
    p.add_argument("--gamma", type=float, default=d.gamma, help="the step schedule's factor")
    p.add_argument("--step-epochs", type=int, default=d.step_epochs, help="the step schedule's period")
    p.add_argument("--weight-decay", type=float, default=d.weight_decay, help="AdamW's decoupled weight decay")
    p.add_argument("--lam", type=float, default=d.lam,
                   help="weight of the search score in the target (1 - lam: the game result)")
    p.add_argument("--k", type=float, default=None,
                   help="centi-points per unit of the sigmoid (default: fitted to the data's scores and results)")
    p.add_argument("--val", type=float, default=d.val, help="fraction of the games held out for validation")
    p.add_argument("--seed", type=int, default=d.seed, help="initial weights, validation games, batch order")
    p.add_argument("--threads", type=int, default=d.threads, help="torch threads (part of what the result depends on)")
    p.add_argument("--init", metavar="FILE", default=None, help="continue from this net file instead of random weights")
    p.add_argument("--check", type=int, default=d.check,
                   help="at most this many validation positions (spread over them) measure the quantisation error")
    p.add_argument("--mirror", action="store_true",
                   help="also train on every position mirrored file for file (a-h): twice the positions")
    p.add_argument("--plot", metavar="PATH", default=None, help="write the loss curve (PNG) here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print(f"train_nnue: PyTorch is not installed; install the training extra: {INSTALL_HINT}", file=sys.stderr)
        return 2
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(f"train_nnue: --plot needs matplotlib; install the training extra: {INSTALL_HINT}", file=sys.stderr)
            return 2
        if not Path(args.plot).parent.is_dir():
            print(f"train_nnue: --plot {args.plot}: the folder {Path(args.plot).parent} does not exist",
                  file=sys.stderr)
            return 2

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        options = Options(hidden=args.hidden, epochs=args.epochs, batch=args.batch, lr=args.lr, schedule=args.schedule,
                          gamma=args.gamma, step_epochs=args.step_epochs, weight_decay=args.weight_decay,
                          lam=args.lam, k=args.k, val=args.val, seed=args.seed, threads=args.threads,
                          init=args.init, check=args.check, mirror=args.mirror)
        dataset = load_dataset(args.data)
        result = train(dataset, options, args.out, say)
    except TrainError as exc:
        print(f"train_nnue: {exc}", file=sys.stderr)
        return 2
    if args.plot:
        plot_history(result.history, args.plot,
                     f"NNUE training: {result.train_positions:,} positions, hidden {result.net.hidden}",
                     result.best_epoch)
    last = result.history[-1]
    print(f"wrote {args.out} (net {result.net.digest()}): {len(result.history) - 1} epoch(s), best epoch "
          f"{result.best_epoch}, val loss {last['val']:.6f}, K {result.k:g}; "
          f"{result.positions_per_second:,.0f} positions/s; quantised vs float on {result.quant_positions:,} "
          f"validation positions: mean {result.quant_mean:.2f} cp, max {result.quant_max:.2f} cp; on "
          f"{result.baseline['positions']:,} of them the loss of the quantised net is {result.baseline['net']} "
          f"against the classical evaluation's {result.baseline['classical']}"
          + (f"; loss curve {args.plot}" if args.plot else ""))
    return 130 if result.interrupted else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:                 # outside the epochs (loading the data, writing): nothing saved
        print("train_nnue: stopped (Ctrl-C) outside the epochs; no net written", file=sys.stderr)
        sys.exit(130)
