"""A seat that walks away never blocks a game without resignation (issue 40, item 5; away.py,
docs/server.md "A seat that walks away"): in a 3-player Crownfall game (the creator, a friend who
joined by the invitation code, the AI), with the real `ftc serve` and, across instances, two real
uvicorn servers on one PostgreSQL:

- the friend stops acting: after the idle limit (lowered) the easy bot plays the friend's seat, the
  log says so once, and the game goes on;
- the friend leaves (``POST /leave``): the bot plays the seat from then on;
- the friend's token still reads the game (no actions), and can never act again (409)."""

from __future__ import annotations

import time

import httpx
import pytest

from engine.interfaces.server.app import Limits, create_app
from engine.interfaces.server.away import AWAY_REFUSAL
from tests.server.postgres import wait_until
from tests.server.support import ServerProcess, ThreadServer, auth
from tests.server.test_seats import _create, _join

SEATS = [{"kind": "creator"}, {"kind": "human"}, {"kind": "ai", "ai": {"spec": "greedy"}}]
BODY = {"game": "crownfall", "options": {"players": 3}}
FRIEND = 1
IDLE = "Red did not act for 3 seconds: the easy bot plays this seat from now on"
LEFT = "Red left the game: the easy bot plays this seat from now on"


def _game(creator_http: httpx.Client, friend_http: httpx.Client) -> tuple[dict, dict]:
    """A new game with the friend joined: (the creator's view, the tokens by seat)."""
    view, tokens, invites = _create(creator_http, BODY, SEATS)
    assert [invite["seat"] for invite in invites] == [FRIEND] and view["seat"] == 0
    tokens[FRIEND] = _join(friend_http, invites[0])
    return view, tokens


def _play_until(http: httpx.Client, view: dict, token: str, done) -> dict:
    """The creator plays (its first legal action each time) until ``done(view)``; at most 400 actions."""
    for _ in range(400):
        if done(view) or view["status"] == "over":
            return view
        assert view["your_turn"], f"the creator waits for seat {view['deciding']}"
        answer = http.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                           json={"action": view["actions"][0]["id"], "version": view["version"]})
        assert answer.status_code == 200, answer.text
        view = answer.json()
    raise AssertionError("the game did not get there in 400 actions")


def _bot_played(log: list, entry: str) -> bool:
    """Whether the friend's seat made a decision after the log's ``entry``."""
    texts = [e["text"] for e in log]
    return entry in texts and any(e["player"] == FRIEND for e in log[texts.index(entry) + 1:])


def _refused_to_the_friend(http: httpx.Client, game_id: str, token: str) -> dict:
    """The friend's token reads the game, without actions, and cannot act in it."""
    view = http.get(f"/api/games/{game_id}", headers=auth(token))
    assert view.status_code == 200, view.text
    view = view.json()
    assert view["seat"] == FRIEND and view["away"] == [FRIEND] and not view["your_turn"] and view["actions"] == []
    refused = http.post(f"/api/games/{game_id}/actions", headers=auth(token),
                        json={"action": 0, "version": view["version"]})
    assert refused.status_code == 409 and refused.json()["detail"] == AWAY_REFUSAL
    return view


def test_a_crownfall_seat_that_stops_acting_is_played_by_the_easy_bot_after_the_limit(tmp_path):
    """The friend's seat is to decide and does nothing: 3 s later (``--idle-seat-minutes 0.05``)
    the easy bot plays it, and the creator's turn comes again (before: the game waited for the
    friend for good, the others' ``/ai`` was 409 and nothing let it go on)."""
    server = ServerProcess(tmp_path / "g.sqlite3", "--idle-seat-minutes", "0.05")
    try:
        with httpx.Client(base_url=server.base, timeout=60) as http:
            view, tokens = _game(http, http)
            view = _play_until(http, view, tokens[0], lambda v: v["deciding"] == FRIEND)
            assert http.post(f"/api/games/{view['id']}/ai", headers=auth(tokens[0])).status_code == 409
            game_id = view["id"]

            def creator_again():
                seen = http.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()
                return seen if seen["your_turn"] or seen["status"] == "over" else None

            assert wait_until(creator_again, 30), "the friend's idle seat still holds the game up"
            view = creator_again()
            assert view["away"] == [FRIEND] and _bot_played(view["log"], IDLE)
            assert [e["text"] for e in view["log"]].count(IDLE) == 1
            _refused_to_the_friend(http, game_id, tokens[FRIEND])
            after = _play_until(http, view, tokens[0], lambda v: v["version"] > view["version"] + 1)   # it goes on
            assert after["status"] == "over" or after["your_turn"]
    finally:
        server.kill()


def test_a_seat_that_leaves_is_played_by_the_easy_bot_and_its_token_only_reads(tmp_path):
    """The friend leaves while the creator is to decide; from then on the AI's turns play the
    friend's seat too, and the friend's token reads the game but cannot act. Leaving again changes
    nothing; a game with resignation is left by resigning (409 says so). Before: no such path (404)."""
    server = ServerProcess(tmp_path / "g.sqlite3")
    try:
        with httpx.Client(base_url=server.base, timeout=60) as http:
            view, tokens = _game(http, http)
            game_id = view["id"]
            left = http.post(f"/api/games/{game_id}/leave", headers=auth(tokens[FRIEND]))
            assert left.status_code == 200, left.text
            assert left.json()["away"] == [FRIEND] and left.json()["actions"] == []
            version = left.json()["version"]
            again = http.post(f"/api/games/{game_id}/leave", headers=auth(tokens[FRIEND]))
            assert again.status_code == 200 and again.json()["version"] == version
            view = http.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()
            view = _play_until(http, view, tokens[0], lambda v: _bot_played(v["log"], LEFT))
            assert view["away"] == [FRIEND] and [e["text"] for e in view["log"]].count(LEFT) == 1
            _refused_to_the_friend(http, game_id, tokens[FRIEND])
            crown = http.post("/api/games", json={"seed": 5, "supply": "first-game", "ai": {"bot": "greedy"}}).json()
            refused = http.post(f"/api/games/{crown['id']}/leave", headers=auth(crown["token"]))
            assert refused.status_code == 409 and "resign" in refused.json()["detail"]
    finally:
        server.kill()


def test_across_two_instances_an_idle_seat_is_taken_once_and_a_seat_leaves_on_either(pg_url):
    """Two servers on one PostgreSQL, both sweeping every 50 ms with a 3 s idle limit: the creator
    plays on A, the friend joined on B and stops acting: the easy bot takes the seat once (one log
    entry, whichever server claimed it), and B refuses the friend's action. In a second game the
    friend leaves on B and A's next answer plays the friend's seat by the bot."""
    limits = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6,
                    flag_poll_seconds=0.05, idle_seat_seconds=3.0)
    apps = [create_app(pg_url, ai_pool="thread", limits=limits) for _ in range(2)]
    servers = [ThreadServer(app) for app in apps]
    try:
        assert wait_until(lambda: all(app.state.server.instances.live == 2 for app in apps), 15)
        with httpx.Client(base_url=servers[0].base, timeout=60) as a, httpx.Client(base_url=servers[1].base,
                                                                                   timeout=60) as b:
            view, tokens = _game(a, b)
            view = _play_until(a, view, tokens[0], lambda v: v["deciding"] == FRIEND)
            game_id = view["id"]
            assert wait_until(lambda: a.get(f"/api/games/{game_id}", headers=auth(tokens[0])).json()["your_turn"], 30)
            time.sleep(0.5)                                        # ten more sweeps of each server
            stored = apps[0].state.server.store.get(game_id)
            assert stored["away"] == [FRIEND] and [e["text"] for e in stored["log"]].count(IDLE) == 1
            _refused_to_the_friend(b, game_id, tokens[FRIEND])

            view, tokens = _game(a, b)
            assert b.post(f"/api/games/{view['id']}/leave", headers=auth(tokens[FRIEND])).status_code == 200
            view = a.get(f"/api/games/{view['id']}", headers=auth(tokens[0])).json()        # A sees it
            assert view["away"] == [FRIEND] and view["your_turn"]
            view = _play_until(a, view, tokens[0], lambda v: _bot_played(v["log"], LEFT))
            assert view["away"] == [FRIEND]
            _refused_to_the_friend(b, view["id"], tokens[FRIEND])
    finally:
        for served in servers:
            served.__exit__(None, None, None)


@pytest.mark.parametrize("minutes", ["0", "-1", "soon"])
def test_serve_refuses_a_bad_idle_limit(minutes):
    """`ftc serve --idle-seat-minutes` takes a positive number of minutes (15 by default)."""
    from engine.interfaces.cli import build_parser

    assert build_parser().parse_args(["serve"]).idle_seat_minutes == 15.0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--idle-seat-minutes", minutes])
