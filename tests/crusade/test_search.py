"""Crusade & Conquer's alpha-beta (engine/crusade/search.py over ext/_search.pyx with chess
legality): only legal moves, checkmate and stalemate scores (RULINGS H8a), the X win and its
revived exception (H8b), the halfmove draw (H8c), the threat test of flights (H7), the player and
`ftc analyze --game crusade`; and For the Crown's search unchanged node for node."""

from __future__ import annotations

import json
import random

import pytest

from engine.board.alphabeta import MATE, format_score
from engine.crusade.players import make_bot
from engine.crusade.position import CrusadePosition
from engine.crusade.search import CrusadeSearch, crusade_weights, position_of
from engine.crusade.state import CrusadeConfig, CrusadeState
from engine.interfaces.cli import main


@pytest.fixture(scope="module")
def search():
    return CrusadeSearch(tt_megabytes=4)


def fresh(search):
    search.new_game()
    return search


# ----------------------------------------------------------------------------- For the Crown unchanged

# Node counts of For the Crown's alpha-beta at depth 6 (classical evaluation, fresh table): the same
# search must visit exactly the same nodes and choose the same order, whatever a game on the same
# kernel (Crusade's chess legality) adds. First taken from the build of main at d850db5, before the
# search learnt Crusade's rules (3086 / 19509 / 4576 nodes); taken again at 8fed185, whose search
# changed on purpose (singular extensions, continuation history: an A/B match measured it), and
# again when the search stopped extending a threatened Sovereign (an SPRT measured it,
# docs/nnue-matches.md "The threat extension"; 4962 / 19509 / 10083 nodes before), and again when
# the late-move reductions deepened (an SPRT measured it, docs/nnue-matches.md "Deeper late-move
# reductions"; 3088 / 19502 / 2619 nodes and +0.25 at the start before), and again when the static
# evaluation took the correction history (an SPRT measured it, docs/nnue-matches.md "The correction
# history"; 3195 / 19502 / 4801 nodes, +0.30 at the start and a1g7 +10.52 in the last before), and
# again when the ordering took the continuation history four plies back (an SPRT measured it,
# docs/nnue-matches.md "The continuation history four plies back"; 3061 / 19777 / 4845 nodes, +0.41
# at the start and a1a2 in the last before).
CROWN_NODES = [
    ("startpos", 3470, "e2e3", 25),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1", 19777, "e2a6", -90),
    ("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", 4701, "a1f6", 1122),
]


@pytest.mark.parametrize("text,nodes,best,score", CROWN_NODES)
def test_for_the_crown_search_visits_the_same_nodes_as_before(text, nodes, best, score):
    from engine import NAMED_POSITIONS
    from engine.board.alphabeta import AlphaBeta
    from engine.position import Position
    result = AlphaBeta(evaluation="classical").search(Position.from_text(NAMED_POSITIONS.get(text, text)), depth=6)
    assert (result.nodes, result.best.text(), result.score) == (nodes, best, score)


# ----------------------------------------------------------------------------- legality

def _random_positions(count: int, seed: int) -> list[CrusadeState]:
    """States met in seeded random games from the start (every 3rd ply, up to 60 plies)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = CrusadeState()
        for ply in range(rng.randrange(6, 60)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
            if ply % 3 == 2 and not state.is_terminal():
                out.append(state.clone())
    return out[:count]


def test_the_search_returns_only_legal_moves_and_legal_lines(search):
    # Property: on 60 positions of random games, the best move is in the kernel's legal list and
    # every move of every principal variation is legal where it is played.
    for state in _random_positions(60, seed=5):
        position = position_of(state)
        result = fresh(search).search(position, depth=3, top=3)
        legal = position.legal_orders()
        assert result.best.code in legal, position.text()
        for line in result.lines:
            replay = position.copy()
            for move in line.pv:
                replay.push(move)                # MoveTextError if a move is not legal there


def test_threat_test_sees_a_check_by_flight(search):
    # H7: the Dragon on a1 flies over its Pawns a2, a3 and takes on a4: Red's King there is in
    # check. The search's fast threat map (reach tables, then the generator) must equal the
    # generator's full one; a Dragon's reach is its eight lines, not the squares an empty board shows.
    position = CrusadePosition.from_text("8/8/8/8/k7/P7/P7/DK6 b - 0 1")
    assert position.in_check()
    fast, full = search._kernel.coverage_check(position.core, 0)
    assert fast == full and (full >> 24) & 1                       # a4
    # Hand-checked mate by flight: Dh5-h6, then h8 is attacked over the Pawn h7 (H7); g8 is the Pawn
    # h7's, g7 the King f6's, h7 is guarded by the Pawn g6. The checkmate is only seen as one if the
    # search's threat test sees the flight (else it scores as a stalemate, 0).
    position = CrusadePosition.from_text("7k/7P/5KP1/7D/8/8/8/8 w - 0 1")
    result = fresh(search).search(position, depth=2)
    assert result.best.text() == "h5h6" and result.score == MATE - 1
    for state in _random_positions(40, seed=11):
        for colour in (0, 1):
            fast, full = search._kernel.coverage_check(state.pos.core, colour)
            assert fast == full, state.pos.text()


# ----------------------------------------------------------------------------- the end of the game

def test_checkmate_scores_as_mate_and_stalemate_as_a_draw(search):
    # Hand-checked: Qg7 is mate (the King f6 guards g7; h8's King has no square), Qg6 stalemates
    # (g8, g7, h7 all covered, h8 not attacked) and scores 0 although Blue is a Queen up.
    position = CrusadePosition.from_text("7k/8/5K2/6Q1/8/8/8/8 w - 0 1")
    result = fresh(search).search(position, depth=3, top=40)
    scores = {line.order: line.score for line in result.lines}
    assert result.best.text() == "g5g7" and result.score == MATE - 1 and format_score(result.score) == "mate in 1"
    assert scores["g5g6"] == 0
    # The same at inner nodes of the main search (depth 3 below the root, not quiescence).
    for move, score in (("g5g7", MATE - 1), ("g5g6", 0)):
        scored, _, _, _ = fresh(search)._kernel.search_root(position.core, 3, [position.parse_move(move)])
        assert scored[0][0] == score, move
    # Every other order keeps Blue ahead, and none mates at once (some mate in 2, e.g. Qh6 Kg8 Qg7,
    # which a search extended past 3 plies may see).
    assert all(0 < s < MATE - 1 for m, s in scores.items() if m not in ("g5g7", "g5g6"))


def test_mate_in_two_is_found_at_its_distance_and_slides_stop_at_the_castle(search):
    # Hand-checked: Rb3-g3 shuts the g-file, the King can only go to h7, Ra4-h4 mates (or the other
    # way round): mate in 2
    # (3 plies). No mate in 1: a check on the h-file lets the King out by the g-file, and a rook
    # on the 8th rank stops on c8, the castle's lower floor, before reaching the King (H3).
    position = CrusadePosition.from_text("7k/8/8/8/R7/1R6/8/6K1 w - 0 1")
    result = fresh(search).search(position, depth=5)
    assert result.score == MATE - 3 and format_score(result.score) == "mate in 2"
    assert result.best.text() in ("b3g3", "a4g4")          # either rook shuts the g-file
    # Blue: Ra1, Rb2 -- the rook roll of chess (Ra7, Rb8) fails here: slides along ranks 1, 2, 7
    # and 8 stop on the castles' floors, so it is no mate in 2.
    position = CrusadePosition.from_text("7k/8/8/8/8/8/1R6/R5K1 w - 0 1")
    assert fresh(search).search(position, depth=5).score < MATE - 1000


def test_a_flag_bearer_step_onto_the_x_wins_and_a_revived_one_does_not(search):
    # H8b: f7e8 puts Blue's Flag Bearer on Red's X (e8): a win at once (mate score at ply 1).
    position = CrusadePosition.from_text("3k4/5F2/8/8/8/8/8/4K3 w - 0 1")
    result = fresh(search).search(position, depth=2)
    assert result.best.text() == "f7e8" and result.score == MATE - 1
    # The same at an inner node of the tree (the move searched to depth 3 by the kernel's root
    # loop: the won position is a node of the main search, not of quiescence).
    scored, _, stopped, _ = fresh(search)._kernel.search_root(position.core, 3, [position.parse_move("f7e8")])
    assert scored[0][0] == MATE - 1 and not stopped
    # A Pawn exchanged for the fallen Flag Bearer on e8 has not won (it did not step there): that
    # line scores as a position, far from a mate, and Red is to move in it.
    position = CrusadePosition.from_text("k7/4P3/8/8/8/8/8/4K3 w [F] 0 1")
    result = fresh(search).search(position, depth=1, top=20)
    scores = {line.order: line.score for line in result.lines}
    assert abs(scores["e7e8=F"]) < MATE - 1000
    position.push("e7e8=F")
    assert position.status() == "play" and "revived:e8" in position.text()


def test_the_halfmove_clock_draws(search):
    # H8c: at 99 plies without a capture or a Pawn move, every move of Blue's (no capture, no Pawn)
    # draws, whatever the Queen is worth; at 90 plies the Queen counts.
    drawn = CrusadePosition.from_text("4k3/8/8/8/8/8/8/QK6 w - 99 80")
    assert fresh(search).search(drawn, depth=3).score == 0
    assert fresh(search).search(CrusadePosition.from_text("4k3/8/8/8/8/8/8/QK6 w - 90 80"), depth=3).score > 500


def test_a_repetition_of_the_game_scores_as_a_draw(search):
    # The state's earlier positions go with the position (position_of): a return to one is a draw.
    state = CrusadeState(CrusadeConfig(position="4k3/8/8/8/8/8/8/QK6 w - 0 1"))
    for move in ("b1c1", "e8d8", "c1b1", "d8e8"):
        state.apply_text(move)
    position = position_of(state)
    assert len(position.core.history_keys()) == 4
    result = fresh(search).search(position, depth=2, top=40)
    assert {line.order: line.score for line in result.lines}["b1c1"] == 0   # back to a seen position


# ----------------------------------------------------------------------------- evaluation, player, commands

def test_the_evaluation_values_the_flag_bearer_race(search):
    # The same material; the Flag Bearer one step from Red's X (e8 free, Red's King far from it)
    # is worth far more than one at home (docs/crusade.md: x_race, x_unstoppable).
    near = CrusadePosition.from_text("k7/5F2/8/8/8/8/8/4K3 b - 0 1")
    home = CrusadePosition.from_text("k7/8/8/8/8/8/5F2/4K3 b - 0 1")
    weights = crusade_weights()
    gap = search.evaluate(home) - search.evaluate(near)
    assert gap >= weights.x_unstoppable + weights.x_race[1][1] - weights.x_race[1][5] - 100


def test_the_alphabeta_player_and_its_specs():
    state = CrusadeState()
    assert make_bot("alphabeta:0.05s").choose(state) in state.legal_actions()
    assert make_bot("alphabeta:2").choose_within(state, 0.05) in state.legal_actions()
    mate = CrusadeState(CrusadeConfig(position="7k/8/5K2/6Q1/8/8/8/8 w - 0 1"))
    assert mate.action_text(make_bot("alphabeta").choose(mate)) == "g5g7"
    for spec, message in (("alphabeta:0", "is not a budget"), ("alphabeta:fast", "is not a budget"),
                          ("alphabeta:-1s", "is not a budget"), ("minimax", "known: random, greedy, alphabeta")):
        with pytest.raises(ValueError, match=message):
            make_bot(spec)


def test_ftc_analyze_game_crusade(capsys):
    assert main(["analyze", "--game", "crusade", "7k/8/5K2/6Q1/8/8/8/8 w - 0 1", "--depth", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # A mate within the horizon ends the deepening at once (engine/board/alphabeta.py).
    assert report["best"] == "g5g7" and report["score_text"] == "mate in 1" and report["complete"]
    assert main(["analyze", "--game", "crusade", "startpos", "--depth", "3", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("position: rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w - 0 1\n1. ")
    assert "2. " in out and "depth 3" in out
    assert main(["analyze", "--game", "crusade", "3k4/8/8/8/8/8/8/4K3 w - 0 1", "--json"]) == 0   # bare Kings
    assert main(["analyze", "--game", "crusade", "k7/8/8/8/8/8/8/K7 w - 0 1 revived:a1", "--json"]) == 2
    assert "revived: a1 must hold a Flag Bearer" in capsys.readouterr().err
    assert main(["analyze", "--game", "crusade", "3kF3/8/8/8/8/8/8/4K3 b - 0 1"]) == 0   # won on the X
    assert "the game is over: Blue's Flag Bearer is on the X" in capsys.readouterr().out


def test_ftc_match_alphabeta_against_greedy(capsys):
    assert main(["match", "--game", "crusade", "--a", "alphabeta:2", "--b", "greedy", "--games", "2",
                 "--seed", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and report["a"] == "alphabeta:2" and len(report["outcomes"]) == 2
