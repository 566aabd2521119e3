""""What are the best orders here?": analysis of board positions (alpha-beta) and of full-game
states (ISMCTS turn plans), as dicts for machines and as text for people (`ftc analyze`)."""

from __future__ import annotations

import time

from engine.game import actions as A
from engine.game.config import GameConfig
from engine.game.state import GameState
from engine.notation import BLUE, YELLOW
from engine.position import Position
from engine.search.alphabeta import AlphaBeta
from engine.search.evaluate import board_value, default_weights
from engine.search.ismcts import ISMCTS

__all__ = ["analyze_position", "analyze_game", "format_position_analysis", "format_game_analysis",
           "evaluation_history", "plot_evaluation"]


def analyze_position(position: Position, depth: int | None = None, seconds: float | None = None, top: int = 3,
                     progress=None, searcher: AlphaBeta | None = None, cylindrical: bool = False) -> dict:
    """The best ``top`` orders of a board position by alpha-beta (``AlphaBeta.search``: its limits,
    ``progress`` callback and Compass mode ``cylindrical``), as ``SearchResult.to_json`` with the
    position's text, its side to move ('w' or 'b') and ``complete``."""
    searcher = searcher or AlphaBeta()
    result = searcher.search(position, depth=depth, seconds=seconds, top=top, progress=progress,
                             cylindrical=cylindrical)
    report = result.to_json()
    report["position"] = position.to_text()
    report["side"] = position.turn
    report["complete"] = result.complete
    return report


def format_position_analysis(report: dict) -> str:
    lines = [f"position: {report['position']}"]
    if not report["lines"]:
        lines.append("no legal order: the game is over (or drawn, C3)")
    for i, line in enumerate(report["lines"], 1):
        lines.append(f"{i}. {line['order']:<8} {line['score_text']:>10}   pv: {' '.join(line['pv'])}")
    lines.append(f"depth {report['depth']} (selective {report['seldepth']}), {report['nodes']:,} nodes, "
                 f"{report['seconds']:.2f} s, {report['nps']:,} nodes/s"
                 + (f", evaluation {report['evaluation']}" if "evaluation" in report else ""))
    return "\n".join(lines)


def analyze_game(state, iterations: int | None = None, seconds: float | None = None, top: int = 3, seed: int = 0,
                 processes: int = 1, progress=None) -> dict:
    """The player to move's best turn plan (the full-game AI, engine/search/ismcts.py, decision by
    decision), and the top first actions by the visits of a tree search of this decision (the
    alternatives and their values, which the AI's planner does not list). ``seconds`` is the
    budget of the whole analysis, and it is used: the plan may take up to two thirds of it (a step
    the planner decides takes next to nothing), the ranking search then takes all that is left;
    ``seconds`` in the report is the real time. Only that player's observation is used (every
    search runs on determinizations)."""
    if state.is_terminal():
        return {"over": state.over_reason, "winner": state.winner, "plan": [], "top": []}
    if iterations is None and seconds is None:
        iterations = 2000
    start = time.perf_counter()
    player = state.current_player()
    search = ISMCTS(iterations=iterations, seconds=seconds, seed=seed, processes=processes)
    plan = search.plan_turn(state, progress=progress, seconds=None if seconds is None else 2 * seconds / 3)
    left = None if seconds is None else max(0.01, seconds - (time.perf_counter() - start))
    ranking = ISMCTS(iterations=iterations, seconds=left, seed=seed, processes=processes,
                     plan_own_turn=False, trusted_phases=())
    stats = ranking.search(state)
    ranked = sorted(stats.children.items(), key=lambda item: -item[1][0])[:top]
    return {
        "player": player,
        "prompt": state.prompt(),
        "top": [{"action": a, "text": state.action_text(a), "visits": visits, "value": round(value, 4)}
                for a, (visits, value) in ranked],
        "plan": [{"action": a, "text": t} for a, t in zip(plan.actions, plan.texts)],
        "value": round(plan.value, 4),
        "decided_by": [step.source for step in plan.stats],
        "iterations": stats.iterations,
        "seconds": round(time.perf_counter() - start, 3),
    }


def format_game_analysis(report: dict) -> str:
    if "over" in report:
        return f"the game is over: {report['over']}"
    name = "Blue" if report["player"] == 0 else "Yellow"
    lines = [f"{name} to decide: {report['prompt']}"]
    for i, item in enumerate(report["top"], 1):
        lines.append(f"{i}. {item['text']:<40} visits {item['visits']:>6}  value {item['value']:+.3f}")
    lines.append(f"best turn plan (expected value {report['value']:+.3f} for {name}):")
    lines.extend(f"   {step['text']}" for step in report["plan"])
    lines.append(f"{report['iterations']} iterations, {report['seconds']} s")
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
