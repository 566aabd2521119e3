"""tools/ai_turn_times.py: the server's levels timed, with a variant of the full-game AI in place."""

from __future__ import annotations

import doctest

import pytest

from tools import ai_turn_times


def test_level_spec_examples():
    assert doctest.testmod(ai_turn_times).failed == 0


def test_a_bot_that_is_not_the_ai_is_refused_by_name(capsys):
    with pytest.raises(SystemExit) as stop:
        ai_turn_times.main(["--bot", "expert"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--bot 'expert': not a variant of the full-game AI" in err and "ismcts-narrow" in err


def test_the_variant_plays_at_the_level_s_budget(capsys):
    assert ai_turn_times.main(["--levels", "normal", "--games", "1", "--turns", "1", "--bot", "ismcts-narrow"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("normal ") and "s " in line)
    assert row.split()[1] == "ismcts-narrow:0.5s" and int(row.split()[2]) == 1    # one AI turn timed
    assert "plan/" in out or "prior/" in out or "win/" in out                       # its decisions' sources
