"""King's Ransom through `ftc engine` (engine/interfaces/protocol.py, docs/protocol.md "King's Ransom").

Every command of a King's Ransom game through Session.handle (new, state/observe, actions with texts
and fields, apply by id and by text, explicit chance, search, record and load), the errors (each
names the field, keeps the protocol's error shape and leaves the state unchanged), perft of a King's
Ransom position, and a whole game played to its end by a real `python -m engine.interfaces.cli
engine` process, with seat 0's observation checked against the true state at every decision: it never
holds seat 1's face-down cards or Hand."""

import json
import random
import subprocess

import pytest

from engine.interfaces.protocol import Limits, Session
from engine.ransom.rules import default_rules
from engine.ransom.state import RansomState
from tests.reference.ransom import reference_divide
from tests.support import FTC, ROOT, child_env

RANSOM = "kings-ransom"
STARTPOS = default_rules().startpos


def ask(session: Session, request) -> dict:
    out = session.handle(request if isinstance(request, str) else json.dumps(request))
    assert isinstance(out, str) and "\n" not in out
    return json.loads(out)


def ok(session: Session, request) -> dict:
    response = ask(session, request)
    assert response["ok"] is True, response
    return response


def snapshot(session: Session):
    if session.mode == "game":
        return "game", session.game.fingerprint(), len(session.game.history)
    if session.mode == "position":
        return "position", session.position.to_text()
    return None


def fail(session: Session, request, field: str | None, *words: str) -> dict:
    """The request fails in the protocol's error shape, naming ``field`` and ``words``; nothing changes."""
    before = snapshot(session)
    response = ask(session, request)
    assert response["ok"] is False, response
    assert set(response) == {"id", "ok", "error", "line"} | ({"field"} if field else set()), response
    assert response.get("field") == field and response["line"] == session.line
    assert "internal error" not in response["error"] and "Traceback" not in response["error"]
    for word in words:
        assert word in response["error"], (word, response)
    assert snapshot(session) == before
    return response


def ransom_session(seed: int = 3, **options) -> Session:
    session = Session()
    r = ok(session, {"cmd": "new", "config": {"variant": RANSOM, "seed": seed, **options}})
    assert r["mode"] == "game" and r["variant"] == RANSOM
    return session


# -- a game ----------------------------------------------------------------------------------------
def test_new_state_actions_apply_by_id_and_text():
    session = ransom_session(3)
    truth = RansomState(3)                          # the same seed deals the same game
    state = ok(session, {"cmd": "state"})
    assert state["to_move"] == 0 and state["phase"] == "flip" and state["over"] is False
    assert state["observation"] == json.loads(json.dumps(truth.observation(0)))
    actions = ok(session, {"cmd": "actions"})
    assert actions["to_move"] == 0 and actions["prompt"] == truth.prompt()
    assert [a["action"] for a in actions["actions"]] == truth.legal_actions()
    for item in actions["actions"]:
        assert item["text"] == truth.action_text(item["action"])
        assert item["fields"] == truth.action_fields(item["action"]) and item["fields"]["kind"] == "flip"
    first = actions["actions"][0]
    r = ok(session, {"cmd": "apply", "action": first["action"], "player": 0})
    assert r["applied"] == {"action": first["action"], "text": first["text"], "player": 0} and r["phase"] == "move"
    truth.apply(first["action"])
    move = truth.legal_actions()[-1]
    r = ok(session, {"cmd": "apply", "action": truth.action_text(move)})      # by text
    assert r["applied"]["action"] == move
    truth.apply(move)
    assert session.game.fingerprint() == truth.fingerprint()


def test_search_by_iterations_and_by_seconds_with_top():
    session = ransom_session(3)
    r = ok(session, {"cmd": "search", "iterations": 60, "seed": 1, "top": 3})
    legal = session.game.legal_actions()
    assert r["player"] == 0 and r["best"] in legal and r["text"] == session.game.action_text(r["best"])
    assert r["iterations"] == 60 and -1 <= r["value"] <= 1 and r["source"] == "search"
    assert 1 <= len(r["top"]) <= 3 and r["top"][0]["action"] == r["best"]
    again = ok(session, {"cmd": "search", "iterations": 60, "seed": 1})
    assert again["best"] == r["best"] and again["value"] == r["value"]        # reproducible with a seed
    timed = ok(session, {"cmd": "search", "seconds": 0.05})
    assert timed["best"] in legal and timed["iterations"] >= 1
    assert session.game.legal_actions() == legal                               # search changes nothing


def test_explicit_chance_the_host_deals_and_draws():
    session = ransom_session(5, chance="explicit")
    r = ok(session, {"cmd": "state"})
    assert r["to_move"] == "chance" and r["phase"] == "deal"
    actions = ok(session, {"cmd": "actions"})
    assert actions["to_move"] == "chance" and actions["prompt"] == "chance: Red draws (one of 6)"
    assert abs(sum(a["probability"] for a in actions["actions"]) - 1) < 1e-5
    assert {a["text"] for a in actions["actions"]} >= {"Red draws Pawn", "Red draws Knight"}
    fail(session, {"cmd": "search", "iterations": 5}, "cmd", "chance is to decide")
    # analyze too (King's Ransom gained an analysis with game review: it was an internal error here)
    fail(session, {"cmd": "analyze", "iterations": 5}, "cmd", "chance is to decide")
    fail(session, {"cmd": "apply", "action": 0}, "action", "0 is not a legal action")   # no second King
    fail(session, {"cmd": "apply", "action": 4, "player": 0}, "player", "chance is")
    r = ok(session, {"cmd": "apply", "action": "Red draws Knight"})
    assert r["applied"] == {"action": 4, "text": "Red draws Knight", "player": "chance"}
    for _ in range(200):                          # deal the rest: always a Pawn while there is one
        if session.game.current_player() != -1:
            break
        outcomes = ok(session, {"cmd": "actions"})["actions"]
        ok(session, {"cmd": "apply", "action": outcomes[-1]["action"]})
    r = ok(session, {"cmd": "state"})
    assert r["to_move"] == 0 and r["phase"] == "flip"
    assert [c["card"] for c in r["observation"]["arena"] if c["square"] == "a1"] == ["N"]


def test_record_is_refused_before_the_end_and_loads_back():
    session = ransom_session(11)
    fail(session, {"cmd": "record"}, "full", "not over")
    rng = random.Random(0)
    while not session.game.is_terminal():
        ok(session, {"cmd": "apply", "action": rng.choice(session.game.legal_actions())})
    end = ok(session, {"cmd": "state"})
    assert end["over"] is True and end["to_move"] is None and "reason" in end and len(end["returns"]) == 2
    assert ok(session, {"cmd": "actions"}) == {"id": None, "ok": True, "to_move": None, "over": True, "actions": []}
    record = ok(session, {"cmd": "record"})["record"]
    assert record["format"] == "ftc-ransom-record"
    other = Session()
    loaded = ok(other, {"cmd": "load", "record": record})
    assert loaded["variant"] == RANSOM and loaded["over"] is True and loaded["reason"] == end["reason"]
    assert other.game.fingerprint() == session.game.fingerprint()
    fail(other, {"cmd": "apply", "action": 1}, "action", "the game is over")
    fail(other, {"cmd": "search"}, "cmd", "the game is over")
    # A record cut short loads as a game in progress (the same deal, the same decisions so far).
    partial = dict(record, actions=record["actions"][:40], result={"winner": None, "reason": None})
    assert ok(other, {"cmd": "load", "record": partial})["over"] is False
    bad = dict(record, actions=record["actions"][:30] + [[0, 12345]])
    fail(other, {"cmd": "load", "record": bad}, "record", "actions[30]")


def test_analyze_plans_the_turn_and_search_takes_processes():
    """King's Ransom has the protocol's analyze (the turn's steps from the player's information set)
    and search's root-parallel processes, as For the Crown does (issue 24)."""
    session = ransom_session(3)
    legal = set(session.game.legal_actions())
    report = ok(session, {"cmd": "analyze", "iterations": 60, "seed": 1, "top": 2})["analysis"]
    assert report["player"] == 0 and report["turn"] == 1
    steps = report["plan"]
    assert steps and steps[0]["action"] in legal and steps[0]["iterations"] == 60
    assert [s["text"].split()[0] for s in steps] == ["flip", "move", "play"][:len(steps)]
    assert 1 <= len(steps[0]["alternatives"]) <= 2
    assert set(session.game.legal_actions()) == legal            # analyze changes nothing
    found = ok(session, {"cmd": "search", "iterations": 80, "seed": 2, "processes": 2, "top": 2})
    assert found["best"] in legal and found["iterations"] >= 80 and len(found["top"]) == 2


# -- errors ----------------------------------------------------------------------------------------------
def test_errors_name_the_field_and_the_variant():
    session = ransom_session(3)
    fail(session, {"cmd": "apply", "action": "flip z9"}, "action", "no legal action reads 'flip z9'")
    fail(session, {"cmd": "apply", "action": 999}, "action", "999 is not a legal action")
    fail(session, {"cmd": "apply", "action": 1.5}, "action", "expected an action id")
    fail(session, {"cmd": "apply", "action": "flip a1", "player": 1}, "player", "player 1 is not to decide",
         "player 0 (Red)")
    fail(session, {"cmd": "actions", "player": 1}, "player", "player 1 is not to decide")
    fail(session, {"cmd": "state", "player": 2}, "player", "0 (Red) or 1 (Blue)")
    fail(session, {"cmd": "analyze", "processes": 0}, "processes", ">= 1")
    fail(session, {"cmd": "search", "plan": True}, "plan", "kings-ransom")
    fail(session, {"cmd": "search", "depth": 2}, "depth", "not used by 'search' in game mode")
    fail(session, {"cmd": "search", "iterations": 0}, "iterations", ">= 1")
    fail(session, {"cmd": "perft", "depth": 1}, "cmd", "needs position mode", "kings-ransom")
    fail(session, {"cmd": "position", "variant": RANSOM, "text": STARTPOS}, "variant", "kings-ransom", "perft")
    fail(session, {"cmd": "new", "config": {"variant": RANSOM, "supply": "random"}}, "config.supply",
         "kings-ransom has no option 'supply'")
    fail(session, {"cmd": "new", "config": {"variant": RANSOM, "seed": "x"}}, "config.seed", "expected an integer")
    fail(session, {"cmd": "new", "config": {"variant": RANSOM, "chance": "dealer"}}, "config.chance", '"explicit"')
    fail(session, {"cmd": "load", "record": {"format": "ftc-ransom-record", "seed": 1, "actions": "x"}}, "record",
         "'actions' must be a list")


# -- perft -------------------------------------------------------------------------------------------------
def test_perft_startpos_depth_2():
    # 30951 is checked against the independent slow reference generator tests/reference/ransom.py
    # (tests/data/ransom_perft.epd), written from the rules without reading the engine's code.
    session = Session()
    r = ok(session, {"cmd": "perft", "variant": RANSOM, "position": "startpos", "depth": 2})
    assert r == {"id": None, "ok": True, "variant": RANSOM, "position": STARTPOS, "depth": 2, "nodes": 30951}
    assert session.mode is None                                     # perft of a given position keeps no state
    assert ok(session, {"cmd": "perft", "variant": RANSOM, "position": STARTPOS, "depth": 0})["nodes"] == 1


def test_divide_matches_the_reference_generator():
    r = ok(Session(), {"cmd": "perft", "variant": RANSOM, "position": "startpos", "depth": 1, "divide": True})
    assert r["nodes"] == 177 == len(r["divide"])
    assert r["divide"] == reference_divide(STARTPOS, 1)            # tests/reference/ransom.py


def test_perft_errors():
    session = ransom_session(3)                                     # a game in progress stays as it was
    fail(session, {"cmd": "perft", "variant": RANSOM, "position": "n*kb*/1p*1 r", "depth": 1}, "position",
         "field 'position'")
    fail(session, {"cmd": "perft", "variant": RANSOM, "position": 7, "depth": 1}, "position", "expected a King's Ransom")
    fail(session, {"cmd": "perft", "variant": RANSOM, "depth": 4}, "depth", "above the limit of 3")
    fail(session, {"cmd": "perft", "variant": RANSOM}, "depth", "missing field 'depth'")
    fail(session, {"cmd": "perft", "variant": "standard", "depth": 1}, "variant", "for 'kings-ransom' or 'crownfall' or 'crusade' only")
    small = Session(Limits(max_perft_depth=1))
    fail(small, {"cmd": "perft", "variant": RANSOM, "depth": 2}, "depth", "above the limit of 1")


# -- a whole game through the real process -------------------------------------------------------------------
class Engine:
    """A real `ftc engine` child process, one request and one response at a time."""

    def __init__(self):
        self.proc = subprocess.Popen(FTC + ["engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=child_env(), cwd=ROOT)
        self.count = 0

    def __call__(self, request: dict) -> dict:
        self.count += 1
        request = {"id": self.count, **request}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        response = json.loads(self.proc.stdout.readline())
        assert response["id"] == self.count, response
        return response

    def close(self) -> int:
        self.proc.stdin.write('{"cmd": "quit"}\n')
        self.proc.stdin.flush()
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def check_hidden(obs: dict, truth: RansomState, seat: int) -> None:
    """``obs`` (seat's observation from the engine) against the true state: the other seat's face-down
    cards and Hand are never in it; seat's own cards are."""
    pos = truth.pos
    other = 1 - seat
    assert obs["player"] == seat
    for cell in obs["arena"]:
        if cell["owner"] == other and cell["face_down"]:
            assert cell["card"] is None, cell
    assert obs["hand"] == [default_rules().catalog.units[t].token for t, n in enumerate(pos.hands[seat])
                           for _ in range(n)]
    assert obs["hand_sizes"][other] == sum(pos.hands[other])
    # Nothing in it depends on the other seat's hidden cards: a state with them dealt again (as the
    # seat may imagine them) gives the same observation.
    for k in range(2):
        again = truth.resample_hidden(seat, random.Random(k)).observation(seat)
        assert json.loads(json.dumps(again)) == obs


@pytest.mark.parametrize("seed", [39, 30])   # 398 decisions with promotions, to the 200-turn draw; a checkmate
def test_a_whole_game_through_the_engine_process(seed):
    engine = Engine()
    try:
        r = engine({"cmd": "new", "config": {"variant": RANSOM, "seed": seed}})
        assert r["ok"] and r["variant"] == RANSOM
        truth = RansomState(seed)                 # the true state, kept in step with the engine's
        rng = random.Random(seed)
        decisions = 0
        while True:
            obs0 = engine({"cmd": "observe", "player": 0})
            assert obs0["ok"], obs0
            summary = {k: v for k, v in obs0.items() if k not in ("id", "player", "observation")}
            if obs0["over"]:
                break
            if not truth.is_terminal():
                check_hidden(obs0["observation"], truth, 0)
            seat = obs0["to_move"]
            assert seat == truth.current_player()
            listed = engine({"cmd": "actions", "player": seat})
            assert [a["action"] for a in listed["actions"]] == truth.legal_actions()
            wrong = engine({"cmd": "actions", "player": 1 - seat})
            assert wrong["ok"] is False and wrong["field"] == "player"
            if seat == 0 and decisions < 40 and len(listed["actions"]) > 1:
                found = engine({"cmd": "search", "iterations": 25, "seed": decisions})
                assert found["ok"] and found["player"] == 0
                choice = found["best"]
            else:
                choice = rng.choice(listed["actions"])["action"]
            text = truth.action_text(choice)
            applied = engine({"cmd": "apply", "action": text if decisions % 2 else choice, "player": seat})
            assert applied["ok"] and applied["applied"] == {"action": choice, "text": text, "player": seat}
            truth.apply(choice)
            decisions += 1
            assert decisions < 5000
        assert truth.is_terminal() and summary["over"] is True
        assert summary["reason"] == truth.over_reason and summary["winner"] == truth.winner
        assert summary["returns"] == truth.returns()
        record = engine({"cmd": "record"})
        assert record["ok"] and len(record["record"]["actions"]) == len(truth.history)
        assert engine({"cmd": "load", "record": record["record"]})["reason"] == truth.over_reason
        assert engine.close() == 0
    finally:
        if engine.proc.poll() is None:
            engine.proc.kill()
            engine.proc.wait()
