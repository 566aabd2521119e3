"""The record board's pasted position, its review of a loaded record, and every game page's link to
its own analysis, in a real headless Chromium (set-up as test_browser.py; docs/server.md "The
analysis board" and "Game review"): a Crusade & Conquer position pasted and analysed with its
arrows; a seeded record loaded and reviewed for its seat with the Review button (review.js draws
the summary, the labels and the graph); each game's play page pointing at /analysis?game=NAME. No
console error, no policy violation, nothing fetched from elsewhere."""

from __future__ import annotations

import json
import os

import pytest

from engine.games import registry
from tests.server.test_browser import CHROMIUM, page  # noqa: F401 - the fixture
from tests.server.test_browser_review import WATCH_VIOLATIONS, server  # noqa: F401 - small review budgets
from tests.server.test_game_analysis import position_text, seeded_record

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")]


def open_board(page, name: str) -> None:
    page.add_init_script(WATCH_VIOLATIONS)
    page.goto(page.base + f"/analysis?game={name}")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => document.querySelector('#conn').textContent === 'engine'")
    page.fill("#seconds", "0.3")


def test_a_pasted_crusade_position_is_analysed_with_arrows(page):  # noqa: F811 - the fixture
    open_board(page, "crusade")
    assert page.locator("#position-panel").is_visible()
    assert "startpos" in page.get_attribute("#position-text", "placeholder")
    page.fill("#position-text", position_text("crusade"))
    page.click("#load-position")
    page.wait_for_selector("body[data-loaded='position']")
    page.wait_for_selector("body[data-analysis=done]")
    assert page.locator("#choices li").count() >= 1
    assert page.locator("#ga-board .cc-root [data-square]").count() > 0
    assert page.locator("#ga-arrows line.best").count() == 1
    assert page.locator("#place").text_content() == "the position"
    assert page.locator("#review-loaded").is_hidden()          # a position has no decisions to review
    assert page.evaluate("window.__violations") == []
    assert page.problems == [] and page.foreign == []


def test_a_loaded_record_is_reviewed_for_its_seat(page, tmp_path):  # noqa: F811 - the fixture
    path = tmp_path / "crusade.json"
    path.write_text(json.dumps(seeded_record("crusade", decisions=12)))
    open_board(page, "crusade")
    assert page.locator("#review-loaded").is_hidden()
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("body[data-loaded='12']")
    page.click("#review-loaded")
    page.wait_for_selector("#review-panel[data-status=done]", timeout=120_000)
    rows = page.eval_on_selector_all("#review-panel tr.review-decision", """rows => rows.map(r => [
        +r.dataset.decision, r.querySelector('.review-label').textContent])""")
    assert [decision for decision, _ in rows] == [1, 3, 5, 7, 9, 11]          # Blue's six decisions
    assert all(label in ("good", "inaccuracy", "mistake", "blunder") for _, label in rows)
    assert page.locator("#review-panel .review-summary tr.review-player").count() == 1
    lines = page.eval_on_selector_all("#review-panel svg.review-graph polyline.review-line",
                                      "lines => lines.map(l => l.getAttribute('points').split(' ').length)")
    assert lines == [6]
    assert "6 of 6 decisions reviewed" in page.locator("#review-panel .review-status").inner_text()
    page.click("#review-close")
    assert page.locator("#review-panel").is_hidden()
    assert page.evaluate("window.__violations") == []
    assert page.problems == [] and page.foreign == []


#: A new game of every registered game from the page, its token kept where the shell keeps it.
CREATED = """async (game) => {
    const response = await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
                                                 body: JSON.stringify({game})});
    const view = await response.json();
    localStorage.setItem(`ftc.token.${view.id}`, view.token);
    return view.id;
}"""


def test_every_games_page_links_to_its_own_analysis(page):  # noqa: F811 - the fixture
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    for game in registry.games():
        game_id = page.evaluate(CREATED, game.name)
        page.goto(f"{page.base}/#game={game_id}")
        page.wait_for_function(f"() => document.querySelector('#analysis-link').getAttribute('href') "
                               f"=== '/analysis?game={game.name}'")
        page.click("#analysis-link")
        page.wait_for_selector("body[data-ready='1']")
        assert page.title() == f"Analysis board - {game.title} - ftc-engine"       # its own board, either page
        assert page.url.endswith(f"/analysis?game={game.name}")
        page.goto(page.base + "/")
    assert page.problems == [] and page.foreign == []
