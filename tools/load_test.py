"""Load test on loopback: N concurrent games against a real `ftc serve` process, each making D
decisions (the AI answers in its worker pool). Checks every answer, then that every game reloads
with the same version and view; prints latency percentiles and throughput.

    python tools/load_test.py --games 50 --decisions 30 --bot greedy
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
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


async def play(http, seed, decisions, bot, iterations, latencies, errors):
    rng = random.Random(seed)
    start = time.perf_counter()
    r = await http.post("/api/games", json={"seed": seed, "supply": "random", "human": seed % 2,
                                            "ai": {"bot": bot, "iterations": iterations}})
    latencies.append(time.perf_counter() - start)
    if r.status_code != 201:
        errors.append(f"create {seed}: {r.status_code} {r.text[:200]}")
        return None
    view = r.json()
    for _ in range(decisions):
        if view["status"] == "over":
            break
        action = rng.choice(view["actions"])["id"]
        start = time.perf_counter()
        r = await http.post(f"/api/games/{view['id']}/actions", json={"action": action, "version": view["version"]})
        latencies.append(time.perf_counter() - start)
        if r.status_code != 200:
            errors.append(f"game {view['id']}: {r.status_code} {r.text[:200]}")
            return None
        view = r.json()
    return view


async def main(args) -> int:
    port = free_port()
    db = os.path.join(tempfile.mkdtemp(), "load.sqlite3")
    proc = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--port", str(port), "--db", db,
                             "--workers", str(args.workers)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=300) as http:
            for _ in range(100):
                try:
                    await http.get("/openapi.json")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            latencies, errors = [], []
            start = time.perf_counter()
            views = await asyncio.gather(*(play(http, seed, args.decisions, args.bot, args.iterations, latencies, errors)
                                           for seed in range(args.games)))
            elapsed = time.perf_counter() - start
            lost = 0
            for view in views:
                if view is None:
                    continue
                again = (await http.get(f"/api/games/{view['id']}")).json()
                if again["version"] != view["version"] or again["observation"] != view["observation"]:
                    lost += 1
        proc.terminate()
        proc.wait(10)
        # Restart on the same database: every game must come back exactly.
        port2 = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--port", str(port2), "--db", db],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port2}", timeout=60) as http:
            for _ in range(100):
                try:
                    await http.get("/openapi.json")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            resumed = 0
            for view in views:
                if view is None:
                    continue
                again = (await http.get(f"/api/games/{view['id']}")).json()
                resumed += again == view
    finally:
        proc.terminate()
    ok = [v for v in views if v is not None]
    lat = sorted(latencies)
    print(f"games: {args.games} concurrent, {len(ok)} completed, requests: {len(lat)}, errors: {len(errors)}, "
          f"lost state: {lost}, resumed identically after restart: {resumed}/{len(ok)}")
    if lat:
        print(f"latency p50 {statistics.median(lat) * 1000:.0f} ms, p95 {lat[int(0.95 * (len(lat) - 1))] * 1000:.0f} ms, "
              f"max {lat[-1] * 1000:.0f} ms; {len(lat) / elapsed:.1f} requests/s over {elapsed:.1f} s "
              f"(each answer includes the AI's reply)")
    for e in errors[:10]:
        print("error:", e)
    return 0 if not errors and not lost and resumed == len(ok) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--bot", default="greedy", choices=["greedy", "random", "ismcts"])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    sys.exit(asyncio.run(main(parser.parse_args())))
