#!/usr/bin/env python3
"""Behaviour digests of the four games: one SHA-256 per seeded workload, so that a refactoring can show
it changed nothing (the same digests before and after; issue 24, as issue 11 did).

    python tools/game_digests.py                   # every workload, one "name digest" line each
    python tools/game_digests.py crown-random ...  # only these
    python tools/game_digests.py --list            # the workloads' names

Each workload plays seeded games, searches or protocol sessions and digests what a user or a client
could observe of them: every action taken with its text and fields, the options offered (with their
texts) at sampled decisions, chance outcomes, returns, observations of both players, the records
and what replaying them gives, fingerprints, perft counts, the chosen actions and visit counts of
seeded ISMCTS searches, and every response line of scripted `ftc engine` sessions (the time fields,
``seconds`` and ``nps``, left out: they are the only thing not fixed by the seeds).

tests/data/game_digests.txt holds the digests of the tree before the registry (issue 24);
tests/test_game_digests.py recomputes the cheap workloads (``CHEAP``) and compares.
The workloads use only the games' public APIs that existed before issue 24.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import NAMED_POSITIONS  # noqa: E402
from engine.crown.config import GameConfig  # noqa: E402
from engine.crown.players import GreedyBot  # noqa: E402
from engine.crown.record import fingerprint, make_record  # noqa: E402
from engine.crown.state import GameState  # noqa: E402
from engine.crown.state import replay as crown_replay  # noqa: E402
from engine.games import registry  # noqa: E402
from engine.interfaces.protocol import Session  # noqa: E402
from engine.perft import divide as perft_divide  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.ransom import position as ransom_position  # noqa: E402
from engine.ransom.players import RansomGreedyBot, RansomISMCTSBot  # noqa: E402
from engine.ransom.rules import default_rules as ransom_rules  # noqa: E402
from engine.ransom.state import RansomState  # noqa: E402
from engine.ransom.state import replay as ransom_replay  # noqa: E402
from engine.search.ismcts import ISMCTS  # noqa: E402

#: Workloads the test recomputes (a few seconds together); the rest are run by this tool.
CHEAP = ("crown-random", "ransom-random", "crown-records", "ransom-records", "crown-protocol",
         "ransom-protocol", "perft", "crusade-random", "crownfall-random", "newer-records", "newer-perft", "views",
         "newer-protocol")


#: The games the digests are about. The protocol's messages name the registered games ("known: ..."),
#: so the protocol sessions run with only these two registered: a game added to the engine later
#: changes no digest, and a change to these two games' behaviour still does.
MEASURED = ("crown", "kings-ransom")


@contextlib.contextmanager
def measured_games():
    """Only the MEASURED games registered while inside; the others come back on leaving."""
    others = [game for game in registry.games() if game.name not in MEASURED]
    for game in others:
        registry.unregister(game.name)
    try:
        yield
    finally:
        for game in others:
            registry.register(game)


def digest(items) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# -- games played with a policy ------------------------------------------------------------------------
def _trace(g, choose, rng: random.Random, sample_every: int, resample: bool) -> list:
    """Play ``g`` to its end with ``choose(g)``; every step's player, action, text and fields; every
    ``sample_every``-th decision's options with their texts, and (``resample``) the observation a
    determinization gives the player to decide."""
    out = []
    n = 0
    while not g.is_terminal():
        player = g.current_player()
        if player < 0:             # explicit chance (not with the default auto_chance)
            out.append(["chance", g.chance_outcomes()])
        action = choose(g)
        step = [player, action, g.action_text(action), g.action_fields(action)]
        if n % sample_every == 0:
            step.append(sorted(g.legal_action_texts().items()))
            if resample and player >= 0:
                d = g.resample_hidden(player, random.Random(rng.getrandbits(32)))
                step.append(d.observation(player))
        g.apply(action)
        out.append(step)
        n += 1
    out.append(["end", g.returns(), g.observation(0), g.observation(1)])
    return out


def crown_random(seeds=range(6)) -> list:
    items = []
    for seed in seeds:
        for variant in ("standard", "point-buy", "last-stand"):
            g = GameState(GameConfig(seed=seed, variant=variant))
            rng = random.Random(seed)
            items.append(_trace(g, lambda s: rng.choice(s.legal_actions()), rng, 7, True) + [fingerprint(g)])
    return items


def ransom_random(seeds=range(12)) -> list:
    items = []
    for seed in seeds:
        g = RansomState(seed)
        rng = random.Random(seed)
        items.append(_trace(g, lambda s: rng.choice(s.legal_actions()), rng, 3, True) + [g.fingerprint()])
    return items


def crown_greedy(seeds=range(3)) -> list:
    items = []
    for seed in seeds:
        g = GameState(GameConfig(seed=seed))
        bots = [GreedyBot(seed), GreedyBot(seed + 100)]
        items.append(_trace(g, lambda s: bots[s.current_player()].choose(s), random.Random(seed), 11, False)
                     + [fingerprint(g)])
    return items


def ransom_greedy(seeds=range(8)) -> list:
    items = []
    for seed in seeds:
        g = RansomState(seed)
        bots = [RansomGreedyBot(seed), RansomGreedyBot(seed + 100)]
        items.append(_trace(g, lambda s: bots[s.current_player()].choose(s), random.Random(seed), 5, False)
                     + [g.fingerprint()])
    return items


# -- records ----------------------------------------------------------------------------------------
def crown_records(seeds=range(4)) -> list:
    items = []
    for seed in seeds:
        g = GameState(GameConfig(seed=seed, variant=("standard", "point-buy")[seed % 2]))
        rng = random.Random(seed)
        for i in range(400):
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_actions()))
            if i == 200:
                mid = make_record(g)
                items.append(mid)
                items.append(fingerprint(crown_replay(mid)))
        record = make_record(g)
        again = crown_replay(json.loads(json.dumps(record)))
        items += [record, fingerprint(again), again.rng.random()]
        explicit = GameState(GameConfig(seed=seed), auto_chance=False)
        chances = []
        for _ in range(60):
            if explicit.is_chance_node():
                outcomes = explicit.chance_outcomes()
                chances.append(outcomes)
                explicit.apply(outcomes[rng.randrange(len(outcomes))][0])
            else:
                explicit.apply(rng.choice(explicit.legal_actions()))
        items += [chances, make_record(explicit)]
    return items


def ransom_records(seeds=range(6)) -> list:
    items = []
    for seed in seeds:
        g = RansomState(seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_actions()))
            if len(g.history) == 40:
                mid = g.record()
                items += [mid, ransom_replay(mid).fingerprint()]
        record = g.record()
        again = ransom_replay(json.loads(json.dumps(record)))
        items += [record, again.fingerprint(), again.rng.random()]
        explicit = RansomState(seed, auto_chance=False)
        chances = []
        for _ in range(40):
            if explicit.is_terminal():
                break
            if explicit.is_chance_node():
                outcomes = explicit.chance_outcomes()
                chances.append(outcomes)
                explicit.apply(outcomes[rng.randrange(len(outcomes))][0])
            else:
                explicit.apply(rng.choice(explicit.legal_actions()))
        resigned = RansomState(seed)
        resigned.resign(1)
        items += [chances, explicit.record(), resigned.record(), ransom_replay(resigned.record()).fingerprint()]
    return items


# -- searches ---------------------------------------------------------------------------------------
def _stats(stats) -> list:
    return [stats.player, stats.best, stats.best_text, sorted(stats.visits.items()),
            sorted((a, round(v, 9)) for a, v in stats.values.items()), stats.iterations, stats.source]


def crown_ismcts(seeds=range(2)) -> list:
    items = []
    for seed in seeds:
        g = GameState(GameConfig(seed=seed))
        rng = random.Random(seed)
        searcher = ISMCTS(iterations=60, seed=seed)
        plain = ISMCTS(iterations=60, seed=seed, prior=None, planner=None)
        for step in range(120):
            if g.is_terminal():
                break
            if step % 15 == 0:
                items.append(_stats(searcher.search(g)))
                items.append(_stats(plain.search(g)))
            g.apply(rng.choice(g.legal_actions()))
        plan = ISMCTS(iterations=40, seed=seed).plan_turn(GameState(GameConfig(seed=seed + 10)))
        items.append([plan.player, plan.actions, plan.texts, round(plan.value, 9)])
        pool = ISMCTS(iterations=40, seed=seed, processes=2, prior=None, planner=None)
        try:                                     # root parallelism: the workers replay the record
            items.append(_stats(pool.search(g)))
        finally:
            pool.close()
    return items


def ransom_ismcts(seeds=range(3)) -> list:
    items = []
    for seed in seeds:
        g = RansomState(seed)
        bots = [RansomISMCTSBot(iterations=80, seed=seed), RansomISMCTSBot(iterations=80, seed=seed + 1)]
        while not g.is_terminal() and len(g.history) < 90:
            stats = bots[g.current_player()].search(g)
            items.append(_stats(stats))
            g.apply(stats.best)
        items.append(g.fingerprint())
    return items


# -- perft --------------------------------------------------------------------------------------------
def perft() -> list:
    rules = ransom_rules()
    start = ransom_position.RansomPosition.parse(rules.startpos, rules)
    board = [Position.from_text(NAMED_POSITIONS[name]) for name in ("startpos", "crown")]
    return [[p.perft(3) for p in board], [sorted(perft_divide(p, 2).items()) for p in board], board[1].perft(2, True),
            ransom_position.perft(start, 2), sorted(ransom_position.divide(start, 1).items())]


# -- protocol sessions -------------------------------------------------------------------------------
def _session(lines: list) -> list:
    session = Session()
    out = []
    for line in lines:
        response = json.loads(session.handle(line if isinstance(line, str) else json.dumps(line)))
        out.append(_timeless(response))
    return out


#: Response fields that measure time (all else in a response is fixed by the seeds).
TIMED = ("seconds", "nps")


def _timeless(value):
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in TIMED}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _random_walk(session, rng: random.Random, steps: int) -> list:
    """Up to ``steps`` random legal actions through the protocol, each named by its text or its id at
    random; every answer (the actions listed, then the apply's) in order."""
    out = []
    for _ in range(steps):
        actions = json.loads(session.handle(json.dumps({"cmd": "actions"})))
        out.append(actions)
        legal = actions.get("actions") or []
        if not legal:
            break
        pick = legal[rng.randrange(len(legal))]
        request = {"cmd": "apply", "action": pick["text"] if rng.random() < 0.5 else pick["action"]}
        out.append(_timeless(json.loads(session.handle(json.dumps(request)))))
    return out


def crown_protocol() -> list:
    session = Session()
    lines = [{"cmd": "hello"}, {"cmd": "new", "config": {"seed": 5}}, {"cmd": "state", "player": 0},
             {"cmd": "actions"}]
    out = [_timeless(json.loads(session.handle(json.dumps(x)))) for x in lines]
    out += _random_walk(session, random.Random(5), 30)
    more = [{"cmd": "search", "iterations": 30, "seed": 1, "top": 3}, {"cmd": "state", "player": 1},
            {"cmd": "record"}, {"cmd": "record", "full": True}, {"cmd": "apply", "action": "nonsense"},
            {"cmd": "perft", "depth": 1}, {"cmd": "new", "config": {"variant": "nonsense"}},
            {"cmd": "new", "config": {"seed": 2, "variant": "point-buy"}}, {"cmd": "actions"}]
    out += [_timeless(json.loads(session.handle(json.dumps(x)))) for x in more]
    record = json.loads(session.handle(json.dumps({"cmd": "record", "full": True})))["record"]
    out += _session([{"cmd": "load", "record": record}, {"cmd": "state", "player": 0},
                     {"cmd": "position", "text": "startpos"}, {"cmd": "actions"}, {"cmd": "apply", "action": "e2e4"},
                     {"cmd": "search", "depth": 2}, {"cmd": "perft", "depth": 2, "divide": True},
                     {"cmd": "analyze", "depth": 1}, "not json", {"cmd": "quit"}])
    return out


def ransom_protocol() -> list:
    session = Session()
    lines = [{"cmd": "new", "config": {"variant": "kings-ransom", "seed": 3}}, {"cmd": "state", "player": 0},
             {"cmd": "state", "player": 1}]
    out = [_timeless(json.loads(session.handle(json.dumps(x)))) for x in lines]
    out += _random_walk(session, random.Random(3), 25)
    more = [{"cmd": "search", "iterations": 40, "seed": 2, "top": 3}, {"cmd": "analyze"},
            {"cmd": "search", "processes": 2}, {"cmd": "record", "full": True},
            {"cmd": "new", "config": {"variant": "kings-ransom", "seed": 4, "chance": "explicit"}},
            {"cmd": "actions"}, {"cmd": "apply", "action": 0}, {"cmd": "state", "player": 0},
            {"cmd": "new", "config": {"variant": "kings-ransom", "supply": []}},
            {"cmd": "position", "text": "startpos", "variant": "kings-ransom"},
            {"cmd": "perft", "variant": "kings-ransom", "depth": 2},
            {"cmd": "perft", "variant": "kings-ransom", "depth": 1, "divide": True},
            {"cmd": "perft", "variant": "standard", "depth": 1}]
    out += [_timeless(json.loads(session.handle(json.dumps(x)))) for x in more]
    record = RansomState(9)
    rng = random.Random(9)
    while not record.is_terminal():
        record.apply(rng.choice(record.legal_actions()))
    out += _session([{"cmd": "load", "record": record.record()}, {"cmd": "state", "player": 1},
                     {"cmd": "record"}, {"cmd": "load", "record": {"format": "ftc-ransom-record", "seed": "x"}}])
    return out


# -- the two newer games and the board search (issue 41: every game, through the registry) --------------
def _registry_game(name: str, seed: int, **config):
    game = registry.get(name)
    return game, game.new_state(game.config({"seed": seed, **config}))


def _policy_games(name: str, bot_names: tuple, seeds, sample_every: int, resample: bool, **config) -> list:
    """Seeded games of registry game ``name`` played by its own bots (one spec per seat, seeded per
    seat), traced as ``_trace`` does, with each end state's record."""
    items = []
    for seed in seeds:
        game, g = _registry_game(name, seed, **config)
        bots = [game.bots.make_bot(bot_names[p % len(bot_names)], seed + 100 * p) for p in range(g.num_players)]
        rng = random.Random(seed)
        items.append(_trace(g, lambda s: bots[s.current_player()].choose(s), rng, sample_every, resample)
                     + [g.record()])
    return items


def crusade_random() -> list:
    return _policy_games("crusade", ("random",), range(6), 5, True)


def crusade_greedy() -> list:
    return _policy_games("crusade", ("greedy",), range(3), 9, False)


def crusade_alphabeta() -> list:
    """Seeded Crusade & Conquer games between the kernel's alpha-beta at fixed depths (no clock)."""
    items = []
    for seed in range(2):
        game, g = _registry_game("crusade", seed)
        bots = [game.bots.make_bot("alphabeta:2", seed), game.bots.make_bot("greedy", seed + 1)]
        for _ in range(40):
            if g.is_terminal():
                break
            action = bots[g.current_player()].choose(g)
            items.append([g.current_player(), action, g.action_text(action)])
            g.apply(action)
        items.append(g.record())
    return items


def crown_alphabeta() -> list:
    """For the Crown's board search through the registry: the alpha-beta bot at a fixed depth."""
    items = []
    for seed in range(2):
        game, g = _registry_game("crown", seed, variant="point-buy")
        bots = [game.bots.make_bot("alphabeta", seed), game.bots.make_bot("greedy", seed + 1)]
        for _ in range(150):
            if g.is_terminal():
                break
            action = bots[g.current_player()].choose(g)
            items.append([g.current_player(), action, g.action_text(action)])
            g.apply(action)
        items.append(fingerprint(g))
    return items


def crownfall_random() -> list:
    items = []
    for players in (2, 3, 4):
        items += _policy_games("crownfall", ("random",), range(2), 7, True, players=players)
    return items


def crownfall_greedy() -> list:
    items = []
    for players in (2, 4):
        items += _policy_games("crownfall", ("greedy", "expert"), range(2), 13, False, players=players)
    return items


def crownfall_ismcts() -> list:
    return _policy_games("crownfall", ("ismcts:40", "greedy"), range(1), 5, False, players=3)


def newer_records() -> list:
    """Records of the newer games replayed through the registry (mid-game and at the end)."""
    items = []
    for name, config in (("crusade", {}), ("crownfall", {"players": 3})):
        for seed in range(3):
            game, g = _registry_game(name, seed, **config)
            rng = random.Random(seed)
            n = 0
            while not g.is_terminal():
                g.apply(rng.choice(g.legal_actions()))
                n += 1
                if n == 30:
                    mid = g.record()
                    items += [mid, game.replay(json.loads(json.dumps(mid))).observation(None)]
            record = g.record()
            again = game.replay(json.loads(json.dumps(record)))
            items += [record, again.observation(None), again.returns()]
    return items


def newer_perft() -> list:
    """Crusade & Conquer's perft and divide through the registry (the kernel's counts)."""
    game = registry.get("crusade")
    return [game.positions.perft("startpos", 3), sorted(game.positions.divide("startpos", 2).items())]


def _view_trace(name: str, seed: int, config: dict, decisions: int) -> list:
    """Every seat's and a spectator's view (engine.games.view.game_view) after each of ``decisions``
    seeded random actions of registry game ``name``, with the log entries step_for makes for each."""
    from engine.games.view import game_view, step_for
    game, g = _registry_game(name, seed, **config)
    rng = random.Random(seed)
    viewers = [*range(g.num_players), None]
    logs: dict = {v: [] for v in viewers}
    out = []
    for _ in range(decisions):
        if g.is_terminal():
            break
        player = g.current_player()
        action = rng.choice(g.legal_actions())
        for viewer, entry in zip(viewers, step_for(game, g, player, action, viewers)):
            logs[viewer].append(entry)
        for viewer in viewers:
            view = game_view(game, "g", len(logs[viewer]), g, viewer, False, logs[viewer][-8:], [])
            out.append({k: v for k, v in view.items() if k != "module"})
    return out


def views() -> list:
    """The web views every viewer gets of seeded games of all four games (the board module's file
    name left out: issue 41 moved For the Crown's board into its own module)."""
    return [_view_trace("crown", 1, {}, 40), _view_trace("kings-ransom", 2, {}, 40),
            _view_trace("crusade", 3, {}, 40), _view_trace("crownfall", 4, {"players": 3}, 40)]


def newer_protocol() -> list:
    """Protocol sessions of the two newer games: new, state, actions, random walk, search, record."""
    out = []
    for game, config, search in (("crusade", {}, {"cmd": "search", "depth": 2}),
                                 ("crownfall", {"players": 3}, {"cmd": "search", "iterations": 30, "seed": 1})):
        session = Session()
        lines = [{"cmd": "new", "game": game, "config": {"seed": 7, **config}}, {"cmd": "state", "player": 0},
                 {"cmd": "actions"}]
        out += [_timeless(json.loads(session.handle(json.dumps(x)))) for x in lines]
        out += _random_walk(session, random.Random(7), 20)
        more = [search, {"cmd": "state", "player": 1}, {"cmd": "record"}, {"cmd": "apply", "action": "nonsense"},
                {"cmd": "perft", "depth": 1}]
        out += [_timeless(json.loads(session.handle(json.dumps(x)))) for x in more]
    return out


def _measured(workload):
    def run() -> list:
        with measured_games():
            return workload()
    run.__doc__ = workload.__doc__
    return run


WORKLOADS = {
    "crown-random": crown_random,
    "ransom-random": ransom_random,
    "crown-greedy": crown_greedy,
    "ransom-greedy": ransom_greedy,
    "crown-records": crown_records,
    "ransom-records": ransom_records,
    "crown-ismcts": crown_ismcts,
    "ransom-ismcts": ransom_ismcts,
    "perft": perft,
    "crown-protocol": _measured(crown_protocol),
    "ransom-protocol": _measured(ransom_protocol),
    "crusade-random": crusade_random,
    "crusade-greedy": crusade_greedy,
    "crusade-alphabeta": crusade_alphabeta,
    "crown-alphabeta": crown_alphabeta,
    "crownfall-random": crownfall_random,
    "crownfall-greedy": crownfall_greedy,
    "crownfall-ismcts": crownfall_ismcts,
    "newer-records": newer_records,
    "newer-perft": newer_perft,
    "views": views,
    "newer-protocol": newer_protocol,
}


def digests(names=None) -> dict[str, str]:
    return {name: digest(WORKLOADS[name]()) for name in (names or WORKLOADS)}


def read_digests(path: Path) -> dict[str, str]:
    """The ``name digest`` lines of a saved run (comment lines start with #)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split()
            out[name] = value
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="workloads (default: all)")
    parser.add_argument("--list", action="store_true", help="print the workloads' names")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(WORKLOADS))
        return 0
    unknown = [n for n in args.names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}")
    for name in args.names or WORKLOADS:
        print(name, digest(WORKLOADS[name]()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
