"""`ftc uci`: the Universal Chess Interface for the board game (Point-Buy Chess, RULINGS C8).

Chess GUIs, match runners (cutechess-cli, python-chess) and engines written for UCI can drive the
alpha-beta search with every unit type. docs/uci.md is the user's reference; in short:

- commands: ``uci``, ``isready``, ``ucinewgame``, ``setoption``, ``position startpos|fen <text>
  [moves ...]``, ``go`` (``movetime depth nodes mate wtime btime winc binc movestogo infinite
  ponder``), ``stop``, ``ponderhit``, ``debug``, ``quit``;
- moves are order texts (RULINGS A4), which are UCI long algebraic notation for every base type:
  ``e2e4``, promotion ``e7e8q`` (any base type's letter: ``e7e8w`` is a Warlord), deploy ``N@e1``
  (Fairy-Stockfish's drop notation); an expansion type's token keeps its ``~`` (``~N@e1``,
  ``e7e8~b``). Input is case-insensitive in the unit letter; output is canonical;
- the search runs in a background thread, so ``stop``, ``isready`` and ``quit`` are served while
  it thinks; ``stop`` answers at once with the best order of the last finished iteration (or one the
  unfinished iteration proved better);
- bad input never ends the engine: it gets ``info string error: <what is wrong>`` and is ignored.

``UciEngine`` is the protocol as an object (``handle(line)``, output through a callback) and
``run(stdin, stdout)`` is the loop around it.
"""

from __future__ import annotations

import math
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import NAMED_POSITIONS, __version__
from engine.board.alphabeta import MATE, MAX_DEPTH, AlphaBeta
from engine.board.evaluate import choose_network, evaluation_name, evaluation_settings
from engine.board.timeman import TimeLimits, clock_limits, movetime_limits
from engine.interfaces.protocol import MAX_LINE_BYTES, read_line
from engine.position import Order, Position

__all__ = ["UciEngine", "GoLimits", "UciError", "parse_go", "plan_search", "parse_uci_move", "uci_score",
           "OPTIONS", "run", "MAX_DEPTH"]

ENGINE_NAME = "ftc-engine"
AUTHOR = "the ftc-engine authors"
ORTHODOX_PROMOTIONS = "NBRQ"       # UCI_Variant ftco / chess: the chess promotion types
VARIANTS = ("ftc", "ftco", "chess")


class UciError(ValueError):
    """A command that cannot be served; the message says what is wrong."""


@dataclass(frozen=True)
class Option:
    name: str
    type: str                      # spin, combo, check, string, button
    default: object = None
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def describe(self) -> str:
        text = f"option name {self.name} type {self.type}"
        if self.type == "button":
            return text
        text += f" default {str(self.default).lower() if self.type == 'check' else self.default}"
        if self.type == "spin":
            text += f" min {self.low} max {self.high}"
        for choice in self.choices:
            text += f" var {choice}"
        return text


#: EvalFile's value for the network shipped with the engine.
DEFAULT_EVAL_FILE = "<default>"

#: The options `uci` reports, in order (docs/uci.md describes each).
OPTIONS = (
    Option("Hash", "spin", 16, 1, 1024),
    Option("MultiPV", "spin", 1, 1, 256),
    Option("Move Overhead", "spin", 30, 0, 5000),
    Option("UCI_Variant", "combo", "ftc", choices=VARIANTS),
    Option("Clear Hash", "button"),
    # The board evaluation (docs/nnue.md): the learned network or the classical terms; EvalFile is
    # a network file, <default> the one shipped (engine/data/evaluation.toml names it).
    Option("Use NNUE", "check", None),             # None: evaluation.toml's default (read when a session starts)
    Option("EvalFile", "string", DEFAULT_EVAL_FILE),
)
_OPTION_BY_NAME = {option.name.lower(): option for option in OPTIONS}


# -- moves ------------------------------------------------------------------------------------------------
_DROP = re.compile(r"^(~?[A-Za-z])@([a-h][1-8])$")
_MOVE = re.compile(r"^([a-h][1-8])([a-h][1-8])(~?[A-Za-z])?$")
_CASTLING = {"e1g1", "e1c1", "e8g8", "e8c8"}


def parse_uci_move(position: Position, text: str) -> Order:
    """The legal order written ``text`` in UCI form (see the module text); UciError says why not."""
    drop, move = _DROP.match(text), _MOVE.match(text)
    if text == "0000":
        raise UciError("'0000' (a null move) is not an order: a turn cannot be passed in Point-Buy Chess")
    if drop:
        canonical = drop.group(1).upper() + "@" + drop.group(2)
    elif move:
        canonical = move.group(1) + move.group(2) + (move.group(3) or "").lower()
    else:
        raise UciError(f"{_quote(text)} is not a move (forms: e2e4, e7e8q, e7e8~b, N@e1, ~N@e1)")
    try:
        return position.parse_order(canonical)
    except ValueError as exc:
        hint = ""
        if canonical in _CASTLING and (position.unit_at(canonical[:2]) or ("",))[0] == "K":
            hint = " (there is no castling in For the Crown)"
        raise UciError(f"{exc}{hint}") from None


def _quote(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


# -- go ----------------------------------------------------------------------------------------------------
@dataclass
class GoLimits:
    """What a ``go`` command asked for (times in milliseconds)."""

    wtime: float | None = None
    btime: float | None = None
    winc: float = 0
    binc: float = 0
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: float | None = None
    infinite: bool = False
    ponder: bool = False
    ignored: list[str] = field(default_factory=list)   # parameters read but not used (searchmoves)


_GO_TIMES = ("wtime", "btime", "winc", "binc", "movetime")
_GO_COUNTS = {"movestogo": 0, "depth": 1, "nodes": 1, "mate": 1}   # name -> smallest value


def parse_go(tokens: list[str]) -> GoLimits:
    """``go`` parameters (the tokens after ``go``); UciError names a bad one."""
    limits = GoLimits()
    i = 0
    while i < len(tokens):
        name = tokens[i]
        if name in ("infinite", "ponder"):
            setattr(limits, name, True)
            i += 1
            continue
        if name == "searchmoves":
            j = i + 1
            while j < len(tokens) and (_MOVE.match(tokens[j]) or _DROP.match(tokens[j])):
                j += 1
            limits.ignored.append("searchmoves")
            i = j
            continue
        if name not in _GO_TIMES and name not in _GO_COUNTS:
            raise UciError(f"go: unknown parameter {_quote(name)} (known: wtime btime winc binc movestogo depth "
                           "nodes mate movetime infinite ponder searchmoves)")
        if i + 1 >= len(tokens):
            raise UciError(f"go: {name} needs a value")
        value = tokens[i + 1]
        if name in _GO_TIMES:
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not math.isfinite(number):
                raise UciError(f"go: {name} must be a number of milliseconds, got {_quote(value)}")
            if name == "movetime" and number <= 0:
                raise UciError(f"go: movetime must be positive, got {_quote(value)}")
            setattr(limits, name, number if name in ("wtime", "btime", "movetime") else max(0.0, number))
        else:
            if not re.fullmatch(r"[+]?\d{1,15}", value):
                raise UciError(f"go: {name} must be a whole number, got {_quote(value)}")
            number = int(value)
            if number < _GO_COUNTS[name]:
                raise UciError(f"go: {name} must be at least {_GO_COUNTS[name]}, got {number}")
            if name == "depth" and number > MAX_DEPTH:
                raise UciError(f"go: depth must be at most {MAX_DEPTH}, got {number}")
            setattr(limits, name, number if number or name != "movestogo" else None)
        i += 2
    return limits


@dataclass(frozen=True)
class SearchPlan:
    """Keyword arguments for AlphaBeta.search, and whether bestmove waits for stop/ponderhit."""

    depth: int | None
    nodes: int | None
    seconds: float | None
    soft_seconds: float | None
    wait_for_stop: bool


def plan_search(limits: GoLimits, side: str, overhead_ms: float) -> SearchPlan:
    """Turn ``go`` limits into search limits for the side to move ('w' or 'b'). ``infinite`` and
    ``ponder`` ignore the clock and wait for stop (ponderhit); ``movetime`` is a hard limit; a clock
    goes through the time manager (engine/board/timeman.py); ``mate N`` searches 2N plies. Without
    any limit the search deepens to the maximum depth (as `go` does in Stockfish)."""
    depth = limits.depth
    if limits.mate is not None:
        depth = min(depth or MAX_DEPTH, 2 * limits.mate, MAX_DEPTH)
    if limits.infinite or limits.ponder:
        return SearchPlan(depth or MAX_DEPTH, limits.nodes, None, None, True)
    timing = TimeLimits(None, None)
    clock = limits.wtime if side == "w" else limits.btime
    if limits.movetime is not None:
        timing = movetime_limits(limits.movetime, overhead_ms)
    elif clock is not None:
        timing = clock_limits(clock, limits.winc if side == "w" else limits.binc, limits.movestogo, overhead_ms)
    return SearchPlan(depth or MAX_DEPTH, limits.nodes, timing.hard, timing.soft, False)


def uci_score(score: int) -> str:
    """Centi-points as ``cp N``; a forced Sovereign capture as ``mate N`` (N moves of the side to
    move, negative when it is the one that loses)."""
    if abs(score) > MATE - 1000:
        plies = MATE - abs(score)
        moves = (plies + 1) // 2
        return f"mate {moves if score > 0 else -moves}"
    return f"cp {score}"


# -- the engine --------------------------------------------------------------------------------------------
class UciEngine:
    """The UCI protocol as an object. ``handle(line)`` serves one command; output lines go to
    ``send`` (from the calling thread or from the search thread, never interleaved)."""

    def __init__(self, send: Callable[[str], None]):
        self._send_raw = send
        self._lock = threading.Lock()
        self.options = {option.name: option.default for option in OPTIONS if option.type != "button"}
        try:
            self.options["Use NNUE"] = evaluation_settings()["default"] == "nnue"
        except ValueError as exc:                   # a bad FTC_EVAL or evaluation.toml: say so, play on
            self.options["Use NNUE"] = False
            self._settings_error = str(exc)
        else:
            self._settings_error = None
        self._last_position: tuple[str, list[str]] | None = (NAMED_POSITIONS["startpos"], [])
        self.position: Position | None = self._load(*self._last_position)
        self.finished = False
        self.debug = False
        self._searcher = None
        self._searcher_hash = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._plan_waits = False                     # the running search waits for stop (infinite, ponder)
        self._depth_done = threading.Event()         # the running search has finished an iteration

    # -- output ----------------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self._lock:
            self._send_raw(line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {' '.join(message.split())}")

    # -- input -----------------------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        """Serve one input line. Never raises for bad input: it is reported as an info string."""
        tokens = line.split()
        if not tokens:
            return                                   # blank lines are ignored, as UCI GUIs expect
        command, args = tokens[0], tokens[1:]
        handler = getattr(self, f"_cmd_{command}", None) if command.isidentifier() else None
        if handler is None:
            self.error(f"unknown command {_quote(command)} (commands: uci isready ucinewgame setoption position go "
                       "stop ponderhit debug quit)")
            return
        try:
            handler(args)
        except UciError as exc:
            self.error(str(exc))
        except Exception as exc:  # noqa: BLE001 - the engine must survive any command
            self.error(f"internal error ({type(exc).__name__}): {exc}")

    @property
    def searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a running search to answer; True when none is running any more."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def close(self, finish_search: bool = False) -> None:
        """End of the session: stop a running search (or, with ``finish_search``, let a search with
        limits finish; an infinite or pondering one is stopped all the same), then wait for it."""
        if self.searching and not (finish_search and not self._plan_waits):
            self._request_stop()
        self.wait()

    # -- commands ----------------------------------------------------------------------------------------
    def _cmd_uci(self, args) -> None:
        self.send(f"id name {ENGINE_NAME} {__version__}")
        self.send(f"id author {AUTHOR}")
        for option in OPTIONS:
            self.send(option.describe() if option.default is not None or option.type == "button" else
                      Option(option.name, option.type, self.options[option.name]).describe())
        if self._settings_error:
            self.error(f"evaluation: {self._settings_error}")
        evaluation, net = self._evaluation(self.options)
        try:
            self.send(f"info string evaluation {evaluation_name(choose_network(evaluation, net if evaluation == 'nnue' else None))}")
        except ValueError as exc:             # the default net is missing or does not fit: say so
            self.error(f"evaluation: {exc}")
        self.send("uciok")

    def _cmd_isready(self, args) -> None:
        if not self.searching:
            self._get_searcher()                      # allocate the table now, not at the first go
        self.send("readyok")

    def _cmd_debug(self, args) -> None:
        if args not in (["on"], ["off"]):
            raise UciError("debug: expected 'debug on' or 'debug off'")
        self.debug = args == ["on"]

    def _cmd_register(self, args) -> None:
        pass                                          # no registration needed

    def _cmd_quit(self, args) -> None:
        self.finished = True
        self.close()

    def _cmd_stop(self, args) -> None:
        if self.searching:
            self._request_stop()

    def _cmd_ponderhit(self, args) -> None:
        # Pondering is not a real mode here: the search started by `go ponder` ran without a clock,
        # and ponderhit ends it at once, playing what it found on the opponent's time.
        if self.searching:
            self._request_stop()

    def _cmd_ucinewgame(self, args) -> None:
        self._finish_search("ucinewgame")
        self.position = self._load(NAMED_POSITIONS["startpos"], [])
        if self._searcher is not None:
            self._searcher.new_game()

    def _cmd_setoption(self, args) -> None:
        self._finish_search("setoption")
        if not args or args[0].lower() != "name":
            raise UciError("setoption: expected 'setoption name <id> [value <x>]'")
        lowered = [a.lower() for a in args]
        cut = lowered.index("value") if "value" in lowered[1:] else len(args)
        name = " ".join(args[1:cut])
        value = " ".join(args[cut + 1:]) if cut < len(args) else None
        option = _OPTION_BY_NAME.get(name.lower())
        if option is None:
            raise UciError(f"setoption: unknown option {_quote(name)} (options: "
                           + ", ".join(o.name for o in OPTIONS) + ")")
        if option.type == "button":
            if option.name == "Clear Hash" and self._searcher is not None:
                self._searcher.new_game()
            return
        if value is None or value == "":
            raise UciError(f"setoption: {option.name} needs a value")
        if option.type == "check":
            if value.lower() not in ("true", "false"):
                raise UciError(f"setoption: {option.name} must be true or false, got {_quote(value)}")
            self._set_evaluation(option.name, value.lower() == "true")
        elif option.type == "string":
            self._set_evaluation(option.name, value)
        elif option.type == "spin":
            if not re.fullmatch(r"[+-]?\d{1,15}", value):
                raise UciError(f"setoption: {option.name} must be a whole number, got {_quote(value)}")
            number = int(value)
            if not option.low <= number <= option.high:
                raise UciError(f"setoption: {option.name} must be {option.low}..{option.high}, got {number}")
            self.options[option.name] = number
        else:
            choice = next((c for c in option.choices if c.lower() == value.lower()), None)
            if choice is None:
                raise UciError(f"setoption: {option.name} must be one of {', '.join(option.choices)}, got {_quote(value)}")
            if choice != self.options[option.name]:
                self.options[option.name] = choice
                # The variant decides the default promotion types: re-read the current position.
                if self._last_position is not None:
                    try:
                        self.position = self._load(*self._last_position)
                    except UciError:
                        self.position = None

    def _cmd_position(self, args) -> None:
        # A failed `position` leaves no position: a `go` then reports the error instead of
        # searching a position the GUI did not mean.
        self.position = None
        self._last_position = None
        if not args:
            raise UciError("position: expected 'position startpos [moves ...]' or 'position fen <text> [moves ...]'")
        lowered = [a.lower() for a in args]
        cut = lowered.index("moves") if "moves" in lowered else len(args)
        moves = args[cut + 1:]
        if args[0].lower() == "startpos":
            if cut != 1:
                raise UciError(f"position: unexpected {_quote(args[1])} after startpos (expected 'moves')")
            text = NAMED_POSITIONS["startpos"]
        elif args[0].lower() == "fen":
            if cut == 1:
                raise UciError("position fen: the position text is missing")
            text = " ".join(args[1:cut])
            text = NAMED_POSITIONS.get(text, text)
        else:
            raise UciError(f"position: expected 'startpos' or 'fen', got {_quote(args[0])}")
        self.position = self._load(text, moves)
        self._last_position = (text, moves)

    def _cmd_go(self, args) -> None:
        self._finish_search("go")
        try:
            limits = parse_go(args)
            if self.position is None:
                raise UciError("go: no valid position (the last 'position' command failed); answering bestmove 0000")
        except UciError as exc:
            self.error(str(exc))
            self.send("bestmove 0000")               # a GUI waiting for bestmove is never left hanging
            return
        if limits.ignored:
            self.send(f"info string {', '.join(limits.ignored)} is not supported: every order is searched")
        plan = plan_search(limits, self.position.turn, self.options["Move Overhead"])
        if self.debug:
            self.send(f"info string plan depth {plan.depth} nodes {plan.nodes} hard {plan.seconds} "
                      f"soft {plan.soft_seconds} wait {plan.wait_for_stop}")
        searcher = self._get_searcher()
        position = self.position.copy()              # keeps the game so far: repetitions are draws
        self._stop.clear()
        self._depth_done.clear()
        self._plan_waits = plan.wait_for_stop
        self._thread = threading.Thread(target=self._search, args=(searcher, position, plan),
                                        name="uci-search", daemon=True)
        self._thread.start()

    # -- helpers -------------------------------------------------------------------------------------------
    def _finish_search(self, command: str) -> None:
        """Commands that need the searcher wait for a search with limits to end (a script may
        send them right after `go`); during an infinite or pondering search they are refused."""
        if self.searching:
            if self._plan_waits and not self._stop.is_set():
                raise UciError(f"{command}: ignored while an infinite search is running (send stop first)")
            self.wait()

    def _load(self, text: str, moves: list[str]) -> Position:
        orthodox = self.options["UCI_Variant"] != "ftc" and "promote:" not in text
        try:
            position = Position.from_text(text, promote=ORTHODOX_PROMOTIONS if orthodox else None)
        except ValueError as exc:
            raise UciError(f"position: {exc}") from None
        for index, move in enumerate(moves, 1):
            try:
                position.push(parse_uci_move(position, move))
            except UciError as exc:
                raise UciError(f"position: move {index} {_quote(move)}: {exc}") from None
        return position

    def _evaluation(self, options: dict) -> tuple[str, str | None]:
        """(evaluation, net file or None) of the options "Use NNUE" and "EvalFile"."""
        net = options["EvalFile"]
        return ("nnue" if options["Use NNUE"] else "classical"), (None if net == DEFAULT_EVAL_FILE else net)

    def _set_evaluation(self, name: str, value) -> None:
        """Set "Use NNUE" or "EvalFile" after checking that the evaluation they choose loads (a net
        file that does not fit is refused with the reason, and nothing changes); says which one."""
        chosen = dict(self.options, **{name: value})
        evaluation, net = self._evaluation(chosen)
        try:
            network = choose_network(evaluation, net if evaluation == "nnue" else None)
        except ValueError as exc:                  # NetFileError too: it names the file and the reason
            raise UciError(f"setoption: {name}: {exc}") from None
        self.options[name] = value
        self._searcher = None
        self.send(f"info string evaluation {evaluation_name(network)}")

    def _get_searcher(self):
        if self._searcher is None or self._searcher_hash != self.options["Hash"]:
            evaluation, net = self._evaluation(self.options)
            self._searcher = AlphaBeta(tt_megabytes=self.options["Hash"], evaluation=evaluation,
                                       net=net if evaluation == "nnue" else None)
            self._searcher_hash = self.options["Hash"]
        return self._searcher

    def _request_stop(self) -> None:
        # The search is told to stop only once its first iteration has finished (the progress
        # callback passes the stop on otherwise): a stop inside depth 1 would leave no order to
        # play. Both sides write their flag before reading the other's, so neither stop is lost.
        self._stop.set()
        searcher = self._searcher
        if searcher is not None and self._depth_done.is_set():
            searcher.stop()

    def _search(self, searcher, position: Position, plan: SearchPlan) -> None:
        """The search thread: info after every depth, then bestmove (after stop, for infinite)."""
        multipv = self.options["MultiPV"]

        def progress(info: dict) -> None:
            self._depth_done.set()
            if self._stop.is_set():
                searcher.stop()            # a stop that came during the first iteration
            self.send(_info_line(info, 1 if multipv > 1 else None))

        result = None
        try:
            result = searcher.search(position, depth=plan.depth, seconds=plan.seconds, nodes=plan.nodes,
                                     top=multipv, progress=progress, soft_seconds=plan.soft_seconds)
        except Exception as exc:  # noqa: BLE001 - report, and still answer a legal bestmove
            self.error(f"search failed ({type(exc).__name__}): {exc}")
        best = result.best if result is not None else None
        if best is None and (result is None or position.count_orders()):
            best = self._fallback(searcher, position)
        elif best is None:
            lost = _sovereign_missing(position)
            self.send(f"info depth 0 score {'mate 0' if lost else 'cp 0'}")
        if plan.wait_for_stop:
            self._stop.wait()
        if result is not None and multipv > 1 and len(result.lines) > 1:
            millis = int(result.seconds * 1000)
            for rank, line in enumerate(result.lines, 1):
                self.send(f"info depth {result.depth} seldepth {result.seldepth} multipv {rank} "
                          f"score {uci_score(line.score)} nodes {result.nodes} nps {int(result.nps)} "
                          f"time {millis} pv {' '.join(line.pv)}")
        self.send(f"bestmove {best.text() if best is not None else '0000'}")

    def _fallback(self, searcher, position: Position) -> Order | None:
        """A legal order when the search failed: a depth-1 search, else the first legal order."""
        try:
            result = searcher.search(position, depth=1)
            if result.best is not None:
                return result.best
        except Exception as exc:  # noqa: BLE001
            self.error(f"depth-1 search failed ({type(exc).__name__}): {exc}")
        orders = position.legal_orders()
        return orders[0] if orders else None


def _info_line(info: dict, multipv: int | None) -> str:
    seconds = max(float(info.get("seconds", 0.0)), 0.0)
    nps = int(info["nodes"] / seconds) if seconds > 0 else 0
    rank = f" multipv {multipv}" if multipv else ""
    return (f"info depth {info['depth']} seldepth {info['seldepth']}{rank} score {uci_score(info['score'])} "
            f"nodes {info['nodes']} nps {nps} time {int(seconds * 1000)} pv {' '.join(info['pv'])}")


def _sovereign_missing(position: Position) -> bool:
    """Whether the side to move has lost its Sovereigns (the game is lost, RULINGS C2)."""
    side = position.turn
    for square in range(64):
        unit = position.unit_at(square)
        if unit and unit[1] == side and position.catalog.by_token[unit[0]].is_sovereign:
            return False
    return True


# -- the stdio loop ----------------------------------------------------------------------------------------
def run(stdin, stdout, engine: UciEngine | None = None) -> int:
    """Serve UCI commands from ``stdin`` until ``quit`` or the end of the input; returns 0.

    At the end of the input a search with limits is allowed to finish (so a script may pipe
    ``position ...`` and ``go depth 6`` in), an infinite one is stopped."""
    source = getattr(stdin, "buffer", stdin)
    sink = stdout
    closed = threading.Event()

    def write(line: str) -> None:
        if closed.is_set():
            return
        try:
            sink.write(line + "\n")
            sink.flush()
        except (BrokenPipeError, OSError, ValueError):   # the GUI went away
            closed.set()

    engine = engine or UciEngine(write)
    redirected = stdout is sys.stdout
    if redirected:
        sys.stdout = sys.stderr            # only protocol lines go to the protocol stream
    try:
        while not engine.finished and not closed.is_set():
            line, too_long = read_line(source)
            if line is None:
                engine.close(finish_search=True)
                break
            if too_long:
                engine.error(f"line longer than {MAX_LINE_BYTES} bytes: ignored")
                continue
            if isinstance(line, (bytes, bytearray)):
                try:
                    line = bytes(line).decode("utf-8")
                except UnicodeDecodeError as exc:
                    engine.error(f"line is not valid UTF-8 (byte {exc.start + 1}): ignored")
                    continue
            engine.handle(line)
    except KeyboardInterrupt:
        engine.close()
    finally:
        engine.close()
        if redirected:
            sys.stdout = sink
    return 0
