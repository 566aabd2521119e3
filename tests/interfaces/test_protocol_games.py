"""Texts of the protocol that every game shares (issue 39): they were written for two games and read
wrong for the others. The chance prompt is built from the outcomes' texts whatever the game (it cut
the last word and added "a card": "draw the Omen Ash a card" for Crownfall); the refusal of an
unfinished game's record no longer speaks of "both players' hidden cards"."""

import json

import pytest

from engine.interfaces.protocol import Session


def ask(session: Session, request: dict) -> dict:
    return json.loads(session.handle(json.dumps(request)))


def test_crownfalls_chance_prompt_names_the_draw_and_its_outcomes():
    session = Session()
    assert ask(session, {"cmd": "new", "game": "crownfall", "config": {"players": 4, "seed": 1, "chance": "explicit"}})["ok"]
    omen = ask(session, {"cmd": "actions"})
    assert omen["to_move"] == "chance" and len(omen["actions"]) == 6           # the six basic Omens (I19)
    assert omen["prompt"] == "chance: draw the Omen (one of 6)"
    assert all(a["text"].startswith("draw the Omen ") for a in omen["actions"])
    assert ask(session, {"cmd": "apply", "action": omen["actions"][0]["action"]})["ok"]
    objective = ask(session, {"cmd": "actions"})
    assert objective["prompt"] == f"chance: draw the Objective (one of {len(objective['actions'])})"
    refused = ask(session, {"cmd": "search", "iterations": 5})
    assert refused["error"].startswith("command 'search': chance is to decide (draw the Objective); ")


def test_kings_ransoms_chance_prompt_reads_the_same_way():
    session = Session()
    assert ask(session, {"cmd": "new", "config": {"variant": "kings-ransom", "seed": 3, "chance": "explicit"}})["ok"]
    actions = ask(session, {"cmd": "actions"})
    assert actions["prompt"] == f"chance: Red draws (one of {len(actions['actions'])})"


@pytest.mark.parametrize("game, config", [("crown", {}), ("kings-ransom", {}), ("crusade", {}), ("crownfall", {"players": 3})])
def test_an_unfinished_games_record_is_refused_in_words_true_of_every_game(game, config):
    session = Session()
    assert ask(session, {"cmd": "new", "game": game, "config": config})["ok"]
    answer = ask(session, {"cmd": "record"})
    assert answer["field"] == "full"
    assert answer["error"] == ("command 'record': the game is not over and its record may reveal what the players may "
                               "not see (hidden cards, the draws to come); send {\"cmd\": \"record\", \"full\": true} to "
                               "get it anyway")
