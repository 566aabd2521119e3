#!/usr/bin/env python3
"""King's Ransom perft: the engine's C kernel (engine._ransom, ext/_ransom.pyx), the engine's Python
perft (engine/ransom/position.py perft_python, over kernel calls) and the slow reference generator
(tests/reference/ransom.py, plain Python), on the same positions in one run.

    python tools/compare_ransom_perft.py              # depth 3 on every line of tests/data/ransom_perft.epd
    python tools/compare_ransom_perft.py --depth 2    # quicker

The counts must agree (the script exits 1 otherwise). Printed per position: turns, seconds for each,
and the speed-ups C / Python and C / reference (Python / reference in the summary). All three count
the last turn without making it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.ransom.position import RansomPosition, kernel_perft, perft_python  # noqa: E402
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
    print(f"{'position':44} {'turns':>10} {'C s':>7} {'Python s':>9} {'ref s':>8} {'C/Py':>7} {'C/ref':>7}")
    ratios: dict[str, list[float]] = {"C / Python": [], "C / reference": [], "Python / reference": []}
    bad = 0
    try:
        for text in positions():
            c, t_c = timed(kernel_perft, RansomPosition.parse(text), args.depth)
            py, t_py = timed(perft_python, RansomPosition.parse(text), args.depth)
            ref, t_ref = timed(reference_perft, text, args.depth)
            if not c == py == ref:
                bad += 1
                print(f"MISMATCH {text}: C {c}, Python {py}, reference {ref}")
                continue
            t_c = max(t_c, 1e-6)
            ratios["C / Python"].append(t_py / t_c)
            ratios["C / reference"].append(t_ref / t_c)
            ratios["Python / reference"].append(t_ref / t_py)
            print(f"{text[:44]:44} {c:>10,} {t_c:>7.3f} {t_py:>9.2f} {t_ref:>8.2f} {t_py / t_c:>6.0f}x "
                  f"{t_ref / t_c:>6.0f}x", flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    for name, values in ratios.items():
        if values:
            product = 1.0
            for r in values:
                product *= r
            print(f"geometric mean speed-up {name}: {product ** (1 / len(values)):.1f}x "
                  f"({len(values)} positions, depth {args.depth})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
