"""The puzzle suite (tests/data/puzzles.toml), its exhaustive verifier and the solve-rate harness
(engine/crown/puzzles.py), and `ftc puzzles`."""

import dataclasses
import random
import subprocess
from collections import Counter

import pytest

from engine.board.alphabeta import MATE, AlphaBeta
from engine.crown.planner import TurnPlanner
from engine.crown.players import RandomBot
from engine.crown.puzzles import (
    DEFAULT_PUZZLES,
    IN_KEY,
    NOT_IN_KEY,
    PuzzleError,
    TreeTooLarge,
    check_puzzle,
    load_puzzles,
    parse_puzzles,
    solve_rate,
    state_key,
    verify,
)
from engine.crown.scenario import scenario
from engine.interfaces.cli import main
from engine.position import Position
from tests.support import FTC, ROOT, child_env

PUZZLES = load_puzzles()
BY_ID = {p.id: p for p in PUZZLES}


class OracleBot:
    """Always picks a first action the verifier proves solving (the smallest text of the set)."""

    def __init__(self, goal):
        self.goal = goal

    def reset(self):
        pass

    def choose_within(self, state, seconds):
        found = verify(state, self.goal)
        by_text = {state.action_text(a): a for a in state.legal_actions()}
        return by_text[min(found.solution)]


# -- the suite -------------------------------------------------------------------------------------
def test_the_suite_is_large_and_covers_every_kind():
    kinds = Counter(p.kind for p in PUZZLES)
    assert len(PUZZLES) >= 30
    assert set(kinds) == {"board", "one-card", "multi-card", "cylindrical", "survive", "survive-later",
                          "survive-wide", "survive-ban", "survive-block-wide"}
    assert min(kinds.values()) >= 3
    assert min(n for kind, n in kinds.items() if kind not in ("survive-ban", "survive-block-wide")) >= 5
    # Issue 44: at least 3 of each of its two kinds, both colours to move in each.
    for kind in ("survive-ban", "survive-block-wide"):
        assert kinds[kind] >= 3 and {p.solver for p in PUZZLES if p.kind == kind} == {0, 1}, kind
    # Issue 28: at least 15 survive puzzles of the two new kinds, both colours to move among them.
    new = [p for p in PUZZLES if p.kind in ("survive-later", "survive-wide")]
    assert len(new) >= 15 and {p.solver for p in new} == {0, 1}
    assert all(p.goal == "survive" for p in new)
    assert sum(not p.slow for p in PUZZLES) >= 30
    assert {p.solver for p in PUZZLES} == {0, 1}            # both colours to move somewhere
    for puzzle in PUZZLES:
        assert puzzle.description.strip() and puzzle.solution


@pytest.mark.parametrize("puzzle", [pytest.param(p, id=p.id, marks=[pytest.mark.slow] if p.slow else [])
                                    for p in PUZZLES])
def test_stored_solution_is_exactly_the_verifiers(puzzle):
    found = check_puzzle(puzzle)          # raises unless equal and non-trivial
    assert found.solution == puzzle.solution
    assert 0 < len(found.solution) < len(found.first_actions)


def test_a_wrong_stored_solution_is_caught():
    puzzle = BY_ID["temple-heir-yellow"]
    planted = dataclasses.replace(puzzle, solution=frozenset({"play Temple (order)", "a8a7"}))
    with pytest.raises(PuzzleError, match=r"missing \['play Heir \(order\)'\], not solving \['a8a7'\]"):
        check_puzzle(planted)
    # A puzzle nothing solves (the Rook on a1 cannot reach e8) is trivial, even stored rightly as [].
    hopeless = parse_puzzles(GOOD.replace("4R2K w", "R3K3 w").replace('["e1e8"]', "[]"))[0]
    with pytest.raises(PuzzleError, match="trivial: 0 of"):
        check_puzzle(hopeless)


# -- the survive kinds of issue 28 ------------------------------------------------------------------
LATER = [p for p in PUZZLES if p.kind == "survive-later"]
WIDE = [p for p in PUZZLES if p.kind == "survive-wide"]
#: The planner tree a "survive-wide" puzzle must exceed: the node cap of ismcts:1s before issue 28.
OLD_PLANNER_CAP = 4_000


def _after_defence(puzzle):
    """The puzzle's state after its stored defence line: the side to move's whole turn."""
    g = puzzle.state(auto_chance=True)
    g.rng = random.Random(0)
    start = g.turn
    for text in puzzle.defence:
        assert g.current_player() == puzzle.solver and g.turn == start, (puzzle.id, text)
        g.apply_text(text)
    return g


@pytest.mark.parametrize("puzzle", [pytest.param(p, id=p.id) for p in LATER])
def test_survive_later_the_defence_holds_one_turn_and_the_board_search_sees_the_loss_after_it(puzzle):
    assert puzzle.defence[0] in puzzle.solution
    g = _after_defence(puzzle)
    opponent = 1 - puzzle.solver
    # The line is a whole turn: the opponent is to move in the next turn.
    assert g.current_player() == opponent and g.turn == puzzle.state().turn + 1
    # It survives: the opponent cannot win this turn. Its hand is empty (asserted), so no draw of
    # its turn can matter and "cannot win for every draw" is "cannot win at all".
    assert not g.zones[opponent].hand
    assert verify(g, "win-this-turn").solution == set()
    # The board search the planner judges a line's end with (depth 3, opponent to move, the planner's
    # node limit) proves the Sovereign lost, beyond the opponent's next order: 3 plies or more.
    units = g.units
    result = AlphaBeta(units, tt_megabytes=4).search(Position.from_core(g.board.copy(), units), depth=3,
                                                      nodes=20_000)
    assert result.score > MATE - 1000, (puzzle.id, result.score)       # a mate for the opponent
    assert MATE - result.score >= 3, (puzzle.id, MATE - result.score)


def test_survive_later_a_wrong_defence_is_caught():
    # guard-battery's Knight deployed to a1 blocks nothing: the doubled Rooks take the King at once.
    puzzle = next(p for p in LATER if p.id == "guard-battery")
    wrong = dataclasses.replace(puzzle, defence=("play Guard (order)", "Knight", "deploy Knight to a1"))
    g = _after_defence(wrong)
    assert verify(g, "win-this-turn").solution == {"c7c1"}


def _tree(puzzle) -> int:
    """The planner's tree of the puzzle's turn, complete: find_win walks the same tree as plan when no
    line wins (a value only cuts at a win; the reply depth changes leaf values, not the tree)."""
    found = TurnPlanner(max_nodes=10**7).find_win(puzzle.state(), random.Random(0))
    assert found.complete and not found.winning
    return found.nodes


@pytest.mark.parametrize("puzzle", [pytest.param(p, id=p.id, marks=[] if p.id == "onslaught-wide" else
                                                 [pytest.mark.slow]) for p in WIDE])
def test_survive_wide_the_planner_tree_is_larger_than_the_old_cap(puzzle):
    assert _tree(puzzle) > OLD_PLANNER_CAP


def test_find_win_and_plan_walk_the_same_tree_on_a_wide_puzzle():
    puzzle = next(p for p in WIDE if p.id == "onslaught-wide")
    plan = TurnPlanner(max_nodes=10**7, reply_depth=3).plan(puzzle.state(), random.Random(0))
    assert plan.complete and plan.nodes == _tree(puzzle)


# -- the survive kinds of issue 44 ------------------------------------------------------------------
BANS = [p for p in PUZZLES if p.kind == "survive-ban"]
BLOCKS = [p for p in PUZZLES if p.kind == "survive-block-wide"]
#: The planner tree a "survive-block-wide" puzzle must exceed.
WIDE_BLOCK_TREE = 30_000


@pytest.mark.parametrize("puzzle", [pytest.param(p, id=p.id) for p in BANS])
def test_survive_ban_a_plain_capture_loses_and_the_turn_goes_on_to_a_buy_choice(puzzle):
    """Every capture the card's attack could make, as a plain order, leaves an attacker free (the
    verifier says it does not survive), and after the card's capture the turn is not over: the Buy
    phase still offers a choice (a line of the planner ends there, before the turn does)."""
    g = puzzle.state()
    found = verify(g, "survive")
    captures = [text for text, ok in found.first_actions.items()
                if len(text) == 4 and g.board.unit_on(_square(text[2:])) is not None]
    assert captures and not any(found.first_actions[text] for text in captures)
    after = puzzle.state(auto_chance=True)
    after.rng = random.Random(0)
    card = next(iter(puzzle.solution))
    after.apply_text(card)
    after.apply_text(next(t for t in after.legal_action_texts().values() if t[2:] in {c[2:] for c in captures}))
    while after.phase != "buy":
        after.apply_text(next(t for t in after.legal_action_texts().values() if t.startswith("end ")))
    assert after.current_player() == puzzle.solver and len(after.legal_actions()) > 1


def _square(name: str) -> int:
    return (int(name[1]) - 1) * 8 + ord(name[0]) - ord("a")


@pytest.mark.parametrize("puzzle", [pytest.param(p, id=p.id, marks=[] if p.id == "land-lore-diagonal" else
                                                 [pytest.mark.slow]) for p in BLOCKS])
def test_survive_block_wide_the_planner_tree_is_wide(puzzle):
    assert _tree(puzzle) > WIDE_BLOCK_TREE


# -- the verifier ----------------------------------------------------------------------------------
def test_verifier_on_a_hand_derived_position():
    # Derived by hand: the Rook on e1 has 4 + 2 orders along the first rank and 7 up the e-file, the
    # King on h1 has g1, g2 and h2, and the Order phase may be ended: 17 first actions. Only e1e8
    # captures Yellow's only Sovereign; after any other first action Blue has no order left and the
    # Action and Buy phases (no cards) cannot capture, so Yellow still has its King at the turn's end.
    g = scenario("4k3/8/8/8/8/8/8/4R2K w", supply=[], auto_chance=False)
    found = verify(g, "win-this-turn")
    assert len(found.first_actions) == 17
    assert found.solution == {"e1e8"}
    # Survive: Yellow has no unit that could capture the King on h1, so every first action survives.
    assert len(verify(g, "survive").solution) == 17


def test_a_first_action_must_win_for_every_draw():
    # lucky-versatility, derived by hand: Versatility leaves Sanctuary in the hand; discarding it draws
    # one card of a Deck holding one Temple and one Peon. The Temple wins (Temple moves the Bishop,
    # its extra order lets the Rook take a8); the Peon does not. So Versatility first wins for one of
    # the two draws only and is not in the solution; Sanctuary's alternate order draws both.
    puzzle = BY_ID["lucky-versatility"]
    g = puzzle.state()
    g.apply_text("play Versatility (order)")
    g.apply_text("Sanctuary")
    assert g.is_chance_node() and set(g.legal_action_texts().values()) == {"draw Temple", "draw Peon"}
    outcomes = {}
    for action, text in g.legal_action_texts().items():
        child = g.clone()
        child.apply(action)
        outcomes[text] = bool(verify(child, "win-this-turn").solution)
    assert outcomes == {"draw Temple": True, "draw Peon": False}
    found = verify(puzzle.state(), "win-this-turn")
    assert found.first_actions["play Versatility (order)"] is False
    assert found.solution == {"play Sanctuary (alternate order)"}


def test_the_opponent_chooses_against_the_solver():
    # wanderlust: Yellow chooses where its King marches (C10); every square it can reach is covered, so
    # the card wins whatever Yellow picks. With the Rook on g1 gone, g8 is safe and Yellow picks it.
    assert verify(BY_ID["wanderlust"].state(), "win-this-turn").solution == {"play Wanderlust (order)"}
    g = scenario("7k/R7/8/8/8/8/8/K7 w", hands=(["Wanderlust"], []), supply=["Wanderlust"], auto_chance=False)
    assert verify(g, "win-this-turn").solution == set()


def test_state_key_reads_every_attribute_of_a_state():
    g = BY_ID["academy"].state()
    assert set(vars(g)) == IN_KEY | NOT_IN_KEY
    assert not IN_KEY & NOT_IN_KEY


def test_state_key_merges_transpositions_and_tells_states_apart():
    def after(*texts):
        g = scenario("4k3/8/8/8/8/8/P6P/4K3 w", supply=[], auto_chance=False, orders=2)
        for text in texts:
            g.apply_text(text)
        return g

    assert state_key(after("a2a3", "h2h3")) == state_key(after("h2h3", "a2a3"))
    assert state_key(after("a2a3", "h2h3")) != state_key(after("a2a4", "h2h3"))
    assert state_key(after("a2a3")) != state_key(after("h2h3"))


def test_verifier_leaves_the_state_alone_and_refuses_big_trees():
    g = BY_ID["academy"].state()
    key, history = state_key(g), list(g.history)
    verify(g, "survive")
    assert state_key(g) == key and g.history == history and not g.auto_chance
    with pytest.raises(TreeTooLarge, match="more than 50 distinct states"):
        verify(g, "survive", node_limit=50)
    with pytest.raises(PuzzleError, match="unknown goal"):
        verify(g, "best-buy")


# -- the format ------------------------------------------------------------------------------------
GOOD = '''
[[puzzle]]
id = "rook"
kind = "board"
description = "a Rook takes the lone King (10.0)"
goal = "win-this-turn"
board = "4k3/8/8/8/8/8/8/4R2K w"
solution = ["e1e8"]
'''


@pytest.mark.parametrize("change, message", [
    (('goal = "win-this-turn"', 'goal = "best-buy"'), "goal 'best-buy' is not one of"),
    (('kind = "board"', 'kind = "chess"'), "kind 'chess' is not one of"),
    (('solution = ["e1e8"]', 'solution = "e1e8"'), "'solution' must be a list"),
    (('board = "4k3/8/8/8/8/8/8/4R2K w"', 'board = "4k3/8/8/8/8/8/8/4R2K w"\ncolour = 1'), "unknown fields"),
    (('board = "4k3/8/8/8/8/8/8/4R2K w"', 'board = "4k3/8/8/8/8/8/8/4R2K w"\nhands = [["Peon"]]'),
     "'hands' must be"),
    (('board = "4k3/8/8/8/8/8/8/4R2K w"', 'board = "4k3/8/8/8/8/8/8/4R2K w"\nhands = [["Nope"], []]'),
     "cannot be built"),
    (('board = "4k3/8/8/8/8/8/8/4R2K w"', 'board = "4k3/8/8/8/8/8/8/4R2K w"\ncounters = {orders = -1}'),
     "'counters'"),
    (('board = "4k3/8/8/8/8/8/8/4R2K w"', 'board = "4k3/8/8/8/8/9/8/4R2K w"'), "cannot be built"),
    (('solution = ["e1e8"]', 'solution = ["e1e8"]\ndefence = "e1e8"'), "'defence' must be a list"),
    (('solution = ["e1e8"]', 'solution = ["e1e8"]\ndefence = ["e1e8"]'), "'defence' belongs to survive"),
    (('kind = "board"', 'kind = "survive-wide"'), "kind 'survive-wide' needs goal 'survive'"),
    (('kind = "board"\ndescription = "a Rook takes the lone King (10.0)"\ngoal = "win-this-turn"',
      'kind = "survive-later"\ndescription = "a Rook takes the lone King (10.0)"\ngoal = "survive"'),
     "needs its 'defence' line"),
])
def test_bad_puzzles_are_named_with_their_field(change, message):
    with pytest.raises(PuzzleError, match=message):
        parse_puzzles(GOOD.replace(*change), "file.toml")


def test_bad_files():
    assert parse_puzzles(GOOD)[0].solution == {"e1e8"}
    with pytest.raises(PuzzleError, match="used twice"):
        parse_puzzles(GOOD + GOOD)
    with pytest.raises(PuzzleError, match="not valid TOML"):
        parse_puzzles("[[puzzle]\n")
    with pytest.raises(PuzzleError, match="expected one or more \\[\\[puzzle\\]\\] tables"):
        parse_puzzles("x = 1\n")


# -- the solve-rate harness ------------------------------------------------------------------------
def test_a_bot_that_plays_the_proven_line_solves_everything():
    for goal in ("win-this-turn", "survive"):
        puzzles = [p for p in PUZZLES if p.goal == goal]
        report = solve_rate(lambda: OracleBot(goal), puzzles, seconds=1.0)
        assert report.solved == len(puzzles), [r for r in report.results if not r.solved]
        assert report.rate == 1.0
    multi = [r for r in solve_rate(lambda: OracleBot("win-this-turn"), [BY_ID["three-sovereigns"]], 1.0).results]
    assert multi[0].decisions > 3                        # the bot played the whole turn, card by card


def test_random_bot_solves_some_and_not_all_reproducibly():
    first = solve_rate(lambda: RandomBot(7), PUZZLES, seconds=0.1, seed=3)
    again = solve_rate(lambda: RandomBot(7), PUZZLES, seconds=0.1, seed=3)
    assert [r.solved for r in first.results] == [r.solved for r in again.results]
    assert 0 <= first.solved < len(PUZZLES)
    assert first.lines()[-1].startswith(f"solved {first.solved}/{len(PUZZLES)} (")


def test_a_right_first_action_is_not_enough_for_a_win():
    class FirstOnly(OracleBot):
        """Plays the proven first action, then ends every phase (or takes the first option)."""

        calls = 0

        def choose_within(self, state, seconds):
            self.calls += 1
            if self.calls == 1:
                return super().choose_within(state, seconds)
            texts = state.legal_action_texts()
            ends = [a for a, t in texts.items() if t.startswith("end ")]
            return ends[0] if ends else state.legal_actions()[0]

    result = solve_rate(lambda: FirstOnly("win-this-turn"), [BY_ID["temple"]], 1.0).results[0]
    assert result.first == "play Temple (order)" and not result.solved
    assert "did not win" in result.note
    with pytest.raises(ValueError, match="positive"):
        solve_rate(lambda: FirstOnly("win-this-turn"), [BY_ID["temple"]], 0)


# -- ftc puzzles -----------------------------------------------------------------------------------
def test_cli_missing_file_is_a_clear_error_not_a_traceback(tmp_path):
    missing = tmp_path / "nope.toml"
    run = subprocess.run(FTC + ["puzzles", "--file", str(missing), "--bot", "greedy"], capture_output=True,
                         text=True, env=child_env(), cwd=ROOT)
    assert run.returncode == 2
    assert run.stderr.strip() == f"ftc: error: {missing}: no such puzzle file"
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("argv, message", [
    (["--bot", "nobot"], "bad --bot 'nobot'"),
    (["--seconds", "0"], "argument --seconds: expected a positive number, got 0"),
    (["--only", "nope"], "no puzzle named nope"),
])
def test_cli_bad_options(capsys, argv, message):
    try:
        code = main(["puzzles", *argv])
    except SystemExit as exc:                # the argument parser's own check
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_cli_reports_each_puzzle_and_the_rate(capsys):
    assert main(["puzzles", "--bot", "greedy", "--only", "oracle,temple", "--seconds", "0.5"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("ok   oracle") and out[1].startswith("MISS temple")
    assert out[-1] == "solved 1/2 (50.0%) at 0.5 s per decision (greedy)"
    assert main(["puzzles", "--verify", "--only", "discovery"]) == 0
    out = capsys.readouterr().out
    assert "ok discovery" in out and "8/17" in out and "verified 1 puzzles" in out


def test_default_file_is_the_suite():
    assert DEFAULT_PUZZLES.is_file() and DEFAULT_PUZZLES.name == "puzzles.toml"
