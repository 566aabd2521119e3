"""The server's games in memory (``Server``): finding a game by its token or for a spectator,
loading and evicting games, saving a change (copy, save, swap), every seat's and a spectator's view,
the clocks' flags and aborts, the seats the easy bot takes, and the AI's turns. The HTTP routes that
use it are the routers (routes_*.py, player_tools.py); app.py puts them together."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import secrets
import time

from fastapi import HTTPException, Request

from engine.games import registry
from engine.games.protocol import GameStateProtocol
from engine.games.view import game_over_entry, game_view, step_for, web_piece
from engine.interfaces.server import seats as seating
from engine.interfaces.server.ai import TURN, AIClosed, AIFailure, AIPool, ai_turn, greedy_turn, instant, timed_turn
from engine.interfaces.server.away import IDLE_CLAIM, idle_seat, idle_text
from engine.interfaces.server.clocks import Clock, seconds_text, turn_budget
from engine.interfaces.server.guard import RateLimiter
from engine.interfaces.server.instances import Instances
from engine.interfaces.server.models import (
    CHECKED,
    CLOSED,
    AISettings,
    Limits,
    Live,
    Snapshot,
    bearer,
    hash_token,
    next_snapshot,
    offer,
    read_live,
)
from engine.interfaces.server.refusals import Refusals
from engine.interfaces.server.store import POOL_SIZE, StaleVersion, StorageError, open_store

__all__ = ["Server"]

log = logging.getLogger("ftc.server")

TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")


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

    def share_limits(self, limits: Limits) -> None:
        """This instance's share of the per-client limits (instances.py: the documented limits divided
        by the live instances) becomes ``limits``, and the in-memory rate limiters follow it."""
        self.limits = limits
        limiter = getattr(self, "request_limiter", None)
        if limiter is not None:
            limiter.rate, limiter.burst = limits.requests_per_second, limits.request_burst
        self.creates.rate = limits.games_per_minute / 60.0
        self.creates.burst = limits.game_burst

    async def seat_for_request(self, request: Request, game_id: str) -> tuple[Live, int]:
        """The game of the request's token and the seat the token is (seats.py); checked against the
        database's version unless this request's token check did it (instances.fresh)."""
        return await self.seat_for(game_id, bearer(request.headers), fresh=request.scope.get(CHECKED) != game_id)

    def begin_shutdown(self) -> None:
        """The first step of a shutdown, as soon as it is decided (run.py calls it on SIGINT/SIGTERM,
        before the requests in flight are awaited): close every WebSocket, kill the AI's workers
        (a turn they were computing is abandoned: its game stays before the AI's turn, with a note)
        and take no new AI work. Calling it again does nothing."""
        self.closing = True
        for game in self.games.values():
            for queue in list(game.listeners) + list(game.watchers):
                offer(queue, None)
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
        if not TOKEN_RE.fullmatch(token) or len(game_id) > 64:
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
        fresh = await read_live(self.store, game_id, unknown)
        game = self.games.get(game_id)        # loaded by a concurrent request meanwhile
        if game is None:
            game = self.games[game_id] = fresh
            self.evict()
        return game

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
        new_state, entries, public = game.snap.state.clone(), [], []
        others = {seat: [] for seat in game.others()}
        self.step(game, new_state, entries, public, player, action, others)
        return next_snapshot(game, new_state, tuple(entries), tuple(public), others)

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
            offer(queue, self.view(game, queue.seat))        # each socket its own seat's view
        if game.watchers:
            view = self.public_view(game)
            for queue in list(game.watchers):
                offer(queue, view)

    async def close_to_spectators(self, game: Live) -> None:
        """The game is closed to spectators: its spectator sockets are told to close."""
        game.spectators = False
        for queue in list(game.watchers):
            offer(queue, CLOSED)

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
        new = next_snapshot(game, state, entries, ai_note=snap.ai_note)
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
        new = next_snapshot(game, entries=entries, ai_note=snap.ai_note)
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
        new = next_snapshot(game, entries=entries, ai_note=snap.ai_note)
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
                state, entries, public, followers = self._play_out(game, snap, actions)
            except AIClosed as exc:
                log.warning("game %s: the AI's turn was abandoned: %s", game.id, exc)
                game.snap = next_snapshot(game, snap=snap, step=0,
                                          ai_note="the server shut down during the AI's turn; ask the AI to "
                                                  "move again when it is back")
                return
            except (AIFailure, ValueError) as exc:     # ValueError: the game refused an action of the AI
                notes = [f"the AI's search failed ({exc}): the greedy bot took this turn"]
                began = time.time()               # the failed attempt was the server's time, not the seat's
                actions = await asyncio.to_thread(greedy_turn, snap.state.clone(), stops, seed)
                times = []
                state, entries, public, followers = self._play_out(game, snap, actions)
            for note in notes:
                log.warning("game %s: %s", game.id, note)
                self.fallbacks.append(note)
            clock, standing = self._clock_through(game, snap.state, actions, times, began, followers)
            flagged = standing < len(actions)
            if flagged:                         # a seat's time ran out in this turn: its turn is void
                # The turn's actions up to the flag, played again from the turn's start (only here:
                # the actions after the flag never happened, so the played-out state is not the game's).
                actions = actions[:standing]
                state, entries, public, _ = self._play_out(game, snap, actions)
            entries, others = entries

            def last_turn(seen, seat):         # what ``seat`` saw of this AI turn
                return tuple(e for e in seen if e["player"] is not None and e["player"] != seat)

            new = next_snapshot(game, state, tuple(entries), tuple(public), others, last_turn,
                                "; ".join(notes) if notes else None,   # every fallback is shown to the player
                                snap=snap)
            try:
                if actions:
                    await self.commit(game, new, clock)
            except StorageError as exc:
                flagged = False
                log.error("game %s: the AI's turn could not be saved: %s", game.id, exc)
                game.snap = next_snapshot(game, snap=snap, step=0,
                                          ai_note=f"the AI's turn could not be saved ({exc}); ask the AI to move "
                                                  "again")
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

    def _clock_through(self, game: Live, state: GameStateProtocol, actions: list[int], times: list[float],
                       began: float | None = None, followers: list | None = None) -> tuple[Clock | None, int]:
        """The game's clocks after an AI turn's ``actions`` from ``state``. The seat whose turn it
        was is charged from when the AI's turn started on its worker (``began``; None: from its
        turn's start): the time the turn waited for a worker is the server's, not the seat's. Each
        seat's turn is handed over when its last decision was made (``times``, the worker's clock,
        kept within the turn's start and now; a decision without a time: now), so every seat of a
        turn of several seats is charged its own time; the seat that decides after the turn is
        counted from now (the commit), never from the worker's last decision. Also returns how many
        of the actions stand: all, or those before the turn of a seat whose time ran out before it
        handed over (its turn is void: the flag is handled). ``followers``: who decides after each
        action (None once the game is over), as the turn's play-out found them (``_play_out``); when
        not given, the actions are applied to a copy of ``state`` to find them."""
        clock = game.clock
        if clock is None:
            return None, len(actions)
        now = time.time()
        if began is not None:
            clock = clock.resumed(min(now, began))
        at = clock.turn_started if clock.turn_started is not None else now
        if followers is None:
            followers = _followers(state.clone(), actions)
        turn_began = 0
        for i, following in enumerate(followers):
            at = min(now, max(at, times[i] if i < len(times) else now))
            if following != clock.running:
                if clock.flagged(at):
                    return clock, turn_began
                clock, turn_began = clock.handover(following, at), i + 1
        return clock.resumed(now), len(actions)

    def _play_out(self, game: Live, snap: Snapshot, actions: list[int]) -> tuple[GameStateProtocol, tuple, list, list]:
        """The AI's actions applied to a copy, each once: the state, (the creator's entries, every
        other human or bot seat's: seat -> entries), a spectator's entries and who decides after each
        action (None once the game is over: what ``_clock_through`` charges the clocks by)."""
        state, entries, public, followers = snap.state.clone(), [], [], []
        others = {seat: [] for seat in game.others()}
        for action in actions:
            self.step(game, state, entries, public, state.current_player(), action, others)
            followers.append(None if state.is_terminal() else state.current_player())
        return state, (entries, others), public, followers


def _followers(state: GameStateProtocol, actions: list[int]) -> list:
    """Who decides after each of ``actions`` applied to ``state`` (None once the game is over)."""
    followers = []
    for action in actions:
        state.apply(action)
        followers.append(None if state.is_terminal() else state.current_player())
    return followers
