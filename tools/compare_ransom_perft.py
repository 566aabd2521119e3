#!/usr/bin/env python3
"""King's Ransom perft: the engine (engine/ransom/position.py on the kernel) against the slow
reference generator (tests/reference/ransom.py, plain Python), on the same positions in one run.

    python tools/compare_ransom_perft.py              # depth 3 on every line of tests/data/ransom_perft.epd
    python tools/compare_ransom_perft.py --depth 2    # quicker

The counts must agree (the script exits 1 otherwise). Printed per position: turns, seconds and
turns/s for each, and the ratio (engine / reference). Both count the last turn without making it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.ransom.position import RansomPosition, perft  # noqa: E402
from tests.reference.ransom import reference_perft  # noqa: E402


def positions() -> list[str]:
    lines = (ROOT / "tests" / "data" / "ransom_perft.epd").read_text(encoding="utf-8").splitlines()
    return [line.split(";")[0].strip() for line in lines if line.strip() and not line.startswith("#")]


def timed(fn, *args) -> tuple[int, float]:
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, choices=(1, 2, 3, 4))
    args = parser.parse_args(argv)
    print(f"{'position':58} {'turns':>10} {'engine s':>9} {'ref s':>8} {'ratio':>6}")
    ratios, bad = [], 0
    try:
        for text in positions():
            ours, t_ours = timed(perft, RansomPosition.parse(text), args.depth)
            theirs, t_ref = timed(reference_perft, text, args.depth)
            if ours != theirs:
                bad += 1
                print(f"MISMATCH {text}: engine {ours}, reference {theirs}")
                continue
            ratio = t_ref / t_ours if t_ours > 0 else float("inf")
            ratios.append(ratio)
            print(f"{text[:58]:58} {ours:>10,} {t_ours:>9.2f} {t_ref:>8.2f} {ratio:>5.1f}x", flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if ratios:
        product = 1.0
        for r in ratios:
            product *= r
        print(f"geometric mean ratio: {product ** (1 / len(ratios)):.1f}x ({len(ratios)} positions, depth {args.depth})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
