"""The training loop of the state evaluation (tools/state_eval_loop.py): seeded batches that do not
overlap, games that resume where they stopped, the warm-started fit and the gate's decision on data
with a known answer, and a loop that goes on where it stopped and records where its model came from."""

import json

import numpy as np
import pytest

from engine.crown.state_eval import ALL_FEATURES, FEATURES, StateModel, load_model
from tests.support import load_tool

loop = load_tool("state_eval_loop")
train = load_tool("train_state_eval")

#: Games of four turns (the C3 limit): a fraction of a second each, every one a draw.
TINY = loop.Settings(seed=5, games=3, held_out=2, max_turns=4)


def test_batches_are_seeded_apart_and_grow_by_their_tail():
    held = loop.batch_jobs(TINY, "held-out", 4)
    assert [job[0] for job in held] == [held[0][0] + i for i in range(4)]
    assert loop.batch_jobs(TINY, "held-out", 2) == held[:2]            # a longer batch keeps the shorter's games
    seeds = {job[0] for what in ("held-out", "round-1", "round-2") for job in loop.batch_jobs(TINY, what, 50)}
    assert len(seeds) == 150                                             # no game in two batches
    # Not the games of tools/train_state_eval.py (seed * 100000 + i) nor of another loop seed.
    assert min(seeds) >= 2**20
    other = loop.Settings(seed=6, games=3, held_out=2, max_turns=4)
    assert not seeds & {job[0] for job in loop.batch_jobs(other, "held-out", 50)}
    mix = loop.Settings(mix=0.5)
    opponents = [job[1] for job in loop.batch_jobs(mix, "round-1", 400)]
    assert 150 < opponents.count("greedy") < 250 and set(opponents) == {"greedy", "expert"}


def test_a_stopped_batch_goes_on_where_it_stopped(tmp_path):
    jobs = loop.batch_jobs(TINY, "round-1", 3)
    whole = tmp_path / "whole.jsonl"
    games = loop.play_batch(whole, jobs)
    assert [g["seed"] for g in games] == [job[0] for job in jobs]
    lines = whole.read_text().splitlines()
    # Stopped after the second game, in the middle of writing the third.
    cut = tmp_path / "cut.jsonl"
    cut.write_text(lines[0] + "\n" + lines[1] + "\n" + lines[2][:40])
    played = []
    again = loop.play_batch(cut, jobs, report=played.append)
    assert len(played) == 1                                              # only the missing game was played
    assert again == games and cut.read_text() == whole.read_text()
    cut.write_text(lines[0] + "\nnot json\n" + lines[1] + "\n")
    with pytest.raises(loop.LoopError, match="line 2 is not a game record"):
        loop.play_batch(cut, jobs)


def test_the_positions_are_those_of_the_game():
    game = loop.play_record(*loop.batch_jobs(TINY, "held-out", 1)[0])
    seen = [(s.turn, s.current_player(), len(s.history)) for s in train.positions(game)]
    assert len(game["points"]) == 4
    # Each kept position is the first decision of a turn: four turns, the players in turn, each
    # after the number of steps the game recorded for it.
    assert [turn for turn, _, _ in seen] == [0, 1, 2, 3]
    assert [player for _, player, _ in seen] in ([0, 1, 0, 1], [1, 0, 1, 0])
    assert [steps for _, _, steps in seen] == game["points"]


def known_data(rng, n, truth):
    X = rng.normal(size=(n, len(truth)))
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ truth))).astype(float)
    return X, y


def test_the_warm_fit_is_about_the_fit_of_both_halves():
    rng = np.random.default_rng(7)
    truth = np.array([1.2, -0.6, 0.3])
    X1, y1 = known_data(rng, 6000, truth)
    X2, y2 = known_data(rng, 2000, truth)
    names = FEATURES[:3]
    first = train.fit(X1, y1)
    parent = StateModel(tuple(list(first) + [0.0] * (len(ALL_FEATURES) - 3)))
    warm = loop.warm_fit(X2, y2, names, parent, len(y1), l2=1e-3)
    both = train.fit(np.vstack([X1, X2]), np.concatenate([y1, y2]))
    alone = train.fit(X2, y2)
    # The prior carries the parent's 6000 positions: the warm fit is near the fit of all 8000, much
    # nearer than the fit of the 2000 new ones alone.
    assert np.abs(warm - both).max() < 0.02
    assert np.abs(warm - both).max() < np.abs(alone - both).max() / 3
    # A parent of no positions is no prior: the warm fit is the new data's own fit.
    assert np.allclose(loop.warm_fit(X2, y2, names, parent, 0, l2=1e-3), alone, atol=1e-6)


def test_a_feature_the_parent_lacks_is_fitted_freely():
    rng = np.random.default_rng(8)
    truth = np.array([1.0, 0.8])
    X, y = known_data(rng, 5000, truth)
    names = ("board", "hand")
    parent = StateModel(tuple([1.0] + [0.0] * (len(ALL_FEATURES) - 1)))    # no weight for "hand"
    w = loop.warm_fit(X, y, names, parent, 10**6, l2=1e-3)
    assert w[0] == pytest.approx(1.0, abs=0.01)                           # held by a strong prior
    assert w[1] == pytest.approx(0.8, abs=0.15)                           # learnt from the data


def test_the_gate_lands_a_better_model_and_not_an_equal_one():
    rng = np.random.default_rng(9)
    truth = np.array([1.5, -1.0])
    games = 300
    X, y = known_data(rng, games * 20, truth)
    group = np.repeat(np.arange(games), 20)
    better = loop.gate(X, y, group, truth, np.array([1.5, 0.0]), margin=0.001, z=1.645)
    assert better["accepted"] and better["gain"] > 0.05
    assert better["candidate_log_loss"] < better["parent_log_loss"]
    same = loop.gate(X, y, group, truth, truth, margin=0.001, z=1.645)
    assert not same["accepted"] and same["gain"] == 0
    worse = loop.gate(X, y, group, np.array([1.5, 0.0]), truth, margin=0.001, z=1.645)
    assert not worse["accepted"] and worse["gain"] < 0
    # A gain inside the noise is not enough, even with no margin: the fit to these very positions
    # beats the true model on them (it minimises their log-loss), by less than the noise.
    overfit = train.fit(X, y, l2=0.0)
    near = loop.gate(X, y, group, overfit, truth, margin=0.0, z=1.645)
    assert 0 < near["gain"] < 1.645 * near["gain_se"] and not near["accepted"]
    # The margin: a real gain below it is refused.
    assert not loop.gate(X, y, group, truth, np.array([1.5, 0.0]), margin=1.0, z=0.0)["accepted"]


def test_the_gate_counts_games_not_positions():
    # 300 games whose positions all share the game's result: the standard error is that of 300
    # units, larger than if the 6000 positions were independent.
    rng = np.random.default_rng(10)
    games = 300
    X = rng.normal(size=(games * 20, 1))
    y = np.repeat((rng.random(games) < 0.5).astype(float), 20)
    group = np.repeat(np.arange(games), 20)
    clustered = loop.gate(X, y, group, np.array([0.3]), np.array([0.0]), margin=0.0, z=1.645)
    independent = loop.gate(X, y, np.arange(games * 20), np.array([0.3]), np.array([0.0]), margin=0.0, z=1.645)
    assert clustered["games"] == games and independent["games"] == games * 20
    assert clustered["gain_se"] > independent["gain_se"]


def test_the_loop_goes_on_where_it_stopped_and_records_provenance(tmp_path):
    start = tmp_path / "start.toml"
    start.write_text(StateModel(tuple([0.5] + [0.0] * (len(FEATURES) - 1)), {"games": 10, "positions": 200}).to_toml())
    work, out = tmp_path / "work", tmp_path / "out.toml"
    first = loop.run_loop(work, TINY, 1, start, out)
    assert len(first) == 1 and (work / "round-1" / "candidate.toml").exists()
    gate = json.loads((work / "round-1" / "gate.json").read_text())
    assert gate == {k: v for k, v in first[0].items() if k != "round"}
    candidate = load_model(work / "round-1" / "candidate.toml")
    trained = candidate.trained
    assert trained["parent"] == loop.digest(start) and trained["round"] == 1
    assert trained["round_games"] == 3 and trained["games"] == 13
    assert trained["positions"] == 200 + trained["round_positions"]
    assert trained["held_out_games"] == 2 and trained["held_out_first_seed"] == loop.first_seed(5, "held-out")
    assert trained["held_out_log_loss"] == gate["candidate_log_loss"]
    assert trained["parent_held_out_log_loss"] == gate["parent_log_loss"]
    assert trained["board_only_log_loss"] == gate["board_only_log_loss"]
    # The current model follows the gate: the candidate when it passed, else the start.
    current = (work / "parent.toml").read_text()
    expected = (work / "round-1" / "candidate.toml") if gate["accepted"] else start
    assert current == expected.read_text() == out.read_text()
    # The same command again has nothing to do; one more round plays only that round's games.
    games_before = (work / "held-out.jsonl").read_text()
    assert loop.run_loop(work, TINY, 1, start, out) == first
    played = []
    second = loop.run_loop(work, TINY, 2, start, out, report=played.append)
    assert len(second) == 2 and (work / "held-out.jsonl").read_text() == games_before
    assert sum("round-2/games.jsonl" in line for line in played) == 3
    assert load_model(work / "round-2" / "candidate.toml").trained["round"] == 2
    # Other settings in the same folder are refused, naming the setting.
    with pytest.raises(loop.LoopError, match="--games was 3 in this work folder, not 4"):
        loop.run_loop(work, loop.Settings(seed=5, games=4, held_out=2, max_turns=4), 3, start)
    with pytest.raises(loop.LoopError, match="--extra: 'material' is not a feature"):
        loop.run_loop(tmp_path / "other", TINY, 1, start, extra=("material",))


def test_the_prior_counts_what_the_parent_was_fitted_to():
    # train_state_eval's files count their held-out games in games and positions; the loop's do not.
    assert loop.fitted({"tool": "tools/train_state_eval.py", "games": 1200, "positions": 40000,
                        "held_out_games": 240}) == (960, 32000)
    assert loop.fitted({"tool": "tools/state_eval_loop.py", "games": 1960, "positions": 70000,
                        "held_out_games": 300}) == (1960, 70000)
    assert loop.fitted({}) == (0, 0)


def test_the_tool_says_what_is_wrong_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[weights]\nboard = 1.0\n")
    assert loop.main(["--work", str(tmp_path / "w"), "--model-in", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("state_eval_loop: error:") and "lacks 'board_late'" in err and "\n" not in err
    with pytest.raises(SystemExit):
        loop.main(["--work", str(tmp_path / "w"), "--games", "0"])
    assert "--games must be at least 1" in capsys.readouterr().err
