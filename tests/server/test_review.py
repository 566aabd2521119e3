"""Game review through the server (routes_review.py, docs/server.md "Game review"): a finished game
of each of the four games reviewed by its seat and by a spectator, the same review as `ftc review`
on the same budget and seed; refusals (an unfinished game, a wrong token, a game closed to
spectators); the limits (decisions per review, one review at a time per client, reviews at once);
the cache (asked again, nothing is searched); and hidden information (the review of each player is
the same whatever the cards hidden from that player were)."""

import random
import threading
import time

import pytest
from fastapi.testclient import TestClient

from engine.games import registry
from engine.games.records import _walk, record_points
from engine.games.review import LABELS, review_decision
from engine.interfaces.server import routes_review
from engine.interfaces.server.app import Limits, create_app
from tests.server.support import act, auth
from tests.server.test_game_analysis import seeded_record

#: Small budgets: a few iterations or one ply a decision, four decisions a review.
LIMITS = dict(requests_per_second=1e6, request_burst=10**6, review_iterations=16, review_depth=1, review_decisions=4)

#: A quick game of each game: the new game's body, and how it ends (the seat resigns after a few
#: decisions, or the game is played out).
GAMES = {
    "crown": ({"seed": 5, "supply": "first-game", "ai": {"bot": "greedy"}}, "resign"),
    "crusade": ({"game": "crusade", "ai": {"level": "easy"}}, "resign"),
    "kings-ransom": ({"variant": "kings-ransom", "ai": {"level": "easy"}}, "resign"),
    "crownfall": ({"game": "crownfall", "options": {"rounds": 1}, "ai": {"level": "easy"}}, "play"),
}


@pytest.fixture
def make_client(tmp_path):
    made = []

    def make(**limits):
        app = create_app(tmp_path / f"games{len(made)}.sqlite3", ai_pool="thread", limits=Limits(**{**LIMITS, **limits}))
        client = TestClient(app)
        client.__enter__()
        app.state.server.entropy = random.Random(5)      # the server's secrets fixed: a replayable test
        made.append(client)
        return client

    yield make
    for client in made:
        client.__exit__(None, None, None)


def new(client, body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    view = response.json()
    return view, view.pop("token")


def finished(client, name, seed=1):
    """A finished game of ``name`` through the API: (view, token)."""
    body, end = GAMES[name]
    view, token = new(client, body)
    rng = random.Random(seed)
    for _ in range(6 if end == "resign" else 5000):
        if view["status"] == "over":
            break
        view = act(client, view, token, rng.choice(view["actions"])["id"])
    if view["status"] != "over":
        response = client.post(f"/api/games/{view['id']}/resign", headers=auth(token))
        assert response.status_code == 200, response.text
        view = response.json()
    assert view["status"] == "over"
    return view, token


def reviewed(client, path, headers=None) -> dict:
    """Start the review at ``path`` and poll it until it is no longer running."""
    response = client.post(path, headers=headers or {})
    assert response.status_code in (200, 202), response.text
    for _ in range(6000):
        answer = response.json()
        if answer["status"] != "running":
            assert response.status_code == 200
            return answer
        assert response.status_code == 202
        time.sleep(0.02)
        response = client.get(path, headers=headers or {})
    raise AssertionError("the review did not end")


def review_tasks(client) -> int:
    return sum(1 for started in client.app.state.server.pool.started_log if started[2] == "review_task")


@pytest.mark.parametrize("name", list(GAMES))
def test_a_finished_game_is_reviewed_as_ftc_review_does(make_client, name):
    client = make_client()
    view, token = finished(client, name)
    path = f"/api/games/{view['id']}/review"
    answer = reviewed(client, path, auth(token))
    record = client.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()
    assert answer["status"] == "done" and answer["error"] is None and answer["complete"]
    assert answer["game"] == name and answer["players"] == list(range(len(view["players"])))
    assert answer["reviewed"] == answer["of"] == len(answer["decisions"]) == min(4, answer["of"] + answer["skipped"])
    assert answer["of"] >= 1
    settings = answer["settings"]
    assert settings["seed"] == 0 and (settings["iterations"] == 16 or settings["depth"] == 1)
    for entry in answer["decisions"]:          # each the command's review of that decision, field for field
        assert entry == review_decision(record, entry["decision"], settings)
        assert entry["label"] in LABELS and entry["line"] and entry["played"]
    for summary in answer["summary"]:
        mine = [e for e in answer["decisions"] if e["player"] == summary["player"]]
        assert summary["decisions"] == len(mine) == sum(summary["counts"].values())
        assert summary["seat"] == view["players"][summary["player"]]
    # Asked again (POST or GET): the same answer, and nothing searched again.
    searched = review_tasks(client)
    assert searched == answer["of"]
    again = client.post(path, headers=auth(token))
    assert again.status_code == 200 and again.json() == answer
    assert client.get(path, headers=auth(token)).json() == answer
    assert review_tasks(client) == searched


def test_the_decisions_past_the_limit_are_not_reviewed(make_client):
    client = make_client(review_decisions=2)
    view, token = finished(client, "crusade")
    answer = reviewed(client, f"/api/games/{view['id']}/review", auth(token))
    assert answer["reviewed"] == answer["of"] == 2 and answer["skipped"] >= 1
    assert [e["decision"] for e in answer["decisions"]] == [1, 2]
    assert review_tasks(client) == 2


def test_an_unfinished_game_or_a_wrong_token_is_refused(make_client):
    client = make_client()
    view, token = new(client, GAMES["crusade"][0])
    for method in ("post", "get"):
        for path, headers in ((f"/api/games/{view['id']}/review", auth(token)),
                              (f"/api/games/{view['id']}/watch/review", {})):
            response = getattr(client, method)(path, headers=headers)
            assert response.status_code == 409 and "not over" in response.json()["detail"], response.text
    assert client.post(f"/api/games/{view['id']}/review", headers=auth("x" * 43)).status_code == 404
    assert client.post(f"/api/games/{view['id']}/review").status_code == 401
    assert client.post("/api/games/nosuchgame/review", headers=auth(token)).status_code == 404
    assert client.app.state.server.reviews.jobs == {} and review_tasks(client) == 0
    over, other = finished(client, "crusade")
    # A finished game not yet reviewed: GET says so; another game's token is not this game's.
    assert client.get(f"/api/games/{over['id']}/review", headers=auth(other)).status_code == 404
    assert client.post(f"/api/games/{over['id']}/review", headers=auth(token)).status_code == 404


def test_a_spectator_reviews_a_game_open_to_spectators_only(make_client):
    client = make_client()
    view, token = finished(client, "kings-ransom")
    watched = reviewed(client, f"/api/games/{view['id']}/watch/review")
    assert watched["status"] == "done" and watched["reviewed"] >= 1
    assert client.get(f"/api/games/{view['id']}/review", headers=auth(token)).json() == watched   # one review
    closed = client.patch(f"/api/games/{view['id']}", json={"spectators": False}, headers=auth(token))
    assert closed.status_code == 200, closed.text
    for method in ("post", "get"):
        assert getattr(client, method)(f"/api/games/{view['id']}/watch/review").status_code == 404


@pytest.mark.parametrize("limits, words", [({}, "per client"),
                                           ({"reviews_per_client": 2, "reviews_at_once": 1}, "on this server")])
def test_one_review_at_a_time_per_client_and_a_few_on_the_server(make_client, monkeypatch, limits, words):
    client = make_client(**limits)
    first, first_token = finished(client, "crusade", seed=1)
    second, second_token = finished(client, "crusade", seed=2)
    release = threading.Event()

    def held(record, decision, settings, deadline):
        release.wait(60)
        return review_decision(record, decision, settings)

    monkeypatch.setattr(routes_review, "review_task", held)
    try:
        assert client.post(f"/api/games/{first['id']}/review", headers=auth(first_token)).status_code == 202
        refused = client.post(f"/api/games/{second['id']}/review", headers=auth(second_token))
        assert refused.status_code == 429 and words in refused.json()["detail"], refused.text
        # The running review is answered, not refused.
        assert client.post(f"/api/games/{first['id']}/review", headers=auth(first_token)).status_code == 202
    finally:
        release.set()
    assert reviewed(client, f"/api/games/{first['id']}/review", auth(first_token))["status"] == "done"
    assert reviewed(client, f"/api/games/{second['id']}/review", auth(second_token))["status"] == "done"


def test_a_failed_review_says_so_and_is_started_again(make_client, monkeypatch):
    client = make_client()
    view, token = finished(client, "crusade")

    def broken(record, decision, settings, deadline):
        raise RuntimeError("a worker's fault")

    monkeypatch.setattr(routes_review, "review_task", broken)
    answer = reviewed(client, f"/api/games/{view['id']}/review", auth(token))
    assert answer["status"] == "failed" and "a worker's fault" in answer["error"] and not answer["complete"]
    monkeypatch.undo()
    assert reviewed(client, f"/api/games/{view['id']}/review", auth(token))["status"] == "done"


# -- hidden information -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["crown", "kings-ransom"])
def test_each_players_review_is_the_same_whatever_was_hidden_from_that_player(make_client, monkeypatch, name):
    """As tests/server/test_hidden.py's resampling check. The rule: a game is reviewed only once it
    is over (before, every review path answers 409 and nothing is searched), when its record, every
    card in it, is served to its seats and spectators; and each player's decisions are searched from
    that player's view. So the server's review again, with every card hidden from the deciding
    player dealt otherwise at each decision (records._walk resampled), is the same answer, field for
    field: it depends on nothing a player could not see when deciding. (Planting the end check's
    removal fails this test; a leak of the real cards into the searched state mostly does not show
    here, since the information-set searches deal the hidden cards again from the deciding player's
    view in every iteration: tests/games/test_review.py checks the review's own reading.)"""
    client = make_client(review_decisions=12)
    view, token = new(client, GAMES[name][0])
    path = f"/api/games/{view['id']}/review"
    assert client.post(path, headers=auth(token)).status_code == 409
    assert client.app.state.server.reviews.jobs == {}
    view, token = finished(client, name, seed=7)
    path = f"/api/games/{view['id']}/review"
    real = reviewed(client, path, auth(token))
    changed = []

    def other_world(state, steps, resign, names, until=None):
        truth = _walk(state, steps, resign, names, until)
        if until is None or truth.current_player() < 0:
            return truth
        player = truth.current_player()
        world = truth.resample_hidden(player, random.Random(999))
        world.auto_chance = truth.auto_chance
        changed.append(any(world.information_key(p) != truth.information_key(p)
                           for p in range(truth.num_players) if p != player))
        return world

    monkeypatch.setattr("engine.games.records._walk", other_world)
    client.app.state.server.reviews.jobs.clear()            # the cache dropped: searched again
    again = reviewed(client, path, auth(token))
    assert any(changed), "the other worlds dealt no hidden card otherwise: the check would prove nothing"
    assert {e["player"] for e in real["decisions"]} == set(range(len(view["players"])))
    assert again == real


# -- a record loaded on the analysis board (POST /api/analysis/game-review) ---------------------------------
def loaded_review(client, key: str) -> dict:
    """Start the review of the loaded record ``key`` and ask again until it is no longer running."""
    for _ in range(6000):
        response = client.post("/api/analysis/game-review", json={"id": key})
        assert response.status_code in (200, 202), response.text
        if response.json()["status"] != "running":
            assert response.status_code == 200
            return response.json()
        time.sleep(0.02)
    raise AssertionError("the review did not end")


def load_record(client, record, player) -> str:
    response = client.post("/api/analysis/game-record", json={"record": record, "player": player})
    assert response.status_code == 200, response.text
    return response.json()["id"]


@pytest.mark.parametrize("name", ["crusade", "kings-ransom", "crownfall"])
def test_a_loaded_record_is_reviewed_for_its_seat_as_ftc_review_does(make_client, name):
    """An unfinished seeded record loaded as seat 1: its first four decisions of seat 1 reviewed, each
    the command's review of that decision on the server's budget and seed 0 (review_decision reads
    the game as seat 1 saw it), the rest counted as skipped; asked again, nothing is searched."""
    client = make_client()
    record = seeded_record(name, seed=5, decisions=16)
    assert not registry.for_record(record).replay(record).is_terminal()
    key = load_record(client, record, 1)
    answer = loaded_review(client, key)
    assert answer["status"] == "done" and answer["error"] is None and answer["record"] == "the loaded record"
    assert answer["players"] == [1] and [s["player"] for s in answer["summary"]] == [1]
    mine = [p.decision for p in record_points(record) if p.player == 1]
    assert [e["decision"] for e in answer["decisions"]] == mine[:4] and answer["skipped"] == len(mine) - 4
    settings = answer["settings"]
    assert settings["seed"] == 0 and (settings["iterations"] == 16 or settings["depth"] == 1)
    for entry in answer["decisions"]:
        assert entry == review_decision(record, entry["decision"], settings)
    assert review_tasks(client) == 4
    assert loaded_review(client, key) == answer and review_tasks(client) == 4
    kept = client.app.state.server.reviews.jobs.values()
    assert all(job.record is None and job.units == [] for job in kept)     # the answer kept, not the record
    as_seat_0 = loaded_review(client, load_record(client, record, 0))
    assert as_seat_0["players"] == [0] and {e["player"] for e in as_seat_0["decisions"]} == {0}


def test_loaded_reviews_keep_the_limits_and_refuse_bad_ids(make_client, monkeypatch):
    client = make_client()
    first = load_record(client, seeded_record("crusade", seed=1, decisions=8), 0)
    second = load_record(client, seeded_record("crusade", seed=2, decisions=8), 0)
    for body in ({"id": "nope"}, {"id": 5}, {"id": first, "player": 1}, []):
        answer = client.post("/api/analysis/game-review", json=body)
        assert answer.status_code == 422 and ("field 'id'" in answer.text or "expected" in answer.text), answer.text
    release = threading.Event()

    def held(record, decision, settings, deadline):
        release.wait(60)
        return review_decision(record, decision, settings)

    monkeypatch.setattr(routes_review, "review_task", held)
    try:
        assert client.post("/api/analysis/game-review", json={"id": first}).status_code == 202
        refused = client.post("/api/analysis/game-review", json={"id": second})
        assert refused.status_code == 429 and "per client" in refused.json()["detail"], refused.text
        assert client.post("/api/analysis/game-review", json={"id": first}).status_code == 202
    finally:
        release.set()
    assert loaded_review(client, first)["status"] == "done"
    assert loaded_review(client, second)["status"] == "done"
