"""Probe a real `ftc serve` on loopback as an attacker would, and print each probe with its answer.

Starts its own server (own database in a temporary folder), runs the probes, stops it. Every
answer must be a 4xx with a reason (or the documented success); a 500 or a traceback fails the run.

    python tools/probe_server.py
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from load_test import free_port  # noqa: E402


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def main() -> int:
    port = free_port()
    db = os.path.join(tempfile.mkdtemp(), "probe.sqlite3")
    proc = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--port", str(port), "--db", db,
                             "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    rows: list[tuple[str, str]] = []
    bad = 0

    def note(probe: str, response: httpx.Response | str) -> None:
        nonlocal bad
        if isinstance(response, str):
            rows.append((probe, response))
            return
        text = response.text
        if response.status_code >= 500 or "Traceback" in text:
            bad += 1
        rows.append((probe, f"{response.status_code} {text[:110]}"))

    try:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            for _ in range(300):
                try:
                    await http.get("/api/health")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            created = (await http.post("/api/games", json={"seed": 1, "ai": {"bot": "greedy"}})).json()
            gid, token = created["id"], created["token"]
            other = (await http.post("/api/games", json={"seed": 2, "ai": {"bot": "greedy"}})).json()
            mine = {"Authorization": f"Bearer {token}"}
            theirs = {"Authorization": f"Bearer {other['token']}"}
            note("GET /api/games (the old global list)", await http.get("/api/games"))
            note("GET a game without a token", await http.get(f"/api/games/{gid}"))
            note("GET a game with another game's token", await http.get(f"/api/games/{gid}", headers=theirs))
            note("GET an unknown id with a valid token", await http.get("/api/games/0123456789abcdef", headers=mine))
            note("POST resign with another game's token", await http.post(f"/api/games/{gid}/resign", headers=theirs))
            note("GET record while playing", await http.get(f"/api/games/{gid}/record", headers=mine))
            raw = {"content-type": "application/json"}
            for label, body in [
                ("seed: NaN", b'{"seed": NaN}'), ("seed: Infinity", b'{"seed": Infinity}'),
                ("seed: 1e999", b'{"seed": 1e999}'), ('supply: "\\ud800"', b'{"supply": "\\ud800"}'),
                ("a 5000-digit number", b'{"seed": ' + b"9" * 5000 + b"}"),
                ("5000 nested arrays", b"[" * 5000 + b"]" * 5000), ("invalid UTF-8", b"\xff\xfe{}"),
                ("extra_units [[1,2],[]]", b'{"options": {"extra_units": [[1, 2], []]}}'),
                ('start_position "garbage"', b'{"variant": "point-buy", "options": {"start_position": "garbage"}}'),
                ("defender_gold 1.5", b'{"variant": "last-stand", "options": {"defender_gold": 1.5}}'),
                ("max_turns 1e308", b'{"options": {"max_turns": 1e308}}'),
                ("extra_turns [1.5, 0]", b'{"options": {"extra_turns": [1.5, 0]}}'),
                ("a 65 KiB body", b" " * (65 * 1024 + 1)),
            ]:
                note(f"POST /api/games {label}", await http.post("/api/games", content=body, headers=raw))
            view = (await http.get(f"/api/games/{gid}", headers=mine)).json()
            done = next(a["id"] for a in view["actions"] if a["fields"]["type"] == "done")
            note("POST an action without version",
                 await http.post(f"/api/games/{gid}/actions", json={"action": done}, headers=mine))
            answers = await asyncio.gather(*(http.post(f"/api/games/{gid}/actions", headers=mine,
                                                       json={"action": done, "version": view["version"]})
                                             for _ in range(20)))
            codes = sorted(r.status_code for r in answers)
            rows.append(("the same action 20 times at once", f"{codes.count(200)} x 200, {codes.count(409)} x 409"))
            before = rss_mib(proc.pid)
            start = time.perf_counter()
            statuses = []
            for _ in range(3000):
                statuses.append((await http.post("/api/games", json={"ai": {"bot": "random"}})).status_code)
            elapsed = time.perf_counter() - start
            rows.append(("3,000 game creations from one client",
                         f"{statuses.count(201)} x 201, {statuses.count(429)} x 429 in {elapsed:.1f} s; "
                         f"server memory {before:.0f} -> {rss_mib(proc.pid):.0f} MiB"))
            from websockets.asyncio.client import connect

            async with connect(f"ws://127.0.0.1:{port}/api/games/{gid}/ws") as ws:
                await ws.send(json.dumps({"token": other["token"]}))
                try:
                    await ws.recv()
                    rows.append(("WebSocket with another game's token", "answered (WRONG)"))
                    bad += 1
                except Exception as exc:                     # noqa: BLE001 - the close is the answer
                    rows.append(("WebSocket with another game's token", f"closed {getattr(exc, 'rcvd', exc)}"))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    width = max(len(r[0]) for r in rows)
    for probe, answer in rows:
        print(f"{probe:<{width}}  {answer}")
    print(f"probes: {len(rows)}, 5xx or tracebacks: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
