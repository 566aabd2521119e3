"""An action is applied to the game's state once, however many seats and spectators follow it and
whether or not the AI answers it (issue 41): the server makes every viewer's log entry from that one
application (engine.games.view.step_for), and an AI turn's actions are applied once for its log and
its clocks together. The count is taken by wrapping each game state's ``apply`` and counting the
outermost calls made by the server's own code (the AI's worker, which replays the record to search,
is not the server's application of the action)."""

import sys
import threading

import pytest
from fastapi.testclient import TestClient

from engine.crown.state import GameState
from engine.crownfall.state import CrownfallState
from engine.crusade.state import CrusadeState
from engine.interfaces.server.app import create_app
from engine.ransom.state import RansomState
from tests.server.support import act, auth

SERVER = "/engine/interfaces/server/"
WORKER = "/engine/interfaces/server/ai.py"


class ApplyCounter:
    """Counts the outermost ``apply`` calls whose stack passes through the server's code but not
    through the AI's worker (ai.py)."""

    def __init__(self, monkeypatch):
        self.count = 0
        self.depth = threading.local()
        for cls in (GameState, RansomState, CrownfallState, CrusadeState):
            monkeypatch.setattr(cls, "apply", self.wrap(cls.apply))

    def wrap(self, apply):
        counter = self

        def counted(state, action):
            depth = getattr(counter.depth, "n", 0)
            if depth == 0 and counter.by_server():
                counter.count += 1
            counter.depth.n = depth + 1
            try:
                return apply(state, action)
            finally:
                counter.depth.n = depth
        return counted

    @staticmethod
    def by_server() -> bool:
        frame, server = sys._getframe(2), False
        while frame is not None:
            name = frame.f_code.co_filename.replace("\\", "/")
            if name.endswith(WORKER):
                return False
            server = server or SERVER in name
            frame = frame.f_back
        return server


GAMES = [
    pytest.param({"seed": 5, "supply": "first-game"}, [{"kind": "creator"}, {"kind": "human"}], id="crown-two-seats"),
    pytest.param({"seed": 5, "supply": "first-game"}, [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}],
                 id="crown-ai"),
    pytest.param({"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "human"}], id="kings-ransom-two-seats"),
    pytest.param({"variant": "kings-ransom"}, [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}],
                 id="kings-ransom-ai"),
    pytest.param({"game": "crownfall", "options": {"players": 3}},
                 [{"kind": "creator"}, {"kind": "human"}, {"kind": "ai", "ai": {"spec": "greedy"}}], id="crownfall-3"),
    pytest.param({"seed": 5, "supply": "first-game", "clock": {"base": 300, "increment": 5}},
                 [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}], id="crown-ai-timed"),
    pytest.param({"game": "crownfall", "options": {"players": 3}, "clock": {"base": 300}},
                 [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}, {"kind": "ai", "ai": {"spec": "greedy"}}],
                 id="crownfall-ai-timed"),
    pytest.param({"game": "crusade"}, [{"kind": "creator"}, {"kind": "ai", "ai": {"spec": "greedy"}}], id="crusade-ai"),
]


@pytest.mark.parametrize("body, seats", GAMES)
def test_each_action_is_applied_once(tmp_path, monkeypatch, body, seats):
    with TestClient(create_app(tmp_path / "games.sqlite3", ai_pool="thread")) as client:
        response = client.post("/api/games", json={**body, "seats": seats})
        assert response.status_code == 201, response.text
        view = response.json()
        token = view.pop("token")
        game_id = view["id"]
        counter = ApplyCounter(monkeypatch)
        for _ in range(4):                            # a few of the creator's actions, each with what follows
            if view["status"] == "over" or not view["actions"]:
                break
            client.get(f"/api/games/{game_id}/watch")  # a spectator follows the game
            logged = len(view["log"])
            counter.count = 0
            view = act(client, view, token, view["actions"][0]["id"])
            actions = [entry for entry in view["log"][logged:] if entry["player"] is not None]
            assert actions, "the action was logged"
            assert counter.count == len(actions), \
                f"{counter.count} applications for {len(actions)} actions (the creator's and the AI's)"
        assert client.get(f"/api/games/{game_id}", headers=auth(token)).status_code == 200
