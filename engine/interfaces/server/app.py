"""The AI opponent backend: an ASGI app (FastAPI) that plays any registered game (engine/games/registry.py)
against a human: For the Crown, King's Ransom, and whatever game an entry module adds.

The security model and the failure guarantees are stated in docs/server.md, each with the test that
holds it. In short:

- **Who may see and play a game**: creating a game returns the creator's seat's bearer token (256
  random bits from ``secrets``, stored only as its SHA-256); a game may have other seats of humans
  (who join with an invitation code), bots (with a bot token) and AIs at their own settings
  (seats.py). Every game endpoint and the WebSocket require a seat's token and act for that seat;
  without it 401, with another game's token 404, exactly as for an id that does not exist.
  Spectators (docs/server.md "Spectators") need no token: ``/watch`` paths show a game, unless its
  creator closed it to them (``PATCH``), as viewer None sees it: the public observation, the
  spectators' log (the public text of each step), no actions, no note for the seat.
- **Hidden information**: every part of a view is built from the viewing seat's observation (views.py);
  shuffles, draws and the AI's own randomness come from a server secret, so neither the client's
  ``seed`` (it fixes only the Supply) nor the game id predicts a hidden card.
- **A refused request changes nothing; an acknowledged one is never lost**: a change is applied to a
  copy of the game, saved (SQLite, synchronous, off the event loop), and only then made current and
  answered. A storage failure answers 503 and leaves the game as it was. Actions must name the
  ``version`` they were chosen in, so a retried or duplicated action is applied at most once.
- **The AI** thinks in worker processes, or as tasks on a Ray cluster (``ai_pool="ray"`` or
  ``"ray://HOST:PORT"``), with a deadline per turn from its start on a worker (ai.py); a task that
  overruns or whose worker dies costs that task alone (its worker replaced, a hung Ray task
  cancelled) and the greedy bot takes that turn; every fallback is logged and shown in ``ai_note``.
  Work is queued per client, game turns before hints; a client's seconds are capped by the server;
  an instant bot's turn (the easy AI) never waits behind a search (the pool's instant lane); a
  seat's clock is charged its turn's time on a worker, never its wait for one.
- **A seat that walks away** (away.py): in a game without resignation the easy bot takes a seat
  that leaves (``POST .../leave``) or, untimed, does not act within ``Limits.idle_seat_seconds``.
- **Games through the registry only**: the game is chosen by name (``game``, or a ``variant`` that
  names one); its views, log entries, new games, records, replays, hidden-card resampling and bots
  come from the state protocol and the game's entry (its ``WebBoard``; engine/games/view.py for a
  game without one). The server imports no game's package.
- **Limits**: request bodies, requests and new games per client, live games in memory (idle games
  are evicted and reloaded from SQLite on demand), WebSockets per seat of a game and spectator
  WebSockets per game.
- **Several instances** on one PostgreSQL (instances.py): a game is checked against the database's
  version before a request uses it, changes of other instances are pushed to this one's sockets, an
  AI turn runs under a claim in the database (taken over when its instance dies), and the per-client
  limits kept in memory are shared among the live instances.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import random
import re
import secrets
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine import __version__
from engine.catalog import default_catalog
from engine.games import registry
from engine.games.protocol import GameStateProtocol
from engine.games.view import board_module, game_over_entry, game_view, named, public_log, step_for, web_piece
from engine.interfaces.server import seats as seating
from engine.interfaces.server.ai import TURN, AIClosed, AIFailure, AIPool, ai_turn, greedy_turn, instant, timed_turn
from engine.interfaces.server.away import AWAY_REFUSAL, IDLE_CLAIM, idle_seat, idle_text
from engine.interfaces.server.away import install as install_away
from engine.interfaces.server.clocks import (
    BASE_MIN,
    FIRST_MOVE_SECONDS,
    Clock,
    ClockError,
    parse_control,
    seconds_text,
    turn_budget,
)
from engine.interfaces.server.guard import (
    CONTENT_SECURITY_POLICY,
    JSONBodyError,
    RateLimiter,
    RequestGuard,
    SameOrigin,
    SecurityHeaders,
    client_key,
    docs_policy,
    origin_of,
    strict_json,
)
from engine.interfaces.server.instances import Instances
from engine.interfaces.server.player_tools import install as install_player_tools
from engine.interfaces.server.reach import catalog_reach
from engine.interfaces.server.refusals import QuietValues, Refusals, body_model, validation_errors
from engine.interfaces.server.rules import router as rules_router
from engine.interfaces.server.seats import Seat
from engine.interfaces.server.store import POOL_SIZE, StaleVersion, StorageError, open_store

__all__ = ["create_app", "Limits", "MAX_BODY_BYTES", "hash_token"]

log = logging.getLogger("ftc.server")

MAX_BODY_BYTES = 64 * 1024
STATIC = Path(__file__).parent / "static"
#: The API page's icon: none (an empty data URL, as the web board's), so the browser fetches nothing.
DOCS_FAVICON = "data:,"
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")
#: The largest first message of a game WebSocket (``{"token": "..."}``: a token has at most 128
#: characters); a bigger one is refused unread.
TOKEN_MESSAGE_BYTES = 1024
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
#: The paths of one game (its token is checked before the request's body is read).
_GAME_PATH = re.compile(r"/api/games/([^/]+)(?:/[^/]+)?")
#: The paths under /api/games/ that name no game (no token): the saved games' summaries, the games played.
_OPEN_PATHS = ("saved", "kinds")
#: Joining a game (seats.py): by its invitation code, no token.
_JOIN_PATH = re.compile(r"/api/games/[^/]+/join")
#: A spectator's paths of one game (no token: open unless the game's creator closed it).
_WATCH_PATH = re.compile(r"/api/games/[^/]+/watch(?:/[^/]+)?")
#: What a spectator socket's queue receives when the game is closed to spectators.
_CLOSED = object()
#: Where a request's scope notes the game its token check found fresh (instances.fresh: once a request).
_CHECKED = "ftc.checked"


@dataclass(frozen=True)
class Limits:
    """The server's limits; every one is an option of ``create_app`` (and docs/server.md). With
    several instances on one database, each keeps its share of the per-client limits it counts in
    memory (instances.py: the limit divided by the live instances); ``Server.limits`` is that share."""

    #: Requests per second one client (address) may make to /api/, and the burst it may save up.
    requests_per_second: float = 50.0
    request_burst: int = 200
    #: New games per minute one client may create, and the burst.
    games_per_minute: float = 30.0
    game_burst: int = 10
    #: Games one client may have in play at once (finished games do not count, nor games unchanged
    #: for ``games_idle_seconds``: abandoned games lock no one out; they are kept and can be resumed).
    games_per_client: int = 50
    games_idle_seconds: float = 3600.0
    #: Games kept in memory; beyond that, and after ``idle_seconds`` unused, a game is evicted
    #: (it stays in SQLite and is reloaded on its next request).
    live_games: int = 500
    idle_seconds: float = 600.0
    #: Game WebSockets open at once for one seat of a game: each seat has its own allowance, so one
    #: seat's sockets never take another seat's place (seats.py ``sockets_of``); a seat at its cap
    #: has its own extra socket refused (4429). Spectator sockets of one game have their own cap.
    sockets_per_seat: int = 4
    spectator_sockets_per_game: int = 4
    #: Game WebSockets open at once from one client address (over every game).
    sockets_per_client: int = 16
    #: Seconds a new WebSocket has to send its token (when it sent no Authorization header).
    socket_auth_seconds: float = 10.0
    #: The largest WebSocket message uvicorn reads (``ws_max_size``; a bigger one closes the socket
    #: with 1009); a game socket's first message (its token) may have ``TOKEN_MESSAGE_BYTES``.
    socket_message_bytes: int = 64 * 1024
    #: Connections (edge.py): open at once, and from one client address (a trusted proxy's are only
    #: under the total); seconds a connection may take to send a complete request head, and to stay
    #: idle between requests; seconds a request body may take to arrive (guard.py).
    connections: int = 512
    connections_per_client: int = 64
    header_seconds: float = 10.0
    keep_alive_seconds: int = 5
    body_seconds: float = 30.0
    #: Hints (player_tools.py) per minute per game and per client, and the burst per game (twice
    #: that per client); one hint at a time per game.
    hints_per_minute: float = 6.0
    hint_burst: int = 3
    #: Seconds of thinking a decision of the AI may take at most, whatever a client's ``ai`` settings
    #: ask (``--max-ai-seconds``): a client's ``seconds`` above it are clamped to it.
    ai_max_seconds: float = 10.0
    #: The analysis board (analysis.py, docs/server.md): analysis sockets open at once, overall and
    #: per client (each runs at most one board search, in a thread of its own); the bytes and rate of
    #: one socket's messages; a search's seconds (every search ends within them) and lines; seconds a
    #: socket may stay silent. Depth is 1..60 (the search's own limit).
    analysis_sockets: int = 4
    analysis_sockets_per_client: int = 2
    analysis_message_bytes: int = 8192
    analysis_messages_per_second: float = 5.0
    analysis_message_burst: int = 20
    analysis_max_seconds: float = 60.0
    analysis_max_top: int = 8
    analysis_idle_seconds: float = 900.0
    #: Game records read by the analysis board: bytes of one (engine.crown.record.MAX_RECORD_BYTES at
    #: most), the JSON values it may hold (counted before it is parsed), its steps, and records per
    #: minute per client (and the burst, checked before the body is read).
    analysis_record_bytes: int = 4 * 1024 * 1024
    analysis_record_values: int = 250_000
    analysis_record_steps: int = 50_000
    analysis_records_per_minute: float = 20.0
    analysis_record_burst: int = 5
    #: Clocks (clocks.py, docs/server.md "Clocks"): the least ``base`` a new game's clock may have
    #: (tests lower it to play a game out on time in seconds); how often each server asks the
    #: database for clocks that ran out; how long a server's claim on handling one flag lasts
    #: (another server takes it over once it has run out: its holder is presumed dead).
    clock_min_base: float = BASE_MIN
    flag_poll_seconds: float = 0.5
    flag_lease_seconds: float = 30.0
    #: Seconds a turn before a timed game's start may take (clocks.py "The start": no clock runs
    #: until every player has moved), counted from the turn's beginning or the last seat taken,
    #: whichever is later; past it the game is aborted, no result (a correspondence turn: its days).
    first_move_seconds: float = FIRST_MOVE_SECONDS
    #: Seats that walk away (away.py, docs/server.md "A seat that walks away"): seconds a human or bot
    #: seat of an untimed game without resignation may be to decide without acting before the easy
    #: bot takes it (``ftc serve --idle-seat-minutes``; tests lower it). Swept with the flags.
    idle_seat_seconds: float = 900.0


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


# -- request bodies ------------------------------------------------------------------------------
#: The AI levels the web board offers, as bot specs (docs/server.md): easy is the one-ply greedy bot;
#: normal is the full-game AI (engine/search/ismcts.py: turn planner, expert prior, ISMCTS) with half a
#: second a decision, the default; strong gives it 2 s a decision.
AI_LEVELS = {"easy": "greedy", "normal": "ismcts:0.5s", "strong": "ismcts:2s"}


class AISettings(BaseModel):
    level: Literal[tuple(AI_LEVELS)] | None = Field(
        default=None, description="easy, normal or strong (AI_LEVELS); replaces bot and its budget when given")
    bot: Literal["ismcts", "greedy", "random", "alphabeta"] = "ismcts"
    iterations: int | None = Field(default=None, ge=1, le=200_000,
                                  description="ISMCTS iterations a decision; with neither this nor seconds: the normal level")
    seconds: float | None = Field(default=None, gt=0, le=60)
    depth: int | None = Field(default=None, ge=1, le=8, description="alpha-beta depth (Point-Buy Chess)")
    spec_: str | None = Field(default=None, alias="spec", min_length=1, max_length=64,
                              description="any bot of the game by its spec (the game's bots: GET /api/games/kinds); "
                                          "replaces level and bot when given")
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True, populate_by_name=True)

    def spec(self, max_seconds: float | None = None) -> str:
        """The bot spec; ``max_seconds`` (the server's cap, Limits.ai_max_seconds) clamps the
        client's ``seconds``."""
        if self.spec_ is not None:
            return self.spec_
        if self.level is not None:
            return AI_LEVELS[self.level]
        seconds = self.seconds if self.seconds is None or max_seconds is None else min(self.seconds, max_seconds)
        if self.bot == "ismcts":
            if seconds:
                return f"ismcts:{seconds}s"
            return f"ismcts:{self.iterations}" if self.iterations else AI_LEVELS["normal"]
        if self.bot == "alphabeta":
            return f"alphabeta:{seconds}s" if seconds else f"alphabeta:{self.depth or 3}"
        return self.bot

    def stored(self) -> dict:
        """The settings as the database keeps them (``spec`` only when it was given)."""
        return self.model_dump(by_alias=True, exclude={"spec_"} if self.spec_ is None else set())


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)
    game: str | None = Field(default=None, max_length=64,
                             description="the game, by its registry name (GET /api/games/kinds); default: the "
                                         "game the variant names, else crown (For the Crown)")
    variant: str | None = Field(
        default=None, max_length=64,
        description="a variant of the game (For the Crown: standard, the default, point-buy, last-stand); a game's "
                    "name chooses that game (kings-ransom: King's Ransom, no supply, no options)")
    seed: int | None = Field(default=None, ge=0, le=2**62,
                             description="fixes the random Supply only; shuffles and draws use a server secret")
    supply: str | list[str] = "random"
    human: int = Field(default=0, ge=0, le=3, description="the seat the human plays: 0 Blue (moves first), 1 Yellow; "
                                                         "in King's Ransom 0 Red (moves first), 1 Blue; in a game of "
                                                         "more players any of its seats (the AI plays the others)")
    ai: AISettings = AISettings()
    options: dict[str, Any] = Field(default_factory=dict, description="further options of the game's configuration "
                                                                     "(For the Crown: engine/crown/config.py)")
    spectators: bool = Field(default=True, description="whether anyone may watch the game by its id (GET "
                                                       "/api/games/{id}/watch): the public view only; change it "
                                                       "with PATCH /api/games/{id}")
    clock: dict[str, Any] | None = Field(
        default=None, description="a time control (docs/server.md \"Clocks\"): null, untimed (the default); "
                                  "{\"base\": seconds (15..10800), \"increment\": seconds (0..600)}, each player's "
                                  "time for the game and what each turn adds; or {\"days_per_turn\": 1..30}")
    seats: list[Any] | None = Field(
        default=None, max_length=seating.MAX_SEATS,
        description="one entry per player of the game (docs/server.md \"Seats, invitations and bots\"): "
                    "{\"kind\": \"creator\"} (exactly one: yours), {\"kind\": \"human\"} (an open seat: the answer "
                    "holds its invitation code), {\"kind\": \"ai\", \"ai\": {...}} (the AI, with its own settings) or "
                    "{\"kind\": \"bot\"} (a program: the answer holds its bot token); default: you at 'human', the "
                    "AI with 'ai' everywhere else")

    @field_validator("game")
    @classmethod
    def _known_game(cls, name):
        if name is not None:
            registry.get(name)                  # UnknownGameError (a ValueError) names the known games
        return name

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, name):
        if name is not None:
            registry.for_variant(name)          # UnknownGameError names the known variants
        return name

    def chosen(self) -> registry.Game:
        """The game this body chooses: ``game``, else the game its variant names (else the default);
        a variant of another game is a ValueError."""
        game = registry.get(self.game) if self.game is not None else registry.for_variant(self.variant)
        if self.variant is not None and registry.for_variant(self.variant) is not game:
            raise ValueError(f"variant: {self.variant!r} is not a variant of {game.title} "
                             f"(its variants: {', '.join(game.variants) or 'none'})")
        return game


class GameSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    spectators: bool = Field(description="open the game to spectators (true) or close it to them (false: open "
                                         "spectator sockets are closed and its watch paths answer 404)")


class ActionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    action: int = Field(ge=0, description="an action id from the game's legal actions")
    version: int = Field(ge=1, description="the game version this action was chosen in (required: an action "
                                           "sent twice is applied once)")


# -- live games ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Snapshot:
    """One version of a game. Never changed: a change makes a new snapshot, saves it, then swaps it
    in, so every reader sees a consistent version and a failed save leaves the old one current."""

    state: GameStateProtocol
    version: int
    log: tuple
    ai_last_turn: tuple
    ai_note: str | None = None
    #: A spectator's log: the public text of each step (engine.games.view.step_for, viewer None).
    public_log: tuple = ()
    #: The log and AI-turn entries of every human or bot seat but the creator's (whose are ``log``
    #: and ``ai_last_turn``): seat -> (log, ai_last_turn), each what that seat may know.
    seat_logs: dict = field(default_factory=dict)

    def log_of(self, seat: int, creator: int) -> tuple:
        """Seat ``seat``'s log (``creator``: the creator's seat)."""
        return self.log if seat == creator else self.seat_logs.get(seat, ((), ()))[0]

    def ai_last_turn_of(self, seat: int, creator: int) -> tuple:
        """What seat ``seat`` saw of the AI's last turn."""
        return self.ai_last_turn if seat == creator else self.seat_logs.get(seat, ((), ()))[1]


@dataclass
class Live:
    id: str
    #: The creator's seat (its token: ``token_hash``); ``ai``: the game's AI settings (of its AI
    #: seats unless a seat has its own).
    human: int
    ai: AISettings
    token_hash: str
    snap: Snapshot
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: The game sockets' queues; each has a ``seat`` (whose view it is sent).
    listeners: set = field(default_factory=set)
    thinking: bool = False
    last_used: float = field(default_factory=time.monotonic)
    cached: dict = field(default_factory=dict)       # seat -> ((version, thinking), view)
    #: Whether spectators may watch it, their sockets' queues, and their view's cache.
    spectators: bool = True
    watchers: set = field(default_factory=set)
    public_cached: tuple | None = None
    #: Every seat of the game (seats.py), the new-game body a rematch repeats (None: a game from
    #: before seats), and the rematch's id once it exists.
    seats: dict = field(default_factory=dict)
    setup: dict | None = None
    rematch: str | None = None

    def others(self) -> list[int]:
        """The human and bot seats but the creator's: the seats with logs of their own."""
        return [seat for seat in seating.participants(self.seats) if seat != self.human]
    #: The game's clocks as of its current version (clocks.py); None: untimed.
    clock: Clock | None = None
    #: The seats the easy bot plays because their player left the game or did not act in time
    #: (away.py), as of its current version.
    away: tuple[int, ...] = ()


class Server:
    def __init__(self, db_path: str, ai_workers: int, ai_pool: str, ai_timeout: float, limits: Limits,
                 busy_timeout: float = 5.0, pool_size: int = POOL_SIZE):
        if not ai_timeout > 0:
            raise ValueError(f"ai_timeout must be > 0 seconds, got {ai_timeout}")
        self.store = open_store(db_path, busy_timeout=busy_timeout, pool_size=pool_size)
        self.limits = limits
        self.games: dict[str, Live] = {}
        self.ai_turn_seconds = ai_timeout
        try:
            self.pool = AIPool(ai_pool, ai_workers)       # on Ray: connects (ClusterError if it cannot)
        except BaseException:
            self.store.close()
            raise
        self.fallbacks: list[str] = []
        self.creates = RateLimiter(limits.games_per_minute / 60.0, limits.game_burst)
        self.closing = False
        #: Game WebSockets open now, by client address.
        self.client_sockets: dict[str, int] = {}
        #: The source of every secret random number (shuffles, draws, the AI's seeds): the OS's
        #: generator. Tests may put a seeded ``random.Random`` here to replay a game exactly.
        self.entropy: random.Random = secrets.SystemRandom()
        #: This server among the instances sharing its database (instances.py): fresh games, pushes
        #: from the others, AI turns once, the share of the limits.
        self.instances = Instances(self)
        #: Who this server is when it claims work in the database (a flag to handle).
        self.owner = f"server-{secrets.token_hex(8)}"
        #: Every error answer (refusals.py): the client's input never in it.
        self.refusals = Refusals()
        #: Tasks started by the sweepers (an AI turn after the easy bot took an idle seat).
        self.background: set[asyncio.Task] = set()

    def begin_shutdown(self) -> None:
        """The first step of a shutdown, as soon as it is decided (run.py calls it on SIGINT/SIGTERM,
        before the requests in flight are awaited): close every WebSocket, kill the AI's workers
        (a turn they were computing is abandoned: its game stays before the AI's turn, with a note)
        and take no new AI work. Calling it again does nothing."""
        self.closing = True
        for game in self.games.values():
            for queue in list(game.listeners) + list(game.watchers):
                _offer(queue, None)
        self.pool.close()

    def close(self) -> None:
        """The last step of a shutdown: begin_shutdown() if it was not done, then close the database.
        Calling it again does nothing."""
        self.begin_shutdown()
        self.store.close()

    async def check_playing(self, client: str) -> None:
        """A new game of ``client``, or a rematch it would make, is within ``games_per_client``: its
        games in play (counted in the database, over every instance; a game unchanged for
        ``games_idle_seconds`` does not count) are fewer; else 429."""
        limit = self.limits.games_per_client
        since = time.time() - self.limits.games_idle_seconds
        if await self.store.read(self.store.count_playing, client, since) >= limit:
            raise HTTPException(429, f"this client already has {limit} games in play; finish or resign one first "
                                     f"(or leave one unplayed for {self.limits.games_idle_seconds / 60:g} minutes)")

    # -- finding a game, with its token ----------------------------------------------------------
    async def load(self, game_id: str, token: str, fresh: bool = True) -> Live:
        """The game ``game_id`` if ``token`` is the token of one of its seats; 404 alike for a wrong
        token and an unknown id. ``fresh``: check it against the database's version (instances.fresh;
        False when this request checked it already)."""
        return (await self.seat_for(game_id, token, fresh))[0]

    async def seat_for(self, game_id: str, token: str, fresh: bool = True) -> tuple[Live, int]:
        """The game ``game_id`` and the seat whose token ``token`` is (seats.py); 404 alike for a
        wrong token and an unknown id. A token the game in memory does not know is looked up in the
        store (a seat taken through another server) before it is refused. ``fresh``: a game held in
        memory is checked against the database's version (instances.fresh)."""
        unknown = HTTPException(404, "no game with this id for this token")
        if not _TOKEN_RE.fullmatch(token) or len(game_id) > 64:
            raise unknown
        digest = hash_token(token)
        game = self.games.get(game_id)
        seat = None if game is None else seating.seat_of(game.seats, digest)
        if seat is None:
            seat = await self.store.read(self.store.seat_of, game_id, digest)
            if seat is None:
                raise unknown
            if game is None:
                game = await self._restore(game_id, unknown)
                fresh = False
            else:
                rows = await self.store.read(self.store.seats, game_id)
                game.seats = seating.seats_from_rows(rows, len(game.seats), game.ai, AISettings.model_validate)
                game.cached = {}
        if fresh:
            await self.instances.fresh(game)      # another instance may have moved it
        game.last_used = time.monotonic()
        return game, seat

    async def watched(self, game_id: str) -> Live:
        """The game ``game_id`` for a spectator (no token); 404 alike for an unknown id and a game
        not open to spectators."""
        unknown = HTTPException(404, "no game open to spectators with this id")
        if len(game_id) > 64:
            raise HTTPException(404, "no game has this id: a game id has at most 64 characters")
        game = self.games.get(game_id)
        if game is None:
            if not await self.store.read(self.store.watchable, game_id):
                raise unknown
            game = await self._restore(game_id, unknown)
        else:
            await self.instances.fresh(game)      # another instance may have moved it
        if not game.spectators:
            raise unknown
        game.last_used = time.monotonic()
        return game

    async def restore(self, game_id: str) -> Live:
        """The game ``game_id`` in memory (loaded from the store if it is not; 404 when no such game)."""
        game = self.games.get(game_id)
        return game if game is not None else await self._restore(game_id, HTTPException(404, "no game has this id"))

    async def _restore(self, game_id: str, unknown: HTTPException) -> Live:
        """Load a stored game into memory (a game another request loaded meanwhile is that one)."""
        fresh = await self._read_live(game_id, unknown)
        game = self.games.get(game_id)        # loaded by a concurrent request meanwhile
        if game is None:
            game = self.games[game_id] = fresh
            self.evict()
        return game

    async def _read_live(self, game_id: str, unknown: HTTPException) -> Live:
        """The game as the database has it now, as a new Live (not kept: the caller decides); ``unknown``
        when there is no such game. A game saved before spectators' logs were kept gets one derived
        from its record (public_log)."""
        row = await self.store.read(self.store.get, game_id)
        if row is None:
            raise unknown
        try:
            state = await asyncio.to_thread(registry.replay, row["record"])
            entry = registry.for_state(state)
            stored = row.get("public_log")
            if stored is None:
                # Saved before spectators' logs were kept: a game whose log entries are the same for
                # every viewer (the generic step) has its stored log; any other has its record replayed.
                stored = row["log"] if web_piece(entry, "step") is None else \
                    await asyncio.to_thread(public_log, entry, row["record"])
        except ValueError as exc:           # a record no game takes, or one its game refuses
            raise HTTPException(500, f"the game cannot be restored: {exc}") from None
        ai = AISettings.model_validate(row["ai"])
        seats = seating.seats_from_rows(row.get("seats", []), state.num_players, ai, AISettings.model_validate)
        seat_logs = {r["seat"]: (_stored_entries(r["log"] or [], None),
                                 _stored_entries(r["ai_last_turn"] or [], None))
                     for r in row.get("seats", []) if r["seat"] != row["human"] and r["kind"] != "ai"}
        snap = Snapshot(state, row["version"], _stored_entries(row["log"], None),
                        _stored_entries(row["ai_last_turn"], 1 - row["human"]),
                        public_log=_stored_entries(stored, None), seat_logs=seat_logs)
        return Live(game_id, row["human"], ai, row["token_hash"], snap,
                    spectators=row.get("spectators", True), seats=seats, setup=row.get("setup"),
                    rematch=row.get("rematch"), clock=Clock.from_json(row.get("clock")),
                    away=tuple(row.get("away") or ()))

    def evict(self, now: float | None = None) -> int:
        """Drop idle games from memory (they stay in SQLite): those unused for ``idle_seconds``, and
        the least recently used beyond ``live_games``. Games in use are kept."""
        now = time.monotonic() if now is None else now
        idle = sorted((g for g in self.games.values()
                       if not g.lock.locked() and not g.thinking and not g.listeners and not g.watchers),
                      key=lambda g: g.last_used)
        excess = len(self.games) - self.limits.live_games
        dropped = 0
        for game in idle:
            if excess > 0 or now - game.last_used >= self.limits.idle_seconds:
                del self.games[game.id]
                excess -= 1
                dropped += 1
        return dropped

    # -- saving: copy, save, swap -----------------------------------------------------------------
    async def commit(self, game: Live, snap: Snapshot, clock: Clock | None = None,
                     away: tuple[int, ...] | None = None) -> None:
        """Save ``snap`` as the game's next version, then make it current. On a storage failure the
        game stays as it was and StorageError propagates (503); when another instance or request
        saved this version first, the game is reloaded and instances.Superseded (409) propagates.
        The game's clocks are handed over now (clocks.py ``Clock.handover``: to the player ``snap``
        leaves to decide) from ``clock`` (default: the game's; an aborted game's stay as they are),
        and saved in the same transaction with when the server must next look at them
        (``clock_due``), whether the game now waits for the AI and this instance's claim on that
        turn (instances.py). ``away``: the seats the easy bot plays because their player left or was
        idle after this change (default: the game's); the seat whose idleness counts now is saved
        with it (away.py ``idle_seat``)."""
        clock = game.clock if clock is None else clock
        status = "over" if snap.state.is_terminal() or (clock is not None and clock.aborted) else "playing"
        record = snap.state.record()
        away = game.away if away is None else tuple(sorted(away))
        if clock is not None and not clock.aborted:
            clock = clock.handover(None if snap.state.is_terminal() else snap.state.current_player(), time.time())
        stops = self.stops(game, clock, away)
        waiting_ai = status == "playing" and snap.state.current_player() not in stops
        idle = idle_seat(snap.state, clock, stops)
        try:
            await self.store.write(self.store.update, game.id, record, status, list(snap.log),
                                   list(snap.ai_last_turn), game.snap.version, list(snap.public_log),
                                   {seat: (list(log), list(last)) for seat, (log, last) in snap.seat_logs.items()},
                                   None if clock is None else clock.to_json(),
                                   # A game waiting for the AI has no flag to sweep: the AI's turn judges
                                   # its own seat's clock, without the turn's wait for a worker (flag).
                                   None if waiting_ai else self.clock_due(game, clock, snap.state), waiting_ai,
                                   self.instances.ai_claim(waiting_ai), list(away),
                                   None if idle is None else (idle, time.time()))
        except StaleVersion:
            raise await self.instances.superseded(game) from None
        game.snap = snap
        game.clock = clock
        game.away = away
        game.cached = {}
        game.public_cached = None

    def step(self, game: Live, state: GameStateProtocol, log: list, public: list, player: int, action: int,
             others: dict | None = None) -> None:
        """Apply one action to ``state`` (a copy); log what the creator's seat may know of it in
        ``log``, what each other human or bot seat may in ``others[seat]`` (a list each) and what a
        spectator may in ``public`` (the game's ``WebBoard.step`` for each, else the action's text and
        fields: engine.games.view.step_for)."""
        seats = list(others or {})
        spectator, seat, *theirs = step_for(registry.for_state(state), state, player, action,
                                            (None, game.human, *seats))
        log.append(seat)
        public.append(spectator)
        for other, entry in zip(seats, theirs):
            others[other].append(entry)
        if state.is_terminal():
            for entries in (log, public, *(others or {}).values()):
                entries.append(game_over_entry(state))

    def act_snapshot(self, game: Live, player: int, action: int) -> Snapshot:
        """The game's next snapshot after ``player``'s ``action`` (the AI's last turn unchanged)."""
        snap = game.snap
        new_state, entries, public = snap.state.clone(), [], []
        others = {seat: [] for seat in game.others()}
        self.step(game, new_state, entries, public, player, action, others)
        return Snapshot(new_state, snap.version + 1, snap.log + tuple(entries), snap.ai_last_turn,
                        public_log=snap.public_log + tuple(public),
                        seat_logs={seat: (snap.log_of(seat, game.human) + tuple(others[seat]),
                                          snap.ai_last_turn_of(seat, game.human)) for seat in others})

    # -- views --------------------------------------------------------------------------------------
    def view(self, game: Live, seat: int | None = None) -> dict:
        """Seat ``seat``'s view of the game now (default: the creator's; cached per version): built
        from that seat's observation, with its own log and AI-turn entries."""
        seat = game.human if seat is None else seat
        snap = game.snap
        key = (snap.version, game.thinking)
        cached = game.cached.get(seat)
        if cached is None or cached[0] != key:
            cached = game.cached[seat] = (key, self._build(game, seat, list(snap.log_of(seat, game.human)),
                                                           list(snap.ai_last_turn_of(seat, game.human)),
                                                           snap.ai_note))
        return self._away(game, self._clocked(game, cached[1], seat), seat)

    def public_view(self, game: Live) -> dict:
        """A spectator's view of the game now (cached per version): the game's view for viewer None,
        with the spectators' log; no AI turn panel nor note (they are the seat's)."""
        snap = game.snap
        key = (snap.version, game.thinking)
        if game.public_cached is None or game.public_cached[0] != key:
            game.public_cached = (key, self._build(game, None, list(snap.public_log), [], None))
        return self._away(game, self._clocked(game, game.public_cached[1], None), None)

    @staticmethod
    def _away(game: Live, view: dict, seat: int | None) -> dict:
        """A view with the seats the easy bot plays because their player left or was idle
        (``away``, only when there are some: away.py); such a seat's own view has no action."""
        if not game.away:
            return view
        shown = {**view, "away": list(game.away)}
        if seat in game.away:
            shown["your_turn"], shown["actions"] = False, []
        return shown

    def _clocked(self, game: Live, view: dict, seat: int | None) -> dict:
        """A view with the game's clocks at this moment (``clock``: clocks.py ``Clock.view``; an
        untimed game's view has none, as before clocks existed); a game lost on time says so as its
        result (``over``: "Blue ran out of time"), an aborted one is over with no result (``over``:
        "aborted: ...", no winner, no decision); a seat whose time ran out (a game without
        resignation: the easy bot plays it) has no action (``seat``: the viewer's seat, None for a
        spectator)."""
        if game.clock is None:
            return view
        clock = game.clock
        shown = {**view, "clock": clock.view(time.time(), clock.abort_at(self.ready_at(game), self.first_move(clock)))}
        if clock.reason and game.snap.state.is_terminal():
            shown["over"] = clock.reason
        if clock.aborted:                  # no result: over, nobody to decide, nobody won
            shown.update(status="over", over=clock.reason, winner=None, deciding=None, your_turn=False, actions=[])
        if seat is not None and seat in clock.out:
            shown["your_turn"], shown["actions"] = False, []
        return shown

    def _build(self, game: Live, viewer: int | None, log: list, ai_last_turn: list, ai_note: str | None) -> dict:
        snap = game.snap
        entry = registry.for_state(snap.state)
        view = game_view(entry, game.id, snap.version, snap.state, viewer, game.thinking, log, ai_last_turn, ai_note)
        return {**view, **seating.view_fields(game.seats, game.human, viewer, game.rematch)}

    async def broadcast(self, game: Live) -> None:
        """Offer the new view to every socket of the game (never waiting for one: a full queue keeps
        only the newest view)."""
        for queue in list(game.listeners):
            _offer(queue, self.view(game, queue.seat))        # each socket its own seat's view
        if game.watchers:
            view = self.public_view(game)
            for queue in list(game.watchers):
                _offer(queue, view)

    async def close_to_spectators(self, game: Live) -> None:
        """The game is closed to spectators: its spectator sockets are told to close."""
        game.spectators = False
        for queue in list(game.watchers):
            _offer(queue, _CLOSED)

    # -- clocks (clocks.py, docs/server.md "Clocks") -------------------------------------------------------
    def over_reason(self, game: Live) -> str:
        """How the game ended, as its views say it ("Blue ran out of time" when a flag ended it,
        "aborted: ..." when it never started)."""
        if game.clock is not None and game.clock.reason:
            return game.clock.reason
        return game.snap.state.over_reason

    def over(self, game: Live) -> bool:
        """Whether the game is over: ended by its rules (a resignation, a flag), or aborted before
        its start (clocks.py "The start": no result)."""
        return game.snap.state.is_terminal() or (game.clock is not None and game.clock.aborted)

    def first_move(self, clock: Clock) -> float:
        """The seconds a turn before the start of a game with ``clock`` may take."""
        return clock.control.first_move_seconds(self.limits.first_move_seconds)

    def ready_at(self, game: Live, state: GameStateProtocol | None = None) -> float | None:
        """When the limit of a turn before the start may begin (clocks.py ``Clock.abort_at``): when
        the last human or bot seat was taken; None while a seat is open or when the AI decides
        (``state``: the game's state to judge by, default its own): no limit runs then."""
        state = game.snap.state if state is None else state
        if state.is_terminal() or state.current_player() not in self.stops(game):
            return None
        seats = [game.seats[seat] for seat in seating.participants(game.seats)]
        if any(s.token_hash is None for s in seats):
            return None
        return max((s.joined or 0.0) for s in seats)

    def clock_due(self, game: Live, clock: Clock | None = None, state: GameStateProtocol | None = None) -> float | None:
        """When the server must next look at the game's clocks (the database's ``flag_at``, which the
        flag sweeper finds): the running player's flag once started, before it the abort of the
        turn (``Clock.abort_at``); None when nothing is due."""
        clock = game.clock if clock is None else clock
        if clock is None:
            return None
        if clock.started:
            return clock.flag_at
        return clock.abort_at(self.ready_at(game, state), self.first_move(clock))

    async def rearm(self, game: Live) -> None:
        """After a seat was taken (here or on another instance): a timed game before its start gets
        the limit of its turn from now on, from fresh seats (the caller holds the game's lock). The
        stored ``flag_at`` is written at the game's version; when another instance moved the game
        meanwhile, it is reloaded and the limit written again."""
        for _ in range(3):
            clock = game.clock
            if clock is None or clock.started or self.over(game):
                return
            rows = await self.store.read(self.store.seats, game.id)
            game.seats = seating.seats_from_rows(rows, len(game.seats), game.ai, AISettings.model_validate)
            game.cached = {}
            game.public_cached = None
            if await self.store.write(self.store.set_flag_at, game.id, game.snap.version, self.clock_due(game)):
                return
            if not await self.instances.reload(game):
                return                                     # deleted meanwhile

    def stops(self, game: Live, clock: Clock | None = None, away: tuple[int, ...] | None = None) -> tuple[int, ...]:
        """The seats the AI never plays: every human and bot seat, but those out of time in a game
        without resignation and those whose player left or was idle (away.py): the easy bot plays
        them from then on. ``clock`` and ``away``: the game's clocks and away seats to judge by
        (default: its own)."""
        clock = game.clock if clock is None else clock
        away = game.away if away is None else away
        out = () if clock is None else clock.out
        return tuple(seat for seat in seating.participants(game.seats) if seat not in out and seat not in away)

    def decider(self, game: Live) -> str:
        """Who is to decide now, as a refusal names them: "the AI" (an AI seat, a seat the easy bot
        plays, or the AI thinking) or "seat N"."""
        seat = game.snap.state.current_player()
        return "the AI" if game.thinking or seat not in self.stops(game) else f"seat {seat}"

    def seat_decides(self, game: Live, seat: int | None = None) -> bool:
        """Whether the game waits for the decision of ``seat`` (default: of any human or bot seat):
        not over, that seat to decide, and the seat not played by the easy bot after running out of
        time."""
        state = game.snap.state
        if self.over(game):
            return False
        stops = self.stops(game)
        return state.current_player() in stops if seat is None else \
            (state.current_player() == seat and seat in stops)

    async def flag(self, game: Live, by_ai_turn: bool = False) -> bool:
        """Handle the running player's flag if their time is out now (the caller holds the game's
        lock): True when it was (the change is saved and pushed). In a game with resignation the
        player resigns on time: the record holds their resignation (it replays), the log says it was
        the clock, and the game's result is "<Seat> ran out of time". In a game without (Crownfall)
        the seat plays on untimed, taken by the easy bot (the greedy bot), and the log says so.
        Before the game's start no clock runs: a turn past its limit aborts the game
        instead (``_abort_if_due``). A StorageError (the optimistic version check included) leaves
        the game as it was. A seat the AI plays is flagged by its own turn alone (``by_ai_turn``:
        play_ai_turn found it out of time on its worker's clock, ``_clock_through``), never by the
        wall time since its turn began: that counts the turn's wait for a worker, which is the
        server's time."""
        clock, snap, now = game.clock, game.snap, time.time()
        if clock is None or self.over(game):
            return False
        if not clock.started:
            return await self._abort_if_due(game, now)
        if not clock.flagged(now):
            return False
        if not by_ai_turn and clock.running not in self.stops(game):
            return False
        player = clock.running
        entry = registry.for_state(snap.state)
        seat = entry.seat(player)
        state, turn = snap.state.clone(), snap.state.turn_number
        resign_in = web_piece(entry, "resign")
        if resign_in is not None:
            fields = resign_in(state, player)
            reason = f"{seat} ran out of time"
            entries = ({"turn": turn, "player": player, "text": "ran out of time (the clock): resigns",
                        "fields": fields},
                       {"turn": state.turn_number, "player": None, "text": f"game over: {reason}", "fields": None})
            after = clock.lost_on_time(reason)
        else:
            entries = ({"turn": turn, "player": None, "fields": None,
                        "text": f"{seat} ran out of time: the easy bot plays this seat from now on, untimed"},)
            after = clock.out_of_time(player, now, player)
        new = Snapshot(state, snap.version + 1, snap.log + entries, snap.ai_last_turn, snap.ai_note,
                       snap.public_log + entries,
                       {other: (snap.log_of(other, game.human) + entries, snap.ai_last_turn_of(other, game.human))
                        for other in game.others()})
        await self.commit(game, new, after)
        log.info("game %s: %s ran out of time", game.id, seat)
        await self.broadcast(game)
        if resign_in is None:
            await self.ai_move(game)
        return True

    async def _abort_if_due(self, game: Live, now: float) -> bool:
        """Abort a timed game before its start whose turn is past its limit (``clock_due``, judged
        on fresh seats: a seat taken on another instance moves the limit), with no result: nobody's
        time was taken, nobody loses; every seat's log and the spectators' say so. A limit that moved
        is written again (``rearm``). True when the game was aborted."""
        due = self.clock_due(game)
        if due is None or now < due:
            return False
        await self.rearm(game)                    # fresh seats; the stored limit follows them
        due = self.clock_due(game)
        if due is None or now < due or self.over(game):
            return False
        snap, clock = game.snap, game.clock
        player = snap.state.current_player()
        reason = (f"aborted: {registry.for_state(snap.state).seat(player)} did not move within "
                  f"{seconds_text(self.first_move(clock))} and the game had not started; no result")
        entries = ({"turn": snap.state.turn_number, "player": None, "text": reason, "fields": None},)
        new = Snapshot(snap.state, snap.version + 1, snap.log + entries, snap.ai_last_turn, snap.ai_note,
                       snap.public_log + entries,
                       {other: (snap.log_of(other, game.human) + entries, snap.ai_last_turn_of(other, game.human))
                        for other in game.others()})
        await self.commit(game, new, clock.abort(reason))
        log.info("game %s: %s", game.id, reason)
        await self.broadcast(game)
        return True

    async def sweep_flags(self) -> int:
        """One round of the flag sweeper: every game whose running clock ran out (one query on the
        database's ``flag_at`` index) is claimed ("flag", at its version) so that exactly one server
        handles it, brought up to its stored version, its flag handled, and the claim released. A
        claim held by another server is left to it (until its lease runs out: then it is taken
        over). A game busy on this server (its lock held: an action, which checks the flag first,
        or the AI's turn, whose commit does) is left to that work and to the next round: the
        sweeper never waits for a game. Returns how many flags this server handled."""
        handled = 0
        for game_id, version in await self.store.read(self.store.due_flags, time.time()):
            if not await self.store.write(self.store.claim, game_id, "flag", self.owner,
                                          self.limits.flag_lease_seconds, version):
                continue
            try:
                game = await self._current(game_id)
                if game is not None and not game.lock.locked():
                    async with game.lock:
                        if await self.flag(game):
                            handled += 1
            finally:
                await self.store.write(self.store.release, game_id, "flag", self.owner)
        return handled

    # -- seats that walk away (away.py) ------------------------------------------------------------
    async def take_seat(self, game: Live, seat: int, text: str) -> None:
        """The easy bot plays ``seat`` from now on (its player left, or did not act in time; the
        caller holds the game's lock): saved as a new version whose log entry, in every seat's log
        and the spectators', is ``text``, then pushed. The AI's turn that may follow is the
        caller's. A StorageError (the optimistic version check included) leaves the game as it was."""
        snap = game.snap
        entries = ({"turn": snap.state.turn_number, "player": None, "fields": None, "text": text},)
        new = Snapshot(snap.state, snap.version + 1, snap.log + entries, snap.ai_last_turn, snap.ai_note,
                       snap.public_log + entries,
                       {other: (snap.log_of(other, game.human) + entries, snap.ai_last_turn_of(other, game.human))
                        for other in game.others()})
        await self.commit(game, new, away=game.away + (seat,))
        log.info("game %s: %s", game.id, text)
        await self.broadcast(game)

    async def sweep_idle(self) -> int:
        """One round of the idle sweeper (with the flag sweeper's): every game whose deciding human or
        bot seat has not acted within ``Limits.idle_seat_seconds`` (one query: GameStore.due_idle) is
        claimed ("idle", at its version) so that exactly one server handles it, brought up to its
        stored version, and, still at that version, has the seat taken by the easy bot
        (``take_seat``); the bot's turn then runs in a task of its own (the sweeper never waits for
        an AI turn), and the claim is released. A game busy on this server is left to the next round.
        Returns how many seats this round took."""
        limit = self.limits.idle_seat_seconds
        taken = 0
        for game_id, version in await self.store.read(self.store.due_idle, time.time() - limit):
            if not await self.store.write(self.store.claim, game_id, IDLE_CLAIM, self.owner,
                                          self.limits.flag_lease_seconds, version):
                continue
            try:
                game = await self._current(game_id)
                if game is None or game.lock.locked():
                    continue
                async with game.lock:
                    seat = None if game.snap.version != version else idle_seat(game.snap.state, game.clock,
                                                                              self.stops(game))
                    if seat is None:
                        continue
                    name = registry.for_state(game.snap.state).seat(seat)
                    await self.take_seat(game, seat, f"{name} did not act for {idle_text(limit)}: the easy bot "
                                                     "plays this seat from now on")
                    taken += 1
                self._later(self._ai_after(game))
            finally:
                await self.store.write(self.store.release, game_id, IDLE_CLAIM, self.owner)
        return taken

    async def _ai_after(self, game: Live) -> None:
        async with game.lock:
            await self.ai_move(game)

    def _later(self, work) -> None:
        """Run ``work`` (a coroutine) in a task of its own, kept until it ends; its failure is logged."""
        task = asyncio.get_running_loop().create_task(work)
        self.background.add(task)

        def ended(done: asyncio.Task) -> None:
            self.background.discard(done)
            if not done.cancelled() and done.exception() is not None:
                log.error("a background task failed: %s", done.exception())
        task.add_done_callback(ended)

    async def _current(self, game_id: str) -> Live | None:
        """The game as the database has it now: loaded if it is not in memory, reloaded in place
        (its sockets kept: instances.reload) if another server changed it since; None when it was
        deleted."""
        game = self.games.get(game_id)
        try:
            if game is None:
                return await self._restore(game_id, HTTPException(404, "deleted"))
        except HTTPException:
            return None
        version = await self.store.read(self.store.version, game_id)
        if version is None:
            return None
        if version > game.snap.version and not game.lock.locked():
            async with game.lock:
                await self.instances.reload(game)
        return game

    # -- the AI -------------------------------------------------------------------------------------
    async def ai_move(self, game: Live, client: str = "") -> None:
        """Let the AI take its turn if it is due, once over every instance sharing the database
        (instances.py: under this instance's claim, or the result of the instance that holds it).
        The caller holds the game's lock."""
        await self.instances.run_ai(game, client, self.play_ai_turn)

    async def play_ai_turn(self, game: Live, client: str = "") -> None:
        """Let the AI take its turn (until the human must decide or the game ends), queued as
        ``client``'s work in the AI pool. The caller holds the game's lock. A storage failure keeps
        the game before the AI's turn (the human's own action, already saved, stays) and says so in
        the view's ``ai_note``; so does every fallback to the greedy bot."""
        snap = game.snap
        stops = self.stops(game)          # the seats the AI never plays
        if self.over(game) or snap.state.current_player() in stops:
            return
        game.thinking = True
        flagged = False
        try:
            await self.broadcast(game)
            seed = self.entropy.getrandbits(63)   # the AI's randomness: a server secret
            notes: list[str] = []
            times: list[float] = []
            specs = {seat: s.ai.spec(self.limits.ai_max_seconds) for seat, s in game.seats.items() if s.kind == "ai"}
            # One spec for all AI seats when they agree; "greedy" when no seat is the AI's (every seat
            # the AI plays ran out of time in a game without resignation: the greedy bot plays it).
            spec = specs if len(set(specs.values())) > 1 else next(iter(specs.values()), "greedy")
            human = stops if len(stops) != 1 else stops[0]
            quick = instant(spec)                 # an instant bot's turn never waits behind a search
            try:
                if not quick:
                    await self.pool.ready()       # a worker's start-up is no turn's time
                plan = self.ai_clocks(game)
                if plan is None:
                    result = await self.pool.run(ai_turn, snap.state.record(), spec, seed, human,
                                                 seconds=self.ai_turn_seconds, client=client, priority=TURN,
                                                 instant=quick)
                else:
                    result = await self.pool.run(timed_turn, snap.state.record(), spec, seed, human,
                                                 plan, seconds=self.ai_turn_seconds, client=client,
                                                 priority=TURN, instant=quick)
                actions, notes, times, began = result.actions, list(result.fallbacks), result.times, result.began
                state, entries, public = self._play_out(game, snap, actions)
            except AIClosed as exc:
                log.warning("game %s: the AI's turn was abandoned: %s", game.id, exc)
                game.snap = Snapshot(snap.state, snap.version, snap.log, snap.ai_last_turn,
                                     "the server shut down during the AI's turn; ask the AI to move again "
                                     "when it is back", snap.public_log, snap.seat_logs)
                return
            except (AIFailure, ValueError) as exc:     # ValueError: the game refused an action of the AI
                notes = [f"the AI's search failed ({exc}): the greedy bot took this turn"]
                began = time.time()               # the failed attempt was the server's time, not the seat's
                actions = await asyncio.to_thread(greedy_turn, snap.state.clone(), stops, seed)
                times = []
                state, entries, public = self._play_out(game, snap, actions)
            for note in notes:
                log.warning("game %s: %s", game.id, note)
                self.fallbacks.append(note)
            clock, standing = self._clock_through(game, snap.state, actions, times, began)
            flagged = standing < len(actions)
            if flagged:                         # a seat's time ran out in this turn: its turn is void
                actions = actions[:standing]
                state, entries, public = self._play_out(game, snap, actions)
            entries, others = entries

            def last_turn(seen, seat):         # what ``seat`` saw of this AI turn
                return tuple(e for e in seen if e["player"] is not None and e["player"] != seat)

            new = Snapshot(state, snap.version + 1, snap.log + tuple(entries), last_turn(entries, game.human),
                           "; ".join(notes) if notes else None,   # every fallback is shown to the player
                           snap.public_log + tuple(public),
                           {seat: (snap.log_of(seat, game.human) + tuple(seen), last_turn(seen, seat))
                            for seat, seen in others.items()})
            try:
                if actions:
                    await self.commit(game, new, clock)
            except StorageError as exc:
                flagged = False
                log.error("game %s: the AI's turn could not be saved: %s", game.id, exc)
                game.snap = Snapshot(snap.state, snap.version, snap.log, snap.ai_last_turn,
                                     f"the AI's turn could not be saved ({exc}); ask the AI to move again",
                                     snap.public_log, snap.seat_logs)
                game.cached = {}
                game.public_cached = None
        finally:
            game.thinking = False
            game.cached = {}
            game.public_cached = None
            await self.broadcast(game)
        if flagged:
            await self.flag(game, by_ai_turn=True)

    def ai_clocks(self, game: Live) -> dict | None:
        """What an AI turn keeps to beyond its deadline (ai.py ``timed_turn``), None when nothing: the
        seconds each timed seat of the AI may think in this turn (clocks.py ``turn_budget`` of its
        time left, its turn counted from now: the turn's wait for a worker is not its time) and the
        seats the greedy bot plays (out of time, or away: away.py)."""
        if game.clock is None:
            return {"budgets": {}, "greedy": list(game.away)} if game.away else None
        now = time.time()
        clock = game.clock.resumed(now)
        budgets = {str(p): turn_budget(clock.left(p, now), clock.control) for p in range(len(clock.remaining))
                   if p in game.seats and game.seats[p].kind == "ai" and clock.remaining[p] is not None}
        return {"budgets": budgets, "greedy": sorted(set(clock.out) | set(game.away))}

    def _clock_through(self, game: Live, state: GameStateProtocol, actions: list[int],
                       times: list[float], began: float | None = None) -> tuple[Clock | None, int]:
        """The game's clocks after an AI turn's ``actions`` from ``state``. The seat whose turn it
        was is charged from when the AI's turn started on its worker (``began``; None: from its
        turn's start): the time the turn waited for a worker is the server's, not the seat's. Each
        seat's turn is handed over when its last decision was made (``times``, the worker's clock,
        kept within the turn's start and now; a decision without a time: now), so every seat of a
        turn of several seats is charged its own time; the seat that decides after the turn is
        counted from now (the commit), never from the worker's last decision. Also returns how many
        of the actions stand: all, or those before the turn of a seat whose time ran out before it
        handed over (its turn is void: the flag is handled)."""
        clock = game.clock
        if clock is None:
            return None, len(actions)
        now = time.time()
        if began is not None:
            clock = clock.resumed(min(now, began))
        at = clock.turn_started if clock.turn_started is not None else now
        state, turn_began = state.clone(), 0
        for i, action in enumerate(actions):
            state.apply(action)
            at = min(now, max(at, times[i] if i < len(times) else now))
            following = None if state.is_terminal() else state.current_player()
            if following != clock.running:
                if clock.flagged(at):
                    return clock, turn_began
                clock, turn_began = clock.handover(following, at), i + 1
        return clock.resumed(now), len(actions)

    def _play_out(self, game: Live, snap: Snapshot, actions: list[int]) -> tuple[GameStateProtocol, tuple, list]:
        """The AI's actions applied to a copy: the state, (the creator's entries, every other human or
        bot seat's: seat -> entries) and a spectator's entries."""
        state, entries, public = snap.state.clone(), [], []
        others = {seat: [] for seat in game.others()}
        for action in actions:
            self.step(game, state, entries, public, state.current_player(), action, others)
        return state, (entries, others), public


def _stored_entries(entries: list, player: int | None) -> tuple:
    """Log or AI-turn entries as stored. A database written before entries had fields holds log
    entries without them and AI-turn lines as bare texts (of ``player``): their fields are None
    (unknown), as for an entry whose action is hidden."""
    return tuple({"fields": None, **entry} if isinstance(entry, dict)
                 else {"turn": None, "player": player, "text": entry, "fields": None} for entry in entries)


_LEVELS: dict[str, bool] = {}


def game_levels(game: registry.Game) -> dict[str, str]:
    """The AI levels the new-game form offers for ``game``, level -> bot spec: the game's own
    (``Game.ai_levels``), else the server's AI_LEVELS when its bots take them, else none (the form
    then offers its bots by name)."""
    if game.bots.ai_levels:
        return dict(game.bots.ai_levels)
    return dict(AI_LEVELS) if takes_levels(game) else {}


def check_levels(games) -> None:
    """Every game's own AI levels are named as the server's levels (AISettings.level) and map to a
    spec; a ValueError names the game and the level."""
    for game in games:
        for level, spec in game.bots.ai_levels.items():
            if level not in AI_LEVELS or not isinstance(spec, str) or not spec:
                raise ValueError(f"game {game.name!r}: ai_levels[{level!r}]: expected one of the levels "
                                 f"{', '.join(AI_LEVELS)} mapped to a bot spec, got {spec!r}")


def takes_levels(game: registry.Game) -> bool:
    """Whether ``game`` has a bot for each of the server's AI levels (AI_LEVELS): then the new-game
    form offers the levels, else the game's own bots by name."""
    if game.name not in _LEVELS:
        try:
            for spec in AI_LEVELS.values():
                game.bots.make_bot(spec, 0)
            _LEVELS[game.name] = True
        except ValueError:
            _LEVELS[game.name] = False
    return _LEVELS[game.name]


def kind_of(game: registry.Game) -> dict:
    """What the home page says of a registered game (GET /api/games/kinds); ``bot_labels``: each bot
    spec its menus offer (the levels' and the bots' by name) in words (``Game.bot_label``)."""
    return {"name": game.name, "title": game.title, "description": game.description,
            "players": [game.players.start, game.players.stop - 1], "seats": [game.seat(p) for p in range(game.players.stop - 1)],
            "variants": list(game.variants), "aliases": list(game.aliases),
            "docs": f"/rules/{game.docs}" if game.docs else None, "module": board_module(game),
            "bots": list(game.bots.bot_names), "levels": bool(game_levels(game)), "ai_levels": game_levels(game),
            "bot_labels": {spec: game.bot_label(spec) for spec in (*game_levels(game).values(), *game.bots.bot_names)},
            "form": game_form(game)}


def game_form(game: registry.Game) -> list | None:
    """The game's own fields of the new-game form (its ``WebBoard.form``), or None."""
    make = web_piece(game, "form")
    return make() if make is not None else None


def _offer(queue: asyncio.Queue, item) -> None:
    """Put ``item`` in a bounded queue of views, dropping the stale view it may still hold."""
    while True:
        try:
            queue.put_nowait(item)
            return
        except asyncio.QueueFull:
            try:
                queue.get_nowait()
            except asyncio.QueueEmpty:
                pass


# -- the app -------------------------------------------------------------------------------------
def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "ftc-engine" / "games.sqlite3"


def bearer(request_headers) -> str:
    """The bearer token of an Authorization header; 401 when there is none."""
    value = request_headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "this game needs its token: send 'Authorization: Bearer <token>' (the token "
                                 "was returned when the game was created)", headers={"WWW-Authenticate": "Bearer"})
    return token.strip()


def create_app(db_path: str | Path | None = None, ai_workers: int = 2, ai_pool: str = "process",
               ai_timeout: float = 120.0, limits: Limits | None = None, busy_timeout: float = 5.0,
               hint_bot: str = AI_LEVELS["normal"], pool_size: int = POOL_SIZE, allow_origins=()) -> FastAPI:
    """The server app. ``db_path``: where the games are kept: an SQLite file (a path or
    sqlite:///PATH) or a PostgreSQL database (postgresql://USER:PASSWORD@HOST:PORT/DATABASE, a pool of
    ``pool_size`` connections); store.open_store. ``ai_pool``: where the AI thinks: "process" (``ai_workers`` processes of this
    machine), "thread" (tests), "ray" (a local Ray with ``ai_workers`` CPUs, or the one ``RAY_ADDRESS``
    names) or "ray://HOST:PORT" (a Ray cluster; ClusterError when nothing answers there).
    ``ai_timeout``: seconds one whole AI turn may take (its search keeps to it;
    the greedy bot takes what is left). ``busy_timeout``: seconds a save waits for a locked database
    before it answers 503. ``hint_bot``: the ismcts spec hints search with (player_tools.py).
    ``allow_origins``: origins whose pages may use the API besides the server's own (guard.py
    ``SameOrigin``: a reverse proxy's public origin; ValueError names one that is not an origin).
    Raises StorageError when the database cannot be opened."""
    origins = [origin_of(text) for text in allow_origins]       # checked before anything is opened
    server = Server(str(db_path or default_db_path()), ai_workers, ai_pool, ai_timeout, limits or Limits(),
                    busy_timeout, pool_size)
    # The games' own pages (For the Crown's analysis board and catalog): WebBoard.pages.
    try:
        check_levels(registry.games())
        pages = [named(ref)(server.limits, STATIC) for game in registry.games() if game.web is not None
                 for ref in game.web.pages]
    except BaseException:
        server.close()
        raise

    @asynccontextmanager
    async def lifespan(_app):
        async def sweep():
            while True:
                await asyncio.sleep(min(60.0, max(1.0, server.limits.idle_seconds / 4)))
                server.evict()

        async def flags():
            while True:                    # at once on start: a flag that fell while no server ran
                for name, sweep in (("flag", server.sweep_flags), ("idle", server.sweep_idle)):   # away.py
                    try:
                        await sweep()
                    except StorageError as exc:
                        log.warning("the %s sweeper: %s", name, exc)
                    except Exception:              # noqa: BLE001 - the sweeper never stops
                        log.exception("the %s sweeper failed", name)
                await asyncio.sleep(server.limits.flag_poll_seconds)

        sweeper = asyncio.create_task(sweep())
        flagger = asyncio.create_task(flags())
        try:
            await server.instances.start()        # several instances on one database (instances.py)
            yield
        finally:
            sweeper.cancel()
            await server.instances.stop()
            flagger.cancel()
            for task in list(server.background):
                task.cancel()
            for extra in pages:
                extra.close()
            server.close()

    app = FastAPI(
        lifespan=lifespan,
        # /docs is served below from vendored Swagger UI files (no CDN: it works offline); ReDoc,
        # which would load from a CDN, is off.
        docs_url=None,
        redoc_url=None,
        # No redirect from /path/ to /path: its Location would be built from the client's Host header.
        redirect_slashes=False,
        title="ftc-engine",
        version=__version__,
        description="Play For the Crown, King's Ransom or any registered game (GET /api/games/kinds) against the "
                    "engine. Create a game to get its token; send it as "
                    "`Authorization: Bearer <token>` on every request of that game. Every game action is an "
                    "integer id taken from the game's `actions` list; the server only ever sends the human "
                    "player's own observation.",
    )
    app.state.server = server
    #: The per-client request limiter (guard.py); instances.py sets its rate to this instance's share.
    server.request_limiter = RateLimiter(server.limits.requests_per_second, server.limits.request_burst)
    for extra in pages:
        setattr(app.state, extra.name, extra)       # app.state.analysis: the analysis board

    async def seat_for(request: Request, game_id: str) -> tuple[Live, int]:
        """The game of the request's token and the seat the token is (seats.py); checked against the
        database's version unless this request's token check did it (instances.fresh)."""
        return await server.seat_for(game_id, bearer(request.headers), fresh=request.scope.get(_CHECKED) != game_id)

    # Every error answer is made by server.refusals (refusals.py): it names the field, never the value.
    @app.exception_handler(StorageError)
    async def _storage_error(request: Request, exc: StorageError):
        log.error("storage: %s", exc)
        return server.refusals.answer(request.scope, 503, f"storage is unavailable, nothing was changed: {exc}",
                                      {"Retry-After": "1"})

    @app.exception_handler(StarletteHTTPException)
    async def _refused(request: Request, exc: StarletteHTTPException):
        return server.refusals.answer(request.scope, exc.status_code, exc.detail, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        model = body_model(request.scope.get("route"))
        return server.refusals.answer(request.scope, 422, validation_errors(exc.errors(), model))

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    for extra in pages:
        app.include_router(extra.router)
    app.include_router(rules_router)          # /rules: the rules pages (docs/rules/)

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/docs", include_in_schema=False)
    def _docs():
        """The interactive API documentation: Swagger UI from static/docs/ (README.md there says which
        version of swagger-ui-dist), so every URL of the page is on this server."""
        page = get_swagger_ui_html(
            openapi_url=app.openapi_url, title=f"{app.title} - API",
            swagger_js_url="/static/docs/swagger-ui-bundle.js", swagger_css_url="/static/docs/swagger-ui.css",
            swagger_favicon_url=DOCS_FAVICON,
            # No online validator badge: it would send the schema's address to validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )
        # Its one inline script (Swagger UI's set-up) is allowed by its hash; nothing else inline.
        inline = [m.group(1) for m in _INLINE_SCRIPT.finditer(page.body.decode("utf-8"))]
        page.headers["content-security-policy"] = docs_policy(inline[0]) if len(inline) == 1 else \
            CONTENT_SECURITY_POLICY
        return page

    @app.get("/api/games/kinds", summary="The games this server plays (the registry): name, title, players, "
                                         "variants, bots, rules page, board module")
    def kinds():
        return {"default": registry.DEFAULT_GAME, "games": [kind_of(game) for game in registry.games()]}

    @app.get("/api/units/reach", summary="Where each unit type may march and capture, alone on an empty board")
    def units_reach(square: str | None = None):
        """Each unit type of the catalog alone on an empty board, flat and cylindrical (Compass mode,
        16.0): its march, attack, shoot and swap squares as the kernel generates them (reach.py). From
        ``square`` (a1..h8) if given, else from d4 (d2 for a unit with a first-move step) flat and b4
        (b2) cylindrical."""
        try:
            return {"units": catalog_reach(default_catalog(), square)}
        except ValueError as exc:
            raise HTTPException(422, f"square: {exc}") from None

    @app.get("/api/health", summary="Whether the server is up, with counters (no game is named)")
    def health():
        return {"status": "ok", "games_in_memory": len(server.games), "ai_cluster": server.pool.cluster.kind,
                "ai_restarts": server.pool.restarts, "ai_fallbacks": len(server.fallbacks),
                "instance": server.instances.id, "instances": server.instances.live,
                "ai_takeovers": server.instances.takeovers, "echoes_scrubbed": server.refusals.scrubbed}

    @app.post("/api/games", status_code=201,
              summary="Create a game; the answer holds the seat's token (keep it: it is never shown again)")
    async def new_game(body: NewGame, request: Request):
        client = client_key(request.scope)
        wait = server.creates.take(client)
        if wait > 0:
            raise HTTPException(429, "too many new games from this client; slow down",
                                headers={"Retry-After": str(max(1, round(wait + 0.5)))})
        repeated = sorted({"variant", "seed", "supply"} & set(body.options))
        if repeated:
            raise HTTPException(422, f"options: {', '.join(repeated)} go at the top level of the body, not in options")
        await server.instances.check_new_game(client)      # over every instance (instances.py)
        await server.check_playing(client)
        try:
            entry = body.chosen()
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        ai = _game_ai(entry, body.ai if "ai" in body.model_fields_set else None)
        try:
            control = parse_control(body.clock, server.limits.clock_min_base)
        except ClockError as exc:
            raise HTTPException(422, str(exc)) from None
        human_given = "human" in body.model_fields_set
        creators = [i for i, seat in enumerate(body.seats or ())
                    if isinstance(seat, dict) and seat.get("kind") == "creator"]
        if not human_given and creators:
            body = body.model_copy(update={"human": creators[0]})    # the creator's seat (a game's form may use it)
        state = _new_state(entry, body, server.entropy, seats_given=body.seats is not None)
        kinds = seating.plan(body.seats, state.num_players, body.human, human_given)
        creator = next(seat for seat, (kind, _) in enumerate(kinds) if kind == "creator")
        seats, secrets_of = {}, {}
        for seat, (kind, settings) in enumerate(kinds):
            if kind == "ai":
                seats[seat] = Seat("ai", ai=ai if settings is None else _seat_ai(entry, seat, settings))
            elif kind == "human":
                secrets_of[seat] = seating.new_secret()        # its invitation code
                seats[seat] = Seat("human")
            else:
                secrets_of[seat] = seating.new_secret()        # the creator's token, a bot token
                seats[seat] = Seat("human" if kind == "creator" else "bot", hash_token(secrets_of[seat]), None,
                                   time.time())
        setup = body.model_dump(exclude={"human", "seats"}, exclude_unset=True, by_alias=True)
        setup.update(game=entry.name, human=creator, ai=ai.stored())
        game = await _create(entry, state, creator, ai, seats, client, body.spectators, setup, _start_clock(control, state),
                             {seat: secrets_of[seat] for seat, (kind, _) in enumerate(kinds) if kind == "human"})
        async with game.lock:
            await server.ai_move(game, client)
            answer = {**server.view(game), "token": secrets_of[creator]}
            if body.seats is not None:          # the open seats' invitations and the bots' tokens
                answer["invites"] = [{"seat": seat, "code": code, "link": f"/#join={game.id}.{code}"}
                                     for seat, (kind, _) in enumerate(kinds) if kind == "human"
                                     for code in (secrets_of[seat],)]
                answer["bots"] = [{"seat": seat, "token": secrets_of[seat]}
                                  for seat, (kind, _) in enumerate(kinds) if kind == "bot"]
            return answer

    def _start_clock(control, state) -> Clock | None:
        """A new game's clocks (clocks.py), running for its first decision; None untimed."""
        if control is None:
            return None
        return Clock.start(control, state.num_players, None if state.is_terminal() else state.current_player(),
                           time.time())

    async def _create(entry, state, creator: int, ai: AISettings, seats: dict, client: str, spectators: bool,
                      setup: dict, clock: Clock | None, invites: dict) -> Live:
        """Save a new game (its seats: Seat by seat; its clocks; ``invites``: seat -> invitation code of
        each open seat) and keep it in memory."""
        game_id = server.store.new_id()
        game = Live(game_id, creator, ai, seats[creator].token_hash, Snapshot(state, 1, (), ()),
                    spectators=spectators, seats=seats, setup=setup, clock=clock)
        args = _insert_args(game, state, client, invites)
        claim = server.instances.ai_claim(args["waiting_ai"])     # this instance plays the AI's first turn
        await server.store.write(lambda: server.store.insert(**args, ai_claim=claim))
        server.games[game_id] = game
        server.evict()
        return game

    def _insert_args(game: Live, state, client: str, invites: dict) -> dict:
        """The arguments of store.insert for a new game ``game`` (``invites``: seat -> code)."""
        rows = [{"seat": seat, "kind": s.kind, "token_hash": s.token_hash,
                 "invite_hash": hash_token(invites[seat]) if seat in invites else None,
                 "ai": s.ai.stored() if s.kind == "ai" else None} for seat, s in sorted(game.seats.items())]
        stops = server.stops(game)
        waiting_ai = not state.is_terminal() and state.current_player() not in stops
        idle = idle_seat(state, game.clock, stops)
        return dict(game_id=game.id, human=game.human, ai=game.ai.stored(), record=state.record(), status="playing",
                    log=[], token_hash=game.token_hash, client=client, spectators=game.spectators, public_log=[],
                    seats=rows, setup=game.setup, clock=None if game.clock is None else game.clock.to_json(),
                    flag_at=None if waiting_ai else server.clock_due(game, game.clock, state),   # as Server.commit
                    waiting_ai=waiting_ai, idle=None if idle is None else (idle, time.time()))

    def _rematch_of(game: Live, client: str) -> dict:
        """store.insert's arguments for the rematch of ``game`` (made by ``client``, whose games it
        counts among): its setup (game, variant, options) again, every seat moved one on with its
        kind, token hash and AI settings (409 for a game created before setups were kept)."""
        if game.setup is None:
            raise HTTPException(409, "this game was created before rematches existed: create a new game")
        seats = seating.rotated(game.seats)
        creator = (game.human + 1) % len(seats)
        body = NewGame.model_validate({**{k: v for k, v in game.setup.items() if k != "game"}, "human": creator},
                                      strict=False)
        entry = registry.get(game.setup["game"])
        state = _new_state(entry, body, server.entropy)
        setup = {**game.setup, "human": creator}
        try:
            control = parse_control(game.setup.get("clock"), server.limits.clock_min_base)
        except ClockError as exc:           # a setup saved under other limits
            raise HTTPException(409, f"this game's clock cannot be repeated: {exc}") from None
        rematch = Live(server.store.new_id(), creator, game.ai, seats[creator].token_hash,
                       Snapshot(state, 1, (), ()), spectators=game.spectators, seats=seats, setup=setup,
                       clock=_start_clock(control, state))
        return _insert_args(rematch, state, client, {})

    def _seat_ai(entry: registry.Game, seat: int, settings: dict) -> AISettings:
        """An AI seat's own settings (``seats[i].ai``), checked as the body's ``ai`` is (422 naming the seat)."""
        try:
            ai = AISettings.model_validate(settings)
        except ValidationError as exc:
            first = validation_errors(exc.errors(), AISettings, root=())[0]
            where = "".join(f".{part}" for part in first["loc"])
            raise HTTPException(422, f"seats[{seat}].ai{where}: {first['msg']}") from None
        try:
            return _game_ai(entry, ai)
        except HTTPException as exc:
            raise HTTPException(422, f"seats[{seat}].ai: {exc.detail}") from None

    def _game_ai(entry: registry.Game, given: AISettings | None) -> AISettings:
        """The AI of a new game (or of one AI seat): the client's settings ``given`` when the game has
        their bot (else 422 naming the game's bots); a client that gave none gets the normal level, or
        the game's first bot when it has not the levels' bots. A game with levels of its own
        (``Game.ai_levels``) has its level's spec kept with the level (its default level: normal,
        else its first)."""
        ai = AISettings() if given is None else given
        own = dict(entry.bots.ai_levels)
        if given is None:
            if own:
                ai = AISettings(level="normal" if "normal" in own else next(iter(own)))
            elif not takes_levels(entry):
                ai = AISettings(spec=entry.bots.bot_names[0])
        if own and ai.level is not None and ai.spec_ is None:
            if ai.level not in own:
                raise HTTPException(422, f"{entry.title} AI: no level {ai.level!r}; its levels: {', '.join(own)}")
            ai = AISettings(level=ai.level, spec=own[ai.level])
        try:
            entry.bots.make_bot(ai.spec(server.limits.ai_max_seconds), 0)
        except ValueError as exc:
            raise HTTPException(422, f"{entry.title} AI: {exc}") from None
        return ai

    def _new_state(entry: registry.Game, body: NewGame, entropy, seats_given: bool = False) -> GameStateProtocol:
        """A new game of ``entry`` from the form: the game's ``WebBoard.new_game`` (it keeps its
        secrets from ``entropy``), else its configuration of the options and the variant, seed and
        Supply the client gave. A refused configuration is a 422 naming what is wrong (the seats of a
        body with ``seats``, ``seats_given``, are checked by seats.plan)."""
        form = {"variant": body.variant, "seed": body.seed, "supply": body.supply, "options": dict(body.options),
                "human": body.human}
        make = web_piece(entry, "new_game")
        try:
            if make is not None:
                state = make(form, entropy)
            else:
                given = {key: form[key] for key in ("variant", "seed", "supply") if key in body.model_fields_set}
                state = entry.start({**form["options"], **given}, "config")
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        if body.human >= state.num_players and not seats_given:     # else seats.plan names what is wrong
            raise HTTPException(422, f"human: seat {body.human} is not a seat of this {entry.title} game "
                                     f"({state.num_players} players: seats 0..{state.num_players - 1})")
        return state

    @app.get("/api/games/{game_id}", summary="Your seat's view of a game")
    async def get_game(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        return server.view(game, seat)

    @app.post("/api/games/{game_id}/actions", summary="Apply one of your seat's legal actions, then let the AI answer")
    async def act(game_id: str, body: ActionRequest, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            if await server.flag(game) and game.clock.out and game.clock.out[-1] == seat:
                raise HTTPException(409, f"your time ran out: {game.clock.reason or 'the easy bot plays your seat'}")
            snap = game.snap
            state = snap.state
            if server.over(game):
                raise HTTPException(409, f"the game is over: {server.over_reason(game)}")
            if game.clock is not None and seat in game.clock.out:
                raise HTTPException(409, "your time ran out: the easy bot plays your seat")
            if seat in game.away:
                raise HTTPException(409, AWAY_REFUSAL)
            if game.thinking or state.current_player() != seat:
                raise HTTPException(409, f"it is not your decision: {server.decider(game)} is to decide")
            if body.version != snap.version:
                raise HTTPException(409, f"field 'version': a stale view; the game is at version {snap.version}")
            if body.action not in state.legal_actions():
                raise HTTPException(409, f"field 'action': not one of your legal actions now ({state.prompt()})")
            await server.commit(game, server.act_snapshot(game, seat, body.action))
            await server.broadcast(game)
            await server.ai_move(game, client_key(request.scope))
            return server.view(game, seat)

    @app.post("/api/games/{game_id}/ai", summary="Let the AI decide now (when it is its decision)")
    async def ai(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            state = game.snap.state
            if server.over(game) or state.current_player() in server.stops(game):
                raise HTTPException(409, "it is not the AI's decision")
            await server.ai_move(game, client_key(request.scope))
            return server.view(game, seat)

    @app.post("/api/games/{game_id}/resign", summary="Your seat resigns (a step of the game record)")
    async def resign(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            await server.flag(game)
            snap = game.snap
            if server.over(game):
                raise HTTPException(409, f"the game is over: {server.over_reason(game)}")
            resign_in = web_piece(registry.for_state(snap.state), "resign")
            if resign_in is None:
                raise HTTPException(409, f"{registry.for_state(snap.state).title} has no resignation: play it out")
            state = snap.state.clone()
            turn = state.turn_number
            fields = resign_in(state, seat)
            entries = ({"turn": turn, "player": seat, "text": "resigns", "fields": fields},) + \
                ((game_over_entry(state),) if state.is_terminal() else ())
            await server.commit(game, Snapshot(state, snap.version + 1, snap.log + entries, snap.ai_last_turn,
                                               public_log=snap.public_log + entries,
                                               seat_logs={other: (snap.log_of(other, game.human) + entries,
                                                                  snap.ai_last_turn_of(other, game.human))
                                                          for other in game.others()}))
            await server.broadcast(game)
            await server.ai_move(game, client_key(request.scope))     # a game of more players goes on
            return server.view(game, seat)

    @app.get("/api/games/{game_id}/record", summary="The game record (JSON), once the game is over")
    async def record(game_id: str, request: Request):
        game, _ = await seat_for(request, game_id)
        if not server.over(game):
            raise HTTPException(409, "the record reveals hidden cards: it is available when the game is over")
        return game.snap.state.record()

    @app.patch("/api/games/{game_id}", summary="Change a game's settings (spectators: open or closed to them)")
    async def settings(game_id: str, body: GameSettings, request: Request):
        game, seat = await seat_for(request, game_id)
        if seat != game.human:
            raise HTTPException(403, f"only the game's creator (seat {game.human}) changes its settings; "
                                     f"your token is seat {seat}'s")
        async with game.lock:
            if body.spectators != game.spectators:
                if not await server.store.write(server.store.set_spectators, game.id, body.spectators):
                    raise HTTPException(404, "no game with this id for this token")     # deleted meanwhile
                if body.spectators:
                    game.spectators = True
                else:
                    await server.close_to_spectators(game)
            return {"id": game.id, "spectators": game.spectators}

    # -- spectators (docs/server.md "Spectators"): by the game's id, no token, the public view ------------
    @app.get("/api/games/{game_id}/watch", summary="A spectator's view of a game (no token; 404 when the game "
                                                   "is not open to spectators)")
    async def watch(game_id: str):
        return server.public_view(await server.watched(game_id))

    @app.get("/api/games/{game_id}/watch/record", summary="The game record for a spectator, once the game is over")
    async def watch_record(game_id: str):
        game = await server.watched(game_id)
        if not server.over(game):
            raise HTTPException(409, "the record reveals hidden cards: it is available when the game is over")
        return game.snap.state.record()

    @app.websocket("/api/games/{game_id}/watch/ws")
    async def watch_updates(websocket: WebSocket, game_id: str):
        await _capped(websocket, lambda: _watch_socket(websocket, game_id))

    async def _opened(websocket: WebSocket, find) -> Live | None:
        """The game ``find()`` gives a socket, or None when it closed the socket with the refusal's
        code (4000 + the HTTP status; 4503 when the storage is down) or the client left."""
        try:
            return await find()
        except HTTPException as exc:
            await _close(websocket, 4000 + exc.status_code, server.refusals.reason(websocket.scope, str(exc.detail)))
        except StorageError:
            await _close(websocket, 4503, "storage is unavailable")
        return None

    async def _watch_socket(websocket: WebSocket, game_id: str):
        game = await _opened(websocket, lambda: server.watched(game_id))
        if game is None:
            return
        if len(game.watchers) >= server.limits.spectator_sockets_per_game:
            await _close(websocket, 4429, f"at most {server.limits.spectator_sockets_per_game} spectator sockets "
                                          "per game")
            return
        await _pump(websocket, game, game.watchers, server.public_view, game_id)

    async def _capped(websocket: WebSocket, run) -> None:
        """Accept a socket and run it within the per-client cap of game and spectator sockets."""
        client = client_key(websocket.scope)
        await websocket.accept()
        if server.client_sockets.get(client, 0) >= server.limits.sockets_per_client:
            await _close(websocket, 4429, f"at most {server.limits.sockets_per_client} sockets per client")
            return
        server.client_sockets[client] = server.client_sockets.get(client, 0) + 1
        try:
            await run()
        finally:
            server.client_sockets[client] -= 1
            if not server.client_sockets[client]:
                del server.client_sockets[client]

    @app.websocket("/api/games/{game_id}/ws")
    async def updates(websocket: WebSocket, game_id: str):
        await _capped(websocket, lambda: _game_socket(websocket, game_id))

    async def _game_socket(websocket: WebSocket, game_id: str):
        seated = []

        async def find():
            token = await _socket_token(websocket, server.limits.socket_auth_seconds)
            if token is None:
                return None                                                     # the client left
            game, seat = await server.seat_for(game_id, token)
            seated.append(seat)
            return game

        game = await _opened(websocket, find)
        if game is None:
            return
        cap = server.limits.sockets_per_seat
        if seating.sockets_of(game.listeners, seated[0]) >= cap:     # this seat's own allowance only
            await _close(websocket, 4429, f"at most {cap} sockets per seat: this seat has {cap} open")
            return
        await _pump(websocket, game, game.listeners, lambda g: server.view(g, seated[0]), game_id, seated[0])

    async def _pump(websocket: WebSocket, game: Live, queues: set, view, game_id: str, seat: int | None = None) -> None:
        """Send ``view(game)`` now and every view offered to the socket's queue (one of ``queues``;
        its ``seat``: whose view broadcasts offer it, None for a spectator) after it. A send that
        takes over 10 s drops the socket (a client that does not read is never waited for:
        broadcasts only offer views to queues)."""
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        queue.seat = seat
        queues.add(queue)
        receiving = asyncio.ensure_future(websocket.receive())
        waiting = asyncio.ensure_future(queue.get())
        try:
            await asyncio.wait_for(websocket.send_json(view(game)), 10)
            while not server.closing:
                done, _ = await asyncio.wait({receiving, waiting}, return_when=asyncio.FIRST_COMPLETED)
                if receiving in done:
                    if receiving.result()["type"] == "websocket.disconnect":
                        break
                    receiving = asyncio.ensure_future(websocket.receive())   # client messages are ignored
                if waiting in done:
                    shown = waiting.result()
                    if shown is None:                                        # the server is closing
                        await websocket.close(code=1001)
                        break
                    if shown is _CLOSED:                                     # closed to spectators
                        await _close(websocket, 4404, "this game is no longer open to spectators")
                        break
                    game.last_used = time.monotonic()
                    await asyncio.wait_for(websocket.send_json(shown), 10)
                    waiting = asyncio.ensure_future(queue.get())
        except (TimeoutError, RuntimeError, OSError):
            pass                                                            # a vanished or stuck client
        except Exception as exc:                                            # noqa: BLE001 - never kill the server
            if type(exc).__name__ not in ("WebSocketDisconnect", "ConnectionClosed", "ClientDisconnected"):
                log.warning("websocket of game %s: %s", game_id, exc)
        finally:
            receiving.cancel()
            waiting.cancel()
            queues.discard(queue)

    # The player's tools: hints, saved games, deleting, the download of what the player may know.
    install_player_tools(app, server, seat_for, hint_bot, _offer)
    install_away(app, server, seat_for)
    # Joining an open seat, rematches (seats.py).
    seating.install(app, server, seat_for, _offer, _rematch_of)

    async def authorize(scope) -> None:
        """A request for one game: its token is checked before its body is read (HTTPException)."""
        match = _GAME_PATH.fullmatch(scope["path"])
        if match and match.group(1) not in _OPEN_PATHS and not _WATCH_PATH.fullmatch(scope["path"]) \
                and not _JOIN_PATH.fullmatch(scope["path"]):
            try:
                await server.load(match.group(1), bearer(Headers(scope=scope)))
            except StorageError as exc:
                raise HTTPException(503, f"storage is unavailable, nothing was changed: {exc}",
                                    headers={"Retry-After": "1"}) from None
            scope[_CHECKED] = match.group(1)     # checked against the database: once per request

    app.add_middleware(RequestGuard, max_body=MAX_BODY_BYTES,
                       limiter=server.request_limiter,
                       larger={path: size for extra in pages for path, (size, _, _) in extra.bodies.items()},
                       values={path: values for extra in pages for path, (_, values, _) in extra.bodies.items()},
                       before_body={path: first for extra in pages for path, (_, _, first) in extra.bodies.items()},
                       authorize=authorize,
                       body_seconds=server.limits.body_seconds)
    app.add_middleware(QuietValues)          # the games' messages show no value of the client's (refusals.py)
    app.add_middleware(SameOrigin, allowed=origins)     # no page of another site uses a visitor's browser
    app.add_middleware(SecurityHeaders)
    return app


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    """Close a socket with ``code``; a client that has already gone is no error (nothing is logged)."""
    try:
        await websocket.close(code=code, reason=reason)
    except Exception:                       # noqa: BLE001 - ClientDisconnected, RuntimeError: it is gone
        pass


async def _socket_token(websocket: WebSocket, seconds: float) -> str | None:
    """A socket's token: its Authorization header, or else its first message ``{"token": "..."}``
    (browsers cannot set headers on a WebSocket; a token never goes in the URL, where logs keep it).
    A first message over TOKEN_MESSAGE_BYTES is refused unparsed. None: the client has gone."""
    if websocket.headers.get("authorization"):
        return bearer(websocket.headers)
    try:
        message = await asyncio.wait_for(websocket.receive(), seconds)
    except TimeoutError:
        raise HTTPException(401, "no token: send {\"token\": \"...\"} as the first message") from None
    if message["type"] == "websocket.disconnect":
        return None
    raw = message.get("text") if message.get("text") is not None else message.get("bytes")
    if raw is None:
        raise HTTPException(401, "no token: send {\"token\": \"...\"} as the first message")
    if len(raw) > TOKEN_MESSAGE_BYTES:
        raise HTTPException(401, f"the first message is over {TOKEN_MESSAGE_BYTES} bytes: it must be "
                                 "{\"token\": \"...\"}")
    try:
        data = strict_json(raw.encode("utf-8") if isinstance(raw, str) else raw)
    except (JSONBodyError, UnicodeEncodeError):
        raise HTTPException(401, "the first message must be {\"token\": \"...\"}") from None
    if not isinstance(data, dict) or not isinstance(data.get("token"), str):
        raise HTTPException(401, "the first message must be {\"token\": \"...\"}")
    return data["token"]
