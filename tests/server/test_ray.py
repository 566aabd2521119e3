"""The server's AI on a Ray cluster (``create_app(ai_pool="ray")``, ``ftc serve --cluster ray``), with
a real local Ray of 2 CPUs started once for the module: AI turns and hints run as Ray tasks and play
exactly as the process pool does; a hung task is cancelled (its worker killed) and the greedy bot
takes the turn within the timeout and the grace; a task that kills its worker or raises costs one
fallback and the next turn uses Ray again; closing the pool cancels a running task; a real
`ftc serve --cluster ray` ends on SIGTERM with every descendant, Ray's own processes included.
Skipped when Ray is not installed (the `ray` extra)."""

import asyncio
import logging
import os
import random
import signal
import sys
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

import engine.interfaces.server.core as app_module
from engine.interfaces.server.ai import GRACE_SECONDS, AIPool
from engine.interfaces.server.app import Limits, create_app
from tests.server import faulty_ai
from tests.server.support import ServerProcess, alive, auth, descendants_of, new_game
from tests.server.test_faults import SEARCH, _ai_turn

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process checks read /proc")

NO_LIMITS = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _ray_tasks(name: str) -> list[int]:
    """Pids of this machine's Ray workers running the task ``name`` (Ray titles them ``ray::name``)."""
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _cmdline(int(p)).startswith(f"ray::{name}")]


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


# -- a real `ftc serve --cluster ray` (first: it starts a Ray of its own, before the module's) -------
#: `ftc serve` whose AI turns are the real ones until the file FTC_TEST_AI_HANG names exists, and
#: then never answer (tests.server.faulty_ai.hang_when_told, run by the Ray workers).
HANG_WHEN_TOLD = [sys.executable, "-c", "import sys; from engine.interfaces.server import core; "
                  "from tests.server import faulty_ai; core.ai_turn = faulty_ai.hang_when_told; "
                  "from engine.interfaces.cli import main; sys.exit(main(sys.argv[1:]))"]


def test_serve_on_a_local_ray_plays_and_sigterm_mid_turn_ends_every_descendant(tmp_path, monkeypatch):
    """The AI's first turn is Ray's search; SIGTERM while a second turn is thinking answers its
    request (the game stays before the AI's turn, with a note), exits 0 and ends every descendant
    within 10 s: the Ray worker, and the local Ray the server started."""
    told = tmp_path / "hang"
    monkeypatch.setenv("FTC_TEST_AI_HANG", str(told))
    server = ServerProcess(tmp_path / "g.sqlite3", "--cluster", "ray", workers=2, command=HANG_WHEN_TOLD)
    answers: list = []
    try:
        assert httpx.get(server.base + "/api/health", timeout=10).json()["ai_cluster"] == "ray"
        r = httpx.post(server.base + "/api/games", json={"seed": 4, "human": 1, "supply": "random",
                                                         "ai": {"level": "normal"}}, timeout=120)
        assert r.status_code == 201, r.text
        view, token = r.json(), r.json()["token"]
        assert view["your_turn"] and view["ai_note"] is None and view["ai_last_turn"]
        health = httpx.get(server.base + "/api/health", timeout=10).json()
        assert health["ai_fallbacks"] == 0, health                   # the turn was Ray's search, not greedy
        told.write_text("hang")
        done = next(a["id"] for a in view["actions"] if a["fields"]["type"] == "done")

        def end_turn():
            current = view
            with httpx.Client(base_url=server.base, headers=auth(token), timeout=60) as http:
                while current["your_turn"]:
                    answer = http.post(f"/api/games/{view['id']}/actions",
                                       json={"action": done, "version": current["version"]})
                    if answer.status_code != 200 or not answer.json()["your_turn"]:
                        answers.append(answer)
                        return
                    current = answer.json()

        asking = threading.Thread(target=end_turn)
        asking.start()
        thinking = lambda: any(_cmdline(p).startswith("ray::hang_when_told")         # noqa: E731
                               for p in descendants_of(server.proc.pid))
        assert _wait(thinking, 60), "the AI's second turn should be thinking in a Ray worker"
        family = descendants_of(server.proc.pid)
        assert any("raylet" in _cmdline(p) for p in family)          # the local Ray is the server's own
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        code = server.proc.wait(timeout=30)
        gone = _wait(lambda: not any(alive(p) for p in family), 10)
        took = time.monotonic() - started
        asking.join(timeout=30)
    except BaseException:
        server.kill(signal.SIGKILL)
        raise
    output = server.proc.stdout.read()
    server.proc.stdout.close()
    assert code == 0, output
    assert gone, ([(p, _cmdline(p)[:60]) for p in family if alive(p)], output)
    assert took < 10, took
    [answer] = answers
    assert answer.status_code == 200 and "shut down during the AI's turn" in answer.json()["ai_note"], answer.text
    assert "ftc-engine stopped (SIGTERM)" in output and "Traceback" not in output, output


# -- the app on the module's Ray ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    """One local Ray of 2 CPUs for the module, started by an AI pool of its own (the last test
    closes that pool); the pools of the apps below join it. Its workers inherit FTC_TEST_AI_PIDS
    (faulty_ai.where writes there)."""
    pids = tmp_path_factory.mktemp("ray") / "ai-pids.txt"
    os.environ["FTC_TEST_AI_PIDS"] = str(pids)
    owner = AIPool("ray", 2)
    try:
        yield pids, owner
    finally:
        owner.close()
        del os.environ["FTC_TEST_AI_PIDS"]


@pytest.fixture
def ray_server(local_ray, tmp_path):
    # 4 s a turn: a replaced Ray worker's first task (importing the engine) fits in it on a loaded
    # machine (with 2 s, the turn after a crash once ran out of time before its first decision).
    app = create_app(tmp_path / "g.sqlite3", ai_pool="ray", ai_workers=2, ai_timeout=4.0, limits=NO_LIMITS)
    with TestClient(app) as c:
        yield c


def _play(ai_pool, tmp_path, seed, turns, monkeypatch=None):
    """A game with the AI's randomness from ``seed``: the AI's turns (as logged) and the hint of the
    human's first decision."""
    app = create_app(tmp_path / f"{ai_pool}.sqlite3", ai_pool=ai_pool, ai_workers=1, ai_timeout=60.0,
                     limits=NO_LIMITS, hint_bot="ismcts:150")
    with TestClient(app) as c:
        c.app.state.server.entropy = random.Random(seed)
        # A worker is ready, so the random bot's turns run on the workers (an instant bot's turn that
        # finds none free is played in the server's instant lane).
        c.portal.call(c.app.state.server.pool.ready)
        # The random bot: each of its choices depends on the seed the server draws for the turn.
        view, token = new_game(c, supply="random", human=1, ai={"bot": "random"})
        r = c.post(f"/api/games/{view['id']}/hint", headers=auth(token))
        assert r.status_code == 200, r.text
        hint = r.json()
        turns_seen = [view["ai_last_turn"]]
        for _ in range(turns - 1):
            view = _ai_turn(c, view, token)
            turns_seen.append(view["ai_last_turn"])
        assert c.app.state.server.fallbacks == []
        assert c.get("/api/health").json()["ai_cluster"] == ("ray" if ai_pool == "ray" else "local")
        return turns_seen, {k: hint[k] for k in ("action", "source", "alternatives", "iterations")}


def test_ai_turns_and_hints_run_as_ray_tasks_and_play_as_the_process_pool(local_ray, tmp_path, monkeypatch):
    monkeypatch.setattr(app_module, "ai_turn", faulty_ai.where)
    pid_file = local_ray[0]
    pid_file.write_text("")
    on_ray = _play("ray", tmp_path, seed=21, turns=3)
    pids = {int(line) for line in pid_file.read_text().split()}
    assert len(pids) >= 1 and os.getpid() not in pids
    assert all(_cmdline(pid).startswith("ray::") for pid in pids), [_cmdline(p)[:40] for p in pids]
    assert _play("process", tmp_path, seed=21, turns=3) == on_ray
    assert on_ray[0][0] and all(turn for turn in on_ray[0])


@pytest.mark.parametrize("fault, reason", [
    (faulty_ai.hang, "no answer within"),
    (faulty_ai.crash, "a worker died"),
    (faulty_ai.boom, "the worker raised RuntimeError"),
])
def test_a_failing_task_costs_one_fallback_and_the_next_turn_uses_ray(ray_server, monkeypatch, caplog, fault, reason):
    c = ray_server
    server = c.app.state.server
    view, token = new_game(c, ai=SEARCH)
    view = _ai_turn(c, view, token)
    assert server.fallbacks == [] and view["your_turn"]
    monkeypatch.setattr(app_module, "ai_turn", fault)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="ftc.server"):
        view = _ai_turn(c, view, token)
    took = time.monotonic() - started
    assert view["your_turn"] and not view["thinking"]
    assert len(server.fallbacks) == 1 and reason in server.fallbacks[0], server.fallbacks
    assert any(reason in record.getMessage() for record in caplog.records)
    if fault is faulty_ai.hang:
        assert took < server.ai_turn_seconds + GRACE_SECONDS + 2.0, took
        # The task was cancelled: its worker, which would search forever, is gone.
        assert _wait(lambda: not _ray_tasks("hang"), 10), [_cmdline(p)[:40] for p in _ray_tasks("hang")]
    if fault is not faulty_ai.boom:
        assert server.pool.restarts == 1
    monkeypatch.undo()
    for _ in range(2):
        view = _ai_turn(c, view, token)
        assert view["your_turn"] and len(server.fallbacks) == 1, server.fallbacks   # Ray's AI again


@pytest.mark.parametrize("reachable", [True, False], ids=["cancelled", "ray-not-told"])
def test_closing_the_pool_cancels_the_running_task_and_answers_the_request(local_ray, tmp_path, monkeypatch,
                                                                           reachable):
    """begin_shutdown during a hung turn: the waiting request is answered at once (the game stays
    before the AI's turn, with a note), and the task is cancelled; the answer does not wait for Ray
    to report the cancellation (``ray-not-told``: the cancel never reaches Ray)."""
    monkeypatch.setattr(app_module, "ai_turn", faulty_ai.hang)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="ray", ai_workers=1, ai_timeout=60.0, limits=NO_LIMITS)
    server = app.state.server
    if not reachable:
        monkeypatch.setattr(server.pool, "_cancel", lambda refs: None)

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            creating = asyncio.ensure_future(http.post("/api/games", json={"seed": 3, "human": 1}))
            for _ in range(300):
                if _ray_tasks("hang"):
                    break
                await asyncio.sleep(0.1)
            assert _ray_tasks("hang") and not creating.done()
            started = time.monotonic()
            server.begin_shutdown()
            answer = await asyncio.wait_for(creating, 10)
            return answer, time.monotonic() - started

    try:
        answer, took = asyncio.run(main())
    finally:
        server.close()
        if not reachable:
            for pid in _ray_tasks("hang"):              # what the cancel would have done
                os.kill(pid, signal.SIGKILL)
    assert answer.status_code == 201 and took < 2, (answer.status_code, took)
    assert "shut down during the AI's turn" in answer.json()["ai_note"]
    assert _wait(lambda: not _ray_tasks("hang"), 10)
    assert ray.is_initialized()                      # the module's Ray is not this pool's to stop


def test_closing_the_pool_that_started_ray_stops_it(local_ray):
    """The module's last test: the pool that started the local Ray stops it when closed (its
    processes, children of this one, are gone); apps that joined it (above) left it running."""
    owner = local_ray[1]
    family = [p for p in descendants_of(os.getpid()) if "raylet" in _cmdline(p) or "gcs_server" in _cmdline(p)]
    assert family and ray.is_initialized()
    owner.close()
    assert not ray.is_initialized()
    assert _wait(lambda: not any(alive(p) for p in family), 10), [_cmdline(p)[:60] for p in family if alive(p)]
