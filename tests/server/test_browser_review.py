"""The review of a finished game in a real headless Chromium (set-up as test_browser.py; docs/server.md
"Game review"): a Crusade & Conquer game against the easy AI, a few moves played, then resigned with
the Resign button; the game-over banner's Review button opens the review panel, which shows the
summary per player, the decisions with their labels and the evaluation graph (an SVG with a line per
player) once the server's review is done, with no console error and no policy violation.
"""

from __future__ import annotations

import os
import random
import threading
import time

import pytest

from tests.server.test_browser import CHROMIUM, page  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
uvicorn = pytest.importorskip("uvicorn")

from engine.interfaces.server.app import Limits, create_app  # noqa: E402
from tests.server.support import free_port  # noqa: E402

#: Every policy violation the page reports (the browser's own event), kept for the test to read.
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""
#: Create a Crusade & Conquer game from the page, play ``moves`` of the human's first legal
#: actions by the API, keep the token where the shell keeps it, and return the game's id.
PLAYED = """async (moves) => {
    const post = async (path, body, token) => (await fetch(path, {method: 'POST',
        headers: {'content-type': 'application/json', ...(token ? {authorization: `Bearer ${token}`} : {})},
        body: body === undefined ? undefined : JSON.stringify(body)})).json();
    let view = await post('/api/games', {game: 'crusade', ai: {level: 'easy'}});
    const token = view.token;
    localStorage.setItem(`ftc.token.${view.id}`, token);
    for (let i = 0; i < moves && view.status === 'playing'; i++)
        view = await post(`/api/games/${view.id}/actions`, {action: view.actions[0].id, version: view.version}, token);
    return view.id;
}"""


@pytest.fixture
def server(tmp_path):
    """The app with small review budgets: one ply a decision, six decisions a review."""
    limits = Limits(review_depth=1, review_iterations=16, review_decisions=6)
    app = create_app(tmp_path / "db.sqlite3", ai_pool="thread", limits=limits)
    app.state.server.entropy = random.Random(4)
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the app did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def test_a_finished_game_is_reviewed_in_the_page(page):  # noqa: F811 - the fixture
    page.add_init_script(WATCH_VIOLATIONS)
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    game_id = page.evaluate(PLAYED, 3)
    page.goto(f"{page.base}/#game={game_id}")
    page.wait_for_function("() => document.body.dataset.state === 'your-turn'")
    assert page.locator("#review-button").count() == 0          # no review before the end
    page.click("#resign")
    page.click("#resign-yes")
    page.wait_for_function("() => document.body.dataset.state === 'over'")
    page.click("#gameover #review-button")
    page.wait_for_selector("#review-panel[data-status=done]", timeout=120_000)
    panel = page.locator("#review-panel")
    assert panel.is_visible()
    rows = page.eval_on_selector_all("#review-panel tr.review-decision", """rows => rows.map(r => [
        +r.dataset.decision, r.dataset.label, r.querySelector('.review-move').textContent,
        r.querySelector('.review-label').textContent])""")
    assert [decision for decision, *_ in rows] == list(range(1, 7))          # the limit: six decisions
    assert all(label == shown and label in ("good", "inaccuracy", "mistake", "blunder") for _, label, _, shown in rows)
    assert all(move for _, _, move, _ in rows)
    summary = page.eval_on_selector_all("#review-panel .review-summary tr.review-player", """rows => rows.map(r =>
        [...r.querySelectorAll('td[data-label]')].reduce((n, td) => n + +td.textContent, 0))""")
    assert summary == [3, 3]                                   # six decisions, three each
    lines = page.eval_on_selector_all("#review-panel svg.review-graph polyline.review-line",
                                      "lines => lines.map(l => l.getAttribute('points').split(' ').length)")
    assert lines == [3, 3]
    assert "6 of 6 decisions reviewed" in page.locator("#review-panel .review-status").inner_text()
    page.click("#review-close")
    assert page.locator("#review-panel").is_hidden()
    assert page.evaluate("window.__violations") == []
    assert page.problems == [] and page.foreign == []
