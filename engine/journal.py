"""A journal of finished units: the results of a long run kept on disk, so that the run resumes.

A match that must play hundreds of game pairs on a small machine (an SPRT gate, the board net's
loop) outlives a session, a Ctrl-C or a crash only if every finished unit is written down as it
finishes. A journal is a JSON-lines file:

- its first line is the **header**, ``{"journal": KIND, "run": {...}}``: what the run is (the
  players, the seeds, the test's bounds, the candidate's code); a run resumes from a journal only if
  its header is the same, key by key, so that games of another run are never counted in this one;
- every other line is one finished unit, ``{"unit": K, ...}``, appended and flushed to the disk
  before the run counts it. A line a crash cut short (the last one) is dropped when the journal is
  opened again.

The journal is small (a line a unit) and may be committed beside the change it judges, so that a
later session goes on with the same test (docs/sprt.md, "Resuming a test").

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "gate.jsonl"
>>> journal = Journal(path, "example", {"seed": 7})
>>> journal.add(0, {"scores": [1.0, 0.0]})
>>> Journal(path, "example", {"seed": 7}).done
{0: {'unit': 0, 'scores': [1.0, 0.0]}}
>>> Journal(path, "example", {"seed": 8})
Traceback (most recent call last):
...
engine.journal.JournalError: ...gate.jsonl: its run's seed is 7, this run's is 8: it is another run's journal (a new file starts a new run)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["Journal", "JournalError", "read_rows", "package_digest"]

_DIGEST: list[str] = []


def package_digest() -> str:
    """A digest of the engine package this process runs (16 hex digits): every file under its folder,
    by name and content (its code, its data files, the nets and its built kernels; caches left out),
    so that a journal's header can name the code that played its units. Computed once a process.

    >>> len(package_digest()) == 16 and package_digest() == package_digest()
    True
    """
    if not _DIGEST:
        root = Path(__file__).resolve().parent
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".tmp"):
                digest.update(path.relative_to(root).as_posix().encode() + b"\0"
                              + hashlib.sha256(path.read_bytes()).digest())
        _DIGEST.append(digest.hexdigest()[:16])
    return _DIGEST[0]


class JournalError(ValueError):
    """A journal that cannot be used: not a journal, another run's, or not writable."""


def read_rows(path: Path) -> list[dict]:
    """The JSON objects of a JSON-lines file, in order; a line that is not one (a line a crash cut
    short) is left out. No file: no rows."""
    rows: list[dict] = []
    if not path.exists():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _append(path: Path, row: dict) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


class Journal:
    """The journal at ``path`` of a run of kind ``kind`` described by ``run`` (JSON values).

    Opening a journal that exists checks its header against ``kind`` and ``run`` (a
    :class:`JournalError` names the first key that differs, and the file is left as it was) and
    reads its finished units into :attr:`done`; a file that does not exist is created with the
    header. Units are keyed by their index; a unit written twice keeps its first result.
    """

    def __init__(self, path: str | Path, kind: str, run: dict[str, Any]) -> None:
        self.path = Path(path)
        self.kind = kind
        self.run = json.loads(json.dumps(run))          # as the file holds it (tuples become lists)
        self.done: dict[int, dict] = {}
        header = {"journal": kind, "run": self.run}
        if not self.path.exists():
            if not self.path.parent.is_dir():
                raise JournalError(f"{self.path}: its folder does not exist")
            try:
                tmp = self.path.with_name(self.path.name + ".tmp")
                tmp.write_text(json.dumps(header) + "\n", encoding="utf-8")
                tmp.replace(self.path)
            except OSError as exc:
                raise JournalError(f"{self.path}: cannot be written ({exc.strerror or exc})") from None
            return
        if not self.path.is_file():
            raise JournalError(f"{self.path}: not a file")
        try:
            rows = read_rows(self.path)
        except (OSError, UnicodeDecodeError) as exc:
            raise JournalError(f"{self.path}: cannot be read ({exc})") from None
        if not rows or rows[0].get("journal") != kind or not isinstance(rows[0].get("run"), dict):
            raise JournalError(f"{self.path}: not a journal of a {kind} run (its first line is not the header "
                               f"{{\"journal\": \"{kind}\", \"run\": ...}})")
        self._check(rows[0]["run"])
        for row in rows[1:]:
            unit = row.get("unit")
            if isinstance(unit, int) and not isinstance(unit, bool) and unit >= 0:
                self.done.setdefault(unit, row)
        # Written again from what was read: a line a crash cut short must not stay before new lines.
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text("".join(json.dumps(row) + "\n" for row in [header, *self.done.values()]), encoding="utf-8")
            tmp.replace(self.path)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot be written ({exc.strerror or exc})") from None

    def _check(self, theirs: dict) -> None:
        for key in sorted(set(theirs) | set(self.run)):
            if theirs.get(key) != self.run.get(key):
                raise JournalError(f"{self.path}: its run's {key} is {_shown(theirs.get(key))}, this run's is "
                                   f"{_shown(self.run.get(key))}: it is another run's journal (a new file starts "
                                   "a new run)")

    def add(self, unit: int, row: dict[str, Any]) -> None:
        """Write unit ``unit``'s result (``row``, JSON values) to the disk and keep it in :attr:`done`."""
        if unit in self.done:
            return
        entry = {"unit": unit, **row}
        _append(self.path, entry)
        self.done[unit] = json.loads(json.dumps(entry))


def _shown(value: Any) -> str:
    return "missing" if value is None else json.dumps(value)
