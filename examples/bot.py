#!/usr/bin/env python3
"""A small external bot for an ftc-engine game server (docs/server.md "Seats, invitations and bots").

Create a game with a bot seat, e.g. ``{"variant": "kings-ransom", "seats": [{"kind": "creator"},
{"kind": "bot"}]}``: the answer's ``bots`` holds the seat's bot token. Then::

    FTC_BOT_TOKEN=BOT_TOKEN python examples/bot.py http://127.0.0.1:8000 GAME_ID [--seed 7] [--first]

The token is read from the environment (``FTC_BOT_TOKEN``), never from the command line, where any
user of the machine could read it (``ps``).

The bot uses the same HTTP API as the web board, with its token as the bearer token: it reads its
seat's view (``GET /api/games/{id}``) and, when ``your_turn`` is true, posts one of the view's legal
``actions`` with the view's ``version`` (``POST /api/games/{id}/actions``): a random one (``--seed``
makes the choice repeatable), or the first with ``--first``. A 409 (a stale view: another seat moved
meanwhile) is answered by reading the view again; a 429 or 503 by waiting as ``Retry-After`` says.
It stops when the game is over and prints the result; its exit status is 0 then, 1 when the server
refuses its token (401/404) or the game cannot be played.

Standard library only (urllib, json): copy it anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request


class Refused(Exception):
    """The server answered with a status the bot cannot recover from."""


def call(base: str, token: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict, dict]:
    """One request: (status, the JSON answer, headers). Errors with a status are answers too."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(base.rstrip("/") + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"{}"), dict(response.headers)
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            answer = json.loads(text or b"{}")
        except ValueError:
            answer = {"detail": text.decode("utf-8", "replace")}
        return error.code, answer, dict(error.headers)


def play(base: str, game_id: str, token: str, rng: random.Random | None, poll: float = 0.2) -> dict:
    """Play the seat of ``token`` until the game is over; returns the last view. ``rng`` None: the
    first legal action each time."""
    decisions = 0
    while True:
        status, view, headers = call(base, token, "GET", f"/api/games/{game_id}")
        if status in (429, 503):
            time.sleep(float(headers.get("Retry-After", 1)))
            continue
        if status != 200:
            raise Refused(f"reading the game: {status} {view.get('detail')}")
        if view["status"] == "over":
            view["decisions"] = decisions
            return view
        if not view["your_turn"]:
            time.sleep(poll)                               # another seat (or the AI) is deciding
            continue
        action = view["actions"][0] if rng is None else rng.choice(view["actions"])
        status, answer, headers = call(base, token, "POST", f"/api/games/{game_id}/actions",
                                       {"action": action["id"], "version": view["version"]})
        if status == 200:
            decisions += 1
        elif status in (429, 503):
            time.sleep(float(headers.get("Retry-After", 1)))
        elif status != 409:                                # 409: a stale view; read it again
            raise Refused(f"playing {action['text']!r}: {status} {answer.get('detail')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play one seat of an ftc-engine game with its bot token.")
    parser.add_argument("server", help="the server's URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("game", help="the game's id")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    parser.add_argument("--first", action="store_true", help="always play the first legal action")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between two reads while waiting")
    args = parser.parse_args(argv)
    token = os.environ.get("FTC_BOT_TOKEN", "")
    if not token:
        print("bot: set FTC_BOT_TOKEN to the seat's token (the new game's answer: bots[].token)", file=sys.stderr)
        return 1
    try:
        view = play(args.server, args.game, token, None if args.first else random.Random(args.seed), args.poll)
    except (Refused, OSError) as exc:
        print(f"bot: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"game": args.game, "seat": view.get("seat"), "over": view["over"], "winner": view["winner"],
                      "decisions": view["decisions"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
