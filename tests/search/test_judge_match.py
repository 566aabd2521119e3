"""tools/judge_match.py: reading a match record, the winning chance of a score, the phases, and the
whole command with a scripted UCI judge whose scores give losses worked out by hand below."""

import json
import math
import sys

import pytest

from tests.support import load_tool


@pytest.fixture(scope="module")
def tool():
    module = load_tool("judge_match")
    yield module
    sys.modules.pop(module.__name__, None)


# A UCI engine that reads the ini and answers `go` with the score the file argv[1] gives for the
# number of moves in the position (a JSON object of {"plies": [kind, value]}; none given: cp 0).
SCRIPTED_JUDGE = r'''
import json, sys
scores = json.load(open(sys.argv[1]))
moves = []
def say(line):
    print(line, flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name Scripted-Judge")
        say("option name VariantPath type string default <empty>")
        say("option name UCI_Variant type combo default chess var chess")
        say("uciok")
    elif words[:3] == ["setoption", "name", "UCI_Variant"]:
        say(f"info string variant {words[4]} files 8 ranks 8")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        moves = words[words.index("moves") + 1:] if "moves" in words else []
    elif words[0] == "go":
        kind, value = scores.get(str(len(moves)), ["cp", 0])
        say(f"info depth 1 score {kind} {value} nodes 1 pv a2a3")
        say("bestmove a2a3")
    elif words[0] == "quit":
        break
'''


@pytest.fixture
def judge(tmp_path):
    def make(scores: dict) -> str:
        (tmp_path / "scores.json").write_text(json.dumps(scores))
        (tmp_path / "judge.py").write_text(SCRIPTED_JUDGE)
        path = tmp_path / "judge"
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{tmp_path / "judge.py"}" "{tmp_path / "scores.json"}"\n')
        path.chmod(0o755)
        return str(path)
    return make


def game_line(**changes) -> str:
    game = {"game": 1, "blue": "ftc-engine (100 ms/move)", "yellow": "Fairy-Stockfish 061226 (100 ms/move)",
            "result": "0-1", "reason": "Sovereign captured", "fault": None, "opening_plies": 2,
            "moves": ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]}
    game.update(changes)
    return json.dumps(game)


def test_chance_of_a_score(tool):
    assert tool.chance(("cp", 0)) == 0.5
    assert tool.chance(("cp", 400)) == pytest.approx(1 / 1.1)
    assert tool.chance(("cp", -400)) == pytest.approx(1 - 1 / 1.1)
    assert tool.chance(("mate", 3)) == 1.0 and tool.chance(("mate", -1)) == 0.0


def test_phases_by_the_officers_in_play(tool):
    from tools.vs_fairy_stockfish import referee_position
    assert tool.officers(referee_position()) == 14                     # Q, 2 R, 2 B, 2 N a side
    # 3/4 of 14 is 10.5 and 1/3 of it 4.67.
    assert [tool.phase_of(n, 14) for n in (14, 11, 10, 5, 4, 0)] == ["full", "full", "middle", "middle", "end", "end"]
    assert tool.phase_of(0, 0) == "full"                               # no officer at the start: nothing to lose
    # The bounds themselves: exactly 3/4 is full, exactly 1/3 middle.
    assert [tool.phase_of(3, 4), tool.phase_of(2, 4), tool.phase_of(1, 3), tool.phase_of(1, 4)] == \
        ["full", "middle", "middle", "end"]


def test_bad_records_are_named_by_line(tool, tmp_path):
    cases = [
        ("not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        (game_line(result="2-0"), "result '2-0'"),
        (game_line(moves="e2e4"), "'moves' is missing or not list"),
        (game_line(opening_plies=9), "opening_plies 9 is outside 0..6"),
        (game_line(opening_plies=True), "'opening_plies' is missing or not a number"),
        (game_line(moves=["e2e4", 5]), "'moves' must be a list of move texts"),
        (game_line(start="x"), "'start' and 'variant' come together"),
    ]
    for text, message in cases:
        path = tmp_path / "r.jsonl"
        path.write_text(game_line() + "\n\n" + text + "\n")
        with pytest.raises(tool.RecordError, match="r.jsonl:3: ") as caught:
            tool.read_record(path)
        assert message in str(caught.value), (text, caught.value)
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(tool.RecordError, match="no game in the record"):
        tool.read_record(tmp_path / "empty.jsonl")
    with pytest.raises(tool.RecordError, match="cannot read the record"):
        tool.read_record(tmp_path / "missing.jsonl")


def test_the_losses_of_a_game_worked_out_by_hand(tool, judge, tmp_path, capsys):
    """Plies 2-5 are judged (2 opening plies). Blue (ours) moves at plies 2 and 4, Yellow at 3 and 5.
    The judge says cp 0 before ply 2 and 3, +400 for Blue before ply 4, -200 for Yellow before ply 5;
    after the last move the result counts (0-1: Yellow won). Chances: cp 400 is 1/1.1 = 0.909091,
    cp -200 is 1/(1 + 10**0.5) = 0.240253. Losses: ply 2, 0.5 - (1 - 0.5) = 0; ply 3 (Yellow),
    0.5 - (1 - 0.909091) = 0.409091; ply 4 (Blue), 0.909091 - (1 - 0.240253) = 0.149344; ply 5
    (Yellow), 0.240253 - 1 < 0, so 0."""
    record = tmp_path / "games.jsonl"
    record.write_text(game_line() + "\n")
    out_json = tmp_path / "judged.json"
    code = tool.main(["--record", str(record), "--fsf", judge({"4": ["cp", 400], "5": ["cp", -200]}),
                      "--depth", "3", "--json", str(out_json), "--worst", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(out_json.read_text())
    losses = [(m["ply"], m["ours"], m["loss"]) for m in data["moves"]]
    chance400, chance_minus200 = 1 / 1.1, 1 / (1 + math.sqrt(10))
    expected = [(2, True, 0.0), (3, False, 0.5 - (1 - chance400)), (4, True, chance400 - (1 - chance_minus200)),
                (5, False, 0.0)]
    assert [(p, o) for p, o, _ in losses] == [(p, o) for p, o, _ in expected]
    assert [loss for _, _, loss in losses] == pytest.approx([loss for _, _, loss in expected], abs=1e-5)
    assert all(m["phase"] == "full" for m in data["moves"])
    rows = {(r["phase"], r["side"]): r for r in data["phases"]}
    assert rows["full", "ours"]["moves"] == 2 and rows["full", "ours"]["errors"] == 0
    assert rows["full", "theirs"]["errors"] == 1                       # 0.409 >= 0.2
    assert data["excess"]["full"] == pytest.approx(0.149344 - 0.409091, abs=1e-4)
    assert data["worst"][0]["move"] == "f1c4" and data["worst"][0]["before"] == ["cp", 400]
    assert "our loss minus theirs by phase: full -0.26" in out
    assert "game 1 ply 5 f1c4 (full): loss 0.149" in out


def test_a_mate_score_is_a_certain_result(tool, judge, tmp_path, capsys):
    """Yellow (ours here) is mated in the judge's eyes before ply 5, and lost: its last move, from
    chance 0 to the loss, loses nothing (read as cp -2 it would lose 0.499); Blue's ply 4 into that
    mate gains."""
    record = tmp_path / "games.jsonl"
    record.write_text(game_line(blue="Fairy-Stockfish", yellow="ftc-engine", result="1-0") + "\n")
    out_json = tmp_path / "judged.json"
    code = tool.main(["--record", str(record), "--fsf", judge({"5": ["mate", -2]}), "--json", str(out_json)])
    assert code == 0, capsys.readouterr().out
    moves = json.loads(out_json.read_text())["moves"]
    assert [(m["ply"], m["ours"], m["loss"]) for m in moves] == [(2, False, 0.0), (3, True, 0.0), (4, False, 0.0),
                                                                 (5, True, 0.0)]


def test_an_illegal_move_and_a_wrong_player_name_are_errors(tool, judge, tmp_path, capsys):
    record = tmp_path / "games.jsonl"
    record.write_text(game_line() + "\n" + game_line(game=2, moves=["e2e4", "e7e5", "e4e5"]) + "\n")
    code = tool.main(["--record", str(record), "--fsf", judge({})])
    err = capsys.readouterr().err
    assert code == 1 and "record line 2 (game 2): move 3 'e4e5' is not legal there" in err
    code = tool.main(["--record", str(record), "--fsf", judge({}), "--ours", "nobody"])
    err = capsys.readouterr().err
    assert code == 2 and "record line 1: --ours 'nobody' must name exactly one of the players" in err
    code = tool.main(["--record", str(record), "--fsf", str(tmp_path / "no-such-judge")])
    assert code == 2 and "Fairy-Stockfish binary not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tool.main(["--record", str(record), "--depth", "0"])
    assert "--depth 0: expected 1..60" in capsys.readouterr().err


def test_parallel_judging_gives_the_same_report(tool, judge, tmp_path, capsys):
    record = tmp_path / "games.jsonl"
    record.write_text("\n".join(game_line(game=i) for i in range(1, 4)) + "\n")
    fsf = judge({"3": ["cp", 250], "4": ["cp", -90]})
    reports = []
    for parallel in ("1", "2"):
        out_json = tmp_path / f"p{parallel}.json"
        assert tool.main(["--record", str(record), "--fsf", fsf, "--parallel", parallel, "--json", str(out_json)]) == 0
        capsys.readouterr()
        data = json.loads(out_json.read_text())
        reports.append((data["phases"], data["moves"]))
    assert reports[0] == reports[1] and len(reports[0][1]) == 12


def test_a_plot_without_matplotlib_is_refused_before_judging(tool, judge, tmp_path, monkeypatch, capsys):
    record = tmp_path / "games.jsonl"
    record.write_text(game_line() + "\n")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code = tool.main(["--record", str(record), "--fsf", judge({}), "--plot", str(tmp_path / "p.png")])
    captured = capsys.readouterr()
    assert code == 2 and "needs matplotlib" in captured.err and "nothing was judged" in captured.err
    assert "judging" not in captured.out and not (tmp_path / "p.png").exists()
