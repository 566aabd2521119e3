"""Every registered game through the state protocol (engine/games/protocol.py): seeded random
playouts to the end (explicit chance answered by its outcomes' probabilities) with the contract's
invariants checked at every step, the members the interfaces show (turn number, prompt, whose turn,
the end's reason and winner, resignation) included."""

from __future__ import annotations

import json
import random

import pytest

from engine.games import registry
from engine.games.protocol import CHANCE, TERMINAL, GameStateProtocol

GAMES = registry.names()


def _chance(state, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    assert outcomes, "a chance node without outcomes"
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    assert all(p > 0 for _, p in outcomes)
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_shown(state) -> None:
    """The members the interfaces show: ``turn_number``, ``prompt()``, ``current``, ``over_reason``
    and ``winner`` (the protocol's docstring says what each means)."""
    assert _is_int(state.turn_number) and state.turn_number >= 1, f"turn_number {state.turn_number!r}"
    prompt = state.prompt()
    assert isinstance(prompt, str) and prompt, f"prompt() {prompt!r}"
    if state.is_terminal():
        assert isinstance(state.over_reason, str) and state.over_reason, f"over_reason {state.over_reason!r} at the end"
        winner, returns = state.winner, state.returns()
        assert winner is None or (_is_int(winner) and 0 <= winner < state.num_players), f"winner {winner!r}"
        assert winner is None or returns[winner] == max(returns) > min(returns), \
            f"winner {winner} but returns {returns}"
    else:
        assert state.over_reason is None and state.winner is None, (state.over_reason, state.winner)
        assert _is_int(state.current) and 0 <= state.current < state.num_players, f"current {state.current!r}"


def _check_resign(state) -> None:
    """``resign(player)`` on a copy: the game ends and ``player`` does not win, or (a game without
    resignation) a ValueError and the copy unchanged; on a game over, always a ValueError."""
    twin = state.clone()
    if state.is_terminal():
        with pytest.raises(ValueError):
            twin.resign(0)
        return
    player = state.current
    before = twin.record()
    try:
        twin.resign(player)
    except ValueError as exc:
        assert str(exc), "resign: a ValueError without a message"
        assert twin.record() == before and not twin.is_terminal(), "a refused resignation changed the game"
        return
    assert twin.is_terminal() and isinstance(twin.over_reason, str) and twin.over_reason
    assert twin.winner != player
    returns = twin.returns()
    assert returns[player] == min(returns) < max(returns), f"{player} resigned but returns {returns}"
    assert not state.is_terminal(), "resigning a copy ended the original"


def _check(state, game, rng: random.Random) -> None:
    assert isinstance(state, GameStateProtocol)
    assert state.game == game.name and registry.for_state(state) is game
    assert state.num_players in game.players
    _check_shown(state)
    player = state.current_player()
    legal = state.legal_actions()
    if state.is_terminal():
        assert player == TERMINAL and legal == []
        _check_resign(state)
        return
    if state.is_chance_node():
        assert player == CHANCE
        return
    assert 0 <= player < state.num_players
    assert legal and all(isinstance(a, int) for a in legal) and len(set(legal)) == len(legal)
    assert state.chance_outcomes() == []
    for a in legal[:5]:
        assert isinstance(state.action_text(a), str) and state.action_text(a)
        json.dumps(state.action_fields(a))
    for p in range(state.num_players):
        json.dumps(state.observation(p))
        hash(state.information_key(p))
    hash(state.public_key())
    sample = state.resample_hidden(player, random.Random(rng.getrandbits(32)))
    assert sample.observation(player) == state.observation(player)
    assert sample.information_key(player) == state.information_key(player)
    assert sample.legal_actions() == legal


@pytest.mark.parametrize("auto", [True, False], ids=["auto-chance", "explicit-chance"])
@pytest.mark.parametrize("name", GAMES)
def test_random_playouts_keep_the_protocol(name, auto):
    game = registry.get(name)
    for seed in range(3):
        state = game.start({"seed": seed})
        state.auto_chance = auto                    # explicit: every later deal or draw is a chance node
        rng = random.Random(seed)
        steps, turn = 0, state.turn_number
        while not state.is_terminal():
            _check(state, game, rng)
            assert state.turn_number >= turn, f"turn_number went back from {turn} to {state.turn_number}"
            turn = state.turn_number
            if steps % 25 == 0:
                _check_resign(state)
            action = _chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions())
            if steps % 25 == 0:
                twin = state.clone()
                before = state.observation(0)
                twin.apply(action)
                assert state.observation(0) == before, "a clone shares state with its original"
            state.apply(action)
            steps += 1
            if steps % 40 == 0:
                again = registry.replay(json.loads(json.dumps(state.record())))
                assert registry.for_record(state.record()) is game
                assert again.record() == state.record()
        _check(state, game, rng)
        returns = state.returns()
        assert len(returns) == state.num_players and all(-1.0 <= r <= 1.0 for r in returns)
        assert abs(sum(returns)) < 1e-9, "two-player returns are zero-sum"
        assert registry.replay(state.record()).record() == state.record()


@pytest.mark.parametrize("name", GAMES)
def test_the_start_is_identical_for_one_seed_and_differs_between_seeds(name):
    game = registry.get(name)
    a, b, c = game.start({"seed": 4}), game.start({"seed": 4}), game.start({"seed": 5})
    assert a.record() == b.record() and a.observation(0) == b.observation(0)
    assert a.record() != c.record()
