"""The manual at /site/ in a real headless Chromium (issue 42; set-up as test_browser_pages.py):
built by ``mkdocs build`` (the `docs` extra; skipped without it), served by the app under the
server's own Content-Security-Policy, unchanged.

- The index, an API reference page (mkdocstrings) and a rules page open with no console error, no
  error of a script, no policy violation, no failed request and no request to another host.
- Material's stylesheet applies: the header is coloured, the font is not the browser's default.
- Its search works offline: the search worker (a script of this server) finds a word of the pages.
"""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest

from engine.interfaces.server.app import create_app
from engine.interfaces.server.guard import CONTENT_SECURITY_POLICY
from tests.server.support import ThreadServer
from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, pytestmark, sync_api  # noqa: F401 - one set-up (skips too)
from tests.server.test_browser_pages import open_page, problems_of, watched_page
from tests.support import ROOT

pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra: pip install -e '.[docs]'")

#: The search box of Material's header (the network at rest shows that its script has run).
READY = ".md-search__input"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    app = create_app(tmp_path_factory.mktemp("site-db") / "g.sqlite3", ai_pool="thread", site=site)
    with ThreadServer(app) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.mark.parametrize("path", ["/site/", "/site/api/engine/", "/site/rules/rulings/"])
def test_a_page_of_the_manual_opens_styled_without_a_problem(served, browser, path):
    base = served.base
    with watched_page(browser, base) as page:
        page.set_content("<p>unstyled</p>")
        default_font = page.evaluate("getComputedStyle(document.body).fontFamily")
        answer = httpx.get(base + path)
        assert answer.status_code == 200
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        open_page(page, base + path, READY)
        styled = page.evaluate("""() => ({
            font: getComputedStyle(document.body).fontFamily,
            header: getComputedStyle(document.querySelector('.md-header')).backgroundColor,
            sheets: [...document.styleSheets].filter(s => s.href && s.href.startsWith(location.origin + '/site/')
                                                      && s.cssRules.length > 0).length})""")
        assert styled["sheets"] >= 1, styled
        assert styled["font"] != default_font and "Times" not in styled["font"], styled
        assert styled["header"] not in ("rgba(0, 0, 0, 0)", "transparent"), styled
        if path == "/site/api/engine/":          # the docstrings are there
            assert page.locator("[id='engine.position.Position']").count() == 1
        assert problems_of(page) == []
        assert page.evaluate("typeof __md_scope") == "object"        # Material's set-up ran (scope.js)


def test_the_manuals_search_works_offline(served, browser):
    base = served.base
    with watched_page(browser, base) as page:
        open_page(page, base + "/site/", READY)
        page.click(".md-search__input")
        # The worker builds its index after the page has loaded, and a query typed before then is
        # not run again: typed until the index answers (10 tries of up to 3 s).
        for _ in range(10):
            page.fill(".md-search__input", "")
            page.type(".md-search__input", "perft")
            try:
                page.wait_for_selector(".md-search-result__item", state="attached", timeout=3_000)
                break
            except sync_api.TimeoutError:
                continue
        assert page.locator(".md-search-result__item").count() > 0
        assert problems_of(page) == []
