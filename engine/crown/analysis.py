"""For the Crown's analysis of full-game states: the player to move's best turn plan (the full-game
AI) and the ranked first actions (``ftc analyze`` of a game, the "Analyse" hint), and the board
evaluation over a recorded game (the analysis board's graph, ``ftc analyze --plot``). The analysis of
a board position alone is the board search's (engine/board/analysis.py)."""

from __future__ import annotations

import random
import time

from engine.board.evaluate import board_value, default_weights
from engine.crown import actions as A
from engine.crown.config import GameConfig
from engine.crown.planner import FORCED, VERIFY_MAX_ROUNDS, VERIFY_MIN_ROUNDS, ai_planner
from engine.crown.state import GameState
from engine.games.registry import ReviewScale
from engine.notation import BLUE, YELLOW
from engine.search.ismcts import ISMCTS
from engine.search.review import action_value, read_value

__all__ = ["analyze_game", "format_game_analysis", "evaluation_history", "plot_evaluation", "REVIEW_SCALE",
           "review_decision", "verify_rounds", "ITERATIONS_PER_ROUND"]

#: The budget of an analysis given none (`ftc analyze`, `ftc review`): information-set search iterations.
DEFAULT_ITERATIONS = 2000

#: A fixed budget's verification (``verify_rounds``): one round of playouts of the opponent's next
#: turn per this many iterations, so the default 2000 plays 8 rounds. The playouts hardly vary from
#: round to round (the expert that plays the turns decides alike: docs/results.md, session 51), so
#: a few rounds tell the lines apart as well as many.
ITERATIONS_PER_ROUND = 250


def verify_rounds(iterations: int | None) -> int:
    """The turn planner's verification rounds for a fixed budget of ``iterations`` (None: a time
    budget, whose verification runs on the clock): one per ``ITERATIONS_PER_ROUND``, none below
    ``VERIFY_MIN_ROUNDS`` rounds (too few to change a choice), at most ``VERIFY_MAX_ROUNDS``.

    >>> verify_rounds(2000), verify_rounds(60), verify_rounds(None)
    (8, 0, 0)
    """
    if iterations is None:
        return 0
    rounds = min(VERIFY_MAX_ROUNDS, iterations // ITERATIONS_PER_ROUND)
    return rounds if rounds >= VERIFY_MIN_ROUNDS else 0


def analyze_game(state, iterations: int | None = None, seconds: float | None = None, top: int = 3, seed: int = 0,
                 processes: int = 1, progress=None) -> dict:
    """The player to move's best turn plan (the full-game AI, engine/search/ismcts.py, decision by
    decision), and the top first actions by the visits of a tree search of this decision (the
    alternatives and their values, which the AI's planner does not list). ``seconds`` is the
    budget of the whole analysis, and it is used: the plan may take up to two thirds of it (a step
    the planner decides takes next to nothing), the ranking search then takes all that is left;
    ``seconds`` in the report is the real time. Only that player's observation is used (every
    search runs on determinizations). The turn planner verifies its best lines as the AI's does
    (engine/crown/planner.py): on the clock with ``seconds``, else ``verify_rounds(iterations)``
    rounds."""
    if state.is_terminal():
        return {"over": state.over_reason, "winner": state.winner, "plan": [], "top": []}
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    start = time.perf_counter()
    player = state.current_player()
    search = ISMCTS(iterations=iterations, seconds=seconds, seed=seed, processes=processes,
                    planner=ai_planner(verify_rounds=verify_rounds(iterations if seconds is None else None)))
    plan = search.plan_turn(state, progress=progress, seconds=None if seconds is None else 2 * seconds / 3)
    left = None if seconds is None else max(0.01, seconds - (time.perf_counter() - start))
    ranking = ISMCTS(iterations=iterations, seconds=left, seed=seed, processes=processes,
                     plan_own_turn=False, trusted_phases=())
    stats = ranking.search(state)
    order = sorted(stats.children.items(), key=lambda item: -item[1][0])
    legal = state.legal_actions()
    # The choices the ranking's tree weighs: its pruning (For the Crown's TopOrders) keeps the board
    # orders the board evaluation rates best and every other action; the turn planner weighs them all.
    weighed = ranking.prune(state, legal) if ranking.prune is not None else legal
    return {
        "player": player,
        "prompt": state.prompt(),
        "top": [{"action": a, "text": state.action_text(a), "visits": visits, "value": round(value, 4)}
                for a, (visits, value) in order[:top]],
        "ranked_by": stats.source,
        "plan": [{"action": a, "text": t} for a, t in zip(plan.actions, plan.texts)],
        "value": round(plan.value, 4),
        "decided_by": [step.source for step in plan.stats],
        "plan_first": _standing(state, plan.actions[0], order, weighed) if plan.actions else None,
        "weighed": len(weighed),
        "pruned_to": getattr(ranking.prune, "k", None),
        "iterations": stats.iterations,
        "seconds": round(time.perf_counter() - start, 3),
    }


def _standing(state, action: int, order: list, weighed: list[int]) -> dict:
    """Where the turn plan's first step stands in the ranking search (``order``: its root actions,
    most visited first): ``rank`` (1 = first; None when that search never tried it), ``of`` (how
    many it ranked), its ``visits`` and ``value`` there, and whether it is among the choices that
    search ``weighed`` at all (its pruning may leave it out)."""
    text, in_tree = state.action_text(action), action in weighed
    for rank, (a, (visits, value)) in enumerate(order, 1):
        if a == action:
            return {"text": text, "rank": rank, "of": len(order), "visits": visits, "value": round(value, 4),
                    "weighed": in_tree}
    return {"text": text, "rank": None, "of": len(order), "visits": 0, "value": None, "weighed": in_tree}


#: Who chose a step of the turn plan (SearchStats.source, engine/search/ismcts.py), in words.
DECIDED_BY = {"search": "tree search", "plan": "turn planner", "win": "a win this turn (turn planner)",
              "prior": "expert's rule"}


def format_game_analysis(report: dict) -> str:
    """The report of :func:`analyze_game` as text. Two searches answer, and each is named: the
    ranking is a tree search of this decision alone (no turn planner: it compares the choices by
    playouts, with visits and values); the plan is the full AI's, step by step, each step naming
    what chose it (in For the Crown's own Order and Action phases the turn planner, which searches
    the whole turn at once). Where they disagree the plan's first step is placed in the ranking."""
    if "over" in report:
        return f"the game is over: {report['over']}"
    name = "Blue" if report["player"] == 0 else "Yellow"
    first = report.get("plan_first")
    lines = [f"{name} to decide: {report['prompt']}"]
    if report.get("ranked_by", "search") == "search":
        lines.append(f"ranked by a tree search of this decision alone ({report['iterations']} iterations; visits: "
                     f"playouts through the choice; value: their mean result for {name}, -1 loss .. +1 win):")
    else:
        lines.append(f"the choice, found without a tree search ({DECIDED_BY.get(report['ranked_by'], report['ranked_by'])}):")
    for i, item in enumerate(report["top"], 1):
        mark = "  <- the plan's first step" if first and first["rank"] == i else ""
        lines.append(f"{i}. {item['text']:<40} visits {item['visits']:>6}  value {item['value']:+.3f}{mark}")
    if first and first["rank"] is not None and first["rank"] > len(report["top"]):
        lines.append(f"   the plan's first step, {first['text']}, ranks {first['rank']} of {first['of']} there "
                     f"(visits {first['visits']}, value {first['value']:+.3f})")
    elif first and first["rank"] is None and not first.get("weighed", True):
        kept = (f"the {report['pruned_to']} orders the board evaluation rates best"
                if report.get("pruned_to") else "what its pruning keeps")
        lines.append(f"   the plan's first step, {first['text']}, is not among the {report['weighed']} choices that "
                     f"search weighs ({kept}, and every other action); the turn planner weighs them all")
    elif first and first["rank"] is None:
        lines.append(f"   the plan's first step, {first['text']}, was not tried by that search in its "
                     f"{report['iterations']} iterations")
    steps = report["plan"]
    decided = report.get("decided_by") or [""] * len(steps)
    chosen = DECIDED_BY.get(decided[0], decided[0]) if steps else ""
    lines.append(f"best turn plan, by the full AI (value {report['value']:+.3f} for {name}"
                 + (f", the {chosen}'s estimate" if chosen else "") + "), and what chose each step:")
    lines.extend(f"   {step['text']:<40} {DECIDED_BY.get(source, source)}" for step, source in zip(steps, decided))
    lines.append(f"{report['iterations']} iterations (the ranking), {report['seconds']} s in all")
    return "\n".join(lines)


def evaluation_history(record: dict) -> list[dict]:
    """The board evaluation (Blue's view, in points) at the start of every turn of a recorded game,
    and at its end when it ended within a turn (a resignation). Replays the record; only the board
    is judged, as the alpha-beta evaluator sees it. Each point is ``{"turn", "blue", "step"}``,
    ``step`` the number of the record's steps played before it."""
    tempo = default_weights().tempo
    state = GameState(GameConfig.from_dict(record["config"]), auto_chance=False)
    points = []

    def sample(step: int):
        # Judged with Blue to move; the side-to-move bonus (tempo) is not Blue's advantage.
        points.append({"turn": state.turn_number, "blue": (board_value(state.board, BLUE, to_move=True) - tempo) / 100,
                       "step": step})

    sample(0)
    steps = record["steps"]
    for index, (player, action) in enumerate(steps, 1):
        turn = state.turn
        if action == A.RESIGN and player in (BLUE, YELLOW) and not state.is_terminal():
            state.resign(player)         # a step of the record, not an action of the decision (state.replay)
        else:
            state.apply(action)
        if state.turn != turn or (state.is_terminal() and index == len(steps) and points[-1]["step"] != index):
            sample(index)
    return points


def plot_evaluation(points: list[dict], path: str, title: str = "board evaluation over the game") -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installation
        raise RuntimeError("plots need matplotlib: pip install 'ftc-engine[plot]'") from None
    turns = [p["turn"] for p in points]
    values = [p["blue"] for p in points]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.axhline(0, color="grey", linewidth=0.8, linestyle="--")
    ax.fill_between(turns, values, 0, where=[v >= 0 for v in values], color="tab:blue", alpha=0.3, label="Blue better")
    ax.fill_between(turns, values, 0, where=[v < 0 for v in values], color="gold", alpha=0.5, label="Yellow better")
    ax.plot(turns, values, color="black", linewidth=1)
    ax.set_xlabel("turn")
    ax.set_ylabel("evaluation for Blue (points)")
    ax.set_title(title)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


#: `ftc review`'s scale of this game: the tree search's value for the player deciding, -1 (a sure
#: loss) to +1 (a sure win). A drop of 0.1 is an inaccuracy, 0.2 a mistake, 0.3 a blunder: lichess's
#: bounds on its winning-chance scale of the same range (a Sovereign given up drops it to about -1).
REVIEW_SCALE = ReviewScale("value (-1 a loss .. +1 a win)", 0.1, 0.2, 0.3, digits=2,
                           why="lichess's winning-chance bounds on the same -1..+1 range; below 0.1 is search noise")


def review_decision(state, played: int, settings: dict) -> dict:
    """One decision of `ftc review` (registry ``Analysis.review``): ``analyze_game`` on the budget
    and seed of `ftc analyze --at` (the turn plan's first step is the best choice, the plan its
    line). Where the turn planner chose (its line verified, ``verify_rounds``), both values are the
    verification's: the best choice's and the played action's lines (each action with the planner's
    rest of the turn) played out through the opponent's next turn on the same samples
    (``_verified_values``), a chance p to win read as 2p - 1. Elsewhere (or with no rounds) both are
    the ranking tree search's: read there for an action with MIN_VISITS visits, else from a search
    of that action alone on the same budget (engine.search.review)."""
    iterations, seconds, seed = settings.get("iterations"), settings.get("seconds"), settings.get("seed", 0)
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    report = analyze_game(state, iterations=iterations, seconds=seconds, top=len(state.legal_actions()), seed=seed)
    best = report["plan"][0]["action"]
    line = [step["text"] for step in report["plan"]]
    # With a time budget the plan was verified on the clock; its values take the rounds of the
    # default fixed budget (DEFAULT_ITERATIONS).
    rounds = verify_rounds(iterations if seconds is None else DEFAULT_ITERATIONS)
    if report["decided_by"][0] == "plan" and rounds:
        value, played_value, searched = _verified_values(state, best, played, seed, rounds)
        return {"best": report["plan"][0]["text"], "best_action": best, "value": value,
                "played_value": played_value, "line": line, "searched": searched}
    values = {row["action"]: row["value"] for row in report["top"]}
    visits = {row["action"]: row["visits"] for row in report["top"]}
    alone = []

    def value_of(action: int) -> float:
        value = read_value(values, visits, action)
        if value is None:
            alone.append(state.action_text(action))
            value = action_value(state, action, iterations, seconds, seed)
        return value

    value = value_of(best)
    played_value = value if played == best else value_of(played)
    searched = f"ISMCTS {report['iterations']} iterations" + (f"; alone: {', '.join(alone)}" if alone else "")
    return {"best": report["plan"][0]["text"], "best_action": best, "value": value, "played_value": played_value,
            "line": line, "searched": searched}


def _verified_values(state, best: int, played: int, seed: int, rounds: int) -> tuple[float, float, str]:
    """(value of ``best``, value of ``played``, how they were found) by the turn planner's
    verification (``TurnPlanner.verify_lines``, ``rounds`` rounds from ``seed``): each action's line
    is the action and the planner's best rest of the turn after it (none after a draw or the end of
    the turn), played out with the opponent's next turn; a mean chance p to win is the value 2p - 1
    (the review's -1..+1 scale). A rest of the turn whose result the board search proved (a loss
    whatever the player does, or a win) is valued -1 or +1 without playouts."""
    planner = ai_planner(seed=seed)
    player = state.current_player()
    proved: dict[int, float] = {}                   # actions whose rest of the turn has a proved result
    lines: dict[int, tuple[int, ...]] = {}          # the others: the lines to play out
    for action in dict.fromkeys((best, played)):
        after = state.clone()
        after.auto_chance = False
        after.apply(action)
        rest: tuple[int, ...] = ()
        if (not after.is_terminal() and not after.is_chance_node() and after.turn == state.turn
                and planner.plans(after, player)):
            plan = planner.plan(after, random.Random(seed))
            if plan.winning or abs(plan.value) >= FORCED / 2:
                proved[action] = 1.0 if plan.value > 0 else -1.0
                continue
            rest = tuple(plan.actions)
        lines[action] = (action, *rest)
    values = dict(proved)
    how = [f"turn planner ({planner.max_nodes} nodes a line)"]
    if lines:
        means, done = planner.verify_lines(state, list(lines.values()), seed, rounds)
        values.update({action: 2.0 * mean - 1.0 for action, mean in zip(lines, means)})
        how.append(f"verified: {done} playouts of {'each line' if len(lines) > 1 else 'its line'} through the "
                   f"opponent's next turn")
    if proved:
        how.append("a result the board search proved: " + ", ".join(state.action_text(a) for a in proved))
    return round(values[best], 4), round(values[played], 4), "; ".join(how)
