"""Board shapes: the kernel's tables built for a catalog's [board] (King's Ransom's 3x6 arena).

Squares keep the 8-wide numbering (square = rank * 8 + file): a1 = 0, b1 = 1, c1 = 2, a2 = 8, ...,
c6 = 42. Every expected set below is derived by hand in the comment above it; nothing is computed by
the engine. Colour 0 (Red / Blue) moves toward rank 6, colour 1 toward rank 1.
"""

from __future__ import annotations

import random

import pytest

from engine import perft
from engine._position import BoardCore, decode_order
from engine.catalog import BoardShape, Catalog, CatalogError, default_catalog, ransom_catalog

FILES = "abc"
ARENA = [r * 8 + f for r in range(6) for f in range(3)]


def sq(name: str) -> int:
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def name(square: int) -> str:
    return "abcdefgh"[square & 7] + str((square >> 3) + 1)


def names(text: str) -> set[str]:
    return set(text.split())


def core_with(units, side=0, catalog=None, barracks=None, stock=None, promote_types=0) -> BoardCore:
    """units: {square name: (token, colour)}."""
    catalog = catalog or ransom_catalog()
    n = len(catalog.units)
    core = BoardCore(catalog.tables)
    core.setup([(sq(s), catalog[token].id, colour) for s, (token, colour) in units.items()],
               barracks or [[0] * n, [0] * n], stock or [0] * n, promote_types, side, 0, 1, [0] * 5)
    return core


def targets(core: BoardCore, square: str, cylindrical=False) -> set[str]:
    """Destinations of the orders issued from ``square`` (no Sovereign needed: the test hook)."""
    out = set()
    for code in core.generate(cylindrical=cylindrical, over_without_sovereign=False):
        kind, origin, dest, unit, promo = decode_order(code)
        if origin == sq(square):
            out.add(name(dest))
    return out


def lone(token, square, colour=0, cylindrical=False) -> set[str]:
    return targets(core_with({square: (token, colour)}, side=colour), square, cylindrical)


# ------------------------------------------------------------------------------------ the catalog

def test_ransom_catalog_shape_and_cards():
    cat = ransom_catalog()
    assert cat.board == BoardShape(3, 6)
    assert [u.token for u in cat.units] == ["K", "Q", "R", "B", "N", "I", "P"]
    # The Deck count per colour (RULINGS G2, provisional): K1 Q1 R2 B2 N3 I3 P12 = 24 cards.
    assert [u.stock for u in cat.units] == [1, 1, 2, 2, 3, 3, 12]
    assert all("stock" in u.provisional for u in cat.units)
    assert [u.is_sovereign for u in cat.units] == [True, False, False, False, False, False, False]
    assert not any(u.is_foot for u in cat.units)
    assert cat is ransom_catalog()                          # cached like default_catalog
    # The tables: 3 files x 6 ranks; each rank is 0b111 shifted by 8 * rank.
    assert (cat.tables.files, cat.tables.ranks) == (3, 6)
    assert cat.tables.board == 0x070707070707 == cat.board.mask
    assert sorted(cat.board.squares) == ARENA


def test_units_toml_is_still_8x8():
    cat = default_catalog()
    assert cat.board == BoardShape(8, 8)
    assert (cat.tables.files, cat.tables.ranks, cat.tables.board) == (8, 8, (1 << 64) - 1)


_UNIT = '[[unit]]\ntoken = "K"\nname = "King"\nclasses = ["Sovereign"]\nprice = 0\nstock = 1\nmoves = "K"\n'


@pytest.mark.parametrize("board, message", [
    ("files = 9", "field 'files' must be 1..8, got 9"),
    ("files = 0", "field 'files' must be 1..8, got 0"),
    ("ranks = 1", "field 'ranks' must be 2..8, got 1"),
    ("ranks = 9", "field 'ranks' must be 2..8, got 9"),
    ('files = "x"', "field 'files' must be int, got 'x'"),
    ("ranks = true", "field 'ranks' must be int, got True"),
    ("width = 3", "unknown field 'width'"),
])
def test_bad_board_table_names_file_table_and_field(board, message):
    with pytest.raises(CatalogError) as info:
        Catalog.from_toml(f"[board]\n{board}\n\n{_UNIT}", "my.toml")
    text = str(info.value)
    assert text.startswith("my.toml: table [board]: "), text
    assert message in text


def test_board_not_a_table():
    with pytest.raises(CatalogError, match=r"my.toml: table \[board\]: expected a table"):
        Catalog.from_toml(f"board = 3\n{_UNIT}", "my.toml")


def test_board_defaults():
    # A [board] with one field: the other stays 8. No [board]: 8x8.
    assert Catalog.from_toml(f"[board]\nfiles = 5\n\n{_UNIT}").board == BoardShape(5, 8)
    assert Catalog.from_toml(_UNIT).board == BoardShape(8, 8)


# ------------------------------------------------------------------- hand-derived moves on 3x6

# Each: (token, square, colour, expected destinations on the otherwise empty arena).
LONE = [
    # Rook a1: rank 1 b1 c1 (d1 is off the arena); file a2..a6 (a7 is off): 7 squares.
    ("R", "a1", 0, "b1 c1 a2 a3 a4 a5 a6"),
    # Queen b3: file b1 b2 b4 b5 b6 (5); rank a3 c3 (2); one diagonal step each way, the next step
    # leaves the 3 files: a2 c2 a4 c4 (4). 11 squares.
    ("Q", "b3", 0, "b1 b2 b4 b5 b6 a3 c3 a2 c2 a4 c4"),
    # Knight a1: (+1,+2) b3, (+2,+1) c2; every other leap has a negative file or rank.
    ("N", "a1", 0, "b3 c2"),
    # Knight b3: (+-1,+-2) a1 c1 a5 c5; (+-2,+-1) lands on file -1 or 3: off the arena.
    ("N", "b3", 0, "a1 c1 a5 c5"),
    # King b1: a1 c1 and the three squares of rank 2.
    ("K", "b1", 0, "a1 c1 a2 b2 c2"),
    # Bishop a1: b2 c3, then d4 is off the arena; the other diagonals leave at once.
    ("B", "a1", 0, "b2 c3"),
    # Prince b1: the King's move.
    ("I", "b1", 0, "a1 c1 a2 b2 c2"),
    # Prince c6 for colour 1: b6 b5 c5 (same step set; a 180-degree turn of a King is a King).
    ("I", "c6", 1, "b6 b5 c5"),
    # Pawn colour 0 on b2: one step forward, b3 only (no double step, no captures on empty squares).
    ("P", "b2", 0, "b3"),
    # Pawn colour 0 on its back row b1: still only b2 (never two squares, "fmW fcF" has no D).
    ("P", "b1", 0, "b2"),
    # Pawn colour 1 on b5: forward is toward rank 1: b4 only.
    ("P", "b5", 1, "b4"),
    # Pawn colour 1 on b6 (its back row): b5 only.
    ("P", "b6", 1, "b5"),
    # Pawn colour 0 on b6: forward is rank 7, off the arena; no move (the kernel never promotes it).
    ("P", "b6", 0, ""),
]


@pytest.mark.parametrize("token, square, colour, expected", LONE,
                         ids=[f"{t}-{s}-{c}" for t, s, c, _ in LONE])
def test_lone_unit_on_the_arena(token, square, colour, expected):
    assert lone(token, square, colour) == names(expected)


def test_pawn_captures_diagonally_forward_only_onto_enemies():
    # Colour 0 Pawn b2, enemy a3, own c3, enemy b3 in front: the march is blocked; a3 is taken; c3
    # (own) is not; an enemy beside it (a2) or behind (c1) is not a Pawn's capture.
    core = core_with({"b2": ("P", 0), "a3": ("N", 1), "c3": ("N", 0), "b3": ("R", 1),
                      "a2": ("Q", 1), "c1": ("Q", 1)})
    assert targets(core, "b2") == {"a3"}
    # Colour 1 Pawn b5, enemies a4 and c4, b4 empty: b4 a4 c4.
    core = core_with({"b5": ("P", 1), "a4": ("B", 0), "c4": ("B", 0)}, side=1)
    assert targets(core, "b5") == {"b4", "a4", "c4"}


def test_pawn_reaching_the_last_rank_is_not_promoted_by_the_kernel():
    # The Pawn is not Foot: b5-b6 is one plain order even with every promotion type allowed and
    # a full Stock (King's Ransom's exchange is the game layer's).
    cat = ransom_catalog()
    n = len(cat.units)
    core = core_with({"b5": ("P", 0)}, stock=[5] * n, promote_types=(1 << n) - 1)
    codes = [decode_order(c) for c in core.generate(over_without_sovereign=False)]
    assert [(name(o), name(d), p) for _, o, d, _, p in codes] == [("b5", "b6", -1)]


def test_rides_stop_at_cards():
    # Rook a1, own Knight a3, enemy Bishop c1: a2 (then a3 own stops); b1 c1 (captured).
    core = core_with({"a1": ("R", 0), "a3": ("N", 0), "c1": ("B", 1)})
    assert targets(core, "a1") == {"a2", "b1", "c1"}


def test_prince_is_not_a_sovereign():
    # Red: King c1, Rook a1. Blue: King c6, Prince a6. The Rook takes the Prince (a2..a5 empty):
    # Blue's King still stands, so the game goes on: Blue has orders (King c6: b6 b5 c5).
    cat = ransom_catalog()
    core = core_with({"c1": ("K", 0), "a1": ("R", 0), "c6": ("K", 1), "a6": ("I", 1)})
    take = [c for c in core.generate() if decode_order(c)[1:3] == (sq("a1"), sq("a6"))]
    assert len(take) == 1
    core.push(take[0])
    assert core.sovereign_present(1) and core.sovereign_present(0)
    assert core.unit_on(sq("a6")) == (cat["R"].id, 0)
    assert {name(decode_order(c)[2]) for c in core.generate()} == {"b6", "b5", "c5"}
    # The same with Blue's King on a6: taking it ends the game (no orders for anyone).
    core = core_with({"c1": ("K", 0), "a1": ("R", 0), "a6": ("K", 1), "c6": ("I", 1)})
    take = [c for c in core.generate() if decode_order(c)[1:3] == (sq("a1"), sq("a6"))]
    core.push(take[0])
    assert not core.sovereign_present(1)
    assert core.generate() == []


# ------------------------------------------------------------------------- nothing leaves the arena

def test_no_target_ever_leaves_the_arena():
    """Every unit type from each of the 18 squares, both colours, flat and cylindrical, on empty and
    random occupancies: no destination (and no capture reach) outside the 3x6 mask."""
    cat = ransom_catalog()
    mask = cat.tables.board
    rng = random.Random(20261201)
    n = len(cat.units)
    checked = 0
    for unit in cat.units:
        for square in ARENA:
            for colour in (0, 1):
                for trial in range(4):
                    others = [s for s in ARENA if s != square and trial and rng.random() < 0.35]
                    units = [(square, unit.id, colour)]
                    units += [(s, rng.randrange(n), rng.randrange(2)) for s in others]
                    core = BoardCore(cat.tables)
                    core.setup(units, [[0] * n, [0] * n], [0] * n, 0, colour, 0, 1, [0] * 5)
                    for cyl in (False, True):
                        for code in core.generate(cylindrical=cyl, over_without_sovereign=False):
                            kind, origin, dest, _, _ = decode_order(code)
                            assert (mask >> origin) & 1 and (mask >> dest) & 1, (unit.token, square, code)
                        reach = core.unit_attacks(square, cylindrical=cyl)
                        assert reach & ~mask == 0, (unit.token, name(square), colour, cyl, hex(reach))
                        checked += 1
    assert checked == 7 * 18 * 2 * 4 * 2


def test_setup_refuses_a_unit_off_the_arena():
    cat = ransom_catalog()
    n = len(cat.units)
    core = core_with({"b2": ("K", 0)})
    before = core.state()
    for square, label in ((3, "d1"), (sq("a7"), "a7"), (63, "h8"), (64, "64")):
        with pytest.raises(ValueError, match=f"square {label} is off the 3x6 board"):
            core.setup([(0, 0, 0), (square, cat["R"].id, 1)], [[0] * n, [0] * n], [0] * n, 0, 0, 0, 1, [0] * 5)
        assert core.state() == before                        # refused before anything changed


# --------------------------------------------------------------------------------- the cylinder

@pytest.mark.parametrize("token, square, blockers, flat, cyl", [
    # Rook a1 on the empty arena: flat b1 c1 a2..a6. On the cylinder rank 1 is a ring a1 b1 c1: east
    # b1 c1, west c1 b1, both stop before re-entering a1: the same 7 squares.
    ("R", "a1", {}, "b1 c1 a2 a3 a4 a5 a6", "b1 c1 a2 a3 a4 a5 a6"),
    # Rook a1 with its own Knight on b1: flat only the a-file; the cylinder adds c1 (west, wrapping)
    # and stops at b1 (own).
    ("R", "a1", {"b1": ("N", 0)}, "a2 a3 a4 a5 a6", "c1 a2 a3 a4 a5 a6"),
    # King a1: flat a2 b1 b2; wrapping west adds c1 c2.
    ("K", "a1", {}, "a2 b1 b2", "a2 b1 b2 c1 c2"),
    # Knight a1: flat b3 c2; wrapping: (-1,+2) -> file -1 = c: c3; (-2,+1) -> file -2 = b: b2.
    ("N", "a1", {}, "b3 c2", "b3 c2 c3 b2"),
    # Bishop a1: flat b2 c3. Cylinder NE: b2 c3 a4 b5 c6; NW: c2 b3 a4 c5 b6 (a4 on both): 9 squares.
    ("B", "a1", {}, "b2 c3", "b2 c3 a4 b5 c6 c2 b3 c5 b6"),
])
def test_cylinder_wraps_modulo_three_files(token, square, blockers, flat, cyl):
    units = {square: (token, 0), **blockers}
    assert targets(core_with(units), square) == names(flat)
    assert targets(core_with(units), square, cylindrical=True) == names(cyl)


# ----------------------------------------------- the first and last ranks follow the shape (Foot)

_FOOT_3X6 = """
[board]
files = 3
ranks = 6

[[unit]]
token = "K"
name = "King"
classes = ["Sovereign"]
price = 0
stock = 1
moves = "K"

[[unit]]
token = "Q"
name = "Queen"
price = 9
stock = 1
moves = "Q"

[[unit]]
token = "P"
name = "Pawn"
classes = ["Foot"]
price = 1
stock = 8
moves = "fmW ifmnD fcF"
"""


def test_initial_rank_promotion_and_deploy_zones_follow_the_shape():
    cat = Catalog.from_toml(_FOOT_3X6, "foot3x6.toml")
    q, p = cat["Q"].id, cat["P"].id
    # Double step (MODE_INITIAL: the owner's first or second rank). Colour 0 on b2: b3 b4.
    assert targets(core_with({"b2": ("P", 0)}, catalog=cat), "b2") == {"b3", "b4"}
    # Colour 1's first two ranks are 6 and 5: from b5 (its second rank) b4 b3; from b4 only b3.
    assert targets(core_with({"b5": ("P", 1)}, 1, cat), "b5") == {"b4", "b3"}
    assert targets(core_with({"b4": ("P", 1)}, 1, cat), "b4") == {"b3"}
    # Promotion on the last rank: colour 0 on rank 6, colour 1 on rank 1 (one order per choice: Q).
    stock = [0, 1, 0]
    for square, colour, dest in (("b5", 0, "b6"), ("b2", 1, "b1")):
        core = core_with({square: ("P", colour)}, colour, cat, stock=stock, promote_types=1 << q)
        got = [decode_order(c) for c in core.generate(over_without_sovereign=False)]
        assert [(name(d), pr) for _, _, d, _, pr in got] == [(dest, q)]
    # Deploys (B19): a Queen onto the owner's first rank, a Foot unit onto its first two ranks.
    for colour, queen, pawn in ((0, "a1 b1 c1", "a1 b1 c1 a2 b2 c2"), (1, "a6 b6 c6", "a6 b6 c6 a5 b5 c5")):
        for t, expected in ((q, queen), (p, pawn)):
            barracks = [[0, 0, 0], [0, 0, 0]]
            barracks[colour][t] = 1
            core = core_with({}, colour, cat, barracks=barracks)
            got = {name(decode_order(c)[2]) for c in core.generate(over_without_sovereign=False)}
            assert got == names(expected), (colour, t)


# ------------------------------------------------------------------------ the 8x8 game unchanged

def test_8x8_start_perft_is_unchanged():
    # Standard chess's start position: perft(3) = 8902 (the published number).
    assert perft("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 3) == 8902


def test_search_and_sliders_refuse_other_shapes():
    from engine._search import AlphaBeta, Evaluation

    tables = ransom_catalog().tables
    with pytest.raises(ValueError, match="8x8 board.*3x6"):
        AlphaBeta(tables, {})
    with pytest.raises(ValueError, match="8x8 board.*3x6"):
        Evaluation(tables, {})
    with pytest.raises(ValueError, match="8x8 board"):
        tables.check_sliders(1)
