"""Behaviour digests (tools/game_digests.py): seeded games, records, perft and `ftc engine` sessions
of both games give the digests saved in tests/data/game_digests.txt, made on the tree before the
game registry (issue 24). A refactoring of the games or of what drives them must leave them equal;
a change of behaviour that is meant changes the file, in the same commit, with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import load_tool

DATA = Path(__file__).resolve().parent / "data" / "game_digests.txt"
digests = load_tool("game_digests")
SAVED = digests.read_digests(DATA)


def test_the_saved_file_has_every_workload():
    assert set(SAVED) == set(digests.WORKLOADS)
    assert set(digests.CHEAP) <= set(SAVED)


@pytest.mark.parametrize("name", digests.CHEAP)
def test_cheap_workload_digest_is_unchanged(name):
    assert digests.digest(digests.WORKLOADS[name]()) == SAVED[name], (
        f"{name}: the game's behaviour changed (tools/game_digests.py {name})")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(digests.WORKLOADS) - set(digests.CHEAP)))
def test_costly_workload_digest_is_unchanged(name):
    assert digests.digest(digests.WORKLOADS[name]()) == SAVED[name]


def test_digest_is_stable_and_sensitive():
    assert digests.digest([1, {"b": 2, "a": 1}]) == digests.digest([1, {"a": 1, "b": 2}])
    assert digests.digest([1, 2]) != digests.digest([2, 1])
