"""Information-set Monte Carlo tree search for any registered game (single-observer SO-ISMCTS,
after Cowling, Powley & Whitehouse 2012 and OpenSpiel's ``ismcts``), over the state protocol only
(engine/games/protocol.py): ``current_player`` (a player, ``CHANCE`` or ``TERMINAL``),
``legal_actions``, ``chance_outcomes``, ``apply``, ``returns``, ``resample_hidden``, ``public_key``,
``action_text``, ``record`` (root parallelism) and ``clone``. For a game without hidden
information ``resample_hidden`` is a clone, so the same code is plain MCTS.

**The game's pieces** come by injection: what is not given to ``ISMCTS`` is taken from the game's
registry entry (``Game.search``, a ``SearchPieces``; engine/games/registry.py) for the game of the
state searched (``state.game``), or of ``game`` when named: an ``evaluator(state, player)`` that
judges a cut playout, a ``playout`` policy, a PUCT ``prior``, a turn ``planner``, a ``prune`` of the
actions the tree considers, and settings (``SETTINGS``). A game with no pieces is searched with
random playouts to the end of the game and UCB1 over every legal action. For the Crown's pieces
live in engine/crown/pieces.py and planner.py, King's Ransom's in engine/ransom/players.py.

Who takes a decision (``ISMCTS._decide_without_tree``; ``SearchStats.source``), when the game has
a planner or a prior: a win this turn found by the planner ("win"); the prior's choice in the
game's ``trusted_phases`` ("prior"); the planner's best line where the planner plans
(``planner.plans(state, player)``: For the Crown's own Order and Action phases) ("plan"), or the
prior's choice when the line cannot be finished in budget; everything else by the tree.

The searching player sees only its own information set. Every iteration starts from a
*determinization*: ``state.resample_hidden(root_player, rng)``, a full state consistent with what
the root player may know. That call is the only way the search looks at the state (and
``state.game``, which game it is): it never reads hidden fields, so two states the root player
cannot tell apart give the identical search (tests/search/test_ismcts.py checks it with a guarded
state).

One iteration: determinize; descend the single tree by UCB1 over the actions legal in this
determinization, using *availability counts* (a child's "parent visits" are the times it was legal
when its parent was visited); expand one node; play out with the playout policy, optionally cut
after ``max_playout_turns`` turns (``turn_of``; a game without turns counts decisions) and scored by
the evaluator; back the returns up. Returns are a vector over the n players (max-n): each node is
scored from the perspective of the player who chose the action leading to it, with that
player's own return. Chance is sampled from ``chance_outcomes`` (or resolved inside ``apply`` by a
state with ``auto_chance``), so the tree has no chance nodes; nodes are keyed by integer actions.

A turn may be many decisions: ``plan_turn`` searches and plays the best action repeatedly while the
same player decides within the same turn and returns the whole plan with its value. Budgets:
iterations and/or seconds, whichever ends first; with an iteration budget a seed makes the result
reproducible. Root parallelism: ``processes`` > 1 splits the iterations over a process pool
(worker i uses seed + i; the workers rebuild the state from its ``record()`` through the
registry's ``replay``) and sums the root statistics.

>>> from engine.games.registry import new_state
>>> bot = ISMCTS(iterations=200, seed=1)
>>> stats = bot.search(new_state("crown", {"seed": 3}))          # doctest: +SKIP
>>> plan = bot.plan_turn(new_state("kings-ransom", {"seed": 3}))  # doctest: +SKIP
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import random
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from engine.board.timeman import capped_seconds
from engine.games import registry

__all__ = ["ISMCTS", "Evaluator", "Playout", "RandomPlayout", "RootAware", "EveryPlayer", "SETTINGS", "SearchStats",
           "TurnPlan", "step_line"]

def step_line(step: int, text: str, value: float, iterations: int, seconds: float) -> str:
    """One step of ``ISMCTS.plan_turn``'s progress as a line for people (`ftc analyze`)."""
    return f"step {step}: {text}  (value {value:+.3f}, {iterations} iterations, {seconds:.1f}s)"


# -- playout policies --------------------------------------------------------------------------
class Playout(Protocol):
    """A playout policy: picks one legal action of the player to decide in ``state``."""

    def choose(self, state, rng: random.Random) -> int: ...


@runtime_checkable
class RootAware(Protocol):
    """A piece (prune, prior or playout) that is told each search's root before the search starts,
    in the searching process (root-parallel workers inherit what it learned): Crownfall's rank the
    root player's own turn with its expert."""

    def begin_search(self, state, player: int) -> None: ...


@runtime_checkable
class EveryPlayer(Protocol):
    """An evaluator that also gives every player's value in one call (``values(state)``, one per
    player), asked for games of more than two players instead of one call per player."""

    def values(self, state) -> list[float]: ...


class RandomPlayout:
    """Uniformly random over the legal actions."""

    def choose(self, state, rng: random.Random) -> int:
        return rng.choice(state.legal_actions())

    def __repr__(self) -> str:
        return "RandomPlayout()"


# -- evaluation --------------------------------------------------------------------------------
Evaluator = Callable[[object, int], float]


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
    #: Root visits that came with a reused subtree (the previous search's tree below its chosen
    #: action, ``reuse_tree``): ``visits`` counts them with this search's own ``iterations``.
    carried: int = 0

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


_DEFAULT = object()

#: The pieces a game gives (``SearchPieces``' factories): None, the search goes without it.
PIECES = ("evaluator", "prior", "playout", "planner", "prune")
#: The share of a decision's time budget the planner's search for a win this turn may take.
FIND_WIN_SHARE = 0.4
#: The settings a game may give (``SearchPieces.options``) and their values when neither the game
#: nor the caller gives one. ``turn_of(state)``: the number of the turn in play (None: every decision
#: is a turn); ``phase_of(state)``: the label of the decision's phase that ``trusted_phases`` names
#: (None: no phase is trusted); ``decided(state)``: the winner of a state whose outcome is already
#: known though the game goes on (a cut playout there is won or lost, whatever the evaluator says),
#: or None.
SETTINGS = {"c": 0.7, "c_prior": 1.5, "max_playout_turns": None, "trusted_phases": (), "turn_of": None,
            "phase_of": None, "decided": None}


class ISMCTS:
    """Information-set MCTS for any registered game, with the game's pieces (the module says how).

    Options (type, default; "the game's": the game's registry entry, ``SearchPieces``):

    - ``iterations`` (int | None, 1000) and/or ``seconds`` (float | None, None): the budget of one
      decision, whichever ends first (at least one); the planner's time counts against it.
    - ``game`` (str | None): bind the pieces of this registered game now; else they are bound at
      the first search from the state's game (and again when a state of another game comes).
    - ``planner`` (the game's): a win within the turn is searched exhaustively first; with
      ``plan_own_turn`` (bool, True) the decisions it plans (``planner.plans(state, player)``)
      follow its best line (``_decide_without_tree``).
    - ``prior`` (the game's; ``suggest(state, rng)`` and ``weight``): its choice as the tree's prior
      (PUCT with ``c_prior``, float, 1.5; None: UCB1 with ``c``, float, 0.7, every action tried
      first), and the choice taken at once in ``trusted_phases`` (the game's, else ()) and when the
      plan cannot finish.
    - ``playout`` (the game's, else ``RandomPlayout()``; None: the same), ``max_playout_turns``
      (int | None, or a function of the playout's first state giving the int: the game's when
      there is an evaluator, else None) and ``evaluator`` (the
      game's; ``evaluator(state, player)`` in [-1, 1]; with two players the game is taken as
      zero-sum and player 0 is asked; with more, an ``EveryPlayer`` evaluator gives every
      player's value in one call): a playout stops after that many turns and is scored by it.
    - ``prune`` (the game's; ``prune(state, legal)``): the actions the tree considers.
    - A prune, prior or playout that is ``RootAware`` (has ``begin_search(state, player)``) is
      told each search's root before the search starts.
    - ``turn_of``, ``phase_of``, ``decided`` (the game's; ``SETTINGS``).
    - ``reuse_tree`` (bool, True): the next decision of the same turn starts from the subtree of
      the action chosen, or takes the next action of the planner's line when the game is where
      the line led (no draw in between).
    - ``processes`` (int, 1): root parallelism over a process pool (worker i seeded ``seed + i``),
      ``start_method`` ("fork" | "spawn" | None); with ``keep_pool`` (bool, True) the workers
      stay up between searches (``close()`` stops them) and rebuild each state from its record
      (a state without one, as a game set up from a position whose hidden order is unknown, is
      searched by forked workers that inherit it).

    For the Crown (issue 12; README "Playing strength"): the tree with heuristic or expert
    playouts, with or without the prior, lost to the expert bot (2-18 at 0.2 s a decision without
    the prior, about 40% with it), while the planner's lines and the expert's buys beat it; so its
    pieces leave the tree the decisions nothing else takes (the opponent's turn, set-up, a search
    asked for without a prior). ``prior=None, planner=None`` is the plain ISMCTS of before."""

    # The pieces and settings (PIECES, SETTINGS), set by ``_settle``: the caller's, else the game's.
    evaluator: Evaluator | None
    prior: Any                        # a game's prior (``suggest``, ``weights``) or None
    playout: Playout
    planner: Any                      # a game's turn planner (``plans``, ``plan``, ``find_win``) or None
    prune: Callable | None
    c: float
    c_prior: float
    max_playout_turns: int | Callable | None
    trusted_phases: tuple
    turn_of: Callable | None
    phase_of: Callable | None
    decided: Callable | None

    def __init__(self, iterations: int | None = 1000, seconds: float | None = None, c: float | object = _DEFAULT,
                 playout: Playout | None | object = _DEFAULT, evaluator: Evaluator | None | object = _DEFAULT,
                 seed: int = 0, processes: int = 1, max_playout_turns: int | None | object = _DEFAULT,
                 start_method: str | None = None, prune: Callable | None | object = _DEFAULT,
                 planner: object = _DEFAULT, prior: object = _DEFAULT, c_prior: float | object = _DEFAULT,
                 reuse_tree: bool = True, plan_own_turn: bool = True,
                 trusted_phases: tuple | object = _DEFAULT, turn_of: Callable | None | object = _DEFAULT,
                 phase_of: Callable | None | object = _DEFAULT, decided: Callable | None | object = _DEFAULT,
                 keep_pool: bool = True, game: str | None = None):
        if iterations is None and seconds is None:
            raise ValueError("ISMCTS: give an iteration budget, a time budget, or both")
        if iterations is not None and iterations < 1:
            raise ValueError("ISMCTS: iterations must be >= 1")
        if seconds is not None and seconds <= 0:
            raise ValueError("ISMCTS: seconds must be positive")
        if processes < 1:
            raise ValueError("ISMCTS: processes must be >= 1")
        if isinstance(max_playout_turns, int) and max_playout_turns < 0:
            raise ValueError("ISMCTS: max_playout_turns must be >= 0")
        if not (max_playout_turns in (_DEFAULT, None) or isinstance(max_playout_turns, int) or callable(max_playout_turns)):
            raise ValueError("ISMCTS: max_playout_turns must be an int >= 0, None, or a function of the state")
        if start_method not in (None, "fork", "spawn"):
            raise ValueError("ISMCTS: start_method must be 'fork', 'spawn' or None")
        given = {"evaluator": evaluator, "prior": prior, "playout": playout, "planner": planner, "prune": prune,
                 "c": c, "c_prior": c_prior, "max_playout_turns": max_playout_turns,
                 "trusted_phases": trusted_phases, "turn_of": turn_of, "phase_of": phase_of, "decided": decided}
        # What the caller chose; the rest is the game's (``_bind``).
        self._given = {name: value for name, value in given.items() if value is not _DEFAULT}
        if self._given.get("playout", _DEFAULT) is None:
            del self._given["playout"]
        self.iterations = iterations
        self.seconds = seconds
        self.seed = seed
        self.processes = processes
        self.start_method = start_method
        self.reuse_tree = reuse_tree
        self.plan_own_turn = plan_own_turn
        self.keep_pool = keep_pool
        self._pool: tuple | None = None            # ((start method, size), pool, finalizer)
        self._game: str | None = None              # the game whose pieces are bound
        self._settle({})                           # the caller's choices, until a game is bound
        if game is not None:
            self._bind(game)

    def _settle(self, pieces: dict) -> None:
        """Set the pieces and settings: the caller's, else ``pieces`` (the game's), else ``SETTINGS``."""
        settings = {**SETTINGS, **{name: None for name in PIECES}, **pieces, **self._given}
        if "max_playout_turns" not in self._given and settings["evaluator"] is None:
            settings["max_playout_turns"] = None       # nothing would judge a cut playout: play to the end
        if settings["playout"] is None:
            settings["playout"] = RandomPlayout()
        settings["trusted_phases"] = tuple(settings["trusted_phases"])
        for name, value in settings.items():
            setattr(self, name, value)
        # The last search's tree, kept for the next decision of the same turn (reuse_tree):
        # (the public state the chosen action leads to, player, root node, action chosen).
        self._tree: tuple | None = None
        # The rest of the planner's line (reuse_tree): (public state it leads to, actions, value).
        self._line: tuple | None = None

    def _bind(self, name: str) -> None:
        """Take the pieces and settings the caller did not give from the registered game ``name``."""
        entry = registry.get(name)
        search = entry.search
        pieces: dict = {}
        if search is not None:
            unknown = sorted(set(search.options) - set(SETTINGS))
            if unknown:
                raise ValueError(f"game {entry.name!r}: unknown ISMCTS setting(s) {', '.join(unknown)} "
                                 f"(known: {', '.join(SETTINGS)})")
            pieces.update(search.options)
            factories = {"evaluator": search.evaluator, "prior": search.prior, "playout": search.playout,
                         "planner": search.planner, "prune": search.prune}
            for piece, factory in factories.items():
                if piece not in self._given and factory is not None:
                    pieces[piece] = factory()
        self._settle(pieces)
        self._game = entry.name

    def _bound(self, state) -> None:
        """Bind the pieces of ``state``'s game, unless they are bound already."""
        if state.game != self._game:
            self._bind(state.game)

    @property
    def game(self) -> str | None:
        """The registered game whose pieces are bound (None before the first search)."""
        return self._game

    def __getstate__(self):
        return {**self.__dict__, "_tree": None, "_line": None, "_pool": None}

    # -- public API ------------------------------------------------------------------------
    def search(self, state, seed: int | None = None, hint: int | None = None,
               stop: threading.Event | None = None) -> SearchStats:
        """Search the decision of the player to move in ``state`` (its own information set).
        ``hint``: the prior's suggestion at the root, when the caller has a better one than the
        prior would find (ISMCTSBot asks its own expert, which remembers the game). ``stop``: once
        set (from another thread), the search ends after the iteration it is in and answers from the
        iterations done (at least one; one process only: a root-parallel search runs its budget)."""
        if state.is_terminal():
            raise ValueError("ISMCTS.search: the game is over")
        player = state.current_player()
        if player < 0:
            raise ValueError("ISMCTS.search: the state is at a chance node; resolve it first")
        self._bound(state)
        seed = self.seed if seed is None else seed
        start = time.perf_counter()
        for piece in (self.prune, self.prior, self.playout):
            if isinstance(piece, RootAware):   # a piece that treats the root's own turn apart
                piece.begin_search(state, player)
        shortcut = self._decide_without_tree(state, player, seed, hint, start)
        if shortcut is not None:
            return shortcut
        root = None
        if self.processes == 1:
            seconds = self.seconds
            if seconds is not None:           # the planner's time counts against the budget
                seconds = max(0.001, seconds - (time.perf_counter() - start))
            root = self._reused_root(state, player, random.Random(seed ^ 0x5EED))
            before = {} if root is None else {a: n.visits for a, n in root.children.items()}
            if hint is not None:                 # an action not legal here is never chosen by PUCT
                root = root if root is not None else _Node(player)
                root.hint = hint
            children, texts, done, root, first = self._search_local(state, player, self.iterations, seconds, seed,
                                                                    root, stop)
        else:
            children, texts, done = self._search_parallel(state, player, seed)
            first, before = None, {}
        seconds = time.perf_counter() - start
        visits = {a: v for a, (v, _) in children.items()}
        carried = sum(before.get(a, 0) for a in visits)
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
                           done, seconds, self.processes, carried=carried)

    def _decide_without_tree(self, state, player: int, seed: int, hint: int | None,
                             start: float) -> SearchStats | None:
        """The decisions the tree does not take (``SearchStats.source`` says which rule did):

        - "win": a line of this turn that wins the game whatever is drawn, found by the planner's
          exhaustive search (sampling can miss a line of several decisions that wins at once):
          its ``plan`` where the planner plans, else its ``find_win`` within ``FIND_WIN_SHARE`` of
          the time left;
        - "prior": in ``trusted_phases`` (``phase_of`` of a determinization; For the Crown's buying: a
          card bought now is drawn after the next reshuffle, beyond what a search of a few turns
          sees), the prior's choice (``hint``, else the prior's in a determinization);
        - "plan": where the planner plans (``plan_own_turn`` and ``planner.plans(state, player)``;
          For the Crown's own Order and Action phases): the planner's best line of the turn (its
          ``score`` in [-1, 1] is the value); the prior's choice, when the hint gives it, goes to
          the planner (``planner.plan(state, rng, first=...)``), which may search it first and
          answer from a search that did not see the whole turn when it beats that choice (For
          the Crown's with ``narrow``: cut short by its budget, or a narrow pass); otherwise the
          prior's choice, unless the plan proved a defence the board alone loses without (the
          position as it stands loses to the reply, the line does not): ``plan.decides(first)``.
        None: the tree searches the decision."""
        if self.planner is None and self.prior is None:
            return None
        rng = random.Random(seed)
        probe = state.resample_hidden(player, rng)        # what the player sees: phase, turn, options
        legal = probe.legal_actions()
        action, source, value = None, "", 0.0
        plans = self.planner is not None and self.plan_own_turn and self.planner.plans(probe, player)
        if self.planner is not None and not plans:
            # Where the planner plans, its plan finds a win too (a line that wins whatever is drawn
            # is the best line): the whole budget goes to one search of the turn, not two.
            win = self._timed_find_win(state, rng, start)
            if win.winning and win.actions and win.actions[0] in legal:
                action, source, value = win.actions[0], "win", 1.0
        if (action is None and self.prior is not None and self.phase_of is not None
                and self.phase_of(probe) in self.trusted_phases):
            action, source = self._prior_choice(probe, legal, hint, rng), "prior"
        if action is None and plans:
            line, self._line = self._line, None
            if line is not None and line[0] == _public_key(probe) and line[1][0] in legal:
                # The rest of the plan made at an earlier decision of this turn, which led here.
                actions, value = line[1], line[2]
                action, source, whole = actions[0], "plan", True
            else:
                # The prior's choice, when known without a search of its own (the hint), goes to
                # the planner, which may search it first and overrule it (``plan.decides``).
                first = hint if hint in legal and self.prior is not None else None
                plan = self._timed_plan(state, rng, start, first)
                actions = plan.actions
                whole = plan.decides(None)        # not a narrow or cut search: its line stands
                if plan.decides(first) and actions and actions[0] in legal:
                    action, source = actions[0], "win" if plan.winning else "plan"
                    value = plan.score
                elif self.prior is not None:
                    action, source = self._prior_choice(probe, legal, hint, rng), "prior"
            if source in ("plan", "win") and whole and len(actions) > 1 and self.reuse_tree:
                # The line goes on without a draw in between (the planner's lines stop at chance):
                # the next decision takes its next action if the game is where the line leads. A
                # narrow or cut search's line is not followed: the next decision plans again, with
                # less of the turn left to search.
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

    def _timed_find_win(self, state, rng: random.Random, start: float):
        """The planner's ``find_win`` within ``FIND_WIN_SHARE`` of what is left of a time budget (the
        rest is for the plan or the tree)."""
        left = None if self.seconds is None else (self.seconds - (time.perf_counter() - start)) * FIND_WIN_SHARE
        with capped_seconds(self.planner, left, floor=0.001):
            return self.planner.find_win(state, rng)

    def _timed_plan(self, state, rng: random.Random, start: float, first: int | None = None):
        """The planner's ``plan``, within what is left of a time budget, ``first`` searched first."""
        left = None if self.seconds is None else self.seconds - (time.perf_counter() - start)
        with capped_seconds(self.planner, left, floor=0.001):
            return self.planner.plan(state, rng, first=first)

    def choose(self, state, rng: random.Random | None = None) -> int | None:
        """The searched best action (so an ISMCTS can stand in for a player object); None when no
        iteration finished within the time budget."""
        return self.search(state).best

    def plan_turn(self, state, progress: Callable[[int, str, float, int, float], None] | None = None,
                  seconds: float | None = None, share: Callable[[object], float] | None = None,
                  stop: threading.Event | None = None) -> TurnPlan:
        """Search and play the best action on a clone while the same player decides in the same
        turn; the plan ends when the turn (or the game) does. Draws within the plan come from the
        state's own chance generator, after the action that causes them was chosen blind.
        ``progress(step, action text, value, iterations, seconds)`` is called after each step.
        ``seconds``: the whole plan's time; each step gets half of what is left (at least 10 ms,
        never more than the searcher's own budget), so the plan keeps to it; ``share(state)``, when
        given, is the part of what is left that the step deciding in ``state`` gets instead (a game
        that knows how many decisions its turn has left: 1 for its last, which then uses the rest).
        ``stop``: once set, the step being searched ends (``search``'s ``stop``) and the plan ends
        with it, cut short."""
        if state.is_terminal():
            raise ValueError("ISMCTS.plan_turn: the game is over")
        if seconds is not None and not seconds > 0:
            raise ValueError("ISMCTS.plan_turn: seconds must be positive")
        self._bound(state)
        turn_of = self.turn_of
        player = state.current_player()
        turn = turn_of(state) if turn_of is not None else None
        current = state.clone()
        plan = TurnPlan(player, [], [], 0.0)
        step = 0
        deadline = time.perf_counter() + seconds if seconds is not None else None
        # A game without turns (no ``turn_of``): every decision is a turn of its own.
        while (not current.is_terminal() and current.current_player() == player
               and (turn_of(current) == turn if turn_of is not None else step == 0)):
            part = 0.5 if share is None else share(current)
            seconds_now = None if deadline is None else (deadline - time.perf_counter()) * part
            with capped_seconds(self, seconds_now):
                stats = self.search(current, seed=self.seed + 7919 * step, stop=stop)
            if stats.best is None or stats.best_text is None:     # (a best action always has its text)
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
            if stop is not None and stop.is_set():
                break
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
                      seed: int, root: _Node | None = None, stop: threading.Event | None = None):
        """(root children statistics, root texts, iterations, root, a copy of the first
        determinization) of a search from ``root`` (a reused subtree) or a new tree; ``stop`` ends it
        after the current iteration once set (the first iteration always runs)."""
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
                if not texts:                              # the root player's own options
                    texts = {a: d.action_text(a) for a in d.legal_actions()}
                    first = d.clone()
                self._iterate(root, d, rng)
                done += 1
                if stop is not None and stop.is_set():
                    break
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
        """The returns (one per player) of a playout from ``d``: to the end of the game, or cut after
        ``max_playout_turns`` turns (decisions, for a game without ``turn_of``) and judged there."""
        limit = self.max_playout_turns
        if limit is not None and not isinstance(limit, int):
            limit = limit(d)                          # the game's limit for this state (its players)
        choose = self.playout.choose
        if limit is None:
            while True:
                while d.is_chance_node():
                    d.apply(_sample_chance(d, rng))
                if d.is_terminal():
                    return d.returns()
                d.apply(choose(d, rng))
        turn_of = self.turn_of
        start = turn_of(d) if turn_of is not None else 0
        made = 0
        while True:
            while d.is_chance_node():
                d.apply(_sample_chance(d, rng))
            if d.is_terminal():
                return d.returns()
            if (turn_of(d) if turn_of is not None else made) - start >= limit:
                return self._judge(d)
            d.apply(choose(d, rng))
            made += 1

    def _judge(self, d) -> list[float]:
        """The returns of a cut playout: +1 for the winner of a decided state (``decided``) and -1
        for the others, else the evaluator's value for each player (two players: zero-sum, player 0
        asked), else 0 for all."""
        n = d.num_players
        decided = self.decided
        if decided is not None:
            winner = decided(d)              # a decided state is won or lost, whatever judges it
            if winner is not None:
                return [1.0 if p == winner else -1.0 for p in range(n)]
        evaluator = self.evaluator
        if evaluator is None:
            return [0.0] * n
        if n == 2:
            value = max(-1.0, min(1.0, float(evaluator(d, 0))))
            return [value, -value]
        values = evaluator.values(d) if isinstance(evaluator, EveryPlayer) else [evaluator(d, p) for p in range(n)]
        return [max(-1.0, min(1.0, float(v))) for v in values]

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
        shares: list[int | None]
        if self.iterations is not None:
            shares = [self.iterations // n + (1 if i < self.iterations % n else 0) for i in range(n)]
        else:
            shares = [None] * n
        jobs = [(i, shares[i], seed + i) for i in range(n) if shares[i] != 0]
        method = self.start_method
        if method is None:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        record = None
        if self.keep_pool or method == "spawn":
            # The workers rebuild the state from its record (a compiled board does not pickle),
            # through the registry's replay; a state without a record goes to forked workers.
            try:
                record = state.record()
            except ValueError as exc:
                if method == "spawn":
                    raise ValueError(f"ISMCTS: processes > 1 with start_method 'spawn' need the state's record: "
                                     f"{exc}") from None
        if record is not None and self.keep_pool:
            # One pool for every search of this searcher: replaying a record costs less than
            # starting processes.
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
    state = registry.replay(record)
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
