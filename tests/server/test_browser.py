"""The web board in a real headless Chromium: a scripted game played with the mouse.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (no `playwright install`):
    apt-get install -y chromium && pip install playwright
The test is skipped, with the reason, when either is missing.
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")
uvicorn = pytest.importorskip("uvicorn")

from engine.interfaces.server.app import create_app  # noqa: E402

ALL_TOKENS = "K Q R B N P A U E C L D G H I M Z O F S X Y T W ~B ~P ~N ~K ~Z ~R ~M ~G ~H ~L".split()
SETTLED = """(old) => document.body.dataset.version !== old && document.body.dataset.busy === '0'
                     && ['your-turn', 'over'].includes(document.body.dataset.state)"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    app = create_app(tmp_path / "db.sqlite3", ai_pool="thread")
    # The server's secrets seeded: the scripted game below (its hand, its gold) is the same every run.
    app.state.server.entropy = random.Random(4)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
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


@pytest.fixture
def page(server):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = context.new_page()
        pg.set_default_timeout(30_000)
        pg.problems = []
        pg.foreign = []
        pg.on("pageerror", lambda exc: pg.problems.append(f"page error: {exc}"))
        # (The browser logs every 4xx answer; the test fakes one 409 on purpose.)
        pg.on("console", lambda msg: msg.type == "error" and "status of 409" not in msg.text
              and pg.problems.append(f"console error: {msg.text}"))
        # Nothing may be fetched from anywhere but the app itself (no CDN fonts or scripts).
        pg.on("request", lambda req: None if req.url.startswith((server, "data:", server.replace("http", "ws")))
              else pg.foreign.append(req.url))
        pg.base = server
        yield pg
        context.close()
        browser.close()


# -- helpers that read the DOM and click like a player ------------------------------------------
def state(page) -> dict:
    return page.evaluate("""() => ({
        state: document.body.dataset.state, version: document.body.dataset.version,
        phase: document.querySelector('#phase')?.dataset.phase,
        turn: document.querySelector('#turn')?.textContent,
        gold: +document.querySelector('#gold').textContent,
        buttons: [...document.querySelectorAll('#actions button.action')].map(b => [b.dataset.kind, b.textContent]),
    })""")


def click_and_settle(page, locator):
    """Click something that sends an action; wait until the answer (and the AI's reply) is shown."""
    old = page.evaluate("document.body.dataset.version")
    locator.click()
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()


def click_button(page, kind, text_re=None):
    buttons = page.locator(f"#actions button.action[data-kind={kind}]")
    if text_re:
        buttons = buttons.filter(has_text=re.compile(text_re))
    if buttons.count() == 0:
        return False
    click_and_settle(page, buttons.first)
    return True


def ai_tint_is_its_turns_squares(page, game_id) -> int:
    """The board tints exactly the squares of the AI's last turn as its view's fields give them (both
    squares of its orders, the squares it chose); returns how many."""
    view = page.evaluate("""async (id) => (await fetch(`/api/games/${id}`, {
        headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json()""", game_id)
    assert view["version"] == int(page.evaluate("document.body.dataset.version"))
    expected = set()
    for entry in view["ai_last_turn"]:
        fields = entry["fields"] or {}
        squares = {"order": ("origin", "dest"), "square": ("square",)}.get(fields.get("type"), ())
        expected |= {fields[key] for key in squares if fields[key] is not None}
    tinted = page.locator("#board .sq.ai-moved")
    assert {int(tinted.nth(i).get_attribute("data-square")) for i in range(tinted.count())} == expected
    return len(expected)


def board_order(page, rng, prefer=("attack", "shoot", "march", "swap")):
    """Select a unit with orders on the board, then click one of its highlighted targets."""
    movable = page.locator("#board .sq.movable")
    names = [movable.nth(i).get_attribute("data-name") for i in range(movable.count())]
    if not names:
        return False
    options = []
    for name in names:
        page.click(f"#board .sq[data-name={name}]")
        assert page.locator(f"#board .sq[data-name={name}]").get_attribute("class").split().count("selected") == 1
        for kind in prefer:
            targets = page.locator(f"#board .sq.target-{kind}")
            for i in range(targets.count()):
                options.append((prefer.index(kind), name, targets.nth(i).get_attribute("data-name")))
        page.keyboard.press("Escape")
    assert options, "units marked movable but none has a highlighted target"
    best = min(o[0] for o in options)
    _, origin, dest = rng.choice([o for o in options if o[0] == best])
    page.click(f"#board .sq[data-name={origin}]")
    target = page.locator(f"#board .sq.target[data-name={dest}]")
    if page.locator("#chooser").is_visible():   # should not happen before clicking a target
        page.keyboard.press("Escape")
    old = page.evaluate("document.body.dataset.version")
    target.click()
    if page.locator("#chooser").is_visible():   # a promotion: several actions for one target
        page.locator("#chooser button.action").first.click()
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    return True


def deploy(page):
    chips = page.locator(".unit-chip.deployable")
    if chips.count() == 0:
        return False
    chips.first.click()
    targets = page.locator("#board .sq.target-deploy")
    assert targets.count() > 0, "a deployable Barracks unit without highlighted squares"
    old = page.evaluate("document.body.dataset.version")
    targets.first.click()
    if page.locator("#chooser").is_visible():
        page.locator("#chooser button.action").first.click()
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    return True


def test_play_a_game_with_the_mouse(page, tmp_path):
    rng = random.Random(11)
    page.goto(page.base + "/")
    # The new-game form: first-game supply, greedy AI, the human plays Blue, a fixed seed.
    page.select_option("#game-form select[data-field=variant]", label="Standard")
    page.select_option("#game-form select[data-field=supply]", label="First game")
    page.select_option("#new-game select[name=human]", "0")
    page.select_option("#new-game select[name=game-bot]", "level:easy")          # the greedy bot: a quick AI
    page.fill("#game-form input[data-field=seed]", "1")
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    game_id = re.search(r"#game=(\w+)", page.url).group(1)
    assert page.locator("#new-game").is_hidden()

    # The board: 64 squares, the two Kings with their names as hover titles, the catalog legend.
    assert page.locator("#board .sq").count() == 64
    assert page.locator("#board .sq[data-name=e1] .unit[data-token=K][data-colour='0']").count() == 1
    assert page.locator("#board .sq[data-name=e8] .unit[data-token=K][data-colour='1']").count() == 1
    assert page.locator("#board .sq[data-name=e1] svg title").text_content() == "Blue King"
    labels = page.locator("#board .label.rank").all_text_contents()
    assert labels == [str(r) for r in range(8, 0, -1)]   # rank 8 on top from Blue's side
    page.click("#legend summary")
    for token in ALL_TOKENS:
        item = page.locator(f"#legend-grid .legend-item[data-token='{token}']")
        assert item.count() == 1, token
        assert item.locator("svg").first.locator("path, rect, circle, ellipse, polygon, polyline").count() >= 1
    names = page.locator("#legend-grid .legend-item svg title").all_text_contents()
    assert "King" in names and "Visionary" in names
    assert page.locator("#legend-grid .legend-item[data-token='~B'] .globe").count() == 2   # cylindrical marker
    assert page.locator("#legend-grid .legend-item[data-token='B'] .globe").count() == 0
    page.click("#legend summary")

    # Panels: hand, piles, supply with costs, stock, phase and counters.
    hand = page.locator("#hand .card").all_text_contents()
    assert len(hand) == 5 and set(hand) <= {"Guard", "Peon"}
    assert page.locator("#you-deck .pile-count").text_content() == "5"
    assert page.locator("#opp-hand .pile-count").text_content() == "5"
    assert page.locator("#supply tbody tr").count() >= 10
    champion = page.locator("#supply tbody tr[data-card=Champion] td")
    assert champion.nth(1).text_content() == "2"
    assert page.locator("#stock .unit-chip").count() == 34
    st = state(page)
    assert st["phase"] == "order" and st["state"] == "your-turn"
    page.screenshot(path=str(tmp_path / "01-start.png"), full_page=True)

    # A board march: the King's targets are highlighted as marches; click one.
    page.click("#board .sq[data-name=e1]")
    assert page.locator("#board .sq.target-march").count() >= 3
    assert page.locator("#board .sq[data-name=e2]").get_attribute("class").split().count("target-march") == 1
    page.screenshot(path=str(tmp_path / "02-selected.png"))
    click_and_settle(page, page.locator("#board .sq[data-name=e2]"))
    assert page.locator("#board .sq[data-name=e2] .unit[data-token=K][data-colour='0']").count() == 1
    assert page.locator("#board .sq[data-name=e1] .unit").count() == 0
    assert "e1e2" in page.locator("#log").inner_text()

    # A server error shows its detail text (here a stale answer, made up by the network layer).
    page.route("**/api/games/*/actions", lambda route: route.fulfill(
        status=409, content_type="application/json", body='{"detail": "stale view: made up by the test"}'))
    page.locator("#actions button.action[data-kind=done]").first.click()
    page.wait_for_selector("#error:has-text('stale view: made up by the test')")
    page.unroute("**/api/games/*/actions")
    page.click("#error .close")
    assert page.locator("#error").is_hidden()

    # Finish the order phase, play a card via its button in the action phase, then buy in the buy phase.
    while state(page)["phase"] == "order":
        assert click_button(page, "done")
    assert state(page)["phase"] == "action"
    assert click_button(page, "play", r"training"), state(page)["buttons"]
    # Training trashes the card and puts its unit into the Barracks.
    assert page.locator("#barracks-0 .unit-chip[data-token=P] .count").text_content() == "\u00d71"
    assert page.locator("#trash .pile-count").text_content() == "1"
    while state(page)["phase"] == "action":
        assert click_button(page, "done")
    assert state(page)["phase"] == "buy"
    # Treasures: click the hand cards themselves (each has one legal action: play it as treasure).
    while page.locator("#hand .card.clickable").count():
        click_and_settle(page, page.locator("#hand .card.clickable").first)
    assert state(page)["gold"] >= 2
    buyable = page.locator("#supply tbody tr.clickable")
    assert buyable.count() >= 1
    bought = buyable.first.get_attribute("data-card")
    left_before = int(page.locator(f"#supply tbody tr[data-card='{bought}'] td").nth(2).text_content())
    click_and_settle(page, buyable.first)
    # The answer may already hold the AI's whole turn (one buy ends the phase): its buys count too.
    ai_buys = sum(1 for text in page.locator("#ai-last-turn li").all_inner_texts() if text.strip() == f"buy {bought}")
    assert int(page.locator(f"#supply tbody tr[data-card='{bought}'] td").nth(2).text_content()) == left_before - 1 - ai_buys, page.locator('#log').inner_text()
    assert f"buy {bought}" in page.locator("#log").inner_text()
    while state(page)["phase"] == "buy" and state(page)["turn"].startswith("Turn 1"):
        assert click_button(page, "done")

    # The AI has answered with a whole turn: shown in its panel and in the log.
    page.wait_for_selector("body[data-state=your-turn], body[data-state=over]")
    assert page.locator("#ai-last-turn li:not(.empty-note)").count() >= 1
    assert page.locator("#log li.side-1").count() >= 1
    tinted = ai_tint_is_its_turns_squares(page, game_id)
    page.screenshot(path=str(tmp_path / "03-after-first-turn.png"), full_page=True)

    # Reload: the game id in the URL hash resumes the same game.
    version = page.evaluate("document.body.dataset.version")
    page.reload()
    page.wait_for_selector(f"body[data-version='{version}']:not([data-state='loading'])")
    assert game_id in page.locator("#game-label").inner_text()
    assert page.locator("#board .sq[data-name=e2] .unit[data-token=K]").count() == 1 or \
        page.locator("#board .unit[data-token=K][data-colour='0']").count() == 1

    # Several more turns with a simple policy, everything through the mouse and the DOM.
    deployed = ordered = bought_more = 0
    for _ in range(400):
        st = state(page)
        if st["state"] == "over":
            break
        turn = int(re.search(r"Turn (\d+)", st["turn"]).group(1))
        if turn >= 12:
            break
        if st["phase"] == "order" and st["state"] == "your-turn":
            tinted += ai_tint_is_its_turns_squares(page, game_id)
        kinds = {kind for kind, _ in st["buttons"]}
        if st["phase"] == "order" and page.locator(".unit-chip.deployable").count() and rng.random() < 0.7:
            deployed += deploy(page)
        elif st["phase"] == "order" and page.locator("#board .sq.movable").count() and rng.random() < 0.6:
            ordered += board_order(page, rng)
        elif kinds - {"done", "play", "buy"}:   # a card, square, unit or yes/no choice
            choice = next(k for k in ("square", "unit", "card", "yesno", "number") if k in kinds)
            if choice == "square" and page.locator("#board .sq.choice").count():
                click_and_settle(page, page.locator("#board .sq.choice").first)
            else:
                assert click_button(page, choice)
        elif st["phase"] == "action" and "play" in kinds and rng.random() < 0.8:
            assert click_button(page, "play")
        elif st["phase"] == "buy" and page.locator("#actions button.action[data-kind=play]", has_text="treasure").count():
            assert click_button(page, "play", r"treasure")
        elif st["phase"] == "buy" and "buy" in kinds:
            click_and_settle(page, page.locator("#supply tbody tr.clickable").last)
            bought_more += 1
        else:
            assert click_button(page, "done") or click_button(page, "play"), st
    else:
        pytest.fail("the scripted game did not get through six turns")
    assert ordered + deployed >= 1
    assert tinted >= 2                                   # the AI's orders were tinted, not only checked
    assert page.locator("#log li").count() >= 20
    assert page.locator("#ai-last-turn li").count() >= 1
    page.screenshot(path=str(tmp_path / "04-later.png"), full_page=True)

    # Resign (with its confirmation): the game-over banner shows the result.
    if state(page)["state"] != "over":
        page.click("#resign")
        old = page.evaluate("document.body.dataset.version")
        page.click("#resign-yes")
        page.wait_for_function(SETTLED, arg=old)
    assert page.locator("#gameover").is_visible()
    assert re.search(r"won|Draw", page.locator("#gameover").inner_text())
    assert page.locator("#actions button.action").count() == 0
    page.screenshot(path=str(tmp_path / "05-over.png"), full_page=True)

    assert not page.problems, page.problems
    assert not page.foreign, f"requests to other hosts: {page.foreign}"


def test_playing_yellow_flips_the_board(page):
    page.goto(page.base + "/")
    page.select_option("#game-form select[data-field=supply]", label="First game")
    page.select_option("#new-game select[name=human]", "1")
    page.select_option("#new-game select[name=game-bot]", "random")            # a player by name
    page.fill("#game-form input[data-field=seed]", "3")
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    assert page.locator("#board .label.rank").all_text_contents() == [str(r) for r in range(1, 9)]
    assert page.locator("#board .label.file").all_text_contents() == list("hgfedcba")
    assert page.locator("#ai-last-turn li:not(.empty-note)").count() >= 1   # the AI (Blue) moved first
    assert "Yellow" in page.locator("#game-label").inner_text()
    assert not page.problems, page.problems


def test_a_reload_resumes_the_game_and_another_browser_cannot_open_it(page):
    page.goto(page.base + "/")
    page.select_option("#game-form select[data-field=supply]", label="First game")
    page.select_option("#new-game select[name=game-bot]", "random")            # a player by name
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    url = page.url
    game_id = re.search(r"#game=(\w+)", url).group(1)
    token = page.evaluate(f"localStorage.getItem('ftc.token.{game_id}')")
    assert token and len(token) >= 22 and token not in url         # the token never goes in the URL
    version = state(page)["version"]
    page.reload()
    page.wait_for_selector("body[data-state=your-turn]")
    assert state(page)["version"] == version and page.locator("#error").is_hidden()
    # The WebSocket authenticated too. It opens after the page has drawn the game from its HTTP
    # answer, so wait for it (with a bound) instead of reading it at once.
    page.wait_for_function("document.querySelector('#conn').textContent !== ''", timeout=15_000)
    assert page.locator("#conn").text_content() == "live"
    # A second browser (no local storage) with the same address sees nothing of the game.
    other = page.context.browser.new_context()
    try:
        stranger = other.new_page()
        stranger.goto(url)
        stranger.wait_for_selector("#error:not([hidden])")
        assert "no token" in stranger.locator("#error").inner_text()
        assert stranger.locator("#board .unit").count() == 0
        assert stranger.locator("#new-game").is_visible()
    finally:
        other.close()
    assert not page.problems, page.problems


def test_hint_save_resume_from_the_list_download_and_delete(page, tmp_path):
    """The player's tools: a hint highlights its action; Save shows the resume code; after a reload
    the Saved games list resumes the game; the knowledge download loads with engine code; another
    browser opens the game from the code and deletes it from its list."""
    import json

    from engine.crown.knowledge import load_view

    page.goto(page.base + "/")
    page.select_option("#game-form select[data-field=supply]", label="First game")
    page.select_option("#new-game select[name=game-bot]", "random")            # a player by name
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    game_id = re.search(r"#game=(\w+)", page.url).group(1)
    token = page.evaluate(f"localStorage.getItem('ftc.token.{game_id}')")
    # Hint: the suggested action is highlighted and its text shown.
    page.click("#hint-button")
    page.wait_for_selector("#hint-text")
    text = page.locator("#hint-text").inner_text()
    hinted = page.locator("button.action.hinted")
    assert hinted.count() >= 1 and hinted.first.text_content().endswith(text)
    if not hinted.first.is_visible():                 # an order: its squares on the board are marked too
        assert page.locator("#board .sq.hinted").count() == 2
        page.click("#order-list summary")
    click_and_settle(page, hinted.first)
    assert page.locator("#hint-box").is_hidden() and page.locator(".hinted").count() == 0   # a new decision
    # Save: the resume code is the game id and its token.
    page.click("#save-button")
    assert page.locator("#resume-code-out").input_value() == f"{game_id}.{token}"
    version = state(page)["version"]
    # A fresh load of the page (no game in the address): the Saved games list resumes it.
    page.goto(page.base + "/")
    page.reload()
    page.wait_for_selector("#new-game:not([hidden])")
    page.click("#saved-toggle")
    row = page.locator(f"#saved-list li[data-game-id='{game_id}']")
    row.wait_for()
    assert "standard" in row.inner_text() and "your move" in row.inner_text() and "last played" in row.inner_text()
    row.locator("button.resume").click()
    page.wait_for_selector("body[data-state=your-turn]")
    assert state(page)["version"] == version and page.locator("#error").is_hidden()
    # Download what I know: a file the engine loads, showing the human their own view.
    with page.expect_download() as download:
        page.click("#knowledge-button")
    path = tmp_path / "knowledge.json"
    download.value.save_as(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    g = load_view(doc)
    view = page.evaluate("""async (id) => (await fetch(`/api/games/${id}`, {
        headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json()""", game_id)
    assert json.loads(json.dumps(g.observation(doc["seat"]))) == view["observation"]
    # A resume link carries the code in the fragment (never sent to a server); the page keeps it and
    # takes it out of the address at once.
    third = page.context.browser.new_context()
    try:
        linked = third.new_page()
        linked.on("dialog", lambda dialog: dialog.accept())
        linked.goto(page.base + "/")
        linked.click("#saved-toggle")
        linked.fill("#resume-code", "not a code")
        linked.click("#resume-open")
        assert "resume code" in linked.locator("#error").inner_text()
        linked.goto(f"{page.base}/#resume={game_id}.{token}")
        linked.wait_for_selector("body[data-state=your-turn]")
        assert token not in linked.url and f"#game={game_id}" in linked.url
        assert linked.evaluate(f"localStorage.getItem('ftc.token.{game_id}')") == token
    finally:
        third.close()
    # Another browser opens the game from the resume code, then deletes it from its list.
    other = page.context.browser.new_context()
    try:
        second = other.new_page()
        second.on("dialog", lambda dialog: dialog.accept())
        second.goto(page.base + "/")
        second.click("#saved-toggle")
        second.fill("#resume-code", f"{game_id}.{token}")
        second.click("#resume-open")
        second.wait_for_selector("body[data-state=your-turn]")
        assert second.evaluate("document.body.dataset.version") == str(version)
        second.click("#saved-toggle")
        second.locator(f"#saved-list li[data-game-id='{game_id}'] button.delete").click()
        second.wait_for_selector("#saved-list li.idle")
        assert second.evaluate(f"localStorage.getItem('ftc.token.{game_id}')") is None
    finally:
        other.close()
    assert not page.problems, page.problems
    gone = page.evaluate("""async (id) => (await fetch(`/api/games/${id}`, {
        headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).status""", game_id)
    assert gone == 404                                 # deleted on the server, not only from a list


# -- cards that explain themselves (issue 13) -------------------------------------------------------
def start_first_game(page) -> str:
    """A new first-game Supply game against the greedy bot, the human Blue; returns its id."""
    page.goto(page.base + "/")
    page.select_option("#game-form select[data-field=supply]", label="First game")
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    page.fill("#game-form input[data-field=seed]", "1")
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    return re.search(r"#game=(\w+)", page.url).group(1)


def popover_text(page) -> str:
    pop = page.locator("#card-pop")
    pop.wait_for(state="visible")
    return " ".join(pop.inner_text().split())


def flat(text: str) -> str:
    return " ".join(text.split())


def test_cards_explain_themselves(page):
    """Hover and tap show a card's plain-words text (cards.toml via /api/catalog); the Card reference
    lists the Supply and the starting cards; the Stock names its units; /docs needs no CDN."""
    start_first_game(page)
    catalog = page.evaluate("fetch('/api/catalog').then(r => r.json())")
    cards = {c["name"]: c for c in catalog["cards"]}
    units = {u["token"]: u for u in catalog["units"]}

    # Hover a Hand card: its name, and both effects in plain words (not "order: rule 13.0").
    first = page.locator("#hand .card").first
    name = first.get_attribute("data-card")
    first.hover()
    shown = popover_text(page)
    assert shown.startswith(name) and "starting card" in shown
    for effect in cards[name]["effects"]:
        assert flat(effect["text"]) in shown, (name, effect["text"], shown)
    assert "rule 13.0" not in shown
    # A Hand card that is no action now (a Peon in the Order phase): a tap/click pins the popover.
    peon = page.locator("#hand .card[data-card=Peon]:not(.clickable)").first
    peon.click()
    assert "+1 gold to spend in the Buy phase (8.0)." in popover_text(page)
    assert page.locator("#card-pop .close").is_visible()
    page.keyboard.press("Escape")
    assert page.locator("#card-pop").is_hidden()

    # The Supply: hover a row, then click one (no buy in the Order phase: it only shows the card).
    page.locator("#supply tbody tr[data-card=Legend]").hover()
    assert cards["Legend"]["effects"][0]["text"] in popover_text(page)
    page.mouse.move(2, 2)
    assert page.locator("#card-pop").is_hidden()
    page.locator("#supply tbody tr[data-card=Heir]").click()
    shown = popover_text(page)
    assert shown.startswith("Heir cost 5, provisional")
    assert all(flat(e["text"]) in shown for e in cards["Heir"]["effects"])
    page.click("#card-pop .close")
    assert page.locator("#card-pop").is_hidden()
    # An action button names its card: a hover says what it does and what a click does; a right
    # click (a long press on a touch screen) pins it without playing the card.
    play = page.locator("#actions button.action[data-kind=play][data-card]").first
    play.hover()
    shown = popover_text(page)
    assert shown.startswith(play.get_attribute("data-card")) and f"Click: {play.inner_text()}" in shown
    version = page.evaluate("document.body.dataset.version")
    play.click(button="right")
    assert page.locator("#card-pop.pinned").is_visible()
    assert page.evaluate("document.body.dataset.version") == version       # nothing was played
    page.keyboard.press("Escape")

    # The Card reference: every Supply card, then the starting cards, each with both texts.
    supply = page.locator("#supply tbody tr").evaluate_all("rows => rows.map(r => r.dataset.card)")
    assert page.locator("#card-ref-list").is_hidden()                       # collapsed at first
    page.click("#card-ref summary")
    items = page.locator("#card-ref-list .card-ref-item")
    listed = items.evaluate_all("items => items.map(i => i.dataset.ref)")
    assert listed == supply + ["Peon", "Guard"]
    for name in ("Versatility", "Quartermaster"):
        text = flat(page.locator(f"#card-ref-list .card-ref-item[data-ref='{name}']").inner_text())
        assert all(flat(e["text"]) in text for e in cards[name]["effects"]), (name, text)

    # The Stock: each unit with its glyph, name and count; the hover title names it and its classes.
    chips = page.locator("#stock .unit-chip")
    assert chips.count() == 34
    knight = page.locator("#stock .unit-chip[data-token=N]")
    assert flat(knight.inner_text()) == "Knight 6"
    knight.hover()
    assert knight.get_attribute("title") == "Knight (N): Mounted; 6 in the Stock"
    for token in ("B", "X", "~K"):
        title = page.locator(f"#stock .unit-chip[data-token='{token}']").get_attribute("title")
        assert title.startswith(f"{units[token]['name']} ({token}): {', '.join(units[token]['classes'])}"), title
    assert page.locator("#stock .unit-chip[data-token='~B']").get_attribute("title").endswith("cylindrical; 5 in the Stock")

    # The API page: Swagger UI from this server only (the page fixture records any other host).
    page.goto(page.base + "/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert "ftc-engine" in page.locator(".swagger-ui .info .title").inner_text()
    page.wait_for_selector(".swagger-ui .opblock")
    assert not page.problems, page.problems
    assert not page.foreign, f"requests to other hosts: {page.foreign}"


def fake_views(page, game_id):
    """Serve made-up views of game ``game_id`` (GET and the WebSocket), returning the socket routes
    (a test pushes views through them) and ``serve(view)`` to set what GET answers."""
    current = {}
    sockets = []
    page.route(f"**/api/games/{game_id}", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(current["view"])))
    page.route_web_socket(re.compile(r".*/ws$"), lambda ws: sockets.append(ws))    # never the server's

    def serve(view):
        current["view"] = view
        page.reload()
        # drawn, not only received: the board module draws after it loads (data-state 'loading' until then)
        page.wait_for_selector(f"body[data-version='{view['version']}']:not([data-state='loading'])")

    return serve, sockets


def test_only_the_right_things_are_selectable(page):
    """The board's selection glitches, with made-up views: (a) a card chosen from the Hand selects
    only the Hand, not the Supply row of the same name; (b) selecting your Barracks Pawn highlights
    your chip only; (c) while the AI thinks the status says so, not "Sending"."""
    game_id = start_first_game(page)
    view = page.evaluate("""async (id) => (await fetch(`/api/games/${id}`, {
        headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json()""", game_id)
    assert "Versatility" in [item["name"] for item in view["supply"]]
    serve, sockets = fake_views(page, game_id)

    # (a) Versatility's "discard a card" asks for Hand cards; Versatility is also in the Supply.
    hand_choice = dict(view, version=view["version"] + 10, prompt="Versatility: discard a card",
                       observation=dict(view["observation"], you=dict(view["observation"]["you"], hand=["Versatility", "Peon"])),
                       actions=[{"id": 900001, "text": "Versatility", "fields": {"type": "card", "card": "Versatility", "zone": "hand"}},
                                {"id": 900002, "text": "Peon", "fields": {"type": "card", "card": "Peon", "zone": "hand"}},
                                {"id": 900003, "text": "discard nothing", "fields": {"type": "done"}}])
    serve(hand_choice)
    assert page.locator("#hand .card.clickable").evaluate_all("cs => cs.map(c => c.dataset.card)") == ["Versatility", "Peon"]
    assert page.locator("#supply tbody tr.clickable").count() == 0
    page.locator("#supply tbody tr[data-card=Versatility]").click()           # shows the card, sends nothing
    assert page.locator("#card-pop.pinned").is_visible()
    page.keyboard.press("Escape")
    # The other way round: a gain from the Supply selects Supply rows only.
    gain = dict(hand_choice, version=hand_choice["version"] + 1, prompt="Sacrifice: gain a card",
                actions=[{"id": 900004, "text": "Versatility", "fields": {"type": "card", "card": "Versatility", "zone": "supply"}}])
    serve(gain)
    assert page.locator("#supply tbody tr.clickable").evaluate_all("rs => rs.map(r => r.dataset.card)") == ["Versatility"]
    assert page.locator("#hand .card.clickable").count() == 0

    # (b) A Pawn in both Barracks; only yours can deploy, and only yours is highlighted.
    deploy = {"id": 900005, "text": "P@a2", "fields": {"type": "order", "order_kind": "deploy", "unit": "P", "origin": None,
                                                       "dest": 8, "promotion": None}}
    barracks = dict(view, version=gain["version"] + 1, barracks=[{"P": 1}, {"P": 2}], actions=[deploy] + view["actions"])
    serve(barracks)
    page.click("#barracks-0 .unit-chip[data-token=P]")
    assert page.locator(".unit-chip.selected").count() == 1
    assert page.locator("#barracks-0 .unit-chip[data-token=P]").get_attribute("class").split().count("selected") == 1
    assert "selected" not in page.locator("#barracks-1 .unit-chip[data-token=P]").get_attribute("class").split()
    assert page.locator("#board .sq.target-deploy[data-name=a2]").count() == 1

    # (c) An action is sent; the server answers only after the AI's turn, and meanwhile pushes a
    # view that says the AI is thinking: the status says that, not "Sending".
    held = []
    page.route("**/api/games/*/actions", lambda route: held.append(route))
    page.locator("#actions button.action[data-kind=done]").first.click()
    page.wait_for_function("document.body.dataset.busy === '1'")
    assert "Sending" in page.locator("#status").inner_text()
    assert sockets, "the board opened no WebSocket"
    thinking = dict(barracks, version=barracks["version"] + 1, your_turn=False, thinking=True, actions=[], prompt=None)
    sockets[-1].send(json.dumps(thinking))
    page.wait_for_selector(f"body[data-version='{thinking['version']}']:not([data-state='loading'])")
    assert "The AI is thinking" in page.locator("#status").inner_text()
    assert "Sending" not in page.locator("#status").inner_text()
    # The route's callback runs when Playwright next delivers events; under load that can come after
    # the checks above, so wait for it (at most 15 s) before asserting the action was sent.
    deadline = time.monotonic() + 15
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the action was not sent"
    answered = dict(barracks, version=thinking["version"] + 1)
    held[0].fulfill(status=200, content_type="application/json", body=json.dumps(answered))
    page.wait_for_function(SETTLED, arg=str(thinking["version"]))
    assert "Your decision" in page.locator("#status").inner_text()
    assert not page.problems, page.problems


def check_provisional_note(page, view: dict, data_file: str, ruling: str) -> None:
    """The board's note that its layout is this project's choice: shown, with the view's text and how to
    edit ``data_file``, citing ``ruling``, and every link of it answering 200 with its anchor on the page."""
    note = page.locator("#provisional-note")
    assert note.is_visible()
    text = note.inner_text()
    assert view["provisional"]["text"] in text and view["provisional"]["edit"] in text
    assert data_file in text and ruling in text
    links = note.locator("a")
    assert links.count() == len(view["provisional"]["links"]) >= 1
    for i in range(links.count()):
        href = links.nth(i).get_attribute("href")
        page_name, _, anchor = href.partition("#")
        answer = page.request.get(page.base + page_name)
        assert answer.status == 200, href
        assert not anchor or f'id="{anchor}"' in answer.text(), href
