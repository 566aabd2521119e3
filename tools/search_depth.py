#!/usr/bin/env python3
"""Depth the board search reaches in a fixed time, on the start position and two middlegames, for
one or several builds of the engine in the same run (each in its own process, one after another).

    python tools/search_depth.py                         # this checkout, 3 s per position
    python tools/search_depth.py --seconds 1 --ours /path/to/other/checkout --ours .
    python tools/search_depth.py --eval classical --eval nnue [--net FILE]   # both evaluations, one run

Prints depth, selective depth, nodes, nodes/s and the best order per position, build and evaluation
(docs/nnue.md; each evaluation in its own process, one after another, so the comparison is side by
side in one run).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 promote:NBRQ",
    "middlegame 1": "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w - - 0 8 promote:NBRQ",
    "middlegame 2": "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PNBPN2/PB3PPP/2RQ1RK1 b - - 0 11 promote:NBRQ",
}

_CHILD = """
import json, sys
from engine import Position
from engine.board.alphabeta import AlphaBeta
seconds = float(sys.argv[1])
evaluation, net = (json.loads(sys.argv[3]) if len(sys.argv) > 3 else (None, None))
for name, text in json.loads(sys.argv[2]).items():
    searcher = AlphaBeta(evaluation=evaluation, net=net) if evaluation else AlphaBeta()
    result = searcher.search(Position.from_text(text), seconds=seconds)
    print(json.dumps({"name": name, "depth": result.depth, "seldepth": result.seldepth, "nodes": result.nodes,
                      "nps": round(result.nps), "best": result.best.text() if result.best else None}), flush=True)
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--ours", action="append", metavar="DIR",
                        help="a checkout with a built engine (repeat to compare builds; default: this one)")
    parser.add_argument("--eval", action="append", choices=("classical", "nnue"),
                        help="the board evaluation (repeat to compare; default: the build's default)")
    parser.add_argument("--net", metavar="FILE", help="the network file of --eval nnue (default: the shipped one)")
    args = parser.parse_args(argv)
    if not args.seconds > 0:
        parser.error("--seconds must be positive")
    builds = args.ours or [str(ROOT)]
    for build in builds:
        if not (Path(build) / "engine").is_dir():
            parser.error(f"--ours {build}: no engine/ folder there")
    net = str(Path(args.net).resolve()) if args.net else None
    print(f"{'build':<20} {'eval':<9} {'position':<14} {'depth':>5} {'seldepth':>8} {'nodes':>11} {'nodes/s':>9}  best")
    for build in builds:
        env = {**os.environ, "PYTHONPATH": str(Path(build).resolve())}
        for evaluation in args.eval or [None]:
            try:
                # Run inside the build's folder: Python puts the working folder first on sys.path.
                proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(args.seconds), json.dumps(POSITIONS),
                                         json.dumps([evaluation, net if evaluation == "nnue" else None])],
                                        env=env, cwd=str(Path(build).resolve()), stdout=subprocess.PIPE, text=True)
                for line in proc.stdout:
                    row = json.loads(line)
                    print(f"{Path(build).name[:20]:<20} {evaluation or 'default':<9} {row['name']:<14} {row['depth']:>5} "
                          f"{row['seldepth']:>8} {row['nodes']:>11,} {row['nps']:>9,}  {row['best']}", flush=True)
                if proc.wait() != 0:
                    print(f"search_depth: error: the build in {build} failed", file=sys.stderr)
                    return 1
            except KeyboardInterrupt:
                proc.kill()
                return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
