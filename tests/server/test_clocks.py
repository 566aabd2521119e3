"""Clocks (issue 29 part 4; docs/server.md "Clocks"): the time controls of clocks.py with explicit
times, and through the app: flag fall ends the game with its reason, across a restart, handled once
by several servers and taken over from a dead one, bad clock bodies refused, the AI on a clock. No
clock runs before every player has moved (issue 40; the server's tests of that rule are in
test_fair_seats.py): the tests of flags first play each seat's first turn."""

import asyncio
import random
import threading
import time

import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import Limits, create_app
from engine.interfaces.server.clocks import (
    AI_FLOOR_SECONDS,
    DAY,
    Clock,
    ClockError,
    TimeControl,
    parse_control,
    turn_budget,
)
from tests.server.postgres import wait_until
from tests.server.support import act, auth, new_game

NOW = 1_000_000.0


def _started(control: TimeControl, players: int, first: int, now: float) -> Clock:
    """A game's clocks once every player has made a first turn (each hands over in seat order, from
    ``first`` round to ``first`` again, the last handover at ``now``): the game has started, nothing
    was charged, ``first``'s clock runs from ``now``."""
    clock = Clock.start(control, players, first, now - players)
    for i in range(1, players + 1):
        clock = clock.handover((first + i) % players, now - players + i)
    assert clock.started and clock.running == first and clock.turn_started == now
    assert clock.remaining == Clock.start(control, players, first, now).remaining
    return clock


# -- clocks.py: pure, with explicit times ---------------------------------------------------------------
def test_a_control_is_a_base_and_increment_or_days_per_turn():
    assert parse_control(None) is None
    assert parse_control({"base": 300, "increment": 5}) == TimeControl(base=300.0, increment=5.0)
    assert parse_control({"base": 15}) == TimeControl(base=15.0, increment=0.0)
    assert parse_control({"days_per_turn": 3}) == TimeControl(days_per_turn=3)
    assert parse_control({"base": 1}, min_base=1) == TimeControl(base=1.0)
    for control in (TimeControl(base=60.0, increment=2.0), TimeControl(days_per_turn=7)):
        assert TimeControl.from_json(control.to_json()) == control


@pytest.mark.parametrize("clock, field", [
    ({"base": 14}, "clock.base"), ({"base": 10801}, "clock.base"), ({"base": "300"}, "clock.base"),
    ({"base": True}, "clock.base"), ({"base": float("nan")}, "clock.base"), ({"increment": 5}, "clock.base"),
    ({"base": 300, "increment": -1}, "clock.increment"), ({"base": 300, "increment": 601}, "clock.increment"),
    ({"base": 300, "increment": None}, "clock.increment"), ({"days_per_turn": 0}, "clock.days_per_turn"),
    ({"days_per_turn": 31}, "clock.days_per_turn"), ({"days_per_turn": 1.5}, "clock.days_per_turn"),
    ({"days_per_turn": 2, "base": 300}, "clock.days_per_turn"), ({"base": 300, "moves": 40}, "clock: 1 unknown field"),
    ([300, 5], "clock:"), ("blitz", "clock:"),
])
def test_a_bad_control_names_its_field(clock, field):
    with pytest.raises(ClockError, match=f"^{field}"):
        parse_control(clock)


def test_no_clock_runs_before_every_player_has_moved_and_a_turn_before_then_has_a_limit():
    """lichess's rule: the clocks start once each side has made its first move. Before that no time
    is taken and none is added, the views show no running clock, and a turn has the first-move limit
    from its beginning or from the last seat taken (``ready``), whichever is later; past it the game
    is aborted: nobody is out of time."""
    fischer = TimeControl(base=60.0, increment=5.0)
    clock = Clock.start(fischer, 2, 0, NOW)
    assert not clock.started and clock.unmoved == (0, 1) and clock.flag_at is None
    assert clock.left(0, NOW + 500) == 60.0 and clock.view(NOW + 500)["running"] is None
    assert clock.abort_at(None, 60.0) is None                          # a seat is open: no limit runs
    assert clock.abort_at(NOW - 5, 60.0) == NOW + 60                   # every seat taken before the turn
    assert clock.abort_at(NOW + 30, 60.0) == NOW + 90                  # the last seat taken later
    assert clock.handover(0, NOW + 40) is clock                        # a turn of several decisions
    clock = clock.handover(1, NOW + 50)                                # Blue's first turn: free
    assert clock.remaining == (60.0, 60.0) and clock.unmoved == (1,) and not clock.started
    assert clock.abort_at(NOW, 60.0) == NOW + 110
    assert Clock.from_json(clock.to_json()) == clock
    clock = clock.handover(0, NOW + 70)                                # Yellow's: the game starts
    assert clock.started and clock.remaining == (60.0, 60.0) and clock.running == 0
    assert clock.flag_at == NOW + 130 and clock.abort_at(NOW, 60.0) is None
    view = clock.view(NOW + 80)
    assert view["running"] == 0 and view["started"] and view["remaining"] == [50.0, 60.0]
    assert clock.handover(1, NOW + 80).remaining == (55.0, 60.0)       # from now on: charged, incremented
    # Aborted: over, nobody out of time, nobody charged.
    aborted = Clock.start(fischer, 2, 0, NOW).abort("aborted: Blue did not move")
    assert aborted.aborted and aborted.running is None and aborted.out == () and aborted.flag_at is None
    assert aborted.remaining == (60.0, 60.0) and aborted.abort_at(NOW, 60.0) is None
    assert Clock.from_json(aborted.to_json()) == aborted
    # A correspondence turn before the start has its days; a clock stored before the start existed
    # is a started one.
    assert TimeControl(days_per_turn=3).first_move_seconds(60.0) == 3 * DAY and fischer.first_move_seconds(60.0) == 60
    stored = Clock.start(fischer, 2, 0, NOW).to_json()
    del stored["unmoved"], stored["aborted"]
    assert Clock.from_json(stored).started and Clock.from_json(stored).flag_at == NOW + 60


def test_the_increment_is_added_once_per_turn_across_a_turn_of_several_decisions():
    clock = _started(TimeControl(base=60.0, increment=5.0), 2, 0, NOW)
    assert clock.flag_at == NOW + 60
    # Blue's turn: three decisions (cards, then an order); the clock runs on, nothing is added.
    for at in (NOW + 2, NOW + 4):
        assert clock.handover(0, at) is clock
    assert clock.left(0, NOW + 4) == 56.0 and clock.left(1, NOW + 4) == 60.0
    clock = clock.handover(1, NOW + 7)                     # the turn passes: 60 - 7 + 5, once
    assert clock.remaining == (58.0, 60.0) and clock.running == 1 and clock.flag_at == NOW + 67
    clock = clock.handover(1, NOW + 9).handover(0, NOW + 10)
    assert clock.remaining == (58.0, 62.0) and clock.running == 0 and clock.flag_at == NOW + 68
    over = clock.over(NOW + 11)                            # the game ends: no increment, nothing runs
    assert over.remaining == (57.0, 62.0) and over.running is None and over.flag_at is None


def test_a_correspondence_turn_has_its_days_and_nothing_carries_over():
    clock = _started(TimeControl(days_per_turn=2), 3, 0, NOW)
    assert clock.flag_at == NOW + 2 * DAY
    clock = clock.handover(1, NOW + 3600)                  # a quick turn saves nothing
    assert clock.remaining == (2 * DAY,) * 3 and clock.flag_at == NOW + 3600 + 2 * DAY
    assert clock.left(1, NOW + DAY) == 2 * DAY - (DAY - 3600)
    assert not clock.flagged(NOW + 3600 + 2 * DAY - 1) and clock.flagged(NOW + 3600 + 2 * DAY)


def test_the_flag_falls_when_the_running_players_time_is_out():
    clock = _started(TimeControl(base=30.0, increment=10.0), 2, 0, NOW).handover(1, NOW + 20)
    assert clock.remaining == (20.0, 30.0) and clock.flag_at == NOW + 50
    assert not clock.flagged(NOW + 49.999) and clock.flagged(NOW + 50)
    assert clock.left(1, NOW + 80) == 0.0                  # never below zero
    lost = clock.lost_on_time("Yellow ran out of time")
    assert lost.remaining == (20.0, 0.0) and lost.running is None and lost.out == (1,) and lost.flag_at is None
    assert Clock.from_json(lost.to_json()) == lost
    # A clock set back: no time is counted, none is given.
    assert clock.handover(0, NOW + 10).remaining == (20.0, 40.0)


def test_a_turn_resumed_later_is_charged_from_then_on_only():
    """Clock.resumed (issue 40): the server's time before a seat could decide (an AI turn waiting for
    a worker) is taken off the running turn; a time before its start, or a clock that runs for no
    one, changes nothing."""
    clock = _started(TimeControl(base=60.0, increment=2.0), 2, 0, NOW)
    assert clock.resumed(NOW - 5) == clock and clock.resumed(NOW) == clock
    later = clock.resumed(NOW + 10)                        # the turn waited 10 s for a worker
    assert later.turn_started == NOW + 10 and later.flag_at == NOW + 70 and later.left(0, NOW + 12) == 58.0
    assert later.handover(1, NOW + 12).remaining == (60.0, 60.0)       # 2 s charged, 2 s of increment
    assert later.left(1, NOW + 12) == 60.0                 # another seat's clock is untouched
    over = clock.over(NOW + 1)
    assert over.resumed(NOW + 5) == over


def test_a_seat_out_of_time_plays_on_untimed():
    clock = _started(TimeControl(base=30.0), 3, 1, NOW)
    clock = clock.out_of_time(1, NOW + 31, 1)
    assert clock.out == (1,) and clock.remaining == (30.0, None, 30.0) and clock.flag_at is None
    clock = clock.handover(2, NOW + 40)                    # the untimed seat hands over: nothing charged
    assert clock.remaining == (30.0, None, 30.0) and clock.flag_at == NOW + 70
    assert clock.view(NOW + 45)["remaining"] == [30.0, None, 25.0]
    assert Clock.from_json(clock.to_json()) == clock


def test_the_ais_turn_budget_keeps_most_of_its_time():
    fischer = TimeControl(base=60.0, increment=4.0)
    assert turn_budget(60.0, fischer) == 8.0
    assert turn_budget(0.0, fischer) == 2.0
    assert turn_budget(0.0, TimeControl(base=60.0)) == AI_FLOOR_SECONDS
    assert turn_budget(DAY, TimeControl(days_per_turn=1)) == DAY / 10
    left = 60.0                                            # whatever it spends, a seat keeps 9/10
    for _ in range(100):
        left = left - turn_budget(left, fischer) + fischer.increment
        assert left > 0


# -- through the app ------------------------------------------------------------------------------------
def _app(store, **limits):
    return create_app(store, ai_pool="thread", limits=Limits(**{"clock_min_base": 1, **limits}))


def _over(client, game, token):
    view = client.get(f"/api/games/{game}", headers=auth(token)).json()
    return view if view["status"] == "over" else None


def _turn(client, game, token) -> dict:
    """The seat's whole turn (its first legal action at each decision, until another seat decides or
    the AI has answered); the last answer."""
    view = client.get(f"/api/games/{game}", headers=auth(token)).json()
    assert view["your_turn"], view
    while True:
        before = view["version"]
        view = act(client, view, token, view["actions"][0]["id"])
        if not view["your_turn"] or view["version"] > before + 1:
            return view


def _start(client, view, token) -> dict:
    """Play a game against the AI to its start (the human's first turn, then the AI's: every player
    has moved and the clocks run); the view then, the human's clock running."""
    assert view["clock"]["started"] is False and view["clock"]["running"] is None
    view = _turn(client, view["id"], token)
    assert view["clock"]["started"] and view["clock"]["running"] == view["human"], view["clock"]
    return view


def _flag_entries(log):
    """The log's flag steps (not the game-over line that follows one)."""
    return [e for e in log if "ran out of time" in e["text"] and not e["text"].startswith("game over")]


def test_flag_fall_ends_the_game_with_its_reason_for_the_seat_spectators_and_the_record(store_url):
    with TestClient(_app(store_url, flag_poll_seconds=0.05)) as client:
        view, token = new_game(client, clock={"base": 1, "increment": 0})
        assert view["clock"]["control"] == {"base": 1.0, "increment": 0.0}
        gid = view["id"]
        with client.websocket_connect(f"/api/games/{gid}/watch/ws") as spectator:
            assert spectator.receive_json()["status"] == "playing"
            view = _start(client, view, token)                     # Blue's clock runs from here
            pushed = spectator.receive_json()
            while pushed["status"] == "playing":                   # the moves, then the flag
                pushed = spectator.receive_json()
        assert pushed["over"] == "Blue ran out of time" and pushed["clock"]["running"] is None
        over = _over(client, gid, token)
        assert over["over"] == "Blue ran out of time" and over["version"] == view["version"] + 1
        assert over["clock"]["remaining"][0] == 0.0 and over["clock"]["out"] == [0]
        assert [e["text"] for e in over["log"][-2:]] == ["ran out of time (the clock): resigns",
                                                         "game over: Blue ran out of time"]
        watched = client.get(f"/api/games/{gid}/watch").json()
        assert watched["over"] == "Blue ran out of time" and _flag_entries(watched["log"]) == _flag_entries(over["log"])
        record = client.get(f"/api/games/{gid}/record", headers=auth(token)).json()
        assert record["result"]["over"] == "Blue resigned"            # a resignation: the record replays
        stored = client.app.state.server.store.get(gid)
        assert stored["status"] == "over" and stored["flag_at"] is None and stored["clock"]["reason"] == \
            "Blue ran out of time"
        refused = client.post(f"/api/games/{gid}/actions", json={"action": 0, "version": over["version"]},
                              headers=auth(token))
        assert refused.status_code == 409 and "Blue ran out of time" in refused.json()["detail"]


def test_an_action_after_the_flag_is_refused_and_the_flag_is_processed(tmp_path):
    with TestClient(_app(tmp_path / "g.sqlite3", flag_poll_seconds=3600)) as client:   # no sweep meanwhile
        view, token = new_game(client, clock={"base": 1})
        view = _start(client, view, token)
        time.sleep(1.2)
        refused = client.post(f"/api/games/{view['id']}/actions",
                              json={"action": view["actions"][0]["id"], "version": view["version"]},
                              headers=auth(token))
        assert refused.status_code == 409 and refused.json()["detail"].startswith("your time ran out")
        over = _over(client, view["id"], token)
        assert over["over"] == "Blue ran out of time" and over["version"] == view["version"] + 1
        assert len(_flag_entries(over["log"])) == 1


def test_the_increment_is_applied_once_per_turn_through_the_app(store_url):
    with TestClient(_app(store_url)) as client:
        view, token = new_game(client, clock={"base": 60, "increment": 600})
        started = time.time()                          # Blue's clock runs from the AI's first commit on
        view = _start(client, view, token)             # the first turns: nothing taken, nothing added
        assert client.app.state.server.store.get(view["id"])["clock"]["remaining"] == [60, 60]
        decisions = 0
        while True:                                    # Blue's second turn: its decisions until the AI's turn
            before = view["version"]
            view = act(client, view, token, view["actions"][0]["id"])
            decisions += 1
            if view["version"] > before + 1:           # the AI answered: Blue's turn ended, Yellow's too
                break
        elapsed = time.time() - started
        assert decisions >= 2                          # a turn of several decisions
        clock = client.app.state.server.store.get(view["id"])["clock"]
        assert clock["running"] == 0
        # Once per turn: 60 - elapsed + 600 (twice would be over 660)
        assert 660 - elapsed <= clock["remaining"][0] <= 660
        assert 660 - elapsed <= clock["remaining"][1] <= 660


def test_a_flag_that_fell_while_no_server_ran_ends_the_game_at_once_on_restart(store_url):
    with TestClient(_app(store_url)) as client:
        view, token = new_game(client, clock={"base": 2})
        view = _start(client, view, token)
        slow, slow_token = new_game(client, clock={"base": 60})
        slow = _start(client, slow, slow_token)
    time.sleep(2.2)                                                   # the server is down past the flag
    with TestClient(_app(store_url, flag_poll_seconds=3600)) as client:      # only its sweep at start
        assert wait_until(lambda: _over(client, view["id"], token))
        over = _over(client, view["id"], token)
        assert over["over"] == "Blue ran out of time" and len(_flag_entries(over["log"])) == 1
        assert over["version"] == view["version"] + 1
        # A restart neither paused nor reset the other game's clock.
        running = client.get(f"/api/games/{slow['id']}", headers=auth(slow_token)).json()["clock"]
        assert running["running"] == 0 and running["remaining"][0] <= 60 - 2.2


def test_two_servers_racing_for_one_flag_handle_it_once(pg_url):
    limits = {"flag_poll_seconds": 3600}                               # the test runs the sweeps itself
    with TestClient(_app(pg_url, **limits)) as one, TestClient(_app(pg_url, **limits)) as two:
        view, token = new_game(one, clock={"base": 1})
        view = _start(one, view, token)
        two.get(f"/api/games/{view['id']}/watch")                     # both servers hold the game
        time.sleep(1.2)
        barrier, handled = threading.Barrier(2), []

        def sweep(client):
            barrier.wait()
            handled.append((client.portal.call(client.app.state.server.sweep_flags), client))

        threads = [threading.Thread(target=sweep, args=(c,)) for c in (one, two)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(n for n, _ in handled) == [0, 1]
        stored = one.app.state.server.store.get(view["id"])
        flagged = view["version"] + 1
        assert stored["version"] == flagged and stored["status"] == "over" and len(_flag_entries(stored["log"])) == 1
        winner = next(client for n, client in handled if n == 1)
        over = winner.get(f"/api/games/{view['id']}/watch").json()
        assert over["version"] == flagged and over["over"] == "Blue ran out of time"


def test_a_flag_claimed_by_a_dead_server_is_taken_over_after_its_lease(store_url):
    with TestClient(_app(store_url, flag_poll_seconds=0.05)) as client:
        store = client.app.state.server.store
        view, token = new_game(client, clock={"base": 1})
        assert store.claim(view["id"], "flag", "a-dead-server", 4, view["version"])      # never released
        view = _start(client, view, token)
        time.sleep(1.3)                                                         # past the flag
        holder = store.claim_holder(view["id"], "flag")
        assert holder is not None and holder[0] == "a-dead-server"
        assert _over(client, view["id"], token) is None                         # left to its holder
        assert wait_until(lambda: _over(client, view["id"], token), 30)        # its lease ran out
        # Released: right after the flag's commit (the game is over a moment before the release).
        assert wait_until(lambda: store.claim_holder(view["id"], "flag") is None, 10)
        assert len(_flag_entries(_over(client, view["id"], token)["log"])) == 1


@pytest.mark.parametrize("clock, field", [
    ({"base": 0.5}, "clock.base"), ({"base": 99999}, "clock.base"), ({"base": "fast"}, "clock.base"),
    ({"base": 60, "increment": 700}, "clock.increment"), ({"days_per_turn": 45}, "clock.days_per_turn"),
    ({"days_per_turn": 2, "increment": 3}, "clock.days_per_turn"), ({"tempo": 1}, "clock: 1 unknown field"),
])
def test_a_bad_clock_is_a_422_naming_the_field_and_creates_nothing(tmp_path, clock, field):
    with TestClient(_app(tmp_path / "g.sqlite3")) as client:
        response = client.post("/api/games", json={"clock": clock})
        assert response.status_code == 422 and response.json()["detail"].startswith(field)
        server = client.app.state.server
        assert server.games == {} and server.store.backend.query("count", "SELECT COUNT(*) FROM games")[0][0] == 0
        refused = client.post("/api/games", json={"clock": [60, 1]})
        assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "clock"]


def test_the_ais_seat_on_a_clock_does_not_run_out_of_time(tmp_path):
    """King's Ransom's normal level thinks about half a second a decision, two or three a turn:
    untimed, it would spend its 3 s within three turns; on the clock each turn takes at most a tenth of
    what the seat has left (then the greedy bot decides). Games until one has had four AI turns (a
    game may end by its rules sooner); no AI seat runs out of time in any."""
    rng = random.Random(1)
    with TestClient(_app(tmp_path / "g.sqlite3")) as client:
        client.app.state.server.entropy = random.Random(7)
        longest = 0
        for _ in range(6):
            response = client.post("/api/games", json={"game": "kings-ransom", "ai": {"level": "normal"},
                                                       "clock": {"base": 3}})
            view = response.json()
            token = view.pop("token")
            ai_turns = 0
            while view["status"] == "playing" and ai_turns < 4:
                before = view["version"]
                view = act(client, view, token, rng.choice(view["actions"])["id"])
                if view["version"] > before + 1:
                    ai_turns += 1
            stored = client.app.state.server.store.get(view["id"])["clock"]
            assert 1 not in stored["out"] and "ran out of time" not in str(view["over"]), view["over"]
            longest = max(longest, ai_turns)
            if longest == 4:
                break
        assert longest == 4


def test_in_a_game_without_resignation_a_seat_out_of_time_is_played_by_the_easy_bot(tmp_path):
    with TestClient(_app(tmp_path / "g.sqlite3", flag_poll_seconds=0.05)) as client:
        response = client.post("/api/games", json={"game": "crownfall", "human": 0, "ai": {"spec": "random"},
                                                   "options": {"players": 3, "rounds": 2}, "clock": {"base": 1}})
        assert response.status_code == 201, response.text
        view = response.json()
        token = view.pop("token")
        assert view["your_turn"]
        view = _start(client, view, token)             # Blue's first turn, then the AI's: Blue's clock runs
        assert wait_until(lambda: _over(client, view["id"], token), 30)
        over = _over(client, view["id"], token)
        flags = _flag_entries(over["log"])
        assert [e["text"] for e in flags] == ["Blue ran out of time: the easy bot plays this seat from now on, untimed"]
        after = over["log"][over["log"].index(flags[0]) + 1:]
        assert any(e["player"] == 0 for e in after)            # Blue's seat played on, by the bot
        assert over["clock"]["out"] == [0] and over["clock"]["remaining"][0] is None
        assert not over["over"].endswith("ran out of time")     # the game ended by its rules
        refused = client.post(f"/api/games/{view['id']}/actions", json={"action": 0, "version": over["version"]},
                              headers=auth(token))
        assert refused.status_code == 409


def test_every_ai_seat_of_a_turn_of_several_seats_runs_its_own_clock(store_url):
    """Crownfall with three players: after Blue's turn the AI plays Red's and Green's in one commit;
    each is charged its own time and gets its increment once (in the second round: the first is
    before the start, free)."""
    with TestClient(_app(store_url)) as client:
        response = client.post("/api/games", json={"game": "crownfall", "human": 0, "ai": {"spec": "random"},
                                                   "options": {"players": 3}, "clock": {"base": 60, "increment": 600}})
        view = response.json()
        token = view.pop("token")
        started = time.time()                          # Blue's clock runs from the AI's first commit on
        view = _start(client, view, token)             # the first round: nothing taken, nothing added
        while True:
            before = view["version"]
            view = act(client, view, token, view["actions"][0]["id"])
            if view["version"] > before + 1:
                break
        elapsed = time.time() - started
        assert {e["player"] for e in view["ai_last_turn"]} == {1, 2}
        clock = client.app.state.server.store.get(view["id"])["clock"]
        assert clock["running"] == 0
        for seat in (0, 1, 2):
            assert 660 - elapsed <= clock["remaining"][seat] <= 660, seat


def test_a_correspondence_game_shows_a_turns_days(tmp_path):
    with TestClient(_app(tmp_path / "g.sqlite3")) as client:
        view, token = new_game(client, clock={"days_per_turn": 3})
        assert view["clock"]["control"] == {"days_per_turn": 3} and view["clock"]["running"] is None
        assert view["clock"]["remaining"] == [3 * DAY, 3 * DAY]
        stored = client.app.state.server.store.get(view["id"])
        # Before the start a turn's limit is its days too (then the game is aborted, not lost).
        assert stored["flag_at"] == pytest.approx(stored["clock"]["turn_started"] + 3 * DAY)
        assert view["clock"]["abort_at"] == pytest.approx(stored["flag_at"], abs=0.001)
        view = _start(client, view, token)
        assert 3 * DAY - 60 < view["clock"]["remaining"][0] <= 3 * DAY and view["clock"]["remaining"][1] == 3 * DAY
        stored = client.app.state.server.store.get(view["id"])
        assert stored["flag_at"] == pytest.approx(stored["clock"]["turn_started"] + 3 * DAY)


def test_the_sweeper_never_waits_for_a_busy_game(tmp_path):
    with TestClient(_app(tmp_path / "g.sqlite3", flag_poll_seconds=3600)) as client:
        server = client.app.state.server
        view, token = new_game(client, clock={"base": 1})
        view = _start(client, view, token)
        time.sleep(1.2)
        game = server.games[view["id"]]
        client.portal.call(game.lock.acquire)                     # an action or the AI's turn in progress
        try:
            # Left to that work, not waited for (a sweeper that waited would hang here: 60 s guard).
            assert client.portal.call(asyncio.wait_for, server.sweep_flags(), 60) == 0
            assert server.store.claim_holder(view["id"], "flag") is None
        finally:
            client.portal.call(game.lock.release)
        assert client.portal.call(server.sweep_flags) == 1         # the next round handles it
        assert _over(client, view["id"], token)["over"] == "Blue ran out of time"


def test_an_ai_seat_out_of_time_within_the_ais_turn_has_that_turn_voided(tmp_path):
    """Server._clock_through on a real Crownfall turn of Red then Green (the greedy bot's actions):
    a seat whose time ran out before its turn was handed over voids its actions of the turn, those of
    the seats before it stand; with time enough every action stands and each seat is charged up to
    its last decision on the worker, the first from when the turn started there (issue 40: the
    turn's wait for a worker is not charged), and Blue, who decides next, from the commit."""
    from engine.interfaces.server.ai import greedy_turn

    with TestClient(_app(tmp_path / "g.sqlite3")) as client:
        server = client.app.state.server
        response = client.post("/api/games", json={"game": "crownfall", "human": 0, "ai": {"spec": "random"},
                                                   "options": {"players": 3}, "clock": {"base": 60}})
        game = server.games[response.json()["id"]]
        state = game.snap.state.clone()
        while state.current_player() == 0:                       # Blue's turn, off the record
            state.apply(state.legal_actions()[0])
        actions = greedy_turn(state.clone(), 0, 5)
        after, seats = state.clone(), []
        for action in actions:
            seats.append(after.current_player())
            after.apply(action)
        green = seats.index(2)                                     # Green's first decision
        now = time.time()
        times = [now - 2] * green + [now - 1] * (len(actions) - green)
        control = game.clock.control
        game.clock = Clock(control, (60.0, 60.0, 60.0), 1, now - 3)
        before = time.time()
        clock, standing = server._clock_through(game, state, actions, times)
        assert standing == len(actions) and clock.running == 0 and clock.turn_started >= before
        # Red: from its turn's start to its last decision (1 s); Green: from then to its own (1 s).
        assert clock.remaining[1] == 59.0 and clock.remaining[2] == 59.0
        # The turn started on its worker half a second after Red's turn began: Red is charged 0.5 s.
        clock, standing = server._clock_through(game, state, actions, times, began=now - 2.5)
        assert standing == len(actions) and clock.remaining[1] == 59.5 and clock.remaining[2] == 59.0
        game.clock = Clock(control, (60.0, 60.0, 0.5), 1, now - 3)                  # Green has half a second
        clock, standing = server._clock_through(game, state, actions, times)
        assert standing == green and clock.running == 2 and clock.flagged(time.time())
        game.clock = Clock(control, (60.0, 0.5, 60.0), 1, now - 3)                  # Red's time is out
        assert server._clock_through(game, state, actions, times)[1] == 0


# -- clocks between seats (seats.py): the clock of the seat that is to move, whoever sits there --------
def _two_humans(client, clock, game="crown", players=2):
    """A game of ``players`` seats: the creator at 0, friends who joined at the others; (view, tokens)."""
    seats = [{"kind": "creator"}] + [{"kind": "human"}] * (players - 1)
    body = {"game": game, "seats": seats, "clock": clock}
    if players != 2:
        body["options"] = {"players": players}
    created = client.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    view, tokens = created.json(), {0: created.json()["token"]}
    for invite in view["invites"]:
        joined = client.post(f"/api/games/{view['id']}/join", json={"code": invite["code"]})
        assert joined.status_code == 200, joined.text
        tokens[invite["seat"]] = joined.json()["token"]
    return view, tokens


def test_between_two_humans_the_seat_that_lets_its_time_run_out_loses_and_both_seats_see_it(store_url):
    with TestClient(_app(store_url, flag_poll_seconds=3600)) as client:      # the flag only at an action
        view, tokens = _two_humans(client, {"base": 30, "increment": 0})
        gid = view["id"]
        # Blue's first turn, Yellow's (the friend's seat): the game starts; Blue's second turn: the turn
        # goes to Yellow, whose clock runs.
        for seat in (0, 1, 0):
            _turn(client, gid, tokens[seat])
        theirs = client.get(f"/api/games/{gid}", headers=auth(tokens[1])).json()
        assert theirs["your_turn"] and theirs["clock"]["running"] == 1
        # Yellow's time runs out (its clock's stored start moved back 31 s: no test waits half a minute).
        server = client.app.state.server
        game = server.games[gid]
        game.clock = Clock.from_json({**game.clock.to_json(), "turn_started": game.clock.turn_started - 31})
        refused = client.post(f"/api/games/{gid}/actions", json={"action": theirs["actions"][0]["id"],
                                                                  "version": theirs["version"]},
                              headers=auth(tokens[1]))
        assert refused.status_code == 409 and refused.json()["detail"].startswith("your time ran out")
        for token in tokens.values():
            seen = client.get(f"/api/games/{gid}", headers=auth(token)).json()
            assert seen["over"] == "Yellow ran out of time" and seen["clock"]["out"] == [1]
            assert _flag_entries(seen["log"])[-1]["player"] == 1
        blue = client.post(f"/api/games/{gid}/actions", json={"action": 0, "version": 99}, headers=auth(tokens[0]))
        assert blue.status_code == 409 and "Yellow ran out of time" in blue.json()["detail"]


def test_a_crownfall_friend_out_of_time_is_played_by_the_easy_bot_and_the_others_play_on(tmp_path):
    with TestClient(_app(tmp_path / "g.sqlite3", flag_poll_seconds=3600)) as client:
        view, tokens = _two_humans(client, {"base": 30, "increment": 0}, game="crownfall", players=3)
        gid = view["id"]
        server = client.app.state.server
        game = server.games[gid]
        while not game.clock.started:                  # every seat's first turn: then the clocks run
            _turn(client, gid, tokens[game.snap.state.current_player()])
        mover = game.snap.state.current_player()
        game.clock = Clock.from_json({**game.clock.to_json(), "turn_started": game.clock.turn_started - 31})
        seen = client.get(f"/api/games/{gid}", headers=auth(tokens[mover])).json()
        refused = client.post(f"/api/games/{gid}/actions", json={"action": seen["actions"][0]["id"] if seen["actions"]
                                                                  else 0, "version": seen["version"]},
                              headers=auth(tokens[mover]))
        assert refused.status_code == 409 and refused.json()["detail"].startswith("your time ran out")
        assert wait_until(lambda: not server.games[gid].thinking, 30)
        after = client.get(f"/api/games/{gid}", headers=auth(tokens[mover])).json()
        assert after["clock"]["out"] == [mover] and after["actions"] == [] and not after["your_turn"]
        # The easy bot played the seat out of time until another human seat must decide (or the end).
        state = server.games[gid].snap.state
        assert state.is_terminal() or state.current_player() != mover
        others = [seat for seat in tokens if seat != mover]
        if not state.is_terminal():
            assert state.current_player() in others
            assert client.get(f"/api/games/{gid}", headers=auth(tokens[state.current_player()])).json()["your_turn"]


def test_a_bot_that_does_not_act_in_time_loses_on_its_clock(store_url):
    """A bot's deadline is its seat's clock: a bot seat that stops acting after the start runs out of
    time like a human (one that never makes its first move has the game aborted: test_fair_seats.py)."""
    with TestClient(_app(store_url, flag_poll_seconds=0.05)) as client:
        created = client.post("/api/games", json={"game": "kings-ransom", "clock": {"base": 1},
                                                  "seats": [{"kind": "bot"}, {"kind": "creator"}]})
        assert created.status_code == 201, created.text
        view, token = created.json(), created.json()["token"]
        bot_token = view["bots"][0]["token"]
        assert not view["your_turn"]
        _turn(client, view["id"], bot_token)                         # the bot's first turn, the creator's:
        _turn(client, view["id"], token)                             # the game starts, the bot's clock runs
        assert wait_until(lambda: _over(client, view["id"], token), 30)
        for who in (token, bot_token):
            over = client.get(f"/api/games/{view['id']}", headers=auth(who)).json()
            assert over["over"] == "Red ran out of time" and over["clock"]["out"] == [0]
        late = client.post(f"/api/games/{view['id']}/actions", json={"action": 0, "version": over["version"]},
                           headers=auth(bot_token))
        assert late.status_code == 409 and "ran out of time" in late.json()["detail"]
