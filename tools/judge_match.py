#!/usr/bin/env python3
"""Where a match against Fairy-Stockfish was lost: every move of a recorded match judged by a deeper search.

    python tools/judge_match.py --record games.jsonl [--fsf /tmp/fsf/stockfish] [--ini tools/fairy-stockfish-ftc.ini]
        [--depth 12] [--ours ftc-engine] [--parallel 1] [--worst 10] [--json judged.json] [--plot phases.png]

The record is what ``tools/vs_fairy_stockfish.py --record`` writes: one JSON line per game with its
players (``blue``, ``yellow``), ``result``, ``opening_plies`` and ``moves`` (with ``--armies fairy``
also its ``start`` position and ``variant``). The judge (Fairy-Stockfish, or any UCI engine that
reads the variants file) searches every position of every game after its random opening to the
fixed ``--depth``, one position at a time with the table kept within a game. Its score for the side
to move becomes a winning chance, ``1 / (1 + 10 ** (-cp / 400))`` (a mate: 0 or 1); a move's **loss**
is how much it lowers its own side's chance: the chance before it minus the chance after it (as the
judge sees it from the mover's side; after the last move, the game's result). A move that raises
the chance loses 0.

Every move is filed under the **phase** of the position it was played in, by the officers in play
(the units that are neither Foot nor Sovereign, on the board and in the Barracks) against the same
count at the game's start: ``full`` at 3/4 of them or more, ``middle`` at 1/3 or more, ``end``
below. The report gives, for each phase and side (ours: the player whose name contains ``--ours``),
the moves, the summed loss, the mean loss a move and the **errors** (a loss of 0.2 or more), and
then the difference of the two sides' summed losses by phase: where the match's deficit lies. A
side's summed loss over a game is roughly the chance it gave away; the judge shares the opponent's
evaluation when it is Fairy-Stockfish, so it favours the opponent's moves a little everywhere
(compare the phases with one another, not one side's total with zero).

``--worst N`` lists our N largest losses (game, ply, move, position, the judge's score before and
after). ``--json`` writes the summary, the worst moves and every judged move; ``--plot`` a bar chart
of both sides' summed loss by phase (needs matplotlib). Progress: a line per game on stderr; Ctrl-C
stops and reports the games judged so far (exit status 130). Bad input (a missing file, a line that
is not a game, an illegal move) stops the tool with an error naming the line and the move.
docs/nnue-matches.md, "Where the games are lost", shows a run.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.util
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools.vs_fairy_stockfish import (  # noqa: E402
    DEFAULT_FSF,
    DEFAULT_INI,
    START,
    VARIANT,
    EngineFailure,
    UciPlayer,
    find_engine,
    has_matplotlib,
    how_to_get_fsf,
    promotions_of,
    referee_position,
)

PHASES = ("full", "middle", "end")
ERROR_LOSS = 0.2                    # a move that loses this much winning chance or more is an error


class RecordError(ValueError):
    """A record line that is not a game this tool can judge (the message names the line)."""


@dataclass(frozen=True)
class RecordedGame:
    line: int                       # 1-based line of the record
    game: int
    blue: str
    yellow: str
    result: str                     # "1-0", "0-1" or "1/2-1/2"
    opening_plies: int
    moves: tuple[str, ...]
    start: str = START
    variant: str = VARIANT


def read_record(path: Path) -> list[RecordedGame]:
    """The games of a ``--record`` file; RecordError names the first bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the record ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a text file") from None
    games = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected a JSON object (one game), got {type(data).__name__}")
        for key, kind in (("game", int), ("blue", str), ("yellow", str), ("result", str), ("opening_plies", int),
                          ("moves", list)):
            if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
                raise RecordError(f"{where}: {key!r} is missing or not {'a number' if kind is int else kind.__name__}")
        if data["result"] not in ("1-0", "0-1", "1/2-1/2"):
            raise RecordError(f"{where}: result {data['result']!r} is not 1-0, 0-1 or 1/2-1/2")
        if not all(isinstance(m, str) for m in data["moves"]):
            raise RecordError(f"{where}: 'moves' must be a list of move texts")
        if not 0 <= data["opening_plies"] <= len(data["moves"]):
            raise RecordError(f"{where}: opening_plies {data['opening_plies']} is outside 0..{len(data['moves'])}")
        extra = {}
        if "start" in data or "variant" in data:
            if not isinstance(data.get("start"), str) or not isinstance(data.get("variant"), str):
                raise RecordError(f"{where}: 'start' and 'variant' come together, as texts")
            extra = {"start": data["start"], "variant": data["variant"]}
        games.append(RecordedGame(number, data["game"], data["blue"], data["yellow"], data["result"],
                                  data["opening_plies"], tuple(data["moves"]), **extra))
    if not games:
        raise RecordError(f"{path}: no game in the record")
    return games


def chance(score: tuple[str, int]) -> float:
    """The side to move's winning chance of a judge's score (("cp", centi-points) or ("mate", moves))."""
    kind, value = score
    if kind == "mate":
        return 1.0 if value > 0 else 0.0
    return 1.0 / (1.0 + 10.0 ** (-value / 400.0))


def officers(position) -> int:
    """Units in play that are neither Foot nor Sovereign: on the board and in both Barracks."""
    catalog = position.catalog
    plain = {u.token for u in catalog.units if not u.is_foot and not u.is_sovereign}
    count = 0
    for square in range(64):
        unit = position.unit_at(square)
        if unit is not None and unit[0] in plain:
            count += 1
    for colour in ("w", "b"):
        count += sum(n for token, n in position.barracks(colour).items() if token in plain)
    return count


def phase_of(now: int, start: int) -> str:
    """``full`` with 3/4 of the game's starting officers or more, ``middle`` with 1/3 or more, else ``end``."""
    if start <= 0 or 4 * now >= 3 * start:
        return "full"
    return "middle" if 3 * now >= start else "end"


@dataclass
class JudgedMove:
    game: int
    ply: int                        # orders before this one (the opening's included)
    move: str
    ours: bool
    phase: str
    before: tuple[str, int]         # the judge's score for the mover, before the move
    after: float                    # the mover's chance after it
    loss: float
    position: str                   # our position text before the move


def judge_game(judge: UciPlayer, game: RecordedGame, ours: str) -> list[JudgedMove]:
    """Every move after the opening of ``game``, judged; RecordError for an illegal move."""
    ours_blue = ours in game.blue
    judge.use_variant(game.variant)
    judge.new_game()
    try:
        position = referee_position(game.start, promotions_of(game.variant))
    except ValueError as exc:
        raise RecordError(f"record line {game.line} (game {game.game}): the start position is not one of this "
                          f"game ({exc})") from None
    start_officers = officers(position)
    scores: list[tuple[str, int] | None] = []
    texts, phases = [], []
    for ply, move in enumerate(game.moves):
        if ply >= game.opening_plies:
            judge.choose(game.start, list(game.moves[:ply]), position)
            scores.append(judge.last_score)
            texts.append(position.to_text())
            phases.append(phase_of(officers(position), start_officers))
        try:
            position.push(move)
        except ValueError as exc:
            raise RecordError(f"record line {game.line} (game {game.game}): move {ply + 1} {move!r} is not legal "
                              f"there ({exc})") from None
    final = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[game.result]      # Blue's result
    judged = []
    for k, ply in enumerate(range(game.opening_plies, len(game.moves))):
        mover_blue = ply % 2 == 0
        before = scores[k]
        if before is None:
            continue                            # the judge gave no score (no legal move for it): not judged
        if k + 1 < len(scores):
            nxt = scores[k + 1]
            if nxt is None:
                continue
            after = 1.0 - chance(nxt)
        else:
            after = final if mover_blue else 1.0 - final
        loss = max(0.0, chance(before) - after)
        judged.append(JudgedMove(game.game, ply, game.moves[ply], mover_blue == ours_blue, phases[k], before,
                                 after, loss, texts[k]))
    return judged


@dataclass
class Summary:
    games: int = 0
    moves: dict = field(default_factory=dict)     # (side, phase) -> count
    loss: dict = field(default_factory=dict)      # (side, phase) -> summed loss
    errors: dict = field(default_factory=dict)    # (side, phase) -> moves losing ERROR_LOSS or more

    def add(self, judged: list[JudgedMove]) -> None:
        self.games += 1
        for m in judged:
            key = ("ours" if m.ours else "theirs", m.phase)
            self.moves[key] = self.moves.get(key, 0) + 1
            self.loss[key] = self.loss.get(key, 0.0) + m.loss
            self.errors[key] = self.errors.get(key, 0) + (m.loss >= ERROR_LOSS)

    def rows(self) -> list[dict]:
        out = []
        for phase in PHASES:
            for side in ("ours", "theirs"):
                n = self.moves.get((side, phase), 0)
                total = self.loss.get((side, phase), 0.0)
                out.append({"phase": phase, "side": side, "moves": n, "loss": round(total, 4),
                            "mean": round(total / n, 5) if n else None, "errors": self.errors.get((side, phase), 0)})
        return out

    def excess(self) -> dict[str, float]:
        """Our summed loss minus theirs, by phase."""
        return {p: round(self.loss.get(("ours", p), 0.0) - self.loss.get(("theirs", p), 0.0), 4) for p in PHASES}

    def lines(self, ours: str, theirs: str) -> list[str]:
        out = [f"{'phase':<7} {'side':<28} {'moves':>6} {'loss':>8} {'mean':>7} {'errors':>6}"]
        for row in self.rows():
            name = ours if row["side"] == "ours" else theirs
            mean = "-" if row["mean"] is None else f"{row['mean']:.4f}"
            out.append(f"{row['phase']:<7} {name[:28]:<28} {row['moves']:>6} {row['loss']:>8.2f} {mean:>7} "
                       f"{row['errors']:>6}")
        excess = self.excess()
        total = sum(excess.values())
        parts = ", ".join(f"{p} {excess[p]:+.2f}" + (f" ({100 * excess[p] / total:.0f}%)" if total > 0 else "")
                          for p in PHASES)
        out.append(f"our loss minus theirs by phase: {parts}; in all {total:+.2f} over {self.games} games")
        return out


_WORKER: dict = {}


def _worker_start(args: dict, ours: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _WORKER["judge"] = UciPlayer(**args)
    except Exception as exc:          # noqa: BLE001 - reported by the first game
        _WORKER["error"] = f"a worker process could not start the judge: {exc}"
        return
    _WORKER["ours"] = ours
    multiprocessing.util.Finalize(None, _WORKER["judge"].close, exitpriority=10)


def _worker_game(game: RecordedGame) -> list[JudgedMove]:
    if "error" in _WORKER:
        raise EngineFailure(_WORKER["error"])
    return judge_game(_WORKER["judge"], game, _WORKER["ours"])


def judged_games(judge: UciPlayer, games: list[RecordedGame], ours: str, parallel: int):
    """(game, its judged moves) in record order: here, or ``parallel`` at a time in worker processes."""
    if parallel <= 1 or len(games) <= 1:
        for game in games:
            yield game, judge_game(judge, game, ours)
        return
    judge.close()
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool = context.Pool(min(parallel, len(games)), _worker_start, (judge.args, ours))
    try:
        for game, moves in zip(games, pool.imap(_worker_game, games, chunksize=1)):
            yield game, moves
        pool.close()
        pool.join()
    finally:
        pool.terminate()


def plot_phases(summary: Summary, ours: str, theirs: str, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.38
    for i, (side, name) in enumerate((("ours", ours), ("theirs", theirs))):
        values = [summary.loss.get((side, p), 0.0) for p in PHASES]
        bars = ax.bar([x + (i - 0.5) * width for x in range(len(PHASES))], values, width, label=name)
        for bar, p in zip(bars, PHASES):
            ax.annotate(f"{summary.moves.get((side, p), 0)} moves", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(PHASES)), [f"{p}" for p in PHASES])
    ax.set_xlabel("phase (officers in play against the game's start: full >= 3/4, middle >= 1/3, end below)")
    ax.set_ylabel("winning chance given away (summed loss)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="judge_match", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--record", type=Path, required=True, metavar="JSONL",
                   help="the match's record (tools/vs_fairy_stockfish.py --record)")
    p.add_argument("--fsf", type=Path, default=None, help=f"the judge: a UCI engine reading the ini (default {DEFAULT_FSF})")
    p.add_argument("--ini", type=Path, default=None, help=f"the variants file (default {DEFAULT_INI.relative_to(REPO)})")
    p.add_argument("--depth", type=int, default=12, help="the judge's depth for every position")
    p.add_argument("--ours", default="ftc-engine", help="a part of our player's name in the record")
    p.add_argument("--parallel", type=int, default=1, help="games judged at a time (one judge process each)")
    p.add_argument("--worst", type=int, default=10, help="list this many of our largest losses")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the summary and every judged move")
    p.add_argument("--plot", type=Path, default=None, metavar="PNG", help="bar chart of the summed loss by phase")
    return p


def main(argv: list[str] | None = None) -> int:
    parser_ = parser()
    args = parser_.parse_args(argv)
    if not 1 <= args.depth <= 60:
        parser_.error(f"--depth {args.depth}: expected 1..60")
    if args.parallel < 1:
        parser_.error(f"--parallel {args.parallel}: expected at least 1")
    if args.worst < 0:
        parser_.error(f"--worst {args.worst}: expected 0 or more")
    for flag, path in (("--json", args.json), ("--plot", args.plot)):
        if path is not None and not path.parent.is_dir():
            parser_.error(f"{flag} {path}: the folder {path.parent} does not exist")
    if args.plot and not has_matplotlib():
        print("error: --plot needs matplotlib (pip install 'ftc-engine[plot]'); nothing was judged", file=sys.stderr)
        return 2
    try:
        games = read_record(args.record)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    names = {g.blue for g in games} | {g.yellow for g in games}
    for g in games:
        if (args.ours in g.blue) == (args.ours in g.yellow):
            print(f"error: record line {g.line}: --ours {args.ours!r} must name exactly one of the players "
                  f"({g.blue!r}, {g.yellow!r})", file=sys.stderr)
            return 2
    ours_name = next(n for n in sorted(names) if args.ours in n)
    theirs_name = next((n for n in sorted(names) if args.ours not in n), "opponent")
    fsf = args.fsf or DEFAULT_FSF
    resolved = find_engine(fsf)
    if resolved is None:
        print(how_to_get_fsf(fsf), file=sys.stderr)
        return 2
    ini = args.ini or DEFAULT_INI
    if not ini.is_file():
        print(f"error: variants file not found: {ini}", file=sys.stderr)
        return 2
    try:
        judge = UciPlayer([resolved], 0, depth=args.depth, ini=ini.resolve(), label="judge", short="judge")
    except EngineFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not judge.reads_ini:
        judge.close()
        print(f"error: {resolved} does not read a variants file (no VariantPath option): it cannot judge "
              f"these games", file=sys.stderr)
        return 2
    print(f"judging {len(games)} games of {args.record} with {judge.engine_name} at depth {args.depth} "
          f"({args.parallel} at a time); ours: {ours_name}", flush=True)
    summary, judged, start = Summary(), [], time.perf_counter()
    status = 0
    try:
        for done, (game, moves) in enumerate(judged_games(judge, games, args.ours, args.parallel), 1):
            summary.add(moves)
            judged.extend(moves)
            elapsed = time.perf_counter() - start
            print(f"game {game.game}: {len(moves)} moves judged ({done}/{len(games)}, ETA "
                  f"{elapsed / done * (len(games) - done):.0f} s)", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"stopped (Ctrl-C) after {summary.games} games; the report covers them", file=sys.stderr)
        status = 130
    except (EngineFailure, RecordError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        judge.close()
    for line in summary.lines(ours_name, theirs_name):
        print(line)
    worst = sorted((m for m in judged if m.ours), key=lambda m: -m.loss)[:args.worst]
    if worst:
        print(f"our {len(worst)} largest losses:")
        for m in worst:
            print(f"  game {m.game} ply {m.ply + 1} {m.move} ({m.phase}): loss {m.loss:.3f}, judge {m.before[0]} "
                  f"{m.before[1]} before  [{m.position}]")
    if args.json:
        def row(m: JudgedMove) -> dict:
            return {"game": m.game, "ply": m.ply, "move": m.move, "ours": m.ours, "phase": m.phase,
                    "before": list(m.before), "after": round(m.after, 5), "loss": round(m.loss, 5),
                    "position": m.position}
        payload = {"record": str(args.record), "judge": judge.engine_name, "depth": args.depth, "ours": ours_name,
                   "theirs": theirs_name, "games": summary.games, "phases": summary.rows(),
                   "excess": summary.excess(), "worst": [row(m) for m in worst], "moves": [row(m) for m in judged]}
        args.json.write_text(json.dumps(payload) + "\n", encoding="utf-8")
        print(f"json: {args.json}")
    if args.plot:
        plot_phases(summary, ours_name, theirs_name, args.plot,
                    f"{args.record.name}: {summary.games} games judged by {judge.engine_name} at depth {args.depth}")
        print(f"plot: {args.plot}")
    return status


if __name__ == "__main__":
    sys.exit(main())
