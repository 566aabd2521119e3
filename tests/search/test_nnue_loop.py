"""The NNUE training loop (engine/board/nnue_loop.py, `ftc nnue-loop`) on tiny generations: a few
data games at a few nodes, one epoch, a gate of a few pairs whose decision a stand-in test forces
(the SPRT itself is tested in tests/search/test_sprt.py). The steps that train skip without PyTorch,
as tests/search/test_nnue_train.py does; the options, the gate's pairs and the chain's page do not
need it."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from engine.board import nnue_data, nnue_train
from engine.board import nnue_loop as L
from engine.board.evaluate import default_net_path
from engine.board.nnue import QA, QB, load_net, save_net
from engine.crown.armies import point_buy_start
from engine.interfaces import cli
from engine.position import Position
from tests.support import FTC, child_env

HAVE_TORCH = L.importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="the training step needs PyTorch (the train extra)")

#: Two generations small enough for a test: 4 games of at most 20 orders at 30 nodes, one epoch, a gate
#: of at most 3 pairs at 30 nodes.
TINY = dict(games=4, nodes=30, max_plies=20, shard_games=2, epochs=1, lr=0.002, gate_nodes=30, gate_max_games=6)


class Forced:
    """A sequential test whose decision is fixed: ``verdict`` after ``after`` pairs."""

    verdict = "H1 accepted"
    after = 2

    def __init__(self, elo0, elo1, alpha, beta, max_games):
        self.pairs: list[tuple[float, float]] = []

    def add_pair(self, a, b):
        self.pairs.append((a, b))

    def status(self):
        return self.verdict if len(self.pairs) >= self.after else "continue"

    def to_json(self):
        accept = self.verdict == "H1 accepted"
        return {"llr": 3.1 if accept else -3.1, "bounds": [-2.94, 2.94], "elo": 12.5 if accept else -8.0,
                "elo_ci95": [2.0, 23.0], "pairs": len(self.pairs), "decision": self.status()}


class Rejecting(Forced):
    verdict = "H0 accepted"


@pytest.fixture
def start(tmp_path):
    """The shipped net with 800 centi-points added to every value: any training on real positions
    lowers its loss in the first steps, so each generation's candidate differs from its parent
    (a fine-tuning that does not lower the validation loss writes the parent's weights back). With
    200 the shipped net fc2d65622fe4 left a generation in three of these tests no gain on its few
    validation positions: a first Adam step moves every weight, and the offset's pull must outweigh it."""
    net = load_net(default_net_path())
    net.b2 += 2 * QA * QB
    path = tmp_path / "start.nnue"
    save_net(net, path)
    return path


def run(tmp_path, start, rounds=2, sprt=Forced, work="work", **changes):
    settings = L.LoopSettings(rounds=rounds, **{**TINY, **changes})
    lines: list[str] = []
    result = L.run_loop(tmp_path / work, settings, point_buy_start, sprt, start, tmp_path / "out.nnue",
                        tmp_path / "chain.json", say=lines.append)
    return result, lines


class Counting:
    """Counts the calls of a module function (and, with ``stop_at``, raises KeyboardInterrupt at that call)."""

    def __init__(self, monkeypatch, module, name, stop_at=None):
        self.real = getattr(module, name)
        self.calls: list[tuple] = []
        self.stop_at = stop_at
        monkeypatch.setattr(module, name, self)

    def __call__(self, *args, **kwargs):
        self.calls.append(args)
        if self.stop_at is not None and len(self.calls) == self.stop_at:
            raise KeyboardInterrupt
        return self.real(*args, **kwargs)


@needs_torch
def test_two_generations_chain_their_nets_and_write_the_last(tmp_path, start):
    result, lines = run(tmp_path, start)
    chain = json.loads((tmp_path / "chain.json").read_text())
    first, second = chain["generations"]
    root = load_net(start)
    assert (first["status"], second["status"]) == ("accepted", "accepted")
    assert first["parent"] == root.digest() and second["parent"] == first["candidate"] != root.digest()
    g = root.provenance.get("chain", {}).get("generation", 0)      # the start's place in its own chain
    assert [first["index"], second["index"]] == [1, 2] and [first["generation"], second["generation"]] == [g + 1, g + 2]
    out = load_net(tmp_path / "out.nnue")
    assert out.digest() == second["candidate"] == load_net(tmp_path / "work" / "parent.nnue").digest()
    link = out.provenance["chain"]
    # The start's positions: its chain's total when it came from the loop, else what it was trained on.
    root_positions = root.provenance["chain"]["total_positions"] if "chain" in root.provenance \
        else sum(root.provenance["positions"].values())
    assert link["parent"] == first["candidate"] and link["generation"] == g + 2
    assert link["positions"] == second["positions"] > 0
    assert link["total_positions"] == root_positions + first["positions"] + second["positions"]
    assert link["sprt"]["elo"] == 12.5 and link["sprt"]["llr"] == 3.1 and link["sprt"]["games"] == 4
    assert out.provenance["init"]["digest"] == first["candidate"]      # trained from its parent's weights
    # Fresh data each generation (other seeds), thrown away once the generation is done.
    assert first["data"]["seed"] != second["data"]["seed"]
    assert not (tmp_path / "work" / "gen-1" / "data").exists() and not (tmp_path / "work" / "gen-2" / "data").exists()
    assert any(line.startswith("generation 2: accepted") for line in lines)
    # No guard was asked for: none played, none recorded.
    assert first["guard"] is None and "guard" not in link and not (tmp_path / "work" / "gen-1" / "guard.jsonl").exists()


class Stages:
    """A factory of forced tests that records the bounds and games each was made with: the gate's
    (ELO0 >= 0) accepts; the guard's (ELO0 < 0) decides as ``guard``."""

    def __init__(self, guard):
        self.guard = guard
        self.made: list[tuple[float, float, int]] = []

    def __call__(self, elo0, elo1, alpha, beta, max_games):
        self.made.append((elo0, elo1, max_games))
        return (Forced if elo0 >= 0 else self.guard)(elo0, elo1, alpha, beta, max_games)


#: A gate on the standard position alone, a guard on fairy armies.
GUARDED = dict(gate_mix=(1, 0, 0), gate_compass=0.0, guard_mix=(0, 0, 1), guard_sprt=(-20.0, 0.0), guard_max_games=8)


@needs_torch
def test_a_candidate_that_passes_its_gate_and_fails_its_guard_is_rejected(tmp_path, start, monkeypatch):
    pairs = Counting(monkeypatch, L, "play_pair")
    stages = Stages(Rejecting)
    _, lines = run(tmp_path, start, rounds=1, sprt=stages, **GUARDED)
    (entry,) = json.loads((tmp_path / "chain.json").read_text())["generations"]
    root = load_net(start).digest()
    assert entry["status"] == "rejected" and entry["decision_bound"] == "guard: H0 (elo0)"
    assert (entry["games"], entry["elo"]) == (4, 12.5)                       # the gate's, which it passed
    guard = entry["guard"]
    assert (guard["decision"], guard["games"], guard["elo"], guard["llr"]) == ("rejected", 4, -8.0, -3.1)
    assert stages.made == [(0.0, 15.0, TINY["gate_max_games"]), (-20.0, 0.0, 8)]
    # The gate's pairs on the standard position, the guard's on fairy armies, from seeds of their own.
    assert [tuple(args[4]["mix"]) for args in pairs.calls] == [(1, 0, 0)] * 2 + [(0, 0, 1)] * 2
    gate_seeds, guard_seeds = {args[1] for args in pairs.calls[:2]}, {args[1] for args in pairs.calls[2:]}
    assert len(gate_seeds | guard_seeds) == 4
    assert sorted(L._read_pairs(tmp_path / "work" / "gen-1" / "guard.jsonl")) == [0, 1]
    assert load_net(tmp_path / "work" / "parent.nnue").digest() == root and not (tmp_path / "out.nnue").exists()
    assert any(line.startswith("guard: 2 pair(s)") and line.endswith("H0 accepted") for line in lines)
    assert any(line.startswith("generation 1: rejected") and "; guard 2/4 games, Elo -8.0" in line for line in lines)
    page = L.chain_markdown(L.read_chain(tmp_path / "chain.json"))
    assert "| 1 | rejected (guard) |" in page and "| 0/0/1: 4 games, Elo -8.0, rejected |" in page


@needs_torch
def test_a_guard_that_passes_accepts_and_a_stopped_guard_continues(tmp_path, start, monkeypatch):
    pairs = Counting(monkeypatch, L, "play_pair", stop_at=4)     # Ctrl-C in the guard's second pair
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, start, rounds=1, sprt=Stages(Forced), **GUARDED)
    work = tmp_path / "work"
    assert L.kept(work).endswith(f"its trained candidate, 2 gate pair(s), 1 guard pair(s) kept in {work}")
    run(tmp_path, start, rounds=1, sprt=Stages(Forced), **GUARDED)
    assert [args[0] for args in pairs.calls] == [0, 1, 0, 1, 1]        # nothing played twice but the stopped pair
    (entry,) = json.loads((tmp_path / "chain.json").read_text())["generations"]
    assert entry["status"] == "accepted" and entry["decision_bound"] == "H1 (elo1)"
    assert (entry["guard"]["decision"], entry["guard"]["games"]) == ("accepted", 4)
    assert entry["settings"]["guard_mix"] == [0.0, 0.0, 1.0] and entry["settings"]["guard_sprt"] == [-20.0, 0.0]
    link = load_net(tmp_path / "out.nnue").provenance["chain"]
    assert link["guard"]["bounds_elo"] == [-20.0, 0.0] and link["guard"]["elo"] == 12.5
    assert load_net(work / "parent.nnue").digest() == entry["candidate"]


@needs_torch
def test_a_rejected_candidate_leaves_the_parent_in_place(tmp_path, start):
    result, lines = run(tmp_path, start, sprt=Rejecting, keep_data=True)
    chain = json.loads((tmp_path / "chain.json").read_text())["generations"]
    root = load_net(start).digest()
    assert [g["status"] for g in chain] == ["rejected", "rejected"]
    assert [g["parent"] for g in chain] == [root, root]              # the next round continued from the parent
    assert all(g["candidate"] != root for g in chain)
    assert not (tmp_path / "out.nnue").exists()
    assert load_net(tmp_path / "work" / "parent.nnue").digest() == root
    assert chain[1]["total_positions"] == chain[0]["total_positions"]   # a rejected generation adds nothing
    assert (tmp_path / "work" / "gen-1" / "data" / "manifest.json").exists()   # --keep-data


@needs_torch
@pytest.mark.parametrize("step", ["data", "train", "gate"])
def test_a_stopped_run_continues_without_redoing_finished_work(tmp_path, start, monkeypatch, step):
    _, _ = run(tmp_path, start, rounds=1, work="reference")
    reference = json.loads((tmp_path / "chain.json").read_text())["generations"][0]
    (tmp_path / "chain.json").unlink()
    (tmp_path / "out.nnue").unlink()

    from engine.board import nnue_train
    shards = Counting(monkeypatch, nnue_data, "generate_shard", stop_at=2 if step == "data" else None)
    trains = Counting(monkeypatch, nnue_train, "train")
    pairs = Counting(monkeypatch, L, "play_pair", stop_at=2 if step == "gate" else None)
    if step == "train":
        real = trains.real

        def stopped(*args, **kwargs):              # Ctrl-C during the epochs: train writes its best net so far
            trains.calls.append(args)
            result = real(*args, **kwargs)
            if len(trains.calls) == 1:
                result.interrupted = True
            return result
        monkeypatch.setattr(nnue_train, "train", stopped)

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, start, rounds=1)
    work = tmp_path / "work"
    kept = {"data": (2, 0, 0), "train": (2, 1, 0), "gate": (2, 1, 2)}[step]     # the stopped call included
    assert (len(shards.calls), len(trains.calls), len(pairs.calls)) == kept
    assert not (work / "gen-1" / "candidate.nnue").exists() or step == "gate"
    assert "1 gate pair(s)" in L.kept(work) if step == "gate" else "finished generation" in L.kept(work)

    if step == "gate":                           # a crash while a pair was written: a line cut short
        with (work / "gen-1" / "gate.jsonl").open("a") as f:
            f.write('{"pair": 1, "seed"')
    run(tmp_path, start, rounds=1)
    # Every shard made once, one finished training, every pair played once (the stopped call aside).
    seeds = [args[0] for args in shards.calls]
    assert len(set(seeds)) == 2 and seeds == (seeds[:2] + seeds[1:2] if step == "data" else seeds[:2])
    assert len(trains.calls) == (2 if step == "train" else 1)
    assert sorted(args[0] for args in pairs.calls) == ([0, 1, 1] if step == "gate" else [0, 1])
    assert sorted(L._read_pairs(work / "gen-1" / "gate.jsonl")) == [0, 1]
    done = json.loads((tmp_path / "chain.json").read_text())["generations"][0]
    assert (done["candidate"], done["positions"], done["data"]) == (reference["candidate"], reference["positions"],
                                                                     reference["data"])
    # Run again: nothing left to do.
    before = (len(shards.calls), len(trains.calls), len(pairs.calls))
    result, _ = run(tmp_path, start, rounds=1)
    assert result.generations == [] and (len(shards.calls), len(trains.calls), len(pairs.calls)) == before


@needs_torch
def test_replay_trains_on_a_share_of_the_previous_generations_games(tmp_path, start):
    result, lines = run(tmp_path, start, sprt=Rejecting, replay=0.5, pool=0)
    first, second = json.loads((tmp_path / "chain.json").read_text())["generations"]
    kept = json.loads((tmp_path / "work" / "gen-2" / "train.json").read_text())
    assert first["replayed"] == 0 and second["replayed"] == kept["replayed"] > 0
    assert second["replayed"] < first["positions"]                    # whole games, about half of them
    assert any(line.startswith(f"generation 2: training from {first['parent']} on {second['positions']:,} new "
                               f"positions and {second['replayed']:,} replayed") for line in lines)
    # gen-1's data was kept for gen 2's training and then deleted; gen 2's waits for gen 3's (a longer --rounds).
    assert not (tmp_path / "work" / "gen-1" / "data").exists() and (tmp_path / "work" / "gen-2" / "data").exists()


@pytest.fixture(scope="module")
def two_data_folders(tmp_path_factory):
    """Two data folders of 8 tiny games each (standard position, 30 nodes, at most 20 orders)."""
    base = tmp_path_factory.mktemp("replay")
    for name, seed in (("new", 0), ("old", 1000)):
        settings = nnue_data.Settings(seed=seed, games=8, nodes=30, max_plies=20, shard_games=4, mix=(1.0, 0.0, 0.0),
                                      compass=0.0, evaluation="classical")
        nnue_data.generate(base / name, settings, point_buy_start)
    return base


@pytest.mark.parametrize("share", [0.25, 1.0])
def test_replay_adds_whole_games_of_the_previous_data_in_the_share_asked(two_data_folders, share):
    new = nnue_train.load_dataset(two_data_folders / "new")
    old = nnue_train.load_dataset(two_data_folders / "old")
    merged = L._merge_replay(new, two_data_folders / "old", share, seed=3)
    n = new.positions
    old_games = np.unique(old.arrays["game"])
    replayed = np.unique(merged.arrays["game"][n:])
    assert len(old_games) >= 4 and n > 0
    # The new data comes first, unchanged; then round(share * games) of the old folder's games.
    assert all(merged.record(i) == new.record(i) for i in range(n))
    assert len(replayed) == round(share * len(old_games)) and set(replayed) <= set(old_games)
    # Each replayed game whole, position for position (units, Barracks, side), in the old order.
    rows = np.flatnonzero(np.isin(old.arrays["game"], replayed))
    assert merged.positions == n + len(rows)
    assert all(merged.record(n + k) == old.record(int(j)) for k, j in enumerate(rows))
    assert list(merged.arrays["score"][n:]) == list(old.arrays["score"][rows])


def test_a_fine_tuning_keeps_the_parents_objective():
    """K, lam, weight decay and mirroring come from the parent's header, so that a value means the
    same win probability along the chain; the rate and epochs are the loop's."""
    parent = SimpleNamespace(provenance={"k": 361.5, "lam": 0.5, "options": {"weight_decay": 1e-4, "mirror": True}})
    settings = L.LoopSettings(epochs=2, lr=1e-05, batch=512)
    options = L._train_options(settings, parent, Path("parent.nnue"), seed=2**32 + 7)
    assert (options.k, options.lam, options.weight_decay, options.mirror) == (361.5, 0.5, 1e-4, True)
    assert (options.init, options.epochs, options.lr, options.batch, options.seed) == ("parent.nnue", 2, 1e-05, 512, 7)
    # A parent whose header names none of them: the trainer's defaults, K fitted.
    bare = L._train_options(settings, SimpleNamespace(provenance={}), Path("parent.nnue"), seed=1)
    assert (bare.k, bare.lam, bare.weight_decay, bare.mirror) == (None, 0.75, 0.0, False)


@needs_torch
def test_the_pool_keeps_the_parents_rejected_data_for_its_next_candidates(tmp_path, start):
    result, lines = run(tmp_path, start, rounds=3, sprt=Rejecting, replay=0.5)
    chain = json.loads((tmp_path / "chain.json").read_text())["generations"]
    made = [g["positions"] for g in chain]
    # Each candidate of the same parent trains on its own data and all of the rejected ones before it
    # (the parent made them all), not on a replayed share.
    assert [g["pooled"] for g in chain] == [0, made[0], made[0] + made[1]]
    assert [g["replayed"] for g in chain] == [0, 0, 0]
    assert any(line.startswith(f"generation 3: training from {chain[0]['parent']} on {made[2]:,} new positions, "
                               f"{made[0] + made[1]:,} of the pool (generation(s) 2, 1)") for line in lines)
    assert json.loads((tmp_path / "work" / "gen-3" / "train.json").read_text())["pool"] == [2, 1]
    # The data stays while the next candidate of the parent would train on it.
    assert all((tmp_path / "work" / f"gen-{g}" / "data").exists() for g in (1, 2, 3))


@needs_torch
def test_the_pool_holds_at_most_its_positions_and_the_rest_goes(tmp_path, start):
    # The same settings make the same data: a first run with no pool tells each generation's size.
    probe, _ = run(tmp_path, start, rounds=3, sprt=Rejecting, work="probe", pool=0)
    size = max(g["positions"] for g in probe.generations)                  # room for one generation, not two
    result, _ = run(tmp_path, start, rounds=3, sprt=Rejecting, pool=size)
    chain = json.loads((tmp_path / "chain.json").read_text())["generations"][3:]
    assert [g["positions"] for g in chain] == [g["positions"] for g in probe.generations]
    assert chain[1]["pooled"] == chain[0]["positions"] and chain[2]["pooled"] == chain[1]["positions"]
    assert not (tmp_path / "work" / "gen-1" / "data").exists() and not (tmp_path / "work" / "gen-2" / "data").exists()
    assert (tmp_path / "work" / "gen-3" / "data").exists()


@needs_torch
def test_an_accepted_candidate_counts_its_pool_in_the_chain_and_empties_it(tmp_path, start):
    class RejectThenAccept(Forced):
        calls = 0

        def __init__(self, *args):
            super().__init__(*args)
            type(self).calls += 1
            self.verdict = "H0 accepted" if type(self).calls == 1 else "H1 accepted"

    result, _ = run(tmp_path, start, rounds=3, sprt=RejectThenAccept, replay=0.5)
    first, second, third = json.loads((tmp_path / "chain.json").read_text())["generations"]
    assert (first["status"], second["status"]) == ("rejected", "accepted")
    root_total = first["total_positions"]
    assert second["pooled"] == first["positions"]
    assert second["total_positions"] == root_total + first["positions"] + second["positions"]
    assert second["generation"] == load_net(start).provenance.get("chain", {}).get("generation", 0) + 1
    if third["status"] == "rejected":               # the candidate may equal its parent (no loss gained): rejected
        link = load_net(tmp_path / "out.nnue").provenance["chain"]
        assert link["pooled"] == first["positions"] and link["total_positions"] == second["total_positions"]
    # The new parent starts an empty pool: generation 3 trains on its own data and a replayed share of
    # generation 2's (made by its grandparent), none of generation 1's.
    assert third["pooled"] == 0 and third["parent"] == second["candidate"]
    assert 0 < third["replayed"] < second["positions"]
    assert not any((tmp_path / "work" / f"gen-{g}" / "data").exists() for g in (1, 2))


@needs_torch
def test_a_work_folder_from_before_the_pool_runs_with_none(tmp_path, start):
    run(tmp_path, start, rounds=1, pool=0)
    state_path = tmp_path / "work" / "loop.json"
    state = json.loads(state_path.read_text())
    del state["settings"]["pool"]                                   # as the loop wrote it before --pool
    state_path.write_text(json.dumps(state))
    run(tmp_path, start, rounds=1, pool=0)                           # continues
    with pytest.raises(L.LoopError, match=r"^--pool: the work folder .* runs with 0, this command asks for 1000000"):
        run(tmp_path, start, rounds=2)


class Undecided(Forced):
    """Never crosses a bound: the gate plays until its games run out."""

    def status(self):
        return "continue"


@needs_torch
def test_a_rerun_may_give_the_gates_to_come_more_games(tmp_path, start):
    run(tmp_path, start, rounds=1, sprt=Undecided, gate_max_games=4)
    first_pairs = (tmp_path / "work" / "gen-1" / "gate.jsonl").read_text()
    run(tmp_path, start, rounds=2, sprt=Undecided, gate_max_games=8)       # the same work folder continues
    first, second = json.loads((tmp_path / "chain.json").read_text())["generations"]
    assert (first["games"], first["decision_bound"]) == (4, "games ran out")   # a finished gate keeps its end
    assert (second["games"], second["status"]) == (8, "rejected")
    assert second["settings"]["gate_max_games"] == 8
    # A gate's pair seeds do not depend on how many games it may play.
    again = tmp_path / "again"
    again.mkdir()
    run(again, start, rounds=1, sprt=Undecided, gate_max_games=6)
    seeds = [json.loads(line)["seed"] for line in first_pairs.splitlines()]
    assert seeds == [json.loads(line)["seed"]
                     for line in (again / "work" / "gen-1" / "gate.jsonl").read_text().splitlines()][:len(seeds)]


@needs_torch
def test_a_rerun_may_fine_tune_the_generations_to_come_otherwise(tmp_path, start, monkeypatch):
    """--epochs, --lr and --batch apply to the generations not yet trained; each generation's training
    record and chain entry name the values its candidate was trained with (generation 1, trained
    before the run was stopped in its gate, keeps its own)."""
    pairs = Counting(monkeypatch, L, "play_pair", stop_at=2)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, start, rounds=1, sprt=Undecided)
    assert pairs.calls and (tmp_path / "work" / "gen-1" / "train.json").exists()
    lines = run(tmp_path, start, rounds=2, sprt=Undecided, lr=0.001, epochs=2, batch=64)[1]
    first, second = json.loads((tmp_path / "chain.json").read_text())["generations"]
    assert {key: first["settings"][key] for key in ("lr", "epochs", "batch")} == \
        {"lr": TINY["lr"], "epochs": TINY["epochs"], "batch": 1024}
    assert {key: second["settings"][key] for key in ("lr", "epochs", "batch")} == {"lr": 0.001, "epochs": 2, "batch": 64}
    assert json.loads((tmp_path / "work" / "gen-2" / "train.json").read_text())["training"] == \
        {"lr": 0.001, "epochs": 2, "batch": 64}
    assert any("generation 2: training from" in line and "(2 epoch(s), lr 0.001," in line for line in lines)
    assert not any(line.startswith("generation 1: training") for line in lines)     # its training was kept


@needs_torch
def test_other_settings_for_a_work_folder_are_refused(tmp_path, start):
    run(tmp_path, start, rounds=1)
    with pytest.raises(L.LoopError, match=r"^--gate-nodes: the work folder .* runs with 30, this command asks for 40"):
        run(tmp_path, start, rounds=2, gate_nodes=40)


def test_a_pair_plays_one_opening_with_the_colours_swapped():
    """The same net on both sides: the two games of a pair are the same game (same army, opening and
    searches), so the candidate's points as Blue and as Yellow add up to one."""
    net = str(default_net_path())
    data = L._gate_data(L.LoopSettings(max_plies=40))
    for seed in (3, 4):
        pair = L.play_pair(0, seed, net, net, data, point_buy_start, 40, None)
        assert pair.scores[0] + pair.scores[1] == 1.0
        assert pair.ends[0] == pair.ends[1] and pair.plies[0] == pair.plies[1]


@pytest.fixture(scope="module")
def good_and_suicidal(tmp_path_factory):
    """The shipped net and its negation (w2 and b2 negated): a net that judges every position from
    the other side's view, so that its search plays for its opponent and loses every game."""
    base = tmp_path_factory.mktemp("nets")
    net = load_net(default_net_path())
    save_net(net, base / "good.nnue")
    net.w2, net.b2 = -net.w2, -net.b2
    save_net(net, base / "suicidal.nnue")
    return base / "good.nnue", base / "suicidal.nnue", net.digest()


GATE = dict(mix=(1.0, 0.0, 0.0), compass=0.0, max_plies=200)


def recording(after: int) -> tuple[type, list[tuple[float, float]]]:
    """A Forced test that accepts after ``after`` pairs, and the list of the pairs fed to it."""
    fed: list[tuple[float, float]] = []

    class Recording(Forced):
        def add_pair(self, a, b):
            fed.append((a, b))
            super().add_pair(a, b)

    Recording.after = after
    return Recording, fed


def test_a_pair_credits_the_candidate_with_its_own_points_in_either_colour(good_and_suicidal, monkeypatch):
    good, suicidal, suicidal_digest = good_and_suicidal
    blue: list[bool] = []                   # per game: does the suicidal net play Blue?
    real = nnue_data.play_game

    def spy(seed, settings, sides, **options):
        blue.append(suicidal_digest in sides.searchers[0].evaluation)
        return real(seed, settings, sides, **options)

    monkeypatch.setattr(nnue_data, "play_game", spy)
    data = L._gate_data(L.LoopSettings(**GATE))
    won = L.play_pair(0, 11, str(good), str(suicidal), data, point_buy_start, nodes=300, movetime=None)
    lost = L.play_pair(0, 11, str(suicidal), str(good), data, point_buy_start, nodes=300, movetime=None)
    assert won.scores == (1.0, 1.0) and lost.scores == (0.0, 0.0), (won, lost)
    # The candidate plays Blue in a pair's first game and Yellow in its second.
    assert blue == [False, True, True, False]


def test_the_gate_feeds_the_sprt_the_candidates_points(tmp_path, good_and_suicidal):
    good, suicidal, _ = good_and_suicidal
    Recording, fed = recording(after=2)
    settings = L.LoopSettings(**GATE, gate_nodes=300, gate_max_games=6)
    result = L.run_gate(tmp_path, good, suicidal, settings, 11, point_buy_start, Recording, "local", 1, lambda line: None)
    assert fed == [(1.0, 1.0), (1.0, 1.0)]
    assert (result["decision"], result["pairs"], result["points"]) == ("accepted", 2, 4.0)


def test_a_gate_feeds_its_kept_pairs_in_order_up_to_its_games(tmp_path):
    """A rerun keeps the finished pairs of gate.jsonl (a line cut short, or a row without a pair
    number, is dropped from the file); with fewer games allowed than pairs kept, the SPRT gets the
    first ones only, and no game is played."""
    rows = [{"pair": i, "seed": 100 + i, "scores": [1.0, 0.5], "ends": ["-", "-"], "plies": [9, 9]} for i in range(5)]
    lines = [json.dumps(r) for r in rows[:3]] + [json.dumps({"pair": "3"})] + [json.dumps(r) for r in rows[3:]]
    (tmp_path / "gate.jsonl").write_text("\n".join(lines) + '\n{"pair": 5, "sco', encoding="utf-8")
    Never, fed = recording(after=10**6)
    settings = L.LoopSettings(**GATE, gate_nodes=300, gate_max_games=6)
    result = L.run_gate(tmp_path, Path("unused"), Path("unused"), settings, 7, point_buy_start, Never, "local", 1,
                        lambda line: None)
    assert fed == [(1.0, 0.5)] * 3
    assert (result["decision"], result["bound"], result["pairs"], result["points"]) == ("rejected", "games ran out", 3, 4.5)
    assert [json.loads(line) for line in (tmp_path / "gate.jsonl").read_text().splitlines()] == rows


def test_the_gate_searches_each_colour_with_its_net_at_the_gate_budget():
    class Searcher:
        def __init__(self, name):
            self.name, self.calls = name, []

        def search(self, position, **options):
            self.calls.append(options)
            return self.name

    blue_to_move = Position.from_text("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    yellow_to_move = Position.from_text("4k3/8/8/8/8/8/8/4K3 b - - 0 1")
    for colour, expected in ((0, ("candidate", "parent")), (1, ("parent", "candidate"))):
        candidate, parent = Searcher("candidate"), Searcher("parent")
        sides = L._Sides(candidate, parent, colour, 300, None)
        assert (sides.search(blue_to_move, nodes=5000, cylindrical=True),
                sides.search(yellow_to_move, nodes=5000)) == expected
        # The gate's budget, not the data's; the other options as play_game passes them.
        blue, yellow = (candidate, parent) if colour == 0 else (parent, candidate)
        assert (blue.calls, yellow.calls) == ([{"nodes": 300, "cylindrical": True}], [{"nodes": 300}])
    timed = L._Sides(Searcher("candidate"), Searcher("parent"), 0, None, 0.25)
    timed.search(blue_to_move, nodes=5000, lines=False)
    assert timed.searchers[0].calls == [{"seconds": 0.25, "lines": False}]


def test_generation_seeds_leave_room_for_their_span():
    for generation in range(1, 40):
        for what in ("data", "gate"):
            assert 0 <= L.generation_seed(5, "a66cde7f5713", generation, what, 2**31) < 2**31
    assert L.generation_seed(5, "a66cde7f5713", 1, "data", 10) != L.generation_seed(5, "a66cde7f5713", 1, "gate", 10)


def test_the_gate_plays_the_armies_of_gate_mix_and_gate_compass(monkeypatch):
    """--gate-mix and --gate-compass choose the gate games' armies apart from the data's: the standard
    position alone here, where the data are orthodox Point-Buy armies in Compass mode; without them
    the gate plays the data's armies."""
    played: list[tuple[int, bool]] = []
    real = nnue_data.play_game

    def spy(*args, **kwargs):
        game = real(*args, **kwargs)
        played.append((game.army, game.compass))
        return game

    monkeypatch.setattr(nnue_data, "play_game", spy)
    net = str(default_net_path())
    data = dict(max_plies=12, mix=(0, 1, 0), compass=1.0)
    for settings, want in ((L.LoopSettings(**data, gate_mix=(1, 0, 0), gate_compass=0.0), (0, False)),
                           (L.LoopSettings(**data), (1, True))):
        played.clear()
        for seed in (3, 4):
            L.play_pair(0, seed, net, net, L._gate_data(settings), point_buy_start, 30, None)
        assert len(played) == 4 and set(played) == {want}
    assert L.gate_armies_text({"gate_mix": [1, 0, 0], "gate_compass": 0.0}) == "standard"
    assert L.gate_armies_text({"mix": [0, 1, 0], "compass": 1.0}) == "0/1/0, Compass 1"
    for settings in ({}, {"mix": [0, 0, 0], "compass": 0}, {"mix": "x", "compass": 0}, {"mix": [1, 0, 0]}):
        assert L.gate_armies_text(settings) == "-"                  # no settings, or a chain file edited by hand


@needs_torch
def test_a_work_folder_keeps_its_gate_armies(tmp_path, start):
    """A folder made before --gate-mix (its gate played the data's armies) continues without it, and
    refuses another gate."""
    run(tmp_path, start, rounds=1)
    state_path = tmp_path / "work" / "loop.json"
    state = json.loads(state_path.read_text())
    del state["settings"]["gate_mix"], state["settings"]["gate_compass"]     # as the loop wrote it before
    state_path.write_text(json.dumps(state))
    run(tmp_path, start, rounds=1)                                           # continues
    with pytest.raises(L.LoopError, match=r"^--gate-mix: the work folder .* runs with null, this command asks for "
                                          r"\[1\.0, 0\.0, 0\.0\]"):
        run(tmp_path, start, rounds=2, gate_mix=(1, 0, 0))
    # Nor a guard: a folder from before --guard-mix ran without one.
    state = json.loads(state_path.read_text())
    del state["settings"]["guard_mix"], state["settings"]["guard_compass"], state["settings"]["guard_sprt"]
    state_path.write_text(json.dumps(state))
    run(tmp_path, start, rounds=1)                                           # continues
    with pytest.raises(L.LoopError, match=r"^--guard-mix: the work folder .* runs with null, this command asks for "
                                          r"\[0\.0, 0\.0, 1\.0\]"):
        run(tmp_path, start, rounds=2, guard_mix=(0, 0, 1))
    with pytest.raises(L.LoopError, match=r"^--guard-sprt: the work folder .* runs with \[-60\.0, 0\.0\], this "
                                          r"command asks for \[-20\.0, 0\.0\]"):
        run(tmp_path, start, rounds=2, guard_sprt=(-20, 0))


@pytest.mark.parametrize("changes, words", [
    ({"sprt": (15.0, 0.0)}, "--sprt: expected ELO0,ELO1 with ELO0 < ELO1"),
    ({"gate_nodes": 100, "gate_movetime": 0.1}, "--gate-movetime: give --gate-nodes or --gate-movetime, not both"),
    ({"gate_max_games": 7}, "--gate-max-games: expected an even number"),
    ({"replay": 1.5}, "--replay: expected a number from 0.0 to 1.0"),
    ({"lr": 0}, "--lr: expected a number above 0.0"),
    ({"mix": (0, 0, 0)}, "--mix: expected three shares"),
    ({"games": 0}, "--games: expected an integer 1..10000000"),
    ({"gate_mix": (0, 0, 0)}, "--gate-mix: expected three shares >= 0"),
    ({"gate_mix": (1, 0)}, "--gate-mix: expected three shares >= 0"),
    ({"gate_compass": 1.5}, "--gate-compass: expected a number from 0.0 to 1.0"),
    ({"guard_mix": (0, 0, 0)}, "--guard-mix: expected three shares >= 0"),
    ({"guard_sprt": (0.0, -5.0)}, "--guard-sprt: expected ELO0,ELO1 with ELO0 < ELO1"),
    ({"guard_max_games": 3}, "--guard-max-games: expected an even number"),
    ({"guard_compass": -0.1}, "--guard-compass: expected a number from 0.0 to 1.0"),
])
def test_bad_settings_are_named(changes, words):
    with pytest.raises(L.LoopError, match="^" + re.escape(words)):
        L.LoopSettings(**changes)


@pytest.mark.parametrize("argv, words", [
    (["--sprt", "0"], "nnue-loop: argument --sprt: expected ELO0,ELO1 (two numbers, e.g. 0,5), got '0'"),
    (["--sprt", "15,0"], "nnue-loop: argument --sprt: ELO0 must be below ELO1"),
    (["--mix", "1,x,2"], "--mix '1,x,2': expected 3 comma-separated numbers"),
    (["--gate-movetime", "0.1", "--gate-nodes", "50"], "--gate-movetime: give --gate-nodes or --gate-movetime"),
    (["--sprt-alpha", "0.5"], "nnue-loop: argument --sprt-alpha: expected a probability between 0 and 0.5"),
    (["--replay", "2"], "--replay: expected a number from 0.0 to 1.0, got 2.0"),
    (["--gate-mix", "1,x"], "--gate-mix '1,x': expected 3 comma-separated numbers"),
    (["--gate-mix", "0,0,0"], "--gate-mix: expected three shares >= 0"),
    (["--guard-sprt=-10,0"], "--guard-sprt: a guard needs its armies, --guard-mix STANDARD,ORTHODOX,FAIRY"),
    (["--guard-max-games", "8"], "--guard-max-games: a guard needs its armies"),
    (["--guard-mix", "0,0"], "--guard-mix '0,0': expected 3 comma-separated numbers"),
    (["--guard-mix", "0,0,1", "--guard-sprt", "5,1"], "nnue-loop: argument --guard-sprt: ELO0 must be below ELO1"),
    (["--guard-mix", "0,0,1", "--guard-max-games", "5"], "--guard-max-games: expected an even number"),
])
def test_the_command_refuses_bad_options_in_one_line(tmp_path, capsys, argv, words):
    try:
        code = cli.main(["nnue-loop", "--work", str(tmp_path / "w"), *argv])
    except SystemExit as exc:                      # argparse's own checks
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err                  # argparse's usage lines, then the one error line
    assert err.splitlines()[-1].startswith(f"ftc: error: {words}") and err.count("ftc: error") == 1
    assert not (tmp_path / "w").exists()


@needs_torch
def test_a_work_folder_that_cannot_be_made_is_named(tmp_path, start, capsys):
    assert cli.main(["nnue-loop", "--work", "/proc/x", "--net-in", str(start), "--net-out", str(tmp_path / "o.nnue"),
                     "--chain", str(tmp_path / "c.json"), "--nice", "0"]) == 2
    assert capsys.readouterr().err == "ftc: error: --work /proc/x: cannot make the folder (No such file or directory)\n"


@needs_torch
def test_a_missing_start_net_is_named(tmp_path, capsys):
    assert cli.main(["nnue-loop", "--work", str(tmp_path / "w"), "--net-in", str(tmp_path / "none.nnue"),
                     "--net-out", str(tmp_path / "o.nnue"), "--chain", str(tmp_path / "c.json"), "--nice", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ftc: error: --net-in {tmp_path / 'none.nnue'}: cannot read the net file") and err.count("\n") == 1


def test_the_command_needs_a_work_folder(capsys):
    assert cli.main(["nnue-loop"]) == 2
    assert capsys.readouterr().err == ("ftc: error: nnue-loop: --work DIR is required (the work folder; or --plot to "
                                       "render the chain only)\n")


def test_without_torch_the_command_says_what_to_install(tmp_path, start, monkeypatch, capsys):
    real = L.importlib.util.find_spec
    monkeypatch.setattr(L.importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    assert cli.main(["nnue-loop", "--work", str(tmp_path / "w"), "--net-in", str(start),
                     "--net-out", str(tmp_path / "out.nnue"), "--chain", str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err == ("ftc: error: nnue-loop trains a net each generation and needs PyTorch: "
                                       "pip install -e '.[train]'\n")


def test_ctrl_c_is_one_line_and_exit_130(tmp_path, start, monkeypatch, capsys):
    def stopped(work, *args, **kwargs):
        Path(work).mkdir()
        (Path(work) / L.STATE).write_text(json.dumps({"format": L.FORMAT, "generation": 3, "settings": {}}))
        raise KeyboardInterrupt
    monkeypatch.setattr(L, "run_loop", stopped)
    assert cli.main(["nnue-loop", "--work", str(tmp_path / "w"), "--net-in", str(start), "--nice", "0"]) == 130
    assert capsys.readouterr().err == (f"\nftc: nnue-loop stopped: 2 finished generation(s) kept in {tmp_path / 'w'}; "
                                       "the same command continues\n")


def test_the_chain_page_lists_every_generation_and_plots_the_accepted(tmp_path):
    entry = dict(work="w", parent="aaaaaaaaaaaa", candidate="bbbbbbbbbbbb", positions=1000, total_positions=2000,
                 games=40, elo=12.5, elo_interval=[1.0, 24.0], llr=2.95, llr_bounds=[-2.94, 2.94], date="2026-12-04",
                 settings={"lr": 3e-05, "mix": [0.15, 0.6, 0.25], "compass": 0.1})
    chain_path = tmp_path / "results" / "nnue-chain.json"
    L._append_chain(chain_path, {**entry, "status": "accepted", "round": 1})
    L._append_chain(chain_path, {**entry, "status": "accepted", "round": 1})       # the same again: not added
    L._append_chain(chain_path, {**entry, "status": "rejected", "round": 2, "parent": "bbbbbbbbbbbb",
                                 "candidate": "cccccccccccc", "elo": -3.0, "llr": -2.99, "total_positions": 2000})
    L._append_chain(chain_path, {**entry, "status": "rejected", "round": 3, "parent": "bbbbbbbbbbbb",
                                 "candidate": "bbbbbbbbbbbb", "games": 0, "elo": None, "elo_interval": None,
                                 "llr": None, "llr_bounds": None, "settings": {"lr": 0.0005},
                                 "decision_bound": "the candidate's weights are the parent's"})
    # A second line from the same starting net: its Elo is its own gate's, not added to the first line's.
    L._append_chain(chain_path, {**entry, "status": "accepted", "round": 1, "work": "w2", "candidate": "dddddddddddd",
                                 "elo": 30.0})
    docs = tmp_path / "nnue-chain.md"
    L.render_chain(chain_path, docs)
    text = docs.read_text()
    assert "Generations: 4, accepted 2; the last accepted net is +30.0 Elo over the start of its line" in text
    assert L._chain_elo(L.read_chain(chain_path)["generations"]) == {"bbbbbbbbbbbb": 12.5, "dddddddddddd": 30.0}
    # A child of an accepted net adds its own gate's Elo to its parent's: its line's sum.
    L._append_chain(chain_path, {**entry, "status": "accepted", "round": 4, "parent": "bbbbbbbbbbbb",
                                 "candidate": "eeeeeeeeeeee", "elo": 5.0})
    assert L._chain_elo(L.read_chain(chain_path)["generations"])["eeeeeeeeeeee"] == 17.5
    L.render_chain(chain_path, docs)
    assert "accepted 3; the last accepted net is +17.5 Elo over the start of its line" in docs.read_text()
    assert "| 1 | accepted | `bbbbbbbbbbbb` | `aaaaaaaaaaaa` | 1,000 | 3e-05 | 2,000 | 0.15/0.6/0.25, Compass 0.1 " \
           "| 40 | +12.5 [+1.0, +24.0] | 2.95 (-2.94, 2.94) |" in text
    assert "| 2 | rejected | `cccccccccccc` | `bbbbbbbbbbbb` |" in text
    assert "| 3 | rejected (the candidate's weights are the parent's) | `bbbbbbbbbbbb` | `bbbbbbbbbbbb` | 1,000 | " \
           "0.0005 | 2,000 | - | 0 | - | - |" in text
    assert (tmp_path / "results" / L.PLOT).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # A guarded generation: its guard in words; failed, the status says so.
    guarded = {**entry, "round": 5, "parent": "eeeeeeeeeeee", "settings": {"guard_mix": [0, 0, 1], "guard_compass": 0.0},
               "guard": {"decision": "rejected", "games": 12, "elo": -41.0}}
    L._append_chain(chain_path, {**guarded, "status": "rejected", "candidate": "ffffffffffff"})
    L._append_chain(chain_path, {**guarded, "status": "accepted", "candidate": "gggggggggggg", "round": 6,
                                 "guard": {"decision": "accepted", "games": 30, "elo": 2.0}})
    text = L.chain_markdown(L.read_chain(chain_path))
    assert "| 6 | rejected (guard) | `ffffffffffff` |" in text and "| 0/0/1: 12 games, Elo -41.0, rejected |" in text
    assert "| 7 | accepted | `gggggggggggg` |" in text and "| 0/0/1: 30 games, Elo +2.0, accepted |" in text
    assert text.count("| - | 2026-12-04 |") == 5                   # the generations without a guard


@needs_torch
def test_the_command_runs_a_generation_with_the_real_sprt(tmp_path, start, capsys):
    """`ftc nnue-loop` end to end with engine/search/sprt.py's SPRT: two pairs cannot cross the
    bounds of 0,15, so the gate ends undecided at --gate-max-games and the candidate is rejected."""
    docs = tmp_path / "docs" / "nnue-chain.md"
    argv = ["nnue-loop", "--work", str(tmp_path / "w"), "--rounds", "1", "--games", "4", "--nodes", "30",
            "--max-plies", "20", "--shard-games", "2", "--epochs", "1", "--lr", "0.002", "--gate-nodes", "30",
            "--gate-max-games", "4", "--net-in", str(start), "--net-out", str(tmp_path / "out.nnue"),
            "--chain", str(tmp_path / "chain.json"), "--docs", str(docs), "--nice", "0", "--workers", "1"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    (entry,) = json.loads((tmp_path / "chain.json").read_text())["generations"]
    assert out == (f"nnue-loop: 1 generation(s) this run, 0 accepted; parent {load_net(start).digest()}; "
                   f"chain {tmp_path / 'chain.json'}\n")
    assert entry["status"] == "rejected" and entry["decision_bound"] == "games ran out" and entry["games"] == 4
    assert entry["sprt"]["decision"] == "undecided" and entry["sprt"]["pairs"] == 2
    assert entry["llr"] == entry["sprt"]["llr"] and entry["llr_bounds"] == pytest.approx([-2.944, 2.944], abs=1e-3)
    assert entry["elo_interval"] == entry["sprt"]["elo_ci95"]
    assert "gate: 2 pair(s), candidate" in err and "generation 1: rejected" in err
    assert "| 1 | rejected |" in docs.read_text() and (docs.parent / "results" / L.PLOT).exists()
    assert not (tmp_path / "out.nnue").exists()
    # The same command again: nothing to do; --plot renders the chain alone.
    assert cli.main(argv) == 0
    assert len(json.loads((tmp_path / "chain.json").read_text())["generations"]) == 1
    docs.unlink()
    assert cli.main(["nnue-loop", "--plot", "--chain", str(tmp_path / "chain.json"), "--docs", str(docs)]) == 0
    assert "| 1 | rejected |" in docs.read_text()


@needs_torch
def test_sigterm_stops_the_command_as_ctrl_c_does_and_the_same_command_continues(tmp_path, start):
    """A loop in the background (its SIGINT ignored, as a shell's `&` does) stops on SIGTERM with
    the one line of Ctrl-C, keeping the gate's finished pairs; the same command then finishes."""
    argv = [*FTC, "nnue-loop", "--work", str(tmp_path / "w"), "--rounds", "1", "--games", "4", "--nodes", "30",
            "--max-plies", "20", "--shard-games", "2", "--epochs", "1", "--lr", "0.002", "--gate-nodes", "200",
            "--gate-max-games", "40", "--net-in", str(start), "--net-out", str(tmp_path / "out.nnue"),
            "--chain", str(tmp_path / "chain.json"), "--docs", str(tmp_path / "docs" / "chain.md"), "--nice", "0",
            "--workers", "1"]
    pairs = tmp_path / "w" / "gen-1" / "gate.jsonl"
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(),
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        while child.poll() is None and not (pairs.exists() and pairs.read_text().count("\n") >= 1):
            time.sleep(0.1)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 130, err
    kept = len(pairs.read_text().splitlines())
    assert err.splitlines()[-1] == (f"ftc: nnue-loop stopped: 0 finished generation(s), generation 1's 4 data games, "
                                    f"its trained candidate, {kept} gate pair(s) kept in {tmp_path / 'w'}; the same "
                                    "command continues")
    assert not (tmp_path / "chain.json").exists()
    finished = subprocess.run([*argv[:argv.index("200")], "300", *argv[argv.index("200") + 1:]], capture_output=True,
                              text=True, env=child_env())
    assert finished.returncode == 2 and "--gate-nodes: the work folder" in finished.stderr   # settings are kept
    again = subprocess.run(argv, capture_output=True, text=True, env=child_env(), timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"gate: {kept} pair(s) kept" in again.stderr


@needs_torch
def test_without_net_out_a_net_that_passes_is_the_work_folders_parent_only(tmp_path, start):
    """The loop never ships a net by itself: without --net-out an accepted candidate becomes the work
    folder's parent.nnue and nothing else is written (engine/data/ftc.nnue least of all)."""
    shipped = default_net_path().read_bytes()
    settings = L.LoopSettings(rounds=1, **TINY)
    lines: list[str] = []
    L.run_loop(tmp_path / "work", settings, point_buy_start, Forced, start, None, tmp_path / "chain.json",
               say=lines.append)
    entry = json.loads((tmp_path / "chain.json").read_text())["generations"][0]
    assert entry["status"] == "accepted"
    assert load_net(tmp_path / "work" / "parent.nnue").digest() == entry["candidate"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.json", "start.nnue", "work"]
    assert default_net_path().read_bytes() == shipped
    assert lines[-1].endswith(f"written to {tmp_path / 'work' / 'parent.nnue'}")


def test_the_commands_nets_default_to_reading_the_shipped_one_and_writing_none():
    args = cli.build_parser().parse_args(["nnue-loop", "--work", "w"])
    assert (args.net_in, args.net_out) == (str(default_net_path()), None)
