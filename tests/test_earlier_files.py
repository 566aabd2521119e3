"""Files of an earlier version load in this one (issue 41 moved For the Crown's package from
engine/game/ to engine/crown/ and the board search to engine/board/; nothing a user keeps may depend on
that). tests/data/earlier/ holds files made by commit 04970b3, the tree before the move, with the
scripts that made them (run in a checkout of that commit): a For the Crown position view (it names its
decision's labeler by module path), a mid-game record of each of the four games with the observations
and options that version gave, and a server store (SQLite) with a game in progress of each game, its
seat tokens and the views that server sent."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from pathlib import Path

import pytest

from engine.crown.config import GameConfig
from engine.crown.knowledge import load_view, position_view
from engine.crown.state import GameState
from engine.games import registry

EARLIER = Path(__file__).resolve().parent / "data" / "earlier"


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def test_a_position_view_of_the_earlier_layout_loads_with_its_labeler():
    doc = json.loads((EARLIER / "crown_position_view.json").read_text(encoding="utf-8"))
    assert "engine.game.phases.phase_label" in json.dumps(doc)        # written by the earlier layout
    earlier = load_view(doc)
    g = GameState(GameConfig(seed=3))
    now = load_view(json.loads(json.dumps(position_view(g, g.current_player(), random.Random(1)))))
    assert earlier.prompt() == now.prompt()
    assert earlier.legal_action_texts() == now.legal_action_texts()
    assert earlier.legal_action_texts()


@pytest.mark.parametrize("name", ["crown", "kings-ransom", "crusade", "crownfall"])
def test_a_record_of_the_earlier_version_replays_to_the_same_state(name):
    record = json.loads((EARLIER / f"{name}_record.json").read_text(encoding="utf-8"))
    expected = json.loads((EARLIER / "expected.json").read_text(encoding="utf-8"))[name]
    game = registry.for_record(record)
    assert game.name == name
    state = game.replay(record)
    assert [digest(state.observation(p)) for p in range(state.num_players)] == expected["players"]
    legal = sorted(state.legal_action_texts().items()) if state.current_player() >= 0 else []
    assert [list(item) for item in legal] == expected["legal"]


def test_the_server_goes_on_with_the_games_of_an_earlier_store(tmp_path):
    from fastapi.testclient import TestClient

    from engine.interfaces.server.app import create_app
    from engine.interfaces.server.models import Limits

    shutil.copy(EARLIER / "store.db", tmp_path / "store.db")
    saved = json.loads((EARLIER / "store.json").read_text(encoding="utf-8"))
    # The store's seats last moved when it was made: with the default idle limit a seat would have walked
    # away by now (away.py) and the AI taken it over, so the seats here never go idle.
    app = create_app(str(tmp_path / "store.db"), ai_pool="thread", ai_workers=1, limits=Limits(idle_seat_seconds=1e9))
    with TestClient(app) as client:
        for game in saved:
            before = game["view"]
            headers = {"Authorization": f"Bearer {game['token']}"}
            view = client.get(f"/api/games/{before['id']}", headers=headers).json()
            # The board's module file is the one thing a view may name differently (For the Crown's board
            # moved out of app.js into its own module); all else is what the earlier server sent.
            assert {k: v for k, v in view.items() if k != "module"} == \
                   {k: v for k, v in before.items() if k != "module"}, before["game"]
            response = client.post(f"/api/games/{before['id']}/actions", headers=headers,
                                   json={"action": view["actions"][0]["id"], "version": view["version"]})
            assert response.status_code == 200, response.text
            assert response.json()["version"] > before["version"]
            deadline = time.monotonic() + 30
            while client.get(f"/api/games/{before['id']}", headers=headers).json()["thinking"]:
                assert time.monotonic() < deadline, f"{before['game']}: the AI never answered"
                time.sleep(0.05)
