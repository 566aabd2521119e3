"""The turn planner: a player's own decisions inside one turn searched together, as a one-player
search between chance events (issue 12).

A turn is many decisions (which card, which unit, which square, which order); a combination that
wins (a card that moves a unit and grants another order, then two captures) is a line through
several of them. ISMCTS samples such lines and can miss them; the planner enumerates them.

- The search runs on a determinization (``resample_hidden``): the opponent's hidden cards are a
  sample, never the real ones. A draw inside the turn is a chance node whose every outcome is
  searched (the player's own Deck is known as a multiset, C4); a decision the opponent takes inside
  the player's turn (Wanderlust) is searched as theirs (the worst for the player).
- ``find_win``: every sequence of the player's own decisions of the current turn, exhaustively (no
  pruning) through the Order and Action phases, with transpositions merged (the same state reached by two orders of the same moves is
  searched once), looking for a line after which the board decides the game for the player at the
  end of the turn (C2, 10.0; the variant's rule: ``variant.sovereign_check``). A node budget bounds
  it; ``complete`` says whether every line was seen.
- ``plan``: the best line by value: the same tree, the board at the end of the player's Order
  and Action phases (buying moves no unit) judged by the board alpha-beta with the opponent to move (their best reply, ``reply_depth``
  plies), so a line that loses the Sovereign to the reply scores as lost ("survive"); the cards
  count too: the learned evaluation of full states (``model``) with that searched board value,
  so a card spent on training is weighed against the Deck it leaves. A result the board search
  proves keeps its distance (engine/crown/survival.py): a loss three plies away beats a loss at
  once, and among losses at the same distance the line that keeps more defences for the next
  turn (the next hand's defensive cards, a blocker in the Barracks) wins; a win sooner beats a
  win later.

The end of a line's turn (issue 44): a line that stops before its turn does (the Buy phase) has
its board's turn ended as the game ends it (engine/crown/toolkit.py ``end_board_turn``), so the
reply search honours what the line laid on the next turn: Mourning's ban (C16, C20) as well as
False Orders' ban and immunity (the kernel keeps those).

Under threat (issue 44): when the board as it stands loses the Sovereign to the reply (a proved
loss), ``plan`` searches the first actions in rounds (``_search_shared``): each gets an equal share
of what is left of the budget, one that outgrows it waits for the next round, so a narrow defence
(a card's deploy) is valued even where decoys (cards of many combinations) would fill the budget.
A search that ends before every first action has its value but whose best line is not a proved
loss is ``defended``: the information-set search takes it rather than the prior's choice. With a
budget that sees the whole tree the plan is the same as without rounds.

A search cut short (issue 44): with ``narrow``, ``plan(state, rng, first=ACTION)`` searches
``first`` (the information-set search passes the prior's choice) before the other first actions, so a search the
budget ends early has valued every line of it (``Plan.covers``) and its answer, the best of the
first actions it covers, is at least as good as ``first`` by the planner's own measure.

Time, not nodes (issue 28): with a time budget (``seconds``, which the information-set search caps
to what is left of a decision's budget) the time bounds a search, and ``safety_nodes`` is only a
backstop far above what the time allows. ``plan`` then runs passes, each a complete search of its
kind, and the last complete pass is the answer; a pass is not started when the last one's time,
times its growth, would not fit. Without a time budget one pass at ``reply_depth`` within
``max_nodes`` runs (reproducible node for node, whatever the machine's load).

Narrow passes (issue 44; with ``narrow``, which the bot ``ismcts-narrow`` sets: not the AI's
default, since it has not passed an SPRT against the AI without it): a turn with a card that draws
is a tree of every draw's outcomes and of every decision the drawn cards open, which no budget of
seconds searches (hundreds of thousands of nodes for a discard-and-draw card, even with one outcome
of each draw; 0.5 s searches about 10,000), and before these passes the information-set search then
fell back to the prior's choice: in 159 of 242 Order-phase decisions of 4 games at 0.5 s a decision
(docs/crown.md). So the passes begin narrow, at reply depth 1, within ``NARROW_SHARE`` of the
budget: a pass of width W tries every first action, but below the top, at each of the player's own
decisions, only the W actions after which the board, were the turn to end there, is judged best
(``_judge_board``, the same searched value a line's end gets), with every card play and ending the
phase besides. At a draw it searches ``draw_samples`` outcomes (``DRAW_SAMPLES``, 1), drawn by
their probabilities (``_sample_outcomes``, systematic sampling; every outcome where a draw has no
more than that), and the line goes on with the cards drawn; such a line's value is an estimate (``Plan.sampled``)
and never a proved win or loss (``SAMPLED_WIN``). With ``draw_samples=0`` a narrow pass looks no
further than a draw: a line cut at a draw has only a guess for a value (the board before the card is
seen), so a first action whose best line is cut so is not among the pass's answers (``alternatives``),
and drawing is left to the prior's choice, the passes over the whole tree, and the next decision,
planned once the card is seen. The widths are ``widths`` (``PLAN_WIDTHS``, 2, 4 and 8). A narrow
pass that left nothing out (no decision had more choices and no draw was sampled or cut) is the
whole tree at reply depth 1. Then the passes over the whole tree (every action, every draw's
outcomes) run as they did before issue 44's change, reply depth 1, 2, ... up to
``max_reply_depth``, with the rest of the budget; the last complete one is the answer, and only
where none completes does a narrow answer stand. The information-set search takes a narrow answer
only when it covers the prior's choice and has a line at least ``OVERRIDE_MARGIN`` better
(``Plan.decides``): the planner overrules the prior where it sees a clear gain, by a line the
player can play. ``Plan.width`` says which pass answered (None: the whole tree). With ``widths=()``
the passes are those of before issue 44's change.

The verification (``verify``: with a time budget, or without one ``verify_rounds`` rounds): the board reply search sees the opponent's
board orders but not the cards of the opponent's next turn (a card that gives two orders, a deploy
next to the player's Sovereign). With time left after the passes, the best first actions by plan
value (``VERIFY_CANDIDATES`` within ``VERIFY_MARGIN``; lines whose result the board search proved
keep the survival order) are each played out on sampled determinizations: the candidate's line, the
rest of the player's turn and the opponent's whole turn by the expert bot (engine/crown/expert.py,
with the sampled hand), then the state where the player's next turn begins judged by the learned
model with the board searched, the player to move. Every candidate meets the same samples, round
after round (common random numbers), until the time or ``VERIFY_MAX_ROUNDS``; after at least
``VERIFY_MIN_ROUNDS`` the best mean becomes the answer. More time, more rounds: the choice among
lines the board search cannot tell apart rests on more of the opponent's possible turns. Without a
time budget, ``verify_rounds`` (0: none) rounds run: a review's fixed budget (engine/crown/analysis.py),
reproducible like the node-bounded passes (the expert's searches are node-bounded). ``verify_lines``
plays out any lines so, a review's played action among them.

>>> from engine.crown.scenario import scenario
>>> g = scenario("4k3/8/8/8/8/8/8/R3K3 w", supply=[])        # Ra1-a8 captures nothing yet
>>> TurnPlanner().find_win(g).winning
False
>>> g = scenario("4k3/8/8/8/8/8/8/4Q1K1 w", supply=[])
>>> win = TurnPlanner().find_win(g)
>>> win.winning, win.texts
(True, ['e1e8'])
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from engine import codes
from engine.board.alphabeta import MATE, AlphaBeta
from engine.board.evaluate import full_game_evaluation
from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import ACTION_PHASE, ORDER_PHASE, GameCore
from engine.crown.expert import ExpertBot
from engine.crown.phases import state_key
from engine.crown.state_eval import StateModel, default_model, logit
from engine.crown.survival import FORCED_LOGIT, defence_resources, forced_logit
from engine.position import Position

__all__ = ["TurnPlanner", "Plan", "WIN", "FORCED", "SAFETY_NODES", "ai_planner", "AI_PLAN_NODES", "AI_REPLY_DEPTH",
           "candidate_lines", "PLAYOUT_DEPTH", "PLAYOUT_NODES"]

#: The value of a line that wins the game (above every board value).
WIN = 10 * MATE
#: The most a line through sampled draws may be worth (``draw_samples``): above every proved result
#: but a won line, which it cannot prove (the outcomes not sampled may not win).
SAMPLED_WIN = WIN - 1.0
#: Where the values of results the board search proved begin (below WIN, above every other value):
#: 1000 x survival.FORCED_LOGIT.
FORCED = 1000.0 * FORCED_LOGIT
#: With a time budget, the node count that ends a search anyway (a backstop, not a budget).
SAFETY_NODES = 5_000_000
#: Plies a pass of iterative deepening may search the reply beyond ``reply_depth`` by default: none.
#: The reply depth is tuned (For the Crown: 3); deeper board replies model the opponent's card turn
#: no better: 40 games against the expert at 0.5 s a decision scored 80.0% with 2 more plies, side by
#: side with 81.2% for the planner before issue 28 (2 December 2026).
EXTRA_REPLY_PLIES = 0
#: How many of a draw's outcomes a narrow pass searches (module text "Narrow passes"; 0: it stops
#: the line at the draw), and the most it may be set to.
DRAW_SAMPLES = 1
MAX_DRAW_SAMPLES = 16
#: The narrow passes (module text "Narrow passes"): with a time budget, their widths, searched at
#: reply depth 1 before the passes over the whole tree.
PLAN_WIDTHS = (2, 4, 8)
#: How much better (1000 x log-odds) than the prior's choice the best line of a search that did not
#: see the whole turn must be for the information-set search to take it (``Plan.decides``): a
#: narrow or cut search overrules the expert's choice only where it sees a clear gain (material,
#: a proved result kept further off), not among lines its measure can hardly tell apart.
OVERRIDE_MARGIN = 500.0
#: The share of the budget the narrow passes may take; the passes over the whole tree have the rest:
#: most of it, since where a turn draws the whole tree seldom finishes and a narrow pass past the
#: draws takes thousands of nodes (median 1,858 at width 2 on docs/results.md's saved states).
NARROW_SHARE = 0.6
#: The verification of a plan (``TurnPlanner.plan`` with time left, module text): how many of the
#: best first actions it plays out, how far below the best plan value (1000 x log-odds) a line may
#: be and still be one of them, the rounds (one playout of every candidate) it needs before it may
#: change the plan's choice and the rounds after which more would not change it, and the share of
#: what is left of the time it may use.
VERIFY_CANDIDATES = 4
VERIFY_MARGIN = 1500.0
VERIFY_MIN_ROUNDS = 2
VERIFY_MAX_ROUNDS = 64
VERIFY_SHARE = 0.9
#: The expert bot that plays the turns of a playout (the verification's, and the horizon search's
#: in engine/crown/horizon.py): its board search depth and nodes a decision. A stronger one (depth 3,
#: 20,000 nodes) was measured at 0.5 s a decision and not taken: 52.3% over 88 games, undecided
#: (docs/results.md).
PLAYOUT_DEPTH = 2
PLAYOUT_NODES = 4_000

#: The full-game AI's planner (``ai_planner``): the node budget of a bot without time (ismcts:ITER,
#: reproducible node for node; a time-bound bot's time bounds it instead, SAFETY_NODES the
#: backstop) and the reply search's depth.
AI_PLAN_NODES = 4_000
AI_REPLY_DEPTH = 3

_DEFAULT = object()


def ai_planner(**options) -> TurnPlanner:
    """The turn planner of For the Crown's full-game AI (the registry's search pieces, the analysis):
    ``AI_PLAN_NODES`` nodes and reply depth ``AI_REPLY_DEPTH``; ``options`` are further
    ``TurnPlanner`` arguments (a seed, ``verify_rounds``). A time-bound bot (ismcts:1s, the server's
    levels) gives the planner its time: ISMCTS caps the planner's seconds to what is left of the
    decision's budget.

    >>> ai_planner(verify_rounds=8).verify_rounds
    8
    """
    return TurnPlanner(**{"max_nodes": AI_PLAN_NODES, "reply_depth": AI_REPLY_DEPTH, **options})


@dataclass
class Plan:
    """A line of the player's own decisions from the searched state: actions, their texts, the
    value for the player (WIN: the game is won at the end of the turn), the nodes searched and
    whether the search saw every line (``complete``) within its budget."""

    player: int
    actions: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    value: float = 0.0
    nodes: int = 0
    complete: bool = True
    seconds: float = 0.0

    @property
    def winning(self) -> bool:
        return self.value >= WIN

    #: Reply depth of the pass that gave this answer (``plan``; 0 for ``find_win``).
    reply_depth: int = 0
    #: The best line of each first action the search saw at the top, (value, actions), best first
    #: (``plan``; the verification's candidates).
    alternatives: list = field(default_factory=list, repr=False)
    #: The verification's rounds (0: none ran) and the mean playout result of each candidate's first
    #: action (``plan``).
    verified_rounds: int = 0
    verified: dict = field(default_factory=dict, repr=False)
    #: A search that did not see every line but proved a defence (``plan``, module text "Under
    #: threat"): the board as it stands loses the Sovereign to the reply, and the best line searched
    #: does not.
    defended: bool = False
    #: The horizon search's result when one judged the lines (``TurnPlanner.horizon``), else None.
    horizon: object = field(default=None, repr=False)
    #: Whether a search that did not see the whole turn may overrule the prior (``TurnPlanner``'s
    #: ``narrow``; ``decides``).
    overrules: bool = False
    #: Whether a draw's outcomes were sampled (a narrow pass with ``draw_samples``, module text "Narrow
    #: passes"): the values are estimates.
    sampled: bool = False
    #: The width of the narrow pass that gave this answer (``plan`` with a time budget, module text
    #: "Narrow passes"), None when every action of every decision was searched.
    width: int | None = None

    def decides(self, first: int | None) -> bool:
        """Whether this plan may decide in place of the prior, whose choice is ``first`` (None: not
        known): a won line, a proved defence (``defended``), a search of the whole tree, or, from
        a planner with ``narrow`` (``overrules``), one that covers ``first`` (a search cut short, or
        a narrow pass: module text) and has a line at least ``OVERRIDE_MARGIN`` better than the
        best that begins with it."""
        if self.winning or self.defended or (self.complete and self.width is None):
            return True
        if not self.overrules:
            return False
        valued = [v for v, line in self.alternatives if line and line[0] == first]
        return bool(valued) and max(v for v, _ in self.alternatives) >= valued[0] + OVERRIDE_MARGIN

    def covers(self, action: int) -> bool:
        """Whether the search valued every line that begins with ``action`` (``plan``: a first
        action whose search the budget did not cut): with ``complete`` false, the answer is still
        the best line among the first actions it covers."""
        return any(line and line[0] == action for _, line in self.alternatives)

    @property
    def score(self) -> float:
        """The value in [-1, 1] as the information-set search backs it up, order kept: +1 a won
        line, -1 a lost one; a result the board search proved in (0.95, 1) or (-1, -0.95), nearer
        the end the nearer it is; else 0.95 tanh(value / 2000)."""
        if self.winning:
            return 1.0
        if self.value <= -WIN:
            return -1.0
        if abs(self.value) >= FORCED / 2:
            return math.copysign(0.95 + 0.05 * min(1.0, abs(self.value) / WIN), self.value)
        return 0.95 * math.tanh(self.value / 2000.0)


def candidate_lines(answer: Plan) -> list[tuple[float, tuple[int, ...]]]:
    """The lines of a planner's ``answer`` worth searching, (plan value, line) best first: the best
    line of each first action within ``VERIFY_MARGIN`` of the best, at most ``VERIFY_CANDIDATES``,
    none whose result the board search proved (none at all when the answer's is proved)."""
    lines = [(v, line) for v, line in answer.alternatives if abs(v) < FORCED / 2 and line]
    if not lines or abs(answer.value) >= FORCED / 2:
        return []
    best = lines[0][0]
    return [(v, line) for v, line in lines if v >= best - VERIFY_MARGIN][:VERIFY_CANDIDATES]


class _Budget(Exception):
    """The node or time budget ran out."""


class TurnPlanner:
    """Searches the decisions of one turn. ``seconds`` (float | None, None): the time a search may
    take; with it the time bounds the search and ``safety_nodes`` (int, 5,000,000) is a backstop;
    without it ``max_nodes`` (int, 20,000) bounds it. ``reply_depth`` (int, 2) is the board
    alpha-beta's depth for the opponent's reply in ``plan``, and ``max_reply_depth`` (int | None:
    ``reply_depth``, at most 8) the deepest pass iterative deepening may reach with time left;
    ``seed`` seeds the determinizations; ``model``: the learned evaluation of full states
    (engine/crown/state_eval.py; default the shipped one, None: the board alone) that ``plan``
    judges a line's end by, with the searched board in place of the static one; ``verify`` (bool,
    True): with a time budget, play out the best lines through the opponent's next turn with the
    time left (module text).
    ``horizon`` (a ``HorizonSearch`` of engine/crown/horizon.py, or None): with a time budget, the
    best lines are judged by the whole turns that follow them, in place of the verification.
    ``verify_rounds`` (int, 0): without a time budget, the verification's rounds (0: none, the
    plan is the node-bounded pass's). ``narrow`` (bool, False): ``plan`` searches its ``first``
    action first and, with a time budget, runs the narrow passes, and its answers may overrule the
    prior's choice (module text "Narrow passes"; ``Plan.decides``); not the AI's default, since
    it has not passed an SPRT against the AI without it (docs/results.md). ``widths`` (tuple of
    increasing ints >= 1, ``PLAN_WIDTHS``): the narrow passes' widths ((): none)."""

    def __init__(self, max_nodes: int = 20_000, seconds: float | None = None, reply_depth: int = 2,
                 seed: int = 0, model: StateModel | None | object = _DEFAULT, safety_nodes: int = SAFETY_NODES,
                 max_reply_depth: int | None = None, verify: bool = True, horizon=None, verify_rounds: int = 0,
                 widths: tuple[int, ...] = PLAN_WIDTHS, narrow: bool = False, draw_samples: int = DRAW_SAMPLES):
        if max_nodes < 1 or safety_nodes < 1:
            raise ValueError("TurnPlanner: max_nodes and safety_nodes must be >= 1")
        if not 0 <= verify_rounds <= VERIFY_MAX_ROUNDS:
            raise ValueError(f"TurnPlanner: verify_rounds must be 0..{VERIFY_MAX_ROUNDS}")
        if seconds is not None and seconds <= 0:
            raise ValueError("TurnPlanner: seconds must be positive")
        if not 1 <= reply_depth <= 8:
            raise ValueError("TurnPlanner: reply_depth must be 1..8")
        if max_reply_depth is None:
            max_reply_depth = min(8, reply_depth + EXTRA_REPLY_PLIES)
        if not reply_depth <= max_reply_depth <= 8:
            raise ValueError("TurnPlanner: max_reply_depth must be from reply_depth to 8")
        if any(w < 1 for w in widths) or list(widths) != sorted(set(widths)):
            raise ValueError("TurnPlanner: widths must be increasing integers >= 1")
        if not 0 <= draw_samples <= MAX_DRAW_SAMPLES:
            raise ValueError(f"TurnPlanner: draw_samples must be 0..{MAX_DRAW_SAMPLES}")
        self.draw_samples = draw_samples
        self.widths = tuple(widths)
        self.narrow = narrow
        self.max_nodes = max_nodes
        self.safety_nodes = safety_nodes
        self.max_reply_depth = max_reply_depth
        self.seconds = seconds
        self.reply_depth = reply_depth
        self.seed = seed
        self.model = default_model() if model is _DEFAULT else model
        self.verify = verify
        self.verify_rounds = verify_rounds
        self.horizon = horizon
        self._board_search: AlphaBeta | None = None
        self._experts: dict[int, ExpertBot] = {}
        self._boards: dict = {}                   # (board key, side, reply depth, catalog) -> the board search's score

    def __getstate__(self):
        return {**self.__dict__, "_board_search": None, "_boards": {}, "_experts": {}}   # rebuilt in a worker

    def __repr__(self) -> str:
        return (f"TurnPlanner(max_nodes={self.max_nodes}, seconds={self.seconds}, reply_depth={self.reply_depth}, "
                f"max_reply_depth={self.max_reply_depth})")

    # -- public API ------------------------------------------------------------------------------
    def plans(self, state: GameCore, player: int) -> bool:
        """Whether the search takes ``player``'s decision in ``state`` from ``plan``: the player's
        own Order and Action phases (engine/search/ismcts.py, ``plan_own_turn``)."""
        return state.current == player and state.phase in (ORDER_PHASE, ACTION_PHASE)

    def find_win(self, state: GameCore, rng: random.Random | None = None) -> Plan:
        """A line of this turn that wins the game, if one exists (``Plan.winning``)."""
        return self._run(state, rng, judge=False)

    def plan(self, state: GameCore, rng: random.Random | None = None, first: int | None = None) -> Plan:
        """The best line of this turn's Order phase (a winning line if there is one). With a time
        budget: iterative deepening of the reply search (module text), the deepest complete pass.
        ``first`` (an action, or None): with ``narrow``, searched before the other first actions,
        so that a search the budget cuts short has valued it (``Plan.covers``; module text "A search
        cut short"); without it, ignored."""
        first = first if self.narrow else None
        if self.seconds is None:
            answer = self._untimed_plan(state, rng, first)
        else:
            answer = self._timed_plan(state, rng, first)
        answer.overrules = self.narrow
        return answer

    def _untimed_plan(self, state: GameCore, rng: random.Random | None, first: int | None) -> Plan:
        """``plan`` without a time budget: one pass within ``max_nodes`` (and the verification's
        ``verify_rounds``)."""
        if not (self.verify and self.verify_rounds):
            answer = self._run(state, rng, judge=True, first=first)
        else:
            seed = (rng or random.Random(self.seed)).getrandbits(62)
            answer = self._run(state, random.Random(seed), judge=True, first=first)
            if answer.complete and not answer.winning:
                self._verify(state, answer, seed, math.inf, self.verify_rounds)
        return answer

    def _timed_plan(self, state: GameCore, rng: random.Random | None, first: int | None) -> Plan:
        """``plan`` with a time budget: the passes (module text "Time, not nodes", "Narrow passes"),
        then the verification or the horizon search with the time left."""
        assert self.seconds is not None
        start = time.perf_counter()
        deadline = start + self.seconds
        seed = (rng or random.Random(self.seed)).getrandbits(62)     # every pass: the same determinization
        answer: Plan | None = None
        nodes, last, growth = 0, 0.0, 3.0
        narrow_until = start + (deadline - start) * NARROW_SHARE
        exact_from = 1
        for width in (self.widths if self.narrow else ()):    # the narrow passes (module text)
            left = narrow_until - time.perf_counter()
            if left <= 0 or (answer is not None and last * growth > left):
                break
            passed = time.perf_counter()
            plan = self._run(state, random.Random(seed), judge=True, reply_depth=1, deadline=narrow_until,
                             first=first, width=width)
            took = time.perf_counter() - passed
            nodes += plan.nodes
            if last > 0 and took > 0:
                growth = max(1.5, took / last)
            last = took
            if not plan.complete:
                break
            answer = plan
            if plan.winning:
                break
            if not (self._narrowed or self._draws_cut or self._sampled):
                plan.width, exact_from = None, 2  # nothing was left out: the whole tree at reply depth 1
                break
        if exact_from == 1:
            last, growth = 0.0, 3.0               # the whole tree's passes time themselves
        for depth in range(exact_from, self.max_reply_depth + 1):
            if answer is not None and answer.winning:
                break
            left = deadline - time.perf_counter()
            if depth > 1 and (left <= 0 or last * growth > left):
                break                             # the next pass would not finish in time
            passed = time.perf_counter()
            plan = self._run(state, random.Random(seed), judge=True, reply_depth=depth, deadline=deadline,
                             first=first)
            took = time.perf_counter() - passed
            nodes += plan.nodes
            if last > 0 and took > 0:
                growth = max(1.5, took / last)
            last = took
            if plan.complete or answer is None:
                answer = plan
            if not plan.complete or plan.winning or plan.value <= -WIN:
                break                             # out of time, or nothing deeper can change it
        assert answer is not None
        if self.verify and answer.complete and not answer.winning:
            if self.horizon is None:
                self._verify(state, answer, seed, start + (deadline - start) * VERIFY_SHARE, VERIFY_MAX_ROUNDS)
            else:
                self.horizon.refine(state, answer, seed, start + (deadline - start) * VERIFY_SHARE)
        answer.nodes, answer.seconds = nodes, time.perf_counter() - start
        return answer

    # -- the verification ------------------------------------------------------------------------
    def verify_lines(self, state: GameCore, lines, seed: int, rounds: int = VERIFY_MAX_ROUNDS,
                     deadline: float = math.inf) -> tuple[list[float], int]:
        """Each of ``lines`` (tuples of the player to move's actions from ``state``, each at least its
        first) played out round after round on the same determinizations (common random numbers,
        drawn from ``seed``): the line, the rest of the turn and the opponent's whole turn by the
        expert bot, then the state where the player's next turn begins judged (``_playout``). Stops
        after ``rounds`` rounds or at ``deadline`` (a ``time.perf_counter()`` value; a round cut
        short does not count). Returns (each line's mean chance to win, complete rounds); with no
        complete round the means are 0.5.

        >>> from engine.crown.scenario import scenario
        >>> g = scenario("4k3/8/8/8/8/8/8/R3K3 w", supply=[])
        >>> means, rounds = TurnPlanner().verify_lines(g, [(g.legal_actions()[0],)], seed=1, rounds=2)
        >>> rounds, 0.0 <= means[0] <= 1.0
        (2, True)
        """
        lines = [tuple(line) for line in lines]
        if not lines or any(not line for line in lines):
            raise ValueError("verify_lines: every line needs at least its first action")
        legal = state.legal_actions()
        for line in lines:
            if line[0] not in legal:
                raise ValueError(f"verify_lines: {line[0]!r} is not legal at this decision")
        player = state.current_player()
        totals = [0.0] * len(lines)
        done = 0
        rng = random.Random(seed ^ 0x7E51F1)
        try:
            while done < rounds:
                sample = rng.getrandbits(62)
                results = [self._playout(state, player, line, sample, deadline) for line in lines]
                for i, r in enumerate(results):
                    totals[i] += r
                done += 1
                if time.perf_counter() >= deadline:
                    break
        except _Budget:
            pass
        return [total / done if done else 0.5 for total in totals], done

    def _verify(self, state: GameCore, answer: Plan, seed: int, deadline: float, rounds: int) -> None:
        """The best first actions by plan value (within ``VERIFY_MARGIN`` of the best, at most
        ``VERIFY_CANDIDATES``, none whose result the board search proved) played out by
        ``verify_lines`` within ``deadline`` and ``rounds``; after ``VERIFY_MIN_ROUNDS`` complete
        rounds the candidate with the best mean becomes the answer."""
        lines = candidate_lines(answer)
        if len(lines) < 2:
            return
        means, done = self.verify_lines(state, [line for _, line in lines], seed, rounds, deadline)
        answer.verified_rounds = done
        if done < VERIFY_MIN_ROUNDS:
            return
        answer.verified = {line[0]: mean for (_, line), mean in zip(lines, means)}
        chosen = max(range(len(lines)), key=lambda i: (means[i], lines[i][0]))
        if lines[chosen][1] != tuple(answer.actions):
            value, line = lines[chosen]
            answer.actions, answer.value = list(line), value
            answer.texts = _texts(state.resample_hidden(state.current_player(), random.Random(seed)), line)

    def _playout(self, state: GameCore, player: int, line: tuple[int, ...], sample: int, deadline: float) -> float:
        """One playout of ``line`` in the determinization ``sample`` (module text): the player's
        chance to win where its next turn begins (``_judge_turn``), 1 or 0 when the game ends first."""
        g = state.resample_hidden(player, random.Random(sample))
        g.auto_chance = True
        for action in line:
            g.apply(action)
        turn = g.turn
        while not g.is_terminal():
            mover = g.current_player()
            if mover == player and g.turn != turn:
                break
            if time.perf_counter() > deadline:
                raise _Budget()
            expert = self._experts.get(mover)
            if expert is None:
                expert = self._experts[mover] = ExpertBot(mover, depth=PLAYOUT_DEPTH, nodes=PLAYOUT_NODES, remember=False)
            g.apply(expert.choose(g))
        if g.is_terminal():
            return 0.5 if g.winner is None else float(g.winner == player)
        return self._judge_turn(g, player)

    def _judge_turn(self, g: GameCore, player: int) -> float:
        """The chance that ``player`` wins from ``g``, its turn to begin: the learned model's
        log-odds with the board searched to ``reply_depth`` plies, the player to move."""
        probe = g.board.copy()
        probe.set_side(player)
        score = float(self._board_score(probe, g.units, self.reply_depth))
        if abs(score) > MATE - 1000:
            return 1.0 if score > 0 else 0.0
        z = score / 400.0 if self.model is None else logit(g, player, self.model, board_score=score)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def _board_score(self, probe, units, depth: int) -> int:
        """The board search's score of ``probe`` for its side to move, ``depth`` plies. Many lines
        and playouts end on the same board with other cards (transpositions the card state keeps
        apart): the answer depends on the board alone, so a board is searched once per pass."""
        board_key = (probe.key, probe.side, depth, id(units))
        searched = self._boards.get(board_key)
        if searched is None:
            if self._board_search is None:
                self._board_search = AlphaBeta(units, tt_megabytes=4, evaluation=full_game_evaluation())
            searched = self._boards[board_key] = self._board_search.search(
                Position.from_core(probe, units), depth=depth, nodes=20_000).score
        return searched

    # -- the search ------------------------------------------------------------------------------
    def _run(self, state: GameCore, rng, judge: bool, reply_depth: int | None = None,
             deadline: float | None = None, first: int | None = None, width: int | None = None) -> Plan:
        if state.is_terminal():
            raise ValueError("TurnPlanner: the game is over")
        player = state.current_player()
        if player < 0:
            raise ValueError("TurnPlanner: the state is at a chance node; resolve it first")
        rng = rng or random.Random(self.seed)
        root = state.resample_hidden(player, rng)
        root.auto_chance = False                  # draws are chance nodes: every outcome is searched
        # ... or, in a narrow pass with draw_samples, a sample of them (module text "Narrow passes").
        self._samples = self.draw_samples if judge and width is not None else 0
        self._sampled = False
        self._draw_rng = random.Random(rng.getrandbits(62)) if self._samples else None
        replay = root.clone()                     # names the line's actions afterwards (_texts)
        self._player, self._turn, self._judge = player, root.turn, judge
        self._depth = self.reply_depth if reply_depth is None else reply_depth
        self._nodes = 0
        self._seen: dict = {}
        self._boards: dict = {}                   # (board key, side, reply depth, catalog) -> the board search's score
        self._complete = True
        self._first, self._width, self._narrowed, self._draws_cut = first, width, False, 0
        start = time.perf_counter()
        if deadline is None and self.seconds is not None:
            deadline = start + self.seconds
        self._deadline = deadline
        self._node_cap = self.max_nodes if deadline is None else self.safety_nodes
        self._share_nodes, self._share_deadline = self._node_cap, deadline
        self._alternatives: list = []
        threatened = judge and self._leaf(root) is None and self._judge_board(root) <= -FORCED / 2
        if threatened:
            value, line = self._search_shared(root)
        else:
            value, line = self._search(root, top=True)
        plan = Plan(player, list(line), [], value, self._nodes, self._complete, time.perf_counter() - start,
                    self._depth if judge else 0, width=width)
        plan.defended = threatened and not self._complete and value > -FORCED / 2
        plan.sampled = self._sampled
        plan.alternatives = sorted(self._alternatives, key=lambda vl: -vl[0])
        plan.texts = _texts(replay, plan.actions)
        return plan

    def _search(self, g: GameCore, top: bool = False) -> tuple[float, tuple[int, ...]]:
        """(value for the player, best line) of the player's decisions from ``g``. At the ``top``
        a budget that runs out ends the search with the best line of the actions searched so far."""
        self._nodes += 1
        if not top and (self._nodes > self._share_nodes or (
                self._share_deadline is not None and self._nodes % 64 == 0
                and time.perf_counter() > self._share_deadline)):
            raise _Budget()
        if g.is_chance_node() and g.turn == self._turn:
            if self._width is not None and not self._samples:
                self._draws_cut += 1
                # A narrow pass looks no further than a draw; one before more of the player's own
                # decisions cuts the line (the end of the turn's draw decides nothing of it).
                return self._judge_board(g), ((_AT_DRAW,) if g.phase in (ORDER_PHASE, ACTION_PHASE) else ())
            return self._chance(g), ()
        leaf = self._leaf(g)
        if leaf is not None:
            return leaf, ()
        mine = g.current_player() == self._player
        key = None
        if g.decision.frame is None:
            key = (state_key(g), g.phase, g.orders, g.actions, g.buys, g.gold, g.discount, g.bought,
                   tuple(g.card_order_ban), tuple(sorted(g.barracks_ordered[0].items())),
                   tuple(sorted(g.barracks_ordered[1].items())))
            if key in self._seen:
                return self._seen[key]
        best: tuple[float, tuple[int, ...]] | None = None
        for action, child in self._children(g, top, mine):
            try:
                value, line = self._search(child)
            except _Budget:
                if not top:
                    raise
                self._complete = False
                break
            if top:
                if _cut_at_draw(value, line):
                    continue                      # its value is a guess: not an answer (module text)
                line = _without_mark(line)
                self._alternatives.append((value, (action,) + line))
            if mine:
                if best is None or value > best[0]:
                    best = (value, (action,) + line)
                    if value >= WIN:
                        break
            elif best is None or value < best[0]:   # the opponent's choice inside our turn
                best = (value, ())
                if value <= -WIN:
                    break
        if best is None:                          # the budget ran out before the first line
            return self._judge_board(g), ()
        if key is not None:
            self._seen[key] = best
        return best

    def _search_shared(self, g: GameCore) -> tuple[float, tuple[int, ...]]:
        """The top of ``plan`` under threat (module text), in rounds: in each round every first
        action not yet valued is searched, in ``_ordered``'s order, within an equal share of what
        was left of the budget (nodes, and time when there is a deadline) when the round began; one
        that outgrows its share is set aside for the next round, whose shares are larger (fewer
        first actions share what is left; the lines a set-aside search finished are remembered).
        The rounds end when every first action has its value, a line wins, the budget is spent, or
        a round values none. A budget large enough for the whole tree gives the plan of ``_search``:
        every first action ends with its exact value, and the best is chosen in the same order."""
        self._nodes += 1                          # the root, as _search counts it
        actions = self._top_ordered(g)
        results: dict[int, tuple[float, tuple[int, ...]]] = {}
        pending, won = actions, False
        deadline = self._deadline
        while pending and not won and not self._spent():
            nodes = max(1, (self._node_cap - self._nodes) // len(pending))
            seconds = None if deadline is None else (deadline - time.perf_counter()) / len(pending)
            valued = 0
            for action in pending:
                if self._spent():
                    break
                self._share_nodes = min(self._node_cap, self._nodes + nodes)
                self._share_deadline = None if deadline is None or seconds is None else \
                    min(deadline, time.perf_counter() + seconds)
                child = g.clone()
                child.apply(action)
                try:
                    results[action] = self._search(child)
                except _Budget:
                    continue                      # set aside for the next round
                valued += 1
                if results[action][0] >= WIN:
                    won = True
                    break
            pending = [a for a in pending if a not in results]
            if not valued:
                break
        self._share_nodes, self._share_deadline = self._node_cap, self._deadline
        self._complete = won or not pending
        best: tuple[float, tuple[int, ...]] | None = None
        for action in actions:                    # the order of _search: the same choice among equals
            if action not in results:
                continue
            value, line = results[action]
            if _cut_at_draw(value, line):
                continue
            line = _without_mark(line)
            self._alternatives.append((value, (action,) + line))
            if best is None or value > best[0]:
                best = (value, (action,) + line)
        if best is None:
            return self._judge_board(g), ()
        return best

    def _spent(self) -> bool:
        """Whether the whole budget (nodes or time) is used up."""
        return self._nodes > self._node_cap or (self._deadline is not None and time.perf_counter() > self._deadline)

    def _chance(self, g: GameCore) -> float:
        """A draw inside the turn: every outcome is searched. ``find_win`` counts a line as winning
        only if it wins whatever is drawn (the worst outcome); ``plan`` takes the expectation, over
        a sample of the outcomes where there are more than ``draw_samples`` (``_sample_outcomes``)."""
        values = []
        outcomes = g.chance_outcomes()
        sampled = bool(self._samples) and len(outcomes) > self._samples
        if sampled:
            assert self._draw_rng is not None
            outcomes = _sample_outcomes(outcomes, self._samples, self._draw_rng)
            self._sampled = True
        for card, probability in outcomes:
            child = g.clone()
            child.apply(card)
            values.append((self._search(child)[0], probability))
        if not self._judge:
            return min(v for v, _ in values)
        value = sum(v * p for v, p in values)
        if sampled:                               # an estimate: a won or lost sample proves nothing
            value = min(max(value, -SAMPLED_WIN), SAMPLED_WIN)
        return value

    def _leaf(self, g: GameCore) -> float | None:
        """The value of ``g`` when the player's part of the turn ends there, else None. A decision
        of the opponent inside the player's turn (Wanderlust) is searched, not a leaf."""
        player = self._player
        if g.is_terminal():
            if g.winner is None:
                return 0.0
            return WIN if g.winner == player else -WIN
        if g.turn != self._turn:
            return self._judge_board(g)
        if g.phase not in (ORDER_PHASE, ACTION_PHASE) and g.decision.frame is None:
            return self._judge_board(g)           # buying changes no unit: the board is final
        return None

    def _judge_board(self, g: GameCore) -> float:
        """The board as it stands: WIN/-WIN when it decides the game at the end of the turn, else
        (``plan``) the opponent's best reply by the board alpha-beta, negated; 0 for ``find_win``."""
        player = self._player
        if g.is_terminal():
            return 0.0 if g.winner is None else (WIN if g.winner == player else -WIN)
        if g.current_player() == player and g.turn == self._turn:
            decided = g.variant.sovereign_check(g, player)
            if decided is not None:
                return WIN if decided[0] == player else -WIN
        if not self._judge:
            return 0.0
        probe = g.board.copy()
        if g.turn == self._turn:
            # The turn ends as the game ends it: a ban the line laid for the next turn (Mourning's,
            # C16, C20) holds in the reply search, which the kernel's end of a turn alone forgets.
            tk.end_board_turn(probe, player, 1 - player)
            probe.set_side(1 - player)
        searched = self._board_score(probe, g.units, self._depth)
        score = float(-searched if probe.side != player else searched)
        if abs(score) > MATE - 1000:
            # A proved result keeps its distance (engine/crown/survival.py): plies from the reply.
            plies = int(MATE - abs(score))
            resources = defence_resources(g, player) if score < 0 else 0.0
            return 1000.0 * forced_logit(plies, score > 0, resources)
        if self.model is None:
            return score
        # The cards too: the learned model's log-odds with the searched board in place of the
        # static one (a card spent on training shows as units gained and a card lost).
        return 1000.0 * logit(g, player, self.model, board_score=score)

    def _children(self, g: GameCore, top: bool, mine: bool):
        """(action, the state after it) for the actions ``_search`` tries at ``g``, in order: at the
        ``top`` every first action (``first`` before the others); below it, in a narrow pass
        (``width``), at the player's own decisions only the ``width`` actions whose boards, were the
        turn to end there, judge best (module text "Narrow passes"), with every card play and
        ending the phase; else every action."""
        if top:
            actions = self._top_ordered(g)
        else:
            actions = self._ordered(g)
            width = self._width
            if width is not None and mine and len(actions) > width + 1:
                return self._narrow(g, actions, width)
        return ((action, _after(g, action)) for action in actions)

    def _narrow(self, g: GameCore, actions: list[int], width: int) -> list[tuple[int, GameCore]]:
        """The children of a narrow pass's node (``_children``), best first by their stop value."""
        kept, ranked = [], []
        for action in actions:
            child = _after(g, action)
            if action == A.DONE or (not A.is_order(action) and A.kind_of(action) == A.K_PLAY):
                kept.append((action, child))
                continue
            if self._share_deadline is not None and time.perf_counter() > self._share_deadline:
                raise _Budget()
            stop = None if child.is_chance_node() and child.turn == self._turn else self._leaf(child)
            ranked.append((-(self._judge_board(child) if stop is None else stop), len(ranked), action, child))
        ranked.sort()
        if len(ranked) > width:
            self._narrowed = True
        return [(action, child) for _, _, action, child in ranked[:width]] + kept

    def _top_ordered(self, g: GameCore) -> list[int]:
        """The first actions in ``_ordered``'s order, but ``first`` (``plan``'s) before the others."""
        actions = self._ordered(g)
        if self._first in actions:
            actions.remove(self._first)
            actions.insert(0, self._first)
        return actions

    def _ordered(self, g: GameCore) -> list[int]:
        """The player's actions, the likely good first: captures of a Sovereign, other captures,
        card plays, other orders, and ending the phase last."""
        board = g.board
        units = g.units.units

        def rank(action: int) -> int:
            if A.is_order(action):
                if codes.order_kind(action) in (codes.ATTACK, codes.SHOOT):
                    victim = board.unit_on(codes.order_dest(action))
                    if victim is not None and victim[1] != self._player:
                        return 0 if units[victim[0]].is_sovereign else 1
                return 3
            if action == A.DONE:
                return 5
            return 2 if A.kind_of(action) == A.K_PLAY else 4

        return sorted(g.legal_actions(), key=rank)


#: The end of a narrow pass's line cut at a draw (never an action): its value judges the board
#: before the card is seen.
_AT_DRAW = -1


def _cut_at_draw(value: float, line: tuple[int, ...]) -> bool:
    """Whether a line's value is its board's at a draw (a win the board already decides is a win)."""
    return bool(line) and line[-1] == _AT_DRAW and value < WIN


def _sample_outcomes(outcomes: list[tuple[int, float]], k: int, rng: random.Random) -> list[tuple[int, float]]:
    """``k`` draws of a chance node's (outcome, probability) list by systematic sampling: the points
    u, u + 1/k, ..., u + (k-1)/k of one uniform u in [0, 1/k) on the outcomes' cumulative
    probabilities, each outcome weighted by the share of points it took (an unbiased estimate of
    the expectation; an outcome more likely than 1/k is always among them).

    >>> _sample_outcomes([(0, 0.5), (1, 0.25), (2, 0.125), (3, 0.125)], 2, random.Random(1))
    [(0, 0.5), (1, 0.5)]
    """
    start = rng.random() / k
    weights: dict[int, float] = {}
    cumulative, index = outcomes[0][1], 0
    for point in range(k):
        u = start + point / k
        while u >= cumulative and index < len(outcomes) - 1:
            index += 1
            cumulative += outcomes[index][1]
        card = outcomes[index][0]
        weights[card] = weights.get(card, 0.0) + 1.0 / k
    return list(weights.items())


def _without_mark(line: tuple[int, ...]) -> tuple[int, ...]:
    return line[:-1] if line and line[-1] == _AT_DRAW else line


def _after(g: GameCore, action: int) -> GameCore:
    """A clone of ``g`` with ``action`` applied."""
    child = g.clone()
    child.apply(action)
    return child


def _texts(g: GameCore, actions) -> list[str]:
    """The texts of ``actions`` played one after another from ``g`` (which they change)."""
    texts = []
    for action in actions:
        texts.append(g.action_text(action))
        g.apply(action)
    return texts
