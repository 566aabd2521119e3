"""The folder of game records that `ftc selfplay --records DIR` and `ftc match --records DIR` fill,
for every registered game; the one place that writes them.

Each game is one JSON file holding the game's own record (``state.record()``, what the game's
``replay`` and `ftc analyze FILE` read):

- selfplay: ``game-<seed>.json``, the game of that seed (For the Crown's name from the start);
- match: ``match-<i>.json``, game i of the match (0 first, the order of ``--json``'s outcomes), and
  one line per finished game in ``matches.jsonl`` (:data:`MATCH_INDEX`), in game order: its file,
  game number, set-up seed, the bot spec in each seat, bot A's seat, the returns, A's score and how
  the game ended.

Only the process that runs the command writes: the workers (other processes, a Ray cluster) send
the records back with their results (engine/execution.py). A file is written whole or not at all
(a temporary file renamed), so a run stopped by Ctrl-C leaves the records of its finished games and
no half file. A file of the same name is replaced: a second run into the same folder writes its own
games over the first run's (the same seed and options make the same selfplay game), and a match
starts ``matches.jsonl`` anew."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engine.execution import interrupts_held

__all__ = ["MATCH_INDEX", "RecordFolder", "selfplay_file", "match_file"]

#: The sidecar index of a match's records: one JSON object per line, one line per finished game.
MATCH_INDEX = "matches.jsonl"


def selfplay_file(seed: int) -> str:
    """The file name of the selfplay game of ``seed``."""
    return f"game-{seed}.json"


def match_file(index: int) -> str:
    """The file name of game ``index`` (0 first) of a match."""
    return f"match-{index}.json"


class RecordFolder:
    """A folder that records are written into (made, with its parents, when missing)."""

    def __init__(self, folder: str | os.PathLike):
        self.path = Path(folder)
        self.path.mkdir(parents=True, exist_ok=True)
        self._index: dict[int, str] | None = None

    def _whole(self, name: str, text: str) -> Path:
        """Write ``text`` as the file ``name``, atomically: into a temporary file that is renamed
        over ``name`` once complete (and removed if anything fails)."""
        path, temporary = self.path / name, self.path / f".{name}.tmp"
        try:
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return path

    def write(self, name: str, record: Any) -> Path:
        """Write ``record`` as the JSON file ``name`` of the folder, whole or not at all."""
        text = json.dumps(record, separators=(",", ":"))
        return self._whole(name, text)

    def write_selfplay(self, seed: int, record: Any) -> Path:
        """The selfplay game of ``seed``."""
        return self.write(selfplay_file(seed), record)

    def start_match(self) -> None:
        """A match begins: its index starts empty (an earlier match's index is replaced)."""
        self._index = {}
        self._whole(MATCH_INDEX, "")

    def write_match(self, index: int, record: Any, entry: dict) -> Path:
        """Game ``index`` of a match: its record, then ``entry`` (what the index says of it; the
        file's name and the game's number are added) as a line of :data:`MATCH_INDEX`, which is
        rewritten whole, its lines in game order (the same file whatever order the games finished
        in; a stop never leaves half a line, nor a record that the index does not list: a Ctrl-C
        between the two writes waits until both are done)."""
        if self._index is None:
            self.start_match()
        lines = self._index
        assert lines is not None                     # start_match made it
        with interrupts_held():
            path = self.write(match_file(index), record)
            lines[index] = json.dumps({"file": path.name, "game": index, **entry}) + "\n"
            self._whole(MATCH_INDEX, "".join(lines[i] for i in sorted(lines)))
        return path
