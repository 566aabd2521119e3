"""Both games count turns the same way for a user, turn 1 first (issue 22: For the Crown showed its
first turn as 0, King's Ransom as 1): observations, the protocol, the web board's views and logs,
`ftc analyze --at`. For the Crown's stored counter (``GameState.turn``, turns completed, which records
hash) is unchanged, so saved records and position views still load."""

import json
import random

import pytest

from engine.crown.config import GameConfig
from engine.crown.knowledge import load_view, position_view, state_digest
from engine.crown.state import GameState
from engine.interfaces.protocol import Session
from engine.ransom.state import RansomState


def _first_decision(state):
    while state.current_player() < 0 and not state.is_terminal():
        state.apply(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("make", [lambda: GameState(GameConfig(seed=2, supply="first-game")),
                                  lambda: _first_decision(RansomState(2))], ids=["ftc", "kings-ransom"])
def test_the_first_turn_is_turn_1(make):
    state = make()
    player = state.current_player()
    assert state.turn_number == 1 == state.observation(player)["turn"]


@pytest.mark.parametrize("config", [{"seed": 1, "supply": "first-game"}, {"variant": "kings-ransom", "seed": 1}])
def test_the_protocol_shows_turn_1_first(config):
    session = Session()
    answer = json.loads(session.handle(json.dumps({"id": 1, "cmd": "new", "config": config})))
    assert answer["ok"] and answer["turn"] == 1


def test_yellow_s_first_turn_is_turn_2():
    g = GameState(GameConfig(seed=4, supply="first-game"))
    rng = random.Random(4)
    while g.current_player() == 0:
        g.apply(rng.choice(g.legal_actions()))
    assert g.current_player() == 1 and g.turn == 1 and g.turn_number == 2 == g.observation(1)["turn"]


def test_a_position_view_written_with_turns_from_0_still_loads():
    """A view file stores the observation it shows; one written before issue 22 has the turn from 0."""
    g = GameState(GameConfig(seed=5, supply="first-game"))
    rng = random.Random(5)
    for _ in range(30):
        g.apply(rng.choice(g.legal_actions()))
    doc = position_view(g, g.current_player(), random.Random(1))
    assert doc["observation"]["turn"] == g.turn + 1
    old = json.loads(json.dumps(doc))
    old["observation"]["turn"] = g.turn
    assert load_view(old).turn == g.turn
    bad = json.loads(json.dumps(doc))
    bad["observation"]["turn"] = g.turn + 7                     # still checked: a wrong turn is refused
    with pytest.raises(ValueError, match="observation"):
        load_view(bad)
    assert state_digest(old["state"]) == doc["digest"]
