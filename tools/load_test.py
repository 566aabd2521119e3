"""Load and crash test on loopback: N concurrent games against a real `ftc serve` process, each with
its own seat token, making up to D decisions (the AI answers in its worker pool).

Then the server is stopped: with SIGKILL in the middle of the load (`--crash`, the default) or with
SIGTERM after it (`--graceful`). A new server on the same database must hold every acknowledged
action: for each game, the last answer the client received is there (the same version and view, or
a later version whose answer the kill cut off, with that answer's log as a prefix), the database
passes PRAGMA integrity_check, and every game can go on. Prints latency percentiles, throughput,
acknowledged actions and "lost" (must be 0).

    python tools/load_test.py --games 50 --decisions 30 --bot greedy
    python tools/load_test.py --games 20 --crash-after 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, workers: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--port", str(port), "--db", db,
                             "--workers", str(workers), "--requests-per-second", "100000",
                             "--games-per-minute", "100000", "--games-per-client", "100000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}"


def contains(log: list, window: list) -> bool:
    """Whether ``window`` is a run of consecutive entries of ``log``."""
    n = len(window)
    return n == 0 or any(log[i:i + n] == window for i in range(len(log) - n + 1))


async def wait_up(http: httpx.AsyncClient) -> None:
    for _ in range(300):
        try:
            if (await http.get("/api/health")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("the server did not come up")


async def play(http, seed, decisions, bot, iterations, latencies, errors, acked, tokens, stopping):
    rng = random.Random(seed)
    start = time.perf_counter()
    try:
        r = await http.post("/api/games", json={"seed": seed, "supply": "random", "human": seed % 2,
                                                "ai": {"bot": bot, "iterations": iterations}})
    except httpx.TransportError:
        return
    latencies.append(time.perf_counter() - start)
    if r.status_code != 201:
        errors.append(f"create {seed}: {r.status_code} {r.text[:200]}")
        return
    view = r.json()
    token = tokens[view["id"]] = view.pop("token")
    acked[view["id"]] = view
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(decisions):
        if view["status"] == "over" or stopping.is_set():
            break
        start = time.perf_counter()
        try:
            if view["your_turn"]:
                body = {"action": rng.choice(view["actions"])["id"], "version": view["version"]}
                r = await http.post(f"/api/games/{view['id']}/actions", json=body, headers=headers)
            else:
                r = await http.post(f"/api/games/{view['id']}/ai", headers=headers)
        except httpx.TransportError:
            return                                   # cut off by the kill: not acknowledged
        latencies.append(time.perf_counter() - start)
        if r.status_code != 200:
            if not stopping.is_set():
                errors.append(f"game {view['id']}: {r.status_code} {r.text[:200]}")
            return
        view = r.json()
        acked[view["id"]] = view


async def main(args) -> int:
    db = os.path.join(tempfile.mkdtemp(), "load.sqlite3")
    proc, base = start_server(db, args.workers)
    latencies, errors, acked, tokens = [], [], {}, {}
    stopping = asyncio.Event()
    try:
        async with httpx.AsyncClient(base_url=base, timeout=300) as http:
            await wait_up(http)
            start = time.perf_counter()
            tasks = [asyncio.ensure_future(play(http, seed, args.decisions, args.bot, args.iterations, latencies,
                                                errors, acked, tokens, stopping)) for seed in range(args.games)]
            if args.graceful:
                await asyncio.gather(*tasks)
                proc.send_signal(signal.SIGTERM)
            else:
                await asyncio.wait(tasks, timeout=args.crash_after)
                stopping.set()
                proc.send_signal(signal.SIGKILL)     # no shutdown of any kind
                await asyncio.gather(*tasks)
            elapsed = time.perf_counter() - start
        proc.wait(30)
        connection = sqlite3.connect(db)
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
        stored = {row[0]: (row[1], json.loads(row[2])) for row in connection.execute("SELECT id, version, log FROM games")}
        connection.close()
        # A new server on the same database.
        proc, base = start_server(db, args.workers)
        lost = continued = 0
        async with httpx.AsyncClient(base_url=base, timeout=300) as http:
            await wait_up(http)
            for game_id, view in acked.items():
                headers = {"Authorization": f"Bearer {tokens[game_id]}"}
                now = (await http.get(f"/api/games/{game_id}", headers=headers)).json()
                # The acknowledged version is saved (or a later one whose answer the kill cut off),
                # and the log the answer showed (a view shows the last 200 entries) is in the store.
                version, log = stored[game_id]
                if version < view["version"] or not contains(log, view["log"]):
                    lost += 1
                if now["version"] == view["version"] and \
                        {k: v for k, v in now.items() if k != "thinking"} != {k: v for k, v in view.items() if k != "thinking"}:
                    lost += 1
                if now["status"] == "playing":
                    if now["your_turn"]:
                        r = await http.post(f"/api/games/{game_id}/actions", headers=headers,
                                            json={"action": now["actions"][0]["id"], "version": now["version"]})
                    else:
                        r = await http.post(f"/api/games/{game_id}/ai", headers=headers)
                    continued += r.status_code == 200
                else:
                    continued += 1
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)
    lat = sorted(latencies)
    actions = sum(v["version"] - 1 for v in acked.values())
    how = "SIGTERM after the load" if args.graceful else f"SIGKILL after {args.crash_after:.1f} s of load"
    print(f"games: {args.games} concurrent, {len(acked)} created, requests: {len(lat)}, errors: {len(errors)}; "
          f"stopped with {how}")
    print(f"acknowledged changes: {actions}, lost: {lost}, integrity_check: {integrity}, "
          f"games that went on after the restart: {continued}/{len(acked)}")
    if lat:
        print(f"latency p50 {statistics.median(lat) * 1000:.0f} ms, p95 {lat[int(0.95 * (len(lat) - 1))] * 1000:.0f} ms, "
              f"max {lat[-1] * 1000:.0f} ms; {len(lat) / elapsed:.1f} requests/s over {elapsed:.1f} s "
              f"(each answer includes the AI's reply)")
    for e in errors[:10]:
        print("error:", e)
    return 0 if not errors and not lost and integrity == "ok" and continued == len(acked) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--bot", default="greedy", choices=["greedy", "random", "ismcts"])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--crash-after", type=float, default=5.0, help="seconds of load before the SIGKILL")
    parser.add_argument("--graceful", action="store_true", help="finish the load, then SIGTERM (no crash)")
    sys.exit(asyncio.run(main(parser.parse_args())))
