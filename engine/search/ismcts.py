"""Information-set Monte Carlo tree search for the full card game (single-observer SO-ISMCTS, after
Cowling, Powley & Whitehouse 2012 and OpenSpiel's ``ismcts``).

The searching player sees only its own information set. Every iteration starts from a
*determinization*: ``state.resample_hidden(root_player, rng)``, a full state consistent with what the
root player may know (the opponent's unrevealed Hand, unknown Deck tops and Deck redrawn from their
pool, the chance generator reseeded). That call is the only way the search looks at the state: it
never reads the opponent's zones or any other hidden field, so two states the root player cannot tell
apart give the identical search (tests/search/test_ismcts.py checks it with a guarded state).

One iteration: determinize; descend the single tree by UCB1 over the actions legal in this
determinization, using *availability counts* (a child's "parent visits" are the times it was legal
when its parent was visited); expand one node; play out with a pluggable policy (``RandomPlayout``,
``HeuristicPlayout``), optionally cut after ``max_playout_turns`` turns and scored by an evaluator
(``BoardEvaluator``); back the reward up, each node scored from the perspective of the player who
chose the action leading to it (two players, zero-sum, rewards in [-1, 1] from ``returns()``).
Draws are chance events resolved inside ``apply`` by the determinization's own generator (the state's
``auto_chance``), so the tree has no chance nodes; nodes are keyed by integer action ids.

A turn is many decisions (orders, actions, treasures, buys): ``plan_turn`` searches and plays the
best action repeatedly while the same player decides within the same turn and returns the whole plan
with its value. Budgets: iterations and/or seconds, whichever ends first; with an iteration budget a
seed makes the result reproducible. Root parallelism: ``processes`` > 1 splits the iterations over a
process pool (worker i uses seed + i) and sums the root statistics.

>>> from engine.game.config import GameConfig
>>> from engine.game.state import GameState
>>> bot = ISMCTS(iterations=200, seed=1, evaluator=BoardEvaluator(), max_playout_turns=2)
>>> stats = bot.search(GameState(GameConfig(seed=3)))           # doctest: +SKIP
>>> plan = bot.plan_turn(GameState(GameConfig(seed=3)))         # doctest: +SKIP
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from engine import codes
from engine.game import actions as A
from engine.game.record import make_record
from engine.game.state import replay
from engine.position import Position
from engine.search.evaluate import board_value, board_winner, order_value, order_winner
from engine.search.planner import TurnPlanner

__all__ = [
    "ISMCTS",
    "BoardEvaluator",
    "Evaluator",
    "HeuristicPlayout",
    "Playout",
    "RandomPlayout",
    "SearchStats",
    "TurnPlan",
    "board_position",
]

# -- playout policies --------------------------------------------------------------------------
class Playout(Protocol):
    """A playout policy: picks one legal action of the player to decide in ``state``."""

    def choose(self, state, rng: random.Random) -> int: ...


class RandomPlayout:
    """Uniformly random over the legal actions."""

    def choose(self, state, rng: random.Random) -> int:
        return rng.choice(state.legal_actions())

    def __repr__(self) -> str:
        return "RandomPlayout()"


_ENDS_GAME = 1_000_000      # a capture that decides the game: above every other HeuristicPlayout score


class HeuristicPlayout:
    """A cheap greedy playout: a capture after which the board decides the game for the mover first
    (``board_winner``), then the board capture of the most valuable victim (a Sovereign first), play
    treasures, buy the most expensive card affordable, play a training effect when the
    hand's gold is low; otherwise (and with probability ``epsilon``) a uniformly random action.

    It reads the determinized state it is given (the acting player's own hand in that sample)."""

    def __init__(self, epsilon: float = 0.1, low_gold: int = 3):
        self.epsilon = epsilon
        self.low_gold = low_gold
        self._tables: tuple | None = None   # (cards catalog, units catalog, unit values, card data)

    def __getstate__(self):
        return {"epsilon": self.epsilon, "low_gold": self.low_gold, "_tables": None}

    def __repr__(self) -> str:
        return f"HeuristicPlayout(epsilon={self.epsilon}, low_gold={self.low_gold})"

    def _data(self, state) -> tuple:
        tables = self._tables
        if tables is None or tables[0] is not state.cards or tables[1] is not state.units:
            values = [10_000 if "Sovereign" in u.classes else 100 * u.price for u in state.units.units]
            effects = [[(spec.kind, spec.gold) for spec in card.effects] for card in state.cards.cards]
            treasure_gold = [max((g for k, g in e if k == "treasure"), default=0) for e in effects]
            tables = self._tables = (state.cards, state.units, values, effects, treasure_gold)
        return tables

    def choose(self, state, rng: random.Random) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if rng.random() < self.epsilon:
            return rng.choice(legal)
        _, _, values, effects, treasure_gold = self._data(state)
        board = state.board
        player = state.current_player()
        best, best_score = None, 0
        hand_gold = None
        for a in legal:
            score = 0
            if a < A.CHOICE_BASE:
                kind = codes.order_kind(a)
                if kind == codes.ATTACK or kind == codes.SHOOT:
                    victim = board.unit_on(codes.order_dest(a))
                    if victim is not None and victim[1] != player:
                        score = 1_000 + values[victim[0]] - values[codes.order_unit(a)] // 100
                    if order_winner(state, a) == player:
                        score = _ENDS_GAME
            else:
                kind, arg = A.decode(a)
                if kind == A.K_PLAY:
                    card = A.play_card(a)
                    effect_kind = effects[card][A.play_effect(a)][0]
                    if effect_kind == "treasure":
                        score = 500
                    elif effect_kind == "training":
                        if hand_gold is None:
                            hand_gold = sum(treasure_gold[c] for c in state.zones[player].hand)
                        if hand_gold - treasure_gold[card] < self.low_gold:
                            score = 300
                elif kind == A.K_BUY:
                    score = 400 + state.cost(arg)
            if score > best_score:
                best, best_score = a, score
        return best if best is not None else rng.choice(legal)


# -- evaluation --------------------------------------------------------------------------------
Evaluator = Callable[[object, int], float]


def board_position(state) -> Position:
    """The board part of a game state (units, both Barracks, Stock, flags, side to move) as a
    Position, sharing nothing with the state (a copy of its board core). Board and Barracks are
    public information (C4)."""
    return Position.from_core(state.board, state.units)


class BoardEvaluator:
    """Value in [-1, 1] for ``player`` of the board alone: tanh(score / scale) of alpha-beta's static
    evaluation (material, Barracks, mobility, Sovereign safety; engine/search/evaluate.py
    ``board_value``), and +-1 when the board as it stands decides the game at the turn's end
    (``board_winner``: C2 as the variant applies it)."""

    def __init__(self, scale: float = 1500.0, weights=None):
        self.scale = scale
        self.weights = weights

    def __repr__(self) -> str:
        return f"BoardEvaluator(scale={self.scale})"

    def __call__(self, state, player: int) -> float:
        winner = board_winner(state)
        if winner is not None:
            return 1.0 if winner == player else -1.0
        return math.tanh(board_value(state.board, player, self.weights) / self.scale)


# -- results -----------------------------------------------------------------------------------
@dataclass
class SearchStats:
    """One search: the best action (most visited), and per root action its visits and mean value
    for the root player."""

    player: int
    best: int | None
    best_text: str | None
    visits: dict[int, int]
    values: dict[int, float]
    texts: dict[int, str]
    iterations: int
    seconds: float
    processes: int = 1

    @property
    def value(self) -> float:
        """The root value estimate: the mean value of the best action (0 with no iteration)."""
        return self.values.get(self.best, 0.0) if self.best is not None else 0.0

    @property
    def children(self) -> dict[int, tuple[int, float]]:
        """{action: (visits, mean value)} of the root actions searched."""
        return {a: (v, self.values[a]) for a, v in self.visits.items()}

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        order = sorted(self.visits, key=lambda a: (-self.visits[a], a))
        return {
            "player": self.player, "best": self.best, "best_text": self.best_text, "value": round(self.value, 4),
            "iterations": self.iterations, "seconds": round(self.seconds, 4), "processes": self.processes,
            "actions": [{"action": a, "text": self.texts.get(a), "visits": self.visits[a],
                         "value": round(self.values[a], 4)} for a in order],
        }


@dataclass
class TurnPlan:
    """A whole turn of one player: the actions in order, their texts, and the expected value (the
    first search's root value estimate). ``stats`` has one SearchStats per planned decision."""

    player: int
    actions: list[int]
    texts: list[str]
    value: float
    stats: list[SearchStats] = field(default_factory=list)


# -- the tree ----------------------------------------------------------------------------------
class _Node:
    """Statistics of the action leading here: chosen by ``player``, whose total reward is ``total``."""

    __slots__ = ("avail", "children", "player", "total", "visits")

    def __init__(self, player: int):
        self.player = player
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1


class TopOrders:
    """Tree-policy pruning: at a decision that offers board orders, keep only the ``k`` orders whose
    resulting board ``order_value`` likes best for the mover (an order that decides the game first;
    the other actions all stay).
    The board is public, so the choice is the same in every determinization and is cached by the
    board's Zobrist key (which includes whose turn it is and the units' status flags) and the
    orders offered."""

    def __init__(self, k: int = 6):
        self.k = k
        self._cache: dict[tuple, frozenset] = {}

    def __getstate__(self):
        return {"k": self.k, "_cache": {}}

    def __repr__(self) -> str:
        return f"TopOrders(k={self.k})"

    def __call__(self, state, legal: list[int]) -> list[int]:
        orders = [a for a in legal if a < A.CHOICE_BASE]
        if len(orders) <= self.k:
            return legal
        mover = state.current_player()
        # An effect may offer only some orders; the variant says when a board decides the game.
        key = (state.board.key, mover, state.variant, tuple(orders))
        keep = self._cache.get(key)
        if keep is None:
            scored = [(order_value(state, action), action) for action in orders]
            scored.sort(reverse=True)
            keep = frozenset(a for _, a in scored[: self.k])
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[key] = keep
        return [a for a in legal if a >= A.CHOICE_BASE or a in keep]


_DEFAULT = object()


class ISMCTS:
    """Single-observer information-set MCTS. Budgets: ``iterations`` and/or ``seconds`` (whichever
    ends first; at least one must be given). ``c`` is the UCB1 exploration constant (rewards are in
    [-1, 1]). ``playout`` picks playout actions; with ``max_playout_turns`` a playout stops after that
    many turns and is scored by ``evaluator(state, player)`` (0, a draw, without one).
    ``processes`` > 1: root parallelism over a process pool (worker i seeded ``seed + i``)."""

    def __init__(self, iterations: int | None = 1000, seconds: float | None = None, c: float = 0.7,
                 playout: Playout | None = None, evaluator: Evaluator | None | object = _DEFAULT, seed: int = 0,
                 processes: int = 1, max_playout_turns: int | None | object = _DEFAULT,
                 start_method: str | None = None, prune: Callable | None | object = _DEFAULT,
                 planner: TurnPlanner | None | object = _DEFAULT):
        # Defaults: heuristic playouts cut after 2 turns and scored by the board evaluator (about
        # ten times the iterations/s of random playouts to the end, and stronger). Full random
        # playouts: playout=RandomPlayout(), evaluator=None, max_playout_turns=None.
        if evaluator is _DEFAULT:
            evaluator = BoardEvaluator()
        if max_playout_turns is _DEFAULT:
            max_playout_turns = 2 if evaluator is not None else None
        if playout is None:
            playout = HeuristicPlayout()
        if planner is _DEFAULT:
            planner = TurnPlanner(max_nodes=4_000)
        if prune is _DEFAULT:
            prune = TopOrders()
        if iterations is None and seconds is None:
            raise ValueError("ISMCTS: give an iteration budget, a time budget, or both")
        if iterations is not None and iterations < 1:
            raise ValueError("ISMCTS: iterations must be >= 1")
        if seconds is not None and seconds <= 0:
            raise ValueError("ISMCTS: seconds must be positive")
        if processes < 1:
            raise ValueError("ISMCTS: processes must be >= 1")
        if max_playout_turns is not None and max_playout_turns < 0:
            raise ValueError("ISMCTS: max_playout_turns must be >= 0")
        if start_method not in (None, "fork", "spawn"):
            raise ValueError("ISMCTS: start_method must be 'fork', 'spawn' or None")
        self.iterations = iterations
        self.seconds = seconds
        self.c = c
        self.playout = playout
        self.evaluator = evaluator
        self.seed = seed
        self.processes = processes
        self.max_playout_turns = max_playout_turns
        self.start_method = start_method
        self.prune = prune
        self.planner = planner

    def __getstate__(self):
        return dict(self.__dict__)

    # -- public API ------------------------------------------------------------------------
    def search(self, state, seed: int | None = None) -> SearchStats:
        """Search the decision of the player to move in ``state`` (its own information set)."""
        if state.is_terminal():
            raise ValueError("ISMCTS.search: the game is over")
        player = state.current_player()
        if player < 0:
            raise ValueError("ISMCTS.search: the state is at a chance node; resolve it first")
        seed = self.seed if seed is None else seed
        start = time.perf_counter()
        if self.planner is not None:
            # A win within this turn is searched exhaustively first (engine/search/planner.py):
            # sampling the tree can miss a line of several decisions that wins at once.
            plan = self.planner.find_win(state, random.Random(seed))
            if plan.winning and plan.actions and plan.actions[0] in state.legal_actions():
                best = plan.actions[0]
                return SearchStats(player, best, state.action_text(best), {best: 1}, {best: 1.0},
                                   {best: state.action_text(best)}, 0, time.perf_counter() - start, self.processes)
        if self.processes == 1:
            seconds = self.seconds
            if seconds is not None:           # the planner's time counts against the budget
                seconds = max(0.001, seconds - (time.perf_counter() - start))
            children, texts, done = self._search_local(state, player, self.iterations, seconds, seed)
        else:
            children, texts, done = self._search_parallel(state, player, seed)
        seconds = time.perf_counter() - start
        visits = {a: v for a, (v, _) in children.items()}
        values = {a: (t / v if v else 0.0) for a, (v, t) in children.items()}
        best = None
        if visits:
            best = max(visits, key=lambda a: (visits[a], values[a], -a))
        return SearchStats(player, best, texts.get(best) if best is not None else None, visits, values, texts,
                           done, seconds, self.processes)

    def choose(self, state, rng: random.Random | None = None) -> int:
        """The searched best action (so an ISMCTS can stand in for a player object)."""
        return self.search(state).best

    def plan_turn(self, state, progress: Callable[[int, str, float, int, float], None] | None = None) -> TurnPlan:
        """Search and play the best action on a clone while the same player decides in the same
        turn; the plan ends when the turn (or the game) does. Draws within the plan come from the
        state's own chance generator, after the action that causes them was chosen blind.
        ``progress(step, action text, value, iterations, seconds)`` is called after each step."""
        if state.is_terminal():
            raise ValueError("ISMCTS.plan_turn: the game is over")
        player, turn = state.current_player(), state.turn
        current = state.clone()
        plan = TurnPlan(player, [], [], 0.0)
        step = 0
        while not current.is_terminal() and current.current_player() == player and current.turn == turn:
            stats = self.search(current, seed=self.seed + 7919 * step)
            if stats.best is None:
                break
            if step == 0:
                plan.value = stats.value
            plan.actions.append(stats.best)
            plan.texts.append(stats.best_text)
            plan.stats.append(stats)
            current.apply(stats.best)
            step += 1
            if progress:
                progress(step, stats.best_text, stats.value, stats.iterations, stats.seconds)
        return plan

    # -- one process -----------------------------------------------------------------------
    def _search_local(self, state, player: int, iterations: int | None, seconds: float | None,
                      seed: int) -> tuple[dict[int, tuple[int, float]], dict[int, str], int]:
        rng = random.Random(seed)
        root = _Node(player)
        texts: dict[int, str] = {}
        deadline = time.perf_counter() + seconds if seconds is not None else None
        done = 0
        # The tree and the determinizations hold no reference cycles: the cyclic collector would only
        # rescan the growing tree, so it is paused during the search (and restored after).
        collecting = gc.isenabled()
        gc.disable()
        try:
            while (iterations is None or done < iterations) and (deadline is None or time.perf_counter() < deadline):
                d = state.resample_hidden(player, rng)
                if not texts:
                    texts = d.legal_action_texts()     # the root player's own options
                self._iterate(root, d, rng)
                done += 1
        finally:
            if collecting:
                gc.enable()
        return {a: (n.visits, n.total) for a, n in root.children.items()}, texts, done

    def _iterate(self, root: _Node, d, rng: random.Random) -> None:
        c = self.c
        log, sqrt = math.log, math.sqrt
        path = []
        node = root
        while True:
            while d.is_chance_node():                # only with auto_chance=False states
                d.apply(_sample_chance(d, rng))
            if d.is_terminal():
                break
            mover = d.current_player()
            legal = d.legal_actions()
            if self.prune is not None:
                legal = self.prune(d, legal)
            children = node.children
            untried = []
            for a in legal:
                child = children.get(a)
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            if untried:
                action = untried[0] if len(untried) == 1 else rng.choice(untried)
                child = children[action] = _Node(mover)
                d.apply(action)
                path.append(child)
                break
            best_value, action = -math.inf, legal[0]
            for a in legal:
                child = children[a]
                value = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
                if value > best_value:
                    best_value, action = value, a
            node = children[action]
            d.apply(action)
            path.append(node)
        rewards = self._playout(d, rng)
        root.visits += 1
        for node in path:
            node.visits += 1
            node.total += rewards[node.player]

    def _playout(self, d, rng: random.Random) -> list[float]:
        limit = self.max_playout_turns
        start = d.turn
        choose = self.playout.choose
        while True:
            while d.is_chance_node():
                d.apply(_sample_chance(d, rng))
            if d.is_terminal():
                return d.returns()
            if limit is not None and d.turn - start >= limit:
                winner = board_winner(d)             # a decided board is won or lost, whatever judges it
                if winner is not None:
                    return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
                if self.evaluator is None:
                    return [0.0, 0.0]
                value = max(-1.0, min(1.0, float(self.evaluator(d, 0))))
                return [value, -value]
            d.apply(choose(d, rng))

    # -- root parallelism --------------------------------------------------------------------
    def _search_parallel(self, state, player: int, seed: int):
        n = self.processes
        if self.iterations is not None:
            shares = [self.iterations // n + (1 if i < self.iterations % n else 0) for i in range(n)]
        else:
            shares = [None] * n
        jobs = [(i, shares[i], seed + i) for i in range(n) if shares[i] != 0]
        method = self.start_method
        if method is None:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        global _FORK_PAYLOAD
        if method == "fork":
            # The child inherits the searcher and the state: nothing is pickled (a GameState holds a
            # compiled BoardCore that does not pickle).
            _FORK_PAYLOAD = (self, state, player)
            try:
                with context.Pool(len(jobs)) as pool:
                    results = pool.map(_fork_worker, jobs)
            finally:
                _FORK_PAYLOAD = None
        else:
            record = make_record(state)
            with context.Pool(len(jobs)) as pool:
                results = pool.map(_spawn_worker, [(self, record, player) + job for job in jobs])
        children: dict[int, tuple[int, float]] = {}
        texts: dict[int, str] = {}
        done = 0
        for worker_children, worker_texts, worker_done in results:
            for a, (v, t) in worker_children.items():
                v0, t0 = children.get(a, (0, 0.0))
                children[a] = (v0 + v, t0 + t)
            texts.update(worker_texts)
            done += worker_done
        return children, texts, done


_FORK_PAYLOAD: tuple | None = None


def _fork_worker(job):
    searcher, state, player = _FORK_PAYLOAD
    _, iterations, seed = job
    return searcher._search_local(state, player, iterations, searcher.seconds, seed)


def _spawn_worker(job):
    searcher, record, player, _, iterations, seed = job
    state = replay(record)
    return searcher._search_local(state, player, iterations, searcher.seconds, seed)


def _sample_chance(d, rng: random.Random) -> int:
    pick = rng.random()
    outcomes = d.chance_outcomes()
    for card, p in outcomes:
        pick -= p
        if pick < 0:
            return card
    return outcomes[-1][0]
