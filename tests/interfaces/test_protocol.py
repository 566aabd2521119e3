"""`ftc engine`: the JSON-lines protocol (engine/interfaces/protocol.py, docs/protocol.md).

Every command through Session.handle, the error cases (each error names the field and the line, and
leaves the state as it was), the stdio loop and the real subprocess, and a bounded hypothesis fuzz
of the input: every line gets one valid JSON response and the session stays usable."""

import io
import json
import random
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.crown.record import fingerprint
from engine.interfaces.protocol import (
    COMMANDS,
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Limits,
    Session,
    run,
)
from engine.ransom.state import RansomState
from tests.support import FTC, ROOT, child_env

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
GAME = {"seed": 7, "supply": "first-game"}


def ask(session: Session, request) -> dict:
    """One request (a dict, or a raw line) through the session; the response must be one JSON line."""
    line = request if isinstance(request, (str, bytes)) else json.dumps(request)
    out = session.handle(line)
    assert isinstance(out, str) and "\n" not in out
    response = json.loads(out)
    assert response["ok"] in (True, False)
    return response


def ok(session: Session, request) -> dict:
    response = ask(session, request)
    assert response["ok"] is True, response
    return response


def fail(session: Session, request, *words: str) -> dict:
    """The request must fail with an error naming every one of ``words``, the line number, and the
    state unchanged."""
    before = snapshot(session)
    response = ask(session, request)
    assert response["ok"] is False, response
    assert response["line"] == session.line
    for word in words:
        assert word in response["error"], (word, response)
    assert "internal error" not in response["error"]
    assert snapshot(session) == before
    return response


def snapshot(session: Session):
    if session.mode == "game":
        g = session.game
        return "game", g.fingerprint() if isinstance(g, RansomState) else fingerprint(g), len(g.history)
    if session.mode == "position":
        return "position", session.position.to_text()
    return None


def position_session(text: str = "startpos") -> Session:
    session = Session()
    ok(session, {"cmd": "position", "text": text})
    return session


def game_session(**config) -> Session:
    session = Session()
    ok(session, {"cmd": "new", "config": config or GAME})
    return session


def play_out(session: Session) -> int:
    """Play the first legal action until the game ends (with a small max_turns it ends quickly)."""
    steps = 0
    while True:
        actions = ok(session, {"cmd": "actions"})["actions"]
        if not actions:
            return steps
        ok(session, {"cmd": "apply", "action": actions[-1]["action"]})
        steps += 1


# -- commands ------------------------------------------------------------------------------------
def test_hello_names_engine_version_protocol_and_commands():
    r = ok(Session(), {"id": "h", "cmd": "hello"})
    assert r["id"] == "h" and r["name"] == "ftc-engine" and r["protocol"] == PROTOCOL_VERSION == 2
    assert set(r["commands"]) == set(COMMANDS) and r["version"]


def test_ids_are_echoed_whatever_json_they_are():
    session = Session()
    for request_id in (1, "x", None, [1, {"a": 2}], {"n": 1.5}, -3, True):
        assert ok(session, {"id": request_id, "cmd": "hello"})["id"] == request_id
    assert ok(session, {"cmd": "hello"})["id"] is None
    assert fail(session, {"id": [7], "cmd": "nope"}, "nope")["id"] == [7]


def test_position_mode_state_actions_apply():
    session = Session()
    r = ok(session, {"cmd": "position", "text": "startpos"})
    assert r["mode"] == "position" and r["position"] == START and r["side"] == "w" and r["over"] is False
    state = ok(session, {"cmd": "state"})
    assert state["position"] == START and len(state["orders"]) == 20
    assert ok(session, {"cmd": "observe"})["orders"] == state["orders"]
    actions = ok(session, {"cmd": "actions"})
    assert actions["side"] == "w" and "e2e4" in actions["orders"] and len(actions["orders"]) == 20
    r = ok(session, {"cmd": "apply", "action": "e2e4"})
    assert r["applied"] == {"order": "e2e4", "side": "w"} and r["side"] == "b"
    assert r["position"] == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 1 1"


def test_position_promote_and_named_positions():
    session = Session()
    r = ok(session, {"cmd": "position", "text": "4k3/P7/8/8/8/8/8/K7 w - - 0 1", "promote": "NQ"})
    promotions = {o for o in ok(session, {"cmd": "actions"})["orders"] if o.startswith("a7a8")}
    assert promotions == {"a7a8n", "a7a8q"} and "promote:" in r["position"]
    assert ok(session, {"cmd": "position", "text": "crown"})["position"] == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_perft_counts_divides_and_caps_depth():
    session = position_session()
    assert ok(session, {"cmd": "perft", "depth": 0})["nodes"] == 1
    assert ok(session, {"cmd": "perft", "depth": 3})["nodes"] == 8902
    r = ok(session, {"cmd": "perft", "depth": 2, "divide": True})
    assert r["nodes"] == 400 and len(r["divide"]) == 20 and set(r["divide"].values()) == {20}
    fail(session, {"cmd": "perft", "depth": 8}, "'depth'", "8", "limit of 7")
    fail(session, {"cmd": "perft", "depth": -1}, "'depth'", ">= 0")
    fail(session, {"cmd": "perft"}, "missing field 'depth'")


def test_position_search_and_analyze():
    # White to move takes the undefended Queen (a forced gain the shallowest search sees).
    session = position_session("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
    r = ok(session, {"cmd": "search", "depth": 2})
    assert r["best"] == "d1d5" and r["pv"][0] == "d1d5" and r["score"] > 0 and r["depth"] == 2 and r["nodes"] > 0
    r = ok(session, {"cmd": "search", "depth": 2, "top": 2})
    assert len(r["lines"]) == 2 and r["lines"][0]["order"] == "d1d5"
    assert ok(session, {"cmd": "search", "nodes": 500})["best"] == "d1d5"
    assert ok(session, {"cmd": "search", "seconds": 0.05})["best"] is not None
    report = ok(session, {"cmd": "analyze", "depth": 2, "top": 2})["analysis"]
    assert report["lines"][0]["order"] == "d1d5" and len(report["lines"]) == 2 and report["side"] == "w"
    assert snapshot(session) == ("position", "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")   # searching changed nothing


def test_game_new_actions_apply_by_id_and_text():
    session = Session()
    r = ok(session, {"cmd": "new", "config": GAME})
    assert r["mode"] == "game" and r["to_move"] == 0 and r["over"] is False and r["phase"] == "order"
    actions = ok(session, {"cmd": "actions"})
    assert actions["to_move"] == 0 and actions["prompt"]
    texts = {a["action"]: a["text"] for a in actions["actions"]}
    assert "end order phase" in texts.values() and "e1e2" in texts.values()
    order = next(a for a, t in texts.items() if t == "e1e2")
    r = ok(session, {"cmd": "apply", "action": order, "player": 0})
    assert r["applied"] == {"action": order, "text": "e1e2", "player": 0} and r["phase"] == "action"
    end = next(a["text"] for a in ok(session, {"cmd": "actions"})["actions"] if a["text"].startswith("end"))
    assert ok(session, {"cmd": "apply", "action": end})["applied"]["text"] == end
    assert session.game.history[-1][1] != order


@pytest.mark.parametrize("config", [
    {"variant": "point-buy", "start_position": "4k3/P7/8/8/8/8/8/4K3[N] w", "seed": 1},   # promotions, deploys
    {"seed": 3, "supply": "first-game"},                                                    # orders and cards
])
def test_every_action_text_applies_the_first_action_reading_so(config):
    session = game_session(**config)
    rng = random.Random(4)
    applied = []
    for _ in range(60):
        actions = ok(session, {"cmd": "actions"})["actions"]
        text = rng.choice(actions)["text"]
        first = next(a["action"] for a in actions if a["text"] == text)
        assert ok(session, {"cmd": "apply", "action": text})["applied"]["action"] == first
        applied.append(text)
    fail(session, {"cmd": "apply", "action": "a1h8"}, "no legal action reads", "a1h8")
    if config["seed"] == 1:
        assert any("@" in t for t in applied) and any(len(t) == 5 and t.isalnum() for t in applied)
    else:
        assert any(t.startswith("play ") for t in applied) and any(t.startswith("buy ") for t in applied)


def test_new_game_variants_and_named_start_position():
    session = Session()
    r = ok(session, {"cmd": "new", "config": {"variant": "point-buy", "start_position": "startpos"}})
    assert r["mode"] == "game"
    assert "e2e4" in {a["text"] for a in ok(session, {"cmd": "actions"})["actions"]}
    ok(session, {"cmd": "new", "config": {"variant": "last-stand", "seed": 2}})
    ok(session, {"cmd": "new"})            # every option at its default


def test_observe_shows_only_what_the_player_may_know():
    session = game_session()
    mine = ok(session, {"cmd": "observe", "player": 0})
    theirs = ok(session, {"cmd": "state", "player": 1})
    assert mine["player"] == 0 and mine["observation"]["you"]["hand"]
    assert "actions" in mine["observation"]["decision"]
    obs = theirs["observation"]
    assert theirs["player"] == 1 and obs["decision"] == {"player": 0}
    assert "hand" not in obs["opponent"] and obs["opponent"]["hand_size"] == 5
    assert ok(session, {"cmd": "state"})["player"] == 0          # default: the player to decide
    fail(session, {"cmd": "actions", "player": 1}, "'player'", "not to decide")


def test_game_search_returns_best_action_of_the_searching_player():
    session = game_session()
    legal = {a["action"]: a["text"] for a in ok(session, {"cmd": "actions"})["actions"]}
    before = snapshot(session)
    r = ok(session, {"cmd": "search", "iterations": 12, "seed": 1, "top": 3})
    assert r["player"] == 0 and r["best"] in legal and r["text"] == legal[r["best"]]
    assert -1.0 <= r["value"] <= 1.0
    # Who decided: the planner's line of the turn ("plan"; also "win", "prior"), else the tree.
    assert r["source"] in ("plan", "win", "prior", "search")
    assert r["iterations"] == (12 if r["source"] == "search" else 0)
    assert 1 <= len(r["top"]) <= 3 and all(item["action"] in legal for item in r["top"])
    assert "plan" not in r
    again = ok(session, {"cmd": "search", "iterations": 12, "seed": 1})
    assert again["best"] == r["best"] and "top" not in again              # seeded: reproducible
    planned = ok(session, {"cmd": "search", "iterations": 8, "plan": True})
    assert planned["plan"] and planned["plan"][0]["action"] in legal
    timed = ok(session, {"cmd": "search", "seconds": 0.05})
    assert timed["best"] in legal and timed["seconds"] < 2
    assert snapshot(session) == before


def test_game_analyze():
    session = game_session()
    report = ok(session, {"cmd": "analyze", "iterations": 10, "top": 2})["analysis"]
    assert report["player"] == 0 and len(report["top"]) <= 2 and report["plan"]
    legal = {a["action"] for a in ok(session, {"cmd": "actions"})["actions"]}
    assert report["top"][0]["action"] in legal


def test_record_refused_until_the_end_unless_full_and_load_round_trips():
    session = game_session(seed=3, max_turns=4)
    fail(session, {"cmd": "record"}, "not over", "hidden", "full")
    partial = ok(session, {"cmd": "record", "full": True})["record"]
    assert partial["format"] == "ftc-game-record" and partial["result"]["over"] is None
    assert play_out(session) > 0
    r = ok(session, {"cmd": "state"})
    assert r["over"] is True and r["to_move"] is None and r["reason"] and r["returns"] == [0.0, 0.0]
    record = ok(session, {"cmd": "record"})["record"]
    assert ok(session, {"cmd": "actions"})["actions"] == []
    fail(session, {"cmd": "apply", "action": 0}, "game is over")
    fail(session, {"cmd": "search"}, "game is over")
    other = Session()
    assert ok(other, {"cmd": "load", "record": record})["over"] is True
    assert fingerprint(other.game) == fingerprint(session.game)
    # A record of an unfinished game loads and goes on.
    resumed = Session()
    assert ok(resumed, {"cmd": "load", "record": partial})["over"] is False
    assert ok(resumed, {"cmd": "actions"})["actions"]


def test_bad_records_are_named_and_change_nothing():
    session = game_session()
    record = ok(session, {"cmd": "record", "full": True})["record"]
    fail(session, {"cmd": "load", "record": dict(record, steps=record["steps"] + [[0, 12345]])}, "'record'", "step")
    fail(session, {"cmd": "load", "record": dict(record, format="x")}, "'record'", "format")
    fail(session, {"cmd": "load", "record": dict(record, config=dict(record["config"], seed="7"))}, "record.config.seed")
    fail(session, {"cmd": "load", "record": [1, 2]}, "'record'", "object")
    fail(session, {"cmd": "load"}, "missing field 'record'")


def test_quit_ends_the_session():
    session = Session()
    assert ok(session, {"cmd": "quit"})["bye"] is True and session.finished


# -- errors -------------------------------------------------------------------------------------------
def test_malformed_lines_are_reported_with_line_numbers():
    session = Session()
    r = fail(session, '{"cmd": "hello"', "invalid JSON", "column")
    assert r["line"] == 1 and r["id"] is None
    assert fail(session, "hello", "invalid JSON")["line"] == 2
    fail(session, "[1, 2]", "expected a JSON object", "array")
    fail(session, '"hello"', "expected a JSON object", "string")
    fail(session, "", "empty line")
    fail(session, '{"cmd": "hello", "id": NaN}', "NaN")
    fail(session, '{"cmd": "hello", "id": 1e999}', "out of range")
    fail(session, '{"id": ' + "[" * 100000 + "]" * 100000 + "}", "nested too deeply")
    fail(session, b'{"cmd": "hel\xfflo"}', "UTF-8", "byte 13")
    assert ok(session, {"cmd": "hello"})      # still serving
    assert session.line == 10


def test_unknown_commands_and_fields_are_named():
    session = Session()
    fail(session, {"id": 1}, "missing field 'cmd'")
    fail(session, {"cmd": "go"}, "unknown command 'go'", "hello")
    fail(session, {"cmd": 5}, "'cmd'", "integer 5")
    fail(session, {"cmd": "hello", "depth": 3}, "field 'depth'", "'hello'")
    fail(session, {"cmd": "state"}, "no state yet")
    fail(session, {"cmd": "new", "config": {"sed": 1}}, "unknown option 'sed'", "seed")
    fail(session, {"cmd": "new", "config": {"seed": "7"}}, "config.seed", "integer", '"7"')
    fail(session, {"cmd": "new", "config": {"variant": "chess"}}, "'config.variant'", "standard", '"chess"')
    fail(session, {"cmd": "new", "config": {"supply": ["Nope"]}}, "'config.supply[0]'", "unknown card 'Nope'")
    fail(session, {"cmd": "new", "config": {"extra_turns": [1.5, 0]}}, "'config.extra_turns[0]'", "0..10", "1.5")
    fail(session, {"cmd": "new", "config": {"extra_units": [["Q@e1"], []]}}, "'config.extra_units[0][0]'", "occupied")
    fail(session, {"cmd": "new", "config": [1]}, "'config'", "object")
    fail(session, {"cmd": "position", "text": "8/8/8/8/8/8/8/9 w"}, "'text'", "rank 1", "character")
    fail(session, {"cmd": "position", "text": 3}, "'text'", "integer 3")
    fail(session, {"cmd": "position"}, "missing field 'text'")
    fail(session, {"cmd": "position", "text": "startpos", "promote": "Q!"}, "'promote'")


def test_mode_mismatches_are_named():
    position = position_session()
    fail(position, {"cmd": "record"}, "game mode", "position mode")
    fail(position, {"cmd": "search", "iterations": 10}, "'iterations'", "position mode")
    fail(position, {"cmd": "state", "player": 0}, "'player'")
    game = game_session()
    fail(game, {"cmd": "perft", "depth": 1}, "position mode", "game mode")
    fail(game, {"cmd": "search", "depth": 3}, "'depth'", "game mode")


@pytest.mark.parametrize("request_, words", [
    ({"cmd": "perft", "depth": "3"}, ("'depth'", "integer", 'string "3"')),
    ({"cmd": "perft", "depth": 2.0}, ("'depth'", "integer")),
    ({"cmd": "perft", "depth": True}, ("'depth'", "boolean")),
    ({"cmd": "perft", "depth": 2, "divide": "yes"}, ("'divide'", "true or false")),
    ({"cmd": "search", "depth": 0}, ("'depth'", ">= 1")),
    ({"cmd": "search", "depth": 61}, ("'depth'", "61", "limit")),
    ({"cmd": "search", "seconds": -1}, ("'seconds'", "positive")),
    ({"cmd": "search", "seconds": "fast"}, ("'seconds'", "number")),
    ({"cmd": "search", "nodes": 0}, ("'nodes'", ">= 1")),
    ({"cmd": "search", "top": 0}, ("'top'", ">= 1")),
    ({"cmd": "apply", "action": "e2e5"}, ("'action'", "e2e5", "cannot reach")),
    ({"cmd": "apply", "action": "zz"}, ("'action'", "zz")),
    ({"cmd": "apply", "action": 12}, ("'action'", "order text")),
    ({"cmd": "apply"}, ("missing field 'action'",)),
])
def test_bad_fields_in_position_mode(request_, words):
    fail(position_session(), request_, *words)


@pytest.mark.parametrize("request_, words", [
    ({"cmd": "apply", "action": 999999}, ("'action'", "999999", "not a legal action")),
    ({"cmd": "apply", "action": "fly away"}, ("'action'", "fly away")),
    ({"cmd": "apply", "action": 1.5}, ("'action'", "number 1.5")),
    ({"cmd": "apply", "action": True}, ("'action'", "boolean")),
    ({"cmd": "apply", "action": None}, ("'action'", "null")),
    ({"cmd": "apply", "action": "e1e2", "player": 1}, ("'player'", "not to decide")),
    ({"cmd": "observe", "player": 2}, ("'player'", "0 (Blue) or 1 (Yellow)")),
    ({"cmd": "search", "iterations": 0}, ("'iterations'", ">= 1")),
    ({"cmd": "search", "iterations": 10, "seed": "s"}, ("'seed'", "integer")),
    ({"cmd": "search", "iterations": 10, "plan": 1}, ("'plan'", "true or false")),
    ({"cmd": "search", "processes": 0}, ("'processes'", ">= 1")),
    ({"cmd": "analyze", "top": 0}, ("'top'", ">= 1")),
    ({"cmd": "record", "full": "yes"}, ("'full'", "true or false")),
])
def test_bad_fields_in_game_mode(request_, words):
    fail(game_session(), request_, *words)


def test_host_limits_bound_every_budget():
    session = Session(Limits(max_iterations=5, max_seconds=0.5, max_depth=3, max_nodes=100, max_perft_depth=2))
    ok(session, {"cmd": "new", "config": GAME})
    fail(session, {"cmd": "search", "iterations": 6}, "'iterations'", "6", "limit of 5")
    fail(session, {"cmd": "search", "seconds": 2}, "'seconds'", "limit of 0.5")
    capped = ok(session, {"cmd": "search"})                         # the default is capped, not refused
    assert capped["iterations"] == (5 if capped["source"] == "search" else 0)
    ok(session, {"cmd": "position", "text": "startpos"})
    fail(session, {"cmd": "search", "depth": 4}, "'depth'", "limit of 3")
    fail(session, {"cmd": "search", "nodes": 101}, "'nodes'", "limit of 100")
    fail(session, {"cmd": "perft", "depth": 3}, "'depth'", "limit of 2")


def test_illegal_action_leaves_the_state_unchanged():
    session = game_session()
    before = ok(session, {"cmd": "state"})
    fail(session, {"cmd": "apply", "action": 999999}, "not a legal action")
    assert ok(session, {"cmd": "state"}) == before
    position = position_session()
    fail(position, {"cmd": "apply", "action": "e7e5"}, "not Blue's")
    assert ok(position, {"cmd": "state"})["position"] == START
    # A failed set-up keeps the previous state too.
    fail(position, {"cmd": "new", "config": {"budgets": [1]}}, "'config.budgets'")
    fail(position, {"cmd": "position", "text": "junk"}, "'text'")
    assert position.mode == "position" and position.position.to_text() == START


def test_oversized_lines_are_refused():
    session = position_session()
    huge = json.dumps({"cmd": "apply", "action": "e2e4", "pad": "x" * MAX_LINE_BYTES})
    fail(session, huge, "longer than 1048576 bytes")
    fail(session, huge.encode(), "longer than 1048576 bytes")
    # Exactly at the limit is fine (padding with spaces keeps the JSON valid).
    line = '{"cmd":"hello"}'
    assert ok(session, line + " " * (MAX_LINE_BYTES - len(line)))
    # Through the stdio loop: the long line is skipped, not kept, and the next line is served.
    stdin = io.BytesIO((huge + "\n" + '{"id":2,"cmd":"hello"}\n').encode())
    stdout = io.StringIO()
    run(stdin, stdout)
    first, second = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert first["ok"] is False and first["line"] == 1 and "longer than" in first["error"]
    assert second["ok"] is True and second["id"] == 2


def test_run_loop_serves_until_quit_or_end_of_input():
    lines = ['{"id":1,"cmd":"position","text":"crown"}', "garbage", b'\xff\xfe'.decode("latin-1"),
             '{"id":2,"cmd":"perft","depth":2}', '{"id":3,"cmd":"quit"}', '{"id":4,"cmd":"hello"}']
    stdout = io.StringIO()
    assert run(io.StringIO("\n".join(lines) + "\n"), stdout) == 0
    responses = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert [r["ok"] for r in responses] == [True, False, False, True, True]      # nothing after quit
    assert responses[1]["line"] == 2 and responses[3]["nodes"] == 25
    # Bytes input (a real stdin's buffer): bad UTF-8 is an error, not a crash; no final newline needed.
    stdout = io.StringIO()
    run(io.BytesIO(b'{"cmd":"hel\xfflo"}\n{"id":9,"cmd":"hello"}'), stdout)
    bad, good = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert "UTF-8" in bad["error"] and good["id"] == 9


def test_engine_subprocess_session():
    script = [
        {"id": 1, "cmd": "hello"},
        {"id": 2, "cmd": "position", "text": "startpos"},
        {"id": 3, "cmd": "apply", "action": "e2e5"},
        {"id": 4, "cmd": "apply", "action": "e2e4"},
        {"id": 5, "cmd": "perft", "depth": 2},
        {"id": 6, "cmd": "search", "depth": 2},
        "this is not json",
        {"id": 8, "cmd": "new", "config": {"seed": 7, "supply": "first-game"}},
        {"id": 9, "cmd": "actions"},
        {"id": 10, "cmd": "apply", "action": "end order phase"},
        {"id": 11, "cmd": "record"},
        {"id": 12, "cmd": "quit"},
        {"id": 13, "cmd": "hello"},
    ]
    stdin = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in script)
    run_ = subprocess.run(FTC + ["engine"], input=stdin, capture_output=True, text=True, timeout=120, check=False,
                          env=child_env(), cwd=ROOT)
    assert run_.returncode == 0, run_.stderr
    responses = [json.loads(line) for line in run_.stdout.splitlines()]
    assert len(responses) == 12                       # one per line, none after quit
    by_line = {i + 1: r for i, r in enumerate(responses)}
    assert by_line[1]["protocol"] == PROTOCOL_VERSION == 2
    assert by_line[3]["ok"] is False and by_line[3]["field"] == "action" and by_line[3]["line"] == 3
    assert by_line[4]["side"] == "b"
    assert by_line[5]["nodes"] == 600            # 20 Yellow orders, 30 replies each
    assert by_line[6]["best"] is not None
    assert by_line[7] == {"id": None, "ok": False, "error": by_line[7]["error"], "line": 7}
    assert by_line[9]["to_move"] == 0 and by_line[9]["actions"]
    assert by_line[10]["phase"] == "action"
    assert by_line[11]["ok"] is False and "not over" in by_line[11]["error"]
    assert by_line[12]["bye"] is True
    assert [r["id"] for r in responses] == [1, 2, 3, 4, 5, 6, None, 8, 9, 10, 11, 12]


# -- fuzz --------------------------------------------------------------------------------------------------
FUZZ_LIMITS = Limits(max_iterations=4, max_seconds=0.02, max_depth=2, max_nodes=300, max_perft_depth=2,
                     max_processes=1, max_top=5)
SETUPS = [None, {"cmd": "position", "text": "startpos"}, {"cmd": "position", "text": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"},
          {"cmd": "new", "config": {"seed": 1, "max_turns": 3}}, {"cmd": "new", "config": {"variant": "point-buy"}},
          {"cmd": "new", "config": {"variant": "kings-ransom", "seed": 2}},
          {"cmd": "new", "config": {"variant": "kings-ransom", "seed": 2, "chance": "explicit"}}]

scalars = (st.none() | st.booleans() | st.integers(-3, 12) | st.integers() | st.text(max_size=12)
           | st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
plausible = st.sampled_from([
    "startpos", "crown", START, "e2e4", "e1e2", "a7a8q", "d7d5", "end order phase", "end action phase",
    "play Guard (order)", 268435456, 268, "NBRQ", "-", 0, 1, 2, 3, -1, 10**30, 0.5, True, False, None, {}, [],
    {"seed": 1, "max_turns": 3}, {"variant": "point-buy", "start_position": "crown"}, {"seed": "x"}, {"supply": ["Nope"]},
    {"format": "ftc-game-record", "version": 1, "config": {}, "steps": [[0, 5]]},
    "kings-ransom", "flip a1", "move b1a2", "play P@c2", "Red draws Pawn", "explicit", 268435456, 6,
    "n*kb*/1p*1/1i*1/1P*1/1P*1/R*KN* r QBI/qrp PNPIPBPRPNPIPPPP/pnpipbprpnpipppp -/- 0 1",
    {"variant": "kings-ransom", "seed": 1}, {"variant": "kings-ransom", "chance": "explicit"},
    {"format": "ftc-ransom-record", "seed": 1, "actions": [[-1, 6]]},
])


def _request(cmd: str):
    names = st.sampled_from(COMMANDS[cmd].fields + ("x", "id")) if COMMANDS[cmd].fields else st.sampled_from(("x", "id"))
    return st.dictionaries(names, plausible | json_values, max_size=3).map(lambda extra: {**extra, "cmd": cmd})


requests = st.sampled_from(sorted(COMMANDS)).flatmap(_request) | st.dictionaries(
    st.sampled_from(["cmd", "id", "depth", "action", "text"]), plausible | json_values, max_size=3)
lines = st.one_of(
    requests.map(json.dumps),
    requests.map(json.dumps),
    requests.map(json.dumps).flatmap(lambda s: st.integers(0, len(s)).map(lambda k: s[:k])),
    st.text(max_size=80),
    st.binary(max_size=40),
    json_values.map(json.dumps),
)


@settings(max_examples=200, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(SETUPS), st.lists(lines, min_size=1, max_size=8))
def test_fuzz_every_line_gets_one_json_response_and_the_session_survives(setup, batch):
    session = Session(FUZZ_LIMITS)
    if setup is not None:
        ok(session, setup)
    for line in batch:
        before = snapshot(session)
        out = session.handle(line)
        assert isinstance(out, str) and "\n" not in out
        response = json.loads(out)
        assert isinstance(response, dict) and response["ok"] in (True, False)
        try:
            request = json.loads(line)
        except (ValueError, RecursionError):
            request = None
        if isinstance(request, dict) and response["ok"] is True:
            assert response["id"] == request.get("id")
        if response["ok"] is False:
            assert isinstance(response["error"], str) and response["error"]
            assert "internal error" not in response["error"], (line, response)
            assert response["line"] == session.line
            assert snapshot(session) == before                      # a failed request changes nothing
    assert json.loads(session.handle('{"id":"last","cmd":"hello"}'))["ok"] is True
