"""Faults, with the real components: a refused request changes nothing, an acknowledged one is never
lost. SQLite locked or full (503, nothing applied, other games keep being served), an action sent
twice, reads during a write, and the AI's real process pool with a hung, a crashing, a raising and
a killed worker (each replaced, each fallback logged, the game never stuck)."""

import asyncio
import logging
import os
import signal
import sqlite3
import time
from dataclasses import replace

import httpx
import pytest
from fastapi.testclient import TestClient

import engine.interfaces.server.core as app_module
from engine.crown.record import fingerprint
from engine.games import registry
from engine.games.view import game_view
from engine.interfaces.server.app import Limits, create_app
from engine.interfaces.server.seats import game_part
from tests.server import faulty_ai
from tests.server.support import act, alive, auth, new_game, record_commits

NO_LIMITS = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)


def _end_phase(view):
    return next(a["id"] for a in view["actions"] if a["fields"]["type"] == "done")


# -- storage -----------------------------------------------------------------------------------------
def test_a_locked_database_answers_503_changes_nothing_and_stalls_no_one(tmp_path):
    db = tmp_path / "g.sqlite3"
    app = create_app(db, ai_pool="thread", busy_timeout=1.0, limits=NO_LIMITS)

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            created = [(await http.post("/api/games", json={"seed": s, "ai": {"bot": "greedy"}})).json() for s in (1, 2)]
            (a, b) = created
            print_before = fingerprint(app.state.server.games[a["id"]].snap.state)
            other = sqlite3.connect(db, isolation_level=None)
            other.execute("BEGIN EXCLUSIVE")                     # another process holds the write lock
            finished = []

            async def blocked_action():
                r = await http.post(f"/api/games/{a['id']}/actions", headers=auth(a["token"]),
                                    json={"action": a["actions"][0]["id"], "version": a["version"]})
                finished.append("action")
                return r

            async def read_other():
                await asyncio.sleep(0.05)
                r = await http.get(f"/api/games/{b['id']}", headers=auth(b["token"]))
                finished.append("read")
                return r

            refused, read = await asyncio.gather(blocked_action(), read_other())
            other.execute("ROLLBACK")
            assert refused.status_code == 503 and "busy" in refused.json()["detail"]
            assert read.status_code == 200
            assert finished == ["read", "action"]                # the read did not wait for the lock
            again = (await http.get(f"/api/games/{a['id']}", headers=auth(a["token"]))).json()
            a_view = {k: v for k, v in a.items() if k != "token"}
            assert again == a_view                               # nothing applied
            assert fingerprint(app.state.server.games[a["id"]].snap.state) == print_before
            ok = await http.post(f"/api/games/{a['id']}/actions", headers=auth(a["token"]),
                                 json={"action": a["actions"][0]["id"], "version": a["version"]})
            assert ok.status_code == 200                         # the same request goes through now
            assert app.state.server.store.get(a["id"])["version"] == ok.json()["version"]

    try:
        asyncio.run(main())
    finally:
        app.state.server.close()


def test_writes_waiting_for_a_locked_database_never_stall_reads(tmp_path):
    """Another connection holds SQLite's write lock. Twelve actions (more than the threads Python
    gives asyncio.to_thread on this machine) wait for it; meanwhile a knowledge download, a game
    read back from the database and the saved-games summary answer at once. The writes fail
    cleanly after the busy timeout (503, their wait for the writer included), and change nothing."""
    db = tmp_path / "g.sqlite3"
    busy = 2.0
    app = create_app(db, ai_pool="thread", busy_timeout=busy, limits=NO_LIMITS)
    server = app.state.server

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            games = [(await http.post("/api/games", json={"seed": s, "ai": {"bot": "greedy"}})).json()
                     for s in range(13)]
            reader, writers = games[0], games[1:]
            versions = {g["id"]: server.store.get(g["id"])["version"] for g in games}
            server.games.pop(reader["id"])                     # it must come back from the database
            other = sqlite3.connect(db, isolation_level=None)
            other.execute("BEGIN EXCLUSIVE")
            finished = {}

            async def timed(name, request):
                started = time.monotonic()
                answer = await request
                finished[name] = time.monotonic() - started
                return answer

            writes = [timed(f"write {i}", http.post(f"/api/games/{g['id']}/actions", headers=auth(g["token"]),
                                                    json={"action": _end_phase(g), "version": g["version"]}))
                      for i, g in enumerate(writers)]

            async def reads():
                await asyncio.sleep(0.1)                        # the writes are waiting by now
                return await asyncio.gather(
                    timed("view", http.get(f"/api/games/{reader['id']}", headers=auth(reader["token"]))),
                    timed("knowledge", http.get(f"/api/games/{reader['id']}/knowledge", headers=auth(reader["token"]))),
                    timed("saved", http.post("/api/games/saved", json={"games": [{"id": reader["id"],
                                                                                  "token": reader["token"]}]})))

            answers = await asyncio.gather(reads(), *writes)
            other.execute("ROLLBACK")
            other.close()
            return answers[0], answers[1:], finished, versions

    try:
        read_answers, write_answers, finished, versions = asyncio.run(main())
        assert [r.status_code for r in read_answers] == [200, 200, 200]
        assert read_answers[2].json()["games"][0]["found"]
        assert all(finished[name] < busy / 2 for name in ("view", "knowledge", "saved")), finished
        for answer in write_answers:
            assert answer.status_code == 503 and "busy" in answer.json()["detail"], answer.text
        assert all(busy * 0.9 <= finished[f"write {i}"] < busy * 3 for i in range(12)), finished
        for game_id, version in versions.items():                  # nothing was written
            assert server.store.get(game_id)["version"] == version
    finally:
        server.close()


def test_a_full_disk_answers_503_and_the_game_goes_on_when_there_is_room(tmp_path):
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(db, ai_pool="thread", limits=NO_LIMITS)) as c:
        server = c.app.state.server
        view, token = new_game(c, supply="random")
        pages = server.store.backend.writer.execute("PRAGMA page_count").fetchone()[0]
        server.store.backend.writer.execute(f"PRAGMA max_page_count = {pages}")      # SQLite's own "disk full"
        refusals = 0
        for _ in range(300):
            if view["status"] == "over":
                break
            before = view
            response = c.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                              json={"action": _end_phase(view), "version": view["version"]})
            if response.status_code == 503:
                refusals += 1
                assert "full" in response.json()["detail"]
                assert c.get(f"/api/games/{view['id']}", headers=auth(token)).json() == before
                assert server.store.get(view["id"])["version"] == before["version"]
                break
            assert response.status_code == 200, response.text
            view = response.json()
        assert refusals == 1
        server.store.backend.writer.execute("PRAGMA max_page_count = 1073741823")
        view = act(c, view, token, _end_phase(view))
        assert server.store.get(view["id"])["version"] == view["version"]


def test_an_ai_turn_that_cannot_be_saved_keeps_the_humans_action_and_can_be_retried(tmp_path):
    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=NO_LIMITS)) as c:
        server = c.app.state.server
        view, token = new_game(c)
        while view["turn"] == 1:
            if sum(1 for a in view["actions"] if a["fields"]["type"] == "done") and view["phase"] == "buy":
                break
            view = act(c, view, token, _end_phase(view))
        # The human's last decision of the turn is saved; the AI's answer is refused by the store.
        original_update = server.store.update
        calls = []

        def update_then_fail(*args):
            calls.append(args)
            if len(calls) == 2:
                from engine.interfaces.server.store import StorageError
                raise StorageError("saving game: the disk is full (planted)")
            return original_update(*args)

        server.store.update = update_then_fail
        after = act(c, view, token, _end_phase(view))
        assert after["version"] == view["version"] + 1 and not after["your_turn"] and not after["thinking"]
        assert "could not be saved" in after["ai_note"]
        assert server.store.get(view["id"])["version"] == after["version"]      # the human's action is kept
        server.store.update = original_update
        retried = c.post(f"/api/games/{view['id']}/ai", headers=auth(token))
        assert retried.status_code == 200 and retried.json()["your_turn"] and retried.json()["ai_note"] is None


# -- duplicates and consistent reads -----------------------------------------------------------------
def test_an_action_sent_twenty_times_at_once_is_applied_once(store_url):
    """On each store (SQLite, PostgreSQL): the version check in the database lets one copy through."""
    app = create_app(store_url, ai_pool="thread", limits=NO_LIMITS)

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            view = (await http.post("/api/games", json={"seed": 3, "ai": {"bot": "greedy"}})).json()
            # "End the phase" has the same id in every phase: without the version each copy would end one.
            body = {"action": _end_phase(view), "version": view["version"]}
            answers = await asyncio.gather(*(http.post(f"/api/games/{view['id']}/actions", json=body,
                                                       headers=auth(view["token"])) for _ in range(20)))
            codes = sorted(r.status_code for r in answers)
            assert codes == [200] + [409] * 19
            final = (await http.get(f"/api/games/{view['id']}", headers=auth(view["token"]))).json()
            assert final["version"] == view["version"] + 1
            assert app.state.server.store.get(view["id"])["version"] == view["version"] + 1
            assert sum(1 for e in final["log"] if e["player"] == 0) == 1

    try:
        asyncio.run(main())
    finally:
        app.state.server.close()


def test_reads_during_a_change_see_one_consistent_version(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=NO_LIMITS)
    server = app.state.server
    snapshots = record_commits(server)         # version -> the true state behind it

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            view = (await http.post("/api/games", json={"seed": 9, "ai": {"bot": "random"}})).json()
            token = view.pop("token")
            snapshots[1] = server.games[view["id"]].snap
            reads = []

            async def reader():
                for _ in range(60):
                    reads.append((await http.get(f"/api/games/{view['id']}", headers=auth(token))).json())
                    await asyncio.sleep(0)

            async def writer():
                current = view
                for _ in range(30):
                    if current["status"] == "over":
                        break
                    r = await http.post(f"/api/games/{current['id']}/actions", headers=auth(token),
                                        json={"action": _end_phase(current), "version": current["version"]})
                    current = r.json()

            await asyncio.gather(reader(), reader(), writer())
            assert reads
            for seen in reads:
                snap = snapshots[seen["version"]]
                expected = game_view(registry.for_state(snap.state), seen["id"], snap.version, snap.state, 0,
                                     seen["thinking"], list(snap.log), list(snap.ai_last_turn), snap.ai_note)
                assert game_part(seen) == expected

    try:
        asyncio.run(main())
    finally:
        app.state.server.close()


# -- the AI's real process pool ----------------------------------------------------------------------
@pytest.fixture
def process_server(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=1, ai_timeout=1.0, limits=NO_LIMITS)
    with TestClient(app) as c:
        yield c


#: A search, so its turns go to the workers (an instant bot's turn may be played in the server's own
#: instant lane when no worker is free: ai.INSTANT_BOTS), and a quick one (depth 1, a few ms a turn).
SEARCH = {"bot": "alphabeta", "depth": 1}


def _ai_turn(c, view, token):
    """End the human's turn, so that the AI takes one; the answer after it."""
    turn = view["turn"]
    while view["turn"] == turn and view["status"] == "playing":
        view = act(c, view, token, _end_phase(view))
    return view


@pytest.mark.parametrize("fault, reason", [
    (faulty_ai.hang, "no answer within"),
    (faulty_ai.crash, "a worker died"),
    (faulty_ai.boom, "the worker raised RuntimeError"),
])
def test_a_failing_worker_is_replaced_the_turn_is_played_and_the_next_turn_uses_the_ai(
        process_server, monkeypatch, caplog, fault, reason):
    c = process_server
    server = c.app.state.server
    view, token = new_game(c, ai=SEARCH)
    view = _ai_turn(c, view, token)                                 # spawns the worker, a normal turn
    assert server.fallbacks == [] and view["your_turn"]
    old_workers = server.pool.worker_pids()
    monkeypatch.setattr(app_module, "ai_turn", fault)
    with caplog.at_level(logging.WARNING, logger="ftc.server"):
        view = _ai_turn(c, view, token)
    assert view["your_turn"] and not view["thinking"]              # the game is never stuck
    assert len(server.fallbacks) == 1 and reason in server.fallbacks[0]
    assert any(reason in record.getMessage() for record in caplog.records)
    assert reason in view["ai_note"] and "greedy bot" in view["ai_note"]      # the player is told
    if fault is not faulty_ai.boom:                                # a hung or dead worker: replaced
        assert server.pool.restarts == 1
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in old_workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(pid) for pid in old_workers)          # the abandoned search burns no core
    monkeypatch.undo()
    view = _ai_turn(c, view, token)
    assert view["your_turn"] and len(server.fallbacks) == 1         # the real AI again, not the greedy bot
    assert view["ai_note"] is None


def test_a_killed_worker_costs_one_fallback_not_every_later_turn(process_server):
    c = process_server
    server = c.app.state.server
    view, token = new_game(c, ai=SEARCH)
    view = _ai_turn(c, view, token)
    for pid in server.pool.worker_pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.3)
    view = _ai_turn(c, view, token)
    assert view["your_turn"] and len(server.fallbacks) <= 1
    for _ in range(2):
        view = _ai_turn(c, view, token)
    assert view["your_turn"] and len(server.fallbacks) <= 1 and server.pool.restarts <= 1


def test_the_worker_keeps_to_the_turns_deadline(tmp_path):
    """An AI whose budget per decision far exceeds the turn's: the worker caps every search by the
    time left and hands the rest of the turn to the greedy bot; the server never has to kill it."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=1, ai_timeout=1.5, limits=NO_LIMITS)
    with TestClient(app) as c:
        server = c.app.state.server
        view, token = new_game(c, ai={"bot": "ismcts", "iterations": 200000})
        for _ in range(2):
            view = _ai_turn(c, view, token)
            assert view["your_turn"]
        assert server.pool.restarts == 0
        assert all("time ran out" in note for note in server.fallbacks)


def test_a_bot_that_spends_every_budget_it_is_given_still_leaves_time_for_the_rest_of_its_turn():
    """The worker gives each decision at most half of what the turn has left beyond the reserve
    (ai.DECISION_SHARE), so a search that spends its whole budget (the planner's verification does)
    never runs a short turn out of time: every decision of the turn is the AI's, none the greedy
    bot's, and the turn ends within its deadline."""
    from engine.crown.config import GameConfig
    from engine.crown.players import make_bot
    from engine.crown.state import GameState
    from engine.interfaces.server import ai

    greedy = make_bot("greedy", 1)
    given = []

    class Spender:
        def choose_within(self, state, seconds):
            given.append(seconds)
            time.sleep(seconds)
            return greedy.choose(state)

    state = GameState(GameConfig(seed=4))
    assert state.current_player() == 0
    deadline = time.time() + 1.2
    result = ai._decide(state, 1, lambda seat: Spender(), deadline, 0)
    assert result.fallbacks == [] and len(given) == len(result.actions) >= 3
    assert all(later < earlier for earlier, later in zip(given, given[1:]))    # each gets less of less
    assert time.time() <= deadline and state.current_player() == 1


def test_a_turns_time_starts_when_a_worker_is_ready_not_while_it_spawns(tmp_path):
    """A new worker takes about a second to start (spawn, imports); the first AI turn after a start
    and after a restart must not spend its deadline on that. With 0.6 s a turn (0.3 s of it the
    reserve), a turn that counted the spawn would fall back to the greedy bot."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=1, ai_timeout=0.6, limits=NO_LIMITS)
    with TestClient(app) as c:
        server = c.app.state.server
        view, token = new_game(c, ai=SEARCH)                       # the AI turn follows at once
        view = _ai_turn(c, view, token)
        assert view["your_turn"] and server.fallbacks == [], server.fallbacks
        server.pool.restart("the test")                            # fresh workers again
        view = _ai_turn(c, view, token)
        assert view["your_turn"] and server.fallbacks == [], server.fallbacks


def _at(app, address):
    """An HTTP client of ``app`` from the client address ``address``."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 40000)), base_url="http://t")


def test_a_hint_queued_behind_busy_turns_waits_and_costs_no_one_their_turn(tmp_path, monkeypatch):
    """Two games' AI turns (two clients) hold both workers for 4 s; a third client's hint, whose
    whole limit (0.5 s and the grace) is shorter than that, waits for a worker and is then searched.
    No worker is replaced, nobody's turn falls back to the greedy bot."""
    from engine.interfaces.server import player_tools

    monkeypatch.setattr(player_tools, "HINT_SECONDS", 0.5)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=2, ai_timeout=6.0, limits=NO_LIMITS,
                     hint_bot="ismcts:50")
    server = app.state.server

    async def main():
        async with _at(app, "10.0.0.1") as a, _at(app, "10.0.0.2") as b, _at(app, "10.0.0.3") as c:
            game = (await c.post("/api/games", json={"seed": 3, "ai": {"bot": "greedy"}})).json()
            await server.pool.ready()
            monkeypatch.setattr(app_module, "ai_turn", faulty_ai.slow_turn)
            turns = [asyncio.ensure_future(http.post("/api/games", json={"seed": 4, "human": 1, "ai": SEARCH}))
                     for http in (a, b)]
            while len(server.pool.tasks()) < 2:
                await asyncio.sleep(0.05)
            hint = await c.post(f"/api/games/{game['id']}/hint", headers=auth(game["token"]))
            return [t.result() if t.done() else await t for t in turns], hint

    try:
        turns, hint = asyncio.run(main())
    finally:
        server.close()
    assert hint.status_code == 200 and hint.json()["source"] != "greedy" and hint.json()["note"] is None, hint.text
    for turn in turns:
        assert turn.status_code == 201 and turn.json()["your_turn"] and turn.json()["ai_note"] is None, turn.text
    assert server.fallbacks == [] and server.pool.restarts == 0
    hint_wait = [wait for client, _, name, wait in server.pool.started_log if name == "hint_turn"]
    assert hint_wait and hint_wait[0] > 3.0                       # it waited longer than its own limit


def test_one_client_flooding_the_ai_does_not_delay_another_clients_turn(tmp_path, monkeypatch):
    """Client A asks for three expensive AI turns at once (ismcts with 40 s a decision, clamped by
    the server to Limits.ai_max_seconds); client B, who plays too, gets its AI turn started at once,
    before A's second: one worker is kept for the other clients."""
    # A's turns hold their worker for 3 s (faulty_ai.held): B's request must reach the queue while A's
    # first still runs. A real search may end a turn at once (a planned or forced decision), and then
    # A's second rightly took the free worker before B's (seen twice in CI).
    monkeypatch.setattr(app_module, "ai_turn", faulty_ai.held)
    limits = replace(NO_LIMITS, ai_max_seconds=3.0)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=2, ai_timeout=4.0, limits=limits)
    server = app.state.server
    expensive = {"human": 1, "ai": {"bot": "ismcts", "seconds": 40}}
    cheap = {"human": 1, "ai": SEARCH}                            # a search: its turns wait for the workers

    async def main():
        async with _at(app, "10.0.0.1") as a, _at(app, "10.0.0.2") as b:
            assert (await b.post("/api/games", json={"seed": 1, **cheap})).status_code == 201     # B plays
            flood = [asyncio.ensure_future(a.post("/api/games", json={"seed": s, **expensive})) for s in (2, 3, 4)]
            while not server.pool.tasks():
                await asyncio.sleep(0.02)
            b_turn = await b.post("/api/games", json={"seed": 5, **cheap})
            return b_turn, await asyncio.gather(*flood)

    try:
        b_turn, flood = asyncio.run(main())
    finally:
        server.close()
    assert b_turn.status_code == 201 and all(r.status_code == 201 for r in flood)
    started = [(client, wait) for client, _, _, wait in server.pool.started_log]
    assert [client for client, _ in started] == ["10.0.0.2", "10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.1"]
    assert started[2][1] < started[3][1]                          # B's turn waited less than A's second


def test_the_server_caps_the_seconds_a_client_asks_for(tmp_path, monkeypatch):
    """A client's seconds a decision above Limits.ai_max_seconds reach the AI as the cap."""
    specs = []

    def spy(record, bot_spec, seed, human, deadline):
        specs.append(bot_spec)
        return faulty_ai.ai_turn(record, "greedy", seed, human, deadline)     # the real turn, quickly

    monkeypatch.setattr(app_module, "ai_turn", spy)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=replace(NO_LIMITS, ai_max_seconds=2.5))
    with TestClient(app) as c:
        new_game(c, human=1, variant="point-buy", ai={"bot": "alphabeta", "seconds": 40})
        new_game(c, human=1, ai={"bot": "ismcts", "seconds": 60})
        new_game(c, human=1, ai={"bot": "ismcts", "seconds": 1.5})
    assert specs == ["alphabeta:2.5s", "ismcts:2.5s", "ismcts:1.5s"]
