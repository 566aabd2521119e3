"""Players behind one interface: ``bot.choose(state) -> action`` for the player to decide.

- RandomBot: a uniformly random legal action (the baseline).
- GreedyBot: one-ply heuristics: an order after which the board decides the game for it first (never
  one that decides it against it while another exists), else the best order by the board evaluator;
  play order and action cards, every treasure, then buy the most expensive affordable card.
- ExpertBot: rules by stage of the game, as strong Dominion simulator strategies are written (a buy
  priority, card plays by simple rules), board orders by a shallow alpha-beta; the yardstick.
- AlphaBetaBot: the board search, for Point-Buy Chess (where a turn is one order).
- ExpertBot lives in engine/crown/expert.py (the full-game search uses it as its prior).
- ISMCTSBot: the full-game AI, the generic ISMCTS (engine/search/ismcts.py) with For the Crown's
  pieces (the turn planner's lines, the expert's prior: engine/crown/pieces.py, planner.py), with
  its own expert (``guide``) whose choice leads the root, and ``horizon`` (a HorizonSearch,
  engine/crown/horizon.py, or None, the default): with a time budget and a horizon ("ismcts-horizon")
  the planner judges its best lines by the whole turns that follow them; without one by one
  playout of the opponent's turn (the planner's verification). The horizon search is not the
  default: it has not passed an SPRT against the verification, and it misses the suite's
  "discovery" puzzle that the verification solves (docs/results.md).
Bots see the state object but, like players, must only use what state.observation(player) shows;
the ISMCTS bot enforces that by searching determinizations only.
"""

from __future__ import annotations

import random
import time

from engine.board.alphabeta import AlphaBeta
from engine.board.evaluate import GAME_WON, board_value
from engine.board.timeman import capped_seconds
from engine.crown import actions as A
from engine.crown.board_eval import order_value
from engine.crown.expert import ExpertBot
from engine.crown.horizon import HorizonSearch
from engine.crown.pieces import BoardEvaluator
from engine.crown.state import GameState
from engine.games.bots import Bot, RandomBot, parse_count, parse_seconds
from engine.position import Position
from engine.quiet import shown
from engine.search.ismcts import ISMCTS, SearchStats

__all__ = ["Bot", "RandomBot", "GreedyBot", "ExpertBot", "AlphaBetaBot", "ISMCTSBot", "make_bot", "BOT_NAMES"]


class GreedyBot(Bot):
    """Simple, fast, deterministic but for ties (seeded)."""

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        player = state.current_player()
        orders = [a for a in legal if A.is_order(a)]
        choices = [a for a in legal if not A.is_order(a)]
        kinds = {a: A.decode(a)[0] for a in choices}
        values = {a: order_value(state, a) for a in orders}
        if orders:
            best = max(orders, key=values.__getitem__)              # the first of equals
            if values[best] >= GAME_WON:
                return best                       # the board decides the game for us: before anything
            safe = [a for a in orders if values[a] > -GAME_WON] or orders
            if state.decision.frame is None or not choices:
                baseline = board_value(state.board, player, to_move=True)
                if values[best] > baseline + 50 or not choices:
                    return best
        plays = [a for a in choices if kinds[a] == A.K_PLAY]
        if state.phase == "buy":
            if plays:
                return plays[0]                   # every treasure before buying (8.0)
            buys = [a for a in choices if kinds[a] == A.K_BUY]
            if buys:
                return max(buys, key=lambda a: (state.cost(A.decode(a)[1]), self.rng.random()))
        elif plays:
            return self.rng.choice(plays)
        if orders and state.decision.frame is not None:
            return self.rng.choice(safe)
        if A.DONE in legal and state.decision.frame is None:
            return A.DONE
        return self.rng.choice(legal)


class AlphaBetaBot(Bot):
    """Point-Buy Chess: every turn is one order, found by the board search. In the picking set-up
    it buys the most expensive unit it can (placement: the first offered square)."""

    name = "alphabeta"

    def __init__(self, depth: int | None = 3, seconds: float | None = None, nodes: int | None = None):
        self.depth, self.seconds, self.nodes = depth, seconds, nodes
        self.search = AlphaBeta()

    def reset(self) -> None:
        self.search.new_game()

    def choose(self, state: GameState) -> int:
        legal = state.legal_actions()
        if state.phase == "setup":
            picks = [a for a in legal if not A.is_order(a) and A.decode(a)[0] == A.K_UNIT]
            if picks:
                return max(picks, key=lambda a: state.units.units[A.decode(a)[1]].price)
            return legal[0]
        orders = [a for a in legal if A.is_order(a)]
        if not orders:
            return legal[0]
        return self._search(state, legal, orders, self.seconds)

    def choose_within(self, state: GameState, seconds: float) -> int:
        cap = max(seconds, 0.01)
        legal = state.legal_actions()
        orders = [a for a in legal if A.is_order(a)]
        if state.phase == "setup" or not orders:
            return self.choose(state)
        return self._search(state, legal, orders, min(self.seconds, cap) if self.seconds else cap)

    def _search(self, state: GameState, legal: list[int], orders: list[int], seconds: float | None) -> int:
        position = Position.from_core(state.board, state.units)
        result = self.search.search(position, depth=self.depth, seconds=seconds, nodes=self.nodes)
        if result.best is not None and result.best.code in legal:
            return result.best.code
        return orders[0]


class ISMCTSBot(Bot):
    name = "ismcts"

    def __init__(self, iterations: int | None = 400, seconds: float | None = None, seed: int = 0,
                 guide: int | None = 4, horizon: HorizonSearch | None = None, narrow: bool = False, **options):
        self.seed = seed
        self.options = dict(iterations=iterations, seconds=seconds, **options)
        self.searcher = ISMCTS(seed=seed, game=GameState.game, **self.options)
        if horizon is not None and self.searcher.planner is not None:
            self.searcher.planner.horizon = horizon        # the planner's lines judged by the turns after them
        if narrow and self.searcher.planner is not None:
            self.searcher.planner.narrow = True            # narrow passes where the whole turn is out of reach
        self.calls = 0
        # The bot's own expert (board search to ``guide`` plies), which sees the whole game as a
        # player does (C3's repetitions included): its choice is the search's prior at the root.
        self.guide = None
        if guide is not None and self.searcher.prior is not None:
            self.guide = ExpertBot(seed, depth=guide, nodes=60_000)

    def reset(self) -> None:
        if self.guide is not None:
            self.guide.reset()

    def choose(self, state: GameState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search(state).best

    def search(self, state: GameState) -> SearchStats:
        """The search behind ``choose``: the decision with its ``source`` and, when the tree took it,
        the visits and values of the root actions (the server's hints show them)."""
        self.calls += 1
        self.searcher.seed = self.seed * 1_000_003 + self.calls
        if self.guide is None:
            return self.searcher.search(state)
        start = time.perf_counter()
        hint = self.guide.choose(state)
        configured = self.searcher.seconds       # the guide's time counts against the budget
        left = None if configured is None else configured - (time.perf_counter() - start)
        with capped_seconds(self.searcher, left):
            return self.searcher.search(state, hint=hint)

    def search_within(self, state: GameState, seconds: float) -> SearchStats:
        """``search`` with at most ``seconds`` (the searcher's own budget when it is smaller)."""
        with capped_seconds(self.searcher, seconds):
            return self.search(state)

    def choose_within(self, state: GameState, seconds: float) -> int:
        with capped_seconds(self.searcher, seconds):
            return self.choose(state)


BOT_NAMES = ("random", "greedy", "expert", "ismcts", "ismcts-plain", "ismcts-horizon", "ismcts-narrow", "alphabeta")

#: The full-game search before issue 12, kept as a yardstick (``ismcts-plain``): the UCB1 tree over
#: every decision with heuristic playouts and the board evaluator, the planner only looking for a win.
PLAIN_ISMCTS = {"prior": None, "plan_own_turn": False, "evaluator": BoardEvaluator(), "reuse_tree": False,
                "guide": None, "horizon": None}


def make_bot(spec: str, seed: int = 0) -> Bot:
    """A bot from a spec: "random", "greedy", "expert", "expert:4" (board search depth), "ismcts"
    (the full-game AI), "ismcts:800" (iterations), "ismcts:2s" (seconds), "ismcts-plain[:...]"
    (the same budgets, the search as it was before the planner's lines and the expert prior),
    "ismcts-horizon[:...]" (the same budgets, the planner's lines judged by the horizon search over
    the turns that follow them), "ismcts-narrow[:...]" (the same budgets, the planner's narrow
    passes where the whole turn is out of reach: engine/crown/planner.py),
    "alphabeta", "alphabeta:4" (depth), "alphabeta:0.5s"."""
    name, _, arg = spec.partition(":")
    try:
        return _make_bot(name, arg, seed)
    except ValueError as exc:
        if "unknown bot" in str(exc):
            raise
        raise ValueError(f"bot {shown(spec)}: {shown(arg)} is not a budget (ITERATIONS or DEPTH as an integer >= 1, "
                         "or SECONDS like 0.5s)") from None


_count = parse_count
_seconds = parse_seconds


def _make_bot(name: str, arg: str, seed: int) -> Bot:
    spec = f"{name}:{arg}" if arg else name
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    if name == "expert":
        return ExpertBot(seed, depth=_count(arg, 3))
    if name in ("ismcts", "ismcts-plain", "ismcts-horizon", "ismcts-narrow"):
        options = dict(PLAIN_ISMCTS) if name == "ismcts-plain" else {}
        if name == "ismcts-horizon":
            options["horizon"] = HorizonSearch()
        if name == "ismcts-narrow":
            options["narrow"] = True
        if arg.endswith("s"):
            return ISMCTSBot(iterations=None, seconds=_seconds(arg), seed=seed, **options)
        return ISMCTSBot(iterations=_count(arg, 400), seed=seed, **options)
    if name == "alphabeta":
        if arg.endswith("s"):
            return AlphaBetaBot(depth=None, seconds=_seconds(arg))
        return AlphaBetaBot(depth=_count(arg, 3))
    raise ValueError(f"unknown bot {shown(spec)}; known: {', '.join(BOT_NAMES)} "
                     "(e.g. expert:3, ismcts:800, alphabeta:4)")
