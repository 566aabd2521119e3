"""The game store's schema as an ordered list of versioned migrations, one list for both backends
(SQLite and PostgreSQL): each migration has its statements in each dialect.

A database records what it has in ``schema_migrations`` (version, name, applied_at). When a store
opens, every migration it lacks is applied in order, each in a transaction of its own (all of its
statements and its row in ``schema_migrations``, or none), under a lock that makes two servers
opening one database at once apply each migration once (store_sqlite.py: BEGIN IMMEDIATE;
store_postgres.py: an advisory lock). A database whose version is newer than the last one here is
refused: a store never migrates down.

Add a migration at the end, never edit or reorder one that has shipped: databases in use have it.
Numbers only grow; one may be missing while the branch that brings it is not merged yet (numbers are
reserved per piece of work), and a store applies, in order, every migration newer than its database.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Migration", "MIGRATIONS", "LATEST", "LEGACY_COLUMNS", "MIGRATIONS_TABLE", "newer_than_known"]


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]

    def statements(self, dialect: str) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgres


#: The table of applied migrations (the same in both dialects but for the time's type).
MIGRATIONS_TABLE = {
    "sqlite": "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
              "applied_at REAL NOT NULL)",
    "postgres": "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
}

_GAMES_COLUMNS = """
    id TEXT PRIMARY KEY,
    created {real} NOT NULL,
    updated {real} NOT NULL,
    human INTEGER NOT NULL,
    ai TEXT NOT NULL,            -- JSON: the AI player's settings
    record TEXT NOT NULL,        -- JSON: engine.crown.record format
    status TEXT NOT NULL,        -- "playing" or "over"
    log TEXT NOT NULL,           -- JSON list of public log entries (the human's view of each step)
    ai_last_turn TEXT NOT NULL,  -- JSON list: what the human saw of the AI's last turn
    version INTEGER NOT NULL,    -- grows by one with every change
    token_hash TEXT NOT NULL DEFAULT '',   -- SHA-256 (hex) of the human seat's bearer token
    client TEXT NOT NULL DEFAULT ''        -- the address that created the game (per-client limits)
"""

#: Columns the games table gained before migrations existed: an SQLite file from then gains the ones
#: it lacks as migration 1 is recorded (its games have no token, so the API cannot reach them).
LEGACY_COLUMNS = {"token_hash": "TEXT NOT NULL DEFAULT ''", "client": "TEXT NOT NULL DEFAULT ''"}

_SEATS_COLUMNS = """
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    token_hash TEXT,
    invite_hash TEXT,
    ai TEXT,
    joined {real},
    log TEXT,
    ai_last_turn TEXT,
    offered INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
"""

#: Migration 4 moves each existing game's human seat, with its token hash, into the seats table.
_MOVE_HUMAN_SEATS = ("INSERT INTO seats (game_id, seat, kind, token_hash, invite_hash, ai, joined, log, ai_last_turn) "
                     "SELECT id, human, 'human', NULLIF(token_hash, ''), NULL, NULL, created, NULL, NULL FROM games")

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1, "games",
        sqlite=(f"CREATE TABLE IF NOT EXISTS games ({_GAMES_COLUMNS.format(real='REAL')})",),
        postgres=(f"CREATE TABLE IF NOT EXISTS games ({_GAMES_COLUMNS.format(real='DOUBLE PRECISION')})",),
    ),
    Migration(
        2, "claims",
        # A claim: who handles one piece of work on a game (kind: "ai-turn", "clock", ...) until when.
        # lease_until is on the database's clock: SQLite's as seconds since the epoch, PostgreSQL's
        # as a timestamp (store_*.py compare it with the same clock's now).
        sqlite=("CREATE TABLE IF NOT EXISTS claims (game_id TEXT NOT NULL, kind TEXT NOT NULL, owner TEXT NOT NULL, "
                "lease_until REAL NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (game_id, kind))",),
        postgres=("CREATE TABLE IF NOT EXISTS claims (game_id TEXT NOT NULL, kind TEXT NOT NULL, owner TEXT NOT NULL, "
                  "lease_until TIMESTAMPTZ NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (game_id, kind))",),
    ),
    Migration(
        3, "spectators",
        # spectators: whether the game may be watched by its id (docs/server.md "Spectators"), on by
        # default. public_log: JSON list, a spectator's log entries (the public text of each step);
        # NULL for a game saved before it existed (its spectators' log is derived from its record).
        sqlite=("ALTER TABLE games ADD COLUMN spectators INTEGER NOT NULL DEFAULT 1",
                "ALTER TABLE games ADD COLUMN public_log TEXT"),
        postgres=("ALTER TABLE games ADD COLUMN IF NOT EXISTS spectators BOOLEAN NOT NULL DEFAULT TRUE",
                  "ALTER TABLE games ADD COLUMN IF NOT EXISTS public_log TEXT"),
    ),
    Migration(
        4, "seats",
        # One row per seat of a game (seats.py; docs/server.md "Seats, invitations and bots"): kind
        # 'human', 'ai' or 'bot'; token_hash: SHA-256 of the seat's bearer token (NULL while an open
        # human seat waits for its invitation code, whose SHA-256 is invite_hash until it is used);
        # ai: JSON AISettings of an AI seat; joined: when the seat was taken; log and ai_last_turn:
        # what that seat may know (JSON lists; the creator's seat keeps its own in games.log and
        # games.ai_last_turn, so they are NULL there); offered: the seat offered a rematch (0/1).
        # games.setup: the new-game body (JSON) a rematch repeats; games.rematch: the rematch's id.
        # A game from before seats has its human seat moved here with its token; its other seats
        # have no row and are the AI with games.ai (seats.py reads them so).
        sqlite=(f"CREATE TABLE IF NOT EXISTS seats ({_SEATS_COLUMNS.format(real='REAL')})",
                "CREATE INDEX IF NOT EXISTS seats_token ON seats (token_hash)",
                "ALTER TABLE games ADD COLUMN setup TEXT",
                "ALTER TABLE games ADD COLUMN rematch TEXT",
                _MOVE_HUMAN_SEATS),
        postgres=(f"CREATE TABLE IF NOT EXISTS seats ({_SEATS_COLUMNS.format(real='DOUBLE PRECISION')})",
                  "CREATE INDEX IF NOT EXISTS seats_token ON seats (token_hash)",
                  "ALTER TABLE games ADD COLUMN IF NOT EXISTS setup TEXT",
                  "ALTER TABLE games ADD COLUMN IF NOT EXISTS rematch TEXT",
                  _MOVE_HUMAN_SEATS + " ON CONFLICT DO NOTHING"),
    ),
    Migration(
        5, "clocks",
        # Clocks (clocks.py, docs/server.md "Clocks"). clock: JSON, the control, each player's seconds
        # at the last handover, who runs and since when (turn_started, the server's wall clock), the
        # players out of time; NULL for an untimed game. flag_at: when the running player's time runs
        # out (NULL: untimed, or over), indexed so that any server finds the due flags with one query.
        sqlite=("ALTER TABLE games ADD COLUMN clock TEXT",
                "ALTER TABLE games ADD COLUMN flag_at REAL",
                "CREATE INDEX IF NOT EXISTS games_flag_at ON games (flag_at) WHERE flag_at IS NOT NULL"),
        postgres=("ALTER TABLE games ADD COLUMN IF NOT EXISTS clock TEXT",
                  "ALTER TABLE games ADD COLUMN IF NOT EXISTS flag_at DOUBLE PRECISION",
                  "CREATE INDEX IF NOT EXISTS games_flag_at ON games (flag_at) WHERE flag_at IS NOT NULL"),
    ),
    Migration(
        6, "instances",
        # Several servers on one database (instances.py, docs/server.md "Several instances").
        # waiting_ai: whether the game waits for the AI's turn (set in the transaction of each change),
        # so any instance finds a turn whose instance died (no live "ai" claim) and takes it over.
        # instances: every running server, its heartbeat on the database's clock (SQLite: seconds
        # since the epoch; PostgreSQL: a timestamp); a live instance's heartbeat is recent.
        sqlite=("ALTER TABLE games ADD COLUMN waiting_ai INTEGER NOT NULL DEFAULT 0",
                "CREATE INDEX IF NOT EXISTS games_waiting_ai ON games (waiting_ai) WHERE waiting_ai = 1",
                "CREATE TABLE IF NOT EXISTS instances (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, "
                "started REAL NOT NULL, heartbeat REAL NOT NULL)"),
        postgres=("ALTER TABLE games ADD COLUMN IF NOT EXISTS waiting_ai BOOLEAN NOT NULL DEFAULT FALSE",
                  "CREATE INDEX IF NOT EXISTS games_waiting_ai ON games (waiting_ai) WHERE waiting_ai",
                  "CREATE TABLE IF NOT EXISTS instances (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, "
                  "started TIMESTAMPTZ NOT NULL, heartbeat TIMESTAMPTZ NOT NULL)"),
    ),
    Migration(
        7, "away seats",
        # Seats that walk away (core.py, docs/server.md "A seat that walks away"). away: JSON list of
        # the seats the easy bot plays because their player left the game or did not act within the
        # idle limit (NULL: none). idle_seat, idle_since: in an untimed game without resignation, the
        # human or bot seat that decides now and since when (the game's last change); NULL when no
        # such seat decides. Indexed so that any server finds the seats idle past the limit with one
        # query (GameStore.due_idle).
        sqlite=("ALTER TABLE games ADD COLUMN away TEXT",
                "ALTER TABLE games ADD COLUMN idle_seat INTEGER",
                "ALTER TABLE games ADD COLUMN idle_since REAL",
                "CREATE INDEX IF NOT EXISTS games_idle_since ON games (idle_since) WHERE idle_since IS NOT NULL"),
        postgres=("ALTER TABLE games ADD COLUMN IF NOT EXISTS away TEXT",
                  "ALTER TABLE games ADD COLUMN IF NOT EXISTS idle_seat INTEGER",
                  "ALTER TABLE games ADD COLUMN IF NOT EXISTS idle_since DOUBLE PRECISION",
                  "CREATE INDEX IF NOT EXISTS games_idle_since ON games (idle_since) WHERE idle_since IS NOT NULL"),
    ),
)

LATEST = MIGRATIONS[-1].version

assert all(a.version < b.version for a, b in zip(MIGRATIONS, MIGRATIONS[1:])) and MIGRATIONS[0].version == 1, \
    "migrations are numbered from 1, in increasing order"


def newer_than_known(applied: int, where: str) -> str | None:
    """The refusal's text when a database's schema version ``applied`` is newer than this code's."""
    if applied <= LATEST:
        return None
    return (f"the game database {where} has schema version {applied}, newer than this ftc-engine knows "
            f"({LATEST}): a newer ftc-engine wrote it; use that version (nothing was changed)")
