"""The AI opponent server: game flow, validation (4xx with reasons, nothing changed), persistence
across restarts (resigned games included), WebSocket updates, concurrency, and fuzzed inputs (raw
bytes, JSON bodies and the options schema)."""

import asyncio
import json
import random
import re
import sqlite3

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.crown.record import fingerprint
from engine.crown.state import replay
from engine.interfaces.server.app import AI_LEVELS, MAX_BODY_BYTES, Limits, create_app
from tests.server.support import act, auth, new_game, play_some


def test_game_flow_human_then_ai(client):
    view, token = new_game(client)
    assert view["your_turn"] and view["human"] == 0 and view["to_move"] == 0
    assert "end order phase" in {a["text"] for a in view["actions"]}
    turn = view["turn"]
    while view["turn"] == turn:              # end every phase of Blue's first turn
        done = next(a for a in view["actions"] if a["fields"]["type"] == "done")
        view = act(client, view, token, done["id"])
    # The AI (Yellow) has answered with a whole turn: it is Blue's decision again.
    assert view["your_turn"] and view["to_move"] == 0 and view["turn"] == turn + 2
    assert view["ai_last_turn"] and any(entry["player"] == 1 for entry in view["log"])


def test_actions_the_log_and_the_ais_turn_carry_fields(client):
    client.app.state.server.entropy = random.Random(2)  # the hands and the AI's choices, fixed
    view, token = new_game(client)                       # first-game Supply, Kings on e1 and e8
    by_text = {a["text"]: a for a in view["actions"]}
    order = by_text["e1e2"]
    assert order["fields"] == {"type": "order", "order_kind": "march", "unit": "K", "origin": 4, "dest": 12,
                               "promotion": None}
    assert by_text["play Guard (order)"]["fields"] == {"type": "play", "card": "Guard", "effect": 0}
    assert by_text["end order phase"]["fields"] == {"type": "done"}
    view = act(client, view, token, order["id"])
    assert view["log"][-1] == {"turn": 1, "player": 0, "text": "e1e2", "fields": order["fields"]}   # turn 1 first
    while view["phase"] != "buy":
        view = act(client, view, token, next(a["id"] for a in view["actions"] if a["fields"]["type"] == "done"))
    while not any(a["fields"]["type"] == "buy" for a in view["actions"]):     # play treasures for gold
        view = act(client, view, token, next(a["id"] for a in view["actions"] if a["fields"]["type"] == "play"))
    buys = [a for a in view["actions"] if a["fields"]["type"] == "buy"]
    assert buys and all(a["fields"] == {"type": "buy", "card": a["text"][4:].split(" (")[0]} for a in buys)
    ai_orders = []                                      # until the AI has ordered a unit on the board
    while not any(e["fields"]["origin"] is not None for e in ai_orders) and view["turn"] < 40:
        view = act(client, view, token, next(a["id"] for a in view["actions"] if a["fields"]["type"] == "done"))
        assert all(entry["player"] == 1 and entry in view["log"] for entry in view["ai_last_turn"])
        ai_orders += [e for e in view["ai_last_turn"] if e["fields"] and e["fields"]["type"] == "order"]
    assert any(e["fields"]["origin"] is not None for e in ai_orders), ai_orders
    for entry in ai_orders:                             # the squares the web board tints
        fields = entry["fields"]
        assert 0 <= fields["dest"] < 64 and (fields["origin"] is None) == (fields["order_kind"] == "deploy")
        assert entry["text"].startswith(("abcdefgh"[fields["origin"] % 8] + str(fields["origin"] // 8 + 1))
                                        if fields["origin"] is not None else f"{fields['unit']}@")


def test_ai_moves_first_when_it_plays_blue(client):
    view, _ = new_game(client, human=1)
    assert view["to_move"] == 1 and view["your_turn"] and view["turn"] == 2      # Yellow's first: turn 2
    assert view["ai_last_turn"]


def test_bad_requests_are_refused_with_a_reason_and_change_nothing(client):
    view, token = new_game(client)
    gid, version = view["id"], view["version"]
    cases = [
        ({"action": 987654321, "version": version}, 409, "not one of your legal actions now"),
        ({"action": view["actions"][0]["id"], "version": version + 7}, 409, "stale view"),
        ({"action": view["actions"][0]["id"]}, 422, "version"),              # the version is required
        ({"action": "e2e4", "version": version}, 422, "action"),
        ({}, 422, "action"),
        ({"action": 1, "version": version, "colour": "blue"}, 422, "an unknown field (the fields here: action, version)"),
        ({"action": -5, "version": version}, 422, "action"),
    ]
    for body, status, reason in cases:
        response = client.post(f"/api/games/{gid}/actions", json=body, headers=auth(token))
        assert response.status_code == status, (body, response.text)
        assert reason in json.dumps(response.json())
    assert client.get(f"/api/games/{gid}", headers=auth(token)).json()["version"] == version
    assert client.post("/api/games", json={"variant": "blitz"}).status_code == 422
    assert client.post("/api/games", json={"supply": ["Dragon"]}).status_code == 422
    big = client.post(f"/api/games/{gid}/actions", content=b" " * (MAX_BODY_BYTES + 1),
                      headers={"content-type": "application/json", **auth(token)})
    assert big.status_code == 413 and "limit" in big.json()["detail"]
    assert client.get(f"/api/games/{gid}/record", headers=auth(token)).status_code == 409   # not while playing


# Every probe an attacker tried, with the answer it must get: never a 500, never a traceback, never
# the input echoed back.
PROBES = [
    (b'{"seed": NaN}', 422, "NaN is not a JSON number"),
    (b'{"seed": Infinity}', 422, "Infinity is not a JSON number"),
    (b'{"ai": {"bot": "ismcts", "seconds": -Infinity}}', 422, "Infinity is not a JSON number"),
    (b'{"seed": 1e999}', 422, "too large"),
    (b'{"supply": "\\ud800"}', 422, "lone surrogate"),
    (b'{"options": {"\\udfff": 1}}', 422, "lone surrogate"),
    (b'\xff\xfe{}', 422, "not UTF-8"),
    (b'{"seed": ' + b"9" * 5000 + b"}", 422, "too long"),
    (b"[" * 5000 + b"]" * 5000, 422, "nests deeper"),
    (b'{"seed": 1', 422, "not JSON"),
    (b'{"options": {"extra_units": [[1, 2], []]}}', 422, "extra_units"),
    (b'{"variant": "point-buy", "options": {"start_position": "garbage"}}', 422, "start_position"),
    (b'{"variant": "last-stand", "options": {"defender_gold": 1.5}}', 422, "defender_gold"),
    (b'{"options": {"max_turns": 1e308}}', 422, "max_turns"),
    (b'{"options": {"extra_turns": [1.5, 0]}}', 422, "extra_turns"),
    (b'{"options": {"seed": 3}}', 422, "top level"),
    (b'{"seed": true}', 422, "seed"),
    (b'{"ai": {"bot": "ismcts", "seconds": 1e300}}', 422, "seconds"),
]


@pytest.mark.parametrize("body, status, reason", PROBES, ids=[p[2] for p in PROBES])
def test_hostile_bodies_get_a_clear_4xx_and_create_nothing(client, body, status, reason):
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    assert reason in response.text
    assert "Traceback" not in response.text and len(response.text) < 2000
    assert client.app.state.server.store.count_playing("testclient") == 0


def test_games_survive_a_restart_exactly(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view, token = new_game(c)
        view = play_some(c, view, token, 25, random.Random(1))
        print_before = fingerprint(c.app.state.server.games[view["id"]].snap.state)
    with TestClient(create_app(path, ai_pool="thread")) as c:
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        assert again == view
        assert fingerprint(c.app.state.server.games[view["id"]].snap.state) == print_before
        play_some(c, again, token, 5, random.Random(2))


def test_games_saved_before_entries_had_fields_come_back_with_fields_unknown(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view, token = new_game(c)
        view = play_some(c, view, token, 12, random.Random(1))
    old_log = [{k: v for k, v in e.items() if k != "fields"} for e in view["log"]]
    old_turn = [e["text"] for e in view["ai_last_turn"]]               # the AI's turn was a list of texts
    assert old_log and old_turn
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET log = ?, ai_last_turn = ? WHERE id = ?",
                   (json.dumps(old_log), json.dumps(old_turn), view["id"]))
    with TestClient(create_app(path, ai_pool="thread")) as c:
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
    assert again["log"] == [{**e, "fields": None} for e in old_log]
    assert again["ai_last_turn"] == [{"turn": None, "player": 1, "text": t, "fields": None} for t in old_turn]
    assert again["actions"] == view["actions"]


def test_resigning_is_part_of_the_record_and_survives_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view, token = new_game(c)
        view = play_some(c, view, token, 6, random.Random(4))
        over = c.post(f"/api/games/{view['id']}/resign", headers=auth(token)).json()
        assert over["status"] == "over" and over["winner"] == 1 and "resigned" in over["over"]
        assert c.post(f"/api/games/{view['id']}/resign", headers=auth(token)).status_code == 409
    with TestClient(create_app(path, ai_pool="thread")) as c:     # a fresh server replays the record
        again = c.get(f"/api/games/{view['id']}", headers=auth(token))
        assert again.status_code == 200 and again.json() == over
        record = c.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()
        assert record["format"] == "ftc-game-record" and record["result"]["winner"] == 1
        state = replay(record)
        assert state.is_terminal() and state.over_reason == "Blue resigned"


def test_websocket_pushes_updates(client):
    view, token = new_game(client)
    with client.websocket_connect(f"/api/games/{view['id']}/ws") as ws:
        ws.send_json({"token": token})
        first = ws.receive_json()
        assert first["version"] == view["version"]
        act(client, view, token, view["actions"][0]["id"])
        pushed = ws.receive_json()
        assert pushed["version"] > view["version"]


def test_openapi_schema_documents_the_api(client):
    schema = client.get("/openapi.json").json()
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/actions"} <= set(schema["paths"])
    assert "ActionRequest" in json.dumps(schema)


def test_the_api_page_loads_everything_from_this_server(client):
    """/docs is Swagger UI from the package's static/docs/, not from a CDN: it works offline."""
    page = client.get("/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert "http" not in page.text.replace("http-equiv", "")            # no address on another host
    urls = re.findall(r'(?:href|src)="([^"]*)"', page.text) + re.findall(r"url: '([^']*)'", page.text)
    assert {"/static/docs/swagger-ui-bundle.js", "/static/docs/swagger-ui.css", "/openapi.json"} <= set(urls)
    for url in urls:
        assert url.startswith("/") and not url.startswith("//") or url.startswith("data:"), url
        if url.startswith("/"):
            assert client.get(url).status_code == 200, url
    assert client.get("/redoc").status_code == 404                     # ReDoc would need a CDN: off


def test_the_wheel_ships_every_static_file():
    """Every file of the web board and of /docs matches the package data of pyproject.toml."""
    import fnmatch
    import tomllib
    from pathlib import Path

    import engine.interfaces.server as server

    root = Path(server.__file__).parent
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["engine.interfaces.server"]
    files = [p.relative_to(root).as_posix() for p in (root / "static").rglob("*") if p.is_file()]
    assert "static/docs/swagger-ui-bundle.js" in files and "static/app.js" in files
    # setuptools globs: "*" stays inside one folder, as fnmatch's does not; so compare per folder.
    def shipped(f):
        return any(fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in patterns)
    assert [f for f in files if not shipped(f)] == []


def test_many_games_at_once(tmp_path):
    """Several games with AI answers in flight together (the full load test: tools/load_test.py)."""
    import httpx

    app = create_app(tmp_path / "games.sqlite3", ai_pool="thread", ai_workers=2)

    async def one_game(http, seed):
        created = (await http.post("/api/games", json={"seed": seed, "supply": "first-game", "ai": {"bot": "greedy"}})).json()
        token = created.pop("token")
        view, rng = created, random.Random(seed)
        for _ in range(12):
            if view["status"] == "over":
                break
            response = await http.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                                       json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
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
        assert server.store.get(v["id"])["version"] == v["version"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
option_names = st.sampled_from(["variable_piles", "expansion", "starters", "sovereigns", "extra_turns", "extra_units",
                                "budgets", "start_position", "secret_picks", "defender_gold", "no_progress_turns",
                                "max_turns", "seed", "nonsense"])


def _fuzz_client():
    app = create_app(":memory:", ai_pool="thread", limits=Limits(requests_per_second=1e6, request_burst=10**6,
                                                                 games_per_minute=1e6, game_burst=10**6,
                                                                 games_per_client=10**6))
    return app


@pytest.fixture(scope="module")
def fuzz_client():
    with TestClient(_fuzz_client()) as c:
        view, token = new_game(c)
        yield c, view["id"], token


def _unchanged_after(c, gid, token, send):
    version = c.get(f"/api/games/{gid}", headers=auth(token)).json()["version"]
    response = send()
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert c.get(f"/api/games/{gid}", headers=auth(token)).json()["version"] == version
    return response


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=json_values)
def test_fuzzed_json_bodies_get_4xx_never_500_and_change_nothing(fuzz_client, body):
    c, gid, token = fuzz_client
    try:
        raw = json.dumps(body).encode()          # NaN and Infinity included: Python writes them
    except (UnicodeEncodeError, ValueError):
        return
    response = _unchanged_after(c, gid, token, lambda: c.post(f"/api/games/{gid}/actions", content=raw, headers={
        "content-type": "application/json", **auth(token)}))
    assert response.status_code in (200, 409, 422), response.text
    created = c.post("/api/games", content=raw, headers={"content-type": "application/json"})
    assert created.status_code in (201, 422), created.text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=300) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_fuzzed_raw_bytes_never_500(fuzz_client, raw):
    c, gid, token = fuzz_client
    _unchanged_after(c, gid, token, lambda: c.post(f"/api/games/{gid}/actions", content=raw, headers={
        "content-type": "application/json", **auth(token)}))
    created = c.post("/api/games", content=raw, headers={"content-type": "application/json"})
    assert created.status_code in (201, 422), created.text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=st.dictionaries(option_names, json_values, max_size=3),
       variant=st.sampled_from(["standard", "point-buy", "last-stand"]))
def test_fuzzed_options_are_validated_never_500(fuzz_client, options, variant):
    c, _, _ = fuzz_client
    try:
        raw = json.dumps({"variant": variant, "options": options, "ai": {"bot": "random"}}).encode()
    except (UnicodeEncodeError, ValueError):
        return
    response = c.post("/api/games", content=raw, headers={"content-type": "application/json"})
    assert response.status_code in (201, 422), response.text
    if response.status_code == 201:             # an accepted game is playable: it answers its view
        view = response.json()
        got = c.get(f"/api/games/{view['id']}", headers=auth(view["token"]))
        assert got.status_code == 200 and got.json()["version"] == view["version"]


@pytest.mark.parametrize("level, spec", [("easy", "greedy"), ("normal", "ismcts:0.5s"), ("strong", "ismcts:2s")])
def test_ai_levels_name_documented_budgets(client, level, spec):
    view, token = new_game(client, ai={"level": level})
    game = client.app.state.server.games[view["id"]]
    assert game.ai.spec() == spec == AI_LEVELS[level]


def test_an_unknown_ai_level_is_refused(client):
    response = client.post("/api/games", json={"seed": 1, "ai": {"level": "grandmaster"}})
    assert response.status_code == 422 and "level" in response.text


def test_the_default_ai_is_the_normal_level(client):
    view, _ = new_game(client, ai={})
    assert client.app.state.server.games[view["id"]].ai.spec() == AI_LEVELS["normal"]
    view, _ = new_game(client, ai={"bot": "ismcts", "iterations": 50})
    assert client.app.state.server.games[view["id"]].ai.spec() == "ismcts:50"
