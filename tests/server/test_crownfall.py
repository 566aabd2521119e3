"""Crownfall on the server (engine/crownfall/web.py through the registry's WebBoard): the new-game
form in the games' list, a human in any seat of a 2-4 player game with the AI playing every other
seat, the AI's last turn holding each AI seat's actions, a seat the game does not have refused."""

import random

from tests.server.support import act, auth


def create(client, **body):
    response = client.post("/api/games", json={"game": "crownfall", "ai": {"spec": "random"}, **body})
    assert response.status_code == 201, response.text
    view = response.json()
    return view, view.pop("token")


def test_the_games_list_gives_crownfall_s_board_and_form(client):
    kinds = {k["name"]: k for k in client.get("/api/games/kinds").json()["games"]}
    crownfall = kinds["crownfall"]
    assert crownfall["module"] == "crownfall.js" and crownfall["seats"] == ["Blue", "Red", "Green", "Yellow"]
    assert [f["name"] for f in crownfall["form"]] == ["players", "human", "house", "rounds", "advanced_omens",
                                                      "advanced_objectives"]
    assert kinds["kings-ransom"]["form"] is None


def test_a_human_in_the_third_seat_of_four_sees_the_ai_play_the_three_others(client):
    view, token = create(client, human=2, options={"players": 4, "house": "redwall", "rounds": 2})
    assert view["players"] == ["Blue", "Red", "Green", "Yellow"] and view["human"] == 2
    assert view["your_turn"] and view["deciding"] == 2 and view["seats"][2]["house"] == "redwall"
    # Blue and Red took their turns before the human's: both are in the AI's last turn and the log.
    assert {e["player"] for e in view["ai_last_turn"]} == {0, 1}
    assert {e["player"] for e in view["log"]} == {0, 1}
    rng = random.Random(3)
    while view["status"] != "over":
        view = act(client, view, token, rng.choice(view["actions"])["id"])
        if view["status"] != "over":
            assert view["your_turn"] and 2 not in {e["player"] for e in view["ai_last_turn"]}
    assert view["observation"]["round"] == 2 and "round" in view["over"]
    record = client.get(f"/api/games/{view['id']}/record", headers=auth(token))
    assert record.status_code == 200 and record.json()["config"]["players"] == 4


def test_a_seat_the_game_does_not_have_is_refused(client):
    response = client.post("/api/games", json={"game": "crownfall", "human": 3, "options": {"players": 3},
                                               "ai": {"spec": "random"}})
    assert response.status_code == 422
    assert response.json()["detail"] == "human: seat 3 is not a seat of this Crownfall game (3 players: seats 0..2)"
    response = client.post("/api/games", json={"game": "crownfall", "human": 2, "ai": {"spec": "random"}})
    assert response.status_code == 422
    assert response.json()["detail"] == "human: seat 2 is not a seat of this Crownfall game (2 players: seats 0..1)"
    response = client.post("/api/games", json={"game": "crownfall", "human": 4})
    assert response.status_code == 422
