"""The record board of the analysis page in a real headless Chromium (set-up as in test_browser.py):
for Crusade & Conquer, Crownfall and King's Ransom, a seeded record loaded from a file, drawn by the
game's own board module, the engine's choices shown and updated while stepping through the record,
the evaluation graph drawn; no console error or CSP violation, nothing fetched from elsewhere."""

from __future__ import annotations

import json
import os

import pytest

from tests.server.test_browser import CHROMIUM, page, server  # noqa: F401 - the fixtures
from tests.server.test_game_analysis import seeded_record

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")]

#: Per game: an element its board module draws, and what the engine's best choice marks on it.
BOARDS = {"crusade": (".cc-root [data-square]", "#ga-arrows line.best"),
          "crownfall": ("[data-region]", None),
          "kings-ransom": (None, None)}


@pytest.mark.parametrize("name", tuple(BOARDS))
def test_load_step_and_watch_the_engine(page, tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(seeded_record(name, decisions=12)))
    page.goto(page.base + f"/analysis?game={name}")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => document.querySelector('#conn').textContent === 'engine'")
    page.fill("#seconds", "0.3")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("body[data-loaded='12']")
    assert page.locator("#moves li").count() == 12
    page.wait_for_selector("body[data-analysis=done]")
    first = page.locator("#choices li").all_inner_texts()
    assert first
    drawn, mark = BOARDS[name]
    if drawn:
        assert page.locator(f"#ga-board {drawn}").count() > 0
    if mark:
        assert page.locator(mark).count() == 1
    # Step on: the place moves, the engine analyses the new point by itself.
    page.evaluate("() => { document.body.dataset.analysis = 'waiting'; }")
    page.click("#next")
    page.wait_for_selector("body[data-place='2']")
    page.wait_for_selector("body[data-analysis=done]")
    assert page.locator("#moves li.here").get_attribute("data-decision") == "2"
    assert page.locator("#choices li").count() >= 1
    page.click("#last")
    page.wait_for_selector("body[data-place='13']")
    assert "end" in page.locator("#place").text_content()
    assert page.locator("#eval-graph polyline").count() == 1      # every game's evaluation graph
    assert page.problems == [] and page.foreign == []


def test_the_page_names_its_game_and_seats_from_the_registry(page):
    page.goto(page.base + "/analysis?game=crusade")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#game-title").text_content() == "Crusade & Conquer"
    assert page.locator("#seat option").all_inner_texts()[:2] == ["Blue", "Red"]
    assert page.problems == []
