"""The analysis board's record board (engine/interfaces/server/game_analysis.py) for the games other
than For the Crown's position board: a seeded record loaded as one seat, stepped through, a point
analysed over the socket with the game's own analysis; hidden cards of the other seat never in an
answer; bad input answered with a message naming the field."""

from __future__ import annotations

import json
import random

import pytest
from fastapi.testclient import TestClient

from engine.crownfall.position import write_position
from engine.games import registry
from engine.games.records import log_for, record_points, state_before
from engine.games.view import game_view, generic_step, named, web_piece
from engine.interfaces.server.app import Limits, create_app

RECORD_GAMES = ("crusade", "crownfall", "kings-ransom")


def seeded_record(name: str, seed: int = 5, decisions: int = 24) -> dict:
    """A record of ``name``: ``decisions`` random legal decisions (or fewer, at the game's end) from
    its default start, seeded."""
    game = registry.get(name)
    state = game.start({"seed": seed} if name != "crusade" else None)
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state.record()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(tmp_path_factory.mktemp("ga") / "g.sqlite3", ai_pool="thread",
                     limits=Limits(analysis_record_burst=1000, analysis_records_per_minute=60_000.0,
                                   requests_per_second=1000.0, request_burst=1000))
    with TestClient(app) as client:
        yield client


def load(client, record, player=0, **extra):
    return client.post("/api/analysis/game-record", json={"record": record, "player": player, **extra})


def analyse(client, key, decision, seconds=0.3, top=3):
    with client.websocket_connect("/api/analysis/game-ws") as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_json({"type": "analyze", "id": key, "decision": decision, "seconds": seconds, "top": top})
        started = ws.receive_json()
        assert started["type"] == "started" and started["decision"] == decision
        done = ws.receive_json()
        assert done["type"] == "done", done
        return done


@pytest.mark.parametrize("name", RECORD_GAMES)
def test_a_record_is_loaded_stepped_and_analysed(client, name):
    record = seeded_record(name)
    answer = load(client, record, game=name)
    assert answer.status_code == 200, answer.text
    loaded = answer.json()
    points = record_points(record)
    assert loaded["game"] == registry.get(name).name and len(loaded["points"]) == len(points)
    assert [p["player"] for p in loaded["points"]] == [p.player for p in points]
    assert all(p["text"] for p in loaded["points"])
    # Step: the view before decision 3 is the game's own view for seat 0, drawn by its board module.
    view = client.post("/api/analysis/game-point", json={"id": loaded["id"], "decision": 3}).json()
    assert view["view"]["game"] == loaded["game"] and view["view"]["module"] == loaded["module"]
    assert view["to_move"] == points[2].player and len(view["view"]["log"]) == 2
    end = client.post("/api/analysis/game-point", json={"id": loaded["id"], "decision": len(points) + 1}).json()
    assert end["to_move"] is None
    # Analyse a decision of seat 0: the best choices, ranked, with values.
    mine = next(p.decision for p in points if p.player == 0)
    done = analyse(client, loaded["id"], mine)
    assert done["choices"] and all(isinstance(c["value"], (int, float)) and c["text"] for c in done["choices"])
    assert len(done["choices"]) <= 3


def test_crusade_choices_carry_arrows_and_the_record_an_evaluation_graph(client):
    record = seeded_record("crusade", decisions=12)
    loaded = load(client, record).json()
    assert loaded["mark"] == "square" and len(loaded["graph"]) == 12
    assert all(isinstance(g["value"], (int, float)) for g in loaded["graph"])
    done = analyse(client, loaded["id"], 1)
    best = done["choices"][0]
    assert best["arrow"] == [best["text"][:2], best["text"][2:4]] and best["line"][0] == best["text"]
    assert isinstance(done["value"], (int, float))


def test_crownfall_choices_name_their_regions(client):
    record = seeded_record("crownfall", decisions=30)
    loaded = load(client, record).json()
    assert loaded["mark"] == "region"
    decision = next(p["decision"] for p in loaded["points"] if p["player"] == 0 and "March" in p["text"]
                    or p["player"] == 0 and "Banner" in p["text"])
    done = analyse(client, loaded["id"], decision, seconds=0.5)
    assert any(c["highlight"] for c in done["choices"])


@pytest.mark.parametrize("name", ("kings-ransom", "crownfall"))
def test_the_other_seats_hidden_cards_never_appear(client, name):
    """Loaded as seat 0, the decisions are the texts seat 0 saw (the game's own step for seat 0, where
    its hidden choices redacted) and each point's view is the game's
    view for seat 0 (which differs from seat 1's), never seat 1's."""
    record = seeded_record(name, seed=11, decisions=30)
    game = registry.get(name)
    step = web_piece(game, "step") or generic_step
    as_seat = {seat: [e["text"] for e in log_for(record, seat, step)] for seat in (0, 1)}
    loaded = load(client, record, player=0).json()
    assert [p["text"] for p in loaded["points"]] == as_seat[0]
    points = record_points(record)
    differ = 0
    for point in points[::3]:
        shown = client.post("/api/analysis/game-point", json={"id": loaded["id"], "decision": point.decision}).json()
        views = {seat: json.loads(json.dumps(game_view(game, "analysis", point.decision, state_before(record, point),
                                                       seat, True, [], []))) for seat in (0, 1)}
        assert {k: v for k, v in shown["view"].items() if k != "log"} == {k: v for k, v in views[0].items()
                                                                         if k != "log"}
        differ += views[0] != views[1]
    assert differ
    done = analyse(client, loaded["id"], next(p.decision for p in points if p.player == 1), seconds=0.2)
    assert done["choices"]


@pytest.mark.parametrize("body, field", [
    ({"record": {"format": "nothing"}, "player": 0}, "field 'record'"),
    ({"record": None, "player": 0}, "field 'record'"),
    ({"player": 0}, "expected"),
])
def test_bad_loads_name_the_field(client, body, field):
    answer = client.post("/api/analysis/game-record", json=body)
    assert answer.status_code == 422 and field in answer.json()["detail"]


def test_bad_seat_decision_and_messages_name_the_field(client):
    record = seeded_record("kings-ransom")
    assert field_of(load(client, record, player=2)) .startswith("field 'player'")
    assert field_of(load(client, record, player=True)).startswith("field 'player'")
    assert field_of(load(client, record, game="crusade")).startswith("field 'record'")
    key = load(client, record).json()["id"]
    assert field_of(client.post("/api/analysis/game-point", json={"id": key, "decision": 0})).startswith(
        "field 'decision'")
    assert field_of(client.post("/api/analysis/game-point", json={"id": "nope", "decision": 1})).startswith(
        "field 'id'")
    with client.websocket_connect("/api/analysis/game-ws") as ws:
        ws.receive_json()
        for message, field in [({"type": "go"}, "field 'type'"),
                               ({"type": "analyze", "id": key, "decision": 1, "seconds": 1e9}, "field 'seconds'"),
                               ({"type": "analyze", "id": key, "decision": 1, "top": 99}, "field 'top'"),
                               ({"type": "analyze", "id": key, "decision": 10_000}, "field 'decision'"),
                               ({"type": "analyze", "id": "x", "decision": 1}, "field 'id'")]:
            ws.send_json(message)
            error = ws.receive_json()
            assert error["type"] == "error" and error["error"].startswith(field), error


def test_stop_ends_an_analysis_without_an_answer(client):
    key = load(client, seeded_record("kings-ransom")).json()["id"]
    with client.websocket_connect("/api/analysis/game-ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "analyze", "id": key, "decision": 1, "seconds": 20})
        assert ws.receive_json()["type"] == "started"
        ws.send_json({"type": "stop"})
        assert ws.receive_json()["type"] == "stopped"
        ws.send_json({"type": "analyze", "id": key, "decision": 2, "seconds": 0.2})
        assert ws.receive_json()["type"] == "started"
        assert ws.receive_json()["type"] == "done"


def test_the_page_of_each_game(client):
    assert "game-analysis.js" in client.get("/analysis?game=crusade").text
    assert "game-analysis.js" in client.get("/analysis?game=kings-ransom").text
    assert "/static/analysis.js" in client.get("/analysis?game=crown").text
    assert "/static/analysis.js" in client.get("/analysis").text
    answer = client.get("/analysis?game=chess")
    assert answer.status_code == 404 and "query 'game'" in answer.json()["detail"]
    names = {g["name"]: g for g in client.get("/api/analysis/games").json()}
    assert names["crusade"]["page"] == "record" and names["crown"]["page"] == "board"


def field_of(answer) -> str:
    assert answer.status_code == 422, answer.text
    return answer.json()["detail"]


# -- a pasted position (POST /api/analysis/game-position) ------------------------------------------------
def position_text(name: str) -> str:
    """A position text of ``name`` as its own writer gives it: Crusade & Conquer's and Crownfall's
    after a few seeded decisions, King's Ransom's start written out in full."""
    if name == "kings-ransom":
        return registry.get(name).positions.position("startpos")
    game = registry.get(name)
    state = game.start({"seed": 5} if name != "crusade" else None)
    rng = random.Random(5)
    for _ in range(6 if name == "crusade" else 10):
        state.apply(rng.choice(state.legal_actions()))
    if name == "crusade":
        return state.pos.text()
    return json.dumps(write_position(state))


def paste(client, name, text, **extra):
    return client.post("/api/analysis/game-position", json={"game": name, "text": text, **extra})


@pytest.mark.parametrize("name", RECORD_GAMES)
def test_a_pasted_position_is_loaded_shown_and_analysed(client, name):
    games = {g["name"]: g for g in client.get("/api/analysis/games").json()}
    assert games[name]["position"] is True and games[name]["position_hint"]
    assert games["crown"]["position"] is False            # its own board reads positions (analysis.html)
    text = position_text(name)
    answer = paste(client, name, text)
    assert answer.status_code == 200, answer.text
    loaded = answer.json()
    assert loaded["position"] is True and loaded["decisions"] == 1 and loaded["last"] == 1
    assert loaded["review"] is False and loaded["graph"] == [] and len(loaded["points"]) == 1
    state = named(registry.get(name).web.analysis)()["read_state"](text)
    assert loaded["player"] == state.current_player() == loaded["points"][0]["player"]
    shown = client.post("/api/analysis/game-point", json={"id": loaded["id"], "decision": 1}).json()
    assert shown["view"]["game"] == registry.get(name).name and shown["to_move"] == state.current_player()
    assert field_of(client.post("/api/analysis/game-point", json={"id": loaded["id"], "decision": 2})).startswith(
        "field 'decision'")
    done = analyse(client, loaded["id"], 1)
    assert done["choices"] and all(c["text"] and isinstance(c["value"], (int, float)) for c in done["choices"])
    if name != "kings-ransom":                # its choices are a turn's first steps, not whole actions
        assert {c["text"] for c in done["choices"]} <= {state.action_text(a) for a in state.legal_actions()}
    with client.websocket_connect("/api/analysis/game-ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "analyze", "id": loaded["id"], "decision": 2})
        assert ws.receive_json()["error"].startswith("field 'decision'")


def test_a_pasted_crusade_position_has_arrows_and_a_chosen_seat(client):
    text = position_text("crusade")
    loaded = paste(client, "crusade", text, player=1).json()
    assert loaded["player"] == 1 and loaded["points"][0]["player"] == 0
    best = analyse(client, loaded["id"], 1)["choices"][0]
    assert best["arrow"] == [best["text"][:2], best["text"][2:4]]


@pytest.mark.parametrize("name, text, words", [
    ("crusade", "rnbqkbnr/8/8/8/8/8/8/RNBQKBNR x - 0 1", "side to move"),
    ("crusade", "garbage", "fields"),
    ("kings-ransom", "n*kb*/1p*1 r", "expected 7 fields"),
    ("crownfall", "{\"game\": \"crownfall\", \"players\": []}", "players"),
    ("crownfall", "{not json", "not JSON"),
    ("crownfall", "[1,\n2]", "expected a JSON object"),
])
def test_a_bad_position_text_is_a_one_line_422_naming_the_problem(client, name, text, words):
    detail = field_of(paste(client, name, text))
    assert detail.startswith("field 'text'") and words in detail and "\n" not in detail and "Traceback" not in detail


@pytest.mark.parametrize("body, field", [
    ({"game": "crusade", "text": "x" * 20_000}, "field 'text'"),
    ({"game": "crusade", "text": 5}, "field 'text'"),
    ({"game": "crusade", "text": "  "}, "field 'text'"),
    ({"game": "chess", "text": "startpos"}, "field 'game'"),
    ({"game": "crown", "text": "startpos"}, "field 'game'"),
    ({"game": "crusade", "text": "startpos", "player": 2}, "field 'player'"),
    ({"game": "crusade", "text": "startpos", "player": True}, "field 'player'"),
    ({"game": "crusade", "text": "startpos", "seconds": 1}, "expected"),
    ({"text": "startpos"}, "expected"),
    ([], "expected"),
])
def test_bad_position_requests_name_the_field(client, body, field):
    assert field_of(client.post("/api/analysis/game-position", json=body)).startswith(field)


def test_a_position_has_no_review(client):
    loaded = paste(client, "crusade", "startpos").json()
    answer = client.post("/api/analysis/game-review", json={"id": loaded["id"]})
    assert answer.status_code == 409 and "a position" in answer.json()["detail"]


def test_a_for_the_crown_record_is_sent_to_its_own_board(client):
    """For the Crown analyses on its own board (analysis.html): its record given to the record board
    is answered with that board's address, from the registry (its analysis pieces' page)."""
    state = registry.get("crown").start({"seed": 3})
    rng = random.Random(3)
    for _ in range(4):
        state.apply(rng.choice(state.legal_actions()))
    detail = field_of(load(client, state.record()))
    assert detail == "field 'record': For the Crown records are analysed on its own board, /analysis?game=crown"
    assert field_of(paste(client, "crown", "startpos")) == detail.replace("'record'", "'game'")


def test_pasted_positions_keep_the_records_rate_and_a_size_limit(tmp_path):
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread",
                     limits=Limits(analysis_record_burst=2, analysis_records_per_minute=0.5,
                                   requests_per_second=1000.0, request_burst=1000))
    with TestClient(app) as client:
        assert paste(client, "crusade", "startpos").status_code == 200
        assert client.post("/api/analysis/game-record", json={"record": seeded_record("crusade")}).status_code == 200
        refused = paste(client, "crusade", "startpos")
        assert refused.status_code == 429 and refused.headers.get("retry-after"), refused.text
    with TestClient(create_app(tmp_path / "h.sqlite3", ai_pool="thread")) as client:
        assert paste(client, "crusade", "x" * 70_000).status_code == 413


def test_one_clients_loads_push_out_its_own_not_anothers():
    """A client keeps MAX_LOADED_PER_CLIENT loads (its oldest dropped first); at MAX_LOADED in all,
    the client holding the most loses its oldest: a client flooding the board with uploads never
    drops the record another client is analysing."""
    from engine.interfaces.server.game_analysis import MAX_LOADED, MAX_LOADED_PER_CLIENT, GameAnalysis

    class Service:
        limits = Limits()

    board = GameAnalysis(Service())
    record = seeded_record("crusade", decisions=2)
    theirs = board.load({"record": record}, client="10.0.0.2")["id"]
    mine = [board.load({"record": record}, client="10.0.0.1")["id"] for _ in range(MAX_LOADED_PER_CLIENT + 3)]
    assert theirs in board.loaded
    assert [key for key in mine if key in board.loaded] == mine[-MAX_LOADED_PER_CLIENT:]
    # Many clients at their share fill the board: the next load drops the oldest of a fullest client.
    for n in range(MAX_LOADED):
        board.load({"record": record}, client=f"10.1.{n // MAX_LOADED_PER_CLIENT}.0")
    assert len(board.loaded) == MAX_LOADED and theirs in board.loaded
