"""Guarded squares (ext/_board.pxd ``guarded``): a colour's units on them cannot be captured by any
kind of capture, as an immune unit (The Last Stand guards Blue's first rank, C13). The mask is a
rule of the game: not in the Zobrist key, kept by copies, pushes and set-up."""

import pytest

from engine.board.alphabeta import AlphaBeta
from engine.notation import BLUE, YELLOW, parse_position
from engine.position import Position, load_core

RANK_1 = 0xFF


def _guarded(text: str, mask: int) -> Position:
    pos = Position.from_text(text)
    pos.core.set_guarded(BLUE, mask)
    return pos


def _texts(pos: Position) -> set[str]:
    return {o.text() for o in pos.legal_orders()}


def test_a_queen_cannot_capture_a_rook_on_a_guarded_square():
    text = "q3k3/8/8/8/8/8/8/R3K3 b - - 0 1"
    assert "a8a1" in _texts(_guarded(text, 0))
    assert Position.from_text(text).is_threatened("a1", "w")
    guarded = _guarded(text, RANK_1)
    assert "a8a1" not in _texts(guarded) and "a8a2" in _texts(guarded)
    assert not guarded.is_threatened("a1", "w")
    assert guarded.is_threatened("a2", "w")            # only the guarded squares are safe
    # Blue's mask does not protect Yellow's units.
    yellow = Position.from_text("q3k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    yellow.core.set_guarded(BLUE, RANK_1)
    assert "a1a8" in _texts(yellow)
    yellow.core.set_guarded(YELLOW, 1 << 56)
    assert "a1a8" not in _texts(Position.from_core(yellow.core, yellow.catalog))


def test_an_oracle_cannot_shoot_onto_a_guarded_square():
    text = "4k3/8/8/8/8/2o5/8/2R1K3 b - - 0 1"   # the Oracle on c3 shoots 2 away (B13): c1 among them
    assert "c3c1" in _texts(_guarded(text, 0))
    guarded = _guarded(text, RANK_1)
    assert "c3c1" not in _texts(guarded)
    assert {o.kind for o in _guarded(text, 0).legal_orders() if o.text() == "c3c1"} == {"shoot"}
    assert not guarded.is_threatened("c1", "w") and Position.from_text(text).is_threatened("c1", "w")


def test_a_charger_stops_before_a_guarded_unit():
    # The Charger on a4 charges south through the Pawn on a3 (B12); the Rook on a1 ends the charge
    # only when it may be captured.
    text = "4k3/8/8/8/l7/P7/8/R3K3 b - - 0 1"
    free, guarded = _guarded(text, 0), _guarded(text, RANK_1)
    assert {"a4a3", "a4a2", "a4a1"} <= _texts(free)
    assert {"a4a3", "a4a2"} <= _texts(guarded) and "a4a1" not in _texts(guarded)
    assert free.is_threatened("a1", "w") and not guarded.is_threatened("a1", "w")
    assert guarded.is_threatened("a3", "w")


def test_the_search_sees_guarded_squares_as_uncapturable():
    text = "q3k3/8/8/8/8/8/8/R3K3 b - - 0 1"
    searcher = AlphaBeta(tt_megabytes=1)
    for mask in (0, RANK_1):
        pos = _guarded(text, mask)
        fast, slow = searcher._kernel.coverage_check(pos.core, YELLOW)
        assert fast == slow
        assert bool(slow & 1) == (mask == 0)
        best = searcher.search(pos, depth=2).best.text()
        assert (best == "a8a1") == (mask == 0)
        searcher.new_game()


def test_the_mask_is_not_in_the_key_and_travels_with_the_board():
    pos = Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    key = pos.key
    pos.core.set_guarded(BLUE, RANK_1)
    assert pos.key == key == pos.core.recomputed_key()
    assert pos.core.guarded(BLUE) == RANK_1 and pos.core.guarded(YELLOW) == 0
    assert pos.copy().core.guarded(BLUE) == RANK_1
    pos.push("e2e4")
    assert pos.core.guarded(BLUE) == RANK_1
    pos.pop()
    load_core(pos.core, parse_position("4k3/8/8/8/8/8/8/4K3 w - - 0 1", pos.catalog))
    assert pos.core.guarded(BLUE) == RANK_1
    with pytest.raises(ValueError, match="colour"):
        pos.core.set_guarded(2, 0)


def test_perft_is_unchanged_without_a_mask():
    text = "r1c1kd1r/pppmpppp/2z5/8/3E4/2H5/PPPTPPPP/R2AK2R w - - 0 1 promote:NBRQZCDHMEAT"
    assert Position.from_text(text).perft(3) == 63510
