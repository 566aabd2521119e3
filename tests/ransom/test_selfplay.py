"""King's Ransom selfplay's summary (engine/ransom/selfplay.py): the results name the players."""

from __future__ import annotations

from engine.ransom.selfplay import ransom_seeds


def test_results_name_the_player_of_each_ending():
    # Seeds 12-17 (random decisions, invariants unchecked) end in King captures, a checkmate and a
    # stalemate (RULINGS G9). Each kind of ending is counted per player, by name, without a ruling
    # ID a reader of the summary cannot look up.
    stats = ransom_seeds(12, 6, check=False)
    kinds = set(stats.results)
    assert sum(stats.results.values()) == 6 and stats.errors == 0
    assert any(k in kinds for k in ("Red captures the King", "Blue captures the King"))
    assert any(k in kinds for k in ("Red is checkmated", "Blue is checkmated"))
    assert any(k in kinds for k in ("draw: Red is stalemated", "draw: Blue is stalemated"))
    assert not any("X" in k.split() or "(G" in k for k in kinds), kinds
