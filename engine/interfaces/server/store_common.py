"""What the game store (store.py) and its backends (store_sqlite.py, store_postgres.py) share: the
error, the row, the change notices and the thread that hands notices to subscribers.

A backend provides: ``dialect`` ("sqlite" or "postgres"), ``path`` (the SQLite file or None),
``location`` (how messages name it, never with a password), ``writers`` and ``readers`` (threads),
``transaction(what)`` (a context manager: one transaction whose ``run(sql, params)`` returns the
rows changed, whose ``rows(sql, params)`` returns a query's rows, and whose ``publish(change)`` is delivered once it commits; any failure rolls it back and
raises StorageError naming ``what``), ``query(what, sql, params)`` (rows), ``time_limit(seconds)``
(a context manager bounding the writes inside it), the claims' SQL (``sql_claim``, ``sql_renew``,
``sql_holder``), ``integrity_check()``, ``subscribe(callback)`` and ``close()``. SQL is written with
``?`` placeholders; the PostgreSQL backend turns them into its own.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import urlsplit

log = logging.getLogger("ftc.store")


class StorageError(RuntimeError):
    """The database could not be read or written; nothing was changed. The message says why."""


class StoredGame(dict):
    """A row: id, created, updated, human, ai (dict), record (dict), status, log (list), version,
    ai_last_turn (list), token_hash, client, spectators (bool: open to spectators), public_log (list,
    a spectator's log; None for a game saved before it was kept), clock (dict, clocks.py
    ``Clock.to_json``; None untimed), flag_at (when the running clock runs out; None), setup (the
    new-game body a rematch repeats; None for a game from before seats), rematch (the rematch's id
    or None), away (the seats the easy bot plays because their player left or was idle; a list),
    seats (the seat rows: GameStore.seats)."""


class Change(NamedTuple):
    """A committed change: game ``game_id`` is now at ``version`` (0: the game was deleted)."""
    game_id: str
    version: int


#: The version a Change names when a game's settings or seats changed (spectators open or closed, a
#: seat joined, a rematch offered or made), not its state: its version is unchanged.
SETTINGS = -2

#: What ``subscribe``'s callbacks receive instead of a Change after changes may have been missed
#: (PostgreSQL: the listening connection was lost and is back): reload whatever is watched.
RESYNC = Change("", -1)


class Subscribers:
    """The callbacks of one store and the one thread that calls them, in the order of the changes
    (so a slow callback delays other notices, never a write). A callback that raises is logged and
    stays subscribed."""

    def __init__(self, name: str):
        self.name = name
        self._callbacks: list[Callable[[Change], None]] = []
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False

    def add(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        if not callable(callback):
            raise TypeError(f"subscribe needs a function of one Change, got {callback!r}")
        with self._lock:
            self._callbacks.append(callback)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=f"ftc-db-notify-{self.name}", daemon=True)
                self._thread.start()

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return unsubscribe

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def deliver(self, change: Change) -> None:
        if self._callbacks and not self._closed:
            self._queue.put(change)

    def _run(self) -> None:
        while True:
            change = self._queue.get()
            if change is None:
                return
            with self._lock:
                callbacks = list(self._callbacks)
            for callback in callbacks:
                try:
                    callback(change)
                except Exception:              # noqa: BLE001 - a subscriber's bug must not stop the notices
                    log.exception("a change subscriber (%s) failed on %s", self.name, change)

    def close(self) -> None:
        self._closed = True
        self._queue.put(None)


def redacted_url(url: str) -> str:
    """The URL with its password replaced by ***: how every message names the database."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            credentials, host = netloc.rsplit("@", 1)
            user = credentials.split(":", 1)[0]
            netloc = f"{user}:***@{host}" if ":" in credentials else f"{user}@{host}"
        return parts._replace(netloc=netloc, query=re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)).geturl()
    except ValueError:
        return "postgresql://(an unreadable URL)"
