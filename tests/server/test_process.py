"""The server as a real process (`ftc serve`): killed with SIGKILL under load it loses no
acknowledged action and leaves a sound database; its AI workers die with it; SIGTERM and SIGINT end
it promptly (exit status 0), with every descendant, even with a WebSocket client that went silent
or the AI in the middle of a turn; a bad --db is a one-line error before anything is served."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import httpx
import pytest

from tests.server.support import ServerProcess, alive, auth, children_of, descendants_of
from tests.support import FTC, ROOT, child_env

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process checks read /proc")


def _wait_gone(pids, seconds=10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def _create(base, seed, human=0):
    r = httpx.post(base + "/api/games", json={"seed": seed, "human": human, "supply": "random",
                                              "ai": {"bot": "greedy"}}, timeout=60)
    assert r.status_code == 201, r.text
    view = r.json()
    return view, view.pop("token")


def _stored(db) -> dict:
    """game id -> (version, log) as the database holds them, after its own soundness check."""
    if "://" in str(db):
        import psycopg

        from engine.interfaces.server.store import open_store

        store = open_store(db)
        assert store.integrity_check() == "ok"
        store.close()
        connection = psycopg.connect(db)
    else:
        connection = sqlite3.connect(db)
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {row[0]: (row[1], json.loads(row[2])) for row in connection.execute("SELECT id, version, log FROM games")}
    connection.close()
    return stored


def test_kill_9_under_load_loses_no_acknowledged_action(store_url):
    """On SQLite and on PostgreSQL (`ftc serve --store postgresql://...`): the server process is
    killed, the database server goes on."""
    db = store_url
    server = ServerProcess(db, workers=2)
    acked: dict[str, dict] = {}                  # game id -> the last view the server acknowledged
    tokens: dict[str, str] = {}
    stop = threading.Event()
    errors: list[str] = []

    def player(seed):
        import random

        rng = random.Random(seed)
        try:
            view, token = _create(server.base, seed, human=seed % 2)
        except Exception as exc:                 # noqa: BLE001 - the kill may land here
            if not stop.is_set():
                errors.append(f"create: {exc}")
            return
        tokens[view["id"]], acked[view["id"]] = token, view
        with httpx.Client(base_url=server.base, headers=auth(token), timeout=60) as http:
            while not stop.is_set() and view["status"] == "playing":
                try:
                    if not view["your_turn"]:
                        r = http.post(f"/api/games/{view['id']}/ai")
                    else:
                        r = http.post(f"/api/games/{view['id']}/actions",
                                      json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
                except httpx.HTTPError:
                    return                       # the server was killed mid-request: not acknowledged
                if r.status_code != 200:
                    if not stop.is_set():
                        errors.append(f"{view['id']}: {r.status_code} {r.text[:200]}")
                    return
                view = r.json()
                acked[view["id"]] = view

    threads = [threading.Thread(target=player, args=(seed,)) for seed in range(8)]
    for t in threads:
        t.start()
    time.sleep(4.0)
    stop.set()
    server.kill(signal.SIGKILL)                  # no shutdown of any kind
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert len(acked) == 8 and sum(v["version"] for v in acked.values()) > 8 * 3
    stored = _stored(db)

    again = ServerProcess(db, workers=1)
    try:
        lost = 0
        for game_id, view in acked.items():
            r = httpx.get(f"{again.base}/api/games/{game_id}", headers=auth(tokens[game_id]), timeout=60)
            assert r.status_code == 200, r.text
            now = r.json()
            # Every acknowledged change is there: the same version (or a later one that was saved
            # but whose answer the kill cut off), and the log the answer showed (a view shows the
            # last 200 entries) stands in the stored log.
            version, log = stored[game_id]
            if version < view["version"] or not _contains(log, view["log"]):
                lost += 1
            if now["version"] == view["version"]:
                assert {k: v for k, v in now.items() if k != "thinking"} == {k: v for k, v in view.items() if k != "thinking"}
            # Every game goes on: the player's action is taken, or the AI's turn is played (by this
            # request, or by the new server's takeover of the turn the kill interrupted, which may
            # come between the read and the request: then /ai is refused, 409, and the next read
            # shows the turn played).
            for _ in range(5):
                if now["status"] != "playing":
                    break
                path = "actions" if now["your_turn"] else "ai"
                body = {"action": now["actions"][0]["id"], "version": now["version"]} if now["your_turn"] else None
                r = httpx.post(f"{again.base}/api/games/{game_id}/{path}", json=body, headers=auth(tokens[game_id]),
                               timeout=60)
                if r.status_code == 200:
                    break
                assert r.status_code == 409 and path == "ai", r.text
                later = httpx.get(f"{again.base}/api/games/{game_id}", headers=auth(tokens[game_id]), timeout=60).json()
                assert later["version"] > now["version"], "the AI's turn was refused and not played by the takeover"
                now = later
            else:
                raise AssertionError(f"game {game_id} did not go on")
        assert lost == 0
    finally:
        again.kill(signal.SIGTERM)
    from tests.server.postgres import PASSWORD

    assert PASSWORD not in server.output + again.output and "Traceback" not in again.output


def _contains(log: list, window: list) -> bool:
    """Whether ``window`` is a run of consecutive entries of ``log``."""
    n = len(window)
    return n == 0 or any(log[i:i + n] == window for i in range(len(log) - n + 1))


def test_ai_workers_die_with_a_killed_server(tmp_path):
    server = ServerProcess(tmp_path / "g.sqlite3", workers=2)
    try:
        _create(server.base, 1, human=1)        # the AI moves first: its workers start
        children = children_of(server.proc.pid)
        assert children, "the AI workers should be running"
    finally:
        server.kill(signal.SIGKILL)
    assert _wait_gone(children) == []


#: `ftc serve` whose AI never answers (tests.server.faulty_ai.hang_and_tell, run in the real worker
#: processes): a signal always finds the AI thinking, and the file FTC_TEST_AI_THINKING names says
#: when a turn has reached the worker.
HANGING_AI = [sys.executable, "-c", "import sys; from engine.interfaces.server import core; "
              "from tests.server import faulty_ai; core.ai_turn = faulty_ai.hang_and_tell; "
              "from engine.interfaces.cli import main; sys.exit(main(sys.argv[1:]))"]


def _signal(server, sig) -> None:
    """SIGINT as a terminal's Ctrl-C sends it (to the whole process group), SIGTERM as `kill` does."""
    if sig == signal.SIGINT:
        os.killpg(server.proc.pid, sig)
    else:
        server.proc.send_signal(sig)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_server_and_every_descendant_even_with_a_silent_websocket(tmp_path, sig):
    """The documented exit: status 0 after the shutdown a signal asks for (engine/interfaces/server/run.py)."""
    from websockets.sync.client import connect

    server = ServerProcess(tmp_path / "g.sqlite3", workers=2)
    view, token = _create(server.base, 2, human=1)          # the AI moves first: it thinks once, in a worker
    assert view["version"] == 2 and view["your_turn"], view
    with connect(f"ws://127.0.0.1:{server.port}/api/games/{view['id']}/ws", additional_headers=auth(token)) as ws:
        assert json.loads(ws.recv(timeout=10))["id"] == view["id"]
        family = descendants_of(server.proc.pid)            # the AI worker and multiprocessing's resource tracker
        assert len(family) >= 2, family
        # The client now goes silent: it never reads or answers again.
        started = time.monotonic()
        _signal(server, sig)
        try:
            code = server.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill(signal.SIGKILL)
            pytest.fail(f"the server ignored {sig.name} for 20 s")
        took = time.monotonic() - started
    output = server.proc.stdout.read()
    server.proc.stdout.close()
    assert code == 0, output
    assert took < 4, f"{sig.name}: the server took {took:.1f} s to stop"
    assert _wait_gone(family) == [], output
    assert f"ftc-engine stopped ({sig.name})" in output and "Traceback" not in output
    assert "leaked" not in output and "ERROR" not in output, output


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_the_ai_thinks_answers_the_request_and_ends_everything(tmp_path, monkeypatch, sig):
    """A turn being computed does not hold the shutdown up: its worker is killed at once, the
    waiting request is answered (the game stays before the AI's turn, with a note) and the
    server exits with every descendant, well before uvicorn's grace period would end."""
    thinking = tmp_path / "thinking"
    monkeypatch.setenv("FTC_TEST_AI_THINKING", str(thinking))
    server = ServerProcess(tmp_path / "g.sqlite3", workers=1, command=HANGING_AI)
    answers: list = []

    def create():
        try:
            answers.append(httpx.post(server.base + "/api/games", json={"seed": 4, "human": 1, "supply": "random"},
                                      timeout=60))
        except httpx.HTTPError as exc:
            answers.append(exc)

    asking = threading.Thread(target=create)
    asking.start()
    deadline = time.monotonic() + 60
    while not thinking.exists() and time.monotonic() < deadline:      # the worker has the turn
        time.sleep(0.05)
    family = descendants_of(server.proc.pid)
    assert len(family) >= 2 and not answers, (family, answers)
    started = time.monotonic()
    _signal(server, sig)
    if sig == signal.SIGINT:                # an impatient user presses Ctrl-C twice: it changes nothing
        time.sleep(0.05)
        _signal(server, sig)
    try:
        code = server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill(signal.SIGKILL)
        pytest.fail(f"the server ignored {sig.name} for 20 s")
    took = time.monotonic() - started
    asking.join(timeout=30)
    output = server.proc.stdout.read()
    server.proc.stdout.close()
    assert code == 0 and took < 3, (code, took, output)
    assert _wait_gone(family) == [], output
    [answer] = answers
    assert isinstance(answer, httpx.Response) and answer.status_code == 201, answer
    view = answer.json()
    assert view["version"] == 1 and not view["your_turn"] and "shut down during the AI's turn" in view["ai_note"]
    assert "Traceback" not in output and "leaked" not in output and "ERROR" not in output, output


def _folder(p):
    return p


def _under_a_file(p):
    (p / "file").write_text("x")
    return p / "file" / "games.sqlite3"


def _not_sqlite(p):
    (p / "junk.sqlite3").write_bytes(b"this is not a database" * 100)
    return p / "junk.sqlite3"


@pytest.mark.parametrize("make_db, message", [
    (_folder, "is a folder"), (_under_a_file, "not a folder"), (_not_sqlite, "not a database"),
])
def test_a_bad_db_path_is_a_one_line_error(tmp_path, make_db, message):
    db = make_db(tmp_path)
    result = subprocess.run(FTC + ["serve", "--db", str(db), "--port", "0"], capture_output=True, text=True,
                            timeout=60, env=child_env(), cwd=ROOT)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and not result.stdout
    assert result.stderr.startswith("ftc: error: serve: ") and str(db) in result.stderr and message in result.stderr
