"""engine.codes is the one home of the kernel's encodings: every field agrees with the compiled
decoder (ext/_board.pxd) on the orders of many positions, codes round-trip, and the constants the
Python side repeats (order kinds, status flags and letters, movement mode bits, MATE) are the
compiled ones."""

from pathlib import Path

import pytest

from engine import _position, _search, _tables, codes, movespec
from engine.board import alphabeta
from engine.notation import STATUS_FLAGS, format_position, parse_position
from engine.position import Position

FAIRY = Path(__file__).parent / "data" / "perft_fairy.epd"


def _epd_positions(comment: str) -> str:
    """The position text on the line after the comment ``# <comment>`` of the fairy suite."""
    lines = FAIRY.read_text().splitlines()
    return lines[lines.index(f"# {comment}") + 1].split(";")[0].strip()


POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    _epd_positions("fairy middlegame"),
    _epd_positions("Foot promotions to fairy types"),
    # deploys from both Barracks, promotions with a short Stock, an Oracle, a Spy, a Charger
    "4k3/1P4P1/8/3o4/8/2O5/8/Y3K2L[QRNPqb] w - - 0 1 stock:Q1R1N1B1",
    "4k3/1P4P1/8/3o4/8/2O5/8/Y3K2L[QRNPqb] b - - 0 1",
    # an expansion unit (cylindrical, a ~ token) and a Courier about to promote
    "4k3/~P7/8/8/3~N4/8/8/4K3[~B] w - - 0 1",
]


def _orders(text: str) -> list[int]:
    position = Position.from_text(text)
    return [o.code for o in position.legal_orders()] + [o.code for o in position.legal_orders(cylindrical=True)]


def test_the_positions_cover_every_kind_and_promotions():
    kinds, promoted = set(), 0
    for text in POSITIONS:
        for code in _orders(text):
            kinds.add(codes.order_kind(code))
            promoted += codes.order_promotion(code) >= 0
    assert kinds == {codes.MARCH, codes.ATTACK, codes.DEPLOY, codes.SHOOT, codes.SWAP}
    assert promoted > 10


@pytest.mark.parametrize("text", POSITIONS)
def test_every_field_agrees_with_the_kernel_decoder(text):
    for code in _orders(text):
        kind, origin, dest, unit, promotion = _position.decode_order(code)
        assert codes.decode_order(code) == (kind, origin, dest, unit, promotion)
        assert codes.order_kind(code) == kind
        assert codes.order_origin(code) == origin
        assert codes.order_dest(code) == dest
        assert codes.order_unit(code) == unit
        assert codes.order_promotion(code) == promotion
        assert code < codes.ORDER_LIMIT
        assert codes.order_unit_square(code) == (origin if kind == codes.SHOOT else dest)
        assert codes.order_moves_unit_to_dest(code) == (kind not in (codes.SHOOT, codes.SWAP))


@pytest.mark.parametrize("text", POSITIONS)
def test_codes_round_trip(text):
    for code in _orders(text):
        fields = codes.decode_order(code)
        assert codes.encode_order(*fields) == code
        assert _position.encode_order(*fields) == code


def test_encode_agrees_with_the_kernel_on_every_field_value():
    for kind in range(5):
        for square in (0, 7, 36, 63):
            for unit in (0, 5, 33):
                for promotion in (-1, 0, 33):
                    code = codes.encode_order(kind, origin=63 - square, dest=square, unit=unit, promotion=promotion)
                    assert code == _position.encode_order(kind, 63 - square, square, unit, promotion)
                    assert codes.decode_order(code) == (kind, 63 - square, square, unit, promotion)


def test_kinds_and_status_flags_are_the_compiled_ones():
    for name, value in _position.KERNEL_CODES.items():
        assert getattr(codes, name) == value, name
    assert codes.KIND_NAMES == ("march", "attack", "deploy", "shoot", "swap")
    assert len(codes.STATUS_LETTERS) == codes.N_STATUS


def test_status_letters_are_what_position_text_reads_and_writes():
    assert STATUS_FLAGS == {letter: flag for flag, letter in enumerate(codes.STATUS_LETTERS)}
    catalog = Position().catalog
    for flag, letter in enumerate(codes.STATUS_LETTERS):
        text = f"4k3/8/8/8/4P3/8/8/4K3 w - - 0 1 status:e4{letter}"
        data = parse_position(text, catalog)
        assert data.status == [(1 << 28) if i == flag else 0 for i in range(codes.N_STATUS)]
        assert format_position(data, catalog) == text
        position = Position.from_text(text)
        assert position.data().status[flag] == 1 << 28
        assert position.to_text() == text


def test_movement_mode_bits_are_the_compiled_ones():
    for name, value in _tables.MODES.items():
        assert getattr(movespec, name) == value, name


def test_mate_score_is_declared_once():
    from engine.interfaces import uci

    assert alphabeta.MATE == _search.MATE_SCORE
    assert uci.MATE is alphabeta.MATE
    assert uci.uci_score(alphabeta.MATE - 3) == "mate 2"


def test_squares_and_immune_flag():
    assert list(codes.squares(0)) == []
    assert list(codes.squares((1 << 63) | (1 << 5) | 1)) == [0, 5, 63]
    assert codes.immune_flag(0) == codes.ST_IMMUNE_BLUE
    assert codes.immune_flag(1) == codes.ST_IMMUNE_YELLOW
