"""The AI opponent server: game flow, validation (4xx with reasons, nothing changed), persistence
across restarts, hidden information, WebSocket updates, concurrency, and fuzzed inputs."""

import asyncio
import json
import random

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.game.record import fingerprint
from engine.interfaces.server.app import MAX_BODY_BYTES, create_app


@pytest.fixture
def client(tmp_path):
    app = create_app(tmp_path / "games.sqlite3", ai_pool="thread")
    with TestClient(app) as c:
        yield c


def new_game(client, **body):
    body = {"seed": 5, "supply": "first-game", "ai": {"bot": "greedy"}, **body}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def play_some(client, view, decisions, rng):
    for _ in range(decisions):
        if view["status"] == "over":
            break
        action = rng.choice(view["actions"])["id"]
        response = client.post(f"/api/games/{view['id']}/actions", json={"action": action, "version": view["version"]})
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def test_game_flow_human_then_ai(client):
    view = new_game(client)
    assert view["your_turn"] and view["human"] == 0 and view["to_move"] == 0
    texts = {a["text"] for a in view["actions"]}
    assert {"end order phase", "play Guard (order)"} <= texts or "end order phase" in texts
    turn = view["turn"]
    while view["turn"] == turn:              # end every phase of Blue's first turn
        done = next(a for a in view["actions"] if a["kind"] == "done")
        view = client.post(f"/api/games/{view['id']}/actions", json={"action": done["id"]}).json()
    # The AI (Yellow) has answered with a whole turn: it is Blue's decision again.
    assert view["your_turn"] and view["to_move"] == 0 and view["turn"] == turn + 2
    assert view["ai_last_turn"] and any(entry["player"] == 1 for entry in view["log"])


def test_ai_moves_first_when_it_plays_blue(client):
    view = new_game(client, human=1)
    assert view["to_move"] == 1 and view["your_turn"] and view["turn"] == 1
    assert view["ai_last_turn"]


def test_bad_requests_are_refused_with_a_reason_and_change_nothing(client):
    view = new_game(client)
    gid, version = view["id"], view["version"]
    cases = [
        ({"action": 987654321}, 409, "is not legal now"),
        ({"action": view["actions"][0]["id"], "version": version + 7}, 409, "stale view"),
        ({"action": "e2e4"}, 422, "action"),
        ({}, 422, "action"),
        ({"action": 1, "colour": "blue"}, 422, "colour"),
        ({"action": -5}, 422, "action"),
    ]
    for body, status, reason in cases:
        response = client.post(f"/api/games/{gid}/actions", json=body)
        assert response.status_code == status, (body, response.text)
        assert reason in json.dumps(response.json())
    assert client.get(f"/api/games/{gid}").json()["version"] == version
    assert client.get("/api/games/0000").status_code == 404
    assert client.post("/api/games", json={"variant": "blitz"}).status_code == 422
    assert client.post("/api/games", json={"supply": ["Dragon"]}).status_code == 422
    big = client.post(f"/api/games/{gid}/actions", content=b" " * (MAX_BODY_BYTES + 1),
                      headers={"content-type": "application/json"})
    assert big.status_code == 413 and "limit" in big.json()["detail"]
    assert client.get(f"/api/games/{gid}/record").status_code == 409     # hidden cards: not while playing


def test_views_never_show_hidden_cards(client):
    view = new_game(client)
    view = play_some(client, view, 40, random.Random(3))
    server = client.app.state.server
    game = server.games[view["id"]]
    real = server.view(game)
    # Resampling every card the human cannot see must not change a single byte of the view.
    original_state = game.state
    for seed in range(5):
        game.state = original_state.resample_hidden(game.human, random.Random(seed))
        assert server.view(game) == real
    game.state = original_state


def test_games_survive_a_restart_exactly(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view = play_some(c, new_game(c), 25, random.Random(1))
        before = c.app.state.server.games[view["id"]].state
        print_before = fingerprint(before)
    with TestClient(create_app(path, ai_pool="thread")) as c:
        again = c.get(f"/api/games/{view['id']}").json()
        assert again == view
        assert fingerprint(c.app.state.server.games[view["id"]].state) == print_before
        play_some(c, again, 5, random.Random(2))


def test_resign_and_record(client):
    view = new_game(client)
    over = client.post(f"/api/games/{view['id']}/resign").json()
    assert over["status"] == "over" and over["winner"] == 1 and "resigned" in over["over"]
    record = client.get(f"/api/games/{view['id']}/record").json()
    assert record["format"] == "ftc-game-record"
    assert client.post(f"/api/games/{view['id']}/resign").status_code == 409


def test_websocket_pushes_updates(client):
    view = new_game(client)
    with client.websocket_connect(f"/api/games/{view['id']}/ws") as ws:
        first = ws.receive_json()
        assert first["version"] == view["version"]
        client.post(f"/api/games/{view['id']}/actions", json={"action": view["actions"][0]["id"]})
        pushed = ws.receive_json()
        assert pushed["version"] > view["version"]


def test_openapi_schema_documents_the_api(client):
    schema = client.get("/openapi.json").json()
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/actions"} <= set(schema["paths"])
    assert "ActionRequest" in json.dumps(schema)


def test_many_games_at_once(tmp_path):
    """Several games with AI answers in flight together (the full load test: tools/load_test.py)."""
    import httpx

    app = create_app(tmp_path / "games.sqlite3", ai_pool="thread", ai_workers=2)

    async def one_game(http, seed):
        view = (await http.post("/api/games", json={"seed": seed, "supply": "first-game", "ai": {"bot": "greedy"}})).json()
        rng = random.Random(seed)
        for _ in range(12):
            if view["status"] == "over":
                break
            response = await http.post(f"/api/games/{view['id']}/actions", json={"action": rng.choice(view["actions"])["id"]})
            assert response.status_code == 200, response.text
            view = response.json()
        return view

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await asyncio.gather(*(one_game(http, seed) for seed in range(10)))

    views = asyncio.run(main())
    assert len({v["id"] for v in views}) == 10
    server = app.state.server
    for v in views:                      # what was answered is what is stored
        stored = server.store.get(v["id"])
        assert stored["version"] == v["version"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=json_values)
def test_fuzzed_bodies_get_4xx_never_500_and_change_nothing(client, body):
    if not hasattr(test_fuzzed_bodies_get_4xx_never_500_and_change_nothing, "game"):
        test_fuzzed_bodies_get_4xx_never_500_and_change_nothing.game = new_game(client)
    game = test_fuzzed_bodies_get_4xx_never_500_and_change_nothing.game
    version = client.get(f"/api/games/{game['id']}").json()["version"]
    response = client.post(f"/api/games/{game['id']}/actions", json=body)
    assert response.status_code in (200, 409, 422), response.text
    if response.status_code != 200:
        assert client.get(f"/api/games/{game['id']}").json()["version"] == version
    created = client.post("/api/games", json=body)
    assert created.status_code in (201, 422), created.text
