"""A horizon past this turn: a turn plan judged by the turns that follow it (issue 44).

The turn planner (engine/crown/planner.py) judges a line of the player's turn by the board after it
(the opponent's board reply searched a few plies) and, with time left, by one playout of the
opponent's whole turn (its ``verify``). A trade that leaves a lost ending two turns later looks
fine to both. ``HorizonSearch`` judges the planner's best lines by a search over *whole turns* of
both players:

- **Determinizations.** The hidden cards are sampled (``resample_hidden`` of the searching player);
  every candidate line meets the same samples, round after round (common random numbers), and a
  line's value is its mean over the rounds. Draws inside a turn come from the sample's own chance
  generator, the same for every branch of a round (a clone draws what its original would).
- **Turns as moves.** From the sample where a turn begins, the mover's candidate *turn plans* are
  its policy's: the expert bot's whole turn (engine/crown/expert.py, as ``verify`` plays it) and,
  with ``width`` >= 2, the planner's best lines of the turn (a node-bounded ``TurnPlanner`` in
  the mover's own information set, each line finished by the expert), ``width`` plans in all.
  The searching player takes the best of its plans, the opponent the worst for it (expectimax:
  the mean over samples, max/min over plans).
- **Leaves.** After ``depth`` whole turns past the candidate's own turn, the state where the next
  turn begins is judged by the learned value of a full state (engine/crown/state_eval.py) with
  its board searched ``leaf_depth`` plies by the board alpha-beta, the mover to move: the chance
  in [0, 1] that the searching player wins (1 or 0 when the board search proves the result; a
  finished game is 1, 0 or 0.5).
- **Time counts.** Passes deepen in turns: depth 1 (the opponent's next turn; the verification's
  horizon), then 2 (the player's own next turn too), ... up to ``max_depth``. A pass runs
  ``pass_rounds`` rounds before the next, deeper one starts, and a deeper pass starts only when
  at least ``min_rounds`` of its rounds are expected to fit (its round cost estimated from the
  last pass's, times its growth). The answer is the best mean of the deepest pass with at least
  ``min_rounds`` complete rounds. More time: more rounds, then more turns. The budget is a
  ``deadline`` (``time.perf_counter()`` value) and/or ``max_work`` (whole turns simulated, the
  reproducible budget: the same seed and work give the same answer on any machine).

``TurnPlanner(horizon=HorizonSearch())`` uses it in place of ``verify`` (``refine``): the planner's
best first actions within ``VERIFY_MARGIN`` (at most ``VERIFY_CANDIDATES``, no proved result)
are the candidates; players.ISMCTSBot's ``horizon`` option sets it.

>>> from engine.crown.scenario import scenario
>>> g = scenario("4k3/8/8/8/8/8/8/R3K3 w", supply=[])
>>> lines = [(g.legal_actions()[0],), (g.legal_actions()[1],)]
>>> result = HorizonSearch(max_depth=2, pass_rounds=2).search(g, lines, seed=1, max_work=40)
>>> result.depth, result.rounds[1] >= 1, 0 <= result.choice < 2
(2, True, True)
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from engine.board.alphabeta import MATE, AlphaBeta
from engine.board.evaluate import full_game_evaluation
from engine.crown.core import GameCore
from engine.crown.expert import ExpertBot
from engine.crown.planner import PLAYOUT_DEPTH, PLAYOUT_NODES, Plan, TurnPlanner, candidate_lines
from engine.crown.state_eval import StateModel, default_model, logit
from engine.position import Position

__all__ = ["HorizonSearch", "HorizonResult", "candidate_lines"]

_DEFAULT = object()


@dataclass
class HorizonResult:
    """One search: ``choice`` (index of the candidate line chosen), ``depth`` (whole turns past the
    candidate's turn of the pass that chose; 0: no pass had ``min_rounds`` rounds, the first
    candidate stands), ``rounds`` and ``means`` per depth (complete rounds; each candidate's mean
    chance to win), ``work`` (whole turns simulated) and ``leaves`` (states judged)."""

    choice: int = 0
    depth: int = 0
    rounds: dict = field(default_factory=dict)
    means: dict = field(default_factory=dict)
    work: int = 0
    leaves: int = 0
    seconds: float = 0.0


class _Stop(Exception):
    """The time or work budget ran out inside a round (the round does not count)."""


class HorizonSearch:
    """The search over whole turns (module text). ``max_depth`` (int, 3): the deepest pass, in
    whole turns past the candidate's; ``width`` (int, 1): turn plans per mover (1: the expert's
    turn; more: the planner's best lines too); ``leaf_depth`` (int, 2): plies of the board search at
    a leaf; ``pass_rounds`` (int, 4): rounds a pass runs before a deeper one may start;
    ``min_rounds`` (int, 2): rounds a pass needs to decide; ``max_rounds`` (int, 64): the most rounds
    of the deepest pass; ``plan_nodes`` (int, 1,500): the node budget of the planner that proposes
    turn plans (``width`` >= 2); ``model``: the learned value (default the shipped one)."""

    def __init__(self, max_depth: int = 3, width: int = 1, leaf_depth: int = 2, pass_rounds: int = 4,
                 min_rounds: int = 2, max_rounds: int = 64, plan_nodes: int = 1_500,
                 model: StateModel | object = _DEFAULT):
        if not 1 <= max_depth <= 8:
            raise ValueError("HorizonSearch: max_depth must be 1..8")
        if not 1 <= width <= 8:
            raise ValueError("HorizonSearch: width must be 1..8")
        if not 1 <= leaf_depth <= 8:
            raise ValueError("HorizonSearch: leaf_depth must be 1..8")
        if not 1 <= min_rounds <= pass_rounds <= max_rounds:
            raise ValueError("HorizonSearch: need 1 <= min_rounds <= pass_rounds <= max_rounds")
        if plan_nodes < 1:
            raise ValueError("HorizonSearch: plan_nodes must be >= 1")
        self.max_depth, self.width, self.leaf_depth = max_depth, width, leaf_depth
        self.pass_rounds, self.min_rounds, self.max_rounds = pass_rounds, min_rounds, max_rounds
        self.plan_nodes = plan_nodes
        self.model = default_model() if model is _DEFAULT else model
        self._board_search: AlphaBeta | None = None

    def __repr__(self) -> str:
        return (f"HorizonSearch(max_depth={self.max_depth}, width={self.width}, leaf_depth={self.leaf_depth}, "
                f"pass_rounds={self.pass_rounds})")

    def __getstate__(self):
        return {**self.__dict__, "_board_search": None, "_experts": {}, "_boards": {}}    # rebuilt in a worker

    # -- the planner's hook ------------------------------------------------------------------------
    def refine(self, state: GameCore, answer: Plan, seed: int, deadline: float) -> None:
        """``TurnPlanner.plan``'s use (in place of its ``verify``): the best first actions of
        ``answer`` (within ``VERIFY_MARGIN`` of the best, at most ``VERIFY_CANDIDATES``, none whose
        result the board search proved) searched until ``deadline``; the chosen line becomes the
        answer. ``answer.verified`` gets each candidate's mean and ``answer.horizon`` the result."""
        lines = candidate_lines(answer)
        if len(lines) < 2:
            return
        result = self.search(state, [line for _, line in lines], seed=seed, deadline=deadline)
        answer.horizon = result
        if result.depth == 0:
            return
        answer.verified_rounds = result.rounds[result.depth]
        answer.verified = {line[0]: mean for (_, line), mean in zip(lines, result.means[result.depth])}
        value, line = lines[result.choice]
        if list(line) != answer.actions:
            player = state.current_player()
            g = state.resample_hidden(player, random.Random(seed))
            texts = []
            for action in line:
                texts.append(g.action_text(action))
                g.apply(action)
            answer.actions, answer.value, answer.texts = list(line), value, texts

    # -- the search ----------------------------------------------------------------------------------
    def search(self, state: GameCore, lines: list[tuple[int, ...]], seed: int = 0, deadline: float | None = None,
               max_work: int | None = None) -> HorizonResult:
        """Which of ``lines`` (each a line of the player's decisions from ``state``, the player to
        move) wins most often over the following turns (module text). ``deadline`` and/or
        ``max_work`` bound it; with neither, the passes run their rounds to ``max_rounds``."""
        if not lines:
            raise ValueError("HorizonSearch.search: no candidate lines")
        if state.is_terminal():
            raise ValueError("HorizonSearch.search: the game is over")
        player = state.current_player()
        if player < 0:
            raise ValueError("HorizonSearch.search: the state is at a chance node; resolve it first")
        start = time.perf_counter()
        self._deadline, self._max_work = deadline, max_work
        self._work, self._leaves = 0, 0
        self._experts: dict[int, ExpertBot] = {}
        self._boards: dict = {}
        if self._board_search is not None:
            self._board_search.new_game()           # its table from an earlier search would change scores
        result = HorizonResult()
        rng = random.Random(seed ^ 0x40E1)
        depth, cost = 1, {}
        totals = {1: [0.0] * len(lines)}
        result.rounds[1] = 0
        try:
            while True:
                sample = rng.getrandbits(62)
                began, work = time.perf_counter(), self._work
                values = [self._line_value(state, player, line, sample, depth) for line in lines]
                totals[depth] = [t + v for t, v in zip(totals[depth], values)]
                result.rounds[depth] += 1
                cost[depth] = (time.perf_counter() - began, self._work - work)
                if result.rounds[depth] >= (self.max_rounds if depth == self.max_depth else self.pass_rounds):
                    if depth == self.max_depth or not self._deeper_fits(cost[depth], depth):
                        if result.rounds[depth] >= self.max_rounds:
                            break
                        continue
                    depth += 1
                    totals[depth], result.rounds[depth] = [0.0] * len(lines), 0
        except _Stop:
            pass
        result.means = {d: [t / result.rounds[d] for t in totals[d]] for d in totals if result.rounds[d]}
        decided = [d for d, n in result.rounds.items() if n >= self.min_rounds]
        if decided:
            result.depth = max(decided)
            means = result.means[result.depth]
            result.choice = max(range(len(lines)), key=lambda i: (means[i], -i))
        result.work, result.leaves, result.seconds = self._work, self._leaves, time.perf_counter() - start
        return result

    def _deeper_fits(self, cost: tuple[float, int], depth: int) -> bool:
        """Whether ``min_rounds`` rounds one turn deeper are expected to fit in what is left: a
        round's cost grows with the turns it plays, ``width`` times per turn, at least (d+1)/d."""
        growth = max(self.width, (depth + 1) / depth)
        seconds, work = cost[0] * growth * self.min_rounds, cost[1] * growth * self.min_rounds
        if self._deadline is not None and time.perf_counter() + seconds > self._deadline:
            return False
        return self._max_work is None or self._work + work <= self._max_work

    def _line_value(self, state: GameCore, player: int, line: tuple[int, ...], sample: int, depth: int) -> float:
        """The candidate ``line`` in the determinization ``sample``: the line, the rest of the turn
        by the expert, then ``depth`` whole turns searched (``_turns``)."""
        g = state.resample_hidden(player, random.Random(sample))
        g.auto_chance = True
        turn = g.turn
        for action in line:
            if g.is_terminal() or g.turn != turn:
                break
            g.apply(action)
        self._finish_turn(g, turn)
        return self._turns(g, player, depth)

    def _turns(self, g: GameCore, player: int, left: int) -> float:
        """The value for ``player`` of ``g`` where a turn begins, ``left`` whole turns searched: the
        best of the player's turn plans, the worst of the opponent's; at 0 the leaf."""
        if g.is_terminal():
            return 0.5 if g.winner is None else float(g.winner == player)
        if left == 0:
            return self._leaf(g, player)
        mine = g.current_player() == player
        best = None
        for child in self._turn_plans(g):
            value = self._turns(child, player, left - 1)
            if best is None or (value > best if mine else value < best):
                best = value
        return best

    def _turn_plans(self, g: GameCore) -> list[GameCore]:
        """The states after each of the mover's turn plans from ``g`` (a turn's beginning): the
        expert's whole turn, then (``width`` >= 2) the planner's best lines finished by the expert."""
        turn, mover = g.turn, g.current_player()
        first = g.clone()
        self._finish_turn(first, turn)
        children = [first]
        if self.width < 2:
            return children
        planner = TurnPlanner(max_nodes=self.plan_nodes, reply_depth=2, model=self.model, verify=False)
        plan = planner.plan(g, random.Random(g.turn * 7919 + mover))
        for _, line in plan.alternatives:
            if len(children) >= self.width:
                break
            if not line:
                continue
            child = g.clone()
            for action in line:
                if child.is_terminal() or child.turn != turn or action not in child.legal_actions():
                    break
                child.apply(action)
            self._finish_turn(child, turn)
            children.append(child)
        return children

    def _finish_turn(self, g: GameCore, turn: int) -> None:
        """Play ``g`` by the expert bot (each deciding player its own) until ``turn`` ends (one
        unit of work, which the budget must still allow when it begins)."""
        self._check()
        while not g.is_terminal() and g.turn == turn:
            self._check()
            mover = g.current_player()
            expert = self._experts.get(mover)
            if expert is None:
                expert = self._experts[mover] = ExpertBot(mover, depth=PLAYOUT_DEPTH, nodes=PLAYOUT_NODES, remember=False)
            g.apply(expert.choose(g))
        self._work += 1

    def _check(self) -> None:
        if self._max_work is not None and self._work >= self._max_work:
            raise _Stop()
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise _Stop()

    def _leaf(self, g: GameCore, player: int) -> float:
        """The chance that ``player`` wins from ``g`` where a turn begins: the learned model's
        log-odds with the board searched ``leaf_depth`` plies, the mover to move."""
        self._leaves += 1
        probe = g.board.copy()
        mover = g.current_player()
        probe.set_side(mover)
        key = (probe.key, mover, id(g.units))
        searched = self._boards.get(key)
        if searched is None:
            if self._board_search is None:
                self._board_search = AlphaBeta(g.units, tt_megabytes=4, evaluation=full_game_evaluation())
            searched = self._boards[key] = self._board_search.search(
                Position.from_core(probe, g.units), depth=self.leaf_depth, nodes=20_000).score
        score = float(searched if mover == player else -searched)
        if abs(score) > MATE - 1000:
            return 1.0 if score > 0 else 0.0
        z = logit(g, player, self.model, board_score=score)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
