"""Seats (docs/server.md "Seats, invitations and bots"): games of several humans, bots and AIs
through the API; joining by invitation code; what each seat may see and do; the migration of a
database from before seats; rematches."""

import contextlib
import json
import logging
import random
import sqlite3
import threading

import pytest
from fastapi.testclient import TestClient

from engine.games import registry
from engine.games.view import game_view
from engine.interfaces.server.app import Limits, create_app, hash_token
from engine.interfaces.server.migrations import MIGRATIONS
from engine.interfaces.server.seats import game_part
from engine.interfaces.server.store import open_store
from tests.server.support import assert_shows_log, auth, record_commits
from tests.server.test_spectators import _check_sent, hidden_decisions

FAST = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)

#: Whole games: the body, and the seats (played through the API: creator, human and bot seats).
WHOLE = [
    pytest.param({"supply": "random", "options": {"max_turns": 24}, "seed": 3},
                 [{"kind": "creator"}, {"kind": "human"}], id="crown"),
    pytest.param({"variant": "point-buy", "options": {"secret_picks": True, "max_turns": 14}},
                 [{"kind": "human"}, {"kind": "creator"}], id="crown-point-buy-screen"),
    pytest.param({"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}], id="kings-ransom"),
    pytest.param({"game": "crusade"}, [{"kind": "human"}, {"kind": "creator"}], id="crusade"),
    pytest.param({"game": "crownfall", "options": {"players": 3, "rounds": 2}},
                 [{"kind": "creator"}, {"kind": "bot"}, {"kind": "ai", "ai": {"spec": "greedy"}}], id="crownfall-3"),
    pytest.param({"game": "crownfall", "options": {"players": 4, "rounds": 2}},
                 [{"kind": "ai", "ai": {"spec": "random"}}, {"kind": "human"}, {"kind": "creator"},
                  {"kind": "ai", "ai": {"spec": "greedy"}}], id="crownfall-4"),
    pytest.param({"game": "crownfall", "options": {"players": 4, "rounds": 2}},
                 [{"kind": "creator"}, {"kind": "human"}, {"kind": "bot"}, {"kind": "ai", "ai": {"spec": "greedy"}}],
                 id="crownfall-4-human-bot-ai"),
]


def _create(client, body, seats):
    created = client.post("/api/games", json={**body, "seats": seats})
    assert created.status_code == 201, created.text
    view = created.json()
    tokens = {view["seat"]: view.pop("token")}
    for bot in view.pop("bots"):
        tokens[bot["seat"]] = bot["token"]
    invites = view.pop("invites")
    return view, tokens, invites


def _join(client, invite):
    game_id, code = invite["link"].split("=", 1)[1].split(".", 1)
    joined = client.post(f"/api/games/{game_id}/join", json={"code": code})
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == invite["seat"]
    return joined.json()["token"]


def _check_view(sent: dict, raw: str, seat: int, snap, sample: random.Random, secrets: set) -> None:
    """One seat's answer or push against the true snapshot at its version: built from that seat's
    observation (the same for every state the seat cannot tell from the true one) with that seat's
    own log."""
    assert sent["seat"] == seat and sent["human"] == seat
    assert not any(secret in raw for secret in secrets)      # no token or code of any seat is ever in a view
    state = snap.state
    entry = registry.for_state(state)
    creator = sent["creator"]
    log, last = list(snap.log_of(seat, creator)), list(snap.ai_last_turn_of(seat, creator))
    assert_shows_log(sent["log"], log)
    if state.is_terminal():
        return
    for _ in range(2):
        other = state.resample_hidden(seat, sample)
        args = (sent["id"], sent["version"], other, seat, sent["thinking"], log, last, snap.ai_note)
        again = game_view(entry, *args)
        assert json.loads(json.dumps(again)) == game_part(sent), \
            f"version {sent['version']}: seat {seat}'s view depends on what it cannot see"


@pytest.mark.parametrize("body, seats", WHOLE)
def test_humans_bots_and_ais_play_a_whole_game_each_seeing_only_its_own(tmp_path, body, seats):
    """Every registered game with two or more seats played through the API (humans who joined by
    their invitation code, bots by their bot token, AIs at their own settings): each seat acts on its
    own decisions only (another seat's token is refused with 409), every answer and every push to
    each of two seats' sockets is that seat's view (resampled: it does not depend on what the seat
    cannot see), a spectator's view after each action is checked as test_spectators.py checks it,
    and no seat's log shows a decision hidden from it."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        server = app.state.server
        server.entropy = random.Random(5)
        snapshots = record_commits(server)
        view, tokens, invites = _create(client, body, seats)
        secrets = set(tokens.values()) | {invite["code"] for invite in invites}
        for invite in invites:
            tokens[invite["seat"]] = _join(client, invite)
        secrets |= set(tokens.values())
        game = server.games[view["id"]]
        snapshots.setdefault(view["version"], game.snap)
        players = sorted(tokens)
        assert players == [i for i, s in enumerate(seats) if s["kind"] != "ai"]
        assert [s["kind"] for s in view["seating"]] == [
            {"creator": "human"}.get(s["kind"], s["kind"]) for s in seats]
        rng, sample = random.Random(1), random.Random(2)
        sent = []                                          # (seat, view, raw JSON)
        watched = players[:2]
        with client.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(tokens[watched[0]])) as ws0, \
                client.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(tokens[watched[1]])) as ws1:
            sockets = {watched[0]: ws0, watched[1]: ws1}
            for seat, ws in sockets.items():
                text = ws.receive_text()
                sent.append((seat, json.loads(text), text))
            refused = 0
            while True:
                current = client.get(f"/api/games/{view['id']}", headers=auth(tokens[players[0]])).json()
                if current["status"] == "over":
                    break
                mover = current["deciding"]
                assert mover in tokens, "the AI left a decision of its own seat undone"
                response = client.get(f"/api/games/{view['id']}", headers=auth(tokens[mover]))
                mine = response.json()
                sent.append((mover, mine, response.text))
                assert mine["your_turn"] and mine["actions"]
                other = next(s for s in players if s != mover)
                if refused < 3:                            # another seat's token cannot take this decision
                    wrong = client.post(f"/api/games/{view['id']}/actions", headers=auth(tokens[other]),
                                        json={"action": mine["actions"][0]["id"], "version": mine["version"]})
                    assert wrong.status_code == 409 and "not your decision" in wrong.json()["detail"]
                    refused += 1
                response = client.post(f"/api/games/{view['id']}/actions", headers=auth(tokens[mover]),
                                       json={"action": rng.choice(mine["actions"])["id"], "version": mine["version"]})
                assert response.status_code == 200, response.text
                sent.append((mover, response.json(), response.text))
                watched_view = client.get(f"/api/games/{view['id']}/watch")
                sent.append((None, watched_view.json(), watched_view.text))      # a spectator's, checked as one
                final = game.snap.version
                for seat, ws in sockets.items():           # pushes up to this version, to each socket its view
                    while True:
                        text = ws.receive_text()
                        pushed = json.loads(text)
                        sent.append((seat, pushed, text))
                        if pushed["version"] == final and not pushed["thinking"]:
                            break
        record = client.get(f"/api/games/{view['id']}/record", headers=auth(tokens[players[-1]])).json()
    assert refused >= 1
    checked = 0
    for seat, shown, raw in sent:
        snap = snapshots.get(shown["version"])
        if snap is not None and not shown["thinking"]:
            if seat is None:
                assert shown["seat"] is None and not any(secret in raw for secret in secrets)
                _check_sent(shown, snap, raw, sample)
            else:
                _check_view(shown, raw, seat, snap, sample, secrets)
            checked += 1
    assert checked >= 10
    assert {seat for seat, _, _ in sent} >= set(watched) | {None}
    # No seat's log names a decision of another seat that the seat could not see (the test's own rule).
    hidden = _hidden_texts(record)
    for seat in players:
        for entry in game.snap.log_of(seat, game.human):
            if entry["player"] is not None and entry["player"] != seat:
                assert (entry["player"], entry["text"]) not in hidden, (seat, entry)
    # Each seat's log has an entry per step, as the spectators' log: where the actor's own entry says
    # more than a spectator's (the step hides something), no other seat's entry is the actor's.
    logs = {seat: game.snap.log_of(seat, game.human) for seat in players}
    public = game.snap.public_log
    assert {len(log) for log in logs.values()} == {len(public)}
    secret_steps = 0
    for i, spectator in enumerate(public):
        actor = spectator["player"]
        if actor in logs and logs[actor][i] != spectator:
            secret_steps += 1
            for seat in players:
                if seat != actor:
                    assert logs[seat][i] != logs[actor][i], (seat, logs[actor][i])
    if body.get("variant") in ("kings-ransom", "point-buy"):         # face-down plays, screened picks
        assert hidden and secret_steps, "the game had no hidden decision: the checks above checked nothing"


def _hidden_texts(record: dict) -> set:
    """(seat, text) of every decision hidden from the other seats, from the finished game's record."""
    return {(player, text) for player, text, _ in hidden_decisions(record)}


# -- joining -------------------------------------------------------------------------------------
def test_joins_one_code_one_seat_and_every_bad_code_is_404_alike(store_url):
    """An invitation code takes its seat once: a second join with it, a wrong code and an unknown
    game are the same 404; a token of another game reaches nothing here; the joined seat may act but
    neither change the game's settings nor delete it (403)."""
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, tokens, invites = _create(client, {"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}])
        assert [i["seat"] for i in invites] == [1]
        assert view["seating"][1] == {"seat": 1, "kind": "human", "taken": False}
        gid, code = view["id"], invites[0]["code"]
        other, other_tokens, _ = _create(client, {"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "ai"}])
        wrong = ("y" if code[0] == "x" else "x") + code[1:]       # one character off, never the code itself
        assert wrong != code
        answers = [client.post(f"/api/games/{gid}/join", json={"code": wrong}),               # wrong code
                   client.post(f"/api/games/{'0' * 16}/join", json={"code": code}),           # unknown game
                   client.post(f"/api/games/{other['id']}/join", json={"code": code})]        # another game
        assert [a.status_code for a in answers] == [404] * 3
        assert len({a.json()["detail"] for a in answers}) == 1
        token = client.post(f"/api/games/{gid}/join", json={"code": code}).json()["token"]
        again = client.post(f"/api/games/{gid}/join", json={"code": code})                   # used
        assert again.status_code == 404 and again.json() == answers[0].json()
        seat_view = client.get(f"/api/games/{gid}", headers=auth(token)).json()
        assert seat_view["seat"] == 1 and seat_view["seating"][1]["taken"]
        creator_view = client.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()
        assert creator_view["seat"] == 0 and creator_view["seating"][1]["taken"]
        foreign = client.get(f"/api/games/{gid}", headers=auth(other_tokens[0]))
        assert foreign.status_code == 404
        patched = client.patch(f"/api/games/{gid}", headers=auth(token), json={"spectators": False})
        assert patched.status_code == 403 and "creator" in patched.json()["detail"]
        deleted = client.delete(f"/api/games/{gid}", headers=auth(token))
        assert deleted.status_code == 403
        assert client.get(f"/api/games/{gid}/watch").status_code == 200            # nothing changed
        bad = client.post(f"/api/games/{gid}/join", json={"code": code, "seat": 1})
        assert bad.status_code == 422
        # The creator deletes it: its seats go with it.
        assert client.delete(f"/api/games/{gid}", headers=auth(tokens[0])).status_code == 200
        assert app.state.server.store.seats(gid) == []


def test_two_joins_racing_with_one_code_one_gets_the_seat(store_url):
    """The code is consumed by one statement in the database: of joins racing with it (each on its
    own store, as two servers), exactly one gets the seat."""
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, _, invites = _create(client, {"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}])
    stores = [open_store(store_url) for _ in range(4)]
    try:
        start = threading.Barrier(len(stores))
        results = [None] * len(stores)

        def join(i):
            start.wait()
            results[i] = stores[i].join(view["id"], hash_token(invites[0]["code"]), hash_token(f"token{i:020d}"))

        threads = [threading.Thread(target=join, args=(i,)) for i in range(len(stores))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results, key=str) == [1] + [None] * (len(stores) - 1)
        winner = results.index(1)
        assert stores[0].seat_of(view["id"], hash_token(f"token{winner:020d}")) == 1
        assert [stores[0].seat_of(view["id"], hash_token(f"token{i:020d}")) for i in range(len(stores))
                if i != winner] == [None] * (len(stores) - 1)
    finally:
        for store in stores:
            store.close()


# -- bad bodies ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seats, names", [
    ([{"kind": "creator"}], "seats: this game has 2 players"),
    ([{"kind": "creator"}, {"kind": "human"}, {"kind": "ai"}], "seats: this game has 2 players"),
    ([{"kind": "human"}, {"kind": "ai"}], "seats: exactly one seat must be the creator's"),
    ([{"kind": "creator"}, {"kind": "creator"}], "seats[1]: exactly one seat must be the creator's"),
    ([{"kind": "creator"}, {"kind": "robot"}], "seats[1].kind: expected one of creator, human, ai, bot"),
    ([{"kind": "creator"}, {}], "seats[1].kind"),
    ([{"kind": "creator"}, "human"], "seats[1]: expected an object"),
    ([{"kind": "creator"}, {"kind": "human", "ai": {"level": "easy"}}], "seats[1].ai: only an AI seat takes 'ai'"),
    ([{"kind": "creator"}, {"kind": "ai", "ai": {"level": "godlike"}}], "seats[1].ai.level"),
    ([{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "no-such-bot"}}], "seats[1].ai:"),
    ([{"kind": "creator"}, {"kind": "ai", "ai": 3}], "seats[1].ai: expected the AI's settings"),
    ([{"kind": "creator"}, {"kind": "bot", "token": "mine"}],
     "seats[1]: 1 unknown field(s): a seat of kind bot has kind only"),
])
def test_every_bad_seats_body_is_a_422_naming_the_seat_and_creates_nothing(store_url, seats, names):
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        answer = client.post("/api/games", json={"variant": "kings-ransom", "seats": seats})
        assert answer.status_code == 422, answer.text
        assert names in answer.json()["detail"], answer.json()
        store = app.state.server.store
        assert store.backend.query("count", "SELECT COUNT(*) FROM games")[0][0] == 0
        assert store.backend.query("count", "SELECT COUNT(*) FROM seats")[0][0] == 0


def test_human_and_seats_must_agree(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        answer = client.post("/api/games", json={"variant": "kings-ransom", "human": 1,
                                                 "seats": [{"kind": "creator"}, {"kind": "human"}]})
        assert answer.status_code == 422 and answer.json()["detail"].startswith("human: seat 1")
        too_many = client.post("/api/games", json={"variant": "kings-ransom", "seats": [{"kind": "ai"}] * 9})
        assert too_many.status_code == 422 and too_many.json()["detail"][0]["loc"][-1] == "seats"


# -- the migration of a database from before seats -------------------------------------------------
def test_a_game_from_before_seats_is_migrated_with_its_token_and_data(tmp_path, store_url):
    """A database at schema version 3 (before seats) with a game in play: opened by this server,
    the game's human seat has its token (the same one plays on), its log is kept, its other seat is
    the AI with the game's settings, and its view is the same as before."""
    source = create_app(tmp_path / "source.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(source) as client:
        created = client.post("/api/games", json={"variant": "kings-ransom", "human": 1, "ai": {"bot": "greedy"}})
        view = created.json()
        token = view.pop("token")
        before = client.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        row = source.state.server.store.get(view["id"])
    columns = ("id", "created", "updated", "human", "ai", "record", "status", "log", "ai_last_turn", "version",
               "token_hash", "client", "spectators", "public_log")
    values = [row[c] if c not in ("ai", "record", "log", "ai_last_turn", "public_log") else json.dumps(row[c])
              for c in columns]
    _old_database(store_url, columns, values)
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        store = app.state.server.store
        assert store.schema_version() == len(MIGRATIONS)
        assert store.seats(view["id"]) == [{"seat": 1, "kind": "human", "token_hash": hash_token(token),
                                            "invite_hash": None, "ai": None, "joined": row["created"], "log": None,
                                            "ai_last_turn": None, "offered": False}]
        after = client.get(f"/api/games/{view['id']}", headers=auth(token))
        assert after.status_code == 200, after.text
        assert game_part(after.json()) == game_part(before) and after.json()["log"]
        assert after.json()["seating"] == [{"seat": 0, "kind": "ai", "taken": True},
                                           {"seat": 1, "kind": "human", "taken": True}]
        live = app.state.server.games[view["id"]]
        assert live.seats[0].ai.bot == "greedy"
        played = client.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                             json={"action": after.json()["actions"][0]["id"], "version": after.json()["version"]})
        assert played.status_code == 200 and played.json()["version"] > after.json()["version"]
        rematch = client.post(f"/api/games/{view['id']}/resign", headers=auth(token))
        assert rematch.status_code == 200
        refused = client.post(f"/api/games/{view['id']}/rematch", headers=auth(token))
        assert refused.status_code == 409 and "before rematches" in refused.json()["detail"]


def _old_database(url: str, columns, values) -> None:
    """A database with migrations 1..3 applied (as a server before seats left it) holding one game row."""
    statements = [s for m in MIGRATIONS[:3] for s in m.statements("postgres" if "://" in url else "sqlite")]
    marks = ",".join("?" * len(columns))
    insert = f"INSERT INTO games ({', '.join(columns)}) VALUES ({marks})"
    if "://" in url:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                         "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            for statement in statements:
                conn.execute(statement)
            for m in MIGRATIONS[:3]:
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (m.version, m.name))
            conn.execute(insert.replace("?", "%s"),
                         [bool(v) if c == "spectators" else v for c, v in zip(columns, values)])
        return
    db = sqlite3.connect(url)
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
               "applied_at REAL NOT NULL)")
    for statement in statements:
        db.execute(statement)
    for m in MIGRATIONS[:3]:
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", (m.version, m.name))
    db.execute(insert, values)
    db.commit()
    db.close()


# -- rematch -------------------------------------------------------------------------------------
def test_a_settings_notice_is_followed_under_the_games_lock(pg_url, monkeypatch):
    """On PostgreSQL an instance also hears its own SETTINGS notices (a join, an offer). It follows
    them (Instances.resettle) under the game's lock, as the requests that change seats and rematches
    do, so a row read before such a request's write never overwrites the game in memory after it.
    Without the lock, an older offer was once pushed to a socket after the accepted rematch."""
    from engine.interfaces.server.instances import Instances
    from tests.server.postgres import wait_until

    held = []
    resettle = Instances.resettle

    async def watched(self, game):
        held.append(game.lock.locked())
        return await resettle(self, game)

    monkeypatch.setattr(Instances, "resettle", watched)
    app = create_app(pg_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, tokens, invites = _create(client, {"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}])
        tokens[1] = _join(client, invites[0])
        assert client.post(f"/api/games/{view['id']}/resign", headers=auth(tokens[0])).status_code == 200
        assert client.post(f"/api/games/{view['id']}/rematch", headers=auth(tokens[0])).status_code == 200
        assert wait_until(lambda: len(held) >= 2)          # the join's and the offer's notices
    assert all(held)


def test_a_rematch_once_every_seat_offers_swaps_colours_with_the_same_tokens(store_url):
    """A rematch before the end is refused (409); after it, each seat's offer shows in every seat's
    view and is pushed; offering twice counts once; the last offer creates the new game: the same
    game and options, the seats moved one on (colours swapped), each player's same token at its new
    seat, and the old game's views name it."""
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, tokens, invites = _create(client, {"variant": "kings-ransom", "spectators": False},
                                        [{"kind": "creator"}, {"kind": "human"}])
        tokens[1] = _join(client, invites[0])
        gid = view["id"]
        early = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[1]))
        assert early.status_code == 409 and "over" in early.json()["detail"]
        with client.websocket_connect(f"/api/games/{gid}/ws", headers=auth(tokens[1])) as ws:
            assert json.loads(ws.receive_text())["rematch"] == {"offered": [], "game": None}
            assert client.post(f"/api/games/{gid}/resign", headers=auth(tokens[0])).status_code == 200
            assert json.loads(ws.receive_text())["status"] == "over"
            first = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0]))
            assert first.status_code == 200 and first.json()["rematch"] == {"offered": [0], "game": None}
            assert json.loads(ws.receive_text())["rematch"] == {"offered": [0], "game": None}
            twice = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0]))
            assert twice.json()["rematch"] == {"offered": [0], "game": None}
            accepted = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[1])).json()["rematch"]
            new_id = accepted["game"]
            assert accepted["offered"] == [0, 1] and new_id and new_id != gid
            assert json.loads(ws.receive_text())["rematch"] == accepted
        for seat in (0, 1):
            assert client.get(f"/api/games/{gid}", headers=auth(tokens[seat])).json()["rematch"] == accepted
        again = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[1])).json()["rematch"]
        assert again == accepted
        new = {seat: client.get(f"/api/games/{new_id}", headers=auth(tokens[seat])).json() for seat in (0, 1)}
        assert new[0]["seat"] == 1 and new[1]["seat"] == 0 and new[0]["creator"] == 1
        assert new[0]["status"] == "playing" and new[0]["id"] == new_id
        assert new[0]["observation"].keys() == view["observation"].keys()
        assert [s["kind"] for s in new[0]["seating"]] == ["human", "human"]
        assert client.get(f"/api/games/{new_id}/watch").status_code == 404          # the same settings
        assert app.state.server.store.get(new_id)["rematch"] is None
        assert app.state.server.store.get(gid)["rematch"] == new_id
        # The new game is played by its seats: seat 0 (the joiner's token now) moves first.
        assert new[1]["your_turn"] and not new[0]["your_turn"]


@pytest.mark.parametrize("seats", [
    pytest.param([{"kind": "creator"}, {"kind": "human"}, {"kind": "bot"}], id="3-players"),
    pytest.param([{"kind": "ai", "ai": {"spec": "random"}}, {"kind": "creator"}, {"kind": "human"},
                  {"kind": "ai", "ai": {"spec": "greedy"}}], id="4-players"),
])
def test_a_rematch_of_three_or_four_players_moves_every_seat_one_on(tmp_path, seats):
    """A Crownfall game of three or four seats played to its end through the API, then rematched:
    as for two players, every seat moves one on (seat i's player to seat i+1, the last to seat 0),
    each human and bot with its same token, each AI seat with its own settings, the creator's seat
    with the creator; the new game is the same game with the same number of players."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    n = len(seats)
    with TestClient(app) as client:
        view, tokens, invites = _create(client, {"game": "crownfall", "options": {"players": n, "rounds": 1}}, seats)
        for invite in invites:
            tokens[invite["seat"]] = _join(client, invite)
        gid, creator = view["id"], view["seat"]
        rng = random.Random(3)
        while view["status"] != "over":
            mover = view["deciding"]
            view = client.get(f"/api/games/{gid}", headers=auth(tokens[mover])).json()
            answer = client.post(f"/api/games/{gid}/actions", headers=auth(tokens[mover]),
                                 json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
            assert answer.status_code == 200, answer.text
            view = answer.json()
        old = app.state.server.games[gid].seats
        for seat in sorted(tokens):
            made = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[seat])).json()["rematch"]
        new_id = made["game"]
        assert made["offered"] == sorted(tokens) and new_id
        moved = {(seat + 1) % n: seat for seat in range(n)}          # new seat -> the old seat moved there
        for seat, token in tokens.items():
            mine = client.get(f"/api/games/{new_id}", headers=auth(token)).json()
            assert mine["seat"] == (seat + 1) % n and mine["creator"] == (creator + 1) % n
            assert mine["game"] == "crownfall" and len(mine["seating"]) == n
        assert [s["kind"] for s in mine["seating"]] == [{"creator": "human"}.get(seats[moved[i]]["kind"],
                                                                                 seats[moved[i]]["kind"])
                                                        for i in range(n)]
        new = app.state.server.games[new_id].seats
        assert [(s.kind, s.token_hash, s.ai.spec_ if s.ai else None) for _, s in sorted(new.items())] == \
            [(old[moved[i]].kind, old[moved[i]].token_hash, old[moved[i]].ai.spec_ if old[moved[i]].ai else None)
             for i in range(n)]


def _resigned_against_the_ai(client) -> tuple[str, dict]:
    """A King's Ransom game of the creator against the greedy AI, resigned: (its id, the tokens)."""
    view, tokens, _ = _create(client, {"variant": "kings-ransom"},
                              [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}])
    assert client.post(f"/api/games/{view['id']}/resign", headers=auth(tokens[0])).status_code == 200
    return view["id"], tokens


def test_a_rematch_of_a_game_against_the_ai_rotates_the_ai_too(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        gid, tokens = _resigned_against_the_ai(client)
        made = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0])).json()["rematch"]
        assert made["offered"] == [0] and made["game"]
        new = client.get(f"/api/games/{made['game']}", headers=auth(tokens[0])).json()
        assert new["seat"] == 1 and [s["kind"] for s in new["seating"]] == ["ai", "human"]
        assert new["version"] > 1 and new["your_turn"]        # the AI (now seat 0) has made its first move
        assert app.state.server.games[made["game"]].seats[0].ai.spec_ == "greedy"


def test_a_rematch_of_a_setup_the_game_now_refuses_is_a_409_that_changes_nothing(tmp_path):
    """A King's Ransom game saved with a client's seed (taken and ignored before King's Ransom
    refused one): its rematch is a 409 naming the setup's fault (the rematch's request has no body
    to blame), and no game or offer is made."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        gid, tokens = _resigned_against_the_ai(client)
        live = app.state.server.games[gid]
        live.setup = {**live.setup, "seed": 7}
        games = set(app.state.server.games)
        refused = client.post(f"/api/games/{gid}/rematch", headers=auth(tokens[0]))
        assert refused.status_code == 409, refused.text
        assert refused.json()["detail"].startswith("this game's setup cannot be repeated: seed: King's Ransom")
        assert set(app.state.server.games) == games
        assert client.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()["rematch"] == {"offered": [], "game": None}


def test_each_ai_seat_thinks_with_its_own_settings(tmp_path):
    """A Crownfall game of one human and three AI seats, each AI seat with other settings: the AI's
    turns make each seat's bot from that seat's own spec (the bots the games' entries are asked
    for, recorded), and the human decides only its own seat."""
    made = []
    entry = registry.get("crownfall")
    make_bot = entry.bots.make_bot

    def recording(spec, seed):
        made.append(spec)
        return make_bot(spec, seed)

    object.__setattr__(entry.bots, "make_bot", recording)     # a frozen dataclass: its real bots, recorded
    try:
        _play_against_three_ais(tmp_path, made)
    finally:
        object.__setattr__(entry.bots, "make_bot", make_bot)
    assert made.count("greedy") >= 1 and made.count("random") >= 1


def _play_against_three_ais(tmp_path, made):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, tokens, _ = _create(client, {"game": "crownfall", "options": {"players": 4, "rounds": 1}},
                                  [{"kind": "ai", "ai": {"spec": "random"}}, {"kind": "creator"},
                                   {"kind": "ai", "ai": {"spec": "greedy"}}, {"kind": "ai", "ai": {"spec": "random"}}])
        made.clear()
        rng = random.Random(4)
        while view["status"] == "playing":
            assert view["deciding"] == 1 and view["your_turn"]
            view = client.post(f"/api/games/{view['id']}/actions", headers=auth(tokens[1]),
                               json={"action": rng.choice(view["actions"])["id"], "version": view["version"]}).json()
        live = app.state.server.games[view["id"]]
        assert [s.ai.spec_ if s.ai else None for s in live.seats.values()] == ["random", None, "greedy", "random"]


def test_the_creators_seat_is_the_one_the_games_form_gives_its_choices(tmp_path):
    """Crownfall's form gives the creator's House to the creator's seat: with ``seats`` (and no
    ``human``) that seat is the creator's entry, not seat 0."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, _, _ = _create(client, {"game": "crownfall", "options": {"players": 3, "house": "tidebound"}},
                             [{"kind": "ai"}, {"kind": "ai"}, {"kind": "creator"}])
        assert view["seat"] == 2 and view["seats"][2]["house"] == "tidebound"
        wrong = client.post("/api/games", json={"game": "crownfall", "options": {"players": 2},
                                                "seats": [{"kind": "ai"}, {"kind": "ai"}, {"kind": "creator"}]})
        assert wrong.status_code == 422, wrong.text
        assert wrong.json()["detail"].startswith("seats: this game has 2 players"), wrong.text


def test_a_seat_joined_late_has_the_whole_log_of_its_seat(store_url):
    """An open seat's log is kept from the game's start: a friend who joins after the first moves
    (here after the creator's first decisions and the AI's turns of a Crownfall game) reads every
    step, as the creator does, also after the game is reloaded from the store."""
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, tokens, invites = _create(client, {"game": "crownfall", "options": {"players": 3, "rounds": 2}},
                                        [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}},
                                         {"kind": "human"}])
        rng = random.Random(2)
        while view["your_turn"]:                         # the creator, then the AI, until the open seat decides
            view = client.post(f"/api/games/{view['id']}/actions", headers=auth(tokens[0]),
                               json={"action": rng.choice(view["actions"])["id"], "version": view["version"]}).json()
        assert view["deciding"] == 2 and {0, 1} <= {e["player"] for e in view["log"]}
        late = _join(client, invites[0])
        app.state.server.games.clear()                       # reloaded from the store
        mine = client.get(f"/api/games/{view['id']}", headers=auth(late)).json()
        assert mine["seat"] == 2 and len(mine["log"]) == len(view["log"])
        assert [e["player"] for e in mine["log"]] == [e["player"] for e in view["log"]]


def test_two_seats_offering_a_rematch_at_once_make_exactly_one(store_url):
    """The two last offers of a rematch made at once (each on its own store, as two servers): one of
    them sees the other's offer and creates the rematch, exactly once, never neither (the game's
    row is locked before the offers are read)."""
    app = create_app(store_url, ai_pool="thread", limits=FAST)
    games = []
    with TestClient(app) as client:
        for _ in range(6):
            view, tokens, invites = _create(client, {"variant": "kings-ransom"},
                                            [{"kind": "creator"}, {"kind": "human"}])
            _join(client, invites[0])
            assert client.post(f"/api/games/{view['id']}/resign", headers=auth(tokens[0])).status_code == 200
            games.append(view["id"])
        row = app.state.server.store.get(games[0])
    stores = [open_store(store_url) for _ in range(2)]
    try:
        for gid in games:
            start = threading.Barrier(2)
            made = [f"{gid[:8]}r{i}".ljust(16, "0") for i in range(2)]
            results = [None, None]

            def offer(i):
                rematch = dict(game_id=made[i], human=1, ai=row["ai"], record=row["record"], status="playing", log=[],
                               token_hash="", client="", spectators=True, public_log=[],
                               seats=[{"seat": 0, "kind": "human"}, {"seat": 1, "kind": "human"}], setup=row["setup"])
                start.wait()
                results[i] = stores[i].offer_rematch(gid, i, rematch)

            threads = [threading.Thread(target=offer, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            linked = stores[0].get(gid)["rematch"]
            assert linked in made, results
            assert sorted(r[1] for r in results if r[1]) == [linked]        # one offer saw both and made it
            assert [stores[0].get(m) is not None for m in made].count(True) == 1
    finally:
        for store in stores:
            store.close()


def test_a_seat_resigns_downloads_and_asks_hints_for_itself(tmp_path):
    """A joined seat's resignation, knowledge file and hints are its own seat's: the file is made
    from its seat's information (its own Hand), a hint while the other seat decides is refused
    naming that seat, and its resignation ends the game for it (the other seat wins)."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=FAST)
    with TestClient(app) as client:
        view, tokens, invites = _create(client, {"seed": 5, "supply": "first-game", "options": {"max_turns": 10}},
                                        [{"kind": "creator"}, {"kind": "human"}])
        tokens[1] = _join(client, invites[0])
        gid = view["id"]
        hint = client.post(f"/api/games/{gid}/hint", headers=auth(tokens[1]))
        assert hint.status_code == 409 and "seat 0 is to decide" in hint.json()["detail"]
        early = client.get(f"/api/games/{gid}/knowledge", headers=auth(tokens[1]))
        assert early.status_code == 409 and "seat 0 is deciding" in early.json()["detail"]
        rng = random.Random(3)
        while view["deciding"] == 0:                     # the creator plays on (never resigning) to seat 1's decision
            choices = [a for a in view["actions"] if (a["fields"] or {}).get("type") != "resign"]
            view = client.post(f"/api/games/{gid}/actions", headers=auth(tokens[0]),
                               json={"action": rng.choice(choices)["id"], "version": view["version"]}).json()
        assert view["status"] == "playing" and view["deciding"] == 1
        state = app.state.server.games[gid].snap.state
        known = client.get(f"/api/games/{gid}/knowledge", headers=auth(tokens[1]))
        assert known.status_code == 200, known.text
        assert sorted(known.json()["state"]["zones"][1]["hand"]) == sorted(state.zones[1].hand)
        resigned = client.post(f"/api/games/{gid}/resign", headers=auth(tokens[1])).json()
        assert resigned["status"] == "over" and resigned["winner"] == 0 and resigned["seat"] == 1
        assert resigned["log"][-2]["player"] == 1 and resigned["log"][-2]["text"] == "resigns"
        creator = client.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()
        assert creator["winner"] == 0 and creator["log"][-2] == resigned["log"][-2]


def test_a_failing_background_step_is_logged_and_the_loop_goes_on(caplog):
    """Every background loop of an instance (the periodic rounds, the followed changes, the settled
    notices) runs its steps through one wrapper, Instances._logged: a storage fault is a warning, any
    other fault is logged with its traceback, and neither stops the loop (the next step runs)."""
    import asyncio
    import types

    from engine.interfaces.server.instances import Instances
    from engine.interfaces.server.store import StorageError

    server = types.SimpleNamespace(store=types.SimpleNamespace(dialect="sqlite"), limits=FAST)
    instances = Instances(server)
    faults = [StorageError("the database is away"), RuntimeError("planted"), None]
    ran = []

    async def round_():
        ran.append(len(ran))
        fault = faults.pop(0) if faults else None
        if fault is not None:
            raise fault

    async def three_rounds():
        loop = asyncio.create_task(instances._every(0.0, round_))
        for _ in range(2000):                       # a loop that died stops here, it does not hang
            if len(ran) >= 3 or loop.done():
                break
            await asyncio.sleep(0.001)
        loop.cancel()
        with contextlib.suppress(BaseException):         # the loop's own fault shows below
            await loop

    with caplog.at_level(logging.WARNING, logger="ftc.server"):
        asyncio.run(three_rounds())
    assert len(ran) >= 3 and not faults                       # the faults stopped nothing
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(warnings) == 1 and "the database is away" in warnings[0].getMessage()
    assert len(errors) == 1 and errors[0].exc_info and "round_ failed" in errors[0].getMessage()
