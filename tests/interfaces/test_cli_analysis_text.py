"""What `ftc analyze` of a game prints says what each list and number is (issue 39).

For the Crown: two searches answer a decision. The ranked list is a tree search of this decision
alone (ISMCTS without the turn planner, its board orders pruned to the six the board evaluation
rates best: engine/crown/pieces.py TopOrders); the best turn plan is the full AI's, whose
Order and Action steps the turn planner chooses from every legal action. The output names both, says
what chose each step of the plan, and places the plan's first step in the ranking (marked in the
list, its rank, or why that search never weighed it).

King's Ransom: each step's search goes on from the tree the step before grew below its choice
(ISMCTS ``reuse_tree``), so a step's visits exceed its iterations; the step's line says how many
visits were kept, and the visits add up to the two."""

import json

import pytest

from engine.crown.pieces import TopOrders
from engine.games.records import find_point, record_points, state_at
from engine.interfaces.cli import main

ITERATIONS = "300"


@pytest.fixture(scope="module")
def record_path(tmp_path_factory):
    """The README's record: `ftc selfplay --games 1 --seed 3 --records games` (seeded, the same
    game on every machine)."""
    folder = tmp_path_factory.mktemp("records")
    assert main(["selfplay", "--games", "1", "--seed", "3", "--records", str(folder / "games")]) == 0
    return folder / "games" / "game-3.json"


def _analysis(path, at: int, capsys) -> tuple[dict, list[str]]:
    """The JSON report and the text of the same analysis (an iteration budget and a seed: the
    same searches both times)."""
    argv = ["analyze", str(path), "--at", str(at), "--iterations", ITERATIONS, "--top", "3"]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    return report, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("at", [13, 20, 40])
def test_the_ranking_and_the_plan_say_what_they_are_and_where_the_plans_first_step_stands(record_path, capsys, at):
    report, lines = _analysis(record_path, at, capsys)
    name = "Blue" if report["player"] == 0 else "Yellow"
    assert lines[1] == (f"ranked by a tree search of this decision alone ({ITERATIONS} iterations; visits: playouts "
                        f"through the choice; value: their mean result for {name}, -1 loss .. +1 win):")
    first, top = report["plan_first"], report["top"]
    assert first["text"] == report["plan"][0]["text"]
    # The standing, checked against the ranking's own list and, independently, the pruning itself.
    record = json.loads(record_path.read_text())
    state = state_at(record, find_point(record_points(record), ("decision", at)))
    weighed = TopOrders(6)(state, state.legal_actions())
    assert report["weighed"] == len(weighed) and first["weighed"] == (report["plan"][0]["action"] in weighed)
    listed = [line for line in lines if line[:1].isdigit() and " visits " in line]
    assert len(listed) == len(top)
    if first["rank"] is not None and first["rank"] <= len(top):
        assert top[first["rank"] - 1]["text"] == first["text"]
        assert [line.endswith("<- the plan's first step") for line in listed] == \
            [i == first["rank"] for i in range(1, len(top) + 1)]
    elif first["rank"] is not None:
        assert (f"   the plan's first step, {first['text']}, ranks {first['rank']} of {first['of']} there "
                f"(visits {first['visits']}, value {first['value']:+.3f})") in lines
    else:
        assert not first["weighed"]
        assert (f"   the plan's first step, {first['text']}, is not among the {len(weighed)} choices that search "
                f"weighs (the 6 orders the board evaluation rates best, and every other action); the turn planner "
                "weighs them all") in lines
    # The plan: named as the full AI's, each step with what chose it.
    head = lines.index(next(line for line in lines if line.startswith("best turn plan, by the full AI")))
    steps = lines[head + 1:head + 1 + len(report["plan"])]
    words = {"search": "tree search", "plan": "turn planner", "win": "a win this turn (turn planner)",
             "prior": "expert's rule"}
    assert steps == [f"   {step['text']:<40} {words[source]}" for step, source in zip(report["plan"], report["decided_by"])]
    assert lines[-1].startswith(f"{ITERATIONS} iterations (the ranking), ")


def test_a_first_step_the_ranking_never_weighs_is_named_so(record_path, capsys):
    """Decision 20 of the README's record (found by analysing each decision: the first where it
    happens since the learned state evaluation of issue 44): the plan's first step (Ke8-d7) is none
    of the ranked choices, because the ranking's pruning kept six other orders."""
    report, lines = _analysis(record_path, 20, capsys)
    assert report["plan"][0]["text"] == "e8d7" and report["decided_by"][0] == "plan"
    assert report["plan_first"]["rank"] is None and not report["plan_first"]["weighed"]
    assert "e8d7" not in {item["text"] for item in report["top"]}
    assert any(line.startswith("   the plan's first step, e8d7, is not among the 8 choices") for line in lines)


def test_kings_ransom_visits_are_the_steps_iterations_and_those_kept_from_the_step_before(capsys):
    assert main(["analyze", "--game", "kings-ransom", "startpos", "--iterations", "200", "--top", "100",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    steps = report["plan"]
    assert len(steps) == 3 and steps[0]["carried"] == 0
    for step in steps:
        # With every alternative listed (--top 100), the visits are exactly the two counts.
        assert sum(alt["visits"] for alt in step["alternatives"]) == step["iterations"] + step["carried"]
    assert all(step["carried"] > 0 for step in steps[1:])
    assert max(alt["visits"] for alt in steps[1]["alternatives"]) > steps[1]["iterations"]     # "377 under 200"
    assert main(["analyze", "--game", "kings-ransom", "startpos", "--iterations", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("for Red (-1 a loss, +1 a win)")
    assert lines[1].startswith(f"1. {steps[0]['text']}  ({steps[0]['value']:+.3f}; 200 iterations)")
    for i, step in enumerate(steps[1:], 2):
        assert (f"{i}. {step['text']}  ({step['value']:+.3f}; 200 iterations + {step['carried']} visits kept from "
                f"step {i - 1}'s search)") in lines
    assert lines[-1] == ("visits: the searches' playouts through an action; a step's search goes on from the tree "
                         "the step before grew below its choice, and keeps its visits")
