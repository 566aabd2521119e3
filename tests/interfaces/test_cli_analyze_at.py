"""`ftc analyze RECORD --at N|turn:T` (issue 22): any point of a saved game of either game, analysed
as the player to move saw it then; a finished game without --at says so with the range --at takes."""

import json
import random

import pytest

from engine.crown.actions import RESIGN
from engine.crown.config import GameConfig
from engine.crown.state import GameState
from engine.crown.state import replay as ftc_replay
from engine.games.records import find_point, parse_at, record_points, state_at
from engine.interfaces.cli import main
from engine.ransom.state import RESIGN as RANSOM_RESIGN
from engine.ransom.state import RansomState
from engine.ransom.state import replay as ransom_replay

QUICK = ["--iterations", "30", "--top", "2", "--json"]


def _play_out(state, seed: int) -> None:
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))


@pytest.fixture(scope="module")
def ftc_record(tmp_path_factory):
    game = GameState(GameConfig(seed=11, supply="first-game"))
    _play_out(game, 11)
    path = tmp_path_factory.mktemp("records") / "ftc.json"
    path.write_text(json.dumps(game.record()))
    return path, game.record()


@pytest.fixture(scope="module")
def ransom_record(tmp_path_factory):
    game = RansomState(5)
    _play_out(game, 5)
    path = tmp_path_factory.mktemp("records") / "ransom.json"
    path.write_text(json.dumps(game.record()))
    return path, game.record()


def _decisions(steps, resign) -> list[tuple[int, int]]:
    """(step index, player) of each decision, counted straight from the record's steps."""
    return [(i, p) for i, (p, a) in enumerate(steps) if p >= 0 and a != resign]


def _truncated(record: dict, key: str, step: int) -> dict:
    """The record of the game up to (not including) step ``step``: the game's own replay gives the
    real state there, to compare with."""
    cut = {k: v for k, v in record.items() if k not in ("fingerprint", "rng")}
    cut[key] = record[key][:step]
    return cut


def test_a_finished_game_says_so_and_names_the_range(ftc_record, capsys):
    path, record = ftc_record
    decisions = _decisions(record["steps"], RESIGN)
    assert main(["analyze", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("the game is over: ")
    assert f"--at N (decisions 1..{len(decisions)})" in out[1] and "--at turn:T (turns 1.." in out[1]


@pytest.mark.parametrize("number", [1, 2, 57])
def test_at_a_decision_analyses_the_state_before_it(ftc_record, capsys, number):
    path, record = ftc_record
    step, player = _decisions(record["steps"], RESIGN)[number - 1]
    real = ftc_replay(_truncated(record, "steps", step), check_fingerprint=False)
    assert main(["analyze", str(path), "--at", str(number), *QUICK]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["at"]["decision"] == number and report["at"]["player"] == player == report["player"]
    assert report["at"]["turn"] == real.turn + 1                      # turns as shown: 1 first
    assert report["prompt"] == real.prompt()
    assert {item["text"] for item in report["top"]} <= {real.action_text(a) for a in real.legal_actions()}
    assert f"decision {number} of " in captured.err


def test_at_a_turn_is_its_first_decision(ftc_record):
    _, record = ftc_record
    points = record_points(record)
    point = find_point(points, parse_at("turn:4"))
    assert point.turn == 4 and points[point.decision - 2].turn == 3


def test_the_analysed_state_is_what_the_player_saw(ftc_record):
    """The state handed to the search is a determinization from the deciding player's seat: the same
    observation as the real game's, but the opponent's hidden cards drawn again (no peeking)."""
    _, record = ftc_record
    point = find_point(record_points(record), ("decision", 40))
    real = ftc_replay(_truncated(record, "steps", point.step), check_fingerprint=False)
    seen = state_at(record, point, seed=3)
    assert seen.determinized and not real.determinized
    assert seen.observation(point.player) == real.observation(point.player)
    other = 1 - point.player
    hands = {tuple(sorted(state_at(record, point, seed=s).zones[other].hand)) for s in range(8)}
    assert len(hands) > 1, "the opponent's Hand is the real one, not sampled"


@pytest.mark.parametrize("at, words", [
    ("9999", ["--at 9999", "decisions 1.."]),
    ("turn:9999", ["--at turn:9999", "turns 1.."]),
    ("turn:0", ["--at 'turn:0'", "turn:T"]),
    ("x", ["--at 'x'", "decision number N"]),
])
def test_a_bad_at_names_the_range_or_the_form(ftc_record, capsys, at, words):
    path, _ = ftc_record
    assert main(["analyze", str(path), "--at", at]) == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err, (word, err)


def test_at_is_refused_for_a_single_position(capsys):
    assert main(["analyze", "startpos", "--at", "3"]) == 2
    assert "--at picks a point of a game record" in capsys.readouterr().err


def test_kings_ransom_record_at_a_turn(ransom_record, capsys):
    path, record = ransom_record
    decisions = _decisions(record["actions"], RANSOM_RESIGN)
    assert main(["analyze", str(path)]) == 0                        # the record says which game it is
    assert f"--at N (decisions 1..{len(decisions)})" in capsys.readouterr().out
    assert main(["analyze", str(path), "--at", "turn:3", *QUICK]) == 0
    report = json.loads(capsys.readouterr().out)
    point = find_point(record_points(record), ("turn", 3))
    real = ransom_replay(_truncated(record, "actions", point.step))
    assert report["turn"] == real.turn == 3 == report["at"]["turn"]
    assert report["player"] == real.current_player() == point.player
    assert report["plan"][0]["text"] in {real.action_text(a) for a in real.legal_actions()}


def test_time_is_the_budget_of_a_game_analysis(ftc_record, capsys):
    """--time 1 on a full-game state uses the second (issue 22: --time 5 finished in 2 s: the plan's
    steps that the planner decides take no time, and their share was lost)."""
    path, _ = ftc_record
    assert main(["analyze", str(path), "--at", "30", "--time", "1", "--top", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert 0.9 <= report["seconds"] <= 1.5, report["seconds"]


def test_time_bounds_a_kings_ransom_turn(ransom_record):
    """King's Ransom: --time is the whole turn's budget, shared among its decisions (it was each
    decision's, so a turn took up to four times as long)."""
    import time

    from engine.ransom.players import analyze_ransom

    _, record = ransom_record
    state = state_at(record, find_point(record_points(record), ("turn", 3)))
    start = time.perf_counter()
    report = analyze_ransom(state, seconds=1.0)
    assert time.perf_counter() - start <= 1.4
    assert len(report["plan"]) >= 2


@pytest.mark.parametrize("which", ["ftc", "ransom"])
def test_the_last_decision_is_analysed_and_one_past_it_is_refused(ftc_record, ransom_record, capsys, which):
    """The bounds of --at N (issue 39): N = the record's last decision analyses the state before
    that decision (its player and prompt are the real ones, replayed by the game itself); N + 1 is
    an error naming the range, exit 2, no traceback. The count of decisions comes straight from the
    record's steps (_decisions), not from record_points."""
    if which == "ftc":
        (path, record), key, resign = ftc_record, "steps", RESIGN
        replay = lambda r: ftc_replay(r, check_fingerprint=False)      # noqa: E731
    else:
        (path, record), key, resign, replay = ransom_record, "actions", RANSOM_RESIGN, ransom_replay
    decisions = _decisions(record[key], resign)
    last = len(decisions)
    step, player = decisions[-1]
    real = replay(_truncated(record, key, step))
    assert main(["analyze", str(path), "--at", str(last), *QUICK]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["at"] == {"decision": last, "of": last, "turn": report["at"]["turn"], "player": player}
    assert report["player"] == player == real.current_player()
    assert f"decision {last} of {last}," in captured.err
    assert main(["analyze", str(path), "--at", str(last + 1), *QUICK]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"ftc: error: --at {last + 1}: the record has decisions 1..{last}"


def test_the_last_turn_is_analysed_and_the_turn_after_it_is_refused(ftc_record, capsys):
    """--at turn:T at the record's last turn is that turn's first decision; the turn after it is
    refused with the range of turns (the turns as the replayed game counts them, 1 first)."""
    path, record = ftc_record
    decisions = _decisions(record["steps"], RESIGN)
    last_turn = ftc_replay(_truncated(record, "steps", decisions[-1][0]), check_fingerprint=False).turn + 1
    assert main(["analyze", str(path), "--at", f"turn:{last_turn}", *QUICK]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["at"]["turn"] == last_turn
    assert main(["analyze", str(path), "--at", f"turn:{last_turn + 1}", *QUICK]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"ftc: error: --at turn:{last_turn + 1}: no decision in that turn; the record has decisions in "
                   f"turns 1..{last_turn}")
