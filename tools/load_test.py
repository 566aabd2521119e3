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

``--instances`` runs, side by side in one run, one instance on SQLite and two instances on one
PostgreSQL (docs/server.md "Several instances"; a throwaway PostgreSQL like the tests', or the empty
database ``--pg-url`` names): N concurrent games of mixed games (crown, kings-ransom, crusade,
crownfall) and seats, the AI (greedy) answering, each game's client on one instance; in the middle of
the PostgreSQL run one instance is killed with SIGKILL and its clients go on on the other. A 503
(the store's queue of writes is full) is waited out as a client would (Retry-After) and counted;
an error is a request the client could not get through. It reports
requests/s, latency p50/p95, errors and acknowledged actions lost (every acknowledged version and its
log checked against the database at the end) as a table and as JSON (``--out``, default
docs/results/instances_load.json):

    python tools/load_test.py --instances --games 500 --decisions 12
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


# -- several instances: one on SQLite vs two on PostgreSQL ---------------------------------------------
GAMES = ("crown", "kings-ransom", "crusade", "crownfall")
#: Games played from one loopback address (the server's per-client connection cap is 64).
CLIENTS_PER_ADDRESS = 25
#: 503 answers (the store's queue of writes is full: "the database is busy") a client waits out
#: (Retry-After) before it counts the request as an error.
BUSY_RETRIES = 30
#: Attempts of a request whose connection fails while its instance lives (then an error).
TRANSPORT_RETRIES = 10


def start_instance(store: str, workers: int) -> tuple[subprocess.Popen, str]:
    """An `ftc serve` on ``store`` (a path or a URL) with the per-client limits out of the way (every
    client of the load is one address)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--port", str(port),
                             "--store" if "://" in store else "--db", store, "--workers", str(workers),
                             "--requests-per-second", "100000", "--games-per-minute", "100000",
                             "--games-per-client", "100000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}"


async def client_game(http, bases: list[str], alive, seed: int, decisions: int, stats: dict) -> None:
    """One game: created on ``bases[0]`` and played there. A transport failure is retried on the same
    instance while it lives (a request names its version: applied at most once) and moves the
    client to the next base once its instance is dead; there it reloads the game and goes on."""
    rng = random.Random(seed)
    bases = list(bases)
    name = GAMES[seed % len(GAMES)]
    body = {"game": name, "human": seed % 2, "ai": {"spec": "greedy"}}

    async def call(method: str, path: str, **kw):
        """The answer, or None when the client had to move to another instance."""
        attempt = busy = 0
        start = time.perf_counter()                     # a request's latency includes its waits and retries
        while True:
            attempt += 1
            try:
                r = await http.request(method, bases[0] + path, **kw)
            except httpx.TransportError:
                if alive(bases[0]):                     # a dropped connection: retry, backing off
                    stats["retries"] += 1
                    if attempt >= TRANSPORT_RETRIES:
                        raise
                    await asyncio.sleep(0.25 * attempt)
                    continue
                if len(bases) == 1:
                    raise
                stats["failovers"] += 1
                bases.pop(0)
                return None
            if r.status_code == 503 and busy < BUSY_RETRIES:   # the store's back-pressure: as a client would,
                busy += 1                                      # wait Retry-After (with jitter) and retry
                stats["busy"] += 1
                await asyncio.sleep(float(r.headers.get("retry-after", "1")) * (0.5 + rng.random()))
                continue
            stats["latencies"].append(time.perf_counter() - start)
            return r

    try:
        r = await call("POST", "/api/games", json=body)
        if r is None:
            r = await call("POST", "/api/games", json=body)
        if r is None or r.status_code != 201:
            stats["errors"].append(f"create {name}: {r.status_code if r else 'no answer'} {r.text[:200] if r else ''}")
            return
        view = r.json()
        token = view.pop("token")
        stats["acked"][view["id"]] = view
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(decisions):
            if view["status"] == "over":
                return
            if view["your_turn"]:
                r = await call("POST", f"/api/games/{view['id']}/actions", headers=headers,
                               json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
            else:
                r = await call("POST", f"/api/games/{view['id']}/ai", headers=headers)
            # Failed over (None), or a retried action that was applied (409): the game's view now.
            while r is None or r.status_code == 409:
                stats["conflicts"] += r is not None
                r = await call("GET", f"/api/games/{view['id']}", headers=headers)
            if r is None or r.status_code != 200:
                stats["errors"].append(f"{name} {view['id']}: {r.status_code if r else 'no answer'} "
                                       f"{r.text[:200] if r else ''}")
                return
            view = r.json()
            stats["acked"][view["id"]] = view
    except httpx.HTTPError as exc:
        stats["errors"].append(f"{name}: {type(exc).__name__} {exc}")


def stored_games(store: str) -> dict:
    """game id -> (version, log) as the database holds them."""
    if "://" in store:
        import psycopg

        with psycopg.connect(store) as conn:
            rows = conn.execute("SELECT id, version, log FROM games").fetchall()
    else:
        conn = sqlite3.connect(store)
        rows = conn.execute("SELECT id, version, log FROM games").fetchall()
        conn.close()
    return {row[0]: (row[1], json.loads(row[2])) for row in rows}


def lost_actions(acked: dict, stored: dict) -> int:
    """Acknowledged answers the database does not hold: a lower version, or the answer's log missing."""
    lost = 0
    for game_id, view in acked.items():
        version, log = stored.get(game_id, (0, []))
        if version < view["version"] or (version == view["version"] and not contains(log, view["log"])):
            lost += 1
    return lost


async def run_config(label: str, stores: list[str], games: int, decisions: int, workers: int,
                     kill_after: float | None) -> dict:
    """One configuration: an instance per entry of ``stores`` (the same database), the games spread
    over them; with ``kill_after``, the first instance is killed -9 after that many seconds."""
    procs = [start_instance(store, workers) for store in stores]
    stats = {"latencies": [], "errors": [], "acked": {}, "failovers": 0, "retries": 0, "busy": 0, "conflicts": 0}
    by_base = {base: proc for proc, base in procs}
    # The clients come from several loopback addresses (127.0.0.2, ...), CLIENTS_PER_ADDRESS games
    # each, so that no address reaches the server's per-client connection cap (64).
    addresses = (games + CLIENTS_PER_ADDRESS - 1) // CLIENTS_PER_ADDRESS
    https = [httpx.AsyncClient(timeout=300, transport=httpx.AsyncHTTPTransport(local_address=f"127.0.0.{k + 2}"),
                               limits=httpx.Limits(max_connections=CLIENTS_PER_ADDRESS + 4))
             for k in range(addresses)]
    try:
        for _, base in procs:
            for _ in range(600):
                try:
                    if (await https[0].get(base + "/api/health")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        bases = [base for _, base in procs]
        start = time.perf_counter()
        tasks = [asyncio.ensure_future(client_game(https[i // CLIENTS_PER_ADDRESS],
                                                   bases[i % len(bases):] + bases[:i % len(bases)],
                                                   lambda base: by_base[base].poll() is None, i, decisions, stats))
                 for i in range(games)]
        killed_at = None
        if kill_after is not None:
            await asyncio.wait(tasks, timeout=kill_after)
            procs[0][0].send_signal(signal.SIGKILL)
            procs[0][0].wait(30)
            killed_at = time.perf_counter() - start
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
    finally:
        for http in https:
            await http.aclose()
        for proc, _ in procs:
            if proc.poll() is None:
                proc.terminate()
            proc.wait(30)
    lat = sorted(stats["latencies"])
    acked = stats["acked"]
    return {"config": label, "instances": len(stores), "games": games, "created": len(acked),
            "requests": len(lat), "seconds": round(elapsed, 1), "requests_per_second": round(len(lat) / elapsed, 1),
            "p50_ms": round(statistics.median(lat) * 1000) if lat else None,
            "p95_ms": round(lat[int(0.95 * (len(lat) - 1))] * 1000) if lat else None,
            "errors": len(stats["errors"]), "error_samples": stats["errors"][:5],
            "acknowledged_versions": sum(v["version"] for v in acked.values()),
            "lost": lost_actions(acked, stored_games(stores[0])),
            "killed_after_seconds": None if killed_at is None else round(killed_at, 1),
            "failovers": stats["failovers"], "retries": stats["retries"], "busy_503_retried": stats["busy"],
            "conflicts_409": stats["conflicts"], "games_by_kind": {name: sum(1 for i in range(games) if GAMES[i % 4] == name)
                                                               for name in GAMES}}


async def compare(args) -> int:
    folder = tempfile.mkdtemp()
    cluster = None
    if args.pg_url:
        pg_url = args.pg_url
    else:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from tests.server.postgres import PostgresCluster

        cluster = PostgresCluster()
        pg_url = cluster.database()
    try:
        results = [await run_config("1 instance, SQLite", [os.path.join(folder, "load.sqlite3")], args.games,
                                    args.decisions, args.workers, None),
                   await run_config("2 instances, PostgreSQL, one killed -9", [pg_url, pg_url], args.games,
                                    args.decisions, args.workers, args.kill_after)]
    finally:
        if cluster is not None:
            cluster.close()
    header = f"{'configuration':42} {'games':>5} {'requests':>8} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} " \
             f"{'errors':>6} {'acked':>6} {'lost':>4} {'failovers':>9} {'503s':>5}"
    lines = [header] + [f"{r['config']:42} {r['created']:>5} {r['requests']:>8} {r['requests_per_second']:>7} "
                        f"{r['p50_ms']:>7} {r['p95_ms']:>7} {r['errors']:>6} {r['acknowledged_versions']:>6} "
                        f"{r['lost']:>4} {r['failovers']:>9} {r['busy_503_retried']:>5}" for r in results]
    print("\n".join(lines))
    for r in results:
        for e in r["error_samples"]:
            print(f"error ({r['config']}): {e}")
    report = {"games": args.games, "decisions": args.decisions, "workers": args.workers, "kill_after": args.kill_after,
              "mix": list(GAMES), "bot": "greedy", "cpus": os.cpu_count(), "results": results, "table": lines}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    print(f"written: {args.out}")
    return 0 if all(r["errors"] == 0 and r["lost"] == 0 for r in results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--bot", default="greedy", choices=["greedy", "random", "ismcts"])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--crash-after", type=float, default=5.0, help="seconds of load before the SIGKILL")
    parser.add_argument("--graceful", action="store_true", help="finish the load, then SIGTERM (no crash)")
    parser.add_argument("--instances", action="store_true",
                        help="one instance on SQLite vs two on PostgreSQL (one killed -9 mid-load), side by side")
    parser.add_argument("--pg-url", help="--instances: an empty PostgreSQL database (default: a throwaway server)")
    parser.add_argument("--kill-after", type=float, default=10.0, help="--instances: seconds before the kill -9")
    parser.add_argument("--out", default=os.path.join("docs", "results", "instances_load.json"))
    parsed = parser.parse_args()
    sys.exit(asyncio.run(compare(parsed) if parsed.instances else main(parsed)))
