"""The seam is real (issue 24): a game the engine does not ship (tic-tac-toe, tests/toygame) played
through the interfaces without any of them knowing it: the JSON-lines protocol, `ftc selfplay`,
`ftc match` (in this process and in a subprocess that loads it through FTC_GAMES)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.games import registry
from engine.interfaces.protocol import Session
from tests.toygame.state import NAME

ROOT = Path(__file__).resolve().parents[2]


def ask(session: Session, **request) -> dict:
    return json.loads(session.handle(json.dumps(request)))


def test_the_toy_game_keeps_the_state_protocol(toy):
    import random

    from tests.games.test_protocol_conformance import _check
    game = registry.get(NAME)
    rng = random.Random(1)
    for seed in range(20):
        state = game.start({"seed": seed})
        while True:
            _check(state, game, rng)
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        assert registry.replay(json.loads(json.dumps(state.record()))).record() == state.record()


def test_the_perfect_bot_never_loses_and_draws_itself(toy):
    from engine.search.match import play_game
    perfect, rnd = toy.make_bot("perfect", 1), toy.make_bot("random", 2)
    for seed in range(30):
        # a fresh random bot per game: perfect play against it wins or draws, from either seat
        assert play_game({"variant": NAME, "seed": seed}, perfect, toy.make_bot("random", seed)).returns()[0] >= 0
        assert play_game({"variant": NAME, "seed": seed}, toy.make_bot("random", seed), perfect).returns()[1] >= 0
    assert play_game({"variant": NAME, "seed": 0}, perfect, toy.make_bot("perfect", 3)).returns() == [0.0, 0.0]
    assert rnd.name == "random"


def test_the_protocol_plays_the_toy_game_to_its_end(toy):
    s = Session()
    new = ask(s, cmd="new", game=NAME, config={"seed": 4})
    assert new["ok"] and new["mode"] == "game" and new["variant"] == NAME and new["to_move"] == 0, new
    actions = ask(s, cmd="actions")
    assert [a["text"] for a in actions["actions"]] == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    assert actions["actions"][4]["fields"] == {"kind": "mark", "square": "b2", "mark": "X"}
    # X: a1 b1 c1 (a line); O: a2 b2. By id and by text, with the player named.
    for move in (0, "a2", "b1", 4, "c1"):
        reply = ask(s, cmd="apply", action=move)
        assert reply["ok"], reply
    assert reply["over"] and reply["winner"] == 0 and reply["returns"] == [1.0, -1.0]
    assert ask(s, cmd="state", player=1)["observation"]["board"] == ["...", "OO.", "XXX"]
    record = ask(s, cmd="record")["record"]
    assert record == {"format": "toy-tictactoe-record", "seed": 4, "actions": [0, 3, 1, 4, 2]}
    loaded = ask(s, cmd="load", record=record)
    assert loaded["ok"] and loaded["over"] and loaded["winner"] == 0
    # what the game has not: named, not a traceback
    s2 = Session()
    ask(s2, cmd="new", game=NAME)
    assert "not available for tictactoe" in ask(s2, cmd="search")["error"]
    assert "not available for tictactoe" in ask(s2, cmd="analyze")["error"]
    assert ask(s2, cmd="search", processes=2)["field"] == "processes"
    bad = ask(s2, cmd="apply", action="d4")
    assert not bad["ok"] and bad["field"] == "action" and "'d4'" in bad["error"]
    bad = ask(s2, cmd="new", game=NAME, config={"supply": []})
    assert bad["field"] == "config.supply" and "tictactoe has no option 'supply'" in bad["error"]
    bad = ask(s2, cmd="new", game="chess")
    assert bad["field"] == "game" and "unknown game 'chess'" in bad["error"] and NAME in bad["error"]
    bad = ask(s2, cmd="state", player=2)
    assert bad["error"].startswith("field 'player': expected 0 (player 0) or 1 (player 1)")


def test_ftc_selfplay_plays_the_toy_game(toy, capsys):
    # --workers 1: the fixture registers the game in this process only (other processes: FTC_GAMES)
    from engine.interfaces.cli import main
    assert main(["selfplay", "--game", NAME, "--games", "12", "--seed", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "games: 12," in out and "errors: 0, invariant violations: 0" in out, out
    assert main(["selfplay", "--game", NAME, "--games", "1", "--supply", "first-game"]) == 2
    assert "--supply: not an option of Tic-tac-toe" in capsys.readouterr().err


def test_ftc_match_plays_the_toy_game(toy, capsys):
    from engine.interfaces.cli import main
    assert main(["match", "--game", NAME, "--a", "perfect", "--b", "random", "--games", "10", "--json", "--workers", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 10 and result["losses"] == 0, result     # perfect play never loses
    assert main(["match", "--game", NAME, "--a", "expert", "--b", "random"]) == 2
    assert "unknown bot 'expert' for tictactoe; known: random, perfect" in capsys.readouterr().err


def test_a_subprocess_ftc_finds_the_toy_game_through_FTC_GAMES():
    env = {**os.environ, "FTC_GAMES": "tests.toygame.entry", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "engine.interfaces.cli", "selfplay", "--game", NAME, "--games", "4",
                           "--workers", "2"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0 and "games: 4, " in proc.stdout, proc.stderr
    lines = [json.dumps({"cmd": "new", "game": NAME}), json.dumps({"cmd": "apply", "action": "b2"}),
             json.dumps({"cmd": "quit"})]
    proc = subprocess.run([sys.executable, "-m", "engine.interfaces.cli", "engine"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["ok"] for r in replies] == [True, True, True] and replies[1]["applied"]["text"] == "b2", proc.stdout
    proc = subprocess.run([sys.executable, "-m", "engine.interfaces.cli", "selfplay", "--game", NAME, "--games", "1"],
                          capture_output=True, text=True, env={**env, "FTC_GAMES": "no.such.module"}, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 2 and "FTC_GAMES: cannot import the game entry module 'no.such.module'" in proc.stderr
