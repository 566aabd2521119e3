"""The pages under their Content-Security-Policy, in a real headless Chromium (issue 23, item 8): the
game page, the analysis board and the API page work with no policy violation; no page can be framed;
a resume link carrying a made-up token does not replace the token this browser holds for the game.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (as test_browser.py).
"""

from __future__ import annotations

import httpx
import pytest

from engine.interfaces.server.app import create_app  # noqa: E402
from tests.server.support import ThreadServer
from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, pytestmark, sync_api  # noqa: F401 - one set-up (skips too)

#: Every policy violation the page reports (the browser's own event), kept for the test to read.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""
SETTLED = "() => ['your-turn', 'over'].includes(document.body.dataset.state) && document.body.dataset.busy === '0'"


@pytest.fixture
def served(tmp_path):
    with ThreadServer(create_app(tmp_path / "g.sqlite3", ai_pool="thread")) as srv:
        yield srv.base


@pytest.fixture
def browser_page(served):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script(RECORD_VIOLATIONS)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.console_lines = []
        page.on("console", lambda msg: page.console_lines.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda exc: page.console_lines.append(f"pageerror: {exc}"))
        yield page
        context.close()
        browser.close()


def _violations(page) -> list[str]:
    found = page.evaluate("window.__violations")
    found += [line for line in page.console_lines if "Content Security Policy" in line or "Refused to" in line]
    return found


def test_every_answer_carries_the_security_headers(served):
    for path, status in (("/", 200), ("/analysis", 200), ("/docs", 200), ("/api/health", 200),
                         ("/static/app.js", 200), ("/api/games/0123456789abcdef", 401), ("/nowhere", 404)):
        answer = httpx.get(served + path)
        assert answer.status_code == status, path
        policy = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "'unsafe-inline'" not in policy, (path, policy)
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"


def test_the_pages_work_under_their_policy(served, browser_page):
    page = browser_page
    page.goto(served + "/")
    page.locator("#start").click()
    page.wait_for_function(SETTLED, timeout=60_000)
    assert page.locator("#board").count() == 1
    page.goto(served + "/analysis")
    page.wait_for_function("() => document.querySelectorAll('#palette-0 *').length > 0")
    page.goto(served + "/docs")
    page.wait_for_selector(".swagger-ui .info", timeout=30_000)
    assert _violations(page) == [], _violations(page)


def test_no_page_can_be_framed(served, browser_page):
    page = browser_page
    page.set_content(f'<iframe id="f" src="{served}/" width="600" height="400"></iframe>')
    page.wait_for_timeout(1500)
    frame = page.frame_locator("#f")
    assert frame.locator("#board").count() == 0                # the board never loads in a frame


def test_a_resume_link_with_a_made_up_token_keeps_the_token_this_browser_holds(served, browser_page):
    page = browser_page
    game = httpx.post(served + "/api/games", json={"seed": 1, "ai": {"bot": "greedy"}}).json()
    page.goto(f"{served}/#resume={game['id']}.{game['token']}")              # the player's own link
    page.wait_for_function(SETTLED, timeout=60_000)
    held = page.evaluate(f"localStorage.getItem('ftc.token.{game['id']}')")
    assert held == game["token"]
    forged = "A" * 43
    page.goto(f"{served}/#resume={game['id']}.{forged}")                     # the attacker's link
    page.wait_for_selector("#error:not([hidden])")
    assert page.evaluate(f"localStorage.getItem('ftc.token.{game['id']}')") == game["token"]
    page.goto(f"{served}/#game={game['id']}")
    page.reload()
    page.wait_for_function(SETTLED, timeout=60_000)                         # the game still opens here
    assert page.evaluate("document.body.dataset.state") == "your-turn"
