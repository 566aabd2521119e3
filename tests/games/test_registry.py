"""The game registry (engine/games/registry.py): names, aliases and variants, lookups with errors
that name the known games, records recognised by their game, configurations with located errors,
and each entry's pieces."""

from __future__ import annotations

import pytest

from engine.crown.config import VARIANTS, ConfigError
from engine.crown.state import GameState
from engine.games import registry
from engine.ransom.config import RansomConfigError
from engine.ransom.players import ransom_ismcts
from engine.ransom.state import RansomState
from engine.search.ismcts import ISMCTS


def test_the_built_in_games_and_their_names():
    assert registry.names() == ("crown", "kings-ransom", "crownfall", "crusade")
    crown, ransom = registry.get("crown"), registry.get("kings-ransom")
    assert crown.variants == VARIANTS and crown.docs == "for-the-crown" and ransom.docs == "kings-ransom"
    assert registry.variant_names() == VARIANTS + ("kings-ransom", "crownfall", "crusade")       # what --variant has offered
    assert [registry.for_variant(v).name for v in ("standard", "point-buy", "last-stand", "kings-ransom")] == \
        ["crown", "crown", "crown", "kings-ransom"]
    assert registry.for_variant(None) is crown


def test_unknown_names_are_refused_naming_the_known_games():
    with pytest.raises(registry.UnknownGameError, match=r"unknown game 'nim'; known: crown, kings-ransom"):
        registry.get("nim")
    with pytest.raises(registry.UnknownGameError, match="unknown game 'standard'"):
        registry.get("standard")                    # a variant chooses a game through for_variant only
    with pytest.raises(registry.UnknownGameError, match="unknown variant 'fast'; known: standard, point-buy"):
        registry.for_variant("fast")
    with pytest.raises(registry.UnknownGameError, match="not a record of any game"):
        registry.for_record({"format": "chess-pgn"})
    with pytest.raises(registry.UnknownGameError, match="is not a game state"):
        registry.for_state(object())


def test_a_name_already_taken_is_refused_and_a_toy_game_comes_and_goes():
    crown = registry.get("crown")
    with pytest.raises(ValueError, match="'point-buy' already chooses 'crown'"):
        registry.register(registry.Game(**{**crown.__dict__, "name": "toy", "variants": ("point-buy",)}))
    with pytest.raises(ValueError, match="the name 'crown' is taken"):
        registry.register(crown)
    toy = registry.register(registry.Game(**{**crown.__dict__, "name": "toy", "variants": ("toy-a",),
                                             "aliases": ("toy-alias",)}))
    try:
        assert registry.get("toy-alias") is toy and registry.for_variant("toy-a") is toy
    finally:
        registry.unregister("toy")
    assert "toy" not in registry.names()
    with pytest.raises(registry.UnknownGameError):
        registry.for_variant("toy-a")


def test_states_and_records_find_their_game():
    g, r = GameState(), RansomState(1)
    assert registry.for_state(g).name == "crown" and registry.for_state(r).name == "kings-ransom"
    assert registry.for_record(g.record()).name == "crown"
    assert registry.for_record(r.record()).name == "kings-ransom"
    old = {**r.record(), "format": None}             # the protocol has always read these by their variant
    assert registry.for_record(old).name == "kings-ransom"
    assert registry.replay(r.record()).fingerprint() == r.fingerprint()


def test_configurations_are_validated_with_located_errors():
    crown, ransom = registry.get("crown"), registry.get("kings-ransom")
    assert crown.start({"seed": 3, "variant": "point-buy"}).config.variant == "point-buy"
    with pytest.raises(ConfigError, match=r"unknown option 'sed'"):
        crown.config({"sed": 3}, "config")
    state = ransom.start({"variant": "kings-ransom", "seed": 7, "chance": "explicit"})
    assert state.seed == 7 and not state.auto_chance and state.is_chance_node()
    for bad, message in [({"seed": -1}, r"new\.seed: expected an integer 0\.\.9223372036854775807, got -1"),
                         ({"seed": True}, r"new\.seed: expected an integer"),
                         ({"chance": "some"}, r"new\.chance: expected \"auto\" or \"explicit\", got 'some'"),
                         ({"variant": "standard"}, r"new\.variant: expected 'kings-ransom', got 'standard'"),
                         ([], r"new: expected an object of game options, got list")]:
        with pytest.raises(RansomConfigError, match=message):
            ransom.config(bad, "new")


def test_bots_and_perft_through_the_entries():
    crown, ransom = registry.get("crown"), registry.get("kings-ransom")
    assert type(ransom.bots.make_bot("greedy", 0)).__name__ == "RansomGreedyBot"
    assert type(crown.bots.make_bot("greedy", 0)).__name__ == "GreedyBot"
    assert "ismcts" in crown.bots.bot_names and "ismcts" in ransom.bots.bot_names
    with pytest.raises(ValueError, match="unknown King's Ransom bot 'expert'"):
        ransom.bots.make_bot("expert", 0)
    # perft(startpos, 3) = 8902: chess's published count (For the Crown's start is chess's, B-rulings);
    # King's Ransom's start divided at depth 1 sums to its perft(1) (the same walk counted two ways).
    assert crown.positions.perft("startpos", 3) == 8902
    assert sum(ransom.positions.divide("startpos", 1).values()) == ransom.positions.perft("startpos", 1)


def test_the_search_takes_the_pieces_of_the_game_it_searches():
    """ISMCTS binds the pieces the caller did not give from the registry entry of the state's game
    (For the Crown's planner, prior and learned evaluator; King's Ransom's card-aware playout and
    evaluator), and binds again when a state of the other game comes; what the caller gave stays."""
    crown = registry.get("crown").search.settings()
    ransom = registry.get("kings-ransom").search.settings()
    assert type(crown["planner"]).__name__ == "TurnPlanner" and crown["planner"].max_nodes == 4_000
    searcher = ISMCTS(iterations=5, seed=1)
    assert searcher.game is None and searcher.planner is None
    searcher.search(registry.new_state("crown", {"seed": 1}))
    assert searcher.game == "crown"
    for name, value in crown.items():
        assert repr(getattr(searcher, name)) == repr(value), name
    searcher.search(registry.new_state("kings-ransom", {"seed": 1}))
    assert searcher.game == "kings-ransom"
    for name, value in ransom.items():
        assert repr(getattr(searcher, name)) == repr(value), name
    assert searcher.prior is None and searcher.planner is None and searcher.prune is None
    mine = ISMCTS(iterations=5, seed=1, max_playout_turns=1, evaluator=None, game="kings-ransom")
    assert (mine.max_playout_turns, mine.evaluator, repr(mine.playout)) == (1, None, repr(ransom["playout"]))
    assert ransom_ismcts(100).game == "kings-ransom"
