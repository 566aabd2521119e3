"""Training data for the learned board evaluation (engine/board/nnue.py): self-play games of
Point-Buy Chess (RULINGS C8) by the engine's own alpha-beta at a fixed node budget, their quiet
positions written as BoardRecords with the search's score and the game's result (`ftc nnue-data`;
docs/nnue-data.md describes the command, the shard format and the manifest).

A game is a pure function of its seed and the settings:

- its army: the standard start position, a random Point-Buy army of the orthodox types only, or a
  random Point-Buy army of any type the Point-Buy price list offers (the mix is a setting), picked
  through the engine's own Point-Buy set-up (engine/crown/setup.py: alternate picks, budgets, C19);
  Compass mode (every unit moves cylindrically) in a fraction of the games;
- a few uniformly random legal orders (the opening), then both sides play the best order of
  AlphaBeta.search at ``nodes`` nodes per order, with the transposition table cleared at the start;
- it ends as tools/vs_fairy_stockfish.py's referee ends a game (a Sovereign captured, no legal order,
  threefold repetition, 100 turns without a capture or deploy: RULINGS C2, C3), or by adjudication:
  a draw after ``max_plies`` orders, or a win for the side both searches have seen more than
  ADJUDICATE_SCORE centi-points ahead for ADJUDICATE_PLIES orders in a row.

A position is recorded when the side to move's best order is quiet (it captures nothing, deploys
nothing and promotes nothing), none of its Sovereigns is threatened (C7) and the score is not a mate
score. Games are grouped in shards of consecutive seeds (``shard-<first seed>.npz``): one unit of
engine.execution.run_units each, so the data is the same on any cluster and any number of workers.
"""

from __future__ import annotations

import io
import json
import math
import random
import subprocess
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from engine import BUILD_INFO, version_string
from engine.board.alphabeta import MATE, AlphaBeta
from engine.board.evaluate import EVALUATIONS, choose_network, evaluation_settings
from engine.board.nnue import MAX_TYPES, BoardRecord, NetFileError, board_record
from engine.catalog import default_catalog
from engine.codes import DEPLOY, order_kind, order_promotion
from engine.execution import Cluster, interrupts_held, run_units
from engine.notation import BLUE
from engine.position import Position

__all__ = ["shard_paths", "git_commit", "FORMAT", "VERSION", "ARMIES", "ORTHODOX", "END_REASONS", "ADJUDICATE_SCORE", "ADJUDICATE_PLIES",
           "Settings", "DataError", "GameData", "Armies", "play_game", "is_quiet", "sovereign_threatened",
           "generate_shard", "shard_name", "write_shard", "read_shard", "load_shards", "iter_records", "generate",
           "read_manifest", "POSITION_ARRAYS", "GAME_ARRAYS", "Progress", "Counts"]

FORMAT = "ftc-nnue-data"
VERSION = 1
#: The army kinds, by their code in the ``army`` arrays.
ARMIES = ("standard", "orthodox", "fairy")
#: The orthodox types (chess's): an orthodox Point-Buy army picks only these.
ORTHODOX = ("K", "Q", "R", "B", "N", "P")
#: How a game ended, by its code in the ``game_end`` array.
END_REASONS = ("sovereign captured", "no legal order", "threefold repetition", "100 turns without capture or deploy",
               "adjudicated: max plies", "adjudicated: score")
#: Score adjudication: both sides' searches see the same side more than this many centi-points ahead ...
ADJUDICATE_SCORE = 2500
#: ... for this many orders in a row: that side wins.
ADJUDICATE_PLIES = 8
#: Transposition table of every game's search (MB): a setting of the data (another size, other games).
HASH_MB = 16
#: A mate score: a forced Sovereign capture within the search's horizon (as format_score reads it).
MATE_BOUND = MATE - 1000
#: Attempts at a random opening (or an orthodox army) before the game's seed is called unusable.
ATTEMPTS = 200

#: Arrays with one row per recorded position (``codes`` and ``offsets`` excepted: see docs/nnue-data.md).
POSITION_ARRAYS = {"barracks": np.uint8, "side": np.uint8, "cylindrical": np.uint8, "score": np.int32,
                   "result": np.int8, "ply": np.uint16, "army": np.uint8, "game": np.uint32}
#: Arrays with one row per game of the shard (positions recorded or not).
GAME_ARRAYS = {"game_seed": np.uint32, "game_army": np.uint8, "game_compass": np.uint8, "game_winner": np.int8,
               "game_plies": np.uint16, "game_end": np.uint8}
#: Fixed time stamp of every member of a shard's zip file: the same data gives the same bytes.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class DataError(ValueError):
    """Settings or a data folder that cannot be used; the message names the option or the file."""


@dataclass(frozen=True)
class Settings:
    """What the data is made with; every field is checked against an existing manifest."""

    seed: int = 0
    games: int = 1000
    nodes: int = 5000
    opening_plies: int = 6
    max_plies: int = 300
    #: Shares of the army kinds (standard, orthodox, fairy); they need not sum to 1.
    mix: tuple[float, float, float] = (0.25, 0.25, 0.5)
    #: Fraction of the games in Compass mode.
    compass: float = 0.1
    budget: int = 38
    shard_games: int = 10
    #: The searches' evaluation: "classical" or "nnue" (None: engine/data/evaluation.toml's default,
    #: "nnue" when ``net`` is given), resolved here.
    evaluation: str | None = None
    #: The network file of "nnue" (None: the shipped one). The manifest records its digest, not its
    #: path; every worker reads this path (a worker of another machine needs the file at the same place).
    net: str | None = None
    #: The digest of ``net`` (None when classical), read once when the settings are made.
    _net_digest: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        def bad(option: str, what: str):
            raise DataError(f"--{option.replace('_', '-')}: {what}")

        for name, low, high in (("games", 1, 10**8), ("nodes", 1, 10**9), ("opening_plies", 0, 200),
                                ("max_plies", 1, 60000), ("budget", 1, 200), ("shard_games", 1, 100_000)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                bad(name, f"expected an integer {low}..{high}, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed <= 2**32 - 1 - self.games:
            bad("seed", f"expected an integer 0..{2**32 - 1 - self.games} (game seeds are uint32), got {self.seed!r}")
        mix = tuple(self.mix)
        if len(mix) != 3 or not all(isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 for x in mix) \
                or sum(mix) <= 0:
            bad("mix", f"expected three shares >= 0 (standard, orthodox, fairy) with a positive sum, got {self.mix!r}")
        object.__setattr__(self, "mix", tuple(float(x) for x in mix))
        if not isinstance(self.compass, (int, float)) or not 0.0 <= self.compass <= 1.0:
            bad("compass", f"expected a fraction 0..1, got {self.compass!r}")
        object.__setattr__(self, "compass", float(self.compass))
        evaluation = self.evaluation
        if evaluation is None:
            evaluation = "nnue" if self.net is not None else evaluation_settings()["default"]
        if evaluation not in EVALUATIONS:
            bad("eval", f"expected one of {', '.join(EVALUATIONS)}, got {evaluation!r}")
        if evaluation == "classical" and self.net is not None:
            bad("net", "a net file was given with --eval classical (give --eval nnue, or no --net)")
        object.__setattr__(self, "evaluation", evaluation)
        if self.net is not None:
            object.__setattr__(self, "net", str(Path(self.net).resolve()))   # the same file for every worker
        digest = None
        if evaluation == "nnue":
            try:
                network = choose_network("nnue", self.net, default_catalog())
            except NetFileError as exc:
                bad("net", str(exc))
            digest = network.digest.split()[0]
        # The net's digest: what the manifest records and the workers check (not a field: it is of the file).
        object.__setattr__(self, "_net_digest", digest)

    @property
    def net_digest(self) -> str | None:
        """The digest of the net the searches evaluate with (nnue.Net.digest), None when classical."""
        return self._net_digest

    def searcher(self) -> AlphaBeta:
        """A search of these settings: HASH_MB of table, their evaluation; DataError when the net
        file's digest is no longer the one the settings were made with (the file changed under a run)."""
        searcher = AlphaBeta(default_catalog(), tt_megabytes=HASH_MB, evaluation=self.evaluation, net=self.net)
        if self.net_digest is not None and not searcher.evaluation.startswith(f"nnue {self.net_digest}"):
            raise DataError(f"--net {self.net or 'the shipped net'}: its digest is no longer {self.net_digest} "
                            f"({searcher.evaluation}); the file changed during the run")
        return searcher

    def to_json(self) -> dict:
        """The settings as the manifest holds them (with the fixed rules of the data)."""
        total = sum(self.mix)
        return {"seed": self.seed, "games": self.games, "nodes": self.nodes, "opening_plies": self.opening_plies,
                "max_plies": self.max_plies,
                "mix": {**{kind: round(share / total, 6) for kind, share in zip(ARMIES, self.mix)},
                        "compass": self.compass},
                "budget": self.budget, "shard_games": self.shard_games, "hash_mb": HASH_MB,
                "adjudicate_score": ADJUDICATE_SCORE, "adjudicate_plies": ADJUDICATE_PLIES,
                "evaluation": self.evaluation, "net": self.net_digest}


# -- one game ---------------------------------------------------------------------------------------------
@dataclass
class GameData:
    """One game: its recorded positions and how it went. ``winner`` 0 Blue, 1 Yellow, -1 a draw."""

    seed: int
    army: int
    compass: bool
    records: list[BoardRecord] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    plies: list[int] = field(default_factory=list)
    winner: int = -1
    end: int = 0
    length: int = 0

    def results(self) -> list[int]:
        """The game's result from each recorded position's side to move: 1 won, 0 drawn, -1 lost."""
        if self.winner < 0:
            return [0] * len(self.records)
        return [1 if r.side == self.winner else -1 for r in self.records]


def _game_rng(seed: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: the same stream in every process.
    return random.Random(f"{FORMAT}:{seed}")


def _choose_army(rng: random.Random, settings: Settings) -> int:
    x = rng.random() * sum(settings.mix)
    for kind, share in enumerate(settings.mix):
        if x < share:
            return kind
        x -= share
    return max(k for k, share in enumerate(settings.mix) if share > 0)


def sovereign_threatened(position: Position, cylindrical: bool) -> bool:
    core = position.core
    side = core.side
    units = position.catalog.units
    for sq in core.squares_of(side):
        unit = core.unit_on(sq)            # (never None: the square holds one of side's units)
        if unit is not None and units[unit[0]].is_sovereign and core.threatened(sq, side, -1, cylindrical):
            return True
    return False


def is_quiet(position: Position, code: int) -> bool:
    """The order captures nothing (no enemy unit leaves the board: attacks, shots, a Charger's pass),
    deploys nothing and promotes nothing."""
    if order_kind(code) == DEPLOY or order_promotion(code) >= 0:
        return False
    core = position.core
    enemy = 1 - core.side
    before = core.colour_bits(enemy).bit_count()
    core.push(code)
    after = core.colour_bits(enemy).bit_count()
    core.pop()
    return after == before


def _opening(start: Position, rng: random.Random, plies: int, cylindrical: bool) -> Position:
    """``start`` after ``plies`` uniformly random legal orders that leave the game going."""
    for _ in range(ATTEMPTS):
        position = start.copy()
        for _ in range(plies):
            if position.is_over():
                break
            orders = position.legal_orders(cylindrical)
            if not orders:
                break
            position.push(rng.choice(orders), cylindrical)
        if not position.is_over() and position.count_orders(cylindrical):
            return position
    raise DataError(f"no random opening of {plies} orders keeps the game going in {ATTEMPTS} attempts")


#: Where a game's start comes from: ``armies(kind, seed, rng, budget)`` is the start position of a
#: game of army kind ``kind`` (one of ARMIES; ``budget`` points each for a Point-Buy army), drawn with
#: ``rng``; DataError when it cannot make one. A module-level function (it travels to the workers of
#: engine.execution): For the Crown's Point-Buy set-up, engine.crown.armies.point_buy_start, is the one
#: `ftc nnue-data` passes. The board search makes no armies of its own (it knows no game's set-up).
Armies = Callable[[str, int, random.Random, int], Position]


def play_game(seed: int, settings: Settings, searcher: AlphaBeta | None = None, start: Position | None = None,
              army: int | None = None, compass: bool | None = None, armies: Armies | None = None) -> GameData:
    """The game of ``seed`` (its army, Compass mode and opening drawn from the seed, unless ``start``,
    ``army`` or ``compass`` are given: tests start from a position of their own); without ``start``,
    ``armies`` makes the start position."""
    rng = _game_rng(seed)
    drawn_army = _choose_army(rng, settings)
    drawn_compass = rng.random() < settings.compass
    army = drawn_army if army is None else army
    cylindrical = drawn_compass if compass is None else bool(compass)
    if start is None:
        if armies is None:
            raise DataError("play_game: neither a start position nor an armies maker (Armies) was given")
        start = armies(ARMIES[army], seed, rng, settings.budget)
    n = settings.opening_plies
    position = _opening(start, rng, rng.randint(max(0, n - 2), n + 2), cylindrical)
    searcher = searcher or settings.searcher()
    searcher.new_game()
    game = GameData(seed, army, cylindrical)
    seen = Counter(position.history_keys() + [position.key])
    ply = len(position.history_keys())
    leader, streak = -1, 0
    while True:
        core = position.core
        side = core.side
        if position.is_over():
            game.winner, game.end = 1 - side, 0
            break
        if position.count_orders(cylindrical) == 0:
            game.end = 1
            break
        if seen[position.key] >= 3:
            game.end = 2
            break
        if core.halfmove >= 100:
            game.end = 3
            break
        if ply >= settings.max_plies:
            game.end = 4
            break
        result = searcher.search(position, nodes=settings.nodes, cylindrical=cylindrical, lines=False)
        best, score = result.best, result.score
        assert best is not None            # the position has orders (count_orders above)
        if (abs(score) <= MATE_BOUND and not sovereign_threatened(position, cylindrical)
                and is_quiet(position, best.code)):
            game.records.append(board_record(position, cylindrical))
            game.scores.append(score)
            game.plies.append(ply)
        blue = score if side == BLUE else -score
        ahead = -1 if abs(blue) <= ADJUDICATE_SCORE else (0 if blue > 0 else 1)
        leader, streak = ahead, (streak + 1 if ahead == leader and ahead >= 0 else 1 if ahead >= 0 else 0)
        if streak >= ADJUDICATE_PLIES:
            game.winner, game.end = leader, 5
            break
        position.push(best, cylindrical)
        ply += 1
        seen[position.key] += 1
    game.length = ply
    return game


# -- a shard: the games of consecutive seeds ------------------------------------------------------------------
def shard_name(first_seed: int) -> str:
    return f"shard-{first_seed}.npz"


#: The search of this process's shards, by (evaluation, net, digest): made once, not per shard (a
#: worker plays many); every game clears it (new_game), so a shard is the same on a fresh one.
_SEARCHERS: dict[tuple, AlphaBeta] = {}


def generate_shard(first_seed: int, count: int, settings: dict, armies: Armies) -> dict[str, np.ndarray]:
    """The arrays of the games of seeds first_seed .. first_seed + count - 1, their starts made by
    ``armies`` (a unit of engine.execution.run_units: a pure function of its arguments)."""
    plan = settings_from_args(settings)
    key = (plan.evaluation, plan.net, plan.net_digest)
    searcher = _SEARCHERS.get(key)
    if searcher is None:
        _SEARCHERS.clear()                  # one kept per process: the table is megabytes
        searcher = _SEARCHERS[key] = plan.searcher()
    games = [play_game(seed, plan, searcher, armies=armies) for seed in range(first_seed, first_seed + count)]
    return _arrays(games)


def settings_from_args(values: dict) -> Settings:
    """Settings from ``settings_args`` (what a unit of work carries to its worker)."""
    return Settings(**{**values, "mix": tuple(values["mix"])})


def settings_args(settings: Settings) -> dict:
    """The fields a Settings is made from (``asdict`` without the ones it derives itself)."""
    return {f.name: getattr(settings, f.name) for f in fields(settings) if f.init}


def _arrays(games: list[GameData]) -> dict[str, np.ndarray]:
    records = [r for g in games for r in g.records]
    lengths = np.array([len(r.codes) for r in records], dtype=np.int64)
    offsets = np.zeros(len(records) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    barracks = np.zeros((len(records), 2, MAX_TYPES), dtype=np.uint8)
    for i, r in enumerate(records):
        for colour in (0, 1):
            row = np.minimum(np.asarray(r.barracks[colour], dtype=np.int64), 255)
            barracks[i, colour, :len(row)] = row
    return {
        "codes": np.array([c for r in records for c in r.codes], dtype=np.uint16),
        "offsets": offsets,
        "barracks": barracks,
        "side": np.array([r.side for r in records], dtype=np.uint8),
        "cylindrical": np.array([r.cylindrical for r in records], dtype=np.uint8),
        "score": np.array([s for g in games for s in g.scores], dtype=np.int32),
        "result": np.array([x for g in games for x in g.results()], dtype=np.int8),
        "ply": np.array([p for g in games for p in g.plies], dtype=np.uint16),
        "army": np.array([g.army for g in games for _ in g.records], dtype=np.uint8),
        "game": np.array([g.seed for g in games for _ in g.records], dtype=np.uint32),
        "game_seed": np.array([g.seed for g in games], dtype=np.uint32),
        "game_army": np.array([g.army for g in games], dtype=np.uint8),
        "game_compass": np.array([g.compass for g in games], dtype=np.uint8),
        "game_winner": np.array([g.winner for g in games], dtype=np.int8),
        "game_plies": np.array([g.length for g in games], dtype=np.uint16),
        "game_end": np.array([g.end for g in games], dtype=np.uint8),
    }


def _atomic_write(path: Path, write) -> None:
    """``write(tmp)`` into a temporary file beside ``path``, then renamed onto it: a reader sees the
    old file or the new one. Interrupted (Ctrl-C, an error), the temporary file is removed."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An .npz file (what numpy.savez_compressed writes, readable by numpy.load) with fixed time
    stamps, so that the same arrays give the same bytes; atomically (_atomic_write)."""
    def write(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(arrays):
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, np.ascontiguousarray(arrays[name]), allow_pickle=False)
                info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, buffer.getvalue())

    _atomic_write(Path(path), write)


def read_shard(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of one shard, checked (names, types, lengths); DataError names the file."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise DataError(f"{path}: not a readable shard ({exc})") from None
    expected = {"codes": np.uint16, "offsets": np.int64, **POSITION_ARRAYS, **GAME_ARRAYS}
    for name, dtype in expected.items():
        if name not in arrays:
            raise DataError(f"{path}: the array {name!r} is missing")
        if arrays[name].dtype != np.dtype(dtype):
            raise DataError(f"{path}: the array {name!r} is {arrays[name].dtype}, not {np.dtype(dtype)}")
    n = len(arrays["offsets"]) - 1
    if n < 0 or arrays["offsets"][0] != 0 or arrays["offsets"][-1] != len(arrays["codes"]) \
            or np.any(np.diff(arrays["offsets"]) < 0):
        raise DataError(f"{path}: 'offsets' does not index 'codes' (it must rise from 0 to {len(arrays['codes'])})")
    for name in POSITION_ARRAYS:
        if len(arrays[name]) != n:
            raise DataError(f"{path}: the array {name!r} has {len(arrays[name])} rows; the shard has {n} positions")
    if arrays["barracks"].shape[1:] != (2, MAX_TYPES):
        raise DataError(f"{path}: 'barracks' has the shape {arrays['barracks'].shape}, not (N, 2, {MAX_TYPES})")
    games = len(arrays["game_seed"])
    for name in GAME_ARRAYS:
        if len(arrays[name]) != games:
            raise DataError(f"{path}: the array {name!r} has {len(arrays[name])} rows; the shard has {games} games")
    return arrays


def shard_paths(folder: Path) -> list[Path]:
    """The folder's shard files in seed order."""
    def first(path: Path) -> int:
        try:
            return int(path.stem.removeprefix("shard-"))
        except ValueError:
            return -1
    return sorted((p for p in folder.glob("shard-*.npz") if first(p) >= 0), key=first)


def load_shards(folder: str | Path) -> dict[str, np.ndarray]:
    """Every shard of ``folder`` in seed order, concatenated: ``codes`` and ``offsets`` (N + 1, from 0)
    index the positions' units, the other position arrays have N rows, the ``game_*`` arrays one
    row per game. DataError when the folder has no shard or a shard is damaged."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"{folder}: no such data folder")
    paths = shard_paths(folder)
    if not paths:
        raise DataError(f"{folder}: no shard-<seed>.npz file (make them with `ftc nnue-data --out {folder}`)")
    shards = [read_shard(p) for p in paths]
    out = {name: np.concatenate([s[name] for s in shards]) for name in ("codes", *POSITION_ARRAYS, *GAME_ARRAYS)}
    offsets, base = [np.zeros(1, dtype=np.int64)], 0
    for s in shards:
        offsets.append(s["offsets"][1:] + base)
        base += int(s["offsets"][-1])
    out["offsets"] = np.concatenate(offsets)
    return out


def iter_records(data: dict[str, np.ndarray] | str | Path) -> Iterator[BoardRecord]:
    """The BoardRecord of every position of ``data`` (load_shards' arrays, or a folder)."""
    if not isinstance(data, dict):
        data = load_shards(data)
    codes, offsets, barracks = data["codes"], data["offsets"], data["barracks"]
    for i in range(len(offsets) - 1):
        yield BoardRecord(tuple(int(c) for c in codes[offsets[i]:offsets[i + 1]]),
                          (tuple(int(n) for n in barracks[i, 0]), tuple(int(n) for n in barracks[i, 1])),
                          int(data["side"][i]), bool(data["cylindrical"][i]))


# -- the folder: manifest, resuming, running ----------------------------------------------------------------
def git_commit() -> str | None:
    """The engine checkout's git commit, or None (an installed package, no git)."""
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def read_manifest(folder: str | Path) -> dict | None:
    """The folder's manifest.json, or None when there is none; DataError when it is unreadable."""
    path = Path(folder) / "manifest.json"
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a readable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(manifest.get("settings"), dict):
        raise DataError(f"{path}: not a manifest of {FORMAT} data")
    if manifest.get("version") != VERSION:
        raise DataError(f"{path}: data version {manifest.get('version')!r}; this engine makes version {VERSION}")
    return manifest


#: Settings a manifest of an older engine does not name, and the value its data was made with.
_IMPLIED = {"evaluation": "classical", "net": None}


def _check_settings(path: Path, have: dict, want: dict) -> None:
    have = {**_IMPLIED, **have}
    for key in sorted(set(have) | set(want)):
        if have.get(key) != want.get(key):
            option = {"mix": "--mix/--compass", "hash_mb": "the search's table size",
                      "adjudicate_score": "the adjudication score", "adjudicate_plies": "the adjudication plies",
                      "evaluation": "--eval", "net": "--net"}.get(key, f"--{key.replace('_', '-')}")
            raise DataError(f"{path}: the data was made with {key} = {json.dumps(have.get(key))}, this run asks for "
                            f"{json.dumps(want.get(key))} ({option}); run with the same settings to continue, or "
                            "choose another --out")


def _write_json(path: Path, value: dict) -> None:
    _atomic_write(path, lambda tmp: tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n",
                                                   encoding="utf-8"))


@dataclass
class Counts:
    games: int = 0
    positions: int = 0
    shards: int = 0
    armies: Counter = field(default_factory=Counter)
    compass: int = 0
    winners: Counter = field(default_factory=Counter)
    ends: Counter = field(default_factory=Counter)
    plies: int = 0

    def add(self, arrays: dict[str, np.ndarray]) -> None:
        self.shards += 1
        self.games += len(arrays["game_seed"])
        self.positions += len(arrays["side"])
        self.armies.update(ARMIES[a] for a in arrays["game_army"].tolist())
        self.compass += int(arrays["game_compass"].sum())
        self.winners.update({-1: "draw", 0: "blue", 1: "yellow"}[w] for w in arrays["game_winner"].tolist())
        self.ends.update(END_REASONS[e] for e in arrays["game_end"].tolist())
        self.plies += int(arrays["game_plies"].astype(np.int64).sum())

    def to_json(self) -> dict:
        return {"games": self.games, "positions": self.positions, "shards": self.shards,
                "armies": {kind: self.armies.get(kind, 0) for kind in ARMIES}, "compass_games": self.compass,
                "results": {key: self.winners.get(key, 0) for key in ("blue", "yellow", "draw")},
                "ends": {reason: self.ends.get(reason, 0) for reason in END_REASONS},
                "plies": self.plies,
                "positions_per_game": round(self.positions / self.games, 2) if self.games else 0.0}


@dataclass
class Progress:
    """What ``generate`` reports after each shard (and returns at the end)."""

    games: int              # finished games of the data (kept shards included)
    total_games: int
    positions: int
    new_games: int          # finished in this run
    new_positions: int
    seconds: float          # of this run
    done: bool = False

    @property
    def positions_per_second(self) -> float:
        return self.new_positions / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        if not self.new_games or self.seconds <= 0:
            return None
        return (self.total_games - self.games) * self.seconds / self.new_games

    def line(self) -> str:
        eta = self.eta_seconds
        eta_text = "-" if eta is None else f"{eta / 60:.1f} min" if eta >= 60 else f"{eta:.0f} s"
        return (f"nnue-data: {self.games}/{self.total_games} games, {self.positions:,} positions, "
                f"{self.positions_per_second:,.1f} positions/s, ETA {eta_text}")


def generate(out: str | Path, settings: Settings, armies: Armies, cluster: str | Cluster = "local",
             workers: int | None = 1, progress: Callable[[Progress], None] | None = None) -> Progress:
    """Make the shards of ``settings`` in the folder ``out`` that are not there yet, the games' starts
    made by ``armies`` (each unit of
    engine.execution.run_units on ``cluster`` returns its arrays; this process writes the shard and
    the manifest). Shards already there are kept: running again continues a stopped run. A folder
    made with other settings is refused (DataError naming the setting). Ctrl-C raises
    KeyboardInterrupt with every finished shard written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise DataError(f"--out {out}: not a folder")
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    wanted = settings.to_json()
    manifest = read_manifest(out)
    if manifest is None:
        if shard_paths(out):
            raise DataError(f"{out}: it holds shards but no manifest.json (not a folder this command made)")
        manifest = {"format": FORMAT, "version": VERSION, "settings": wanted, "engine": version_string(),
                    "build": dict(BUILD_INFO), "commit": git_commit()}
    else:
        _check_settings(manifest_path, manifest["settings"], wanted)
        engine, commit = version_string(), git_commit()
        if (engine, commit) != (manifest.get("engine"), manifest.get("commit")):
            also = manifest.setdefault("continued_by", [])
            if {"engine": engine, "commit": commit} not in also:
                also.append({"engine": engine, "commit": commit})
    for stale in out.glob("*.tmp"):
        stale.unlink()                    # a write cut short by a crash
    size = settings.shard_games
    firsts = [settings.seed + i for i in range(0, settings.games, size)]
    counts: Counter[str] = Counter()
    counts_all = Counts()
    todo = []
    for first in firsts:
        path = out / shard_name(first)
        if path.exists():
            counts_all.add(read_shard(path))
        else:
            todo.append((first, min(size, settings.seed + settings.games - first), settings_args(settings), armies))
    manifest["counts"] = counts_all.to_json()
    manifest["complete"] = not todo
    _write_json(manifest_path, manifest)
    start = time.perf_counter()
    state = Progress(counts_all.games, settings.games, counts_all.positions, 0, 0, 0.0, not todo)

    def finished(done: int, total: int, index: int, arrays: dict[str, np.ndarray]) -> None:
        with interrupts_held():                   # a shard on disk is one the manifest counts
            write_shard(out / shard_name(todo[index][0]), arrays)
            counts_all.add(arrays)
            counts["games"] += len(arrays["game_seed"])
            counts["positions"] += len(arrays["side"])
            manifest["counts"] = counts_all.to_json()
            manifest["complete"] = counts_all.shards == len(firsts)
            _write_json(manifest_path, manifest)
        state.games, state.positions = counts_all.games, counts_all.positions
        state.new_games, state.new_positions = counts["games"], counts["positions"]
        state.seconds = time.perf_counter() - start
        state.done = manifest["complete"]
        if progress:
            progress(state)

    if todo:
        run_units(generate_shard, todo, cluster, workers, finished)
    state.seconds = time.perf_counter() - start
    return state
