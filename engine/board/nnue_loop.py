"""The training loop of the learned board evaluation (`ftc nnue-loop`, docs/nnue-loop.md): a chain of
nets, each trained from its parent on fresh self-play data made with the parent, and kept only when
it beats the parent in a sequential probability ratio test (SPRT). The net, not the data, carries
what the chain has learned: data is made, used and thrown away each generation.

One generation K of a work folder (``WORK/gen-K/``), each step written before the next starts:

1. **data**: ``nnue_data.generate`` with the parent net into ``gen-K/data`` (its seed derived from
   the loop's seed, the starting net's digest and K: fresh data every generation, the same data on
   every rerun); nnue_data keeps its finished shards itself;
2. **train**: ``nnue_train.train`` from the parent's weights (``Options(init=parent)``) on that data
   (plus the pool and, with ``replay``, a share of the previous generation's games: below), the
   candidate written to ``gen-K/candidate.nnue`` and ``gen-K/train.json`` marking the step done;
3. **gate**: game pairs, candidate against parent, both alpha-beta at the same node budget (or move
   time): each pair is one seeded Point-Buy Chess game (nnue_data.play_game: its army, Compass mode,
   opening, referee and adjudication) played twice with the colours swapped. Finished pairs are
   appended to ``gen-K/gate.jsonl`` as they come in; the SPRT reads them in pair order and stops at
   the first bound crossed (or at ``gate_max_games``: not proven better, rejected);
   with a **guard** (``guard_mix``), a candidate that passed its gate plays a second SPRT the same
   way on the guard's armies (``gen-K/guard.jsonl``, ``guard.json``) and is accepted only if that
   one passes too;
4. **finish**: accepted, the candidate gets its place in the chain in its header (``provenance
   ["chain"]``: parent digest, positions of the generation and of the whole chain, the SPRT result,
   commit, settings) and is written to the output net and to ``WORK/parent.nnue``; rejected, the
   parent stays. Either way the generation is appended to the chain file (docs/results/
   nnue-chain.json), so its history holds the rejections too.

**The pool.** A rejected generation's data was made by the same net as the next generation's (the
parent stays), so it is as good for the next candidate as its own: with ``pool`` above 0 it stays,
and each candidate trains on its fresh data plus the data of the rejected generations of its parent
just before it (newest first, whole generations, at most ``pool`` positions). The data of a parent
grows until a candidate trained on it passes; then the pool starts again with the new parent's data.
``replay`` adds a share of the previous generation's games when they are not in the pool (that
generation passed, and its data was made by the new candidate's grandparent; or ``pool`` is 0).

**The guard.** A gate on mixed armies can pass a candidate for a gain on some armies that hides a
loss on others (docs/nnue-loop.md: a candidate gated at +30.8 Elo on standard and fairy armies
scored -3.8 on the standard position alone), and a gate on one kind of army sees nothing of the
others (a chain gated on the standard position unlearned the fairy armies). The guard asks the
second question separately: gate on the armies the net is for, guard the others. Its bounds
(``guard_sprt``, default H0 Elo <= -60 against H1 Elo >= 0) ask only that the candidate is not
much worse there: in simulated guards of at most 400 games (docs/nnue-loop.md, "The guard") a
level candidate passed 94% of the time after 124 games on average and one 90 Elo worse never (it
failed after 73); a small loss there is the gate's to weigh, not the guard's.

``WORK/loop.json`` holds the settings and the generation under way: the same command continues a
stopped run at the first unfinished step; the data's, the pool's, the gate's and the guard's
settings are refused when they differ, naming the option, while the fine-tuning's (epochs, rate,
batch) and the gates' and guards' most games may change for the generations still to do.

The board search knows no game: the armies maker (nnue_data.Armies) and the SPRT (a factory of
objects with ``add_pair``, ``status``, ``to_json``: engine/search/sprt.py's SPRT) are passed in by the
command.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from engine.board import nnue_data, nnue_train
from engine.board.alphabeta import AlphaBeta
from engine.board.nnue import Net, NetFileError, load_net, save_net
from engine.catalog import default_catalog
from engine.execution import Cluster, lower_priority, run_units
from engine.journal import read_rows

__all__ = ["FORMAT", "CHAIN_FORMAT", "LoopError", "LoopSettings", "Stage", "SequentialTest", "Sprt", "PairResult",
           "play_pair", "generation_seed", "run_loop", "read_chain", "chain_markdown", "plot_chain",
           "INSTALL_HINT"]

FORMAT = "ftc-nnue-loop"
CHAIN_FORMAT = "ftc-nnue-chain"
VERSION = 1
#: What to install for the training step (the same extra as tools/train_nnue.py).
INSTALL_HINT = "pip install -e '.[train]'"
#: The state file of a work folder.
STATE = "loop.json"
#: The current parent net of a work folder.
PARENT = "parent.nnue"
#: The checkout's root: the chain file and its page are the repository's (the lead commits them).
ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CHAIN = ROOT / "docs" / "results" / "nnue-chain.json"
DEFAULT_DOCS = ROOT / "docs" / "nnue-chain.md"
#: The plot's file name, in the results/ folder beside the chain's page.
PLOT = "nnue-chain.png"


class LoopError(ValueError):
    """Options, a work folder or a chain file that cannot be used; the message names the option or file."""


class SequentialTest(Protocol):
    """What the gate needs of a sequential test (engine/search/sprt.py's SPRT has it)."""

    def add_pair(self, a: float, b: float) -> Any: ...

    def status(self) -> str: ...

    def to_json(self) -> dict: ...


#: A factory of sequential tests: ``sprt(elo0, elo1, alpha, beta, max_games)``.
Sprt = Callable[[float, float, float, float, int], SequentialTest]


@dataclass(frozen=True)
class LoopSettings:
    """What a loop is run with (`ftc nnue-loop`'s options of the same names). The fields in
    ``FIXED`` must stay the same for a work folder's whole run; the others may change on a rerun."""

    rounds: int = 1
    seed: int = 0
    #: data: games per generation, node budget per order, army mix (standard, orthodox, fairy).
    games: int = 2000
    nodes: int = 5000
    mix: tuple[float, float, float] = (0.15, 0.6, 0.25)
    compass: float = 0.1
    max_plies: int = 300
    shard_games: int = 20
    #: train: share of the previous generation's games replayed when not pooled (0 none, 1 all of them).
    replay: float = 0.0
    #: train: positions of the parent's rejected generations trained on again (0: none; the pool).
    pool: int = 1_000_000
    epochs: int = 3
    #: 3e-5: fine-tuning at the rate of training from scratch (5e-4) raised the validation loss of
    #: fresh data in every epoch (docs/nnue-loop.md, "The learning rate").
    lr: float = 3e-5
    batch: int = 1024
    threads: int = 1
    #: gate: one of gate_nodes (default 20000 when neither is given) and gate_movetime (seconds).
    gate_nodes: int | None = None
    gate_movetime: float | None = None
    sprt: tuple[float, float] = (0.0, 15.0)
    alpha: float = 0.05
    beta: float = 0.05
    gate_max_games: int = 400
    keep_data: bool = False
    #: gate: the army mix and Compass share of the gate's games (None: the data's, ``mix`` and
    #: ``compass``). A gate on the position a net is meant for (the standard start, where
    #: Fairy-Stockfish is the yardstick) while the data stays broader.
    gate_mix: tuple[float, float, float] | None = None
    gate_compass: float | None = None
    #: guard: a second SPRT, on other armies, that a candidate which passed its gate must pass too
    #: before it is accepted (None: no guard). Its bounds ask less than the gate's: only that the
    #: candidate is not much worse there (H1 Elo >= 0 against H0 Elo <= -60: a net that has
    #: unlearned those armies fails it in few games). The module docstring's "The guard" says why.
    guard_mix: tuple[float, float, float] | None = None
    guard_compass: float = 0.0
    guard_sprt: tuple[float, float] = (-60.0, 0.0)
    guard_max_games: int = 400

    FIXED = ("seed", "games", "nodes", "mix", "compass", "max_plies", "shard_games", "replay", "pool",
             "gate_nodes", "gate_movetime", "sprt", "alpha", "beta", "gate_mix", "gate_compass",
             "guard_mix", "guard_compass", "guard_sprt")
    #: The fine-tuning's settings are not FIXED either: a rerun may train the generations not yet
    #: trained otherwise (a finished training is kept); each generation's training record and chain
    #: entry name the ones its candidate was trained with.
    TRAINING = ("epochs", "lr", "batch")
    #: ``gate_max_games`` (and ``guard_max_games``) is not FIXED: a rerun may give the gates that have
    #: not finished more games (a gate's pair seeds do not depend on it, GATE_SPAN); a finished gate
    #: keeps its decision.
    #: What a work folder made before a FIXED field existed ran with.
    LEGACY = {"pool": 0, "gate_mix": None, "gate_compass": None, "guard_mix": None, "guard_compass": 0.0,
              "guard_sprt": [-60.0, 0.0]}

    def __post_init__(self):
        def bad(option: str, what: str):
            raise LoopError(f"--{option.replace('_', '-')}: {what}")

        def integer(name: str, low: int, high: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                bad(name, f"expected an integer {low}..{high}, got {value!r}")

        def number(name: str, low: float, high: float, open_low: bool = False) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not (low < value if open_low else low <= value) or value > high:
                bad(name, f"expected a number {'above' if open_low else 'from'} {low} to {high}, got {value!r}")

        integer("rounds", 1, 10_000)
        integer("seed", 0, 2**32 - 1)
        integer("games", 1, 10**7)
        integer("nodes", 1, 10**9)
        integer("max_plies", 1, 60000)
        integer("shard_games", 1, 100_000)
        integer("epochs", 1, 10_000)
        integer("batch", 1, 1_048_576)
        integer("threads", 1, 1024)
        integer("gate_max_games", 2, 10**6)
        integer("guard_max_games", 2, 10**6)
        number("replay", 0.0, 1.0)
        integer("pool", 0, 10**9)
        number("lr", 0.0, 10.0, open_low=True)
        number("compass", 0.0, 1.0)
        if self.gate_compass is not None:
            number("gate_compass", 0.0, 1.0)
        number("guard_compass", 0.0, 1.0)
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 0.5:
                bad(name, f"expected a number between 0 and 0.5 (a rate of false decisions), got {value!r}")
        for name in ("gate_max_games", "guard_max_games"):
            if getattr(self, name) % 2:
                bad(name, f"expected an even number (games come in pairs), got {getattr(self, name)}")
        if self.gate_nodes is not None and self.gate_movetime is not None:
            bad("gate_movetime", "give --gate-nodes or --gate-movetime, not both")
        if self.gate_nodes is not None:
            integer("gate_nodes", 1, 10**9)
        if self.gate_movetime is not None:
            number("gate_movetime", 0.0, 3600.0, open_low=True)
        if self.gate_nodes is None and self.gate_movetime is None:
            object.__setattr__(self, "gate_nodes", DEFAULT_GATE_NODES)
        for name in ("mix", "gate_mix", "guard_mix"):
            mix = getattr(self, name)
            if mix is None and name != "mix":
                continue
            mix = tuple(mix) if isinstance(mix, (tuple, list)) else ()
            if len(mix) != 3 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                                        and x >= 0 for x in mix) or sum(mix) <= 0:
                bad(name, f"expected three shares >= 0 (standard, orthodox, fairy) with a positive sum, "
                          f"got {getattr(self, name)!r}")
            object.__setattr__(self, name, tuple(float(x) for x in mix))
        for name in ("sprt", "guard_sprt"):
            sprt = tuple(getattr(self, name))
            if len(sprt) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                         and math.isfinite(x) and abs(x) <= 1000 for x in sprt) \
                    or not sprt[0] < sprt[1]:
                bad(name, f"expected ELO0,ELO1 with ELO0 < ELO1 (Elo, within +-1000), got {getattr(self, name)!r}")
            object.__setattr__(self, name, tuple(float(x) for x in sprt))

    def gate_armies(self) -> tuple[tuple[float, float, float], float]:
        """The gate games' army mix and Compass share: ``gate_mix`` and ``gate_compass``, each the
        data's where it is None."""
        return (self.mix if self.gate_mix is None else self.gate_mix,
                self.compass if self.gate_compass is None else self.gate_compass)

    def stages(self) -> list[Stage]:
        """The SPRTs a candidate must pass, in order: the gate, then the guard when there is one."""
        mix, compass = self.gate_armies()
        stages = [Stage("gate", mix, compass, self.sprt, self.gate_max_games)]
        if self.guard_mix is not None:
            stages.append(Stage("guard", self.guard_mix, self.guard_compass, self.guard_sprt, self.guard_max_games))
        return stages

    def fixed(self) -> dict:
        """The fields a work folder keeps for its whole run (JSON)."""
        values = asdict(self)
        return {name: list(values[name]) if isinstance(values[name], tuple) else values[name] for name in self.FIXED}

    def training(self) -> dict:
        """The fine-tuning's settings (``TRAINING``), as a generation's training record keeps them."""
        return {name: getattr(self, name) for name in self.TRAINING}

    def to_json(self) -> dict:
        values = asdict(self)
        return {name: list(v) if isinstance(v, tuple) else v for name, v in values.items()}


@dataclass(frozen=True)
class Stage:
    """One SPRT of a candidate against its parent (LoopSettings.stages): its name ("gate" or "guard",
    which names its files in the generation's folder, gen-K/NAME.jsonl and NAME.json, and its
    lines), the armies of its games, its Elo bounds and its most games. Both play at the gate's
    budget, with the same alpha and beta."""

    name: str
    mix: tuple[float, float, float]
    compass: float
    sprt: tuple[float, float]
    max_games: int


#: The gate's node budget per order when neither --gate-nodes nor --gate-movetime is given: nodes,
#: not time, because two nets of the same width search at the same speed (a node costs both the
#: same), so equal nodes are a fair match and the games are the same on every rerun and machine.
DEFAULT_GATE_NODES = 20000


#: Pair seeds reserved for each gate (more than --gate-max-games may ask for: 10**6 games).
GATE_SPAN = 2**20


def generation_seed(seed: int, root: str, generation: int, what: str, span: int) -> int:
    """The seed of ``what`` ("data" or "gate") of ``generation`` of a loop started from the net of
    digest ``root``: a SHA-256 of the four, in 0 .. 2**32 - 1 - span (span seeds follow it)."""
    h = hashlib.sha256(f"{FORMAT}:{seed}:{root}:{generation}:{what}".encode()).digest()
    return int.from_bytes(h[:8], "big") % (2**32 - span)


# -- the gate: game pairs ---------------------------------------------------------------------------------
class _Sides:
    """The search of a gate game: the candidate's AlphaBeta on its colour's orders, the parent's on
    the other's, each at the gate's budget. nnue_data.play_game referees the game (it calls
    ``new_game`` and ``search``)."""

    def __init__(self, candidate: AlphaBeta, parent: AlphaBeta, candidate_colour: int,
                 nodes: int | None, movetime: float | None):
        self.searchers = (candidate, parent) if candidate_colour == 0 else (parent, candidate)
        self.nodes, self.movetime = nodes, movetime

    def new_game(self) -> None:
        for searcher in self.searchers:
            searcher.new_game()

    def search(self, position, nodes: int | None = None, **options):
        """The side to move's search at the gate's budget (``nodes``, the data's budget, is not
        used); the other options (Compass mode, what to return) as play_game passes them."""
        searcher = self.searchers[position.core.side]
        if self.movetime is not None:
            return searcher.search(position, seconds=self.movetime, **options)
        return searcher.search(position, nodes=self.nodes, **options)


@dataclass
class PairResult:
    """One pair: the candidate's points as Blue and as Yellow (1 a win, 0.5 a draw, 0 a loss), and
    how each game ended (nnue_data.END_REASONS) and how long it was."""

    pair: int
    seed: int
    scores: tuple[float, float]
    ends: tuple[str, str]
    plies: tuple[int, int]

    def to_json(self) -> dict:
        return {"pair": self.pair, "seed": self.seed, "scores": list(self.scores), "ends": list(self.ends),
                "plies": list(self.plies)}


def play_pair(pair: int, seed: int, candidate: str, parent: str, data: dict, armies: nnue_data.Armies,
              nodes: int | None, movetime: float | None, niceness: int = 0) -> PairResult:
    """The game of ``seed`` played twice, the candidate net Blue then Yellow (a unit of
    engine.execution.run_units); ``data`` the nnue_data.Settings fields of its army, opening and
    adjudication."""
    lower_priority(niceness)
    settings = nnue_data.settings_from_args(data)
    catalog = default_catalog()
    searchers = (AlphaBeta(catalog, tt_megabytes=nnue_data.HASH_MB, evaluation="nnue", net=candidate),
                 AlphaBeta(catalog, tt_megabytes=nnue_data.HASH_MB, evaluation="nnue", net=parent))
    scores, ends, plies = [], [], []
    for colour in (0, 1):
        sides = _Sides(*searchers, colour, nodes, movetime)
        game = nnue_data.play_game(seed, settings, cast(AlphaBeta, sides), armies=armies)
        scores.append(0.5 if game.winner < 0 else 1.0 if game.winner == colour else 0.0)
        ends.append(nnue_data.END_REASONS[game.end])
        plies.append(game.length)
    return PairResult(pair, seed, (scores[0], scores[1]), (ends[0], ends[1]), (plies[0], plies[1]))


class _Decided(Exception):
    """The SPRT crossed a bound: the running pairs are not needed."""


def _decision(test: SequentialTest) -> str | None:
    """'accepted' (H1: the candidate is better), 'rejected' (H0) or None (not decided)."""
    return {"H1 accepted": "accepted", "H0 accepted": "rejected"}.get(test.status())


def _read_pairs(path: Path) -> dict[int, dict]:
    """The finished pairs of a gate file (a line cut short by a crash is ignored)."""
    return {row["pair"]: row for row in read_rows(path) if isinstance(row.get("pair"), int)}


def run_gate(folder: Path, candidate: Path, parent: Path, settings: LoopSettings, seed: int,
             armies: nnue_data.Armies, sprt: Sprt, cluster: str | Cluster, workers: int | None,
             say: Callable[[str], None], niceness: int = 0, stage: Stage | None = None) -> dict:
    """One SPRT of a generation, ``stage`` (default: the gate, ``settings.stages()[0]``): pairs from
    ``folder/NAME.jsonl`` (kept) and new ones until the SPRT decides or the games run out; the result
    (written to ``folder/NAME.json``)."""
    stage = stage or settings.stages()[0]
    pairs_path = folder / f"{stage.name}.jsonl"
    done = _read_pairs(pairs_path)
    if pairs_path.exists():                # written again without a line a crash may have cut short
        tmp = pairs_path.with_name(pairs_path.name + ".tmp")
        tmp.write_text("".join(json.dumps(done[i]) + "\n" for i in sorted(done)), encoding="utf-8")
        tmp.replace(pairs_path)
    total = stage.max_games // 2
    test = sprt(stage.sprt[0], stage.sprt[1], settings.alpha, settings.beta, stage.max_games)
    fed = 0
    decision = None
    scores: list[float] = []

    def feed() -> str | None:
        nonlocal fed
        while fed in done and fed < total:
            a, b = done[fed]["scores"]
            test.add_pair(a, b)
            scores.extend((a, b))
            fed += 1
            found = _decision(test)
            if found:
                return found
        return None

    decision = feed()
    data = _gate_data(settings, stage)
    todo = [(i, seed + i, str(candidate), str(parent), data, armies, settings.gate_nodes, settings.gate_movetime,
             niceness) for i in range(total) if i not in done]
    if decision is None and todo:
        say(f"{stage.name}: {len(done)} pair(s) kept, {len(todo)} to play at most ({_budget_text(settings)} per "
            f"order, armies {armies_text(stage.mix, stage.compass)}, Elo bounds {stage.sprt[0]:g}, {stage.sprt[1]:g})")

        def finished(_done: int, _total: int, index: int, result: PairResult) -> None:
            nonlocal decision
            row = result.to_json()
            with pairs_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
                f.flush()
                os.fsync(f.fileno())
            done[result.pair] = row
            decision = feed()
            say(_gate_line(stage.name, test, fed, scores))
            if decision:
                raise _Decided

        try:
            run_units(play_pair, todo, cluster, workers, finished)
        except _Decided:
            pass
    if decision is None:
        decision = "rejected"           # the games ran out before a bound: not proven better
        bound = "games ran out"
    else:
        bound = "H1 (elo1)" if decision == "accepted" else "H0 (elo0)"
    result = {"decision": decision, "bound": bound, "pairs": fed, "games": 2 * fed,
              "points": sum(scores), "sprt": test.to_json(), "seed": seed,
              "budget": {"nodes": settings.gate_nodes} if settings.gate_movetime is None
              else {"movetime": settings.gate_movetime}}
    _write_json(folder / "gate.json", result)
    return result


def _budget_text(settings: LoopSettings) -> str:
    return f"{settings.gate_movetime:g} s" if settings.gate_movetime is not None else f"{settings.gate_nodes} nodes"


def _result_text(info: dict) -> str:
    """"Elo +E [low, high], LLR +L [lower, upper]" of _elo_fields' values (the parts known)."""
    def signed(x: float) -> str:
        return f"{x + 0.0:+.1f}"                    # + 0.0: no "-0.0"

    parts = []
    if info["elo"] is not None:
        interval = info["elo_interval"]
        parts.append(f"Elo {signed(info['elo'])}" + ("" if not interval else
                                                      f" [{signed(interval[0])}, {signed(interval[1])}]"))
    if info["llr"] is not None:
        bounds = info["llr_bounds"]
        parts.append(f"LLR {info['llr'] + 0.0:+.2f}" + ("" if not bounds else f" [{bounds[0]:+.2f}, {bounds[1]:+.2f}]"))
    return ", ".join(parts)


def _gate_line(name: str, test: SequentialTest, pairs: int, scores: list[float]) -> str:
    results = _result_text(_elo_fields(test.to_json()))
    return f"{name}: {pairs} pair(s), candidate {sum(scores):g}/{len(scores)}, {results}: {test.status()}"


def _gate_data(settings: LoopSettings, stage: Stage | None = None) -> dict:
    """The nnue_data.Settings fields of a stage's games (default: the gate's): its army mix and
    Compass share and the loop's length; the node field is unused (the sides search at the gate's
    budget)."""
    stage = stage or settings.stages()[0]
    return nnue_data.settings_args(nnue_data.Settings(seed=0, games=1, nodes=1, mix=stage.mix,
                                                      compass=stage.compass, max_plies=settings.max_plies,
                                                      evaluation="classical"))


# -- the work folder ---------------------------------------------------------------------------------------
def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def _read_json(path: Path, what: str) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LoopError(f"{path}: not a readable {what} ({exc})") from None
    if not isinstance(value, dict):
        raise LoopError(f"{path}: not a readable {what} (not a JSON object)")
    return value


def _load(path: Path, option: str) -> Net:
    try:
        return load_net(path, default_catalog())
    except NetFileError as exc:
        raise LoopError(f"{option} {exc}") from None


def _open_work(work: Path, settings: LoopSettings, start: Path) -> dict:
    """The work folder's state: made with a copy of the start net as the parent, or read and its
    settings checked against these."""
    if work.exists() and not work.is_dir():
        raise LoopError(f"--work {work}: not a folder")
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LoopError(f"--work {work}: cannot make the folder ({exc.strerror or exc})") from None
    path = work / STATE
    if path.exists():
        state = _read_json(path, "nnue-loop state file")
        if state.get("format") != FORMAT or not isinstance(state.get("settings"), dict):
            raise LoopError(f"{path}: not a state file of ftc nnue-loop")
        have, want = state["settings"], settings.fixed()
        for key in LoopSettings.FIXED:
            had = have.get(key, LoopSettings.LEGACY.get(key))
            if had != want.get(key):
                raise LoopError(f"--{key.replace('_', '-')}: the work folder {work} runs with {json.dumps(had)},"
                                f" this command asks for {json.dumps(want.get(key))}; run with the same settings to "
                                "continue, or choose another --work")
        if not (work / PARENT).exists():
            raise LoopError(f"{work / PARENT}: the work folder's parent net is missing")
        return state
    if any(work.iterdir()):
        raise LoopError(f"--work {work}: the folder is not empty and has no {STATE} (not a work folder of nnue-loop)")
    net = _load(start, "--net-in")
    shutil.copyfile(start, work / PARENT)
    state = {"format": FORMAT, "version": VERSION, "settings": settings.fixed(), "root": net.digest(),
             "start": str(start), "generation": 1, "accepted": 0, "rejected": 0}
    _write_json(path, state)
    return state


def _merge_replay(dataset, previous: Path, share: float, seed: int):
    """``dataset`` plus ``share`` of the games of the data folder ``previous`` (whole games, drawn
    with ``seed``; all of them when ``share`` is 1), as one nnue_train.Dataset."""
    old = nnue_train.load_dataset(previous)
    if share >= 1.0:
        rows = np.arange(old.positions)
    else:
        games = np.unique(old.arrays["game"])
        rng = np.random.Generator(np.random.PCG64(seed))
        keep = rng.choice(games, size=int(round(share * len(games))), replace=False) if len(games) else games
        rows = np.flatnonzero(np.isin(old.arrays["game"], keep))
    if not len(rows):
        return dataset
    extra = nnue_train._subset(old.arrays, rows)
    a = dataset.arrays
    arrays = {name: np.concatenate([a[name], extra[name]]) for name in a if name not in ("codes", "offsets")}
    arrays["codes"] = np.concatenate([a["codes"], extra["codes"]])
    arrays["offsets"] = np.concatenate([a["offsets"], extra["offsets"][1:] + a["offsets"][-1]])
    digest = hashlib.sha256(f"{dataset.digest}+{old.digest}:{share}:{seed}".encode()).hexdigest()
    return nnue_train.Dataset(dataset.folder, arrays, dataset.manifest,
                              dataset.shards + [f"replay:{Path(previous).parent.name}/{s}" for s in old.shards], digest)


def _parent_digest(work: Path, g: int) -> str | None:
    """The digest of generation ``g``'s parent, None when that generation has no parent copy."""
    path = work / f"gen-{g}" / PARENT
    return _load(path, "the parent net").digest() if g >= 1 and path.exists() else None


def _pooled(work: Path, k: int, parent: str, limit: int) -> list[int]:
    """The generations whose data generation ``k`` trains on again (the module docstring's pool):
    the finished generations just before ``k`` with the same parent ``parent``, newest first, as
    long as their positions (train.json's fresh ones) add up to at most ``limit``."""
    chosen: list[int] = []
    total = 0
    for g in range(k - 1, 0, -1):
        train = work / f"gen-{g}" / "train.json"
        if _parent_digest(work, g) != parent or not train.exists():
            break
        positions = int(_read_json(train, "training record").get("positions", 0))
        if total + positions > limit or not (work / f"gen-{g}" / "data").is_dir():
            break
        chosen.append(g)
        total += positions
    return chosen


def _train_options(settings: LoopSettings, parent: Net, parent_path: Path, seed: int):
    """Fine-tuning from the parent: its weights, the loop's learning rate and epochs, and the parent's
    own objective (K, lam, weight decay, mirroring) where its header names them, so that a value
    means the same win probability along the chain."""
    p = parent.provenance
    options: dict = p["options"] if isinstance(p.get("options"), dict) else {}
    k = p.get("k") if isinstance(p.get("k"), (int, float)) else None
    return nnue_train.Options(init=str(parent_path), epochs=settings.epochs, lr=settings.lr, batch=settings.batch,
                              threads=settings.threads, seed=seed % 2**32, k=k,
                              lam=float(p.get("lam", 0.75)), weight_decay=float(options.get("weight_decay", 0.0)),
                              mirror=bool(options.get("mirror", False)), schedule="cosine")


def _chain_positions(net: Net) -> int:
    """The positions of the chain up to ``net``: its header's chain total, or (a net trained outside
    the loop) the positions it was trained and validated on."""
    chain = net.provenance.get("chain")
    if isinstance(chain, dict) and isinstance(chain.get("total_positions"), int):
        return chain["total_positions"]
    positions = net.provenance.get("positions")
    if isinstance(positions, dict):
        return sum(v for v in positions.values() if isinstance(v, int))
    return 0


def _depth(net: Net) -> int:
    chain = net.provenance.get("chain")
    return chain["generation"] if isinstance(chain, dict) and isinstance(chain.get("generation"), int) else 0


# -- the chain file ----------------------------------------------------------------------------------------
def read_chain(path: Path) -> dict:
    """The chain file (a new, empty chain when there is none); LoopError when it is unreadable."""
    if not path.exists():
        return {"format": CHAIN_FORMAT, "version": VERSION, "generations": []}
    chain = _read_json(path, "chain file")
    if chain.get("format") != CHAIN_FORMAT or not isinstance(chain.get("generations"), list):
        raise LoopError(f"{path}: not a chain file of ftc nnue-loop (format {CHAIN_FORMAT})")
    return chain


def _append_chain(path: Path, entry: dict) -> None:
    """Append ``entry`` unless the chain already holds it (a finish step run again after a crash)."""
    chain = read_chain(path)
    key = (entry["work"], entry["round"], entry["parent"], entry["candidate"])
    if any((e.get("work"), e.get("round"), e.get("parent"), e.get("candidate")) == key for e in chain["generations"]):
        return
    entry = {"index": len(chain["generations"]) + 1, **entry}
    chain["generations"].append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_json(path, chain)


def _chain_elo(entries: list[dict]) -> dict[str, float]:
    """Every net's Elo over the net its line of parents started from: an accepted generation's is its
    parent's plus its own SPRT estimate (a net the chain did not make, such as a starting net, is 0).
    A chain may fork (a loop started again from an earlier net): each net sums its own line only."""
    elo: dict[str, float] = {}
    for e in entries:
        if e["status"] == "accepted":
            elo[e["candidate"]] = elo.get(e["parent"], 0.0) + float(e.get("elo") or 0.0)
    return elo


def _cumulative(entries: list[dict]) -> list[float]:
    """Each accepted generation's Elo over the start of its line (``_chain_elo``), in chain order."""
    elo = _chain_elo(entries)
    return [elo[e["candidate"]] for e in entries if e["status"] == "accepted"]


def armies_text(mix: Any, compass: Any) -> str:
    """An army mix (shares standard/orthodox/fairy) and a Compass share in words: "standard" (the
    standard position alone, no Compass mode), else the shares and the Compass share ("-" for values
    that are missing or not numbers: a chain file edited by hand)."""
    try:
        values = [float(x) for x in mix]
        total = sum(values)
        shares = [x / total for x in values]
        share = float(compass)
    except (TypeError, ValueError, ZeroDivisionError):     # no settings, or a chain file edited by hand
        return "-"
    if shares == [1.0, 0.0, 0.0] and not share:
        return "standard"
    return "/".join(f"{x:g}" for x in values) + (f", Compass {share:g}" if share else "")


def gate_armies_text(settings: dict) -> str:
    """The armies of a generation's gate games in words (``armies_text``), from its chain entry's
    settings: the gate's mix and Compass share, or the data's where the gate had none."""
    compass: Any = settings.get("gate_compass")
    return armies_text(settings.get("gate_mix") or settings.get("mix"),
                       settings.get("compass") if compass is None else compass)


def guard_text(entry: dict) -> str:
    """A chain entry's guard in words: its armies, games, Elo and decision ("-": no guard played)."""
    guard = entry.get("guard")
    if not isinstance(guard, dict):
        return "-"
    settings = entry.get("settings") or {}
    armies = armies_text(settings.get("guard_mix"), settings.get("guard_compass"))
    elo = "" if guard.get("elo") is None else f", Elo {guard['elo'] + 0.0:+.1f}"
    return f"{armies}: {guard.get('games', 0)} games{elo}, {guard.get('decision', '-')}"


def chain_markdown(chain: dict, plot: str | None = None) -> str:
    """The chain as a markdown page: one row per generation (accepted and rejected)."""
    rows = ["| # | status | net | parent | positions | lr | chain positions | gate armies | games | Elo (95%) "
            "| LLR (bounds) | guard | date |",
            "| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | --- | --- | --- | --- |"]
    for e in chain["generations"]:
        interval = e.get("elo_interval") or [None, None]
        elo = "-" if e.get("elo") is None else f"{e['elo']:+.1f}"
        if interval[0] is not None and interval[1] is not None:
            elo += f" [{interval[0]:+.1f}, {interval[1]:+.1f}]"
        llr = "-" if e.get("llr") is None else f"{e['llr']:.2f}"
        bounds = e.get("llr_bounds") or [None, None]
        if bounds[0] is not None and bounds[1] is not None:
            llr += f" ({bounds[0]:.2f}, {bounds[1]:.2f})"
        lr = (e.get("settings") or {}).get("lr")
        status = e["status"]
        if status == "rejected" and not e["games"] and e.get("decision_bound"):
            status += f" ({e['decision_bound']})"   # rejected without games: the fine-tuning gained nothing
        elif status == "rejected" and isinstance(e.get("guard"), dict):
            status += " (guard)"                    # passed its gate, failed its guard
        rows.append(f"| {e['index']} | {status} | `{e['candidate']}` | `{e['parent']}` | {e['positions']:,}"
                    + (f" + {e['pooled']:,} pooled" if e.get("pooled") else "") + " | "
                    + ("-" if lr is None else f"{lr:g}") + " | "
                    f"{e['total_positions']:,} | {gate_armies_text(e.get('settings') or {})} | {e['games']} | {elo} "
                    f"| {llr} | {guard_text(e)} | {e.get('date', '-')} |")
    accepted = _cumulative(chain["generations"])
    text = ["# The chain of nets", "",
            "Written by `ftc nnue-loop` (docs/nnue-loop.md) from docs/results/nnue-chain.json; every generation",
            "is trained from its parent on fresh data made with the parent (and on the pool: the data of the",
            "parent's rejected generations), and gated against it by SPRT on the armies the column names",
            "(standard/orthodox/fairy shares and the Compass share; \"standard\": the standard position alone);",
            "with a guard, a candidate that passed its gate must also show, by a second SPRT on the guard's",
            "armies, that it is not much worse there (the guard column; \"rejected (guard)\": it was not).",
            "A rejected generation leaves the parent in place; it is listed so that the history is complete.",
            "An accepted net is shipped only after matches on the orthodox army at 100 ms a move as well",
            "(docs/nnue.md, \"The shipped net\", says which net is shipped and why).", "",
            f"Generations: {len(chain['generations'])}, accepted {len(accepted)}; the last accepted net is "
            f"{accepted[-1] if accepted else 0.0:+.1f} Elo over the start of its line (the sum of the gate "
            "estimates from the starting net to it, parent by parent).", ""]
    if plot:
        text += [f"![Cumulative Elo over the accepted generations]({plot})", ""]
    return "\n".join(text + rows) + "\n"


def plot_chain(chain: dict, path: Path) -> None:
    """Cumulative Elo over the generations (the accepted ones' estimates summed, their intervals as
    bars; the rejected ones marked at the Elo they stayed at) as a PNG (matplotlib)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    # Each net at its line's Elo (_chain_elo), joined to its parent: a chain that forks shows two lines.
    at: dict[str, tuple[int, float]] = {}            # net -> (its chain index, its Elo)
    xs, ys, low, high, rx, ry = [0], [0.0], [0.0], [0.0], [], []
    for e in chain["generations"]:
        parent = at.get(e["parent"], (0, 0.0))
        if e["status"] == "accepted":
            interval = e.get("elo_interval") or [e.get("elo") or 0.0] * 2
            elo = float(e.get("elo") or 0.0)
            point = (int(e["index"]), parent[1] + elo)
            at[e["candidate"]] = point
            ax.plot([parent[0], point[0]], [parent[1], point[1]], "-", color="tab:blue", alpha=0.5)
            xs.append(point[0])
            ys.append(point[1])
            low.append(max(0.0, elo - float(interval[0] if interval[0] is not None else elo)))
            high.append(max(0.0, float(interval[1] if interval[1] is not None else elo) - elo))
        else:
            rx.append(e["index"])
            ry.append(parent[1])
    ax.errorbar(xs, ys, yerr=[low, high], fmt="o", ms=4, capsize=3, color="tab:blue",
                label="accepted (Elo over the start of its line, 95% bars)")
    if rx:
        ax.plot(rx, ry, "x", color="grey", label="rejected (parent kept)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation (chain file index; 0: the starting net)")
    ax.set_ylabel("Elo over the starting net")
    ax.set_title("NNUE chain: cumulative Elo by SPRT gate")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def render_chain(chain_path: Path, docs: Path) -> None:
    """The chain file as its page ``docs`` and the plot ``docs.parent/results/PLOT``."""
    chain = read_chain(Path(chain_path))
    plot = Path(docs).parent / "results" / PLOT
    plot.parent.mkdir(parents=True, exist_ok=True)
    plot_chain(chain, plot)
    tmp = Path(docs).with_name(Path(docs).name + ".tmp")
    tmp.write_text(chain_markdown(chain, f"results/{PLOT}"), encoding="utf-8")
    tmp.replace(docs)


def kept(work: str | Path) -> str:
    """What a stopped run keeps in its work folder, in words (the line of Ctrl-C)."""
    work = Path(work)
    path = work / STATE
    if not path.exists():
        return f"nothing yet in {work}"
    try:
        k = int(_read_json(path, "nnue-loop state file")["generation"])
    except (LoopError, KeyError, TypeError, ValueError):
        return f"the work folder {work}"
    folder = work / f"gen-{k}"
    parts = [f"{k - 1} finished generation(s)"]
    try:
        manifest = nnue_data.read_manifest(folder / "data") if (folder / "data").is_dir() else None
    except nnue_data.DataError:
        manifest = None
    if manifest:
        parts.append(f"generation {k}'s {manifest.get('counts', {}).get('games', 0)} data games")
    if (folder / "train.json").exists():
        parts.append("its trained candidate")
    for name in ("gate", "guard"):
        pairs = len(_read_pairs(folder / f"{name}.jsonl"))
        if pairs:
            parts.append(f"{pairs} {name} pair(s)")
    return ", ".join(parts) + f" kept in {work}"


# -- the loop ------------------------------------------------------------------------------------------
@dataclass
class LoopResult:
    generations: list[dict] = field(default_factory=list)
    parent: str = ""


def _elo_fields(info: dict) -> dict:
    """Elo, its 95% interval, LLR and its bounds from the SPRT's JSON (engine/search/sprt.py's to_json)."""
    return {"elo": info.get("elo"), "elo_interval": info.get("elo_ci95"), "llr": info.get("llr"),
            "llr_bounds": info.get("bounds")}


def run_loop(work: str | Path, settings: LoopSettings, armies: nnue_data.Armies, sprt: Sprt,
             net_in: str | Path, net_out: str | Path | None, chain: str | Path, cluster: str | Cluster = "local",
             workers: int | None = 1, say: Callable[[str], None] | None = None, niceness: int = 0,
             render: Callable[[Path], None] | None = None) -> LoopResult:
    """Run the generations of ``settings.rounds`` not yet finished in the work folder ``work``
    (docstring of this module); ``render(chain_path)`` after each generation (the docs' table and
    plot). A net that passes becomes the work folder's ``parent.nnue`` and, when ``net_out`` is
    given, is written there too (never by default to the shipped net: docs/nnue.md "The shipped
    net" says what shipping one takes). Ctrl-C raises KeyboardInterrupt with every finished step kept."""
    if importlib.util.find_spec("torch") is None:
        raise LoopError(f"nnue-loop trains a net each generation and needs PyTorch: {INSTALL_HINT}")
    say = say or (lambda line: None)
    work, chain_path = Path(work), Path(chain)
    net_out = None if net_out is None else Path(net_out)
    if net_out is not None and not net_out.parent.is_dir():
        raise LoopError(f"--net-out {net_out}: the folder {net_out.parent} does not exist")
    if chain_path.exists() and not chain_path.is_file():
        raise LoopError(f"--chain {chain_path}: not a file")
    read_chain(chain_path)
    state = _open_work(work, settings, Path(net_in))
    result = LoopResult()
    while state["generation"] <= settings.rounds:
        k = state["generation"]
        entry = _generation(work, k, state, settings, armies, sprt, net_out, chain_path, cluster, workers, say,
                            niceness)
        result.generations.append(entry)
        state["generation"] = k + 1
        state["accepted" if entry["status"] == "accepted" else "rejected"] += 1
        _write_json(work / STATE, state)
        _tidy(work, k, settings, entry["status"] == "accepted")
        if render:
            render(chain_path)
    result.parent = str(work / PARENT)
    return result


def _generation(work: Path, k: int, state: dict, settings: LoopSettings, armies: nnue_data.Armies, sprt: Sprt,
                net_out: Path | None, chain_path: Path, cluster, workers, say, niceness: int) -> dict:
    folder = work / f"gen-{k}"
    folder.mkdir(exist_ok=True)
    # The generation's own copy of its parent: the work folder's parent.nnue changes when it passes.
    parent_path = folder / PARENT
    if not parent_path.exists():
        shutil.copyfile(work / PARENT, folder / (PARENT + ".tmp"))
        (folder / (PARENT + ".tmp")).replace(parent_path)
    parent = _load(parent_path, "the parent net")
    root = state["root"]
    started = time.perf_counter()

    # 1. data, with the parent net
    data_seed = generation_seed(settings.seed, root, k, "data", settings.games)
    data_settings = nnue_data.Settings(seed=data_seed, games=settings.games, nodes=settings.nodes, mix=settings.mix,
                                       compass=settings.compass, max_plies=settings.max_plies,
                                       shard_games=settings.shard_games, evaluation="nnue", net=str(parent_path))
    say(f"generation {k}: parent {parent.digest()}; data: {settings.games} games at {settings.nodes} nodes "
        f"(seed {data_seed})")
    progress = nnue_data.generate(folder / "data", data_settings, armies, cluster, workers,
                                  lambda p: say(p.line()))
    if not progress.done:
        raise LoopError(f"{folder / 'data'}: the data is not complete")

    # 2. train from the parent
    candidate_path = folder / "candidate.nnue"
    train_path = folder / "train.json"
    if not (train_path.exists() and candidate_path.exists()):
        dataset = nnue_train.load_dataset(folder / "data")
        fresh = dataset.positions
        pool = _pooled(work, k, parent.digest(), settings.pool) if settings.pool > 0 else []
        for g in pool:
            dataset = _merge_replay(dataset, work / f"gen-{g}" / "data", 1.0, data_seed)
        pooled = dataset.positions - fresh
        previous = work / f"gen-{k - 1}" / "data"
        if settings.replay > 0 and previous.is_dir() and k - 1 not in pool:
            dataset = _merge_replay(dataset, previous, settings.replay, data_seed)
        replayed = dataset.positions - fresh - pooled
        options = _train_options(settings, parent, parent_path, data_seed)
        say(f"generation {k}: training from {parent.digest()} on {fresh:,} new positions"
            + (f", {pooled:,} of the pool (generation(s) {', '.join(map(str, pool))})" if pooled else "")
            + (f" and {replayed:,} replayed" if replayed else "")
            + f" ({options.epochs} epoch(s), lr {options.lr:g}, {options.threads} thread(s))")
        trained = nnue_train.train(dataset, options, candidate_path, progress=say)
        if trained.interrupted:
            candidate_path.unlink(missing_ok=True)
            raise KeyboardInterrupt
        _write_json(train_path, {"candidate": trained.net.digest(), "positions": fresh, "pooled": pooled,
                                 "pool": pool, "replayed": replayed, "training": settings.training(),
                                 "best_epoch": trained.best_epoch, "loss": trained.net.provenance.get("loss"),
                                 "baseline": trained.baseline})
    trained_info = _read_json(train_path, "training record")
    candidate = _load(candidate_path, "the candidate net")

    # 3. gate (and guard): candidate against parent
    gate_path = folder / "gate.json"
    if gate_path.exists():
        gate = _read_json(gate_path, "gate record")
    elif candidate.digest() == parent.digest():
        # Quantised, the fine-tuning changed no weight: nothing to play.
        gate = {"decision": "rejected", "bound": "the candidate's weights are the parent's", "pairs": 0, "games": 0,
                "points": 0.0, "sprt": {}, "seed": None, "budget": {}}
        _write_json(gate_path, gate)
    else:
        gate_seed = generation_seed(settings.seed, root, k, "gate", GATE_SPAN)
        gate = run_gate(folder, candidate_path, parent_path, settings, gate_seed, armies, sprt, cluster, workers,
                        say, niceness)
    elo = _elo_fields(gate["sprt"])
    accepted = gate["decision"] == "accepted"
    guard = None
    stages = settings.stages()
    if accepted and len(stages) > 1:
        guard_path = folder / "guard.json"
        if guard_path.exists():
            guard = _read_json(guard_path, "guard record")
        else:
            guard_seed = generation_seed(settings.seed, root, k, "guard", GATE_SPAN)
            guard = run_gate(folder, candidate_path, parent_path, settings, guard_seed, armies, sprt, cluster,
                             workers, say, niceness, stages[1])
        accepted = guard["decision"] == "accepted"
    guard_entry = None if guard is None else {
        "decision": guard["decision"], "bound": guard["bound"], "games": guard["games"], "points": guard["points"],
        **_elo_fields(guard["sprt"]), "sprt": guard["sprt"], "seed": guard["seed"]}

    # 4. finish: the chain file, and the net when it passed
    positions = int(trained_info["positions"])          # made by this generation (the chain counts no replay twice)
    replayed = int(trained_info.get("replayed", 0))
    pooled = int(trained_info.get("pooled", 0))      # made by the parent's rejected generations: new to the chain
    total = _chain_positions(parent) + positions + pooled
    entry = {"status": "accepted" if accepted else "rejected", "work": work.name, "round": k,
             "parent": parent.digest(), "candidate": candidate.digest(), "generation": _depth(parent) + accepted,
             "positions": positions, "pooled": pooled, "replayed": replayed,
             "total_positions": total if accepted else _chain_positions(parent),
             "games": gate["games"], "points": gate["points"],
             "decision_bound": gate["bound"] if guard is None or guard["decision"] == "accepted"
             else f"guard: {guard['bound']}", **elo,
             "sprt": gate["sprt"], "guard": guard_entry, "budget": gate["budget"], "data": {"seed": data_seed, "games": settings.games,
                                                                      "nodes": settings.nodes},
             "commit": nnue_data.git_commit(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "settings": {**settings.fixed(), "gate_max_games": settings.gate_max_games,
                          # a record from before the training settings could change ran with the folder's
                          **(trained_info.get("training") or settings.training())}}
    if accepted:
        candidate.provenance["chain"] = {
            "generation": _depth(parent) + 1, "parent": parent.digest(), "root": root, "positions": positions,
            "pooled": pooled, "replayed": replayed,
            "total_positions": total, "sprt": {**elo, "games": gate["games"], "bounds_elo": list(settings.sprt),
                                               "alpha": settings.alpha, "beta": settings.beta,
                                               "budget": gate["budget"], "test": gate["sprt"]},
            **({} if guard_entry is None else {"guard": {**guard_entry, "bounds_elo": list(settings.guard_sprt)}}),
            "commit": entry["commit"], "settings": entry["settings"], "data_seed": data_seed}
    _append_chain(chain_path, entry)
    if accepted:
        if net_out is not None:
            save_net(candidate, net_out)
        save_net(candidate, work / PARENT)
    seconds = time.perf_counter() - started
    results = _result_text(elo) or gate["bound"]
    if guard_entry is not None:
        results += (f"; guard {guard_entry['points']:g}/{guard_entry['games']} games, "
                    f"{_result_text(guard_entry) or guard_entry['bound']} ({guard_entry['decision']})")
    say(f"generation {k}: {entry['status']} {candidate.digest()} (parent {parent.digest()}): "
        f"{gate['points']:g}/{gate['games']} games, {results}; {seconds:.0f} s this run"
        + (f"; written to {net_out or work / PARENT}" if accepted else "; the parent stays"))
    return entry


def _tidy(work: Path, k: int, settings: LoopSettings, accepted: bool) -> None:
    """After generation ``k``: the data no later generation trains on goes (unless --keep-data).
    Accepted, ``k``'s stays only when the next one replays it; rejected, ``k``'s and its pool's
    stay while they fit in the next generation's pool (same parent)."""
    if settings.keep_data:
        return
    if accepted:
        needed = {k} if settings.replay > 0 else set()
    elif settings.pool > 0:
        needed = set(_pooled(work, k + 1, _parent_digest(work, k) or "", settings.pool))
    else:
        needed = {k} if settings.replay > 0 else set()
    for g in range(1, k + 1):
        data = work / f"gen-{g}" / "data"
        if g not in needed and data.exists():
            shutil.rmtree(data)
