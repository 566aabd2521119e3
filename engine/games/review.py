"""Game review (`ftc review RECORD`, docs/review.md): every decision of the reviewed players in a
record, searched as its player saw it then, labelled by what it lost against the engine's best
choice. Nothing here knows a game: each game gives its search of a decision (``Analysis.review``)
and its value scale with the labels' thresholds (``Analysis.review_scale``) through its registry
entry.

For a decision: ``value`` is the engine's value of its best choice there (the value before the
decision), ``played_value`` the value of the action played (the value after it), both for the player
deciding in the game's own scale; ``loss`` = value - played_value, never below 0 (a played action
valued above the engine's choice lost nothing); the label comes from the game's thresholds. Each
decision is one unit of the execution layer (engine/execution.py), a pure function of the record,
the decision and the settings: with a fixed budget (iterations, depth) and the same seed, a review
gives the same labels on one worker or many.

The review of a player reads only what that player knew at each decision: the game at the decision
is ``engine.games.records.state_at`` (every card hidden from the player sampled again from the seed),
as `ftc analyze RECORD --at N` analyses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.games import registry
from engine.games.records import record_points, state_at
from engine.games.registry import ReviewScale

__all__ = ["LABELS", "REVIEW_VERSION", "check_record", "parse_players", "review_decision", "review_units",
           "build_report", "format_review", "plot_review"]

#: The labels, best first.
LABELS = ("good", "inaccuracy", "mistake", "blunder")
#: The version of the JSON report's schema (docs/review.md).
REVIEW_VERSION = 1


def check_record(record: Any, game_name: str | None = None):
    """(game, number of players) of a record the review can read: a record of a registered game
    with decisions to name (``Game.walk``) and a review (``Analysis.review``); with ``game_name``,
    a record of that game. A ValueError says what is wrong in one line."""
    try:
        game = registry.for_record(record)
    except registry.UnknownGameError as exc:
        raise ValueError(str(exc)) from None
    if game_name is not None and registry.get(game_name).name != game.name:
        raise ValueError(f"a {game.title} record, not one of {registry.get(game_name).title} (--game {game_name})")
    _pieces(game)
    try:
        state = game.replay(record)
    except ValueError as exc:
        raise ValueError(f"not a valid {game.title} record: {exc}") from None
    return game, state.num_players


def _pieces(game) -> tuple[Callable[..., dict], Callable[[dict], tuple], ReviewScale]:
    """(review, walk, scale) of a game that has a review; ValueError when it has none."""
    review, walk, scale = game.analysis.review, game.walk, game.analysis.review_scale
    if review is None or walk is None or scale is None:
        raise ValueError(f"{game.title} has no game review")
    return review, walk, scale


def parse_players(game, players: int, text: str | None) -> tuple[int, ...]:
    """The players ``--player`` names: a seat's name (Blue, case aside) or its index (0 ..
    players-1); None: every player. A ValueError names the seats."""
    seats = [game.seat(p) for p in range(players)]
    if text is None:
        return tuple(range(players))
    known = ", ".join(f"{p} ({seat})" for p, seat in enumerate(seats))
    if text.strip().isdigit():
        index = int(text)
        if index < players:
            return (index,)
        raise ValueError(f"--player {text}: the record has players 0..{players - 1}: {known}")
    for p, seat in enumerate(seats):
        if seat.lower() == text.strip().lower():
            return (p,)
    raise ValueError(f"--player {text!r}: no such player in this {game.title} record; its players: {known}")


def review_units(record: dict, players: tuple[int, ...], settings: dict) -> list[tuple]:
    """One unit (``review_decision``'s arguments) per decision of ``players`` in the record, in order."""
    return [(record, point.decision, settings) for point in record_points(record) if point.player in players]


def review_decision(record: dict, decision: int, settings: dict) -> dict:
    """The review of the record's decision number ``decision`` (1 = the first): the game as its
    player saw it (``state_at`` with ``settings["seed"]``), searched by the game's
    ``Analysis.review``, labelled by its ``review_scale``. A module-level unit of the execution layer."""
    review, walk, scale = _pieces(registry.for_record(record))
    point = record_points(record)[decision - 1]
    state = state_at(record, point, settings.get("seed", 0))
    played = walk(record)[1][point.step][1]
    if played not in state.legal_actions():
        raise ValueError(f"decision {decision}: the action played is not legal as {point.name} saw the game")
    played_text = state.action_text(played)
    found = review(state, played, settings)
    value = float(found["value"])
    played_value = value if found["best_action"] == played else float(found["played_value"])
    loss = max(0.0, value - played_value)
    digits = scale.digits + 2
    return {"decision": point.decision, "turn": point.turn, "player": point.player, "seat": point.name,
            "played": played_text, "best": found["best"], "value": round(value, digits),
            "played_value": round(played_value, digits), "loss": round(loss, digits),
            "label": scale.label(round(loss, digits)), "line": list(found.get("line") or [found["best"]]),
            "searched": found.get("searched", "")}


def build_report(game, record_name: str, players: tuple[int, ...], settings: dict, entries: list[dict],
                 total: int) -> dict:
    """The review as a JSON-able report (docs/review.md "JSON"): the decisions reviewed (``entries``,
    in decision order; fewer than ``total`` when the review was stopped) and a summary per player."""
    scale = _pieces(game)[2]
    summary = []
    for player in players:
        mine = [e for e in entries if e["player"] == player]
        counts = {label: sum(1 for e in mine if e["label"] == label) for label in LABELS}
        average = sum(e["loss"] for e in mine) / len(mine) if mine else 0.0
        summary.append({"player": player, "seat": game.seat(player), "decisions": len(mine), "counts": counts,
                        "average_loss": round(average, scale.digits + 2)})
    return {"review": REVIEW_VERSION, "game": game.name, "title": game.title, "record": record_name,
            "players": list(players), "scale": scale.to_json(), "settings": dict(settings),
            "complete": len(entries) == total, "reviewed": len(entries), "of": total,
            "decisions": entries, "summary": summary}


def _number(value: float, digits: int) -> str:
    return f"{value:+.{digits}f}"


def format_review(report: dict) -> str:
    """The report as text for people: a line per decision, then the summary per player."""
    scale = _pieces(registry.get(report["game"]))[2]
    digits = scale.digits
    lines = [f"{report['title']} review of {report['record']}: values in {scale.unit}, for the player deciding "
             f"(inaccuracy from {scale.inaccuracy:g}, mistake from {scale.mistake:g}, blunder from {scale.blunder:g} lost)"]
    if not report["complete"]:
        lines.append(f"stopped: {report['reviewed']} of {report['of']} decisions reviewed")
    for e in report["decisions"]:
        mark = "" if e["label"] == "good" else f"  {e['label'].upper()}"
        head = (f"{e['decision']:>4}. turn {e['turn']:<3} {e['seat']:<7} {e['played']}  "
                f"{_number(e['played_value'], digits)} (best {_number(e['value'], digits)}, "
                f"loss {e['loss']:.{digits}f}){mark}")
        lines.append(head)
        if e["label"] != "good":
            lines.append(f"        better: {e['best']}; line: {' / '.join(e['line'])}")
    for s in report["summary"]:
        counts = ", ".join(f"{s['counts'][label]} {label}" for label in LABELS)
        lines.append(f"{s['seat']}: {s['decisions']} decisions: {counts}; average loss {s['average_loss']:.{digits}f}")
    return "\n".join(lines)


def plot_review(report: dict, path: str) -> None:
    """The evaluation graph of a review as a PNG: each reviewed player's value before each of its
    decisions (the engine's best choice there, for that player), the mistakes and blunders marked.
    RuntimeError without matplotlib (the ``plot`` extra)."""
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError("--plot needs matplotlib: pip install -e '.[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = registry.get(report["game"])
    fig, ax = plt.subplots(figsize=(9, 4))
    for player in report["players"]:
        mine = [e for e in report["decisions"] if e["player"] == player]
        (line,) = ax.plot([e["decision"] for e in mine], [e["value"] for e in mine], marker=".",
                          label=game.seat(player))
        for label, style in (("mistake", "o"), ("blunder", "X")):
            marked = [e for e in mine if e["label"] == label]
            if marked:                   # in the player's colour, at the value the move left
                ax.scatter([e["decision"] for e in marked], [e["played_value"] for e in marked], marker=style,
                           s=60, color=line.get_color(), label=f"{game.seat(player)} {label}s")
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.set_xlabel("decision")
    ax.set_ylabel(f"value ({report['scale']['unit']})")
    ax.set_title(f"{report['title']} review: {report['record']}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
