"""Every page the server serves, opened in a real headless Chromium (issue 39; set-up as
test_browser.py, skipped without Chromium or Playwright).

- Which pages: found from the server, not listed here. The home page, then every page a link of a
  page leads to (the analysis board, the API page, the rules index and each rules page; the manual at
  /site/ is not built here: test_browser_site.py opens it built), and a board
  of each game the server plays (GET /api/games/kinds: a game of each, opened with its token, and
  watched by its id). Every page route of the app must be among the pages opened, and every rules
  page of docs/rules among those linked.
- Each page opens with no console error, no error of its script, no Content-Security-Policy
  violation and no failed request: a header that breaks a page fails here (item 2).
- The rules pages are styled: their stylesheet (a file of this server) applies, so their font is
  not the browser's default (item 1).
- The home page names the hub, not one game; each game's blurb starts with a capital letter; the
  opponent menus speak in words, from the registry's labels (item 6).
- 420 px wide: the header wraps, no page of a game is wider than the window, Resign and Analysis
  board are inside it (item 7).
- For the Crown's card pop-over does not appear over the buy phase's buttons when they are drawn
  under a pointer at rest; it still appears when the pointer moves onto a card (item 7).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx
import pytest

from engine.interfaces.rules_pages import INDEX, rule_pages  # noqa: E402
from engine.interfaces.server.app import create_app  # noqa: E402
from tests.server.support import ThreadServer
from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, pytestmark, sync_api  # noqa: F401 - one set-up (skips too)

#: Every policy violation the page reports (the browser's own event), kept for the test to read.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""
#: A board has settled: the game's view is drawn and no request is under way.
SETTLED = "() => ['your-turn', 'over', 'waiting'].includes(document.body.dataset.state) && document.body.dataset.busy === '0'"
WATCHING = "() => ['watching', 'over'].includes(document.body.dataset.state)"
#: What shows that a page's own script has run, for the pages that draw themselves (others: the
#: network at rest is enough).
DRAWN = {"/analysis": "#palette-0 *", "/docs": ".swagger-ui .info"}
NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    app = create_app(tmp_path_factory.mktemp("pages") / "g.sqlite3", ai_pool="thread")
    with ThreadServer(app) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def kinds(served):
    return httpx.get(served.base + "/api/games/kinds").json()["games"]


@contextmanager
def watched_page(browser, base: str, width: int = 1400):
    """A page in a fresh context whose every console error, script error, policy violation and failed
    request (of this server or any other) lands in ``page.problems``."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.problems = []
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: msg.type == "error" and page.problems.append(f"console error: {msg.text}"))
    page.on("requestfailed", lambda req: page.problems.append(f"request failed: {req.url} ({req.failure})"))
    page.on("response", lambda res: res.status >= 400 and page.problems.append(f"answer {res.status}: {res.url}"))
    page.on("request", lambda req: req.url.startswith((base, "data:", base.replace("http", "ws"), "about:"))
            or page.problems.append(f"a request to another host: {req.url}"))
    try:
        yield page
    finally:
        context.close()


def problems_of(page) -> list[str]:
    """The page's problems so far (its policy violations included), then forgotten."""
    found = page.problems + [f"policy violation: {v}" for v in page.evaluate("window.__violations || []")]
    page.problems.clear()
    page.evaluate("window.__violations = []")
    return found


def open_page(page, url: str, ready: str | None = None) -> None:
    page.goto("about:blank")
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    if ready:
        page.wait_for_function(ready) if ready.startswith("()") else page.wait_for_selector(ready, state="attached")


def same_origin_links(page, base: str) -> set[str]:
    """The paths of the page's links to this server (no fragment, no query)."""
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    return {urlsplit(href).path or "/" for href in hrefs if href.startswith(base + "/") or href == base}


def crawl(page, base: str, kinds: list) -> dict[str, list[str]]:
    """Open the home page and every page of this server a link leads to; {path: its problems}."""
    home_ready = f"() => document.querySelectorAll('#games-intro .game-card').length === {len(kinds)}"
    seen: dict[str, list[str]] = {}
    todo = ["/"]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        if path == "/site" or path.startswith("/site/"):
            seen[path] = []                           # the manual, not built here: test_browser_site.py
            continue
        answer = httpx.get(base + path)
        if not answer.headers.get("content-type", "").startswith("text/html"):
            continue                                  # the schema, a file: no page
        assert answer.status_code == 200, f"a link leads to {path}, which answers {answer.status_code}"
        open_page(page, base + path, home_ready if path == "/" else DRAWN.get(path))
        seen[path] = problems_of(page)
        todo += sorted(same_origin_links(page, base) - set(seen))
    return seen


def page_routes(app) -> list[str]:
    """The path templates of the app's pages: its GET routes left out of the API's schema, but the
    schema itself; included routers are walked."""
    found, todo = [], list(app.router.routes)
    while todo:
        route = todo.pop(0)
        inner = getattr(route, "original_router", None)
        if inner is not None:
            todo += inner.routes
            continue
        if getattr(route, "path", None) is None or not hasattr(route, "methods"):
            continue                                  # a mount (/static), a socket
        if "GET" in route.methods and not route.include_in_schema and route.path != app.openapi_url:
            found.append(route.path)
    return found


def test_every_page_opens_without_an_error(served, browser, kinds):
    base = served.base
    with watched_page(browser, base) as page:
        opened = crawl(page, base, kinds)
        # Every page route of the app is among the pages the links lead to.
        for template in page_routes(served.app):
            if template == "/site":                   # only leads to /site/ (tests/server/test_site.py)
                continue
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            assert any(re.fullmatch(pattern, path) for path in opened), f"no link leads to a page of {template}"
        assert {"/", "/analysis", "/docs", "/rules"} <= set(opened)
        assert {f"/rules/{stem}" for stem in rule_pages() if stem != INDEX} <= set(opened)
        # A board of each game the server plays, as its player and as a spectator.
        for kind in kinds:
            bot = "greedy" if "greedy" in kind["bots"] else kind["bots"][0]
            game = httpx.post(base + "/api/games", json={"game": kind["name"], "ai": {"spec": bot}}).json()
            open_page(page, f"{base}/#resume={game['id']}.{game['token']}", SETTLED)
            assert page.locator("#topbar h1").inner_text() == kind["title"]
            opened[f"{kind['name']} board"] = problems_of(page)
            open_page(page, f"{base}/#watch={game['id']}", WATCHING)
            opened[f"{kind['name']} watched"] = problems_of(page)
    assert {path: found for path, found in opened.items() if found} == {}
    assert len(opened) >= 3 + len(rule_pages()) + 2 * len(kinds)          # /, /analysis, /docs; /rules is a rules page


def test_the_rules_pages_are_styled_by_their_stylesheet(served, browser):
    base = served.base
    with watched_page(browser, base) as page:
        page.set_content("<p>unstyled</p>")
        default_font = page.evaluate("getComputedStyle(document.body).fontFamily")
        open_page(page, base + "/rules")
        paths = sorted({p for p in same_origin_links(page, base) if p.startswith("/rules")} | {"/rules"})
        assert len(paths) == len(rule_pages())
        for path in paths + ["/rules/no-such-page"]:
            open_page(page, base + path)
            styled = page.evaluate("""() => ({
                font: getComputedStyle(document.body).fontFamily,
                nav: getComputedStyle(document.querySelector('nav')).backgroundColor,
                sheets: [...document.styleSheets].filter(s => s.href && s.href.startsWith(location.origin + '/')
                                                          && s.cssRules.length > 0).length,
                inline: document.querySelectorAll('style, [style]').length})""")
            assert styled["sheets"] == 1 and styled["inline"] == 0, (path, styled)
            assert styled["font"] != default_font and "Times" not in styled["font"], (path, styled)
            assert styled["nav"] not in ("rgba(0, 0, 0, 0)", "transparent"), (path, styled)
            found = problems_of(page)
            if path.endswith("no-such-page"):          # the page itself answers 404, and says so
                found = [p for p in found if "404" not in p]
            assert found == [], (path, found)


def test_the_home_page_names_the_hub_and_speaks_in_words(served, browser, kinds):
    base = served.base
    by_name = {kind["name"]: kind for kind in kinds}
    with watched_page(browser, base) as page:
        open_page(page, base + "/", f"() => document.querySelectorAll('#games-intro .game-card').length === {len(kinds)}")
        hub = f"ftc-engine: {NUMBER_WORDS[len(kinds)]} games"
        assert page.locator("#topbar h1").inner_text() == hub and page.title() == hub
        blurbs = page.eval_on_selector_all("#games-intro .game-card", """cards => cards.map(c => [c.dataset.kind,
            c.querySelector('.game-line').textContent.trim()])""")
        assert {kind for kind, _ in blurbs} == set(by_name)
        for kind, blurb in blurbs:
            assert blurb[:1].isupper(), (kind, blurb)
        # Every game (each drawn by a board module of its own): its opponents by label, never by spec.
        generic = page.eval_on_selector_all("#new-game select[name=game] option[data-module]", "os => os.map(o => o.value)")
        assert set(generic) == set(by_name)
        for name in generic:
            kind = by_name[name]
            page.select_option("#new-game select[name=game]", name)
            options = page.eval_on_selector_all("#new-game select[name=game-bot] option", "os => os.map(o => [o.value, o.textContent])")
            assert len(options) == len(kind["ai_levels"]) + len(kind["bots"])
            specs = set(kind["ai_levels"].values()) | set(kind["bots"])
            for value, text in options:
                spec = kind["ai_levels"][value.removeprefix("level:")] if value.startswith("level:") else value
                label = kind["bot_labels"][spec]
                assert text == (f"{value[6].upper()}{value[7:]} ({label})" if value.startswith("level:") else label), text
                assert not any(re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", text) for s in specs if ":" in s), text
            normal = [text for value, text in options if value == "level:normal"]
            assert normal and re.fullmatch(r"Normal \([a-z][\w -]*, 0\.5 s a decision\)", normal[0]), normal
        assert problems_of(page) == []
        # A game shown names itself; the hub's title comes back with the new-game form.
        game = httpx.post(base + "/api/games", json={"game": "crusade", "ai": {"spec": "greedy"}}).json()
        open_page(page, f"{base}/#resume={game['id']}.{game['token']}", SETTLED)
        assert page.locator("#topbar h1").inner_text() == "Crusade & Conquer" == by_name["crusade"]["title"]
        assert page.title() == "Crusade & Conquer - ftc-engine"


def test_at_420_px_the_header_wraps_and_every_control_is_in_the_window(served, browser, kinds):
    base = served.base
    with watched_page(browser, base, width=420) as page:
        pages = {"home": f"{base}/"}
        for kind in kinds:
            bot = "greedy" if "greedy" in kind["bots"] else kind["bots"][0]
            game = httpx.post(base + "/api/games", json={"game": kind["name"], "ai": {"spec": bot}}).json()
            pages[kind["name"]] = f"{base}/#resume={game['id']}.{game['token']}"
        for name, url in pages.items():
            open_page(page, url, None if name == "home" else SETTLED)
            wide = page.evaluate("""() => ({width: document.documentElement.scrollWidth,
                controls: ['#resign', '#analysis-link', '#new-game-toggle'].map(s => {
                    const r = document.querySelector(s).getBoundingClientRect();
                    return [s, Math.round(r.left), Math.round(r.right), r.width > 0];
                })})""")
            assert wide["width"] <= 420, (name, wide)
            for selector, left, right, shown in wide["controls"]:
                assert shown and 0 <= left and right <= 420, (name, selector, left, right)
        assert problems_of(page) == []


def test_the_card_pop_over_does_not_cover_the_buy_buttons_drawn_under_a_resting_pointer(served, browser):
    base = served.base
    with watched_page(browser, base) as page:
        # The seed fixes the Supply only; the deal is the server's secret. A hand of four Guards and one
        # Peon ends the turn at its one treasure (nothing to buy with 1 gold), so take a deal with at
        # least two Peons: two treasure clicks, then buy buttons.
        for _ in range(10):                           # one deal in 42 has a single Peon
            answer = httpx.post(base + "/api/games", json={"game": "crown", "seed": 1, "supply": "first-game",
                                                           "ai": {"level": "easy"}})
            assert answer.status_code == 201, answer.text
            game = answer.json()
            if game["observation"]["you"]["hand"].count("Peon") >= 2:
                break
        else:
            pytest.fail("no deal with two Peons in 10 new games")
        open_page(page, f"{base}/#resume={game['id']}.{game['token']}", SETTLED)
        pop = page.locator("#card-pop")

        def act(click) -> None:
            old = page.evaluate("document.body.dataset.version")
            click()
            page.wait_for_function("(old) => document.body.dataset.version !== old && document.body.dataset.busy === '0'",
                                   arg=old)

        while page.locator("#phase").get_attribute("data-phase") != "buy":
            act(page.locator("#actions button.action[data-kind=done]").click)
        # The buy phase: the treasures' button, then the buy buttons, drawn where the pointer rests.
        treasure = page.locator("#actions button.action[data-kind=play][data-card]").first
        box = treasure.bounding_box()
        x, y = box["x"] + 10, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        assert pop.is_visible()                          # a hover over a card's button shows the card
        clicks = 0
        while page.locator("#actions button.action[data-kind=play][data-card]").count():
            assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('button.action')?.dataset.kind",
                                 [x, y]) == "play"
            act(lambda: page.mouse.click(x, y))        # a click where the pointer rests
            clicks += 1
            page.mouse.move(x, y)                       # the pointer at rest: the browser finds what is under it
            under = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('[data-card]')?.dataset.card ?? null",
                                  [x, y])
            assert under is not None                    # a card's button is there again
            assert pop.is_hidden(), (clicks, under, pop.inner_text())
        assert clicks >= 2 and page.locator("#actions button.action[data-kind=buy]").count() >= 2
        # The pointer moves: the card under it shows again.
        page.mouse.move(x + 4, y)
        assert pop.is_visible()
        assert problems_of(page) == []
