"""A bounded mixed attack on a real `ftc serve` on loopback, while a second client plays normally.

Starts its own server (own database in a temporary folder, the default limits), lets a normal
client play (level `normal`, from 127.0.0.2) alone for `--baseline` seconds, then for `--seconds`
more while one attacking client (127.0.0.1) runs every attack of issue 23 at once:

- big bodies: JSON of the record limit's size (many tiny values, and one long text) to
  /api/analysis/record, and 60 KB bodies announced to a game's actions without its token;
- slow-loris: connections that send a request head a few bytes at a time (at most `--slow`);
- WebSocket floods: game sockets that connect and leave, or send a large first message; analysis
  sockets that ask for the longest search;
- forged files: the four crafted position views of the issue;
- X-Forwarded-For rotation: new games, each claiming another address;
- AI-heavy requests: two games with `{"bot": "alphabeta", "seconds": 40}` asked to move, and hints.

Everything is bounded in count and time, goes to 127.0.0.1 only and stops by itself (the server is
stopped with SIGTERM at the end). Prints the normal client's answer times (p50, p95, max) unloaded
and loaded, their ratio, and what the attacks were answered.

    python tools/attack_mix.py                      # 20 s alone, then 60 s under attack
    python tools/attack_mix.py --baseline 10 --seconds 10 --slow 50     # a short smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import copy
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import httpx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tools.load_test import free_port  # noqa: E402

HOST = "127.0.0.1"                    # the only address this tool ever connects to
ATTACKER = "127.0.0.1"
PLAYER = "127.0.0.2"                  # another loopback address: another client to the server


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Tally:
    """What the attacks were answered: {attack: Counter(status or error kind)}."""

    def __init__(self):
        self.seen: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)

    def note(self, attack: str, outcome) -> None:
        self.seen[attack][str(outcome)] += 1


async def player(base: str, stop: asyncio.Event, times: dict[str, list[float]], phase: list[str],
                 errors: list[str]) -> None:
    """The normal client: plays games at the normal level and times each answer (an action with the
    AI's reply, as a player waits for it)."""
    transport = httpx.AsyncHTTPTransport(local_address=PLAYER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=300) as http:
        rng = random.Random(1)
        view = None
        while not stop.is_set():
            if view is None or view["status"] == "over":
                answer = await http.post("/api/games", json={"ai": {"level": "normal"}, "supply": "first-game"})
                if answer.status_code != 201:
                    errors.append(f"{phase[0]}: new game {answer.status_code} {answer.text[:100]}")
                    await asyncio.sleep(1)
                    continue
                view = answer.json()
                token = view.pop("token")
            headers = {"Authorization": f"Bearer {token}"}
            start = time.perf_counter()
            if view["your_turn"]:
                answer = await http.post(f"/api/games/{view['id']}/actions", headers=headers,
                                         json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
            else:
                answer = await http.post(f"/api/games/{view['id']}/ai", headers=headers)
            elapsed = time.perf_counter() - start
            if answer.status_code != 200:
                errors.append(f"{phase[0]}: {answer.status_code} {answer.text[:100]}")
                view = (await http.get(f"/api/games/{view['id']}", headers=headers)).json()
                continue
            times[phase[0]].append(elapsed)
            view = answer.json()
            await asyncio.sleep(0.05)                # a person reads the board (a little)


# -- the attacks ---------------------------------------------------------------------------------------
async def big_bodies(base: str, until: float, tally: Tally, record_bytes: int) -> None:
    many = b"[" + b"0," * (record_bytes // 2 - 2) + b"0]"
    text = json.dumps({"format": "ftc-game-record", "note": "x" * (record_bytes - 100)}).encode()
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60) as http:
        for i in range(200):
            if time.monotonic() > until:
                return
            try:
                answer = await http.post("/api/analysis/record", content=many if i % 2 else text,
                                         headers={"content-type": "application/json"})
                tally.note("big body to /api/analysis/record", answer.status_code)
            except httpx.HTTPError as exc:
                tally.note("big body to /api/analysis/record", type(exc).__name__)


async def unauthorized_bodies(port: int, until: float, tally: Tally, game_id: str) -> None:
    head = (f"POST /api/games/{game_id}/actions HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            "Content-Length: 60000\r\n\r\n").encode()
    for _ in range(200):
        if time.monotonic() > until:
            return
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(ATTACKER, 0))
            writer.write(head)
            status = (await asyncio.wait_for(reader.readline(), 10)).split(b" ")[1:2]
            tally.note("60 KB body without the token", status[0].decode() if status else "closed")
            writer.close()
        except (TimeoutError, OSError) as exc:
            tally.note("60 KB body without the token", type(exc).__name__)
        await asyncio.sleep(0.05)


async def slow_loris(port: int, until: float, tally: Tally, count: int) -> None:
    async def one(i: int) -> None:
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(ATTACKER, 0))
        except OSError as exc:
            tally.note("slow-loris connection", f"refused ({type(exc).__name__})")
            return
        head = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
        try:
            for byte in head:
                if time.monotonic() > until:
                    tally.note("slow-loris connection", "open at the end")
                    return
                writer.write(bytes([byte]))
                await writer.drain()
                if reader.at_eof():
                    break
                try:
                    data = await asyncio.wait_for(reader.read(1), 1.0)
                    if not data:
                        break
                except TimeoutError:
                    pass
            tally.note("slow-loris connection", "closed by the server")
        except OSError:
            tally.note("slow-loris connection", "closed by the server")
        finally:
            writer.close()

    await asyncio.gather(*(one(i) for i in range(count)))


async def socket_floods(port: int, until: float, tally: Tally, game_id: str) -> None:
    """Game sockets that connect and leave or send a large first message (four at a time), and
    analysis sockets asking for the longest search (two at a time: the per-client share)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    url = f"ws://{HOST}:{port}"

    async def attempt(kind: str) -> None:
        try:
            if kind == "analysis at full depth":
                async with connect(url + "/api/analysis/ws", close_timeout=1) as ws:
                    await ws.send(json.dumps({"type": "analyze", "position": "crown", "depth": 60}))
                    await asyncio.wait_for(ws.recv(), 5)
                    tally.note("WebSocket: " + kind, "answered")
                    await asyncio.sleep(0.5)
            else:
                async with connect(f"{url}/api/games/{game_id}/ws", max_size=None, close_timeout=1) as ws:
                    if kind == "large first message":
                        await ws.send(json.dumps({"token": "A" * 60_000}))
                        await asyncio.wait_for(ws.recv(), 5)
                    tally.note("WebSocket: " + kind, "left")
        except ConnectionClosed as exc:
            tally.note("WebSocket: " + kind, f"closed {exc.rcvd.code if exc.rcvd else '-'}")
        except (TimeoutError, InvalidStatus, OSError) as exc:
            tally.note("WebSocket: " + kind, type(exc).__name__)

    async def loop(kinds: tuple[str, ...], count: int) -> None:
        for i in range(count):
            if time.monotonic() > until:
                return
            await attempt(kinds[i % len(kinds)])
            await asyncio.sleep(0.02)

    await asyncio.gather(*(loop(("connect and leave", "large first message"), 300) for _ in range(4)),
                         *(loop(("analysis at full depth",), 30) for _ in range(2)))


def forged_views(base: str) -> list[dict]:
    """The four crafted files of issue 23, from a real download of the server."""
    with httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=ATTACKER), timeout=60) as http:
        game = http.post("/api/games", json={"ai": {"bot": "greedy"}, "supply": "first-game"}).json()
        doc = http.get(f"/api/games/{game['id']}/knowledge", headers={"Authorization": f"Bearer {game['token']}"}).json()
    from engine.crown.knowledge import state_digest

    out = []
    for edit in (lambda s: s.update(decision=None),
                 lambda s: s["decision"].update(labels=[[[a], "x"] for a in s["decision"]["actions"]], labeler=None),
                 lambda s: s.update(setup_state={"dict": [[{"list": [1]}, 1]]}),
                 lambda s: s.update(setup_state={"frozenset": [{"list": [1]}]})):
        forged = copy.deepcopy(doc)
        edit(forged["state"])
        forged["digest"] = state_digest(forged["state"])
        out.append(forged)
    return out


async def forged_files(base: str, until: float, tally: Tally, docs: list[dict]) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60) as http:
        for i in range(100):
            if time.monotonic() > until:
                return
            answer = await http.post("/api/analysis/record", json=docs[i % len(docs)])
            tally.note("forged position view", answer.status_code)
            await asyncio.sleep(0.2)


async def forwarded_for(base: str, until: float, tally: Tally) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=120) as http:
        for i in range(200):
            if time.monotonic() > until:
                return
            answer = await http.post("/api/games", json={"ai": {"bot": "random"}},
                                     headers={"X-Forwarded-For": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"})
            tally.note("new game claiming another address", answer.status_code)
            await asyncio.sleep(0.05)


async def heavy_ai(base: str, until: float, tally: Tally) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=300) as http:
        async def one_game() -> None:
            for _ in range(10):
                if time.monotonic() > until:
                    return
                try:
                    answer = await http.post("/api/games", json={"human": 1, "ai": {"bot": "alphabeta", "seconds": 40}})
                    tally.note("alphabeta 40 s game", answer.status_code)
                    if answer.status_code != 201:
                        await asyncio.sleep(1)
                        continue
                    view = answer.json()
                    headers = {"Authorization": f"Bearer {view['token']}"}
                    while time.monotonic() < until and view.get("your_turn"):
                        hint = await http.post(f"/api/games/{view['id']}/hint", headers=headers)
                        tally.note("hint", hint.status_code)
                        answer = await http.post(f"/api/games/{view['id']}/actions", headers=headers,
                                                 json={"action": view["actions"][0]["id"], "version": view["version"]})
                        tally.note("alphabeta 40 s turn", answer.status_code)
                        if answer.status_code != 200:
                            break
                        view = answer.json()
                except httpx.HTTPError as exc:
                    tally.note("alphabeta 40 s game", type(exc).__name__)

        await asyncio.gather(one_game(), one_game())


ATTACKS = ("big", "unauthorized", "slow", "sockets", "forged", "forwarded", "ai")


def _play(base: str, seconds: float, out) -> None:
    """The normal client, in a process of its own (so that no attack coroutine delays the reading
    of its answers): plays for ``seconds`` and sends back (when each answer came, how long it took)."""
    async def main():
        times: dict[str, list[float]] = {"all": []}
        stamps: list[float] = []
        errors: list[str] = []
        stop = asyncio.Event()

        class Stamped(list):
            def append(self, value):                # each answer time with the moment it was read
                stamps.append(time.time())
                super().append(value)

        times["all"] = Stamped()
        playing = asyncio.create_task(player(base, stop, times, ["all"], errors))
        await asyncio.sleep(seconds)
        stop.set()
        try:
            await asyncio.wait_for(playing, 120)
        except TimeoutError:
            playing.cancel()
        out.send((list(zip(stamps, times["all"])), errors))
    asyncio.run(main())


def _attack(base: str, port: int, seconds: float, slow: int, kinds: tuple[str, ...], record_bytes: int, out) -> None:
    """The attacking client, in a process of its own at a lower CPU priority (nice 10): on loopback
    the load generator shares the server's cores, and an attacker's own work is done on its own
    machine; what is measured is what the attack costs the server and the other client."""
    with contextlib.suppress(OSError):
        os.nice(10)

    async def main():
        until = time.monotonic() + seconds
        tally = Tally()
        with httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=ATTACKER), timeout=60) as http:
            target = http.post("/api/games", json={"ai": {"bot": "greedy"}}).json()["id"]
        docs = forged_views(base)
        make = {"big": lambda: big_bodies(base, until, tally, record_bytes),
                "unauthorized": lambda: unauthorized_bodies(port, until, tally, target),
                "slow": lambda: slow_loris(port, until, tally, slow),
                "sockets": lambda: socket_floods(port, until, tally, target),
                "forged": lambda: forged_files(base, until, tally, docs),
                "forwarded": lambda: forwarded_for(base, until, tally),
                "ai": lambda: heavy_ai(base, until, tally)}
        try:
            await asyncio.wait_for(asyncio.gather(*(make[k]() for k in kinds), return_exceptions=True), seconds + 30)
        except TimeoutError:
            pass
        out.send({attack: dict(outcomes) for attack, outcomes in tally.seen.items()})
    asyncio.run(main())


def run(args) -> int:
    port = free_port()
    folder = tempfile.mkdtemp(prefix="ftc-attack-")
    server = subprocess.Popen([sys.executable, "-m", "engine.interfaces.cli", "serve", "--host", HOST, "--port",
                               str(port), "--db", os.path.join(folder, "games.sqlite3"), "--workers",
                               str(args.workers)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://{HOST}:{port}"
    context = multiprocessing.get_context("spawn")
    try:
        with httpx.Client(base_url=base, timeout=5) as http:
            for _ in range(300):
                try:
                    if http.get("/api/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            limits = http.get("/api/analysis/limits").json()
        theirs, ours = context.Pipe()
        playing = context.Process(target=_play, args=(base, args.baseline + args.seconds + 5, theirs))
        playing.start()
        time.sleep(args.baseline)
        began = time.time()
        attack_pipe, attack_ours = context.Pipe()
        attacking = context.Process(target=_attack, args=(base, port, args.seconds, args.slow, args.attacks,
                                                          limits["record_bytes"], attack_pipe))
        attacking.start()
        seen = attack_ours.recv() if attack_ours.poll(args.seconds + 60) else {}
        ended = time.time()
        attacking.join(30)
        answers, errors = ours.recv() if ours.poll(args.seconds + 180) else ([], ["the normal client did not report"])
        playing.join(30)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            output = server.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            server.kill()
            output = server.communicate()[0]
    times = {"unloaded": [t for at, t in answers if at < began],
             "loaded": [t for at, t in answers if began <= at <= ended]}
    print(f"attacks: {', '.join(args.attacks)}; the attacker at nice 10, each client in its own process")
    for name, values in times.items():
        print(f"normal client {name:8}: {len(values):4} answers, p50 {percentile(values, 0.5):.3f} s, "
              f"p95 {percentile(values, 0.95):.3f} s, max {max(values, default=float('nan')):.3f} s")
    p95 = (percentile(times["unloaded"], 0.95), percentile(times["loaded"], 0.95))
    print(f"loaded p95 / unloaded p95: {p95[1] / p95[0]:.2f} (the goal: at most 2)")
    for attack, outcomes in sorted(seen.items()):
        print(f"  {attack}: " + ", ".join(f"{k} x{v}" for k, v in sorted(outcomes.items())))
    print(f"server log: {len(output.splitlines())} lines, tracebacks: {output.count('Traceback')}")
    if errors:
        print(f"normal client errors: {len(errors)} (first: {errors[0]})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=float, default=20.0, help="seconds the normal client plays alone")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of the attack (at most 600)")
    parser.add_argument("--slow", type=int, default=400, help="slow-loris connections (at most 1000)")
    parser.add_argument("--workers", type=int, default=2, help="the server's AI workers")
    parser.add_argument("--attacks", default=",".join(ATTACKS),
                        help=f"which attacks, comma-separated (default all: {','.join(ATTACKS)})")
    args = parser.parse_args()
    if not 0 < args.seconds <= 600 or not 0 < args.baseline <= 600 or not 0 <= args.slow <= 1000:
        parser.error("--seconds and --baseline: 0..600; --slow: 0..1000")
    args.attacks = tuple(a.strip() for a in args.attacks.split(",") if a.strip())
    unknown = sorted(set(args.attacks) - set(ATTACKS))
    if unknown or not args.attacks:
        parser.error(f"--attacks: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(ATTACKS)}")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
