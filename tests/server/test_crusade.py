"""Crusade & Conquer over HTTP (engine/crusade/web.py through the server): the home page's kinds name
its board module and AI levels (registry ``Game.bots.ai_levels``), a new game takes a level, a colour and
a start position, the human's moves and the AI's answers come back as views with the board's data,
resignation ends the game and is kept in the record, and a game comes back from the database."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from engine.crusade.players import make_bot
from engine.crusade.position import CrusadePosition
from engine.crusade.search import CrusadeSearch
from engine.crusade.state import CrusadeConfig, CrusadeState
from engine.games import registry
from engine.interfaces.server.app import AI_LEVELS, check_levels, create_app, game_levels
from engine.interfaces.server.player_tools import hint_spec
from tests.server.support import act, auth

PROMOTE = "4k3/P7/8/8/8/8/8/K7 w [QN] 0 1"


def create(client, **body) -> tuple[dict, str]:
    response = client.post("/api/games", json={"game": "crusade", **body})
    assert response.status_code == 201, response.text
    view = response.json()
    return view, view.pop("token")


def test_the_home_page_names_its_board_and_levels(client):
    kinds = {k["name"]: k for k in client.get("/api/games/kinds").json()["games"]}
    crusade = kinds["crusade"]
    assert crusade["module"] == "crusade.js" and crusade["seats"] == ["Blue", "Red"]
    assert crusade["levels"] is True
    assert crusade["ai_levels"] == {"easy": "greedy", "normal": "alphabeta:0.5s", "strong": "alphabeta:2s"}
    assert crusade["docs"] == "/rules/crusade-and-conquer" and crusade["bots"] == ["random", "greedy", "alphabeta"]
    # For the Crown keeps the server's own levels.
    assert kinds["crown"]["ai_levels"] == AI_LEVELS and kinds["crown"]["levels"] is True


def test_a_level_is_the_game_s_own_spec(client):
    view, _ = create(client, ai={"level": "easy"})
    game = client.app.state.server.games[view["id"]]
    assert game.ai.spec() == "greedy" and game.ai.level == "easy"
    view, _ = create(client, human=0)                           # no AI named: the game's normal level
    assert client.app.state.server.games[view["id"]].ai.spec() == "alphabeta:0.5s"
    view, _ = create(client, ai={"spec": "random"})             # a bot by name
    assert client.app.state.server.games[view["id"]].ai.spec() == "random"


def test_a_level_the_game_does_not_have_is_refused_and_changes_nothing(client, monkeypatch):
    """A game that names only some levels (here Crusade & Conquer cut to `easy`): asking for another
    is a 422 naming the game's levels, and no game is created."""
    crusade = registry.get("crusade")
    monkeypatch.setattr(registry, "get", lambda name, _get=registry.get: (
        replace(crusade, bots=replace(crusade.bots, ai_levels={"easy": "greedy"})) if name == "crusade" else _get(name)))
    before = len(client.app.state.server.games)
    bad = client.post("/api/games", json={"game": "crusade", "ai": {"level": "strong"}})
    assert bad.status_code == 422 and "Crusade & Conquer AI: no level 'strong'; its levels: easy" in bad.text
    assert len(client.app.state.server.games) == before


def test_bad_levels_of_a_game_are_refused_by_name():
    crusade = registry.get("crusade")
    with pytest.raises(ValueError, match=r"game 'crusade': ai_levels\['grandmaster'\]: expected one of the levels"):
        check_levels([replace(crusade, bots=replace(crusade.bots, ai_levels={"grandmaster": "greedy"}))])
    with pytest.raises(ValueError, match=r"ai_levels\['easy'\]"):
        check_levels([replace(crusade, bots=replace(crusade.bots, ai_levels={"easy": ""}))])
    assert game_levels(replace(crusade, bots=replace(crusade.bots, ai_levels={}))) == {}       # greedy alone does not take the server's levels
    check_levels(registry.games())


def test_moves_and_answers_to_the_end_then_the_record(client):
    client.app.state.server.entropy = random.Random(3)
    view, token = create(client, human=1, ai={"level": "easy"})
    assert view["game"] == "crusade" and view["human"] == 1 and view["your_turn"]
    assert len(view["log"]) == 1 and view["log"][0]["player"] == 0        # Blue (the AI) opened
    assert view["last_move"]["player"] == 0 and view["last_move"]["text"] == view["log"][0]["text"]
    assert view["board"]["x"] == ["e1", "e8"] and len(view["pieces"]) == 32
    rng = random.Random(1)
    while view["status"] == "playing":
        captures = [a for a in view["actions"] if a["fields"]["capture"]]
        view = act(client, view, token, rng.choice(captures or view["actions"])["id"])
    assert view["end"] in ("checkmate", "stalemate", "x-win", "plies", "repetition")
    assert view["log"][-1]["text"] == f"game over: {view['over']}"
    record = client.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()
    assert record["format"] == "crusade-record" and record["moves"] == view["observation"]["moves"]


def test_a_start_position_and_a_promotion_choice(client):
    view, token = create(client, options={"position": PROMOTE})
    assert view["observation"]["position"] == PROMOTE and view["fallen"][0][0]["token"] == "Q"
    promotions = sorted(a["fields"]["promotion"] for a in view["actions"] if a["fields"]["to"] == "a8")
    assert promotions == ["N", "P", "Q"]
    queen = next(a for a in view["actions"] if a["text"] == "a7a8=Q")
    view = act(client, view, token, queen["id"])
    assert view["log"][0]["text"] == "a7a8=Q" and view["log"][0]["fields"]["promotion"] == "Q"
    assert {"square": "a8", "token": "Q", "name": "Queen", "owner": 0} in view["pieces"]
    assert view["fallen"][0] == [{"token": "N", "name": "Knight", "count": 1}]
    bad = client.post("/api/games", json={"game": "crusade", "options": {"position": "8/8 w -"}})
    assert bad.status_code == 422 and "config.position: board: needs 8 ranks" in bad.text


def test_resign_and_come_back_from_the_database(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view, token = create(c)
        view = act(c, view, token, next(a["id"] for a in view["actions"] if a["text"] == "g1f3"))
        answer = c.post(f"/api/games/{view['id']}/resign", headers=auth(token))
        assert answer.status_code == 200, answer.text
        view = answer.json()
        assert view["status"] == "over" and view["end"] == "resigned" and view["winner"] == 1
        assert [e["text"] for e in view["log"][-2:]] == ["resigns", "game over: Blue resigns: Red wins"]
        record = c.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()
        assert record["resigned"] == 0 and record["moves"][0] == "g1f3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).json() == view


#: Blue mates in 2 by a4g4 alone (hand-checked: the Rook on g4 takes g8 and g7 from the King, then Rb3-h3
#: mates whether the King goes to h7 or the Pawn moves; b3g3, the other way of chess, fails to b5xa4).
#: The greedy bot takes the Pawn (b3b5): its only capture. The alpha-beta sees the mate from depth 6 on
#: (about 2,300 nodes; the hint's half second goes deeper).
MATE_IN_TWO = "7k/8/8/1p6/R7/1R6/8/6K1 w - 0 1"


def test_a_hint_is_the_alpha_beta_s_move_not_the_greedy_fallback(client):
    """Crusade has no ismcts (the server's hint bot): its hint comes from its own search, the normal
    level's alpha-beta (registry ``ai_levels``), within the hint's time. It used to say the full AI
    could not answer and give the greedy bot's move."""
    view, token = create(client, human=0, ai={"level": "easy"}, options={"position": MATE_IN_TWO})
    state = CrusadeState(CrusadeConfig.from_json({"position": MATE_IN_TWO}))
    greedy = {state.action_text(make_bot("greedy", seed).choose(state)) for seed in range(8)}
    assert greedy == {"b3b5"}
    searched = CrusadeSearch().search(CrusadePosition.from_text(MATE_IN_TWO), depth=7)
    assert searched.best.text() == "a4g4"
    answer = client.post(f"/api/games/{view['id']}/hint", headers=auth(token))
    assert answer.status_code == 200, answer.text
    hint = answer.json()
    assert hint["source"] == "alphabeta" and hint["note"] is None
    assert hint["text"] == "a4g4" and hint["action"] == next(a["id"] for a in view["actions"] if a["text"] == "a4g4")
    assert hint["iterations"] > 0                                     # the nodes it searched
    assert client.app.state.server.fallbacks == []
    # Which spec a hint searches with: the server's hint bot when the game's bots take it, else the
    # game's normal level when it is a search, else none (the greedy bot answers then).
    crusade = registry.get("crusade")
    assert hint_spec(registry.get("crown"), "ismcts:0.5s") == "ismcts:0.5s"
    assert hint_spec(crusade, "ismcts:0.5s") == "alphabeta:0.5s"
    assert hint_spec(replace(crusade, bots=replace(crusade.bots, ai_levels={"normal": "greedy"})), "ismcts:0.5s") is None


def test_the_view_numbers_moves_as_the_log_does(client):
    """``turn_label`` (the status line) and each log entry's ``move`` count full moves, chess-style:
    after Blue's move and Red's answer it is move 2, and both moves are numbered 1."""
    view, token = create(client, human=0, ai={"level": "easy"})
    assert view["turn_label"] == "move 1"
    view = act(client, view, token, next(a["id"] for a in view["actions"] if a["text"] == "g1f3"))
    assert [(e["player"], e["move"]) for e in view["log"]] == [(0, 1), (1, 1)]
    assert view["turn"] == 3 and view["turn_label"] == "move 2"
    # From a position with Red to move, Red's first move is 1... and Blue's answer 2.
    view, token = create(client, human=1, ai={"level": "easy"},
                         options={"position": "4k3/8/8/8/8/8/1p6/4K3 b [qnR] 0 1"})
    assert view["turn_label"] == "move 1"
    view = act(client, view, token, next(a["id"] for a in view["actions"] if a["text"] == "e8d8"))
    assert [(e["player"], e["move"]) for e in view["log"]][:2] == [(1, 1), (0, 2)]
    if view["status"] == "playing":
        assert view["turn_label"] == "move 2"


def test_the_view_says_the_castle_plan_is_provisional_and_where_to_edit_it(client):
    view, _ = create(client, human=0)
    note = view["provisional"]
    assert "H1" in note["text"] and "engine/data/crusade_units.toml" in note["edit"]
    assert {link["href"] for link in note["links"]} == {"/rules/rulings#ruling-H1",
                                                        "/rules/crusade-and-conquer#provisional"}
    for link in note["links"]:
        assert client.get(link["href"].partition("#")[0]).status_code == 200
