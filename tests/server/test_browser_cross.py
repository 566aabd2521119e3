"""Two instances in a real headless Chromium (set-up as test_browser.py; docs/server.md "Several
instances"): two servers on one real, throwaway PostgreSQL (tests/server/postgres.py), each a real
uvicorn. The creator's browser context makes a For the Crown game against a friend from the
new-game form on instance A; a second context opens the invitation link on instance B (the creator's
page shows the seat taken without a reload: a join on B reaches A's socket); they play a few moves
each by clicking their action buttons, each page seeing the other's move arrive by push (its
version follows, never reloaded), while a third context watches the game on A at /#watch=ID and
sees every move."""

from __future__ import annotations

import json
import os
import random

import pytest

from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.server.test_browser_seats import new_game_with_friends
from tests.server.test_browser_watch import VIEW, _read_only
from tests.server.test_cross_instances import _two_instances

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")

#: A page whose version is ``v`` and that is not busy: the state its pushes brought.
AT = "(v) => document.body.dataset.version === v && document.body.dataset.busy === '0'"
#: A page past version ``v`` and settled (its own move answered).
MOVED = """(v) => +document.body.dataset.version > v && document.body.dataset.busy === '0'
                 && ['your-turn', 'waiting', 'over'].includes(document.body.dataset.state)"""


def _page(browser, base: str):
    """A page of a new browser context (its own storage: its own tokens) that records every page
    error, console error and request to anywhere but the app (``problems``)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: msg.type == "error" and page.problems.append(f"console error: {msg.text}"))
    page.on("request", lambda req: None if req.url.startswith((base, "data:", base.replace("http", "ws")))
            else page.problems.append(f"request elsewhere: {req.url}"))
    page.base = base
    page.pushed = []                       # the versions of the views its WebSockets received
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: page.pushed.append(_version(payload))))
    return page


def _version(payload) -> int | None:
    try:
        return json.loads(payload)["version"]
    except (ValueError, TypeError, KeyError):
        return None


def test_two_browsers_play_each_other_through_two_instances_and_a_third_watches(pg_url):
    apps, (a, b) = _two_instances(pg_url)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            creator, friend, watcher = _page(browser, a.base), _page(browser, b.base), _page(browser, a.base)
            try:
                gid = new_game_with_friends(creator, a.base, "crown")
                link = creator.input_value("#seats-bar .invite-link")
                assert link.startswith(a.base + "/#join=" + gid + ".")
                # The friend opens the link on instance B; A's page learns the seat is taken by push.
                friend.goto(b.base + link[len(a.base):])
                friend.wait_for_function("(id) => location.hash === `#game=${id}`", arg=gid)
                friend.wait_for_selector("#seats-bar:not([hidden])")
                assert "you" in friend.inner_text("#seats-bar [data-seat='1']")
                creator.wait_for_function("() => !document.querySelector('#seats-bar .invite-link')")
                assert "a friend" in creator.inner_text("#seats-bar [data-seat='1']")
                watcher.goto(f"{a.base}/#watch={gid}")
                version = creator.evaluate("() => document.body.dataset.version")
                watcher.wait_for_function(AT, arg=version)
                _read_only(watcher, gid)
                for page in (creator, friend, watcher):   # gone if the page were ever reloaded
                    page.evaluate("() => { window.keptSinceTheStart = true; }")
                rng = random.Random(3)
                moves = {"creator": 0, "friend": 0}
                for _ in range(40):
                    if min(moves.values()) >= 3:
                        break
                    states = {name: page.evaluate("() => document.body.dataset.state")
                              for name, page in (("creator", creator), ("friend", friend))}
                    if "over" in states.values():
                        break
                    mover = next(name for name, state in states.items() if state == "your-turn")
                    page, other = (creator, friend) if mover == "creator" else (friend, creator)
                    view = page.evaluate(VIEW, gid)
                    page.evaluate("() => { const d = document.querySelector('#order-list'); if (d) d.open = true; }")
                    choices = [x for x in view["actions"]
                               if page.locator(f"button.action[data-action-id='{x['id']}']").count()]
                    assert choices, f"no action button on the {mover}'s page"
                    before = len(watcher.locator("#log li").all())
                    page.locator(f"button.action[data-action-id='{rng.choice(choices)['id']}']").first.click()
                    page.wait_for_function(MOVED, arg=view["version"])
                    version = page.evaluate("() => document.body.dataset.version")
                    other.wait_for_function(AT, arg=version)            # the other seat's page, by push
                    watcher.wait_for_function(AT, arg=version)          # the spectator's page, by push
                    assert int(version) in other.pushed and int(version) in watcher.pushed
                    assert len(watcher.locator("#log li").all()) > before, "the spectator's log did not show the move"
                    _read_only(watcher, gid)
                    moves[mover] += 1
                assert min(moves.values()) >= 3, moves
                # No page was reloaded: every move it saw came by push.
                for page in (creator, friend, watcher):
                    assert page.evaluate("() => window.keptSinceTheStart === true")
                    assert page.evaluate("() => document.body.dataset.version") == version
                for page in (creator, friend, watcher):
                    assert page.problems == [], page.problems
            finally:
                browser.close()
    finally:
        for server in (a, b):
            server.__exit__(None, None, None)
