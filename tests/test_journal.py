"""engine/journal.py: a run's finished units on disk, and a run that resumes only from its own journal."""

from __future__ import annotations

import json

import pytest

from engine.journal import Journal, JournalError, read_rows
from engine.search.match import play_match_game as _REAL_GAME


def test_units_are_kept_once_in_the_file_and_read_back(tmp_path):
    path = tmp_path / "run.jsonl"
    journal = Journal(path, "test", {"seed": 1, "specs": ("a", "b")})     # a tuple is kept as JSON's list
    journal.add(3, {"score": 1.0})
    journal.add(3, {"score": 0.0})                # a unit written twice keeps its first result
    journal.add(0, {"score": 0.5})
    rows = read_rows(path)
    assert rows[0] == {"journal": "test", "run": {"seed": 1, "specs": ["a", "b"]}}
    assert rows[1:] == [{"unit": 3, "score": 1.0}, {"unit": 0, "score": 0.5}]
    assert Journal(path, "test", {"specs": ["a", "b"], "seed": 1}).done == {3: rows[1], 0: rows[2]}


@pytest.mark.parametrize("text, expected", [
    ('{"unit": 0}\n', "not a journal of a test run"),
    ('{"journal": "other", "run": {}}\n', "not a journal of a test run"),
    ('{"journal": "test", "run": {"seed": 1, "extra": 2}}\n', "its run's extra is 2, this run's is missing"),
])
def test_a_file_that_is_not_this_runs_journal_is_refused_and_left_as_it_was(tmp_path, text, expected):
    path = tmp_path / "run.jsonl"
    path.write_text(text)
    with pytest.raises(JournalError, match=expected):
        Journal(path, "test", {"seed": 1})
    assert path.read_text() == text


def test_a_journal_in_a_missing_folder_is_named(tmp_path):
    with pytest.raises(JournalError, match="its folder does not exist"):
        Journal(tmp_path / "no" / "run.jsonl", "test", {})


def test_rows_that_are_not_units_are_not_counted(tmp_path):
    path = tmp_path / "run.jsonl"
    Journal(path, "test", {})
    with path.open("a") as f:
        f.write(json.dumps({"unit": -1}) + "\n" + json.dumps({"unit": True}) + "\n" + "[1, 2]\n"
                + json.dumps({"unit": 2, "x": 1}) + "\n")
    assert Journal(path, "test", {}).done == {2: {"unit": 2, "x": 1}}


# -- `ftc match --journal` (engine/search/match.py run_match, match_journal) ---------------------------

def _match(monkeypatch, path, games, sprt=None, stop_after=None, b="random", seed=11):
    """run_match of greedy against B on the standard game (one worker: in this process), journaled at
    ``path``; the indices of the games it played; with ``stop_after`` a Ctrl-C after that many."""
    from engine.search import match as m
    from engine.search.sprt import SPRT
    played = []
    real = _REAL_GAME

    def counted(*unit):
        if stop_after is not None and len(played) == stop_after:
            raise KeyboardInterrupt
        played.append(unit[4])
        return real(*unit)

    monkeypatch.setattr(m, "play_match_game", counted)
    test = None if sprt is None else SPRT(*sprt, max_games=games)
    journal = m.match_journal(path, "greedy", b, seed, {"variant": "standard"}, 0, test)
    result = m.run_match("greedy", b, games, seed, {"variant": "standard"}, workers=1, sprt=test, journal=journal)
    return result, played, test


def test_a_match_stopped_goes_on_with_the_games_its_journal_lacks(tmp_path, monkeypatch):
    whole, played, _ = _match(monkeypatch, tmp_path / "whole.jsonl", 8)
    assert played == list(range(8))
    path = tmp_path / "m.jsonl"
    with pytest.raises(KeyboardInterrupt):
        _match(monkeypatch, path, 8, stop_after=3)                  # a Ctrl-C after three games
    assert sorted(Journal(path, "ftc-match", read_rows(path)[0]["run"]).done) == [0, 1, 2]
    resumed, played, _ = _match(monkeypatch, path, 8)
    assert played == [3, 4, 5, 6, 7]                                # only the games it lacked
    assert (resumed.outcomes, resumed.turns) == (whole.outcomes, whole.turns)   # game by game, in order
    more, played, _ = _match(monkeypatch, path, 10)                # a larger --games plays on
    assert played == [8, 9] and more.games == 10


def test_an_sprt_match_resumes_in_pair_order_and_decides_after_the_same_pairs(tmp_path, monkeypatch):
    whole, played, test = _match(monkeypatch, tmp_path / "whole.jsonl", 40, sprt=(0, 400))
    assert test.finished and whole.games < 40                      # greedy beats random: decided early
    path = tmp_path / "m.jsonl"
    journal_rows = read_rows(tmp_path / "whole.jsonl")
    # A journal holding pair 0's second game and pair 1, but not pair 0's first: the pairs wait for it.
    path.write_text("".join(json.dumps(row) + "\n" for row in [journal_rows[0]] + [r for r in journal_rows[1:]
                                                                                     if r["unit"] in (1, 2, 3)]))
    resumed, played, again = _match(monkeypatch, path, 40, sprt=(0, 400))
    assert played[0] == 0 and not {1, 2, 3} & set(played)
    assert (resumed.outcomes, resumed.turns) == (whole.outcomes, whole.turns)
    assert (again.pentanomial, again.llr()) == (test.pentanomial, test.llr())


def test_another_match_s_journal_is_refused_and_left_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "m.jsonl"
    _match(monkeypatch, path, 2)
    text = path.read_text()
    with pytest.raises(JournalError, match="its run's b is \"random\", this run's is \"greedy\""):
        _match(monkeypatch, path, 2, b="greedy")
    with pytest.raises(JournalError, match="its run's sprt is missing"):
        _match(monkeypatch, path, 2, sprt=(0, 50))
    assert path.read_text() == text


def test_the_match_journal_names_the_engine_that_played(tmp_path, monkeypatch):
    from engine import journal as j
    path = tmp_path / "m.jsonl"
    _match(monkeypatch, path, 2)
    assert read_rows(path)[0]["run"]["engine"] == j.package_digest()
    monkeypatch.setattr(j, "_DIGEST", ["0123456789abcdef"])      # the same match by a changed engine
    with pytest.raises(JournalError, match="its run's engine is"):
        _match(monkeypatch, path, 2)


@pytest.mark.parametrize("row", [{"score": 2, "turns": 10}, {"score": 1}, {"score": True, "turns": 3},
                                 {"score": 0.5, "turns": -1}])
def test_a_journal_line_that_is_not_a_game_is_named(tmp_path, monkeypatch, row):
    path = tmp_path / "m.jsonl"
    _match(monkeypatch, path, 2)
    rows = read_rows(path)
    path.write_text("".join(json.dumps(r) + "\n" for r in [rows[0], {"unit": 1, **row}]))
    with pytest.raises(JournalError, match=r"m.jsonl: game 1: expected \{\"score\": 0, 0.5 or 1"):
        _match(monkeypatch, path, 2)
