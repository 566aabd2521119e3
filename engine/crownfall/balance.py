"""Crownfall's balance report (`ftc balance --game crownfall`): seeded games of one bot in every seat,
each reduced to a compact summary as it is played (a unit of engine/execution.py), and statistics of
the Houses, the seats, the length, the winning tracks and the endings with 95% intervals.

**Houses over seats.** A seat is a place in the turn order and a home region (the automated set-up
of N players, RULINGS I2, engine/data/crownfall.toml [defaults]); the homes stay with the seats and
the Houses move. With ``houses="rotate"`` (the default) game i of a run takes arrangement i mod A
of the A ordered choices of N Houses out of the four (12 for two players, 24 for three and for
four), in an order made of blocks of four: an arrangement with the first House in seat 0, then the
same with every House replaced by the next one (cyclically) three times. Each block of four games
puts every House in every seat once, so any multiple of 4 games spreads the Houses exactly evenly
over the seats (each House plays N/4 of the games, 1/N of them in each seat), and a whole cycle of A
games also makes every House meet every other House equally often. The House rates are then free of seat bias and the seat rates free of House
bias. ``"random"``: each game draws its arrangement from its seed (unbiased on average, not
exactly); ``"default"``: the configuration's own Houses (I2; measures the default set-up, not the
Houses); a tuple of keys: those Houses in those seats in every game.

**Turn order.** By default the seat order is the same every round (RULINGS I16), so "seat 0" is the
first player of every round. ``rotate=True`` (`--rotate`) plays the configuration option I16 allows:
the first seat moves on by one each round, so seat 0 is first only in round 1. Comparing the two
runs measures how much of the first seat's edge the fixed order makes.

**Scores.** A player's score in a game is 1 for a sole victory, 1/k for a victory shared by k
players (15.0's tie-breaks leave k > 1), 0 otherwise: the scores of a game sum to 1, and a House or
seat that is as strong as the others scores the fair share 1/N. A rate is the mean score over the
games the House (seat) played, with the Wilson 95% interval of that mean taken as a proportion of
its games (engine.search.stats.score_interval; shared victories enter as fractions). Game length
is the number of rounds played (the round of the end); its interval is the normal one of the mean.
A game ends at the goal (someone has ``threshold`` in ``tracks_to_win`` tracks at an end of round,
15.0) or at the round limit (RULINGS I8, the tie-breaks choose). The winning tracks: for each track,
the share of the games (a shared victory split 1/k among its winners) in which the track is among
the winner's tracks at the threshold.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from engine.crownfall import actions as A
from engine.crownfall.config import GAME_NAME, CrownfallConfig
from engine.crownfall.core import SEATS, TRACKS
from engine.crownfall.players import make_bot
from engine.crownfall.rules import default_rules
from engine.crownfall.state import CrownfallState
from engine.games.registry import BalancePlan
from engine.search import stats
from engine.search.stats import mean_interval, score_interval, write_json

__all__ = ["HOUSE_MODES", "arrangements", "houses_of_game", "play_summary", "shares", "house_rates", "seat_rates",
           "assignment_counts", "game_length", "endings", "winning_tracks", "first_round", "balance_report",
           "format_report", "write_csv", "write_json", "plot_report", "plan", "PLOT_NAME"]

#: How Houses are given to seats (the module's docstring); a tuple of House keys is the fourth way.
HOUSE_MODES = ("rotate", "random", "default")
#: The game options `ftc balance --game crownfall` takes, by flag.
OPTIONS = ("--players", "--houses", "--rotate")
#: The plot's file name in the output folder ({players}: the player count).
PLOT_NAME = "crownfall_balance_{players}p.png"


# -- Houses by seat ---------------------------------------------------------------------------------
def arrangements(players: int, rules=None) -> list[tuple[str, ...]]:
    """Every ordered choice of ``players`` Houses out of the rules' Houses, in the rotation's order
    (the module's docstring: blocks of four that put each House in each seat once)."""
    rules = rules or default_rules()
    keys = [h.key for h in rules.houses]
    bases = [b for b in itertools.permutations(range(len(keys)), players) if b[0] == 0]
    return [tuple(keys[(h + shift) % len(keys)] for h in base) for base in bases for shift in range(len(keys))]


def houses_of_game(index: int, seed: int, players: int, houses: str | tuple[str, ...], rules=None) -> tuple[str, ...]:
    """The Houses by seat of game ``index`` of a run (its seed ``seed``) under ``houses`` (a mode of
    HOUSE_MODES or a tuple of House keys)."""
    rules = rules or default_rules()
    if isinstance(houses, tuple):
        return houses
    if houses == "rotate":
        cycle = arrangements(players, rules)
        return cycle[index % len(cycle)]
    if houses == "random":
        return tuple(random.Random(f"crownfall-balance-houses:{seed}").sample([h.key for h in rules.houses], players))
    if houses == "default":
        return tuple(h for h, _ in rules.defaults[players])
    raise ValueError(f"houses: expected one of {', '.join(HOUSE_MODES)} or a tuple of House keys, got {houses!r}")


def parse_houses(text: str, players: int, rules=None) -> str | tuple[str, ...]:
    """The --houses option: a mode of HOUSE_MODES, or House keys separated by commas, one per seat
    (checked as a configuration's houses; the error names the option and the House)."""
    rules = rules or default_rules()
    if text in HOUSE_MODES:
        return text
    keys = tuple(k.strip() for k in text.split(","))
    try:
        CrownfallConfig.from_json({"players": players, "houses": list(keys), "seed": 0}, "houses", rules)
    except ValueError as exc:
        raise ValueError(f"--houses {text!r}: {exc} (or one of {', '.join(HOUSE_MODES)})") from None
    return keys


# -- play and gather --------------------------------------------------------------------------------
def play_summary(seed: int, bot: str, players: int, houses: tuple[str, ...], rotate: bool = False) -> dict:
    """One seeded game of ``bot`` in every seat (seat s's bot has the seed 4 * seed + s) with the
    Houses ``houses`` by seat and the default homes of ``players`` players (``rotate``: the first seat
    moves on each round, RULINGS I16), as its summary:

    ``seed``, ``players``, ``houses`` and ``homes`` by seat, ``winners`` (seats), ``ended`` ("goal"
    or "round-limit"), ``rounds`` (the round the game ended in), ``tracks`` (by seat: crown, arcana,
    dominion at the end), ``reached`` (by seat: the tracks at the threshold), ``decisions``, and
    ``first_round`` (by seat: the kinds of the actions taken in round 1, in order)."""
    rules = default_rules()
    config = CrownfallConfig.from_json({"players": players, "houses": list(houses), "seed": seed, "rotate": rotate},
                                       "config", rules)
    state = CrownfallState(config, rules)
    bots = [make_bot(bot, 4 * seed + s) for s in range(players)]
    for b in bots:
        b.reset()
    first_round: list[list[str]] = [[] for _ in range(players)]
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].choose(state)
        if state.round == 1:
            first_round[player].append(A.decode(action, state.R)[0])
        state.apply(action)
        decisions += 1
    reached = [[t for t, v in zip(TRACKS, state.tracks[p]) if v >= rules.threshold] for p in range(players)]
    goal = any(len(r) >= rules.tracks_to_win for r in reached)
    return {
        "seed": seed, "players": players, "houses": list(config.houses), "homes": list(config.homes),
        "winners": list(state.winners), "ended": "goal" if goal else "round-limit", "rounds": state.round,
        "tracks": [list(t) for t in state.tracks], "reached": reached, "decisions": decisions,
        "first_round": first_round,
    }


# -- statistics on summaries ------------------------------------------------------------------------
def shares(summary: dict) -> list[float]:
    """Each seat's score in the game: 1/k to each of k winners, 0 to the others (a game without a
    winner, which the rules do not leave, would be shared by all)."""
    n = summary["players"]
    winners = summary["winners"] or list(range(n))
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]


def _rate(scores: list[float], fair: list[float]) -> dict:
    row = score_interval(scores)
    row.update(wins=sum(1 for s in scores if s == 1.0), shared=sum(1 for s in scores if 0.0 < s < 1.0),
               fair_share=(sum(fair) / len(fair)) if fair else None)
    return row


def house_rates(summaries: Sequence[dict], rules=None) -> list[dict]:
    """One row per House of the rules: its score (mean share, Wilson 95%) over the games it played
    (``n``), sole ``wins``, ``shared`` victories, the ``fair_share`` (mean 1/N over its games) and
    ``by_seat``: its score in each seat (Wilson 95%; ``n`` its games there)."""
    rules = rules or default_rules()
    seats = max((s["players"] for s in summaries), default=0)
    rows = []
    for house in rules.houses:
        scores, fair, by_seat = [], [], [[] for _ in range(seats)]
        for s in summaries:
            if house.key in s["houses"]:
                seat = s["houses"].index(house.key)
                scores.append(shares(s)[seat])
                by_seat[seat].append(shares(s)[seat])
                fair.append(1.0 / s["players"])
        rows.append({"house": house.key, "name": house.name, **_rate(scores, fair),
                     "by_seat": [score_interval(v) for v in by_seat]})
    return rows


def seat_rates(summaries: Sequence[dict]) -> list[dict]:
    """One row per seat (as many as the most players of a game): as house_rates, by seat."""
    seats = max((s["players"] for s in summaries), default=0)
    rows = []
    for seat in range(seats):
        played = [s for s in summaries if seat < s["players"]]
        scores = [shares(s)[seat] for s in played]
        home = Counter(s["homes"][seat] for s in played).most_common(1)
        rows.append({"seat": seat, "name": SEATS[seat], "home": home[0][0] if home else None,
                     **_rate(scores, [1.0 / s["players"] for s in played])})
    return rows


def assignment_counts(summaries: Sequence[dict], rules=None) -> dict[str, list[int]]:
    """{House: [games in seat 0, seat 1, ...]}: how the Houses were spread over the seats."""
    rules = rules or default_rules()
    seats = max((s["players"] for s in summaries), default=0)
    counts = {h.key: [0] * seats for h in rules.houses}
    for s in summaries:
        for seat, house in enumerate(s["houses"]):
            counts[house][seat] += 1
    return counts


def game_length(summaries: Sequence[dict]) -> dict:
    """Rounds played: mean with its 95% interval, median, shortest, longest and the distribution
    ({rounds: games})."""
    rounds = sorted(s["rounds"] for s in summaries)
    row = mean_interval(rounds)
    row["distribution"] = {str(r): n for r, n in sorted(Counter(rounds).items())}
    if rounds:
        row.update(median=statistics.median(rounds), min=rounds[0], max=rounds[-1])
    return row


def endings(summaries: Sequence[dict]) -> dict:
    """Games ended at the goal and at the round limit, and games whose victory was shared, each with
    its share of the games (Wilson 95%)."""
    n = len(summaries)
    out = {}
    for name, test in (("goal", lambda s: s["ended"] == "goal"), ("round-limit", lambda s: s["ended"] != "goal"),
                       ("shared", lambda s: len(s["winners"]) != 1)):
        hits = [1.0 if test(s) else 0.0 for s in summaries]
        out[name] = {"games": int(sum(hits)), **score_interval(hits)} if n else {"games": 0, **score_interval([])}
    return out


def winning_tracks(summaries: Sequence[dict]) -> dict:
    """Per track: the share of the games in which it is among the winner's tracks at the threshold
    (a victory shared by k: 1/k from each winner), Wilson 95%; ``pairs``: the winners' sets of
    tracks at the threshold ("crown+arcana", "none", ...) counted over winners, each 1/k."""
    per_track = {t: [] for t in TRACKS}
    pairs: Counter = Counter()
    for s in summaries:
        winners = s["winners"] or list(range(s["players"]))
        for t in TRACKS:
            per_track[t].append(sum(t in s["reached"][w] for w in winners) / len(winners))
        for w in winners:
            pairs["+".join(s["reached"][w]) or "none"] += 1.0 / len(winners)
    return {"tracks": {t: score_interval(v) for t, v in per_track.items()},
            "sets": {k: round(v, 6) for k, v in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))}}


def first_round(summaries: Sequence[dict], rules=None) -> dict[str, dict[str, float]]:
    """Per House: the kinds of its actions in round 1 as shares of all its round-1 actions."""
    rules = rules or default_rules()
    counts = {h.key: Counter() for h in rules.houses}
    for s in summaries:
        for seat, house in enumerate(s["houses"]):
            counts[house].update(s["first_round"][seat])
    return {h: {k: v / sum(c.values()) for k, v in c.most_common()} for h, c in counts.items()}


def balance_report(summaries: Sequence[dict], settings: dict | None = None) -> dict:
    """Every statistic of the summaries as one JSON-able dict (the same summaries give the same dict)."""
    rules = default_rules()
    players = sorted({s["players"] for s in summaries})
    cycle = {str(n): len(arrangements(n, rules)) for n in players}      # JSON keys are strings
    return {
        "game": GAME_NAME,
        "settings": dict(settings or {}),
        "games": len(summaries),
        "players": players,
        "scoring": "a sole victory 1, a victory shared by k players 1/k each, else 0",
        "rotation_cycle": cycle,
        "houses": house_rates(summaries, rules),
        "seats": seat_rates(summaries),
        "assignments": assignment_counts(summaries, rules),
        "length": game_length(summaries),
        "endings": endings(summaries),
        "winning_tracks": winning_tracks(summaries),
        "first_round": first_round(summaries, rules),
        "threshold": {"value": rules.threshold, "tracks": rules.tracks_to_win, "rounds": rules.rounds},
    }


# -- output ------------------------------------------------------------------------------------------
def _pct(row: dict) -> str:
    if row["estimate"] is None:
        return "-"
    text = f"{100 * row['estimate']:5.1f}%"
    if row["low"] is not None:
        text += f" [{100 * row['low']:4.1f}, {100 * row['high']:4.1f}]"
    return text


def format_report(report: dict) -> str:
    """The report as text: Houses, seats, the spread of Houses over seats, length, endings, tracks."""
    settings = ", ".join(f"{k} {v}" for k, v in report["settings"].items())
    counts = "/".join(map(str, report["players"])) or "-"
    lines = [f"Crownfall balance: {report['games']} games of {counts} players ({settings})",
             f"scores: {report['scoring']}; 95% Wilson intervals"]
    lines.append("")
    lines.append("House                      games  win rate [95% CI]       fair   wins shared  by seat")
    for r in report["houses"]:
        if r["n"]:
            by_seat = "/".join("-" if v["estimate"] is None else f"{100 * v['estimate']:.0f}" for v in r["by_seat"])
            lines.append(f"  {r['name']:24} {r['n']:5}  {_pct(r):22}  {100 * r['fair_share']:4.1f}%  "
                         f"{r['wins']:4} {r['shared']:4}   {by_seat}%")
        else:
            lines.append(f"  {r['name']:24}     0  (not played)")
    lines.append("seat                       games  win rate [95% CI]       fair   wins shared")
    for r in report["seats"]:
        lines.append(f"  {r['name'] + ' (' + (r['home'] or '-') + ')':24} {r['n']:5}  {_pct(r):22}  "
                     f"{100 * r['fair_share']:4.1f}%  {r['wins']:4} {r['shared']:4}")
    seats = max((len(v) for v in report["assignments"].values()), default=0)
    lines.append("games of each House by seat: " + "; ".join(
        f"{house} {'/'.join(map(str, per))}" for house, per in report["assignments"].items())
        + (f" (seats {'/'.join(SEATS[:seats])})" if seats else ""))
    even = all(report["games"] % c == 0 for c in report["rotation_cycle"].values())
    if report["settings"].get("houses") == "rotate" and not even:
        cycles = ", ".join(f"{c} for {n} players" for n, c in report["rotation_cycle"].items())
        lines.append(f"  (the rotation's cycle is {cycles}: {report['games']} games is not a whole number of cycles, "
                     f"so the Houses are not spread exactly evenly)")
    length = report["length"]
    lines.append("")
    if length["estimate"] is not None:
        ci = f" [{length['low']:.2f}, {length['high']:.2f}]" if length["low"] is not None else ""
        lines.append(f"length: mean {length['estimate']:.2f}{ci} rounds, median {length['median']}, "
                     f"range {length['min']}-{length['max']}; by rounds: "
                     + ", ".join(f"{r}: {n}" for r, n in length["distribution"].items()))
    e = report["endings"]
    lines.append(f"endings: goal {e['goal']['games']} ({_pct(e['goal'])}), round limit {e['round-limit']['games']} "
                 f"({_pct(e['round-limit'])}); shared victories {e['shared']['games']} ({_pct(e['shared'])})")
    t = report["threshold"]
    lines.append(f"winning tracks (among the winner's tracks at {t['value']}; a shared victory split): "
                 + ", ".join(f"{k} {_pct(v)}" for k, v in report["winning_tracks"]["tracks"].items()))
    lines.append("  winners' tracks at the threshold: " + ", ".join(
        f"{k} {v:g}" for k, v in report["winning_tracks"]["sets"].items()))
    lines.append("first-round actions by House (share of its round-1 actions):")
    for house, kinds in report["first_round"].items():
        if kinds:
            lines.append(f"  {house:11} " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in list(kinds.items())[:4]))
    return "\n".join(lines)


def _csv_rows(report: dict) -> list[list]:
    def row(section, name, metric, value):
        if isinstance(value, dict):
            return [section, name, metric, value["estimate"], value["low"], value["high"], value["n"]]
        return [section, name, metric, value, "", "", ""]

    out = [row("game", "all", "games", report["games"])]
    for r in report["houses"]:
        out += [row("house", r["house"], "win_rate", r), row("house", r["house"], "fair_share", r["fair_share"]),
                row("house", r["house"], "wins", r["wins"]), row("house", r["house"], "shared", r["shared"])]
        out += [row("house", r["house"], f"games_seat{s}", n) for s, n in enumerate(report["assignments"][r["house"]])]
        out += [row("house", r["house"], f"win_rate_seat{s}", v) for s, v in enumerate(r["by_seat"])]
    for r in report["seats"]:
        out += [row("seat", r["name"], "win_rate", r), row("seat", r["name"], "fair_share", r["fair_share"]),
                row("seat", r["name"], "wins", r["wins"]), row("seat", r["name"], "shared", r["shared"])]
    out.append(row("length", "rounds", "mean", report["length"]))
    out += [row("length", "rounds", f"games_{r}", n) for r, n in report["length"]["distribution"].items()]
    for name, value in report["endings"].items():
        out.append(row("ending", name, "rate", value))
    for track, value in report["winning_tracks"]["tracks"].items():
        out.append(row("track", track, "among_winners", value))
    for tracks, value in report["winning_tracks"]["sets"].items():
        out.append(row("track", tracks, "winners", value))
    return out


def write_csv(report: dict, path: str | Path) -> None:
    """Every number of the report as rows: section, name, metric, estimate, low, high, n (the one
    writer of engine/search/stats.py with this report's rows)."""
    stats.write_csv(report, path, _csv_rows(report))


def plot_report(report: dict, path: str | Path) -> None:
    """Four panels: the Houses' and the seats' win rates with their 95% intervals against the fair
    share, the length histogram, and the winning tracks. Needs matplotlib (RuntimeError otherwise)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installation
        raise RuntimeError("plots need matplotlib: pip install -e '.[plot]'") from None
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))

    def rates(ax, rows, labels, title):
        rows = [(r, label) for r, label in zip(rows, labels) if r["n"]]
        xs = range(len(rows))
        est = [100 * r["estimate"] for r, _ in rows]
        low = [max(0.0, 100 * (r["estimate"] - (r["low"] if r["low"] is not None else r["estimate"]))) for r, _ in rows]
        high = [max(0.0, 100 * ((r["high"] if r["high"] is not None else r["estimate"]) - r["estimate"]))
                for r, _ in rows]
        ax.bar(xs, est, yerr=[low, high], capsize=4, color="tab:blue", ecolor="black")
        fair = {round(100 * r["fair_share"], 6) for r, _ in rows}
        for f in fair:
            ax.axhline(f, color="tab:red", linestyle="--", linewidth=1, label=f"fair share {f:.1f}%")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([label for _, label in rows], fontsize=8)
        ax.set_ylabel("win rate (%)")
        ax.set_title(title, fontsize=9)
        if fair:
            ax.legend(fontsize=7)

    rates(axes[0][0], report["houses"], [r["name"].replace("The ", "").replace("House ", "") for r in report["houses"]],
          "Houses: win rate, 95% Wilson (shared wins 1/k)")
    rates(axes[0][1], report["seats"], [f"{r['name']}\n{r['home']}" for r in report["seats"]],
          "Seats (turn order and home): win rate, 95% Wilson")
    dist = report["length"]["distribution"]
    ax = axes[1][0]
    ax.bar([int(r) for r in dist], list(dist.values()), color="tab:green")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("games")
    mean = report["length"]["estimate"]
    ax.set_title(f"Game length (mean {mean:.2f} rounds)" if mean is not None else "Game length", fontsize=9)
    ax.set_xticks([int(r) for r in dist])
    ax = axes[1][1]
    tracks = report["winning_tracks"]["tracks"]
    rows = [tracks[t] for t in TRACKS]
    est = [100 * (r["estimate"] or 0) for r in rows]
    low = [max(0.0, 100 * ((r["estimate"] or 0) - (r["low"] if r["low"] is not None else r["estimate"] or 0)))
           for r in rows]
    high = [max(0.0, 100 * ((r["high"] if r["high"] is not None else r["estimate"] or 0) - (r["estimate"] or 0)))
            for r in rows]
    ax.bar(range(len(TRACKS)), est, yerr=[low, high], capsize=4, color="tab:purple", ecolor="black")
    ax.set_xticks(range(len(TRACKS)))
    ax.set_xticklabels(TRACKS)
    ax.set_ylabel("% of games")
    ax.set_title(f"Winning tracks: among the winner's tracks at {report['threshold']['value']}", fontsize=9)
    counts = "/".join(map(str, report["players"]))
    fig.suptitle(f"Crownfall balance: {report['games']} games of {counts} players, "
                 f"{report['settings'].get('bot', '')} in every seat, Houses {report['settings'].get('houses', '')}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- the plan of `ftc balance --game crownfall` -----------------------------------------------------
def plan(games: int, bot: str, seed: int, variant: str, options: dict) -> BalancePlan:
    """`ftc balance --game crownfall`: ``options`` by flag: --players (2-4, default 2), --houses
    (a mode of HOUSE_MODES, default rotate, or House keys by seat separated by commas) and --rotate
    (True: the first seat moves on each round, RULINGS I16; default False)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of Crownfall (its options: {', '.join(OPTIONS)})")
    try:
        make_bot(bot, 0)
    except ValueError as exc:
        raise ValueError(f"--bot {bot!r}: {exc}") from None
    rules = default_rules()
    players = options.get("--players", 2)
    houses = parse_houses(options.get("--houses", "rotate"), players, rules)
    rotate = bool(options.get("--rotate", False))
    units = tuple((seed + i, bot, players, houses_of_game(i, seed + i, players, houses, rules), rotate)
                  for i in range(games))
    settings = {"bot": bot, "players": players, "houses": houses if isinstance(houses, str) else ",".join(houses),
                "turn_order": "rotating" if rotate else "fixed", "seed": seed}

    def write(report: dict, folder) -> list[Path]:
        return stats.write_report_files(report, folder, write_csv)

    def plot(report: dict, folder) -> list[Path]:
        path = Path(folder) / PLOT_NAME.format(players=players)
        plot_report(report, path)
        return [path]

    return BalancePlan(play=play_summary, units=units, report=lambda summaries: balance_report(summaries, settings),
                       format=format_report, write=write, plot=plot)

