"""For the Crown's pieces of the information-set search (engine/search/ismcts.py is the generic
tree; the game's registry entry, engine/crown/entry.py, gives it these):

- ``HeuristicPlayout``: a cheap greedy playout (captures, treasures, buys, training);
- ``BoardEvaluator``: the board alone judged by alpha-beta's static evaluation (the default
  evaluator is the learned ``StateEvaluator`` of engine/crown/state_eval.py);
- ``ExpertPrior``: the expert bot's choice as the tree's PUCT prior;
- ``TopOrders``: the tree considers only the best board orders by ``order_value``;
- ``SEARCH_OPTIONS``: the game's other ISMCTS settings: playouts cut after two turns, the prior's
  choice taken at once when buying, and how the search reads a turn, a phase and a board that
  decides the game (``board_winner``, C2).
"""

from __future__ import annotations

import math
import random
from operator import attrgetter

from engine import codes
from engine.board.evaluate import board_value
from engine.crown import actions as A
from engine.crown.board_eval import board_winner, order_value, order_winner
from engine.crown.core import BUY_PHASE
from engine.crown.expert import ExpertBot
from engine.position import Position

__all__ = ["BoardEvaluator", "ExpertPrior", "HeuristicPlayout", "SEARCH_OPTIONS", "TopOrders", "board_position"]

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



def board_position(state) -> Position:
    """The board part of a game state (units, both Barracks, Stock, flags, side to move) as a
    Position, sharing nothing with the state (a copy of its board core). Board and Barracks are
    public information (C4)."""
    return Position.from_core(state.board, state.units)


class BoardEvaluator:
    """Value in [-1, 1] for ``player`` of the board alone: tanh(score / scale) of alpha-beta's static
    evaluation (material, Barracks, mobility, Sovereign safety; engine/board/evaluate.py
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



class ExpertPrior:
    """The tree's prior: at each decision the search reaches, the action the expert bot
    (engine/crown/expert.py; board search to ``depth`` plies, ``nodes`` at most) chooses in the
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


#: For the Crown's ISMCTS settings besides its pieces (engine/search/ismcts.py, ``ISMCTS``): heuristic
#: playouts cut after two turns and judged by the evaluator; the prior's choice taken at once when
#: buying (a card bought now is drawn after the next reshuffle, beyond what a search of a few turns
#: sees); a turn is ``state.turn``, a decision's phase ``state.phase``; a board that decides the game
#: at the turn's end (``board_winner``) is won or lost whatever the evaluator says.
SEARCH_OPTIONS = {"max_playout_turns": 2, "trusted_phases": (BUY_PHASE,), "turn_of": attrgetter("turn"),
                  "phase_of": attrgetter("phase"), "decided": board_winner}
