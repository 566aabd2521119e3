"""The game store on both backends (engine/interfaces/server/store.py): SQLite files and a real
PostgreSQL server (tests/server/postgres.py). The same guarantees on each: the version check is done
by the database, a refused write changes nothing and notifies no one, migrations are applied once
(also by two stores opening at once) and never downwards, a claim is won by exactly one of the owners
racing for it, on the database's clock, and every committed change reaches the subscribers of every
store on the database. PostgreSQL's own failures (unreachable, refused password, missing database, a
connection dropped mid-write, a lock held too long, a lost listening connection) are StorageErrors
that name the server and database and never the password."""

import logging
import sqlite3
import threading
import time

import pytest

from engine.interfaces.server.migrations import LATEST, MIGRATIONS
from engine.interfaces.server.store import RESYNC, Change, StorageError, open_store
from tests.server.postgres import PASSWORD, wait_until


def _insert(store, game_id="g1", client="c"):
    store.insert(game_id, 0, {"bot": "greedy"}, {"moves": []}, "playing", [{"text": "start"}], "h" * 64, client)


def _raw(url):
    """A plain connection to the store's database, beside the store (the tests' way to look inside)."""
    if url.startswith("postgresql://"):
        import psycopg

        return psycopg.connect(url, autocommit=True)
    return sqlite3.connect(url, isolation_level=None, timeout=30)


@pytest.fixture
def store(store_url):
    s = open_store(store_url, busy_timeout=2.0)
    yield s
    s.close()


def _changes(store):
    got: list = []
    store.subscribe(got.append)
    return got


# -- games and the version check --------------------------------------------------------------------
def test_a_game_is_written_read_updated_and_deleted(store):
    _insert(store)
    row = store.get("g1")
    assert (row["version"], row["record"], row["log"], row["ai_last_turn"]) == (1, {"moves": []}, [{"text": "start"}], [])
    assert store.update("g1", {"moves": [3]}, "over", [{"text": "end"}], [{"t": 1}], 1) == 2
    row = store.get("g1")
    assert (row["version"], row["record"], row["status"], row["ai_last_turn"]) == (2, {"moves": [3]}, "over", [{"t": 1}])
    assert store.token_hash("g1") == "h" * 64 and store.updated("g1") >= row["created"]
    assert store.count_playing("c") == 0 and store.get("nope") is None and store.token_hash("nope") is None
    assert store.delete("g1") and not store.delete("g1") and store.get("g1") is None
    assert store.integrity_check() == "ok"


def test_a_stale_version_is_refused_by_the_database_changes_nothing_and_notifies_no_one(store_url):
    a, b = open_store(store_url), open_store(store_url)
    try:
        got = _changes(b)
        _insert(a)
        assert a.update("g1", {"moves": [1]}, "playing", [], [], 1) == 2
        assert wait_until(lambda: len(got) == 2)
        # b read version 1 before a's change: its write, based on the stale read, is refused.
        with pytest.raises(StorageError, match="changed meanwhile.*version 1 is stale"):
            b.update("g1", {"moves": [9]}, "over", [], [], 1)
        row = a.get("g1")
        assert (row["version"], row["record"], row["status"]) == (2, {"moves": [1]}, "playing")
        time.sleep(0.5)
        assert got == [Change("g1", 1), Change("g1", 2)]
    finally:
        a.close()
        b.close()


def test_a_game_read_while_another_store_saves_it_is_one_versions_whole(store_url):
    """A game is read as its row and its seats' rows (each other human seat's log): a save by another
    store landing between those reads never gives the row of version 1 with the seat logs of version 2
    (a seat's view labelled 1 that shows the move of 2: the cross-instance CI failure of crownfall-3).
    The save is forced right after the game's row is read, the first time only."""
    a, b = open_store(store_url), open_store(store_url)
    try:
        seats = [{"seat": 0, "kind": "human", "token_hash": "h" * 64}, {"seat": 1, "kind": "human", "token_hash": "k" * 64}]
        a.insert("g1", 0, {"bot": "greedy"}, {"moves": []}, "playing", [{"text": "start"}], "h" * 64, "c", seats=seats)
        query, landed = a.backend.query, []

        def query_then_save(what, sql, params=()):
            rows = query(what, sql, params)
            if sql.lstrip().startswith("SELECT id, created") and not landed:
                landed.append(b.update("g1", {"moves": [4]}, "playing", [{"text": "start"}, {"text": "4"}], [], 1,
                                       seat_logs={1: ([{"text": "start"}, {"text": "4"}], [])}))
            return rows

        a.backend.query = query_then_save
        row = a.get("g1")
        assert landed == [2]
        seat_log = next(seat["log"] for seat in row["seats"] if seat["seat"] == 1)
        assert (row["version"], row["log"], seat_log) in (
            (1, [{"text": "start"}], []),
            (2, [{"text": "start"}, {"text": "4"}], [{"text": "start"}, {"text": "4"}]))
    finally:
        a.close()
        b.close()


def test_a_game_saved_again_during_every_read_is_a_storage_error_naming_it(store_url):
    """A game saved by another store between its row's read and its seats' read, every time it is
    read again, is never returned torn: after store.READ_ATTEMPTS reads the read is a StorageError
    (503) that names the game."""
    from engine.interfaces.server.store import READ_ATTEMPTS

    a, b = open_store(store_url), open_store(store_url)
    try:
        seats = [{"seat": 0, "kind": "human", "token_hash": "h" * 64}, {"seat": 1, "kind": "human", "token_hash": "k" * 64}]
        a.insert("g1", 0, {"bot": "greedy"}, {"moves": []}, "playing", [], "h" * 64, "c", seats=seats)
        query, versions = a.backend.query, [1]

        def query_then_save(what, sql, params=()):
            rows = query(what, sql, params)
            if sql.lstrip().startswith("SELECT id, created"):
                versions.append(b.update("g1", {"moves": []}, "playing", [], [], versions[-1], seat_logs={1: ([], [])}))
            return rows

        a.backend.query = query_then_save
        with pytest.raises(StorageError, match=f"^reading game g1: it was saved again during each of {READ_ATTEMPTS} "
                                               "reads$"):
            a.get("g1")
        assert versions == list(range(1, READ_ATTEMPTS + 2))
    finally:
        a.close()
        b.close()


# -- migrations ------------------------------------------------------------------------------------------
def test_migrations_are_recorded_once_in_order(store_url):
    open_store(store_url).close()
    store = open_store(store_url)                  # opening again applies nothing more
    try:
        assert store.schema_version() == LATEST
        conn = _raw(store_url)
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        conn.close()
        assert rows == [(m.version, m.name) for m in MIGRATIONS]
    finally:
        store.close()


def test_an_sqlite_file_in_another_connections_transaction_is_opened_once_it_ends(tmp_path):
    """SQLite refuses to change a file's journal mode at once ("database is locked", no busy wait)
    while another connection holds its write lock in rollback mode, as when servers open one new file
    at once (the failure of test_stores_opening_one_new_database_at_once_migrate_it_once[sqlite], 2 in
    15 runs before): opening waits for it, within busy_timeout."""
    path = tmp_path / "games.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")                            # the write lock, in rollback mode
    other.execute("INSERT INTO t VALUES (1)")
    ended = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    ended.start()
    try:
        store = open_store(path, busy_timeout=10.0)
        try:
            assert store.schema_version() == LATEST
            assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            store.close()
    finally:
        ended.join()
        other.close()


def test_stores_opening_one_new_database_at_once_migrate_it_once(store_url):
    opened, failed = [], []
    start = threading.Barrier(4)

    def open_one():
        start.wait()
        try:
            opened.append(open_store(store_url, busy_timeout=20.0))
        except StorageError as exc:
            failed.append(str(exc))

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert failed == [] and len(opened) == 4
        conn = _raw(store_url)
        assert conn.execute("SELECT COUNT(*), MAX(version) FROM schema_migrations").fetchone() == (len(MIGRATIONS), LATEST)
        conn.close()
    finally:
        for s in opened:
            s.close()


def test_a_database_newer_than_the_code_is_refused_and_left_alone(store_url):
    open_store(store_url).close()
    conn = _raw(store_url)
    if store_url.startswith("postgresql://"):
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, 'from the future')", (LATEST + 1,))
    else:
        conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from the future', 0)",
                     (LATEST + 1,))
    with pytest.raises(StorageError, match=f"schema version {LATEST + 1}, newer than this ftc-engine knows "
                                           f"\\({LATEST}\\).*nothing was changed") as refused:
        open_store(store_url)
    assert PASSWORD not in str(refused.value)
    assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == LATEST + 1
    conn.close()


_OLD_GAMES = """CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,
    human INTEGER NOT NULL, ai TEXT NOT NULL, record TEXT NOT NULL, status TEXT NOT NULL, log TEXT NOT NULL,
    ai_last_turn TEXT NOT NULL, version INTEGER NOT NULL{extra})"""


@pytest.mark.parametrize("extra, columns", [
    ("", ()),                                                          # the first schema
    (", token_hash TEXT NOT NULL DEFAULT ''", ("token_hash",)),        # with one of the later columns
    (", token_hash TEXT NOT NULL DEFAULT '', client TEXT NOT NULL DEFAULT ''", ("token_hash", "client")),
], ids=["first", "token-only", "both"])
def test_an_sqlite_file_from_before_migrations_is_brought_to_the_schema_with_its_games(tmp_path, extra, columns):
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(_OLD_GAMES.format(extra=extra))
    names = ("id", "created", "updated", "human", "ai", "record", "status", "log", "ai_last_turn", "version") + columns
    values = ("old", 1.0, 2.0, 1, "{}", '{"moves": [1, 2]}', "playing", "[]", "[]", 7) + tuple("x" for _ in columns)
    conn.execute(f"INSERT INTO games ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", values)
    conn.commit()
    conn.close()
    store = open_store(path)
    try:
        row = store.get("old")
        assert (row["version"], row["record"], row["human"]) == (7, {"moves": [1, 2]}, 1)
        assert row["token_hash"] == ("x" if "token_hash" in columns else "")
        assert store.schema_version() == LATEST
        assert store.update("old", {"moves": [1, 2, 3]}, "playing", [], [], 7) == 8
        assert store.claim("old", "ai-turn", "me", 10, 8)
    finally:
        store.close()


# -- claims ------------------------------------------------------------------------------------------------
def test_of_two_owners_racing_for_a_claim_exactly_one_wins(store_url):
    """Two stores (two servers) claim the same work at the same moment, 30 times over: one True
    each time, and the claim holds the winner's name."""
    a, b = open_store(store_url, busy_timeout=20.0), open_store(store_url, busy_timeout=20.0)
    try:
        for round_ in range(30):
            start = threading.Barrier(2)
            results = {}

            def race(store, owner):
                start.wait()
                results[owner] = store.claim(f"g{round_}", "ai-turn", owner, 30, round_)

            threads = [threading.Thread(target=race, args=(s, o)) for s, o in ((a, "A"), (b, "B"))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(results.values()) == [False, True], (round_, results)
            winner = next(o for o, won in results.items() if won)
            assert a.claim_holder(f"g{round_}", "ai-turn")[:2] == (winner, round_)
    finally:
        a.close()
        b.close()


def test_a_claim_is_taken_over_only_when_its_lease_has_run_out(store):
    assert store.claim("g", "ai-turn", "A", 0.5, 3)
    assert not store.claim("g", "ai-turn", "B", 30, 3)               # a live claim of another owner
    assert store.claim("g", "clock", "B", 30, 3)                     # another kind of work is another claim
    assert store.claim("g", "ai-turn", "A", 0.5, 4)                  # its owner again: renewed, new version
    time.sleep(0.7)
    assert store.claim_holder("g", "ai-turn") is None                # expired
    assert store.claim("g", "ai-turn", "B", 30, 4)                   # takeover
    assert not store.renew("g", "ai-turn", "A", 30)                  # A lost it
    assert not store.release("g", "ai-turn", "A")                    # and cannot release B's claim
    assert store.claim_holder("g", "ai-turn")[:2] == ("B", 4)
    assert store.renew("g", "ai-turn", "B", 60) and 55 < store.claim_holder("g", "ai-turn")[2] <= 60
    assert store.release("g", "ai-turn", "B") and store.claim_holder("g", "ai-turn") is None
    assert store.claim("g", "ai-turn", "A", 30, 5)
    with pytest.raises(ValueError, match="lease_seconds must be a positive number"):
        store.claim("g", "ai-turn", "A", 0, 5)


def test_claims_keep_the_databases_time_not_the_servers(store, monkeypatch):
    """A server whose clock is an hour ahead claims for 30 s: another server still sees the claim
    live with about 30 s left (the lease is on the database's clock)."""
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3600)
    assert store.claim("g", "ai-turn", "fast-clock", 30, 1)
    monkeypatch.setattr(time, "time", lambda: real() - 3600)
    assert not store.claim("g", "ai-turn", "slow-clock", 30, 1)
    owner, _, left = store.claim_holder("g", "ai-turn")
    assert owner == "fast-clock" and 25 < left <= 30


def test_deleting_a_game_drops_its_claims(store):
    _insert(store)
    assert store.claim("g1", "ai-turn", "A", 30, 1)
    assert store.delete("g1")
    assert store.claim_holder("g1", "ai-turn") is None


# -- change notifications -----------------------------------------------------------------------------
def test_a_change_through_one_store_reaches_the_other_stores_subscribers(store_url):
    a, b = open_store(store_url), open_store(store_url)
    try:
        got = _changes(b)
        mine = _changes(a)
        _insert(a, "g1")
        a.update("g1", {"moves": [1]}, "playing", [], [], 1)
        a.delete("g1")
        expected = [Change("g1", 1), Change("g1", 2), Change("g1", 0)]
        assert wait_until(lambda: len(got) == 3 and len(mine) == 3)
        assert got == expected and mine == expected
    finally:
        a.close()
        b.close()


def _fail_updates_at_commit(url):
    """Make every later update of games fail at its COMMIT (PostgreSQL: a deferred constraint trigger,
    run after the NOTIFY was issued) or at its statement (SQLite: a trigger)."""
    conn = _raw(url)
    if url.startswith("postgresql://"):
        conn.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'planted failure at commit'; END $$")
        conn.execute("CREATE CONSTRAINT TRIGGER refuse AFTER UPDATE ON games DEFERRABLE INITIALLY DEFERRED "
                     "FOR EACH ROW EXECUTE FUNCTION refuse()")
    else:
        conn.execute("CREATE TRIGGER refuse BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'planted failure'); END")
    conn.close()


def test_a_rolled_back_write_notifies_no_one_and_changes_nothing(store_url):
    a, b = open_store(store_url), open_store(store_url)
    try:
        got = _changes(b)
        _insert(a)
        assert wait_until(lambda: got == [Change("g1", 1)])
        _fail_updates_at_commit(store_url)
        with pytest.raises(StorageError, match="saving game g1: .*planted failure"):
            a.update("g1", {"moves": [5]}, "over", [], [], 1)
        time.sleep(1.0)
        assert got == [Change("g1", 1)]
        row = a.get("g1")
        assert (row["version"], row["status"], row["record"]) == (1, "playing", {"moves": []})
    finally:
        a.close()
        b.close()


# -- locks: a write waits at most busy_timeout, a read never waits ------------------------------------
def test_a_write_behind_a_lock_fails_after_busy_timeout_and_a_read_meanwhile_answers(store_url):
    import asyncio

    store = open_store(store_url, busy_timeout=1.0)
    try:
        _insert(store)
        other = _raw(store_url)
        if store_url.startswith("postgresql://"):
            other.execute("BEGIN")
            other.execute("SELECT * FROM games WHERE id='g1' FOR UPDATE")     # another server holds the row
        else:
            other.execute("BEGIN EXCLUSIVE")                                   # another process holds the file

        async def both():
            started = time.monotonic()
            read = await store.read(store.get, "g1")
            read_took = time.monotonic() - started
            with pytest.raises(StorageError, match="busy") as refused:
                await store.write(store.update, "g1", {"moves": [1]}, "over", [], [], 1)
            return read, read_took, time.monotonic() - started, refused.value

        read, read_took, took, error = asyncio.run(both())
        other.execute("ROLLBACK")
        other.close()
        assert read["version"] == 1 and read_took < 0.5
        assert 0.9 <= took < 4, took
        assert PASSWORD not in str(error)
        assert store.get("g1")["version"] == 1
        assert store.update("g1", {"moves": [1]}, "over", [], [], 1) == 2               # free again
    finally:
        store.close()


# -- closing while threads read ------------------------------------------------------------------------
#: A child process: ``rounds`` times, a store with a game whose clock ran out, four threads reading
#: its due flags in a loop (the flag sweeper's query), one saving the game in a loop through
#: ``store.write`` (as the server does), and the store closed while they do. Every read answers the
#: game or fails with a StorageError; every write is saved, fails with a StorageError or is
#: cancelled (a write still waiting for the writer when the store closes); anything else, or a
#: crash, is a failure.
_CLOSE_WHILE_READING = """
import asyncio, sys, threading, time
from engine.interfaces.server.store import StorageError, open_store

url, rounds = sys.argv[1], int(sys.argv[2])
refused = 0
for n in range(rounds):
    store = open_store(url if "://" in url else f"{url}.{n}", busy_timeout=2.0)
    store.insert(f"g{n}", 0, {"bot": "greedy"}, {"moves": []}, "playing", [], "h" * 64, "c", flag_at=1.0)
    read_once = threading.Barrier(6)
    wrong = []

    def hammer():
        first = True
        while True:
            try:
                rows = store.due_flags(time.time())
            except StorageError:
                if first:
                    read_once.wait()
                return
            except BaseException as exc:
                wrong.append(repr(exc))
                if first:
                    read_once.wait()
                return
            if f"g{n}" not in [game for game, _ in rows]:     # (on PostgreSQL: one database for every round)
                wrong.append(repr(rows))
            if first:
                read_once.wait()
                first = False

    async def saves():
        version = 1
        while True:
            try:
                version = await store.write(store.update, f"g{n}", {"moves": []}, "playing", [], [], version,
                                            None, None, None, 1.0)
            except (StorageError, asyncio.CancelledError):
                return
            except BaseException as exc:
                wrong.append(repr(exc))
                return
            if version == 2:
                read_once.wait()

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    writer = threading.Thread(target=asyncio.run, args=(saves(),))
    for thread in threads + [writer]:
        thread.start()
    read_once.wait()                       # every thread has read or written once: close under them
    store.close()
    for thread in threads + [writer]:
        thread.join()
    if wrong:
        sys.exit(f"round {n}: {wrong[:3]}")
print("ok")
"""


def test_closing_a_store_while_threads_read_and_write_is_never_a_crash(store_url, tmp_path):
    """A server's shutdown closes its store while a reading thread may still run a query (the flag
    sweeper's ``due_flags``, whose asyncio task is cancelled but whose thread goes on) and a save may
    be under way. Closing the store under them is never a crash: each read answers or fails with
    StorageError, each save is made, fails with StorageError or is cancelled (a write that once
    failed with sqlite3's own ProgrammingError instead).
    On SQLite the reading connections were once closed under a running query: the process died with
    "Fatal Python error: Segmentation fault" inside ``due_flags`` (in a child here, so that a crash
    fails this test instead of killing the test run)."""
    import subprocess
    import sys

    from tests.support import child_env

    rounds = "20" if store_url.startswith("postgresql://") else "60"
    where = store_url if "://" in store_url else str(tmp_path / "closing.sqlite3")
    run = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _CLOSE_WHILE_READING, where, rounds],
                         capture_output=True, text=True, timeout=300, env=child_env())
    assert run.returncode == 0 and run.stdout.strip() == "ok", \
        f"exit {run.returncode}: {run.stdout[-500:]} {run.stderr[-2000:]}"


# -- PostgreSQL's own failures ------------------------------------------------------------------------
def _no_password(text: str) -> None:
    from urllib.parse import quote

    assert PASSWORD not in text and quote(PASSWORD, safe="") not in text, text


@pytest.mark.parametrize("case, message", [
    ("unreachable", "cannot reach PostgreSQL at 127.0.0.1:{port}/postgres"),
    ("password", "PostgreSQL at 127.0.0.1:{port}/postgres refused the credentials"),
    ("database", "the database does not exist on PostgreSQL at 127.0.0.1:{port}/no_such_db"),
])
def test_postgresql_that_cannot_be_opened_is_a_storage_error_naming_it_without_the_password(
        postgres_cluster, case, message, caplog):
    from tests.server.support import free_port

    port = postgres_cluster.port
    if case == "unreachable":
        port = free_port()
        url = postgres_cluster.url().replace(f":{postgres_cluster.port}/", f":{port}/")
    elif case == "password":
        url = postgres_cluster.url(password=PASSWORD + "-wrong")
    else:
        url = postgres_cluster.url("no_such_db")
    caplog.set_level(logging.DEBUG)
    with pytest.raises(StorageError) as refused:
        open_store(url)
    text = str(refused.value)
    assert text.startswith(f"cannot open the game database postgresql://ftc:***@127.0.0.1:{port}/")
    assert message.format(port=port) in text
    _no_password(text)
    _no_password(caplog.text)


def test_a_connection_dropped_mid_write_is_a_storage_error_and_nothing_is_written(pg_url, caplog):
    import psycopg

    caplog.set_level(logging.DEBUG)
    store = open_store(pg_url, busy_timeout=10.0)
    try:
        _insert(store)
        holder = psycopg.connect(pg_url, autocommit=True)
        holder.execute("BEGIN")
        holder.execute("SELECT * FROM games WHERE id='g1' FOR UPDATE")   # the write will wait here...
        outcome = []
        writing = threading.Thread(target=lambda: outcome.append(_try(store.update, "g1", {"moves": [1]}, "over",
                                                                           [], [], 1)))
        writing.start()
        watcher = psycopg.connect(pg_url, autocommit=True)
        assert wait_until(lambda: watcher.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type='Lock' AND query LIKE 'UPDATE games%%'"
        ).fetchone()[0] == 1)
        # ... and its connection is cut while it waits (as a server restart or a network fault would).
        watcher.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE wait_event_type='Lock' AND query LIKE 'UPDATE games%%'")
        writing.join(timeout=20)
        holder.execute("ROLLBACK")
        [error] = outcome
        assert isinstance(error, StorageError), error
        assert str(error).startswith("saving game g1: the connection to PostgreSQL at 127.0.0.1:") and \
            pg_url.rsplit("/", 1)[1] in str(error)
        _no_password(str(error))
        assert store.get("g1")["version"] == 1                            # nothing half-written
        assert store.update("g1", {"moves": [1]}, "over", [], [], 1) == 2  # the pool goes on with a new connection
        watcher.close()
        holder.close()
    finally:
        store.close()
    _no_password(caplog.text)


def _try(method, *args):
    try:
        return method(*args)
    except StorageError as exc:
        return exc


def test_the_listener_comes_back_after_its_connection_is_lost_and_says_resync(pg_url):
    import psycopg

    a, b = open_store(pg_url), open_store(pg_url)
    try:
        got = _changes(b)
        _insert(a, "g1")
        assert wait_until(lambda: got == [Change("g1", 1)])
        with psycopg.connect(pg_url, autocommit=True) as admin:
            killed = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                   "WHERE query LIKE 'LISTEN%%' AND pid <> pg_backend_pid()").fetchall()
        assert killed == [(True,)]
        assert wait_until(lambda: RESYNC in got, seconds=15)
        _insert(a, "g2")
        assert wait_until(lambda: got[-1] == Change("g2", 1), seconds=10)
        assert got == [Change("g1", 1), RESYNC, Change("g2", 1)]
    finally:
        a.close()
        b.close()


def test_the_url_forms_pick_the_backend(tmp_path, pg_url):
    assert open_store(tmp_path / "a.sqlite3").dialect == "sqlite"
    s = open_store(f"sqlite:///{tmp_path}/b.sqlite3")
    assert s.dialect == "sqlite" and s.path == f"{tmp_path}/b.sqlite3"
    s.close()
    s = open_store(pg_url.replace("postgresql://", "postgres://"))
    assert s.dialect == "postgres" and s.path is None and PASSWORD not in s.location and "***" in s.location
    s.close()
    with pytest.raises(StorageError, match="unknown kind of store 'mysql'"):
        open_store("mysql://u:pw@h/db")
    with pytest.raises(StorageError, match="the URL names no database"):
        open_store(pg_url.rsplit("/", 1)[0])
