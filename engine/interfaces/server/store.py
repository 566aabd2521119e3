"""Games persist in SQLite: every change is committed before the server answers, so a restarted
server resumes every game exactly (the record replays to the identical state, fingerprint-checked)
and a crash between two actions loses nothing that was acknowledged.

The store never holds a seat's token, only its SHA-256: a copy of the database does not let anyone
play or read a game through the API.

Every SQLite failure (a locked database, a full disk, a read-only file, a file that is not a
database) leaves the store as it was and raises :class:`StorageError`, whose message says what failed
and where; the server answers 503 to it.

Reads and writes never wait for each other: writes go through one connection, one at a time, on a
thread of their own with a bounded queue (``MAX_WAITING_WRITES``); each write has ``busy_timeout``
seconds from when it was asked for, its wait in the queue included, and then fails (StorageError,
nothing written). Reads use connections of their own (WAL: a reader never waits for a writer) on
a small pool of threads. So a locked database delays only the writes, never a read, and waiting
writes never fill the threads other work runs on. The methods block; the server awaits them
through ``read`` and ``write``, never on its event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path

__all__ = ["GameStore", "StoredGame", "StorageError"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    human INTEGER NOT NULL,
    ai TEXT NOT NULL,            -- JSON: the AI player's settings
    record TEXT NOT NULL,        -- JSON: engine.game.record format
    status TEXT NOT NULL,        -- "playing" or "over"
    log TEXT NOT NULL,           -- JSON list of public log entries (the human's view of each step)
    ai_last_turn TEXT NOT NULL,  -- JSON list: what the human saw of the AI's last turn
    version INTEGER NOT NULL,    -- grows by one with every change
    token_hash TEXT NOT NULL DEFAULT '',   -- SHA-256 (hex) of the human seat's bearer token
    client TEXT NOT NULL DEFAULT ''        -- the address that created the game (per-client limits)
);
"""

#: Columns added after the first schema: an older database gains them when it is opened (its games
#: have no token and so cannot be reached through the API any more).
_ADDED_COLUMNS = {"token_hash": "TEXT NOT NULL DEFAULT ''", "client": "TEXT NOT NULL DEFAULT ''"}


#: Writes that may wait for the writer at once; one more is refused at once (StorageError: busy).
MAX_WAITING_WRITES = 64
#: Threads (each with its own connection) that read the database.
READERS = 4


class StorageError(RuntimeError):
    """The database could not be read or written; nothing was changed. The message says why."""


class StoredGame(dict):
    """A row: id, created, updated, human, ai (dict), record (dict), status, log (list), version,
    ai_last_turn (list), token_hash, client."""


def _describe(exc: sqlite3.Error) -> str:
    text = str(exc) or type(exc).__name__
    if "locked" in text or "busy" in text:
        return f"the database is busy ({text}); try again"
    if "full" in text:
        return f"the disk is full ({text})"
    return text


class GameStore:
    """One SQLite file of games. ``busy_timeout``: seconds a write waits for a lock held by another
    connection before it fails with StorageError."""

    def __init__(self, path: str | Path, busy_timeout: float = 5.0):
        self.path = str(path)
        try:
            if self.path != ":memory:":
                folder = Path(self.path).parent
                if folder.exists() and not folder.is_dir():
                    raise StorageError(f"cannot open the game database {self.path}: {folder} is not a folder")
                folder.mkdir(parents=True, exist_ok=True)
                if Path(self.path).is_dir():
                    raise StorageError(f"cannot open the game database {self.path}: it is a folder, not a file")
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=busy_timeout)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            present = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            for column, decl in _ADDED_COLUMNS.items():
                if column not in present:
                    self._db.execute(f"ALTER TABLE games ADD COLUMN {column} {decl}")
        except OSError as exc:
            raise StorageError(f"cannot open the game database {self.path}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the game database {self.path}: {_describe(exc)}") from None
        self.busy_timeout = busy_timeout
        self._lock = threading.Lock()                  # the writer connection (self._db)
        self._local = threading.local()                # each reading thread's own connection
        self._readers_open: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._write_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ftc-db-write")
        self._read_threads = concurrent.futures.ThreadPoolExecutor(READERS, thread_name_prefix="ftc-db-read")
        self._waiting_writes = 0
        self._count_lock = threading.Lock()

    def close(self) -> None:
        self._closed = True
        self._write_thread.shutdown(wait=False, cancel_futures=True)
        self._read_threads.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._db.close()
        with self._readers_lock:
            for connection in self._readers_open:
                connection.close()
            self._readers_open.clear()

    # -- running statements -----------------------------------------------------------------------
    def _run(self, what: str, sql: str, params: tuple = ()):
        """A write, on the writer connection (one at a time)."""
        with self._lock:
            try:
                return self._db.execute(sql, params)
            except sqlite3.Error as exc:
                raise StorageError(f"{what}: {_describe(exc)}") from None

    def _reader(self) -> sqlite3.Connection | None:
        """This thread's reading connection (None for an in-memory database, which has one)."""
        if self.path == ":memory:":
            return None
        connection = getattr(self._local, "db", None)
        if connection is None:
            connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                         timeout=self.busy_timeout)
            connection.execute("PRAGMA query_only = 1")
            with self._readers_lock:
                if self._closed:
                    connection.close()
                    raise sqlite3.ProgrammingError("the database is closed")
                self._readers_open.append(connection)
            self._local.db = connection
        return connection

    def _read(self, what: str, sql: str, params: tuple = ()) -> list:
        """A read, on this thread's own connection: it never waits for a write."""
        try:
            connection = self._reader()
            if connection is None:
                with self._lock:
                    return self._db.execute(sql, params).fetchall()
            return connection.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StorageError(f"{what}: {_describe(exc)}") from None

    async def read(self, method, *args):
        """``method(*args)`` (a reading method of this store) on the readers' threads."""
        return await asyncio.wrap_future(self._read_threads.submit(method, *args))

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
            with self._lock:
                self._db.execute(f"PRAGMA busy_timeout = {max(1, int(left * 1000))}")
            try:
                return method(*args)
            finally:
                with self._lock:
                    self._db.execute(f"PRAGMA busy_timeout = {max(1, int(self.busy_timeout * 1000))}")

        try:
            future = self._write_thread.submit(within_time)
        except RuntimeError:                                   # closed
            with self._count_lock:
                self._waiting_writes -= 1
            raise StorageError("the database is closed") from None
        return await asyncio.wrap_future(future)

    def new_id(self) -> str:
        return uuid.uuid4().hex[:16]

    def insert(self, game_id: str, human: int, ai: dict, record: dict, status: str, log: list,
               token_hash: str, client: str) -> None:
        now = time.time()
        self._run(
            f"saving the new game {game_id}",
            "INSERT INTO games (id, created, updated, human, ai, record, status, log, ai_last_turn, version, "
            "token_hash, client) VALUES (?,?,?,?,?,?,?,?,'[]',1,?,?)",
            (game_id, now, now, human, json.dumps(ai), json.dumps(record), status, json.dumps(log), token_hash,
             client),
        )

    def update(self, game_id: str, record: dict, status: str, log: list, ai_last_turn: list,
               expected_version: int) -> int:
        """Write the new state as version ``expected_version + 1``; the version check refuses a
        write based on a stale read (StorageError, nothing written)."""
        cursor = self._run(
            f"saving game {game_id}",
            "UPDATE games SET record=?, status=?, log=?, ai_last_turn=?, updated=?, version=version+1 "
            "WHERE id=? AND version=?",
            (json.dumps(record), status, json.dumps(log), json.dumps(ai_last_turn), time.time(), game_id,
             expected_version),
        )
        if cursor.rowcount != 1:
            raise StorageError(f"saving game {game_id}: it changed meanwhile (version {expected_version} is stale)")
        return expected_version + 1

    def get(self, game_id: str) -> StoredGame | None:
        rows = self._read(
            f"reading game {game_id}",
            "SELECT id, created, updated, human, ai, record, status, log, version, ai_last_turn, token_hash, client "
            "FROM games WHERE id=?", (game_id,)
        )
        if not rows:
            return None
        row = rows[0]
        return StoredGame(id=row[0], created=row[1], updated=row[2], human=row[3], ai=json.loads(row[4]),
                          record=json.loads(row[5]), status=row[6], log=json.loads(row[7]), version=row[8],
                          ai_last_turn=json.loads(row[9]), token_hash=row[10], client=row[11])

    def updated(self, game_id: str) -> float | None:
        """When the game was last changed (seconds since the epoch), None when no such game exists."""
        rows = self._read(f"reading game {game_id}", "SELECT updated FROM games WHERE id=?", (game_id,))
        return rows[0][0] if rows else None

    def delete(self, game_id: str) -> bool:
        """Remove a game for good; False when there was no such game."""
        return self._run(f"deleting game {game_id}", "DELETE FROM games WHERE id=?", (game_id,)).rowcount == 1

    def token_hash(self, game_id: str) -> str | None:
        """The stored token hash of a game, None when no such game exists."""
        rows = self._read(f"reading game {game_id}", "SELECT token_hash FROM games WHERE id=?", (game_id,))
        return rows[0][0] if rows else None

    def count_playing(self, client: str, since: float = 0.0) -> int:
        """Games created by ``client`` that are not over and changed at ``since`` (a time.time()) or later."""
        return self._read("counting games", "SELECT COUNT(*) FROM games WHERE client=? AND status='playing' "
                          "AND updated>=?", (client, since))[0][0]

    def integrity_check(self) -> str:
        """SQLite's own check of the file: "ok" when sound."""
        return self._run("checking the database", "PRAGMA integrity_check").fetchone()[0]
