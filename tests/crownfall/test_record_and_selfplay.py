"""Records replay to the same game and bad ones are refused naming the field; the data files and the
configuration refuse bad input with located errors; short selfplay of 2, 3 and 4 players keeps every
invariant, and the invariant checks catch planted faults."""

import json
import random

import pytest

from engine.crownfall.config import CrownfallConfig, CrownfallConfigError
from engine.crownfall.core import CrownfallError
from engine.crownfall.rules import CrownfallRulesError, default_rules, load_map_text, load_rules_text
from engine.crownfall.selfplay import game_invariants, run_crownfall_selfplay
from engine.crownfall.state import CrownfallState, replay
from engine.games import registry
from tests.crownfall.support import banner, begin, reg, unstarted
from tests.support import ROOT


def random_game(seed: int, players: int = 2, stop: int | None = None, **options) -> CrownfallState:
    s = CrownfallState(CrownfallConfig.from_json({"seed": seed, "players": players, **options}))
    rng = random.Random(seed)
    while not s.is_terminal() and (stop is None or len(s.history) < stop):
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_record_replays_to_the_same_game_and_goes_on_the_same_way(players):
    s = random_game(3, players, stop=60, advanced_omens=True, advanced_objectives=True)
    again = replay(json.loads(json.dumps(s.record())))
    assert again.record() == s.record() and again.public_key() == s.public_key()
    rng1, rng2 = random.Random(9), random.Random(9)
    while not s.is_terminal():
        s.apply(rng1.choice(s.legal_actions()))
        again.apply(rng2.choice(again.legal_actions()))
    assert again.record() == s.record()


def test_bad_records_name_what_is_wrong():
    good = random_game(1, stop=20).record()
    cases = [({**good, "format": "x"}, "not a Crownfall record"),
             ({**good, "steps": "x"}, r"record\.steps: expected a list"),
             ({**good, "steps": good["steps"][:3] + [[0]]}, r"record\.steps\[3\]: expected \[player, action\]"),
             ({**good, "steps": good["steps"][:5] + [[good["steps"][5][0], 99999]]}, r"record\.steps\[5\]: .*not legal"),
             ({**good, "config": {**good["config"], "players": 7}}, r"record\.config\.players: expected 2, 3 or 4"),
             ({**good, "rng": [1, [2]]}, r"record\.rng: expected")]
    for record, message in cases:
        with pytest.raises(CrownfallError, match=message):
            replay(record)


def test_explicit_chance_nodes_list_the_unseen_cards_with_equal_probabilities():
    s = CrownfallState(CrownfallConfig.from_json({"seed": 2, "chance": "explicit"}))
    assert s.current_player() == -1 and s.legal_actions() == []
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 6 and all(abs(p - 1 / 6) < 1e-12 for _, p in outcomes)
    s.apply(outcomes[2][0])
    assert len(s.chance_outcomes()) == 8                     # the eight base Objectives
    with pytest.raises(CrownfallError, match="not a card left"):
        s.apply(99)


def test_a_determinization_keeps_the_observation_and_changes_only_the_draws():
    s = random_game(5, stop=15)
    d = s.resample_hidden(s.current_player(), random.Random(1))
    assert d.observation(0) == s.observation(0) and d.legal_actions() == s.legal_actions()
    assert d.rng.getstate() != s.rng.getstate()


def test_the_map_file_refuses_mistakes_naming_the_region_and_field():
    text = (ROOT / "engine/data/crownfall_map.toml").read_text()
    cases = [(text.replace('"highmoor", "greywater", "dawnmere"', '"highmoor", "eastfjord", "dawnmere"', 1),
              r"region\[6\] 'frostmark'\.adjacent: unknown region 'eastfjord'"),
             (text.replace('adjacent = ["eastford", "thorn-coast", "south-barrow"]', 'adjacent = ["eastford", "thorn-coast"]'),
              r"region\[3\] 'south-barrow'\.adjacent: touches 'saltmere' but 'saltmere' does not list"),
             (text.replace('name = "Westwatch"', 'name = "Briarwood"'), r"duplicate name 'Briarwood'"),
             (text.replace('ring = "inner"\nruin = true', 'ring = "keep"\nruin = true', 1), "exactly one region"),
             (text.replace('ruin = true', 'ruin = "yes"', 1), r"region\[1\] 'dawnmere'\.ruin: expected bool")]
    for bad, message in cases:
        with pytest.raises(CrownfallRulesError, match=message):
            load_map_text(bad, "m.toml")


def test_the_rules_file_refuses_mistakes():
    text = (ROOT / "engine/data/crownfall.toml").read_text()
    game_map = default_rules().map
    with pytest.raises(CrownfallRulesError, match=r"spell\[0\] 'fireball'\.cost: expected int"):
        load_rules_text(text.replace("cost = 2", 'cost = "two"', 1), game_map)
    with pytest.raises(CrownfallRulesError, match=r"house\[0\] 'emberglass'\.passive: unknown passive"):
        load_rules_text(text.replace('passive = "tower-assault"', 'passive = "fury"'), game_map)
    with pytest.raises(CrownfallRulesError, match=r"defaults\.2\[1\]: expected \[house, outer region\]"):
        load_rules_text(text.replace('["emberglass", "frostmark"]]', '["emberglass", "keep"]]', 1), game_map)


def test_the_configuration_refuses_mistakes_by_option():
    for data, message in [({"players": 5}, r"config\.players: expected 2, 3 or 4"),
                          ({"houses": ["briar", "briar"]}, r"config\.houses\[1\]: 'briar' is already seat 0's"),
                          ({"homes": ["keep", "frostmark"]}, r"config\.homes\[0\]: 'keep' is not an outer region"),
                          ({"advanced_omens": ["ash-winter"]}, r"config\.advanced_omens\[0\]: unknown card"),
                          ({"colour": 1}, r"config\.colour: crownfall has no option")]:
        with pytest.raises(CrownfallConfigError, match=message):
            registry.get("crownfall").config(data)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_short_selfplay_keeps_every_invariant(players):
    stats = run_crownfall_selfplay(6, seed=10, options={"players": players, "advanced_omens": True,
                                                       "advanced_objectives": True})
    assert (stats.games, stats.errors, stats.violations) == (6, 0, 0), stats.messages[:3]


def test_the_invariants_catch_planted_faults():
    g = unstarted()
    banner(g, 0, "saltmere")
    begin(g)
    assert game_invariants(g) == []
    g.reserve_banners[0] += 1                                   # a Banner from nowhere
    assert "not conserved" in game_invariants(g)[0]
    g.reserve_banners[0] -= 1
    g.mage[1] = reg("saltmere")                                 # two players' pieces in one region
    assert "holds pieces of players" in game_invariants(g)[0]
    g.mage[1] = reg("frostmark")
    g.anchor[reg("eastford")] = 0                               # an Anchor where Blue does not control
    g.reserve_anchors[0] -= 1
    assert any("Anchor" in p for p in game_invariants(g))


def test_the_bots_play_legal_actions_and_unknown_specs_are_refused():
    game = registry.get("crownfall")
    state = game.start({"seed": 4, "players": 3})
    for spec in game.bots.bot_names:
        bot = game.bots.make_bot(spec, 1)
        for _ in range(10):
            action = bot.choose(state)
            assert action in state.legal_actions()
            state.apply(action)
    with pytest.raises(ValueError, match="unknown bot 'alphabeta' for crownfall; known: random, greedy, expert"):
        game.bots.make_bot("alphabeta", 0)


def test_greedy_takes_a_free_region_rather_than_ending_the_turn():
    from engine.crownfall.players import GreedyBot
    g = begin(unstarted())
    action = GreedyBot(0).choose(g)
    assert g.action_fields(action)["kind"] != "end"


def test_ftc_selfplay_takes_the_number_of_players(capsys, monkeypatch):
    from engine.crownfall import entry
    from engine.interfaces.cli import main

    seen = []
    real = entry.run_crownfall_selfplay
    monkeypatch.setattr(entry, "run_crownfall_selfplay", lambda games, seed, settings, **kw: seen.append(settings)
                        or real(games, seed, settings, **kw))
    assert main(["selfplay", "--game", "crownfall", "--players", "3", "--games", "3", "--seed", "2"]) == 0
    assert seen == [{"players": 3}] and "errors: 0, invariant violations: 0" in capsys.readouterr().out
    assert main(["selfplay", "--game", "crownfall", "--players", "5", "--games", "1"]) == 2
    assert "--players 5: Crownfall is played by 2-4 players" in capsys.readouterr().err
    assert main(["selfplay", "--players", "3", "--games", "1"]) == 2
    assert "--players 3: For the Crown is played by 2 players" in capsys.readouterr().err
