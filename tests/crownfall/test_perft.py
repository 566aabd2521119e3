"""`ftc perft --game crownfall` (engine/crownfall/perft.py) against the independent reference.

Every expected count here comes from the slow reference tests/reference/crownfall.py (written from the
rulebook and RULINGS I without reading the engine), never from the engine: the counts of
tests/data/crownfall_counts.jsonl were written by its `generate` command, the start-position counts
below by ``reference.count(reference.new_game(n), depth)`` (recomputed by the slow test
``test_startpos_counts_are_the_reference_s``), and the divide and error cases run the reference live.
The fixed chance mode of a start position or a saved game follows the game's own seeded generator:
it is checked against a game played with automatic chance (engine/crownfall/state.py).
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.crownfall.config import CrownfallConfig
from engine.crownfall.perft import divide, perft, position_text, read
from engine.crownfall.position import decisions
from engine.crownfall.state import CrownfallState
from engine.perft import PerftControl, PerftStopped
from tests.reference import crownfall as reference
from tests.support import FTC, ROOT, child_env

COUNTS = Path(__file__).resolve().parents[1] / "data" / "crownfall_counts.jsonl"
LINES = [json.loads(line) for line in COUNTS.read_text().splitlines() if line.strip()]

#: (line of the counts file, 1-based; mode) counted at depth 3 in the default run (about 15 s in all):
#: the starts of 2, 3 and 4 players, two 4-player mid-games, a retreat choice, and the fixed mode of a
#: 2-player and a 3-player mid-game. The other cases (up to 20 s each) are marked slow.
QUICK = {(1, "fixed"), (1, "expanded"), (2, "fixed"), (2, "expanded"), (3, "fixed"), (3, "expanded"),
         (8, "fixed"), (8, "expanded"), (9, "fixed"), (9, "expanded"), (10, "fixed"), (10, "expanded"),
         (4, "fixed"), (7, "fixed")}

#: reference.count(reference.new_game(n), depth) (expanded: every Omen, every pair of Objectives).
STARTPOS = {2: {1: 4872, 2: 123788}, 3: {1: 4872, 2: 123452}, 4: {1: 4872, 2: 116088}}


def _case(line, mode):
    marks = [] if (line, mode) in QUICK else [pytest.mark.slow]
    return pytest.param(line, mode, marks=marks, id=f"line{line}-{mode}")


@pytest.mark.parametrize("line,mode", [_case(i + 1, m) for i in range(len(LINES)) for m in ("fixed", "expanded")])
def test_perft_agrees_with_the_reference_at_depth_3(line, mode):
    data = LINES[line - 1]
    got = perft(read(json.dumps(data["position"])), 3, mode)
    assert got == data[mode]["3"], data["covers"]        # the reference's count


def test_the_agreement_covers_2_3_and_4_players_in_both_modes():
    quick = {line for line, _ in QUICK}
    assert len(quick) >= 6
    assert {len(LINES[line - 1]["position"]["players"]) for line in quick} == {2, 3, 4}


def ftc(*argv, cwd=ROOT):
    return subprocess.run(FTC + list(argv), capture_output=True, text=True, env=child_env(), cwd=cwd, timeout=300)


def test_the_command_agrees_with_the_reference(tmp_path):
    # 4 players mid-game (line 9), fixed chance, from a position file: the reference's 4669
    path = tmp_path / "mid.json"
    path.write_text(json.dumps(LINES[8]["position"]))
    run = ftc("perft", "--game", "crownfall", str(path), "3", "--chance", "fixed")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == f"Nodes searched: {LINES[8]['fixed']['3']}"


def test_divide_agrees_with_the_reference_s_divide():
    # line 10: a beaten Archmage's retreat; the reference's divide run live
    pos = LINES[9]["position"]
    ours = divide(read(json.dumps(pos)), 3, "expanded")
    assert ours == reference.divide(reference.parse(pos), 3, "expanded")
    run = ftc("perft", "--game", "crownfall", json.dumps(pos), "3", "--divide")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[:-2] == [f"{text}: {n}" for text, n in ours.items()]
    assert lines[-1] == f"Nodes searched: {sum(ours.values())}"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_startpos_expanded_agrees_with_the_reference(players):
    pos = read("startpos", players)
    assert perft(pos, 0) == 1
    assert perft(pos, 1) == STARTPOS[players][1]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_startpos_expanded_agrees_with_the_reference_at_depth_2(players):
    assert perft(read("startpos", players), 2) == STARTPOS[players][2]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_startpos_counts_are_the_reference_s(players):
    start = reference.new_game(players)
    assert {d: reference.count(start, d) for d in (1, 2)} == STARTPOS[players]


@pytest.mark.parametrize("players,seed", [(2, 0), (3, 7), (4, 11)])
def test_fixed_startpos_draws_as_the_seeded_game_does(players, seed):
    # the game with automatic chance draws the Omen and the two Objectives with its generator; the
    # fixed count from startpos of the same seed takes exactly that outcome
    game = CrownfallState(CrownfallConfig.from_json({"players": players, "seed": seed}))
    counts = divide(read("startpos", players, seed), 1, "fixed")
    objectives = " ".join(game.rules.objectives[c].key for c in sorted(game.objectives))
    prefix = f"omen {game.omen_key()}; objectives {objectives}; "
    assert all(text.startswith(prefix) for text in counts)
    assert sorted(text[len(prefix):] for text in counts) == sorted(text for text, _ in decisions(game))


def test_fixed_record_draws_as_the_seeded_game_does(tmp_path):
    # a saved game (automatic chance, seed 5) stopped at the last action of round 1: the fixed count
    # at depth 2 follows the draws the game itself makes after each first decision (the Objective
    # pair and the next Omen), so it equals the decisions of the game after each one
    import random
    game = CrownfallState(CrownfallConfig.from_json({"players": 2, "seed": 5}))
    rng = random.Random(3)
    while not (game.round == 1 and game.current == 1 and game.actions_left == 1 and game.stage == "turn"):
        legal = game.legal_actions()
        game.apply(rng.choice(legal) if game.actions_left > 1 or game.stage != "turn" else legal[0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    # the game's own children: its automatic chance draws after the round's last decision
    expected = {text: len(decisions(child)) for text, child in decisions(game)}
    assert all(child.round == 2 for _, child in decisions(game) if child.stage == "turn")
    assert divide(read(str(path)), 2, "fixed") == expected
    assert perft(read(str(path)), 1, "fixed") == len(decisions(game))


def test_chance_steps_are_not_plies():
    # seat 1's only decision ("end") ends round 4; the Objective pair and the Omen of round 5 are
    # drawn after it without a ply: depth 1 is 1, depth 2 the reference's count over every outcome
    # (expanded) or the one of the deck orders (fixed), run live
    from tests.test_crownfall_reference import make, region
    pos = make([("briar", "highmoor"), ("redwall", "westwatch")],
               {"highmoor": region(0, 0, {"role": "none", "damaged": False, "spent": False})}, seat=1,
               actions_left=1, archmages=["highmoor", None], omen="red-harvest", round=4,
               omens_seen=["ash-winter", "silent-roads", "open-veins", "red-harvest"],
               objectives=["hold-keep", "two-ruins"],
               objective_deck=["largest-realm", "three-towers", "linked-outer", "tower-battle"],
               omen_next=["gloam-tide", "bright-surge"],
               objective_next=["linked-outer", "largest-realm", "three-towers", "tower-battle"])
    p = read(json.dumps(pos))
    expected = [reference.count(pos, 1), reference.count(pos, 2), reference.count(pos, 2, "fixed")]
    assert expected[0] == 1 and expected[1] == 12 * expected[2]
    assert [perft(p, 1), perft(p, 2), perft(p, 2, "fixed")] == expected


def test_divide_sums_to_perft_and_a_control_stops_it():
    pos = read(json.dumps(LINES[0]["position"]))
    counts = divide(pos, 2)
    assert sum(counts.values()) == perft(pos, 2) == LINES[0]["expanded"]["2"]
    control = PerftControl()
    seen = []

    def progress(report):
        if report.finished is not None:
            seen.append(report.finished)
            if len(seen) == 3:
                control.stop(signal.SIGINT)

    with pytest.raises(PerftStopped) as stop:
        divide(pos, 2, progress=progress, control=control)
    assert stop.value.reason == signal.SIGINT
    assert stop.value.counts == dict(seen) == dict(list(counts.items())[:3])


@pytest.mark.parametrize("argv, message", [
    (["nowhere.json", "2"], "Crownfall position 'nowhere.json': expected startpos, a position JSON text or the "
                            "name of a position or saved-game file (no such file)"),
    (["{nope", "2"], "Crownfall position '{nope': not JSON (Expecting property name"),
    (["startpos", "2", "--chance", "maybe"], "--chance 'maybe': expected expanded or fixed"),
    (["startpos", "2", "--players", "5"], "--players: expected 2, 3 or 4, got 5"),
    (["{}", "2", "--seed", "3"], "--seed: only for startpos"),
    (["{\"game\": \"crownfall\", \"players\": []}", "1"], "position.players: expected 2 to 4 players, got 0"),
    (["startpos", "1", "--promote", "Q"], "--promote: not an option of Crownfall perft"),
])
def test_bad_input_is_one_line(argv, message):
    run = ftc("perft", "--game", "crownfall", *argv)
    assert run.returncode == 2 and not run.stdout
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    assert message in run.stderr


def test_fixed_needs_the_deck_order_of_a_position():
    pos = json.loads(json.dumps(LINES[5]["position"]))     # an Omen step
    pos["omen_next"] = None
    run = ftc("perft", "--game", "crownfall", json.dumps(pos), "1", "--chance", "fixed")
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "--chance fixed: position.omen_next: the fixed chance mode needs the Omen stack's order" in run.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_stops_a_deep_count():
    proc = subprocess.Popen(FTC + ["perft", "--game", "crownfall", "startpos", "5", "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(), cwd=ROOT,
                            start_new_session=True)
    lines: queue.Queue = queue.Queue()
    err: list[str] = []

    def read_err():
        for line in proc.stderr:
            err.append(line)
            lines.put(line)

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    try:
        line = lines.get(timeout=60)
        assert re.match(r"perft: \d+/4872 first decisions done, [\d,]+ nodes", line), line
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(timeout=10)
    assert proc.returncode == 130
    assert re.search(r"ftc: perft stopped after [\d]+ decisions, \d+ first decisions counted in full \(interrupted "
                     r"by SIGINT\)", "".join(err)), err
    assert "Traceback" not in "".join(err) and proc.stdout.read() == ""


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_reference_s_set_up_position_counts_as_startpos(players):
    # the reference's new_game(n) as a JSON position (phase "omen" of round 1, no Objectives yet):
    # the Omen draw is followed by the set-up's Objective draw (RULINGS I7), as from startpos
    text = json.dumps(reference.new_game(players))
    assert perft(read(text), 1) == STARTPOS[players][1]
    # and the start written out (the protocol's position) is the reference's set-up, counted by it
    assert reference.count(reference.parse(position_text("startpos")), 1) == STARTPOS[2][1]


def test_the_protocol_counts_a_crownfall_position():
    from engine.interfaces.protocol import Session
    session = Session()

    def ask(request):
        return json.loads(session.handle(json.dumps(request)))

    answer = ask({"cmd": "perft", "game": "crownfall", "position": "startpos", "depth": 1})
    assert answer["ok"] and answer["nodes"] == STARTPOS[2][1], answer
    pos = LINES[9]["position"]                      # the retreat choice: the reference's divide
    answer = ask({"cmd": "perft", "game": "crownfall", "position": json.dumps(pos), "depth": 2,
                             "divide": True})
    assert answer["divide"] == reference.divide(reference.parse(pos), 2, "expanded")
    answer = ask({"cmd": "perft", "game": "crownfall", "position": "game.json", "depth": 1})
    assert not answer["ok"] and answer["field"] == "position"
