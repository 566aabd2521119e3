"""Fair play between the seats of one game (issue 40; docs/server.md "Fair play between seats"):
what one seat can do must never cut another seat off, erase its game or cost it its time. Every
test runs a real server: real uvicorn (tests.server.support.ThreadServer, where a test needs short
limits) or a real `ftc serve` process, with real WebSockets; two instances share a real, throwaway
PostgreSQL (tests/server/postgres.py)."""

from __future__ import annotations

import contextlib
import json
import time

import httpx

from engine.interfaces.server.app import Limits, create_app
from tests.server.postgres import wait_until
from tests.server.support import ThreadServer, auth
from tests.server.test_seats import _create, _join

FAST = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)
#: Two humans: the creator at seat 0 and a friend (an open seat, taken by its invitation code).
FRIENDS = [{"kind": "creator"}, {"kind": "human"}]


@contextlib.contextmanager
def _served(store, limits: Limits = FAST, count: int = 1):
    """``count`` apps on ``store``, each served by real uvicorn; on PostgreSQL they wait until each
    counts the others (their shares of the limits are set)."""
    apps = [create_app(store, ai_pool="thread", limits=limits) for _ in range(count)]
    servers = []
    try:
        for app in apps:
            servers.append(ThreadServer(app))
        if count > 1:
            assert wait_until(lambda: all(app.state.server.instances.live == count for app in apps), 15)
        yield servers
    finally:
        for server in servers:
            server.__exit__(None, None, None)


def _socket(server, path: str, token: str | None = None):
    """A real WebSocket client on ``path`` of ``server`` (the token as the first message, as the
    web board sends it)."""
    from websockets.sync.client import connect

    ws = connect(f"ws://127.0.0.1:{server.port}{path}", open_timeout=20).__enter__()
    if token is not None:
        ws.send(json.dumps({"token": token}))
    return ws


def _first(ws, seconds: float = 20.0) -> dict | int:
    """The socket's first view, or the code it was closed with (a failure, not a hang, when neither
    comes within ``seconds``)."""
    from websockets.exceptions import ConnectionClosed

    try:
        return json.loads(ws.recv(timeout=seconds))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else 1006


def _until(ws, test, seconds: float = 20.0) -> dict:
    """The first view the socket receives that satisfies ``test``."""
    while True:
        view = json.loads(ws.recv(timeout=seconds))
        if test(view):
            return view


def _move(http, game_id: str, token: str) -> dict:
    """The seat's first legal action, answered 200."""
    view = http.get(f"/api/games/{game_id}", headers=auth(token)).json()
    answer = http.post(f"/api/games/{game_id}/actions", headers=auth(token),
                       json={"action": view["actions"][0]["id"], "version": view["version"]})
    assert answer.status_code == 200, answer.text
    return answer.json()


# -- 1. one seat cannot cut the other off --------------------------------------------------------------
def test_one_seat_over_its_socket_cap_never_closes_or_refuses_the_other_seats_socket(tmp_path):
    """The creator opens one socket more than its seat's cap (4): its own extra socket is refused
    (4429), none of its first four is closed, and the friend's socket opened after them connects and
    gets the view of every move; so do spectators (their own cap). Before the fix the cap was the
    game's, shared by its seats: the friend's socket was closed with 4429."""
    with _served(tmp_path / "g.sqlite3") as (server,):
        http = httpx.Client(base_url=server.base, timeout=60)
        view, tokens, invites = _create(http, {"variant": "kings-ransom"}, FRIENDS)
        gid = view["id"]
        tokens[1] = _join(http, invites[0])
        mine = [_socket(server, f"/api/games/{gid}/ws", tokens[0]) for _ in range(4)]
        try:
            for ws in mine:
                assert _first(ws)["seat"] == 0
            extra = _socket(server, f"/api/games/{gid}/ws", tokens[0])
            mine.append(extra)
            assert _first(extra) == 4429                       # the creator's own fifth socket
            friend = _socket(server, f"/api/games/{gid}/ws", tokens[1])
            mine.append(friend)
            first = _first(friend)
            assert isinstance(first, dict) and first["seat"] == 1, f"the friend's socket was closed: {first}"
            watcher = _socket(server, f"/api/games/{gid}/watch/ws")
            mine.append(watcher)
            assert _first(watcher)["seat"] is None
            moved = _move(http, gid, tokens[0])                # Red (the creator) moves: every socket hears it
            assert _until(friend, lambda v: v["version"] >= moved["version"])["seat"] == 1
            assert _until(watcher, lambda v: v["version"] >= moved["version"])["seat"] is None
            for ws in mine[:4]:
                assert _until(ws, lambda v: v["version"] >= moved["version"])["seat"] == 0
        finally:
            for ws in mine:
                ws.close()
            http.close()


def test_across_two_instances_one_seat_over_its_cap_never_shuts_out_the_other(pg_url):
    """Two instances on one PostgreSQL: each keeps half of a seat's cap (2 of 4), so the creator's
    sockets over both are at most 4: its third socket on either instance is refused (4429); the
    friend's sockets on both instances connect and get every move, whichever instance made it."""
    with _served(pg_url, count=2) as (a, b):
        http_a = httpx.Client(base_url=a.base, timeout=60)
        http_b = httpx.Client(base_url=b.base, timeout=60)
        view, tokens, invites = _create(http_a, {"variant": "kings-ransom"}, FRIENDS)
        gid = view["id"]
        tokens[1] = _join(http_b, invites[0])
        opened = []
        try:
            for server in (a, b):
                for _ in range(2):
                    opened.append(_socket(server, f"/api/games/{gid}/ws", tokens[0]))
                    assert _first(opened[-1])["seat"] == 0
                opened.append(_socket(server, f"/api/games/{gid}/ws", tokens[0]))
                assert _first(opened[-1]) == 4429, "a seat's sockets over every instance exceed its cap"
            friends = []
            for server in (a, b):
                friends.append(_socket(server, f"/api/games/{gid}/ws", tokens[1]))
                opened.append(friends[-1])
                first = _first(friends[-1])
                assert isinstance(first, dict) and first["seat"] == 1, f"the friend's socket was closed: {first}"
            moved = _move(http_b, gid, tokens[0])               # the creator moves on B
            for ws in friends:
                assert _until(ws, lambda v: v["version"] >= moved["version"])["seat"] == 1
        finally:
            for ws in opened:
                ws.close()
            http_a.close()
            http_b.close()


# -- 7. an invitation to a finished game is refused ---------------------------------------------------
def test_an_invitation_to_a_finished_game_is_refused_and_changes_nothing(tmp_path):
    """The creator resigns before the friend comes: the friend's join with the (right) code answers
    409 saying the game is over, hands out no token, and the seat stays open (the creator's view and
    the database alike); a wrong code is still the one 404 of every bad code. Before the fix the join
    answered 200 with a new token."""
    with _served(tmp_path / "g.sqlite3") as (server,):
        http = httpx.Client(base_url=server.base, timeout=60)
        try:
            view, tokens, invites = _create(http, {"variant": "kings-ransom"}, FRIENDS)
            gid, code = view["id"], invites[0]["code"]
            assert http.post(f"/api/games/{gid}/resign", headers=auth(tokens[0])).json()["status"] == "over"
            before = http.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()
            refused = http.post(f"/api/games/{gid}/join", json={"code": code})
            assert refused.status_code == 409, refused.text
            assert refused.json()["detail"].startswith("the game is over") and "token" not in refused.json()
            assert code not in refused.text
            after = http.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()
            assert after == before and after["seating"][1]["taken"] is False
            rows = server.app.state.server.store.seats(gid)
            assert rows[1]["token_hash"] is None and rows[1]["invite_hash"] is not None
            wrong = http.post(f"/api/games/{gid}/join", json={"code": "x" * 43})
            assert wrong.status_code == 404
        finally:
            http.close()


# -- 6. a rematch counts like a new game ----------------------------------------------------------------
def test_a_rematch_counts_against_games_per_client_like_a_new_game(tmp_path):
    """`ftc serve --games-per-client 2`: a client with two games in play and two finished ones may
    not get around the limit by rematches: the rematch offer answers 429 as a new game does, records
    no offer and makes no game; once one game in play is resigned, the rematch is made. Before the
    fix two rematches gave the client four games in play."""
    from tests.server.support import ServerProcess

    server = ServerProcess(tmp_path / "g.sqlite3", "--games-per-client", "2")
    http = httpx.Client(base_url=server.base, timeout=60)
    body = {"variant": "kings-ransom", "ai": {"bot": "greedy"}}
    try:
        finished = []
        for _ in range(2):
            created = http.post("/api/games", json=body)
            assert created.status_code == 201, created.text
            token = created.json()["token"]
            assert http.post(f"/api/games/{created.json()['id']}/resign", headers=auth(token)).status_code == 200
            finished.append((created.json()["id"], token))
        playing = []
        for _ in range(2):
            created = http.post("/api/games", json=body)
            assert created.status_code == 201, created.text
            playing.append((created.json()["id"], created.json()["token"]))
        assert http.post("/api/games", json=body).status_code == 429           # the limit, for a new game
        for gid, token in finished:                                             # and for a rematch
            refused = http.post(f"/api/games/{gid}/rematch", headers=auth(token))
            assert refused.status_code == 429, refused.text
            assert "2 games in play" in refused.json()["detail"]
            seen = http.get(f"/api/games/{gid}", headers=auth(token)).json()
            assert seen["rematch"] == {"offered": [], "game": None}             # nothing recorded
        gid, token = playing[0]
        assert http.post(f"/api/games/{gid}/resign", headers=auth(token)).status_code == 200
        made = http.post(f"/api/games/{finished[0][0]}/rematch", headers=auth(finished[0][1]))
        assert made.status_code == 200 and made.json()["rematch"]["game"] is not None
        assert http.post(f"/api/games/{finished[1][0]}/rematch", headers=auth(finished[1][1])).status_code == 429
    finally:
        http.close()
        server.kill()


# -- 4. no seat erases a game another seat plays -------------------------------------------------------
def _turns(http, gid: str, tokens: dict, turns: int) -> dict:
    """``turns`` whole turns (a King's Ransom turn has several decisions: a flip, a move, a card),
    each by the seat to decide, by its first legal actions until another seat decides; the last
    answer."""
    for _ in range(turns):
        mover = http.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()["deciding"]
        answer = _move(http, gid, tokens[mover])
        while answer["deciding"] == mover:
            answer = _move(http, gid, tokens[mover])
    return answer


def test_the_creator_cannot_delete_a_game_that_has_started_with_another_seat(tmp_path):
    """A game with a friend's seat: once every seat has moved (three turns: Red's, the friend's,
    Red's), the creator's DELETE is a 409 saying why, and changes nothing: the friend reads the
    same view, the friend's socket stays open and gets the next move, the game plays on; after the
    end it still cannot be deleted. Before the game started (only the creator has moved) the creator
    may delete it; a game against the AI alone the creator may delete at any time. Before the fix the
    DELETE after three moves answered 200 and the friend's next read was 404."""
    with _served(tmp_path / "g.sqlite3") as (server,):
        http = httpx.Client(base_url=server.base, timeout=60)
        try:
            view, tokens, invites = _create(http, {"variant": "kings-ransom"}, FRIENDS)   # the deal is the server's secret
            gid = view["id"]
            tokens[1] = _join(http, invites[0])
            _turns(http, gid, tokens, 3)                           # Red, Blue, Red
            before = http.get(f"/api/games/{gid}", headers=auth(tokens[1])).json()
            with contextlib.closing(_socket(server, f"/api/games/{gid}/ws", tokens[1])) as friend:
                assert _first(friend)["version"] == before["version"]
                refused = http.delete(f"/api/games/{gid}", headers=auth(tokens[0]))
                assert refused.status_code == 409, refused.text
                assert refused.json()["detail"].startswith("the game has started")
                assert http.get(f"/api/games/{gid}", headers=auth(tokens[1])).json() == before
                moved = _turns(http, gid, tokens, 1)
                assert _until(friend, lambda v: v["version"] >= moved["version"])["seat"] == 1
            deciding = moved["deciding"]
            if deciding is not None:        # that move may end the game (a deal where it does: about 1 in 6)
                assert http.post(f"/api/games/{gid}/resign", headers=auth(tokens[deciding])).status_code == 200
            assert http.delete(f"/api/games/{gid}", headers=auth(tokens[0])).status_code == 409
            assert http.get(f"/api/games/{gid}", headers=auth(tokens[1])).json()["status"] == "over"
            # Not started: the creator moved, the friend not yet. The creator may delete it.
            view, tokens, invites = _create(http, {"variant": "kings-ransom"}, FRIENDS)
            tokens[1] = _join(http, invites[0])
            _turns(http, view["id"], tokens, 1)
            assert http.delete(f"/api/games/{view['id']}", headers=auth(tokens[0])).status_code == 200
            assert http.get(f"/api/games/{view['id']}", headers=auth(tokens[1])).status_code == 404
            # A game against the AI alone: the creator's to delete, started or not.
            solo = http.post("/api/games", json={"variant": "kings-ransom", "ai": {"bot": "greedy"}}).json()
            for _ in range(3):
                _move(http, solo["id"], solo["token"])              # three decisions; the AI answers
            assert http.delete(f"/api/games/{solo['id']}", headers=auth(solo["token"])).status_code == 200
        finally:
            http.close()


# -- 3. no clock runs before the game starts; a game that never starts is aborted, not lost ---------------
def _clocked(**limits) -> Limits:
    """Limits with clocks of a second (the least base lowered) and a quick flag sweeper."""
    return Limits(**{**FAST.__dict__, "clock_min_base": 1, "flag_poll_seconds": 0.05, **limits})


def _view(http, gid: str, token: str) -> dict:
    answer = http.get(f"/api/games/{gid}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_no_clock_runs_for_an_open_seat_and_the_clocks_start_after_each_sides_first_move(tmp_path):
    """The friend's seat (Red, to move first) is open, the clock 1 s: left 1.5 s with the flag
    sweeper looking every 0.05 s, the game is still in play when the friend joins, nobody's time was
    taken and no clock runs (before the fix Red's clock ran from the creation: the friend's join was
    refused, the game already lost on time). The friend's and the creator's first turns cost nothing;
    then the game has started, Red's clock runs, and Red, not moving, loses on time."""
    with _served(tmp_path / "g.sqlite3", _clocked()) as (server,):
        http = httpx.Client(base_url=server.base, timeout=60)
        try:
            view, tokens, invites = _create(http, {"variant": "kings-ransom", "clock": {"base": 1}},
                                            [{"kind": "human"}, {"kind": "creator"}])
            gid = view["id"]
            time.sleep(1.5)                                # past Red's 1 s: the sweeper looks 30 times
            tokens[0] = _join(http, invites[0])
            seen = _view(http, gid, tokens[0])
            assert seen["status"] == "playing" and seen["your_turn"], seen.get("over")
            assert view["clock"]["running"] is None and view["clock"]["started"] is False
            assert view["clock"]["abort_at"] is None                      # a seat was open: no limit ran
            assert seen["clock"]["remaining"] == [1.0, 1.0] and seen["clock"]["out"] == []
            assert seen["clock"]["running"] is None and seen["clock"]["abort_at"] is not None
            started = _turns(http, gid, tokens, 2)                         # Red's first turn, then Blue's
            assert started["clock"]["started"] is True and started["clock"]["running"] == 0
            assert started["clock"]["abort_at"] is None
            assert started["clock"]["remaining"][1] == 1.0                  # Blue's first turn cost nothing
            assert wait_until(lambda: _view(http, gid, tokens[1])["status"] == "over", 30)
            over = _view(http, gid, tokens[1])
            assert over["over"] == "Red ran out of time" and over["clock"]["out"] == [0]
            assert over["clock"]["remaining"] == [0.0, 1.0]
        finally:
            http.close()


def _aborted(view: dict) -> bool:
    return view["status"] == "over" and view["over"].startswith("aborted")


def test_a_game_whose_first_move_never_comes_is_aborted_with_no_result(tmp_path):
    """Both seats taken, the friend (Red) never moves: after the first-move limit (1 s here) the game
    is aborted, not lost: over with no winner and no decision, nobody out of time, nobody's time
    taken; every seat's log and the spectators' say so once; actions are refused (409 naming the
    abort); the record is served; the creator may delete it (it never started). Before the fix Red's
    clock ran from the creation and Red lost on time."""
    with _served(tmp_path / "g.sqlite3", _clocked(first_move_seconds=1)) as (server,):
        http = httpx.Client(base_url=server.base, timeout=60)
        try:
            view, tokens, invites = _create(http, {"variant": "kings-ransom", "clock": {"base": 1}},
                                            [{"kind": "human"}, {"kind": "creator"}])
            gid = view["id"]
            tokens[0] = _join(http, invites[0])
            assert wait_until(lambda: _view(http, gid, tokens[1])["status"] == "over", 30)
            for token in (tokens[0], tokens[1]):
                seen = _view(http, gid, token)
                assert _aborted(seen) and "Red did not move within 1 s" in seen["over"], seen["over"]
                assert seen["winner"] is None and seen["deciding"] is None
                assert seen["actions"] == [] and seen["your_turn"] is False
                assert seen["clock"]["out"] == [] and seen["clock"]["remaining"] == [1.0, 1.0]
                assert [e["text"] for e in seen["log"]] == [seen["over"]]
            watched = http.get(f"/api/games/{gid}/watch").json()
            assert _aborted(watched) and [e["text"] for e in watched["log"]] == [watched["over"]]
            refused = http.post(f"/api/games/{gid}/actions", headers=auth(tokens[0]),
                                json={"action": 0, "version": watched["version"]})
            assert refused.status_code == 409 and "aborted" in refused.json()["detail"]
            assert http.get(f"/api/games/{gid}/record", headers=auth(tokens[0])).status_code == 200
            stored = server.app.state.server.store.get(gid)
            assert stored["status"] == "over" and stored["flag_at"] is None and stored["version"] == 2
            assert http.delete(f"/api/games/{gid}", headers=auth(tokens[1])).status_code == 200
        finally:
            http.close()


def test_across_two_instances_neither_sweeper_flags_an_open_seat_and_one_aborts_a_game_never_started(pg_url):
    """Two instances, each sweeping for flags every 0.05 s: a game created on A with the friend's
    seat (Red, to move first) open and a 1 s clock is left 3.5 s, past the first-move limit (3 s)
    too: neither flags it nor aborts it (a seat is open: nothing runs). The friend joins on B; from
    then the limit runs, and with no first move the game is aborted exactly once (one version, one
    log line), seen alike on both instances."""
    with _served(pg_url, _clocked(first_move_seconds=3), count=2) as (a, b):
        http_a = httpx.Client(base_url=a.base, timeout=60)
        http_b = httpx.Client(base_url=b.base, timeout=60)
        try:
            view, tokens, invites = _create(http_a, {"variant": "kings-ransom", "clock": {"base": 1}},
                                            [{"kind": "human"}, {"kind": "creator"}])
            gid = view["id"]
            time.sleep(3.5)                                # past the clock and the first-move limit
            assert _view(http_b, gid, tokens[1])["status"] == "playing"
            tokens[0] = _join(http_b, invites[0])
            joined = _view(http_b, gid, tokens[0])
            assert joined["status"] == "playing" and joined["your_turn"] and joined["clock"]["remaining"] == [1.0, 1.0]
            assert joined["clock"]["abort_at"] is not None
            assert wait_until(lambda: _view(http_a, gid, tokens[1])["status"] == "over", 30)
            for http in (http_a, http_b):
                seen = _view(http, gid, tokens[0])
                assert _aborted(seen) and seen["winner"] is None and seen["clock"]["out"] == []
                assert seen["version"] == view["version"] + 1 and len(seen["log"]) == 1
        finally:
            http_a.close()
            http_b.close()
