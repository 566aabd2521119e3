"""Several server instances on one PostgreSQL (engine/interfaces/server/instances.py, docs/server.md
"Several instances"): real `ftc serve` processes on a real, throwaway PostgreSQL (tests/server/
postgres.py). The quick test is in the default run; the kill -9 ones are ``slow``."""

import json
import random
import sys
import threading
import time

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import Limits, Snapshot, create_app
from engine.interfaces.server.instances import SHARED_LIMITS
from tests.server.postgres import wait_until
from tests.server.support import ServerProcess, auth, new_game

NO_LIMITS = Limits(requests_per_second=10_000, request_burst=10_000, games_per_minute=10_000, game_burst=10_000)


def _without_thinking(view: dict) -> dict:
    return {key: value for key, value in view.items() if key != "thinking"}


def _until_version(ws, version: int) -> dict:
    """The first view a socket sends at ``version`` or later, not built while the AI thinks (a socket
    keeps only the newest view)."""
    while True:
        view = json.loads(ws.recv(timeout=20))
        if view["version"] >= version and not view["thinking"]:
            return view


def _health(server) -> dict:
    return httpx.get(server.base + "/api/health", timeout=10).json()


def test_a_game_created_on_one_instance_is_played_on_both_and_every_socket_sees_every_move(pg_url):
    """Instance A creates the game; its moves are made alternately on B and A; the seat's socket
    (on A) and a spectator's socket (a third connection, on B) get the view of every acknowledged
    version, identical to the answer of the instance that made the move. Closed to spectators on
    B, the game's spectator socket on A is closed and A's watch path answers 404."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    a = ServerProcess(pg_url)
    b = ServerProcess(pg_url)
    try:
        assert wait_until(lambda: _health(a)["instances"] == 2 and _health(b)["instances"] == 2, 15)
        ids = (_health(a)["instance"], _health(b)["instance"])
        assert ids[0] != ids[1]
        view, token = new_game(httpx.Client(base_url=a.base, timeout=30))
        with connect(f"ws://127.0.0.1:{a.port}/api/games/{view['id']}/ws", additional_headers=auth(token)) as seat, \
                connect(f"ws://127.0.0.1:{b.port}/api/games/{view['id']}/watch/ws") as spectator:
            assert json.loads(seat.recv(timeout=20))["version"] == view["version"]
            assert json.loads(spectator.recv(timeout=20))["version"] == view["version"]
            rng = random.Random(3)
            for move in range(12):
                if view["status"] == "over":
                    break
                where = (b, a)[move % 2]
                answer = httpx.post(f"{where.base}/api/games/{view['id']}/actions", headers=auth(token), timeout=60,
                                    json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
                assert answer.status_code == 200, answer.text
                view = answer.json()
                pushed = _until_version(seat, view["version"])
                assert pushed == view, f"move {move}"
                watched = _until_version(spectator, view["version"])
                assert watched["version"] == view["version"] and watched["log"][-1]["text"] == view["log"][-1]["text"]
            # An action chosen on a view the other instance has moved past: 409 naming the version.
            stale = httpx.post(f"{a.base}/api/games/{view['id']}/actions", headers=auth(token), timeout=30,
                               json={"action": view["actions"][0]["id"], "version": view["version"] - 1})
            assert stale.status_code == 409 and f"at version {view['version']}" in stale.json()["detail"]
            # Closed to spectators on B: a spectator's socket on A is closed, A's watch path is a 404.
            with connect(f"ws://127.0.0.1:{a.port}/api/games/{view['id']}/watch/ws") as on_a:
                assert json.loads(on_a.recv(timeout=20))["version"] == view["version"]
                closed = httpx.patch(f"{b.base}/api/games/{view['id']}", headers=auth(token), timeout=30,
                                     json={"spectators": False})
                assert closed.status_code == 200 and closed.json()["spectators"] is False
                with pytest.raises(ConnectionClosed) as ended:
                    while True:
                        on_a.recv(timeout=20)
                assert ended.value.rcvd.code == 4404
            assert httpx.get(f"{a.base}/api/games/{view['id']}/watch", timeout=30).status_code == 404
    finally:
        a.kill()
        b.kill()
    assert (_health_id(a.output), _health_id(b.output)) == ids        # `ftc serve` prints its instance id


def _health_id(output: str) -> str:
    """The instance id `ftc serve` printed on its first line."""
    first = output.splitlines()[0]
    assert "; instance " in first, first
    return first.rsplit("; instance ", 1)[1].rstrip(")")


def test_a_save_that_loses_the_version_check_to_another_instance_answers_409_and_reloads(pg_url):
    """Two servers on one database: A holds the game in memory; B moves it; a change A computed from
    its old copy loses the database's version check: 409 naming the current version (Superseded),
    A's copy reloaded, nothing written. A game held with no socket is checked against the database
    when asked for: A answers B's newest move."""
    with TestClient(create_app(pg_url, ai_pool="thread", limits=NO_LIMITS)) as a, \
            TestClient(create_app(pg_url, ai_pool="thread", limits=NO_LIMITS)) as b:
        view, token = new_game(a)
        server_a = a.app.state.server
        game = server_a.games[view["id"]]
        moved = b.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                       json={"action": view["actions"][0]["id"], "version": view["version"]})
        assert moved.status_code == 200
        old = game.snap
        assert old.version == view["version"]               # A has not looked yet
        from engine.interfaces.server.instances import Superseded

        async def late_commit():
            async with game.lock:
                await server_a.commit(game, Snapshot(old.state.clone(), old.version + 1, old.log, old.ai_last_turn,
                                                     public_log=old.public_log))

        with pytest.raises(Superseded) as refused:
            a.portal.call(late_commit)
        assert refused.value.status_code == 409 and refused.value.version == moved.json()["version"]
        assert game.snap.version == moved.json()["version"]  # reloaded
        assert server_a.store.get(view["id"])["version"] == moved.json()["version"]
        # A's next answer is B's state, not its old copy.
        assert a.get(f"/api/games/{view['id']}", headers=auth(token)).json()["version"] == moved.json()["version"]
        # B moves again; A (no socket of the game: no push) checks the version when asked and reloads.
        now = moved.json()
        again = b.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                       json={"action": now["actions"][0]["id"], "version": now["version"]})
        assert again.status_code == 200
        assert a.get(f"/api/games/{view['id']}", headers=auth(token)).json() == again.json()


def _claims(url: str, game_id: str) -> list:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT owner, version FROM claims WHERE game_id=%s AND kind='ai'", (game_id,)).fetchall()


def _row(url: str, game_id: str) -> tuple:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT version, waiting_ai, record FROM games WHERE id=%s", (game_id,)).fetchone()


#: `ftc serve` whose ISMCTS turns hold their worker until a second before the turn's deadline
#: (tests.server.faulty_ai.held, with --ai-timeout 6): an AI turn that is surely in flight for seconds.
HELD_AI = [sys.executable, "-c", "import sys; from engine.interfaces.server import core; "
           "from tests.server import faulty_ai; core.ai_turn = faulty_ai.held; "
           "from engine.interfaces.cli import main; sys.exit(main(sys.argv[1:]))"]


@pytest.mark.slow
def test_kill_9_of_the_instance_running_an_ai_turn_the_other_finishes_it_once(pg_url):
    """A thinks the AI's first turn (a slow search) and is killed -9 mid-turn; B's sweeper finds the
    game waiting for the AI with its claim's lease run out, takes the turn over and saves it: the
    version advances once (1 -> 2), the record holds the AI's turn once, and the game goes on."""
    a = ServerProcess(pg_url, "--ai-timeout", "6", command=HELD_AI)
    b = ServerProcess(pg_url, "--ai-timeout", "6", command=HELD_AI)
    created: list = []
    try:
        a_id = _health(a)["instance"]

        def create():
            try:
                created.append(httpx.post(a.base + "/api/games", timeout=120,
                                          json={"seed": 5, "supply": "first-game", "human": 1,
                                                "ai": {"bot": "ismcts", "seconds": 3}}))
            except httpx.HTTPError as exc:
                created.append(exc)

        creating = threading.Thread(target=create)
        creating.start()
        with psycopg.connect(pg_url) as conn:
            assert wait_until(lambda: conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1, 30)
            game_id = conn.execute("SELECT id FROM games").fetchone()[0]
        assert wait_until(lambda: _claims(pg_url, game_id) == [(a_id, 1)], 10), _claims(pg_url, game_id)
        a.kill()                                              # mid-turn: no answer, no release
        creating.join(30)
        assert not isinstance(created[0], httpx.Response), "the creating request was answered before the kill"
        assert _row(pg_url, game_id)[:2] == (1, True)         # the turn is pending
        assert wait_until(lambda: _row(pg_url, game_id)[0] >= 2, 60), "B did not take the turn over"
        time.sleep(2 * 4.0)                                   # a second, late application would show by now
        version, waiting, record = _row(pg_url, game_id)
        assert (version, waiting) == (2, False)
        assert _health(b)["ai_takeovers"] == 1
        players = [player for player, _ in json.loads(record)["steps"]]
        assert 0 in players and set(players) <= {0, -1}       # the AI's turn (seat 0, and chance), once
        assert _claims(pg_url, game_id) == []                 # released after the save
    finally:
        a.kill()
        b.kill()
    assert "taking over the AI's turn of game " + game_id in b.output


@pytest.mark.slow
def test_kill_9_of_one_instance_under_load_loses_no_acknowledged_action(pg_url):
    """Clients play games on both instances; A is killed -9 in the middle; every client of A
    reconnects to B and goes on. Afterwards every acknowledged version is in the database, with the
    log the client saw, and every game went on after the kill."""
    a = ServerProcess(pg_url, workers=1)
    b = ServerProcess(pg_url, workers=1)
    acked: dict[str, dict] = {}
    tokens: dict[str, str] = {}
    errors: list[str] = []
    after_kill: dict[str, int] = {}
    killed = threading.Event()

    def client(seed: int):
        rng = random.Random(seed)
        bases = [a.base, b.base] if seed % 2 == 0 else [b.base, a.base]
        with httpx.Client(timeout=60) as http:
            try:
                r = http.post(bases[0] + "/api/games", json={"seed": seed, "supply": "random", "human": seed % 2,
                                                           "ai": {"bot": "greedy"}})
            except httpx.TransportError:
                bases.pop(0)
                r = http.post(bases[0] + "/api/games", json={"seed": seed, "supply": "random", "human": seed % 2,
                                                           "ai": {"bot": "greedy"}})
            if r.status_code != 201:
                errors.append(f"create: {r.status_code} {r.text[:200]}")
                return
            view = r.json()
            tokens[view["id"]] = view.pop("token")
            acked[view["id"]] = view
            for _ in range(60):
                if view["status"] == "over":
                    return
                try:
                    if view["your_turn"]:
                        r = http.post(f"{bases[0]}/api/games/{view['id']}/actions", headers=auth(tokens[view["id"]]),
                                      json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
                    else:
                        r = http.post(f"{bases[0]}/api/games/{view['id']}/ai", headers=auth(tokens[view["id"]]))
                except httpx.TransportError:
                    bases = bases[1:] or bases                 # fail over to the other instance
                    r = http.get(f"{bases[0]}/api/games/{view['id']}", headers=auth(tokens[view["id"]]))
                if r.status_code != 200:
                    errors.append(f"game {view['id']}: {r.status_code} {r.text[:200]}")
                    return
                view = r.json()
                acked[view["id"]] = view
                if killed.is_set():
                    after_kill[view["id"]] = after_kill.get(view["id"], 0) + 1

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(16)]
    try:
        for thread in threads:
            thread.start()
        assert wait_until(lambda: sum(v["version"] for v in acked.values()) >= 100, 60)
        a.kill()
        killed.set()
        for thread in threads:
            thread.join(180)
        assert errors == []
        with psycopg.connect(pg_url) as conn:
            stored = {row[0]: (row[1], json.loads(row[2])) for row in conn.execute("SELECT id, version, log FROM games")}
        for game_id, view in acked.items():
            version, log = stored[game_id]
            assert version >= view["version"], game_id
            if version == view["version"]:
                assert log[-len(view["log"]):] == view["log"] if view["log"] else True
        assert len(after_kill) == len(acked) or all(v["status"] == "over" for g, v in acked.items()
                                                    if g not in after_kill)
    finally:
        a.kill()
        b.kill()


def test_each_instance_keeps_its_share_of_the_per_client_limits(pg_url):
    """Two servers on one database: each allows the documented per-client limits divided by the live
    instances (the sum never exceeds them); when one leaves, the other has them whole again. A
    client's request over its instance's share is refused (429)."""
    given = Limits(requests_per_second=10.0, request_burst=7, sockets_per_client=17, sockets_per_seat=3,
                   spectator_sockets_per_game=7, games_per_minute=31.0, game_burst=11)
    with TestClient(create_app(pg_url, ai_pool="thread", limits=given)) as a:
        server_a = a.app.state.server
        with TestClient(create_app(pg_url, ai_pool="thread", limits=given)) as b:
            assert wait_until(lambda: server_a.instances.live == 2, 10)
            for server in (server_a, b.app.state.server):
                assert wait_until(lambda: server.instances.live == 2, 10)
                shared = server.limits
                # Odd limits over two instances: the integers rounded down (7 -> 3, 17 -> 8, 3 -> 1, 7 -> 3, 11 -> 5).
                assert (shared.requests_per_second, shared.request_burst, shared.sockets_per_client,
                        shared.sockets_per_seat, shared.spectator_sockets_per_game, shared.games_per_minute,
                        shared.game_burst) == (5.0, 3, 8, 1, 3, 15.5, 5)
                assert (server.request_limiter.rate, server.request_limiter.burst) == (5.0, 3)
                assert (server.creates.rate, server.creates.burst) == (15.5 / 60, 5)
            for name in SHARED_LIMITS:                # the two shares together stay within each limit
                assert getattr(server_a.limits, name) + getattr(b.app.state.server.limits, name) <= getattr(given, name)
            answers = [a.get("/api/games/kinds").status_code for _ in range(6)]
            assert answers[:3] == [200, 200, 200] and 429 in answers[3:]   # a burst of 3 here, not 6
        # B left (its row removed): A has the whole limits back at its next heartbeat.
        assert wait_until(lambda: server_a.instances.live == 1, 10)
        assert server_a.limits == given and server_a.request_limiter.burst == 7


def test_the_shares_of_a_limit_that_does_not_divide_evenly_sum_to_at_most_the_limit(tmp_path):
    """Each of 2, 3 or 4 live instances keeps its share of every per-client limit kept in memory
    (instances.SHARED_LIMITS): an integer limit divided and rounded down (3 sockets per game over 2
    instances: 1 each), a rate divided and never rounded up, so that the shares of the live
    instances sum to at most the limit, in exact arithmetic; the share wastes less than one unit
    (an integer) or one part in 10^12 (a rate). A limit smaller than the number of instances still
    lets each allow 1 (a share of 0 would refuse every client)."""
    from fractions import Fraction

    server = create_app(tmp_path / "g.sqlite3", ai_pool="thread").state.server
    try:
        instances = server.instances
        for live in (1, 2, 3, 4):
            for value in range(1, 14):
                given = Limits(**{name: value if isinstance(getattr(Limits(), name), int) else value / 7 * 10
                                  for name in SHARED_LIMITS})
                instances.given, instances.live = given, live
                instances.apply_shares()
                for name in SHARED_LIMITS:
                    limit, share = getattr(given, name), getattr(server.limits, name)
                    assert type(share) is type(limit), name
                    if isinstance(limit, int):
                        assert share == (limit // live if limit >= live else 1), (name, limit, live, share)
                    else:
                        assert Fraction(share) * live <= Fraction(limit), (name, limit, live, share)
                        assert share * live > limit * (1 - 1e-12), (name, limit, live, share)
                assert (server.request_limiter.rate, server.request_limiter.burst) == \
                    (server.limits.requests_per_second, server.limits.request_burst)
                assert (server.creates.rate, server.creates.burst) == \
                    (server.limits.games_per_minute / 60.0, server.limits.game_burst)
    finally:
        server.close()


def test_new_games_per_client_are_counted_in_the_database_over_every_instance(pg_url):
    """A client's new games within a minute are counted in the database: an instance whose own
    bucket is full (a new or restarted instance) still refuses the client that used up
    games_per_minute + game_burst on others (429 naming the limit over every server)."""
    limits = Limits(requests_per_second=10_000, request_burst=10_000, games_per_minute=1.0, game_burst=2)
    body = {"seed": 5, "supply": "first-game", "ai": {"bot": "greedy"}}
    with TestClient(create_app(pg_url, ai_pool="thread", limits=limits)) as a:
        assert [a.post("/api/games", json=body).status_code for _ in range(2)] == [201, 201]
        assert a.post("/api/games", json=body).status_code == 429                 # A's own bucket
    with TestClient(create_app(pg_url, ai_pool="thread", limits=limits)) as b:   # a full bucket
        assert b.post("/api/games", json=body).status_code == 201                 # 3 = 1 a minute + burst 2
        refused = b.post("/api/games", json=body)
        assert refused.status_code == 429 and "at most 3 a minute over every server" in refused.json()["detail"]


def test_after_a_resync_every_game_with_sockets_is_reloaded_and_pushed(pg_url):
    """Notices may be lost (the listening connection dropped: the store then says RESYNC). A, deaf
    to notices, misses B's move; on RESYNC it reloads every game it holds sockets of and pushes the
    new view to them."""
    from engine.interfaces.server.store import RESYNC

    with TestClient(create_app(pg_url, ai_pool="thread", limits=NO_LIMITS)) as a, \
            TestClient(create_app(pg_url, ai_pool="thread", limits=NO_LIMITS)) as b:
        view, token = new_game(a)
        instances = a.app.state.server.instances
        with a.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(token)) as seat:
            assert seat.receive_json()["version"] == view["version"]
            instances._unsubscribe()                         # A hears no notice from now on
            moved = b.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                           json={"action": view["actions"][0]["id"], "version": view["version"]}).json()
            assert a.app.state.server.games[view["id"]].snap.version == view["version"]   # A missed it
            a.portal.call(instances._changes.put, RESYNC)
            game = a.app.state.server.games[view["id"]]
            assert wait_until(lambda: game.snap.version == moved["version"], 10)
            assert _without_thinking(seat.receive_json()) == _without_thinking(moved)


@pytest.mark.slow
def test_an_instance_asked_for_an_ai_turn_another_is_running_waits_for_its_result(pg_url):
    """A runs the AI's turn (a slow search, its claim in the database); the client asks B for the
    AI's turn meanwhile: B does not run it, it answers with A's result once A has saved it. The turn
    is played once (the version advances by the human's action and the AI's turn, no more)."""
    a = ServerProcess(pg_url, "--ai-timeout", "6", command=HELD_AI)
    b = ServerProcess(pg_url, "--ai-timeout", "6", command=HELD_AI)
    try:
        view, token = new_game(httpx.Client(base_url=a.base, timeout=30), ai={"bot": "ismcts", "seconds": 3})
        answers: list = []

        def end_phases():
            """The human ends phases on A until the AI's turn comes (that answer waits for the AI)."""
            now = view
            while True:
                done = next(x["id"] for x in now["actions"] if x["fields"]["type"] == "done")
                answer = httpx.post(f"{a.base}/api/games/{view['id']}/actions", headers=auth(token), timeout=60,
                                    json={"action": done, "version": now["version"]}).json()
                answers.append((now["version"], answer))
                if answer["version"] > now["version"] + 1 or answer["status"] == "over":
                    return
                now = answer

        acting = threading.Thread(target=end_phases)
        acting.start()
        assert wait_until(lambda: _claims(pg_url, view["id"]) != [], 60), "A never thought the AI's turn"
        asked = httpx.post(f"{b.base}/api/games/{view['id']}/ai", headers=auth(token), timeout=60)
        acting.join(60)
        before, by_a = answers[-1]
        assert asked.status_code == 200, asked.text
        assert asked.json()["version"] == by_a["version"] == before + 2       # the human's action, the AI's turn
        assert _without_thinking(asked.json()) == _without_thinking(by_a)
        assert _row(pg_url, view["id"])[:2] == (before + 2, False)
        assert _health(b)["ai_takeovers"] == 0
    finally:
        a.kill()
        b.kill()
    assert "saved by another instance first" not in b.output           # B never computed it
