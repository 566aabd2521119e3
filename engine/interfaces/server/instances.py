"""Several server instances on one PostgreSQL database (docs/server.md "Several instances"): any
instance serves any game, a change made on one reaches the sockets of every other, and an AI turn is
run by exactly one instance, taken over by another when that one dies.

Each server (``Server.instances``) is one instance, with an id of its own (``ftc serve`` prints it).
On a shared store (PostgreSQL) it:

- **keeps a heartbeat** (every ``HEARTBEAT_SECONDS``) in the ``instances`` table, on the database's
  clock; an instance not heard from within ``ALIVE_SECONDS`` is dead. The number of live instances
  gives this instance's **share of the per-client limits** kept in memory (requests per second and
  their burst, new games per minute and their burst, sockets per client, per seat of a game and
  spectator sockets per game): the
  documented limit divided by the live instances (rounded down, at least 1), so their sum over the
  instances never exceeds the documented limit (unless the limit is smaller than the number of
  instances: each then allows 1) once each has had a heartbeat since the last one joined (within
  ``HEARTBEAT_SECONDS``). ``Server.limits`` holds this instance's share;
  ``given`` the documented limits. New games per client and games in play per client are counted in
  the database (``check_new_game``; Server's ``count_playing``), over every instance;
- **serves fresh games** (``fresh``): before a request reads or changes a game kept in memory, the
  database's version of it is read (one read by primary key) and the game reloaded when it is
  behind. A change that loses the optimistic version check (another instance moved first) reloads
  the game and answers 409 naming the current version (``Superseded``): never a 500, never an
  acknowledged action lost;
- **follows the changes of every instance** (the store's LISTEN/NOTIFY, ``GameStore.subscribe``):
  a game held here with open sockets is reloaded and its new view pushed to its seat and spectator
  sockets; after a lost listening connection (RESYNC) every such game is reloaded (its seats and
  settings too); a game closed to spectators on another instance has its spectator sockets here
  closed (and its watch paths 404); a seat taken or a rematch offered or made on another instance
  (published as a change of the game's settings, SETTINGS, in the same transaction) reloads the
  seats and rematch of every copy held here (``resettle``), and its sockets get the new view;
- **runs an AI turn only under a claim** (``run_ai``): the change that makes a game wait for the AI
  records ``waiting_ai`` and the "ai" claim of the saving instance (lease ``AI_LEASE_SECONDS`` on the
  database's clock) in its own transaction; the claim is renewed while the AI thinks and released
  after. An instance that finds the claim held by another does not run the turn: it waits for its
  result (the request's answer; sockets get it by push) and takes the turn over if that claim's
  lease runs out;
- **sweeps** (every ``SWEEP_SECONDS``) for games that wait for the AI with no live claim (the
  instance that had it died: its lease ran out), claims each one (atomic: one instance wins) and
  plays its turn. The turn's result is saved with the optimistic version check, so a turn is
  applied once even when two instances computed it.

On SQLite (one server per file) none of this runs: the games in memory are the truth, there is one
instance and the limits are the documented ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import os
import socket
import time
import uuid
from fractions import Fraction

from fastapi import HTTPException

from engine.interfaces.server.models import AISettings, offer, read_live
from engine.interfaces.server.seats import seats_from_rows, view_fields
from engine.interfaces.server.store import AI_CLAIM, RESYNC, SETTINGS, Change, StorageError

__all__ = ["Instances", "Superseded", "HEARTBEAT_SECONDS", "ALIVE_SECONDS", "AI_LEASE_SECONDS", "SWEEP_SECONDS"]

log = logging.getLogger("ftc.server")

#: Seconds between two heartbeats of an instance.
HEARTBEAT_SECONDS = 1.0
#: An instance not heard from within these seconds is dead (its share of the limits goes to the others).
ALIVE_SECONDS = 5.0
#: The lease of an AI turn's claim (renewed every third of it while the AI thinks): an instance that
#: dies mid-turn has its turn taken over within this plus ``SWEEP_SECONDS``.
AI_LEASE_SECONDS = 4.0
#: Seconds between two sweeps for AI turns without a live claim.
SWEEP_SECONDS = 1.0
#: The per-client limits (models.Limits) kept in memory by each instance: each gets its share.
SHARED_LIMITS = ("requests_per_second", "request_burst", "games_per_minute", "game_burst",
                 "sockets_per_client", "sockets_per_seat", "spectator_sockets_per_game")


class Superseded(HTTPException):
    """A change was refused by the optimistic version check: another instance (or request) moved the
    game first. The game has been reloaded; 409 names its current version."""

    def __init__(self, game_id: str, version: int):
        super().__init__(409, f"field 'version': game {game_id} changed meanwhile (another server or request "
                              f"moved first); it is at version {version}: nothing of this request was applied")
        self.version = version


class Instances:
    """This server's part among the instances sharing its database (see the module docstring)."""

    def __init__(self, server):
        self.server = server
        self.store = server.store
        self.id = uuid.uuid4().hex[:12]
        self.host = socket.gethostname()
        self.pid = os.getpid()
        #: Whether other instances may share the database (PostgreSQL); on SQLite nothing here runs.
        self.shared = server.store.dialect == "postgres"
        #: The documented limits (Server.limits holds this instance's share of them).
        self.given = server.limits
        #: Live instances at the last heartbeat (this one included).
        self.live = 1
        #: AI turns this instance took over from a dead one, and games reloaded because another moved.
        self.takeovers = 0
        self.reloads = 0
        self._tasks: list[asyncio.Task] = []
        self._unsubscribe = None
        self._changes: asyncio.Queue | None = None
        self._taking: set[str] = set()

    # -- life ---------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Join the instances (first heartbeat, the share of the limits), follow the store's changes
        and start the heartbeat and the sweeper. Nothing on SQLite."""
        if not self.shared:
            return
        await self._beat()
        loop = asyncio.get_running_loop()
        changes = self._changes = asyncio.Queue()
        self._unsubscribe = self.store.subscribe(lambda change: loop.call_soon_threadsafe(changes.put_nowait, change))
        log.warning("instance %s (%s, pid %d): %d live instance(s) on %s", self.id, self.host, self.pid, self.live,
                    self.store.location)
        self._tasks = [asyncio.create_task(self._every(HEARTBEAT_SECONDS, self._beat)),
                       asyncio.create_task(self._every(SWEEP_SECONDS, self.sweep)),
                       asyncio.create_task(self._follow())]

    async def stop(self) -> None:
        """Leave: stop the tasks and the changes, and remove this instance's row (its share of the
        limits goes to the others at their next heartbeat). A database that is down is no error."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self._tasks = []
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.shared:
            with contextlib.suppress(StorageError):
                await self.store.write(self.store.retire, self.id)

    @contextlib.contextmanager
    def _logged(self, what: str):
        """Run one step of a background loop (a periodic round, one followed change): its failure is
        logged, a storage fault as a warning and anything else with its traceback, and the loop goes
        on with its next step."""
        try:
            yield
        except StorageError as exc:
            log.warning("instance %s: %s: %s", self.id, what, exc)
        except Exception:                         # noqa: BLE001 - one failed step must not stop the loop
            log.exception("instance %s: %s failed", self.id, what)

    async def _every(self, seconds: float, work) -> None:
        while True:
            await asyncio.sleep(seconds)
            with self._logged(getattr(work, "__name__", str(work))):
                await work()

    async def _beat(self) -> None:
        """A heartbeat; the live instances give this instance's share of the limits."""
        live = await self.store.write(self.store.heartbeat, self.id, self.host, self.pid, ALIVE_SECONDS)
        self.live = max(1, live)
        self.apply_shares()

    def share(self, limit):
        """This instance's share of a per-client ``limit``: the limit divided by the live instances,
        rounded down: an integer limit to an integer, at least 1 (so a limit smaller than the number
        of instances lets each allow 1); a rate to the float just below the quotient when the
        quotient rounded up (50.0 over 3: 16.666666666666668, whose triple exceeds 50), so that the
        shares of the live instances never sum to more than the limit."""
        if isinstance(limit, int):
            return max(1, limit // self.live)
        share = limit / self.live
        while Fraction(share) * self.live > Fraction(limit):
            share = math.nextafter(share, 0.0)
        return share

    def apply_shares(self) -> None:
        """Hand the server this instance's share of the limits (Server.share_limits)."""
        self.server.share_limits(dataclasses.replace(self.given, **{name: self.share(getattr(self.given, name))
                                                                   for name in SHARED_LIMITS}))

    def ai_claim(self, waiting_ai: bool) -> tuple[str, float] | None:
        """The claim a save takes on the AI turn it makes the game wait for: (this instance, lease)."""
        return (self.id, AI_LEASE_SECONDS) if waiting_ai and self.shared else None

    # -- limits over every instance -------------------------------------------------------------------
    async def check_new_game(self, client: str) -> None:
        """On a shared store, a client's new games within the last minute, counted in the database
        over every instance, are at most ``games_per_minute + game_burst`` (the most one server's
        token bucket lets through in a minute); else 429."""
        if not self.shared:
            return
        allowed = int(self.given.games_per_minute) + self.given.game_burst
        if await self.store.read(self.store.count_created, client, time.time() - 60.0) >= allowed:
            raise HTTPException(429, f"too many new games from this client: at most {allowed} a minute over every "
                                     "server; slow down", headers={"Retry-After": "10"})

    # -- fresh games ----------------------------------------------------------------------------------
    async def fresh(self, game) -> None:
        """Make the game in memory as new as the database's (one read of its version); 404 when another
        instance deleted it. When the database cannot be read the game is served as held here (a
        change of it then fails its save: 503). Nothing on SQLite."""
        if not self.shared:
            return
        try:
            fresh = await self.store.read(self.store.freshness, game.id)
        except StorageError as exc:
            log.warning("game %s: its version could not be checked (%s): served as held", game.id, exc)
            return
        if fresh is None:
            self.server.games.pop(game.id, None)
            raise HTTPException(404, "no game with this id for this token")
        version, spectators = fresh
        await self._spectators(game, spectators)
        if version > game.snap.version:
            await self.reload(game)

    async def _spectators(self, game, spectators: bool) -> None:
        """Follow the game's spectators setting as another instance changed it: closed, its spectator
        sockets here are closed too."""
        if game.spectators and not spectators:
            await self.server.close_to_spectators(game)
        game.spectators = spectators

    async def reload(self, game) -> bool:
        """Bring the game in memory (its sockets kept) up to the database's when that is newer: its
        snapshot, clocks, seats the easy bot took, seats, rematch and spectators setting; True when it was."""
        try:
            fresh = await read_live(self.store, game.id, HTTPException(404, "no game has this id"))
        except HTTPException:
            return False                                   # deleted meanwhile
        if fresh.snap.version <= game.snap.version:        # not newer (or a newer one arrived meanwhile)
            return False
        game.snap, game.clock, game.seats, game.rematch = fresh.snap, fresh.clock, fresh.seats, fresh.rematch
        game.away = fresh.away
        game.cached = {}
        game.public_cached = None
        await self._spectators(game, fresh.spectators)
        self.reloads += 1
        return True

    async def resettle(self, game) -> bool:
        """Bring the game in memory up to the database's when another instance changed its seats or
        settings without a move (a friend joined, a rematch offered or made, spectators opened or
        closed: published as SETTINGS): its seats, rematch and spectators setting, or the whole game
        when the database's is newer. True when what its views show changed (its sockets need the new
        view). A seat taken gives a timed game before its start the limit of its turn (Server.rearm:
        this instance may have saved a change without knowing the seat was taken)."""
        row = await self.store.read(self.store.get, game.id)
        if row is None:
            return False                                   # deleted meanwhile: its own notice closes it
        if row["version"] > game.snap.version:
            return await self.reload(game)
        seats = seats_from_rows(row["seats"], len(game.seats), game.ai, AISettings.model_validate)
        shown = view_fields(game.seats, game.human, None, game.rematch)
        await self._spectators(game, row["spectators"])
        taken = [s.token_hash for s in game.seats.values()] != [s.token_hash for s in seats.values()]
        game.seats, game.rematch = seats, row["rematch"]
        game.cached = {}
        game.public_cached = None
        if taken:
            await self.server.rearm(game)      # a timed game before its start: its turn's limit may run now
        return view_fields(seats, game.human, None, game.rematch) != shown

    async def superseded(self, game) -> Superseded:
        """The 409 of a change refused by the version check, after the game is reloaded."""
        await self.reload(game)
        return Superseded(game.id, game.snap.version)

    # -- pushes from other instances ------------------------------------------------------------------
    async def _follow(self) -> None:
        """Each change of the store: a game held here with sockets is reloaded and its view pushed; a
        change of a game's seats or settings (SETTINGS) is followed by every game held here, its view
        pushed when it has sockets."""
        while True:
            change: Change = await self._changes.get()
            with self._logged(f"following {change}"):
                if change == RESYNC:
                    for game in [g for g in self.server.games.values() if g.listeners or g.watchers]:
                        self._settle(game)
                    continue
                game = self.server.games.get(change.game_id)
                if game is not None and change.version == SETTINGS:   # joined, rematch, spectators elsewhere
                    self._settle(game)
                    continue
                if game is None or not (game.listeners or game.watchers):
                    continue
                if change.version == 0:                # deleted by another instance: its sockets close
                    self.server.games.pop(game.id, None)
                    for queue in list(game.listeners) + list(game.watchers):
                        offer(queue, None)
                elif change.version > game.snap.version and await self.reload(game):
                    await self.server.broadcast(game)

    def _settle(self, game) -> None:
        """Follow a change of ``game``'s seats or settings (``resettle``) under the game's lock, in a
        task of its own (a game busy with an AI turn holds up only its own notices). A request here
        that changes the seats or the rematch reads, writes and updates the game in memory under the
        same lock, so a row read before that write can never overwrite what the write left (a rematch
        accepted here, then an older offer pushed again to the sockets). Its view is pushed when it
        changed and has sockets."""
        async def settle():
            with self._logged(f"following game {game.id}"):
                async with game.lock:
                    if await self.resettle(game) and (game.listeners or game.watchers):
                        await self.server.broadcast(game)

        self._tasks = [task for task in self._tasks if not task.done()]
        self._tasks.append(asyncio.create_task(settle()))

    # -- AI turns, once ---------------------------------------------------------------------------------
    def _waits_for_ai(self, game) -> bool:
        """Whether the game waits for the AI: not over (nor aborted), and no human or bot seat to decide."""
        return not self.server.over(game) and game.snap.state.current_player() not in self.server.stops(game)

    async def run_ai(self, game, client: str, turn) -> None:
        """Run the AI's turn of ``game`` (``turn(game, client)``: Server's turn) if it is due, under
        this instance's claim (the caller holds the game's lock). When another live instance holds
        the claim, wait for its result (reloading the game) and take the turn over if its lease runs
        out. A turn whose save loses the version check was played elsewhere: the game is reloaded."""
        if not self._waits_for_ai(game):
            return
        if not self.shared:
            await turn(game, client)
            return
        deadline = time.monotonic() + self.server.ai_turn_seconds + 2 * AI_LEASE_SECONDS
        while self._waits_for_ai(game) and not self.server.closing:
            version = game.snap.version
            if await self.store.write(self.store.claim, game.id, AI_CLAIM, self.id, AI_LEASE_SECONDS, version):
                await self._claimed_turn(game, client, turn)
                return
            if time.monotonic() > deadline:
                return                                   # still another's: the view shows the game waiting
            await asyncio.sleep(0.2)
            if (await self.store.read(self.store.version, game.id) or 0) > version:
                await self.reload(game)

    async def _claimed_turn(self, game, client: str, turn) -> None:
        renewing = asyncio.create_task(self._renew(game.id))
        try:
            await turn(game, client)
        except Superseded:
            log.warning("game %s: the AI's turn was saved by another instance first; this one is dropped", game.id)
        finally:
            renewing.cancel()
            with contextlib.suppress(BaseException):
                await renewing
            with contextlib.suppress(StorageError):
                await self.store.write(self.store.release, game.id, AI_CLAIM, self.id)

    async def _renew(self, game_id: str) -> None:
        while True:
            await asyncio.sleep(AI_LEASE_SECONDS / 3)
            try:
                if not await self.store.write(self.store.renew, game_id, AI_CLAIM, self.id, AI_LEASE_SECONDS):
                    log.warning("game %s: this instance lost its claim on the AI's turn", game_id)
                    return
            except StorageError as exc:
                log.warning("game %s: renewing the AI turn's claim: %s", game_id, exc)

    async def sweep(self) -> int:
        """Claim and play every AI turn that waits with no live claim (its instance died); returns how
        many were taken over in this sweep."""
        if self.server.closing:
            return 0
        taken = 0
        for game_id, version in await self.store.read(self.store.orphaned_ai):
            if game_id in self._taking:
                continue
            if not await self.store.write(self.store.claim, game_id, AI_CLAIM, self.id, AI_LEASE_SECONDS, version):
                continue                                  # another instance was first
            taken += 1
            self._taking.add(game_id)
            self._tasks.append(asyncio.create_task(self._take_over(game_id, version)))
        self._tasks = [task for task in self._tasks if not task.done()]
        return taken

    async def _take_over(self, game_id: str, version: int) -> None:
        try:
            game = await self.server.restore(game_id)
            async with game.lock:
                await self.fresh(game)
                if not self._waits_for_ai(game) or game.thinking:
                    with contextlib.suppress(StorageError):
                        await self.store.write(self.store.release, game_id, AI_CLAIM, self.id)
                    return
                self.takeovers += 1
                log.warning("instance %s: taking over the AI's turn of game %s at version %d (its instance died)",
                            self.id, game_id, game.snap.version)
                await self._claimed_turn(game, "", self.server.play_ai_turn)
        except (StorageError, HTTPException) as exc:
            log.warning("instance %s: taking over game %s: %s", self.id, game_id, getattr(exc, "detail", exc))
            with contextlib.suppress(StorageError):
                await self.store.write(self.store.release, game_id, AI_CLAIM, self.id)
        finally:
            self._taking.discard(game_id)
