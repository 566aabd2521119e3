"""The public observation (``observation(None)``, engine/games/protocol.py): a spectator's view of a
state. Over seeded random games of every registered game (each variant that hides something
differently, every phase from the set-up, picks and deals to the end) it is

- derivable from every player's observation: ``derive(game, obs_p, p)`` below rebuilds it from player
  ``p``'s observation alone (what the public observation holds beyond that would be something only
  another player knows), and
- blind to what is hidden: a state redrawn by any player's ``resample_hidden`` (a state that differs
  only in what that player cannot see) has the same public observation.

The derivations are written here from each game's documented observation (not from the code that
builds the public one)."""

from __future__ import annotations

import json
import random

import pytest

from engine.games import registry
from engine.notation import parse_position
from tests.toygame.conftest import toy  # noqa: F401 - the fixture

#: (game, configuration) pairs: each game, and each variant that hides something its own way.
CASES = [
    ("crown", {}),
    ("crown", {"variant": "point-buy", "secret_picks": True}),
    ("crown", {"variant": "point-buy"}),
    ("crown", {"variant": "last-stand"}),
    ("kings-ransom", {}),
    ("crusade", {}),
    ("crownfall", {}),
    ("crownfall", {"players": 3}),
    ("crownfall", {"players": 4}),
]


# -- each game's public observation, derived from one player's -----------------------------------
def _crown(obs: dict, player: int) -> dict:
    """For the Crown (engine/crown/observation.py): the seats' public piles from "you" and
    "opponent"; the board as the spectator sees it is checked apart (``_crown_board``)."""
    you, them = obs["you"], obs["opponent"]
    seats = [None, None]
    seats[player] = {"hand_size": len(you["hand"]), "deck_size": you["deck_size"], "discard": you["discard"],
                     "played": you["played"]}
    seats[1 - player] = {"hand_size": them["hand_size"], "deck_size": them["deck_size"],
                         "discard": them["discard"], "played": them["played"]}
    decision = obs["decision"]
    if decision is not None and decision.get("player") == player:
        decision = {"player": player}                 # the decider's own options are theirs
    public = {key: value for key, value in obs.items() if key not in ("you", "opponent", "board")}
    return {**public, "player": None, "seats": seats, "decision": decision}


def _ransom(obs: dict, player: int) -> dict:
    """King's Ransom (docs/kings-ransom.md, "Hidden information"): face-down cards as backs until the
    end, no Hand and no Deck contents of anyone; both Hands once the game is over."""
    over = obs["over"] is not None
    arena = [{**sq, "card": sq["card"] if over or not sq["face_down"] else None} for sq in obs["arena"]]
    hands = None
    if over:
        hands = [None, None]
        hands[player], hands[1 - player] = obs["hand"], obs["opponent_hand"]
    public = {key: value for key, value in obs.items() if key not in ("hand", "opponent_hand", "own_deck", "arena")}
    return {**public, "player": None, "arena": arena, "hands": hands}


def _open(obs: dict, player: int) -> dict:
    """A game without hidden information (Crusade & Conquer, the toy games): every player's
    observation is the public one but for the ``player`` key."""
    return {**obs, "player": None} if "player" in obs else obs


DERIVE = {"crown": _crown, "kings-ransom": _ransom}


def derive(name: str, obs: dict, player: int) -> dict:
    return DERIVE.get(name, _open)(obs, player)


def _units(board_text: str, state) -> set:
    data = parse_position(board_text.split("\n")[0] if "\n" in board_text else board_text, state.units)
    return {(sq, unit) for sq, unit in data.units.items()}


def _crown_board(state, public: dict) -> None:
    """The spectator's board holds no unit a player cannot see: its units are in every player's
    board, and outside the Point-Buy screen it is every player's board."""
    spectator = public["board"]
    for p in range(state.num_players):
        theirs = state.observation(p)["board"]
        if not state.observation(p)["phase"] == "setup" or spectator == theirs:
            assert spectator == theirs or _units(spectator, state) <= _units(theirs, state)
        else:
            assert _units(spectator, state) <= _units(theirs, state)


# -- playing ---------------------------------------------------------------------------------------
def _positions(name: str, config: dict, seeds: range, every: int = 1):
    """Every ``every``-th state of seeded random games of ``name`` (from the set-up to the end)."""
    game = registry.get(name)
    for seed in seeds:
        state = game.start({**config, "seed": seed})
        rng = random.Random(seed)
        n = 0
        while True:
            if n % every == 0 or state.is_terminal():
                yield state
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
            n += 1


def _check(name: str, state, rng: random.Random) -> None:
    public = state.observation(None)
    json.dumps(public)
    assert public == state.observation(None)            # a pure read
    for p in range(state.num_players):
        derived = derive(name, state.observation(p), p)
        if name == "crown":
            _crown_board(state, public)
            assert {k: v for k, v in public.items() if k != "board"} == derived, p
        else:
            assert public == derived, p
        if not state.is_terminal():
            sample = state.resample_hidden(p, random.Random(rng.getrandbits(32)))
            assert sample.observation(None) == public, f"resampling what player {p} cannot see changed it"


@pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{c.get('variant', c.get('players', ''))}" + (
    "-screen" if c.get("secret_picks") else "") for n, c in CASES])
def test_the_public_observation_is_every_players_and_hides_nothing(name, config):
    rng = random.Random(29)
    every = 7 if name == "crownfall" else 3
    positions = 0
    for state in _positions(name, config, range(3), every):
        _check(name, state, rng)
        positions += 1
    assert positions > 10


def test_point_buy_behind_the_screen_shows_no_pick(name="crown"):
    """Behind the screen, a pick is in its picker's board only: the spectator's board holds the set-up's
    units and nothing either side has placed (checked against the state's own screen list)."""
    game = registry.get(name)
    state = game.start({"variant": "point-buy", "secret_picks": True, "seed": 5})
    rng = random.Random(5)
    picked = 0
    while state.phase == "setup" and not state.is_terminal():
        public = state.observation(None)
        shown = {sq for sq, _ in _units(public["board"], state)}
        assert shown <= set(state.setup_state["public"])
        assert public["seats"][0]["hand_size"] == len(state.zones[0].hand)
        state.apply(rng.choice(state.legal_actions()))
        picked += 1
    assert picked > 4


def test_a_toy_game_shows_spectators_all(toy):
    state = registry.get("tictactoe").start({"seed": 1})
    for action in (4, 0, 8):
        state.apply(action)
        assert state.observation(None) == state.observation(0) == state.observation(1)
