"""The full-game AI's search (issue 12): the expert's choice as the tree's prior, the guide's hint at
the root, and the tree reused across the decisions of one turn."""

import random

from engine.crown.config import GameConfig
from engine.crown.expert import ExpertBot
from engine.crown.pieces import ExpertPrior
from engine.crown.players import ISMCTSBot, make_bot
from engine.crown.state import GameState
from engine.search.ismcts import ISMCTS


def expert_game(seed: int, turns: int) -> GameState:
    """A game the expert bot played for ``turns`` turns (a realistic middle game)."""
    g = GameState(GameConfig(seed=seed))
    bots = [ExpertBot(1), ExpertBot(2)]
    while g.turn < turns:
        g.apply(bots[g.current_player()].choose(g))
    return g


def multi_choice(g: GameState) -> GameState:
    """Play on (the expert deciding) until a decision with several options."""
    bots = [ExpertBot(3), ExpertBot(4)]
    while len(g.legal_actions()) < 3:
        g.apply(bots[g.current_player()].choose(g))
    return g


def test_a_small_budget_plays_the_priors_choice():
    """With one iteration PUCT follows the prior: the action the expert picks in the determinization."""
    for seed in (1, 2, 3):
        g = multi_choice(expert_game(seed, 6))
        prior = ExpertPrior()
        search = ISMCTS(iterations=1, seed=seed, prior=prior, planner=None, trusted_phases=())
        stats = search.search(g)
        expected = ExpertPrior().suggest(g.resample_hidden(g.current_player(), random.Random(seed)),
                                         random.Random(0))
        assert stats.best == expected, g.action_text(stats.best)


def test_the_hint_leads_the_root_and_the_search_can_leave_it():
    g = multi_choice(expert_game(4, 8))
    legal = g.legal_actions()
    # Without the game's prune, which may drop a hinted action as dominated (then the tree never
    # sees it: which ones depends on the position the expert's games reach).
    for hint in legal[:3]:
        stats = ISMCTS(iterations=2, seed=1, prior=ExpertPrior(), planner=None, trusted_phases=(),
                       prune=None).search(g, hint=hint)
        assert stats.best == hint
    # A hint that is not legal here is ignored (the prior asks its own expert).
    stats = ISMCTS(iterations=2, seed=1, prior=ExpertPrior(), planner=None, trusted_phases=()).search(g, hint=-5)
    assert stats.best in legal
    # Without a prior the search is the plain UCB1 search: every action is tried first.
    plain = ISMCTS(iterations=len(legal), seed=1, planner=None, prior=None, prune=None).search(g, hint=legal[0])
    assert set(plain.visits) == set(legal)


def _continuing(search: ISMCTS):
    """A decision, the search's first result on it, and the state after that choice, where the same
    player decides again in the same turn."""
    for seed in range(5, 40):
        g = multi_choice(expert_game(seed, 6))
        first = search.search(g)
        after = g.clone()
        after.apply(first.best)
        if not after.is_terminal() and after.current_player() == g.current_player() and after.turn == g.turn:
            return g, first, after
    raise AssertionError("no decision followed by another of the same turn")


def test_the_tree_is_reused_within_a_turn_and_only_along_the_chosen_line():
    search = ISMCTS(iterations=120, seed=3, prior=ExpertPrior(), planner=None, trusted_phases=())
    g, first, after = _continuing(search)
    second = search.search(after)
    assert sum(second.visits.values()) > second.iterations == 120     # the subtree's visits carried over
    # The same state again (no action between): a new tree.
    search.search(after)
    assert sum(search.search(after).visits.values()) == 120
    # Another action than the one chosen: a new tree.
    search.search(g)
    for other in g.legal_actions():
        elsewhere = g.clone()
        elsewhere.apply(other)
        if other != first.best and not elsewhere.is_terminal() and elsewhere.current_player() == g.current_player():
            search.search(g)
            assert sum(search.search(elsewhere).visits.values()) == 120
            break
    # Switched off: never reused.
    fresh = ISMCTS(iterations=120, seed=3, prior=ExpertPrior(), planner=None, trusted_phases=(), reuse_tree=False)
    fresh.search(g)
    assert sum(fresh.search(after).visits.values()) == 120


def test_expert_that_does_not_remember_counts_no_placements():
    g = expert_game(6, 4)
    while g.phase != "order" or g.decision.frame is not None:
        g.apply(ExpertBot(1).choose(g))
    remembering, forgetting = ExpertBot(1), ExpertBot(1, remember=False)
    assert remembering.choose(g) == forgetting.choose(g)
    assert sum(remembering._seen.values()) > 0 and not forgetting._seen


def test_the_ai_spec_names_the_guided_search():
    bot = make_bot("ismcts:0.05s", seed=1)
    assert isinstance(bot, ISMCTSBot)
    assert bot.searcher.prior is not None and bot.guide is not None
    g = multi_choice(expert_game(7, 6))
    assert bot.choose(g) in g.legal_actions()
    plain = make_bot("ismcts-plain:50", seed=1)
    assert plain.searcher.prior is None and plain.guide is None and not plain.searcher.plan_own_turn
    assert plain.searcher.iterations == 50 and plain.choose(g) in g.legal_actions()


def test_a_reused_tree_offers_only_actions_legal_now():
    """After a draw the reused subtree holds the plays of cards drawn in other determinizations:
    they are never reported, never chosen (a match once stopped on such an illegal action)."""
    from engine.crown.scenario import scenario

    deck = ["Peon", "Tower", "Clergy", "Stables", "Destiny", "Refiner", "Champion", "Vigilance"]
    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Stables", "Peon"], []), decks=(deck, ["Peon"] * 5),
                 phase="action", supply=["Stables", "Destiny", "Refiner", "Vigilance"])
    play = next(a for a in g.legal_actions() if g.action_text(a).startswith("play Stables"))
    search = ISMCTS(iterations=200, seed=2, prior=ExpertPrior(), planner=None, trusted_phases=())
    search.search(g, hint=play)               # the search plays Stables (it draws 2 cards)
    after = g.clone()
    after.apply(play)
    stats = search.search(after)
    assert sum(stats.visits.values()) > stats.iterations          # the subtree was reused
    assert set(stats.visits) <= set(after.legal_actions())
    assert stats.best in after.legal_actions()


def test_which_rule_takes_a_decision():
    """A win: the planner's line; buying: the prior's (or the hint's) choice; the player's own Order
    phase: the planner's best line; with neither planner nor prior, the tree."""
    from engine.crown.scenario import scenario

    win = scenario("4k3/8/8/8/8/8/8/4Q1K1 w", supply=[])
    stats = ISMCTS(iterations=10, seed=1).search(win)
    assert stats.source == "win" and win.action_text(stats.best) == "e1e8"

    g = expert_game(9, 6)
    while g.phase != "buy" or len(g.legal_actions()) < 2:
        g.apply(ExpertBot(1).choose(g))
    stats = ISMCTS(iterations=10, seed=1).search(g)
    assert stats.source == "prior" and stats.iterations == 0
    other = next(a for a in g.legal_actions() if a != stats.best)
    assert ISMCTS(iterations=10, seed=1).search(g, hint=other).best == other
    assert ISMCTS(iterations=10, seed=1, trusted_phases=()).search(g).source == "search"

    order = scenario("4k3/8/8/8/8/8/4r3/R3K3 w", hands=(["Peon"], []), supply=[])   # the Rook on e2 checks
    stats = ISMCTS(iterations=10, seed=1).search(order)
    assert stats.source == "plan"
    assert order.action_text(stats.best) in ("Kxe2", "e1e2", "Ke1xe2")
    plain = ISMCTS(iterations=10, seed=1, planner=None, prior=None).search(order)
    assert plain.source == "search" and plain.iterations == 10


def test_the_planners_line_is_followed_without_planning_again(monkeypatch):
    from engine.crown.planner import TurnPlanner
    from engine.crown.scenario import scenario

    g = scenario("4k3/8/8/8/8/8/4r3/R3K3 w", hands=(["Peon", "Guard"], []), decks=(["Peon"] * 5, ["Peon"] * 5),
                 supply=[])
    calls = []
    original = TurnPlanner.plan

    def counting(self, state, rng=None, first=None):
        plan = original(self, state, rng, first=first)
        calls.append(plan.actions)
        return plan

    monkeypatch.setattr(TurnPlanner, "plan", counting)
    search = ISMCTS(iterations=10, seed=1)
    stats = search.search(g)
    assert stats.source == "plan" and len(calls) == 1 and len(calls[0]) >= 2
    line = calls[0]
    g.apply(stats.best)
    followed = search.search(g)
    assert followed.source == "plan" and followed.best == line[1] and len(calls) == 1
    # Off the line (another state than the one it led to): a new plan.
    search = ISMCTS(iterations=10, seed=1, reuse_tree=False)
    search.search(g)
    assert len(calls) == 2


def test_a_turn_plan_and_the_analysis_keep_to_their_total_time():
    """``ftc analyze --time T`` bounds the whole analysis, not each step of the plan (one run once
    took 25 s for --time 5); the report gives the real time."""
    import time

    from engine.crown.analysis import analyze_game

    g = expert_game(11, 8)
    tree = ISMCTS(iterations=None, seconds=1.0, prior=None, planner=None)
    start = time.perf_counter()
    plan = tree.plan_turn(g, seconds=1.0)
    took = time.perf_counter() - start
    assert len(plan.actions) >= 3 and took < 1.5          # each step alone may take 1 s
    assert tree.seconds == 1.0                            # its own budget is restored

    start = time.perf_counter()
    report = analyze_game(g, seconds=1.0, top=3)
    took = time.perf_counter() - start
    assert report["plan"] and report["top"]
    assert took < 2.5 and abs(report["seconds"] - took) < 0.2
    assert len(report["decided_by"]) == len(report["plan"])
