"""The server's queue is never a player's time (issue 40, item 2; docs/server.md "The AI's workers and
their queue", "Clocks"): other clients keep the AI's workers busy with long alpha-beta searches (real
searches, real worker processes, real uvicorn on loopback, each client from its own loopback
address), and a victim plays on a clock.

- An AI turn that waits for a worker is not charged for the wait: its seat's clock runs from when
  the turn starts on a worker until its last decision there; the human's clock does not run while
  the server is busy with the AI either. Across two instances on one PostgreSQL, the other
  instance's flag sweeper does not flag a seat whose turn waits in the first one's queue.
- An instant bot's turn (the easy AI: greedy; random) never waits behind a search: with every worker
  busy it is played in the instant lane, and its answers arrive while the searches still run."""

from __future__ import annotations

import concurrent.futures
import time

import httpx

from engine.interfaces.server.app import Limits, create_app
from tests.server.postgres import wait_until
from tests.server.support import ThreadServer, auth

HEAVY = ("127.0.0.2", "127.0.0.3")
VICTIM = "127.0.0.4"


def _limits(**more) -> Limits:
    return Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6,
                  clock_min_base=1, **more)


def _client(base: str, address: str) -> httpx.Client:
    """An HTTP client of the server at ``base`` from the loopback address ``address`` (a client of its own)."""
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=120)


def _heavy_games(pool, executor, bases_and_addresses, seconds: float) -> list[concurrent.futures.Future]:
    """Each (base, address) creates a For the Crown game in which the AI (alpha-beta, ``seconds`` a
    decision) moves first: its first decision, a board order, searches its whole time. Returns the
    requests in flight once every one's turn runs on a worker of ``pool`` (the pools, one per
    instance, given as a list)."""
    def create(base, address):
        with _client(base, address) as http:
            return http.post("/api/games", json={"human": 1, "ai": {"bot": "alphabeta", "seconds": seconds}})

    futures = [executor.submit(create, base, address) for base, address in bases_and_addresses]
    heavy = {address for _, address in bases_and_addresses}
    assert wait_until(lambda: heavy <= {task[0] for p in pool for task in p.tasks()}, 60), \
        "the heavy clients' turns never started"
    return futures


def _victim_game(http: httpx.Client, ai: dict, base: float) -> tuple[dict, str]:
    response = http.post("/api/games", json={"ai": ai, "supply": "first-game", "clock": {"base": base}})
    assert response.status_code == 201, response.text
    view = response.json()
    return view, view.pop("token")


def _to_the_ais_answer(http: httpx.Client, view: dict, token: str) -> tuple[dict, float]:
    """The victim plays its turn (the first legal action each time) until the AI answers; returns the
    view with the AI's answer and how long that last request took."""
    while True:
        before = view["version"]
        started = time.monotonic()
        response = http.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                             json={"action": view["actions"][0]["id"], "version": view["version"]})
        took = time.monotonic() - started
        assert response.status_code == 200, response.text
        view = response.json()
        if view["version"] > before + 1 or view["status"] == "over":
            return view, took


def test_the_time_an_ai_turn_waits_for_a_worker_is_not_charged_to_its_clock(tmp_path):
    """One worker, held by another client's alpha-beta turn (4 s a decision); the victim's AI (a
    search, so it waits for a worker) has a 2 s clock. Its turn waits longer than its whole clock,
    and its seat does not run out of time: the wait is not charged (before: "Yellow ran out of time",
    the whole wait taken from the AI's clock). The human's clock stood still meanwhile too."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=1, limits=_limits(ai_max_seconds=4))
    server = app.state.server
    with ThreadServer(app) as served, concurrent.futures.ThreadPoolExecutor(2) as executor, \
            _client(served.base, VICTIM) as http:
        heavy = _heavy_games([server.pool], executor, [(served.base, HEAVY[0])], 4)
        created = time.monotonic()
        view, token = _victim_game(http, {"bot": "ismcts", "iterations": 30}, 2)
        view, took = _to_the_ais_answer(http, view, token)
        acted = time.monotonic()
        assert took > 2                                    # the AI's turn waited longer than its clock
        assert view["status"] == "playing" and view["your_turn"], view.get("over")
        clock = view["clock"]
        assert clock["out"] == [] and clock["running"] == 0
        assert clock["remaining"][1] > 0
        # Blue was charged its own moments only (creation to its last action), not the AI's wait.
        assert clock["remaining"][0] >= 2 - (acted - took - created) - 0.5
        assert heavy[0].result().status_code == 201


def test_an_ai_turn_waiting_on_one_instance_is_not_flagged_by_the_others_sweeper(pg_url):
    """Two instances on one PostgreSQL. On A, one worker is held by another client's alpha-beta turn
    and the victim's AI turn waits behind it; B's flag sweeper runs every 50 ms. The AI's seat (2 s
    clock) waits longer than its clock and is not flagged by B (before: B's sweeper found the game's
    stored flag time passed and made the AI's seat lose on time while its turn waited on A)."""
    limits = _limits(ai_max_seconds=4, flag_poll_seconds=0.05)
    apps = [create_app(pg_url, ai_pool="process", ai_workers=1, limits=limits) for _ in range(2)]
    servers = [ThreadServer(app) for app in apps]
    try:
        assert wait_until(lambda: all(app.state.server.instances.live == 2 for app in apps), 15)
        a = servers[0]
        with concurrent.futures.ThreadPoolExecutor(2) as executor, _client(a.base, VICTIM) as http:
            heavy = _heavy_games([apps[0].state.server.pool], executor, [(a.base, HEAVY[0])], 4)
            view, token = _victim_game(http, {"bot": "ismcts", "iterations": 30}, 2)
            view, took = _to_the_ais_answer(http, view, token)
            assert took > 2                                # the AI's turn waited longer than its clock
            assert view["status"] == "playing" and view["your_turn"], view.get("over")
            assert view["clock"]["out"] == [] and view["clock"]["remaining"][1] > 0
            stored = apps[1].state.server.store.get(view["id"])
            assert stored["status"] == "playing" and stored["clock"]["out"] == []
            assert heavy[0].result().status_code == 201
    finally:
        for served in servers:
            served.__exit__(None, None, None)


def test_an_easy_ais_answers_never_wait_behind_other_clients_searches(tmp_path):
    """Two workers, each held by another client's alpha-beta turn (6 s a decision). The victim plays
    the easy AI on a 15 s clock: each of its three AI answers arrives while both searches still run
    (before: each waited in the queue until a search ended, 9-10 s with the tool's 10 s searches),
    and its AI's seat never runs out of time."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="process", ai_workers=2, limits=_limits(ai_max_seconds=6))
    server = app.state.server
    with ThreadServer(app) as served, concurrent.futures.ThreadPoolExecutor(2) as executor, \
            _client(served.base, VICTIM) as http:
        view, token = _victim_game(http, {"level": "easy"}, 15)
        heavy = _heavy_games([server.pool], executor, [(served.base, address) for address in HEAVY], 6)
        for _ in range(3):
            view, _ = _to_the_ais_answer(http, view, token)
            assert not any(f.done() for f in heavy), "an AI answer of the victim waited for a search to end"
            assert view["status"] == "playing" and view["clock"]["out"] == []
        assert {task[0] for task in server.pool.tasks()} == set(HEAVY)     # both searches still run
        assert all(f.result().status_code == 201 for f in heavy)
