"""Play our alpha-beta search against Fairy-Stockfish on Point-Buy Chess with the orthodox army.

    python tools/vs_fairy_stockfish.py [--fsf /tmp/fsf/stockfish] [--ini tools/fairy-stockfish-ftc.ini]
        [--games 40] [--movetime-ms 100 | --opponent-depth N] [--ours-depth N] [--opening-plies 4]
        [--seed 0] [--max-plies 400] [--plot score.png] [--record games.jsonl]

Fairy-Stockfish plays the variant ``ftco`` of the ini (this game's rules with the orthodox army,
promotion to NBRQ); it is a measuring instrument on the machine running the match, never a
dependency of the package (build one from github.com/fairy-stockfish/Fairy-Stockfish). Our engine plays
in-process (engine.search.alphabeta.AlphaBeta, 16 MB table, one thread); Fairy-Stockfish runs over
UCI with Threads 1 and Hash 16. Both get the same time per move (``go movetime``); with
``--opponent-depth`` Fairy-Stockfish searches to a fixed depth instead.

Games come in pairs: both games of a pair start from the same seeded random opening
(``--opening-plies`` random orders) and our engine has Blue in the first, Yellow in the second.

Our Position is the referee. Every Fairy-Stockfish move is parsed and checked legal; an
unparsable or illegal move, a crash, or no bestmove within the move timeout loses the game for the
side at fault (the report names it). A game ends when:

- a Sovereign is captured: the capturing side wins (RULINGS C2);
- the side to move has no legal order: draw (C3, Point-Buy Chess);
- a position (side to move included) occurs for the third time: draw (C3);
- 100 turns pass without a capture or a deploy (the position's halfmove clock reaches 100): draw (C3);
- ``--max-plies`` (default 400) orders have been played: adjudicated a draw (a cap on the match's
  running time, far above the usual game length; C3's own cap for the full game is 500 turns).

Output: one line per game, the final score of ours with its Wilson 95% interval and the Elo
difference (engine.search.match.MatchResult), mean depth and time per move of both sides, and with
``--plot`` the running score (engine.search.match.plot_match; needs matplotlib, checked before the
first game).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine import NAMED_POSITIONS, Position  # noqa: E402
from engine.interfaces.uci import UciError, parse_uci_move  # noqa: E402
from engine.search.match import MatchResult, plot_match  # noqa: E402

DEFAULT_FSF = Path("/tmp/fsf/stockfish")
DEFAULT_INI = REPO / "tools" / "fairy-stockfish-ftc.ini"  # the project's own oracle configuration
ORACLES_README = REPO.parent / "shared" / "oracles" / "README.md"
VARIANT = "ftco"
PROMOTIONS = "NBRQ"                          # ftco's promotion types: the referee uses the same
START = NAMED_POSITIONS["startpos"]


class EngineFailure(Exception):
    """A player that did not produce a move (crash, timeout, protocol error)."""


# -- players ----------------------------------------------------------------------------------------------
@dataclass
class Stats:
    depths: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def line(self) -> str:
        if not self.depths:
            return "no moves"
        ordered = sorted(self.depths)
        median = (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2
        return (f"depth median {median:g} (mean {sum(self.depths) / len(self.depths):.1f}), "
                f"mean time {1000 * sum(self.seconds) / len(self.seconds):.0f} ms/move over {len(self.depths)} moves")


class OurPlayer:
    """Our AlphaBeta in this process."""

    def __init__(self, movetime_ms: float, depth: int | None = None, hash_mb: int = 16, weights: str | None = None):
        from engine.search.alphabeta import AlphaBeta
        from engine.search.evaluate import load_weights

        self.searcher = AlphaBeta(tt_megabytes=hash_mb, weights=load_weights(weights) if weights else None)
        self.movetime_ms, self.depth = movetime_ms, depth
        self.setting = f"depth {depth}" if depth else f"{movetime_ms:g} ms/move"
        self.name, self.short = f"ftc-engine ({self.setting})", "ftc"
        self.stats = Stats()

    def new_game(self) -> None:
        self.searcher.new_game()

    def choose(self, root: str, moves: list[str], position: Position) -> str:
        start = time.perf_counter()
        if self.depth:
            result = self.searcher.search(position.copy(), depth=self.depth)
        else:
            result = self.searcher.search(position.copy(), seconds=self.movetime_ms / 1000)
        self.stats.seconds.append(time.perf_counter() - start)
        self.stats.depths.append(result.depth)
        return result.best.text() if result.best is not None else "0000"

    def close(self) -> None:
        pass


class UciPlayer:
    """Any UCI engine as a child process (Fairy-Stockfish, or our own `ftc uci`). Options are set
    only when the engine offers them: Threads 1, Hash, VariantPath (the ini) and UCI_Variant ftco."""

    def __init__(self, command: list[str], movetime_ms: float, depth: int | None = None, hash_mb: int = 16,
                 ini: Path | None = None, move_timeout: float | None = None, label: str = "Fairy-Stockfish",
                 short: str = "fsf"):
        self.command, self.movetime_ms, self.depth = command, movetime_ms, depth
        self.hash_mb, self.ini, self.label, self.short = hash_mb, ini, label, short
        self.move_timeout = move_timeout or (120.0 if depth else max(10.0, 20 * movetime_ms / 1000))
        self.stats = Stats()
        self.engine_name = label
        self.process: subprocess.Popen | None = None
        self._start()
        self.setting = f"depth {depth}" if depth else f"{movetime_ms:g} ms/move"
        self.name = f"{self.engine_name} ({self.setting})"

    # -- process -------------------------------------------------------------------------------------
    def _start(self) -> None:
        try:
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            raise EngineFailure(f"cannot start {self.command[0]}: {exc}") from None
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines), daemon=True).start()
        self.send("uci")
        options = set()
        for line in self._read_until(lambda ln: ln == "uciok", 15.0, "uciok")[0]:
            if line.startswith("id name "):
                self.engine_name = line[len("id name "):].strip()
            elif line.startswith("option name "):
                options.add(line[len("option name "):].split(" type ")[0].strip().lower())
        if "threads" in options:
            self.send("setoption name Threads value 1")
        if "hash" in options:
            self.send(f"setoption name Hash value {self.hash_mb}")
        if "variantpath" in options:
            if self.ini is None:
                raise EngineFailure(f"{self.engine_name} needs the variants file (--ini) to play {VARIANT}")
            self.send(f"setoption name VariantPath value {self.ini}")
        if "uci_variant" in options:
            self.send(f"setoption name UCI_Variant value {VARIANT}")
        self.send("isready")
        seen, _ = self._read_until(lambda ln: ln == "readyok", 15.0, "readyok")
        if "variantpath" in options and not any(ln.startswith(f"info string variant {VARIANT} ") for ln in seen):
            raise EngineFailure(f"{self.engine_name} did not load the variant {VARIANT} from {self.ini}")

    @staticmethod
    def _pump(stream, lines: queue.Queue) -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def send(self, line: str) -> None:
        if self.process is None:
            raise EngineFailure(f"{self.engine_name} is not running")
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFailure(f"{self.engine_name} has exited (exit code {self.process.poll()})") from None

    def _read_until(self, done, timeout: float, what: str) -> tuple[list[str], str]:
        """The lines before the first line for which ``done(line)`` holds, and that line;
        EngineFailure when the engine exits or the timeout passes first."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise EngineFailure(f"{self.engine_name} sent no {what} within {timeout:g} s") from None
            if line is None:
                raise EngineFailure(f"{self.engine_name} exited (code {self.process.wait()}) before {what}")
            line = line.strip()
            if done(line):
                return lines, line
            lines.append(line)

    def _restart(self) -> None:
        self.close()
        self._start()

    # -- playing ---------------------------------------------------------------------------------------
    def new_game(self) -> None:
        if self.process is None or self.process.poll() is not None:
            self._restart()
        try:
            self.send("ucinewgame")
            self.send("isready")
            self._read_until(lambda ln: ln == "readyok", 15.0, "readyok")
        except EngineFailure:
            self._restart()

    def choose(self, root: str, moves: list[str], position: Position) -> str:
        self.send(f"position fen {root}" + (" moves " + " ".join(moves) if moves else ""))
        start = time.perf_counter()
        self.send(f"go depth {self.depth}" if self.depth else f"go movetime {int(self.movetime_ms)}")
        try:
            lines, last = self._read_until(lambda ln: ln.split()[:1] == ["bestmove"], self.move_timeout, "bestmove")
        except EngineFailure:
            self.close()                      # a hung or dead engine is replaced at the next game
            raise
        depth = 0
        for line in lines:
            parts = line.split()
            if parts[:1] == ["info"] and "depth" in parts and "string" not in parts:
                value = parts[parts.index("depth") + 1:][:1]
                depth = int(value[0]) if value and value[0].isdigit() else depth
        bestmove = last.split()[1] if len(last.split()) > 1 else "(none)"
        self.stats.seconds.append(time.perf_counter() - start)
        self.stats.depths.append(depth)
        return bestmove

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.poll() is None:
                process.stdin.write("quit\n")
                process.stdin.flush()
                process.wait(timeout=2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        if process.poll() is None:
            process.kill()
            process.wait()


# -- the referee -------------------------------------------------------------------------------------------
@dataclass
class GameResult:
    blue: str
    yellow: str
    winner: str | None          # 'w' (Blue), 'b' (Yellow) or None (draw)
    reason: str
    moves: list[str]
    fault: str | None = None    # 'w'/'b' when the game was lost by an illegal move, crash or timeout

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def score_text(self) -> str:
        return {"w": "1-0", "b": "0-1", None: "1/2-1/2"}[self.winner]


def referee_position(root: str = START) -> Position:
    return Position.from_text(root, promote=PROMOTIONS)


def random_opening(rng: random.Random, plies: int, root: str = START) -> list[str]:
    """``plies`` random legal orders from ``root`` that leave a game in progress."""
    for _ in range(100):
        position, moves = referee_position(root), []
        for _ in range(plies):
            orders = position.legal_orders()
            if not orders or position.is_over():
                break
            order = rng.choice(orders)
            position.push(order)
            moves.append(order.text())
        if len(moves) == plies and not position.is_over() and position.count_orders():
            return moves
    raise RuntimeError(f"no random opening of {plies} plies keeps the game going")


def play_game(blue, yellow, opening: list[str], max_plies: int = 400, root: str = START) -> GameResult:
    """One game between two players (objects with choose(root, moves, position) -> move text and
    new_game()), refereed by our Position (see the module text for the rules)."""
    position = referee_position(root)
    moves: list[str] = []
    seen: Counter = Counter({position.key: 1})
    for text in opening:
        position.push(parse_uci_move(position, text))
        moves.append(text)
        seen[position.key] += 1
    names = {"w": blue.name, "b": yellow.name}
    for side, player in (("w", blue), ("b", yellow)):
        try:
            player.new_game()
        except EngineFailure as exc:
            return GameResult(blue.name, yellow.name, "b" if side == "w" else "w", f"{names[side]} failed: {exc}",
                              moves, fault=side)
    while True:
        side = position.turn
        other = "b" if side == "w" else "w"
        if position.is_over():
            return GameResult(blue.name, yellow.name, other, "Sovereign captured", moves)
        if position.count_orders() == 0:
            return GameResult(blue.name, yellow.name, None, "no legal order (C3)", moves)
        if seen[position.key] >= 3:
            return GameResult(blue.name, yellow.name, None, "threefold repetition (C3)", moves)
        if position.data().halfmove >= 100:
            return GameResult(blue.name, yellow.name, None, "100 turns without capture or deploy (C3)", moves)
        if len(moves) >= max_plies:
            return GameResult(blue.name, yellow.name, None, f"adjudicated: {max_plies} plies", moves)
        player = blue if side == "w" else yellow
        try:
            text = player.choose(root, moves, position)
        except EngineFailure as exc:
            return GameResult(blue.name, yellow.name, other, f"{names[side]} failed: {exc}", moves, fault=side)
        try:
            order = parse_uci_move(position, text)
        except UciError as exc:
            return GameResult(blue.name, yellow.name, other,
                              f"{names[side]} played an illegal or unreadable move {text!r}: {exc}", moves, fault=side)
        position.push(order)
        moves.append(order.text())
        seen[position.key] += 1


def play_match(ours, theirs, games: int, seed: int = 0, opening_plies: int = 4, max_plies: int = 400,
               report=print, record: Path | None = None) -> tuple[MatchResult, list[GameResult]]:
    """Games in pairs with alternating colours and a shared seeded opening per pair; the result
    is from ``ours``' side."""
    result = MatchResult(f"{ours.short} ({ours.setting})", f"{theirs.short} ({theirs.setting})")   # short: plot titles
    played: list[GameResult] = []
    start = time.perf_counter()
    sink = record.open("w", encoding="utf-8") if record else None
    try:
        for index in range(games):
            rng = random.Random(seed * 1_000_003 + index // 2)
            opening = random_opening(rng, opening_plies)
            ours_blue = index % 2 == 0
            blue, yellow = (ours, theirs) if ours_blue else (theirs, ours)
            game = play_game(blue, yellow, opening, max_plies)
            played.append(game)
            mine = "w" if ours_blue else "b"
            result.add(0.5 if game.winner is None else 1.0 if game.winner == mine else 0.0, game.plies)
            result.seconds = time.perf_counter() - start
            report(f"game {index + 1:>3}: {blue.short} (Blue) - {yellow.short} (Yellow)  {game.score_text:<7} "
                   f"{game.reason}, {game.plies} plies  [opening {' '.join(opening)}]")
            if sink:
                sink.write(json.dumps({"game": index + 1, "blue": blue.name, "yellow": yellow.name,
                                       "result": game.score_text, "reason": game.reason, "fault": game.fault,
                                       "opening_plies": len(opening), "moves": game.moves}) + "\n")
                sink.flush()
    finally:
        if sink:
            sink.close()
    return result, played


# -- command line ------------------------------------------------------------------------------------------
def how_to_get_fsf(path: Path) -> str:
    where = f"see {ORACLES_README}" if ORACLES_README.exists() else \
        "build one from https://github.com/fairy-stockfish/Fairy-Stockfish (make -C src build ARCH=x86-64)"
    return (f"Fairy-Stockfish binary not found or not executable: {path}\n"
            f"To get one: {where} (its build-fairy-stockfish.sh builds /tmp/fsf/stockfish in a few minutes),\n"
            "then pass its path with --fsf PATH. Debian's fairy-stockfish package (11.1) is too old for these rules.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fsf", type=Path, help=f"Fairy-Stockfish binary (default {DEFAULT_FSF} if present)")
    parser.add_argument("--ini", type=Path, help="variants file with ftco (default tools/fairy-stockfish-ftc.ini)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--movetime-ms", type=float, default=100.0, help="time per move for both sides (default 100)")
    parser.add_argument("--opponent-depth", type=int, help="Fairy-Stockfish searches to this depth instead of the move time")
    parser.add_argument("--ours-depth", type=int, help="our engine searches to this depth instead of the move time (debugging)")
    parser.add_argument("--opponent-label", default="fsf",
                        help="short name of the opponent in the report and the plot (default fsf)")
    parser.add_argument("--ours-weights", metavar="TOML", help="evaluation weights for our engine (default engine/data/eval.toml)")
    parser.add_argument("--opening-plies", type=int, default=4, help="random orders before the engines play")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-plies", type=int, default=400, help="adjudicate a draw after this many orders")
    parser.add_argument("--hash", type=int, default=16, help="table size of both engines in MB (default 16)")
    parser.add_argument("--move-timeout", type=float, help="seconds Fairy-Stockfish may take for one move before it loses")
    parser.add_argument("--plot", metavar="PNG", help="running score with its 95%% interval (needs matplotlib)")
    parser.add_argument("--record", metavar="JSONL", type=Path, help="write every game's moves, one JSON line per game")
    args = parser.parse_args(argv)

    for name in ("games", "movetime_ms", "max_plies", "hash"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("opponent_depth", "ours_depth"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.opening_plies < 0:
        parser.error("--opening-plies must be >= 0")
    if args.ours_weights:
        from engine.search.evaluate import load_weights

        try:
            load_weights(args.ours_weights)
        except (OSError, ValueError) as exc:
            parser.error(f"--ours-weights: {exc}")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("error: --plot needs matplotlib (pip install 'ftc-engine[plot]'); no game was played", file=sys.stderr)
            return 2
    fsf = args.fsf or DEFAULT_FSF
    resolved = shutil.which(str(fsf)) if fsf.parent == Path(".") and not fsf.exists() else str(fsf)
    if not resolved or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        print(how_to_get_fsf(fsf), file=sys.stderr)
        return 2
    ini = args.ini or (DEFAULT_INI if DEFAULT_INI.exists() else None)
    if ini is not None and not ini.is_file():
        print(f"error: variants file not found: {ini}", file=sys.stderr)
        return 2

    ours = OurPlayer(args.movetime_ms, args.ours_depth, args.hash, args.ours_weights)
    try:
        theirs = UciPlayer([resolved], args.movetime_ms, args.opponent_depth, args.hash, ini.resolve() if ini else None,
                           args.move_timeout, short=args.opponent_label)
    except EngineFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{ours.name} vs {theirs.name}: {args.games} games, variant {VARIANT}, openings of {args.opening_plies} "
          f"random plies (seed {args.seed}), draw adjudicated at {args.max_plies} plies", flush=True)
    try:
        result, games = play_match(ours, theirs, args.games, args.seed, args.opening_plies, args.max_plies,
                                   report=lambda line: print(line, flush=True), record=args.record)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        theirs.close()
    faults = Counter(g.reason.split(":")[0] for g in games if g.fault)
    print(result.details())
    print(result.summary())
    print(f"{ours.name}: {ours.stats.line()}")
    print(f"{theirs.name}: {theirs.stats.line()}")
    if faults:
        print("games lost by a fault: " + "; ".join(f"{reason} x{n}" for reason, n in faults.items()))
    if args.plot:
        plot_match(result, args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
