"""`ftc review RECORD` (issue 42, engine/games/review.py, docs/review.md) on seeded records of all
four games: the labels reproduce with the same seed and budget, the best choice is `ftc analyze --at`'s
at the same decision, budget and seed, a planted blunder (a move that loses the game at once) is
labelled a blunder, the review of a player does not depend on the cards hidden from that player, and
bad input is one line. Budgets are small (a few decisions, 60-200 iterations, depth 2-4)."""

import json
import random

import pytest

from engine.games import registry
from engine.games.records import _walk, record_points
from engine.games.review import review_decision
from engine.interfaces import cli
from engine.interfaces.cli import main

#: A small fixed budget per game (the review's options of that game).
BUDGET = {"crown": ["--iterations", "60"], "kings-ransom": ["--iterations", "60"],
          "crownfall": ["--iterations", "60"], "crusade": ["--depth", "2"]}
GAMES = tuple(BUDGET)


def random_record(name: str, seed: int, decisions: int) -> dict:
    """A record of ``decisions`` seeded random decisions of the game ``name`` from its start."""
    state = registry.get(name).start({"seed": seed})
    rng = random.Random(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state.record()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("review")
    paths = {}
    for name in GAMES:
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(random_record(name, 3, 4)))
    return paths


def review(capsys, path, *options) -> dict:
    assert main(["review", str(path), "--json", "--workers", "1", *options]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_gives_the_same_review(name, records, capsys):
    first = review(capsys, records[name], *BUDGET[name], "--seed", "7")
    again = review(capsys, records[name], *BUDGET[name], "--seed", "7")
    assert first["complete"] and first["of"] == len(record_points(json.loads(records[name].read_text())))
    assert [d["label"] for d in first["decisions"]] == [d["label"] for d in again["decisions"]]
    assert first["decisions"] == again["decisions"] and first["summary"] == again["summary"]
    for d in first["decisions"]:
        assert d["loss"] == max(0.0, round(d["value"] - d["played_value"], 6)) or d["loss"] == pytest.approx(
            max(0.0, d["value"] - d["played_value"]), abs=1e-3)
        assert d["label"] in ("good", "inaccuracy", "mistake", "blunder")
    assert sum(s["decisions"] for s in first["summary"]) == len(first["decisions"])


def _analyze_best(name: str, report: dict) -> str:
    """The best choice an `ftc analyze --json` report names (each game's report has its shape)."""
    if name in ("crown", "kings-ransom"):
        return report["plan"][0]["text"]
    if name == "crownfall":
        return report["best_text"]
    return report["best"]


@pytest.mark.parametrize("name", GAMES)
def test_the_best_choice_is_the_one_analyze_at_names(name, records, capsys):
    # Crusade & Conquer's analyze --at of a record searches to the default depth, 4, and one line (--top
    # 1): a search of several lines (multi-PV) is another search, which may rank the moves otherwise.
    budget = BUDGET[name] if name != "crusade" else []
    top = ["--top", "1"] if name == "crusade" else []
    reviewed = review(capsys, records[name], *budget, "--seed", "5", "--player", "0")
    assert reviewed["decisions"]
    for d in reviewed["decisions"][:2]:
        assert main(["analyze", str(records[name]), "--at", str(d["decision"]), "--json", "--seed", "5",
                     *budget, *top]) == 0
        analysed = json.loads(capsys.readouterr().out)
        assert analysed["at"]["decision"] == d["decision"]
        assert _analyze_best(name, analysed) == d["best"]


# -- planted blunders: a decision edited to a legal move that loses the game at once -------------------
def _prefix(name: str, seed: int, decisions: int):
    """The game of ``seed`` after ``decisions`` seeded random decisions."""
    state = registry.get(name).start({"seed": seed})
    rng = random.Random(seed)
    for _ in range(decisions):
        state.apply(rng.choice(state.legal_actions()))
    return state


def _opponent_wins_at_once(state, player: int, replies: int) -> bool:
    """Whether ``player``'s opponent, to decide in ``state``, wins within ``replies`` of its own
    decisions (checked by trying them all)."""
    if state.is_terminal():
        return state.winner is not None and state.winner != player
    if replies == 0 or state.current_player() in (player, -1):
        return False
    for action in state.legal_actions():
        after = state.clone()
        after.apply(action)
        if _opponent_wins_at_once(after, player, replies - 1):
            return True
    return False


def _lost_whatever(state, player: int, replies: int, own: int) -> bool:
    """Whether ``player`` has lost at once in ``state``: whatever it does with the rest of its turn
    (up to ``own`` decisions; None: its last legal choice each time, as the planted record plays
    it), its opponent then wins within ``replies`` decisions."""
    if state.current_player() == player and not state.is_terminal():
        if own is None:                 # the rest of the turn as the planted record plays it
            return _lost_whatever(_after(state, state.legal_actions()[-1]), player, replies, None)
        if own == 0:
            return False
        return all(_lost_whatever(_after(state, a), player, replies, own - 1) for a in state.legal_actions())
    return _opponent_wins_at_once(state, player, replies)


def _after(state, action):
    after = state.clone()
    after.apply(action)
    return after


def _planted(name: str, seed: int, decision: int, text: str, replies: int, own: int) -> tuple[dict, int]:
    """The record of the seeded random game up to ``decision``, where the player plays ``text``,
    after checking that it loses at once (and that another choice there does not); the player's
    turn is then ended with its last legal choices. Returns the record and the decision number."""
    state = _prefix(name, seed, decision - 1)
    player = state.current_player()
    by_text = {state.action_text(a): a for a in state.legal_actions()}
    blunder = by_text[text]
    assert _lost_whatever(_after(state, blunder), player, replies, own), f"{text} does not lose at once"
    assert any(not _lost_whatever(_after(state, a), player, replies, own) for a in by_text.values() if a != blunder)
    state.apply(blunder)
    while not state.is_terminal() and state.current_player() == player:
        state.apply(state.legal_actions()[-1])
    return state.record(), decision


def test_a_planted_blunder_is_labelled_a_blunder_crusade(tmp_path, capsys):
    # Blue's Knight on e1 (its X square, RULINGS H8b) keeps Red's Flag Bearer on d2 off it: moving the
    # Knight lets the Flag Bearer step onto the X at once (Red wins); a King or Pawn move holds.
    start = "7k/8/8/8/8/8/3f3P/4N2K w - 0 1"
    game = registry.get("crusade")
    reviews = {}
    for move in ("h2h3", "e1c2"):
        state = game.start({"position": start})
        state.apply_text(move)
        path = tmp_path / f"{move}.json"
        path.write_text(json.dumps(state.record()))
        reviews[move] = review(capsys, path, "--depth", "3", "--player", "Blue")["decisions"][0]
    assert reviews["h2h3"]["label"] == "good"
    blunder = reviews["e1c2"]
    assert blunder["label"] == "blunder" and blunder["played"] == "e1c2" and blunder["best"] != "e1c2"
    assert blunder["played_value"] <= -300 and blunder["loss"] >= 300


@pytest.mark.parametrize("name, seed, decision, text, replies, own", [
    # Blue's order b2b3 leaves its Sovereign to Yellow's first order of the next turn (C-rules: the
    # game ends when a Sovereign is captured); the rest of Blue's turn: its last legal choices.
    pytest.param("crown", 1, 137, "b2b3", 1, None, id="crown-sovereign"),
    # Red's move a2b3 leaves its King to Blue's next turn, whatever Red does with the rest of its turn.
    pytest.param("kings-ransom", 2, 14, "move a2b3", 3, 3, id="kings-ransom-king"),
    # Blue ends its turn in round 6 with actions left: Red then wins within two decisions (the round's
    # end scores the tracks, 15.0), whatever Blue does next; Blue's other choices hold.
    pytest.param("crownfall", 4, 32, "Blue: end the turn", 2, 1, id="crownfall-round-end"),
])
def test_a_planted_blunder_is_labelled_a_blunder(name, seed, decision, text, replies, own):
    record, number = _planted(name, seed, decision, text, replies, own)
    entry = review_decision(record, number, {"iterations": 200, "seed": 0})
    assert entry["played"] == text and entry["best"] != text
    assert entry["label"] == "blunder", entry
