"""tools/fairy_armies.py: the random fairy Point-Buy start positions of tools/vs_fairy_stockfish.py
--armies fairy obey the budget and RULINGS C19, use only what tools/fairy-stockfish-ftc.ini can
express, and Fairy-Stockfish (pyffish, the independent oracle) lists the same legal orders in them."""

import random

import pytest

from engine.catalog import default_catalog
from engine.position import Position
from tests.support import ROOT
from tools import fairy_armies, oracles

CATALOG = default_catalog()
UNITS = {unit.token: unit for unit in CATALOG.units}
INI = ROOT / "tools" / "fairy-stockfish-ftc.ini"
# Written out from the ini's header (its letter table), not from the module under test.
EXPRESSIBLE = set("KQRBNPZCDHMEAT")
FOOT = {token for token, unit in UNITS.items() if unit.is_foot}


@pytest.fixture(scope="module")
def ffish():
    pytest.importorskip("pyffish")
    return fairy_armies.load_pyffish(INI)


def check_start(start: fairy_armies.FairyStart, budget: int) -> None:
    """The start position obeys the set-up rules (C8, C19) and the ini's limits (its header)."""
    position = Position.from_text(start.text)
    # Pawns on both second ranks, exactly.
    for file in "abcdefgh":
        assert position.unit_at(f"{file}2") == ("P", "w"), start.text
        assert position.unit_at(f"{file}7") == ("P", "b"), start.text
    picked = {"w": [], "b": []}
    for rank in range(1, 9):
        for file in "abcdefgh":
            unit = position.unit_at(f"{file}{rank}")
            if unit is None or rank in (2, 7):
                continue
            token, colour = unit
            assert rank == (1 if colour == "w" else 8), f"{token} on {file}{rank}: picks go to the first rank ({start.text})"
            picked[colour].append(token)
    for colour in "wb":
        barracks = position.barracks(colour)
        assert not FOOT & set(barracks), f"a Foot unit in a Barracks: {start.text}"
        assert "K" not in barracks, f"a King in a Barracks: {start.text}"
        picked[colour] += [token for token, n in barracks.items() for _ in range(n)]
        assert "K" in picked[colour] and all(t in EXPRESSIBLE for t in picked[colour]), start.text
    # Budget and C19: each side spent at most its budget and stopped only when nothing it could still
    # afford was left in the Stock (the inventory minus every unit on the board and in the Barracks;
    # any unit fits the Barracks, so affordable and in the Stock means placeable).
    on_board = [position.unit_at(f"{f}{r}") for f in "abcdefgh" for r in range(1, 9)]
    in_stock = {token: unit.stock for token, unit in UNITS.items()}
    for unit in filter(None, on_board):
        in_stock[unit[0]] -= 1
    for colour in "wb":
        for token, n in position.barracks(colour).items():
            in_stock[token] -= n
    for colour in "wb":
        left = budget - sum(UNITS[t].price for t in picked[colour])
        assert left >= 0, f"over budget by {-left}: {start.text}"
        buyable = [u.token for u in CATALOG.base_types if u.price <= left and in_stock[u.token] > 0]
        assert not buyable, f"{colour} stopped with {left} points and {buyable} in the Stock: {start.text}"
    assert start.variant == ("ftcd" if position.barracks("w") or position.barracks("b") else "ftcf")
    # The referee promotes as the variant does (ftcf's promotionPieceTypes nbrqacdhmeos, in our
    # tokens) and its Stock of those types cannot run out.
    assert start.text.split()[-1] == "promote:NBRQZCDHMEAT"
    assert all(position.stock()[t] == fairy_armies.UNBOUNDED_STOCK for t in "NBRQZCDHMEAT")


def test_a_thousand_fairy_starts_obey_the_budget_c19_and_the_ini():
    variants = set()
    for seed in range(1000):
        start = fairy_armies.draw_fairy_start(random.Random(seed))
        check_start(start, 38)
        variants.add(start.variant)
    assert variants == {"ftcf", "ftcd"}
    # Another budget is another army size.
    for seed in range(50):
        check_start(fairy_armies.draw_fairy_start(random.Random(seed), budget=20), 20)


def test_the_same_seed_gives_the_same_start():
    assert fairy_armies.draw_fairy_start(random.Random(7)) == fairy_armies.draw_fairy_start(random.Random(7))
    assert fairy_armies.draw_fairy_start(random.Random(7)) != fairy_armies.draw_fairy_start(random.Random(8))


def test_pyffish_lists_the_same_orders_in_fairy_starts(ffish):
    """Depth 1 (C8) on 50 start positions drawn without the pyffish check, then along a random
    20-order line from each, by Fairy-Stockfish through the ini (the oracle) and by our Position."""
    compared = 0
    for seed in range(50):
        rng = random.Random(1000 + seed)
        start = fairy_armies.draw_fairy_start(rng)             # no ffish: the check is not what we test
        fen = oracles.to_ffish_fen(start.text, start.variant)
        position = Position.from_text(start.text)
        path: list[str] = []
        for _ in range(20):
            ours = sorted(order.text() for order in position.legal_orders())
            theirs = sorted(oracles.from_ffish_move(m) for m in ffish.legal_moves(start.variant, fen, path))
            assert ours == theirs, (start.text, path)
            compared += 1
            if position.is_over() or not ours:
                break
            move = rng.choice(ours)
            position.push(move)
            path.append(fairy_armies.to_ffish_move(move))
    assert compared >= 50 * 10


def test_disagreement_names_the_orders_only_one_side_allows(ffish):
    # With the promotion types cut to NBRQ we no longer allow the fairy promotions Fairy-Stockfish lists.
    text = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 stock:N9B9R9Q9Z9C9D9H9M9E9A9T9 promote:NBRQ"
    only_ours, only_theirs = fairy_armies.disagreement(text, "ftcf", ffish)
    assert only_ours == set() and only_theirs == {f"b7b8{t}" for t in "zcdhmeat"}
    assert fairy_armies.disagreement(text.replace("promote:NBRQ", "promote:NBRQZCDHMEAT"), "ftcf", ffish) == (set(), set())


def test_moves_translate_both_ways():
    for token in EXPRESSIBLE - {"P", "K"}:
        letter = oracles.TOKEN_TO_FFISH[token]
        assert fairy_armies.to_ffish_move(f"{token}@e1") == f"{letter}@e1"
        assert fairy_armies.to_ffish_move(f"e7e8{token.lower()}") == f"e7e8{letter.lower()}"
        for move in (f"{token}@e1", f"e7e8{token.lower()}"):
            assert fairy_armies.from_ffish_move(fairy_armies.to_ffish_move(move)) == move
    assert fairy_armies.to_ffish_move("e2e4") == "e2e4"
    assert fairy_armies.to_ffish_move("A@d1") == "O@d1" and fairy_armies.to_ffish_move("e7e8t") == "e7e8s"
    assert fairy_armies.from_ffish_move("(none)") == "(none)"        # left to the referee to reject


def test_missing_variants_file_is_a_clear_error(tmp_path):
    pytest.importorskip("pyffish")
    with pytest.raises(fairy_armies.ArmyError, match="cannot read the variants file"):
        fairy_armies.load_pyffish(tmp_path / "none.ini")
