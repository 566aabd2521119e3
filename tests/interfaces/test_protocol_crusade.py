"""The JSON-lines protocol (engine/interfaces/protocol.py) with Crusade & Conquer: a game from a
position text, moves by text, and ``analyze`` by the alpha-beta (the registry's ``Game.analysis.analyze``)."""

from __future__ import annotations

import json

from engine.interfaces.protocol import Session

# Blue's Flag Bearer f7 steps onto Red's X e8 and wins at once (H8b); the reference generator's
# puzzles and the search's doctest use the same position.
X_WIN = "3k4/5F2/8/8/8/8/8/4K3 w - 0 1"


def ask(session: Session, request: dict) -> dict:
    return json.loads(session.handle(json.dumps(request)))


def test_analyze_names_the_winning_step_and_its_score():
    session = Session()
    assert ask(session, {"cmd": "new", "game": "crusade", "config": {"position": X_WIN}})["ok"]
    answer = ask(session, {"cmd": "analyze", "top": 2, "seconds": 1})
    assert answer["ok"], answer
    report = answer["analysis"]
    assert report["best"] == "f7e8" and report["score_text"] == "mate in 1"
    assert report["position"] == X_WIN and report["side"] == "w" and len(report["lines"]) == 2


def test_analyze_sees_the_game_s_moves_and_reports_a_finished_game():
    session = Session()
    assert ask(session, {"cmd": "new", "game": "crusade", "config": {"position": X_WIN}})["ok"]
    assert ask(session, {"cmd": "apply", "action": "f7e8"})["ok"]
    report = ask(session, {"cmd": "analyze"})["analysis"]
    assert report["over"] == "Blue's Flag Bearer is on the X: Blue has won" and report["lines"] == []
    start = Session()
    assert ask(start, {"cmd": "new", "game": "crusade"})["ok"]
    assert ask(start, {"cmd": "apply", "action": "b1c3"})["ok"]
    report = ask(start, {"cmd": "analyze", "seconds": 0.2})["analysis"]
    assert report["side"] == "b" and report["best"] and report["lines"]
    assert report["position"] == start.game.pos.text()          # the position after the move, not the start
