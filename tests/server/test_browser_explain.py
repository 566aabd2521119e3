"""The web board's first minutes (issue 22, section 4) in a real headless Chromium (set-up as in
test_browser.py): the home page says what each game is with its rules, the How to play panel draws each
unit's squares as GET /api/units/reach gives them, card texts link their rule numbers, the hint says
what its source means, the turn label stays on the status line, King's Ransom's own Discard pile is in
view at 1000 px height, and the analysis board's score labels do not overlap.

Screenshots go to $FTC_SCREENSHOTS when it is set.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from engine.games import registry
from tests.server.test_browser import CHROMIUM, fake_views, page, server, start_first_game, state  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")]

RULES_FTC = "/rules/for-the-crown"


def shot(page, name):
    folder = os.environ.get("FTC_SCREENSHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"explain-{name}.png"), full_page=True)


def overlapping(boxes: list[dict]) -> list[tuple[int, int]]:
    """Pairs of bounding boxes ({x, y, width, height}) that share any area."""
    return [(i, j) for i in range(len(boxes)) for j in range(i)
            if boxes[i]["x"] < boxes[j]["x"] + boxes[j]["width"] and boxes[j]["x"] < boxes[i]["x"] + boxes[i]["width"]
            and boxes[i]["y"] < boxes[j]["y"] + boxes[j]["height"] and boxes[j]["y"] < boxes[i]["y"] + boxes[i]["height"]]


def test_the_home_page_says_what_each_game_is(page):
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    shot(page, "home")
    cards = page.locator("#games-intro .game-card")
    games = len(registry.names())          # one card a registered game (the others from /api/games/kinds)
    page.wait_for_function(f"() => document.querySelectorAll('#games-intro .game-card').length === {games}")
    assert cards.count() == games
    ftc = page.locator("#games-intro .game-card[data-game=crown]")
    kr = page.locator("#games-intro .game-card[data-game=kings-ransom]")
    ftc_text, kr_text = " ".join(ftc.inner_text().split()), " ".join(kr.inner_text().split())
    # Each card says what its registry entry says of the game (issue 41: the page names no game).
    assert registry.get("crown").description in ftc_text and "8x8 board" in ftc_text
    assert registry.get("kings-ransom").description in kr_text and "3x6 arena" in kr_text
    for card, href in ((ftc, RULES_FTC), (kr, "/rules/kings-ransom")):
        link = card.locator("a.rules-link")
        assert link.get_attribute("href") == href and link.get_attribute("target") == "_blank"
        assert "noopener" in link.get_attribute("rel")
    # Every menu says what its choices are: a title on its label, and a line for the chosen one.
    # The game's own menus (variant, Supply: For the Crown's registry form) and the shell's.
    for name, menu in (("game", "select[name=game]"), ("variant", "select[data-field=variant]"),
                       ("supply", "select[data-field=supply]"), ("human", "select[name=human]"),
                       ("game-bot", "select[name=game-bot]")):
        label = page.locator(f"#new-game label:has({menu})")
        assert len(label.get_attribute("title") or "") > 30, name
        assert page.locator(f"#new-game .field-note[data-for={name}]").inner_text().strip(), name
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    assert page.locator("#new-game .field-note[data-for=game-bot]").inner_text() == "the easy level: greedy"
    page.select_option("#game-form select[data-field=variant]", label="Point-Buy Chess")
    assert "no cards" in page.locator("#new-game .field-note[data-for=variant]").inner_text()
    # A game's description chooses it.
    assert "chosen" in ftc.get_attribute("class").split()
    kr.locator("button.game-intro").click()
    assert page.input_value("#new-game select[name=game]") == "kings-ransom"
    assert "chosen" in kr.get_attribute("class").split() and "chosen" not in ftc.get_attribute("class").split()
    assert page.locator("#game-form select[data-field=variant]").is_hidden()
    assert not page.problems, page.problems


def test_the_seat_menu_says_who_moves_first_in_each_variant(page):
    """In The Last Stand the Defender (Yellow) moves first (11.5; ruling C21 starts play with it): the
    seat menu and its note say so instead of "Blue (moves first)"."""
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    def seats():
        return [" ".join(o.split()) for o in page.locator("#new-game select[name=human] option").all_inner_texts()]
    def note():
        return page.locator("#new-game .field-note[data-for=human]").inner_text()
    assert seats()[:2] == ["Blue (moves first)", "Yellow"] and note() == "you move first"
    page.select_option("#game-form select[data-field=variant]", label="Last Stand")
    assert seats()[:2] == ["Blue (attacks)", "Yellow (defends, moves first)"]
    assert note() == "you attack; the AI defends and moves first"
    page.select_option("#new-game select[name=human]", "1")
    assert note() == "you defend and move first"
    page.select_option("#game-form select[data-field=variant]", label="Standard")
    assert seats()[:2] == ["Blue (moves first)", "Yellow"] and note() == "the AI moves first"
    page.select_option("#new-game select[name=game]", "kings-ransom")
    assert seats()[:2] == ["Red (moves first)", "Blue"]
    assert not page.problems, page.problems


def status_boxes(page, status: str) -> tuple[dict, dict]:
    """The boxes of the status text and of the turn label, read at once (the status may be redrawn)."""
    return page.evaluate("""(status) => ['strong', '.turn'].map(s => {
        const r = document.querySelector(`${status} ${s}`).getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height}; })""", status)


def expected_marks(mode: dict) -> dict:
    """What each square of a diagram should show, from the endpoint's lists (the legend's meaning)."""
    marks = {sq: "march" for sq in mode["march"]}
    for sq in mode["attack"]:
        marks[sq] = "both" if sq in marks else "attack"
    for sq in mode["shoot"]:
        marks[sq] = "shoot"
    for sq in mode["swap"]:
        marks.setdefault(sq, "swap")
    return marks


def drawn_marks(page, mode: str) -> dict:
    return page.evaluate("""(mode) => Object.fromEntries([...document.querySelectorAll(
        `#how-unit .how-grid[data-mode=${mode}] .how-sq[data-mark]`)].map(c => [c.dataset.square, c.dataset.mark]))""", mode)


def shown_unit(page, token: str) -> None:
    page.wait_for_selector(f"#how-unit .how-unit[data-token='{token}']")
    assert page.locator("#ftc-how").evaluate("d => d.open")


def test_how_to_play_from_the_legend_and_from_a_board_unit(page):
    start_first_game(page)
    reach = {u["token"]: u for u in page.evaluate("() => fetch('/api/units/reach').then(r => r.json())")["units"]}
    panel = page.locator("#ftc-how")
    assert not panel.evaluate("d => d.open")                    # collapsed at first
    # From the legend: the Knight, its squares exactly as the endpoint gives them.
    page.click("#legend summary")
    page.click("#legend-grid .legend-item[data-token=N]")
    shown_unit(page, "N")
    knight = reach["N"]
    assert drawn_marks(page, "flat") == expected_marks(knight["flat"])
    assert len(drawn_marks(page, "flat")) == 8 and set(drawn_marks(page, "flat").values()) == {"both"}
    # Its second diagram: the Compass card marches it with the files joined (marches only, 17.0).
    assert drawn_marks(page, "compass") == {sq: "march" for sq in knight["compass"]["march"]}
    assert page.locator("#how-unit .how-grid[data-mode=flat] .how-sq.origin").get_attribute("data-square") == "d4"
    # The turn and the win, with links to the rules.
    assert page.locator("#ftc-how .how-phases li").evaluate_all("ls => ls.map(l => l.dataset.phase)") == \
        ["order", "action", "buy", "housekeeping"]
    assert page.locator("#ftc-how .how-phases li[data-phase=order] a.rule-link").get_attribute("href") == f"{RULES_FTC}#sec-6-0"
    assert page.locator("#ftc-how .how-win a.rule-link").first.get_attribute("href") == f"{RULES_FTC}#sec-10-0"
    assert page.locator("#how-rules-link").get_attribute("href") == RULES_FTC
    # Units of every kind of mark: the Oracle shoots, the Spy swaps, an expansion unit always wraps.
    for token in ("O", "Y", "~N", "F"):
        page.click(f"#how-units .how-pick[data-token='{token}']")
        shown_unit(page, token)
        assert drawn_marks(page, "flat") == expected_marks(reach[token]["flat"]), token
    assert drawn_marks(page, "compass") == {sq: "march" for sq in reach["F"]["compass"]["march"]}
    assert "d4" in drawn_marks(page, "flat")                     # the Phantom's null march: its own square
    page.click("#how-units .how-pick[data-token='~N']")
    shown_unit(page, "~N")
    assert drawn_marks(page, "compass") == expected_marks(reach["~N"]["compass"])     # attacks too: it always wraps
    shot(page, "how-to-play")

    # From a unit on the board: a right click (a long press) shows it, and orders nothing.
    version = state(page)["version"]
    page.click("#board .sq[data-name=e8]", button="right")                   # the AI's King
    shown_unit(page, "K")
    assert "Compass card (17.0) cannot march a Sovereign" in page.locator("#how-unit").inner_text()
    assert page.locator("#how-unit .how-grid[data-mode=compass]").count() == 0
    assert state(page)["version"] == version and page.locator("#board .sq.selected").count() == 0
    # A left click still selects the unit to order it, and the prompt links to how it moves.
    page.click("#how-units .how-pick[data-token=N]")
    shown_unit(page, "N")
    page.click("#board .sq[data-name=e1]")
    assert page.locator("#board .sq[data-name=e1].selected").count() == 1
    assert page.locator("#board .sq.target").count() > 0
    page.click("#unit-how")
    shown_unit(page, "K")
    assert page.locator("#board .sq[data-name=e1].selected").count() == 1
    assert not page.problems, page.problems


def test_card_texts_link_their_rule_numbers(page):
    # A card text that tries to be HTML stays text: the catalog is served with one made-up effect.
    real = {}

    def catalog(route):
        response = route.fetch()
        data = response.json()
        real.update({c["name"]: c for c in data["cards"]})
        data["cards"] = [dict(c) for c in data["cards"]]
        peon = next(c for c in data["cards"] if c["name"] == "Peon")
        peon["effects"] = [dict(peon["effects"][0], text='<img src=x onerror="window.owned=1"> gold (8.0), see expansion 1.0.'),
                           peon["effects"][1]]
        route.fulfill(response=response, body=json.dumps(data))

    page.route("**/api/catalog", catalog)
    start_first_game(page)
    page.click("#card-ref summary")
    items = page.locator("#card-ref-list .card-ref-item")
    assert items.count() > 10
    links = page.locator("#card-ref-list a.rule-link")
    found = links.evaluate_all("ls => ls.map(l => [l.textContent, l.getAttribute('href'), l.target, l.rel])")
    assert found
    for text, href, target, rel in found:
        number = re.search(r"(\d+)\.(\d)", text)
        anchor = ("exp" if text.startswith("expansion") else "sec") + f"-{number[1]}-{number[2]}"
        assert href == f"{RULES_FTC}#{anchor}" and target == "_blank" and "noopener" in rel, (text, href)
    hrefs = {href for _, href, _, _ in found}
    assert {f"{RULES_FTC}#sec-7-0", f"{RULES_FTC}#sec-13-0", f"{RULES_FTC}#exp-1-0"} <= hrefs
    # Each effect's text reads as the catalog's, every rule number in it a link.
    guard = page.locator("#card-ref-list .card-ref-item[data-ref=Guard] .effect-text").first
    assert guard.inner_text() == real["Guard"]["effects"][0]["text"]
    assert guard.locator("a.rule-link").evaluate_all("ls => ls.map(l => l.textContent)") == ["13.0"]
    peon = page.locator("#card-ref-list .card-ref-item[data-ref=Peon] .effect-text").first
    assert peon.inner_text() == '<img src=x onerror="window.owned=1"> gold (8.0), see expansion 1.0.'
    assert page.locator("#card-ref-list img").count() == 0 and not page.evaluate("() => window.owned")
    # The popover of a card pinned by a click: the same links, and a click on one does not close it.
    page.locator("#hand .card[data-card=Guard]").first.click(button="right")
    link = page.locator("#card-pop a.rule-link").first
    assert link.get_attribute("href") == f"{RULES_FTC}#sec-13-0"
    assert not page.problems, page.problems


def test_the_hint_says_what_its_source_means(page):
    game_id = start_first_game(page)
    view = page.evaluate("""async (id) => (await fetch(`/api/games/${id}`, {
        headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json()""", game_id)
    action = view["actions"][0]
    page.route("**/api/games/*/hint", lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(
        {"version": view["version"], "action": action["id"], "text": action["text"], "fields": action["fields"],
         "source": "plan", "alternatives": [], "iterations": 0, "seconds": 0.01})))
    page.click("#hint-button")
    page.wait_for_selector("#hint-text")
    source = page.locator("#hint-box .hint-source")
    assert "(plan)" not in page.locator("#hint-box").inner_text()
    assert "planned line for your whole turn" in source.inner_text()
    assert source.get_attribute("data-source") == "plan"
    assert not page.problems, page.problems


def test_the_turn_label_stays_on_the_status_line(page):
    """A tag at the end of the status line, never a line of its own starting with a separator, at the
    widths where the side column is narrowest, and with the longest status texts (Yellow waiting,
    Yellow deciding in Blue's turn)."""
    game_id = start_first_game(page)
    view = page.evaluate("""async (id) => (await fetch(`/api/games/${id}`, {
        headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json()""", game_id)
    serve, _sockets = fake_views(page, game_id)
    waiting = dict(view, version=view["version"] + 5, human=1, to_move=0, deciding=0, your_turn=False, thinking=False,
                   actions=[], prompt=None, turn=123)
    deciding = dict(waiting, version=waiting["version"] + 1, deciding=1, your_turn=True, actions=view["actions"])
    page.route("**/api/games/*/ai", lambda route: route.fulfill(status=409, content_type="application/json",
                                                                  body=json.dumps({"detail": "not now"})))
    for width in (1400, 1251, 1100, 901, 700):
        page.set_viewport_size({"width": width, "height": 1000})
        for fake in (waiting, deciding):
            serve(fake)
            label = page.locator("#turn")
            text = label.inner_text()
            assert text.startswith("Turn 123"), text
            assert ("Blue's" in text) == (fake is deciding), text     # named only when someone else decides
            head, turn = status_boxes(page, "#status")
            centre = lambda box: box["y"] + box["height"] / 2                 # noqa: E731
            assert abs(centre(head) - centre(turn)) < 4, (width, head, turn)
            assert turn["x"] > head["x"] + head["width"], (width, head, turn)
            assert turn["height"] < 24, (width, turn)                  # one line
    shot(page, "turn-label")
    assert not [p for p in page.problems if "status of 409" not in p], page.problems


@pytest.mark.parametrize("width", [1400, 1000, 700])
def test_king_s_ransom_own_discard_pile_is_in_view_at_1000_px(page, width):
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    page.select_option("#new-game select[name=game]", "kings-ransom")
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    page.click("#start")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.state)")
    shot(page, f"ransom-{width}")
    assert page.evaluate("() => window.scrollY") == 0
    for tray in ("#kr-tray-bottom", "#kr-tray-top"):
        pile = page.locator(f"{tray} .kr-discard")
        pile.wait_for(state="visible")                 # the trays are drawn with the first view
        # The box is read in one evaluation: a view drawn again between the locator's wait and its
        # bounding_box() detaches the element and the box comes back None (seen once in CI).
        box = page.evaluate("""(sel) => { const e = document.querySelector(sel);
            if (!e) return null; const r = e.getBoundingClientRect();
            return {y: r.y, height: r.height}; }""", f"{tray} .kr-discard")
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 1000, (tray, box)
    label = page.locator("#kr-turn")
    assert label.inner_text().startswith("Turn ")
    head, turn = status_boxes(page, "#kr-status")
    assert abs((head["y"] + head["height"] / 2) - (turn["y"] + turn["height"] / 2)) < 4
    assert not page.problems, page.problems


def test_the_analysis_board_s_score_labels_do_not_overlap(page):
    page.goto(page.base + "/analysis")
    page.wait_for_selector("body[data-ready='1']")
    # A Queen next to its King: eight lines whose arrows end on neighbouring squares (e2, d2, f2 ...).
    page.fill("#position-text", "4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1")
    page.click("#load-text")
    page.wait_for_function("() => document.querySelectorAll('#board .sq .unit').length === 3")
    page.fill("#top", "8")
    page.fill("#depth", "2")
    page.click("#analyze")
    page.wait_for_function("""() => document.body.dataset.analysis === 'done'
        && document.querySelectorAll('#arrows .arrow-label').length === 8""")
    shot(page, "arrows")
    boxes = page.locator("#arrows .arrow-label").evaluate_all(
        "ts => ts.map(t => { const r = t.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })")
    assert not overlapping(boxes), boxes
    board = page.locator("#board").bounding_box()
    for box in boxes:                                            # every label on the board
        assert board["x"] <= box["x"] and box["x"] + box["width"] <= board["x"] + board["width"] + 1, box
    # The best line's label is still where it was: centred in the upper half of its destination.
    best = page.locator("#arrows g.arrow.best")
    dest = page.locator(f"#board .sq[data-name={best.get_attribute('data-order')[2:4]}]").bounding_box()
    label = best.locator(".arrow-label").bounding_box()
    assert dest["y"] <= label["y"] + label["height"] / 2 <= dest["y"] + dest["height"] / 2
    assert not page.problems, page.problems
