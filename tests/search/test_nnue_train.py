"""The NNUE trainer (engine/board/nnue_train.py, tools/train_nnue.py) on tiny data made here: the
vectorised features equal nnue.feature_indices, a short run writes a net the engine loads whose
kernel value equals the numpy reference and stays within the reported quantisation error of the
float model, the same seed gives the same bytes, bad shards are named."""
from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from engine._nnue import Network  # noqa: E402
from engine.board import nnue_data  # noqa: E402
from engine.board import nnue_train as T  # noqa: E402
from engine.board.evaluate import load_network  # noqa: E402
from engine.board.nnue import (  # noqa: E402
    BARRACKS_SLOTS,
    MAX_TYPES,
    QA,
    QB,
    BoardRecord,
    Net,
    board_record,
    catalog_signature,
    feature_indices,
    load_net,
    reference_eval,
    save_net,
)
from engine.catalog import default_catalog  # noqa: E402
from engine.codes import unit_code  # noqa: E402
from engine.notation import PositionData  # noqa: E402
from engine.position import Position  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def load_tool():
    spec = importlib.util.spec_from_file_location("train_nnue_tool", ROOT / "tools" / "train_nnue.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_position(rng: random.Random) -> tuple[Position, bool]:
    """A board of random units of every catalog type (both colours, up to 40 units), random Barracks
    counts (some above BARRACKS_SLOTS), a random side to move; Compass mode drawn too."""
    position = Position()
    n = len(position.catalog)
    squares = rng.sample(range(64), rng.randint(1, 40))
    units = {sq: (rng.randrange(n), rng.randrange(2)) for sq in squares}
    barracks = [[rng.choice((0, 0, 0, 0, 1, 2, BARRACKS_SLOTS, BARRACKS_SLOTS + 3)) for _ in range(n)] for _ in (0, 1)]
    position.load(PositionData(units=units, barracks=barracks, side=rng.randrange(2)))
    return position, rng.random() < 0.25


def arrays_of(records: list[BoardRecord]) -> dict[str, np.ndarray]:
    lengths = [len(r.codes) for r in records]
    offsets = np.zeros(len(records) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    barracks = np.zeros((len(records), 2, MAX_TYPES), dtype=np.uint8)
    for i, r in enumerate(records):
        barracks[i] = np.array(r.barracks, dtype=np.uint8)
    return {"codes": np.array([c for r in records for c in r.codes], dtype=np.uint16), "offsets": offsets,
            "barracks": barracks, "side": np.array([r.side for r in records], dtype=np.uint8),
            "cylindrical": np.array([r.cylindrical for r in records], dtype=np.uint8)}


def make_data(folder: Path, games: int = 30, per_game: int = 10, seed: int = 1, shards: int = 2):
    """A data folder of ``games`` games of random positions in ``shards`` shards, in the format of
    `ftc nnue-data`: scores drawn around 0 and results that follow them (a sigmoid with K = 300),
    so that K can be fitted. Returns (folder, positions, cylindrical flags)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    positions, flags, records, score, result, game = [], [], [], [], [], []
    for g in range(games):
        for _ in range(per_game):
            position, cylindrical = random_position(rng)
            record = board_record(position, cylindrical)
            positions.append(position)
            flags.append(cylindrical)
            records.append(record)
            s = int(rng.gauss(0, 400))
            p = 1 / (1 + np.exp(-s / 300))
            u = rng.random()
            score.append(s)
            result.append(1 if u < p * 0.9 else (0 if u < p * 0.9 + 0.1 else -1))
            game.append(1000 + g)
    per_shard = -(-games // shards) * per_game
    for k, lo in enumerate(range(0, len(records), per_shard)):
        hi = min(len(records), lo + per_shard)
        arrays = arrays_of(records[lo:hi])
        seeds = np.unique(np.array(game[lo:hi], dtype=np.uint32))
        arrays.update(score=np.array(score[lo:hi], dtype=np.int32), result=np.array(result[lo:hi], dtype=np.int8),
                      ply=np.arange(hi - lo, dtype=np.uint16), army=np.zeros(hi - lo, dtype=np.uint8),
                      game=np.array(game[lo:hi], dtype=np.uint32), game_seed=seeds,
                      game_army=np.zeros(len(seeds), np.uint8), game_compass=np.zeros(len(seeds), np.uint8),
                      game_winner=np.full(len(seeds), -1, np.int8),
                      game_plies=np.full(len(seeds), per_game, np.uint16), game_end=np.zeros(len(seeds), np.uint8))
        nnue_data.write_shard(folder / nnue_data.shard_name(int(seeds[0])), arrays)
    (folder / "manifest.json").write_text(json.dumps({"format": "ftc-nnue-data", "version": 1,
                                                      "settings": {"seed": 1000, "games": games}}))
    return folder, positions, flags


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return make_data(tmp_path_factory.mktemp("nnue-data") / "data")


def test_features_equal_feature_indices_on_random_records():
    """Random records with every catalog type (and the types above the catalog's, up to MAX_TYPES),
    Barracks counts beyond the slots and Compass mode; both perspectives, fixed and per position."""
    rng = random.Random(7)
    records = []
    for _ in range(300):
        squares = rng.sample(range(64), rng.randint(0, 64 if rng.random() < 0.1 else 32))
        codes = tuple(unit_code(sq, rng.randrange(MAX_TYPES), rng.randrange(2)) for sq in squares)
        barracks = tuple(tuple(rng.choice((0, 0, 0, 1, 2, 3, 4, 9)) for _ in range(MAX_TYPES)) for _ in (0, 1))
        records.append(BoardRecord(codes, barracks, rng.randrange(2), rng.random() < 0.3))
    assert {t for r in records for t in ((c >> 6) & 63 for c in r.codes)} == set(range(MAX_TYPES))
    assert any(r.cylindrical for r in records) and any(max(r.barracks[0]) > BARRACKS_SLOTS for r in records)
    a = arrays_of(records)
    for perspective in (0, 1, a["side"], 1 - a["side"].astype(np.int64)):
        indices, starts = T.feature_arrays(a["codes"], a["offsets"], a["barracks"], a["cylindrical"], perspective)
        for i, r in enumerate(records):
            p = int(np.broadcast_to(perspective, (len(records),))[i])
            assert indices[starts[i]:starts[i + 1]].tolist() == feature_indices(r, p), (i, p)


def test_features_of_the_whole_dataset_in_chunks(data):
    """The chunked computation over a loaded folder gives each position's features from its side to
    move's view and the other's."""
    folder, _, _ = data
    dataset = T.load_dataset(folder)
    for own in (True, False):
        indices, starts = T._perspective_features(dataset.arrays, own, chunk=37)
        for i in range(dataset.positions):
            r = dataset.record(i)
            assert indices[starts[i]:starts[i + 1]].tolist() == feature_indices(r, r.side if own else 1 - r.side)


def test_fit_k_recovers_the_k_the_results_were_drawn_with():
    rng = np.random.default_rng(3)
    score = rng.normal(0, 500, 40_000).round().astype(np.int32)
    win = rng.random(len(score)) < 1 / (1 + np.exp(-score / 350.0))
    result = np.where(win, 1, -1).astype(np.int8)
    assert abs(T.fit_k(score, result) - 350) < 25
    with pytest.raises(T.TrainError, match="cannot fit K"):
        T.fit_k(score, np.zeros(len(score), dtype=np.int8))        # all draws: no K predicts them


def test_split_holds_out_whole_games():
    game = np.repeat(np.arange(20), 7).astype(np.uint32)
    train, val = T.split_by_game(game, 0.25, np.random.default_rng(0))
    assert len(np.unique(game[val])) == 5
    assert not set(game[train]) & set(game[val]) and len(train) + len(val) == len(game)
    with pytest.raises(T.TrainError, match="at least 2"):
        T.split_by_game(np.zeros(5, dtype=np.uint32), 0.1, np.random.default_rng(0))
    # However large the held-out share, one game at least is left to train on.
    train, val = T.split_by_game(np.repeat(np.arange(3), 4).astype(np.uint32), 0.95, np.random.default_rng(1))
    assert len(np.unique(np.repeat(np.arange(3), 4)[train])) == 1 and len(val) == 8


def test_the_learning_rate_schedules():
    """Derived by hand from docs/nnue-training.md: cosine from --lr at the first epoch towards lr/100
    (epoch e of E: lr/100 + (lr - lr/100) (1 + cos(pi e / E)) / 2); step: times --gamma every
    --step-epochs epochs; constant: --lr throughout."""
    cosine = T.Options(lr=1e-3, epochs=4)
    assert [cosine.lr_at(e) for e in range(4)] == pytest.approx([1e-3, 1e-5 + 0.99e-3 * (1 + 0.5 ** 0.5) / 2,
                                                                5.05e-4, 1e-5 + 0.99e-3 * (1 - 0.5 ** 0.5) / 2])
    step = T.Options(lr=1e-3, epochs=5, schedule="step", gamma=0.5, step_epochs=2)
    assert [step.lr_at(e) for e in range(5)] == pytest.approx([1e-3, 1e-3, 5e-4, 5e-4, 2.5e-4])
    assert T.Options(lr=2e-3, epochs=3, schedule="constant").lr_at(2) == 2e-3


def test_a_short_run_writes_a_net_the_kernel_evaluates_as_the_reference(data, tmp_path, monkeypatch):
    folder, positions, flags = data
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    dataset = T.load_dataset(folder)
    lines = []
    out = tmp_path / "net.bin"
    result = T.train(dataset, T.Options(hidden=64, epochs=2, batch=64, val=0.2, seed=5, check=10_000), out,
                     lines.append)
    assert [line.split(":")[0] for line in lines[1:]] == ["epoch 1/2", "epoch 2/2"]
    assert all("positions/s" in line and "ETA" in line for line in lines[1:])
    net = load_net(out, default_catalog())
    assert net.hidden == 64 and np.array_equal(net.w1, result.net.w1)
    kernel = Network(net.w1, net.b1, net.w2, net.b2, net.catalog, net.digest())
    assert load_network(out).digest.startswith(net.digest())        # what the engine loads
    for position, cylindrical in zip(positions, flags):
        record = board_record(position, cylindrical)
        assert kernel.evaluate(position.core, cylindrical) == reference_eval(net, record)
    # Every validation position was checked: the kernel is within the reported error of the float model.
    val = result.val_rows
    assert result.quant_positions == len(val) > 0
    floats = T.float_eval(result.model, dataset, val)
    errors = [abs(kernel.evaluate(positions[i].core, flags[i]) - f) for i, f in zip(val, floats)]
    assert max(errors) <= result.quant_max + 1e-3
    assert abs(np.mean(errors) - result.quant_mean) <= 1e-3
    assert result.quant_max < 40              # floors and rounding, not a wrong scale
    p = net.provenance
    assert p["positions"] == {"train": result.train_positions, "val": len(val)} and p["hidden"] == 64
    assert p["games"]["train"] + p["games"]["val"] == 30 and p["epochs"] == 2 and p["seed"] == 5
    assert p["data"]["settings"] == {"seed": 1000, "games": 30} and len(p["data"]["shards_sha256"]) == 64
    assert p["lam"] == 0.75 and p["k"] == result.k and p["quantisation"]["max_cp"] == round(result.quant_max, 4)
    assert p["torch"] == torch.__version__ and "hours" in p and "date" in p
    assert net.untrained == T.untrained_tokens(dataset.arrays, np.sort(np.setdiff1d(
        np.arange(len(positions)), val)), net.catalog)


def test_untrained_types_are_those_the_positions_hardly_hold(monkeypatch):
    """Hand-made: two positions, a King (type 0) and a Pawn (5) each, a Queen (1) in one Barracks of
    the second; with a threshold of 2 units, every type but the King and the Pawn is untrained, and
    the Queen is trained once both positions count and the threshold is 1."""
    from engine.codes import unit_code

    codes = np.array([unit_code(4, 0, 0), unit_code(12, 5, 0), unit_code(60, 0, 1), unit_code(52, 5, 1)], np.uint16)
    barracks = np.zeros((2, 2, 40), np.uint8)
    barracks[1, 0, 1] = 1
    arrays = {"codes": codes, "offsets": np.array([0, 2, 4]), "barracks": barracks}
    catalog = catalog_signature(default_catalog())
    monkeypatch.setattr(T, "MIN_TYPE_UNITS", 2)
    assert set(catalog) - set(T.untrained_tokens(arrays, np.array([0, 1]), catalog)) == {"K", "P"}
    monkeypatch.setattr(T, "MIN_TYPE_UNITS", 1)
    assert set(catalog) - set(T.untrained_tokens(arrays, np.array([0, 1]), catalog)) == {"K", "P", "Q"}
    assert set(catalog) - set(T.untrained_tokens(arrays, np.array([0]), catalog)) == {"K", "P"}


def test_same_seed_same_bytes(data, tmp_path, monkeypatch):
    folder, _, _ = data
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    dataset = T.load_dataset(folder)
    files = []
    for name, seed in (("a", 11), ("b", 11), ("c", 12)):
        T.train(dataset, T.Options(hidden=64, epochs=2, batch=50, seed=seed), tmp_path / name)
        files.append((tmp_path / name).read_bytes())
    assert files[0] == files[1]
    assert files[0] != files[2]
    assert load_net(tmp_path / "a").provenance["date"] == "2026-01-01T00:00:00Z"


def test_init_continues_from_a_net_file(data, tmp_path):
    folder, _, _ = data
    dataset = T.load_dataset(folder)
    first = T.train(dataset, T.Options(hidden=64, epochs=1, seed=2), tmp_path / "first.bin")
    again = T.quantise(T.model_from_net(first.net), first.net.catalog)
    for name in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(getattr(again, name), getattr(first.net, name)), name
    # No epoch run yet (epoch 0's validation loss is the --init net's): the best net is the file's.
    second = T.train(dataset, T.Options(epochs=1, lr=1e-9, seed=2, init=str(tmp_path / "first.bin")),
                     tmp_path / "second.bin")
    T.train(dataset, T.Options(hidden=128, epochs=1, seed=2, init=str(tmp_path / "first.bin")), tmp_path / "wide.bin")
    assert second.net.hidden == 64 and second.net.provenance["init"]["digest"] == first.net.digest()
    assert np.abs(second.net.w1.astype(int) - first.net.w1.astype(int)).max() <= 1
    with pytest.raises(T.TrainError, match="--hidden 64: the --init net .* is 128 wide .*not narrowed"):
        T.train(dataset, T.Options(hidden=64, epochs=1, init=str(tmp_path / "wide.bin")), tmp_path / "x.bin")
    (tmp_path / "junk.bin").write_bytes(b"not a net")
    with pytest.raises(T.TrainError, match="--init .*junk.bin: not an NNUE net file"):
        T.train(dataset, T.Options(epochs=1, init=str(tmp_path / "junk.bin")), tmp_path / "x.bin")


def test_a_wider_hidden_widens_the_init_net_and_keeps_every_value(data, tmp_path):
    """--hidden above the --init net's: the old units keep their weights and the new ones start with
    output weights 0, so the widened net evaluates every board exactly as its parent (the reference
    and the kernel, on the data's random boards of every type); training then moves the new units'
    output weights off 0 and the run writes a net of the new width."""
    folder, positions, flags = data
    dataset = T.load_dataset(folder)
    parent = T.train(dataset, T.Options(hidden=64, epochs=1, seed=2), tmp_path / "parent.bin").net
    import torch
    wide = T.quantise(T.widen_model(T.model_from_net(parent), 256, torch.Generator().manual_seed(1)), parent.catalog)
    assert wide.hidden == 256 and np.array_equal(wide.w1[:, :64], parent.w1)
    assert not wide.w2[64:256].any() and not wide.w2[256 + 64:].any() and wide.w1[:, 64:].any()
    kernel = Network(wide.w1, wide.b1, wide.w2, wide.b2, wide.catalog, wide.digest())
    for position, cylindrical in zip(positions, flags):
        record = board_record(position, cylindrical)
        assert reference_eval(wide, record) == reference_eval(parent, record)
        assert kernel.evaluate(position.core, cylindrical) == reference_eval(parent, record)
    # The new units' output weights have a gradient (their activations), so training moves them.
    model = T.widen_model(T.model_from_net(parent), 256, torch.Generator().manual_seed(1))
    own = T._gather(*T._perspective_features(dataset.arrays, True), np.arange(50))
    other = T._gather(*T._perspective_features(dataset.arrays, False), np.arange(50))
    model(*map(torch.from_numpy, own + other)).sum().backward()
    assert model.out.weight.grad[0, 64:256].abs().max() > 0 and model.out.weight.grad[0, 256 + 64:].abs().max() > 0
    T.train(dataset, T.Options(hidden=256, epochs=1, seed=2, init=str(tmp_path / "parent.bin")), tmp_path / "wide.bin")
    net = load_net(tmp_path / "wide.bin")
    assert net.hidden == 256 and net.provenance["hidden"] == 256
    assert net.provenance["init"]["digest"] == parent.digest()
    with pytest.raises(ValueError, match="cannot narrow"):
        T.widen_model(T.model_from_net(wide), 128, torch.Generator())


def test_a_net_trained_from_another_keeps_the_types_its_parent_learned(data, tmp_path, monkeypatch):
    """A type is untrained only if the --init net had not learned it either: a generation fine-tuned
    on data without a type (the standard position's loop: no fairy unit) keeps the parent's weights
    for it and judges its boards with them. Before the fix the child listed every type its own data
    lacked, and the engine judged every board with a fairy unit classically."""
    folder, _, _ = data
    dataset = T.load_dataset(folder)
    monkeypatch.setattr(T, "MIN_TYPE_UNITS", 10**9)              # every type too rare in this small data
    first = T.train(dataset, T.Options(hidden=64, epochs=1, seed=2), tmp_path / "first.bin")
    lacking = set(first.net.untrained)
    assert lacking == set(first.net.catalog)
    learned = Net(first.net.w1, first.net.b1, first.net.w2, first.net.b2, first.net.catalog, first.net.provenance, [])
    save_net(learned, tmp_path / "learned.bin")                  # a parent that had learned every type
    child = T.train(dataset, T.Options(epochs=1, lr=1e-6, seed=2, init=str(tmp_path / "learned.bin")), tmp_path / "c.bin")
    assert child.net.untrained == [] and load_net(tmp_path / "c.bin").untrained == []
    partly = sorted(lacking)[:1]                                  # a parent that had not learned one of them
    save_net(Net(*[getattr(first.net, k) for k in ("w1", "b1", "w2", "b2", "catalog", "provenance")], partly),
             tmp_path / "partly.bin")
    child = T.train(dataset, T.Options(epochs=1, lr=1e-6, seed=2, init=str(tmp_path / "partly.bin")), tmp_path / "d.bin")
    assert child.net.untrained == partly


def test_ctrl_c_writes_the_best_net_so_far(data, tmp_path):
    folder, _, _ = data
    dataset = T.load_dataset(folder)

    def progress(line: str) -> None:
        if line.startswith("epoch 2/"):
            raise KeyboardInterrupt

    result = T.train(dataset, T.Options(hidden=64, epochs=10, seed=3), tmp_path / "net.bin", progress)
    assert result.interrupted and len(result.history) == 3            # epoch 0 (before training), 1, 2
    net = load_net(tmp_path / "net.bin")
    assert net.provenance["interrupted"] is True and net.provenance["epochs"] == 2
    assert net.provenance["best_epoch"] == result.best_epoch


def test_clipped_weights_keep_int16_accumulators_from_wrapping():
    """Weights far beyond the limits, clipped and quantised: |w1|, |b1| at W1_LIMIT, so even every
    feature a board can have active at once (MAX_ACTIVE) leaves the accumulator inside int16."""
    model = T.make_model(64)
    with torch.no_grad():
        model.ft.weight.fill_(3.0)
        model.ft_bias.fill_(-3.0)
        model.out.weight.fill_(-100.0)
    model.clip_()
    net = T.quantise(model, ["K"])
    assert np.abs(net.w1.astype(int)).max() == T.W1_LIMIT and np.abs(net.b1.astype(int)).max() == T.W1_LIMIT
    assert T.W1_LIMIT + T.MAX_ACTIVE * T.W1_LIMIT <= 32767
    assert net.w2.min() == -1024                                      # nnue.W2_LIMIT


def test_training_keeps_the_weights_clipped(data, tmp_path, monkeypatch):
    """A huge learning rate: every optimiser step starts from weights within the limits."""
    folder, _, _ = data
    seen = []
    step = torch.optim.AdamW.step

    def watched(self, *args, **kwargs):
        params = [p for group in self.param_groups for p in group["params"]]
        seen.append(max(float(p.detach().abs().max()) for p in params[:2]))      # ft.weight, ft_bias
        return step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.AdamW, "step", watched)
    result = T.train(T.load_dataset(folder), T.Options(hidden=64, epochs=2, batch=32, lr=5.0, schedule="constant",
                                                       seed=1), tmp_path / "net.bin")
    assert len(seen) > 4 and max(seen[1:]) == pytest.approx(T.W1_LIMIT / QA)
    # Such steps make the net worse: the one written is the epoch of the lowest validation loss.
    vals = [h["val"] for h in result.history]
    assert result.best_epoch == vals.index(min(vals)) < 2
    assert load_net(tmp_path / "net.bin").provenance["loss"]["best_val"] == round(min(vals), 8)


@pytest.mark.parametrize("damage, array, words", [
    ("drop", "score", "is missing"),
    ("short", "result", "has 149 rows; the shard has 150 positions"),
    ("dtype", "side", "is int64, not uint8"),
    ("value", "result", "has 3 at row 0; expected one of (-1, 0, 1)"),
])
def test_a_bad_shard_is_named_with_its_array(data, tmp_path, damage, array, words, capsys):
    folder, _, _ = data
    bad = tmp_path / "bad"
    bad.mkdir()
    for path in folder.glob("*"):
        (bad / path.name).write_bytes(path.read_bytes())
    victim = sorted(bad.glob("shard-*.npz"))[-1]
    with np.load(victim) as z:
        arrays = {k: z[k] for k in z.files}
    if damage == "drop":
        del arrays[array]
    elif damage == "short":
        arrays[array] = arrays[array][:-1]
    elif damage == "dtype":
        arrays[array] = arrays[array].astype(np.int64)
    else:
        arrays[array] = arrays[array].copy()
        arrays[array][0] = 3
    nnue_data.write_shard(victim, arrays)
    with pytest.raises(T.TrainError) as err:
        T.load_dataset(bad)
    assert str(err.value) == f"{victim}: the array {array!r} {words}"
    tool = load_tool()
    assert tool.main(["--data", str(bad), "--out", str(tmp_path / "n.bin")]) == 2
    assert capsys.readouterr().err.strip() == f"train_nnue: {victim}: the array {array!r} {words}"


def test_the_command_trains_plots_and_reports(data, tmp_path, capsys):
    folder, _, _ = data
    tool = load_tool()
    code = tool.main(["--data", str(folder), "--out", str(tmp_path / "n.bin"), "--hidden", "64", "--epochs", "1",
                      "--plot", str(tmp_path / "loss.png")])
    out = capsys.readouterr()
    assert code == 0
    assert "wrote" in out.out and "quantised vs float" in out.out and "epoch 1/1" in out.err
    assert (tmp_path / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert tool.main(["--data", str(tmp_path / "none"), "--out", str(tmp_path / "n.bin")]) == 2
    assert "no such data folder" in capsys.readouterr().err
    assert tool.main(["--data", str(folder), "--out", str(tmp_path), "--epochs", "1"]) == 2
    assert capsys.readouterr().err.strip() == f"train_nnue: --out {tmp_path}: a folder, not a file"
    assert tool.main(["--data", str(folder), "--out", str(tmp_path / "n.bin"), "--lam", "1.5"]) == 2
    assert capsys.readouterr().err.strip() == "train_nnue: --lam: expected a number from 0.0 to 1.0, got 1.5"


def test_without_torch_the_command_says_what_to_install(data, tmp_path, monkeypatch, capsys):
    folder, _, _ = data
    tool = load_tool()
    monkeypatch.setitem(sys.modules, "torch", None)                     # import torch raises ImportError
    assert tool.main(["--data", str(folder), "--out", str(tmp_path / "n.bin")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "train_nnue: PyTorch is not installed; install the training extra: pip install -e '.[train]'"
    assert not (tmp_path / "n.bin").exists()


def test_quantisation_scales():
    """w1, b1 times QA; w2 times QB; b2 times QA * QB (derived by hand from nnue.reference_eval:
    clamp(acc, 0, QA) is QA times the float activation, so the sum is QA * QB times the float output)."""
    model = T.make_model(64)
    with torch.no_grad():
        model.ft.weight.fill_(0.1)
        model.ft_bias.fill_(-0.2)
        model.out.weight.fill_(0.5)
        model.out.bias.fill_(0.25)
    net = T.quantise(model, ["K"])
    assert net.w1[0, 0] == round(0.1 * QA) and net.b1[0] == round(-0.2 * QA)
    assert net.w2[0] == 0.5 * QB and net.b2 == round(0.25 * QA * QB)


def test_the_run_reports_the_classical_evaluations_loss_on_the_same_positions(data, tmp_path, monkeypatch):
    """The baseline is the classical static evaluation judged like the net (same K, targets and
    validation positions): recomputed here from the engine's own evaluate, position by position."""
    from engine.board.alphabeta import AlphaBeta
    from engine.board.nnue import record_position

    folder, positions, flags = data
    dataset = T.load_dataset(folder)
    result = T.train(dataset, T.Options(hidden=64, epochs=1, batch=64, val=0.2, seed=5, check=10_000),
                     tmp_path / "n.nnue", lambda line: None)
    rows = result.val_rows
    base = result.baseline
    assert base["positions"] == len(rows) > 0 and load_net(tmp_path / "n.nnue").provenance["baseline"] == base
    a = dataset.arrays       # the trainer's target, written out from docs/nnue-training.md: lam 0.75
    target = 0.75 / (1 + np.exp(-a["score"].astype(np.float64) / result.k)) + 0.25 * (a["result"] + 1) / 2
    classical = AlphaBeta(evaluation="classical")
    values = [classical.evaluate(positions[i], flags[i]) for i in rows]
    assert [classical.evaluate(record_position(dataset.record(int(i))), flags[i]) for i in rows] == values
    expected = float(np.mean((1 / (1 + np.exp(-np.array(values) / result.k)) - target[rows]) ** 2))
    assert abs(base["classical"] - expected) < 1e-7
    assert 0 < base["classical"] < 1 and 0 < base["net"] < 1


def test_no_rule_tells_the_a_file_from_the_h_file():
    """The premise of ``--mirror``: a board mirrored file for file has as many orders, and as many
    two-order lines (perft 2), as the board itself, for every unit type of the catalog, with
    Barracks, in both topologies. A unit whose moves leaned to one wing would fail this."""
    from engine.perft import perft
    rng = random.Random(11)
    seen = set()
    for _ in range(120):
        position, cylindrical = random_position(rng)
        record = board_record(position, cylindrical)
        mirror = Position()
        mirror.load(PositionData(units={(c & 63) ^ 7: ((c >> 6) & 63, c >> 12) for c in record.codes},
                                 barracks=[list(row[:len(mirror.catalog)]) for row in record.barracks],
                                 side=record.side))
        seen.update((c >> 6) & 63 for c in record.codes)
        assert position.count_orders(cylindrical) == mirror.count_orders(cylindrical)
        assert perft(position, 2, cylindrical=cylindrical) == perft(mirror, 2, cylindrical=cylindrical)
    assert seen == set(range(len(Position().catalog)))


def test_mirror_trains_on_each_position_and_its_mirror(data, tmp_path, monkeypatch):
    folder, _, _ = data
    dataset = T.load_dataset(folder)
    flipped = T.mirrored(dataset.arrays)
    for own in (True, False):
        indices, starts = T._perspective_features(flipped, own)
        for i in range(dataset.positions):
            r = dataset.record(i)
            m = BoardRecord(tuple(c ^ 7 for c in r.codes), r.barracks, r.side, r.cylindrical)
            assert indices[starts[i]:starts[i + 1]].tolist() == feature_indices(m, r.side if own else 1 - r.side)
    plain = T.train(dataset, T.Options(hidden=64, epochs=1, batch=64, seed=3), tmp_path / "plain")
    both = T.train(dataset, T.Options(hidden=64, epochs=1, batch=64, seed=3, mirror=True), tmp_path / "both")
    assert both.train_positions == 2 * plain.train_positions
    # An epoch's rows index the training features joined with their mirrors' (row n + i mirrors row
    # i): each training position once as it is and once mirrored, no validation position. (The
    # epoch gathers each row twice, for either side's view; the losses gather the plain features.)
    batches: list[np.ndarray] = []
    real = T._gather
    n = dataset.positions

    def gather(indices, starts, rows):
        if len(starts) == 2 * n + 1:
            batches.append(np.array(rows))
        return real(indices, starts, rows)

    monkeypatch.setattr(T, "_gather", gather)
    run = T.train(dataset, T.Options(hidden=64, epochs=1, batch=64, seed=3, mirror=True), tmp_path / "again")
    fitted = np.concatenate(batches).tolist()
    train_rows = sorted(set(range(n)) - set(run.val_rows.tolist()))
    assert sorted(fitted) == sorted(2 * (train_rows + [r + n for r in train_rows]))
    assert both.val_positions == plain.val_positions
    assert load_net(tmp_path / "both").provenance["options"]["mirror"] is True
