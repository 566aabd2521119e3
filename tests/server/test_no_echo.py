"""Error answers never hold the client's input (docs/server.md, "Hostile input is refused, never
echoed"): they name the field and what is allowed, never the value sent.

A real `ftc serve` is sent a marker, a unique string (plain, with HTML and script characters, and
thousands of characters long), in every place a client chooses: every field and every key of every
endpoint's body, walked from the server's own OpenAPI schema and from valid bodies of each of the four
games (their options, seats, AI settings and clocks), every path and query parameter, the token, every
WebSocket's path and messages. No answer, header or socket close reason may hold the marker, and the
server's last line of defence (refusals.py ``scrub``, which takes the client's strings out of an error
answer built elsewhere) must never have had to act: every refusal is worded without the value at its
source. A POST, PUT or PATCH endpoint the fuzz has no body for fails the test, so a new endpoint is
fuzzed too.
"""

import dataclasses
import json
import secrets
import urllib.parse

import httpx
import pytest

from engine.games import registry
from engine.interfaces.server.app import Limits, create_app
from tests.server.support import ThreadServer, auth

#: Each marker has an id of its own (found in an answer however the marker was quoted or cut).
PLAIN_ID = "qzx" + secrets.token_hex(6)
HTML_ID = "qzh" + secrets.token_hex(6)
LONG_ID = "qzl" + secrets.token_hex(6)
#: A plain word (it fits every length limit and every name-like pattern), one with markup and quotes
#: (at most 64 characters: the limit of the shortest text fields), and one of 5,000 characters or so.
PLAIN = PLAIN_ID
HTML = f"{HTML_ID}<script>alert('x')</script>&\"'{HTML_ID}"
LONG = (LONG_ID + "<b onload=x>&'\"") * 180
MARKERS = (PLAIN, HTML, LONG)
#: Markers that fit in a URL's path (no '/'; the long one shorter).
PATH_MARKERS = (PLAIN, f"{HTML_ID}<img src=x onerror=alert(1)>&\"'{HTML_ID}", (LONG_ID + "<b>&'\"") * 60)
IDS = (PLAIN_ID, HTML_ID, LONG_ID)
#: The POST/PUT/PATCH paths whose bodies are not described by the OpenAPI schema (read as raw JSON).
RAW_BODIES = {("POST", "/api/analysis/position"), ("POST", "/api/analysis/record")}


def _echoed(text: str) -> list[str]:
    return [i for i in IDS if i in text]


class Probe:
    """Sends requests to the server and keeps every answer that holds a marker."""

    def __init__(self, base: str):
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=60)
        self.found: dict[str, str] = {}
        self.sent = 0
        self.statuses: dict[int, int] = {}

    def check(self, where: str, status, text: str) -> None:
        self.sent += 1
        self.statuses[status] = self.statuses.get(status, 0) + 1
        hits = _echoed(text) if status >= 400 or status == 0 else []      # 0: a socket's error or close
        if hits and where not in self.found:
            at = text.find(hits[0])
            self.found[where] = f"{status}: ...{text[max(0, at - 80):at + 40]!r}..."
        assert status != 500, (where, text[:300])

    def request(self, where: str, method: str, path: str, body=None, headers=None, raw: bytes | None = None):
        headers = dict(headers or {})
        if raw is not None or body is not None:
            headers["content-type"] = "application/json"
        answer = self.http.request(method, path, content=raw if raw is not None else
                                   (json.dumps(body).encode() if body is not None else None), headers=headers)
        text = answer.text + " " + " ".join(f"{k}: {v}" for k, v in answer.headers.items())
        self.check(where, answer.status_code, text)
        return answer


# -- bodies: from the OpenAPI schema and from each game's valid bodies ---------------------------------
def _resolve(schema: dict, components: dict) -> dict:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def schema_places(schema: dict, components: dict, path: tuple = (), depth: int = 0):
    """Every place of a body the schema describes: (path, "value") for a value (a leaf, or anything
    where the schema takes any JSON), (path, "key") for an object (a key of the client's own there)."""
    schema = _resolve(schema, components)
    if depth > 8:
        return
    branches = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf")
    if branches:
        yield path, "value"
        for branch in branches:
            yield from schema_places(branch, components, path, depth + 1)
        return
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        yield path, "key"
        for name, sub in schema.get("properties", {}).items():
            yield from schema_places(sub, components, path + (name,), depth + 1)
        if schema.get("additionalProperties") not in (None, False):
            yield path + ("*",), "value"
    elif kind == "array":
        yield path, "value"
        yield from schema_places(schema.get("items", {}), components, path + (0,), depth + 1)
    else:
        yield path, "value"


def _put(body, path: tuple, value):
    """A copy of ``body`` with ``value`` at ``path`` ("*": a key of the marker's own)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(body) if isinstance(body, list) else []
        while len(items) <= head:
            items.append(None)
        items[head] = _put(items[head], rest, value)
        return items
    mapping = dict(body) if isinstance(body, dict) else {}
    key = PLAIN if head == "*" else head
    mapping[key] = _put(mapping.get(key), rest, value)
    return mapping


def leaf_places(value, path: tuple = ()):
    """Every place of a JSON value: its leaves and items ("value") and its objects ("key")."""
    if isinstance(value, dict):
        yield path, "key"
        for key, item in value.items():
            yield path + (key,), "value"
            yield from leaf_places(item, path + (key,))
    elif isinstance(value, list):
        yield path, "value"
        for i, item in enumerate(value):
            yield path + (i,), "value"
            yield from leaf_places(item, path + (i,))


def mutations(base, places):
    """(label, body) for each place of ``places`` and each marker: the marker as the value there, as
    the only item of a list there, and as a key of its own (an object)."""
    seen = set()
    for path, what in places:
        label = ".".join(str(p) for p in path) or "$"
        if (label, what) in seen:
            continue
        seen.add((label, what))
        for marker in MARKERS:
            if what == "value":
                yield f"{label}={marker[:3]}", _put(base, path, marker)
                yield f"{label}=[{marker[:3]}]", _put(base, path, [marker])
            else:
                inner = _get(base, path)
                inner = dict(inner) if isinstance(inner, dict) else {}
                inner[marker] = marker
                yield f"{label}.<key {marker[:3]}>", _put(base, path, inner)


def _get(body, path: tuple):
    for part in path:
        try:
            body = body[part]
        except (KeyError, IndexError, TypeError):
            return None
    return body


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def game_bodies(game: registry.Game) -> list[dict]:
    """Valid new-game bodies of ``game`` that hold every field a client may give: its options (its
    configuration's fields at their defaults, the form's fields), seats of every kind, the AI's
    settings and the two kinds of clock."""
    config = game.config({}, "options")
    options = {f.name: _jsonable(getattr(config, f.name)) for f in dataclasses.fields(config)
               if f.name not in ("seed", "variant", "supply", "chance") and getattr(config, f.name) is not None}
    players = game.players.start
    if game.name == "kings-ransom":
        options = {}                             # King's Ransom takes no options
    form = {field["name"]: next(c["value"] for c in field["choices"] if c["value"] is not None)
            if "choices" in field else field["number"].get("min", 1)
            for field in (_form(game) or []) if field["name"] != "human"}
    # The form's fields that are the body's own (For the Crown's variant, Supply, seed) go at its top level.
    top = {name: form.pop(name) for name in ("variant", "supply", "seed") if name in form}
    if "house" in form:                          # Crownfall: the human's House, instead of every seat's
        options = {k: v for k, v in options.items() if k not in ("houses", "homes")}
    seats = [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": game.bots.bot_names[0]}}] + \
        [{"kind": "ai"}] * (players - 2)
    bodies = [
        {"game": game.name, "human": 0, "ai": {"spec": "greedy"}, "options": {**options, **form}, **top,
         "spectators": True, "clock": {"base": 600, "increment": 5}, "seats": seats},
        {"game": game.name, "ai": {"bot": "greedy", "seconds": 1, "iterations": 5, "depth": 2},
         "clock": {"days_per_turn": 3},
         "seats": [{"kind": "creator"}, {"kind": "human"}] + [{"kind": "bot"}] * (players - 2)},
        {"game": game.name, "ai": {"level": "easy"}, "seats": [{"kind": "creator"}, {"kind": "bot"}] +
         [{"kind": "human"}] * (players - 2)},
    ]
    if game.variants:
        bodies.append({"game": game.name, "variant": game.variants[0], "seed": 3, "supply": "first-game",
                       "ai": {"bot": "greedy"}})
    return bodies


def _form(game: registry.Game):
    from engine.interfaces.server.app import game_form

    return game_form(game)


# -- the fuzz -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app served by real uvicorn as `ftc serve` serves it, with its rate limits out of the way (a
    refusal for the rate would hide the field's own check)."""
    many = 10 ** 6
    limits = Limits(requests_per_second=many, request_burst=many, games_per_minute=many, game_burst=many,
                    games_per_client=many, hints_per_minute=many, hint_burst=many, analysis_records_per_minute=many,
                    analysis_record_burst=many, analysis_messages_per_second=many, analysis_message_burst=many)
    with ThreadServer(create_app(tmp_path_factory.mktemp("echo") / "g.sqlite3", ai_pool="thread",
                                 limits=limits)) as srv:
        yield srv


def _new_game(probe: Probe, body: dict) -> dict:
    answer = probe.request("a valid new game", "POST", "/api/games", body)
    assert answer.status_code == 201, (body, answer.text)
    return answer.json()


def test_no_answer_of_the_server_holds_a_marker_sent_in_any_field(server):
    probe = Probe(server.base)
    schema = probe.http.get("/openapi.json").json()
    components = schema.get("components", {}).get("schemas", {})
    # A valid game of each kind (tokens for the game paths) and a finished For the Crown game (its record).
    games = {g.name: _new_game(probe, {"game": g.name, "ai": {"bot": "greedy"}}) for g in registry.games()}
    crown = games["crown"]
    probe.request("resign", "POST", f"/api/games/{crown['id']}/resign", headers=auth(crown["token"]))
    record = probe.http.get(f"/api/games/{crown['id']}/record", headers=auth(crown["token"])).json()
    other = games["kings-ransom"]
    bases = {
        ("POST", "/api/games"): [b for g in registry.games() for b in game_bodies(g)],
        ("PATCH", "/api/games/{game_id}"): [{"spectators": True}],
        ("POST", "/api/games/{game_id}/actions"): [{"action": 0, "version": 1}],
        ("POST", "/api/games/saved"): [{"games": [{"id": other["id"], "token": other["token"]}]}],
        ("POST", "/api/games/{game_id}/join"): [{"code": "x" * 43}],
        ("POST", "/api/analysis/position"): [{"text": "crown", "compass": False}],
        ("POST", "/api/analysis/record"): [record],
    }
    for body in bases[("POST", "/api/games")]:       # every base body is valid: the fuzz reaches its fields
        _new_game(probe, body)

    operations = [(method.upper(), path, op) for path, ops in schema["paths"].items() for method, op in ops.items()]
    for method, path, op in operations:
        content = op.get("requestBody", {}).get("content", {}).get("application/json")
        if method in ("POST", "PUT", "PATCH") and (content or (method, path) in RAW_BODIES):
            assert (method, path) in bases, f"{method} {path}: the fuzz has no valid body for it: add one"
    assert RAW_BODIES <= set(bases)

    def target(path: str) -> tuple[str, dict]:
        """The path with a real game's id and token (the game of the marker's fuzz)."""
        if "{game_id}" not in path:
            return path, {}
        return path.replace("{game_id}", other["id"]), auth(other["token"])

    # 1. Bodies: every place the schema names, and every place of each valid body.
    for method, path, op in operations:
        content = op.get("requestBody", {}).get("content", {}).get("application/json")
        if (method, path) not in bases:
            continue
        url, headers = target(path)
        for base in bases[(method, path)]:
            places = list(leaf_places(base))
            if content:
                places += list(schema_places(content["schema"], components))
            if (method, path) == ("POST", "/api/analysis/record"):
                places = [p for p in places if len(p[0]) <= 2][:80]    # a record's header and first steps
            for label, body in mutations(base, places):
                probe.request(f"{method} {path} body {label}", method, url, body, headers)
        for marker in MARKERS:                       # the whole body a marker
            probe.request(f"{method} {path} body={marker[:3]}", method, url, marker, headers)

    # 2. Path and query parameters, with and without a real game's token; the token a marker.
    for method, path, op in operations:
        params = op.get("parameters", [])
        body = bases.get((method, path), [None])[0]
        for marker in PATH_MARKERS:
            quoted = urllib.parse.quote(marker, safe="")
            query = "&".join(f"{p['name']}={quoted}" for p in params if p["in"] == "query")
            url = path.replace("{game_id}", quoted) + (f"?{query}" if query else "")
            for headers in ({}, auth(other["token"]), {"authorization": f"Bearer {marker}"}):
                probe.request(f"{method} {path} params={marker[:3]} {sorted(headers) or ''}", method, url, body,
                              headers)
            if "{game_id}" in path:
                real, _ = target(path)
                probe.request(f"{method} {path} token={marker[:3]}", method, real, body,
                              {"authorization": f"Bearer {marker}"})
    for marker in PATH_MARKERS:                      # pages outside the schema
        quoted = urllib.parse.quote(marker, safe="")
        for url in (f"/rules/{quoted}", f"/static/{quoted}", f"/api/{quoted}", f"/{quoted}"):
            probe.request(f"GET {url[:8]} {marker[:3]}", "GET", url)

    # 3. WebSockets: their paths, their first message (the token), the analysis board's messages.
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    ws_base = server.base.replace("http://", "ws://")

    def socket(where: str, path: str, messages: list, expect_hello: bool = False) -> None:
        try:
            with connect(ws_base + path, max_size=None, open_timeout=30) as ws:
                if expect_hello:
                    probe.check(where + " hello", 101, ws.recv(timeout=30))
                for label, message in messages:
                    ws.send(message)
                    try:
                        answer = ws.recv(timeout=30)
                    except TimeoutError:
                        continue
                    text = answer if isinstance(answer, str) else answer.decode("utf-8", "replace")
                    probe.check(f"{where} {label}", 0 if '"error"' in text else 101, text)    # 0: an error
                    if '"started"' in text:
                        ws.send(json.dumps({"type": "stop"}))
        except ConnectionClosed as exc:
            reason = exc.rcvd.reason if exc.rcvd is not None else ""
            probe.check(where + " close", 0, reason)

    for marker in PATH_MARKERS:
        quoted = urllib.parse.quote(marker, safe="")
        token = [("token", json.dumps({"token": marker}))]
        socket(f"WS game path {marker[:3]}", f"/api/games/{quoted}/ws", token)
        socket(f"WS game token {marker[:3]}", f"/api/games/{other['id']}/ws", token)
        socket(f"WS game first message {marker[:3]}", f"/api/games/{other['id']}/ws", [("raw", marker)])
        socket(f"WS watch path {marker[:3]}", f"/api/games/{quoted}/watch/ws", [])
    analyze = {"type": "analyze", "position": "crown", "compass": False, "depth": 1, "seconds": 1, "top": 1,
               "eval": "classical"}
    messages = [(label, json.dumps(body)) for base in (analyze, {"type": "stop"})
                for label, body in mutations(base, list(leaf_places(base)))] + \
        [(f"raw {marker[:3]}", marker) for marker in MARKERS]
    socket("WS analysis", "/api/analysis/ws", messages, expect_hello=True)

    # 4. The last line of defence never had to act: every refusal was worded without the value.
    health = probe.http.get("/api/health").json()
    assert probe.sent > 1000 and 429 not in probe.statuses, (probe.sent, probe.statuses)
    assert not probe.found, f"{len(probe.found)} places answered with the client's input:\n" + \
        "\n".join(f"{where}: {text}" for where, text in sorted(probe.found.items()))
    assert health.get("echoes_scrubbed") == 0, health


def test_the_last_line_of_defence_takes_out_what_a_message_still_echoes(tmp_path):
    """A refusal planted to echo its input (as a careless new endpoint would): the answer made by
    refusals.py holds neither the marker nor a start of it, says where the value was, and the server
    counts it; a plain short word (which the fuzz above catches at its source) is left."""
    from fastapi import HTTPException

    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread")

    @app.get("/api/planted")
    def planted(q: str):
        raise HTTPException(422, f"q: {q!r} is not allowed; {q[:30]}...")

    with ThreadServer(app) as srv:
        for marker in (HTML, LONG):
            answer = httpx.get(srv.base + "/api/planted", params={"q": marker}, timeout=30)
            assert answer.status_code == 422 and not _echoed(answer.text), answer.text
            assert answer.json()["detail"] in ("q: '(the value given)' is not allowed; (the value given)...",
                                               'q: "(the value given)" is not allowed; (the value given)...'), \
                answer.text
        assert httpx.get(srv.base + "/api/health", timeout=30).json()["echoes_scrubbed"] == 2
        plain = httpx.get(srv.base + "/api/planted", params={"q": PLAIN}, timeout=30)
        assert plain.status_code == 422 and PLAIN in plain.text
