"""Stop on the record board (engine/interfaces/server/game_analysis.py) interrupts Crusade & Conquer's
alpha-beta (engine/crusade/search.py ``analyze``, which takes the board's stop signal: registry
``Analysis.stoppable``), not only the searches that report progress: a search of the longest time the
board allows is stopped inside its run, the socket answers "stopped", and the next analysis is
answered. No clock is read: the search's own record says it was stopped (``AlphaBeta.stop`` called
while it ran, its result cut short), not run out."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from engine.crusade.search import CrusadeSearch
from engine.interfaces.server.app import Limits, create_app
from tests.server.test_game_analysis import load, seeded_record


@pytest.fixture
def client(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread",
                     limits=Limits(analysis_record_burst=100, analysis_records_per_minute=6_000.0))
    with TestClient(app) as client:
        yield client


@pytest.fixture
def searches(monkeypatch):
    """Each Crusade search the server runs: how often it was told to stop while it ran, and whether
    it finished (``complete``) and how deep."""
    seen: list[dict] = []
    search, stop = CrusadeSearch.search, CrusadeSearch.stop

    def spied_search(self, *args, **kwargs):
        entry = self.spy = {"stops": 0, "running": True}
        seen.append(entry)
        try:
            result = search(self, *args, **kwargs)
        finally:
            entry["running"] = False
        entry.update(complete=result.complete, depth=result.depth)
        return result

    def spied_stop(self):
        entry = getattr(self, "spy", None)
        if entry is not None and entry["running"]:
            entry["stops"] += 1
        stop(self)

    monkeypatch.setattr(CrusadeSearch, "search", spied_search)
    monkeypatch.setattr(CrusadeSearch, "stop", spied_stop)
    return seen


def test_stop_interrupts_a_crusade_search_of_the_longest_time(client, searches):
    key = load(client, seeded_record("crusade", decisions=12)).json()["id"]
    with client.websocket_connect("/api/analysis/game-ws") as ws:
        cap = ws.receive_json()["limits"]["max_seconds"]
        ws.send_json({"type": "analyze", "id": key, "decision": 3, "seconds": cap})
        assert ws.receive_json()["type"] == "started"
        ws.send_json({"type": "stop"})
        assert ws.receive_json()["type"] == "stopped"
        first = dict(searches[0])
        ws.send_json({"type": "analyze", "id": key, "decision": 4, "seconds": 0.2})
        assert ws.receive_json()["type"] == "started"
        done = ws.receive_json()
        assert done["type"] == "done" and done["decision"] == 4 and done["choices"]
    assert first["stops"] >= 1 and not first["running"], first
    assert first["complete"] is False
    assert len(searches) == 2 and searches[1]["stops"] == 0
