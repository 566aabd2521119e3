"""The information-set search (engine/search/ismcts.py) is generic: two toy 3-player games written
here against the state protocol and the registry only (registered by a fixture) are searched with
vector returns (max-n: every player judged by its own return), chance sampled by its probabilities,
turns, records replayed in root-parallel workers; King's Ransom gets root parallelism too."""

from __future__ import annotations

import json
import random

import pytest

from engine.crown.players import RandomBot
from engine.games import registry
from engine.games.protocol import CHANCE, TERMINAL
from engine.games.registry import Bots, Game
from engine.interfaces.cli import main
from engine.ransom.players import ransom_ismcts
from engine.ransom.position import RansomPosition
from engine.ransom.rules import default_rules
from engine.ransom.state import RansomState
from engine.search.ismcts import ISMCTS

# -- a race: 3 players, a die, exact landing -----------------------------------------------------------
STEP, ROLL = 0, 1
GOAL = 10


class RaceState:
    """Three players race to square GOAL. On a turn the player steps one square, or rolls a die
    (an explicit chance node: faces 1-6, 1/6 each) and moves that many; overshooting the goal leaves
    the piece where it was. Who lands on the goal wins (+1, the others -1)."""

    game = "toy-race"
    num_players = 3

    def __init__(self, squares=(0, 0, 0), to_move=0):
        self.squares = list(squares)
        self.to_move = to_move
        self.rolling = False
        self.winner = None
        self.turn = 1
        self.history: list[tuple[int, int]] = []
        self.start = (tuple(squares), to_move)

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        return CHANCE if self.rolling else self.to_move

    def legal_actions(self) -> list[int]:
        return [] if self.winner is not None or self.rolling else [STEP, ROLL]

    def _move(self, n: int) -> None:
        square = self.squares[self.to_move] + n
        if square <= GOAL:
            self.squares[self.to_move] = square
        if square == GOAL:
            self.winner = self.to_move
        else:
            self.to_move = (self.to_move + 1) % 3
            self.turn += 1

    def apply(self, action: int) -> None:
        self.history.append((self.current_player(), action))
        if self.rolling:
            if action not in range(1, 7):
                raise ValueError(f"die face {action!r}: not 1-6")
            self.rolling = False
            self._move(action)
        elif action == ROLL:
            self.rolling = True
        elif action == STEP:
            self._move(1)
        else:
            raise ValueError(f"action {action!r}: not legal")

    def action_text(self, action: int) -> str:
        return f"die {action}" if self.rolling else ("step", "roll")[action]

    def action_fields(self, action: int) -> dict:
        return {"text": self.action_text(action)}

    def is_chance_node(self) -> bool:
        return self.rolling and self.winner is None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(face, 1 / 6) for face in range(1, 7)] if self.is_chance_node() else []

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0] * 3
        return [1.0 if p == self.winner else -1.0 for p in range(3)]

    def observation(self, player: int | None) -> dict:
        return {"squares": list(self.squares), "to_move": self.to_move, "rolling": self.rolling}

    def resample_hidden(self, player: int, rng: random.Random) -> RaceState:
        return self.clone()                   # nothing is hidden: the search is plain MCTS

    def information_key(self, player: int):
        return self.public_key()

    def public_key(self):
        return (tuple(self.squares), self.to_move, self.rolling, self.winner)

    def clone(self) -> RaceState:
        other = RaceState.__new__(RaceState)
        other.__dict__ = {**self.__dict__, "squares": list(self.squares), "history": list(self.history)}
        return other

    def record(self) -> dict:
        return {"format": "toy-race", "start": [list(self.start[0]), self.start[1]], "history": self.history}


def replay_race(record: dict) -> RaceState:
    state = RaceState(tuple(record["start"][0]), record["start"][1])
    for _, action in record["history"]:
        state.apply(action)
    return state


# -- a game tree: 3 players, scores, a loaded coin ----------------------------------------------------
#: node -> ("player", p, [child, ...]) | ("chance", [(child, probability), ...]) | ("leaf", returns)
TREES = {
    # Player 1 serves itself (max-n): after "deal" it takes y (0.5 for it), which costs player 0
    # 1.0; a search that let player 1 maximise player 0's return would "deal" for +1.
    "selfish": {"root": ("player", 0, ["safe", "deal"]), "safe": ("leaf", [0.1, 0.0, 0.0]),
                "deal": ("player", 1, ["x", "y"]), "x": ("leaf", [1.0, -1.0, 0.0]), "y": ("leaf", [-1.0, 0.5, 0.0])},
    # Player 2 is no enemy of player 0 (max-n): it takes p (0.5 for it), which gives player 0 +1; a
    # paranoid search (everyone against the searcher) would expect q and play "safe".
    "ally": {"root": ("player", 0, ["safe", "deal"]), "safe": ("leaf", [0.1, 0.0, 0.0]),
             "deal": ("player", 2, ["p", "q"]), "p": ("leaf", [1.0, -1.0, 0.5]), "q": ("leaf", [-1.0, 0.0, 0.0])},
    # A loaded coin: "gamble" wins for player 0 with probability 1/6 (expected -2/3), "steady" gives
    # -0.5: only a search that samples by the probabilities prefers "steady" (uniform: 0 > -0.5).
    "coin": {"root": ("player", 0, ["steady", "gamble"]), "steady": ("leaf", [-0.5, 0.0, 0.0]),
             "gamble": ("chance", [("heads", 1 / 6), ("tails", 5 / 6)]),
             "heads": ("leaf", [1.0, -1.0, -1.0]), "tails": ("leaf", [-1.0, 0.0, 0.0])},
}


class TreeState:
    """A game given by one of TREES; actions index the node's children."""

    game = "toy-tree"
    num_players = 3

    def __init__(self, tree: str = "selfish"):
        self.tree, self.node, self.history = tree, "root", []

    def _kind(self):
        return TREES[self.tree][self.node]

    def current_player(self) -> int:
        kind = self._kind()
        return {"leaf": TERMINAL, "chance": CHANCE}.get(kind[0], kind[1])

    def legal_actions(self) -> list[int]:
        kind = self._kind()
        return list(range(len(kind[2]))) if kind[0] == "player" else []

    def apply(self, action: int) -> None:
        kind = self._kind()
        children = kind[2] if kind[0] == "player" else [c for c, _ in kind[1]] if kind[0] == "chance" else []
        if action not in range(len(children)):
            raise ValueError(f"action {action!r}: not legal at {self.node}")
        self.history.append(action)
        self.node = children[action]

    def action_text(self, action: int) -> str:
        kind = self._kind()
        return kind[2][action] if kind[0] == "player" else kind[1][action][0]

    def action_fields(self, action: int) -> dict:
        return {"text": self.action_text(action)}

    def is_chance_node(self) -> bool:
        return self._kind()[0] == "chance"

    def chance_outcomes(self) -> list[tuple[int, float]]:
        kind = self._kind()
        return [(i, p) for i, (_, p) in enumerate(kind[1])] if kind[0] == "chance" else []

    def is_terminal(self) -> bool:
        return self._kind()[0] == "leaf"

    def returns(self) -> list[float]:
        kind = self._kind()
        return list(kind[1]) if kind[0] == "leaf" else [0.0] * 3

    def observation(self, player: int | None) -> dict:
        return {"node": self.node}

    def resample_hidden(self, player: int, rng: random.Random) -> TreeState:
        return self.clone()

    def information_key(self, player: int):
        return self.node

    def public_key(self):
        return self.node

    def clone(self) -> TreeState:
        other = TreeState(self.tree)
        other.node, other.history = self.node, list(self.history)
        return other

    def record(self) -> dict:
        return {"format": "toy-tree", "tree": self.tree, "history": self.history}


def replay_tree(record: dict) -> TreeState:
    state = TreeState(record["tree"])
    for action in record["history"]:
        state.apply(action)
    return state


def _entry(name: str, start, replay, players=range(3, 4)) -> Game:
    return Game(name=name, title=name, description="a toy game of tests/search/test_generic_ismcts.py",
                players=players, variants=(), config=lambda data=None, where="config": dict(data or {}),
                new_state=start, replay=replay, recognise=lambda r: isinstance(r, dict) and r.get("format") == name,
                bots=Bots(bot_names=("random",), make_bot=lambda spec, seed: RandomBot(seed)), docs=name)


@pytest.fixture
def toy_games():
    """The two toy games in the registry for one test (no search pieces: the generic defaults)."""
    registry.register(_entry("toy-race", lambda config: RaceState(), replay_race))
    registry.register(_entry("toy-tree", lambda config: TreeState(config.get("tree", "selfish")), replay_tree))
    yield
    registry.unregister("toy-race")
    registry.unregister("toy-tree")


def _best(state, iterations=600, seed=1, **options) -> str:
    stats = ISMCTS(iterations=iterations, seed=seed, **options).search(state)
    return state.action_text(stats.best)


def test_a_game_without_pieces_gets_the_generic_search(toy_games):
    searcher = ISMCTS(iterations=50, seed=3)
    stats = searcher.search(RaceState((8, 9, 9)))
    assert searcher.game == "toy-race"
    assert (searcher.prior, searcher.planner, searcher.prune, searcher.evaluator) == (None, None, None, None)
    assert type(searcher.playout).__name__ == "RandomPlayout" and searcher.max_playout_turns is None
    assert stats.iterations == 50 and sum(stats.visits.values()) == 50 and stats.source == "search"
    assert stats.texts == {STEP: "step", ROLL: "roll"}


def test_each_player_is_judged_by_its_own_return(toy_games):
    # Player 2 on square 9 steps onto the goal and wins; rolling wins only on a 1. A search that
    # scored player 2's choice by player 0's return (or any other's) would roll.
    assert _best(RaceState((9, 9, 9), to_move=2)) == "step"
    assert _best(RaceState((9, 9, 9), to_move=1)) == "step"
    # Player 0 on 8, the others on 9: a step leaves it on 9 and player 1 steps home next; only a roll
    # of 2 (1/6) wins at once, so the roll is the winning try.
    assert _best(RaceState((8, 9, 9), to_move=0)) == "roll"


def test_max_n_backs_each_players_own_return_up(toy_games):
    # The values are those of the trees (TREES): exact leaves, so the root means converge to them.
    selfish = ISMCTS(iterations=800, seed=2).search(TreeState("selfish"))
    assert selfish.best_text == "safe" and selfish.values[1] < 0.0 and selfish.values[0] == pytest.approx(0.1)
    ally = ISMCTS(iterations=800, seed=2).search(TreeState("ally"))
    assert ally.best_text == "deal" and ally.values[1] == pytest.approx(1.0, abs=0.1)
    # The deciding player deeper down is the one whose return counts there.
    deep = TreeState("selfish")
    deep.apply(1)
    assert _best(deep, 200) == "y"


def test_chance_is_sampled_by_its_probabilities(toy_games):
    stats = ISMCTS(iterations=3000, seed=4).search(TreeState("coin"))
    assert stats.best_text == "steady"
    # -2/3: 1/6 * (+1) + 5/6 * (-1), the coin's expected return for player 0 (UCB gives "gamble"
    # about 150 of the iterations: a standard error near 0.06).
    assert stats.values[1] == pytest.approx(-2 / 3, abs=0.15)


def test_cut_playouts_judge_every_player_and_decided_states(toy_games):
    """With n > 2 players a cut playout asks the evaluator for each player; a ``decided`` state is
    won by its winner and lost by the others, whatever the evaluator says."""
    asked = []

    def evaluator(state, player):
        asked.append(player)
        return 0.25 * player

    searcher = ISMCTS(iterations=5, seed=1, evaluator=evaluator, max_playout_turns=0)
    stats = searcher.search(RaceState((0, 0, 0)))
    assert sorted(set(asked)) == [0, 1, 2] and len(asked) == 3 * 5
    # Every cut happens right after the root's action: each child's mean is the evaluator's value
    # for player 0 (0.0).
    assert all(v == 0.0 for v in stats.values.values())
    # A game without ``turn_of`` counts decisions: one playout decision, then the cut (no race
    # ends within two decisions from the start).
    asked.clear()
    ISMCTS(iterations=5, seed=1, evaluator=evaluator, max_playout_turns=1).search(RaceState((0, 0, 0)))
    assert len(asked) == 3 * 5
    decided = ISMCTS(iterations=5, seed=1, evaluator=evaluator, max_playout_turns=0, decided=lambda s: 0)
    assert all(v == 1.0 for v in decided.search(RaceState((0, 0, 0))).values.values())


def test_a_playout_limit_may_be_a_function_of_the_state(toy_games):
    """``max_playout_turns`` given as a function is asked at each playout's first state: here 0,
    so every cut comes right after the root's action, as with the integer 0."""
    asked, limits = [], []

    def evaluator(state, player):
        asked.append(player)
        return 0.25 * player

    def limit(state):
        limits.append(state.num_players)
        return 0

    stats = ISMCTS(iterations=5, seed=1, evaluator=evaluator, max_playout_turns=limit).search(RaceState((0, 0, 0)))
    assert limits == [3] * 5 and len(asked) == 3 * 5
    assert all(v == 0.0 for v in stats.values.values())
    with pytest.raises(ValueError, match="max_playout_turns"):
        ISMCTS(iterations=5, max_playout_turns="two")


def test_an_evaluator_with_values_is_asked_once_per_cut_for_every_player(toy_games):
    """With n > 2 players an evaluator that has ``values(state)`` gives every player's value in one
    call (Crownfall's projects the table once); its values, clipped to [-1, 1], are backed up."""

    class Every:
        def __init__(self):
            self.calls, self.single = 0, 0

        def __call__(self, state, player):
            self.single += 1
            return 0.0

        def values(self, state):
            self.calls += 1
            return [3.0, -0.5, 0.25]

    every = Every()
    stats = ISMCTS(iterations=7, seed=1, evaluator=every, max_playout_turns=0).search(RaceState((0, 0, 0)))
    assert (every.calls, every.single) == (7, 0)
    assert all(v == 1.0 for v in stats.values.values())         # player 0's 3.0, clipped


def test_a_turn_plan_ends_with_the_turn(toy_games):
    plan = ISMCTS(iterations=100, seed=1, turn_of=lambda s: s.turn).plan_turn(RaceState((0, 0, 0)))
    assert plan.player == 0 and len(plan.actions) == 1 and plan.texts[0] in ("step", "roll")
    # A game without turns for the search: every decision is a turn of its own.
    assert len(ISMCTS(iterations=20, seed=1).plan_turn(TreeState("selfish")).actions) == 1


def test_root_parallel_workers_replay_the_record_through_the_registry(toy_games):
    state = RaceState((3, 5, 4), to_move=1)
    state.apply(STEP)
    searcher = ISMCTS(iterations=41, seed=7, processes=2)
    try:
        stats = searcher.search(state)
    finally:
        searcher.close()
    assert stats.iterations == 41 and stats.processes == 2
    # Worker i searches with seed + i on the replayed state: the sum of two one-process searches.
    one = [ISMCTS(iterations=n, seed=7 + i).search(state) for i, n in enumerate((21, 20))]
    assert stats.visits == {a: sum(s.visits.get(a, 0) for s in one) for a in stats.visits}


def test_kings_ransom_searches_in_parallel():
    g = RansomState(5)
    rng = random.Random(5)
    for _ in range(6):
        g.apply(rng.choice(g.legal_actions()))
    searcher = ransom_ismcts(iterations=30, seed=3, processes=2)
    try:
        stats = searcher.search(g)
    finally:
        searcher.close()
    one = [ransom_ismcts(iterations=15, seed=3 + i).search(g) for i in range(2)]
    assert stats.iterations == 30 and stats.processes == 2
    assert stats.visits == {a: sum(s.visits.get(a, 0) for s in one) for a in stats.visits}
    # A game set up from a position has no record (its Deck order is unknown): forked workers
    # inherit the state instead.
    rules = default_rules()
    position = RansomPosition.parse("n*kb*/1p*1/1i*1/1P*1/1P*1/R*KN* r QBI/qrp -/- -/- 0 1", rules)
    position.pools[0][rules.pawn_type] = 3           # Red's Deck: three Pawns, in no known order
    loose = RansomState(1, position=position)
    with pytest.raises(ValueError, match="has no record"):
        loose.record()
    searcher = ransom_ismcts(iterations=20, seed=3, processes=2)
    try:
        stats = searcher.search(loose)
    finally:
        searcher.close()
    one = [ransom_ismcts(iterations=10, seed=3 + i).search(loose) for i in range(2)]
    assert stats.iterations == 20 and stats.visits == {a: sum(s.visits.get(a, 0) for s in one) for a in stats.visits}


def test_ftc_analyze_kings_ransom_takes_processes(capsys):
    assert main(["analyze", "--variant", "kings-ransom", "startpos", "--iterations", "30", "--processes", "2",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["plan"] and all(step["iterations"] == 30 for step in report["plan"])
