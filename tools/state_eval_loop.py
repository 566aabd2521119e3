#!/usr/bin/env python3
"""The training loop of the learned full-state evaluation (engine/crown/state_eval.py), the shape of
``ftc nnue-loop``'s (docs/nnue-loop.md): each round resumes from the current model, plays fresh
seeded self-play games, fits a candidate warm-started from the current model, and gates it on a
fixed set of held-out games before it lands.

    python tools/state_eval_loop.py --work DIR [--rounds 1] [--seed 2] [--games 1000] [--held-out 300]
           [--model-in engine/data/state_eval.toml] [--model-out FILE] [--workers 1] [--nice 10]

The work folder (every step is written before the next starts, and a step done is never done again;
Ctrl-C keeps the finished games and the same command goes on):

- ``loop.json``: the settings (a later run must give the same ones) and the rounds finished;
- ``held-out.jsonl``: the held-out games, one compact record a line (tools/train_state_eval.py
  ``play_record``). Their seeds come from ``--seed`` alone, never from a round: every round is gated
  on the same games, and no round trains on them. Deleting the file regenerates the same games.
- ``round-K/games.jsonl``: round K's fresh games (seeds from ``--seed`` and K); ``round-K/gate.json``:
  the candidate's and the parent's held-out numbers and the decision; ``round-K/candidate.toml``;
- ``parent.toml``: the current model (the committed one at the start, then each landed candidate).

**The games.** As tools/train_state_eval.py's: the expert bot against itself (``--mix`` of them against
the greedy bot), every decision random with probability ``--epsilon``, at most ``--per-game`` turn
starts kept per game. The bots do not read the state evaluation, so the games of a round do not
depend on the model: fresh games add information, they do not follow the model's play.

**The fit, warm-started.** Logistic regression (train_state_eval.fit's Newton steps) from the
parent's weights, with the parent as a prior: a Gaussian around the parent's weights whose precision
is the parent's ``positions`` times the mean curvature of the log-loss at the parent's weights on the
new positions (a Laplace approximation of the data the parent was fitted to). The candidate is then
about the fit of the parent's games and the new ones together, without keeping the parent's games.
Features the parent has no weight for (a richer feature set) get no prior beyond the small L2 pull.

**The gate.** Both models' log-loss on the held-out games' positions, paired by game: the candidate
lands when its log-loss is lower than the parent's by more than ``--margin`` and by more than
``--z`` standard errors of the paired difference (the games are the units of the standard error,
since the positions of one game share its result). With z = 1.645 a candidate no better than the
parent lands at most 5% of the time (the SPRT gate's alpha in ftc nnue-loop); the margin is the
least gain worth changing the AI's play for. A landed candidate's [trained] table records its
parent, the round's games, seeds and positions, and the held-out numbers of both models.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from train_state_eval import accuracy, curvature, fit, play_record, positions  # noqa: E402

from engine.crown.state_eval import (  # noqa: E402
    ALL_FEATURES,
    DEFAULT_PATH,
    FEATURES,
    StateModel,
    StateModelError,
    load_model,
    model_features,
)
from engine.execution import (  # noqa: E402
    ClusterError,
    UnitFailed,
    interrupts_held,
    lower_priority,  # noqa: E402
    run_units,
)

#: Game seeds of one batch (the held-out games, a round's games) follow its first seed.
SPAN = 1_000_000


class LoopError(ValueError):
    """A work folder or a setting the loop cannot go on with; the message names it."""


@dataclass(frozen=True)
class Settings:
    seed: int = 2
    games: int = 1000
    held_out: int = 300
    mix: float = 0.25
    epsilon: float = 0.03
    per_game: int = 40
    max_turns: int = 300
    margin: float = 0.001
    z: float = 1.645
    l2: float = 1e-3


def first_seed(seed: int, what: str) -> int:
    """The first game seed of batch ``what`` ("held-out", "round-K") of a loop of ``seed``: a SHA-256
    of the two, so that no two batches (and no batch of another loop seed) share games; the seeds
    of tools/train_state_eval.py (``seed * 100000 + i``) lie below 2**20 and these above it."""
    h = hashlib.sha256(f"ftc-state-eval-loop:{seed}:{what}".encode()).digest()
    return 2**20 + int.from_bytes(h[:8], "big") % (2**31 - 2**20 - SPAN)


def batch_jobs(settings: Settings, what: str, count: int) -> list[tuple]:
    """The play_record units of ``count`` games of batch ``what``: (seed, opponent, epsilon,
    per_game, max_turns); the opponent (greedy with probability ``mix``) is drawn from the game's seed."""
    start = first_seed(settings.seed, what)
    jobs = []
    for i in range(count):
        seed = start + i
        draw = int.from_bytes(hashlib.sha256(f"opponent:{seed}".encode()).digest()[:8], "big") / 2**64
        jobs.append((seed, "greedy" if draw < settings.mix else "expert", settings.epsilon, settings.per_game,
                     settings.max_turns))
    return jobs


def read_games(path: Path) -> dict[int, dict]:
    """The finished games of a games file by seed (a last line cut short by a crash is ignored)."""
    games: dict[int, dict] = {}
    if not path.exists():
        return games
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            game = json.loads(line)
            games[int(game["seed"])] = game
        except (ValueError, KeyError, TypeError):
            if number == len(lines):
                break
            raise LoopError(f"{path}: line {number} is not a game record") from None
    return games


def play_batch(path: Path, jobs: list[tuple], cluster: str = "local", workers: int | None = 1,
               report=None) -> list[dict]:
    """The games of ``jobs`` in job order, playing only those ``path`` lacks and appending each to it
    as it finishes (a stopped batch goes on where it stopped)."""
    have = read_games(path)
    missing = [job for job in jobs if job[0] not in have]
    path.parent.mkdir(parents=True, exist_ok=True)
    if missing:
        if path.exists() and not path.read_bytes().endswith(b"\n"):
            with interrupts_held():
                text = path.read_text(encoding="utf-8")
                path.write_text(text[: text.rfind("\n") + 1], encoding="utf-8")
        with path.open("a", encoding="utf-8") as out:
            def progress(done: int, total: int, index: int, game: dict) -> None:
                with interrupts_held():
                    out.write(json.dumps(game, separators=(",", ":")) + "\n")
                    out.flush()
                have[game["seed"]] = game
                if report is not None:
                    report(f"{path.parent.name}/{path.name}: {len(jobs) - len(missing) + done}/{len(jobs)} games")

            run_units(play_record, missing, cluster, workers, progress)
    return [have[job[0]] for job in jobs]


def dataset(games: list[dict], names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, group) of ``games``' kept positions for Blue: the features ``names`` (of ALL_FEATURES),
    the game's result for Blue, and the game's seed (the unit of the gate's standard error)."""
    model = StateModel(tuple(1.0 for _ in ALL_FEATURES))          # every feature computed
    columns = [ALL_FEATURES.index(name) for name in names]
    X, y, group = [], [], []
    for game in games:
        for g in positions(game):
            row = model_features(g, 0, model)
            X.append([row[c] for c in columns])
            y.append(game["result"])
            group.append(game["seed"])
    return (np.array(X, dtype=float).reshape(len(X), len(columns)), np.array(y, dtype=float),
            np.array(group, dtype=np.int64))


def used_features(model: StateModel) -> tuple[str, ...]:
    """The features ``model`` reads: ``FEATURES`` and the optional ones it weighs."""
    return tuple(name for i, (name, w) in enumerate(zip(ALL_FEATURES, model.weights))
                 if i < len(FEATURES) or w != 0.0)


def weights_of(model: StateModel, names: tuple[str, ...]) -> np.ndarray:
    return np.array([model.weights[ALL_FEATURES.index(name)] for name in names])


def as_model(names: tuple[str, ...], w: np.ndarray, trained: dict) -> StateModel:
    weights = [0.0] * len(ALL_FEATURES)
    for name, value in zip(names, w):
        weights[ALL_FEATURES.index(name)] = float(value)
    return StateModel(tuple(weights), trained)


def warm_fit(X: np.ndarray, y: np.ndarray, names: tuple[str, ...], parent: StateModel, parent_positions: int,
             l2: float) -> np.ndarray:
    """The candidate's weights on ``names``: train_state_eval.fit from the parent's weights, with the
    parent as a Gaussian prior (module notes) on the features it reads."""
    start = weights_of(parent, names)
    known = np.array([name in used_features(parent) for name in names])
    precision = parent_positions * curvature(X, start)
    precision[~known, :] = 0.0
    precision[:, ~known] = 0.0
    return fit(X, y, l2=l2, start=start, prior=(start, precision))


def per_game_losses(X: np.ndarray, y: np.ndarray, group: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(summed log-loss, positions) per game, games in ``np.unique(group)`` order."""
    p = np.clip(1.0 / (1.0 + np.exp(-X @ w)), 1e-12, 1 - 1e-12)
    loss = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    games, index = np.unique(group, return_inverse=True)
    return np.bincount(index, weights=loss, minlength=len(games)), np.bincount(index, minlength=len(games))


def _accuracy(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float | None:
    """train_state_eval.accuracy, rounded; None when no game was decided (all draws)."""
    value = accuracy(X, y, w)
    return None if math.isnan(value) else round(value, 4)


def gate(X: np.ndarray, y: np.ndarray, group: np.ndarray, candidate: np.ndarray, parent: np.ndarray,
         margin: float, z: float) -> dict:
    """The held-out comparison of two weight vectors (columns of X): both log-losses and accuracies,
    the parent's log-loss less the candidate's (``gain``) with its standard error over games, and
    ``accepted``: gain > margin and gain > z standard errors (module notes)."""
    cand_sum, n = per_game_losses(X, y, group, candidate)
    parent_sum, _ = per_game_losses(X, y, group, parent)
    total = n.sum()
    gain = float((parent_sum - cand_sum).sum() / total)
    # The ratio estimator's standard error with whole games as the units.
    residual = (parent_sum - cand_sum) - gain * n
    games = len(n)
    se = float(math.sqrt(games / max(1, games - 1) * np.sum(residual ** 2)) / total)
    return {
        "games": int(games), "positions": int(total),
        "candidate_log_loss": round(float(cand_sum.sum() / total), 5),
        "parent_log_loss": round(float(parent_sum.sum() / total), 5),
        "candidate_accuracy": _accuracy(X, y, candidate), "parent_accuracy": _accuracy(X, y, parent),
        "gain": round(gain, 5), "gain_se": round(se, 5), "margin": margin, "z": z,
        "accepted": bool(gain > margin and gain > z * se),
    }


def digest(path: Path) -> str:
    """The first 12 hex digits of the SHA-256 of a model file: a model's name in the chain."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed over it)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def open_work(work: Path, settings: Settings, model_in: Path) -> dict:
    """The loop's state (loop.json), made on the first run: the settings, and the starting model
    copied to ``parent.toml``. A later run must give the same settings (its games would be others')."""
    state_path = work / "loop.json"
    if state_path.exists():
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
            saved = state["settings"]
        except (OSError, ValueError, KeyError, TypeError):
            raise LoopError(f"{state_path}: not a loop state written by this tool") from None
        for key, value in asdict(settings).items():
            if saved.get(key) != value:
                raise LoopError(f"{state_path}: --{key.replace('_', '-')} was {saved.get(key)!r} in this work folder, "
                                f"not {value!r} (use another --work for other settings)")
        if not (work / "parent.toml").exists():
            raise LoopError(f"{work / 'parent.toml'}: missing (the work folder's current model)")
        return state
    load_model(model_in)                                   # refuse a bad starting model before any work
    work.mkdir(parents=True, exist_ok=True)
    _write(work / "parent.toml", model_in.read_text(encoding="utf-8"))
    state = {"settings": asdict(settings), "start": digest(model_in), "rounds": []}
    _write(state_path, json.dumps(state, indent=1) + "\n")
    return state


def fitted(trained: dict) -> tuple[int, int]:
    """(games, positions) a model was fitted to, from its [trained] table: this loop's ``games`` and
    ``positions`` count only those; tools/train_state_eval.py's count its held-out games too, so
    their share (``held_out_games`` of ``games``) is taken off. Nothing recorded: (0, 0), no prior."""
    games, positions = int(trained.get("games", 0)), int(trained.get("positions", 0))
    if trained.get("tool") == "tools/train_state_eval.py" and games > 0:
        held = int(trained.get("held_out_games", 0))
        return games - held, round(positions * (games - held) / games)
    return games, positions


def run_round(work: Path, k: int, settings: Settings, extra: tuple[str, ...], held: tuple, cluster: str,
              workers: int | None, report) -> dict:
    """Round ``k``: its games, the candidate fitted from the parent, the gate on the held-out games
    (``held``: their X, y, group over ALL_FEATURES), and the candidate as the new parent when it passes."""
    folder = work / f"round-{k}"
    parent_path = work / "parent.toml"
    parent = load_model(parent_path)
    games = play_batch(folder / "games.jsonl", batch_jobs(settings, f"round-{k}", settings.games), cluster,
                       workers, report)
    names = tuple(name for name in ALL_FEATURES if name in used_features(parent) or name in extra)
    X, y, _group = dataset(games, names)
    parent_games, parent_positions = fitted(parent.trained)
    w = warm_fit(X, y, names, parent, parent_positions, settings.l2)
    columns = [ALL_FEATURES.index(name) for name in names]
    hX, hy, hgroup = held
    result = gate(hX[:, columns], hy, hgroup, w, weights_of(parent, names), settings.margin, settings.z)
    trained = {
        "date": _dt.date.today().isoformat(), "tool": "tools/state_eval_loop.py",
        "parent": digest(parent_path), "round": k,
        "games": parent_games + len(games), "positions": parent_positions + len(y),
        "round_games": len(games), "round_positions": int(len(y)),
        "seed": settings.seed, "round_first_seed": first_seed(settings.seed, f"round-{k}"),
        "held_out_games": result["games"], "held_out_positions": result["positions"],
        "held_out_first_seed": first_seed(settings.seed, "held-out"),
        "held_out_log_loss": result["candidate_log_loss"], "held_out_accuracy": result["candidate_accuracy"],
        "parent_held_out_log_loss": result["parent_log_loss"], "parent_held_out_accuracy": result["parent_accuracy"],
        "gain": result["gain"], "gain_se": result["gain_se"], "margin": settings.margin, "z": settings.z,
        "mix_expert_vs_greedy": settings.mix, "epsilon": settings.epsilon, "per_game": settings.per_game,
        "max_turns": settings.max_turns, "features": list(names),
    }
    trained = {key: value for key, value in trained.items() if value is not None}
    # The yardstick of tools/train_state_eval.py, on the same held-out games: the board alone,
    # fitted to the round's positions.
    board = np.zeros(len(ALL_FEATURES))
    board[0] = fit(X[:, :1], y, l2=settings.l2)[0]
    board_only = gate(hX, hy, hgroup, board, board, 0.0, 0.0)
    result["board_only_log_loss"] = board_only["candidate_log_loss"]
    result["board_only_accuracy"] = board_only["candidate_accuracy"]
    trained["board_only_log_loss"] = board_only["candidate_log_loss"]
    if board_only["candidate_accuracy"] is not None:
        trained["board_only_accuracy"] = board_only["candidate_accuracy"]
    header = (
        "Learned evaluation of full game states (engine/crown/state_eval.py: the features, their\n"
        "scales and how the value is computed). Written by tools/state_eval_loop.py (round "
        f"{k} from the model {trained['parent']}):\n"
        f"fitted from its parent's weights, the parent a prior of {parent_positions} positions, on {len(games)} fresh\n"
        f"self-play games ({settings.mix:.0%} expert vs greedy, the rest expert vs expert; epsilon {settings.epsilon}),"
        f" {len(y)} positions.\n"
        f"Held-out games ({result['games']}, {result['positions']} positions, never trained on): log-loss "
        f"{result['candidate_log_loss']:.4f}, accuracy {_shown(result['candidate_accuracy'])}\n"
        f"(the parent: {result['parent_log_loss']:.4f}, {_shown(result['parent_accuracy'])}; the board alone: "
        f"{result['board_only_log_loss']:.4f}, {_shown(result['board_only_accuracy'])});\n[trained] says the rest."
    )
    candidate = folder / "candidate.toml"
    _write(candidate, as_model(names, w, trained).to_toml(header))
    _write(folder / "gate.json", json.dumps(result, indent=1) + "\n")
    if result["accepted"]:
        _write(parent_path, candidate.read_text(encoding="utf-8"))
    return result


def _shown(value: float | None) -> str:
    return "n/a (no game decided)" if value is None else f"{value:.3f}"


def run_loop(work: str | Path, settings: Settings, rounds: int, model_in: str | Path, model_out: str | Path | None = None,
             extra: tuple[str, ...] = (), cluster: str = "local", workers: int | None = 1, report=None) -> list[dict]:
    """Run rounds until ``rounds`` are finished in ``work`` (those finished before count); returns
    every round's gate result. The current model is written to ``model_out`` after each round."""
    work, model_in = Path(work), Path(model_in)
    state = open_work(work, settings, model_in)
    unknown = [name for name in extra if name not in ALL_FEATURES]
    if unknown:
        raise LoopError(f"--extra: {unknown[0]!r} is not a feature; known: {', '.join(ALL_FEATURES)}")
    if len(state["rounds"]) < rounds:
        held_games = play_batch(work / "held-out.jsonl", batch_jobs(settings, "held-out", settings.held_out), cluster,
                                workers, report)
        held = dataset(held_games, ALL_FEATURES)
    while len(state["rounds"]) < rounds:
        k = len(state["rounds"]) + 1
        result = run_round(work, k, settings, extra, held, cluster, workers, report)
        state["rounds"].append({"round": k, **result})
        _write(work / "loop.json", json.dumps(state, indent=1) + "\n")
        if report is not None:
            verdict = "landed" if result["accepted"] else "rejected"
            report(f"round {k}: {verdict}: held-out log-loss {result['candidate_log_loss']:.4f} against the parent's "
                   f"{result['parent_log_loss']:.4f} (gain {result['gain']:+.4f} +- {result['gain_se']:.4f})")
        if model_out is not None:
            _write(Path(model_out), (work / "parent.toml").read_text(encoding="utf-8"))
    return [r for r in state["rounds"]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", required=True, help="the work folder (made on the first run; the same command continues)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds to have finished (default 1)")
    defaults = Settings()
    parser.add_argument("--seed", type=int, default=defaults.seed, help=f"seed of every game (default {defaults.seed})")
    parser.add_argument("--games", type=int, default=defaults.games, help=f"fresh games a round (default {defaults.games})")
    parser.add_argument("--held-out", type=int, default=defaults.held_out,
                        help=f"held-out games the gate reads (default {defaults.held_out})")
    parser.add_argument("--mix", type=float, default=defaults.mix, help=f"share of expert-vs-greedy games (default {defaults.mix})")
    parser.add_argument("--epsilon", type=float, default=defaults.epsilon,
                        help=f"chance of a random decision (default {defaults.epsilon})")
    parser.add_argument("--per-game", type=int, default=defaults.per_game,
                        help=f"positions kept per game at most (default {defaults.per_game})")
    parser.add_argument("--max-turns", type=int, default=defaults.max_turns,
                        help=f"C3 turn limit of the games (default {defaults.max_turns})")
    parser.add_argument("--margin", type=float, default=defaults.margin,
                        help=f"least held-out log-loss gain to land (default {defaults.margin})")
    parser.add_argument("--z", type=float, default=defaults.z,
                        help=f"standard errors the gain must exceed (default {defaults.z}: one-sided 5%%)")
    parser.add_argument("--l2", type=float, default=defaults.l2, help=f"L2 pull to 0 (default {defaults.l2})")
    parser.add_argument("--extra", default="", help="optional features to fit besides the parent's (comma-separated)")
    parser.add_argument("--model-in", default=str(DEFAULT_PATH), help="the starting model (default the shipped one)")
    parser.add_argument("--model-out", help="where the current model is written after each round")
    parser.add_argument("--cluster", default="local", help="where the games run: local, ray or ray://HOST:PORT")
    parser.add_argument("--workers", type=int, default=1, help="workers (default 1: in this process)")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the run (default 10)")
    args = parser.parse_args(argv)
    for name in ("rounds", "games", "held_out", "per_game", "max_turns", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if not 0 <= args.mix <= 1 or not 0 <= args.epsilon <= 1:
        parser.error("--mix and --epsilon must be in 0..1")
    if args.margin < 0 or args.z < 0 or args.l2 < 0:
        parser.error("--margin, --z and --l2 must be at least 0")
    settings = Settings(args.seed, args.games, args.held_out, args.mix, args.epsilon, args.per_game, args.max_turns,
                        args.margin, args.z, args.l2)
    extra = tuple(name.strip() for name in args.extra.split(",") if name.strip())
    lower_priority(args.nice)

    def report(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        results = run_loop(args.work, settings, args.rounds, args.model_in, args.model_out, extra, args.cluster,
                           args.workers, report)
    except (LoopError, StateModelError, ClusterError, UnitFailed) as exc:
        print(f"state_eval_loop: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nstate_eval_loop: stopped; the finished games are kept in {args.work} (the same command goes on)",
              file=sys.stderr)
        return 130
    landed = sum(r["accepted"] for r in results)
    print(f"{len(results)} rounds, {landed} landed; the current model: {Path(args.work) / 'parent.toml'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
