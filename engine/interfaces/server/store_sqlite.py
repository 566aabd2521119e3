"""The game store's SQLite backend (store.py; the interface: store_common.py): one file in WAL mode
with ``synchronous=FULL`` (a committed write is on disk before the server answers). Writes go
through one connection, one transaction at a time (``BEGIN IMMEDIATE``: the write lock is taken
first, so two writers never deadlock, and a write waits at most ``busy_timeout`` for it); reads use
a connection per reading thread (WAL: a reader never waits for a writer).

Closing the store never closes a connection under a running statement (SQLite's connections are
not safe for that: the process crashed with "Fatal Python error: Segmentation fault" when a
server's shutdown closed a reading connection while the flag sweeper's thread was still in its
query). Each reading connection is used under a lock of its own, taken only by its thread and by
``close``, which interrupts a running query, waits for it to end, then closes the connection; a read
after that fails with StorageError ("the database is closed").

Claims compare times on SQLite's clock (``julianday('now')``, as seconds since the epoch). Change
notices go to the subscribers of every store on the same file in this process, after the commit.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path

from engine.interfaces.server.migrations import LEGACY_COLUMNS, MIGRATIONS, MIGRATIONS_TABLE, newer_than_known
from engine.interfaces.server.store_common import Change, StorageError, Subscribers

#: Threads (each with its own connection) that read the database.
READERS = 4

#: SQLite's clock as seconds since the epoch (one value within a statement).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

#: Subscribers of the stores open in this process, by file (":memory:" databases: by store).
_LISTENERS: dict[str, list[Subscribers]] = {}
_LISTENERS_LOCK = threading.Lock()


def _describe(exc: sqlite3.Error) -> str:
    text = str(exc) or type(exc).__name__
    if "locked" in text or "busy" in text:
        return f"the database is busy ({text}); try again"
    if "full" in text:
        return f"the disk is full ({text})"
    return text


class _Reader:
    """A reading thread's connection and the lock held while it runs a statement (and by ``close``)."""

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection
        self.lock = threading.Lock()
        self.closed = False


class _Transaction:
    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection
        self.changes: list[Change] = []

    def run(self, sql: str, params: tuple = ()) -> int:
        return self.connection.execute(sql, params).rowcount

    def rows(self, sql: str, params: tuple = ()) -> list:
        """A query's rows within the transaction (it sees the transaction's own writes)."""
        return self.connection.execute(sql, params).fetchall()

    def publish(self, change: Change) -> None:
        self.changes.append(change)


def _wal(db: sqlite3.Connection, busy_timeout: float) -> None:
    """Put the file in WAL mode, waiting up to ``busy_timeout`` seconds for the lock it needs. SQLite
    answers "database is locked" at once, without its busy handler, when another connection is in a
    transaction on the file while the mode is changed (servers opening one new file at once, one of
    them migrating it), so the change is retried here until the time is up (then the error stands)."""
    deadline = time.monotonic() + busy_timeout
    pause = 0.005
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(0.1, pause * 2)


class SQLiteBackend:
    dialect = "sqlite"
    writers = 1
    readers = READERS

    sql_claim = (f"INSERT INTO claims (game_id, kind, owner, lease_until, version) VALUES (?, ?, ?, {_NOW} + ?, ?) "
                 "ON CONFLICT (game_id, kind) DO UPDATE SET owner=excluded.owner, lease_until=excluded.lease_until, "
                 f"version=excluded.version WHERE claims.lease_until <= {_NOW} OR claims.owner = excluded.owner")
    sql_renew = f"UPDATE claims SET lease_until = {_NOW} + ? WHERE game_id=? AND kind=? AND owner=?"
    sql_holder = (f"SELECT owner, version, lease_until - {_NOW} FROM claims WHERE game_id=? AND kind=? "
                  f"AND lease_until > {_NOW}")
    #: The database's clock now, and ``?`` seconds before it (instances, orphaned AI turns).
    sql_now = _NOW
    sql_ago = f"({_NOW} - ?)"

    def __init__(self, path: str, busy_timeout: float):
        self.path = str(path)
        self.location = self.path
        self.busy_timeout = busy_timeout
        try:
            if self.path != ":memory:":
                folder = Path(self.path).parent
                if folder.exists() and not folder.is_dir():
                    raise StorageError(f"cannot open the game database {self.path}: {folder} is not a folder")
                folder.mkdir(parents=True, exist_ok=True)
                if Path(self.path).is_dir():
                    raise StorageError(f"cannot open the game database {self.path}: it is a folder, not a file")
            self.writer = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                          timeout=busy_timeout)
            try:
                _wal(self.writer, busy_timeout)
                self.writer.execute("PRAGMA synchronous=FULL")
                self._migrate()
            except BaseException:
                self.writer.close()
                raise
        except OSError as exc:
            raise StorageError(f"cannot open the game database {self.path}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the game database {self.path}: {_describe(exc)}") from None
        self._lock = threading.Lock()                  # the writer connection
        self._local = threading.local()                # each reading thread's own connection
        self._readers_open: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._key = os.path.realpath(self.path) if self.path != ":memory:" else f":memory:{id(self)}"
        self._subscribers = Subscribers("sqlite")

    # -- migrations -----------------------------------------------------------------------------------
    def _migrate(self) -> None:
        """Apply the migrations this file lacks, each in a transaction of its own under SQLite's write
        lock (BEGIN IMMEDIATE), so that two servers opening one file at once apply each once."""
        db = self.writer
        while True:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(MIGRATIONS_TABLE["sqlite"])
                applied = db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0]
                refusal = newer_than_known(applied, self.path)
                if refusal:
                    raise StorageError(refusal)
                pending = [m for m in MIGRATIONS if m.version > applied][:1]
                if pending:
                    migration = pending[0]
                    for statement in migration.sqlite:
                        db.execute(statement)
                    if migration.version == 1:
                        # A file from before migrations: its games table may lack later columns.
                        present = {row[1] for row in db.execute("PRAGMA table_info(games)")}
                        for column, decl in LEGACY_COLUMNS.items():
                            if column not in present:
                                db.execute(f"ALTER TABLE games ADD COLUMN {column} {decl}")
                    db.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                               (migration.version, migration.name, time.time()))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            if not pending:
                return

    # -- statements -----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self, what: str):
        with self._lock:
            tx = _Transaction(self.writer)
            try:
                self.writer.execute("BEGIN IMMEDIATE")
                yield tx
                self.writer.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise StorageError(f"{what}: {_describe(exc)}") from None
            except BaseException:
                self._rollback()
                raise
        for change in tx.changes:
            self._publish(change)

    def _rollback(self) -> None:
        try:
            if self.writer.in_transaction:
                self.writer.execute("ROLLBACK")
        except sqlite3.Error:
            pass                       # SQLite rolled it back itself (a full disk, an I/O error)

    @contextlib.contextmanager
    def time_limit(self, seconds: float):
        """The writes inside wait at most ``seconds`` for SQLite's lock (StorageError when the store
        was closed meanwhile: a write still under way at a shutdown)."""
        self._busy_timeout(seconds)
        try:
            yield
        finally:
            with contextlib.suppress(StorageError):
                self._busy_timeout(self.busy_timeout)

    def _busy_timeout(self, seconds: float) -> None:
        with self._lock:
            try:
                self.writer.execute(f"PRAGMA busy_timeout = {max(1, int(seconds * 1000))}")
            except sqlite3.Error as exc:
                raise StorageError("the database is closed" if self._closed else _describe(exc)) from None

    def _reader(self) -> _Reader | None:
        """This thread's reading connection (None for an in-memory database, which has one)."""
        if self.path == ":memory:":
            return None
        reader = getattr(self._local, "reader", None)
        if reader is None:
            connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                         timeout=self.busy_timeout)
            connection.execute("PRAGMA query_only = 1")
            reader = _Reader(connection)
            with self._readers_lock:
                if self._closed:
                    connection.close()
                    raise sqlite3.ProgrammingError("the database is closed")
                self._readers_open.append(reader)
            self._local.reader = reader
        return reader

    def query(self, what: str, sql: str, params: tuple = ()) -> list:
        """A read, on this thread's own connection: it never waits for a write (nor ``close`` for
        long: it interrupts the read)."""
        try:
            reader = self._reader()
            if reader is None:
                with self._lock:
                    return self.writer.execute(sql, params).fetchall()
            with reader.lock:
                if reader.closed:
                    raise sqlite3.ProgrammingError("the database is closed")
                return reader.connection.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            if self._closed:
                raise StorageError(f"{what}: the database is closed") from None
            raise StorageError(f"{what}: {_describe(exc)}") from None

    def integrity_check(self) -> str:
        with self._lock:
            try:
                return self.writer.execute("PRAGMA integrity_check").fetchone()[0]
            except sqlite3.Error as exc:
                raise StorageError(f"checking the database: {_describe(exc)}") from None

    # -- notices ----------------------------------------------------------------------------------------
    def subscribe(self, callback):
        with _LISTENERS_LOCK:
            mine = _LISTENERS.setdefault(self._key, [])
            if self._subscribers not in mine:
                mine.append(self._subscribers)
        return self._subscribers.add(callback)

    def _publish(self, change: Change) -> None:
        with _LISTENERS_LOCK:
            listeners = list(_LISTENERS.get(self._key, ()))
        for subscribers in listeners:
            subscribers.deliver(change)

    def close(self) -> None:
        self._closed = True
        with _LISTENERS_LOCK:
            mine = _LISTENERS.get(self._key, [])
            if self._subscribers in mine:
                mine.remove(self._subscribers)
            if not mine:
                _LISTENERS.pop(self._key, None)
        self._subscribers.close()
        with self._lock:
            self.writer.close()
        with self._readers_lock:
            readers, self._readers_open = self._readers_open, []
        for reader in readers:
            reader.connection.interrupt()          # safe from any thread: a running read stops soon
            with reader.lock:                      # ... and is over before its connection is closed
                reader.closed = True
                reader.connection.close()
