"""engine/games/recordfiles.py's match folder under a stop: a Ctrl-C that lands between a game's
record file and its line of matches.jsonl waits until both are written, so a stopped match never
leaves a record that its index does not list (seen in CI: match-244.json on disk, not in the index)."""

import json
import os
import signal

import pytest

from engine.games.recordfiles import MATCH_INDEX, RecordFolder
from tests.support import ctrl_c_raises


def test_a_ctrl_c_between_a_record_and_its_index_line_waits_for_both(tmp_path, monkeypatch):
    folder = RecordFolder(tmp_path)
    folder.start_match()
    write = RecordFolder.write

    def write_then_interrupted(self, name, record):
        path = write(self, name, record)
        os.kill(os.getpid(), signal.SIGINT)         # Ctrl-C right after the record file
        return path

    monkeypatch.setattr(RecordFolder, "write", write_then_interrupted)
    with ctrl_c_raises(), pytest.raises(KeyboardInterrupt):
        folder.write_match(3, {"steps": []}, {"seed": 3})
    lines = [json.loads(line) for line in (tmp_path / MATCH_INDEX).read_text().splitlines()]
    assert lines == [{"file": "match-3.json", "game": 3, "seed": 3}]
    assert json.loads((tmp_path / "match-3.json").read_text()) == {"steps": []}
