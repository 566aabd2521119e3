"""Games persist in SQLite: every change is committed before the server answers, so a restarted
server resumes every game exactly (the record replays to the identical state, fingerprint-checked)
and a crash between two actions loses nothing that was acknowledged.

The store never holds a seat's token, only its SHA-256: a copy of the database does not let anyone
play or read a game through the API.

Every SQLite failure (a locked database, a full disk, a read-only file, a file that is not a
database) leaves the store as it was and raises :class:`StorageError`, whose message says what failed
and where; the server answers 503 to it. The methods block: the server calls them from a thread,
never on its event loop.
"""

from __future__ import annotations

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
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _run(self, what: str, sql: str, params: tuple = ()):
        with self._lock:
            try:
                return self._db.execute(sql, params)
            except sqlite3.Error as exc:
                raise StorageError(f"{what}: {_describe(exc)}") from None

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
        row = self._run(
            f"reading game {game_id}",
            "SELECT id, created, updated, human, ai, record, status, log, version, ai_last_turn, token_hash, client "
            "FROM games WHERE id=?", (game_id,)
        ).fetchone()
        if row is None:
            return None
        return StoredGame(id=row[0], created=row[1], updated=row[2], human=row[3], ai=json.loads(row[4]),
                          record=json.loads(row[5]), status=row[6], log=json.loads(row[7]), version=row[8],
                          ai_last_turn=json.loads(row[9]), token_hash=row[10], client=row[11])

    def updated(self, game_id: str) -> float | None:
        """When the game was last changed (seconds since the epoch), None when no such game exists."""
        row = self._run(f"reading game {game_id}", "SELECT updated FROM games WHERE id=?", (game_id,)).fetchone()
        return None if row is None else row[0]

    def delete(self, game_id: str) -> bool:
        """Remove a game for good; False when there was no such game."""
        return self._run(f"deleting game {game_id}", "DELETE FROM games WHERE id=?", (game_id,)).rowcount == 1

    def token_hash(self, game_id: str) -> str | None:
        """The stored token hash of a game, None when no such game exists."""
        row = self._run(f"reading game {game_id}", "SELECT token_hash FROM games WHERE id=?", (game_id,)).fetchone()
        return None if row is None else row[0]

    def count_playing(self, client: str, since: float = 0.0) -> int:
        """Games created by ``client`` that are not over and changed at ``since`` (a time.time()) or later."""
        row = self._run("counting games", "SELECT COUNT(*) FROM games WHERE client=? AND status='playing' "
                        "AND updated>=?", (client, since)).fetchone()
        return row[0]

    def integrity_check(self) -> str:
        """SQLite's own check of the file: "ok" when sound."""
        return self._run("checking the database", "PRAGMA integrity_check").fetchone()[0]
