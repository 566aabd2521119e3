"""Board evaluation weights: material from the Point-Buy prices of the unit catalog, the rest from
engine/data/eval.toml (or a user's file). The evaluation itself runs in C (ext/_search.pyx); its
piece-square tables are derived there from every unit's movement, so no unit type needs numbers of
its own.

A weight is an integer in centi-points, or a pair [middlegame, endgame] of them (the evaluation is
tapered by the non-Foot, non-Sovereign material left), or for per-rank terms a pair of 8 integers
(relative ranks 1..8 from the owner's side), or for per-step terms a pair of 8 integers (steps
0..7 to a goal, the last for 7 or more).

The terms of a board with levels and X squares (Crusade & Conquer: ``castle_floor``, ``x_race``,
``x_unstoppable``, ``flight``; docs/crusade.md) are 0 by default and in eval.toml: For the Crown's
evaluation is unchanged by them. That game's weights are engine/data/crusade_eval.toml.

``GAME_WON`` is the value of a board that decides the game: above every static evaluation. Who a
board decides a For the Crown game for is the game's question (engine/crown/board_eval.py).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from weakref import WeakKeyDictionary

from engine import _nnue, _search
from engine.board import nnue
from engine.catalog import Catalog, default_catalog

__all__ = ["EVALUATIONS", "evaluation_settings", "full_game_evaluation", "default_net_path", "load_network", "choose_network",
           "evaluation_name", "EvalWeights", "load_weights", "default_weights", "EvalError", "SCALAR_FIELDS", "PHASED_FIELDS",
           "RANK_FIELDS", "STEP_FIELDS", "board_value", "kernel_evaluation", "GAME_WON"]

#: Plain integers.
SCALAR_FIELDS = ("points", "barracks_percent", "mobility", "sovereign_attacked", "extra_sovereign", "shelter",
                 "zone_attack", "tempo", "phase_total", "x_unstoppable", "flight")
#: [middlegame, endgame] pairs.
PHASED_FIELDS = ("pst_mobility", "foot_doubled", "foot_isolated", "sovereign_centre", "castle_floor")
#: [[8 middlegame values], [8 endgame values]] by relative rank.
RANK_FIELDS = ("foot_advance", "foot_passed", "sovereign_rank")
#: [[8 middlegame values], [8 endgame values]] by steps to a goal (0..7, the last for 7 or more).
STEP_FIELDS = ("x_race",)
LIMIT = 100_000


class EvalError(ValueError):
    """A weights file that cannot be used; the message names the field."""


def _ranks(*values: int) -> tuple[int, ...]:
    return tuple(values)


@dataclass(frozen=True)
class EvalWeights:
    points: int = 100
    barracks_percent: int = 80
    mobility: int = 3
    sovereign_attacked: int = 150
    extra_sovereign: int = 300
    shelter: int = 12
    zone_attack: int = 10
    tempo: int = 15
    phase_total: int = 6200
    pst_mobility: tuple[int, int] = (3, 2)
    foot_doubled: tuple[int, int] = (-15, -30)
    foot_isolated: tuple[int, int] = (-12, -15)
    sovereign_centre: tuple[int, int] = (-2, 4)
    foot_advance: tuple[tuple[int, ...], tuple[int, ...]] = field(default_factory=lambda: (
        _ranks(0, 0, 5, 15, 25, 40, 60, 0), _ranks(0, 0, 10, 25, 45, 75, 120, 0)))
    foot_passed: tuple[tuple[int, ...], tuple[int, ...]] = field(default_factory=lambda: (
        _ranks(0, 5, 5, 10, 20, 35, 60, 0), _ranks(0, 10, 15, 25, 45, 80, 130, 0)))
    sovereign_rank: tuple[tuple[int, ...], tuple[int, ...]] = field(default_factory=lambda: (
        _ranks(0, -25, -50, -70, -90, -100, -100, -100), _ranks(0, 5, 10, 15, 15, 10, 5, 0)))
    # Boards with levels and X squares (Crusade & Conquer); 0: no such term.
    x_unstoppable: int = 0
    flight: int = 0
    castle_floor: tuple[int, int] = (0, 0)
    x_race: tuple[tuple[int, ...], tuple[int, ...]] = field(default_factory=lambda: ((0,) * 8, (0,) * 8))

    def kernel_dict(self, catalog: Catalog) -> dict:
        data = asdict(self)
        data["values"] = [u.price * self.points for u in catalog.units]
        return data

    def feature_values(self, names) -> list[int]:
        """The weights named as in the kernel's FEATURE_NAMES ("mobility", "foot_doubled.1",
        "foot_passed.0.5": field, then phase, then relative rank), in that order."""
        out = []
        for name in names:
            field_name, *index = name.split(".")
            value = getattr(self, field_name)
            for i in index:
                value = value[int(i)]
            out.append(value)
        return out

    def with_feature_values(self, names, values) -> EvalWeights:
        """These weights with the named ones replaced (the inverse of feature_values)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data = {k: [list(v) for v in val] if k in RANK_FIELDS + STEP_FIELDS else list(val) if k in PHASED_FIELDS
                else val for k, val in data.items()}
        for name, value in zip(names, values):
            field_name, *index = name.split(".")
            if not index:
                data[field_name] = value
            elif len(index) == 1:
                data[field_name][int(index[0])] = value
            else:
                data[field_name][int(index[0])][int(index[1])] = value
        for key in PHASED_FIELDS:
            data[key] = tuple(data[key])
        for key in RANK_FIELDS + STEP_FIELDS:
            data[key] = (tuple(data[key][0]), tuple(data[key][1]))
        return EvalWeights(**data)

    def to_toml(self) -> str:
        """The weights as the body of a [weights] table."""
        lines = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in RANK_FIELDS + STEP_FIELDS:
                lines.append(f"{f.name} = [{list(value[0])}, {list(value[1])}]")
            elif f.name in PHASED_FIELDS:
                lines.append(f"{f.name} = {list(value)}")
            else:
                lines.append(f"{f.name} = {value}")
        return "\n".join(lines) + "\n"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -LIMIT <= value <= LIMIT


def check_weights(data: dict, source: str) -> EvalWeights:
    """EvalWeights from a dict of the [weights] table; EvalError names a bad field."""
    known = SCALAR_FIELDS + PHASED_FIELDS + RANK_FIELDS + STEP_FIELDS
    values = {}
    for key, value in data.items():
        if key not in known:
            raise EvalError(f"{source}: unknown weight {key!r}; known: {', '.join(known)}")
        if key in SCALAR_FIELDS:
            if not _is_int(value):
                raise EvalError(f"{source}: weight {key!r} must be an integer in -{LIMIT}..{LIMIT}, got {value!r}")
            values[key] = value
        elif key in PHASED_FIELDS:
            if not (isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value)):
                raise EvalError(f"{source}: weight {key!r} must be [middlegame, endgame] integers, got {value!r}")
            values[key] = tuple(value)
        else:
            if not (isinstance(value, list) and len(value) == 2 and all(
                    isinstance(row, list) and len(row) == 8 and all(_is_int(v) for v in row) for row in value)):
                raise EvalError(f"{source}: weight {key!r} must be [[8 middlegame], [8 endgame]] integers by "
                                f"{'relative rank' if key in RANK_FIELDS else 'steps 0..7'}, got {value!r}")
            values[key] = (tuple(value[0]), tuple(value[1]))
    if values.get("phase_total", 1) < 1:
        raise EvalError(f"{source}: weight 'phase_total' must be at least 1")
    return EvalWeights(**values)


def load_weights(path: str | Path | None = None, resource: str = "eval.toml") -> EvalWeights:
    """The [weights] of a file (``path``), else of the data file ``resource`` shipped in engine/data
    (eval.toml: For the Crown's; crusade_eval.toml: Crusade & Conquer's)."""
    if path is None:
        text, source = resources.files("engine.data").joinpath(resource).read_text(encoding="utf-8"), resource
    else:
        text, source = Path(path).read_text(encoding="utf-8"), str(path)
    try:
        data = tomllib.loads(text).get("weights", {})
    except tomllib.TOMLDecodeError as exc:
        raise EvalError(f"{source}: not valid TOML: {exc}") from None
    return check_weights(data, source)


_DEFAULT_WEIGHTS: list[EvalWeights] = []

# -- which evaluation: classical or the learned network (docs/nnue.md) --------------------------------
#: The board evaluations a search can use.
EVALUATIONS = ("classical", "nnue")
_SETTINGS: list[dict] = []
_NETWORKS: dict = {}          # (file, size, mtime, catalog tokens) -> _nnue.Network


#: The environment variable that overrides evaluation.toml's default for a process and the workers it
#: starts (experiments: the same full-game match with either evaluation): "classical" or "nnue".
EVAL_ENV = "FTC_EVAL"


def evaluation_settings() -> dict:
    """engine/data/evaluation.toml: ``default`` (the board search's evaluation, "classical" or
    "nnue"), ``full_game`` (the full-game AI's board judgements; FTC_EVAL overrides both) and ``net``
    (the network file shipped, relative to engine/data); read once, EvalError naming a bad field or
    value."""
    if not _SETTINGS:
        source = "engine/data/evaluation.toml"
        data = tomllib.loads(resources.files("engine.data").joinpath("evaluation.toml").read_text(encoding="utf-8"))
        for key in ("default", "full_game"):
            if data.get(key) not in EVALUATIONS:
                raise EvalError(f"{source}: '{key}' must be one of {', '.join(EVALUATIONS)}, got {data.get(key)!r}")
        if not isinstance(data.get("net"), str) or not data["net"]:
            raise EvalError(f"{source}: 'net' must name the network file (relative to engine/data)")
        override = os.environ.get(EVAL_ENV)
        if override:
            if override not in EVALUATIONS:
                raise EvalError(f"{EVAL_ENV}={override!r}: expected one of {', '.join(EVALUATIONS)}")
            data = dict(data, default=override, full_game=override)
        _SETTINGS.append(data)
    return _SETTINGS[0]


def full_game_evaluation() -> str:
    """The evaluation of the full-game AI's board judgements (evaluation.toml's ``full_game``, or
    FTC_EVAL): what a game's planner passes as ``AlphaBeta(evaluation=...)``."""
    return evaluation_settings()["full_game"]


def default_net_path() -> Path:
    """The network file shipped with the engine (it may be missing in a checkout that has none)."""
    return Path(str(resources.files("engine.data").joinpath(evaluation_settings()["net"])))


def load_network(path: str | Path | None = None, catalog: Catalog | None = None) -> _nnue.Network:
    """The kernel's network of a net file (None: the shipped one), checked against ``catalog``
    (None: the default catalog) and kept while the file is unchanged. nnue.NetFileError names the
    file and what does not fit."""
    from_catalog = catalog or default_catalog()
    path = Path(path) if path is not None else default_net_path()
    try:
        stat = path.stat()
    except OSError as exc:
        raise nnue.NetFileError(f"{path}: cannot read the net file ({exc.strerror or exc})") from None
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, tuple(nnue.catalog_signature(from_catalog)))
    network = _NETWORKS.get(key)
    if network is None:
        net = nnue.load_net(path, from_catalog)
        network = _nnue.Network(net.w1, net.b1, net.w2, net.b2, net.catalog, f"{net.digest()} ({path.name})",
                                nnue.untrained_types(net))
        _NETWORKS[key] = network
    return network


def choose_network(evaluation: str | None = None, net: str | Path | None = None,
                   catalog: Catalog | None = None) -> _nnue.Network | None:
    """The network a search evaluates with: None for the classical evaluation. ``evaluation``
    None means evaluation.toml's default; a ``net`` file implies "nnue". A ValueError names a bad
    choice; a net file that does not fit raises nnue.NetFileError."""
    if evaluation is not None and evaluation not in EVALUATIONS:
        raise ValueError(f"evaluation {evaluation!r}: expected one of {', '.join(EVALUATIONS)}")
    if evaluation == "classical":
        if net is not None:
            raise ValueError("a net file was given with the classical evaluation (give --eval nnue, or no --net)")
        return None
    if evaluation is None and net is None and evaluation_settings()["default"] == "classical":
        return None
    return load_network(net, catalog)


def _default_network(catalog: Catalog) -> _nnue.Network | None:
    """The full-game AI's network for board judgements on ``catalog`` (evaluation.toml's
    ``full_game``): None when that is classical or the shipped net was trained for another catalog
    (a user's own units)."""
    try:
        return choose_network(full_game_evaluation(), catalog=catalog)
    except nnue.CatalogMismatch:
        return None


def evaluation_name(network: _nnue.Network | None) -> str:
    """"classical" or "nnue <digest> (<file>)": what a search with ``network`` evaluates with."""
    return "classical" if network is None else f"nnue {network.digest}"



def default_weights() -> EvalWeights:
    """The weights of engine/data/eval.toml, read once."""
    if not _DEFAULT_WEIGHTS:
        _DEFAULT_WEIGHTS.append(load_weights())
    return _DEFAULT_WEIGHTS[0]


_EVALUATIONS: WeakKeyDictionary = WeakKeyDictionary()     # catalog -> {EvalWeights: _search.Evaluation}
_LAST: list = [None]        # (catalog, weights as given, evaluation) of the last call: the common case


def kernel_evaluation(catalog: Catalog, weights: EvalWeights | None = None) -> _search.Evaluation:
    """The kernel's evaluation (weights in C and the tables derived from them) for ``catalog`` and
    ``weights`` (None: eval.toml's), built once per catalog and weights and kept; with the shipped
    network when evaluation.toml's ``full_game`` is "nnue" (the full-game AI's board judgements)."""
    last = _LAST[0]
    if last is not None and last[0] is catalog and last[1] is weights:
        return last[2]
    given = weights
    weights = weights or default_weights()
    per_catalog = _EVALUATIONS.get(catalog)
    if per_catalog is None:
        per_catalog = _EVALUATIONS[catalog] = {}
    evaluation = per_catalog.get(weights)
    if evaluation is None:
        evaluation = per_catalog[weights] = _search.Evaluation(catalog.tables, weights.kernel_dict(catalog),
                                                               _default_network(catalog))
    _LAST[0] = (catalog, given, evaluation)
    return evaluation


def board_value(core, player: int, weights: EvalWeights | None = None, to_move: bool = False,
                cylindrical: bool = False) -> int:
    """The static evaluation of a kernel board (``Position.core``, ``GameState.board``) for
    ``player`` (0 Blue, 1 Yellow), in centi-points: alpha-beta's evaluation (material, Barracks,
    mobility, Sovereign safety), which gives the side to move a tempo bonus. With ``to_move``
    False the side to move is the board's (the value is negated when ``player`` is not to move);
    with ``to_move`` True the board is judged as if ``player`` were to move.

    >>> from engine.position import Position
    >>> position = Position.from_text("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1")
    >>> board_value(position.core, 0) > 800, board_value(position.core, 1) < -800
    (True, True)
    >>> board_value(position.core, 1, to_move=True) - board_value(position.core, 1) == 2 * default_weights().tempo
    True
    """
    return _search.board_value(core, player, kernel_evaluation(core.tables.catalog, weights), to_move, cylindrical)


#: The value of an order after which the board decides the game for the player ordering (C2): above
#: every static evaluation (the search's Sovereign-loss score; board_value stays far below it).
GAME_WON = _search.MATE_SCORE
