"""GET /api/units/reach (engine/interfaces/server/reach.py): each unit type alone on an empty board,
its march, attack, shoot and swap squares, flat and cylindrical. Every expected square set below is
derived by hand from the unit's movement (docs/movespec.md, RULINGS B), not read from the engine."""

from __future__ import annotations

from engine.catalog import default_catalog


def _reach(client, square=None) -> dict:
    answer = client.get("/api/units/reach", params={} if square is None else {"square": square})
    assert answer.status_code == 200, answer.text
    return {u["token"]: u for u in answer.json()["units"]}


def _set(names: str) -> set[str]:
    return set(names.split())


def test_every_unit_type_has_a_diagram_from_its_default_squares(client):
    units = _reach(client)
    assert list(units) == [u.token for u in default_catalog().units]            # every type, in catalog order
    for token, unit in units.items():
        assert set(unit) == {"token", "name", "moves", "cylindrical", "flat", "compass"}
        # The Pawn's double step needs its second rank (ifmnD); every other unit stands on rank 4.
        rank = "2" if token == "P" else "4"
        assert unit["flat"]["square"] == "d" + rank and unit["compass"]["square"] == "b" + rank, token
    # Knight on d4: the eight (2,1) leaps, each both a march and an attack (hand-derived).
    knight = _set("b3 b5 c2 c6 e2 e6 f3 f5")
    assert set(units["N"]["flat"]["march"]) == set(units["N"]["flat"]["attack"]) == knight
    assert units["N"]["flat"]["shoot"] == units["N"]["flat"]["swap"] == []
    # Knight on b4, cylindrical: the six on the board plus the two leaps two files left, which wrap to h.
    assert set(units["N"]["compass"]["march"]) == _set("a2 a6 c2 c6 d3 d5 h3 h5")
    # Pawn on d2 (fmW ifmnD fcF): one or two forward to march, one diagonally forward to attack.
    assert units["P"]["flat"]["march"] == ["d3", "d4"] and units["P"]["flat"]["attack"] == ["c3", "e3"]
    # Rook on d4: 7 on the file and 7 on the rank.
    assert len(units["R"]["flat"]["march"]) == 14 and "d4" not in units["R"]["flat"]["march"]
    # Oracle (mF xnD xnA, B13): marches one diagonally, captures two away without moving.
    assert units["O"]["flat"]["march"] == ["c3", "e3", "c5", "e5"]
    assert units["O"]["flat"]["attack"] == []
    assert set(units["O"]["flat"]["shoot"]) == _set("b2 d2 f2 b4 f4 b6 d6 f6")
    # Phantom (B9, B16): may land back on its own square, a null march, but never captures there.
    assert "d4" in units["F"]["flat"]["march"] and "d4" not in units["F"]["flat"]["attack"]
    # Spy (cK (swap), B15): attacks the eight neighbours, marches only by swapping with a friend anywhere.
    assert units["Y"]["flat"]["march"] == [] and set(units["Y"]["flat"]["attack"]) == _set("c3 c4 c5 d3 d5 e3 e4 e5")
    assert len(units["Y"]["flat"]["swap"]) == 63
    # Charger ((charge)3, B12): up to 3 straight, capturing on each square it passes or stops on.
    assert set(units["L"]["flat"]["attack"]) == _set("a4 b4 c4 e4 f4 g4 d1 d2 d3 d5 d6 d7")


def test_a_given_square_and_the_cylinder(client):
    units = _reach(client, "a4")
    for unit in units.values():
        assert unit["flat"]["square"] == unit["compass"]["square"] == "a4"
    # Rook on a4: 14 either way; on the cylinder the ride to the left comes round through h4..b4 and
    # stops before re-entering a4 (B17), so it is the same rank seen the other way.
    rook_squares = _set("a1 a2 a3 a5 a6 a7 a8 b4 c4 d4 e4 f4 g4 h4")
    assert set(units["R"]["flat"]["march"]) == set(units["R"]["compass"]["march"]) == rook_squares
    # Bishop on a4: 7 flat; cylindrical the two left diagonals wrap to the h-file: 13 (e8 reached both ways).
    assert set(units["B"]["flat"]["march"]) == _set("b5 c6 d7 e8 b3 c2 d1")
    assert set(units["B"]["compass"]["march"]) == _set("b5 c6 d7 e8 b3 c2 d1 h5 g6 f7 h3 g2 f1")
    # Knight on a4: 4 flat, 8 on the cylinder.
    assert set(units["N"]["flat"]["attack"]) == _set("b2 b6 c3 c5")
    assert set(units["N"]["compass"]["attack"]) == _set("b2 b6 c3 c5 g3 g5 h2 h6")
    # The Raider (~N) is always cylindrical: its flat diagram wraps too.
    assert set(units["~N"]["flat"]["march"]) == set(units["N"]["compass"]["march"]) and units["~N"]["cylindrical"]


def test_a_bad_square_is_a_clear_422(client):
    for bad in ("z9", "", "d44", "D4"):
        answer = client.get("/api/units/reach", params={"square": bad})
        assert answer.status_code == 422
        detail = answer.json()["detail"]               # never the input echoed (docs/server.md)
        assert detail == f"square: (a string of {len(bad)} character{'s' if len(bad) != 1 else ''}) is not a square " \
                         "(a1..h8)", detail
