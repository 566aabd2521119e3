"""Players of King's Ransom: the generic information-set search (engine/search/ismcts.py,
single-observer, no peeking: every iteration starts from ``state.resample_hidden``) with this
game's pieces (its registry entry, engine/ransom/entry.py, gives them: a playout policy and an
evaluator that know the cards, and ``SEARCH_OPTIONS``); and the baselines (random, greedy).

- ``RansomEvaluator``: value in [-1, 1] for a player of a determinized state: material on the
  arena (face-down cards at their sampled value), cards in Hand at a fraction, a King a face-up
  enemy card can take now, and the squares around each King an enemy face-up card attacks.
  Weights are data: ``RANSOM_VALUES`` below.
- ``RansomPlayout``: take a King when a move can; else the most valuable capture; promote to the
  best card; otherwise (and with probability ``epsilon``) a random action.
- ``RansomGreedyBot``: one-ply greedy without peeking: flip the card whose moves capture the most,
  move to capture the most valuable card (a King first; a face-down card counts as the mean of
  what it may be), promote to the best card, else random.

>>> from engine.ransom.state import RansomState
>>> bot = make_ransom_bot("ismcts:200", seed=1)
>>> g = RansomState(seed=3)
>>> g.apply(bot.choose(g))
"""

from __future__ import annotations

import math
import random
import threading
from operator import attrgetter

from engine import codes
from engine.board.timeman import capped_seconds
from engine.games.bots import Bot, RandomBot
from engine.games.registry import ReviewScale
from engine.quiet import shown
from engine.ransom import actions as RA
from engine.ransom.state import FLIP, MOVE, PLAY, PROMOTE, RansomState
from engine.search.ismcts import ISMCTS, SearchStats
from engine.search.review import with_played_value

__all__ = ["REVIEW_SCALE", "review_ransom", "RANSOM_VALUES", "RansomEvaluator", "RansomPlayout", "RansomGreedyBot", "RansomISMCTSBot", "decided",
           "make_ransom_bot", "ransom_ismcts", "RANSOM_BOT_NAMES", "RANSOM_SEARCH_OPTIONS", "analyze_ransom",
           "format_ransom_analysis"]

#: Card values by token (pawns = 1). A Prince moves like a King on a 3-wide arena: worth a minor card.
RANSOM_VALUES = {"K": 0.0, "Q": 8.0, "R": 5.0, "B": 3.0, "N": 3.0, "I": 3.0, "P": 1.0}
HAND_SHARE = 0.35        # a card in Hand is worth this share of its value on the arena
KING_ZONE = 0.6          # per square next to a King that an enemy face-up card attacks
KING_EN_PRISE = 40.0     # the side to move can take the enemy King with a face-up card
SCALE = 8.0              # tanh(score / SCALE)


def _values(state: RansomState) -> list[float]:
    return [RANSOM_VALUES.get(u.token, 3.0) for u in state.rules.catalog.units]


class RansomEvaluator:
    """``evaluator(state, player) -> [-1, 1]`` (the ISMCTS evaluator interface); see the module."""

    def __init__(self, scale: float = SCALE):
        self.scale = scale
        self._values: tuple | None = None

    def __getstate__(self):
        return {"scale": self.scale, "_values": None}

    def __repr__(self) -> str:
        return f"RansomEvaluator(scale={self.scale})"

    def score(self, state: RansomState, player: int) -> float:
        """The raw score (pawn units) for ``player``."""
        if state.is_terminal():
            r = state.returns()[player]
            return 1000.0 * r
        values = self._values
        if values is None or values[0] is not state.rules:
            values = self._values = (state.rules, _values(state))
        vals = values[1]
        pos = state.pos
        core = pos.core
        score = 0.0
        for side, sign in ((player, 1.0), (1 - player, -1.0)):
            for sq in codes.squares(core.colour_bits(side)):
                score += sign * vals[core.unit_on(sq)[0]]
            score += sign * HAND_SHARE * sum(n * vals[t] for t, n in enumerate(pos.hands[side]))
        for side, sign in ((player, 1.0), (1 - player, -1.0)):
            king = pos.king_square(side)
            if king < 0:
                return -sign * 1000.0
            attacks = pos.face_up_attacks(1 - side)
            zone = core.unit_attacks(king) | (1 << king)
            score -= sign * KING_ZONE * (attacks & zone).bit_count()
            if attacks >> king & 1 and pos.side != side:
                score -= sign * KING_EN_PRISE
        return score

    def __call__(self, state: RansomState, player: int) -> float:
        return math.tanh(self.score(state, player) / self.scale)


class RansomPlayout:
    """A greedy playout (see the module); reads the determinization it is given."""

    def __init__(self, epsilon: float = 0.15):
        self.epsilon = epsilon

    def __repr__(self) -> str:
        return f"RansomPlayout(epsilon={self.epsilon})"

    def choose(self, state: RansomState, rng: random.Random) -> int:
        legal = state.legal_actions()
        if len(legal) == 1 or rng.random() < self.epsilon:
            return rng.choice(legal)
        return _greedy(state, legal, rng, peek=True)


def _card_value(state: RansomState, sq: int, viewer: int, vals: list[float], peek: bool) -> float:
    """What taking the card on ``sq`` is worth to ``viewer``: its value, or for a face-down enemy
    card the mean of what it may be (unless ``peek``: a determinization's own sample)."""
    pos = state.pos
    t, owner = pos.core.unit_on(sq)
    if t == state.rules.king_type:
        return 1000.0
    if peek or not (pos.face_down >> sq & 1) or owner == viewer:
        return vals[t]
    unseen = state.unseen(viewer)
    total = sum(unseen) - unseen[state.rules.king_type]
    if total <= 0:
        return vals[t]
    return sum(n * vals[k] for k, n in enumerate(unseen) if k != state.rules.king_type) / total


def _greedy(state: RansomState, legal: list[int], rng: random.Random, peek: bool) -> int:
    vals = _values(state)
    player = state.current_player()
    pos = state.pos
    step = state.phase
    best, best_score = [], -math.inf
    for a in legal:
        kind = RA.decode(a)
        score = 0.0
        if kind[0] == "move":
            dest = codes.order_dest(kind[1])
            if pos.core.unit_on(dest) is not None:
                score = _card_value(state, dest, player, vals, peek)
        elif kind[0] == "flip" and step == "flip":
            moves = state.options.moves.get(kind[1], [])
            score = max((_card_value(state, codes.order_dest(m), player, vals, peek)
                         for m in moves if pos.core.unit_on(codes.order_dest(m)) is not None), default=0.0)
        elif kind[0] == "promote":
            score = vals[kind[1]] if kind[1] is not None else vals[state.rules.pawn_type]
        if score > best_score:
            best, best_score = [a], score
        elif score == best_score:
            best.append(a)
    return best[0] if len(best) == 1 else rng.choice(best)


class RansomGreedyBot(Bot):
    """One-ply greedy, no peeking (see the module); ties broken by a seeded generator."""

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state: RansomState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return _greedy(state, legal, self.rng, peek=False)


def decided(state: RansomState) -> int | None:
    """The winner of a state whose arena lacks a King (G7: capturing it wins), else None; the
    side whose turn it is when both are gone (``RansomVariant.board_winner``)."""
    return state.variant.board_winner(state.board, state.current)


#: King's Ransom's ISMCTS settings besides its pieces (the registry entry gives them): UCB1 over
#: every decision (no planner, no prior), playouts cut after four turns (``state.turn``) and judged
#: by the evaluator, an arena without a King won or lost whatever the evaluator says.
RANSOM_SEARCH_OPTIONS = {"max_playout_turns": 4, "c": 0.7, "trusted_phases": (), "turn_of": attrgetter("turn"),
                         "decided": decided}


def ransom_ismcts(iterations: int | None = None, seconds: float | None = None, seed: int = 0, **options) -> ISMCTS:
    """The ISMCTS of engine/search/ismcts.py with King's Ransom's pieces (its registry entry: the
    greedy playout cut after ``max_playout_turns`` turns and scored by ``RansomEvaluator``); the
    tree is reused within a turn. ``options`` override them (``processes`` for root parallelism)."""
    return ISMCTS(iterations=iterations, seconds=seconds, seed=seed, game=RansomState.game, **options)


class RansomISMCTSBot(Bot):
    name = "ismcts"

    def __init__(self, iterations: int | None = 400, seconds: float | None = None, seed: int = 0, **options):
        self.seed = seed
        self.searcher = ransom_ismcts(iterations, seconds, seed, **options)
        self.calls = 0

    def choose(self, state: RansomState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search(state).best

    def search(self, state: RansomState) -> SearchStats:
        self.calls += 1
        self.searcher.seed = self.seed * 1_000_003 + self.calls
        return self.searcher.search(state)

    def search_within(self, state: RansomState, seconds: float) -> SearchStats:
        with capped_seconds(self.searcher, seconds):
            return self.search(state)

    def choose_within(self, state: RansomState, seconds: float) -> int:
        with capped_seconds(self.searcher, seconds):
            return self.choose(state)


RANSOM_BOT_NAMES = ("random", "greedy", "ismcts")


def make_ransom_bot(spec: str, seed: int = 0) -> Bot:
    """A King's Ransom bot from a spec: "random", "greedy", "ismcts" (400 iterations),
    "ismcts:800" (iterations) or "ismcts:1s" (seconds per decision)."""
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        return RandomBot(seed)          # the game's own legal actions: one random player for both games
    if name == "greedy" and not arg:
        return RansomGreedyBot(seed)
    if name == "ismcts":
        try:
            if arg.endswith("s"):
                seconds = float(arg[:-1])
                if not 0 < seconds < float("inf"):
                    raise ValueError(arg)
                return RansomISMCTSBot(iterations=None, seconds=seconds, seed=seed)
            iterations = int(arg) if arg else 400
            if iterations < 1:
                raise ValueError(arg)
            return RansomISMCTSBot(iterations=iterations, seed=seed)
        except ValueError:
            raise ValueError(f"bot {shown(spec)}: {shown(arg)} is not a budget (ITERATIONS as an integer >= 1, "
                             "or SECONDS like 0.5s)") from None
    raise ValueError(f"unknown King's Ransom bot {shown(spec)}; known: {', '.join(RANSOM_BOT_NAMES)} "
                     "(e.g. ismcts:800, ismcts:1s)")


#: The decisions a King's Ransom turn has left, counting the one being taken, by its step (the
#: Promote step comes only after a Pawn reaches the last rank; most turns are flip, move, play).
_DECISIONS_LEFT = {FLIP: 3, MOVE: 2, PROMOTE: 2, PLAY: 1}


def _turn_share(state: RansomState) -> float:
    """The part of a turn's time left that the decision at ``state`` gets: an equal share of the
    decisions the turn has left, so the Play step, the last, uses all that remains."""
    return 1.0 / _DECISIONS_LEFT.get(state.step, 2)


def analyze_ransom(state: RansomState, iterations: int | None = None, seconds: float | None = None, top: int = 3,
                   seed: int = 0, progress=None, processes: int = 1, stop: threading.Event | None = None) -> dict:
    """The best turn for the side to move, searched from its own information set (the opponent's
    hidden cards re-dealt in every iteration): each decision of the turn with its value and the
    ``top`` alternatives by visits. ``seconds`` is the budget of the whole turn, shared among its
    decisions (``_turn_share``); a turn that ends before its Play step leaves the rest unused.
    ``progress(step, text, value, iterations, seconds)`` per step; ``processes``: root-parallel
    worker processes (their pool is stopped before the report returns); ``stop``: once set, the turn's
    search ends after its current iteration (``ISMCTS.plan_turn``), its plan cut short."""
    if state.is_terminal():
        return {"over": state.over_reason, "winner": state.winner}
    if iterations is None and seconds is None:
        iterations = 2000
    searcher = ransom_ismcts(iterations, seconds, seed, processes=processes)
    player = state.current_player()
    try:
        plan = searcher.plan_turn(state, progress=progress, seconds=seconds, share=_turn_share, stop=stop)
    finally:
        searcher.close()
    steps = []
    for stats in plan.stats:
        ranked = sorted(stats.visits, key=lambda a: (-stats.visits[a], -stats.values.get(a, 0.0), a))[:top]
        steps.append({"action": stats.best, "text": stats.best_text, "value": round(stats.value, 4),
                      "iterations": stats.iterations, "carried": stats.carried,
                      "alternatives": [{"text": stats.texts.get(a), "visits": stats.visits[a],
                                        "value": round(stats.values.get(a, 0.0), 4)} for a in ranked]})
    return {"player": player, "side": state.player_names[player], "turn": state.turn, "value": round(plan.value, 4),
            "plan": steps}


def format_ransom_analysis(report: dict) -> str:
    """The report of :func:`analyze_ransom` as text. Each step's search starts from the tree the
    step before grew below the action it chose (ISMCTS ``reuse_tree``), so its visits count that
    search's playouts through the action as well as its own iterations: the step's line says how
    many of each, and the visits add up to them."""
    if "over" in report:
        return f"the game is over: {report['over']}"
    side = report["side"]
    lines = [f"{side} to play (turn {report['turn']}): value {report['value']:+.3f} for {side} (-1 a loss, +1 a win)"]
    for i, step in enumerate(report["plan"], 1):
        carried = step.get("carried", 0)
        kept = f" + {carried} visits kept from step {i - 1}'s search" if carried else ""
        lines.append(f"{i}. {step['text']}  ({step['value']:+.3f}; {step['iterations']} iterations{kept})")
        for alt in step["alternatives"]:
            lines.append(f"     {alt['text']:24} visits {alt['visits']:6}  value {alt['value']:+.3f}")
    lines.append("visits: the searches' playouts through an action; a step's search goes on from the tree the "
                 "step before grew below its choice, and keeps its visits")
    return "\n".join(lines)


#: `ftc review`'s scale of this game: the search's value for the side deciding, -1 (a sure loss) to
#: +1 (a sure win). A drop of 0.1 is an inaccuracy, 0.2 a mistake, 0.3 a blunder: lichess's bounds on
#: its winning-chance scale of the same range (a King given up drops the value by about 1 or more).
REVIEW_SCALE = ReviewScale("value (-1 a loss .. +1 a win)", 0.1, 0.2, 0.3, digits=2,
                           why="lichess's winning-chance bounds on the same -1..+1 range; below 0.1 is search noise")


def review_ransom(state: RansomState, played: int, settings: dict) -> dict:
    """One decision of `ftc review` (registry ``Analysis.review``): ``analyze_ransom``'s best turn on
    the same budget and seed as `ftc analyze --at` (its first step the best choice, its steps the
    line, the first step's search value the value), and the played action's value from that
    step's search when it has MIN_VISITS visits there, else from a search of that action alone
    (engine.search.review)."""
    iterations, seconds, seed = settings.get("iterations"), settings.get("seconds"), settings.get("seed", 0)
    if iterations is None and seconds is None:
        iterations = 2000
    report = analyze_ransom(state, iterations=iterations, seconds=seconds, top=len(state.legal_actions()), seed=seed)
    first = report["plan"][0]
    found = {"best": first["text"], "best_action": first["action"], "value": first["value"],
             "line": [step["text"] for step in report["plan"]], "searched": f"ISMCTS {first['iterations']} iterations"}
    text = state.action_text(played)
    values = {alt["text"]: alt["value"] for alt in first["alternatives"]}
    visits = {alt["text"]: alt["visits"] for alt in first["alternatives"]}
    return with_played_value(found, state, played, first["action"], values, visits, text, iterations, seconds, seed)
