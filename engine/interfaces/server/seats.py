"""A game's seats (docs/server.md "Seats, invitations and bots"): one per player of its game, each a
human (the creator, or whoever joins with its invitation code), the AI at its own settings, or an
external program (a bot, by its bot token on the same API).

- **Who is who**: a bearer token identifies one seat of one game. Tokens, invitation codes and bot
  tokens come from ``secrets`` and are stored only as their SHA-256 (``hash_token``); the creator's
  answer is the only place they are ever shown. A token acts for its seat alone: its view (the
  state's observation for that seat), its own decisions (409 otherwise), its resignation, its hints
  and knowledge; changing the game's settings and deleting it are the creator's (403 for another
  seat), and a game with another human or bot seat may be deleted only until it has started
  (``started``: every seat has moved), never after (409): no seat erases a game another plays.
- **Joining**: ``POST /api/games/{id}/join`` with ``{"code"}`` takes an open human seat with a new
  token. The code is consumed by one statement in the database (store.GameStore.join), so of two
  joins racing with one code exactly one gets the seat and the other is answered 404, as a wrong or
  used code and an unknown game are (nothing tells them apart). The right code of a game that is
  over (finished or aborted) is answered 409 and takes nothing. Joins are rate-limited as new games.
- **Rematch**: once a game is over, ``POST /api/games/{id}/rematch`` by a seat offers (or accepts) a
  rematch; the offer of the last human or bot seat creates the new game (same game, variant, options
  and seat kinds; every seat moved one on, so two players swap colours) in the same transaction,
  where every participant's same token acts for its new seat: no new secret is handed out. An offer
  may create a game, so it counts as a new game of its client: within ``games_per_client`` (429
  otherwise, nothing recorded) and the rate of new games.

A game saved before seats existed has its human seat in the seats table (migration 4) and no row
for its other seats: they are the AI with the game's ``ai`` settings, as they always were.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field

from engine.quiet import shown

__all__ = ["Seat", "KINDS", "JoinRequest", "plan", "seats_from_rows", "participants", "view_fields", "seat_of",
           "rotated", "hash_token", "new_secret", "VIEW_KEYS", "game_part", "sockets_of", "started", "deletion_refused"]

#: The kinds a new game's ``seats`` may name ("creator": the seat of whoever creates the game).
KINDS = ("creator", "human", "ai", "bot")
#: The keys ``view_fields`` adds to every view (beside the game's own view).
VIEW_KEYS = ("seat", "creator", "seating", "rematch")
#: The most seats a body may list (no registered game has more players).
MAX_SEATS = 8


@dataclass
class Seat:
    """One seat of a live game: ``kind`` 'human', 'ai' or 'bot'; ``token_hash``: SHA-256 of its
    token (None: an open human seat, or an AI seat); ``ai``: an AI seat's AISettings; ``joined``:
    when it was taken; ``offered``: it offered a rematch."""

    kind: str
    token_hash: str | None = None
    ai: Any = None
    joined: float | None = None
    offered: bool = False


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(min_length=1, max_length=128, description="the invitation code of an open seat (the part "
                                                                "after the dot of its link /#join=ID.CODE)")


def plan(raw: list | None, players: int, human: int, human_given: bool) -> list[tuple[str, dict | None]]:
    """The kinds of a new game's seats from the body's ``seats`` (None: the creator at ``human``, the
    AI everywhere else), as (kind, the AI settings as given or None) per seat, the creator's kind
    "creator". Every refusal is a 422 naming ``seats`` or ``seats[i]`` and what is wrong."""
    if raw is None:
        return [("creator", None) if seat == human else ("ai", None) for seat in range(players)]
    if len(raw) != players:
        raise HTTPException(422, f"seats: this game has {players} players: give one seat for each "
                                 f"({len(raw)} given)")
    kinds = []
    for i, spec in enumerate(raw):
        if not isinstance(spec, dict):
            raise HTTPException(422, f"seats[{i}]: expected an object such as {{\"kind\": \"human\"}}")
        kind = spec.get("kind")
        if kind not in KINDS:
            raise HTTPException(422, f"seats[{i}].kind: expected one of {', '.join(KINDS)}, got {shown(kind)}")
        fields = ("kind", "ai") if kind == "ai" else ("kind",)
        extra = set(spec) - set(fields)
        if extra == {"ai"}:
            raise HTTPException(422, f"seats[{i}].ai: only an AI seat takes 'ai' (this seat's kind: {kind})")
        if extra:
            raise HTTPException(422, f"seats[{i}]: {len(extra)} unknown field(s): a seat of kind {kind} has "
                                     f"{' and '.join(fields)} only")
        if kind == "ai" and "ai" in spec and not isinstance(spec["ai"], dict):
            raise HTTPException(422, f"seats[{i}].ai: expected the AI's settings as an object (as the body's 'ai')")
        kinds.append((kind, spec.get("ai") if kind == "ai" else None))
    creators = [i for i, (kind, _) in enumerate(kinds) if kind == "creator"]
    if len(creators) != 1:
        where = "seats" if not creators else f"seats[{creators[1]}]"
        raise HTTPException(422, f"{where}: exactly one seat must be the creator's ({{\"kind\": \"creator\"}}); "
                                 f"{len(creators)} are")
    if human_given and creators[0] != human:
        raise HTTPException(422, f"human: seat {human} is not the creator's seat of 'seats' (seats[{creators[0]}]); "
                                 "give one of them, or the same seat")
    return kinds


def seats_from_rows(rows: list[dict], players: int, default_ai, settings: Callable[[dict], Any]) -> dict[int, Seat]:
    """A stored game's seats (store.GameStore.seats rows); a seat without a row (a game from before
    seats) is the AI with the game's settings ``default_ai``. ``settings(dict)``: AISettings."""
    seats = {seat: Seat("ai", ai=default_ai) for seat in range(players)}
    for row in rows:
        seats[row["seat"]] = Seat(row["kind"], row["token_hash"],
                                  settings(row["ai"]) if row["ai"] is not None else
                                  (default_ai if row["kind"] == "ai" else None),
                                  row["joined"], row["offered"])
    return seats


def participants(seats: dict[int, Seat]) -> list[int]:
    """The human and bot seats (those the AI never plays), in order."""
    return [seat for seat, s in sorted(seats.items()) if s.kind != "ai"]


def sockets_of(queues, seat: int) -> int:
    """How many of a game's open sockets (their queues, each with the ``seat`` it serves) are
    ``seat``'s: the cap on game sockets (Limits.sockets_per_seat) counts each seat's own, so no seat
    can take another's place, whatever it opens."""
    return sum(1 for queue in queues if queue.seat == seat)


def started(public_log, state) -> bool:
    """Whether the game has started: every player has handed the decision on at least once (made a
    turn's decisions, and then another player was to decide), read from the spectators' log (each
    step's entry names its ``player``; game-over lines name none) and ``state``, the game now (the
    last player to act has handed on when another decides or the game is over). lichess's rule: a
    game starts once each side has made its first move. The clocks keep the same rule
    (clocks.py ``Clock.started``)."""
    done, last = set(), None
    for entry in public_log:
        player = entry.get("player")
        if player is None:
            continue
        if last is not None and player != last:
            done.add(last)
        last = player
    if last is not None and (state.is_terminal() or state.current_player() != last):
        done.add(last)
    return len(done) >= state.num_players


def deletion_refused(seats: dict[int, Seat], creator: int, public_log, state, over: bool) -> str | None:
    """Why the creator may not delete (erase) the game, or None when it may: a game with another
    human or bot seat is theirs too once it has started (``started``), finished or not; before that
    it may be deleted (lichess's abort), and so may a game against the AI alone, at any time."""
    others = [seat for seat in participants(seats) if seat != creator]
    if not others or not started(public_log, state):
        return None
    whose = ", ".join(str(seat) for seat in others)
    then = "it stays for them" if over else "resign to end it"
    return (f"the game has started (every seat has moved): it is seat {whose}'s game too and cannot be deleted; "
            f"{then}")


def seat_of(seats: dict[int, Seat], digest: str) -> int | None:
    """The seat whose token has the SHA-256 ``digest`` (compared in constant time), or None."""
    found = None
    for seat, s in seats.items():
        if s.token_hash and hmac.compare_digest(s.token_hash, digest):
            found = seat
    return found


def view_fields(seats: dict[int, Seat], creator: int, seat: int | None, rematch: str | None) -> dict:
    """What a view says of the seats, for everyone alike (never a token, code or hash): the
    viewer's ``seat`` (None: a spectator), the ``creator``'s, each seat's kind and whether it is
    taken (``seating``: a game's own view may have ``seats``, Crownfall's has), and the
    ``rematch``: the seats that offered one and the new game's id once it exists."""
    return {
        "seat": seat,
        "creator": creator,
        "seating": [{"seat": i, "kind": s.kind, "taken": s.kind == "ai" or s.token_hash is not None}
                  for i, s in sorted(seats.items())],
        "rematch": {"offered": [i for i, s in sorted(seats.items()) if s.offered], "game": rematch},
    }


def game_part(view: dict) -> dict:
    """A view without what ``view_fields`` added: what the game's own view builder made."""
    return {key: value for key, value in view.items() if key not in VIEW_KEYS}


def rotated(seats: dict[int, Seat]) -> dict[int, Seat]:
    """The seats of a rematch: every seat moved one on (seat i's player to seat i+1, the last to 0),
    with its kind, token hash and AI settings; no rematch offered yet."""
    n = len(seats)
    return {(seat + 1) % n: Seat(s.kind, s.token_hash, s.ai, s.joined) for seat, s in seats.items()}


def hash_token(token: str) -> str:
    """What the database keeps of a token, invitation code or bot token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def new_secret() -> str:
    """A token, invitation code or bot token: 256 random bits from ``secrets``."""
    return secrets.token_urlsafe(32)
