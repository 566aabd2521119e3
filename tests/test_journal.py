"""engine/journal.py: a run's finished units on disk, and a run that resumes only from its own journal."""

from __future__ import annotations

import json

import pytest

from engine.journal import Journal, JournalError, read_rows


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
