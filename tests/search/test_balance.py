"""The balance report (engine/crown/balance.py, ``ftc balance``): statistics on hand-made game
summaries with known answers, the summary of real games against what the games did, the same report
on one worker and on two, and the command writing its CSV, JSON and plots."""

import csv
import json
import os
import random
import signal
import subprocess
import time
from collections import Counter

import pytest

from engine.crown import actions as A
from engine.crown import balance
from engine.crown.config import GameConfig
from engine.crown.state import GameState
from tests.interfaces.test_cli_errors import _session
from tests.support import FTC, ROOT, child_env, sigint_as_at_a_terminal


def summary(result, buys=((), ()), supply=(), length=20, armies=None, plays=({}, {}), trained=({}, {}),
            lost=({}, {})):
    """A hand-made game summary: Blue's score, each player's bought cards (bought on turn 3)."""
    players = []
    for p in (0, 1):
        bought = [[card, 3] for card in buys[p]]
        owned = sorted({card for card in buys[p]} | set(plays[p]) | {"Peon", "Guard"})
        players.append({"buys": bought, "plays": dict(plays[p]), "owned": owned, "trained": dict(trained[p]),
                        "deployed": {}, "lost": dict(lost[p])})
    return {"seed": 0, "supply": sorted(supply), "result": result, "reason": "test", "length": length,
            "players": players, "armies": armies or {}}


# -- intervals -------------------------------------------------------------------------------------
def test_wilson_interval_of_a_score():
    row = balance.score_interval([1.0] * 8 + [0.0] * 2)
    assert row["estimate"] == pytest.approx(0.8)
    assert (row["low"], row["high"]) == (pytest.approx(0.4902, abs=1e-4), pytest.approx(0.9433, abs=1e-4))
    assert row["n"] == 10
    draws = balance.score_interval([0.5] * 4)
    assert draws["estimate"] == pytest.approx(0.5) and draws["low"] < 0.5 < draws["high"]


def test_first_player_counts_and_interval():
    games = [summary(1.0)] * 8 + [summary(0.0)] * 2
    row = balance.first_player(games)
    assert (row["wins"], row["draws"], row["losses"]) == (8, 0, 2)
    assert row["low"] == pytest.approx(0.4902, abs=1e-4)


def test_a_card_that_always_wins_when_bought():
    # 20 games with Wilderness in the Supply: its buyer (Blue in even games, Yellow in odd) always wins.
    games = [summary(1.0 if i % 2 == 0 else 0.0, (["Wilderness"], []) if i % 2 == 0 else ([], ["Wilderness"]),
                     supply=["Wilderness", "Plunder"]) for i in range(20)]
    row = {r["card"]: r for r in balance.card_effects(games)}["Wilderness"]
    buy = row["buy_score"]
    assert buy["estimate"] == pytest.approx(1.0)
    # Newcombe: 1 - sqrt(2) * (upper Wilson bound of 0/20 = 0.16113), and 1.
    assert buy["low"] == pytest.approx(0.7721, abs=1e-3)
    assert buy["high"] == pytest.approx(1.0)
    assert buy["n"] == [20, 20]
    assert row["bought"] == 20 and row["buy_rate"] == pytest.approx(0.5)
    assert row["first_buy_turn"]["estimate"] == pytest.approx(3.0)
    # Plunder is in every game: no "without" group to compare the Supply with.
    assert {r["card"]: r for r in balance.card_effects(games)}["Plunder"]["supply_score"] is None


def test_supply_effect_compares_blues_score_and_length_with_and_without():
    games = ([summary(1.0, supply=["Academy"], length=30)] * 10 + [summary(0.0, supply=["Plunder"], length=20)] * 10)
    rows = {r["card"]: r for r in balance.card_effects(games)}
    assert rows["Academy"]["supply_score"]["estimate"] == pytest.approx(1.0)
    assert rows["Plunder"]["supply_score"]["estimate"] == pytest.approx(-1.0)
    assert rows["Academy"]["supply_length"]["estimate"] == pytest.approx(10.0)
    assert rows["Academy"]["in_supply"] == 10


def test_plays_per_effect_count_games_of_owners_only():
    games = [summary(1.0, plays=({"Refiner": [3, 1]}, {})), summary(0.0, plays=({"Refiner": [1, 1]}, {}))]
    row = {r["card"]: r for r in balance.card_effects(games)}["Refiner"]
    assert row["owners"] == 2
    assert row["plays"][0]["estimate"] == pytest.approx(2.0)
    assert row["plays"][1]["estimate"] == pytest.approx(1.0)


def test_unit_effects_per_player_game():
    games = [summary(1.0, trained=({"Q": 2}, {}), lost=({}, {"P": 3}))] * 6 + [summary(0.0)] * 6
    rows = {r["unit"]: r for r in balance.unit_effects(games)}
    assert rows["Q"]["trained"]["estimate"] == pytest.approx(12 / 24)
    assert rows["P"]["lost"]["estimate"] == pytest.approx(18 / 24)
    # Those who trained a Queen always won; of the 18 who did not, 6 won (the Yellows of the last 6).
    assert rows["Q"]["score_trained"]["estimate"] == pytest.approx(1.0 - 6 / 18)


def test_game_length():
    row = balance.game_length([summary(1.0, length=n) for n in (10, 20, 30, 40)])
    assert row["estimate"] == pytest.approx(25.0) and row["median"] == pytest.approx(25.0)
    assert (row["min"], row["max"]) == (10, 40)
    assert row["low"] < 25 < row["high"]


def test_price_fit_recovers_known_coefficients():
    truth = {"Q": 0.9, "R": 0.5, "B": 0.3, "N": 0.3, "P": 0.1, "X": 0.6}
    rng = random.Random(8)
    games = []
    for _ in range(4000):
        blue = {t: rng.randint(0, 3) for t in truth}
        yellow = {t: rng.randint(0, 3) for t in truth}
        z = 0.2 + sum(w * (blue[t] - yellow[t]) for t, w in truth.items())
        result = 1.0 if rng.random() < 1 / (1 + pow(2.718281828459045, -z)) else 0.0
        games.append(summary(result, armies={"10": [blue, yellow]}))
    games.append(summary(1.0, armies={"10": [{"K": 1}, {"K": 1}]}))     # a type that never differs
    fit = balance.fit_prices(games, turn=10, bootstrap=40)
    units = {u["unit"]: u for u in fit["units"]}
    assert fit["left_out"] == ["K"] and fit["games"] == 4001
    for token, weight in truth.items():
        assert units[token]["coefficient"]["estimate"] == pytest.approx(weight, abs=0.1), token
        assert units[token]["coefficient"]["low"] < weight < units[token]["coefficient"]["high"], token
    assert fit["intercept"]["estimate"] == pytest.approx(0.2, abs=0.1)
    # Scaled to the printed Q R B N P (mean 4.2) over their true mean coefficient (0.42): 10 points per log-odds.
    assert fit["scale"] == pytest.approx(10.0, rel=0.1)
    for token, price in {"Q": 9, "R": 5, "B": 3, "N": 3, "P": 1, "X": 6}.items():
        assert units[token]["price"]["estimate"] == pytest.approx(price, abs=1.2), token
        estimate = units[token]["price"]["estimate"]
        assert units[token]["price"]["low"] < estimate < units[token]["price"]["high"], token
        assert units[token]["price_bootstrap"]["low"] < estimate < units[token]["price_bootstrap"]["high"], token
    assert units["Q"]["printed"] == 9


def test_price_fit_without_games_long_enough():
    fit = balance.fit_prices([summary(1.0)], turn=10, bootstrap=0)
    assert fit["units"] == [] and fit["games"] == 0


# -- real games ------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed, bot", [(1, "expert"), (3, "greedy"), (23, "greedy")])   # 23: a promotion
def test_summary_of_a_real_game_matches_what_it_did(seed, bot):
    game, state = balance.play_game_summary(seed, bot)
    steps = [(p, A.fields(a, state.cards, state.units))
             for p, a in state.history if p >= 0]
    for p, mine in enumerate(game["players"]):
        assert [card for card, _ in mine["buys"]] == [f["card"] for q, f in steps if q == p and f["type"] == "buy"]
        plays = Counter((f["card"], f["effect"]) for q, f in steps if q == p and f["type"] == "play")
        assert {(c, e): n for c, counts in mine["plays"].items() for e, n in enumerate(counts) if n} == dict(plays)
        deploys = Counter(f["unit"] for q, f in steps if q == p and f["type"] == "order" and f["order_kind"] == "deploy")
        assert mine["deployed"] == dict(deploys)
        # The army at the end is the army at the start, plus the units trained, minus those lost,
        # with each promotion turning one unit into another.
        start = balance._army(GameState(GameConfig(seed=seed)), p)
        army = Counter(start)
        army.update(mine["trained"])
        army.subtract(mine["lost"])
        for q, f in steps:
            if q == p and f["type"] == "order" and f["promotion"]:
                army[f["unit"]] -= 1
                army[f["promotion"]] += 1
        assert +army == balance._army(state, p)
        assert sum(mine["trained"].values()) > 0
    promoted = sum(1 for _, f in steps if f["type"] == "order" and f["promotion"])
    assert seed != 23 or promoted > 0                       # the promotion case is tested
    assert game["length"] == state.turn and game["supply"] == sorted(state.supply_names)
    assert game["result"] == {1.0: 1.0, -1.0: 0.0, 0.0: 0.5}[state.returns()[0]]
    json.dumps(game)


def test_same_seeds_same_report_on_one_worker_and_two():
    one = balance.run_balance(4, "greedy", seed=2, workers=1)
    two = balance.run_balance(4, "greedy", seed=2, workers=2)
    assert one == two
    assert [g["seed"] for g in one] == [2, 3, 4, 5]
    assert balance.balance_report(one, bootstrap=20) == balance.balance_report(two, bootstrap=20)


def test_cli_writes_csv_json_and_plots(tmp_path):
    out = tmp_path / "report"
    run = subprocess.run(FTC + ["balance", "--games", "3", "--bot", "greedy", "--seed", "3", "--workers", "1",
                                "--bootstrap", "10", "--out", str(out)],
                         capture_output=True, text=True, env=child_env(), cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "first player (Blue) score:" in run.stdout
    report = json.loads((out / "balance.json").read_text())
    assert report["games"] == 3 and report["settings"]["bot"] == "greedy"
    wins = report["first_player"]["wins"] + report["first_player"]["draws"] + report["first_player"]["losses"]
    assert wins == 3
    with open(out / "balance.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    blue = [r for r in rows if r["section"] == "game" and r["metric"] == "score"][0]
    assert float(blue["estimate"]) == pytest.approx(report["first_player"]["estimate"])
    assert any(r["section"] == "card" for r in rows) and any(r["section"] == "unit" for r in rows)
    games = [json.loads(line) for line in (out / "balance_games.jsonl").read_text().splitlines()]
    assert [g["seed"] for g in games] == [3, 4, 5]
    assert balance.balance_report(games, report["settings"], bootstrap=10) == report
    for png in ("balance_cards.png", "balance_units.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ctrl_c_stops_the_run_cleanly():
    child = subprocess.Popen(FTC + ["balance", "--games", "500", "--bot", "greedy", "--workers", "2", "--progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(), cwd=ROOT,
                             start_new_session=True, preexec_fn=sigint_as_at_a_terminal)
    try:
        seen = b""
        while b"games/s" not in seen:                     # the workers are playing
            chunk = child.stderr.read1(256)
            assert chunk, seen
            seen += chunk
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, 9)
    err = (seen + err).decode()
    assert child.returncode == 130, err
    assert "ftc: interrupted" in err and "Traceback" not in err
    # The games finished before the stop are reported (the progress line showed at least one).
    assert "games finished" in err and b"first player" in out and b"stopped after" in out
    deadline = time.monotonic() + 10
    while _session(child.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session(child.pid) == [], "worker processes left behind"
