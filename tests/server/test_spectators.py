"""Spectators (docs/server.md "Spectators"): whole games of every registered game played through the
HTTP API while a spectator polls GET /api/games/{id}/watch and a spectator WebSocket listens; every
answer and push the spectator gets is checked against the server's true state at its version:

1. Resampling: the spectator's view built from a state that any seat's ``resample_hidden`` redrew
   (every card that seat cannot see dealt again) is the view that was sent, byte for byte: nothing
   in it depends on a hidden card, a screened pick or a face-down identity.
2. Scanners built from the state, not from the view code: no decision of either seat whose action
   the other seat may not see (For the Crown: a card chosen from a hidden zone, a pick behind the
   screen; King's Ransom: the card of a face-down play) shows its text or card in a spectator's log;
   the arena's face-down squares show no card; behind the Point-Buy screen no unit of a pick shows.
3. Every version is pushed; the record only once the game is over; nothing for a seat (actions, a
   prompt, an AI note) is ever in a spectator's view.
And: closing a game to spectators closes their sockets and answers 404 from then on, like an unknown
id; every bad request is a 4xx naming the problem that changes nothing; a game saved before
spectators' logs were kept gets its log derived from its record.
"""

from __future__ import annotations

import concurrent.futures
import json
import random

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.crown import actions as A
from engine.crown.observation import behind_screen
from engine.games import registry
from engine.games.view import game_view
from engine.interfaces.server.app import Limits, create_app
from engine.interfaces.server.seats import game_part
from tests.server.support import auth, record_commits
from tests.toygame.conftest import toy  # noqa: F401 - the fixture

FAST = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)

GAMES = [
    pytest.param({"supply": "random", "options": {"max_turns": 24}, "ai": {"bot": "greedy"},
                  "seed": 3}, 0, id="crown"),
    pytest.param({"supply": ["Astrology", "False Orders", "Far Sight", "Scribes", "Vigilance", "Stables", "Academy",
                             "Armor", "Wish", "Bureaucracy"], "options": {"max_turns": 24}, "ai": {"bot": "greedy"}},
                 1, id="crown-revealing-cards"),
    pytest.param({"variant": "point-buy", "options": {"secret_picks": True, "max_turns": 16},
                  "ai": {"bot": "greedy"}}, 0, id="crown-point-buy-screen"),
    pytest.param({"variant": "kings-ransom", "ai": {"bot": "greedy"}}, 0, id="kings-ransom"),
    pytest.param({"game": "crusade", "ai": {"level": "easy"}}, 1, id="crusade"),
    pytest.param({"game": "crownfall", "ai": {"spec": "greedy"}, "options": {"players": 3, "rounds": 2}}, 1,
                 id="crownfall-3"),
]


def _hidden_decision(state, action: int) -> bool:
    """Whether a decision of one seat is hidden from the other seat (the test's own rule, from the
    state): For the Crown's picks behind the screen and choices of a card; King's Ransom's card
    played face down."""
    if state.game == "crown":
        return behind_screen(state) or (not A.is_order(action) and A.decode(action)[0] == A.K_CARD)
    if state.game == "kings-ransom":
        return state.action_fields(action).get("kind") == "play"
    return False


def hidden_decisions(record: dict) -> list[tuple[int, str, dict]]:
    """(seat, text, fields) of every decision of a finished game's record that is hidden from the
    other seats (``_hidden_decision``), in order."""
    game = registry.for_record(record)
    found = []
    if game.walk is None:
        return found
    state, steps, resign = game.walk(record)
    for player, action in steps:
        if state.is_terminal():
            break
        if resign is not None and action == resign and player >= 0:
            state.resign(player)
            continue
        if player >= 0 and _hidden_decision(state, action):
            found.append((player, state.action_text(action), state.action_fields(action)))
        state.apply(action)
    return found


def _secrets(record: dict) -> tuple[set, set]:
    """(texts of hidden decisions, card tokens played face down) of a finished game's record."""
    hidden = hidden_decisions(record)
    return {text for _, text, _ in hidden}, {fields["card"] for _, _, fields in hidden if "card" in fields}


def _check_sent(sent: dict, snap, raw: str, sample: random.Random) -> None:
    """One spectator answer or push against the true snapshot at its version."""
    state = snap.state
    assert sent["watching"] is True and sent["human"] is None
    assert sent["actions"] == [] and sent["prompt"] is None and sent["your_turn"] is False
    assert sent["ai_note"] is None and sent["ai_last_turn"] == []
    entry = registry.for_state(state)
    if not state.is_terminal():
        for seat in range(state.num_players):
            other = state.resample_hidden(seat, sample)
            args = (sent["id"], sent["version"], other, None, sent["thinking"], sent["log"], [], None)
            again = game_view(entry, *args)
            assert json.loads(json.dumps(again)) == game_part(sent), \
                f"version {sent['version']}: the spectator's view depends on what seat {seat} cannot see"
    if state.game == "crown" and behind_screen(state):
        public = set(state.setup_state["public"])
        assert all(u["square"] in public for u in sent["units"]), "a pick behind the screen shows"
        assert sent["barracks"] == [{}, {}]
    if state.game == "kings-ransom" and not state.is_terminal():
        pos = state.pos
        down = {sq["square"] for sq in sent["observation"]["arena"] if sq["face_down"]}
        from engine import codes
        from engine.notation import square_name
        truth = {square_name(sq) for sq in codes.squares(pos.face_down)}
        assert down == truth
        assert all(sq["card"] is None for sq in sent["observation"]["arena"] if sq["face_down"])
        assert sent["observation"].get("hands") is None and "hand" not in sent["observation"]
    json.loads(raw)


_RECEIVER = concurrent.futures.ThreadPoolExecutor(1)


def _receive(ws, seconds: float = 30.0) -> str:
    """The socket's next message; a failure (not a hang) when none comes within ``seconds``."""
    try:
        return _RECEIVER.submit(ws.receive_text).result(timeout=seconds)
    except concurrent.futures.TimeoutError:
        pytest.fail(f"nothing was pushed to the spectator's socket within {seconds:g} s")


def _play(client, body: dict, human: int):
    """Create a game and play it to the end by random legal actions of the human while a spectator
    polls and a spectator socket listens: (answers, pushes, raw texts, snapshots, game id, token)."""
    server = client.app.state.server
    server.entropy = random.Random(11)
    snapshots = record_commits(server)
    created = client.post("/api/games", json={"human": human, **body})
    assert created.status_code == 201, created.text
    view = created.json()
    token = view.pop("token")
    gid = view["id"]
    rng = random.Random(5)
    answers, pushes, raw = [], [], {}
    with client.websocket_connect(f"/api/games/{gid}/watch/ws") as ws:
        first = json.loads(text := _receive(ws))
        pushes.append(first)
        raw[id(first)] = text
        while view["status"] == "playing":
            watched = client.get(f"/api/games/{gid}/watch")
            assert watched.status_code == 200, watched.text
            answers.append(watched.json())
            raw[id(answers[-1])] = watched.text
            if not view["actions"]:
                break
            early = client.get(f"/api/games/{gid}/watch/record")
            assert early.status_code == 409 and "when the game is over" in early.text
            response = client.post(f"/api/games/{gid}/actions", headers=auth(token),
                                   json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
            assert response.status_code == 200, response.text
            view = response.json()
        final = view["version"]
        while pushes[-1]["version"] != final or pushes[-1]["thinking"]:
            pushed = json.loads(text := _receive(ws))
            pushes.append(pushed)
            raw[id(pushed)] = text
    watched = client.get(f"/api/games/{gid}/watch")
    answers.append(watched.json())
    raw[id(answers[-1])] = watched.text
    return answers, pushes, raw, snapshots, gid, token, view


@pytest.mark.parametrize("body, human", GAMES)
def test_a_spectator_sees_every_version_and_nothing_hidden(tmp_path, body, human):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        answers, pushes, raw, snapshots, gid, token, view = _play(client, body, human)
        game = app.state.server.games[gid]
        assert view["status"] == "over"
        record = client.get(f"/api/games/{gid}/watch/record")
        assert record.status_code == 200 and record.json() == game.snap.state.record()
    # Every committed version was pushed to the spectator's socket.
    assert set(snapshots) <= {p["version"] for p in pushes}, "a version was not pushed to the spectator"
    texts, cards = _secrets(record.json())
    sample = random.Random(3)
    checked = 0
    for sent in answers + pushes:
        snap = snapshots.get(sent["version"])
        if snap is None:
            continue
        _check_sent(sent, snap, raw[id(sent)], sample)
        checked += 1
        for entry in sent["log"]:
            assert entry["text"] not in texts, f"a hidden decision is in a spectator's log: {entry}"
            if entry["fields"] and entry["fields"].get("kind") == "play":
                assert "card" not in entry["fields"], entry
    assert checked >= len(answers) // 2
    # The spectator's log has an entry for every step the seat's has (the same steps, public texts).
    assert len(game.snap.public_log) == len(game.snap.log)
    assert [e["player"] for e in game.snap.public_log] == [e["player"] for e in game.snap.log]


def test_a_toy_game_is_watched_whole(tmp_path, toy):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        answers, pushes, raw, snapshots, gid, token, view = _play(client, {"game": "tictactoe", "ai": {"spec": "random"}},
                                                                  0)
        assert set(snapshots) <= {p["version"] for p in pushes}
        for sent in answers + pushes:
            assert sent["watching"] and sent["actions"] == []
        assert answers[-1]["log"] == view["log"]          # nothing is hidden: the same log as the seat's


def _game(client, **body):
    defaults = {} if body.get("variant") == "kings-ransom" else {"seed": 5, "supply": "first-game"}
    created = client.post("/api/games", json={**defaults, "ai": {"bot": "greedy"}, **body})
    assert created.status_code == 201, created.text
    view = created.json()
    return view, view.pop("token")


def test_closing_a_game_to_spectators_closes_their_sockets_and_hides_it(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, token = _game(client)
        gid = view["id"]
        unknown = client.get("/api/games/0123456789abcdef/watch")
        assert unknown.status_code == 404
        with client.websocket_connect(f"/api/games/{gid}/watch/ws") as ws:
            assert ws.receive_json()["version"] == view["version"]
            changed = client.patch(f"/api/games/{gid}", headers=auth(token), json={"spectators": False})
            assert changed.status_code == 200 and changed.json() == {"id": gid, "spectators": False}
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404
        for path in ("watch", "watch/record"):
            hidden = client.get(f"/api/games/{gid}/{path}")
            assert hidden.status_code == 404 and hidden.json() == unknown.json()   # alike: nothing tells them apart
        with client.websocket_connect(f"/api/games/{gid}/watch/ws") as ws:
            with pytest.raises(WebSocketDisconnect) as refused:
                ws.receive_json()
            assert refused.value.code == 4404
        # Kept across a restart of the game in memory (the store has it), and opened again.
        app.state.server.games.clear()
        assert client.get(f"/api/games/{gid}/watch").status_code == 404
        assert client.patch(f"/api/games/{gid}", headers=auth(token), json={"spectators": True}).status_code == 200
        assert client.get(f"/api/games/{gid}/watch").status_code == 200
        # A game created closed is not watchable.
        closed_view, _ = _game(client, spectators=False)
        assert client.get(f"/api/games/{closed_view['id']}/watch").json() == unknown.json()


def test_bad_spectator_requests_are_refused_and_change_nothing(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, token = _game(client)
        other, other_token = _game(client)
        gid = view["id"]
        long_id = client.get(f"/api/games/{'a' * 65}/watch")
        assert long_id.status_code == 404 and "at most 64 characters" in long_id.text
        no_token = client.patch(f"/api/games/{gid}", json={"spectators": False})
        assert no_token.status_code == 401 and "token" in no_token.text
        wrong_token = client.patch(f"/api/games/{gid}", headers=auth(other_token), json={"spectators": False})
        assert wrong_token.status_code == 404
        for body, words in ((b"[1]", "body"), (b'{"spectators": "no"}', "spectators"),
                            (b'{"spectators": false, "x": 1}', "the fields here: spectators"), (b"{", "JSON"), (b"{}", "spectators")):
            bad = client.patch(f"/api/games/{gid}", headers={**auth(token), "Content-Type": "application/json"},
                               content=body)
            assert bad.status_code in (400, 422) and words in bad.text, (body, bad.text)
        bad_new = client.post("/api/games", json={"spectators": "yes"})
        assert bad_new.status_code == 422 and "spectators" in bad_new.text
        assert client.get(f"/api/games/{gid}/watch").status_code == 200          # nothing changed
        assert app.state.server.store.get(gid)["spectators"] is True
        assert client.get(f"/api/games/{gid}/watch").json()["version"] == view["version"]


@pytest.mark.parametrize("body", [{"variant": "point-buy", "options": {"secret_picks": True, "max_turns": 12}},
                                  {"variant": "kings-ransom"}], ids=["crown", "kings-ransom"])
def test_a_game_saved_before_spectator_logs_gets_its_log_from_its_record(tmp_path, body):
    """A game saved before this change has no spectators' log (NULL): its record is replayed for one,
    and it is the log the server keeps for a game played now (never the seat's entries)."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        server = app.state.server
        server.entropy = random.Random(2)
        view, token = _game(client, **body)
        rng = random.Random(1)
        for _ in range(25):
            if view["status"] != "playing" or not view["actions"]:
                break
            view = client.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                               json={"action": rng.choice(view["actions"])["id"], "version": view["version"]}).json()
        gid = view["id"]
        kept = client.get(f"/api/games/{gid}/watch").json()["log"]
        seat = server.games[gid].snap.log
        assert kept != list(seat), "the game hid nothing from a spectator: it tests nothing"
        with server.store.backend.transaction("test") as tx:
            tx.run("UPDATE games SET public_log=NULL WHERE id=?", (gid,))
        server.games.clear()
        derived = client.get(f"/api/games/{gid}/watch").json()["log"]
        assert derived == kept


def test_migration_3_keeps_the_spectators_setting_and_log_on_both_stores(store_url):
    """Migration 3 on SQLite and PostgreSQL: a new game is open to spectators unless told otherwise;
    the setting and the spectators' log are kept; NULL (a game from before) reads as None."""
    from engine.interfaces.server.migrations import LATEST
    from engine.interfaces.server.store import open_store

    store = open_store(store_url)
    try:
        assert store.schema_version() == LATEST >= 3
        store.insert("g1", 0, {}, {"moves": []}, "playing", [{"text": "mine"}], "h" * 64, "c")
        store.insert("g2", 0, {}, {"moves": []}, "playing", [], "h" * 64, "c", False, [{"text": "theirs"}])
        assert store.get("g1")["spectators"] is True and store.watchable("g1")
        assert store.get("g2")["spectators"] is False and not store.watchable("g2")
        assert store.get("g2")["public_log"] == [{"text": "theirs"}]
        assert store.set_spectators("g1", False) and not store.watchable("g1") and store.get("g1")["version"] == 1
        assert not store.set_spectators("nope", True) and not store.watchable("nope")
        store.update("g1", {"moves": [1]}, "playing", [], [], 1, [{"text": "public"}])
        assert store.get("g1")["public_log"] == [{"text": "public"}]
        store.update("g1", {"moves": [2]}, "playing", [], [], 2)
        assert store.get("g1")["public_log"] is None
    finally:
        store.close()


def test_deleting_a_game_closes_its_spectator_sockets(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, token = _game(client)
        gid = view["id"]
        with client.websocket_connect(f"/api/games/{gid}/watch/ws") as ws:
            assert json.loads(_receive(ws))["version"] == view["version"]
            assert client.delete(f"/api/games/{gid}", headers=auth(token)).status_code == 200
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404
        assert client.get(f"/api/games/{gid}/watch").status_code == 404


def test_spectator_sockets_are_capped_per_game_and_per_client(tmp_path):
    """At most ``spectator_sockets_per_game`` spectator sockets per game (apart from the seat's: the
    player's own socket still opens), and a client's spectator sockets count toward its socket cap."""
    limits = Limits(requests_per_second=1e6, request_burst=10**6, spectator_sockets_per_game=1,
                    sockets_per_client=2)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=limits)
    with TestClient(app) as client:
        view, token = _game(client)
        gid = view["id"]
        with client.websocket_connect(f"/api/games/{gid}/watch/ws") as first:
            assert json.loads(_receive(first))["version"] == view["version"]
            with client.websocket_connect(f"/api/games/{gid}/watch/ws") as second:
                with pytest.raises(WebSocketDisconnect) as refused:
                    second.receive_json()
                assert refused.value.code == 4429 and "spectator sockets per game" in refused.value.reason
            with client.websocket_connect(f"/api/games/{gid}/ws", headers=auth(token)) as seat:
                assert seat.receive_json()["human"] == 0                  # the seat's socket is not crowded out
                with client.websocket_connect(f"/api/games/{gid}/watch/ws") as third:
                    with pytest.raises(WebSocketDisconnect) as refused:
                        third.receive_json()
                    assert refused.value.code == 4429 and "per client" in refused.value.reason
