"""The toy game in a real headless Chromium (set-up as tests/server/test_browser.py): the home page
lists tic-tac-toe from the registry (GET /api/games/kinds), the new-game form offers its own bots,
and the generic board (static/generic.js) shows the observation and plays a move as a button, the AI
answering."""

from __future__ import annotations

import os

import pytest

from engine.games import registry
from tests.server.test_browser import CHROMIUM, page, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")]


def test_the_home_page_lists_tic_tac_toe_and_the_generic_board_plays_it(toy, page):  # noqa: F811
    page.goto(page.base + "/")
    card = page.locator("#games-intro .game-card[data-game=tictactoe]")
    card.wait_for()
    assert page.locator("#games-intro .game-card").count() == len(registry.names())      # one card a game
    assert "Tic-tac-toe" in card.inner_text() and "Three in a row" in card.inner_text()
    card.locator("button.game-intro").click()
    assert page.input_value("#new-game select[name=game]") == "tictactoe"
    assert page.locator("#game-form").inner_html() == ""          # no fields of its own
    assert page.locator("#budget-field").is_visible()                  # no levels: a player by name
    bots = page.locator("#new-game select[name=game-bot] option").all_inner_texts()
    assert bots == ["random moves", "perfect play"]          # the registry's words for its bots
    page.select_option("#new-game select[name=game-bot]", "perfect")
    page.select_option("#new-game select[name=human]", "0")
    page.click("#start")
    page.wait_for_selector("#generic-layout:not([hidden]) button.generic-action")
    assert page.locator("#layout").is_hidden() and page.locator("#kr-layout").is_hidden()
    assert page.locator("#topbar h1").inner_text() == "Tic-tac-toe"
    buttons = page.locator("#generic-actions button.generic-action")
    assert buttons.all_inner_texts() == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    assert "..." in page.locator("#generic-observation").inner_text()
    buttons.filter(has_text="b2").click()
    # the human's mark and the AI's answer: 7 squares left, the log names both marks
    page.wait_for_function("() => document.querySelectorAll('#generic-actions button.generic-action').length === 7")
    log = page.locator("#generic-log li").all_inner_texts()
    assert log[0] == "player 0: b2" and log[1].startswith("player 1: "), log
    assert ".X." in page.locator("#generic-observation").inner_text()
    assert not page.problems and not page.foreign, (page.problems, page.foreign)
