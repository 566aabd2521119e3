#!/usr/bin/env python3
"""The alpha-beta's solve rate on Crusade & Conquer's puzzle suite (tests/data/crusade_puzzles.toml,
each answer proven by tests/reference/crusade_puzzles.py), at a time per move.

    python tools/crusade_puzzles.py                  # 1 s per move
    python tools/crusade_puzzles.py --seconds 0.1 --only flight-1,race-2

A puzzle is solved when the AI's first move is one of the proven solutions (every first move that
wins within the puzzle's N moves) and, playing the puzzle out with the AI on both sides at the same
time per move, the solver wins within N moves. One line per puzzle, then the rate.
"""
from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.crusade.search import AlphaBetaBot  # noqa: E402
from engine.crusade.state import CrusadeConfig, CrusadeState  # noqa: E402

SUITE = ROOT / "tests" / "data" / "crusade_puzzles.toml"


def load(path: Path) -> list[dict]:
    with open(path, "rb") as handle:
        return tomllib.load(handle)["puzzle"]


def solve(puzzle: dict, seconds: float) -> tuple[bool, bool, list[str], float]:
    """(first move right, won within N, the moves played, seconds spent)."""
    state = CrusadeState(CrusadeConfig(position=puzzle["position"]))
    solver = state.current_player()
    bots = {solver: AlphaBetaBot(depth=None, seconds=seconds), 1 - solver: AlphaBetaBot(depth=None, seconds=seconds)}
    played: list[str] = []
    start = time.perf_counter()
    for _ in range(2 * puzzle["moves"] - 1):
        if state.is_terminal():
            break
        text = state.action_text(bots[state.current_player()].choose(state))
        played.append(text)
        state.apply_text(text)
    first = bool(played) and played[0] in puzzle["solutions"]
    return first, state.winner == solver, played, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per move (default 1)")
    parser.add_argument("--file", default=str(SUITE), help="the puzzle file (default: the suite)")
    parser.add_argument("--only", help="puzzle ids, separated by commas")
    args = parser.parse_args(argv)
    if not args.seconds > 0:
        parser.error("--seconds must be positive")
    puzzles = load(Path(args.file))
    if args.only:
        wanted = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(wanted) - {p["id"] for p in puzzles})
        if unknown:
            parser.error(f"--only: no puzzle {', '.join(unknown)} in {args.file}")
        puzzles = [p for p in puzzles if p["id"] in wanted]
    solved = 0
    for puzzle in puzzles:
        first, won, played, spent = solve(puzzle, args.seconds)
        ok = first and won
        solved += ok
        print(f"{'solved' if ok else 'FAILED'}  {puzzle['id']:<10} win in {puzzle['moves']}  "
              f"played {' '.join(played):<24} expected {'/'.join(puzzle['solutions'])}  {spent:5.2f} s", flush=True)
    print(f"solve rate at {args.seconds:g} s per move: {solved}/{len(puzzles)} ({100 * solved / max(1, len(puzzles)):.0f}%)")
    return 0 if solved == len(puzzles) else 1


if __name__ == "__main__":
    raise SystemExit(main())
