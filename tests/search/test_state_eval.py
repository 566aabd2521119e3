"""The learned evaluation of full states (engine/crown/state_eval.py): the features mean what they
say, the value is antisymmetric, decided boards are +-1, the data file is checked, and the fit
recovers a known model."""

import math

import numpy as np
import pytest

from engine.crown.scenario import scenario
from engine.crown.state_eval import (
    DEFAULT_PATH,
    FEATURES,
    StateEvaluator,
    StateModel,
    StateModelError,
    default_model,
    features,
    load_model,
)
from tests.crown.support import random_midgame
from tests.support import load_tool

train = load_tool("train_state_eval")

BOARD = "4k3/pppp4/8/8/8/8/PPPP4/4K3 w"


def index(name):
    return FEATURES.index(name)


def test_features_are_antisymmetric_and_the_value_too():
    evaluator = StateEvaluator()
    for seed in range(6):
        g = random_midgame(seed, 120)
        if g.is_terminal():
            continue
        assert features(g, 0) == pytest.approx([-x for x in features(g, 1)])
        assert evaluator(g, 0) == pytest.approx(-evaluator(g, 1))
        assert -1.0 <= evaluator(g, 0) <= 1.0


def test_the_features_read_cards_and_units():
    even = scenario(BOARD, decks=(["Peon"] * 7, ["Peon"] * 7))
    more_cards = scenario(BOARD, decks=(["Peon"] * 7 + ["Guard"] * 3, ["Peon"] * 7))
    richer = scenario(BOARD, decks=(["Peon"] * 4 + ["Tower"] * 3, ["Peon"] * 7))
    bigger_army = scenario("4k3/pppp4/8/8/8/8/PPPPPP2/4K3 w", decks=(["Peon"] * 7, ["Peon"] * 7))
    f = features(even, 0)
    assert f[index("cards")] == 0 and f[index("gold")] == 0 and f[index("army")] == 0
    assert f[index("to_move")] == 1 and features(even, 1)[index("to_move")] == -1
    assert features(more_cards, 0)[index("cards")] == pytest.approx(0.3)
    assert features(richer, 0)[index("gold")] > 0 and features(richer, 0)[index("gold_density")] > 0
    assert features(bigger_army, 0)[index("army")] > 0 and features(bigger_army, 0)[index("board")] > 0


def test_a_decided_board_is_won_or_lost():
    g = scenario("4k3/8/8/8/8/8/8/4K3 w")
    won = scenario("8/8/8/8/8/8/8/4K3 w")              # Yellow has no Sovereign: C2 at the end of the turn
    evaluator = StateEvaluator(StateModel(tuple(0.0 for _ in FEATURES)))
    assert evaluator(g, 0) == 0.0
    assert evaluator(won, 0) == 1.0 and evaluator(won, 1) == -1.0


def test_the_shipped_model_is_read_and_says_how_it_was_trained():
    model = default_model()
    assert len(model.weights) == len(FEATURES) and all(math.isfinite(w) for w in model.weights)
    trained = model.trained
    assert trained["games"] >= 1000 and trained["positions"] > 10_000
    # It was kept because it predicts held-out games better than the board alone.
    assert trained["held_out_log_loss"] < trained["board_only_log_loss"]
    assert load_model(DEFAULT_PATH) == model
    # Round trip through the writer.
    assert StateModel(model.weights).to_toml() and load_model(DEFAULT_PATH).weights == model.weights


@pytest.mark.parametrize("text, message", [
    ("[weights]\nboard = 1.0\n", "lacks 'board_late'"),
    ("[weights]\n" + "".join(f"{n} = 1.0\n" for n in FEATURES) + "material = 2\n", "'material' is not a feature"),
    ("[weights]\n" + "".join(f"{n} = 1.0\n" for n in FEATURES).replace("board = 1.0", 'board = "x"'),
     "'board' must be a finite number"),
    ("[weights]\n" + "".join(f"{n} = 1.0\n" for n in FEATURES).replace("board = 1.0", "board = nan"),
     "'board' must be a finite number"),
    ("[weights\n", "not valid TOML"),
    ("title = 1\n", "missing the [weights] table"),
])
def test_a_bad_model_file_is_refused_with_its_place(tmp_path, text, message):
    path = tmp_path / "state_eval.toml"
    path.write_text(text)
    with pytest.raises(StateModelError) as info:
        load_model(path)
    assert str(path) in str(info.value) and message in str(info.value)
    with pytest.raises(StateModelError, match="cannot read"):
        load_model(tmp_path / "missing.toml")


def test_the_fit_recovers_a_known_model():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, 3))
    truth = np.array([1.5, -0.7, 0.0])
    y = (rng.random(4000) < 1 / (1 + np.exp(-X @ truth))).astype(float)
    w = train.fit(X, y)
    assert np.allclose(w, truth, atol=0.15)
    assert train.log_loss(X, y, w) < train.log_loss(X, y, np.zeros(3))
    assert train.accuracy(X, y, w) > 0.7
