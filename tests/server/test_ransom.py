"""King's Ransom through the API (docs/server.md, "King's Ransom"): creating games in either seat,
whole games against the AI by API calls, resigning, refusals that change nothing, the record after
the end only, saved games, hints, and games that survive a restart."""

import random

import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import Limits, create_app
from engine.ransom.state import RansomState
from tests.server.support import act, auth


def new_ransom(client, **body):
    body = {"variant": "kings-ransom", "ai": {"level": "easy"}, **body}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    view = response.json()
    return view, view.pop("token")


def play_to_end(client, view, token, rng, limit=2000):
    for _ in range(limit):
        if view["status"] == "over":
            return view
        assert view["your_turn"] and view["actions"], view
        view = act(client, view, token, rng.choice(view["actions"])["id"])
    raise AssertionError("the game did not end")


@pytest.fixture
def fast(tmp_path):
    app = create_app(tmp_path / "games.sqlite3", ai_pool="thread",
                     limits=Limits(requests_per_second=1e6, request_burst=10**6))
    with TestClient(app) as c:
        yield c


def test_a_red_human_flips_first_and_sees_only_own_face_down_cards(fast):
    view, token = new_ransom(fast, human=0)
    assert view["variant"] == "kings-ransom" and view["players"] == ["Red", "Blue"]
    assert view["your_turn"] and view["phase"] == "flip" and view["to_move"] == 0
    assert {a["fields"]["kind"] for a in view["actions"]} == {"flip"}
    obs = view["observation"]
    assert len(obs["hand"]) == 3 and obs["hand_sizes"] == [3, 3]
    for card in obs["arena"]:
        assert (card["card"] is None) == (card["owner"] == 1 and card["face_down"])
    assert isinstance(fast.app.state.server.games[view["id"]].snap.state, RansomState)


def test_the_ai_moves_first_when_the_human_is_blue(fast):
    view, _ = new_ransom(fast, human=1)
    assert view["your_turn"] and view["to_move"] == 1 and view["turn"] == 2
    assert [e["player"] for e in view["ai_last_turn"]] == [0] * len(view["ai_last_turn"])
    assert view["ai_last_turn"][0]["fields"]["kind"] == "flip"
    play = [e for e in view["ai_last_turn"] if e["fields"]["kind"] == "play"]
    assert play and all(set(e["fields"]) == {"kind", "square"} for e in play)   # the card is not named


@pytest.mark.parametrize("human, level", [(0, "easy"), (1, "easy")])
def test_a_whole_game_against_the_ai_by_api_calls(fast, human, level):
    view, token = new_ransom(fast, human=human, ai={"level": level})
    assert fast.get(f"/api/games/{view['id']}/record", headers=auth(token)).status_code == 409
    view = play_to_end(fast, view, token, random.Random(human))
    assert view["status"] == "over" and view["over"] and view["actions"] == []
    assert view["log"][-1]["text"] == f"game over: {view['over']}"
    assert all(c["card"] is not None for c in view["observation"]["arena"])    # the end reveals the arena
    record = fast.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()
    assert record["format"] == "ftc-ransom-record" and record["result"]["reason"] == view["over"]
    again = act(fast, view, token, 0, expect=409)
    assert "over" in again["detail"]


def test_resigning_ends_the_game_for_the_ai_and_survives_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view, token = new_ransom(c, human=0)
        view = act(c, view, token, view["actions"][0]["id"])
        response = c.post(f"/api/games/{view['id']}/resign", headers=auth(token))
        assert response.status_code == 200, response.text
        over = response.json()
        assert over["status"] == "over" and over["winner"] == 1 and over["over"] == "Red resigns"
        assert c.post(f"/api/games/{view['id']}/resign", headers=auth(token)).status_code == 409
    with TestClient(create_app(path, ai_pool="thread")) as c:
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        assert again == over
        assert c.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()["result"]["winner"] == 1


def test_games_survive_a_restart_exactly(tmp_path):
    path = tmp_path / "games.sqlite3"
    rng = random.Random(3)
    with TestClient(create_app(path, ai_pool="thread")) as c:
        view, token = new_ransom(c, human=1)
        for _ in range(12):                   # the deal is a server secret: the game may end sooner
            if not view["actions"]:
                break
            view = act(c, view, token, rng.choice(view["actions"])["id"])
        before = c.app.state.server.games[view["id"]].snap.state.fingerprint()
    with TestClient(create_app(path, ai_pool="thread")) as c:
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        assert again == view
        assert c.app.state.server.games[view["id"]].snap.state.fingerprint() == before
        if again["actions"]:
            play_to_end(c, again, token, rng)


def test_refusals_say_why_and_change_nothing(fast):
    for body, status, words in [
        ({"options": {"max_turns": 5}}, 422, "no options"),
        ({"supply": "first-game"}, 422, "no Supply"),
        ({"seed": 7}, 422, "seed: King's Ransom's deal comes from a server secret"),   # else ignored, unsaid
        ({"ai": {"bot": "alphabeta"}}, 422, "King's Ransom AI"),
    ]:
        response = fast.post("/api/games", json={"variant": "kings-ransom", **body})
        assert response.status_code == status and words in response.text, response.text
    assert fast.app.state.server.games == {}
    view, token = new_ransom(fast, human=0)
    gid, headers = view["id"], auth(token)
    response = fast.get(f"/api/games/{gid}/knowledge", headers=headers)
    assert response.status_code == 400 and "For the Crown only" in response.json()["detail"]
    assert act(fast, view, token, 12345, expect=409)["detail"].startswith("field 'action': not one of your legal")
    stale = {**view, "version": view["version"] + 5}
    assert "stale" in act(fast, stale, token, view["actions"][0]["id"], expect=409)["detail"]
    assert fast.post(f"/api/games/{gid}/ai", headers=headers).status_code == 409
    assert fast.get(f"/api/games/{gid}", headers=headers).json() == view          # nothing changed
    assert fast.get(f"/api/games/{gid}", headers=auth("x" * 43)).status_code == 404


def test_saved_games_hint_and_delete(fast):
    view, token = new_ransom(fast, human=0)
    saved = fast.post("/api/games/saved", json={"games": [{"id": view["id"], "token": token}]}).json()["games"]
    assert saved[0]["found"] and saved[0]["variant"] == "kings-ransom" and saved[0]["your_turn"]
    hint = fast.post(f"/api/games/{view['id']}/hint", headers=auth(token))
    assert hint.status_code == 200, hint.text
    assert hint.json()["action"] in {a["id"] for a in view["actions"]}
    assert fast.delete(f"/api/games/{view['id']}", headers=auth(token)).status_code == 200
    assert fast.get(f"/api/games/{view['id']}", headers=auth(token)).status_code == 404


def test_a_websocket_pushes_king_s_ransom_views(fast):
    view, token = new_ransom(fast, human=0)
    with fast.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(token)) as ws:
        first = ws.receive_json()
        assert first["variant"] == "kings-ransom" and first["version"] == view["version"]


def test_the_normal_level_plays_with_the_full_ai_in_the_pool(fast):
    view, _ = new_ransom(fast, human=1, ai={"level": "normal"})
    assert view["your_turn"] and view["ai_note"] is None
    assert fast.app.state.server.fallbacks == []
