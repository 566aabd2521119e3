"""Information-set MCTS (engine/search/ismcts.py): it never looks at hidden cards, it is reproducible
and keeps its budgets, its turn plans are legal, it finds a win in one order, root parallelism adds
up, and it beats a random player."""

import random

import pytest

from engine.crown.config import GameConfig
from engine.crown.pieces import BoardEvaluator, HeuristicPlayout, board_position
from engine.crown.record import fingerprint
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.search.ismcts import ISMCTS, RandomPlayout, SearchStats

BOARD = "r3k3/pp3n2/8/8/8/2N5/PP6/R3K3 w - - 0 1"
MY_HAND = ["Peon", "Peon", "Guard", "Armor", "Peon"]


def hidden_variant(opponent_hand, opponent_deck):
    return scenario(BOARD, hands=(MY_HAND, opponent_hand), decks=(["Peon", "Guard", "Peon"], opponent_deck),
                    discards=(["Guard"], ["Peon"]), supply=["Armor", "Stables"])


def midgame(seed=1, decisions=150, config=None):
    rng = random.Random(seed)
    g = GameState(config or GameConfig(seed=seed))
    for _ in range(decisions):
        g.apply(rng.choice(g.legal_actions()))
    assert not g.is_terminal()
    return g


def fast_bot(**kwargs):
    """The tree search itself: no expert prior, no turn plans (the planner only looks for a win)."""
    options = {"iterations": 60, "playout": HeuristicPlayout(), "evaluator": BoardEvaluator(), "max_playout_turns": 2,
               "prior": None, "plan_own_turn": False}
    return ISMCTS(**{**options, **kwargs})


def result(stats: SearchStats):
    return stats.best, stats.visits, stats.values, stats.iterations


class ObservableOnly:
    """A state that answers only what the search may ask of the real state: whose decision it is, and
    a determinization for the root player. Anything else (zones, history, rng...) fails the test."""

    def __init__(self, state):
        self._state = state

    @property
    def game(self):                  # which game it is (public): the search takes that game's pieces
        return self._state.game

    def is_terminal(self):
        return self._state.is_terminal()

    def current_player(self):
        return self._state.current_player()

    def resample_hidden(self, player, rng):
        assert player == self._state.current_player(), "resampled for someone else's information set"
        return self._state.resample_hidden(player, rng)

    def __getattr__(self, name):
        raise AssertionError(f"the search read state.{name} directly")


def peeking(self, player, rng):
    d = self.clone()
    d.rng = random.Random(rng.getrandbits(64))
    return d


def test_no_peeking_same_observation_same_search(monkeypatch):
    a = hidden_variant(["Peon", "Peon", "Guard"], ["Guard", "Armor", "Peon"])
    b = hidden_variant(["Guard", "Armor", "Peon"], ["Peon", "Peon", "Guard"])
    assert a.observation(0) == b.observation(0)
    assert fingerprint(a) != fingerprint(b)          # the hidden cards really differ
    assert a.observation(1) != b.observation(1)
    bot = fast_bot(iterations=120, seed=5)
    stats_a, stats_b = bot.search(a), bot.search(b)
    assert result(stats_a) == result(stats_b)
    assert len(stats_a.visits) > 3
    # The search only ever asks whose turn it is and for determinizations of its own information set.
    assert result(bot.search(ObservableOnly(a))) == result(stats_a)
    # Whole turn plans agree too.
    small = fast_bot(iterations=25, seed=2)
    plan_a, plan_b = small.plan_turn(a), small.plan_turn(b)
    assert (plan_a.actions, plan_a.value) == (plan_b.actions, plan_b.value)
    # The full AI too (expert prior, turn plans, learned evaluation): its plan, its prior's choice
    # and its tree all come from determinizations of the player's own information set.
    full = ISMCTS(iterations=40, seed=5)
    assert result(full.search(a)) == result(full.search(b)) == result(full.search(ObservableOnly(a)))
    # The test can tell: a search that peeks (determinizes by copying the true state) differs.
    monkeypatch.setattr(GameState, "resample_hidden", peeking)
    assert result(bot.search(a)) != result(bot.search(b))


def test_one_determinization_per_iteration(monkeypatch):
    calls = []
    original = GameState.resample_hidden

    def counting(self, player, rng):
        calls.append(player)
        return original(self, player, rng)

    monkeypatch.setattr(GameState, "resample_hidden", counting)
    g = midgame(3)
    stats = fast_bot(iterations=50).search(g)
    # One per iteration, one for the turn planner's search for a win (engine/crown/planner.py) and
    # one to read the decision as the player sees it (phase, options).
    assert len(calls) == 52 and stats.iterations == 50
    assert set(calls) == {g.current_player()}
    calls.clear()
    assert fast_bot(iterations=50, planner=None).search(g).iterations == 50 and len(calls) == 50


def test_reproducible_and_budgets():
    g = midgame(1)
    bot = fast_bot(iterations=80, seed=11)
    first, second = bot.search(g), bot.search(g)
    assert result(first) == result(second)
    assert first.iterations == 80 and sum(first.visits.values()) == 80
    assert first.best in g.legal_actions() and first.best_text == g.legal_action_texts()[first.best]
    assert set(first.visits) <= set(g.legal_actions())
    assert -1.0 <= first.value <= 1.0
    # Random playouts to the end of the game, budget by time only.
    timed = ISMCTS(iterations=None, seconds=0.3, playout=RandomPlayout(), seed=1, prior=None, planner=None).search(g)
    assert timed.iterations > 0 and timed.seconds < 1.5
    assert sum(timed.visits.values()) == timed.iterations
    # Both budgets: whichever ends first.
    both = fast_bot(iterations=5, seconds=30.0).search(g)
    assert both.iterations == 5
    with pytest.raises(ValueError):
        ISMCTS(iterations=None, seconds=None)


PLAN_STATES = {
    "scenario, order phase, five cards": lambda: hidden_variant(["Peon", "Peon", "Guard"], ["Guard", "Armor", "Peon"]),
    "random game, action phase": lambda: midgame(10, 150),
    "random game, order phase": lambda: midgame(2, 151),
}


@pytest.mark.parametrize("name", PLAN_STATES)
def test_plan_turn_is_legal_and_ends_the_turn(name):
    g = PLAN_STATES[name]()
    player, turn = g.current_player(), g.turn
    plan = fast_bot(iterations=40, seed=2).plan_turn(g)
    assert plan.player == player and len(plan.actions) >= 2 and len(plan.texts) == len(plan.actions)
    assert len(plan.stats) == len(plan.actions) and plan.value == plan.stats[0].value
    replayed = g.clone()
    for action, text in zip(plan.actions, plan.texts):
        assert replayed.current_player() == player and replayed.turn == turn
        assert replayed.legal_action_texts()[action] == text
        replayed.apply(action)
    assert replayed.is_terminal() or replayed.turn > turn
    assert g.turn == turn and g.current_player() == player   # the state itself is untouched


def test_finds_the_capture_of_the_last_sovereign():
    g = scenario("8/8/8/3k4/3K4/8/8/7R w - - 0 1", hands=(["Peon", "Guard", "Peon"], ["Peon", "Guard"]),
                 decks=(["Peon"] * 5, ["Peon"] * 5), supply=["Armor"])
    for bot in (fast_bot(iterations=150, seed=3), ISMCTS(iterations=150, seed=3, playout=RandomPlayout())):
        plan = bot.plan_turn(g)
        assert plan.texts[0] == "d4d5"
        assert plan.value > 0.5
        replayed = g.clone()
        for action in plan.actions:
            replayed.apply(action)
        assert replayed.is_terminal() and replayed.winner == 0


def test_heuristic_playout_and_board_evaluator():
    g = scenario("8/8/8/3k4/3K4/8/8/7R w - - 0 1", hands=(["Peon"], []), decks=(["Peon"] * 5, ["Peon"] * 5))
    texts = g.legal_action_texts()
    assert texts[HeuristicPlayout(epsilon=0.0).choose(g, random.Random(0))] == "d4d5"
    evaluate = BoardEvaluator()
    assert evaluate(g, 0) > 0.2 and evaluate(g, 1) == pytest.approx(-evaluate(g, 0))   # Blue has a Rook more
    assert board_position(g).to_text().startswith("8/8/8/3k4/3K4/8/8/7R w")
    g.apply_text("d4d5")                               # the Yellow King is gone: the turn's end decides
    assert evaluate(g, 0) == 1.0 and evaluate(g, 1) == -1.0


def test_root_parallelism_sums_the_workers():
    g = midgame(2)
    stats = fast_bot(iterations=41, seed=7, processes=2).search(g)
    assert stats.iterations == 41 and sum(stats.visits.values()) == 41
    assert stats.best in g.legal_actions() and stats.processes == 2
    # Worker i searches with seed + i: the sum of two one-process searches.
    one = [fast_bot(iterations=n, seed=7 + i).search(g) for i, n in enumerate((21, 20))]
    assert stats.visits == {a: sum(s.visits.get(a, 0) for s in one) for a in stats.visits}
    # Spawned workers rebuild the state from its record.
    spawned = fast_bot(iterations=12, seed=7, processes=2, start_method="spawn").search(g)
    assert spawned.iterations == 12 and spawned.best in g.legal_actions()


def test_the_worker_pool_is_kept_across_searches():
    g = midgame(2)
    kept = fast_bot(iterations=30, seed=7, processes=2)
    fresh = fast_bot(iterations=30, seed=7, processes=2, keep_pool=False)
    first = kept.search(g)
    pool = kept._pool[1]
    pids = sorted(p.pid for p in pool._pool)
    assert result(kept.search(g)) == result(first) == result(fresh.search(g))
    assert kept._pool[1] is pool and sorted(p.pid for p in pool._pool) == pids   # the same workers
    kept.close()
    assert kept._pool is None
    assert all(not p.is_alive() for p in pool._pool)
    assert result(kept.search(g)) == result(first)       # a later search starts new workers
    kept.close()


def test_beats_a_random_player():
    wins = 0
    for seed in range(6):
        g = GameState(GameConfig(seed=seed, max_turns=150, supply="first-game"))
        me, rng, step = seed % 2, random.Random(seed), 0
        bot = fast_bot(iterations=60)
        while not g.is_terminal():
            if g.current_player() == me:
                g.apply(bot.search(g, seed=seed * 1000 + step).best)
                step += 1
            else:
                g.apply(rng.choice(g.legal_actions()))
        wins += g.returns()[me] == 1.0
    assert wins >= 4


def test_top_orders_pruning_keeps_the_best_orders_and_every_other_action():
    from engine.crown.pieces import TopOrders
    from engine.crown.scenario import scenario

    # Blue's Queen can take the Yellow King (e8) or a Pawn; the pruning keeps the King capture.
    g = scenario("4k3/8/8/8/p7/8/8/4Q1K1 w", hands=(["Peon"], []), supply=[])
    legal = g.legal_actions()
    kept = TopOrders(k=2)(g, legal)
    orders = [a for a in kept if a < (1 << 28)]
    assert len(orders) == 2
    assert "e1e8" in {g.action_text(a) for a in orders}
    assert [a for a in legal if a >= (1 << 28)] == [a for a in kept if a >= (1 << 28)]
    assert TopOrders(k=100)(g, legal) == legal
