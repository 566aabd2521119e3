"""Games persist in a database, SQLite (the default: one file) or PostgreSQL (several servers on one
database): every change is committed before the server answers, so a restarted server resumes every
game exactly (the record replays to the identical state, fingerprint-checked) and a crash between
two actions loses nothing that was acknowledged.

The store never holds a seat's token, only its SHA-256: a copy of the database does not let anyone
play or read a game through the API.

Every database failure (a locked database, a full disk, a read-only file, a file that is not a
database; on PostgreSQL also an unreachable server, a refused password, a missing database, a
connection dropped mid-write, a serialization failure) leaves the store as it was (each write is one
transaction) and raises :class:`StorageError`, whose message says what failed and where (never a
password); the server answers 503 to it. The optimistic version check of ``update`` is done by the
database itself (``UPDATE ... WHERE id=? AND version=?``).

Reads and writes never wait for each other: writes go through the writer's threads (SQLite: one
connection, one at a time; PostgreSQL: connections of the pool) with a bounded queue
(``MAX_WAITING_WRITES``); each write has ``busy_timeout`` seconds from when it was asked for, its
wait in the queue included, and then fails (StorageError, nothing written). Reads use connections of
their own (SQLite's WAL: a reader never waits for a writer; PostgreSQL: MVCC) on a small pool of
threads. So a locked database delays only the writes, never a read, and waiting writes never fill
the threads other work runs on. The methods block; the server awaits them through ``read`` and
``write``, never on its event loop.

The SQL dialects are backends (store_sqlite.py, store_postgres.py); the schema is the versioned
migrations of migrations.py, applied when a store opens. ``open_store`` picks the backend from a
path or URL. Beside the games the store keeps claims (who handles a piece of work on a game until
when, on the database's clock) and publishes every change of a game ("game G is at version V") to
the callbacks given to ``subscribe``, once the change is committed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from engine.interfaces.server.store_common import RESYNC, SETTINGS, Change, StorageError, StoredGame, redacted_url

__all__ = ["GameStore", "StoredGame", "StorageError", "StaleVersion", "GameOver", "Change", "RESYNC", "SETTINGS",
           "open_store", "describe_location", "is_url", "AI_CLAIM"]


class StaleVersion(StorageError):
    """``update`` was refused: the game is no longer at the version the change was based on (another
    request or another server changed it first). Nothing was written."""


class GameOver(Exception):
    """``join`` was refused: the invitation's code is right, but its game is over (finished or
    aborted); nothing was written. Not a StorageError: the database is fine."""


#: Writes that may wait for the writer at once; one more is refused at once (StorageError: busy).
MAX_WAITING_WRITES = 64
#: Connections of a PostgreSQL store's pool (``pool_size``) unless told otherwise.
POOL_SIZE = 8
#: Reads of a game (``get``) before one finds its row and its seats' rows of one version (each retry
#: means another save landed between the two reads).
READ_ATTEMPTS = 5


def is_url(text: str) -> bool:
    return "://" in text


def describe_location(url_or_path: str | Path) -> str:
    """How messages name a store: the path, or the URL without its password."""
    text = str(url_or_path)
    return redacted_url(text) if is_url(text) else text


def _backend(url_or_path: str | Path, busy_timeout: float, pool_size: int):
    text = str(url_or_path)
    if text.startswith(("postgresql://", "postgres://")):
        try:
            from engine.interfaces.server.store_postgres import PostgresBackend
        except ImportError as exc:
            raise StorageError(f"a PostgreSQL store needs psycopg 3 and psycopg-pool ({exc.name} is missing): "
                               "pip install -e '.[server]'") from None
        return PostgresBackend(text, busy_timeout, pool_size)
    if text.startswith("sqlite://"):
        if not text.startswith("sqlite:///") or text == "sqlite:///":
            raise StorageError(f"cannot open the game database {text}: an SQLite URL is sqlite:///PATH "
                               "(sqlite:////abs/path for an absolute path)")
        text = text[len("sqlite:///"):]
    elif is_url(text):
        scheme = text.split("://", 1)[0]
        raise StorageError(f"cannot open the game database {describe_location(text)}: unknown kind of store "
                           f"{scheme!r} (a path, sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE)")
    from engine.interfaces.server.store_sqlite import SQLiteBackend

    return SQLiteBackend(text, busy_timeout)


def open_store(url_or_path: str | Path, busy_timeout: float = 5.0, pool_size: int = POOL_SIZE) -> GameStore:
    """The store at ``url_or_path``: a path or ``sqlite:///PATH`` (SQLite), ``postgresql://...`` or
    ``postgres://...`` (PostgreSQL, a pool of ``pool_size`` connections). Its migrations are applied
    first; StorageError when it cannot be opened."""
    return GameStore(url_or_path, busy_timeout=busy_timeout, pool_size=pool_size)


class GameStore:
    """The games of one database (``url_or_path``: see ``open_store``). ``busy_timeout``: seconds a
    write waits for a lock held by another connection (and, on PostgreSQL, for a free connection)
    before it fails with StorageError."""

    def __init__(self, url_or_path: str | Path, busy_timeout: float = 5.0, pool_size: int = POOL_SIZE):
        if not busy_timeout > 0:
            raise StorageError(f"busy_timeout must be a positive number of seconds, got {busy_timeout}")
        if not isinstance(pool_size, int) or pool_size < 2:
            raise StorageError(f"pool_size must be an integer of at least 2 (a reader and a writer), got {pool_size}")
        self.backend = _backend(url_or_path, busy_timeout, pool_size)
        #: The SQLite file (None on PostgreSQL); ``location`` names the store in messages.
        self.path = self.backend.path
        self.location = self.backend.location
        self.dialect = self.backend.dialect
        self.busy_timeout = busy_timeout
        self._closed = False
        self._write_thread = concurrent.futures.ThreadPoolExecutor(self.backend.writers,
                                                                   thread_name_prefix="ftc-db-write")
        self._read_threads = concurrent.futures.ThreadPoolExecutor(self.backend.readers,
                                                                   thread_name_prefix="ftc-db-read")
        self._waiting_writes = 0
        self._count_lock = threading.Lock()

    def close(self) -> None:
        self._closed = True
        self._write_thread.shutdown(wait=False, cancel_futures=True)
        self._read_threads.shutdown(wait=False, cancel_futures=True)
        self.backend.close()

    # -- running methods on the store's threads -----------------------------------------------------
    async def read(self, method, *args):
        """``method(*args)`` (a reading method of this store) on the readers' threads."""
        try:
            future = self._read_threads.submit(method, *args)
        except RuntimeError:                                   # closed
            raise StorageError("the database is closed") from None
        return await asyncio.wrap_future(future)

    async def write(self, method, *args):
        """``method(*args)`` (a writing method of this store) on the writer's thread, within
        ``busy_timeout`` seconds from now (its wait for the writer included), else StorageError
        and nothing written; StorageError at once when MAX_WAITING_WRITES writes wait already."""
        with self._count_lock:
            if self._waiting_writes >= MAX_WAITING_WRITES:
                raise StorageError(f"the database is busy ({MAX_WAITING_WRITES} writes are waiting); try again")
            self._waiting_writes += 1
        deadline = time.monotonic() + self.busy_timeout

        def within_time():
            with self._count_lock:
                self._waiting_writes -= 1
            left = deadline - time.monotonic()
            if left <= 0:
                raise StorageError(f"the database is busy (no write finished within {self.busy_timeout:g} s); "
                                   "try again")
            with self.backend.time_limit(left):
                return method(*args)

        try:
            future = self._write_thread.submit(within_time)
        except RuntimeError:                                   # closed
            with self._count_lock:
                self._waiting_writes -= 1
            raise StorageError("the database is closed") from None
        return await asyncio.wrap_future(future)

    # -- games ----------------------------------------------------------------------------------------
    def new_id(self) -> str:
        return uuid.uuid4().hex[:16]

    def insert(self, game_id: str, human: int, ai: dict, record: dict, status: str, log: list,
               token_hash: str, client: str, spectators: bool = True, public_log: list | None = None,
               seats: list[dict] | None = None, setup: dict | None = None, clock: dict | None = None,
               flag_at: float | None = None, waiting_ai: bool = False,
               ai_claim: tuple[str, float] | None = None, idle: tuple[int, float] | None = None) -> None:
        """Save a new game at version 1 (``public_log``: a spectator's log; default: ``log``).
        ``seats``: a row per seat (seats.py: seat, kind, token_hash, invite_hash, ai, joined); default:
        the creator's seat ``human`` alone (every other seat is then the AI with ``ai``). ``setup``:
        the new-game body a rematch repeats. ``clock`` and ``flag_at``: its clocks, clocks.py
        ``Clock.to_json`` and ``Clock.flag_at``, None untimed. ``waiting_ai``: whether it waits for
        the AI's turn; ``ai_claim``: (owner, lease seconds), the claim on that turn taken in the same
        transaction (see ``update``); ``idle``: (seat, since) of the seat whose idleness counts (see
        ``update``)."""
        with self.backend.transaction(f"saving the new game {game_id}") as tx:
            self._insert(tx, game_id, human, ai, record, status, log, token_hash, client, spectators, public_log,
                         seats, setup, clock, flag_at, waiting_ai, idle)
            self._claim_turn(tx, game_id, 1, waiting_ai, ai_claim)
            tx.publish(Change(game_id, 1))

    def _claim_turn(self, tx, game_id: str, version: int, waiting_ai: bool, ai_claim) -> None:
        """In a saving transaction: when the game now waits for the AI and ``ai_claim`` is (owner,
        lease), the "ai" claim at ``version`` for owner (the saving instance runs the turn: no other
        one may take it in between). A live claim of another owner is left alone."""
        if waiting_ai and ai_claim is not None:
            owner, lease = ai_claim
            _check_lease(lease)
            tx.run(self.backend.sql_claim, (game_id, AI_CLAIM, owner, lease, version))

    @staticmethod
    def _insert(tx, game_id, human, ai, record, status, log, token_hash, client, spectators, public_log, seats,
                setup, clock=None, flag_at=None, waiting_ai=False, idle=None) -> None:
        now = time.time()
        idle_seat, idle_since = idle if idle is not None else (None, None)
        tx.run("INSERT INTO games (id, created, updated, human, ai, record, status, log, ai_last_turn, version, "
               "token_hash, client, spectators, public_log, setup, clock, flag_at, waiting_ai, idle_seat, idle_since) "
               "VALUES (?,?,?,?,?,?,?,?,'[]',1,?,?,?,?,?,?,?,?,?,?)",
               (game_id, now, now, human, json.dumps(ai), json.dumps(record), status, json.dumps(log),
                token_hash, client, bool(spectators), json.dumps(log if public_log is None else public_log),
                None if setup is None else json.dumps(setup), None if clock is None else json.dumps(clock), flag_at,
                bool(waiting_ai), idle_seat, idle_since))
        if seats is None:
            seats = [{"seat": human, "kind": "human", "token_hash": token_hash, "joined": now}]
        for row in seats:
            own_log = None if row["seat"] == human or row["kind"] == "ai" else "[]"
            tx.run("INSERT INTO seats (game_id, seat, kind, token_hash, invite_hash, ai, joined, log, ai_last_turn) "
                   "VALUES (?,?,?,?,?,?,?,?,?)",
                   (game_id, row["seat"], row["kind"], row.get("token_hash"), row.get("invite_hash"),
                    None if row.get("ai") is None else json.dumps(row["ai"]),
                    now if row.get("token_hash") else None, own_log, own_log))

    def update(self, game_id: str, record: dict, status: str, log: list, ai_last_turn: list,
               expected_version: int, public_log: list | None = None,
               seat_logs: dict[int, tuple[list, list]] | None = None, clock: dict | None = None,
               flag_at: float | None = None, waiting_ai: bool = False,
               ai_claim: tuple[str, float] | None = None, away: list[int] | None = None,
               idle: tuple[int, float] | None = None) -> int:
        """Write the new state as version ``expected_version + 1``; the version check (in the
        database) refuses a write based on a stale read (StaleVersion, nothing written).
        ``public_log``: a spectator's log (None: not kept, derived from the record when asked).
        ``log`` and ``ai_last_turn`` are the creator's seat's; ``seat_logs``: seat -> (log,
        ai_last_turn) of every other human or bot seat; ``clock`` and ``flag_at``: the game's clocks
        after this change (None: untimed); ``waiting_ai``: whether the game now waits for the AI's
        turn (so a turn whose server died is found: ``orphaned_ai``); ``ai_claim``: (owner, lease
        seconds), the claim on that turn; ``away``: the seats the easy bot plays because their
        player left or was idle (None: none); ``idle``: (seat, since), the human or bot seat of an
        untimed game without resignation that decides now and since when (None: no such seat), so
        that ``due_idle`` finds it; all in the same transaction."""
        idle_seat, idle_since = idle if idle is not None else (None, None)
        with self.backend.transaction(f"saving game {game_id}") as tx:
            changed = tx.run(
                "UPDATE games SET record=?, status=?, log=?, ai_last_turn=?, public_log=?, updated=?, "
                "clock=?, flag_at=?, waiting_ai=?, away=?, idle_seat=?, idle_since=?, version=version+1 "
                "WHERE id=? AND version=?",
                (json.dumps(record), status, json.dumps(log), json.dumps(ai_last_turn),
                 None if public_log is None else json.dumps(public_log), time.time(),
                 None if clock is None else json.dumps(clock), flag_at, bool(waiting_ai),
                 json.dumps(sorted(away)) if away else None, idle_seat, idle_since, game_id, expected_version))
            if changed != 1:
                raise StaleVersion(f"saving game {game_id}: it changed meanwhile (version {expected_version} is stale)")
            for seat, (seat_log, seat_last) in (seat_logs or {}).items():
                tx.run("UPDATE seats SET log=?, ai_last_turn=? WHERE game_id=? AND seat=?",
                       (json.dumps(seat_log), json.dumps(seat_last), game_id, seat))
            self._claim_turn(tx, game_id, expected_version + 1, waiting_ai, ai_claim)
            tx.publish(Change(game_id, expected_version + 1))
        return expected_version + 1

    def version(self, game_id: str) -> int | None:
        """The game's version in the database (one read by its primary key), None when no such game."""
        rows = self.backend.query(f"reading game {game_id}", "SELECT version FROM games WHERE id=?", (game_id,))
        return rows[0][0] if rows else None

    def freshness(self, game_id: str) -> tuple[int, bool] | None:
        """(version, open to spectators) of the game in the database (one read by its primary key),
        None when no such game."""
        rows = self.backend.query(f"reading game {game_id}", "SELECT version, spectators FROM games WHERE id=?",
                                  (game_id,))
        return (rows[0][0], bool(rows[0][1])) if rows else None

    def count_created(self, client: str, since: float) -> int:
        """Games created by ``client`` at ``since`` (a time.time()) or later, by any server."""
        return self.backend.query("counting games", "SELECT COUNT(*) FROM games WHERE client=? AND created>=?",
                                  (client, since))[0][0]

    def orphaned_ai(self, limit: int = 20) -> list[tuple[str, int]]:
        """Games that wait for the AI's turn with no live "ai" claim (the server that had it died, its
        lease ran out, or it never took it): (game id, version), at most ``limit``, oldest change first."""
        return [(row[0], row[1]) for row in self.backend.query(
            "finding AI turns without a server",
            "SELECT id, version FROM games g WHERE waiting_ai=? AND status='playing' AND NOT EXISTS "
            f"(SELECT 1 FROM claims c WHERE c.game_id=g.id AND c.kind=? AND c.lease_until > {self.backend.sql_now}) "
            "ORDER BY updated LIMIT ?", (True, AI_CLAIM, limit))]

    # -- instances: the servers running on this database ----------------------------------------------
    def heartbeat(self, instance_id: str, host: str, pid: int, alive_seconds: float) -> int:
        """Record that instance ``instance_id`` (of ``host``, process ``pid``) is alive now, on the
        database's clock (registered on its first heartbeat, or again after another instance
        forgot it); forget instances silent for ten times ``alive_seconds``. Returns the number of
        live instances: those heard from within ``alive_seconds`` (this one included)."""
        _check_lease(alive_seconds)
        now, ago = self.backend.sql_now, self.backend.sql_ago
        with self.backend.transaction("recording this server's heartbeat") as tx:
            if tx.run(f"UPDATE instances SET heartbeat={now} WHERE id=?", (instance_id,)) == 0:
                tx.run(f"INSERT INTO instances (id, host, pid, started, heartbeat) VALUES (?, ?, ?, {now}, {now})",
                       (instance_id, host, pid))
            tx.run(f"DELETE FROM instances WHERE heartbeat < {ago}", (10 * alive_seconds,))
        return self.backend.query("counting the servers", f"SELECT COUNT(*) FROM instances WHERE heartbeat >= {ago}",
                                  (alive_seconds,))[0][0]

    def instances(self, alive_seconds: float) -> list[dict]:
        """The live instances (heard from within ``alive_seconds``): id, host, pid."""
        rows = self.backend.query("listing the servers", "SELECT id, host, pid FROM instances WHERE heartbeat >= "
                                  f"{self.backend.sql_ago} ORDER BY id", (alive_seconds,))
        return [{"id": row[0], "host": row[1], "pid": row[2]} for row in rows]

    def retire(self, instance_id: str) -> None:
        """Forget instance ``instance_id`` (it is shutting down)."""
        with self.backend.transaction("retiring this server") as tx:
            tx.run("DELETE FROM instances WHERE id=?", (instance_id,))

    def get(self, game_id: str) -> StoredGame | None:
        """The game as one version saved it: its row and its seats' rows (each other seat's log) are
        two reads, so when a save lands between them (another server's: its seats' rows would be
        the newer version's) the game is read again, up to ``READ_ATTEMPTS`` times."""
        for _ in range(READ_ATTEMPTS):
            rows = self.backend.query(
                f"reading game {game_id}",
                "SELECT id, created, updated, human, ai, record, status, log, version, ai_last_turn, token_hash, "
                "client, spectators, public_log, setup, rematch, clock, flag_at, away FROM games WHERE id=?",
                (game_id,))
            if not rows:
                return None
            row = rows[0]
            seats, version = self._seats_at(game_id)
            if version is None or version == row[8]:
                break
        else:
            raise StorageError(f"reading game {game_id}: it was saved again during each of {READ_ATTEMPTS} reads")
        return StoredGame(id=row[0], created=row[1], updated=row[2], human=row[3], ai=json.loads(row[4]),
                          record=json.loads(row[5]), status=row[6], log=json.loads(row[7]), version=row[8],
                          ai_last_turn=json.loads(row[9]), token_hash=row[10], client=row[11],
                          spectators=bool(row[12]), public_log=None if row[13] is None else json.loads(row[13]),
                          setup=None if row[14] is None else json.loads(row[14]), rematch=row[15],
                          clock=None if row[16] is None else json.loads(row[16]), flag_at=row[17],
                          away=[] if row[18] is None else json.loads(row[18]), seats=seats)

    def seats(self, game_id: str) -> list[dict]:
        """The seat rows of a game, by seat: seat, kind, token_hash, invite_hash, ai (dict or None),
        joined, log and ai_last_turn (lists; None for the creator's seat and AI seats), offered."""
        return self._seats_at(game_id)[0]

    def _seats_at(self, game_id: str) -> tuple[list[dict], int | None]:
        """The seat rows of a game (``seats``) and the game's version they belong to, read in one
        statement (one snapshot of the database); None when it has no seat rows."""
        rows = self.backend.query(
            f"reading the seats of game {game_id}",
            "SELECT s.seat, s.kind, s.token_hash, s.invite_hash, s.ai, s.joined, s.log, s.ai_last_turn, s.offered, "
            "g.version FROM seats s JOIN games g ON g.id = s.game_id WHERE s.game_id=? ORDER BY s.seat", (game_id,))
        return [{"seat": r[0], "kind": r[1], "token_hash": r[2], "invite_hash": r[3],
                 "ai": None if r[4] is None else json.loads(r[4]), "joined": r[5],
                 "log": None if r[6] is None else json.loads(r[6]),
                 "ai_last_turn": None if r[7] is None else json.loads(r[7]), "offered": bool(r[8])} for r in rows], \
            rows[0][9] if rows else None

    def seat_of(self, game_id: str, token_hash: str) -> int | None:
        """The seat of game ``game_id`` whose token has the SHA-256 ``token_hash``, None if none has."""
        rows = self.backend.query(f"reading game {game_id}", "SELECT seat FROM seats WHERE game_id=? AND token_hash=?",
                                  (game_id, token_hash))
        return rows[0][0] if rows else None

    def join(self, game_id: str, invite_hash: str, token_hash: str) -> int | None:
        """Take the open seat whose invitation code has the SHA-256 ``invite_hash`` with a new token
        (its SHA-256 ``token_hash``): the code is consumed by one statement (``UPDATE ... WHERE
        invite_hash=?``), so of two joins racing with one code exactly one gets the seat. The seat, or
        None (and nothing changed) for a wrong or used code or an unknown game; GameOver (nothing
        changed) when the code is right but the game is over: its row is locked first, so a join and
        the change that ends the game are never both applied. A seat taken is published as
        Change(game_id, SETTINGS) with the transaction."""
        found = self.backend.query(f"reading game {game_id}",
                                   "SELECT seat FROM seats WHERE game_id=? AND invite_hash=?", (game_id, invite_hash))
        if not found:
            return None
        seat = found[0][0]
        with self.backend.transaction(f"joining game {game_id}") as tx:
            tx.run("UPDATE games SET rematch=rematch WHERE id=?", (game_id,))     # the game's row lock
            status = tx.rows("SELECT status FROM games WHERE id=?", (game_id,))
            if status and status[0][0] != "playing":
                raise GameOver(f"game {game_id} is over")
            taken = tx.run("UPDATE seats SET token_hash=?, invite_hash=NULL, joined=? "
                           "WHERE game_id=? AND seat=? AND invite_hash=? AND token_hash IS NULL",
                           (token_hash, time.time(), game_id, seat, invite_hash))
            if taken == 1:                       # other servers' sockets learn that the seat is taken
                tx.publish(Change(game_id, SETTINGS))
        return seat if taken == 1 else None

    def offer_rematch(self, game_id: str, seat: int, rematch: dict) -> tuple[list[int], str | None]:
        """Record that ``seat`` offers a rematch of the (finished) game; once every human and bot seat
        has offered, save the new game ``rematch`` (the keyword arguments of ``insert``, with its
        ``game_id``) and link it, all in this one transaction: of offers racing to complete it exactly
        one saves it (``UPDATE games SET rematch=? WHERE rematch IS NULL``). Returns the seats that
        have offered and the rematch's id (None until it exists). The offer is published as
        Change(game_id, SETTINGS) with the transaction (and a new game as Change(its id, 1))."""
        with self.backend.transaction(f"offering a rematch of game {game_id}") as tx:
            # The game's row is locked first: offers on one game are serialized (on PostgreSQL the
            # later one waits, then its reads see the earlier one's offer), so the last offer always
            # sees every other.
            tx.run("UPDATE games SET rematch=rematch WHERE id=?", (game_id,))
            tx.run("UPDATE seats SET offered=1 WHERE game_id=? AND seat=?", (game_id, seat))
            rows = tx.rows("SELECT seat, kind, offered FROM seats WHERE game_id=? ORDER BY seat",
                                     (game_id,))
            offered = [r[0] for r in rows if r[2]]
            waiting = [r[0] for r in rows if r[1] != "ai" and not r[2]]
            made = tx.rows("SELECT rematch FROM games WHERE id=?", (game_id,))
            new_id = made[0][0] if made else None
            if not waiting and new_id is None:
                if tx.run("UPDATE games SET rematch=? WHERE id=? AND rematch IS NULL",
                          (rematch["game_id"], game_id)) == 1:
                    self._insert(tx, **{key: value for key, value in rematch.items() if key != "game_id"},
                                 game_id=rematch["game_id"])
                    new_id = rematch["game_id"]
                    tx.publish(Change(rematch["game_id"], 1))
            tx.publish(Change(game_id, SETTINGS))
        return offered, new_id

    def due_flags(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        """Games in play whose running clock ran out at ``now`` (``flag_at <= now``, the index
        games_flag_at), earliest first: (game_id, version), at most ``limit``."""
        rows = self.backend.query("finding the clocks that ran out",
                                  "SELECT id, version FROM games WHERE flag_at <= ? AND status='playing' "
                                  "ORDER BY flag_at LIMIT ?", (now, limit))
        return [(row[0], row[1]) for row in rows]

    def set_flag_at(self, game_id: str, version: int, flag_at: float | None) -> bool:
        """Set when the game's clocks are next due (``flag_at``; core.Server.clock_due) while the game is
        in play at ``version``, without a new version (a seat taken moved the limit of a turn before
        the game's start); False, and nothing written, when the game has moved on or is over."""
        with self.backend.transaction(f"saving game {game_id}") as tx:
            return tx.run("UPDATE games SET flag_at=? WHERE id=? AND version=? AND status='playing'",
                          (flag_at, game_id, version)) == 1

    def due_idle(self, before: float, limit: int = 100) -> list[tuple[str, int]]:
        """Games in play whose deciding human or bot seat (``idle_seat``, taken: it has a token) has
        not acted since ``before`` or earlier, counted from the game's last change and from when the
        seat was taken (the index games_idle_since), longest idle first: (game_id, version), at most
        ``limit``."""
        rows = self.backend.query(
            "finding the seats that do not act",
            "SELECT g.id, g.version FROM games g JOIN seats s ON s.game_id=g.id AND s.seat=g.idle_seat "
            "WHERE g.idle_since <= ? AND g.status='playing' AND s.token_hash IS NOT NULL AND s.joined <= ? "
            "ORDER BY g.idle_since LIMIT ?", (before, before, limit))
        return [(row[0], row[1]) for row in rows]

    def updated(self, game_id: str) -> float | None:
        """When the game was last changed (seconds since the epoch), None when no such game exists."""
        rows = self.backend.query(f"reading game {game_id}", "SELECT updated FROM games WHERE id=?", (game_id,))
        return rows[0][0] if rows else None

    def delete(self, game_id: str) -> bool:
        """Remove a game for good, with its seats and claims; False when there was no such game."""
        with self.backend.transaction(f"deleting game {game_id}") as tx:
            gone = tx.run("DELETE FROM games WHERE id=?", (game_id,)) == 1
            tx.run("DELETE FROM seats WHERE game_id=?", (game_id,))
            tx.run("DELETE FROM claims WHERE game_id=?", (game_id,))
            if gone:
                tx.publish(Change(game_id, 0))
        return gone

    def set_spectators(self, game_id: str, spectators: bool) -> bool:
        """Open the game to spectators or close it to them; False when there is no such game. The
        game's version is unchanged (a setting of the game, not a move); the change is published as
        Change(game_id, SETTINGS)."""
        with self.backend.transaction(f"saving game {game_id}") as tx:
            changed = tx.run("UPDATE games SET spectators=? WHERE id=?", (bool(spectators), game_id)) == 1
            if changed:
                tx.publish(Change(game_id, SETTINGS))
            return changed

    def watchable(self, game_id: str) -> bool:
        """Whether a game ``game_id`` exists and is open to spectators."""
        rows = self.backend.query(f"reading game {game_id}", "SELECT spectators FROM games WHERE id=?", (game_id,))
        return bool(rows and rows[0][0])

    def token_hash(self, game_id: str) -> str | None:
        """The stored token hash of a game, None when no such game exists."""
        rows = self.backend.query(f"reading game {game_id}", "SELECT token_hash FROM games WHERE id=?", (game_id,))
        return rows[0][0] if rows else None

    def count_playing(self, client: str, since: float = 0.0) -> int:
        """Games created by ``client`` that are not over and changed at ``since`` (a time.time()) or later."""
        return self.backend.query("counting games", "SELECT COUNT(*) FROM games WHERE client=? AND status='playing' "
                                  "AND updated>=?", (client, since))[0][0]

    def integrity_check(self) -> str:
        """The database's own check: "ok" when sound (SQLite: PRAGMA integrity_check; PostgreSQL:
        every table of the schema readable and the schema at this code's version)."""
        return self.backend.integrity_check()

    def schema_version(self) -> int:
        """The last migration applied to this database (migrations.py)."""
        return self.backend.query("reading the schema version", "SELECT MAX(version) FROM schema_migrations")[0][0]

    # -- claims: one handler for a piece of work on a game, across servers -------------------------
    def claim(self, game_id: str, kind: str, owner: str, lease_seconds: float, version: int) -> bool:
        """Claim the work ``kind`` on ``game_id`` (at game version ``version``) for ``owner`` for
        ``lease_seconds`` on the database's clock. True when there was no claim, the existing one's
        lease has run out (a takeover: its owner is presumed dead) or ``owner`` holds it already (its
        lease and version are then renewed); False when another owner holds a live claim. Of owners
        claiming at once exactly one gets True (one statement, atomic in the database)."""
        _check_lease(lease_seconds)
        with self.backend.transaction(f"claiming {kind} of game {game_id}") as tx:
            return tx.run(self.backend.sql_claim, (game_id, kind, owner, lease_seconds, version)) == 1

    def renew(self, game_id: str, kind: str, owner: str, lease_seconds: float) -> bool:
        """Extend ``owner``'s claim to ``lease_seconds`` from now; False when ``owner`` no longer
        holds it (released, or taken over after its lease ran out)."""
        _check_lease(lease_seconds)
        with self.backend.transaction(f"renewing the claim on {kind} of game {game_id}") as tx:
            return tx.run(self.backend.sql_renew, (lease_seconds, game_id, kind, owner)) == 1

    def release(self, game_id: str, kind: str, owner: str) -> bool:
        """Give up ``owner``'s claim; False (and nothing changed) when ``owner`` does not hold it."""
        with self.backend.transaction(f"releasing the claim on {kind} of game {game_id}") as tx:
            return tx.run("DELETE FROM claims WHERE game_id=? AND kind=? AND owner=?", (game_id, kind, owner)) == 1

    def claim_holder(self, game_id: str, kind: str) -> tuple[str, int, float] | None:
        """The live claim on ``kind`` of ``game_id``: (owner, version, seconds of lease left), or None."""
        rows = self.backend.query(f"reading the claim on {kind} of game {game_id}", self.backend.sql_holder,
                                  (game_id, kind))
        return (rows[0][0], rows[0][1], float(rows[0][2])) if rows else None

    # -- change notifications -------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        """Call ``callback(Change(game_id, version))`` after every committed insert, update and delete of
        a game made through any store on this database (PostgreSQL: by any server, LISTEN/NOTIFY; SQLite:
        by this process), on a thread of the store's own; ``callback(RESYNC)`` when changes may have been
        missed (the caller reloads what it watches). Returns the function that unsubscribes."""
        if self._closed:
            raise StorageError("the database is closed")
        return self.backend.subscribe(callback)


#: The kind of claim on a game's AI turn (instances.py).
AI_CLAIM = "ai"


def _check_lease(lease_seconds: float) -> None:
    if not (isinstance(lease_seconds, (int, float)) and 0 < lease_seconds <= 10**7):
        raise ValueError(f"lease_seconds must be a positive number of seconds (at most 10^7), got {lease_seconds!r}")
