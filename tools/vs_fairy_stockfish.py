"""Play our alpha-beta search against Fairy-Stockfish (or any UCI engine) on Point-Buy Chess.

    python tools/vs_fairy_stockfish.py [--fsf /tmp/fsf/stockfish | --opponent-uci "COMMAND ..."]
        [--opponent-options "Name=value;Name=value"] [--ini tools/fairy-stockfish-ftc.ini]
        [--ours-eval classical|nnue] [--ours-net FILE] [--armies orthodox|fairy] [--budget 38]
        [--games 40] [--movetime-ms 100 | --nodes N | --opponent-depth N] [--ours-depth N] [--opening-plies 4]
        [--seed 0] [--max-plies 400] [--parallel 1] [--plot score.png] [--record games.jsonl]
        [--sprt ELO0,ELO1 [--sprt-alpha 0.05] [--sprt-beta 0.05]] [--json match.json] [--journal FILE]

Players. Our engine plays in-process (engine.board.alphabeta.AlphaBeta, 16 MB table, one thread)
with the evaluation ``--ours-eval`` (default: engine/data/evaluation.toml's) and the network file
``--ours-net`` (default: the shipped one; a net file implies nnue). The opponent is Fairy-Stockfish
(``--fsf``, default /tmp/fsf/stockfish) or, with ``--opponent-uci``, any UCI engine command line,
e.g. our own ``ftc uci`` to play our classical search at equal time::

    --opponent-uci "ftc uci" --opponent-options "Use NNUE=false;Move Overhead=0"

The opponent gets Threads 1, Hash 16, the variants file (VariantPath) and the variant (UCI_Variant),
each only when it offers that option, then the ``--opponent-options`` (``Name=value`` pairs, ``;``
between them, a button by its name alone); an option it does not offer, or a value it refuses (an
``info string error`` before ``readyok``), stops the tool with a one-line error before any game.
``ftc uci`` takes its ``Move Overhead`` (default 30 ms) off every ``go movetime``, hence
``Move Overhead=0`` for equal time; Fairy-Stockfish uses the whole move time. Both sides get the same
time per move (``go movetime``); with ``--nodes N`` both search N nodes a move instead (``go nodes``
and ``AlphaBeta.search(nodes=N)``: a match of two builds of our engine that the machine's load cannot
tilt, the same games on every run); with ``--opponent-depth`` the opponent searches to a fixed depth
instead. The report's first lines name both players and the evaluation each uses (ours:
``AlphaBeta.evaluation``; the opponent's: its ``info string`` about its evaluation).

Armies. ``--armies orthodox`` (the default): the standard start position, variant ``ftco`` of the
ini (this game's rules with the orthodox army, promotion to NBRQ). ``--armies fairy``: every game
pair starts from its own seeded random Point-Buy position (RULINGS C8, C19; budget ``--budget`` each)
of the unit types the ini can express, played as variant ``ftcd`` when a Barracks holds a unit (they
deploy to the first rank), else ``ftcf``, promotion to the variant's promotionPieceTypes
(tools/fairy_armies.py says how the armies are drawn and restricted; every start position is checked
against pyffish, which must then be installed). Fairy-Stockfish gets the position in its own letters
(tools/oracles.py's tables) with the Barracks as its pocket (``[...]``); a UCI engine that does not
read the ini gets our position text and order text.

Games come in pairs: both games of a pair start from the same seeded position and random opening
(``--opening-plies`` random orders) and our engine has Blue in the first, Yellow in the second.
``--parallel N`` plays N games at a time, each in its own process with its own two players (one
thread each): the games and their seeds are the same as with ``--parallel 1`` and the report lists
them in the same order.

Our Position is the referee. Every opponent move is parsed and checked legal; an
unparsable or illegal move, a crash, or no bestmove within the move timeout loses the game for the
side at fault (the report names it). A game ends when:

- a Sovereign is captured: the capturing side wins (RULINGS C2);
- the side to move has no legal order: draw (C3, Point-Buy Chess);
- a position (side to move included) occurs for the third time: draw (C3);
- 100 turns pass without a capture or a deploy (the position's halfmove clock reaches 100): draw (C3);
- ``--max-plies`` (default 400) orders have been played: adjudicated a draw (a cap on the match's
  running time, far above the usual game length; C3's own cap for the full game is 500 turns).

Output: one line per game, the final score of ours with its Wilson 95% interval and the Elo
difference (engine.search.match.MatchResult), mean depth and time per move of both sides (with a note
when the two mean times differ by more than 25%: the sides did not get equal time), and with
``--plot`` the running score (engine.search.match.plot_match; needs matplotlib, checked before the
first game). ``--record`` writes one JSON line per game (with ``--armies fairy`` also its start
position and variant). ``--json`` writes the match's result as JSON (MatchResult.to_json(), with a
"sprt" object under --sprt). docs/nnue-matches.md gives the commands of the learned evaluation's matches.

SPRT (``--sprt ELO0,ELO1``, engine/search/sprt.py, docs/sprt.md): the pairs are fed to a sequential
probability ratio test of H0 (our Elo over the opponent <= ELO0) against H1 (>= ELO1), pentanomial, in
pair order, and the match stops as soon as it decides; ``--games`` (even) is then the most games, after
which the test ends undecided. With ``--parallel`` the games still running when it decides are stopped
and, with every game after the deciding pair, dropped: the report holds exactly the games counted.
The report ends with the test's lines (hypotheses; LLR, bounds and decision; counts and Elo).

Journal (``--journal FILE``, engine/journal.py; docs/sprt.md "Resuming a test"): every game is
written to FILE as it finishes (its players, result, reason and length: not its moves), and the match
started again with the same FILE counts those games in game order and plays only the others, so an
SPRT of a few thousand games can span sessions; ``--record`` is then appended to. FILE's header names
the match (both players' settings, ours with a digest of this checkout's engine, the opponent's
command line and options, the seed, openings, armies, length and the SPRT): another match's FILE is
refused with a line naming what differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import multiprocessing.util
import os
import queue
import random
import shlex
import shutil
import signal
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
from engine.journal import Journal, JournalError  # noqa: E402
from engine.search.match import MatchResult, plot_match  # noqa: E402
from engine.search.sprt import SPRT, add_sprt_options  # noqa: E402
from tools.checkouts import engine_digest  # noqa: E402

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
    """Our AlphaBeta in this process, with the evaluation ``evaluation`` ("classical", "nnue" or
    None: the engine's default) and the network file ``net`` (None: the shipped one)."""

    def __init__(self, movetime_ms: float, depth: int | None = None, hash_mb: int = 16, weights: str | None = None,
                 evaluation: str | None = None, net: str | None = None, nodes: int | None = None):
        from engine.board.alphabeta import AlphaBeta
        from engine.board.evaluate import load_weights

        # The arguments again, for the players of the --parallel worker processes.
        self.args = {"movetime_ms": movetime_ms, "depth": depth, "hash_mb": hash_mb, "weights": weights,
                     "evaluation": evaluation, "net": net, "nodes": nodes}
        self.searcher = AlphaBeta(tt_megabytes=hash_mb, weights=load_weights(weights) if weights else None,
                                  evaluation=evaluation, net=net)
        self.evaluation = self.searcher.evaluation
        self.movetime_ms, self.depth, self.nodes = movetime_ms, depth, nodes
        self.setting = budget_text(movetime_ms, depth, nodes)
        self.name, self.short = f"ftc-engine ({self.setting})", "ftc"
        self.stats = Stats()

    def new_game(self) -> None:
        self.searcher.new_game()

    def choose(self, root: str, moves: list[str], position: Position) -> str:
        start = time.perf_counter()
        if self.depth:
            result = self.searcher.search(position.copy(), depth=self.depth)
        elif self.nodes:
            result = self.searcher.search(position.copy(), nodes=self.nodes)
        else:
            result = self.searcher.search(position.copy(), seconds=self.movetime_ms / 1000)
        self.stats.seconds.append(time.perf_counter() - start)
        self.stats.depths.append(result.depth)
        return result.best.text() if result.best is not None else "0000"

    def close(self) -> None:
        pass


class UciPlayer:
    """Any UCI engine as a child process (Fairy-Stockfish, or our own `ftc uci`). Options are set
    only when the engine offers them: Threads 1, Hash, VariantPath (the ini) and UCI_Variant; then
    ``options`` ((name, value or None for a button), ...), each of which the engine must offer.

    An engine that offers VariantPath reads the ini: it is told the variant of every game
    (``use_variant``) and speaks the ini's letters (fairy types are translated both ways). Any other
    engine gets our position text and order text."""

    def __init__(self, command: list[str], movetime_ms: float, depth: int | None = None, hash_mb: int = 16,
                 ini: Path | None = None, move_timeout: float | None = None, label: str = "Fairy-Stockfish",
                 short: str | None = "fsf", options: list[tuple[str, str | None]] = (), nodes: int | None = None):
        self.args = {"command": list(command), "movetime_ms": movetime_ms, "depth": depth, "hash_mb": hash_mb,
                     "ini": ini, "move_timeout": move_timeout, "label": label, "short": short,
                     "options": list(options), "nodes": nodes}
        self.command, self.movetime_ms, self.depth, self.nodes = command, movetime_ms, depth, nodes
        self.hash_mb, self.ini, self.label, self.short = hash_mb, ini, label, short
        self.options = list(options)
        self.move_timeout = move_timeout or (120.0 if depth or nodes else max(10.0, 20 * movetime_ms / 1000))
        self.stats = Stats()
        self.engine_name = label
        self.evaluation: str | None = None
        self.last_score: tuple[str, int] | None = None  # the last search's final score: ("cp" or "mate", value)
        self.variant = VARIANT                # the UCI_Variant an ini-reading engine plays
        self.reads_ini = False
        self.process: subprocess.Popen | None = None
        self._start()
        if self.evaluation is None:
            self._probe_evaluation()
        if self.short is None:                # the first word of its name; our own engine as a child: ftc-uci
            first = self.engine_name.split()[0].lower() if self.engine_name.split() else "uci"
            self.short = "ftc-uci" if first == "ftc-engine" else first
        self.setting = budget_text(movetime_ms, depth, nodes)
        self.name = f"{self.engine_name} ({self.setting})"

    # -- process -------------------------------------------------------------------------------------
    def _start(self) -> None:
        try:
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            raise EngineFailure(f"cannot start {self.command[0]}: {exc.strerror or exc}") from None
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines), daemon=True).start()
        self.send("uci")
        offered: dict[str, str] = {}           # lower-case name -> the engine's spelling
        for line in self._read_until(lambda ln: ln == "uciok", 15.0, "uciok")[0]:
            if line.startswith("id name "):
                self.engine_name = line[len("id name "):].strip()
            elif line.startswith("option name "):
                name = line[len("option name "):].split(" type ")[0].strip()
                offered[name.lower()] = name
        if "threads" in offered:
            self.send("setoption name Threads value 1")
        if "hash" in offered:
            self.send(f"setoption name Hash value {self.hash_mb}")
        self.reads_ini = "variantpath" in offered
        if self.reads_ini:
            if self.ini is None:
                raise EngineFailure(f"{self.engine_name} needs the variants file (--ini) to play {self.variant}")
            self.send(f"setoption name VariantPath value {self.ini}")
        if "uci_variant" in offered:
            self.send(f"setoption name UCI_Variant value {self.variant}")
        for name, value in self.options:
            if name.lower() not in offered:
                raise EngineFailure(f"{self.engine_name} has no option {name!r} (--opponent-options); it offers: "
                                    + ", ".join(sorted(offered.values(), key=str.lower)))
            self.send(f"setoption name {offered[name.lower()]}" + ("" if value is None else f" value {value}"))
        self.send("isready")
        seen, _ = self._read_until(lambda ln: ln == "readyok", 15.0, "readyok")
        refused = [ln[len("info string "):] for ln in seen if ln.startswith("info string error")]
        if refused:
            raise EngineFailure(f"{self.engine_name} refused an option: {refused[0].removeprefix('error: ')}")
        if self.reads_ini and not any(ln.startswith(f"info string variant {self.variant} ") for ln in seen):
            raise EngineFailure(f"{self.engine_name} did not load the variant {self.variant} from {self.ini}")

    def _probe_evaluation(self) -> None:
        """An engine that names its evaluation only when it searches (Fairy-Stockfish): a depth-1 search."""
        self.send("position startpos")
        self.send("go depth 1")
        self._read_until(lambda ln: ln.split()[:1] == ["bestmove"], 15.0, "bestmove")

    def _note(self, line: str) -> None:
        """Keep what an ``info string`` line says about the evaluation: ``evaluation X`` (ftc uci) or
        ``X evaluation [using Y] enabled`` (Stockfish and Fairy-Stockfish)."""
        if not line.startswith("info string ") or "evaluation" not in line:
            return
        text = line[len("info string "):]
        if text.startswith("evaluation "):
            self.evaluation = text[len("evaluation "):]
        elif text.endswith(" enabled") and " evaluation" in text:
            kind, _, rest = text[:-len(" enabled")].partition(" evaluation")
            rest = rest.strip()
            self.evaluation = kind + (f" ({rest[len('using '):] if rest.startswith('using ') else rest})" if rest else "")

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
            self._note(line)
            if done(line):
                return lines, line
            lines.append(line)

    def _restart(self) -> None:
        self.close()
        self._start()

    # -- playing ---------------------------------------------------------------------------------------
    def use_variant(self, variant: str) -> None:
        """The next games' variant of the ini (an engine that does not read the ini ignores it: the
        position text carries its promotion types)."""
        if not self.reads_ini or variant == self.variant:
            return
        self.variant = variant
        if self.process is None or self.process.poll() is not None:
            return                            # new_game starts it with this variant
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("isready")
        seen, _ = self._read_until(lambda ln: ln == "readyok", 15.0, "readyok")
        if not any(ln.startswith(f"info string variant {variant} ") for ln in seen):
            raise EngineFailure(f"{self.engine_name} did not switch to the variant {variant} of {self.ini}")

    def new_game(self) -> None:
        if self.process is None or self.process.poll() is not None:
            self._restart()
        try:
            self.send("ucinewgame")
            self.send("isready")
            self._read_until(lambda ln: ln == "readyok", 15.0, "readyok")
        except EngineFailure:
            self._restart()

    def _letters(self) -> bool:
        """Whether positions and moves are translated to the ini's letters (fairy variants only: the
        orthodox letters are the same)."""
        return self.reads_ini and self.variant != VARIANT

    def choose(self, root: str, moves: list[str], position: Position) -> str:
        if self._letters():
            from tools.fairy_armies import from_ffish_move, to_ffish_fen, to_ffish_move

            root, moves = to_ffish_fen(root, self.variant), [to_ffish_move(m) for m in moves]
        self.send(f"position fen {root}" + (" moves " + " ".join(moves) if moves else ""))
        start = time.perf_counter()
        self.send(f"go depth {self.depth}" if self.depth else f"go nodes {self.nodes}" if self.nodes
                  else f"go movetime {int(self.movetime_ms)}")
        try:
            lines, last = self._read_until(lambda ln: ln.split()[:1] == ["bestmove"], self.move_timeout, "bestmove")
        except EngineFailure:
            self.close()                      # a hung or dead engine is replaced at the next game
            raise
        depth, self.last_score = 0, None
        for line in lines:
            parts = line.split()
            if parts[:1] == ["info"] and "depth" in parts and "string" not in parts:
                value = parts[parts.index("depth") + 1:][:1]
                depth = int(value[0]) if value and value[0].isdigit() else depth
            if parts[:1] == ["info"] and "score" in parts and "string" not in parts:
                kind, value = (parts[parts.index("score") + 1:] + ["", ""])[:2]
                if kind in ("cp", "mate") and value.lstrip("-").isdigit():
                    self.last_score = (kind, int(value))
        bestmove = last.split()[1] if len(last.split()) > 1 else "(none)"
        self.stats.seconds.append(time.perf_counter() - start)
        self.stats.depths.append(depth)
        return from_ffish_move(bestmove) if self._letters() else bestmove

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
    kept_plies: int | None = None   # a game read back from a journal, which keeps no moves: its length

    @property
    def plies(self) -> int:
        return len(self.moves) if self.kept_plies is None else self.kept_plies

    @property
    def score_text(self) -> str:
        return {"w": "1-0", "b": "0-1", None: "1/2-1/2"}[self.winner]


def promotions_of(variant: str) -> str:
    """The promotion types (our tokens) of a variant of the ini: ftco's, or ftcf's and ftcd's."""
    if variant == VARIANT:
        return PROMOTIONS
    from tools.fairy_armies import FAIRY_PROMOTE
    return FAIRY_PROMOTE


def referee_position(root: str = START, promote: str = PROMOTIONS) -> Position:
    """The referee's position of ``root``; a root without a Stock gets one in which the promotion
    types cannot run out (Fairy-Stockfish has no Stock: a third Queen is legal there and must not be
    charged to it as a fault)."""
    if "stock:" not in root:
        root += " stock:" + "".join(f"{token}99" for token in promote)
    return Position.from_text(root, promote=promote)


def random_opening(rng: random.Random, plies: int, root: str = START, promote: str = PROMOTIONS) -> list[str]:
    """``plies`` random legal orders from ``root`` that leave a game in progress."""
    for _ in range(100):
        position, moves = referee_position(root, promote), []
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


def play_game(blue, yellow, opening: list[str], max_plies: int = 400, root: str = START,
              promote: str = PROMOTIONS, variant: str = VARIANT) -> GameResult:
    """One game between two players (objects with choose(root, moves, position) -> move text and
    new_game(), and optionally use_variant(variant)), refereed by our Position with the promotion
    types ``promote`` (see the module text for the rules)."""
    position = referee_position(root, promote)
    moves: list[str] = []
    seen: Counter = Counter({position.key: 1})
    for text in opening:
        position.push(parse_uci_move(position, text))
        moves.append(text)
        seen[position.key] += 1
    names = {"w": blue.name, "b": yellow.name}
    for side, player in (("w", blue), ("b", yellow)):
        try:
            if hasattr(player, "use_variant"):
                player.use_variant(variant)
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


# -- the match ---------------------------------------------------------------------------------------------
ARMIES = ("orthodox", "fairy")


@dataclass(frozen=True)
class GameSpec:
    """One game of a match: everything it needs, drawn from the match seed before any game."""
    index: int
    root: str
    variant: str
    promote: str
    opening: tuple[str, ...]
    ours_blue: bool
    max_plies: int


def game_specs(games: int, seed: int = 0, opening_plies: int = 4, max_plies: int = 400, armies: str = "orthodox",
               budget: int = 38, ffish=None) -> list[GameSpec]:
    """The games of a match: pairs with alternating colours, each pair from its own seeded start
    position (orthodox: the standard one; fairy: tools/fairy_armies.py's, checked with ``ffish``) and
    random opening. They depend on the seed and the game's index only."""
    if armies not in ARMIES:
        raise ValueError(f"armies {armies!r}: expected one of {', '.join(ARMIES)}")
    specs: list[GameSpec] = []
    for pair in range((games + 1) // 2):
        rng = random.Random(seed * 1_000_003 + pair)
        if armies == "orthodox":
            root, variant, promote = START, VARIANT, PROMOTIONS
            opening = random_opening(rng, opening_plies)
        else:
            from tools.fairy_armies import disagreement, draw_fairy_start

            while True:
                start = draw_fairy_start(rng, budget, ffish)
                root, variant, promote = start.text, start.variant, promotions_of(start.variant)
                try:
                    opening = random_opening(rng, opening_plies, root, promote)
                except RuntimeError:
                    continue
                # Both sides must agree on the orders where the engines take over, too.
                if ffish is None or not any(disagreement(root, variant, ffish, opening)):
                    break
        for index in (2 * pair, 2 * pair + 1)[:games - 2 * pair]:
            specs.append(GameSpec(index, root, variant, promote, tuple(opening), index % 2 == 0, max_plies))
    return specs


@dataclass
class GameOutcome:
    spec: GameSpec
    game: GameResult
    ours: Stats               # the depths and times of this game's moves
    theirs: Stats


def run_game(ours, theirs, spec: GameSpec) -> GameOutcome:
    marks = [(len(p.stats.depths), len(p.stats.seconds)) if hasattr(p, "stats") else (0, 0) for p in (ours, theirs)]
    blue, yellow = (ours, theirs) if spec.ours_blue else (theirs, ours)
    game = play_game(blue, yellow, list(spec.opening), spec.max_plies, spec.root, spec.promote, spec.variant)
    parts = []
    for player, (depths, seconds) in zip((ours, theirs), marks):
        stats = getattr(player, "stats", Stats())
        parts.append(Stats(stats.depths[depths:], stats.seconds[seconds:]))
    return GameOutcome(spec, game, *parts)


_WORKER: dict = {}


class WorkerError(RuntimeError):
    """A --parallel worker process could not start its players."""


def _worker_start(ours_args: dict, theirs_args: dict) -> None:
    """A --parallel worker process: its own two players (Ctrl-C is the main process's business).
    A failure is kept for the first game to report (an initializer that raises would be restarted
    by the pool forever)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _WORKER["ours"] = OurPlayer(**ours_args)
        _WORKER["theirs"] = UciPlayer(**theirs_args)
    except Exception as exc:          # noqa: BLE001 - any failure, reported by _worker_game
        _WORKER["error"] = f"a worker process could not start its players: {exc}"
        return
    multiprocessing.util.Finalize(None, _WORKER["theirs"].close, exitpriority=10)


def _worker_game(spec: GameSpec) -> GameOutcome:
    if "error" in _WORKER:
        raise WorkerError(_WORKER["error"])
    return run_game(_WORKER["ours"], _WORKER["theirs"], spec)


def _outcomes(ours, theirs, specs: list[GameSpec], parallel: int):
    """The games' outcomes in the order of ``specs``: here, or ``parallel`` at a time in worker
    processes, each with new players made from ``ours.args`` and ``theirs.args``."""
    if parallel <= 1 or len(specs) <= 1:
        for spec in specs:
            yield run_game(ours, theirs, spec)
        return
    if hasattr(theirs, "close"):
        theirs.close()                  # each worker starts its own; the main process plays no game
    # fork: the workers inherit this module as it is loaded (a script, or a module of the tests).
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool = context.Pool(min(parallel, len(specs)), _worker_start, (ours.args, theirs.args))
    try:
        for outcome in pool.imap(_worker_game, specs, chunksize=1):
            ours.stats.depths += outcome.ours.depths
            ours.stats.seconds += outcome.ours.seconds
            theirs.stats.depths += outcome.theirs.depths
            theirs.stats.seconds += outcome.theirs.seconds
            yield outcome
        pool.close()
        pool.join()
    finally:
        pool.terminate()


def match_journal(path: Path, ours, theirs, games_args: dict, sprt: SPRT | None) -> Journal:
    """The journal of a match (engine/journal.py): its games survive a stop, and a match resumes from
    it only when it is the same test: both players' settings (ours with a digest of this checkout's
    engine, the evaluation it searches with: a net by the digest of its weights, wherever its file
    lies; an ``--ours-weights`` file by the digest of its text; the opponent's command line and
    options), the games' seed, openings, armies and length (``games_args``), and the SPRT.
    JournalError names what differs."""
    def player(p) -> dict:
        return {key: (str(value) if isinstance(value, Path) else value) for key, value in p.args.items()}
    mine = {**player(ours), "engine": engine_digest(), "evaluation": ours.evaluation}
    if ours.args.get("weights"):
        mine["weights_digest"] = hashlib.sha256(Path(ours.args["weights"]).read_bytes()).hexdigest()[:16]
    run = {"ours": mine, "theirs": player(theirs), "games": games_args,
           "sprt": None if sprt is None else sprt.design()}
    return Journal(path, "ftc-vs-uci-match", run)


def _kept_game(journal: Journal, index: int, row: dict) -> GameResult:
    """Game ``index`` as the journal holds it; JournalError naming the game when the row is not one."""
    try:
        game = GameResult(row["blue"], row["yellow"], row["winner"], row["reason"], [], row["fault"],
                          kept_plies=row["plies"])
        ok = (game.winner in ("w", "b", None) and game.fault in ("w", "b", None) and isinstance(game.kept_plies, int)
              and not isinstance(game.kept_plies, bool) and game.kept_plies >= 0)
    except KeyError:
        ok = False
    if not ok:
        raise JournalError(f"{journal.path}: game {index + 1}: expected blue, yellow, winner ('w', 'b' or null), "
                           f"reason, fault and plies, found {json.dumps(row)}")
    return game


def play_match(ours, theirs, games: int, seed: int = 0, opening_plies: int = 4, max_plies: int = 400,
               report=print, record: Path | None = None, armies: str = "orthodox", budget: int = 38,
               ffish=None, parallel: int = 1, sprt: SPRT | None = None,
               journal: Journal | None = None) -> tuple[MatchResult, list[GameResult]]:
    """Games in pairs with alternating colours and a shared seeded start position and opening per
    pair (game_specs); ``parallel`` games at a time. The result is from ``ours``' side. With ``sprt``
    (a fresh engine.search.sprt.SPRT; ``games`` even) each pair is fed to it as its second game ends,
    and the match stops when it decides (the games still running are stopped and dropped). With
    ``journal`` (:func:`match_journal`) the games it holds are counted, in game order, without being
    played again, every game played is written to it before it counts, and ``record`` is appended to
    (its earlier games are the earlier runs')."""
    if sprt is not None and games % 2:
        raise ValueError(f"--sprt plays games in pairs (colours swapped from one opening): --games {games} is odd")
    result = MatchResult(f"{ours.short} ({ours.setting})", f"{theirs.short} ({theirs.setting})")   # short: plot titles
    played: list[GameResult] = []
    start = time.perf_counter()
    specs = game_specs(games, seed, opening_plies, max_plies, armies, budget, ffish)
    kept = {} if journal is None else {i: _kept_game(journal, i, row) for i, row in journal.done.items() if i < games}
    if kept:
        report(f"{len(kept)} game(s) from the journal {journal.path if journal else ''}")
    sink = record.open("a" if journal is not None else "w", encoding="utf-8") if record else None
    # In game order: pair k is games 2k, 2k + 1; the journal's games are not played again.
    outcomes = _outcomes(ours, theirs, [spec for spec in specs if spec.index not in kept], parallel)
    try:
        for spec in specs:
            index, opening = spec.index, spec.opening
            if index in kept:
                game = kept[index]
            else:
                outcome = next(outcomes)
                game = outcome.game
                if journal is not None:
                    journal.add(index, {"blue": game.blue, "yellow": game.yellow, "winner": game.winner,
                                        "reason": game.reason, "fault": game.fault, "plies": game.plies})
            blue, yellow = (ours, theirs) if spec.ours_blue else (theirs, ours)
            played.append(game)
            mine = "w" if spec.ours_blue else "b"
            result.add(0.5 if game.winner is None else 1.0 if game.winner == mine else 0.0, game.plies)
            result.seconds = time.perf_counter() - start
            army = "" if armies == "orthodox" else f"{spec.variant} {spec.root.split()[0]}; "
            report(f"game {index + 1:>3}: {blue.short} (Blue) - {yellow.short} (Yellow)  {game.score_text:<7} "
                   f"{game.reason}, {game.plies} plies  [{army}opening {' '.join(opening)}]")
            if sink and index not in kept:
                line = {"game": index + 1, "blue": blue.name, "yellow": yellow.name,
                        "result": game.score_text, "reason": game.reason, "fault": game.fault,
                        "opening_plies": len(opening), "moves": game.moves}
                if armies != "orthodox":
                    line.update(start=spec.root, variant=spec.variant)
                sink.write(json.dumps(line) + "\n")
                sink.flush()
            if sprt is not None and index % 2 == 1:
                sprt.add_pair(result.outcomes[-2], result.outcomes[-1])
                if sprt.finished:
                    break
    finally:
        outcomes.close()                # with --parallel: stops the games still running
        if sink:
            sink.close()
    return result, played


# -- command line ------------------------------------------------------------------------------------------
def has_matplotlib() -> bool:
    """Whether --plot can draw (checked before any work, so that a run's results are not lost)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def find_engine(path: Path) -> str | None:
    """The executable file ``path`` names (a bare name is looked up on PATH), or None."""
    resolved = shutil.which(str(path)) if path.parent == Path(".") and not path.exists() else str(path)
    if not resolved or not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        return None
    return resolved


def how_to_get_fsf(path: Path) -> str:
    where = f"see {ORACLES_README}" if ORACLES_README.exists() else \
        "build one from https://github.com/fairy-stockfish/Fairy-Stockfish (make -C src build ARCH=x86-64)"
    return (f"Fairy-Stockfish binary not found or not executable: {path}\n"
            f"To get one: {where} (its build-fairy-stockfish.sh builds /tmp/fsf/stockfish in a few minutes),\n"
            "then pass its path with --fsf PATH. Debian's fairy-stockfish package (11.1) is too old for these rules.")


def parse_options(text: str) -> list[tuple[str, str | None]]:
    """``"Name=value;Name=value"`` (a button by its name alone) -> [(name, value or None), ...];
    ValueError names a part without a name."""
    options = []
    for part in text.split(";"):
        if not part.strip():
            continue
        name, equals, value = part.partition("=")
        if not name.strip():
            raise ValueError(f"{part.strip()!r} has no option name (expected Name=value)")
        options.append((name.strip(), value.strip() if equals else None))
    return options


def budget_text(movetime_ms: float, depth: int | None, nodes: int | None) -> str:
    """A player's budget in words: a depth, a node count (--nodes) or a move time."""
    return f"depth {depth}" if depth else f"{nodes:,} nodes/move" if nodes else f"{movetime_ms:g} ms/move"


def time_note(ours: Stats, theirs: Stats) -> str | None:
    """A note when the mean times per move of a timed match differ by more than 25%."""
    if not ours.seconds or not theirs.seconds:
        return None
    mine, their = (1000 * sum(s.seconds) / len(s.seconds) for s in (ours, theirs))
    if max(mine, their) <= 1.25 * min(mine, their):
        return None
    hint = (' (an engine takes its Move Overhead off every go movetime: --opponent-options "Move Overhead=0")'
            if their < mine else "")
    return f"note: the sides did not think equally long: {mine:.0f} against {their:.0f} ms/move{hint}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    opponent = parser.add_mutually_exclusive_group()
    opponent.add_argument("--fsf", type=Path, help=f"Fairy-Stockfish binary (default {DEFAULT_FSF} if present)")
    opponent.add_argument("--opponent-uci", metavar="COMMAND",
                          help='any UCI engine\'s command line instead of Fairy-Stockfish, e.g. "ftc uci"')
    parser.add_argument("--opponent-options", metavar="NAME=VALUE;...", default="",
                        help='UCI options for the opponent, e.g. "Use NNUE=false;Move Overhead=0"')
    parser.add_argument("--ini", type=Path, help="variants file with ftco, ftcf, ftcd (default tools/fairy-stockfish-ftc.ini)")
    parser.add_argument("--ours-eval", choices=("classical", "nnue"),
                        help="our engine's evaluation (default: engine/data/evaluation.toml's)")
    parser.add_argument("--ours-net", metavar="FILE", help="our engine's network file (implies nnue; default the shipped one)")
    parser.add_argument("--armies", choices=ARMIES, default="orthodox",
                        help="orthodox (the standard start, default) or random fairy Point-Buy armies")
    parser.add_argument("--budget", type=int, default=38, help="Point-Buy budget of each side with --armies fairy (default 38)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--movetime-ms", type=float, default=100.0, help="time per move for both sides (default 100)")
    parser.add_argument("--nodes", type=int, help="both sides search this many nodes per move instead of the move time "
                                                  "(a match that the machine's load cannot tilt: builds of our own engine "
                                                  "against each other; a depth option still wins for its side)")
    parser.add_argument("--opponent-depth", type=int, help="the opponent searches to this depth instead of the move time")
    parser.add_argument("--ours-depth", type=int, help="our engine searches to this depth instead of the move time (debugging)")
    parser.add_argument("--opponent-label",
                        help="short name of the opponent in the report and the plot (default fsf, or the first "
                             "word of the engine's name; ftc-uci for our own)")
    parser.add_argument("--ours-weights", metavar="TOML", help="evaluation weights for our engine (default engine/data/eval.toml)")
    parser.add_argument("--opening-plies", type=int, default=4, help="random orders before the engines play")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-plies", type=int, default=400, help="adjudicate a draw after this many orders")
    parser.add_argument("--hash", type=int, default=16, help="table size of both engines in MB (default 16)")
    parser.add_argument("--parallel", type=int, default=1, help="games played at a time, one process each (default 1)")
    parser.add_argument("--move-timeout", type=float, help="seconds the opponent may take for one move before it loses")
    parser.add_argument("--plot", metavar="PNG", help="running score with its 95%% interval (needs matplotlib)")
    parser.add_argument("--record", metavar="JSONL", type=Path, help="write every game's moves, one JSON line per game")
    add_sprt_options(parser, "ours over the opponent; --games is then the most games")
    parser.add_argument("--journal", metavar="FILE", type=Path,
                        help="keep every finished game in FILE and resume from the games it holds: a match "
                             "stopped (Ctrl-C, a crash, the session's end) goes on where it stopped; refused "
                             "when FILE is another match's (docs/sprt.md, \"Resuming a test\")")
    parser.add_argument("--json", metavar="FILE", type=Path,
                        help="write the match's result as JSON (with an \"sprt\" object under --sprt)")
    args = parser.parse_args(argv)

    for name in ("games", "movetime_ms", "max_plies", "hash", "budget", "parallel"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("opponent_depth", "ours_depth", "nodes"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.opening_plies < 0:
        parser.error("--opening-plies must be >= 0")
    sprt = None
    if args.sprt is None:
        for flag, value in (("--sprt-alpha", args.sprt_alpha), ("--sprt-beta", args.sprt_beta)):
            if value is not None:
                parser.error(f"{flag} {value:g}: needs --sprt ELO0,ELO1")
    elif args.games % 2:
        parser.error(f"--sprt plays games in pairs (colours swapped from one opening): --games {args.games} is odd")
    else:
        sprt = SPRT(*args.sprt, alpha=0.05 if args.sprt_alpha is None else args.sprt_alpha,
                    beta=0.05 if args.sprt_beta is None else args.sprt_beta, max_games=args.games)
    if args.ours_weights:
        from engine.board.evaluate import load_weights

        try:
            load_weights(args.ours_weights)
        except (OSError, ValueError) as exc:
            parser.error(f"--ours-weights: {exc}")
    if args.ours_eval == "classical" and args.ours_net:
        parser.error("--ours-net was given with --ours-eval classical (give --ours-eval nnue, or no --ours-net)")
    from engine.board.evaluate import choose_network

    try:
        choose_network(args.ours_eval, args.ours_net)
    except ValueError as exc:                 # nnue.NetFileError is one: a net file that does not fit
        parser.error(f"--ours-eval/--ours-net: {exc}")
    try:
        options = parse_options(args.opponent_options)
    except ValueError as exc:
        parser.error(f"--opponent-options: {exc}")
    if args.plot and not has_matplotlib():
        print("error: --plot needs matplotlib (pip install 'ftc-engine[plot]'); no game was played", file=sys.stderr)
        return 2
    if args.opponent_uci is not None:
        try:
            command = shlex.split(args.opponent_uci)
        except ValueError as exc:
            parser.error(f"--opponent-uci: {exc}")
        if not command:
            parser.error("--opponent-uci: empty command line")
        label = args.opponent_label           # None: from the engine's name (UciPlayer)
    else:
        fsf = args.fsf or DEFAULT_FSF
        resolved = find_engine(fsf)
        if resolved is None:
            print(how_to_get_fsf(fsf), file=sys.stderr)
            return 2
        command, label = [resolved], args.opponent_label or "fsf"
    ini = args.ini or (DEFAULT_INI if DEFAULT_INI.exists() else None)
    if ini is not None and not ini.is_file():
        print(f"error: variants file not found: {ini}", file=sys.stderr)
        return 2
    ffish = None
    if args.armies == "fairy":
        from tools.fairy_armies import ArmyError, load_pyffish

        if ini is None:
            print("error: --armies fairy needs the variants file (--ini)", file=sys.stderr)
            return 2
        try:
            ffish = load_pyffish(ini)
        except ArmyError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    ours = OurPlayer(args.movetime_ms, args.ours_depth, args.hash, args.ours_weights, args.ours_eval, args.ours_net,
                     nodes=args.nodes)
    try:
        theirs = UciPlayer(command, args.movetime_ms, args.opponent_depth, args.hash, ini.resolve() if ini else None,
                           args.move_timeout, short=label, options=options, nodes=args.nodes)
    except EngineFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    armies = (f"variant {VARIANT}" if args.armies == "orthodox" else
              f"random fairy Point-Buy armies of {args.budget} points (variants ftcf, ftcd)")
    at_a_time = f", {args.parallel} at a time" if args.parallel > 1 else ""
    print(f"{ours.name} vs {theirs.name}: {args.games} games{at_a_time}, {armies}, openings of {args.opening_plies} "
          f"random plies (seed {args.seed}), draw adjudicated at {args.max_plies} plies", flush=True)
    print(f"  {ours.short}: {ours.name}, our AlphaBeta in this process, evaluation {ours.evaluation}", flush=True)
    print(f"  {theirs.short}: {theirs.name}, {shlex.join(command)}, evaluation "
          f"{theirs.evaluation or 'not reported by the engine'}", flush=True)
    journal = None
    if args.journal is not None:
        games_args = {"seed": args.seed, "opening_plies": args.opening_plies, "max_plies": args.max_plies,
                      "armies": args.armies, "budget": args.budget if args.armies == "fairy" else None}
        try:
            journal = match_journal(args.journal, ours, theirs, games_args, sprt)
        except (JournalError, ValueError) as exc:      # CheckoutError is a ValueError: git cannot list engine/
            theirs.close()
            print(f"error: --journal {exc}", file=sys.stderr)
            return 2
    try:
        result, games = play_match(ours, theirs, args.games, args.seed, args.opening_plies, args.max_plies,
                                   report=lambda line: print(line, flush=True), record=args.record,
                                   armies=args.armies, budget=args.budget, ffish=ffish, parallel=args.parallel,
                                   sprt=sprt, journal=journal)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except JournalError as exc:       # a game of the journal that is not one
        print(f"error: --journal {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:       # WorkerError, ArmyError (no usable start position), no random opening
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        theirs.close()
    faults = Counter(g.reason.split(":")[0] for g in games if g.fault)
    print(result.details())
    print(result.summary())
    print(f"{ours.name}: {ours.stats.line()}")
    print(f"{theirs.name}: {theirs.stats.line()}")
    note = None if args.ours_depth or args.opponent_depth or args.nodes else time_note(ours.stats, theirs.stats)
    if note:
        print(note)
    if faults:
        print("games lost by a fault: " + "; ".join(f"{reason} x{n}" for reason, n in faults.items()))
    if sprt is not None:
        print(sprt.summary())
    if args.json:
        args.json.write_text(json.dumps(result.to_json() | ({} if sprt is None else {"sprt": sprt.to_json()})) + "\n",
                             encoding="utf-8")
        print(f"json: {args.json}")
    if args.plot:
        plot_match(result, args.plot)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
