"""Crownfall on the web board in a real headless Chromium: a whole 2-player game against the random
AI (the fastest bot), played to the game-over message by clicking regions of the map and the choice
buttons only. The human's choices follow a seeded rule over the legal actions of the view (attack
when an enemy piece is next to a marching piece, else spread towards the opponent's home, else any
choice), so battles happen and the log explains them term by term. Screenshots go to tmp_path.

A click on the map only selects (issue 39): the region's actions are then buttons, a March goes by
a second click on a lit region, and what spends mana or ends the turn asks to be confirmed. The new
game form lays Crownfall's fields out in the form's rows; the log reads oldest first, without the
seat repeated; the board says that its map is PROVISIONAL and links the ruling.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (as test_browser.py).
"""

from __future__ import annotations

import os
import random
import time

import pytest

from tests.server.test_browser import CHROMIUM, check_provisional_note, page, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")

SETTLED = """(old) => document.body.dataset.version !== old && document.body.dataset.busy === '0'
                     && ['your-turn', 'over'].includes(document.body.dataset.state)"""
VIEW = """async () => { const id = location.hash.slice(6);
    return (await fetch(`/api/games/${id}`, {headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})).json(); }"""
#: A region's centre relative to its polygon's box (where a player would click it).
CENTRE = """(el) => { const m = el.ownerSVGElement.getScreenCTM(), r = el.getBoundingClientRect();
    const x = +el.dataset.cx, y = +el.dataset.cy;
    return {x: m.a * x + m.c * y + m.e - r.left, y: m.b * x + m.d * y + m.f - r.top}; }"""


def distances(view, start: str) -> dict:
    adjacent = {r["key"]: r["adjacent"] for r in view["board"]["regions"]}
    out, todo = {start: 0}, [start]
    while todo:
        here = todo.pop(0)
        for nxt in adjacent[here]:
            if nxt not in out:
                out[nxt] = out[here] + 1
                todo.append(nxt)
    return out


def choose(view, rng) -> dict:
    """The seeded rule: an attack if one is legal, else (mostly) a step towards the opponent, else any."""
    me = view["human"]
    regions = {r["key"]: r for r in view["observation"]["regions"]}

    def enemy(key):
        r = regions[key]
        return (r["owner"] >= 0 and r["owner"] != me) or any(p != me for p in r["archmages"])

    actions = view["actions"]
    moves = [a for a in actions if a["fields"]["kind"] in ("march-banner", "march-mage", "step")]
    attacks = [a for a in moves if enemy(a["fields"]["to"])]
    if attacks:
        return rng.choice(attacks)
    home = view["observation"]["players"][1 - me]["home"]
    near = distances(view, home)
    spread = [a for a in actions if a["fields"]["kind"] in ("march-banner", "raise", "step", "fortify")
              and near[a["fields"].get("to") or a["fields"]["region"]] <= 2]
    if spread and rng.random() < 0.7:
        return rng.choice(spread)
    others = [a for a in actions if a["fields"]["kind"] != "end"]
    return rng.choice(others if others and rng.random() < 0.85 else actions)


def click_region(page, key):
    cell = page.locator(f"#cf-map polygon[data-region='{key}']")
    cell.click(position=cell.evaluate(CENTRE))


def confirm_if_asked(page):
    """Press the confirmation's Confirm when the action asked for one (it spends mana or ends the turn)."""
    if page.locator("#cf-confirm").count():
        page.click("#cf-confirm-yes")


def play(page, action) -> str:
    """Click what plays ``action``: a March of a Banner, its region then its target on the map; an
    action that names a region, the region (which only selects it) then the action's button there;
    else its button. An action that spends mana or ends the turn is then confirmed. Returns how."""
    fields = action["fields"]
    ident = str(action["id"])
    old = page.evaluate("document.body.dataset.version")
    if fields["kind"] == "march-banner":
        click_region(page, fields["from"])
        page.wait_for_selector(f"#cf-map polygon.cf-march-target[data-region='{fields['to']}']")
        click_region(page, fields["to"])
        sent = page.evaluate("document.body.dataset.busy") == "1" or version(page) != old
        if not sent and not page.locator("#cf-confirm").count():
            # The Archmage could March there from the same region too: the buttons choose.
            page.click(f"#cf-here button[data-action-id='{ident}']")
        how = "march"
    elif fields.get("to") or fields.get("region"):
        click_region(page, fields.get("to") or fields["region"])
        page.click(f"#cf-here button[data-action-id='{ident}']")
        how = "region+button"
    else:
        page.click(f"#cf-plain button[data-action-id='{ident}']")
        how = "button"
    confirm_if_asked(page)
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
    return how


def start_game(page, house: str | None = None):
    """A 2-player game against the random AI, Blue for the human, from the home page."""
    page.goto(page.base + "/")
    page.locator("#games-intro .game-card[data-game=crownfall] button.game-intro").click()
    if house:
        page.select_option("#game-form select[data-field=house]", label=house)
    page.select_option("#new-game select[name=game-bot]", "random")
    page.click("#start")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.state)")
    page.wait_for_selector("#cf-map polygon.legal")


def version(page) -> str:
    return page.evaluate("document.body.dataset.version")


def test_a_whole_crownfall_game_by_clicking_regions(page, tmp_path):  # noqa: F811 - the fixture
    started = time.monotonic()
    rng = random.Random(11)
    page.goto(page.base + "/")
    page.locator("#games-intro .game-card[data-game=crownfall] button.game-intro").click()
    assert page.input_value("#new-game select[name=game]") == "crownfall"
    assert page.locator("#human-field").is_hidden()           # the game's own seat menu replaces it
    labels = page.locator("#game-form select[data-field=players] option").all_inner_texts()
    assert labels == ["2 (1 AI)", "3 (2 AI)", "4 (3 AI)"]
    assert page.locator("#game-form select[data-field=human] option").count() == 4
    page.select_option("#game-form select[data-field=house]", label="The Briar Covenant")
    page.select_option("#new-game select[name=game-bot]", "random")
    page.click("#start")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.state)")
    page.wait_for_selector("#cf-map polygon.legal")
    assert page.locator("#generic-layout").is_visible() and page.locator("#topbar h1").inner_text() == "Crownfall"
    assert page.locator("#cf-map polygon.cf-region").count() == 13
    assert page.locator("#cf-map line.cf-edge").count() == 28          # I1's edges: 4 + 4 + 8 + 12
    assert page.locator("#cf-seats .cf-seat").count() == 2
    assert "Briar" in page.locator("#cf-seats .cf-seat[data-seat='0']").inner_text()
    assert page.locator("#cf-omen strong").inner_text() and page.locator("#cf-objectives li").count() == 2
    # The Home Towers (H) and Archmages at Thorn Coast and Frostmark (RULINGS I2).
    assert page.locator("#cf-map rect.cf-tower[data-role=home]").count() == 2
    page.screenshot(path=str(tmp_path / "crownfall-start.png"), full_page=True)

    hows, battle_shot = {}, False
    for _ in range(400):
        if page.evaluate("document.body.dataset.state") == "over":
            break
        view = page.evaluate(VIEW)
        assert view["your_turn"] and view["actions"]
        how = play(page, choose(view, rng))
        hows[how] = hows.get(how, 0) + 1
        if not battle_shot and page.locator("#cf-log .cf-battle").count():
            battle_shot = True
            page.screenshot(path=str(tmp_path / "crownfall-battle.png"), full_page=True)
    else:
        pytest.fail("the game did not end")
    banner = page.locator("#gameover")
    banner.wait_for(state="visible")
    assert any(word in banner.inner_text() for word in ("You won", "(AI) won", "Draw")), banner.inner_text()
    page.screenshot(path=str(tmp_path / "crownfall-over.png"), full_page=True)
    # Regions were clicked to choose actions: a region then its button, or a March's two regions.
    assert hows.get("region+button", 0) + hows.get("march", 0) >= 5, hows
    # Battles are explained: both sides' terms, and the totals are the terms' sums.
    battles = page.locator("#cf-log .cf-battle")
    assert battles.count() >= 1, "no battle in the game"
    for i in range(battles.count()):
        table = battles.nth(i).locator("table.cf-battle-terms")
        rows = table.locator("tbody tr:not(.cf-total)")
        sums = {"attack": 0, "defense": 0}
        for j in range(rows.count()):
            cells = rows.nth(j).locator("td").all_inner_texts()
            sums["attack"] += int(cells[0] or 0)
            sums["defense"] += int(cells[2] or 0)
        for side in ("attack", "defense"):
            assert int(table.locator(f".cf-total td[data-side={side}]").inner_text()) == sums[side]
        assert "wins" in battles.nth(i).locator("p").inner_text()
    assert page.locator("#cf-log .cf-scoring").count() >= 1
    assert not page.problems, page.problems
    assert not page.foreign, page.foreign
    print(f"Crownfall by clicking: {hows}, {battles.count()} battle(s), {time.monotonic() - started:.1f} s")


def test_a_click_on_a_region_selects_and_what_spends_mana_asks_first(page, tmp_path):  # noqa: F811 - the fixture
    """The issue's misclick: a click on one's home region (to pick the Archmage there) played "Anchor in
    Thorn Coast" at once, 1 mana and an action gone. Now the click selects the region: its actions are
    buttons, the Archmage's destinations light up; the Anchor's button asks first, and Cancel sends
    nothing."""
    start_game(page)
    view = page.evaluate(VIEW)
    me = view["human"]
    home = view["observation"]["players"][me]["home"]
    assert home == "thorn-coast"                          # Blue's home (RULINGS I2), where its Archmage stands
    mana = view["observation"]["players"][me]["mana"]
    anchor = next(a for a in view["actions"] if a["fields"]["kind"] == "anchor" and a["fields"]["region"] == home)
    before = version(page)
    click_region(page, home)
    page.wait_for_function("""([old, home]) => document.body.dataset.version !== old
        || document.querySelector(`#cf-here[data-region="${home}"]`) !== null""", arg=[before, home])
    assert version(page) == before, "the click on the region played an action"
    assert page.evaluate(VIEW)["version"] == view["version"]                                  # nothing sent
    assert "cf-picked" in page.locator(f"#cf-map polygon[data-region='{home}']").get_attribute("class").split()
    lit = page.eval_on_selector_all("#cf-map polygon.cf-march-target", "cells => cells.map(c => c.dataset.region)")
    assert set(lit) == {a["fields"]["to"] for a in view["actions"] if a["fields"]["kind"] == "march-mage"}
    button = page.locator(f"#cf-here button[data-action-id='{anchor['id']}']")
    assert button.inner_text() == "Anchor in Thorn Coast (1 mana)"
    button.click()
    confirm = page.locator("#cf-confirm")
    assert confirm.is_visible() and "1 mana" in confirm.inner_text() and "Anchor in Thorn Coast" in confirm.inner_text()
    page.screenshot(path=str(tmp_path / "crownfall-confirm.png"), full_page=True)
    page.click("#cf-confirm button.cf-cancel")
    assert page.locator("#cf-confirm").count() == 0 and version(page) == before
    assert page.evaluate(VIEW)["observation"]["players"][me]["mana"] == mana
    button.click()
    page.click("#cf-confirm-yes")
    page.wait_for_function(SETTLED, arg=before, timeout=60_000)
    after = page.evaluate(VIEW)
    assert after["observation"]["players"][me]["mana"] == mana - 1
    assert next(r for r in after["observation"]["regions"] if r["key"] == home)["anchor"] == me
    # A second action, free: Raise a Banner plays from its button at once.
    raise_ = next(a for a in after["actions"] if a["fields"]["kind"] == "raise")
    before = version(page)
    click_region(page, raise_["fields"]["region"])
    page.click(f"#cf-here button[data-action-id='{raise_['id']}']")
    page.wait_for_function(SETTLED, arg=before, timeout=60_000)
    # The log reads oldest first, as every other game's, and says "You" once.
    log = page.evaluate(VIEW)["log"]
    items = page.locator("#cf-log > li > span:not(.cf-log-round)").all_inner_texts()
    assert len(items) == len(log) >= 2
    assert items[:2] == ["You: Anchor in Thorn Coast", f"You: {raise_['label']}"], items
    assert not any(": Blue: " in text or text.startswith("Blue: ") for text in items), items
    assert not page.problems, page.problems


def test_the_choices_name_no_seat_and_ending_the_turn_comes_last_and_asks(page):  # noqa: F811 - the fixture
    start_game(page)
    view = page.evaluate(VIEW)
    texts = page.locator("#cf-choices button.cf-action").all_inner_texts()
    assert texts and not any(t.startswith("Blue") for t in texts), texts
    kinds = page.locator("#cf-plain button").evaluate_all("bs => bs.map(b => b.dataset.kind)")
    assert kinds[-1] == "end" and kinds.count("end") == 1, kinds
    assert page.locator("#cf-plain button[data-kind=end]").inner_text() == "End the turn"
    groups = page.locator("#cf-all .cf-group").evaluate_all("gs => gs.map(g => g.querySelector('button').dataset.kind)")
    assert groups[-1] == "end", groups
    before = version(page)
    page.click("#cf-plain button[data-kind=end]")
    confirm = page.locator("#cf-confirm")
    left = view["observation"]["actions_left"]
    assert confirm.is_visible() and f"{left} action(s) left" in confirm.inner_text()
    page.click("#cf-confirm button.cf-cancel")
    assert page.locator("#cf-confirm").count() == 0 and version(page) == before
    # A free action plays from its button at once: Raise a Banner (no mana, the turn goes on).
    raise_ = next(a for a in view["actions"] if a["fields"]["kind"] == "raise")
    click_region(page, raise_["fields"]["region"])
    page.click(f"#cf-here button[data-action-id='{raise_['id']}']")
    assert page.locator("#cf-confirm").count() == 0
    page.wait_for_function(SETTLED, arg=before, timeout=60_000)
    assert page.evaluate(VIEW)["observation"]["actions_left"] == left - 1
    assert not page.problems, page.problems


def test_the_new_game_form_keeps_crownfall_s_fields_in_its_rows(page):  # noqa: F811 - the fixture
    """The form's six Crownfall fields sit in the form's rows beside the Game menu, not in one column
    that pushes the Game menu to the bottom."""
    page.goto(page.base + "/")
    page.locator("#games-intro .game-card[data-game=crownfall] button.game-intro").click()
    boxes = page.eval_on_selector_all("#game-form label", """ls => ls.map(l => {
        const r = l.getBoundingClientRect(); return {x: r.x, top: r.top, bottom: r.bottom}; })""")
    assert len(boxes) == 6
    assert len({round(b["x"]) for b in boxes}) >= 3, boxes                 # side by side, not one column
    game = page.eval_on_selector("#new-game select[name=game]", """s => {
        const r = s.closest('label').getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }""")
    first = min(boxes, key=lambda b: (b["top"], b["x"]))
    assert game["top"] < first["bottom"] and first["top"] < game["bottom"], (game, first)   # the same row
    assert not page.problems, page.problems


def test_the_map_is_marked_provisional_with_the_ruling_and_how_to_load_one_s_own(page):  # noqa: F811 - the fixture
    start_game(page)
    view = page.evaluate(VIEW)
    check_provisional_note(page, view, "engine/data/crownfall_map.toml", "I1")
    assert not page.problems, page.problems
