#!/usr/bin/env python3
"""Throughput of the NNUE data generator (`ftc nnue-data`) of this checkout against an earlier one,
measured side by side in one run.

    python tools/nnue_data_speed.py --base dc56811                 # the commit before issue 43's speed-up
    python tools/nnue_data_speed.py --base-dir ../other-checkout --rounds 5 --games 10 --nodes 5000

``--base COMMIT`` checks the commit out into a temporary git worktree and builds its kernels there
(``python setup.py build_ext --inplace``, a few minutes); ``--base-dir`` names a checkout whose
kernels are built already. Each round runs, in a fresh process of each checkout in turn (base, then
this one, alternating so that both see the same machine load), the same command:

    python -m engine.interfaces.cli nnue-data --out TMP --games G --seed S --nodes N --shard-games G --workers 1

(one shard, one worker: the games play in that process; its start-up, imports and the shard's
writing are included). Its CPU time (user + system, the operating system's accounting of the finished
child) divides the positions it wrote: positions per CPU-second, which is positions per second per
core. The rounds' medians and their ratio are printed, and whether the two checkouts wrote the same
shard bytes (the same games: a speed-up that changed nothing). ``--eval nnue`` makes both evaluate
with the shipped net (through the FTC_EVAL variable, which checkouts older than ``--eval`` know too).
Extra ``ftc nnue-data`` options for both go after ``--``, e.g. ``-- --mix 0,1,0``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fail(message: str) -> None:
    print(f"nnue_data_speed: {message}", file=sys.stderr)
    raise SystemExit(2)


def one_run(checkout: Path, out: Path, args, extra: list[str]) -> tuple[float, int, bytes]:
    """(CPU seconds, positions, the shard's bytes) of one `ftc nnue-data` process in ``checkout``."""
    cmd = [sys.executable, "-m", "engine.interfaces.cli", "nnue-data", "--out", str(out), "--games", str(args.games),
           "--seed", str(args.seed), "--nodes", str(args.nodes), "--shard-games", str(args.games), "--workers", "1",
           *extra]
    env = dict(os.environ, PYTHONPATH=str(checkout), FTC_EVAL=args.eval)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        fail(f"{checkout}: `{' '.join(cmd[1:])}` failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    positions = json.loads((out / "manifest.json").read_text())["counts"]["positions"]
    shard = (out / f"shard-{args.seed}.npz").read_bytes()
    shutil.rmtree(out)
    return cpu, positions, shard


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    base_of = parser.add_mutually_exclusive_group(required=True)
    base_of.add_argument("--base", metavar="COMMIT", help="the commit to compare with (built in a temporary worktree)")
    base_of.add_argument("--base-dir", metavar="DIR", help="a checkout of it whose kernels are built")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (each runs both checkouts; default 3)")
    parser.add_argument("--games", type=int, default=10, help="games of each run: one shard (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")
    parser.add_argument("--nodes", type=int, default=5000, help="search nodes per order (default 5000)")
    parser.add_argument("--eval", choices=("classical", "nnue"), default="classical",
                        help="the searches' evaluation, both checkouts (default classical)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 1 or args.nodes < 1:
        fail("--rounds, --games and --nodes must be at least 1")
    scratch = Path(tempfile.mkdtemp(prefix="nnue-data-speed-"))
    made_worktree = None
    try:
        if args.base_dir:
            base = Path(args.base_dir).resolve()
            if not (base / "engine").is_dir():
                fail(f"--base-dir {base}: not a checkout of the engine (no engine/ folder)")
        else:
            base = made_worktree = scratch / "base"
            for cmd, what in (
                    (["git", "worktree", "add", "--detach", str(base), args.base], "git worktree add"),
                    ([sys.executable, "setup.py", "build_ext", "--inplace"], "building the base kernels")):
                print(f"{what} ...", file=sys.stderr)
                done = subprocess.run(cmd, cwd=ROOT if what.startswith("git") else base, capture_output=True,
                                      text=True)
                if done.returncode != 0:
                    fail(f"{what} failed: {done.stderr.strip()[-400:]}")
        rates: dict[str, list[float]] = {"base": [], "this": []}
        shards: dict[str, bytes] = {}
        positions: dict[str, int] = {}
        for r in range(args.rounds):
            for name, checkout in (("base", base), ("this", ROOT)):
                cpu, n, shard = one_run(checkout, scratch / f"out-{name}", args, extra)
                rates[name].append(n / cpu)
                shards[name], positions[name] = shard, n
                print(f"round {r + 1}/{args.rounds} {name}: {n} positions, {cpu:.2f} CPU s, {n / cpu:.1f} positions "
                      "per CPU-second", file=sys.stderr)
        base_rate, this_rate = statistics.median(rates["base"]), statistics.median(rates["this"])
        print(f"games {args.games} (seeds {args.seed}..{args.seed + args.games - 1}), nodes {args.nodes}, "
              f"{args.rounds} rounds, one worker, {args.eval}; {' '.join(extra) or 'default settings'}")
        print(f"base {base}: {positions['base']} positions, median {base_rate:.1f} positions per CPU-second")
        print(f"this {ROOT}: {positions['this']} positions, median {this_rate:.1f} positions per CPU-second")
        print(f"ratio this/base: {this_rate / base_rate:.2f}; the same shard bytes: "
              f"{'yes' if shards['base'] == shards['this'] else 'no'}")
    finally:
        if made_worktree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(made_worktree)], cwd=ROOT,
                           capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
