"""Crusade & Conquer's alpha-beta: the board search of engine/board/alphabeta.py (its node loop in
ext/_search.pyx, run with chess legality: RULINGS H8's checkmate, stalemate, X win and automated
draws) on CrusadePosition, with this game's evaluation weights (engine/data/crusade_eval.toml) and
move texts; the "alphabeta" player; `ftc analyze --game crusade "<position text>"`.

Bot specs (engine/games/bots.py's budget grammar, as For the Crown's): "alphabeta" (depth 4),
"alphabeta:N" (N plies), "alphabeta:Ss" (S seconds per move, e.g. "alphabeta:0.1s").

>>> from engine.board.alphabeta import format_score
>>> search = CrusadeSearch()
>>> result = search.search(CrusadePosition.from_text("3k4/5F2/8/8/8/8/8/4K3 w - 0 1"), depth=2)
>>> result.best.text(), format_score(result.score)
('f7e8', 'mate in 1')
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from engine.board.alphabeta import AlphaBeta, SearchResult
from engine.board.analysis import format_position_analysis
from engine.board.evaluate import EvalWeights, load_weights
from engine.catalog import Catalog, crusade_catalog
from engine.crusade.commands import parse_position
from engine.crusade.position import CrusadePosition
from engine.crusade.state import SEATS
from engine.games.bots import Bot, parse_count, parse_seconds
from engine.games.registry import ReviewScale
from engine.search.ismcts import SearchStats

__all__ = ["WEIGHTS_FILE", "crusade_weights", "Move", "CrusadeSearch", "AlphaBetaBot", "alphabeta_bot",
           "position_of", "stopped_by", "analyze_text", "format_analysis", "ANALYSIS_OPTIONS", "STOP_POLL", "DEFAULT_DEPTH", "REVIEW_SCALE", "review"]

#: The evaluation weights of this game, in engine/data (docs/crusade.md "Evaluation").
WEIGHTS_FILE = "crusade_eval.toml"
#: The depth of "alphabeta" without a budget, and of `ftc analyze` without --depth or --time.
DEFAULT_DEPTH = 4
#: `ftc analyze --game crusade`'s own options (besides --time and --top).
ANALYSIS_OPTIONS = ("depth",)
#: How often (seconds) a search given a stop signal looks at it: the kernel then ends within a node.
STOP_POLL = 0.02


@functools.cache
def crusade_weights() -> EvalWeights:
    """The weights of engine/data/crusade_eval.toml, read once."""
    return load_weights(resource=WEIGHTS_FILE)


@dataclass(frozen=True)
class Move:
    """A move the search names: its kernel code and its move text (``e2e4``, ``e7e8=Q``)."""

    code: int
    move_text: str

    def text(self) -> str:
        return self.move_text

    def __str__(self) -> str:
        return self.move_text


class CrusadeSearch(AlphaBeta):
    """Iterative-deepening alpha-beta on Crusade & Conquer positions (``search(position, depth=...,
    seconds=..., nodes=..., top=..., orders=...)`` as AlphaBeta's; the result's moves are ``Move``s).
    The evaluation is the classical one with this game's weights (no network is trained for it)."""

    def __init__(self, catalog: Catalog | None = None, weights: EvalWeights | None = None, tt_megabytes: int = 16):
        super().__init__(catalog or crusade_catalog(), weights or crusade_weights(), tt_megabytes,
                         evaluation="classical")
        self._namer = CrusadePosition(self.catalog)

    def _root_codes(self, position: CrusadePosition, cylindrical: bool) -> list[int]:
        return position.legal_orders()

    def _history_keys(self, position: CrusadePosition) -> list[int]:
        return position.core.history_keys()

    def _move(self, code: int) -> Move:
        return Move(code, self._text(code))

    def _text(self, code: int) -> str:
        return self._namer.order_text(code)


def position_of(state) -> CrusadePosition:
    """The state's position with the game's earlier positions behind it (its start, then each move
    pushed), so that the search scores a return to one of them as a draw (H8c)."""
    position = CrusadePosition.from_text(state.start, state.pos.catalog)
    for code in state.history:
        position.core.push(code)
    return position


class AlphaBetaBot(Bot):
    """Crusade & Conquer's search as a player: the best move within its budget (plies, seconds or
    nodes), never longer than ``choose_within``'s seconds; ``search_within`` answers a hint."""

    name = "alphabeta"

    def __init__(self, depth: int | None = DEFAULT_DEPTH, seconds: float | None = None, nodes: int | None = None):
        self.depth, self.seconds, self.nodes = depth, seconds, nodes
        self.search = CrusadeSearch()

    def reset(self) -> None:
        self.search.new_game()

    def choose(self, state) -> int:
        return self._search(state, self.seconds)[0]

    def choose_within(self, state, seconds: float) -> int:
        return self._search(state, self._capped(seconds))[0]

    def search_within(self, state, seconds: float) -> SearchStats:
        """The search's answer within ``seconds`` (its own budget when that is smaller), as the web
        server's hints read it (engine/interfaces/server/ai.py ``hint_for``): the best move,
        ``source`` "alphabeta", ``iterations`` the nodes searched (no visit shares: an alpha-beta
        has no visits, so no alternatives)."""
        best, result = self._search(state, self._capped(seconds))
        text = state.action_text(best)
        return SearchStats(player=state.current_player(), best=best, best_text=text, visits={}, values={},
                           texts={best: text}, iterations=result.nodes if result else 0,
                           seconds=result.seconds if result else 0.0, source="alphabeta")

    def _capped(self, seconds: float) -> float:
        cap = max(seconds, 0.01)
        return min(self.seconds, cap) if self.seconds else cap

    def _search(self, state, seconds: float | None) -> tuple[int, SearchResult | None]:
        """The move and the search's result (None: the only legal move, not searched)."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0], None
        # A depth player searches to its depth (within ``seconds`` when capped); a time player
        # (depth None) as deep as its seconds allow.
        result = self.search.search(position_of(state), depth=self.depth, seconds=seconds, nodes=self.nodes,
                                    orders=legal)
        if result.best is not None and result.best.code in legal:
            return result.best.code, result
        return legal[0], result


def alphabeta_bot(arg: str) -> AlphaBetaBot:
    """The player of the spec "alphabeta[:<arg>]": "" (depth DEFAULT_DEPTH), "N" (plies) or "Ss"
    (seconds per move); a ValueError on anything else."""
    if arg.endswith("s"):
        return AlphaBetaBot(depth=None, seconds=parse_seconds(arg))
    return AlphaBetaBot(depth=parse_count(arg, DEFAULT_DEPTH))


@contextlib.contextmanager
def stopped_by(stop: threading.Event | None, searcher: CrusadeSearch) -> Iterator[None]:
    """While the block runs, a search of ``searcher`` in it ends soon after ``stop`` is set (within
    STOP_POLL seconds and a node: a watcher thread calls ``AlphaBeta.stop``, which the kernel reads at
    every node, and calls it again while the block runs, so a stop set before the search began, which
    its start clears, still lands). Nothing without ``stop``."""
    if stop is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(STOP_POLL):
            if stop.is_set():
                searcher.stop()

    watcher = threading.Thread(target=watch, name="crusade-stop", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


def analyze_text(text: str | CrusadePosition, options: dict, progress,
                 stop: threading.Event | None = None) -> dict:
    """`ftc analyze --game crusade "<position text>"`: the best ``top`` moves by alpha-beta (to
    ``depth`` plies or for ``seconds``; neither: DEFAULT_DEPTH), one ``progress`` line per finished
    depth. ``stop``: once set, the search ends at once with what it has (``stopped_by``). A position
    where the game is over (H8) is reported as such. A bad text is a ValueError naming the field
    (engine/crusade/commands.py parse_position)."""
    position = text if isinstance(text, CrusadePosition) else parse_position(text)
    depth, seconds = options.get("depth"), options.get("seconds")
    if depth is None and seconds is None:
        depth = DEFAULT_DEPTH
    status = position.status()
    report: dict = {"position": position.text(), "side": "wb"[position.side]}
    if status != "play":
        mover, to_move = SEATS[1 - position.side], SEATS[position.side]
        report["over"] = {"x-win": f"{mover}'s Flag Bearer is on the X: {mover} has won",
                          "checkmate": f"{to_move} is checkmated: {mover} has won",
                          "stalemate": f"{to_move} has no legal move and is not in check: a draw"}[status]
        report["lines"] = []
        return report
    searcher = CrusadeSearch()

    def lines(info: dict) -> None:
        progress(f"depth {info['depth']:>2}  {info['score_text']:>10}  nodes {info['nodes']:>10,}  "
                 f"{info['seconds']:6.2f}s  pv {' '.join(info['pv'])}")

    with stopped_by(stop, searcher):
        result: SearchResult = searcher.search(position, depth=depth, seconds=seconds, top=options.get("top") or 3,
                                               progress=lines)
    report.update(result.to_json())
    report["complete"] = result.complete
    report["evaluation"] = "classical"
    return report


def analyze(state, iterations, seconds, top, seed, processes, progress=None, depth: int | None = None,
            stop: threading.Event | None = None) -> dict:
    """The protocol's ``analyze`` of a game state (registry ``Game.analysis.analyze``): ``analyze_text``'s report
    of the state's position, the game's earlier positions counted for repetitions. ``depth`` plies
    (`ftc analyze RECORD --depth`) or ``seconds`` bound the search, neither: DEFAULT_DEPTH plies;
    ``iterations``, ``seed`` and ``processes`` are the budget of the other games' tree search and do
    not apply to the alpha-beta (it is deterministic). ``stop`` (registry ``Analysis.stoppable``: the
    record board's Stop) ends the search early."""
    position = position_of(state)
    return analyze_text(position, {"seconds": seconds, "top": top, "depth": depth}, lambda _line: None, stop)


#: `ftc review`'s scale of this game: centi-points of the alpha-beta (a Pawn is 100), for the side
#: deciding. Half a Pawn lost is an inaccuracy, a Pawn a mistake, three (a Knight's or Bishop's
#: price, engine/data/crusade_units.toml) a blunder: the centipawn bounds chess reviews used.
REVIEW_SCALE = ReviewScale("centi-points", 50, 100, 300, digits=0,
                           why="half a Pawn, a Pawn, a minor piece (a Pawn is 100 centi-points)")
#: A forced result (a mate or an X win within the horizon) counts as this many centi-points, so that
#: a move that walks into one loses far more than any blunder's threshold, and no more.
REVIEW_CAP = 10_000


def _capped(score: int) -> int:
    return max(-REVIEW_CAP, min(REVIEW_CAP, score))


def review(state, played: int, settings: dict) -> dict:
    """One decision of `ftc review` (registry ``Analysis.review``): the alpha-beta's best move to
    ``settings["depth"]`` plies (DEFAULT_DEPTH without depth or seconds) with its score and line, and
    the played move's score by the same search of that move alone (fresh tables each, so a review is
    the same on any worker). Scores in centi-points for the side to move, capped at REVIEW_CAP."""
    depth, seconds = settings.get("depth"), settings.get("seconds")
    if depth is None and seconds is None:
        depth = DEFAULT_DEPTH
    position = position_of(state)
    legal = state.legal_actions()
    result = CrusadeSearch().search(position, depth=depth, seconds=seconds, orders=legal)
    best = result.best.code
    line = result.lines[0].pv if result.lines else [result.best.text()]
    found = {"best": result.best.text(), "best_action": best, "value": _capped(result.score), "line": line,
             "searched": f"alpha-beta depth {result.depth}"}
    if played == best:
        found["played_value"] = found["value"]
    else:
        alone = CrusadeSearch().search(position_of(state), depth=depth, seconds=seconds, orders=[played])
        found["played_value"] = _capped(alone.score)
        found["searched"] += f"; the played move alone to depth {alone.depth}"
    return found


def format_analysis(report: dict) -> str:
    """``analyze_text``'s report as text for people."""
    if report.get("over"):
        return f"position: {report['position']}\nthe game is over: {report['over']}"
    return format_position_analysis(report)
