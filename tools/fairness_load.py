"""Whose time is the server's queue? A victim plays the easy AI on a clock while two other clients keep
the AI's workers full with long alpha-beta games (issue 40, item 2; docs/server.md "The AI's workers
and their queue").

Starts its own `ftc serve` on 127.0.0.1 (its own SQLite file in a temporary folder, `--workers` AI
workers), then:

1. the victim (from 127.0.0.4) plays For the Crown against the easy AI (`{"level": "easy"}`) with a
   `--base`-second clock, alone, for `--alone` seconds;
2. two other clients (127.0.0.2 and 127.0.0.3, each in a process of its own at nice 10: a load
   generator's own work is done on its own machine) start `--heavy-games` games each against
   `{"bot": "alphabeta", "seconds": --heavy-seconds}` and keep them going, so every AI worker is busy
   with long searches, while the victim plays on for `--loaded` seconds.

The victim plays each game to its end (a new one then), reading each answer for `--pause` seconds
before it acts. An "answer" is a request of the victim whose reply holds the AI's turn (the
version moved by more than the victim's own action): its time is what a player waits for the AI.
Prints, for the phase alone and the loaded one, the answers, their p50 and p95, the games played and
the flags: the AI's seat out of time (`ai flags`, which must be 0: the queue is never charged to a
seat) and the victim's own (`own flags`). Then the ratio of the loaded p95 to the unloaded one (the
goal: at most 2). `--out FILE` writes the numbers as JSON.

Everything is bounded (at most `--alone` + `--loaded` seconds of play, each at most 600; at most
`MAX_REQUESTS` requests of the victim), goes to 127.0.0.1 only, shows its progress every 5 s, stops by
itself and, on Ctrl-C, stops its clients and its server before it exits.

    python tools/fairness_load.py                          # 20 s alone, then 60 s loaded
    python tools/fairness_load.py --alone 10 --loaded 20   # a short run
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import httpx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tools.load_test import free_port  # noqa: E402

HOST = "127.0.0.1"                     # the only address this tool connects to
VICTIM = "127.0.0.4"                   # the clients' own loopback addresses: three clients to the server
HEAVY = ("127.0.0.2", "127.0.0.3")
#: The most requests the victim makes in one run.
MAX_REQUESTS = 20_000


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _quiet_child() -> None:
    """A client process leaves Ctrl-C to the tool, which stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _victim(base: str, seconds: float, clock_base: float, pause: float, out) -> None:
    """The victim: plays For the Crown against the easy AI on a clock for ``seconds``; sends back a
    list of events: ("answer", when, seconds, ai moved), ("game", when, over, ai flagged, own flag),
    ("error", when, text)."""
    _quiet_child()
    events: list[tuple] = []
    rng = random.Random(4)
    until = time.monotonic() + seconds
    body = {"ai": {"level": "easy"}, "supply": "first-game", "clock": {"base": clock_base, "increment": 0}}

    def finished(view: dict) -> None:
        over = str(view.get("over") or "")
        out_seats = (view.get("clock") or {}).get("out", [])
        seat = view.get("seat", 0)
        events.append(("game", time.time(), over, any(s != seat for s in out_seats), seat in out_seats))

    transport = httpx.HTTPTransport(local_address=VICTIM)
    with httpx.Client(base_url=base, transport=transport, timeout=300) as http:
        view, token, requests = None, None, 0
        while time.monotonic() < until and requests < MAX_REQUESTS:
            requests += 1
            if view is None or view["status"] == "over":
                if view is not None:
                    finished(view)
                answer = http.post("/api/games", json=body)
                if answer.status_code != 201:
                    events.append(("error", time.time(), f"new game: {answer.status_code} {answer.text[:120]}"))
                    time.sleep(1)
                    continue
                view = answer.json()
                token = view.pop("token")
                continue
            headers = {"Authorization": f"Bearer {token}"}
            time.sleep(pause)                              # the player reads the board
            started = time.perf_counter()
            if view["your_turn"]:
                answer = http.post(f"/api/games/{view['id']}/actions", headers=headers,
                                   json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
            else:
                answer = http.post(f"/api/games/{view['id']}/ai", headers=headers)
            took = time.perf_counter() - started
            if answer.status_code != 200:
                events.append(("error", time.time(), f"{answer.status_code} {answer.text[:120]}"))
                view = http.get(f"/api/games/{view['id']}", headers=headers).json()
                continue
            before = view["version"]
            view = answer.json()
            events.append(("answer", time.time(), took, view["version"] > before + 1))
        if view is not None and view["status"] == "over":
            finished(view)
    out.send(events)


def _heavy(base: str, address: str, games: int, seconds: float, ai_seconds: float, out) -> None:
    """One heavy client: ``games`` games at once against alpha-beta with ``ai_seconds`` a decision,
    each played on (a new one when it ends) for ``seconds``; sends back its answers' statuses."""
    _quiet_child()
    with contextlib.suppress(OSError):
        os.nice(10)
    import asyncio

    statuses: dict[str, int] = {}

    async def one(http: httpx.AsyncClient, until: float) -> None:
        rng = random.Random(address)
        while time.monotonic() < until:
            try:
                body = {"human": 1, "ai": {"bot": "alphabeta", "seconds": ai_seconds}}
                answer = await http.post("/api/games", json=body)
                statuses[str(answer.status_code)] = statuses.get(str(answer.status_code), 0) + 1
                if answer.status_code != 201:
                    await asyncio.sleep(1)
                    continue
                view = answer.json()
                headers = {"Authorization": f"Bearer {view.pop('token')}"}
                while time.monotonic() < until and view["status"] == "playing" and view["your_turn"]:
                    answer = await http.post(f"/api/games/{view['id']}/actions", headers=headers,
                                             json={"action": rng.choice(view["actions"])["id"],
                                                   "version": view["version"]})
                    statuses[str(answer.status_code)] = statuses.get(str(answer.status_code), 0) + 1
                    if answer.status_code != 200:
                        break
                    view = answer.json()
            except httpx.HTTPError as exc:
                statuses[type(exc).__name__] = statuses.get(type(exc).__name__, 0) + 1
                await asyncio.sleep(1)

    async def main() -> None:
        until = time.monotonic() + seconds
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(base_url=base, transport=transport, timeout=300) as http:
            tasks = [asyncio.create_task(one(http, until)) for _ in range(games)]
            await asyncio.wait(tasks, timeout=seconds)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    out.send(statuses)


def _phase_numbers(answers: list[tuple[float, float, bool]], games: list[tuple]) -> dict:
    ai = [took for _, took, moved in answers if moved]
    return {"answers": len(ai), "requests": len(answers), "p50": round(percentile(ai, 0.5), 4),
            "p95": round(percentile(ai, 0.95), 4), "max": round(max(ai, default=float("nan")), 4),
            "games": len(games), "ai_flags": sum(1 for g in games if g[2]), "own_flags": sum(1 for g in games if g[3])}


def run(args) -> int:
    port = free_port()
    folder = tempfile.mkdtemp(prefix="ftc-fairness-")
    server = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--host", HOST, "--port",
                               str(port), "--db", os.path.join(folder, "games.sqlite3"), "--workers",
                               str(args.workers), "--max-ai-seconds", str(args.heavy_seconds)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    base = f"http://{HOST}:{port}"
    context = multiprocessing.get_context("spawn")
    children: list = []
    events: list = []
    heavy_seen: list = []
    began = None
    try:
        with httpx.Client(base_url=base, timeout=5) as http:
            for _ in range(600):
                try:
                    if http.get("/api/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            else:
                raise SystemExit("the server did not come up within 60 s")
        total = args.alone + args.loaded
        victim_pipe, victim_ours = context.Pipe()
        victim = context.Process(target=_victim, args=(base, total, args.base, args.pause, victim_pipe))
        victim.start()
        children.append(victim)
        start = time.monotonic()
        print(f"server on {base} with {args.workers} AI workers; the victim ({VICTIM}) plays the easy AI "
              f"on a {args.base:g} s clock", flush=True)
        heavy_pipes = []
        while time.monotonic() - start < total and victim.is_alive():
            elapsed = time.monotonic() - start
            if began is None and elapsed >= args.alone:
                began = time.time()
                for address in HEAVY:
                    theirs, ours = context.Pipe()
                    heavy = context.Process(target=_heavy, args=(base, address, args.heavy_games, args.loaded,
                                                                 args.heavy_seconds, theirs))
                    heavy.start()
                    children.append(heavy)
                    heavy_pipes.append(ours)
                print(f"{elapsed:5.0f} s: two clients ({', '.join(HEAVY)}) start {args.heavy_games} alpha-beta games "
                      f"each ({args.heavy_seconds:g} s a decision)", flush=True)
            time.sleep(min(5.0, max(0.1, (args.alone if began is None else total) - elapsed)))
            print(f"{time.monotonic() - start:5.0f} s: {'loaded' if began is not None else 'alone'}", flush=True)
        print("waiting for the victim's last answer", flush=True)
        if victim_ours.poll(360):
            events = victim_ours.recv()
        for pipe in heavy_pipes:
            if pipe.poll(60):
                heavy_seen.append(pipe.recv())
    except KeyboardInterrupt:
        print("stopped (Ctrl-C): stopping the clients and the server", flush=True)
    finally:
        for child in children:
            if child.is_alive():
                child.terminate()
            child.join(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            output = server.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            output = server.communicate()[0]
        shutil.rmtree(folder, ignore_errors=True)
    if not events:
        print("no results (the victim did not report)")
        return 1
    began = began or float("inf")
    answers = [e[1:] for e in events if e[0] == "answer"]
    games = [e[1:] for e in events if e[0] == "game"]
    errors = [e[2] for e in events if e[0] == "error"]
    numbers = {
        "alone": _phase_numbers([(at, t, m) for at, t, m in answers if at < began], [g for g in games if g[0] < began]),
        "loaded": _phase_numbers([(at, t, m) for at, t, m in answers if at >= began],
                                 [g for g in games if g[0] >= began]),
    }
    numbers["ratio_p95"] = round(numbers["loaded"]["p95"] / numbers["alone"]["p95"], 2) \
        if numbers["alone"]["p95"] > 0 else None
    numbers["settings"] = {"workers": args.workers, "alone": args.alone, "loaded": args.loaded, "base": args.base,
                           "heavy_games": args.heavy_games, "heavy_seconds": args.heavy_seconds, "pause": args.pause}
    numbers["heavy_statuses"] = heavy_seen
    numbers["errors"] = len(errors)
    for phase in ("alone", "loaded"):
        n = numbers[phase]
        print(f"victim {phase:6}: {n['answers']:4} AI answers, p50 {n['p50']:.3f} s, p95 {n['p95']:.3f} s, "
              f"max {n['max']:.3f} s; {n['games']} games over, ai flags {n['ai_flags']}, own flags {n['own_flags']}")
    print(f"loaded p95 / alone p95: {numbers['ratio_p95']} (the goal: at most 2); ai flags must be 0")
    print(f"the heavy clients' answers: {heavy_seen}")
    print(f"server log: {len(output.splitlines())} lines, tracebacks: {output.count('Traceback')}")
    if errors:
        print(f"victim errors: {len(errors)} (first: {errors[0]})")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(numbers, f, indent=1)
            f.write("\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alone", type=float, default=20.0, help="seconds the victim plays alone (default 20)")
    parser.add_argument("--loaded", type=float, default=60.0, help="seconds it plays while the others load the AI "
                                                                   "(default 60)")
    parser.add_argument("--workers", type=int, default=2, help="the server's AI workers (default 2)")
    parser.add_argument("--base", type=float, default=15.0, help="the victim's clock, seconds a player (default 15)")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds the victim reads each answer (default 0.05)")
    parser.add_argument("--heavy-games", type=int, default=2, help="games each heavy client keeps going (default 2)")
    parser.add_argument("--heavy-seconds", type=float, default=10.0,
                        help="alpha-beta's seconds a decision in the heavy games (default 10)")
    parser.add_argument("--out", help="write the numbers as JSON to this file")
    args = parser.parse_args()
    if not (0 < args.alone <= 600 and 0 < args.loaded <= 600):
        parser.error("--alone and --loaded: more than 0, at most 600 seconds")
    if not (1 <= args.workers <= 16 and 1 <= args.heavy_games <= 8 and 0 < args.heavy_seconds <= 60):
        parser.error("--workers 1..16, --heavy-games 1..8, --heavy-seconds more than 0, at most 60")
    if not (15 <= args.base <= 10800 and 0 <= args.pause <= 10):
        parser.error("--base 15..10800 seconds (the server's least clock), --pause 0..10")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
