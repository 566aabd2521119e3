"""Crownfall's bots (issue 27): every bot returns a legal action in 2, 3 and 4-player games at every kind
of decision (a turn, a March that may go on, an Archmage's placement, the last action before the end of
the round, explicit chance); seeded reproducibility; the search finds an immediate win; the expert's
rules of thumb (engine/crownfall/expert.py) each on a constructed position; the time budget."""

import random
import time

import pytest

from engine.crownfall import actions as A
from engine.crownfall import expert as X
from engine.crownfall.config import CrownfallConfig
from engine.crownfall.core import STRONGHOLD
from engine.crownfall.expert import ExpertBot, table_value
from engine.crownfall.players import CrownfallISMCTSBot, make_bot
from engine.crownfall.state import CrownfallState
from engine.games import registry
from tests.crownfall.support import RULES, banner, begin, play, reg, tower, unstarted

BLUE, RED, GREEN = 0, 1, 2
SPECS = ("random", "greedy", "expert", "ismcts:25", "mcts:25")


def decision_points(players: int, chance: str = "auto", seeds=range(40)) -> dict[str, CrownfallState]:
    """One state of each kind of decision, found along random games."""
    found: dict[str, CrownfallState] = {}
    for seed in seeds:
        s = CrownfallState(CrownfallConfig.from_json({"players": players, "seed": seed, "chance": chance}))
        rng = random.Random(seed)
        while not s.is_terminal() and len(found) < 4:
            if s.is_chance_node():
                s.apply(rng.choice(s.chance_cards()))
                continue
            kind = s.stage
            if kind == "turn" and s.actions_left == 1 and s.order_index == players - 1:
                kind = "end-of-round"
            found.setdefault(kind, s.clone())
            s.apply(rng.choice(s.legal_actions()))
        if len(found) == 4:
            break
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_bot_returns_a_legal_action_at_every_kind_of_decision(players):
    points = decision_points(players)
    assert set(points) == {"turn", "march", "place", "end-of-round"}
    for kind, state in points.items():
        for spec in SPECS:
            bot = make_bot(spec, 3)
            before = state.public_key()
            assert bot.choose(state) in state.legal_actions(), (players, kind, spec)
            assert state.public_key() == before                # the state asked about is not changed


def test_the_search_crosses_explicit_chance_at_the_end_of_the_round():
    # With explicit chance the Objective draw after the round's last action is a chance node the
    # search samples itself (RULINGS I7); the answer is still a legal action.
    state = decision_points(2, chance="explicit")["end-of-round"]
    bot = make_bot("ismcts:60", 1)
    stats = bot.search(state)
    assert stats.best in state.legal_actions() and stats.iterations == 60


def test_seeded_bots_play_the_same_game_twice():
    def game(seed):
        s = registry.get("crownfall").start({"players": 3, "seed": 5})
        bots = [make_bot("ismcts:20", seed), make_bot("expert", seed), make_bot("greedy", seed)]
        while not s.is_terminal():
            s.apply(bots[s.current_player()].choose(s))
        return s.record()
    assert game(1) == game(1)


def winning_position():
    """Red (Emberglass at Frostmark) has one action left in the last turn of round 1; 5 Crown and 6
    Arcana: holding the Keep at the end of the round gives the sixth Crown and the win (14.0, 15.0).
    The Objectives (three Towers, a battle won against a Tower) are out of reach in one action."""
    g = unstarted(objectives=("three-towers", "tower-battle"), rounds=3)
    banner(g, RED, "dawnmere", 2)
    banner(g, BLUE, "south-barrow")
    g.tracks[RED] = [5, 6, 0]
    g.tracks[BLUE] = [1, 1, 1]
    begin(g)
    play(g, "end")
    g.actions_left = 1
    g._legal = None
    return g


def test_the_search_finds_an_immediate_winning_action():
    g = winning_position()
    winning = set()
    for a in g.legal_actions():                              # the oracle: every action played out
        child = g.clone()
        child.apply(a)
        if child.is_terminal() and child.winners == (RED,):
            winning.add(a)
    # Raise a Banner in the Keep or March one of the two Banners there; nothing else wins.
    keep = reg("keep")
    assert winning == {A.encode_raise(keep, g.R), A.encode_march_banner(reg("dawnmere"), keep, g.R)}
    assert len(g.legal_actions()) > 10
    for seed in range(3):
        assert make_bot("ismcts:200", seed).choose(g) in winning


def test_the_root_turn_is_ranked_by_the_expert_and_other_turns_by_quick_score():
    """The prune and the prior of the search (engine/crownfall/pieces.py) use the expert's ranking
    in the root player's own turn only: there the expert's 6 best come first and its best is the
    prior's; in the next player's turn the prune is the 12 best by quick_score."""
    from engine.crownfall.pieces import ExpertRanks, HeuristicPlayout, QuickPrior, TopActions, quick_score

    g = decision_points(2)["turn"]
    p = g.current_player()
    prune, prior, playout = TopActions(), QuickPrior(), HeuristicPlayout()
    bot = make_bot("ismcts:30", 1)
    bot.search(g)
    searcher = bot.searcher
    assert searcher.prune.turn == searcher.prior.turn == searcher.playout.turn == (sum(g.turns_started), p)
    for piece in (prune, prior, playout):
        piece.begin_search(g, p)
    legal = g.legal_actions()
    expert_order = [a for a, _ in sorted(ExpertBot(0).rank(g), key=lambda x: (-x[1], x[0]))]
    kept = prune(g, legal)
    assert kept[:6] == expert_order[:6]
    memo = {}
    quick = sorted(legal, key=lambda a: (-quick_score(g, p, a, memo), a))[:12]
    assert set(kept) == set(expert_order[:6]) | set(quick) | ({A.END} & set(legal))
    assert prior.suggest(g, random.Random(0)) == expert_order[0] == ExpertRanks().suggest(g, random.Random(0))
    # The playout finishes the root turn as the expert would, whatever its generator draws.
    assert {playout.choose(g, random.Random(seed)) for seed in range(20)} == {expert_order[0]}
    # The same turn's next decision is still the root player's turn.
    later = g.clone()
    later.apply(kept[0])
    if not later.is_terminal() and later.current_player() == p and len(later.legal_actions()) > 1:
        assert prune.in_root_turn(later)
    # Another player's turn: quick_score alone.
    other = g.clone()
    while not other.is_terminal() and (other.current_player() == p or other.is_chance_node()):
        other.apply(A.END if A.END in other.legal_actions() else other.legal_actions()[0])
    q = other.current_player()
    assert q != p and not prune.in_root_turn(other)
    legal = other.legal_actions()
    memo = {}
    quick = sorted(legal, key=lambda a: (-quick_score(other, q, a, memo), a))[:12]
    assert set(prune(other, legal)) == set(quick) | ({A.END, A.STOP} & set(legal))
    assert prior.suggest(other, random.Random(0)) == max(legal, key=lambda a: (quick_score(other, q, a, {}), -a))
    # Elsewhere the playout is the quick policy: the best quick_score with a jitter, sometimes random.
    assert len({playout.choose(other, random.Random(seed)) for seed in range(40)}) > 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_table_values_are_each_players_table_value(players):
    """``table_values`` (every player at once, the search's evaluator) equals ``table_value`` asked
    player by player, along a whole expert game."""
    from engine.crownfall.pieces import CrownfallEvaluator

    g = CrownfallState(CrownfallConfig.from_json({"players": players, "seed": 7}))
    bot, evaluator = ExpertBot(1), CrownfallEvaluator()
    while True:
        assert X.table_values(g) == [table_value(g, p) for p in range(players)]
        assert evaluator.values(g) == [evaluator(g, p) for p in range(players)]
        if g.is_terminal():
            break
        g.apply(bot.choose(g))


@pytest.mark.parametrize("players", [2, 4])
def test_a_playout_is_judged_when_the_root_players_next_turn_starts(players):
    """Crownfall's playouts run one turn of every player (SEARCH_OPTIONS: ``every_player_answers``):
    a line that starts in the root player's turn is judged when that player's next turn starts, or
    at the game's end."""
    from engine.crownfall.pieces import CrownfallEvaluator

    g = decision_points(players)["turn"]
    p = g.current_player()
    start = sum(g.turns_started)
    judged = []

    class Spy(CrownfallEvaluator):
        def __call__(self, state, player):
            judged.append((sum(state.turns_started), state.current_player(), state.is_terminal()))
            return super().__call__(state, player)

        def values(self, state):
            judged.append((sum(state.turns_started), state.current_player(), state.is_terminal()))
            return super().values(state)

    bot = CrownfallISMCTSBot(iterations=40, seed=3, evaluator=Spy())
    bot.search(g)
    assert judged
    # Lines whose tree part stayed in the root's turn: judged at the root player's next turn.
    at_root_turn = [(n, q) for n, q, over in judged if not over and n == start + players]
    assert at_root_turn and all(q == p for _, q in at_root_turn)
    assert all(over or n >= start + players for n, _, over in judged)


def test_a_time_budget_is_kept():
    g = decision_points(4)["turn"]
    bot = make_bot("ismcts", 2)
    worst = 0.0
    for budget in (0.05, 0.2):
        start = time.perf_counter()
        assert bot.choose_within(g, budget) in g.legal_actions()
        worst = max(worst, time.perf_counter() - start - budget)
    assert worst < 0.1, worst


def test_bot_specs_and_bad_ones():
    assert isinstance(make_bot("mcts:0.5s"), CrownfallISMCTSBot) and make_bot("mcts:0.5s").searcher.seconds == 0.5
    assert make_bot("ismcts:300").searcher.iterations == 300
    assert isinstance(make_bot("expert"), ExpertBot)
    for spec, words in (("ismcts:0", "'0' is not a budget"), ("mcts:fast", "'fast' is not a budget"),
                        ("expert:3", "unknown bot 'expert:3'"), ("genius", "known: random, greedy, expert, ismcts")):
        with pytest.raises(ValueError, match=words):
            make_bot(spec)


# -- the expert's rules of thumb (engine/crownfall/expert.py's numbered list) ---------------------------
def ranks(g):
    return dict(ExpertBot(0).rank(g))


def test_rule_1_focus_tracks_weigh_more():
    g = unstarted(houses=["briar", "emberglass"])             # Briar chases Arcana and Dominion
    begin(g)
    focus, leverage = g.clone(), g.clone()
    focus.tracks[BLUE][1] += 1                               # a point of Arcana (focus)
    leverage.tracks[BLUE][0] += 1                            # a point of Crown (leverage)
    assert table_value(focus, BLUE) > table_value(leverage, BLUE) > table_value(g, BLUE)


def test_rule_2_the_table_is_projected_over_the_rounds_left():
    g = unstarted()
    banner(g, BLUE, "keep")
    begin(g)
    assert X.rounds_left(g) == 6
    crown_now = X.projected_tracks(g)[BLUE][0]
    later = g.clone()
    later.round = 6
    assert X.rounds_left(later) == 1
    assert crown_now > X.projected_tracks(later)[BLUE][0] >= 1       # the Keep's Crown, and more rounds to come


def test_rule_3_keep_and_ruins_first():
    g = registry.get("crownfall").start({"seed": 4})
    # Blue (Thorn Coast) may raise in South Barrow (a Ruin), Saltmere, Westwatch or Westhollow.
    assert g.action_text(ExpertBot(0).choose(g)) == "Blue: Raise a Banner in South Barrow"


def test_rule_5_networks_before_towers():
    g = unstarted()
    banner(g, BLUE, "saltmere")                               # linked to the Home Tower at Thorn Coast
    banner(g, BLUE, "greywater")                              # alone, far from any network
    begin(g)
    r = ranks(g)
    linked = [r[A.encode_fortify(reg("saltmere"), role, g.R)] for role in range(4)]
    alone = [r[A.encode_fortify(reg("greywater"), role, g.R)] for role in range(4)]
    assert min(linked) > max(alone)
    assert max(alone[1], alone[3]) < r[A.END]                  # no Sanctum or Beacon outside a network


def test_rule_6_no_research_beyond_the_house_school():
    g = unstarted()
    begin(g)
    g.mana[BLUE] = 6
    r = ranks(g)
    travel = RULES.schools.index("travel")                   # Tidebound's school
    for school in range(4):
        action = A.encode_research(school, g.R)
        if school == travel:
            assert r[action] > r[A.END]
        else:
            assert r[action] < r[A.END] - 5
    g.levels[BLUE][travel] = X.RESEARCH_CAP
    g._legal = None
    assert ranks(g)[A.encode_research(travel, g.R)] < ranks(g)[A.END]


def test_rule_7_the_opening_template():
    g = unstarted()
    begin(g)
    play(g, "raise", "south-barrow")                         # the expansion action is taken
    bot = ExpertBot(0)
    research = A.encode_research(RULES.schools.index("travel"), g.R)
    fortify = A.encode_fortify(reg("south-barrow"), STRONGHOLD, g.R)
    raise_again = A.encode_raise(reg("saltmere"), g.R)
    opening = {X.action_category(g, a) for a in X.turn_actions_so_far(g)}
    assert opening == {"expansion"}
    assert bot.adjust(g, g, BLUE, research, opening) == pytest.approx(X.OPENING_BONUS + bot.adjust(g, g, BLUE, research, None))
    assert bot.adjust(g, g, BLUE, fortify, opening) == pytest.approx(X.OPENING_BONUS + bot.adjust(g, g, BLUE, fortify, None))
    assert bot.adjust(g, g, BLUE, raise_again, opening) == bot.adjust(g, g, BLUE, raise_again, None)


def test_rule_8_only_battles_that_win_and_threats_are_answered():
    g = unstarted(houses=["tidebound", "emberglass"])
    banner(g, BLUE, "south-barrow")
    banner(g, RED, "keep")                           # 1 against 1: the defender wins
    begin(g)
    r = ranks(g)
    attack = A.encode_march_banner(reg("south-barrow"), reg("keep"), g.R)
    assert r[attack] < max(r.values()) and ExpertBot(0).choose(g) != attack
    # With two Watchtowers next to the Keep the attack wins (3 against 1) and is the best action.
    g2 = unstarted(houses=["tidebound", "emberglass"])
    banner(g2, BLUE, "south-barrow", 2)
    for key in ("westhollow", "old-abbey"):
        banner(g2, BLUE, key)
        tower(g2, BLUE, key, "watchtower")
    banner(g2, RED, "keep")
    begin(g2)
    chosen = ExpertBot(0).choose(g2)
    assert A.decode(chosen, g2.R)[0] == "march-banner" and A.decode(chosen, g2.R)[2] == reg("keep")
    g2.apply(chosen)
    assert g2.events[-1]["winner"] == BLUE and g2.owner(reg("keep")) == BLUE
    # A region Red would take next turn (Red's Banner at Dawnmere with a Watchtower next door) is a
    # threat; the same table with a Stronghold in place of Red's Watchtower is not.
    def threatened(role):
        g3 = unstarted(houses=["tidebound", "briar"])        # no Emberglass bonus against Blue's Home Tower
        banner(g3, BLUE, "keep")
        banner(g3, RED, "dawnmere")
        banner(g3, RED, "westhollow")
        tower(g3, RED, "westhollow", role)
        return begin(g3)
    g3, calm = threatened("watchtower"), threatened("stronghold")
    assert X.threats(g3, BLUE) == [reg("keep")] and X.threats(calm, BLUE) == []
    keep_worth = X.region_worth(g3, BLUE, reg("keep"))
    assert table_value(calm, BLUE) - table_value(g3, BLUE) == pytest.approx(X.THREAT_SHARE * keep_worth)
    r3 = ranks(g3)
    stronghold = A.encode_fortify(reg("keep"), STRONGHOLD, g3.R)
    assert r3[stronghold] == max(r[1] for r in r3.items() if A.decode(r[0], g3.R)[0] == "fortify")


def test_rule_9_redwall_builds_strongholds():
    g = unstarted(houses=["redwall", "briar"], homes=["thorn-coast", "frostmark"])
    banner(g, BLUE, "saltmere")
    begin(g)
    r = ranks(g)
    fortify = {role: r[A.encode_fortify(reg("saltmere"), role, g.R)] for role in range(4)}
    assert max(fortify, key=fortify.get) == STRONGHOLD


def test_rule_10_the_leader_is_the_one_to_hurt():
    g = unstarted(players=3)
    begin(g)
    g.tracks[BLUE] = [3, 3, 3]                               # Blue leads, Green trails
    g.tracks[GREEN] = [1, 1, 1]
    leader_hurt, trailer_hurt = g.clone(), g.clone()
    leader_hurt.tracks[BLUE] = [3, 2, 3]                     # a point of Arcana: a focus track of both
    trailer_hurt.tracks[GREEN] = [1, 0, 1]
    base = table_value(g, RED)
    assert table_value(leader_hurt, RED) - base > table_value(trailer_hurt, RED) - base > 0
