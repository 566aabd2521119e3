"""Games persist in SQLite: every change is committed before the server answers, so a restarted
server resumes every game exactly (the record replays to the identical state, fingerprint-checked)
and a crash between two actions loses nothing."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path

__all__ = ["GameStore", "StoredGame"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    human INTEGER NOT NULL,
    ai TEXT NOT NULL,            -- JSON: the AI player's settings
    record TEXT NOT NULL,        -- JSON: engine.game.record format
    status TEXT NOT NULL,        -- "playing" or "over"
    log TEXT NOT NULL,           -- JSON list of public log entries
    ai_last_turn TEXT NOT NULL,  -- JSON list: what the human saw of the AI's last turn
    version INTEGER NOT NULL     -- grows by one with every change
);
"""


class StoredGame(dict):
    """A row: id, created, updated, human, ai (dict), record (dict), status, log (list), version,
    ai_last_turn (list)."""


class GameStore:
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def new_id(self) -> str:
        return uuid.uuid4().hex[:16]

    def insert(self, game_id: str, human: int, ai: dict, record: dict, status: str, log: list) -> None:
        now = time.time()
        with self._lock:
            self._db.execute(
                "INSERT INTO games (id, created, updated, human, ai, record, status, log, ai_last_turn, version) "
                "VALUES (?,?,?,?,?,?,?,?,'[]',1)",
                (game_id, now, now, human, json.dumps(ai), json.dumps(record), status, json.dumps(log)),
            )

    def update(self, game_id: str, record: dict, status: str, log: list, ai_last_turn: list,
               expected_version: int) -> int:
        """Write the new state; the version check refuses a write based on a stale read."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE games SET record=?, status=?, log=?, ai_last_turn=?, updated=?, version=version+1 "
                "WHERE id=? AND version=?",
                (json.dumps(record), status, json.dumps(log), json.dumps(ai_last_turn), time.time(), game_id,
                 expected_version),
            )
            if cursor.rowcount != 1:
                raise RuntimeError(f"game {game_id} changed meanwhile (version {expected_version} is stale)")
            return expected_version + 1

    def get(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, created, updated, human, ai, record, status, log, version, ai_last_turn FROM games WHERE id=?",
                (game_id,)
            ).fetchone()
        if row is None:
            return None
        return StoredGame(id=row[0], created=row[1], updated=row[2], human=row[3], ai=json.loads(row[4]),
                          record=json.loads(row[5]), status=row[6], log=json.loads(row[7]), version=row[8],
                          ai_last_turn=json.loads(row[9]))

    def list(self, limit: int = 100) -> list[dict]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, created, updated, status, human FROM games ORDER BY updated DESC LIMIT ?", (limit,)
            ).fetchall()
        return [{"id": r[0], "created": r[1], "updated": r[2], "status": r[3], "human": r[4]} for r in rows]
