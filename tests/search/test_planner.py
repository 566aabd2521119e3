"""The turn planner (engine/crown/planner.py): exhaustive search of a player's own decisions in a
turn. The positions are built by hand; why each line wins (or does not) is said next to it."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import codes
from engine.crown import actions as A
from engine.crown.planner import WIN, TurnPlanner
from engine.crown.puzzles import load_puzzles
from engine.crown.scenario import scenario
from engine.search.ismcts import ISMCTS

# Blue: Rook a1 behind its own Pawn a4; Yellow: King a8, Knight b5. One order cannot win (the Pawn
# blocks the a-file; Ra1 reaches a3 at most). Bureaucracy (13.0) attacks with a Foot unit and gives
# +1 order (C11): a4xb5 opens the file, then Ra1xa8 takes the only Sovereign (C2, 10.0).
OPEN_FILE = "k7/8/8/1n6/P7/8/8/R3K3 w"


def bureaucracy_puzzle(hand=("Bureaucracy", "Peon", "Guard")):
    return scenario(OPEN_FILE, hands=(list(hand), []), supply=["Bureaucracy"])


def test_finds_the_two_order_win_with_bureaucracy():
    plan = TurnPlanner().find_win(bureaucracy_puzzle())
    assert plan.winning and plan.complete
    assert plan.texts[:3] == ["play Bureaucracy (order)", "a4b5", "a1a8"]


def test_no_win_without_the_card_and_the_search_is_exhaustive():
    plan = TurnPlanner().find_win(bureaucracy_puzzle(("Peon", "Guard")))
    assert not plan.winning and plan.complete and plan.value < WIN


def test_the_plan_follows_the_line_to_the_win():
    g = bureaucracy_puzzle()
    plan = TurnPlanner().find_win(g)
    for action in plan.actions[:3]:
        g.apply(action)
    g.apply(A.DONE)                                    # end the order phase: the capture stands
    while not g.is_terminal():
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    assert g.winner == 0


def test_survive_avoids_the_reply_that_takes_the_sovereign():
    # Blue King e1 alone against Yellow's Rook d8 and King h8, Blue to order. The Rook holds the
    # d-file: Ke1-d1 or Ke1-d2 loses the King to the Rook's reply; every other line keeps it.
    g = scenario("3r3k/8/8/8/8/8/8/4K3 w", supply=[])
    plan = TurnPlanner(reply_depth=2).plan(g)
    assert plan.texts[0] not in ("e1d1", "e1d2")
    assert plan.value > -WIN


def test_the_budget_ends_the_search_with_a_legal_line():
    starved = TurnPlanner(max_nodes=3).find_win(bureaucracy_puzzle())
    assert not starved.complete and starved.nodes <= 4 and not starved.winning
    no_card = bureaucracy_puzzle(("Peon", "Guard"))          # 42 nodes to see every line
    plan = TurnPlanner(max_nodes=20).plan(no_card)
    assert not plan.complete and plan.actions and plan.actions[0] in no_card.legal_actions()


def test_the_planner_never_sees_the_opponents_hidden_cards():
    """Two states that differ only in the opponent's hidden hand give the same plan."""
    a = scenario(OPEN_FILE, hands=(["Bureaucracy", "Peon"], ["Peon"] * 5), supply=["Bureaucracy"])
    b = scenario(OPEN_FILE, hands=(["Bureaucracy", "Peon"], ["Guard"] * 5), supply=["Bureaucracy"])
    assert TurnPlanner().plan(a, random.Random(3)).actions == TurnPlanner().plan(b, random.Random(3)).actions


def test_ismcts_plays_the_win_it_would_otherwise_have_to_sample():
    g = bureaucracy_puzzle()
    stats = ISMCTS(iterations=20, seed=1).search(g)
    assert stats.best_text == "play Bureaucracy (order)"
    assert ISMCTS(iterations=20, seed=1, planner=None).search(g).iterations == 20


@pytest.mark.parametrize("bad", [dict(max_nodes=0), dict(seconds=0), dict(reply_depth=0)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError):
        TurnPlanner(**bad)


def test_every_win_this_turn_puzzle_is_found_and_only_with_a_proven_first_action():
    """Against the puzzle suite's exhaustive verifier (engine/crown/puzzles.py, a separate
    oracle): on every win-this-turn puzzle the planner finds a win, its first action is one the
    verifier proved, and a first action that wins only on a lucky draw (lucky-versatility) is not
    taken."""
    puzzles = [p for p in load_puzzles() if p.goal == "win-this-turn"]
    assert len(puzzles) >= 20
    for puzzle in puzzles:
        g = puzzle.state()
        plan = TurnPlanner(max_nodes=50_000).find_win(g, random.Random(0))
        assert plan.winning, puzzle.id
        assert plan.texts[0] in puzzle.solution, (puzzle.id, plan.texts[0])


def test_a_line_that_wins_only_on_a_lucky_draw_is_not_a_win():
    """lucky-versatility (tests/data/puzzles.toml): Versatility draws one of Temple and Peon, and
    only the Temple wins; after playing it the planner must not call the turn won (the worst draw
    counts), while Sanctuary's alternate order, which draws both, wins."""
    puzzle = next(p for p in load_puzzles() if p.id == "lucky-versatility")
    g = puzzle.state(auto_chance=True)
    g.apply_text("play Versatility (order)")
    assert not TurnPlanner().find_win(g, random.Random(0)).winning
    assert TurnPlanner().find_win(puzzle.state(auto_chance=True), random.Random(0)).texts[0] == \
        "play Sanctuary (alternate order)"


def test_plan_weighs_the_cards_by_the_learned_model():
    """A line's end is judged by the learned model with the searched board: a model that prizes the
    cards kept does not spend a Peon on training a Pawn; one that prizes the army does."""
    from engine.crown.state_eval import FEATURES, StateModel

    def weights(**named):
        return StateModel(tuple(named.get(name, 0.0) for name in FEATURES))

    g = scenario("4k3/8/8/8/8/8/8/4K3 w", hands=(["Peon"], []), decks=(["Peon"] * 5, ["Peon"] * 5),
                 phase="action", supply=[])
    train = next(a for a in g.legal_actions() if g.action_text(a).startswith("play Peon (training"))
    army = TurnPlanner(model=weights(army=5.0)).plan(g)
    keep = TurnPlanner(model=weights(cards=5.0)).plan(g)
    assert army.actions[0] == train
    assert train not in keep.actions


# -- issue 28: values that keep lost lines apart, time instead of nodes ---------------------------------
# Blue King a1 alone; Yellow Queen c2 (it holds a2, b1 and b2) and Rook g8, Yellow King h8, Blue to
# order. Every King step walks into the Queen: the Sovereign is taken at once (1 ply). Ending the
# order phase without a step keeps it for now: Yellow needs Rg8-g1 first, then every Blue step is
# again into the Queen, so the loss comes 3 plies later. Derived by hand; the board search agrees.
LADDER = "6rk/8/8/8/8/8/2q5/K7 w"


def _taken_at_once(g, plan) -> bool:
    """Whether Yellow, after the plan's line and the end of Blue's turn, has an order that takes
    the Blue King (checked by brute force over Yellow's legal board orders, not by the planner)."""
    board = g.board.copy()
    for action in plan.actions:
        if A.is_order(action):
            board.push(action)
    board.end_turn()
    board.set_side(1)
    king = next(sq for sq in board.squares_of(0))
    return any(codes.order_dest(order) == king for order in board.generate())


def test_a_loss_later_beats_a_loss_at_once():
    g = scenario(LADDER, supply=[])
    plan = TurnPlanner(reply_depth=3).plan(g, random.Random(0))
    assert plan.texts == ["end order phase"], plan.texts
    assert not _taken_at_once(g, plan)
    # Every line is lost (the board search proves it), and the value says how far away.
    from engine.crown.planner import FORCED
    assert -FORCED < plan.value < -FORCED / 2 and -1.0 < plan.score < -0.95
    from engine.crown.survival import forced_logit
    assert plan.value == 1000 * forced_logit(3, won=False)     # no cards: no defences left to count


def test_defences_left_for_the_next_turn_break_the_tie_between_equal_losses():
    """The same lost position with a Deck of Heirs (13.0: the Sovereign marches to a safe square)
    and with a Deck of Peons: the Heirs' line keeps more for the next turn, so it is valued higher,
    and both stay below every unproved value and above a loss at once."""
    from engine.crown.survival import defence_resources
    heirs = scenario(LADDER, decks=(["Heir"] * 6, []), supply=[])
    peons = scenario(LADDER, decks=(["Peon"] * 6, []), supply=[])
    assert defence_resources(heirs, 0) > 0.9 and defence_resources(peons, 0) == 0.0
    high = TurnPlanner(reply_depth=3).plan(heirs, random.Random(0))
    low = TurnPlanner(reply_depth=3).plan(peons, random.Random(0))
    assert high.texts == low.texts == ["end order phase"]
    assert high.value > low.value


def test_a_blocker_in_the_barracks_counts_as_a_defence():
    from engine.crown.survival import defence_resources
    # A Pawn waiting in Blue's Barracks; b1 next to the King a1 is empty and on Blue's first rank.
    assert defence_resources(scenario("6rk/8/8/8/8/8/2q5/K7[P] w", supply=[]), 0) > 0.0
    # The King's neighbours on the first two ranks are all taken: nowhere to deploy a blocker.
    assert defence_resources(scenario("6rk/8/8/8/8/8/PPq5/KN6[P] w", supply=[]), 0) == 0.0


def test_time_not_nodes_the_planner_searches_past_its_node_cap_when_given_time():
    """lucky-versatility's winning line needs about 3,000 planner nodes (tests/data/puzzles.toml).
    A node budget of 100 alone cannot find it; the same cap with a time budget is only a backstop
    (the time bounds the search) and the win is found, by the planner and by ISMCTS through it."""
    puzzle = next(p for p in load_puzzles() if p.id == "lucky-versatility")
    starved = TurnPlanner(max_nodes=100).find_win(puzzle.state(), random.Random(0))
    assert not starved.complete and not starved.winning
    timed = TurnPlanner(max_nodes=100, seconds=30.0).find_win(puzzle.state(), random.Random(0))
    assert timed.winning and timed.nodes > 100 and timed.texts[0] in puzzle.solution
    stats = ISMCTS(iterations=None, seconds=30.0, seed=1, planner=TurnPlanner(max_nodes=100)).search(puzzle.state())
    assert stats.source == "win" and stats.best_text in puzzle.solution


def test_timed_plan_deepens_the_reply_search_and_keeps_the_deepest_complete_pass():
    g = scenario(LADDER, supply=[])
    plan = TurnPlanner(reply_depth=2, max_reply_depth=4, seconds=30.0).plan(g, random.Random(0))
    assert plan.complete and plan.reply_depth == 4          # the deepest allowed
    assert plan.texts == ["end order phase"]
    assert TurnPlanner(reply_depth=3, seconds=30.0).plan(g, random.Random(0)).reply_depth == 3   # the default
    one = TurnPlanner(reply_depth=1, max_reply_depth=1, seconds=30.0).plan(g, random.Random(0))
    assert one.reply_depth == 1


# Yellow: Rook a8 behind its own Pawn a5, Knight g5, King h8. Blue: King a1, Pawns b4 (held by c3),
# Bishop c1, Blue to order. Bc1xg5 wins a Knight, and the board search (Yellow, Blue, Yellow) sees
# nothing wrong: a5xb4 opens the a-file, but Blue then moves or recaptures. With Bureaucracy (13.0:
# a Foot unit attacks, then +1 order) Yellow plays a5xb4 and Ra8xa1 in one turn and takes the only
# Sovereign (C2). A line that steps the King off the file or moves the b-Pawn survives that turn.
BUREAUCRACY_THREAT = "r6k/8/8/p5n1/1P6/2P5/8/K1B5 w"


def threat(yellow_card: str):
    cards = [yellow_card] * 10
    return scenario(BUREAUCRACY_THREAT, hands=(["Peon", "Peon"], cards[:5]), decks=([], cards[5:]),
                    supply=["Bureaucracy"])


def test_the_verification_plays_out_the_opponents_cards_that_the_board_search_cannot_see():
    # The planners judge lines by the board alone (model=None): the learned model of issue 44 weighs
    # the Sovereign's exposed zone and already steps aside without the verification.
    g = threat("Bureaucracy")
    blind = TurnPlanner(reply_depth=3, seconds=30.0, verify=False, model=None).plan(g, random.Random(0))
    assert blind.texts[0] == "c1g5" and blind.verified_rounds == 0
    plan = TurnPlanner(reply_depth=3, seconds=30.0, model=None).plan(g, random.Random(0))
    means = {g.action_text(a): m for a, m in plan.verified.items()}
    assert plan.verified_rounds >= 2 and "c1g5" in means and len(means) >= 2
    assert means["c1g5"] == 0.0                     # every playout: a5xb4 and Ra8xa1 take the King
    assert plan.texts[0] != "c1g5" and means[plan.texts[0]] == max(means.values()) > 0
    assert plan.value == next(v for v, line in plan.alternatives if line[0] == plan.actions[0])
    # The same board where Yellow's cards are all Peons: the Knight is taken.
    assert TurnPlanner(reply_depth=3, seconds=30.0, model=None).plan(threat("Peon"), random.Random(0)).texts[0] == "c1g5"


def test_without_a_time_budget_nothing_is_played_out():
    """A bot without time stays reproducible node for node: no verification (the board alone judges,
    as in the test above)."""
    plan = TurnPlanner(reply_depth=3, model=None).plan(threat("Bureaucracy"), random.Random(0))
    assert plan.verified_rounds == 0 and plan.texts[0] == "c1g5"


# -- issue 44: every defence a card offers is seen -------------------------------------------------------
def test_a_ban_laid_by_a_card_is_judged_on_the_board_the_next_turn_finds():
    """The survive-ban puzzles (tests/data/puzzles.toml, proved by the exhaustive verifier): a capture
    with Mourning bans the other attacker for the opponent's turn (C16, C20). The line ends in the Buy
    phase, before the turn does; the reply search must still see the ban, so the card's line
    survives the reply and every other line is seen lost at once (a loss in 1 ply, the lowest value
    of a line that ends the turn with the Sovereign on the board)."""
    from engine.crown.survival import forced_logit
    at_once = 1000 * forced_logit(1, won=False)
    puzzles = [p for p in load_puzzles() if p.kind == "survive-ban"]
    assert len(puzzles) >= 3
    for puzzle in puzzles:
        plan = TurnPlanner(reply_depth=3).plan(puzzle.state(), random.Random(0))
        assert plan.complete and plan.texts[0] in puzzle.solution, (puzzle.id, plan.texts)
        assert plan.value > at_once, (puzzle.id, plan.value)
        assert all(v <= at_once for v, line in plan.alternatives if line[0] != plan.actions[0]), puzzle.id


def test_the_board_at_a_lines_end_is_ended_as_the_game_ends_the_turn():
    """The planner's reply search starts from the board as the game leaves it at the turn's end
    (engine/crown/toolkit.py end_board_turn): the unit Mourning banned cannot move in it."""
    from engine import codes
    from engine.crown import toolkit as tk
    puzzle = next(p for p in load_puzzles() if p.id == "mourning-pair")
    g = puzzle.state(auto_chance=True)
    for text in ("play Mourning (order)", "e4d3"):
        g.apply_text(text)
    probe = g.board.copy()
    tk.end_board_turn(probe, 0, 1)
    rook = 3 * 8 + 2                                     # c4, next to the captured Knight on d3
    assert probe.has_status(rook, codes.ST_ORDERED) and not probe.status_bits(codes.ST_MOURNED)
    assert not any(codes.order_dest(o) == 2 for o in probe.generate())      # nothing reaches c1
    g.apply_text("end action phase")
    while g.current_player() == 0:                       # the Buy phase: play out the turn
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    assert g.board.status_bits(codes.ST_ORDERED) == probe.status_bits(codes.ST_ORDERED)


# land-lore-wide (tests/data/puzzles.toml): a planner tree of 32,244 nodes where Onslaught and
# Quartermaster, searched first, fill the budget; only Land Lore's deploy blocks the e-file.
def test_under_threat_every_first_action_gets_its_share_and_a_proved_defence_is_taken():
    puzzle = next(p for p in load_puzzles() if p.id == "land-lore-wide")
    g = puzzle.state()
    plan = TurnPlanner(max_nodes=12_000, reply_depth=3).plan(g, random.Random(0))
    assert not plan.complete and plan.nodes <= 12_001
    assert plan.defended and plan.texts[0] in puzzle.solution
    searched = {g.action_text(line[0]) for _, line in plan.alternatives}
    assert "play Land Lore (order)" in searched and "d1a1" in searched and "end order phase" in searched
    # The information-set search takes a proved defence from a plan it could not finish.
    stats = ISMCTS(iterations=20, seed=1, planner=TurnPlanner(max_nodes=12_000, reply_depth=3)).search(g)
    assert stats.source == "plan" and stats.best_text in puzzle.solution


def test_an_unfinished_plan_without_a_threat_is_not_called_a_defence():
    no_card = bureaucracy_puzzle(("Peon", "Guard"))          # nothing threatens Blue's King
    plan = TurnPlanner(max_nodes=20).plan(no_card)
    assert not plan.complete and not plan.defended


# -- a fixed budget's verification (verify_rounds): the review's and `ftc analyze`'s --------------------
def test_without_a_time_budget_verify_rounds_play_out_that_many_rounds_reproducibly():
    """``verify_rounds`` gives a node-bounded plan the verification a timed one has: exactly that
    many rounds, the same answer from the same seed (the expert's searches are node-bounded), and
    the Bureaucracy threat seen as above."""
    g = threat("Bureaucracy")
    plans = [TurnPlanner(reply_depth=3, model=None, verify_rounds=3).plan(g, random.Random(0)) for _ in range(2)]
    plan = plans[0]
    assert plan.verified_rounds == 3
    means = {g.action_text(a): m for a, m in plan.verified.items()}
    assert means["c1g5"] == 0.0 and plan.texts[0] != "c1g5" and means[plan.texts[0]] == max(means.values())
    assert (plans[1].texts, plans[1].verified) == (plan.texts, plan.verified)


def test_verify_lines_plays_out_given_lines_on_common_samples():
    g = threat("Bureaucracy")
    planner = TurnPlanner(reply_depth=3, model=None)
    by_text = {g.action_text(a): a for a in g.legal_actions()}
    lines = [(by_text["c1g5"],), (by_text["a1b1"],)]
    means, rounds = planner.verify_lines(g, lines, seed=5, rounds=2)
    assert rounds == 2 and means[0] == 0.0 and means[1] > 0.0      # the King off the file lives on
    assert planner.verify_lines(g, lines, seed=5, rounds=2) == (means, rounds)
    assert planner.verify_lines(g, lines, seed=5, rounds=2, deadline=0.0) == ([0.5, 0.5], 0)   # no time: no round
    with pytest.raises(ValueError, match="at least its first action"):
        planner.verify_lines(g, [()], seed=5)
    with pytest.raises(ValueError, match="not legal at this decision"):
        planner.verify_lines(g, [(10 ** 6,)], seed=5)


def test_verify_rounds_out_of_range_is_refused():
    for bad in (-1, 65):
        with pytest.raises(ValueError, match="verify_rounds must be 0..64"):
            TurnPlanner(verify_rounds=bad)


# -- a search cut short, and the narrow passes (issue 44) ---------------------------------------------
def test_first_is_searched_before_the_other_first_actions_so_a_cut_search_covers_it():
    """With 12 nodes the search of the Bureaucracy turn values one first action (a4xb5, the capture
    ordered first) and is cut. Ending the order phase is ordered last, so without ``first`` the cut
    search never values it; with ``first`` it is valued before anything else (its subtree, the
    Action phase with Bureaucracy's training, takes about 10 nodes)."""
    g = bureaucracy_puzzle()
    cut = TurnPlanner(max_nodes=12, narrow=True).plan(g, random.Random(0))
    assert not cut.complete and not cut.covers(A.DONE) and cut.covers(cut.alternatives[0][1][0])
    plan = TurnPlanner(max_nodes=12, narrow=True).plan(g, random.Random(0), first=A.DONE)
    assert not plan.complete and plan.covers(A.DONE)
    assert plan.texts[0] == "end order phase"
    assert plan.value == max(v for v, _ in plan.alternatives)


def test_the_information_set_search_takes_a_cut_plan_that_covers_the_prior_choice_and_beats_it():
    """The planner's 20 nodes cannot finish the turn. Told the prior's choice (the hint: end the
    order phase), the plan covers it and a4xb5 (a Knight won: 1.1 log-odds better), and decides for
    a4xb5. Told a4xb5 itself, no covered line beats it by ``OVERRIDE_MARGIN``, and the prior's
    choice stands; without a hint the plan cannot decide (as before issue 44's change)."""
    g = bureaucracy_puzzle()
    capture = next(a for a in g.legal_actions() if g.action_text(a) == "a4b5")
    hinted = ISMCTS(iterations=10, seed=1, planner=TurnPlanner(max_nodes=20, narrow=True)).search(g, hint=A.DONE)
    assert hinted.source == "plan" and hinted.best_text == "a4b5"
    itself = ISMCTS(iterations=10, seed=1, planner=TurnPlanner(max_nodes=20, narrow=True)).search(g, hint=capture)
    assert itself.source == "prior" and itself.best_text == "a4b5"
    unhinted = ISMCTS(iterations=10, seed=1, planner=TurnPlanner(max_nodes=20, narrow=True)).search(g)
    assert unhinted.source == "prior" and unhinted.best_text == "a4b5"
    plan = TurnPlanner(max_nodes=20, narrow=True).plan(g, random.Random(0), first=A.DONE)
    assert not plan.complete and plan.decides(A.DONE) and not plan.decides(capture) and not plan.decides(None)


def test_a_cut_plan_overrules_the_prior_only_by_the_margin():
    """``Plan.decides`` for a cut search of a planner with ``narrow``: the prior's choice must be
    covered, and another line must be at least ``OVERRIDE_MARGIN`` better than its best line; a
    line better by less leaves the prior's choice standing (a cut search's small leads are noise)."""
    from engine.crown.planner import OVERRIDE_MARGIN, Plan

    def cut(lead: float) -> Plan:
        return Plan(0, complete=False, overrules=True,
                    alternatives=[(100.0 + lead, (5, 6)), (100.0, (3, 4)), (50.0, (3, 8))])

    assert cut(OVERRIDE_MARGIN).decides(3) and cut(OVERRIDE_MARGIN + 1).decides(3)
    assert not cut(OVERRIDE_MARGIN - 1).decides(3) and not cut(1.0).decides(3)
    assert not cut(OVERRIDE_MARGIN).decides(9)                  # the prior's choice not covered
    assert not replace(cut(OVERRIDE_MARGIN), overrules=False).decides(3)
    assert replace(cut(0.0), complete=True).decides(3)          # the whole tree decides
    assert not replace(cut(0.0), complete=True, width=4).decides(3)   # a narrow pass's whole tree does not


def test_a_narrow_pass_keeps_the_actions_whose_boards_judge_best():
    """Width 1 below the top: after Bureaucracy only the order whose board judges best is tried at
    each decision. a4xb5 wins a Knight (the best board after one order) and opens the a-file, and
    then Ra1xa8 takes the Sovereign: the two-order win is found by the narrowest pass, which
    answers (a winning line ends the passes)."""
    plan = TurnPlanner(seconds=30.0, widths=(1,), narrow=True).plan(bureaucracy_puzzle(), random.Random(0))
    assert plan.winning and plan.width == 1
    assert plan.texts[:3] == ["play Bureaucracy (order)", "a4b5", "a1a8"]


def test_a_narrow_pass_that_leaves_nothing_out_is_the_whole_tree():
    """A lone King with eight squares and no cards: width 8 leaves no choice out (8 orders and
    ending the phase), so that pass is the whole tree at reply depth 1, which is not searched
    again: the passes and their nodes are those without narrow passes."""
    g = scenario("3r3k/8/8/8/8/8/8/4K3 w", supply=[])
    timed = TurnPlanner(reply_depth=2, seconds=30.0, widths=(8,), verify=False, narrow=True).plan(g, random.Random(0))
    plain = TurnPlanner(reply_depth=2, seconds=30.0, widths=(), verify=False).plan(g, random.Random(0))
    exact = TurnPlanner(reply_depth=2, max_nodes=10**6).plan(g, random.Random(0))
    assert timed.complete and timed.width is None and timed.reply_depth == 2
    assert timed.actions == exact.actions and timed.value == exact.value
    assert timed.nodes == plain.nodes == 2 * exact.nodes     # reply depth 1, then 2: one pass each


def _narrow_only(run):
    """``TurnPlanner._run`` whose passes over the whole tree find nothing in time (an empty,
    incomplete plan, as a budget spent before the first line leaves), so the narrow answer stands."""
    def wrapped(self, state, rng, judge, reply_depth=None, deadline=None, first=None, width=None):
        if width is None and judge:
            from engine.crown.planner import Plan
            return Plan(state.current_player(), complete=False)
        return run(self, state, rng, judge, reply_depth, deadline, first, width)
    return wrapped


def test_a_narrow_pass_without_draw_samples_looks_no_further_than_a_draw(monkeypatch):
    """lucky-versatility's win needs a draw's every outcome (Sanctuary draws the whole Deck). A
    narrow pass with ``draw_samples=0`` judges the board at the draw, so it cannot see the win; the
    pass over the whole tree that follows finds it (about 3,000 nodes); where that search finds
    nothing in time the narrow answer stands."""
    import engine.crown.planner as planner_module

    puzzle = next(p for p in load_puzzles() if p.id == "lucky-versatility")
    full = TurnPlanner(reply_depth=2, seconds=30.0, narrow=True).plan(puzzle.state(), random.Random(0))
    assert full.winning and full.width is None and full.texts[0] in puzzle.solution
    draws = []
    expand = TurnPlanner._chance
    monkeypatch.setattr(TurnPlanner, "_chance", lambda self, g: draws.append(g.turn) or expand(self, g))
    with pytest.MonkeyPatch.context() as only:
        only.setattr(TurnPlanner, "_run", _narrow_only(TurnPlanner._run))
        narrow = TurnPlanner(reply_depth=2, seconds=30.0, narrow=True, draw_samples=0).plan(puzzle.state(),
                                                                                            random.Random(0))
    assert narrow.complete and narrow.width == planner_module.PLAN_WIDTHS[-1] and not narrow.winning
    assert draws == [] and not narrow.sampled           # no draw's outcomes were searched
    g = puzzle.state()
    by_text = {g.action_text(a): a for a in g.legal_actions()}
    # Sanctuary's alternate order draws the whole Deck before the rest of the turn: its line is cut
    # at the draw, so the narrow pass has no answer for it, and the prior's choice decides there.
    # Among the lines it values, a4xc6 is the best (3.02 log-odds) and a1a3 far behind (2.03): the
    # plan overrules a1a3 as the prior's choice, but not a4c6 itself.
    drawing, best, poor = by_text["play Sanctuary (alternate order)"], by_text["a4c6"], by_text["a1a3"]
    assert not narrow.covers(drawing) and not narrow.decides(drawing)
    assert narrow.covers(poor) and narrow.decides(poor) and not narrow.decides(None)
    assert narrow.covers(best) and not narrow.decides(best)
    assert TurnPlanner(reply_depth=2, seconds=30.0, widths=()).plan(puzzle.state(), random.Random(0)).winning
    assert draws                                        # the whole tree searches them


def test_a_narrow_pass_looks_past_a_draw_at_a_sample_of_its_outcomes(monkeypatch):
    """With ``draw_samples`` (1 by default) a narrow pass searches one outcome of each draw,
    drawn by its probability: the Sanctuary line of lucky-versatility is valued (covered), past
    the whole Deck drawn. A line through sampled draws is an estimate, never a proved win: its
    value stays below ``WIN`` (the outcomes not searched may not win)."""
    import engine.crown.planner as planner_module

    puzzle = next(p for p in load_puzzles() if p.id == "lucky-versatility")
    sizes = []
    sample = planner_module._sample_outcomes
    monkeypatch.setattr(planner_module, "_sample_outcomes",
                        lambda outcomes, k, rng: sizes.append((len(outcomes), k)) or sample(outcomes, k, rng))
    with pytest.MonkeyPatch.context() as only:
        only.setattr(TurnPlanner, "_run", _narrow_only(TurnPlanner._run))
        narrow = TurnPlanner(reply_depth=2, seconds=30.0, narrow=True).plan(puzzle.state(), random.Random(0))
    assert narrow.complete and narrow.sampled and narrow.width is not None
    assert sizes and all(k == 1 and n > 1 for n, k in sizes)
    g = puzzle.state()
    drawing = next(a for a in g.legal_actions() if g.action_text(a) == "play Sanctuary (alternate order)")
    assert narrow.covers(drawing)
    assert all(v < planner_module.WIN for v, _ in narrow.alternatives) and not narrow.winning
    # A pass wide enough to leave no action out still sampled the draws: not the whole tree.
    with pytest.MonkeyPatch.context() as only:
        only.setattr(TurnPlanner, "_run", _narrow_only(TurnPlanner._run))
        wide = TurnPlanner(reply_depth=2, seconds=30.0, narrow=True, widths=(1000,)).plan(puzzle.state(),
                                                                                         random.Random(0))
    assert wide.sampled and wide.width == 1000 and not wide.decides(None)
    with pytest.raises(ValueError, match="draw_samples"):
        TurnPlanner(draw_samples=-1)
    with pytest.raises(ValueError, match="draw_samples"):
        TurnPlanner(draw_samples=planner_module.MAX_DRAW_SAMPLES + 1)


def test_a_draw_sampled_to_a_win_is_not_a_proved_win():
    """A draw whose sampled outcome wins values the line just below ``WIN`` (``SAMPLED_WIN``):
    the outcome not searched may not win, so the plan must not claim a won line (the
    information-set search plays a "win" without asking the prior). Every outcome searched, a win
    whatever is drawn is a win."""
    import engine.crown.planner as planner_module

    puzzle = next(p for p in load_puzzles() if p.id == "lucky-versatility")
    g = puzzle.state()
    g.auto_chance = False
    g.apply(next(a for a in g.legal_actions() if g.action_text(a) == "play Sanctuary (alternate order)"))
    assert g.is_chance_node() and len(g.chance_outcomes()) == 2
    planner = TurnPlanner()
    planner._judge = True
    planner._search = lambda child, top=False: (WIN, ())          # every outcome's line wins
    for samples, expected in ((1, planner_module.SAMPLED_WIN), (2, WIN), (0, WIN)):
        planner._samples, planner._draw_rng = samples, random.Random(0)
        assert planner._chance(g) == expected
    assert planner_module.SAMPLED_WIN < WIN


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_sampled_draw_outcomes_are_an_unbiased_estimate(k):
    """Systematic sampling: the weights sum to 1, each outcome more likely than 1/k is always
    sampled, and over many seeds each outcome's mean weight is its probability."""
    from engine.crown.planner import _sample_outcomes

    outcomes = [(0, 0.4), (1, 0.3), (2, 0.15), (3, 0.1), (4, 0.05)]
    mean = dict.fromkeys(range(5), 0.0)
    trials = 4000
    for seed in range(trials):
        sampled = dict(_sample_outcomes(outcomes, k, random.Random(seed)))
        assert sum(sampled.values()) == pytest.approx(1.0) and len(sampled) <= k
        assert all(card in sampled for card, p in outcomes if p > 1 / k)
        for card, weight in sampled.items():
            mean[card] += weight / trials
    for card, p in outcomes:
        assert mean[card] == pytest.approx(p, abs=0.02)


def test_a_sample_point_on_an_outcome_s_upper_edge_takes_the_next_outcome():
    """Each outcome owns the half-open stretch [its cumulative start, its end) of [0, 1): with u = 0
    (a generator that draws 0.0), two points 0 and 0.5 on two even outcomes take one each; were the
    stretches closed above, the point 0.5 would take the first outcome twice and the estimate
    would lean to it whenever a point lands on an edge."""
    from engine.crown.planner import _sample_outcomes

    class Zero(random.Random):
        def random(self) -> float:
            return 0.0

    assert _sample_outcomes([(7, 0.5), (9, 0.5)], 2, Zero()) == [(7, 0.5), (9, 0.5)]
    assert _sample_outcomes([(7, 0.25), (8, 0.25), (9, 0.5)], 4, Zero()) == [(7, 0.25), (8, 0.25), (9, 0.5)]


def test_without_widths_the_passes_are_the_whole_tree_at_each_reply_depth():
    g = scenario(LADDER, supply=[])
    plan = TurnPlanner(reply_depth=2, max_reply_depth=3, seconds=30.0, widths=(), narrow=True).plan(g, random.Random(0))
    assert plan.complete and plan.width is None and plan.reply_depth == 3
    with pytest.raises(ValueError, match="widths"):
        TurnPlanner(widths=(4, 2))
    with pytest.raises(ValueError, match="widths"):
        TurnPlanner(widths=(0,))


def test_the_line_of_a_cut_plan_is_not_followed_the_next_decision_plans_again(monkeypatch):
    """A whole plan's line is followed through the turn without planning again
    (test_ismcts_prior.py); a cut one's is not: the next decision, with less of the turn left,
    is planned anew."""
    calls = []
    original = TurnPlanner.plan

    def counting(self, state, rng=None, first=None):
        calls.append(first)
        return original(self, state, rng, first=first)

    monkeypatch.setattr(TurnPlanner, "plan", counting)
    g = bureaucracy_puzzle()
    search = ISMCTS(iterations=10, seed=1, planner=TurnPlanner(max_nodes=20, narrow=True))
    stats = search.search(g, hint=A.DONE)
    assert stats.source == "plan" and stats.best_text == "a4b5" and len(calls) == 1
    g.apply(stats.best)
    assert search.planner.plans(g, 0)                  # the same Order phase: the planner's again
    search.search(g, hint=g.legal_actions()[0])
    assert len(calls) == 2


def test_without_narrow_the_planner_and_the_ai_decide_as_before_issue_44s_change():
    """``narrow`` is not the AI's default (no SPRT has shown it stronger): without it ``first`` is
    not searched first, a cut plan never overrules the prior, and no narrow pass runs."""
    from engine.crown.players import make_bot

    g = bureaucracy_puzzle()
    cut = TurnPlanner(max_nodes=20).plan(g, random.Random(0), first=A.DONE)
    assert not cut.covers(A.DONE) and not cut.decides(A.DONE) and not cut.overrules
    # 25 nodes value a4xb5 and Guard (1.1 log-odds behind) in the usual order: covered, but a cut
    # plan without ``narrow`` does not overrule Guard.
    guard = next(a for a in g.legal_actions() if g.action_text(a) == "play Guard (order)")
    cut = TurnPlanner(max_nodes=25).plan(g, random.Random(0), first=guard)
    assert not cut.complete and cut.covers(guard) and not cut.decides(guard)
    stats = ISMCTS(iterations=10, seed=1, planner=TurnPlanner(max_nodes=20)).search(g, hint=A.DONE)
    assert stats.source == "prior" and stats.best_text == "end order phase"
    timed = TurnPlanner(reply_depth=2, seconds=30.0, verify=False).plan(scenario(LADDER, supply=[]), random.Random(0))
    assert timed.width is None and timed.reply_depth == 2
    assert not make_bot("ismcts:1s").searcher.planner.narrow
    assert make_bot("ismcts-narrow:1s").searcher.planner.narrow
