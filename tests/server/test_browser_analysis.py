"""The analysis board in a real headless Chromium (set-up as in test_browser.py: Playwright with
Debian's /usr/bin/chromium, the app on uvicorn in a thread): a unit dragged from the palette onto the
board, the engine's arrows and evaluation, a loaded game stepped through with its graph."""

from __future__ import annotations

import json
import os
import random

import pytest

from tests.server.test_browser import CHROMIUM, page, server  # noqa: F401 - the fixtures

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")]


def units_on(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#board .sq .unit')].map(
        u => [u.closest('.sq').dataset.name, u.dataset.token + ':' + u.dataset.colour]))""")


def test_set_up_a_position_and_watch_the_engine(page, tmp_path):
    page.goto(page.base + "/")
    page.click("#analysis-link")
    page.wait_for_selector("body[data-ready='1']")
    assert page.url.endswith("/analysis")
    # The engine's socket opens beside the page's first drawing: wait for it, with a bound.
    page.wait_for_function("document.querySelector('#conn').textContent === 'engine'", timeout=15_000)
    # The start position, then the two Kings alone; a Blue Queen dragged from the palette to d4.
    assert len(units_on(page)) == 32
    page.click("#crown-position")
    page.wait_for_function("() => document.querySelectorAll('#board .sq .unit').length === 2")
    assert page.locator(".palette-unit[data-colour='0']").count() == page.locator(".palette-unit[data-colour='1']").count() == 34
    page.drag_and_drop(".palette-unit[data-token='Q'][data-colour='0']", "#board .sq[data-name=d4]")
    page.wait_for_function("() => document.querySelectorAll('#board .sq .unit').length === 3")
    assert units_on(page) == {"e1": "K:0", "e8": "K:1", "d4": "Q:0"}
    assert page.input_value("#position-text") == "4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1"
    # A Yellow Rook to the Barracks; right-click removes it again.
    page.drag_and_drop(".palette-unit[data-token='R'][data-colour='1']", "#barracks-top")
    page.wait_for_selector("#barracks-top .unit-chip[data-token=R]")
    assert page.input_value("#position-text").startswith("4k3/8/8/8/3Q4/8/8/4K3[r] w")
    page.click("#barracks-top .unit-chip[data-token=R]", button="right")
    page.wait_for_function("() => !document.querySelector('#barracks-top .unit-chip')")
    # A unit dragged on the board moves; dragged off the board it is gone.
    page.drag_and_drop("#board .sq[data-name=d4] .unit", "#board .sq[data-name=c4]")
    page.wait_for_selector("#board .sq[data-name=c4] .unit[data-token=Q]")
    assert units_on(page) == {"e1": "K:0", "e8": "K:1", "c4": "Q:0"}
    page.drag_and_drop("#board .sq[data-name=c4] .unit", "#setup-panel h2")
    page.wait_for_function("() => document.querySelectorAll('#board .sq .unit').length === 2")
    page.drag_and_drop(".palette-unit[data-token='Q'][data-colour='0']", "#board .sq[data-name=d4]")
    page.wait_for_function("() => document.querySelectorAll('#board .sq .unit').length === 3")
    # Bad pasted text: the server's message, naming the problem, and the board unchanged.
    page.wait_for_selector("body[data-position=shown]")
    page.fill("#position-text", "4k3/8/8/8/3Q4/8/8/4K3 x")
    page.click("#load-text")
    page.wait_for_selector("#error:not([hidden])")
    assert "side to move" in page.locator("#error").inner_text()
    assert len(units_on(page)) == 3
    page.click("#error .close")

    # Analyse to depth 4: arrows on the board, the best one labelled; a score in the bar.
    page.fill("#depth", "4")
    page.click("#analyze")
    page.wait_for_selector("body[data-analysis=done]")
    arrows = page.locator("#arrows g.arrow")
    assert arrows.count() == 3 and page.locator("#arrows g.arrow.best line").count() == 1
    best = page.locator("#lines li").first.get_attribute("data-order")
    assert page.locator("#arrows g.arrow.best").get_attribute("data-order") == best
    score = page.locator("#eval-bar").get_attribute("data-score")
    assert score and (score.startswith("+") or "mate" in score)       # Blue's extra Queen
    assert page.locator("#eval-text").text_content() == score
    assert "depth 4" in page.locator("#search-info").text_content()
    page.screenshot(path=str(tmp_path / "analysis.png"), full_page=True)
    # A change is analysed again by itself: Yellow to move, whose only unit is its King.
    page.select_option("#side", "b")
    page.wait_for_function("""() => document.body.dataset.analysis === 'done'
        && document.querySelector('#arrows g.arrow.best')?.dataset.order.startsWith('e8')""")
    assert page.input_value("#position-text") == "4k3/8/8/8/3Q4/8/8/4K3 b - - 0 1"
    # Compass mode: the Rook takes the Queen round the a/h edge (a1 and h1 are neighbours), and the
    # arrow goes round the edge too.
    page.check("#compass")
    # The box is rewritten when the server's answer to the compass switch comes: wait for it before
    # typing (typed text replaced between fill and click once loaded the old position, in a CI run).
    page.wait_for_selector("body[data-position=shown]")
    page.fill("#position-text", "4k3/8/8/8/8/8/8/R3K2q w")
    page.click("#load-text")
    page.wait_for_function("""() => document.body.dataset.analysis === 'done'
        && document.querySelector('#arrows g.arrow.best')?.dataset.order === 'a1h1'""")
    assert page.locator("#arrows g.arrow.best[data-round='1'] line").count() == 2
    # (The browser logs the 422 answer to the bad text above: made on purpose.)
    problems = [p for p in page.problems if "status of 422" not in p]
    assert not problems, problems
    assert not page.foreign, page.foreign


def test_step_through_a_loaded_game(page, tmp_path):
    from engine.crown.config import GameConfig
    from engine.crown.record import make_record
    from engine.crown.state import GameState

    g = GameState(GameConfig(seed=3, supply="first-game"))
    rng = random.Random(1)
    for _ in range(80):
        g.apply(rng.choice(g.legal_actions()))
    g.resign(1)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(make_record(g)))
    page.goto(page.base + "/analysis")
    page.wait_for_selector("body[data-ready='1']")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#walk-panel:not([hidden])")
    moves = page.locator("#moves li")
    total = moves.count()
    assert total > 20 and page.locator("#moves li").last.inner_text().endswith("resigns")
    page.wait_for_function(f"() => document.body.dataset.place === '{total}'")
    page.click("#nav-first")
    page.wait_for_function("() => document.body.dataset.place === '0'")
    assert len(units_on(page)) == 2                           # For the Crown's set-up: the two Kings
    page.click("#nav-next")
    page.wait_for_function("() => document.body.dataset.place === '1'")
    assert page.locator("#moves li.current").get_attribute("data-place") == "1"
    points = page.locator("#eval-graph circle.eval-point")
    assert points.count() >= 5
    target = points.nth(3).get_attribute("data-move")
    points.nth(3).click()
    page.wait_for_function(f"() => document.body.dataset.place === '{target}'")
    page.screenshot(path=str(tmp_path / "game.png"), full_page=True)
    assert not page.problems, page.problems


def test_a_finished_game_of_this_browser_loads_whole_and_one_in_play_as_what_you_know(page):
    """A finished game opens with its record (every move); a game in play only as the player's
    knowledge download (one board, never the record, which names the AI's hidden cards)."""
    page.goto(page.base + "/analysis")
    page.wait_for_selector("body[data-ready='1']")
    # Two games as the game page makes them (their tokens in local storage): one resigned, one in play.
    ids = page.evaluate("""async () => {
        const make = async () => {
            const r = await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({supply: 'first-game', ai: {level: 'easy'}})});
            const view = await r.json();
            localStorage.setItem(`ftc.token.${view.id}`, view.token);
            return [view.id, view.token];
        };
        const [over, token] = await make();
        await fetch(`/api/games/${over}/resign`, {method: 'POST', headers: {authorization: `Bearer ${token}`}});
        const [playing] = await make();
        return {over, playing};
    }""")
    page.click("#my-games summary")
    page.wait_for_selector(f"#my-games-list li[data-game='{ids['over']}'] button.load-game")
    playing = page.locator(f"#my-games-list li[data-game='{ids['playing']}']")
    playing.locator(".muted").wait_for()
    assert "in play" in playing.inner_text() and playing.locator("button.load-game").count() == 0
    playing.locator("button.load-view").click()
    page.wait_for_selector("#walk-panel:not([hidden])")
    assert page.locator("#walk-title").text_content().startswith("Position view (standard) from Blue's seat")
    assert page.locator("#moves li").count() == 0
    page.click(f"#my-games-list li[data-game='{ids['over']}'] button.load-game")
    page.wait_for_function("() => document.querySelector('#walk-title').textContent.startsWith('Game')")
    assert page.locator("#moves li").last.inner_text().endswith("resigns")
    assert "Blue resigned" in page.locator("#walk-title").text_content()
    assert not page.problems, page.problems
