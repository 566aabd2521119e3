"""The server's data, below every other part of it: its limits, the bodies of requests, a game's
versions (``Snapshot``) and a game in memory (``Live``), with the one builder of a game's next
version (``next_snapshot``) and the one reader of a game from the store (``read_live``). Imported
by the server (core.py), its routers and instances.py; it imports none of them."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.games import registry
from engine.games.protocol import GameStateProtocol
from engine.games.view import public_log, web_piece
from engine.interfaces.server import seats as seating
from engine.interfaces.server.clocks import BASE_MIN, FIRST_MOVE_SECONDS, Clock
from engine.interfaces.server.seats import hash_token

__all__ = ["Limits", "hash_token", "AI_LEVELS", "AISettings", "NewGame", "GameSettings", "ActionRequest",
           "Snapshot", "Live", "next_snapshot", "read_live", "stored_entries", "offer", "bearer", "CLOSED",
           "CHECKED"]

#: What a spectator socket's queue receives when the game is closed to spectators.
CLOSED = object()
#: Where a request's scope notes the game its token check found fresh (instances.fresh: once a request).
CHECKED = "ftc.checked"


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
    #: Game reviews (routes_review.py, docs/server.md "Game review"): reviews one client may run at
    #: once and the server at once; decisions of a game a review searches at most (the first ones);
    #: each decision's budget, iterations of an information-set search or plies of an alpha-beta
    #: (as the game's review takes), and the seconds its task may take in the AI's pool; finished
    #: games whose review is kept (asked again, it is answered without a search).
    reviews_per_client: int = 1
    reviews_at_once: int = 4
    review_decisions: int = 300
    review_iterations: int = 400
    review_depth: int = 3
    review_seconds: float = 60.0
    review_cache: int = 64



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

    @classmethod
    def start(cls, state: GameStateProtocol) -> Snapshot:
        """A new game's first version: nothing logged yet."""
        return cls(state, 1, (), ())

    def log_of(self, seat: int, creator: int) -> tuple:
        """Seat ``seat``'s log (``creator``: the creator's seat)."""
        return self.log if seat == creator else self.seat_logs.get(seat, ((), ()))[0]

    def ai_last_turn_of(self, seat: int, creator: int) -> tuple:
        """What seat ``seat`` saw of the AI's last turn."""
        return self.ai_last_turn if seat == creator else self.seat_logs.get(seat, ((), ()))[1]



#: ``next_snapshot``'s default: the AI's last turn as it was.
SAME = object()


def next_snapshot(game: Live, state: GameStateProtocol | None = None, entries: tuple = (), public: tuple | None = None,
                  seen: dict | None = None, last_turn=SAME, ai_note: str | None = None, step: int = 1,
                  snap: Snapshot | None = None) -> Snapshot:
    """The game's next snapshot after its current one (``game.snap``), the one place a changed
    snapshot is made: ``state`` (default: the same state), ``entries`` added to the creator's log,
    ``public`` to the spectators' (default: ``entries``), ``seen[seat]`` to each other human or bot
    seat's (default: ``entries``); ``last_turn(entries, seat)``: what each seat saw of an AI turn
    made of the entries it got (default: the AI's last turn as it was); ``ai_note`` the note its
    views show; ``step``: 1 for a new version, 0 for the same version with another note; ``snap``:
    the snapshot to follow (default: the game's current one)."""
    snap = game.snap if snap is None else snap
    seen = {} if seen is None else seen
    mine = {seat: tuple(seen.get(seat, entries)) for seat in game.others()}
    if last_turn is SAME:
        turn = {seat: snap.ai_last_turn_of(seat, game.human) for seat in (game.human, *mine)}
    else:
        turn = {seat: last_turn(got, seat) for seat, got in ((game.human, entries), *mine.items())}
    return replace(snap, state=snap.state if state is None else state, version=snap.version + step,
                   log=snap.log + tuple(entries), ai_last_turn=turn[game.human], ai_note=ai_note,
                   public_log=snap.public_log + tuple(entries if public is None else public),
                   seat_logs={seat: (snap.log_of(seat, game.human) + got, turn[seat]) for seat, got in mine.items()})


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


def stored_entries(entries: list, player: int | None) -> tuple:
    """Log or AI-turn entries as stored. A database written before entries had fields holds log
    entries without them and AI-turn lines as bare texts (of ``player``): their fields are None
    (unknown), as for an entry whose action is hidden."""
    return tuple({"fields": None, **entry} if isinstance(entry, dict)
                 else {"turn": None, "player": player, "text": entry, "fields": None} for entry in entries)


_LEVELS: dict[str, bool] = {}


async def read_live(store, game_id: str, unknown: HTTPException) -> Live:
    """The game as the database has it now, as a new Live (not kept: the caller decides); ``unknown``
    when there is no such game. A game saved before spectators' logs were kept gets one derived
    from its record (public_log)."""
    row = await store.read(store.get, game_id)
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
    seat_logs = {r["seat"]: (stored_entries(r["log"] or [], None),
                             stored_entries(r["ai_last_turn"] or [], None))
                 for r in row.get("seats", []) if r["seat"] != row["human"] and r["kind"] != "ai"}
    snap = Snapshot(state, row["version"], stored_entries(row["log"], None),
                    stored_entries(row["ai_last_turn"], 1 - row["human"]),
                    public_log=stored_entries(stored, None), seat_logs=seat_logs)
    return Live(game_id, row["human"], ai, row["token_hash"], snap,
                spectators=row.get("spectators", True), seats=seats, setup=row.get("setup"),
                rematch=row.get("rematch"), clock=Clock.from_json(row.get("clock")),
                away=tuple(row.get("away") or ()))


def offer(queue: asyncio.Queue, item) -> None:
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


def bearer(request_headers) -> str:
    """The bearer token of an Authorization header; 401 when there is none."""
    value = request_headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "this game needs its token: send 'Authorization: Bearer <token>' (the token "
                                 "was returned when the game was created)", headers={"WWW-Authenticate": "Bearer"})
    return token.strip()
