"""King's Ransom's state is split the way For the Crown's is (issue 24): the data (core.py) and what
only reads it (observation.py, record.py) never import the turn (phases.py) or the driver
(state.py); and engine.ransom.state still exports every name other modules import from it."""

from __future__ import annotations

import random

import pytest

import engine.ransom.state as ransom_state
from engine.ransom import core
from tests.test_architecture import import_graph

DRIVER = {"engine.ransom.state", "engine.ransom.phases"}


def reach(graph: dict[str, set[str]], start: str) -> set[str]:
    found, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in found:
                found.add(nxt)
                todo.append(nxt)
    return found


@pytest.mark.parametrize("low", ["engine.ransom.core", "engine.ransom.observation", "engine.ransom.record"])
def test_the_data_and_its_readers_never_reach_the_driver(low):
    graph = import_graph()
    assert not reach(graph, low) & DRIVER, f"{low} reaches {sorted(reach(graph, low) & DRIVER)}"


def test_the_turn_never_reaches_the_driver():
    graph = import_graph()
    assert "engine.ransom.core" in graph["engine.ransom.phases"]
    assert "engine.ransom.state" not in reach(graph, "engine.ransom.phases")


def test_the_driver_uses_every_part():
    assert {"engine.ransom.core", "engine.ransom.phases", "engine.ransom.observation",
            "engine.ransom.record"} <= import_graph()["engine.ransom.state"]


# The names engine.ransom.state exported before the split (its __all__, and the constants engine/,
# tools/ and tests/ imported from it: RESIGN and the steps), now defined in core.py: the same objects.
NAMES_FROM_CORE = ["RansomError", "IllegalRansomAction", "RansomVariant", "VARIANT", "RECORD_FORMAT", "RESIGN",
                   "CHANCE", "TERMINAL", "DEAL", "FLIP", "MOVE", "PROMOTE", "PLAY"]


@pytest.mark.parametrize("name", NAMES_FROM_CORE)
def test_engine_ransom_state_still_exports(name):
    assert getattr(ransom_state, name) is getattr(core, name)
    assert name in ransom_state.__all__


def test_the_state_class_and_replay_are_the_drivers():
    assert issubclass(ransom_state.RansomState, core.RansomCore)
    g = ransom_state.RansomState(seed=3)
    again = ransom_state.replay(g.record())
    assert again.fingerprint() == g.fingerprint() and type(again) is ransom_state.RansomState
    assert type(g.clone()) is ransom_state.RansomState
    assert type(g.resample_hidden(0, random.Random(1))) is ransom_state.RansomState
