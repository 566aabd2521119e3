"""Seats across instances (docs/server.md "Several instances", "Seats, invitations and bots"): two
servers on one real, throwaway PostgreSQL (tests/server/postgres.py), each a real uvicorn serving its
own app (tests.server.support.ThreadServer, so the test can keep every snapshot each one commits);
the creator plays on one, the friend who joined by the invitation code on the other, every socket on
a real WebSocket connection. Nothing here is mocked: the pushes between the instances are the
database's LISTEN/NOTIFY."""

from __future__ import annotations

import json
import random
import threading

import httpx
import pytest

from engine.interfaces.server.app import Limits, create_app
from tests.server.postgres import wait_until
from tests.server.support import ThreadServer, assert_shows_log, auth, record_commits
from tests.server.test_seats import _check_view, _create, _hidden_texts, _join
from tests.server.test_spectators import _check_sent, _receive, _secrets

FAST = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)

#: One game of each registry entry with two or more seats: the body, its seats (two humans: the
#: creator and a friend; Crownfall's third seat the AI), and the most decisions played before the
#: creator resigns (where the game has resignation).
GAMES = [
    pytest.param({"supply": "random", "options": {"max_turns": 24}, "seed": 3},
                 [{"kind": "creator"}, {"kind": "human"}], 40, id="crown"),
    pytest.param({"variant": "kings-ransom"}, [{"kind": "human"}, {"kind": "creator"}], 40, id="kings-ransom"),
    pytest.param({"game": "crusade"}, [{"kind": "creator"}, {"kind": "human"}], 40, id="crusade"),
    pytest.param({"game": "crownfall", "options": {"players": 3, "rounds": 2}},
                 [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}, {"kind": "human"}], 60,
                 id="crownfall-3"),
]


class Socket:
    """A real WebSocket (websockets' client) read by a thread of its own into ``got`` (view, raw
    text), so the servers never wait on the test; ``until(version)`` waits for a view at that version
    or later not built while the AI thinks (a failure, not a hang, when none comes)."""

    def __init__(self, url: str, token: str | None = None):
        from websockets.sync.client import connect

        self.ws = connect(url, additional_headers=auth(token) if token else None, open_timeout=20).__enter__()
        self.got: list[tuple[dict, str]] = []
        self.closed = None
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            while True:
                raw = self.ws.recv()
                with self.changed:
                    self.got.append((json.loads(raw), raw))
                    self.changed.notify_all()
        except ConnectionClosed as exc:
            self.closed = exc
        with self.changed:
            self.closed = self.closed or True
            self.changed.notify_all()

    def until(self, what, seconds: float = 30.0) -> dict:
        """The first view received that satisfies ``what`` (a version: at that version or later and
        not built while the AI thinks; or a function of the view)."""
        test = what if callable(what) else (lambda view: view["version"] >= what and not view["thinking"])
        with self.changed:
            found = self.changed.wait_for(lambda: next((v for v, _ in self.got if test(v)), None) or self.closed,
                                          timeout=seconds)
            view = next((v for v, _ in self.got if test(v)), None)
        assert view is not None, f"no push satisfying {what} within {seconds:g} s (got versions " \
                                 f"{[v['version'] for v, _ in self.got]}, closed: {self.closed})"
        assert found
        return view

    def close(self) -> None:
        self.ws.__exit__(None, None, None)
        self.thread.join(10)


def _two_instances(pg_url):
    """Two apps on one database, each served by real uvicorn, with the snapshots each commits."""
    apps = [create_app(pg_url, ai_pool="thread", limits=FAST) for _ in range(2)]
    servers = [ThreadServer(app) for app in apps]
    for app in apps:
        app.state.server.entropy = random.Random(5)
    assert wait_until(lambda: all(app.state.server.instances.live == 2 for app in apps), 15)
    return apps, servers


@pytest.mark.parametrize("body, seats, most", GAMES)
def test_two_humans_on_two_instances_play_a_whole_game_every_push_arrives_and_nothing_hidden_shows(
        pg_url, body, seats, most):
    """The creator plays on instance A, the friend (joined by the invitation code on B) on B, by
    seeded random legal actions, each with a seat socket on its own instance and a spectator socket
    on the other (one on each instance). Every version acknowledged to one seat reaches the other
    seat's socket and both spectators' (a push of that version or later, each socket's pushes in
    order). Every answer and push is checked against the true snapshot at its version (kept as the
    instance that committed it had it): a seat's is built from that seat's observation alone, with
    no other seat's hidden decision in its log; a spectator's from no seat's; no token or code in
    any. A game still going after ``most`` decisions ends by the creator's resignation."""
    apps, (a, b) = _two_instances(pg_url)
    snapshots = [record_commits(app.state.server) for app in apps]      # each server's, by version
    http_a, http_b = httpx.Client(base_url=a.base, timeout=60), httpx.Client(base_url=b.base, timeout=60)
    sockets: list[tuple[int | None, Socket]] = []
    try:
        view, tokens, invites = _create(http_a, body, seats)
        game_id, creator = view["id"], view["seat"]
        secrets = set(tokens.values()) | {invite["code"] for invite in invites}
        assert len(invites) == 1
        friend = invites[0]["seat"]
        tokens[friend] = _join(http_b, invites[0])
        secrets |= set(tokens.values())
        created = apps[0].state.server.games[game_id].snap
        on = {creator: (a, http_a), friend: (b, http_b)}
        other = {creator: b, friend: a}
        for seat in (creator, friend):
            sockets.append((seat, Socket(f"ws://127.0.0.1:{on[seat][0].port}/api/games/{game_id}/ws", tokens[seat])))
            sockets.append((None, Socket(f"ws://127.0.0.1:{other[seat].port}/api/games/{game_id}/watch/ws")))
        for _, socket in sockets:
            socket.until(lambda v: True)
        sent: list[tuple[int | None, dict, str]] = []    # (seat or None for a spectator, view, raw JSON)
        rng = random.Random(7)
        acknowledged = []
        decisions = 0
        while True:
            current = http_a.get(f"/api/games/{game_id}", headers=auth(tokens[creator]))
            assert current.status_code == 200, current.text
            sent.append((creator, current.json(), current.text))
            if current.json()["status"] == "over":
                break
            mover = current.json()["deciding"]
            assert mover in (creator, friend), f"the AI left a decision of seat {mover} undone"
            _, http = on[mover]
            if decisions >= most:
                resigned = http.post(f"/api/games/{game_id}/resign", headers=auth(tokens[mover]))
                assert resigned.status_code == 200, resigned.text
                sent.append((mover, resigned.json(), resigned.text))
                acknowledged.append((mover, resigned.json()["version"]))
                assert resigned.json()["status"] == "over"
            else:
                mine = http.get(f"/api/games/{game_id}", headers=auth(tokens[mover]))
                sent.append((mover, mine.json(), mine.text))
                assert mine.json()["your_turn"] and mine.json()["actions"]
                answer = http.post(f"/api/games/{game_id}/actions", headers=auth(tokens[mover]),
                                   json={"action": rng.choice(mine.json()["actions"])["id"],
                                         "version": mine.json()["version"]})
                assert answer.status_code == 200, answer.text
                sent.append((mover, answer.json(), answer.text))
                acknowledged.append((mover, answer.json()["version"]))
                decisions += 1
            version = acknowledged[-1][1]
            for seat, socket in sockets:              # every other socket hears of it (this one too)
                assert socket.until(version)["version"] >= version, (seat, version)
        final = current.json()
        assert decisions >= min(most, 4)
        for _, socket in sockets:
            socket.close()
        record = http_b.get(f"/api/games/{game_id}/record", headers=auth(tokens[friend])).json()
    finally:
        for _, socket in sockets:
            socket.close()
        http_a.close()
        http_b.close()
        for server in (a, b):
            server.__exit__(None, None, None)
    assert {mover for mover, _ in acknowledged} == {creator, friend}, "both humans played"
    # Every socket's pushes come in order, and the last is the end of the game.
    for seat, socket in sockets:
        versions = [view["version"] for view, _ in socket.got]
        assert versions == sorted(versions), (seat, versions)
        assert socket.got[-1][0]["version"] == final["version"] and socket.got[-1][0]["status"] == "over"
        sent += [(seat, view, raw) for view, raw in socket.got]
    # Every answer and push against the true snapshot at its version, as the committing instance had it.
    truth = {created.version: created}
    for kept in snapshots:
        truth.update(kept)
    hidden = _hidden_texts(record)
    texts, cards = _secrets(record)
    sample = random.Random(2)
    checked = {creator: 0, friend: 0, None: 0}
    for seat, shown, raw in sent:
        assert not any(secret in raw for secret in secrets), "a token or an invitation code is in a view"
        for entry in shown["log"]:                   # no decision hidden from this viewer in its log
            if entry["player"] is not None and entry["player"] != seat:
                assert (entry["player"], entry["text"]) not in hidden, (seat, entry)
        if seat is None:                              # a spectator's log: public texts, no card played face down
            for entry in shown["log"]:
                assert entry["text"] not in texts, f"a hidden decision is in a spectator's log: {entry}"
                if entry["fields"] and entry["fields"].get("kind") == "play":
                    assert "card" not in entry["fields"], entry
        snap = truth.get(shown["version"])
        if snap is None or shown["thinking"]:
            continue
        if seat is None:
            assert shown["seat"] is None
            assert_shows_log(shown["log"], snap.public_log)          # a spectator's log is the spectators' log
            _check_sent(shown, snap, raw, sample)
        else:
            _check_view(shown, raw, seat, snap, sample, secrets)
        checked[seat] += 1
    assert min(checked.values()) >= 3, checked
    if body.get("variant") == "kings-ransom":
        assert hidden, "the game had no hidden decision: the checks above checked nothing hidden"


def test_a_join_and_a_rematch_on_one_instance_reach_the_sockets_of_the_other(pg_url):
    """A seat taken, a rematch offered and a rematch made on one instance are published with their
    transaction (SETTINGS): the other instance's copy of the game follows (its seats, its rematch)
    and pushes the new view to its sockets, at the same version, without a move and without a
    reload; a copy held there without sockets follows too (its next answer shows it)."""
    apps, (a, b) = _two_instances(pg_url)
    http_a, http_b = httpx.Client(base_url=a.base, timeout=60), httpx.Client(base_url=b.base, timeout=60)
    sockets: list[Socket] = []
    try:
        view, tokens, invites = _create(http_a, {"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}])
        game_id = view["id"]
        seat_a = Socket(f"ws://127.0.0.1:{a.port}/api/games/{game_id}/ws", tokens[0])
        watch_a = Socket(f"ws://127.0.0.1:{a.port}/api/games/{game_id}/watch/ws")
        sockets += [seat_a, watch_a]
        for socket in (seat_a, watch_a):
            assert socket.until(lambda v: True)["seating"][1]["taken"] is False
        # The friend joins on B: A's sockets learn it (same version), A's answers show it.
        tokens[1] = _join(http_b, invites[0])
        for socket in (seat_a, watch_a):
            joined = socket.until(lambda v: v["seating"][1]["taken"])
            assert joined["version"] == view["version"]
        assert http_a.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()["seating"][1]["taken"] is True
        # A second game held on A without sockets: its copy follows a join on B too.
        quiet, quiet_tokens, quiet_invites = _create(http_a, {"variant": "kings-ransom"},
                                                     [{"kind": "creator"}, {"kind": "human"}])
        _join(http_b, quiet_invites[0])
        server_a = apps[0].state.server
        assert wait_until(lambda: server_a.games[quiet["id"]].seats[1].token_hash is not None, 10)
        # The creator resigns on A; the friend offers the rematch on B: A's sockets see the offer.
        assert http_a.post(f"/api/games/{game_id}/resign", headers=auth(tokens[0])).status_code == 200
        seat_b = Socket(f"ws://127.0.0.1:{b.port}/api/games/{game_id}/ws", tokens[1])
        sockets.append(seat_b)
        over = seat_b.until(lambda v: v["status"] == "over")
        offered = http_b.post(f"/api/games/{game_id}/rematch", headers=auth(tokens[1]))
        assert offered.status_code == 200 and offered.json()["rematch"] == {"offered": [1], "game": None}
        for socket in (seat_a, watch_a):
            pushed = socket.until(lambda v: v["rematch"]["offered"] == [1])
            assert pushed["version"] == over["version"] and pushed["rematch"]["game"] is None
        # The creator accepts on A: the rematch is made there; B's socket learns its id.
        accepted = http_a.post(f"/api/games/{game_id}/rematch", headers=auth(tokens[0]))
        assert accepted.status_code == 200, accepted.text
        new_id = accepted.json()["rematch"]["game"]
        assert new_id and new_id != game_id
        made = seat_b.until(lambda v: v["rematch"]["game"] is not None)
        assert made["rematch"] == {"offered": [0, 1], "game": new_id} and made["version"] == over["version"]
        # The friend's same token acts for its new seat on B (the colours swapped: seat 0).
        again = http_b.get(f"/api/games/{new_id}", headers=auth(tokens[1]))
        assert again.status_code == 200 and again.json()["seat"] == 0
    finally:
        for socket in sockets:
            socket.close()
        http_a.close()
        http_b.close()
        for server in (a, b):
            server.__exit__(None, None, None)


def test_after_a_resync_a_join_whose_notice_was_lost_reaches_the_sockets(pg_url):
    """Notices may be lost (the listening connection dropped: the store then says RESYNC). A, deaf to
    notices, misses a friend's join on B (no move: the game's version is unchanged); on RESYNC it
    follows the game's seats (Instances.resettle) and pushes the view with the seat taken."""
    from fastapi.testclient import TestClient

    from engine.interfaces.server.store import RESYNC

    with TestClient(create_app(pg_url, ai_pool="thread", limits=FAST)) as a, \
            TestClient(create_app(pg_url, ai_pool="thread", limits=FAST)) as b:
        view, tokens, invites = _create(a, {"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}])
        instances = a.app.state.server.instances
        game = a.app.state.server.games[view["id"]]
        with a.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(tokens[0])) as seat:
            assert json.loads(_receive(seat))["seating"][1]["taken"] is False
            instances._unsubscribe()                         # A hears no notice from now on
            _join(b, invites[0])
            assert game.seats[1].token_hash is None          # A missed it
            a.portal.call(instances._changes.put, RESYNC)
            pushed = json.loads(_receive(seat, 20))       # a failure, not a hang, when nothing comes
            assert pushed["seating"][1]["taken"] is True and pushed["version"] == view["version"]
            assert game.seats[1].token_hash is not None
