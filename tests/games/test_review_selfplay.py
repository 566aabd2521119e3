"""`ftc review` on the records `ftc selfplay --records DIR` writes, for all four games (issue 42's
"Done when"): the record made by the command itself (one seeded game each), reviewed twice with the
same seed and budget (the same labels and values, field for field), again with another seed (the
same decisions, players and played actions, each labelled), and the review's best choice is the one
`ftc analyze FILE --at N` names at the same decision, budget and seed.

The selfplay seeds are the seeds of short games (found by a seeded scan of `ftc selfplay --games 300
--records`: the fewest decisions of each game), so that a whole review takes a few seconds; the
budgets are small (20 iterations of the tree search, Crusade & Conquer's default depth 4, which its
`ftc analyze --at` searches)."""

import json

import pytest

from engine.crusade.search import REVIEW_CAP
from engine.games import registry
from engine.games.records import record_points, state_before
from engine.games.review import LABELS
from engine.interfaces.cli import main

#: The selfplay seed of each game (the game's record: game-<seed>.json) and its decisions.
SELFPLAY = {"crown": (248, 31), "kings-ransom": (48, 20), "crusade": (146, 50), "crownfall": (32, 19)}
#: The review's and the analysis's budget per game.
BUDGET = {"crown": ["--iterations", "20"], "kings-ransom": ["--iterations", "20"],
          "crownfall": ["--iterations", "20"], "crusade": []}
GAMES = tuple(SELFPLAY)


@pytest.fixture(scope="module")
def selfplay_records(tmp_path_factory):
    """The record file of each game, written by `ftc selfplay --records`."""
    folder = tmp_path_factory.mktemp("selfplay-records")
    paths = {}
    for name, (seed, _decisions) in SELFPLAY.items():
        assert main(["selfplay", "--game", name, "--games", "1", "--seed", str(seed), "--workers", "1",
                     "--records", str(folder / name)]) == 0
        paths[name] = folder / name / f"game-{seed}.json"
    return paths


@pytest.fixture(scope="module")
def reviews(selfplay_records):
    """The reviews already made, by (game, seed, player option): each made once per module."""
    return {}


def review(capsys, reviews, path, name, seed, *options) -> dict:
    key = (name, seed, options)
    if key not in reviews:
        capsys.readouterr()
        assert main(["review", str(path), "--json", "--workers", "1", *BUDGET[name], "--seed", str(seed),
                     *options]) == 0
        reviews[key] = json.loads(capsys.readouterr().out)
    return reviews[key]


def _played_texts(record: dict) -> list[tuple[int, str]]:
    """(player, text) of each decision of the record, read by replaying it to that decision."""
    steps = registry.for_record(record).walk(record)[1]
    return [(point.player, state_before(record, point).action_text(steps[point.step][1]))
            for point in record_points(record)]


@pytest.mark.parametrize("name", GAMES)
def test_a_selfplay_record_is_reviewed_the_same_twice_with_the_same_seed(name, selfplay_records, reviews, capsys):
    path = selfplay_records[name]
    record = json.loads(path.read_text())
    assert len(record_points(record)) == SELFPLAY[name][1]
    first = review(capsys, reviews, path, name, 7)
    capsys.readouterr()
    assert main(["review", str(path), "--json", "--workers", "1", *BUDGET[name], "--seed", "7"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert first["game"] == name and first["complete"] and first["of"] == SELFPLAY[name][1]
    assert [d["decision"] for d in first["decisions"]] == list(range(1, SELFPLAY[name][1] + 1))
    assert [d["label"] for d in again["decisions"]] == [d["label"] for d in first["decisions"]]
    assert again["decisions"] == first["decisions"] and again["summary"] == first["summary"]
    for d in first["decisions"]:
        assert d["label"] in LABELS and d["loss"] == pytest.approx(max(0.0, d["value"] - d["played_value"]), abs=1e-3)
    assert [(d["player"], d["played"]) for d in first["decisions"]] == _played_texts(record)


@pytest.mark.parametrize("name", GAMES)
def test_a_selfplay_record_is_reviewed_decision_by_decision_with_another_seed(name, selfplay_records, reviews,
                                                                              capsys):
    # Another seed searches otherwise where the game's search is randomised (and samples the hidden
    # cards otherwise): the values may differ, the review's structure may not.
    path = selfplay_records[name]
    seven = review(capsys, reviews, path, name, 7)
    other = review(capsys, reviews, path, name, 8, "--player", "0")
    assert other["complete"] and other["players"] == [0]
    mine = [d for d in seven["decisions"] if d["player"] == 0]
    assert other["of"] == len(mine) > 0
    fields = ("decision", "turn", "player", "seat", "played")
    assert [{f: d[f] for f in fields} for d in other["decisions"]] == [{f: d[f] for f in fields} for d in mine]
    for d in other["decisions"]:
        assert d["label"] in LABELS and d["line"] and d["line"][0] == d["best"]
        assert d["loss"] == pytest.approx(max(0.0, d["value"] - d["played_value"]), abs=1e-3)
    assert other["summary"][0]["decisions"] == len(mine)
    assert sum(other["summary"][0]["counts"].values()) == len(mine)


def _analyze_best(name: str, report: dict) -> str:
    """The best choice an `ftc analyze --json` report names (each game's report has its shape)."""
    if name in ("crown", "kings-ransom"):
        return report["plan"][0]["text"]
    if name == "crownfall":
        return report["best_text"]
    return report["best"]


@pytest.mark.parametrize("name", GAMES)
def test_the_review_of_a_selfplay_record_names_analyze_ats_best_choice(name, selfplay_records, reviews, capsys):
    # Three decisions of each game (its first, one in the middle, its last), both seats among them;
    # Crusade & Conquer's analysis with --top 1 (a search of several lines is another search).
    path = selfplay_records[name]
    reviewed = review(capsys, reviews, path, name, 7)["decisions"]
    top = ["--top", "1"] if name == "crusade" else []
    picked = [reviewed[0], reviewed[len(reviewed) // 2 + 1], reviewed[-1]]
    assert {d["player"] for d in picked} == {0, 1}
    for d in picked:
        capsys.readouterr()
        assert main(["analyze", str(path), "--at", str(d["decision"]), "--json", "--seed", "7", *BUDGET[name],
                     *top]) == 0
        analysed = json.loads(capsys.readouterr().out)
        assert analysed["at"] == {"decision": d["decision"], "of": SELFPLAY[name][1], "turn": d["turn"],
                                  "player": d["player"]}
        assert _analyze_best(name, analysed) == d["best"], d


def test_analyze_at_searches_a_crusade_record_to_the_depth_given(selfplay_records, reviews, capsys):
    # The review's budget --depth 2 is analyze --at's too: the depth reached and the best choice agree
    # (analyze of a record once searched to its default depth 4 whatever --depth said).
    path = selfplay_records["crusade"]
    capsys.readouterr()
    assert main(["review", str(path), "--json", "--workers", "1", "--depth", "2", "--player", "1"]) == 0
    reviewed = json.loads(capsys.readouterr().out)["decisions"]
    for d in (reviewed[0], reviewed[-1]):
        assert main(["analyze", str(path), "--at", str(d["decision"]), "--json", "--depth", "2", "--top", "1"]) == 0
        analysed = json.loads(capsys.readouterr().out)
        assert analysed["depth"] == 2 and d["searched"].startswith("alpha-beta depth 2")
        # The same score, the review's capped at a forced result's REVIEW_CAP centi-points.
        assert analysed["best"] == d["best"] and max(-REVIEW_CAP, min(REVIEW_CAP, analysed["score"])) == d["value"], d


@pytest.mark.parametrize("name, option", [("crown", ["--depth", "3"]), ("crown", ["--eval", "nnue"])])
def test_an_option_a_game_files_analysis_does_not_take_is_one_line(name, option, selfplay_records, capsys):
    # For the Crown's --depth, --eval ... are its position search's; a record is searched by ISMCTS.
    assert main(["analyze", str(selfplay_records[name]), "--at", "1", *option]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{option[0]}: " in err and "game file" in err, err
