"""Crusade & Conquer's web view (engine/crusade/web.py): the board's levels and X squares from the
catalog's data, the pieces and fallen pieces from the observation, the legal targets as the human's
actions' fields, check, the last move, the end, the "how the pieces move" panel and resignation.

Expected target squares are derived by hand from RULINGS H1 (the data file's layout: lower floors c1
f1 c2-f2 and c7-f7 c8 f8, upper floors d1 e1 d8 e8) and H3-H5; each test says how."""

from __future__ import annotations

import json
import re

from engine.catalog import square_name
from engine.crusade.position import CrusadePosition, layout_catalog
from engine.crusade.web import board_data, build_view, how_to_play, resign
from engine.games import registry
from engine.interfaces.server.rules import render_page


def state_of(text: str = "startpos"):
    return registry.get("crusade").start({"position": text})


def view_of(state, human: int = 0, thinking: bool = False) -> dict:
    return build_view("g1", 3, state, human, thinking, [], [], None)


def targets(view: dict, origin: str) -> dict[str, list[str]]:
    """The legal targets of the piece on ``origin`` as the board module reads them: to -> promotion choices."""
    out: dict[str, list[str]] = {}
    for action in view["actions"]:
        fields = action["fields"]
        if fields["from"] == origin:
            out.setdefault(fields["to"], []).append(fields["promotion"])
    return out


def test_the_board_comes_from_the_catalog_data():
    view = view_of(state_of())
    board = view["board"]
    assert (board["files"], board["ranks"], len(board["heights"])) == (8, 8, 64)
    raised = {sq: h for sq, h in board["heights"].items() if h}
    # H1: upper floors d1 e1 d8 e8, lower floors c1 f1 c2 d2 e2 f2 and their mirror images.
    assert raised == {"d1": 2, "e1": 2, "d8": 2, "e8": 2, **{sq: 1 for sq in
                      ("c1", "f1", "c2", "d2", "e2", "f2", "c7", "d7", "e7", "f7", "c8", "f8")}}
    assert board["x"] == ["e1", "e8"] and board["levels"] == ["field", "lower floor", "upper floor"]
    # Another layout (H1 is PROVISIONAL data): the view follows it, nothing is fixed in the view.
    other = board_data(layout_catalog("00000000/00000000/00000000/00022000/00011000/00000000/00000000/00000000 a1 h8"))
    assert {sq: h for sq, h in other["heights"].items() if h} == {"d5": 2, "e5": 2, "d4": 1, "e4": 1}
    assert other["x"] == ["a1", "h8"]


def test_the_pieces_and_the_fallen_are_the_observation_s():
    text = "r3k3/8/8/8/8/8/8/R3K3 w [QNn] 0 1"
    view = view_of(state_of(text))
    assert view["observation"]["position"] == text
    assert view["pieces"] == [{"square": "a1", "token": "R", "name": "Rook", "owner": 0},
                              {"square": "e1", "token": "K", "name": "King", "owner": 0},
                              {"square": "a8", "token": "R", "name": "Rook", "owner": 1},
                              {"square": "e8", "token": "K", "name": "King", "owner": 1}]
    assert view["fallen"] == [[{"token": "Q", "name": "Queen", "count": 1}, {"token": "N", "name": "Knight", "count": 1}],
                              [{"token": "N", "name": "Knight", "count": 1}]]
    assert view["game"] == "crusade" and view["module"] == "crusade.js" and view["players"] == ["Blue", "Red"]
    # Open information: both seats see the same board; only the deciding seat gets actions.
    red = view_of(state_of(text), human=1)
    assert (red["pieces"], red["fallen"], red["board"]) == (view["pieces"], view["fallen"], view["board"])
    assert view["actions"] and not red["actions"] and not view_of(state_of(text), thinking=True)["actions"]


def test_legal_targets_stop_at_the_first_change_of_level():
    # A Rook on c4 (field): up the c-file c5, c6 and c7 (a lower floor: the first square at another
    # level ends the ride, H3), down c3 and c2 (lower floor), and the whole field rank: a4 b4 d4-h4.
    view = view_of(state_of("7k/8/8/8/2R5/8/8/K7 w - 0 1"))
    assert sorted(targets(view, "c4")) == sorted(["c5", "c6", "c7", "c3", "c2", "a4", "b4", "d4", "e4", "f4", "g4", "h4"])
    # From the start: the b1 Knight leaps to a3 and c3 (d2 holds its own Dragon); the Flag Bearer on e2
    # (lower floor) steps diagonally to d3 and f3 (field: one level down, H3); d1 and f1 hold its own pieces.
    start = view_of(state_of())
    assert sorted(targets(start, "b1")) == ["a3", "c3"]
    assert sorted(targets(start, "e2")) == ["d3", "f3"]
    # Each target's fields name the piece and what it takes.
    take = view_of(state_of("7k/8/8/8/2R2n2/8/8/K7 w - 0 1"))
    move = next(a for a in take["actions"] if a["text"] == "c4f4")
    assert move["fields"] == {"kind": "move", "text": "c4f4", "player": 0, "from": "c4", "to": "f4", "piece": "R",
                              "capture": "N", "promotion": None}
    assert "g4" not in targets(take, "c4")                       # no ride through a piece


def test_promotion_offers_the_fallen_pieces_and_keeping_the_pawn():
    # H5: a Pawn on a7 reaching a8 may become each fallen type of its side (Queen, Knight) or stay a Pawn.
    view = view_of(state_of("4k3/P7/8/8/8/8/8/K7 w [QNr] 0 1"))
    assert sorted(targets(view, "a7")["a8"]) == ["N", "P", "Q"]
    # No fallen piece of its own (Red's Rook does not count): only keeping the Pawn.
    assert targets(view_of(state_of("4k3/P7/8/8/8/8/8/K7 w [r] 0 1")), "a7") == {"a8": ["P"]}


def test_check_last_move_and_end():
    state = state_of("6k1/2Q5/5K2/8/8/8/8/8 w - 0 1")          # mate in one: c7g7 (tests/crusade/test_state.py)
    assert view_of(state)["last_move"] is None and view_of(state)["check"] is None
    rook = state_of("6k1/8/8/8/8/8/8/K6R w - 0 1")
    rook.apply_text("h1g1")                                     # check up the g-file (all field squares)
    view = view_of(rook, human=1)
    assert view["check"] == 1 and view["last_move"] == {"from": "h1", "to": "g1", "text": "h1g1", "player": 0}
    # c7c8 is no check: the Queen's ride along rank 8 stops on d8, the upper floor (H3).
    quiet = state_of("6k1/2Q5/5K2/8/8/8/8/8 w - 0 1")
    quiet.apply_text("c7c8")
    assert view_of(quiet, human=1)["check"] is None
    mated = state_of("6k1/2Q5/5K2/8/8/8/8/8 w - 0 1")
    mated.apply_text("c7g7")
    view = view_of(mated)
    assert view["status"] == "over" and view["end"] == "checkmate" and view["winner"] == 0 and view["to_move"] is None
    assert view["check"] is None and view["actions"] == [] and "Red is checkmated" in view["over"]
    xwin = state_of("7k/3F4/8/8/8/8/8/K7 w - 0 1")
    xwin.apply_text("d7e8")
    assert view_of(xwin)["end"] == "x-win" and view_of(xwin)["last_move"]["to"] == "e8"


def test_a_game_from_a_red_to_move_position_names_the_right_mover():
    state = state_of("7k/8/8/8/8/8/8/K7 b - 0 1")
    state.apply_text("h8g8")
    assert view_of(state)["last_move"]["player"] == 1


def test_resignation():
    state = state_of()
    assert resign(state, 0) == {"kind": "resign"}
    view = view_of(state)
    assert view["end"] == "resigned" and view["winner"] == 1 and view["over"] == "Blue resigns: Red wins"


def test_how_the_pieces_move_covers_every_piece_and_cites_rulings_that_exist():
    state = state_of()
    how = view_of(state)["how"]
    assert [p["token"] for p in how["pieces"]] == [u.token for u in state.pos.catalog.units]
    cited = {p["token"]: [r["id"] for r in p["rulings"]] for p in how["pieces"]}
    assert cited["N"] == ["H4"] and cited["P"] == ["H5"] and cited["F"] == ["H6", "H8"] and cited["D"] == ["H7"]
    anchors = set(re.findall(r'\bid="([^"]+)"', render_page("rulings")))
    for entry in how["pieces"] + how["notes"]:
        assert entry["text"] and entry["rulings"]
        for ruling in entry["rulings"]:
            page, _, anchor = ruling["href"].partition("#")
            assert page == "/rules/rulings" and anchor in anchors, ruling
    assert how["rules"] == "/rules/crusade-and-conquer" and how_to_play(state.pos.catalog) == how


def test_the_view_is_json_and_names_only_board_squares():
    view = view_of(state_of())
    assert json.loads(json.dumps(view)) == view
    names = {square_name(sq) for sq in range(64)}
    assert {p["square"] for p in view["pieces"]} <= names
    assert all(a["fields"]["from"] in names and a["fields"]["to"] in names for a in view["actions"])
    assert CrusadePosition.from_text(view["observation"]["position"]).text() == view["observation"]["position"]
