"""Hand-derived checks of the slow reference generator (tests/reference/movegen.py), so that the
differential tests compare the engine against something itself trustworthy.  Every expectation
below was worked out by hand from rulings B1-B19 (docs/rules/rulings.md) and the 12.0 / 16.0 examples."""

from tests.reference.movegen import generate, make, parse, reference_divide, reference_orders, reference_perft, to_text
from tests.support import board_text


def pos(units: dict, side: str = "w", extra: str = "", barracks: str = "") -> str:
    """Build position text from {square: token}; adds a Blue King on h1 and a Yellow King on h8
    unless the dict already places Sovereigns or asks for none with key 'nokings'."""
    units = dict(units)
    if not units.pop("nokings", False):
        units.setdefault("h1", "K")
        units.setdefault("h8", "k")
    board = board_text(units) + (f"[{barracks}]" if barracks else "")
    return f"{board} {side} - - 0 1 {extra}".strip()


def dests(text, frm, cyl=False, promote=None):
    return {o[2:4] for o in reference_orders(text, cyl, promote) if o[:2] == frm and "@" not in o}


def test_chess_start_perft():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 promote:NBRQ"
    assert [reference_perft(start, d) for d in (1, 2, 3)] == [20, 400, 8902]


def test_nightrider_example_12():
    # 12.0 Nightrider: a1 reaches c5 only if b3 is empty, d7 only if b3 and c5 are empty.
    assert {"b3", "c5", "d7", "c2", "e3", "g4"} <= dests(pos({"a1": "Z"}), "a1")
    d = dests(pos({"a1": "Z", "b3": "P"}), "a1")
    assert "c5" not in d and "d7" not in d and "b3" not in d
    d = dests(pos({"a1": "Z", "c5": "p"}), "a1")
    assert "c5" in d and "d7" not in d
    assert dests(pos({"a1": "Z"}), "a1") == {"b3", "c5", "d7", "c2", "e3", "g4"}


def test_phantom_example_12():
    # 12.0 Phantom: e1 -> e3 if either c2 or g2 is empty; e2 is irrelevant.
    assert "e3" in dests(pos({"e1": "F", "c2": "P", "e2": "P"}), "e1")
    assert "e3" in dests(pos({"e1": "F", "g2": "P"}), "e1")
    d = dests(pos({"e1": "F", "c2": "P", "g2": "P"}), "e1")
    assert "e3" not in d
    assert "e1" in d  # B16 null march via d3 or f3
    # blocking every first landing square leaves no move at all
    d = dests(pos({"e1": "F", "c2": "P", "g2": "P", "d3": "p", "f3": "p"}), "e1")
    assert d == set()
    # the second landing may capture; the first may not
    d = dests(pos({"e1": "F", "e3": "q", "d3": "n"}), "e1")
    assert "e3" in d and "d3" not in d


def test_visionary_example_16():
    # 16.0: Visionary on f1 goes g2, h3, wraps to a4 ... and stops at e8.
    d = dests(pos({"f1": "~B", "nokings": True, "a1": "K", "a8": "k"}), "f1")
    assert {"g2", "h3", "a4", "b5", "c6", "d7", "e8"} <= d
    assert d == {"g2", "h3", "a4", "b5", "c6", "d7", "e8", "e2", "d3", "c4", "a6", "h7", "g8"}
    # a plain Bishop does not wrap, except in Compass (cylindrical) mode
    t = pos({"f1": "B", "nokings": True, "a1": "K", "a8": "k"})
    assert "a4" not in dests(t, "f1")
    assert "a4" in dests(t, "f1", cyl=True)


def test_cylindrical_rook_never_revisits():
    # B17: a wrapping ride stops before re-entering its starting square.
    t = pos({"d4": "~R"})
    d = dests(t, "d4")
    assert {"a4", "b4", "c4", "e4", "f4", "g4", "h4"} <= d
    assert "d4" not in d
    assert len(d) == 7 + 7  # 7 on the rank, 4 up + 3 down the file
    # blocked on both sides of the rank: f4 friendly, b4 enemy
    d = dests(pos({"d4": "~R", "f4": "P", "b4": "p"}), "d4")
    assert {"e4", "c4", "b4"} <= d and not d & {"f4", "g4", "h4", "a4"}


def test_charger_multi_capture():
    # B12: the Charger passes through enemies, capturing everything on the path.
    t = pos({"a1": "L", "a2": "p", "a3": "n", "b1": "N"})
    assert dests(t, "a1") == {"a2", "a3", "a4"}
    p = parse(t)
    moves = generate(p)
    after = make(p, moves["a1a4"])
    assert after.board.get(0) is None and 8 not in after.board and 16 not in after.board
    assert after.board[24] == ("L", "w")
    assert after.stock["P"] == p.stock["P"] + 1 and after.stock["N"] == p.stock["N"] + 1
    after = make(p, moves["a1a2"])
    assert after.board[16] == ("N", "b")  # only a2 captured
    # friendly or immune units stop the charge
    assert dests(pos({"a1": "L", "a3": "P"}), "a1") == {"a2", "b1", "c1", "d1"}
    assert dests(pos({"a1": "L", "a2": "p", "a3": "p"}, extra="status:a3w"), "a1") == \
        {"a2", "b1", "c1", "d1"}


def test_gryphon_and_sphinx():
    # B11: Gryphon d4 steps to e5 then rides north (e6..) or east (f5..).
    d = dests(pos({"d4": "G"}), "d4")
    assert {"e5", "e6", "e8", "f5", "h5", "c5", "c8", "a5", "e3", "e1", "h3", "c3", "a3"} <= d
    assert "d5" not in d and "f6" not in d
    # capture on the diagonal step ends the move
    d = dests(pos({"d4": "G", "e5": "p"}), "d4")
    assert "e5" in d and "e6" not in d and "f5" not in d
    # Sphinx d4 steps to d5 then rides NE/NW
    d = dests(pos({"d4": "X"}), "d4")
    assert {"d5", "e6", "f7", "g8", "c6", "a8", "e4", "f5", "f3", "h7", "g2", "f1", "b1"} <= d
    assert "d6" not in d and "e5" not in d and "h1" not in d and "g1" not in d
    # Navigator (cylindrical Gryphon): from a4 step to h5 (wrap) then ride west along rank 5,
    # stopping before re-entering h5.
    d = dests(pos({"a4": "~G", "nokings": True, "e1": "K", "e8": "k"}), "a4")
    assert {"h5", "g5", "b5", "a5", "h8", "h3", "h1"} <= d
    assert "a4" not in d


def test_sniper_oracle_spy():
    # B14 Sniper: march 1-2, attack at distance >= 2 only.
    t = pos({"d4": "S", "d6": "p", "f4": "p", "c4": "p", "a4": "r"})
    d = dests(t, "d4")
    assert "d5" in d and "d6" in d and "f4" in d and "e4" in d
    assert "c4" not in d and "a4" not in d and "b4" not in d  # c4 at distance 1 blocks the ray
    assert "d7" not in d and "d3" in d and "d2" in d and "d1" not in d
    # B13 Oracle: shoots 2 away over an empty middle square, stays put
    t = pos({"d4": "O", "d6": "p", "f6": "p", "e5": "P", "b4": "p", "c4": "p"})
    d = dests(t, "d4")
    assert "d6" in d and "f6" not in d and "b4" not in d
    assert "c5" in d and "e5" not in d and "c4" not in d
    p = parse(t)
    after = make(p, generate(p)["d4d6"])
    assert after.board[27] == ("O", "w") and 43 not in after.board
    # B15 Spy: attacks adjacent only, marches by swapping with any friendly unit
    t = pos({"d4": "Y", "d5": "p", "a8": "N", "d6": "q"})
    d = dests(t, "d4")
    assert d == {"d5", "a8", "h1"}


def test_warlord():
    # B10: 1-2 king steps, null march, capture ends the move, middle must be empty.
    d = dests(pos({"d4": "W"}), "d4")
    assert len(d) == 25  # the full 5x5 box including d4 itself
    d = dests(pos({"a1": "W", "b1": "P", "a2": "P", "b2": "p"}), "a1")
    assert d == {"b2"}  # no empty first step, so no null march either
    d = dests(pos({"a1": "W", "b1": "P", "a2": "P"}), "a1")
    assert d == {"b2", "a1", "c1", "c2", "c3", "b3", "a3"}


def test_small_pieces():
    # B3 Monk: diagonals, exactly two straight through an empty middle
    d = dests(pos({"d4": "M", "d5": "p"}), "d4")
    assert d == {"c5", "e5", "c3", "e3", "d2", "b4", "f4"}
    # B4 Acolyte: leaps; no straight-forward move
    d = dests(pos({"d4": "A", "e5": "P"}), "d4")
    assert d == {"c5", "c3", "e3", "f6", "b6", "b2", "f2", "b4", "f4"}
    # B5 Anointed: 2-step diagonal is blocked by a unit on the first square
    d = dests(pos({"d4": "U", "e5": "P", "c3": "p"}), "d4")
    assert d == {"c5", "b6", "e3", "f2", "c3"}
    # B2 Striker: forward/diagonal-forward both ways, backward ride march only
    d = dests(pos({"d4": "T", "d2": "p", "e5": "p"}), "d4")
    assert d == {"c5", "d5", "e5", "d3"}
    d = dests(pos({"d5": "t", "d7": "P", "c4": "P"}), "d5", )
    assert d == set()  # Blue to move: Yellow Striker gets nothing
    d = dests(pos({"d5": "t", "d8": "P", "c4": "P"}, side="b"), "d5")
    assert d == {"c4", "d4", "e4", "d6", "d7"}
    # E Courier: forward or sideways, cylindrical
    d = dests(pos({"a4": "~p", "a3": "P"}, side="b"), "a4")
    assert d == {"a3", "b4", "h4"}
    # B7 Hero leaps
    assert dests(pos({"a1": "H"}), "a1") == {"b4", "c4", "d2", "d3"}
    assert dests(pos({"a1": "~H", "nokings": True, "e4": "K", "e8": "k"}), "a1") == \
        {"b4", "c4", "d2", "d3", "h4", "g4", "f2", "f3"}


def test_pawns_and_promotion():
    # B1: double step from owner's rank 1 or 2
    assert dests(pos({"c1": "P"}), "c1") == {"c2", "c3"}
    assert dests(pos({"c7": "p"}, side="b"), "c7") == {"c6", "c5"}
    assert dests(pos({"c3": "P"}), "c3") == {"c4"}
    # B18: promotion per allowed type with Stock
    t = pos({"b7": "P", "a8": "r"}, extra="stock:Q1N1")
    assert reference_orders(t) >= {"b7b8q", "b7b8n", "b7a8q", "b7a8n", "b7a8r"}
    assert "b7b8r" not in reference_orders(t)
    # nothing in Stock: unpromoted order
    t = pos({"b7": "P"}, extra="stock:-")
    assert "b7b8" in reference_orders(t)
    # the captured Rook is back in the Stock already
    t = pos({"b7": "P", "a8": "r"}, extra="stock:- promote:R")
    assert {o for o in reference_orders(t) if o.startswith("b7")} == {"b7b8", "b7a8r"}
    # promote argument overrides the text's field
    assert {o for o in reference_orders(t, promote="Q") if o.startswith("b7")} == {"b7b8", "b7a8"}
    # an Immortal captured goes to Barracks, not Stock
    t = pos({"b7": "P", "a8": "i"}, extra="stock:- promote:I")
    assert {o for o in reference_orders(t) if o.startswith("b7")} == {"b7b8", "b7a8"}
    # promotion of a Monk moving along the eighth rank; expansion token suffix
    t = pos({"b8": "M", "nokings": True, "h1": "K", "e1": "k"}, extra="promote:~B")
    assert "b8d8~b" in reference_orders(t)
    # stock bookkeeping: the Pawn returns, the Queen leaves
    p = parse(pos({"b7": "P"}, extra="stock:Q1"))
    after = make(p, generate(p)["b7b8q"])
    assert after.board[57] == ("Q", "w") and after.stock["Q"] == 0 and after.stock["P"] == 1


def test_default_stock():
    p = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nz] w")
    assert p.stock["P"] == 4 and p.stock["N"] == 1 and p.stock["K"] == 2 and p.stock["Z"] == 3
    assert p.stock["~P"] == 8 and p.stock["W"] == 4
    # clamped at zero
    p = parse("8/8/8/8/8/8/8/4K2k[QQQQQ] w")
    assert p.stock["Q"] == 0


def test_immortal_and_deploy():
    t = pos({"d4": "N", "e6": "i"}, barracks="I")
    p = parse(t)
    after = make(p, generate(p)["d4e6"])
    assert after.barracks["b"]["I"] == 1 and after.stock["I"] == p.stock["I"]
    # B19: Foot units deploy to ranks 1-2, others to rank 1 only, one order per (type, square)
    orders = reference_orders(pos({}, barracks="NIIp"))
    assert {o for o in orders if o.startswith("N@")} == {f"N@{f}1" for f in "abcdefg"}
    assert len({o for o in orders if o.startswith("I@")}) == 7 + 8
    orders = reference_orders(pos({}, side="b", barracks="NIIp~p"))
    assert {o for o in orders if "@" in o} == (
        {f"P@{f}{r}" for f in "abcdefgh" for r in "78"} - {"P@h8"}) | (
        {f"~P@{f}{r}" for f in "abcdefgh" for r in "78"} - {"~P@h8"})


def test_status_and_terminal():
    t = pos({"d4": "N", "e6": "p", "c6": "p"}, extra="status:d4o")
    assert dests(t, "d4") == set()
    t = pos({"d4": "N", "e6": "p", "c6": "p"}, extra="status:e6b,c6w")
    d = dests(t, "d4")
    assert "e6" not in d and "c6" not in d
    # a Spy may swap with an already-ordered unit (B15)
    t = pos({"d4": "Y", "a1": "N"}, extra="status:a1o")
    assert dests(t, "d4") == {"a1", "h1"}
    # immunity lapses when the named side's turn starts
    t = pos({"d4": "N", "e6": "p", "a1": "R"}, extra="status:e6w")
    div = reference_divide(t, 2)
    assert div  # Blue moves, then Yellow; the w flag still stands during Yellow's move
    p = parse(t)
    after = make(p, generate(p)["a1a2"])
    assert after.flags == {44: frozenset("w")}
    after2 = make(after, generate(after)["h8g8"])
    assert after2.flags == {}
    # "o" lapses at every turn end, "n" only once its owner's turn is over (13.0 False Orders)
    p = parse(pos({"d4": "N", "e6": "p", "c6": "q"}, extra="status:e6n,c6o,d4n"))
    after = make(p, generate(p)["h1g1"])
    assert after.flags == {44: frozenset("n")}
    assert "e6" not in {o[:2] for o in generate(after)} and "c6" in {o[:2] for o in generate(after)}
    after2 = make(after, generate(after)["c6c5"])
    assert after2.flags == {}
    # no Sovereign: no orders
    assert reference_orders(pos({"nokings": True, "a1": "Q", "h8": "k"})) == set()
    assert reference_orders(pos({"nokings": True, "a1": "U", "h8": "~k"})) != set()
    assert reference_perft(pos({"nokings": True, "a1": "Q", "h8": "k"}), 0) == 1


def test_to_text_roundtrip():
    t = pos({"d4": "~N", "e6": "i", "b7": "P"}, barracks="Ii~z", extra="status:e6w")
    p = parse(t)
    assert to_text(parse(to_text(p))) == to_text(p)
    assert reference_orders(to_text(p)) == reference_orders(t)
