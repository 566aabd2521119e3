"""Training the learned board evaluation (engine/board/nnue.py) on `ftc nnue-data` shards with
PyTorch (the optional ``train`` extra; nothing at run time needs it). tools/train_nnue.py is the
command; docs/nnue-training.md describes it.

- Data: a folder of ``shard-<seed>.npz`` files and its ``manifest.json`` (engine/board/nnue_data.py,
  docs/nnue-data.md). Every shard is checked (arrays, types, lengths, value ranges) and a bad one is
  named with the array at fault.
- Features: :func:`feature_arrays` computes nnue.feature_indices for every position at once (numpy),
  for the side to move's and the other side's perspective.
- Model: one feature transformer for both perspectives (an EmbeddingBag of N_FEATURES rows, summed,
  plus a bias), clipped to [0, 1], and one linear output over [side to move's, other's]; the value
  in centi-points is ``out * SCALE``.
- Loss: mean squared error between ``sigmoid(value / K)`` and ``lam * sigmoid(score / K) + (1 -
  lam) * (result + 1) / 2``; K by default the one that best predicts the results from the scores
  (:func:`fit_k`). The validation games are held out whole (the ``game`` array).
- Quantisation (:func:`quantise`): w1 and b1 times QA, w2 times QB, b2 times QA * QB, rounded. While
  training, w1 and b1 stay within +-W1_LIMIT / QA and w2 within +-W2_LIMIT / QB, so that no
  accumulator can leave int16 whatever the board: at most MAX_ACTIVE features are active in one
  perspective, and (MAX_ACTIVE + 1) * W1_LIMIT <= 32767.
- Reproducible: the same data, options, seed and thread count give the same weights (torch's
  deterministic algorithms, numpy's PCG64 for the split and the batches); with SOURCE_DATE_EPOCH set
  the header's date is that time and the wall-clock hours are left out, so the file is the same byte
  for byte.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.board import nnue_data
from engine.board.alphabeta import AlphaBeta
from engine.board.nnue import (
    BARRACKS_BASE,
    BARRACKS_SLOTS,
    COMPASS_FEATURE,
    HIDDEN_SIZES,
    MAX_TYPES,
    N_FEATURES,
    QA,
    QB,
    SCALE,
    W2_LIMIT,
    BoardRecord,
    Net,
    NetFileError,
    catalog_signature,
    load_net,
    record_position,
    reference_eval,
    save_net,
)
from engine.catalog import default_catalog
from engine.codes import unit_code_colour, unit_code_mirrored, unit_code_square, unit_code_type

__all__ = ["INSTALL_HINT", "MAX_ACTIVE", "W1_LIMIT", "SCHEDULES", "TrainError", "Dataset",
           "Options", "TrainResult", "read_shard", "load_dataset", "feature_arrays", "fit_k", "split_by_game",
           "make_model", "quantise", "model_from_net", "float_eval", "mirrored", "train", "plot_history"]

#: What to install for training (the command says it when PyTorch is missing).
INSTALL_HINT = "pip install -e '.[train]'"
#: The most features one perspective can have: a unit on every square, every Barracks slot, Compass mode.
MAX_ACTIVE = 64 + 2 * MAX_TYPES * BARRACKS_SLOTS + 1
#: The largest |w1| and |b1| (in units of 1/QA): b1 plus MAX_ACTIVE rows never leaves int16.
W1_LIMIT = 32767 // (MAX_ACTIVE + 1)
#: Learning-rate schedules over the epochs: constant; cosine from --lr down to --lr * 0.01; step:
#: times --gamma every --step-epochs epochs.
SCHEDULES = ("cosine", "step", "constant")
#: The accumulator width without --hidden or --init.
DEFAULT_HIDDEN = 128
#: The range fit_k searches (centi-points).
K_RANGE = (10.0, 10000.0)


class TrainError(ValueError):
    """Data or options that cannot be trained on; the message names the file, array or option."""


# -- data -------------------------------------------------------------------------------------------------
def read_shard(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of one shard: nnue_data.read_shard's checks (every array there with its type, the
    lengths consistent), then the values the features and the loss rely on (unit codes, sides,
    Compass flags, results). TrainError names the shard and the array."""
    try:
        arrays = nnue_data.read_shard(path)
    except nnue_data.DataError as exc:
        raise TrainError(str(exc)) from None

    def bad(name: str, what: str) -> TrainError:
        return TrainError(f"{path}: the array {name!r} {what}")

    codes = arrays["codes"]
    if np.any(np.diff(arrays["offsets"]) > 64):
        raise bad("offsets", "gives a position more than 64 units")
    wrong = (unit_code_colour(codes) > 1) | (unit_code_type(codes) >= MAX_TYPES)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise bad("codes", f"has {int(codes[i])} at index {i}: not a unit code (engine.codes.unit_code) "
                           f"with a type below {MAX_TYPES} and a colour 0 or 1")
    for name, allowed in (("side", (0, 1)), ("cylindrical", (0, 1)), ("result", (-1, 0, 1))):
        wrong = ~np.isin(arrays[name], allowed)
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            raise bad(name, f"has {int(arrays[name][i])} at row {i}; expected one of {allowed}")
    return arrays


@dataclass
class Dataset:
    """Every position of a data folder (its shards in seed order, concatenated), the folder's
    manifest (None without one) and a digest of its shards (names and contents)."""

    folder: str
    arrays: dict[str, np.ndarray]
    manifest: dict | None
    shards: list[str]
    digest: str

    @property
    def positions(self) -> int:
        return len(self.arrays["side"])

    def record(self, i: int) -> BoardRecord:
        """Position ``i`` as a BoardRecord."""
        a = self.arrays
        return BoardRecord(tuple(int(c) for c in a["codes"][a["offsets"][i]:a["offsets"][i + 1]]),
                           (tuple(int(x) for x in a["barracks"][i, 0]), tuple(int(x) for x in a["barracks"][i, 1])),
                           int(a["side"][i]), bool(a["cylindrical"][i]))


def load_dataset(folder: str | Path) -> Dataset:
    """Read and check every shard of ``folder``; TrainError when there is none or one is bad."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TrainError(f"{folder}: no such data folder")
    paths = nnue_data.shard_paths(folder)
    if not paths:
        raise TrainError(f"{folder}: no shard-<seed>.npz file (make them with `ftc nnue-data --out {folder}`)")
    try:
        manifest = nnue_data.read_manifest(folder)
    except nnue_data.DataError as exc:
        raise TrainError(str(exc)) from None
    digest = hashlib.sha256()
    shards = []
    for path in paths:
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        shards.append(read_shard(path))
    arrays = {name: np.concatenate([s[name] for s in shards]) for name in ("codes", *nnue_data.POSITION_ARRAYS)}
    offsets, base = [np.zeros(1, dtype=np.int64)], 0
    for s in shards:
        offsets.append(s["offsets"][1:] + base)
        base += int(s["offsets"][-1])
    arrays["offsets"] = np.concatenate(offsets)
    return Dataset(str(folder), arrays, manifest, [p.name for p in paths], digest.hexdigest())


# -- features ---------------------------------------------------------------------------------------------
def feature_arrays(codes: np.ndarray, offsets: np.ndarray, barracks: np.ndarray, cylindrical: np.ndarray,
                   perspective: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """nnue.feature_indices of every position at once: (indices, starts), position i's features
    being ``indices[starts[i]:starts[i + 1]]`` in feature_indices' order. ``perspective`` is one
    colour for all positions or an array of one per position (e.g. the ``side`` array)."""
    n = len(offsets) - 1
    persp = np.broadcast_to(np.asarray(perspective, dtype=np.int64), (n,))
    lengths = np.diff(offsets)
    pos_units = np.repeat(np.arange(n, dtype=np.int64), lengths)
    c = codes.astype(np.int64)
    square, unit_type, colour = unit_code_square(c), unit_code_type(c), unit_code_colour(c)
    p = persp[pos_units]
    f_units = ((colour != p) * MAX_TYPES + unit_type) * 64 + (square ^ (56 * p))
    counts = np.minimum(barracks, BARRACKS_SLOTS).astype(np.int64)
    pos_b, colour, t = np.nonzero(counts)                      # row-major: position, colour, type
    reps = counts[pos_b, colour, t]
    slot_start = np.repeat(np.cumsum(reps) - reps, reps)
    slot = np.arange(int(reps.sum()), dtype=np.int64) - slot_start
    pos_b, colour, t = (np.repeat(x, reps) for x in (pos_b, colour, t))
    f_barracks = BARRACKS_BASE + ((colour != persp[pos_b]) * MAX_TYPES + t) * BARRACKS_SLOTS + slot
    pos_c = np.flatnonzero(np.asarray(cylindrical) != 0)
    f_compass = np.full(len(pos_c), COMPASS_FEATURE, dtype=np.int64)
    pos = np.concatenate([pos_units, pos_b, pos_c])
    group = np.concatenate([np.zeros(len(pos_units), np.int8), np.ones(len(pos_b), np.int8),
                            np.full(len(pos_c), 2, np.int8)])
    order = np.lexsort((group, pos))                           # stable: each group keeps its order
    indices = np.concatenate([f_units, f_barracks, f_compass])[order]
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(pos, minlength=n), out=starts[1:])
    return indices, starts


def mirrored(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Shard arrays with every position mirrored file for file (``unit_code_mirrored``); the
    Barracks, sides, Compass flags, scores and results are the same."""
    return dict(arrays, codes=unit_code_mirrored(arrays["codes"]).astype(arrays["codes"].dtype))


def _perspective_features(arrays: dict[str, np.ndarray], side_to_move: bool, chunk: int = 262_144):
    """(indices int32, starts int64) of every position from the side to move's view (or the other's),
    computed in chunks of positions to bound the memory."""
    offsets = arrays["offsets"]
    n = len(offsets) - 1
    parts, starts, base = [], [np.zeros(1, dtype=np.int64)], 0
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        persp = arrays["side"][lo:hi].astype(np.int64)
        if not side_to_move:
            persp = 1 - persp
        idx, st = feature_arrays(arrays["codes"][offsets[lo]:offsets[hi]], offsets[lo:hi + 1] - offsets[lo],
                                 arrays["barracks"][lo:hi], arrays["cylindrical"][lo:hi], persp)
        parts.append(idx.astype(np.int32))
        starts.append(st[1:] + base)
        base += len(idx)
    return (np.concatenate(parts) if parts else np.zeros(0, np.int32)), np.concatenate(starts)


def _joined(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]):
    """Two (indices, starts) feature sets as one: the positions of ``second`` after those of ``first``."""
    return np.concatenate([first[0], second[0]]), np.concatenate([first[1], second[1][1:] + first[1][-1]])


def _gather(indices: np.ndarray, starts: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The features of ``rows`` as one EmbeddingBag input: (flat int64 indices, bag offsets)."""
    first = starts[rows]
    lengths = starts[rows + 1] - first
    bags = np.zeros(len(rows), dtype=np.int64)
    np.cumsum(lengths[:-1], out=bags[1:])
    where = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(bags, lengths) + np.repeat(first, lengths)
    return indices[where].astype(np.int64), bags


# -- labels and split -------------------------------------------------------------------------------------
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def fit_k(score: np.ndarray, result: np.ndarray) -> float:
    """The K for which sigmoid(score / K) best predicts (result + 1) / 2 (least squares; a grid over
    K_RANGE, then golden-section search). TrainError when the best K is at the edge of the range
    (the scores do not predict the results: all draws, or no signal)."""
    s = score.astype(np.float64)
    r = (result.astype(np.float64) + 1) / 2

    def loss(log_k: float) -> float:
        return float(np.mean((_sigmoid(s / math.exp(log_k)) - r) ** 2))

    lo, hi = math.log(K_RANGE[0]), math.log(K_RANGE[1])
    grid = np.linspace(lo, hi, 61)
    losses = [loss(x) for x in grid]
    best = int(np.argmin(losses))
    if best in (0, len(grid) - 1):
        raise TrainError(f"cannot fit K: the scores predict the results best at K = {math.exp(grid[best]):.0f}, "
                         f"the edge of {K_RANGE[0]:.0f}..{K_RANGE[1]:.0f} (too few decisive games?); give --k")
    a, b = grid[best - 1], grid[best + 1]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        c, d = b - g * (b - a), a + g * (b - a)
        if loss(c) < loss(d):
            b = d
        else:
            a = c
    return round(math.exp((a + b) / 2), 3)


def split_by_game(game: np.ndarray, val_fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(train rows, validation rows): about ``val_fraction`` of the games (at least one) held out
    whole, drawn by ``rng``; each list in row order."""
    games = np.unique(game)
    if len(games) < 2:
        raise TrainError(f"the data has {len(games)} game(s); the validation split holds out whole games, "
                         "so it needs at least 2")
    n_val = min(len(games) - 1, max(1, int(round(val_fraction * len(games)))))
    held = rng.permutation(games)[:n_val]
    is_val = np.isin(game, held)
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


# -- the model --------------------------------------------------------------------------------------------
def make_model(hidden: int):
    """The float network (torch): shared feature transformer, clipped ReLU, linear output."""
    import torch

    class NnueModel(torch.nn.Module):
        def __init__(self, hidden: int):
            super().__init__()
            self.ft = torch.nn.EmbeddingBag(N_FEATURES, hidden, mode="sum")
            self.ft_bias = torch.nn.Parameter(torch.zeros(hidden))
            self.out = torch.nn.Linear(2 * hidden, 1)

        def forward(self, own, own_bags, other, other_bags):
            a = torch.clamp(self.ft(own, own_bags) + self.ft_bias, 0.0, 1.0)
            b = torch.clamp(self.ft(other, other_bags) + self.ft_bias, 0.0, 1.0)
            return self.out(torch.cat([a, b], dim=1)).squeeze(1)

        def clip_(self):
            """Keep the weights where the quantised net cannot overflow (the module's docstring)."""
            with torch.no_grad():
                self.ft.weight.clamp_(-W1_LIMIT / QA, W1_LIMIT / QA)
                self.ft_bias.clamp_(-W1_LIMIT / QA, W1_LIMIT / QA)
                self.out.weight.clamp_(-W2_LIMIT / QB, W2_LIMIT / QB)

    return NnueModel(hidden)


def _init_model(model, generator) -> None:
    """Random start: feature rows N(0, 0.02) (some 30 active features sum to about +-0.1), the
    accumulator bias 0.25 (inside the clipped range, so every neuron starts alive), the output
    weights uniform in +-1/sqrt(2H) and its bias 0."""
    import torch
    with torch.no_grad():
        model.ft.weight.normal_(0.0, 0.02, generator=generator)
        model.ft_bias.fill_(0.25)
        bound = 1.0 / math.sqrt(model.out.weight.shape[1])
        model.out.weight.uniform_(-bound, bound, generator=generator)
        model.out.bias.zero_()
    model.clip_()


#: A unit type the training positions hold fewer times than this (on the board or in a Barracks) is
#: listed as untrained in the net's header: the engine judges boards with it classically (docs/nnue.md).
MIN_TYPE_UNITS = 500


def untrained_tokens(arrays: dict, rows: np.ndarray, catalog: list[str]) -> list[str]:
    """The catalog's tokens whose units appear fewer than MIN_TYPE_UNITS times in the positions
    ``rows`` of ``arrays`` (shard arrays: codes with offsets, barracks)."""
    offsets = arrays["offsets"]
    starts, ends = offsets[rows], offsets[rows + 1]
    picked = np.concatenate([arrays["codes"][s:e] for s, e in zip(starts, ends)]) if len(rows) else np.zeros(0, np.uint16)
    counts = np.bincount(unit_code_type(picked.astype(np.int64)), minlength=MAX_TYPES)[:MAX_TYPES]
    counts = counts + arrays["barracks"][rows].astype(np.int64).sum(axis=(0, 1))[:MAX_TYPES]
    return [token for t, token in enumerate(catalog) if counts[t] < MIN_TYPE_UNITS]


def quantise(model, catalog: list[str], provenance: dict | None = None) -> Net:
    """The model's weights as integers (nnue.Net): w1, b1 times QA; w2 times QB (within +-W2_LIMIT);
    b2 times QA * QB; each rounded to the nearest integer."""
    w1 = model.ft.weight.detach().double().numpy()
    b1 = model.ft_bias.detach().double().numpy()
    w2 = model.out.weight.detach().double().numpy()[0]
    b2 = float(model.out.bias.detach().double().numpy()[0])
    return Net(np.clip(np.round(w1 * QA), -W1_LIMIT, W1_LIMIT).astype(np.int16),
               np.clip(np.round(b1 * QA), -W1_LIMIT, W1_LIMIT).astype(np.int16),
               np.clip(np.round(w2 * QB), -W2_LIMIT, W2_LIMIT).astype(np.int16),
               int(round(b2 * QA * QB)), list(catalog), dict(provenance or {}))


def model_from_net(net: Net):
    """A float model whose quantisation is ``net`` (--init: training continues from a net file)."""
    import torch
    model = make_model(net.hidden)
    with torch.no_grad():
        model.ft.weight.copy_(torch.from_numpy(net.w1.astype(np.float64) / QA))
        model.ft_bias.copy_(torch.from_numpy(net.b1.astype(np.float64) / QA))
        model.out.weight.copy_(torch.from_numpy(net.w2.astype(np.float64)[None, :] / QB))
        model.out.bias.fill_(net.b2 / (QA * QB))
    return model


def widen_model(model, hidden: int, generator):
    """``model`` with ``hidden`` accumulator units per perspective instead of its own, computing the
    same values: the old units keep their weights, the new ones start as _init_model starts a unit
    (feature rows N(0, 0.02), bias 0.25) with output weights 0, so neither half of the output layer
    reads them until training moves those weights off 0 (their gradient is the unit's activation,
    not 0). The quantised net of the result evaluates every board as ``model``'s does."""
    import torch
    old = model.ft_bias.shape[0]
    if hidden < old:
        raise ValueError(f"cannot narrow a {old}-wide model to {hidden}")
    wide = make_model(hidden)
    _init_model(wide, generator)
    with torch.no_grad():
        wide.ft.weight[:, :old] = model.ft.weight
        wide.ft_bias[:old] = model.ft_bias
        wide.out.weight.zero_()
        wide.out.weight[0, :old] = model.out.weight[0, :old]
        wide.out.weight[0, hidden:hidden + old] = model.out.weight[0, old:]
        wide.out.bias.copy_(model.out.bias)
    wide.clip_()
    return wide


def _forward_rows(model, features, rows: np.ndarray, batch: int = 4096) -> np.ndarray:
    """The model's output (in units of SCALE centi-points) for ``rows``, without gradients."""
    import torch
    (own_idx, own_st), (oth_idx, oth_st) = features
    out = []
    with torch.no_grad():
        for lo in range(0, len(rows), batch):
            r = rows[lo:lo + batch]
            a, ab = _gather(own_idx, own_st, r)
            b, bb = _gather(oth_idx, oth_st, r)
            out.append(model(torch.from_numpy(a), torch.from_numpy(ab), torch.from_numpy(b),
                             torch.from_numpy(bb)).double().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def float_eval(model, dataset: Dataset, rows: np.ndarray) -> np.ndarray:
    """The float model's value (centi-points, side to move) of the dataset's ``rows``."""
    features = (_perspective_features(_subset(dataset.arrays, rows), True),
                _perspective_features(_subset(dataset.arrays, rows), False))
    return _forward_rows(model, features, np.arange(len(rows))) * SCALE


def _subset(arrays: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    offsets = arrays["offsets"]
    lengths = offsets[rows + 1] - offsets[rows]
    new = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new[1:])
    where = np.arange(int(new[-1]), dtype=np.int64) - np.repeat(new[:-1], lengths) + np.repeat(offsets[rows], lengths)
    out = {name: arrays[name][rows] for name in arrays if name not in ("codes", "offsets")}
    out["codes"], out["offsets"] = arrays["codes"][where], new
    return out


# -- training ---------------------------------------------------------------------------------------------
@dataclass
class Options:
    """The trainer's settings (tools/train_nnue.py's options of the same names)."""

    hidden: int | None = None            # None: DEFAULT_HIDDEN, or the --init net's
    epochs: int = 20
    batch: int = 1024
    lr: float = 1e-3
    schedule: str = "cosine"
    gamma: float = 0.3
    step_epochs: int = 10
    weight_decay: float = 0.0
    lam: float = 0.75
    k: float | None = None               # None: fitted (fit_k)
    val: float = 0.1
    seed: int = 0
    threads: int = 1
    init: str | None = None
    check: int = 2000
    mirror: bool = False                 # also train on every position mirrored file for file (a-h)

    def __post_init__(self):
        def bad(option: str, what: str):
            raise TrainError(f"--{option.replace('_', '-')}: {what}")

        def integer(name, low, high):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                bad(name, f"expected an integer {low}..{high}, got {value!r}")

        def number(name, low, high, open_low=False):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not (low < value if open_low else low <= value) or value > high:
                bad(name, f"expected a number {'above' if open_low else 'from'} {low} to {high}, got {value!r}")

        if self.hidden is not None and self.hidden not in HIDDEN_SIZES:
            bad("hidden", f"expected one of {', '.join(map(str, HIDDEN_SIZES))}, got {self.hidden!r}")
        integer("epochs", 1, 100_000)
        integer("batch", 1, 1_048_576)
        integer("step_epochs", 1, 100_000)
        integer("seed", 0, 2**32 - 1)
        integer("threads", 1, 1024)
        integer("check", 1, 10**7)
        number("lr", 0.0, 10.0, open_low=True)
        number("gamma", 0.0, 1.0, open_low=True)
        number("weight_decay", 0.0, 10.0)
        number("lam", 0.0, 1.0)
        number("val", 0.0, 0.9, open_low=True)
        if self.k is not None:
            number("k", 1.0, 1e6)
        if self.schedule not in SCHEDULES:
            bad("schedule", f"expected one of {', '.join(SCHEDULES)}, got {self.schedule!r}")

    def lr_at(self, epoch: int) -> float:
        """The learning rate of epoch ``epoch`` (0-based)."""
        if self.schedule == "cosine":
            low = self.lr * 0.01
            return low + 0.5 * (self.lr - low) * (1 + math.cos(math.pi * epoch / self.epochs))
        if self.schedule == "step":
            return self.lr * self.gamma ** (epoch // self.step_epochs)
        return self.lr


@dataclass
class TrainResult:
    """What a run did: the net written, the loss per epoch (epoch 0: before training), the best
    epoch, the quantisation error on validation positions, and whether Ctrl-C stopped it."""

    net: Net
    history: list[dict] = field(default_factory=list)
    best_epoch: int = 0
    k: float = 0.0
    train_positions: int = 0
    val_positions: int = 0
    positions_per_second: float = 0.0
    quant_mean: float = 0.0
    quant_max: float = 0.0
    quant_positions: int = 0
    interrupted: bool = False
    #: The float model as written (the best epoch's) and the validation rows of the dataset.
    model: object = None
    val_rows: np.ndarray | None = None
    #: The loss of the classical static evaluation and of the quantised net on the same validation
    #: positions (``classical_baseline``): the net is worth trying in games when it is the lower.
    baseline: dict = field(default_factory=dict)


def classical_baseline(dataset: Dataset, rows: np.ndarray, target: np.ndarray, k: float, net: Net) -> dict:
    """The training loss of the classical static evaluation (the engine's evaluate, Compass mode as
    recorded) and of the quantised net (reference_eval) on the validation positions ``rows``, with
    the same K and targets: {"positions", "classical", "net"}. The net learns from searches of the
    classical evaluation, so a net that does not beat it here will not beat it in games."""
    if not len(rows):
        return {"positions": 0, "classical": None, "net": None}
    searcher = AlphaBeta(evaluation="classical")
    classical, learned = [], []
    for i in rows:
        record = dataset.record(int(i))
        classical.append(searcher.evaluate(record_position(record), record.cylindrical))
        learned.append(reference_eval(net, record))
    wanted = target[rows].astype(np.float64)

    def loss(values) -> float:
        return round(float(np.mean((_sigmoid(np.asarray(values, np.float64) / k) - wanted) ** 2)), 8)

    return {"positions": int(len(rows)), "classical": loss(classical), "net": loss(learned)}


def _clock_fields(seconds: float) -> dict:
    """The header's date and hours; with SOURCE_DATE_EPOCH (reproducible builds) that date and no hours."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH")
    if fixed is not None:
        try:
            stamp = int(fixed)
        except ValueError:
            raise TrainError(f"SOURCE_DATE_EPOCH: expected seconds since 1970, got {fixed!r}") from None
        return {"date": _dt.datetime.fromtimestamp(stamp, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    return {"date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "hours": round(seconds / 3600, 4)}


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def train(dataset: Dataset, options: Options, out: str | Path,
          progress: Callable[[str], None] | None = None) -> TrainResult:
    """Train on ``dataset`` and write the best net (lowest validation loss) to ``out``; Ctrl-C
    (KeyboardInterrupt) during the epochs stops them and writes the best net so far
    (``interrupted`` set). ``progress`` gets one line per epoch."""
    try:
        import torch
    except ImportError:
        raise TrainError(f"training needs PyTorch: {INSTALL_HINT}") from None
    say = progress or (lambda line: None)
    out = Path(out)
    if not out.parent.is_dir():
        raise TrainError(f"--out {out}: the folder {out.parent} does not exist")
    if out.is_dir():
        raise TrainError(f"--out {out}: a folder, not a file")
    clock = time.perf_counter()
    catalog = catalog_signature(default_catalog())
    torch.set_num_threads(options.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass                                       # set once per process; already done
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(options.seed)
    generator = torch.Generator().manual_seed(options.seed)
    rng = np.random.Generator(np.random.PCG64(options.seed))

    init_info, init_net = None, None
    if options.init is not None:
        try:
            init_net = load_net(options.init, default_catalog())
        except NetFileError as exc:
            raise TrainError(f"--init {exc}") from None
        if options.hidden is not None and options.hidden < init_net.hidden:
            raise TrainError(f"--hidden {options.hidden}: the --init net {options.init} is {init_net.hidden} wide "
                             f"(a net can be widened, not narrowed)")
        model = model_from_net(init_net)
        if options.hidden is not None and options.hidden > init_net.hidden:
            model = widen_model(model, options.hidden, generator)
        init_info = {"file": Path(options.init).name, "digest": init_net.digest(),
                     "provenance": {k: init_net.provenance.get(k) for k in ("data", "seed", "epochs", "commit")
                                    if k in init_net.provenance}}
    else:
        model = make_model(options.hidden or DEFAULT_HIDDEN)
        _init_model(model, generator)
    hidden = model.ft_bias.shape[0]

    a = dataset.arrays
    train_rows, val_rows = split_by_game(a["game"], options.val, rng)
    k = options.k if options.k is not None else fit_k(a["score"][train_rows], a["result"][train_rows])
    target = (options.lam * _sigmoid(a["score"].astype(np.float64) / k)
              + (1 - options.lam) * (a["result"].astype(np.float64) + 1) / 2).astype(np.float32)
    features = (_perspective_features(a, True), _perspective_features(a, False))
    (own_idx, own_st), (oth_idx, oth_st) = features
    fit_rows = train_rows                           # the rows an epoch trains on
    if options.mirror:
        # Every unit type moves the same towards either wing (no rule of the game tells the a-file
        # from the h-file), so a position mirrored file for file (square ^ 7) has the same score and
        # result: training rows n.. are the mirrors of rows 0.. (validation stays unmirrored).
        flipped = mirrored(a)
        own_idx, own_st = _joined((own_idx, own_st), _perspective_features(flipped, True))
        oth_idx, oth_st = _joined((oth_idx, oth_st), _perspective_features(flipped, False))
        target = np.concatenate([target, target])
        fit_rows = np.concatenate([train_rows, train_rows + len(a["side"])])
    say(f"data {dataset.folder}: {dataset.positions:,} positions of {len(np.unique(a['game'])):,} games; "
        f"train {len(train_rows):,}, validation {len(val_rows):,} (whole games); K {k:g}, lam {options.lam:g}, "
        f"hidden {hidden}, {options.threads} thread(s)")

    optimiser = torch.optim.AdamW(model.parameters(), lr=options.lr, weight_decay=options.weight_decay)

    def loss_of(rows: np.ndarray) -> float:
        value = _forward_rows(model, features, rows)
        pred = _sigmoid(value * SCALE / k)
        return float(np.mean((pred - target[rows].astype(np.float64)) ** 2))

    def snapshot():
        return {name: t.detach().clone() for name, t in model.state_dict().items()}

    best = loss_of(val_rows)
    history: list[dict[str, Any]] = [{"epoch": 0, "train": None, "val": best, "lr": None, "seconds": 0.0}]
    best_epoch, best_state = 0, snapshot()
    trained_positions, train_seconds = 0, 0.0
    interrupted = False
    try:
        for epoch in range(options.epochs):
            lr = options.lr_at(epoch)
            for group in optimiser.param_groups:
                group["lr"] = lr
            model.train()
            order = rng.permutation(fit_rows)
            start = time.perf_counter()
            total, count = 0.0, 0
            for lo in range(0, len(order), options.batch):
                rows = order[lo:lo + options.batch]
                x, xb = _gather(own_idx, own_st, rows)
                y, yb = _gather(oth_idx, oth_st, rows)
                value = model(torch.from_numpy(x), torch.from_numpy(xb), torch.from_numpy(y), torch.from_numpy(yb))
                loss = torch.mean((torch.sigmoid(value * (SCALE / k)) - torch.from_numpy(target[rows])) ** 2)
                optimiser.zero_grad(set_to_none=True)
                loss.backward()
                optimiser.step()
                model.clip_()
                total += float(loss.detach()) * len(rows)
                count += len(rows)
            seconds = time.perf_counter() - start
            trained_positions += count
            train_seconds += seconds
            model.eval()
            val = loss_of(val_rows)
            history.append({"epoch": epoch + 1, "train": total / count, "val": val, "lr": lr, "seconds": seconds})
            if val < best:
                best, best_epoch, best_state = val, epoch + 1, snapshot()
            rate = count / seconds if seconds > 0 else 0.0
            eta = (options.epochs - epoch - 1) * train_seconds / (epoch + 1)
            say(f"epoch {epoch + 1}/{options.epochs}: train {total / count:.6f}, val {val:.6f}"
                f"{' (best)' if best_epoch == epoch + 1 else ''}, lr {lr:.2e}, {rate:,.0f} positions/s, "
                f"ETA {_duration(eta)}")
    except KeyboardInterrupt:
        interrupted = True
        say(f"stopped (Ctrl-C) after {len(history) - 1} epoch(s); writing the best net (epoch {best_epoch})")
    model.load_state_dict(best_state)
    model.eval()

    net = quantise(model, catalog)
    net.untrained = untrained_tokens(a, train_rows, catalog)
    if init_net is not None:
        # A type its parent learned stays learned: its weights are the parent's, fine-tuned (a
        # generation trained on the standard position alone would otherwise forget every fairy type).
        net.untrained = [token for token in net.untrained if token in init_net.untrained]
    check_rows = val_rows[::-(-len(val_rows) // options.check)]         # spread over the held-out games
    floats = _forward_rows(model, features, check_rows) * SCALE
    errors = np.array([abs(reference_eval(net, dataset.record(int(i))) - f) for i, f in zip(check_rows, floats)])
    quant_mean = float(errors.mean()) if len(errors) else 0.0
    quant_max = float(errors.max()) if len(errors) else 0.0
    baseline = classical_baseline(dataset, check_rows, target, k, net)

    last = history[-1]
    manifest = dataset.manifest or {}
    games = {"train": int(len(np.unique(a["game"][train_rows]))), "val": int(len(np.unique(a["game"][val_rows])))}
    net.provenance = {
        "data": {"folder": Path(dataset.folder).name, "format": manifest.get("format"),
                 "settings": manifest.get("settings"), "engine": manifest.get("engine"),
                 "commit": manifest.get("commit"), "shards": len(dataset.shards), "shards_sha256": dataset.digest},
        "positions": {"train": int(len(train_rows)), "val": int(len(val_rows))},
        "games": games,
        "epochs": len(history) - 1, "best_epoch": best_epoch, "interrupted": interrupted,
        "loss": {"train": None if last["train"] is None else round(last["train"], 8), "val": round(last["val"], 8),
                 "best_val": round(best, 8)},
        "k": k, "lam": options.lam, "seed": options.seed, "hidden": int(hidden),
        "options": {"batch": options.batch, "lr": options.lr, "schedule": options.schedule, "gamma": options.gamma,
                    "step_epochs": options.step_epochs, "weight_decay": options.weight_decay, "val": options.val,
                    "threads": options.threads, "mirror": options.mirror},
        "init": init_info,
        "quantisation": {"positions": int(len(errors)), "mean_cp": round(quant_mean, 4), "max_cp": round(quant_max, 4)},
        "baseline": baseline,
        "torch": torch.__version__, "commit": nnue_data.git_commit(),
        **_clock_fields(time.perf_counter() - clock),
    }
    try:
        save_net(net, out)
    except OSError as exc:
        raise TrainError(f"--out {out}: cannot write the net file ({exc.strerror or exc})") from None
    load_net(out, default_catalog())               # what the engine will do with it: refuse nothing
    return TrainResult(net, history, best_epoch, k, int(len(fit_rows)), int(len(val_rows)),
                       trained_positions / train_seconds if train_seconds > 0 else 0.0,
                       quant_mean, quant_max, int(len(errors)), interrupted, model, val_rows, baseline)


def plot_history(history: list[dict], path: str | Path, title: str = "NNUE training",
                 best_epoch: int | None = None) -> None:
    """The training loss (the mean over each epoch's batches) and the validation loss (after each
    epoch; epoch 0: before training) as a PNG (matplotlib); the net written (``best_epoch``) marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    epochs = [h["epoch"] for h in history if h["train"] is not None]
    ax.plot(epochs, [h["train"] for h in history if h["train"] is not None], marker="o", ms=3, label="training")
    ax.plot([h["epoch"] for h in history], [h["val"] for h in history], marker="o", ms=3,
            label="validation (held-out games)")
    if best_epoch is not None:
        ax.axvline(best_epoch, color="grey", ls=":", label=f"net written (epoch {best_epoch})")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss (MSE of win probabilities)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)

