"""Exhaustive verifier of Crusade & Conquer puzzles, on the independent reference generator
(tests/reference/crusade.py) only: no code of the engine (ext/, engine/) is used, so a puzzle's answer
does not rest on the search it tests.

A puzzle is a position and a number N of the solver's moves: "win within N" (checkmate, H8a, or a
Flag Bearer's step onto the opposing X, H8b). ``verify(text, n)`` proves by plain AND-OR minimax
over the reference's legal moves:

- ``solutions``: EVERY first move after which the solver wins within N moves whatever the defender
  plays (each defender reply is tried; the defender is lost only when all of them lose);
- ``faster``: whether some first move already wins within N - 1 moves (a puzzle of N has none, so
  N is its exact length).

The defender is not lost by a stalemate (H8a: a draw) nor when the solver has used its N moves.
H8c's draws cannot occur within a puzzle: positions start with a halfmove clock far from 100, and
5 plies cannot bring one position back three times. Positions met again at the same remaining depth
are merged by their text without the clocks (a memo of proven results).

    python -m tests.reference.crusade_puzzles tests/data/crusade_puzzles.toml
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass

from tests.reference.crusade import Position, apply_move, in_check, legal_moves, move_text, parse, status, x_winner

__all__ = ["Proof", "verify", "wins_within", "load", "main"]


@dataclass(frozen=True)
class Proof:
    solutions: tuple[str, ...]      # every first move that wins within n, as move texts (sorted)
    faster: bool                    # some first move wins within n - 1
    n: int


def _key(pos: Position) -> str:
    return " ".join(pos.text().split()[:3] + ([f for f in pos.text().split()[5:]]))


def _ordered(pos: Position, moves):
    """Checks, captures and moves onto the opposing X first (only for speed: every move is tried)."""
    def rank(move):
        child = apply_move(pos, move)
        return (x_winner(child) is None, not in_check(child), move.to not in pos.board)
    return sorted(moves, key=rank)


class _Solver:
    def __init__(self) -> None:
        self.memo: dict[tuple[str, int, bool], bool] = {}

    def solver_wins(self, pos: Position, n: int) -> bool:
        """The side to move forces a win within ``n`` of its moves."""
        if n <= 0:
            return False
        key = (_key(pos), n, True)
        if key not in self.memo:
            self.memo[key] = any(self.defender_lost(apply_move(pos, m), n) for m in _ordered(pos, legal_moves(pos)))
        return self.memo[key]

    def defender_lost(self, pos: Position, n: int) -> bool:
        """After the solver's move (one of its ``n``), the defender to move cannot escape a loss
        within the solver's remaining n - 1 moves."""
        state = status(pos)
        if state in ("x-win", "checkmate"):
            return True
        if state == "stalemate" or n <= 1:
            return False
        key = (_key(pos), n, False)
        if key not in self.memo:
            self.memo[key] = all(self.solver_wins(apply_move(pos, m), n - 1) for m in legal_moves(pos))
        return self.memo[key]


def wins_within(text: str, n: int) -> bool:
    """Whether the side to move in ``text`` forces a win within ``n`` of its moves."""
    return _Solver().solver_wins(parse(text), n)


def verify(text: str, n: int) -> Proof:
    """The proof of a puzzle (module docstring): every first move that wins within ``n``, and
    whether a faster win exists."""
    pos = parse(text)
    solver = _Solver()
    wins = sorted(move_text(m) for m in legal_moves(pos) if solver.defender_lost(apply_move(pos, m), n))
    faster = n > 1 and any(solver.defender_lost(apply_move(pos, m), n - 1) for m in legal_moves(pos))
    return Proof(tuple(wins), faster, n)


def load(path: str) -> list[dict]:
    """The puzzles of a TOML file: [[puzzle]] tables with id, position, moves (N), solutions."""
    with open(path, "rb") as handle:
        return tomllib.load(handle)["puzzle"]


def main(argv=None) -> int:
    """Verify every puzzle of a file: the solutions listed are exactly the proven ones and no win
    is faster. Prints one line per puzzle; exit status 1 if any differs."""
    argv = sys.argv[1:] if argv is None else argv
    bad = 0
    for puzzle in load(argv[0]):
        proof = verify(puzzle["position"], puzzle["moves"])
        ok = list(proof.solutions) == sorted(puzzle["solutions"]) and not proof.faster
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {puzzle['id']}: win in {proof.n}: {' '.join(proof.solutions) or '-'}"
              f"{' (a faster win exists)' if proof.faster else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
