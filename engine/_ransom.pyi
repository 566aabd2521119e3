"""Type stubs for the compiled engine._ransom module (ext/_ransom.pyx): King's Ransom perft over
complete turns (G8, docs/kings-ransom.md) in C, with no Python object per node (the position's
layout: ext/_ransom.pxd RansomBoard). engine/ransom/position.py's perft and divide call it."""

from engine._perft import PerftControl
from engine._position import BoardCore

def ransom_perft(
    core: BoardCore,
    face_down: int,
    hands: list[list[int]],
    discards: list[list[int]],
    depth: int,
    king_type: int,
    pawn_type: int,
    halves: tuple[int, int],
    back_rows: tuple[int, int],
    control: PerftControl | None = None,
) -> int:
    """Sequences of ``depth`` complete turns from the position on ``core`` (arena and side to move)
    with ``face_down`` (a bitboard) and per-side ``hands`` / ``discards`` (counts by type id),
    counted in C with the GIL released; ``king_type``, ``pawn_type``, ``halves`` and ``back_rows``
    as in RansomRules. ``control`` stops it (PerftStopped) and counts its leaves live."""
