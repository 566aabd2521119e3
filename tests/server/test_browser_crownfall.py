"""Crownfall on the web board in a real headless Chromium: a whole 2-player game against the random
AI (the fastest bot), played to the game-over message by clicking regions of the map and the choice
buttons only. The human's choices follow a seeded rule over the legal actions of the view (attack
when an enemy piece is next to a marching piece, else spread towards the opponent's home, else any
choice), so battles happen and the log explains them term by term. Screenshots go to tmp_path.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (as test_browser.py).
"""

from __future__ import annotations

import os
import random
import time

import pytest

from tests.server.test_browser import CHROMIUM, page, server  # noqa: F401 - fixtures

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


def play(page, action) -> str:
    """Click what plays ``action``: its region on the map (a March: the source, then the target; a
    region with several choices: then the choice's button), else its button. Returns how."""
    fields = action["fields"]
    ident = str(action["id"])
    old = page.evaluate("document.body.dataset.version")
    if fields["kind"] == "march-banner":
        click_region(page, fields["from"])
        page.wait_for_selector(f"#cf-map polygon.cf-march-target[data-region='{fields['to']}']")
        click_region(page, fields["to"])
        how = "march"
    elif fields.get("to") or fields.get("region"):
        click_region(page, fields.get("to") or fields["region"])
        page.wait_for_function("""([old, id]) => document.body.dataset.version !== old
            || document.querySelector(`#cf-here button[data-action-id="${id}"]`) !== null""", arg=[old, ident])
        if page.evaluate("document.body.dataset.version") == old and page.evaluate("document.body.dataset.busy") != "1":
            page.click(f"#cf-here button[data-action-id='{ident}']")
            how = "region+button"
        else:
            how = "region"
    else:
        page.click(f"#cf-plain button[data-action-id='{ident}']")
        how = "button"
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
    return how


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
    # Regions were clicked to act, alone and with the region's choice buttons.
    assert hows.get("region", 0) + hows.get("region+button", 0) + hows.get("march", 0) >= 5, hows
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
