"""`ftc perft|selfplay|match|analyze --game kings-ransom` (docs/kings-ransom.md); the old `--variant kings-ransom`."""

import json
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from engine.interfaces.cli import main
from tests.support import FTC, ROOT, child_env, sigint_as_at_a_terminal

# The slow reference generator's counts (tests/reference/ransom.py, tests/data/ransom_perft.epd).
START_D1, START_D2 = 177, 30951
TURN = re.compile(r"^flip:(-|[a-c][1-6]) move:(-|[a-c][1-6][a-c][1-6](=[QRBNI])?) play:(-|[QRBNIP]@([a-c][1-6]|discard)): \d+$")


def test_perft_start_position(capsys):
    assert main(["perft", "--game", "kings-ransom", "startpos", "2"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"Nodes searched: {START_D2}"


def test_divide_lists_complete_turns(capsys):
    assert main(["perft", "--game", "kings-ransom", "startpos", "1", "--divide"]) == 0
    lines = [ln for ln in capsys.readouterr().out.strip().splitlines() if ln]
    assert lines[-1] == f"Nodes searched: {START_D1}"
    turns = lines[:-1]
    assert len(turns) == START_D1 and all(TURN.match(t) for t in turns), turns[:3]
    assert "flip:a1 move:a1a6 play:Q@a1: 1" in turns        # the Rook flipped on a1 takes the Knight a6


def test_bad_king_s_ransom_input_is_named(capsys):
    assert main(["perft", "--game", "kings-ransom", "3/3 r", "1"]) == 2
    assert "King's Ransom position '3/3 r'" in capsys.readouterr().err
    assert main(["perft", "--game", "kings-ransom", "startpos", "1", "--threads", "2"]) == 2
    assert "--threads" in capsys.readouterr().err
    assert main(["selfplay", "--game", "kings-ransom", "--games", "1", "--supply", "first-game"]) == 2
    assert "--supply: not an option of King's Ransom" in capsys.readouterr().err
    assert main(["match", "--game", "kings-ransom", "--a", "expert", "--b", "random", "--games", "1"]) == 2
    assert "unknown King's Ransom bot 'expert'" in capsys.readouterr().err


def test_selfplay_checks_every_invariant(capsys):
    assert main(["selfplay", "--game", "kings-ransom", "--games", "6", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "games: 6," in out and "errors: 0, invariant violations: 0" in out


def test_match_between_baselines(capsys):
    assert main(["match", "--game", "kings-ransom", "--a", "greedy", "--b", "random", "--games", "2",
                 "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)              # stdout is the JSON document alone; the summary is on stderr
    assert data["a"] == "greedy" and data["games"] == 2 and out.err.splitlines()[-1].startswith("A wins")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_stops_a_deep_count_with_one_line():
    proc = subprocess.Popen(FTC + ["perft", "--game", "kings-ransom", "startpos", "6", "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(), cwd=ROOT,
                            preexec_fn=sigint_as_at_a_terminal)
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready, "no progress line within 30 s"
        line = proc.stderr.readline()             # the first progress line: it is counting
        assert line.startswith("perft: 0/177 turns done") and " nodes, " in line, line
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        out, err = proc.communicate(timeout=30)
        assert time.monotonic() - start < 10
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert re.search(r"ftc: perft stopped after \d+ turns, \d+ first turns counted in full \(interrupted by SIGINT\)",
                     err) and "Traceback" not in err, err
    assert "Nodes searched" not in out


def test_analyze_plans_the_turn_of_a_position_or_a_record(capsys, tmp_path):
    import json

    from engine.ransom.state import RansomState

    assert main(["analyze", "--game", "kings-ransom", "startpos", "--iterations", "60", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["side"] == "Red" and [s["text"].split()[0] for s in report["plan"]] == ["flip", "move", "play"]
    assert all(len(s["alternatives"]) <= 3 for s in report["plan"])
    g = RansomState(seed=4)
    for _ in range(5):
        g.apply(g.legal_actions()[0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record()), encoding="utf-8")
    assert main(["analyze", "--game", "kings-ransom", str(path), "--iterations", "40"]) == 0
    assert capsys.readouterr().out.startswith(f"{g.player_names[g.current_player()]} to play")
    assert main(["analyze", "--game", "kings-ransom", "startpos", "--depth", "3"]) == 2
    assert "--depth: not an option of King's Ransom analysis" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    assert main(["analyze", "--game", "kings-ransom", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert "bad.json: not a game file of any game this engine plays (" in err and "kings-ransom" in err


def test_the_old_variant_form_still_chooses_the_game_with_a_note(capsys):
    assert main(["perft", "--variant", "kings-ransom", "startpos", "1"]) == 0
    captured = capsys.readouterr()
    assert "ftc: note: --variant kings-ransom chooses a game: use --game kings-ransom" in captured.err
    assert "Nodes searched: " in captured.out


def test_an_unknown_game_or_variant_exits_2_naming_the_choices(capsys):
    assert main(["selfplay", "--game", "chess", "--games", "1"]) == 2
    assert "unknown game 'chess'; known: crown, kings-ransom" in capsys.readouterr().err
    assert main(["match", "--game", "kings-ransom", "--variant", "point-buy", "--a", "random", "--b", "random"]) == 2
    assert "--variant 'point-buy': not a variant of King's Ransom" in capsys.readouterr().err
