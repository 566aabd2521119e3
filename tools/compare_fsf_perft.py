#!/usr/bin/env python3
"""Our perft against Fairy-Stockfish's ``go perft`` on the same positions, in one run.

    python tools/compare_fsf_perft.py                         # FSF at /tmp/fsf/stockfish (or $FTC_FSF)
    python tools/compare_fsf_perft.py --fsf PATH --repeat 3
    python tools/compare_fsf_perft.py --ours /tmp/old-checkout --ours .   # several builds, same run
    python tools/compare_fsf_perft.py --quick                 # one ply less everywhere

Fairy-Stockfish is a measuring instrument only (never a dependency of the package or the tests): it
is driven over UCI, one thread, with the variants of ``fairy-stockfish-ftc.ini`` (ftco orthodox,
ftcf fairy units, ftcd fairy units + Barracks deploys; see its header for what it can express).
Positions are translated with ``tools/oracles.py`` (``to_ffish_fen``, ``with_fields``).

Every build named with ``--ours`` (a directory whose ``engine`` package is imported; default: this
checkout) runs ``engine.perft`` in a fresh subprocess, so an old and a new build can be compared in
the same run.  The best time of ``--repeat`` runs is kept for every program.  Printed per position:
node counts (they must agree: a mismatch makes the exit status 1), seconds, M nodes/s and the
ratio FSF seconds / our seconds (> 1: we are faster).  FSF's time is measured from sending
``go perft`` to reading ``Nodes searched`` (its per-root-move divide lines included).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from compare_speed import load_oracles, progress  # noqa: E402  (one copy of the shared helpers)

# (name, position text without promote:/stock:, FSF variant, promote: tokens, default depth)
POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "ftco", "NBRQ", 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1", "ftco", "NBRQ", 5),
    ("fairy-mid", "r1c1kd1r/pppmpppp/2z5/8/3E4/2H5/PPPTPPPP/R2AK2R w - - 0 1", "ftcf",
     "NBRQZCDHMEAT", 5),
    ("fairy-deploy", "rz2k2r/pppt1ppp/8/3p4/3P4/8/PPPT1PPP/R3K2R[HDca] w - - 0 1", "ftcd",
     "NBRQZCDHMEAT", 5),
]

_OURS_SNIPPET = r"""
import json, sys, time
import engine
text, depth, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
best, nodes = None, None
for _ in range(repeat):
    t0 = time.perf_counter()
    nodes = engine.perft(text, depth)
    dt = time.perf_counter() - t0
    best = dt if best is None or dt < best else best
info = getattr(engine, "BUILD_INFO", None)
print(json.dumps({"nodes": nodes, "seconds": best, "file": engine.__file__,
                  "build": dict(info) if info else None}))
"""


def run_ours(build: Path, text: str, depth: int, repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(build))
    out = subprocess.run([sys.executable, "-c", _OURS_SNIPPET, text, str(depth), str(repeat)],
                         env=env, cwd=str(build), capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


class Fsf:
    """A Fairy-Stockfish process speaking UCI, one thread."""

    def __init__(self, path: str, ini: str):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        self.send(f"setoption name VariantPath value {ini}")
        self.send("setoption name Threads value 1")
        self.variant = None

    def send(self, line: str) -> None:
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_for(self, prefix: str) -> str:
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("Fairy-Stockfish exited")
            if line.startswith(prefix):
                return line

    def ready(self) -> None:
        self.send("isready")
        self.wait_for("readyok")

    def perft(self, variant: str, fen: str, depth: int) -> tuple[int, float]:
        if variant != self.variant:
            self.send(f"setoption name UCI_Variant value {variant}")
            self.variant = variant
        self.send(f"position fen {fen}")
        self.ready()
        t0 = time.perf_counter()
        self.send(f"go perft {depth}")
        line = self.wait_for("Nodes searched")
        dt = time.perf_counter() - t0
        return int(line.split(":")[1]), dt

    def close(self) -> None:
        try:
            self.send("quit")
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fsf", default=os.environ.get("FTC_FSF", "/tmp/fsf/stockfish"),
                    help="Fairy-Stockfish binary (default: $FTC_FSF or /tmp/fsf/stockfish)")
    ap.add_argument("--ini", help="fairy-stockfish-ftc.ini (default: as tools/oracles.py finds it)")
    ap.add_argument("--ours", action="append", type=Path,
                    help="checkout whose built engine to time (repeatable; default: this one)")
    ap.add_argument("--depth", type=int, help="depth for every position (default: per position)")
    ap.add_argument("--quick", action="store_true", help="one ply less than the defaults")
    ap.add_argument("--repeat", type=int, default=3, help="runs per program, best kept (default 3)")
    ap.add_argument("--only", action="append", help="position name(s) to run")
    a = ap.parse_args(argv)

    oracles = load_oracles()
    ini = a.ini or oracles.ini_path()
    if ini is None:
        ap.error("fairy-stockfish-ftc.ini not found (--ini or FTC_FFISH_INI)")
    if not os.access(a.fsf, os.X_OK):
        ap.error(f"no Fairy-Stockfish binary at {a.fsf} (--fsf or FTC_FSF)")
    builds = [b.resolve() for b in (a.ours or [ROOT])]
    fsf = Fsf(a.fsf, ini)
    mismatches = []
    labels = [f"ours[{i}]" if len(builds) > 1 else "ours" for i in range(len(builds))]
    head = f"{'position':<13} {'D':>2} {'nodes':>12} {'FSF s':>7} {'FSF M/s':>8}"
    for lab in labels:
        head += f" {lab + ' s':>9} {'M/s':>7} {'FSF/' + lab:>11}"
    rows = []
    try:
        for name, base, variant, promote, d0 in POSITIONS:
            if a.only and name not in a.only:
                continue
            d = a.depth or (max(1, d0 - 1) if a.quick else d0)
            text = oracles.with_fields(base, promote, d)
            fen = oracles.to_ffish_fen(text, variant)
            progress(f"{name} D{d}: Fairy-Stockfish {variant} ...")
            fsf_runs = [fsf.perft(variant, fen, d) for _ in range(a.repeat)]
            n_fsf, t_fsf = fsf_runs[0][0], min(t for _, t in fsf_runs)
            line = f"{name:<13} {d:>2} {n_fsf:>12,} {t_fsf:>7.3f} {n_fsf / t_fsf / 1e6:>8.1f}"
            for lab, build in zip(labels, builds):
                progress(f"{name} D{d}: {lab} ({build}) ...")
                r = run_ours(build, text, d, a.repeat)
                line += f" {r['seconds']:>9.3f} {r['nodes'] / r['seconds'] / 1e6:>7.1f} " \
                        f"{t_fsf / r['seconds']:>10.2f}x"
                if r["nodes"] != n_fsf:
                    mismatches.append((name, d, lab, r["nodes"], n_fsf))
                    line += f" MISMATCH {r['nodes']:,}"
            rows.append(line)
            print(line if len(rows) > 1 else head + "\n" + line, flush=True)
    finally:
        fsf.close()
    for lab, build in zip(labels, builds):
        out = subprocess.run([sys.executable, "-c", "import engine, json; "
                              "print(json.dumps(dict(getattr(engine, 'BUILD_INFO', {}) or {})))"],
                             env=dict(os.environ, PYTHONPATH=str(build)), cwd=str(build),
                             capture_output=True, text=True)
        print(f"{lab}: {build}  build {out.stdout.strip() or '?'}")
    print(f"Fairy-Stockfish: {a.fsf} (one thread), variants from {ini}; best of {a.repeat} runs")
    if mismatches:
        print(f"NODE COUNT MISMATCHES: {mismatches}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
