"""For the Crown's parts of the commands that every game offers (`ftc perft`, `ftc analyze`), given to
the command line through the game's registry entry (engine/crown/entry.py: ``perft_run``,
``open_file``, ``analyze_text``, ``format_analysis``, ``plot_record``, ``walk``), so that the command
line never tells the games apart.

- perft counts the board game (Point-Buy Chess turns, engine/perft.py): depth >= 2 root order by root
  order in worker threads, or on a cluster (engine/execution.py) as units;
- the files it reads are game records (replayed) and position views (what one player may know, the
  rest sampled: engine/crown/knowledge.py);
- a position text is analysed by the board search (alpha-beta, engine/board/analysis.py), a game
  state by the turn planner (ISMCTS).
"""

from __future__ import annotations

import signal
import time

from engine import NAMED_POSITIONS
from engine.board.alphabeta import AlphaBeta
from engine.board.analysis import analyze_position, format_position_analysis
from engine.catalog import default_catalog
from engine.crown import actions as A
from engine.crown.analysis import evaluation_history, format_game_analysis, plot_evaluation
from engine.crown.config import GameConfig
from engine.crown.core import PLAYER_NAMES
from engine.crown.knowledge import FORMAT as VIEW_FORMAT
from engine.crown.knowledge import load_view
from engine.crown.record import FORMAT as RECORD_FORMAT
from engine.crown.state import GameState, replay
from engine.execution import session
from engine.notation import parse_promote_tokens
from engine.perft import PerftStopped, as_position, divide, divide_on_cluster, raise_on_signals

__all__ = ["PERFT_OPTIONS", "ANALYSIS_OPTIONS", "board_position", "perft_run", "open_file", "walk",
           "analyze_text", "format_analysis", "plot_record"]

#: `ftc perft`'s options of the board game: --promote, --cylindrical, --threads, --cluster, --workers.
PERFT_OPTIONS = ("promote", "cylindrical", "threads", "cluster", "workers")
#: `ftc analyze`'s own options: --depth, --promote, --eval and --net (a position text), --plot (a record).
ANALYSIS_OPTIONS = ("depth", "promote", "plot", "eval", "net")


def board_position(text: str, promote: str | None = None):
    """The board of a position text or name (engine.NAMED_POSITIONS) with ``promote`` (unit tokens
    such as NBRQ, "-" for none) applied; a bad ``promote`` is named as the --promote option."""
    if promote is not None:
        try:
            if promote not in ("", "-"):
                parse_promote_tokens(promote.upper(), default_catalog())
        except ValueError as exc:
            raise ValueError(f"--promote {promote!r}: expected unit tokens such as NBRQ, or - for none "
                             f"({str(exc).split(': ')[-1]})") from None
    return as_position(NAMED_POSITIONS.get(text, text), promote)


def perft_run(text: str, depth: int, divided: bool, options: dict, progress, control) -> tuple[dict | None, int, float]:
    """`ftc perft` of the board game: ({root order: count} or None, total, seconds the count took).
    With ``cluster`` or ``workers`` (and not one local worker) the root orders are units on other
    processes or Ray (engine.perft.divide_on_cluster; the connection is not timed); else depth >= 2
    or ``divided`` counts root order by root order in ``threads`` threads, a shallower count at once.
    ``control`` stops it (PerftStopped)."""
    position = board_position(text, options.get("promote"))
    cylindrical = options.get("cylindrical", False)
    cluster, workers = options.get("cluster"), options.get("workers")
    start = time.perf_counter()
    if (cluster is not None or workers is not None) and depth >= 1 and not ((cluster or "local") == "local"
                                                                          and workers == 1):
        counts = None
        try:
            # Connected first: Ray installs a SIGTERM handler of its own as it connects.
            with session(cluster or "local", workers) as connected, raise_on_signals(control):
                start = time.perf_counter()
                counts = divide_on_cluster(position, depth, cylindrical, cluster=connected, workers=workers,
                                           progress=progress, control=control)
        except KeyboardInterrupt:       # a signal just before or after the units ran
            raise PerftStopped(0, control.reason or signal.SIGINT, counts or {}) from None
        return counts, sum(counts.values()), time.perf_counter() - start
    if divided or depth >= 2:
        counts = divide(position, depth, cylindrical, progress=progress, threads=options.get("threads", 1),
                        control=control)
        return counts, sum(counts.values()), time.perf_counter() - start
    return None, position.perft(depth, cylindrical, control), time.perf_counter() - start


def open_file(doc) -> tuple[GameState, str, str | None] | None:
    """A game record (replayed: "record") or a position view (loaded: "position view", with a note
    saying whose view it is); None when ``doc`` is neither. RecordError / ViewError (ValueErrors)
    name what is wrong."""
    kind = doc.get("format") if isinstance(doc, dict) else None
    if kind == VIEW_FORMAT:
        state = load_view(doc)
        return state, "position view", (f"position view from {PLAYER_NAMES[doc['seat']]}'s seat (the opponent's "
                                         "hidden cards are sampled)")
    if kind == RECORD_FORMAT:
        return replay(doc), "record", None
    return None


def walk(record: dict) -> tuple[GameState, list, int]:
    """(a fresh state of the record's set-up, chance not automatic; its steps; the resign code)."""
    return GameState(GameConfig.from_dict(record["config"]), auto_chance=False), record["steps"], A.RESIGN


def analyze_text(text: str, options: dict, progress) -> dict:
    """The best ``top`` orders of a board position text (alpha-beta, to ``depth`` plies or for
    ``seconds``; ``promote`` as perft's; the evaluation ``eval`` "classical" or "nnue" with the
    network file ``net``, else the default): one ``progress`` line per finished depth, after one
    naming the evaluation."""
    position = board_position(text, options.get("promote"))
    searcher = AlphaBeta(evaluation=options.get("eval"), net=options.get("net"))
    progress(f"evaluation {searcher.evaluation}")

    def lines(info: dict) -> None:
        progress(f"depth {info['depth']:>2}  {info['score_text']:>10}  nodes {info['nodes']:>10,}  "
                 f"{info['seconds']:6.2f}s  pv {' '.join(info['pv'])}")

    report = analyze_position(position, depth=options.get("depth"), seconds=options.get("seconds"),
                              top=options.get("top", 3), progress=lines, searcher=searcher)
    report["evaluation"] = searcher.evaluation
    return report


def format_analysis(report: dict) -> str:
    """A report of ``analyze_text`` (a board position: "lines") or of the turn planner, as text."""
    return format_position_analysis(report) if "lines" in report else format_game_analysis(report)


def plot_record(record: dict, path: str, title: str) -> None:
    """The board evaluation over a recorded game, as a plot (``path``)."""
    plot_evaluation(evaluation_history(record), path, title)

