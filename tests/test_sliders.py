"""Slider tables (ext/_tables.pxd Sliders): flat rook and bishop rides are table lookups (magic
multiplication or PEXT, chosen by setup.py). They must equal the ray walk they replace."""

import random

import pytest

from engine import BUILD_INFO, Catalog, Position, default_catalog
from engine._tables import RuleTables

ROOK_ENTRIES, BISHOP_ENTRIES = 102400, 5248     # sums of 2**popcount(mask) over the 64 squares


def test_lookups_equal_the_ray_walk_on_every_square():
    # Every occupancy of every square's mask (other squares filled at random), then 2000 random
    # boards per square of sparse, medium and dense occupancy; rook and bishop.
    checks, mismatches = RuleTables(default_catalog()).check_sliders(2000, seed=20240601)
    assert mismatches == []
    assert checks == ROOK_ENTRIES + BISHOP_ENTRIES + 2 * 64 * 2000


def test_another_seed_and_a_fresh_catalog_share_the_tables():
    checks, mismatches = RuleTables(default_catalog()).check_sliders(500, seed=7)
    assert mismatches == [] and checks > 0


def test_build_reports_the_lookup_method():
    assert BUILD_INFO["sliders"] in ("magic", "pext")
    if BUILD_INFO["sliders"] == "pext":
        assert "bmi2" in BUILD_INFO["isa"]


_UNITS = '''
[[unit]]
token = "K"
name = "King"
classes = ["Sovereign"]
price = 7
stock = 4
moves = "K"
[[unit]]
token = "N"
name = "Blocker"
price = 1
stock = 20
moves = "W"
'''

# Rides the generator groups into one lookup (all four directions, lo=1, full length, same modes)
# or leaves to the walk (limited range, mixed modes, a missing direction).
SPECS = {
    "J": ("mR cB", {"orth": "m", "diag": "c"}),
    "V": ("R3 B", {"orth": "mc3", "diag": "mc"}),
    "Q": ("Q", {"orth": "mc", "diag": "mc"}),
    "X": ("mR R", {"orth": "mc", "diag": ""}),
    "Y": ("fR bR", {"orth": "fb", "diag": ""}),
}


def _catalog():
    text = _UNITS
    for token, (moves, _) in SPECS.items():
        text += (f'[[unit]]\ntoken = "{token}"\nname = "Slider {token}"\nprice = 5\nstock = 4\n'
                 f'moves = "{moves}"\n')
    return Catalog.from_toml(text, "sliders.toml")


def _expected(token, sq, board):
    """Destinations by walking rays in Python: (marches, attacks)."""
    modes = SPECS[token][1]
    march, attack = set(), set()
    for family, dirs in (("orth", ((0, 1), (1, 0), (0, -1), (-1, 0))),
                         ("diag", ((1, 1), (1, -1), (-1, -1), (-1, 1)))):
        m = modes[family]
        for dx, dy in dirs:
            if token == "Y" and (dx, dy) not in ((0, 1), (0, -1)):
                continue
            can_march = "m" in m or "f" in m
            can_capture = "c" in m or "f" in m
            reach = 3 if "3" in m else 7
            f, r = sq % 8, sq // 8
            for _ in range(reach):
                f, r = f + dx, r + dy
                if not (0 <= f < 8 and 0 <= r < 8):
                    break
                s = r * 8 + f
                if s in board:
                    if board[s].islower() and can_capture:
                        attack.add(s)
                    break
                if can_march:
                    march.add(s)
    return march, attack


@pytest.mark.parametrize("token", sorted(SPECS))
def test_grouped_and_walked_rides_on_random_boards(token):
    catalog = _catalog()
    rng = random.Random(hash(token) & 0xFFFF)
    names = [f"{f}{r}" for r in range(1, 9) for f in "abcdefgh"]
    for _ in range(150):
        squares = rng.sample(range(64), 2 + 1 + rng.randint(0, 30))
        kings, sq, others = squares[:2], squares[2], squares[3:]
        board = {kings[0]: "K", kings[1]: "k", sq: token}
        for s in others:
            board[s] = rng.choice("Nn")
        text = " ".join([_board_field(board), "w - - 0 1"])
        pos = Position.from_text(text, catalog=catalog)
        got_march = {o.dest for o in pos.legal_orders() if o.origin == sq and o.kind == "march"}
        got_attack = {o.dest for o in pos.legal_orders() if o.origin == sq and o.kind == "attack"}
        want_march, want_attack = _expected(token, sq, board)
        assert (got_march, got_attack) == (want_march, want_attack), (token, names[sq], text)


def _board_field(board):
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            t = board.get(r * 8 + f)
            if t is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + t
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
