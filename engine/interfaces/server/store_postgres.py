"""The game store's PostgreSQL backend (store.py; the interface: store_common.py), through psycopg 3
and a ``psycopg_pool.ConnectionPool`` (the ``server`` extra; the engine never imports this module).

Each write is one transaction on a connection of the pool, its time bounded by the write's deadline
(the wait for a connection, then ``lock_timeout`` and ``statement_timeout`` set for the transaction),
so a failure anywhere (the server unreachable, a connection dropped mid-write, a full disk, a
serialization failure, a lock held too long) rolls all of it back and raises StorageError naming
what failed and the server and database (``location``: the URL without its password; every message
and every log line of psycopg's is also scrubbed of the password). Reads are single statements on
the pool's connections (autocommit). Change notices are ``NOTIFY ftc_games, 'G:V'`` issued in the
writing transaction, so PostgreSQL sends them only on commit; ``subscribe`` keeps one connection
of its own listening (reconnecting after it is lost, then telling the callbacks RESYNC). Claims
compare times on the database's clock (``clock_timestamp()``), so servers with skewed clocks agree.
Migrations run on a connection of their own under an advisory lock, so two servers starting at
once on one database apply each migration once.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from urllib.parse import quote, unquote, urlsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from engine.interfaces.server.migrations import MIGRATIONS, MIGRATIONS_TABLE, newer_than_known
from engine.interfaces.server.store_common import RESYNC, Change, StorageError, Subscribers, log, redacted_url

#: The channel of change notices ("game_id:version").
CHANNEL = "ftc_games"
#: The advisory lock key held while migrating (any constant shared by every ftc-engine).
MIGRATION_LOCK = 0x46_54_43_6D_69_67        # "FTCmig"
#: Seconds between two attempts of a lost listening connection.
RECONNECT_SECONDS = 0.5

_PASSWORDS: set[str] = set()
_PASSWORDS_LOCK = threading.Lock()


def _scrub(text: str) -> str:
    """``text`` without any password of a store opened in this process (as written or URL-quoted)."""
    with _PASSWORDS_LOCK:
        secrets = sorted(_PASSWORDS, key=len, reverse=True)
    for secret in secrets:
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            text = text.replace(form, "***")
    return text


class _RedactPasswords(logging.Filter):
    """Scrubs every password of this process's stores from psycopg's log records (the pool logs its
    connection failures)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _PASSWORDS:
            record.msg = _scrub(record.getMessage())
            record.args = None
        return True


for _name in ("psycopg", "psycopg.pool", "ftc.store"):
    logging.getLogger(_name).addFilter(_RedactPasswords())


def _parse(url: str) -> tuple[str, dict, str]:
    """The URL checked: (conninfo, its parts, where: "HOST:PORT/DATABASE" for messages)."""
    shown = redacted_url(url)
    try:
        parts = urlsplit(url)
        password = parts.password
        query_password = re.search(r"(?i)(?:^|&)password=([^&]*)", parts.query)
        parts.port                                          # noqa: B018 - a bad port raises ValueError here
    except ValueError as exc:
        raise StorageError(f"cannot open the game database {shown}: the URL is not valid ({exc})") from None
    with _PASSWORDS_LOCK:
        for secret in (password, query_password.group(1) if query_password else None):
            if secret:
                _PASSWORDS.update({secret, unquote(secret)})
    try:
        info = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise StorageError(f"cannot open the game database {shown}: the URL is not valid "
                           f"({_scrub(str(exc)).strip()})") from None
    if not info.get("dbname"):
        raise StorageError(f"cannot open the game database {shown}: the URL names no database "
                           "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE)")
    host = info.get("host") or "localhost"
    where = f"{host}:{info.get('port') or 5432}/{info['dbname']}"
    info.setdefault("connect_timeout", "10")
    info.setdefault("application_name", "ftc-engine")
    return make_conninfo("", **info), info, where


def describe(exc: BaseException, where: str) -> str:
    """A psycopg failure in words, with the server and database, without the password."""
    text = _scrub(" ".join(str(exc).split())) or type(exc).__name__
    state = getattr(exc, "sqlstate", None) or ""
    low = text.lower()
    if isinstance(exc, PoolTimeout):
        return f"no connection to PostgreSQL at {where} could be had in time ({text})"
    if "password authentication failed" in low or state.startswith("28"):
        return f"PostgreSQL at {where} refused the credentials ({text})"
    if "does not exist" in low and "database" in low or state == "3D000":
        return f"the database does not exist on PostgreSQL at {where} ({text})"
    if state in ("53100",) or "no space left" in low or "disk full" in low:
        return f"the disk is full on PostgreSQL at {where} ({text})"
    if state in ("40001", "40P01"):
        return f"a concurrent change conflicted on PostgreSQL at {where} ({text}); try again"
    if state in ("55P03", "57014"):
        return f"the database is busy on PostgreSQL at {where} ({text}); try again"
    if any(sign in low for sign in ("connection refused", "could not translate host", "timeout expired",
                                     "no route to host", "network is unreachable", "no such file or directory")):
        return f"cannot reach PostgreSQL at {where} ({text})"
    if state.startswith("57P") or state.startswith("08") or isinstance(exc, psycopg.OperationalError):
        return f"the connection to PostgreSQL at {where} failed ({text})"
    return f"PostgreSQL at {where}: {text}"


class _Transaction:
    def __init__(self, connection: psycopg.Connection):
        self.connection = connection

    def run(self, sql: str, params: tuple = ()) -> int:
        return self.connection.execute(sql.replace("?", "%s"), params).rowcount

    def rows(self, sql: str, params: tuple = ()) -> list:
        """A query's rows within the transaction (it sees the transaction's own writes)."""
        return self.connection.execute(sql.replace("?", "%s"), params).fetchall()

    def publish(self, change: Change) -> None:
        self.connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{change.game_id}:{change.version}"))


class PostgresBackend:
    dialect = "postgres"
    path = None

    sql_claim = ("INSERT INTO claims (game_id, kind, owner, lease_until, version) "
                 "VALUES (?, ?, ?, clock_timestamp() + make_interval(secs => ?), ?) "
                 "ON CONFLICT (game_id, kind) DO UPDATE SET owner=EXCLUDED.owner, lease_until=EXCLUDED.lease_until, "
                 "version=EXCLUDED.version WHERE claims.lease_until <= clock_timestamp() "
                 "OR claims.owner = EXCLUDED.owner")
    sql_renew = ("UPDATE claims SET lease_until = clock_timestamp() + make_interval(secs => ?) "
                 "WHERE game_id=? AND kind=? AND owner=?")
    sql_holder = ("SELECT owner, version, EXTRACT(EPOCH FROM lease_until - clock_timestamp()) FROM claims "
                  "WHERE game_id=? AND kind=? AND lease_until > clock_timestamp()")
    #: The database's clock now, and ``?`` seconds before it (instances, orphaned AI turns).
    sql_now = "clock_timestamp()"
    sql_ago = "(clock_timestamp() - make_interval(secs => ?))"

    def __init__(self, url: str, busy_timeout: float, pool_size: int):
        self.conninfo, self.info, self.where = _parse(url)
        self.location = redacted_url(url)
        self.busy_timeout = busy_timeout
        self.writers = max(1, pool_size // 2)
        self.readers = max(1, pool_size - self.writers)
        self._local = threading.local()
        self._migrate()
        self.pool = ConnectionPool(self.conninfo, kwargs={"autocommit": True}, min_size=1, max_size=pool_size,
                                   open=False, timeout=busy_timeout, check=ConnectionPool.check_connection,
                                   name="ftc-store", reconnect_timeout=0)
        try:
            self.pool.open(wait=True, timeout=max(busy_timeout, 10.0))
        except (PoolTimeout, psycopg.Error) as exc:
            self.pool.close()
            raise StorageError(f"cannot open the game database {self.location}: {describe(exc, self.where)}") from None
        self._subscribers = Subscribers("postgres")
        self._listener: threading.Thread | None = None
        self._listener_lock = threading.Lock()
        self._stop = threading.Event()
        self._listening = threading.Event()

    def _connect(self, **kwargs) -> psycopg.Connection:
        return psycopg.connect(**{**self.info, **kwargs})

    # -- migrations -----------------------------------------------------------------------------------
    def _migrate(self) -> None:
        """Apply the migrations the database lacks, each in a transaction of its own, holding an
        advisory lock throughout (another server opening the database at once waits for it)."""
        try:
            with self._connect(autocommit=True) as conn:
                conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
                try:
                    conn.execute(MIGRATIONS_TABLE["postgres"])
                    applied = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0]
                    refusal = newer_than_known(applied, self.location)
                    if refusal:
                        raise StorageError(refusal)
                    for migration in MIGRATIONS:
                        if migration.version <= applied:
                            continue
                        with conn.transaction():
                            for statement in migration.postgres:
                                conn.execute(statement)
                            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                                         (migration.version, migration.name))
                finally:
                    if not conn.closed and not conn.broken:
                        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
        except psycopg.Error as exc:
            raise StorageError(f"cannot open the game database {self.location}: {describe(exc, self.where)}") from None

    # -- statements -----------------------------------------------------------------------------------
    def _left(self) -> float:
        deadline = getattr(self._local, "deadline", None)
        return self.busy_timeout if deadline is None else deadline - time.monotonic()

    @contextlib.contextmanager
    def time_limit(self, seconds: float):
        self._local.deadline = time.monotonic() + seconds
        try:
            yield
        finally:
            self._local.deadline = None

    @contextlib.contextmanager
    def _connection(self, what: str):
        left = self._left()
        if left <= 0:
            raise StorageError(f"{what}: the database is busy (no write finished within {self.busy_timeout:g} s); "
                               "try again")
        try:
            with self.pool.connection(timeout=left) as conn:
                yield conn
        except PoolTimeout as exc:
            raise StorageError(f"{what}: {self._why_no_connection(exc)}") from None
        except psycopg.Error as exc:
            raise StorageError(f"{what}: {describe(exc, self.where)}") from None

    def _why_no_connection(self, exc: PoolTimeout) -> str:
        """Why the pool had no connection: the server's own answer to a new connection when it refuses
        one, else every connection was busy."""
        try:
            with self._connect(connect_timeout=2):
                pass
        except psycopg.Error as probe:
            return describe(probe, self.where)
        return describe(exc, self.where)

    @contextlib.contextmanager
    def transaction(self, what: str):
        with self._connection(what) as conn:
            left_ms = max(1, int(self._left() * 1000))
            with conn.transaction():
                conn.execute("SELECT set_config('lock_timeout', %s, true), set_config('statement_timeout', %s, true)",
                             (f"{left_ms}ms", f"{left_ms}ms"))
                yield _Transaction(conn)

    def query(self, what: str, sql: str, params: tuple = ()) -> list:
        with self._connection(what) as conn:
            return conn.execute(sql.replace("?", "%s"), params).fetchall()

    def integrity_check(self) -> str:
        with self._connection("checking the database") as conn:
            for table in ("games", "claims", "seats", "instances", "schema_migrations"):
                conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
            version = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0]
        return "ok" if version == MIGRATIONS[-1].version else f"schema version {version}, expected {MIGRATIONS[-1].version}"

    # -- notices ----------------------------------------------------------------------------------------
    def subscribe(self, callback):
        unsubscribe = self._subscribers.add(callback)
        with self._listener_lock:
            if self._listener is None:
                try:
                    first = self._connect(autocommit=True)
                    first.execute(f"LISTEN {CHANNEL}")
                except psycopg.Error as exc:
                    unsubscribe()
                    raise StorageError(f"listening for game changes: {describe(exc, self.where)}") from None
                self._listener = threading.Thread(target=self._listen, args=(first,), name="ftc-db-listen", daemon=True)
                self._listener.start()
        return unsubscribe

    def _listen(self, conn: psycopg.Connection | None) -> None:
        """The listening connection's thread: every notice to the subscribers; after a lost connection,
        a new one, then RESYNC (notices of the gap are lost)."""
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = self._connect(autocommit=True, connect_timeout=5)
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._subscribers.deliver(RESYNC)
                while not self._stop.is_set():
                    for notice in conn.notifies(timeout=0.5):
                        game_id, _, version = notice.payload.rpartition(":")
                        if game_id and version.lstrip("-").isdigit():
                            self._subscribers.deliver(Change(game_id, int(version)))
                    if conn.closed or conn.broken:
                        raise psycopg.OperationalError("the listening connection was closed")
            except psycopg.Error as exc:
                if not self._stop.is_set():
                    log.warning("listening for game changes: %s; reconnecting", describe(exc, self.where))
                self._stop.wait(RECONNECT_SECONDS)
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
                conn = None

    def close(self) -> None:
        self._stop.set()
        self._subscribers.close()
        self.pool.close(timeout=2.0)
        if self._listener is not None:
            self._listener.join(timeout=5)
