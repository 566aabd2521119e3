"""Stop on the record board (engine/interfaces/server/game_analysis.py) interrupts every game's
analysis (each takes the board's stop signal: registry ``Analysis.stoppable``): Crusade & Conquer's
alpha-beta (engine/crusade/search.py ``analyze``), King's Ransom's turn planner and Crownfall's tree
search (``ISMCTS.search`` and ``plan_turn``'s ``stop``). A search of the longest time the board allows
is stopped inside its run, the socket answers "stopped", and the next analysis is answered. No clock
is read: the search's own record says it was stopped (``AlphaBeta.stop`` called while it ran, its
result cut short; the tree search's iterations after the signal: at most the one it was in), not run
out."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from engine.crusade.search import CrusadeSearch
from engine.interfaces.server.app import Limits, create_app
from engine.search.ismcts import ISMCTS
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


@pytest.fixture
def tree_searches(monkeypatch):
    """Each tree search the server runs: the stop signal it was given and how many iterations it
    began after that signal was set."""
    seen: list[dict] = []
    search, iterate = ISMCTS.search, ISMCTS._iterate

    def spied_search(self, state, *args, stop=None, **kwargs):
        entry = self.spy = {"stop": stop, "after": 0, "iterations": None}
        seen.append(entry)
        stats = search(self, state, *args, stop=stop, **kwargs)
        entry["iterations"] = stats.iterations
        return stats

    def spied_iterate(self, *args):
        entry = getattr(self, "spy", None)
        if entry is not None and entry["stop"] is not None and entry["stop"].is_set():
            entry["after"] += 1
        return iterate(self, *args)

    monkeypatch.setattr(ISMCTS, "search", spied_search)
    monkeypatch.setattr(ISMCTS, "_iterate", spied_iterate)
    return seen


@pytest.mark.parametrize("name", ["kings-ransom", "crownfall"])
def test_stop_interrupts_a_tree_search_of_the_longest_time(client, tree_searches, name):
    record = seeded_record(name, decisions=12)
    key = load(client, record).json()["id"]
    with client.websocket_connect("/api/analysis/game-ws") as ws:
        cap = ws.receive_json()["limits"]["max_seconds"]
        ws.send_json({"type": "analyze", "id": key, "decision": 2, "seconds": cap})
        assert ws.receive_json()["type"] == "started"
        ws.send_json({"type": "stop"})
        assert ws.receive_json()["type"] == "stopped"
        stopped = list(tree_searches)
        ws.send_json({"type": "analyze", "id": key, "decision": 3, "seconds": 0.2})
        assert ws.receive_json()["type"] == "started"
        done = ws.receive_json()
        assert done["type"] == "done" and done["decision"] == 3 and done["choices"], done
        assert not tree_searches[-1]["stop"].is_set()         # the next analysis ran its own time
    assert stopped and all(entry["stop"] is not None and entry["stop"].is_set() for entry in stopped), stopped
    # The last search of the stopped analysis ended within the iteration it was in when Stop came.
    assert stopped[-1]["after"] <= 1, stopped[-1]
