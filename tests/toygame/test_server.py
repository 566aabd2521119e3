"""The seam is real for the web server too (issue 24): tic-tac-toe (tests/toygame), a game the engine
does not ship, played over HTTP with no edit to the server: created by its registry name, its views
built by the generic pieces (engine/games/view.py), the AI answering with the game's own bot, the
record served at the end and replayed by the registry."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from engine.games import registry
from engine.interfaces.server.app import create_app
from tests.toygame.state import NAME

HEADERS = lambda token: {"Authorization": f"Bearer {token}"}      # noqa: E731


@pytest.fixture
def client(toy, tmp_path):
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread")) as c:
        c.app.state.server.entropy = random.Random(5)
        yield c


def test_the_home_page_lists_the_toy_game(client):
    kinds = client.get("/api/games/kinds").json()
    assert kinds["default"] == "crown"
    by_name = {k["name"]: k for k in kinds["games"]}
    assert list(by_name)[:2] == ["crown", "kings-ransom"] and NAME in by_name
    toy = by_name[NAME]
    assert toy == {"name": NAME, "title": "Tic-tac-toe", "description": toy["description"], "players": [2, 2],
                   "seats": ["player 0", "player 1"], "variants": [], "aliases": [], "docs": None,
                   "module": "generic.js", "bots": ["random", "perfect"], "levels": False,
                   "ai_levels": {}, "bot_labels": {"random": "random moves", "perfect": "perfect play"}, "form": None}
    assert by_name["crown"]["module"] == "crown.js" and by_name["crown"]["levels"] is True
    assert by_name["kings-ransom"]["docs"] == "/rules/kings-ransom"


def test_a_toy_game_over_http_to_its_end(client):
    created = client.post("/api/games", json={"game": NAME, "ai": {"spec": "perfect"}})
    assert created.status_code == 201, created.text
    view = created.json()
    token = view.pop("token")
    assert view["game"] == NAME and view["module"] == "generic.js" and view["title"] == "Tic-tac-toe"
    assert view["your_turn"] and view["prompt"] == "X: mark an empty square" and view["turn"] == 1
    assert [a["text"] for a in view["actions"]] == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    assert view["actions"][4]["fields"] == {"kind": "mark", "square": "b2", "mark": "X"}
    assert view["observation"] == {"board": ["...", "...", "..."], "to_move": 0, "moves": []}
    moves = 0
    while view["status"] == "playing":
        square = view["actions"][0]                    # the human plays the first free square
        answer = client.post(f"/api/games/{view['id']}/actions", json={"action": square["id"], "version": view["version"]},
                             headers=HEADERS(token))
        assert answer.status_code == 200, answer.text
        view = answer.json()
        moves += 1
        assert view["log"][-1 if view["status"] == "playing" else -2]["player"] in (0, 1)
        if view["status"] == "playing":                # the AI answered: the human decides again
            assert view["your_turn"] and len(view["ai_last_turn"]) == 1 and view["ai_last_turn"][0]["player"] == 1
    # perfect play never loses: against the first-free-square player it wins
    assert view["winner"] == 1 and view["over"] == "O made a line", view
    assert view["log"][-1] == {"turn": view["log"][-1]["turn"], "player": None, "text": "game over: O made a line",
                               "fields": None}
    texts = [e["text"] for e in view["log"][:-1]]
    assert texts == view["observation"]["moves"]       # the log names every mark, in order
    assert client.get(f"/api/games/{view['id']}", headers=HEADERS(token)).json() == view
    record = client.get(f"/api/games/{view['id']}/record", headers=HEADERS(token)).json()
    assert record["format"] == "toy-tictactoe-record" and len(record["actions"]) == len(texts)
    assert registry.replay(record).observation(0) == view["observation"]
    saved = client.post("/api/games/saved", json={"games": [{"id": view["id"], "token": token}]}).json()["games"][0]
    assert saved["variant"] == NAME and saved["status"] == "over" and saved["winner"] == 1 and moves >= 3


def test_a_toy_game_comes_back_from_the_database(toy, tmp_path):
    path = tmp_path / "g.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view = c.post("/api/games", json={"variant": NAME, "human": 1}).json()   # a game's name as its variant
        token = view.pop("token")
        assert view["game"] == NAME and view["log"][0]["player"] == 0         # the AI (X, "random") opened
        view = c.post(f"/api/games/{view['id']}/actions", json={"action": view["actions"][0]["id"],
                                                                 "version": view["version"]}, headers=HEADERS(token)).json()
    with TestClient(create_app(path, ai_pool="thread")) as c:
        assert c.get(f"/api/games/{view['id']}", headers=HEADERS(token)).json() == view


def test_what_the_toy_game_has_not_is_refused_by_name(client):
    bad = client.post("/api/games", json={"game": "chess"})
    assert bad.status_code == 422 and "unknown game (a string of 5 characters)" in bad.text and NAME in bad.text \
        and "crown" in bad.text and "chess" not in bad.text                 # never the input echoed
    bad = client.post("/api/games", json={"game": NAME, "ai": {"level": "normal"}})
    assert bad.status_code == 422 and "Tic-tac-toe AI: unknown bot 'ismcts:0.5s' for tictactoe" in bad.text
    bad = client.post("/api/games", json={"game": NAME, "supply": "first-game"})
    assert bad.status_code == 422 and "config.supply: tictactoe has no option 'supply'" in bad.text
    bad = client.post("/api/games", json={"game": NAME, "variant": "point-buy"})
    assert bad.status_code == 422 and "'point-buy' is not a variant of Tic-tac-toe" in bad.text
    assert client.app.state.server.games == {}
    view = client.post("/api/games", json={"game": NAME}).json()          # no ai: the game's first bot
    token = view.pop("token")
    game = client.app.state.server.games[view["id"]]
    assert game.ai.spec() == "random"
    resign = client.post(f"/api/games/{view['id']}/resign", headers=HEADERS(token))
    assert resign.status_code == 409 and "Tic-tac-toe has no resignation" in resign.text
    knowledge = client.get(f"/api/games/{view['id']}/knowledge", headers=HEADERS(token))
    assert knowledge.status_code == 400 and "a Tic-tac-toe game offers its record once it is over" in knowledge.text
    hint = client.post(f"/api/games/{view['id']}/hint", headers=HEADERS(token)).json()
    assert hint["action"] in [a["id"] for a in view["actions"]] and hint["source"] == "greedy"
    assert "Tic-tac-toe has no search for hints" in hint["note"]
    assert client.get(f"/api/games/{view['id']}", headers=HEADERS(token)).json() == view   # nothing changed
