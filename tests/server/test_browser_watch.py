"""Spectators on the web board in a real headless Chromium (set-up as test_browser.py): one browser
context plays For the Crown by clicking its action buttons while a second context watches the same
game at /#watch=ID and sees each move arrive (its page's version follows the player's, its log
grows); the watching page says so, offers nothing to click and shows no hand. Then every other
board module (King's Ransom, Crusade & Conquer, Crownfall) draws a spectator's view of a game the
AI plays on against a human playing through the API, to its end, without an error on the page.
"""

from __future__ import annotations

import os
import random

import httpx
import pytest

from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, page, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")

#: Create a game from the page (its token kept where the page keeps tokens), return its id.
CREATE = """async (body) => {
    const r = await fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
    const view = await r.json();
    localStorage.setItem(`ftc.token.${view.id}`, view.token);
    return view.id;
}"""
VIEW = """async (id) => (await fetch(`/api/games/${id}`, {headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json()"""
CLICKABLE = "[data-action-id], .clickable, .legal, .movable"


def _watcher(page):
    context = page.context.browser.new_context(viewport={"width": 1400, "height": 1000})
    watcher = context.new_page()
    watcher.set_default_timeout(30_000)
    watcher.problems = []
    watcher.on("pageerror", lambda exc: watcher.problems.append(f"page error: {exc}"))
    watcher.on("console", lambda msg: msg.type == "error" and watcher.problems.append(f"console error: {msg.text}"))
    return context, watcher


def _read_only(watcher, gid):
    assert "watching" in watcher.inner_text("#game-label") and gid in watcher.inner_text("#game-label")
    assert watcher.locator(CLICKABLE).count() == 0, "a spectator's page offers something to click"


def test_one_context_plays_for_the_crown_and_another_watches_each_move(page):
    page.goto(page.base + "/")
    gid = page.evaluate(CREATE, {"seed": 5, "supply": "first-game", "ai": {"bot": "greedy"},
                                 "options": {"max_turns": 6}})
    page.goto(f"{page.base}/#game={gid}")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.state)")
    context, watcher = _watcher(page)
    try:
        watcher.goto(f"{page.base}/#watch={gid}")
        watcher.wait_for_function("(v) => document.body.dataset.version === v", arg=page.evaluate(
            "() => document.body.dataset.version"))
        _read_only(watcher, gid)
        assert "hidden" in watcher.inner_text("#hand")           # the hands by size only
        rng = random.Random(3)
        moves = 0
        while page.evaluate("() => document.body.dataset.state") == "your-turn" and moves < 12:
            view = page.evaluate(VIEW, gid)
            page.evaluate("() => { const d = document.querySelector('#order-list'); if (d) d.open = true; }")
            choices = [a for a in view["actions"]
                       if page.locator(f"button.action[data-action-id='{a['id']}']").count()]
            assert choices, "no action button on the player's page"
            chosen = rng.choice(choices)
            before = len(watcher.locator("#log li").all())
            page.locator(f"button.action[data-action-id='{chosen['id']}']").first.click()
            page.wait_for_function("(v) => +document.body.dataset.version > v && document.body.dataset.busy === '0' "
                                   "&& ['your-turn', 'over'].includes(document.body.dataset.state)", arg=view["version"])
            version = page.evaluate("() => document.body.dataset.version")
            watcher.wait_for_function("(v) => document.body.dataset.version === v", arg=version)
            assert len(watcher.locator("#log li").all()) > before, "the spectator's log did not show the move"
            _read_only(watcher, gid)
            moves += 1
        assert moves >= 3
        assert watcher.problems == [] and page.problems == []
    finally:
        context.close()


@pytest.mark.parametrize("body, root", [
    ({"variant": "kings-ransom", "ai": {"bot": "greedy"}}, "#kr-board"),
    ({"game": "crusade", "ai": {"level": "easy"}}, "#cc-board"),
    ({"game": "crownfall", "ai": {"spec": "greedy"}, "options": {"rounds": 1}}, "#cf-seats"),
], ids=["kings-ransom", "crusade", "crownfall"])
def test_every_board_module_draws_a_spectators_view(page, body, root):
    rng = random.Random(1)
    with httpx.Client(base_url=page.base, timeout=60) as client:
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        view = created.json()
        token = view.pop("token")
        gid = view["id"]
        context, watcher = _watcher(page)
        try:
            watcher.goto(f"{page.base}/#watch={gid}")
            watcher.wait_for_selector(root)
            _read_only(watcher, gid)
            for _ in range(300):
                if view["status"] != "playing" or not view["actions"]:
                    break
                view = client.post(f"/api/games/{gid}/actions", headers={"Authorization": f"Bearer {token}"},
                                   json={"action": rng.choice(view["actions"])["id"], "version": view["version"]}).json()
            watcher.wait_for_function("(v) => document.body.dataset.version === v", arg=str(view["version"]))
            _read_only(watcher, gid)
            if view["status"] == "over":
                watcher.wait_for_selector("#gameover:not([hidden]), #cc-status[data-end]:not([data-end=''])",
                                          state="attached")
            assert watcher.problems == []
        finally:
            context.close()
