"""Balance from self-play (``ftc balance``): seeded games of one bot against itself over varied
Supplies, each reduced to a compact per-game summary while it is played, and statistics on those
summaries with 95% intervals.

Two halves:

- **play and gather**: :func:`play_summary` plays one game (a unit of engine/execution.py: a
  module-level function of picklable arguments) and returns its :data:`summary <play_summary>`,
  gathered from the actions as they are applied (``state.action_fields``) and from the armies
  before and after each action: buys with the buyer's turn, plays per effect, units trained,
  deployed and lost, the armies at fixed turns, the result and the length;
- **statistics**: pure functions of a list of summaries (tests feed them hand-made ones):
  :func:`first_player`, :func:`card_effects`, :func:`unit_effects`, :func:`fit_prices`,
  :func:`game_length`, gathered by :func:`balance_report` into one JSON-able dict, which
  :func:`format_report`, :func:`write_csv`, :func:`write_json` and :func:`plot_report` show.

Scores are a player's result: 1 a win, 0.5 a draw, 0 a loss. Intervals are 95%: Wilson for a score
(``MatchResult.interval``), Newcombe's hybrid score interval (two Wilson intervals) for a difference
of scores, the normal approximation for means and differences of means. The two players of a game
are counted as independent observations; they are not (their scores sum to 1), so the intervals of
"bought vs not bought" are somewhat too narrow when both players often differ in a buy.

**Point-Buy prices from play** (:func:`fit_prices`): the army of each player (units on the board and
in the Barracks, by type) is recorded when ``turn`` game turns have been completed (default
:data:`PRICE_TURN`); a logistic model of Blue's result on the difference Blue - Yellow of the unit
counts by type (and an intercept: the first player's advantage) is fitted on the games that lasted
that long. Its coefficients (log-odds of winning per extra unit) are scaled so that their mean over
the orthodox types in the fit (Queen, Rook, Bishop, Knight, Pawn; the King is left out of the
scale: it is every game's Sovereign, and a second one is rare) equals the mean of their printed prices. A price's interval is
its coefficient's Wald interval times that scale (given the scale); a seeded bootstrap over games,
refitting the scale in every resample, gives a second, wider one (``price_bootstrap``: wide indeed
when the orthodox coefficients' mean is near 0, as the scale divides by it). An army at a fixed turn is
partly a consequence of how the game went, not only its cause: read the prices as "what a unit in
the army at turn 20 was worth in these games", not as a rule.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine.catalog import default_catalog
from engine.crown.cards import default_cards
from engine.crown.config import GameConfig, supply_option
from engine.crown.players import make_bot
from engine.crown.state import GameState
from engine.execution import Cluster, run_units
from engine.games.registry import BalancePlan
from engine.search import stats
from engine.search.stats import (
    Z95,
    difference_interval,
    mean_difference_interval,
    mean_interval,
    score_interval,
    write_json,
    write_report_files,
)
from engine.search.stats import (
    interval as _interval,
)

__all__ = [
    "play_summary", "play_game_summary", "run_balance", "score_interval", "difference_interval", "mean_interval",
    "mean_difference_interval", "first_player", "card_effects", "unit_effects", "fit_logistic", "fit_prices",
    "game_length", "balance_report", "format_report", "write_csv", "write_json", "write_report_files",
    "plot_report", "plan",
    "ARMY_TURNS", "PRICE_TURN", "ORTHODOX", "Z95",
]

#: Game turns (both players' turns counted) after which each player's army is recorded.
ARMY_TURNS = (6, 10, 16, 20, 30)
#: The army the price fit uses by default: after 20 game turns (10 of each player; at 10 turns the
#: armies are still too small and alike to tell most types apart).
PRICE_TURN = 20
#: Orthodox chess types whose printed prices set the scale of the fitted prices (the King, every
#: game's Sovereign, is left out: a second King is rare, and priced like any other type).
ORTHODOX = ("Q", "R", "B", "N", "P")
#: A unit type enters the price fit when the armies differ in it in at least this many games.
MIN_GAMES_FOR_PRICE = 10
#: A card's buy or Supply effect is computed when each side of the comparison has this many.
MIN_GROUP = 5


# -- play and gather --------------------------------------------------------------------------------
def _army(state: GameState, player: int) -> Counter:
    """Units of ``player`` on the board and in the Barracks, by token."""
    units = state.units.units
    board = state.board
    army = Counter(units[board.unit_on(sq)[0]].token for sq in board.squares_of(player))
    for t, n in enumerate(board.barracks_counts(player)):
        if n:
            army[units[t].token] += n
    return army


def play_summary(seed: int, bot: str, variant: str = "standard", supply: str | tuple = "random") -> dict:
    """The summary of one seeded game of ``bot`` against itself (:func:`play_game_summary`): the
    unit of work of :func:`run_balance`."""
    return play_game_summary(seed, bot, variant, supply)[0]


def play_game_summary(seed: int, bot: str, variant: str = "standard",
                      supply: str | tuple = "random") -> tuple[dict, GameState]:
    """Play one seeded game of ``bot`` against itself and return its summary (JSON-able):

    ``seed``, ``supply`` (the variable piles), ``result`` (Blue's score), ``reason``, ``length``
    (game turns completed), and per player (``players[0]`` Blue, ``[1]`` Yellow): ``buys`` ([card,
    own turn number] in order), ``plays`` ({card: [plays of effect 0, of effect 1]}), ``owned``
    (cards the player had at some time: start, end, bought or played), ``trained`` / ``deployed`` /
    ``lost`` ({unit token: count}); ``armies`` {turn: [Blue's army, Yellow's army]} at ARMY_TURNS.

    Trained and lost come from the change of a player's army (board + Barracks) across each action:
    a unit gained is trained, a unit gone is lost (captured, or removed by a card); a promotion is
    neither. The two bots differ only in their seeds (2 * seed and 2 * seed + 1). Returns the
    summary and the finished game."""
    state = GameState(GameConfig(variant=variant, seed=seed, supply=supply))
    bots = (make_bot(bot, 2 * seed), make_bot(bot, 2 * seed + 1))
    for b in bots:
        b.reset()
    players = [{"buys": [], "plays": {}, "trained": Counter(), "deployed": Counter(), "lost": Counter()}
               for _ in range(2)]
    owned = [set(), set()]
    for p in (0, 1):
        owned[p].update(state.card_name(c) for c in state.zones[p].all_cards())
    armies = [_army(state, 0), _army(state, 1)]
    key = state.board.key
    recorded: dict[str, list[dict]] = {}
    while not state.is_terminal():
        player = state.current_player()
        action = bots[player].choose(state)
        item = state.action_fields(action)
        kind = item["type"]
        mine = players[player]
        if kind == "buy":
            mine["buys"].append([item["card"], state.turns_taken[player] + 1])
        elif kind == "play":
            counts = mine["plays"].setdefault(item["card"], [0, 0])
            counts[item["effect"]] += 1
        elif kind == "order" and item["order_kind"] == "deploy":
            mine["deployed"][item["unit"]] += 1
        state.apply(action)
        if state.board.key != key:
            key = state.board.key
            after = [_army(state, 0), _army(state, 1)]
            for p in (0, 1):
                delta = Counter(after[p])
                delta.subtract(armies[p])
                if p == player and kind == "order" and item["promotion"] is not None:
                    delta[item["unit"]] += 1           # the promoted unit is neither lost ...
                    delta[item["promotion"]] -= 1      # ... nor trained
                for token, n in delta.items():
                    if n > 0:
                        players[p]["trained"][token] += n
                    elif n < 0:
                        players[p]["lost"][token] -= n
            armies = after
        for turn in ARMY_TURNS:
            if state.turn >= turn and str(turn) not in recorded and not state.is_terminal():
                recorded[str(turn)] = [dict(sorted(armies[0].items())), dict(sorted(armies[1].items()))]
    returns = state.returns()
    for p in (0, 1):
        owned[p].update(state.card_name(c) for c in state.zones[p].all_cards())
        owned[p].update(card for card, _ in players[p]["buys"])
        owned[p].update(players[p]["plays"])
    return {
        "seed": seed,
        "supply": sorted(state.supply_names),
        "result": 1.0 if returns[0] > returns[1] else 0.0 if returns[0] < returns[1] else 0.5,
        "reason": state.over_reason,
        "length": state.turn,
        "players": [{"buys": players[p]["buys"], "plays": dict(sorted(players[p]["plays"].items())),
                     "owned": sorted(owned[p]),
                     **{what: dict(sorted(players[p][what].items())) for what in ("trained", "deployed", "lost")}}
                    for p in (0, 1)],
        "armies": recorded,
    }, state


def run_balance(games: int, bot: str = "expert", variant: str = "standard", supply: str | tuple = "random",
                seed: int = 0, cluster: str | Cluster = "local", workers: int | None = None,
                progress: Callable[[int, int, int, dict], None] | None = None) -> list[dict]:
    """The summaries of ``games`` games with seeds ``seed``, ``seed + 1``, ... in seed order, whatever
    ran where (engine/execution.py ``run_units``)."""
    units = [(seed + i, bot, variant, supply) for i in range(games)]
    return run_units(play_summary, units, cluster, workers, progress)


# -- statistics on summaries ------------------------------------------------------------------------
def _score(summary: dict, player: int) -> float:
    return summary["result"] if player == 0 else 1.0 - summary["result"]


def first_player(summaries: Sequence[dict]) -> dict:
    """Blue's (the first player's) score with its Wilson interval, and the count of each result."""
    results = [s["result"] for s in summaries]
    row = score_interval(results)
    row.update(wins=results.count(1.0), draws=results.count(0.5), losses=results.count(0.0))
    return row


def game_length(summaries: Sequence[dict]) -> dict:
    """Game length in game turns: mean with its interval, median, quartiles, shortest, longest."""
    lengths = sorted(s["length"] for s in summaries)
    row = mean_interval(lengths)
    if lengths:
        q = statistics.quantiles(lengths, n=4) if len(lengths) > 1 else [lengths[0]] * 3
        row.update(median=statistics.median(lengths), q1=q[0], q3=q[2], min=lengths[0], max=lengths[-1])
    return row


def card_effects(summaries: Sequence[dict], cards=None) -> list[dict]:
    """One row per card seen (in a Supply, owned or played), sorted by name:

    - ``supply_score``: Blue's score in games with the card in the Supply minus without (variable
      piles; None when either group has fewer than MIN_GROUP games); ``supply_length``: the same for
      the game length; ``in_supply`` the number of games with it;
    - ``buy_score``: in games with the card in the Supply, the score of the players who bought it
      minus that of those who did not; ``bought`` / ``buy_rate``; ``first_buy_turn``: the buyer's own
      turn of its first buy (mean and interval);
    - ``plays``: [effect 0, effect 1] plays per game of a player who owned it (mean and interval),
      ``owners`` how many player-games those are.
    """
    cards = cards or default_cards()
    core = {c.name for c in cards.cards if c.role == "core"}
    names = set(core)
    for s in summaries:
        names.update(s["supply"])
        for p in s["players"]:
            names.update(p["owned"])
    rows = []
    for name in sorted(names):
        variable = name not in core
        with_it = [s for s in summaries if name in s["supply"]] if variable else list(summaries)
        without = [s for s in summaries if name not in s["supply"]] if variable else []
        row = {"card": name, "core": not variable, "in_supply": len(with_it)}
        if variable and len(with_it) >= MIN_GROUP and len(without) >= MIN_GROUP:
            row["supply_score"] = difference_interval([s["result"] for s in with_it], [s["result"] for s in without])
            row["supply_length"] = mean_difference_interval([s["length"] for s in with_it],
                                                            [s["length"] for s in without])
        else:
            row["supply_score"] = row["supply_length"] = None
        bought, not_bought, first_turns = [], [], []
        for s in with_it:
            for p, player in enumerate(s["players"]):
                turns = [turn for card, turn in player["buys"] if card == name]
                (bought if turns else not_bought).append(_score(s, p))
                if turns:
                    first_turns.append(turns[0])
        row["bought"] = len(bought)
        row["buy_rate"] = len(bought) / (2 * len(with_it)) if with_it else None
        row["buy_score"] = (difference_interval(bought, not_bought)
                            if len(bought) >= MIN_GROUP and len(not_bought) >= MIN_GROUP else None)
        row["first_buy_turn"] = mean_interval(first_turns) if first_turns else None
        plays = [p["plays"].get(name, [0, 0]) for s in summaries for p in s["players"] if name in p["owned"]]
        row["owners"] = len(plays)
        row["plays"] = [mean_interval([x[e] for x in plays]) if plays else None for e in (0, 1)]
        rows.append(row)
    return rows


def unit_effects(summaries: Sequence[dict]) -> list[dict]:
    """One row per unit token seen (trained, deployed, lost or in an army), sorted by token: the
    mean per player-game of units ``trained``, ``deployed`` and ``lost`` (with intervals), and the
    score of the players who trained (``score_trained``) or lost (``score_lost``) at least one minus
    that of those who did not."""
    tokens = set()
    for s in summaries:
        for p in s["players"]:
            for what in ("trained", "deployed", "lost"):
                tokens.update(p[what])
        for armies in s["armies"].values():
            for army in armies:
                tokens.update(army)
    rows = []
    for token in sorted(tokens):
        row = {"unit": token}
        scored = [(p, _score(s, i)) for s in summaries for i, p in enumerate(s["players"])]
        for what in ("trained", "deployed", "lost"):
            row[what] = mean_interval([p[what].get(token, 0) for p, _ in scored])
        for what in ("trained", "lost"):
            yes = [score for p, score in scored if p[what].get(token, 0) > 0]
            no = [score for p, score in scored if p[what].get(token, 0) == 0]
            row[f"score_{what}"] = difference_interval(yes, no) if len(yes) >= MIN_GROUP and len(no) >= MIN_GROUP else None
        rows.append(row)
    return rows


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, iterations: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Logistic regression of ``y`` (in [0, 1]: a draw is 0.5) on ``x`` (its first column the
    intercept) by Newton's method with a small ridge penalty (not on the intercept) that keeps
    separable data finite; returns the coefficients and their Wald standard errors."""
    n, k = x.shape
    beta = np.zeros(k)
    penalty = np.full(k, ridge)
    penalty[0] = 0.0
    hessian = np.eye(k)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (y - p) - penalty * beta
        hessian = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hessian + 1e-9 * np.eye(k), gradient)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
    hessian = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)
    errors = np.sqrt(np.maximum(np.diag(np.linalg.pinv(hessian)), 0.0))
    return beta, errors


def _scale(beta: np.ndarray, tokens: list[str], printed: dict[str, int]) -> float | None:
    orthodox = [i for i, t in enumerate(tokens) if t in ORTHODOX]
    if not orthodox:
        return None
    mean_beta = float(np.mean(beta[[i + 1 for i in orthodox]]))
    if mean_beta <= 0:
        return None
    return float(np.mean([printed[tokens[i]] for i in orthodox])) / mean_beta


def fit_prices(summaries: Sequence[dict], turn: int = PRICE_TURN, bootstrap: int = 200, seed: int = 0,
               printed: dict[str, int] | None = None) -> dict:
    """Point-Buy prices estimated from play (the module docstring says how). Returns ``turn``,
    ``games`` (those that lasted ``turn`` turns), ``intercept`` (log-odds of Blue's advantage, Wald
    interval), ``scale`` (points per log-odds unit; None when the orthodox coefficients' mean is not
    positive), and ``units``: per fitted token its ``coefficient`` (Wald interval), ``price`` (the
    scaled coefficient and Wald interval), ``price_bootstrap`` (the bootstrap percentile interval:
    the scale refitted too) and ``printed`` price; ``left_out``
    the tokens whose count differed in fewer than MIN_GAMES_FOR_PRICE games."""
    printed = printed or {u.token: u.price for u in default_catalog().units}
    key = str(turn)
    used = [s for s in summaries if key in s["armies"]]
    seen = sorted({t for s in used for army in s["armies"][key] for t in army})
    diffs = {t: [s["armies"][key][0].get(t, 0) - s["armies"][key][1].get(t, 0) for s in used] for t in seen}
    tokens = [t for t in seen if sum(1 for d in diffs[t] if d) >= MIN_GAMES_FOR_PRICE]
    report = {"turn": turn, "games": len(used), "tokens": tokens,
              "left_out": [t for t in seen if t not in tokens], "intercept": None, "scale": None, "units": []}
    if not used or not tokens:
        return report
    x = np.column_stack([np.ones(len(used))] + [np.array(diffs[t], dtype=float) for t in tokens])
    y = np.array([s["result"] for s in used], dtype=float)
    beta, errors = fit_logistic(x, y)
    scale = _scale(beta, tokens, printed)
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(bootstrap):
        rows = rng.integers(0, len(used), len(used))
        b, _ = fit_logistic(x[rows], y[rows])
        s = _scale(b, tokens, printed)
        if s is not None:
            samples.append(b[1:] * s)
    samples = np.array(samples) if samples else np.zeros((0, len(tokens)))
    report["intercept"] = _interval(float(beta[0]), float(beta[0] - Z95 * errors[0]), float(beta[0] + Z95 * errors[0]),
                                    len(used))
    report["scale"] = scale
    report["bootstrap"] = {"resamples": bootstrap, "scaled": len(samples)}
    for i, token in enumerate(tokens):
        b, e = float(beta[i + 1]), float(errors[i + 1])
        price = spread = None
        if scale is not None:
            price = _interval(b * scale, (b - Z95 * e) * scale, (b + Z95 * e) * scale, len(used))
            if len(samples) >= 20:
                spread = _interval(b * scale, float(np.percentile(samples[:, i], 2.5)),
                                   float(np.percentile(samples[:, i], 97.5)), len(samples))
        report["units"].append({"unit": token, "coefficient": _interval(b, b - Z95 * e, b + Z95 * e, len(used)),
                                "price": price, "price_bootstrap": spread, "printed": printed.get(token)})
    return report


def balance_report(summaries: Sequence[dict], settings: dict | None = None, price_turn: int = PRICE_TURN,
                   bootstrap: int = 200) -> dict:
    """Every statistic of the summaries as one JSON-able dict (the same summaries give the same dict)."""
    return {
        "settings": dict(settings or {}),
        "games": len(summaries),
        "first_player": first_player(summaries),
        "length": game_length(summaries),
        "reasons": dict(sorted(Counter((s["reason"] or "").split(" (")[0] for s in summaries).items())),
        "cards": card_effects(summaries),
        "units": unit_effects(summaries),
        "prices": fit_prices(summaries, price_turn, bootstrap),
    }


# -- output ------------------------------------------------------------------------------------------
def _pct(row: dict | None, scale: float = 100.0, signed: bool = True) -> str:
    if row is None or row["estimate"] is None:
        return "-"
    sign = "+" if signed else ""
    text = f"{scale * row['estimate']:{sign}.1f}"
    if row["low"] is not None:
        text += f" [{scale * row['low']:{sign}.1f}, {scale * row['high']:{sign}.1f}]"
    return text


def _num(row: dict | None, signed: bool = False, digits: int = 2) -> str:
    return _pct(row, 1.0, signed) if digits == 1 else (
        "-" if row is None or row["estimate"] is None else
        f"{row['estimate']:{'+' if signed else ''}.{digits}f}"
        + (f" [{row['low']:.{digits}f}, {row['high']:.{digits}f}]" if row["low"] is not None else ""))


def format_report(report: dict, top: int = 8) -> str:
    """The readable summary: first player, length, the cards that help and hurt most when bought,
    Supply effects, units, and the estimated prices against the printed ones."""
    fp, length = report["first_player"], report["length"]
    lines = [
        f"{report['games']} games ({', '.join(f'{k} {v}' for k, v in report['settings'].items())})",
        f"first player (Blue) score: {_pct(fp, signed=False)}%  (W {fp['wins']} D {fp['draws']} L {fp['losses']}; 95% Wilson)",
        f"game length: mean {_num(length, digits=1)} turns, median {length.get('median', '-')}, "
        f"quartiles {length.get('q1', '-')}-{length.get('q3', '-')}, range {length.get('min', '-')}-{length.get('max', '-')}",
        "ends: " + ", ".join(f"{k or 'unfinished'} {v}" for k, v in report["reasons"].items()),
    ]
    bought = sorted((r for r in report["cards"] if r["buy_score"]), key=lambda r: -r["buy_score"]["estimate"])
    if bought:
        lines.append("")
        lines.append(f"cards by buy effect (score of buyers - non-buyers, points of %, 95% CI; {len(bought)} cards):")
        shown = bought if len(bought) <= 2 * top else bought[:top] + [None] + bought[-top:]
        for r in shown:
            if r is None:
                lines.append("  ...")
                continue
            first = r["first_buy_turn"]["estimate"] if r["first_buy_turn"] else None
            plays = "/".join("-" if p is None else f"{p['estimate']:.1f}" for p in r["plays"])
            lines.append(f"  {r['card']:17} {_pct(r['buy_score']):24} bought {100 * r['buy_rate']:5.1f}%  "
                         f"first buy turn {first if first is None else f'{first:4.1f}'}  plays/game {plays}")
    supply = sorted((r for r in report["cards"] if r["supply_score"]), key=lambda r: -r["supply_score"]["estimate"])
    if supply:
        lines.append("")
        lines.append("cards in the Supply (Blue's score with - without, points of %; length with - without, turns):")
        for r in supply[:top] + ([None] + supply[-top:] if len(supply) > 2 * top else supply[top:]):
            if r is None:
                lines.append("  ...")
                continue
            lines.append(f"  {r['card']:17} {_pct(r['supply_score']):24} length {_num(r['supply_length'], True, 1)}")
    if report["units"]:
        lines.append("")
        lines.append("units per player-game: trained, deployed, lost; score if trained >= 1 minus none (points of %):")
        for r in report["units"]:
            lines.append(f"  {r['unit']:3} trained {r['trained']['estimate']:5.2f}  deployed {r['deployed']['estimate']:5.2f}  "
                         f"lost {r['lost']['estimate']:5.2f}  score if trained {_pct(r['score_trained'])}")
    prices = report["prices"]
    lines.append("")
    if prices["units"]:
        lines.append(f"Point-Buy prices from play (army after {prices['turn']} turns, {prices['games']} games; "
                     f"logistic fit scaled to the printed {'/'.join(ORTHODOX)}; 95% CI: Wald given the scale, and bootstrap):")
        lines.append(f"  intercept (Blue, log-odds) {_num(prices['intercept'], True)}")
        for u in prices["units"]:
            boot = u["price_bootstrap"]
            boot = "-" if boot is None else f"[{boot['low']:.1f}, {boot['high']:.1f}]"
            lines.append(f"  {u['unit']:3} printed {u['printed']!s:>3}  estimated {_num(u['price'], digits=1):22} "
                         f"bootstrap {boot:16} coefficient {_num(u['coefficient'], True)}")
        if prices["scale"] is None:
            lines.append("  (no scale: the orthodox coefficients' mean is not positive; coefficients only)")
        if prices["left_out"]:
            lines.append(f"  too rare to price: {' '.join(prices['left_out'])}")
    else:
        lines.append(f"Point-Buy prices from play: not enough games lasted {prices['turn']} turns")
    return "\n".join(lines)


def _csv_rows(report: dict):
    def rows(section, name, metric, value):
        if value is None:
            return [[section, name, metric, "", "", "", ""]]
        if isinstance(value, dict):
            n = value["n"]
            n = "/".join(map(str, n)) if isinstance(n, list) else n
            return [[section, name, metric, value["estimate"], value["low"], value["high"], n]]
        return [[section, name, metric, value, "", "", ""]]

    out = rows("game", "Blue", "score", report["first_player"])
    out += rows("game", "all", "length", report["length"])
    for key in ("median", "q1", "q3", "min", "max"):
        if key in report["length"]:
            out += rows("game", "all", f"length_{key}", report["length"][key])
    for reason, n in report["reasons"].items():
        out += rows("game", reason or "unfinished", "games", n)
    for r in report["cards"]:
        for metric in ("in_supply", "supply_score", "supply_length", "bought", "buy_rate", "buy_score",
                       "first_buy_turn", "owners"):
            out += rows("card", r["card"], metric, r[metric])
        for e in (0, 1):
            out += rows("card", r["card"], f"plays_effect{e}", r["plays"][e])
    for r in report["units"]:
        for metric in ("trained", "deployed", "lost", "score_trained", "score_lost"):
            out += rows("unit", r["unit"], metric, r[metric])
    prices = report["prices"]
    out += rows("price", "intercept", f"logodds_turn{prices['turn']}", prices["intercept"])
    out += rows("price", "scale", "points_per_logodds", prices["scale"])
    for u in prices["units"]:
        out += rows("price", u["unit"], "coefficient", u["coefficient"])
        out += rows("price", u["unit"], "estimated", u["price"])
        out += rows("price", u["unit"], "estimated_bootstrap", u["price_bootstrap"])
        out += rows("price", u["unit"], "printed", u["printed"])
    return out


def write_csv(report: dict, path: str | Path, rows=None) -> None:
    """Every number of the report as rows: section, name, metric, estimate, low, high, n
    (engine.search.stats.write_csv with For the Crown's rows, or ``rows``)."""
    stats.write_csv(report, path, rows if rows is not None else _csv_rows(report))


def plot_report(report: dict, cards_png: str | Path, units_png: str | Path) -> None:
    """A forest plot of the cards' effects (buy effect and Supply effect, each sorted, with 95%
    intervals) and a bar chart of the estimated unit prices against the printed ones. Needs
    matplotlib (RuntimeError otherwise)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the installation
        raise RuntimeError("plots need matplotlib: pip install -e '.[plot]'") from None
    panels = [("buy_score", "bought vs not bought: score difference (points of %)"),
              ("supply_score", "in the Supply vs not: Blue's score difference (points of %)")]
    height = max(4.0, 0.22 * max(1, max(sum(1 for r in report["cards"] if r[k]) for k, _ in panels)) + 1.5)
    fig, axes = plt.subplots(1, 2, figsize=(13, height))
    for ax, (key, title) in zip(axes, panels):
        rows = sorted((r for r in report["cards"] if r[key] and r[key]["low"] is not None),
                      key=lambda r: r[key]["estimate"])
        ys = list(range(len(rows)))
        est = [100 * r[key]["estimate"] for r in rows]
        err = [[100 * (r[key]["estimate"] - r[key]["low"]) for r in rows],
               [100 * (r[key]["high"] - r[key]["estimate"]) for r in rows]]
        ax.errorbar(est, ys, xerr=err, fmt="o", markersize=3, capsize=2, color="tab:blue", ecolor="tab:gray")
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(ys)
        ax.set_yticklabels([r["card"] for r in rows], fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylim(-1, max(1, len(rows)))
    fig.suptitle(f"Card effects, {report['games']} self-play games ({report['settings'].get('bot', '')}), 95% intervals",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(cards_png, dpi=110)
    plt.close(fig)

    prices = report["prices"]
    units = [u for u in prices["units"] if u["price"] is not None]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(units) + 2), 4.5))
    xs = np.arange(len(units))
    if units:
        est = [u["price"]["estimate"] for u in units]
        lows = [u["price"]["low"] if u["price"]["low"] is not None else u["price"]["estimate"] for u in units]
        highs = [u["price"]["high"] if u["price"]["high"] is not None else u["price"]["estimate"] for u in units]
        ax.bar(xs - 0.2, est, 0.4, yerr=[[e - lo for e, lo in zip(est, lows)], [h - e for e, h in zip(est, highs)]],
               capsize=2, label="estimated from play (95% Wald, given the scale)", color="tab:blue")
        printed = [u["printed"] or 0 for u in units]
        ax.bar(xs + 0.2, printed, 0.4, label="printed (units.toml)", color="tab:orange")
        limit = 3 * max(printed + [1])                    # an interval beyond the frame is cut by it
        ax.set_ylim(max(min(lows + [0]) - 1, -limit), min(max(highs + printed) + 1, limit))
        ax.set_xticks(xs)
        ax.set_xticklabels([u["unit"] for u in units])
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no unit could be priced", ha="center", transform=ax.transAxes)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("points")
    ax.set_title(f"Unit values from play (army after {prices['turn']} turns, {prices['games']} games) vs printed prices",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(units_png, dpi=110)
    plt.close(fig)


# -- the plan of `ftc balance` (For the Crown) ------------------------------------------------------
#: The game options `ftc balance` takes for For the Crown, by flag.
OPTIONS = ("--supply", "--price-turn", "--bootstrap")


def plan(games: int, bot: str, seed: int, variant: str, options: dict) -> BalancePlan:
    """`ftc balance` of For the Crown (its registry entry's ``balance``): ``options`` by flag:
    --supply ("random", the default; "first-game"; card names separated by commas, checked against
    the card catalog and the variant), --price-turn (one of ARMY_TURNS, default PRICE_TURN),
    --bootstrap (resamples of the price fit, default 200)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of For the Crown (its options: {', '.join(OPTIONS)})")
    text = options.get("--supply", "random")
    supply = supply_option(text, variant, seed)
    try:
        make_bot(bot)
    except ValueError as exc:
        raise ValueError(f"--bot {bot!r}: {exc}") from None
    price_turn = options.get("--price-turn", PRICE_TURN)
    if price_turn not in ARMY_TURNS:
        raise ValueError(f"--price-turn {price_turn!r}: expected one of {', '.join(map(str, ARMY_TURNS))}")
    bootstrap = options.get("--bootstrap", 200)
    settings = {"bot": bot, "variant": variant, "supply": text, "seed": seed}

    def write(report: dict, folder) -> list[Path]:
        return write_report_files(report, folder, write_csv)

    def plot(report: dict, folder) -> list[Path]:
        paths = [Path(folder) / "balance_cards.png", Path(folder) / "balance_units.png"]
        plot_report(report, *paths)
        return paths

    return BalancePlan(play=play_summary, units=tuple((seed + i, bot, variant, supply) for i in range(games)),
                       report=lambda summaries: balance_report(summaries, settings, price_turn, bootstrap),
                       format=format_report, write=write, plot=plot)
