"""Clocks on the web board in a real headless Chromium (set-up as test_browser.py; docs/server.md
"Clocks"): the new-game form's time control creates a timed game; the top bar shows each player's
clock and counts the running one down between pushes, the other one standing still; before each
side's first move none runs.
"""

from __future__ import annotations

import os
import re

import httpx
import pytest

from tests.server.test_browser import CHROMIUM, page, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")


def test_the_form_creates_a_timed_game_and_the_running_clock_counts_down(page):
    page.goto(page.base + "/")
    page.select_option("#game-form select[data-field=variant]", label="Standard")
    page.select_option("#game-form select[data-field=supply]", label="First game")
    page.select_option("#new-game select[name=human]", "0")
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    page.select_option("#new-game select[name=clock]", "180+2")
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    game_id = re.search(r"#game=(\w+)", page.url).group(1)
    token = page.evaluate("(id) => localStorage.getItem(`ftc.token.${id}`)", game_id)
    headers = {"Authorization": f"Bearer {token}"}
    view = httpx.get(f"{page.base}/api/games/{game_id}", headers=headers).json()
    assert view["clock"]["control"] == {"base": 180.0, "increment": 2.0} and view["clock"]["running"] is None

    # Before each side's first move no clock runs: both stand at 3:00.
    assert page.locator("#clocks").is_visible()
    blue, yellow = page.locator("#clocks .clock[data-player='0']"), page.locator("#clocks .clock[data-player='1']")
    assert "running" not in blue.get_attribute("class") and "running" not in yellow.get_attribute("class")
    assert blue.inner_text() == "Blue 3:00" and yellow.inner_text() == "Yellow 3:00"
    # Blue's first turn (through the API, with the page's token), the AI's: the push starts Blue's clock.
    while view["your_turn"]:
        before = view["version"]
        view = httpx.post(f"{page.base}/api/games/{game_id}/actions", headers=headers, timeout=60,
                          json={"action": view["actions"][0]["id"], "version": before}).json()
        if view["version"] > before + 1:
            break
    assert view["clock"]["running"] == 0
    page.wait_for_function("() => document.querySelector(\"#clocks .clock[data-player='0']\").classList"
                           ".contains('running')")
    assert "running" not in yellow.get_attribute("class")
    assert yellow.inner_text() == "Yellow 3:00"
    first = blue.inner_text()
    assert re.fullmatch(r"Blue [23]:\d\d", first)
    # No push comes while Blue thinks: the page counts Blue's clock down by itself.
    page.wait_for_function("(t) => document.querySelector(\"#clocks .clock[data-player='0']\").textContent !== t",
                           arg=first)
    assert yellow.inner_text() == "Yellow 3:00"
    assert page.problems == []


def test_an_untimed_game_shows_no_clocks(page):
    page.goto(page.base + "/")
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    assert page.locator("#clocks").is_hidden() and page.problems == []
