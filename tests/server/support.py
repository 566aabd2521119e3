"""Helpers of the server tests (`from tests.server.support import ...`): games created through the API with their seat tokens, and real
server processes."""

import os
import signal
import socket
import subprocess
import time

import httpx

from tests.support import FTC, ROOT, child_env


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, **body):
    """Create a game; returns (view, token)."""
    body = {"seed": 5, "supply": "first-game", "ai": {"bot": "greedy"}, **body}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    view = response.json()
    return view, view.pop("token")


def act(client, view, token, action, expect=200):
    response = client.post(f"/api/games/{view['id']}/actions", json={"action": action, "version": view["version"]},
                           headers=auth(token))
    assert response.status_code == expect, response.text
    return response.json()


def play_some(client, view, token, decisions, rng):
    for _ in range(decisions):
        if view["status"] == "over":
            break
        view = act(client, view, token, rng.choice(view["actions"])["id"])
    return view


def record_commits(server) -> dict:
    """Keep every snapshot the server commits, by version (the true state behind each answer):
    ``server.commit`` is wrapped, so the tests can compare what was sent with what was hidden."""
    snapshots = {}
    commit = server.commit

    async def recording_commit(game, snap, clock=None):
        await commit(game, snap, clock)
        snapshots[snap.version] = snap

    server.commit = recording_commit
    return snapshots


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A real `ftc serve` in its own process (and process group), on loopback. ``db``: an SQLite file
    (--db) or a store URL (--store). ``command``: what runs ``ftc`` (the default: the real one).
    Once killed, ``output`` holds all it printed."""

    def __init__(self, db, *extra: str, workers: int = 1, command: list[str] = FTC):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            command + ["serve", "--port", str(self.port), "--store" if "://" in str(db) else "--db", str(db),
                       "--workers", str(workers),
                   "--requests-per-second", "100000", "--games-per-minute", "100000", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True, env=child_env(),
            cwd=ROOT)

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.proc.stdout.read()}")
            try:
                if httpx.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.kill()
        raise RuntimeError("the server did not come up within 60 s")

    def kill(self, sig=signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        if self.proc.stdout and not self.proc.stdout.closed:
            self.output = self.proc.stdout.read()
            self.proc.stdout.close()


def children_of(pid: int) -> list[int]:
    """Pids of the live processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def descendants_of(pid: int) -> list[int]:
    """Pids of the live processes below ``pid`` (children, their children, ...), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        below = parents.get(todo.pop(), [])
        found += below
        todo += below
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class ThreadServer:
    """``app`` served by real uvicorn, configured as ``ftc serve`` configures it (run.server_config:
    connection gate, header timeout, message sizes, trusted proxies), in a thread of this process on
    a loopback port: for tests that need the app's own objects or short limits."""

    def __init__(self, app, trusted_proxies=()):
        import threading

        import uvicorn

        from engine.interfaces.server.run import server_config

        self.app = app
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(server_config(app, trusted_proxies=trusted_proxies))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the app did not start")
            time.sleep(0.05)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


def assert_shows_log(shown: list, stored) -> None:
    """A view's log is ``stored`` (the viewer's own log) cut to its last 200 entries, entry by entry;
    a game's view may add to an entry what it derives from it (Crusade & Conquer's chess ``move``
    number), never change or drop what was stored."""
    kept = list(stored)[-200:]
    assert len(shown) == len(kept), (shown, kept)
    assert all(entry.items() >= was.items() for entry, was in zip(shown, kept)), (shown, kept)
