"""Who may see and play a game: the seat's bearer token, on every endpoint and on the WebSocket;
401 without it, 404 with another game's token (the same answer as for an id that does not exist)."""

import sqlite3

import pytest
from starlette.websockets import WebSocketDisconnect

from engine.interfaces.server.app import Limits, create_app, hash_token
from tests.server.support import act, auth, new_game

GAME_ENDPOINTS = [
    ("GET", "/api/games/{id}"),
    ("POST", "/api/games/{id}/actions"),
    ("POST", "/api/games/{id}/ai"),
    ("POST", "/api/games/{id}/resign"),
    ("GET", "/api/games/{id}/record"),
    ("POST", "/api/games/{id}/hint"),
    ("GET", "/api/games/{id}/knowledge"),
    ("DELETE", "/api/games/{id}"),
]


def _call(client, method, path, headers):
    body = {"action": 0, "version": 1} if path.endswith("/actions") else None
    return client.request(method, path, json=body, headers=headers)


@pytest.mark.parametrize("method, path", GAME_ENDPOINTS)
def test_every_game_endpoint_needs_the_seats_token(client, method, path):
    mine, my_token = new_game(client)
    theirs, their_token = new_game(client)
    url = path.format(id=mine["id"])
    before = client.get(f"/api/games/{mine['id']}", headers=auth(my_token)).json()
    no_token = _call(client, method, url, {})
    assert no_token.status_code == 401 and no_token.headers["www-authenticate"] == "Bearer"
    for headers in ({"Authorization": "Basic abc"}, {"Authorization": "Bearer"}, {"Authorization": "bearer "}):
        assert _call(client, method, url, headers).status_code == 401
    wrong = _call(client, method, url, auth(their_token))
    unknown = _call(client, method, path.format(id="0123456789abcdef"), auth(my_token))
    garbage = _call(client, method, url, auth("not-a-token!"))
    assert wrong.status_code == unknown.status_code == garbage.status_code == 404
    assert wrong.json() == unknown.json()                 # nothing tells which ids exist
    # The refused requests changed nothing.
    assert client.get(f"/api/games/{mine['id']}", headers=auth(my_token)).json() == before


def test_there_is_no_global_game_list(client):
    new_game(client)
    assert client.get("/api/games").status_code in (404, 405)


def test_tokens_are_long_random_and_stored_only_as_hashes(client, tmp_path):
    tokens = [new_game(client)[1] for _ in range(5)]
    assert len(set(tokens)) == 5
    for token in tokens:
        assert len(token) >= 22                         # >= 128 bits in URL-safe base64 (it is 256)
    db = client.app.state.server.store.path
    dump = "\n".join(sqlite3.connect(db).iterdump())
    for token in tokens:
        assert token not in dump and hash_token(token) in dump


def test_the_view_never_contains_the_token_after_creation(client):
    view, token = new_game(client)
    again = client.get(f"/api/games/{view['id']}", headers=auth(token))
    assert token not in again.text


def test_websocket_needs_the_token_as_first_message_or_header(client):
    mine, token = new_game(client)
    _, other = new_game(client)
    url = f"/api/games/{mine['id']}/ws"
    with client.websocket_connect(url, headers=auth(token)) as ws:      # header (non-browser clients)
        assert ws.receive_json()["id"] == mine["id"]
    with client.websocket_connect(url) as ws:                            # first message (browsers)
        ws.send_json({"token": token})
        assert ws.receive_json()["id"] == mine["id"]
    for first, code in (({"token": other}, 4404), ({"nope": 1}, 4401), ("garbage", 4401)):
        with client.websocket_connect(url) as ws:
            if isinstance(first, str):
                ws.send_text(first)
            else:
                ws.send_json(first)
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == code


def test_websocket_without_a_token_in_time_is_closed(tmp_path):
    from fastapi.testclient import TestClient

    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=Limits(socket_auth_seconds=0.2))) as c:
        view, _ = new_game(c)
        with c.websocket_connect(f"/api/games/{view['id']}/ws") as ws:
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4401


def test_sockets_per_seat_are_capped(tmp_path):
    from fastapi.testclient import TestClient

    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=Limits(sockets_per_seat=2))) as c:
        view, token = new_game(c)
        url = f"/api/games/{view['id']}/ws"
        with c.websocket_connect(url, headers=auth(token)) as a, c.websocket_connect(url, headers=auth(token)) as b:
            a.receive_json(), b.receive_json()
            with c.websocket_connect(url, headers=auth(token)) as third:
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 4429


def test_creating_games_is_rate_limited_per_client_and_bounded(tmp_path):
    from fastapi.testclient import TestClient

    limits = Limits(games_per_minute=0.001, game_burst=3)
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=limits)) as c:
        for _ in range(3):
            new_game(c)
        refused = c.post("/api/games", json={"ai": {"bot": "greedy"}})
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert c.app.state.server.store.count_playing("testclient") == 3
    limits = Limits(games_per_client=2)
    with TestClient(create_app(tmp_path / "h.sqlite3", ai_pool="thread", limits=limits)) as c:
        first, token = new_game(c)
        new_game(c)
        assert c.post("/api/games", json={"ai": {"bot": "greedy"}}).status_code == 429
        c.post(f"/api/games/{first['id']}/resign", headers=auth(token))     # a finished game frees a place
        new_game(c)


def test_requests_are_rate_limited_per_client(tmp_path):
    from fastapi.testclient import TestClient

    limits = Limits(requests_per_second=0.001, request_burst=5)
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=limits)) as c:
        codes = [c.get("/api/catalog").status_code for _ in range(7)]
        assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]


def test_idle_games_leave_memory_and_come_back_from_sqlite(tmp_path):
    from fastapi.testclient import TestClient

    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=Limits(live_games=3))) as c:
        server = c.app.state.server
        games = [new_game(c) for _ in range(6)]
        assert len(server.games) <= 3                   # bounded, whatever the number of games
        view, token = games[0]
        assert view["id"] not in server.games
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        assert again == view                            # reloaded exactly
        act(c, again, token, again["actions"][0]["id"])
        assert server.evict(now=10**12) >= 1            # idle past idle_seconds: evicted
