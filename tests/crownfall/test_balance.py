"""Crownfall's balance report (engine/crownfall/balance.py, `ftc balance --game crownfall`): the
rotation of the Houses over the seats, the statistics on hand-made summaries with answers derived by
hand, a tiny seeded run (the same twice, its summaries true to the games), the command's files and
errors, and Ctrl-C reporting the games finished."""

import json
import math
from collections import Counter

import pytest

from engine.crownfall import balance as B
from engine.crownfall.config import CrownfallConfig
from engine.crownfall.players import make_bot
from engine.crownfall.rules import default_rules
from engine.crownfall.state import CrownfallState
from engine.execution import run_units
from engine.games import registry
from engine.interfaces import cli

HOUSES = [h.key for h in default_rules().houses]      # emberglass, briar, redwall, tidebound


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval written out here from its textbook formula (the test's own oracle)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def summary(houses, winners, rounds=4, ended="goal", reached=None, first_round=None, seed=0):
    n = len(houses)
    return {"seed": seed, "players": n, "houses": list(houses), "homes": [f"home{s}" for s in range(n)],
            "winners": list(winners), "ended": ended, "rounds": rounds, "tracks": [[0, 0, 0]] * n,
            "reached": reached or [[] for _ in range(n)], "decisions": 0,
            "first_round": first_round or [[] for _ in range(n)]}


# -- Houses over seats ------------------------------------------------------------------------------
@pytest.mark.parametrize("players, cycle", [(2, 12), (3, 24), (4, 24)])
def test_the_rotation_is_every_arrangement_once(players, cycle):
    # 4!/(4-N)! ordered choices of N Houses out of 4: 12, 24, 24 (counted by hand).
    order = B.arrangements(players)
    assert len(order) == cycle and len(set(order)) == cycle
    assert all(len(set(a)) == players for a in order)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_block_of_four_games_puts_each_house_in_each_seat_once(players):
    order = B.arrangements(players)
    for start in range(0, len(order), 4):
        block = order[start:start + 4]
        for seat in range(players):
            assert sorted(a[seat] for a in block) == sorted(HOUSES)


def test_house_counts_by_seat_after_whole_blocks_and_a_whole_cycle():
    games = [B.houses_of_game(i, 100 + i, 3, "rotate") for i in range(8)]
    counts = B.assignment_counts([summary(h, [0]) for h in games])
    # 8 games = 2 blocks of 4: each House twice in each of the 3 seats.
    assert counts == {h: [2, 2, 2] for h in HOUSES}
    # A whole cycle of two-player games (12): each House sits 3 times in each seat, and meets each
    # other House twice (once in each order): 12 games x 2 seats / (4 Houses x 2 seats) = 3.
    cycle = [B.houses_of_game(i, i, 2, "rotate") for i in range(12)]
    assert B.assignment_counts([summary(h, [0]) for h in cycle]) == {h: [3, 3] for h in HOUSES}
    meetings = Counter(frozenset(h) for h in cycle)
    assert set(meetings.values()) == {2} and len(meetings) == 6


def test_other_house_modes():
    assert B.houses_of_game(5, 7, 4, "default") == ("tidebound", "emberglass", "briar", "redwall")   # RULINGS I2's 4
    fixed = ("redwall", "briar")
    assert B.houses_of_game(3, 9, 2, fixed) == fixed
    drawn = [B.houses_of_game(0, seed, 3, "random") for seed in range(40)]
    assert drawn == [B.houses_of_game(0, seed, 3, "random") for seed in range(40)]      # seeded
    assert all(len(set(d)) == 3 for d in drawn) and len(set(drawn)) > 10


# -- statistics on hand-made summaries --------------------------------------------------------------
def test_shared_wins_count_one_over_k():
    assert B.shares(summary(("briar", "redwall", "tidebound"), [0])) == [1.0, 0.0, 0.0]
    assert B.shares(summary(("briar", "redwall", "tidebound"), [1, 2])) == [0.0, 0.5, 0.5]
    assert B.shares(summary(("briar", "redwall", "tidebound", "emberglass"), [0, 1, 3])) == [1 / 3, 1 / 3, 0.0, 1 / 3]


def test_house_and_seat_rates_with_wilson_intervals():
    games = [summary(("emberglass", "briar", "redwall"), [0]),
             summary(("briar", "redwall", "emberglass"), [1, 2]),          # shared: redwall and emberglass 1/2
             summary(("redwall", "emberglass", "tidebound"), [1]),
             summary(("tidebound", "briar", "emberglass"), [0])]
    houses = {r["house"]: r for r in B.house_rates(games)}
    # emberglass: games 1-4, scores 1, 1/2, 1, 0 -> 2.5 of 4.
    e = houses["emberglass"]
    assert (e["n"], e["estimate"], e["wins"], e["shared"]) == (4, 2.5 / 4, 2, 1)
    assert (e["low"], e["high"]) == pytest.approx(wilson(2.5, 4))
    assert e["fair_share"] == pytest.approx(1 / 3)
    # emberglass by seat: seat 0 game 1 (1), seat 1 game 3 (1), seat 2 games 2 and 4 (1/2, 0).
    assert [v["estimate"] for v in e["by_seat"]] == [1.0, 1.0, 0.25] and [v["n"] for v in e["by_seat"]] == [1, 1, 2]
    # redwall: games 1-3, scores 0, 1/2, 0; briar: games 1, 2, 4, scores 0, 0, 0; tidebound: 1, 0... games 3, 4: 0, 1.
    assert houses["redwall"]["estimate"] == pytest.approx(0.5 / 3) and houses["redwall"]["n"] == 3
    assert houses["briar"]["estimate"] == 0.0 and houses["briar"]["n"] == 3
    assert houses["tidebound"]["estimate"] == 0.5 and houses["tidebound"]["wins"] == 1
    seats = B.seat_rates(games)
    # seat 0 won games 1 and 4; seat 1 game 3 and half of 2; seat 2 half of game 2.
    assert [s["estimate"] for s in seats] == pytest.approx([0.5, 1.5 / 4, 0.5 / 4])
    assert sum(s["estimate"] for s in seats) == pytest.approx(1.0)         # a game's scores sum to 1
    assert (seats[1]["low"], seats[1]["high"]) == pytest.approx(wilson(1.5, 4))
    assert seats[0]["home"] == "home0" and seats[0]["fair_share"] == pytest.approx(1 / 3)


def test_length_endings_and_winning_tracks():
    games = [summary(("briar", "redwall"), [0], rounds=3, reached=[["crown", "arcana"], ["crown"]]),
             summary(("briar", "redwall"), [1], rounds=6, ended="round-limit", reached=[[], ["dominion"]]),
             summary(("briar", "redwall"), [0, 1], rounds=5, reached=[["crown", "dominion"], ["arcana", "dominion"]]),
             summary(("briar", "redwall"), [1], rounds=3, reached=[[], ["arcana", "dominion"]])]
    length = B.game_length(games)
    assert length["estimate"] == pytest.approx(17 / 4) and length["distribution"] == {"3": 2, "5": 1, "6": 1}
    assert (length["median"], length["min"], length["max"]) == (4.0, 3, 6)
    e = B.endings(games)
    assert (e["goal"]["games"], e["round-limit"]["games"], e["shared"]["games"]) == (3, 1, 1)
    assert e["round-limit"]["estimate"] == 0.25
    tracks = B.winning_tracks(games)
    # crown: game 1 (1) + game 3 (winner 0 of 2: 1/2) = 1.5; arcana: 1 + 1/2 + 1 = 2.5;
    # dominion: game 2 (1) + game 3 (both: 1) + game 4 (1) = 3.
    assert {t: v["estimate"] for t, v in tracks["tracks"].items()} == pytest.approx(
        {"crown": 1.5 / 4, "arcana": 2.5 / 4, "dominion": 3 / 4})
    assert tracks["sets"] == {"arcana+dominion": 1.5, "crown+arcana": 1, "crown+dominion": 0.5, "dominion": 1}


def test_first_round_choices_by_house():
    games = [summary(("briar", "redwall"), [0], first_round=[["raise", "raise", "fortify"], ["research"]]),
             summary(("redwall", "briar"), [0], first_round=[["research", "raise"], ["raise"]])]
    first = B.first_round(games)
    assert first["briar"] == {"raise": 0.75, "fortify": 0.25}
    assert first["redwall"] == {"research": 2 / 3, "raise": 1 / 3}
    assert first["tidebound"] == {}


def test_report_text_csv_and_json(tmp_path):
    games = [summary(B.houses_of_game(i, i, 2, "rotate"), [i % 2], rounds=3 + i % 3) for i in range(12)]
    report = B.balance_report(games, {"bot": "test", "houses": "rotate"})
    assert report["games"] == 12 and report["players"] == [2] and report["rotation_cycle"] == {"2": 12}
    text = B.format_report(report)
    assert "House Emberglass" in text and "Blue (home0)" in text and "not a whole number" not in text
    B.write_csv(report, tmp_path / "b.csv")
    B.write_json(report, tmp_path / "b.json")
    assert json.loads((tmp_path / "b.json").read_text()) == json.loads(json.dumps(report))
    rows = (tmp_path / "b.csv").read_text().splitlines()
    assert rows[0] == "section,name,metric,estimate,low,high,n"
    assert any(r.startswith("house,briar,win_rate,") for r in rows)
    five = B.balance_report(games[:5], {"houses": "rotate"})
    assert "not a whole number" in B.format_report(five)


# -- a tiny run ----------------------------------------------------------------------------------------
def test_a_seeded_run_is_the_same_twice_and_true_to_its_games():
    plan = registry.get("crownfall").cli.balance(3, "greedy", 11, "crownfall", {"--players": 3})
    one = run_units(plan.play, plan.units, "local", 1)
    two = run_units(plan.play, plan.units, "local", 1)
    assert one == two
    rules = default_rules()
    for i, s in enumerate(one):
        assert s["seed"] == 11 + i and s["houses"] == list(B.arrangements(3)[i])
        assert s["homes"] == [home for _, home in rules.defaults[3]]
        assert s["winners"] and 1 <= s["rounds"] <= rules.rounds
        for seat in range(3):
            assert s["reached"][seat] == [t for t, v in zip(("crown", "arcana", "dominion"), s["tracks"][seat])
                                          if v >= rules.threshold]
        goal = any(len(r) >= rules.tracks_to_win for r in s["reached"])
        assert s["ended"] == ("goal" if goal else "round-limit")
        assert s["ended"] == "goal" or s["rounds"] == rules.rounds
    # Round 1 played again here, its actions' kinds read by the state's own action_fields.
    s = one[0]
    state = CrownfallState(CrownfallConfig.from_json({"players": 3, "houses": s["houses"], "seed": 11}))
    bots = [make_bot("greedy", 4 * 11 + seat) for seat in range(3)]
    kinds = [[] for _ in range(3)]
    while state.round == 1 and not state.is_terminal():
        player = state.current_player()
        action = bots[player].choose(state)
        kinds[player].append(state.action_fields(action)["kind"])
        state.apply(action)
    assert s["first_round"] == kinds and all(kinds)
    assert plan.report(one) == plan.report(two)


def test_rotate_plays_the_rotating_turn_order_of_rulings_i16():
    """--rotate reaches every game's configuration: the first seat of round 2 is seat 1, and the
    summary is the one of that game played by hand."""
    plan = registry.get("crownfall").cli.balance(2, "greedy", 3, "crownfall", {"--players": 2, "--rotate": True})
    assert [unit[-1] for unit in plan.units] == [True, True]
    assert plan.report([])["settings"]["turn_order"] == "rotating"
    seed, bot, players, houses, rotate = plan.units[0]
    summary = B.play_summary(*plan.units[0])
    state = CrownfallState(CrownfallConfig.from_json({"players": 2, "houses": list(houses), "seed": seed,
                                                     "rotate": True}))
    bots = [make_bot(bot, 4 * seed + seat) for seat in range(2)]
    first_of_round = {}
    while not state.is_terminal():
        if state.stage == "turn":
            first_of_round.setdefault(state.round, state.current_player())
        state.apply(bots[state.current_player()].choose(state))
    assert first_of_round[1] == 0 and first_of_round[2] == 1
    assert summary["winners"] == list(state.winners) and summary["tracks"] == [list(t) for t in state.tracks]
    fixed = B.play_summary(seed, bot, players, houses)
    assert fixed["first_round"] == summary["first_round"]       # round 1 is the same in both orders


def test_the_command_writes_csv_json_summaries_and_the_plot(tmp_path, capsys):
    out = tmp_path / "report"
    code = cli.main(["balance", "--game", "crownfall", "--players", "2", "--games", "4", "--bot", "random",
                     "--seed", "5", "--workers", "1", "--out", str(out), "--plot"])
    assert code == 0
    text = capsys.readouterr().out
    assert "Crownfall balance: 4 games of 2 players" in text and "win rate" in text
    report = json.loads((out / "balance.json").read_text())
    assert report["games"] == 4 and report["settings"] == {"bot": "random", "players": 2, "houses": "rotate",
                                                     "turn_order": "fixed", "seed": 5}
    games = [json.loads(line) for line in (out / "balance_games.jsonl").read_text().splitlines()]
    assert [g["seed"] for g in games] == [5, 6, 7, 8]
    assert B.balance_report(games, report["settings"]) == json.loads(json.dumps(report))
    assert (out / "crownfall_balance_2p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ctrl_c_reports_the_games_finished(monkeypatch, capsys):
    def stopped_run(fn, units, cluster, workers, progress):
        for index in range(2):
            progress(index + 1, len(units), index, fn(*units[index]))
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_units", stopped_run)
    code = cli.main(["balance", "--game", "crownfall", "--games", "10", "--bot", "random", "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 130
    assert "interrupted: 2 of 10 games finished" in captured.err
    assert "Crownfall balance: 2 games" in captured.out and "stopped after 2 of 10" in captured.out


@pytest.mark.parametrize("argv, words", [
    (["--game", "crownfall", "--players", "5"], ["--players 5", "Crownfall", "2-4"]),
    (["--game", "crownfall", "--houses", "bogus"], ["--houses 'bogus'", "houses", "rotate, random, default"]),
    (["--game", "crownfall", "--houses", "briar,briar"], ["--houses 'briar,briar'", "houses[1]", "briar"]),
    (["--game", "crownfall", "--houses", "briar,nosuch"], ["--houses", "unknown House 'nosuch'"]),
    (["--game", "crownfall", "--houses", "briar"], ["--houses", "2 Houses"]),
    (["--game", "crownfall", "--supply", "Fog"], ["--supply: not an option of Crownfall"]),
    (["--game", "crownfall", "--bot", "bogus"], ["--bot 'bogus'", "unknown bot"]),
    (["--game", "crownfall", "--plot"], ["--plot", "--out"]),
    (["--houses", "rotate"], ["--houses: not an option of For the Crown"]),
    (["--rotate"], ["--rotate: not an option of For the Crown"]),
    (["--game", "crusade"], ["--game crusade", "no balance report", "crownfall"]),
    (["--game", "nosuch"], ["unknown game 'nosuch'"]),
])
def test_bad_options_are_one_clear_error(argv, words, capsys):
    code = cli.main(["balance", "--games", "2", *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("ftc: error: "), err
    for word in words:
        assert word in err, err
