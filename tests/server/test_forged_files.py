"""Forged files (issue 23, item 7): a position view or game record crafted to break the loader is
refused with the JSON path of the field, by the analysis board of a real server and by `ftc analyze`
alike (one validator: engine/crown/knowledge.py's schema, engine/crown/schema.py), never with a 500
or a traceback; hypothesis-generated mutations of valid files too."""

from __future__ import annotations

import copy
import json
import random
import subprocess

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.crown.analysis_board import record_walkthrough
from engine.crown.config import GameConfig
from engine.crown.knowledge import load_state, position_view, state_digest
from engine.crown.record import RecordError, fingerprint, make_record
from engine.crown.state import GameState
from tests.support import FTC, ROOT, child_env


def _state(variant: str, seed: int, decisions: int) -> GameState:
    g = GameState(GameConfig.from_json({"variant": variant, "seed": seed, "supply": "first-game"}))
    rng = random.Random(seed)
    for _ in range(decisions):
        g.apply(rng.choice(g.legal_actions()))
    while g.current_player() != 0:
        g.apply(rng.choice(g.legal_actions()))
    return g


GAME = _state("standard", 3, 30)
VIEW = json.loads(json.dumps(position_view(GAME, 0, random.Random(2))))
RECORD = json.loads(json.dumps(make_record(GAME)))


def forged(edit, refingerprint: bool = True) -> dict:
    """VIEW with ``edit`` made to its state, the digest recomputed (anyone can) and, when the edited
    state loads, its fingerprint too: a forger's file that passes every check a hash can make."""
    doc = copy.deepcopy(VIEW)
    edit(doc["state"])
    doc["state"] = json.loads(json.dumps(doc["state"]))      # as a file holds it (JSON keys are strings)
    doc["digest"] = state_digest(doc["state"])
    doc.pop("observation")                          # optional in the format
    if refingerprint:
        try:
            doc["fingerprint"] = fingerprint(load_state(GameConfig.from_dict(doc["config"]), doc["state"]))
        except Exception:                           # noqa: BLE001 - the loader refuses it: left as it is
            pass
    return doc


#: The four shapes the outside attacker sent (each gave a 500 and a traceback), with the field named.
SHAPES = [
    (lambda s: s.update(decision=None), "state.decision"),
    (lambda s: s["decision"].update(labels=[[[a], "x"] for a in s["decision"]["actions"]], labeler=None),
     "state.decision.labels[0][0]"),
    (lambda s: s.update(setup_state={"dict": [[{"list": [1]}, 1]]}), "state.setup_state.dict[0][0]"),
    (lambda s: s.update(setup_state={"frozenset": [{"list": [1]}]}), "state.setup_state.frozenset[0]"),
]


@pytest.mark.parametrize("edit, field", SHAPES)
def test_the_four_forged_shapes_are_refused_naming_the_field_by_the_server_and_the_cli(client, tmp_path, edit, field):
    doc = forged(edit)
    answer = client.post("/api/analysis/record", json=doc)
    assert answer.status_code == 422, answer.text
    assert f"field '{field}'" in answer.json()["detail"], answer.text
    path = tmp_path / "forged.view.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run(FTC + ["analyze", str(path), "--iterations", "10"], capture_output=True, text=True,
                         env=child_env(), cwd=ROOT, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1 and f"field '{field}'" in run.stderr, run.stderr


# -- fuzzing: mutations of valid files --------------------------------------------------------------
def _paths(value, path=()):
    """Every place in a JSON document (as key/index tuples)."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            yield from _paths(v, path + (i,))


VIEW_PATHS = [p for p in _paths(VIEW["state"]) if p]
RECORD_PATHS = [p for p in _paths(RECORD) if p]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from([0, 1, 2, -1, 63, 64]),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
TAGS = st.sampled_from(["tuple", "list", "frozenset", "dict", "float", "set", "x"])
JSON = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3),
    st.builds(lambda tag, v: {tag: v}, TAGS, st.lists(inner, max_size=3))), max_leaves=12)


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(VIEW_PATHS), JSON), min_size=1, max_size=3), st.booleans())
# The attacker's shapes, always tried (the generated ones vary from run to run):
@example([(("decision",), None)], True)
@example([(("setup_state",), {"dict": [[{"list": [1]}, 1]]})], True)
@example([(("setup_state",), {"frozenset": [{"list": [1]}]})], True)
@example([(("decision", "labels"), [[[1], "x"]])], False)
@example([(("rng", 1, 0), -1)], True)
@example([(("frames",), [{"card": 0, "index": 0, "player": 0, "step": 0, "choice": None, "data": {"tuple": []}}])],
         True)
def test_mutated_views_are_refused_by_field_or_load_never_a_crash(edits, refingerprint):
    def edit(state):
        for path, value in edits:
            try:
                _set(state, path, value)
            except (KeyError, IndexError, TypeError):
                pass                                    # an earlier edit replaced the path's parent
    doc = forged(edit, refingerprint)
    try:
        walked = record_walkthrough(doc, 50_000)        # the analysis board: load_view and the board
    except RecordError as exc:
        assert "field '" in str(exc), exc
        return
    assert walked["boards"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(RECORD_PATHS), JSON), min_size=1, max_size=3))
@example([(("rng", 1, 0), -1)])
@example([(("rng", 0), 2**80)])
@example([(("steps", 0), [0, 2**80])])
def test_mutated_records_are_refused_with_a_reason_never_a_crash(edits):
    doc = copy.deepcopy(RECORD)
    for path, value in edits:
        try:
            _set(doc, path, value)
        except (KeyError, IndexError, TypeError):
            pass
    doc = json.loads(json.dumps(doc))                         # as a file holds it (JSON keys are strings)
    try:
        record_walkthrough(doc, 50_000)
    except RecordError:
        pass


def test_mutated_files_through_the_server_never_give_a_500(tmp_path):
    from fastapi.testclient import TestClient

    from engine.interfaces.server.app import Limits, create_app

    with TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=Limits(analysis_record_burst=100))) as c:
        _post_mutations(c)


def _post_mutations(client):
    rng = random.Random(5)
    values = [None, True, 0, -1, 2**64, "x", [], {}, [[1]], {"list": [[1]]}, {"dict": [[{"list": [1]}, 1]]},
              {"frozenset": [{"list": [1]}]}]
    for _ in range(60):
        path, value = rng.choice(VIEW_PATHS), rng.choice(values)
        answer = client.post("/api/analysis/record", json=forged(lambda s: _set(s, path, value)))
        assert answer.status_code in (200, 422), (path, value, answer.status_code, answer.text[:300])
        assert "Traceback" not in answer.text
