"""The full-game AI: the turn planner, the expert prior and information-set Monte Carlo tree search
(single-observer SO-ISMCTS, after Cowling, Powley & Whitehouse 2012 and OpenSpiel's ``ismcts``).

Who takes a decision (``ISMCTS._decide_without_tree``; ``SearchStats.source``): a win this turn
found by the planner (engine/search/planner.py); in the player's own Order and Action phases the
planner's best line (every card, order, effect choice and draw of the turn searched, each line's
end judged by the opponent's best board reply and the learned evaluation of the cards,
engine/search/state_eval.py), or the expert's choice when the line cannot be finished in budget;
when buying, the expert's choice; everything else by the tree below, whose prior is the expert.

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
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from engine import codes
from engine.game import actions as A
from engine.game.core import ACTION_PHASE, BUY_PHASE, ORDER_PHASE
from engine.game.record import make_record
from engine.game.state import replay
from engine.position import Position
from engine.search.evaluate import board_value, board_winner, order_value, order_winner
from engine.search.expert import ExpertBot
from engine.search.planner import WIN, TurnPlanner
from engine.search.state_eval import StateEvaluator
from engine.search.timeman import capped_seconds

__all__ = [
    "ISMCTS",
    "BoardEvaluator",
    "Evaluator",
    "ExpertPrior",
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
    source: str = "search"       # "search" (the tree), "win", "plan" or "prior": ISMCTS._decide_without_tree

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
            "source": self.source,
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
    """Statistics of the action leading here: chosen by ``player``, whose total reward is ``total``.
    ``hint``: the prior's suggested action at the decision below (None: not asked yet)."""

    __slots__ = ("avail", "children", "hint", "player", "total", "visits")

    def __init__(self, player: int):
        self.player = player
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1
        self.hint: int | None = None


class ExpertPrior:
    """The tree's prior: at each decision the search reaches, the action the expert bot
    (engine/search/expert.py; board search to ``depth`` plies, ``nodes`` at most) chooses in the
    determinization that first reaches it gets prior probability ``weight``, the other legal
    actions share the rest. Selection is then PUCT (``Q + c_prior * P * sqrt(N) / (1 + n)``), so a
    small budget plays the expert's choice and a larger one departs from it where the values say
    so. The expert reads only the determinization it is given (the searching player's sample)."""

    def __init__(self, weight: float = 0.7, depth: int = 2, nodes: int = 4_000):
        if not 0 < weight < 1:
            raise ValueError("ExpertPrior: weight must be in (0, 1)")
        self.weight = weight
        self.depth = depth
        self.nodes = nodes
        self._bots: dict[int, ExpertBot] = {}

    def __getstate__(self):
        return {"weight": self.weight, "depth": self.depth, "nodes": self.nodes, "_bots": {}}

    def __repr__(self) -> str:
        return f"ExpertPrior(weight={self.weight}, depth={self.depth})"

    def suggest(self, d, rng: random.Random) -> int:
        """The expert's action in determinization ``d`` (for its player to decide)."""
        player = d.current_player()
        bot = self._bots.get(player)
        if bot is None:
            bot = self._bots[player] = ExpertBot(rng.randrange(1 << 30), depth=self.depth, nodes=self.nodes,
                                                 remember=False)
        return bot.choose(d)


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
    """The full-game AI: single-observer information-set MCTS with a turn planner and an expert prior.

    Options (type, default):

    - ``iterations`` (int | None, 1000) and/or ``seconds`` (float | None, None): the budget of one
      decision, whichever ends first (at least one); the planner's time counts against it.
    - ``planner`` (TurnPlanner | None, 4,000 nodes, replies searched 3 plies): a win within the turn is searched
      exhaustively first; with ``plan_own_turn`` (bool, True) the player's own Order and Action phase
      decisions follow the planner's best line (``_decide_without_tree``).
    - ``prior`` (ExpertPrior | None, ExpertPrior()): the expert's choice as the tree's prior
      (PUCT with ``c_prior``, float, 1.5; None: UCB1 with ``c``, float, 0.7, every action tried
      first), and the choice taken at once in ``trusted_phases`` (tuple, ("buy",)) and when the
      plan cannot finish.
    - ``playout`` (Playout, HeuristicPlayout()), ``max_playout_turns`` (int | None, 2) and
      ``evaluator`` (callable | None, StateEvaluator(): the learned evaluation of full states):
      a playout stops after that many turns and is scored by ``evaluator(state, player)``.
    - ``prune`` (callable | None, TopOrders()): board orders the tree considers.
    - ``reuse_tree`` (bool, True): the next decision of the same turn starts from the subtree of
      the action chosen, or takes the next action of the planner's line when the game is where
      the line led (no draw in between).
    - ``processes`` (int, 1): root parallelism over a process pool (worker i seeded ``seed + i``),
      ``start_method`` ("fork" | "spawn" | None); with ``keep_pool`` (bool, True) the workers
      stay up between searches (``close()`` stops them) and rebuild each state from its record.

    Measured (issue 12; README "Playing strength"): the tree with heuristic or expert playouts,
    with or without the prior, lost to the expert bot (2-18 at 0.2 s a decision without the prior,
    about 40% with it), while the planner's lines and the expert's buys beat it; so the defaults
    leave the tree the decisions nothing else takes (the opponent's turn, set-up, a search asked
    for without a prior). ``prior=None, planner=None`` is the plain ISMCTS of before."""

    def __init__(self, iterations: int | None = 1000, seconds: float | None = None, c: float = 0.7,
                 playout: Playout | None = None, evaluator: Evaluator | None | object = _DEFAULT, seed: int = 0,
                 processes: int = 1, max_playout_turns: int | None | object = _DEFAULT,
                 start_method: str | None = None, prune: Callable | None | object = _DEFAULT,
                 planner: TurnPlanner | None | object = _DEFAULT, prior: ExpertPrior | None | object = _DEFAULT,
                 c_prior: float = 1.5, reuse_tree: bool = True, plan_own_turn: bool = True,
                 trusted_phases: tuple[str, ...] = (BUY_PHASE,), keep_pool: bool = True):
        # Defaults: heuristic playouts cut after 2 turns and scored by the board evaluator (about
        # ten times the iterations/s of random playouts to the end, and stronger). Full random
        # playouts: playout=RandomPlayout(), evaluator=None, max_playout_turns=None.
        if evaluator is _DEFAULT:
            evaluator = StateEvaluator()
        if max_playout_turns is _DEFAULT:
            max_playout_turns = 2 if evaluator is not None else None
        if playout is None:
            playout = HeuristicPlayout()
        if planner is _DEFAULT:
            planner = TurnPlanner(max_nodes=4_000, reply_depth=3)
        if prune is _DEFAULT:
            prune = TopOrders()
        if prior is _DEFAULT:
            prior = ExpertPrior()
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
        self.prior = prior
        self.c_prior = c_prior
        self.reuse_tree = reuse_tree
        self.plan_own_turn = plan_own_turn
        self.trusted_phases = tuple(trusted_phases)
        self.keep_pool = keep_pool
        self._pool: tuple | None = None            # ((start method, size), pool, finalizer)
        # The last search's tree, kept for the next decision of the same turn (reuse_tree):
        # (the public state the chosen action leads to, player, root node, action chosen).
        self._tree: tuple | None = None
        # The rest of the planner's line (reuse_tree): (public state it leads to, actions, value).
        self._line: tuple | None = None

    def __getstate__(self):
        return {**self.__dict__, "_tree": None, "_line": None, "_pool": None}

    # -- public API ------------------------------------------------------------------------
    def search(self, state, seed: int | None = None, hint: int | None = None) -> SearchStats:
        """Search the decision of the player to move in ``state`` (its own information set).
        ``hint``: the prior's suggestion at the root, when the caller has a better one than the
        prior would find (ISMCTSBot asks its own expert, which remembers the game)."""
        if state.is_terminal():
            raise ValueError("ISMCTS.search: the game is over")
        player = state.current_player()
        if player < 0:
            raise ValueError("ISMCTS.search: the state is at a chance node; resolve it first")
        seed = self.seed if seed is None else seed
        start = time.perf_counter()
        shortcut = self._decide_without_tree(state, player, seed, hint, start)
        if shortcut is not None:
            return shortcut
        root = None
        if self.processes == 1:
            seconds = self.seconds
            if seconds is not None:           # the planner's time counts against the budget
                seconds = max(0.001, seconds - (time.perf_counter() - start))
            root = self._reused_root(state, player, random.Random(seed ^ 0x5EED))
            if hint is not None:                 # an action not legal here is never chosen by PUCT
                root = root if root is not None else _Node(player)
                root.hint = hint
            children, texts, done, root, first = self._search_local(state, player, self.iterations, seconds, seed,
                                                                    root)
        else:
            children, texts, done = self._search_parallel(state, player, seed)
            first = None
        seconds = time.perf_counter() - start
        visits = {a: v for a, (v, _) in children.items()}
        values = {a: (t / v if v else 0.0) for a, (v, t) in children.items()}
        best = None
        if visits:
            best = max(visits, key=lambda a: (visits[a], values[a], -a))
        self._tree = None
        if self.reuse_tree and root is not None and best is not None and first is not None:
            first.apply(best)                    # where the chosen action leads, as the player sees it
            if not first.is_terminal() and first.current_player() == player:
                self._tree = (_public_key(first), player, root, best)
        return SearchStats(player, best, texts.get(best) if best is not None else None, visits, values, texts,
                           done, seconds, self.processes)

    def _decide_without_tree(self, state, player: int, seed: int, hint: int | None,
                             start: float) -> SearchStats | None:
        """The decisions the tree does not take (``SearchStats.source`` says which rule did):

        - "win": a line of this turn that wins the game, found by the planner's exhaustive search
          (sampling can miss a line of several decisions that wins at once);
        - "prior": in ``trusted_phases`` (buying: a card bought now is drawn after the next
          reshuffle, beyond what a search of a few turns sees), the prior's choice (``hint``, else
          the prior's expert in a determinization);
        - "plan": the player's own Order and Action phases (``plan_own_turn``): the planner's best line
          of the turn, every card play, order, effect choice and draw in it searched, each line's
          end judged by the opponent's best board reply and the learned evaluation of the cards;
          when that search cannot finish within its budget, the prior's choice.
        None: the tree searches the decision."""
        if self.planner is None and self.prior is None:
            return None
        rng = random.Random(seed)
        probe = state.resample_hidden(player, rng)        # what the player sees: phase, turn, options
        legal = probe.legal_actions()
        action, source, value = None, "", 0.0
        if self.planner is not None:
            win = self.planner.find_win(state, rng)
            if win.winning and win.actions and win.actions[0] in legal:
                action, source, value = win.actions[0], "win", 1.0
        own_turn = probe.current == player and probe.phase in (ORDER_PHASE, ACTION_PHASE)
        if action is None and self.prior is not None and probe.phase in self.trusted_phases:
            action, source = self._prior_choice(probe, legal, hint, rng), "prior"
        if action is None and self.planner is not None and self.plan_own_turn and own_turn:
            line, self._line = self._line, None
            if line is not None and line[0] == _public_key(probe) and line[1][0] in legal:
                # The rest of the plan made at an earlier decision of this turn, which led here.
                actions, value = line[1], line[2]
                action, source = actions[0], "plan"
            else:
                plan = self._timed_plan(state, rng, start)
                actions = plan.actions
                if (plan.complete or plan.winning) and actions and actions[0] in legal:
                    action, source = actions[0], "plan"
                    value = 1.0 if plan.winning else -1.0 if plan.value <= -WIN else math.tanh(plan.value / 2000.0)
                elif self.prior is not None:
                    action, source = self._prior_choice(probe, legal, hint, rng), "prior"
            if source == "plan" and len(actions) > 1 and self.reuse_tree:
                # The line goes on without a draw in between (the planner's lines stop at chance):
                # the next decision takes its next action if the game is where the line leads.
                after = probe.clone()
                after.apply(action)
                self._line = (_public_key(after), actions[1:], value)
        if action is None:
            return None
        text = probe.action_text(action)
        return SearchStats(player, action, text, {action: 1}, {action: value}, {action: text}, 0,
                           time.perf_counter() - start, self.processes, source)

    def _prior_choice(self, probe, legal: list[int], hint: int | None, rng: random.Random) -> int:
        return hint if hint in legal else self.prior.suggest(probe, rng)

    def _timed_plan(self, state, rng: random.Random, start: float):
        """The planner's ``plan``, within what is left of a time budget."""
        left = None if self.seconds is None else self.seconds - (time.perf_counter() - start)
        with capped_seconds(self.planner, left, floor=0.001):
            return self.planner.plan(state, rng)

    def choose(self, state, rng: random.Random | None = None) -> int:
        """The searched best action (so an ISMCTS can stand in for a player object)."""
        return self.search(state).best

    def plan_turn(self, state, progress: Callable[[int, str, float, int, float], None] | None = None,
                  seconds: float | None = None, share: Callable[[object], float] | None = None) -> TurnPlan:
        """Search and play the best action on a clone while the same player decides in the same
        turn; the plan ends when the turn (or the game) does. Draws within the plan come from the
        state's own chance generator, after the action that causes them was chosen blind.
        ``progress(step, action text, value, iterations, seconds)`` is called after each step.
        ``seconds``: the whole plan's time; each step gets half of what is left (at least 10 ms,
        never more than the searcher's own budget), so the plan keeps to it; ``share(state)``, when
        given, is the part of what is left that the step deciding in ``state`` gets instead (a game
        that knows how many decisions its turn has left: 1 for its last, which then uses the rest)."""
        if state.is_terminal():
            raise ValueError("ISMCTS.plan_turn: the game is over")
        if seconds is not None and not seconds > 0:
            raise ValueError("ISMCTS.plan_turn: seconds must be positive")
        player, turn = state.current_player(), state.turn
        current = state.clone()
        plan = TurnPlan(player, [], [], 0.0)
        step = 0
        deadline = time.perf_counter() + seconds if seconds is not None else None
        while not current.is_terminal() and current.current_player() == player and current.turn == turn:
            part = 0.5 if share is None else share(current)
            seconds_now = None if deadline is None else (deadline - time.perf_counter()) * part
            with capped_seconds(self, seconds_now):
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
    def _reused_root(self, state, player: int, rng: random.Random) -> _Node | None:
        """The subtree below the last search's chosen action when ``state`` is, as far as the player
        can tell, that search's state after that action (and the draws it caused): the same player
        deciding in the same turn, and the public state (board and unit flags, cards played,
        counters, phase) the chosen action led to. Its statistics were gathered over
        determinizations of this very line. Else None. The check reads a determinization only."""
        tree = self._tree
        if tree is None or not self.reuse_tree:
            return None
        expected, last_player, root, best = tree
        if last_player != player:
            return None
        if _public_key(state.resample_hidden(player, rng)) != expected:
            return None
        return root.children.get(best)

    def _search_local(self, state, player: int, iterations: int | None, seconds: float | None,
                      seed: int, root: _Node | None = None):
        """(root children statistics, root texts, iterations, root, a copy of the first
        determinization) of a search from ``root`` (a reused subtree) or a new tree."""
        rng = random.Random(seed)
        root = root if root is not None else _Node(player)
        texts: dict[int, str] = {}
        deadline = time.perf_counter() + seconds if seconds is not None else None
        done = 0
        first = None
        # The tree and the determinizations hold no reference cycles: the cyclic collector would only
        # rescan the growing tree, so it is paused during the search (and restored after).
        collecting = gc.isenabled()
        gc.disable()
        try:
            while (iterations is None or done < iterations) and (deadline is None or time.perf_counter() < deadline):
                d = state.resample_hidden(player, rng)
                if not texts:
                    texts = d.legal_action_texts()     # the root player's own options
                    first = d.clone()
                self._iterate(root, d, rng)
                done += 1
        finally:
            if collecting:
                gc.enable()
        # A reused subtree may hold actions of other draws than this state's: only legal ones count.
        return ({a: (n.visits, n.total) for a, n in root.children.items() if a in texts}, texts, done, root,
                first)

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
            if self.prior is not None:
                action = self._select_prior(node, d, legal, rng)
                child = children.get(action)
                d.apply(action)
                if child is None:
                    child = children[action] = _Node(mover)
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
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

    def _select_prior(self, node: _Node, d, legal: list[int], rng: random.Random) -> int:
        """PUCT over ``legal`` with the prior's suggestion (asked once per node, in the first
        determinization that reaches it): Q + c_prior * P * sqrt(N + 1) / (1 + n); an action not
        yet tried is valued at the mean of the tried ones less 0.1 (0 when none is)."""
        hint = node.hint
        if hint is None:
            hint = node.hint = self.prior.suggest(d, rng)
        children = node.children
        weight = self.prior.weight
        if hint in legal and len(legal) > 1:
            rest = (1.0 - weight) / (len(legal) - 1)
        else:
            hint, rest = -1, 1.0 / len(legal)
        visits, total = 0, 0.0
        for a in legal:
            child = children.get(a)
            if child is not None:
                child.avail += 1
                visits += child.visits
                total += child.total
        fpu = total / visits - 0.1 if visits else 0.0
        scale = self.c_prior * math.sqrt(visits + 1)
        best_value, best = -math.inf, legal[0]
        for a in legal:
            child = children.get(a)
            p = weight if a == hint else rest
            if child is None or child.visits == 0:
                value = fpu + scale * p
            else:
                value = child.total / child.visits + scale * p / (1 + child.visits)
            if value > best_value:
                best_value, best = value, a
        return best

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
    def _worker_pool(self, method: str, size: int):
        """The searcher's pool of ``size`` workers, made on first use and kept (``keep_pool``)."""
        if self._pool is not None and self._pool[0] == (method, size):
            return self._pool[1]
        self.close()
        pool = multiprocessing.get_context(method).Pool(size)
        # Stopped when the searcher is collected or the interpreter exits, if close() was not called.
        self._pool = ((method, size), pool, weakref.finalize(self, _close_pool, pool))
        return pool

    def close(self) -> None:
        """Stop the worker processes kept for root parallelism (a later search starts new ones)."""
        if self._pool is not None:
            self._pool[2]()
            self._pool = None

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
        if self.keep_pool:
            # One pool for every search of this searcher: the workers rebuild each state from its
            # record (a compiled board does not pickle), which costs less than starting processes.
            record = make_record(state)
            pool = self._worker_pool(method, n)
            results = pool.map(_spawn_worker, [(self, record, player) + job for job in jobs])
        elif method == "fork":
            global _FORK_PAYLOAD
            # The child inherits the searcher and the state: nothing is pickled.
            _FORK_PAYLOAD = (self, state, player)
            try:
                with multiprocessing.get_context(method).Pool(len(jobs)) as pool:
                    results = pool.map(_fork_worker, jobs)
            finally:
                _FORK_PAYLOAD = None
        else:
            record = make_record(state)
            with multiprocessing.get_context(method).Pool(len(jobs)) as pool:
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


def _close_pool(pool) -> None:
    pool.terminate()
    pool.join()


def _fork_worker(job):
    searcher, state, player = _FORK_PAYLOAD
    _, iterations, seed = job
    return searcher._search_local(state, player, iterations, searcher.seconds, seed)[:3]


def _spawn_worker(job):
    searcher, record, player, _, iterations, seed = job
    state = replay(record)
    return searcher._search_local(state, player, iterations, searcher.seconds, seed)[:3]


def _public_key(g) -> tuple:
    """What both players see of a state between two decisions of the same turn (the state
    protocol's ``public_key``, engine/games/protocol.py)."""
    return g.public_key()


def _sample_chance(d, rng: random.Random) -> int:
    pick = rng.random()
    outcomes = d.chance_outcomes()
    for card, p in outcomes:
        pick -= p
        if pick < 0:
            return card
    return outcomes[-1][0]
