"""Alpha-beta search for board positions (the perft tree of RULINGS C8, i.e. Point-Buy Chess): the
board search of every game on the board kernel (UCI, For the Crown's expert and turn planner,
Crusade & Conquer's search).

The node loop, transposition table, move ordering, quiescence and evaluation run in C
(ext/_search.pyx: profiling a Python node loop showed it spent over 95% of its time in the
interpreter, so the loop itself was moved into Cython). This module drives iterative deepening,
time / depth / node limits, multi-PV, principal variations and progress reporting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine import _search
from engine.board.evaluate import EvalWeights, choose_network, default_weights
from engine.catalog import Catalog, default_catalog
from engine.position import Order, Position, order_text

__all__ = ["AlphaBeta", "SearchResult", "Line", "MATE", "format_score", "DEFAULT_DEPTH"]

MATE = _search.MATE_SCORE    # a Sovereign-loss score: mate in n plies is +-(MATE - n) (ext/_search.pxd)
INF = _search.INF_SCORE
MAX_DEPTH = 60
DEFAULT_DEPTH = 4
ASPIRATION = 30          # centi-points either side of the previous score (depth >= 4)


def format_score(score: int) -> str:
    """Centi-points as '+1.25', or a forced Sovereign capture as 'mate in N' (N orders of the
    winning side) / '-mate in N'."""
    if abs(score) > MATE - 1000:
        plies = MATE - abs(score)
        orders = (plies + 1) // 2
        return f"{'' if score > 0 else '-'}mate in {orders}"
    return f"{score / 100:+.2f}"


@dataclass
class Line:
    order: str
    score: int
    pv: list[str]

    def to_json(self) -> dict:
        return {"order": self.order, "score": self.score, "score_text": format_score(self.score), "pv": self.pv}


@dataclass
class SearchResult:
    best: Order | None
    score: int
    lines: list[Line]
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    complete: bool                   # the last iteration finished within the limits
    history: list[dict] = field(default_factory=list)   # one entry per completed depth

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        return {
            "best": self.best.text() if self.best else None, "score": self.score,
            "score_text": format_score(self.score), "depth": self.depth, "seldepth": self.seldepth,
            "nodes": self.nodes, "seconds": round(self.seconds, 4), "nps": round(self.nps),
            "lines": [line.to_json() for line in self.lines], "iterations": self.history,
        }


ProgressCallback = Callable[[dict], None]


class AlphaBeta:
    """Iterative-deepening alpha-beta. One instance keeps its transposition table between calls
    (use ``new_game`` to forget it)."""

    def __init__(self, catalog: Catalog | None = None, weights: EvalWeights | None = None,
                 tt_megabytes: int = 16, draw_without_orders: bool = True, evaluation: str | None = None,
                 net: str | Path | None = None):
        """``evaluation``: "classical" or "nnue" (None: engine/data/evaluation.toml's default);
        ``net``: a network file (docs/nnue.md; None: the shipped one)."""
        self.catalog = catalog or default_catalog()
        self.weights = weights or default_weights()
        self._kernel = _search.AlphaBeta(self.catalog.tables, self.weights.kernel_dict(self.catalog),
                                         tt_megabytes, draw_without_orders)
        self._kernel.set_network(choose_network(evaluation, net, self.catalog))

    @property
    def evaluation(self) -> str:
        """"classical" or "nnue <digest> (<file>)": what this search evaluates with."""
        return self._kernel.evaluation

    def set_network(self, network) -> None:
        """Evaluate with a kernel network from ``evaluate.load_network`` / ``choose_network`` (None:
        classical); the transposition table is cleared."""
        self._kernel.set_network(network)

    def new_game(self) -> None:
        self._kernel.clear()

    def evaluate(self, position: Position, cylindrical: bool = False) -> int:
        """Static evaluation for the side to move, in centi-points."""
        return self._kernel.evaluate_position(position.core, cylindrical)

    def stop(self) -> None:
        """Make a search running in another thread return at once with what it has (the best order
        of the last finished iteration, or one the unfinished iteration proved better: ``search``).
        Thread-safe; the next ``search`` starts afresh."""
        self._kernel.request_stop()

    def search(self, position: Position, depth: int | None = None, seconds: float | None = None,
               nodes: int | None = None, top: int = 1, progress: ProgressCallback | None = None,
               soft_seconds: float | None = None, cylindrical: bool = False,
               history: list[int] | None = None, orders: list[int] | None = None,
               lines: bool = True) -> SearchResult:
        """Search ``position`` until ``depth`` plies, ``seconds`` or ``nodes`` run out (the first
        limit reached; with none given, depth 4). ``seconds`` and ``nodes`` are hard limits: the
        search stops inside any iteration, the first included (the kernel reads the clock every few
        hundred nodes, in quiescence too), and still names an order: the best of the root orders
        searched so far, or the first root order when none was. ``soft_seconds`` (a clock's target time) is when no new iteration
        starts; it shrinks while the best order stays the same and grows when it changes (never
        past ``seconds``). ``cylindrical``: Compass mode, every unit wraps around the a/h files.
        Returns the best ``top`` orders with scores and principal variations, from the deepest
        iteration that finished (or the first one); with ``top`` 1, an iteration cut short that
        already proved another order better (it failed high, or beat the previous best) answers
        with that order and its score, a lower bound. A forced result (a Sovereign captured within
        k plies) ends the deepening at depth 2k + 2, not at once: pruning can hide a shorter one for
        a few iterations. A position reached by ``push`` carries its
        history (or pass ``history``, the keys of the game's earlier positions): the search scores a
        return to one of them as a draw (C3). ``orders``: search only these root orders (order codes,
        e.g. the legal orders of a full-game decision, which its flags and variant may narrow); codes
        the position does not generate are left out. ``progress`` is called after every finished
        depth with its history entry (depth, seldepth, score, score_text, nodes, seconds, pv) and
        ``lines``, that depth's ``top`` lines as in ``to_json``. With ``lines`` False (callers that
        read only ``best`` and ``score``: the NNUE data generator) no line, principal variation or
        history entry is built: ``lines`` and ``history`` stay empty; the search is the same.
        """
        self._kernel.clear_stop()
        if depth is not None and not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be 1..{MAX_DEPTH}")
        if seconds is not None and seconds <= 0:
            raise ValueError("seconds must be positive")
        if nodes is not None and nodes <= 0:
            raise ValueError("nodes must be positive")
        if soft_seconds is not None and soft_seconds <= 0:
            raise ValueError("soft_seconds must be positive")
        if top < 1:
            raise ValueError("top must be >= 1")
        max_depth = depth if depth is not None else (MAX_DEPTH if seconds or nodes or soft_seconds else DEFAULT_DEPTH)
        start = time.perf_counter()
        deadline = time.monotonic() + seconds if seconds else 0.0
        root = self._root_codes(position, cylindrical)
        if orders is not None:
            allowed = set(orders)
            root = [code for code in root if code in allowed]
        result = SearchResult(None, 0, [], 0, 0, 0, 0.0, True)
        if not root:
            result.seconds = time.perf_counter() - start
            return result
        multipv = min(top, len(root))
        if history is None:
            history = self._history_keys(position)   # pushed positions: returning to one is a draw
        total_nodes = 0
        stable = 0                       # iterations in a row with the same best order
        for d in range(1, max_depth + 1):
            window = ASPIRATION if d >= 4 and multipv == 1 and abs(result.score) < MATE - 1000 else None
            alpha, beta = (result.score - window, result.score + window) if window else (-INF, INF)
            proven = None                # an order this iteration proved better than the last best
            while True:
                # Every iteration keeps to the limits, the first included (its quiescence search can
                # explode on some positions: many units about to promote); a first iteration cut
                # short still answers, below.
                budget = max(1, nodes - total_nodes) if nodes else 0
                scored, used, stopped, seldepth = self._kernel.search_root(
                    position.core, d, root, multipv, budget, deadline, alpha, beta, cylindrical, history)
                total_nodes += used
                if stopped and multipv == 1 and scored and scored[0][1] != root[0] and scored[0][0] > alpha:
                    proven = scored[0]   # it beat the first order searched, and the window's floor
                if stopped or not scored:
                    break
                best_score = scored[0][0]
                # (window is None: the full window, which no score falls outside of)
                if window is not None and best_score <= alpha:      # fail low: widen downwards
                    window *= 3
                    alpha = max(-INF, best_score - window)
                elif window is not None and best_score >= beta:     # fail high: widen upwards
                    proven = scored[0]
                    first = scored[0][1]
                    root.sort(key=lambda code: code != first)
                    window *= 3
                    beta = min(INF, best_score + window)
                else:
                    break
                if window and window > 2000:
                    alpha, beta = -INF, INF
            if stopped and result.best is not None:
                # A stopped iteration still proved something when an order failed high, or scored
                # above the first order searched (the previous best) and the window's floor: that
                # order is better at this depth, so it is the answer (its score a lower bound), as
                # in Stockfish.
                if proven is not None and proven[1] != result.best.code:
                    result.best = self._move(proven[1])
                    result.score = proven[0]
                    result.lines = [self._line(position, proven[0], proven[1], d, cylindrical)] if lines else []
                result.complete = False
                break
            if not scored:
                if result.best is None:
                    # Stopped before the first root order was searched: the first legal order (the
                    # caller's order of preference), so that a search always names an order.
                    result.best = self._move(root[0])
                    result.lines = [Line(result.best.text(), 0, [result.best.text()])]
                    result.complete = False
                break
            # The scored orders first, best first, then the others in their order (a stable sort by
            # the scored rank would give the same list).
            scored_codes = [code for _, code in scored]
            ranked = set(scored_codes)
            root = scored_codes + [code for code in root if code not in ranked]
            stable = stable + 1 if result.best is not None and result.best.code == scored[0][1] else 0
            result.depth, result.seldepth = d, seldepth
            result.best = self._move(scored[0][1])
            result.score = scored[0][0]
            elapsed = time.perf_counter() - start
            if lines or progress:
                result.lines = [self._line(position, score, code, d, cylindrical) for score, code in scored[:top]]
                info = {"depth": d, "seldepth": seldepth, "score": result.score,
                        "score_text": format_score(result.score), "nodes": total_nodes, "seconds": round(elapsed, 4),
                        "pv": result.lines[0].pv}
                result.history.append(info)
                if progress:
                    # The callback also gets this depth's ``top`` lines (the history keeps the best one).
                    progress({**info, "lines": [line.to_json() for line in result.lines]})
            if stopped:
                result.complete = False
                break
            if abs(result.score) > MATE - 1000 and 2 * (MATE - abs(result.score)) + 2 <= d:
                # A forced result well within the horizon: deeper adds nothing. Not at once when it
                # is found: pruning can hide a shorter one for a few more iterations.
                break
            if (seconds and time.monotonic() >= deadline) or (nodes and total_nodes >= nodes):
                break
            if soft_seconds is not None:
                # A stable best order needs less time; a changing one more (Stockfish's idea).
                target = soft_seconds * (1.6 if stable == 0 and d > 4 else 1.0 if stable < 3 else 0.6)
                if seconds:
                    target = min(target, seconds)
                if elapsed >= target or (seconds and elapsed >= 0.6 * seconds):
                    break
        result.nodes = total_nodes
        result.seconds = time.perf_counter() - start
        return result

    # -- what a game's positions and moves look like (a game on the board kernel overrides these:
    # engine/crusade/search.py) ----------------------------------------------------------------------
    def _root_codes(self, position: Position, cylindrical: bool) -> list[int]:
        """The root's orders, as codes, in the order the search tries them first."""
        return [o.code for o in position.legal_orders(cylindrical=cylindrical)]

    def _history_keys(self, position: Position) -> list[int]:
        """The keys of the game's positions before this one (a return to one is a draw)."""
        return position.history_keys()

    def _move(self, code: int) -> Order:
        """The object ``SearchResult.best`` holds for an order code (``code`` and ``text()``)."""
        return Order.from_code(code, self.catalog)

    def _text(self, code: int) -> str:
        return order_text(code, self.catalog)

    def _line(self, position: Position, score: int, code: int, depth: int, cylindrical: bool) -> Line:
        """The result line of the root order ``code``: its text, score and principal variation."""
        return Line(self._text(code), score, self._pv(position, code, depth, cylindrical))

    def _pv(self, position: Position, first: int, depth: int, cylindrical: bool) -> list[str]:
        """The principal variation: the order, then the transposition table's best replies, each
        checked legal in the search's topology; never more than ``depth`` orders (the depth that
        produced the table's entries)."""
        core = position.copy().core             # a copy of its own: its orders are pushed directly
        line = [self._text(first)]
        core.push(first)
        seen = {core.key}
        for _ in range(depth - 1):
            code = self._kernel.tt_move(core)
            if not code or code not in core.generate(cylindrical):
                break
            line.append(self._text(code))
            core.push(code)
            if core.key in seen:
                break
            seen.add(core.key)
        return line
