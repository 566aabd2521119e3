#!/usr/bin/env python3
"""Speed of our perft against the python-chess FtC perft (tools/oracles.py), in one run.

    python tools/compare_speed.py                 # default depth per position
    python tools/compare_speed.py --depth 4       # the same depth everywhere
    python tools/compare_speed.py --quick         # smaller depths, a few seconds

For every orthodox position both perfts run on the same text; the node counts must agree.  Printed:
nodes, seconds and nodes/s for each, and the ratio (ours / python-chess).  Then our perft on a
fairy-heavy and a cylindrical-heavy position (no oracle can follow those), and the cost of
``Position.legal_orders()`` called from Python (calls/s and orders/s).  Progress goes to stderr.
Target: ours >= 100x python-chess.  The main ratio is against ``chess_perft`` as the oracle runs it
(last ply bulk-counted from bitboards, the fastest python-chess allows); a second table gives the
ratio against python-chess perft as usually written (generator bulk count; every leaf made).
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 100.0

# (name, position text, default depth)
ORTHODOX = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 promote:NBRQ", 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1 promote:NBRQ", 4),
    ("cpw3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 stock:N8B8R8Q8 promote:NBRQ", 6),
    ("cpw4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w - - 0 1 stock:N8B8R8Q8 promote:NBRQ", 4),
    ("cpw5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w - - 1 8 promote:NBRQ", 4),
    ("promo", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1 stock:N8B8R8Q8 promote:NBRQ", 5),
]

# Ours only: (name, position text, default depth, cylindrical)
FAIRY_HEAVY = ("fairy-heavy",
               "wfxgkyso/pmtailch/8/8/8/8/PMTAILCH/WFXGKYSO w - - 0 1", 4, False)
FAIRY_INI = ("fairy-army", "hzcekdah/pmtpptmp/8/8/8/8/PMTPPTMP/HZCEKDAH w - - 0 1 promote:NBRQZCDHMEAT",
             5, False)
CYLINDRICAL = ("cylindrical",
               "~r~n~z~bk~g~h~l/pppppppp/8/8/8/8/PPPPPPPP/~R~N~Z~BK~G~H~L w - - 0 1", 5, True)
LEGAL_ORDERS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", False),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1", False),
    ("fairy-heavy", FAIRY_HEAVY[1], False),
    ("cylindrical", CYLINDRICAL[1], True),
]


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load_oracles():
    spec = importlib.util.spec_from_file_location("ftc_oracles", ROOT / "tools" / "oracles.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def timed(fn, *args, min_time: float = 0.0, **kw):
    """(result, seconds per call); repeats fast calls until min_time has passed."""
    reps, t0 = 0, time.perf_counter()
    while True:
        result = fn(*args, **kw)
        reps += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time:
            return result, elapsed / reps


def fmt_nps(n: float) -> str:
    return f"{n / 1e6:9.2f} M/s" if n >= 1e5 else f"{n / 1e3:9.1f} k/s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, help="depth for every position (default: per position)")
    ap.add_argument("--quick", action="store_true", help="one ply less than the defaults")
    ap.add_argument("--skip-oracle", action="store_true", help="time our perft only")
    ap.add_argument("--no-classic", action="store_true",
                    help="skip the python-chess runs without bitboard bulk counting")
    a = ap.parse_args(argv)

    import engine
    from engine import Position, perft

    oracles = None if a.skip_oracle else load_oracles()

    def depth_of(default: int) -> int:
        if a.depth:
            return a.depth
        return max(1, default - 1) if a.quick else default

    print(f"{'position':<12} {'D':>2} {'nodes':>12} {'ours s':>8} {'ours nps':>13} "
          f"{'py-chess s':>10} {'py-chess nps':>13} {'ratio':>8}")
    ratios, tot = [], {"n": 0, "ours": 0.0, "theirs": 0.0}
    ours_by_name: dict[str, float] = {}
    classic_ratios: list[float] = []
    mismatches = []
    for i, (name, text, d0) in enumerate(ORTHODOX, 1):
        d = depth_of(d0)
        progress(f"[{i}/{len(ORTHODOX)}] {name} D{d}: engine.perft ...")
        n_ours, t_ours = timed(perft, text, d, min_time=0.3)
        ours_by_name[name] = n_ours / t_ours
        line = f"{name:<12} {d:>2} {n_ours:>12,} {t_ours:>8.3f} {fmt_nps(n_ours / t_ours):>13}"
        if oracles is not None:
            progress(f"[{i}/{len(ORTHODOX)}] {name} D{d}: chess_perft (python-chess) ...")
            n_theirs, t_theirs = timed(oracles.chess_perft, text, d)
            ratio = t_theirs / t_ours
            ratios.append(ratio)
            tot["n"] += n_ours
            tot["ours"] += t_ours
            tot["theirs"] += t_theirs
            line += f" {t_theirs:>10.3f} {fmt_nps(n_theirs / t_theirs):>13} {ratio:>7.0f}x"
            if n_theirs != n_ours:
                mismatches.append((name, d, n_ours, n_theirs))
                line += f"  MISMATCH python-chess={n_theirs:,}"
        print(line, flush=True)

    if oracles is not None and not a.no_classic:
        # python-chess perft as usually written: the last ply counted from python-chess's move
        # generator, or every leaf move made.  Run one ply shallower (same positions) and compare
        # nodes per second with ours at the full depth.
        print(f"\n{'position':<12} {'D':>2} {'py-chess gen-bulk nps':>22} {'ratio':>7} "
              f"{'D':>2} {'py-chess no-bulk nps':>21} {'ratio':>7}   (python-chess classic perft)")
        for i, (name, text, d0) in enumerate(ORTHODOX, 1):
            d = depth_of(d0)
            ours_nps = ours_by_name[name]
            progress(f"[{i}/{len(ORTHODOX)}] {name}: python-chess generator bulk D{d - 1}, no bulk D{d - 2} ...")
            n_g, t_g = timed(oracles.chess_perft, text, max(1, d - 1), bulk="generator", min_time=0.2)
            n_n, t_n = timed(oracles.chess_perft, text, max(1, d - 2), bulk="none", min_time=0.2)
            r_g, r_n = ours_nps / (n_g / t_g), ours_nps / (n_n / t_n)
            classic_ratios.append(r_n)
            print(f"{name:<12} {max(1, d - 1):>2} {fmt_nps(n_g / t_g):>22} {r_g:>6.0f}x "
                  f"{max(1, d - 2):>2} {fmt_nps(n_n / t_n):>21} {r_n:>6.0f}x", flush=True)

    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\nsummary: {tot['n']:,} nodes; ours {fmt_nps(tot['n'] / tot['ours']).strip()}, "
              f"python-chess {fmt_nps(tot['n'] / tot['theirs']).strip()}; "
              f"ratio total {tot['theirs'] / tot['ours']:.0f}x, geometric mean {geo:.0f}x, "
              f"min {min(ratios):.0f}x; target >= {TARGET:.0f}x: "
              f"{'MET' if min(ratios) >= TARGET else 'NOT MET'}")
        if classic_ratios:
            geo_c = math.exp(sum(math.log(r) for r in classic_ratios) / len(classic_ratios))
            print(f"against python-chess making every leaf move (no bulk counting): geometric mean "
                  f"{geo_c:.0f}x, min {min(classic_ratios):.0f}x")
        if mismatches:
            print(f"NODE COUNT MISMATCHES: {mismatches}")

    print(f"\n{'ours only':<12} {'D':>2} {'nodes':>12} {'ours s':>8} {'ours nps':>13}  mode")
    for name, text, d0, cyl in (FAIRY_INI, FAIRY_HEAVY, CYLINDRICAL):
        d = depth_of(d0)
        progress(f"{name} D{d}: engine.perft{' (cylindrical)' if cyl else ''} ...")
        try:
            n, t = timed(perft, text, d, cylindrical=cyl, min_time=0.3)
        except Exception as exc:  # report and go on: this is a measuring tool
            print(f"{name:<12} {d:>2} error: {exc!r}")
            continue
        print(f"{name:<12} {d:>2} {n:>12,} {t:>8.3f} {fmt_nps(n / t):>13}  "
              f"{'cylindrical=True' if cyl else 'plane'}", flush=True)

    print(f"\n{'legal_orders':<12} {'orders':>7} {'calls/s':>12} {'orders/s':>13}  (Position.legal_orders() from Python)")
    for name, text, cyl in LEGAL_ORDERS:
        progress(f"legal_orders {name} ...")
        try:
            pos = Position.from_text(text)
            orders, t = timed(pos.legal_orders, cylindrical=cyl, min_time=1.0)
        except Exception as exc:
            print(f"{name:<12} error: {exc!r}")
            continue
        print(f"{name:<12} {len(orders):>7} {1 / t:>12,.0f} {fmt_nps(len(orders) / t):>13}"
              f"  cylindrical={cyl}", flush=True)
    print(f"\nengine {getattr(engine, '__version__', '?')}, python-chess "
          f"{'-' if oracles is None else oracles.chess.__version__}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
