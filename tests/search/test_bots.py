"""Bots and evaluators (engine/crown/players.py, engine/search/ismcts.py, engine/board/evaluate.py): a
board that decides the game (C2, 10.0, as the variant applies it) outranks everything; the expert
rule-based bot plays every variant, buys by its stage rule, is reproducible and beats random."""

import math
import random

import pytest

from engine.board.alphabeta import AlphaBeta
from engine.board.evaluate import GAME_WON, board_value
from engine.crown import actions as A
from engine.crown.board_eval import board_winner, order_value
from engine.crown.config import GameConfig
from engine.crown.pieces import BoardEvaluator, HeuristicPlayout, TopOrders
from engine.crown.players import BOT_NAMES, ExpertBot, GreedyBot, make_bot
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.interfaces.cli import main
from engine.position import Position
from engine.search.ismcts import ISMCTS
from engine.search.match import play_game, play_match

# Blue may promote a7 to a Queen (the evaluator's favourite board) or take the last Yellow Sovereign.
PROMOTE_OR_WIN = "4k3/P7/8/8/8/8/8/4R1K1 w"


def promote_or_win():
    return scenario(PROMOTE_OR_WIN, hands=(["Peon"], []), decks=(["Peon"] * 5, ["Peon"] * 5))


def orders_by_text(g):
    return {g.action_text(a): a for a in g.legal_actions() if a < 1 << 28}


def last_stand_after_setup(seed=3):
    g = GameState(GameConfig(variant="last-stand", seed=seed, supply="first-game"))
    rng = random.Random(seed)
    while g.phase == "setup":
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_order_value_puts_the_winning_capture_above_a_queen_promotion():
    g = promote_or_win()
    orders = orders_by_text(g)
    assert order_value(g, orders["e1e8"]) == GAME_WON
    assert order_value(g, orders["a7a8q"]) < GAME_WON
    probe = g.board.copy()
    probe.apply_for(0, orders["a7a8q"])
    assert board_value(probe, 0, to_move=True) > 800          # the promotion the evaluator liked best


def test_greedy_takes_the_capture_that_ends_the_game_over_a_promotion():
    g = promote_or_win()
    assert g.action_text(GreedyBot(0).choose(g)) == "e1e8"


def test_top_orders_keeps_the_winning_capture():
    g = promote_or_win()
    kept = TopOrders(k=1)(g, g.legal_actions())
    assert [g.action_text(a) for a in kept if a < 1 << 28] == ["e1e8"]


def test_heuristic_playout_prefers_the_capture_that_ends_the_game():
    # Yellow has two Kings in the Charger's path: only the charge through both ends the game.
    g = scenario("8/8/8/8/8/4k3/4k3/4L1K1 w", hands=(["Peon"], []), supply=["Armor"])
    texts = g.legal_action_texts()
    assert {"e1e2", "e1e3"} <= set(texts.values())
    assert texts[HeuristicPlayout(epsilon=0.0).choose(g, random.Random(0))] == "e1e3"


def test_the_last_stand_is_not_won_by_the_defender_at_the_start():
    g = last_stand_after_setup()
    assert g.phase == "order" and not g.board.sovereign_present(0) and g.board.sovereign_present(1)
    assert board_winner(g) is None
    evaluate = BoardEvaluator()
    assert evaluate(g, 1) == pytest.approx(math.tanh(board_value(g.board, 1) / evaluate.scale))
    assert evaluate(g, 1) < 1.0 and evaluate(g, 0) > -1.0


def test_set_up_decides_nothing():
    g = GameState(GameConfig(variant="last-stand", seed=3, supply="first-game"))
    assert g.phase == "setup" and not g.board.sovereign_present(1)       # the Defender trains first
    assert board_winner(g) is None and abs(BoardEvaluator()(g, 0)) < 1.0


def test_a_decided_board_is_won_at_the_playout_cut_off_whatever_the_evaluator():
    g = promote_or_win()
    g.apply(orders_by_text(g)["e1e8"])                  # the turn's end will decide: Blue wins
    assert board_winner(g) == 0 and BoardEvaluator()(g, 0) == 1.0 and BoardEvaluator()(g, 1) == -1.0
    search = ISMCTS(iterations=1, evaluator=lambda state, player: 0.0, max_playout_turns=0, game="crown")
    assert search._playout(g.clone(), random.Random(0)) == [1.0, -1.0]
    judge_less = ISMCTS(iterations=1, evaluator=None, max_playout_turns=0, game="crown")
    assert judge_less._playout(g.clone(), random.Random(0)) == [1.0, -1.0]


def test_the_last_stand_capture_of_the_defender_sovereign_wins_for_the_attacker():
    config = GameConfig(variant="last-stand")
    g = scenario("4k3/8/8/8/8/8/8/4R3 w", hands=(["Peon"], []), supply=[], config=config)
    assert board_winner(g) is None
    assert order_value(g, orders_by_text(g)["e1e8"]) == GAME_WON
    assert g.action_text(GreedyBot(0).choose(g)) == "e1e8"


def test_the_expert_takes_the_capture_that_ends_the_game():
    g = promote_or_win()
    assert g.action_text(ExpertBot(0).choose(g)) == "e1e8"


@pytest.mark.parametrize("variant", ["standard", "point-buy", "last-stand"])
def test_the_expert_plays_whole_games_of_every_variant(variant):
    for seed, opponent in ((1, "random"), (2, "expert"), (3, "greedy")):
        config = GameConfig(seed=seed, variant=variant, max_turns=200)
        blue, yellow = (make_bot("expert", seed), make_bot(opponent, seed + 50))
        if seed % 2:
            blue, yellow = yellow, blue
        g = play_game(config, blue, yellow)       # an illegal action would raise IllegalActionError
        assert g.is_terminal() and g.over_reason
        assert g.history and all(len(step) == 2 for step in g.history)


# A buy phase with 4 gold and no card to play: what the stage rule buys.
SUPPLY = ["Armor", "Bureaucracy", "Patronage"]


def buying(board, discard=(), turns_taken=5, gold=4):
    g = scenario(board, hands=([], []), decks=(["Peon"] * 12, ["Peon"] * 8), discards=(list(discard), []),
                 supply=SUPPLY, phase="buy", gold=gold)
    g.turns_taken[0] = turns_taken
    return g


def bought(g):
    action = ExpertBot(0).choose(g)
    return g.action_text(action) if action != A.DONE else "nothing"


def test_the_expert_buys_by_the_stage_of_the_game():
    small = "4k3/8/8/8/8/8/8/4K3 w"                       # no army yet
    big = "4k3/8/8/8/8/8/8/QRRBK3 w"                      # 22 points of army
    expert = ExpertBot(0)
    assert expert.stage(buying(small, turns_taken=0), 0) == "opening"
    assert bought(buying(small, turns_taken=0)) == "buy Patronage (4 gold)"      # the most gold
    assert expert.stage(buying(small), 0) == "build"
    assert bought(buying(small)) == "buy Bureaucracy (3 gold)"                  # the most training points
    assert expert.stage(buying(big), 0) == "late"
    # late: a card giving its order back first (while fewer than 2), never a third terminal card,
    # else the most expensive; nothing under 3 gold in a Deck of more than 10 cards
    assert bought(buying(big, discard=["Armor", "Armor"])) == "buy Bureaucracy (3 gold)"
    assert bought(buying(big, discard=["Armor", "Armor", "Bureaucracy", "Bureaucracy"])) == "buy Patronage (4 gold)"
    assert bought(buying(big, discard=["Bureaucracy"] * 2, gold=5)) == "buy Consort (5 gold)"
    assert bought(buying(big, discard=["Bureaucracy"] * 2 + ["Consort"] * 2, gold=5)) == "buy Patronage (4 gold)"
    assert bought(buying(big, gold=2)) == "nothing"
    assert bought(buying(small, gold=2)) == "buy Champion (2 gold)"


def aviary_square(exposure):
    """The square the expert puts its Khan (a Sovereign that is Regal) on with Aviary, on a board
    where nothing threatens it anywhere: only its evaluation of the boards decides."""
    g = scenario("4k3/pppppppp/8/8/8/8/PPPPPPPP/4~K3 w", hands=(["Aviary", "Peon"], []),
                 decks=(["Peon"] * 5, ["Peon"] * 5), supply=["Aviary"])
    g.apply_text("play Aviary (order)")
    g.apply_text("Khan on e1")
    return g.action_text(ExpertBot(1, exposure=exposure).choose(g)).split()[-1]


def test_the_experts_sovereign_exposure_term_keeps_its_sovereign_home():
    # The term: ``exposure`` per rank a Sovereign stands beyond its second rank, the player's own
    # counted against it and the opponent's for it (ranks counted from each owner's side).
    g = scenario("8/8/8/4k3/8/8/8/4~K3 w")                  # Yellow's King on e5: its 4th rank
    expert = ExpertBot(0, exposure=40)
    assert expert._exposure(g, g.board, 0) == 40 * 2 and expert._exposure(g, g.board, 1) == -40 * 2
    # Its effect on a choice: without it the evaluation (which takes the sparse board for an endgame)
    # sends the Khan up the board; with it the Khan stays on its first two ranks.
    assert int(aviary_square(0)[1]) > 2
    assert int(aviary_square(40)[1]) <= 2


def test_the_expert_is_reproducible_for_a_seed():
    def game():
        return play_game(GameConfig(seed=4, max_turns=120), make_bot("expert", 7), make_bot("expert", 8)).history

    first = game()
    assert len(first) > 50 and game() == first


def test_make_bot_knows_the_expert():
    assert "expert" in BOT_NAMES
    bot = make_bot("expert", 3)
    assert isinstance(bot, ExpertBot) and bot.depth == 3
    assert make_bot("expert:2").depth == 2
    assert main(["match", "--a", "expert", "--b", "random", "--games", "2", "--json", "--max-turns", "60"]) == 0


def test_the_expert_beats_random():
    # 8 games, alternating sides, paired seeds: 8 wins (about 2 s).
    result = play_match(lambda s: make_bot("expert", s), lambda s: make_bot("random", s), 8, seed=5)
    assert result.wins == 8, result.details()


def test_the_board_search_can_be_restricted_to_some_root_orders():
    position = Position.from_text(PROMOTE_OR_WIN + " - - 0 1")
    codes_by_text = {o.text(): o.code for o in position.legal_orders()}
    assert AlphaBeta().search(position, depth=2).best.text() == "e1e8"
    allowed = [codes_by_text["g1g2"], codes_by_text["a7a8q"], 12345]      # a code it does not generate is left out
    result = AlphaBeta().search(position, depth=2, orders=allowed, top=3)
    assert {line.order for line in result.lines} == {"g1g2", "a7a8q"}
