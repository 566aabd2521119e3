"""Hidden cards on the analysis board's record board (engine/interfaces/server/game_analysis.py, issue
42: "the hidden-information tests of the server apply to its answers"): what the board answers for
a loaded seat depends on nothing hidden from that seat. As tests/games/test_review.py's check of the
review: every point of the record is replayed in another world (``engine.games.records._walk``, the
one replay of a record's point, patched to deal every card hidden from the loaded seat otherwise,
``resample_hidden`` from another seed); the point's view and the socket's analysis (the ``done``
answer: its choices and values) are the same, field for field, and so is the load's answer (its
decisions' texts come from the record's own walk, ``log_for``, and are checked against the seat's log
by test_game_analysis.py). Planted leaks fail it: a point's view that also carries the other seat's
observation (King's Ransom), or the next card the state's generator would draw (both games). The
other seat's decisions are analysed too: King's Ransom's world dealt for the seat not to move once
kept the true game's choices and the search failed on them ("the analysis failed: play: no Knight
in Blue's Hand"; engine/ransom/observation.py). King's Ransom and Crownfall are the games with hidden cards on this board (For the Crown has
its own board, Crusade & Conquer hides nothing). The analyses run on a fixed budget (a few
iterations, the seed the board uses) so that two worlds can be compared; the board's own budget is
its seconds."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from engine.games import records, registry
from tests.server.test_game_analysis import analyse, load, seeded_record

HIDDEN_GAMES = ("kings-ransom", "crownfall")
#: The fixed budget of the analyses compared: iterations of the game's tree search.
ITERATIONS = 30


@pytest.fixture
def fixed_budget(monkeypatch):
    """Every record's game analyses on ITERATIONS iterations (the seconds the socket asks for are
    dropped) and reports no clock time, so that the same game gives the same answer."""
    for_record = registry.for_record

    def fixed_game(record):
        game = for_record(record)
        searched = game.analysis.analyze

        def analyze(state, iterations, seconds, top, seed, processes, progress=None, **stop):
            report = searched(state, ITERATIONS, None, top, seed, processes, progress=progress, **stop)
            if "seconds" in report:
                report["seconds"] = 0.0
            return report

        return dataclasses.replace(game, analysis=dataclasses.replace(game.analysis, analyze=analyze))

    monkeypatch.setattr(registry, "for_record", fixed_game)


def other_worlds(monkeypatch, viewer: int) -> list[bool]:
    """Patch the replay of a record's point so that the game there has every card hidden from
    ``viewer`` dealt otherwise; the list returned fills with whether each world differs from the
    true one in what ``viewer`` may not see (the other seat's information, or the order of the
    cards no one has drawn)."""
    changed: list[bool] = []
    walk = records._walk

    def other_world(state, steps, resign, names, until=None):
        truth = walk(state, steps, resign, names, until)
        if until is None:
            return truth
        world = truth.resample_hidden(viewer, random.Random(999))
        world.auto_chance = truth.auto_chance
        hidden = [world.information_key(p) != truth.information_key(p)
                  for p in range(truth.num_players) if p != viewer]
        drawn = getattr(world, "rng", None) is not None and world.rng.getstate() != truth.rng.getstate()
        changed.append(any(hidden) or drawn)
        return world

    monkeypatch.setattr(records, "_walk", other_world)
    return changed


def answers(client, record, decisions: list[int], analysed: list[int]) -> dict:
    """What the board answers for seat 0: the load (without its id), the view before each of
    ``decisions`` and the socket's analysis (without its search id) at each of ``analysed``."""
    loaded = load(client, record, player=0)
    assert loaded.status_code == 200, loaded.text
    loaded = loaded.json()
    key = loaded.pop("id")
    points = {}
    for decision in decisions:
        shown = client.post("/api/analysis/game-point", json={"id": key, "decision": decision})
        assert shown.status_code == 200, shown.text
        points[str(decision)] = {"point": shown.json()}
        if decision in analysed:
            points[str(decision)]["done"] = analyse(client, key, decision, seconds=0.1, top=3)
            points[str(decision)]["done"].pop("id")
    return json.loads(json.dumps({"load": loaded, "points": points}))


@pytest.mark.parametrize("name", HIDDEN_GAMES)
def test_the_boards_answers_for_a_seat_are_the_same_whatever_the_cards_hidden_from_it(
        name, client, fixed_budget, monkeypatch):
    record = seeded_record(name, seed=11, decisions=30)
    points = records.record_points(record)
    # The views before decisions of both seats, and the end; the analyses at two of the loaded
    # seat's own decisions and at three of the other seat's (searched as seat 0 saw them).
    mine = [p.decision for p in points if p.player == 0]
    theirs = [p.decision for p in points if p.player == 1]
    analysed = sorted({mine[0], mine[-1], *theirs[:3]})
    decisions = sorted({*analysed, *theirs}) + [len(points) + 1]
    real = answers(client, record, decisions, analysed)
    assert all(real["points"][str(d)]["done"]["choices"] for d in analysed)
    changed = other_worlds(monkeypatch, 0)
    again = answers(client, record, decisions, analysed)
    assert any(changed), "the other worlds dealt no hidden card otherwise: the check would prove nothing"
    assert again["load"] == real["load"]
    for decision in decisions:
        assert again["points"][str(decision)] == real["points"][str(decision)], decision
