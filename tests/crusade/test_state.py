"""Crusade & Conquer as a registered game (engine/crusade/state.py, entry.py): the state protocol over
random games, the end of the game (RULINGS H8: checkmate, stalemate, the X win, H8c's draws), records,
configuration errors, the players and `ftc perft --game crusade`.

Positions are lines of tests/data/crusade_perft.epd (their moves and ends were counted by the
independent reference tests/reference/crusade.py); the start position's perft 3 = 7714 is that
file's line 8 (the reference's number)."""

from __future__ import annotations

import json
import random

import pytest

from engine.crusade.players import GreedyBot, make_bot
from engine.crusade.state import (
    CrusadeActionError,
    CrusadeConfig,
    CrusadeConfigError,
    CrusadeRecordError,
    CrusadeState,
    replay,
)
from engine.games import registry
from engine.games.protocol import TERMINAL, GameStateProtocol
from engine.games.selfplay import check_step, run_protocol_selfplay
from engine.interfaces.cli import main

#: tests/data/crusade_perft.epd line 21 (the X win: d7e8 ends the game).
X_WIN = "7k/3F4/8/8/8/8/8/K7 w - 0 1"
#: line 29 (mate in one: c7g7).
MATE_IN_ONE = "6k1/2Q5/5K2/8/8/8/8/8 w - 0 1"
#: line 28 (Red is checkmated) and line 30 (Red is stalemated).
MATED = "7k/6Q1/5K2/8/8/8/8/8 b - 0 1"
STALEMATE = "k7/8/1Q6/8/8/8/8/7K b - 0 1"


def state_of(text: str, seed: int = 0) -> CrusadeState:
    return registry.get("crusade").start({"seed": seed, "position": text})


def play(state: CrusadeState, *moves: str) -> CrusadeState:
    for move in moves:
        state.apply_text(move)
    return state


def test_the_registry_knows_the_game():
    game = registry.get("crusade")
    assert game.title == "Crusade & Conquer" and game.players == range(2, 3) and game.docs == "crusade-and-conquer"
    state = game.start()
    assert isinstance(state, GameStateProtocol) and state.game == "crusade" and registry.for_state(state) is game
    assert registry.for_record(state.record()) is game


def test_random_games_keep_the_protocol():
    game = registry.get("crusade")
    for seed in range(6):
        state, rng, check_rng = game.start({"seed": seed}), random.Random(seed), random.Random(seed + 100)
        while not state.is_terminal():
            assert check_step(state, check_rng) == []
            assert state.current_player() == state.pos.side
            legal = state.legal_actions()
            action = rng.choice(legal)
            assert state.action_text(action) == state.action_fields(action)["text"]
            twin = state.clone()
            twin.apply(action)
            assert state.legal_actions() == legal, "a clone shares state with its original"
            state.apply(action)
        assert check_step(state, check_rng) == []
        assert state.current_player() == TERMINAL and state.legal_actions() == []
        assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
        assert replay(json.loads(json.dumps(state.record()))).record() == state.record()


def test_protocol_selfplay_has_no_error():
    stats = run_protocol_selfplay("crusade", 20, seed=0)
    assert (stats.games, stats.errors, stats.violations) == (20, 0, 0), stats.messages


def test_actions_are_the_kernel_moves_with_their_texts():
    state = state_of("startpos")
    texts = sorted(state.action_text(a) for a in state.legal_actions())
    assert texts == sorted(state.pos.legal_moves()) and len(texts) == 19      # D1 of epd line 8
    code = state.pos.parse_move("g1f3")
    assert state.action_fields(code) == {"kind": "move", "text": "g1f3", "player": 0, "from": "g1", "to": "f3",
                                         "piece": "N", "capture": None, "promotion": None}
    flag = state.pos.parse_move("e2f3")                          # the Flag Bearer's diagonal step (H6)
    assert state.action_fields(flag)["piece"] == "F"


def test_an_illegal_action_is_refused_and_changes_nothing():
    state = state_of("startpos")
    before = state.record()
    for bad in (-1, 10**9, "g1f3", True):
        with pytest.raises(CrusadeActionError, match="not a legal move for Blue"):
            state.apply(bad)
    assert state.record() == before


def test_the_x_win_ends_the_game():
    state = state_of(X_WIN)
    play(state, "d7e8")
    assert state.is_terminal() and state.winner == 0 and state.returns() == [1.0, -1.0]
    assert "Flag Bearer reached the X" in state.over_reason and state.legal_actions() == []
    with pytest.raises(CrusadeActionError, match="the game is over"):
        state.apply_text("a1a2")


def test_checkmate_and_stalemate():
    state = play(state_of(MATE_IN_ONE), "c7g7")
    assert state.is_terminal() and state.returns() == [1.0, -1.0] and "Red is checkmated" in state.over_reason
    mated = state_of(MATED)
    assert mated.is_terminal() and mated.returns() == [1.0, -1.0]
    stale = state_of(STALEMATE)
    assert stale.is_terminal() and stale.returns() == [0.0, 0.0] and "not in check" in stale.over_reason


def test_a_hundred_plies_without_capture_or_pawn_move_draw():
    # H8c: the clock at 98, two King moves make 100.
    state = state_of("4k3/8/8/8/8/8/8/K6R w - 98 60")
    play(state, "a1a2")
    assert not state.is_terminal() and state.pos.core.halfmove == 99
    play(state, "e8f7")
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and "100 plies" in state.over_reason


def test_a_capture_resets_the_clock():
    state = state_of("4k3/8/8/8/8/8/r7/K6R w - 99 60")
    play(state, "a1a2")                                          # the King takes the Rook on ply 100
    assert not state.is_terminal() and state.pos.core.halfmove == 0


def test_the_third_repetition_draws():
    state = state_of("startpos")
    shuffle = ("g1f3", "g8f6", "f3g1", "f6g8")
    play(state, *shuffle)
    assert not state.is_terminal()                               # the start position a second time
    play(state, *shuffle[:3])
    assert not state.is_terminal()
    play(state, shuffle[3])                                      # and a third time
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and "third time" in state.over_reason


def test_a_record_round_trips_and_names_its_errors():
    state = play(state_of("startpos", seed=5), "g1f3", "g8f6", "a2a4")
    record = json.loads(json.dumps(state.record()))
    assert record["moves"] == ["g1f3", "g8f6", "a2a4"] and record["seed"] == 5
    again = registry.replay(record)
    assert again.record() == record and again.public_key() == state.public_key()
    for bad, message in (({**record, "moves": ["g1f3", "g1f3"]}, r"record\.moves\[1\]: move 'g1f3' is not legal"),
                         ({**record, "moves": "g1f3"}, r"record\.moves: expected a list"),
                         ({**record, "start": "8/8 w -"}, r"record\.start: board"),
                         ({**record, "version": 2}, r"record\.version"),
                         ({**record, "format": "x"}, r"record: expected an object with format")):
        with pytest.raises(CrusadeRecordError, match=message):
            replay(bad)


def test_a_resignation_ends_the_game_and_is_kept_in_the_record():
    state = play(state_of("startpos", seed=2), "g1f3")
    state.resign(0)                                       # Blue resigns while Red is to move
    assert state.is_terminal() and state.winner == 1 and state.returns() == [-1.0, 1.0]
    assert state.over_reason == "Blue resigns: Red wins" and state.legal_actions() == []
    assert state.observation(0)["end"] == "resigned" and state.current_player() == TERMINAL
    record = json.loads(json.dumps(state.record()))
    assert record["moves"] == ["g1f3"] and record["resigned"] == 0
    again = registry.replay(record)
    assert again.record() == record and again.winner == 1 and again.over_reason == state.over_reason
    assert "resigned" not in play(state_of("startpos"), "g1f3").record()      # only a resigned game has it
    with pytest.raises(CrusadeActionError, match="the game is over"):
        state.resign(1)
    with pytest.raises(CrusadeActionError, match=r"player 2: expected 0 \(Blue\) or 1 \(Red\)"):
        state_of("startpos").resign(2)
    for bad, message in (({**record, "resigned": 2}, r"record\.resigned: expected 0 \(Blue\) or 1 \(Red\), got 2"),
                         ({**record, "resigned": True}, r"record\.resigned: expected 0 \(Blue\) or 1 \(Red\)"),
                         ({**record, "moves": ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"],
                           "resigned": 0}, r"record\.resigned: the game was already over")):
        with pytest.raises(CrusadeRecordError, match=message):
            replay(bad)


@pytest.mark.parametrize("text, moves, end", [
    (X_WIN, ("d7e8",), "x-win"), (MATE_IN_ONE, ("c7g7",), "checkmate"), (STALEMATE, (), "stalemate"),
    ("4k3/8/8/8/8/8/8/K6R w - 99 60", ("a1a2",), "plies"),
    ("startpos", ("g1f3", "g8f6", "f3g1", "f6g8") * 2, "repetition"), ("startpos", (), None)])
def test_the_observation_names_how_the_game_ended(text, moves, end):
    state = play(state_of(text), *moves)
    assert state.observation(0)["end"] == end == state.observation(1)["end"]
    assert (end is None) == (not state.is_terminal())


def test_configuration_errors_are_located():
    game = registry.get("crusade")
    for data, message in (({"seed": -1}, r"new\.seed: expected an integer"),
                          ({"colour": 1}, r"new\.colour: Crusade & Conquer has no option"),
                          ({"position": "8/8/8/8/8/8/8/8 w -"}, r"new\.position: board: Blue needs exactly one King"),
                          ({"variant": "standard"}, r"new\.variant: expected 'crusade'"),
                          ([], r"new: expected an object")):
        with pytest.raises(CrusadeConfigError, match=message):
            game.start(data, "new")
    assert game.config(None) == CrusadeConfig(0, "startpos")


def test_greedy_takes_the_win_and_the_best_capture():
    assert make_bot("greedy", 3).choose(state_of(X_WIN)) == state_of(X_WIN).pos.parse_move("d7e8")
    assert make_bot("greedy", 3).choose(state_of(MATE_IN_ONE)) == state_of(MATE_IN_ONE).pos.parse_move("c7g7")
    # The Rook a4 can take the Queen a8 or the Knight a2... the Queen is worth more.
    state = state_of("q3k3/8/8/8/R7/8/n7/7K w - 0 1")
    assert state.action_text(GreedyBot(1).choose(state)) == "a4a8"
    with pytest.raises(ValueError, match="unknown Crusade & Conquer player 'best'; known: random, greedy"):
        make_bot("best", 0)


def test_greedy_beats_random():
    game = registry.get("crusade")
    score = 0.0
    for seed in range(4):
        state = game.start({"seed": seed})
        bots = (make_bot("greedy", seed), make_bot("random", seed))
        while not state.is_terminal():
            state.apply(bots[state.current_player()].choose(state))
        score += state.returns()[0]
    assert score >= 2


def test_ftc_perft_of_the_start_position(capsys):
    # 7714: epd line 8, the independent reference's D3 of the start position.
    assert main(["perft", "--game", "crusade", "startpos", "3"]) == 0
    assert capsys.readouterr().out.strip().endswith("Nodes searched: 7714")
    assert registry.get("crusade").positions.perft("startpos", 3) == 7714


def test_ftc_perft_divide_and_bad_input(capsys):
    # epd line 21 D2 = 18 (the reference), divided by the 7 first moves (D1 = 7).
    assert main(["perft", "--game", "crusade", "--divide", X_WIN, "2"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if ": " in line and not line.startswith("Nodes")]
    assert len(lines) == 7 and "d7e8: 0" in lines and out.strip().endswith("Nodes searched: 18")
    assert main(["perft", "--game", "crusade", "8/8 w -", "2"]) == 2
    err = capsys.readouterr().err
    assert "Crusade & Conquer position '8/8 w -'" in err and "Traceback" not in err


def test_perft_run_reports_progress_and_stops():
    from engine._perft import PerftControl, PerftStopped
    run = registry.get("crusade").positions.perft_run
    seen = []
    counts, total, _ = run("startpos", 2, True, {}, seen.append, PerftControl())
    # 361: epd line 8 D2 (the reference); one finished report per first move (19, D1).
    assert total == 361 and sum(counts.values()) == 361 and len(counts) == 19
    assert [p.finished for p in seen if p.finished] == list(counts.items()) and seen[-1].roots_done == 19
    control = PerftControl()
    control.stop(15)
    with pytest.raises(PerftStopped) as stopped:
        run("startpos", 3, False, {}, seen.append, control)
    assert stopped.value.reason == 15 and stopped.value.counts == {}
    with pytest.raises(ValueError, match="--threads: not an option of Crusade & Conquer perft"):
        run("startpos", 1, False, {"threads": 2}, seen.append, PerftControl())


def test_the_json_lines_protocol_plays_and_counts_it():
    from engine.interfaces.protocol import Session

    def ask(session, request):
        return json.loads(session.handle(json.dumps(request)))

    session = Session()
    new = ask(session, {"cmd": "new", "game": "crusade", "config": {"seed": 2}})
    assert new["ok"] is True, new
    played = ask(session, {"cmd": "apply", "action": "g1f3"})
    assert played["ok"] is True, played
    record = ask(session, {"cmd": "record", "full": True})
    assert record["ok"] is True and record["record"]["moves"] == ["g1f3"], record
    # 361: epd line 8 D2 (the independent reference).
    counted = ask(session, {"cmd": "perft", "game": "crusade", "position": "startpos", "depth": 2})
    assert counted["ok"] is True and counted["nodes"] == 361, counted
    bad = ask(session, {"cmd": "perft", "game": "crusade", "position": "8/8 w -", "depth": 1})
    assert bad["ok"] is False and bad["field"] == "position" and "Crusade & Conquer position" in bad["error"]
    missing = ask(session, {"cmd": "perft", "game": "crusade"})
    assert missing["field"] == "depth" and "missing field 'depth' (plies, 0..3)" in missing["error"], missing


@pytest.mark.slow
def test_ftc_selfplay_two_hundred_games(capsys):
    # The check: seeded random games, the protocol's invariants after every move, records replayed.
    assert main(["selfplay", "--game", "crusade", "--games", "200", "--workers", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("games: 200, ") and last.endswith("errors: 0, invariant violations: 0")
