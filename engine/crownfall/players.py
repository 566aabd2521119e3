"""Crownfall's players: ``random`` (engine.games.bots.RandomBot), ``greedy`` (each action judged by the
position one action later: tracks first, then the table: regions, Towers, Ruins, the largest ley
network, mana; ties broken by the seeded generator), ``expert`` (the rule-based yardstick,
engine/crownfall/expert.py) and ``ismcts`` (also spelled ``mcts``): the generic information-set search
(engine/search/ismcts.py) with this game's pieces (engine/crownfall/pieces.py), for 2 to 4 players.

Bot specs (``make_bot``): "random", "greedy", "expert", "ismcts" (the default budget, 400
iterations, as the other games' "ismcts"), "ismcts:800" (iterations per decision), "ismcts:0.5s" (seconds per decision); "mcts",
"mcts:800" and "mcts:0.5s" are the same bots (the name the issue uses). ``analyze`` is `ftc analyze
--game crownfall`: the root statistics of a search (the top actions with their share of the visits
and their value for the player to move) and each player's evaluation of the table.
"""

from __future__ import annotations

import json
import random
import threading

from engine.board.timeman import capped_seconds
from engine.crownfall.config import CrownfallConfig
from engine.crownfall.core import SEATS, TRACKS, CrownfallCore
from engine.crownfall.expert import ExpertBot
from engine.crownfall.pieces import CrownfallEvaluator
from engine.crownfall.position import read_position
from engine.crownfall.state import CrownfallState
from engine.games.bots import Bot, RandomBot
from engine.games.registry import ReviewScale
from engine.quiet import shown
from engine.search.ismcts import ISMCTS, SearchStats
from engine.search.review import with_played_value

__all__ = ["BOT_NAMES", "GreedyBot", "CrownfallISMCTSBot", "ExpertBot", "make_bot", "position_value", "analyze",
           "read_text", "analyze_text", "format_analysis", "DEFAULT_ITERATIONS", "ANALYSIS_ITERATIONS", "REVIEW_SCALE", "review"]

BOT_NAMES = ("random", "greedy", "expert", "ismcts", "mcts")
#: ISMCTS iterations per decision when a spec gives no budget; `ftc analyze`'s default.
DEFAULT_ITERATIONS = 400
ANALYSIS_ITERATIONS = 2000


def position_value(g: CrownfallCore, p: int) -> float:
    """A quick worth of the table for p: points on the tracks weigh most."""
    return (10.0 * sum(g.tracks[p]) + 3.0 * len(g.controlled(p)) + 2.0 * len(g.towers_of(p))
            + 2.0 * len(g.ruins_of(p)) + 1.5 * g.network_size(p) + 0.5 * g.mana[p]
            + 2.0 * (g.owner(g.rules.map.keep) == p))


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state) -> int:
        p = state.current_player()
        best, choices = None, []
        for a in state.legal_actions():
            child = state.clone()
            child.auto_chance = False           # judge the table before any draw
            child.apply(a)
            v = (child.returns()[p] * 1000.0 if child.is_terminal() else 0.0) + position_value(child, p)
            if best is None or v > best + 1e-9:
                best, choices = v, [a]
            elif abs(v - best) <= 1e-9:
                choices.append(a)
        return self.rng.choice(choices)


class CrownfallISMCTSBot(Bot):
    """The generic ISMCTS with Crownfall's pieces (its registry entry binds them); a decision with one
    legal action is taken at once. ``choose_within(state, seconds)`` keeps to a time budget (the
    web server's AI); the search stops at its deadline, one iteration late at most."""

    name = "ismcts"

    def __init__(self, iterations: int | None = DEFAULT_ITERATIONS, seconds: float | None = None, seed: int = 0,
                 **options):
        self.seed = seed
        self.searcher = ISMCTS(iterations=iterations, seconds=seconds, seed=seed, game=CrownfallState.game, **options)
        self.calls = 0

    def reset(self) -> None:
        self.calls = 0

    def choose(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.search(state).best

    def search(self, state) -> SearchStats:
        self.calls += 1
        self.searcher.seed = self.seed * 1_000_003 + self.calls
        return self.searcher.search(state)

    def search_within(self, state, seconds: float) -> SearchStats:
        with capped_seconds(self.searcher, seconds):
            return self.search(state)

    def choose_within(self, state, seconds: float) -> int:
        with capped_seconds(self.searcher, seconds):
            return self.choose(state)

    def close(self) -> None:
        self.searcher.close()


def _budget(spec: str, arg: str) -> dict:
    try:
        if arg.endswith("s"):
            seconds = float(arg[:-1])
            if not 0 < seconds < float("inf"):
                raise ValueError(arg)
            return {"iterations": None, "seconds": seconds}
        iterations = int(arg) if arg else DEFAULT_ITERATIONS
        if iterations < 1:
            raise ValueError(arg)
        return {"iterations": iterations}
    except ValueError:
        raise ValueError(f"bot {shown(spec)}: {shown(arg)} is not a budget (ITERATIONS as an integer >= 1, or SECONDS "
                         "like 0.5s)") from None


def make_bot(spec: str, seed: int = 0) -> Bot:
    """A Crownfall bot from a spec (see the module); a bad spec is a ValueError naming the known ones."""
    name, colon, arg = spec.partition(":") if isinstance(spec, str) else (spec, "", "")
    if name in ("ismcts", "mcts"):
        return CrownfallISMCTSBot(seed=seed, **_budget(spec, arg))
    if not colon:
        if name == "random":
            return RandomBot(seed)
        if name == "greedy":
            return GreedyBot(seed)
        if name == "expert":
            return ExpertBot(seed)
    raise ValueError(f"unknown bot {shown(spec)} for crownfall; known: {', '.join(BOT_NAMES)} "
                     "(e.g. ismcts:800, ismcts:1s; mcts is the same bot)")


# -- analysis --------------------------------------------------------------------------------------------
def analyze(state, iterations: int | None = None, seconds: float | None = None, top: int = 3, seed: int = 0,
            processes: int = 1, progress=None, stop: threading.Event | None = None) -> dict:
    """The search's root statistics at ``state`` (see the module): the player to move, the best action,
    the ``top`` actions by visits with their share and value for that player, and each player's
    tracks and evaluation (``CrownfallEvaluator``, in [-1, 1]). ``seconds`` bounds the search; ``stop``
    (registry ``Analysis.stoppable``: the record board's Stop) ends it after its current iteration."""
    if state.is_terminal():
        return {"over": state.over_reason, "winner": state.winner}
    if state.current_player() < 0:
        raise ValueError(f"the game waits for a chance draw ({state.prompt()}): nothing to analyse")
    if iterations is None and seconds is None:
        iterations = ANALYSIS_ITERATIONS
    searcher = ISMCTS(iterations=iterations, seconds=seconds, seed=seed, processes=processes,
                      game=CrownfallState.game)
    try:
        stats = searcher.search(state, stop=stop)
    finally:
        searcher.close()
    total = sum(stats.visits.values()) or 1
    ranked = sorted(stats.visits, key=lambda a: (-stats.visits[a], -stats.values.get(a, 0.0), a))[:top]
    evaluator = CrownfallEvaluator()
    player = stats.player
    report = {"player": player, "seat": SEATS[player], "round": state.round, "prompt": state.prompt(),
              "best": stats.best, "best_text": stats.best_text, "value": round(stats.value, 4),
              "iterations": stats.iterations, "seconds": round(stats.seconds, 3),
              "actions": [{"action": a, "text": stats.texts.get(a), "visits": stats.visits[a],
                           "share": round(stats.visits[a] / total, 4), "value": round(stats.values.get(a, 0.0), 4)}
                          for a in ranked],
              "players": [{"seat": SEATS[p], "house": state.houses[p].key,
                           **{t: state.tracks[p][i] for i, t in enumerate(TRACKS)},
                           "evaluation": round(evaluator(state, p), 4)} for p in range(state.num_players)]}
    if progress is not None:
        progress(1, stats.best_text or "", stats.value, stats.iterations, stats.seconds)
    return report


def format_analysis(report: dict) -> str:
    """A report of :func:`analyze` as text for people."""
    if "over" in report:
        return f"the game is over: {report['over']}"
    lines = [f"{report['prompt']}: best {report['best_text']} (value {report['value']:+.3f} for {report['seat']}, "
             f"{report['iterations']} iterations)"]
    for row in report["actions"]:
        lines.append(f"  {row['text']:55} visits {row['visits']:6} ({100 * row['share']:5.1f}%)  value {row['value']:+.3f}")
    for row in report["players"]:
        lines.append(f"  {row['seat']:6} {row['house']:10} crown {row['crown']} arcana {row['arcana']} "
                     f"dominion {row['dominion']}  evaluation {row['evaluation']:+.3f}")
    return "\n".join(lines)


#: `ftc analyze --game crownfall`'s own options (Game.analysis.analysis_options).
ANALYSIS_OPTIONS = ("players",)


def read_text(text: str, players: int | None = None, seed: int = 0) -> CrownfallState:
    """The game of a position text: "startpos" (the set-up of ``players`` players, 2 by default,
    seeded by ``seed``) or a position as JSON (engine/crownfall/position.py); a ValueError names
    what is wrong."""
    if text.strip() == "startpos":
        config = CrownfallConfig.from_json({"players": players or 2, "seed": seed}, "--players")
        return CrownfallState(config)
    if players is not None:
        raise ValueError("--players: a position names its players; --players is for startpos")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"position: not \"startpos\" and not JSON ({exc.msg} at line {exc.lineno} column "
                         f"{exc.colno})") from None
    return read_position(data)


def analyze_text(text: str, options: dict, progress=None) -> dict:
    """`ftc analyze --game crownfall TEXT`: "startpos" (the set-up of ``options["players"]`` players, 2 by
    default, seeded by ``options["seed"]``) or a position as JSON (engine/crownfall/position.py)."""
    state = read_text(text, options.get("players"), options.get("seed") or 0)
    return analyze(state, options.get("iterations"), options.get("seconds"), options.get("top", 3),
                   options.get("seed") or 0, options.get("processes", 1),
                   (lambda *step: progress(f"searched: {step[1]}")) if progress else None)


#: `ftc review`'s scale of this game: the search's value for the player deciding, -1 (a sure loss)
#: to +1 (a sure win), so 0.1 is 5 points of winning chance. A drop of 0.1 is an inaccuracy, 0.2 a
#: mistake, 0.3 a blunder: lichess's bounds on its winning-chance scale of the same range; smaller
#: drops are within a review budget's noise (a value of a few hundred playouts varies by about 0.05).
REVIEW_SCALE = ReviewScale("value (-1 a loss .. +1 a win)", 0.1, 0.2, 0.3, digits=2,
                           why="lichess's winning-chance bounds on the same -1..+1 range; below 0.1 is search noise")


def review(state, played: int, settings: dict) -> dict:
    """One decision of `ftc review` (registry ``Analysis.review``): ``analyze``'s search of the
    decision (its best action and value, as `ftc analyze --at` finds them on the same budget and
    seed), and the played action's value from the same search when it has MIN_VISITS visits there,
    else from a search of that action alone on the same budget (engine.search.review)."""
    iterations, seconds, seed = settings.get("iterations"), settings.get("seconds"), settings.get("seed", 0)
    if iterations is None and seconds is None:
        iterations = ANALYSIS_ITERATIONS
    report = analyze(state, iterations, seconds, top=len(state.legal_actions()), seed=seed)
    values = {row["action"]: row["value"] for row in report["actions"]}
    visits = {row["action"]: row["visits"] for row in report["actions"]}
    found = {"best": report["best_text"], "best_action": report["best"], "value": report["value"],
             "line": [report["best_text"]], "searched": f"ISMCTS {report['iterations']} iterations"}
    return with_played_value(found, state, played, report["best"], values, visits, played, iterations, seconds, seed)
