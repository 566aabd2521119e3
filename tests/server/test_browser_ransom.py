"""King's Ransom on the web board in a real headless Chromium: one whole game against the easy AI,
played by clicking highlighted cards and squares only, to the game-over message.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (as test_browser.py); skipped,
with the reason, when either is missing. Screenshots go to $FTC_SCREENSHOTS when it is set.
"""

from __future__ import annotations

import os
import random
import time

import pytest

from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, page, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")

SETTLED = """(old) => document.body.dataset.version !== old && document.body.dataset.busy === '0'
                     && ['your-turn', 'over'].includes(document.body.dataset.state)"""
#: What the player may click: highlighted squares and Hand cards, and the promotion / discard buttons.
LEGAL = "#kr-board .kr-sq.legal, #kr-hand .kr-hand-card.legal, #kr-choices button.kr-choice.legal"


def shot(page, name):
    folder = os.environ.get("FTC_SCREENSHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"ransom-{name}.png"), full_page=True)


def hidden_cards_are_backs(page, human):
    """Every card of the AI that is face down shows a plain back: no peek corner, no name."""
    info = page.evaluate("""(ai) => [...document.querySelectorAll('#kr-board .kr-card.back.owner-' + ai)]
        .map(c => [c.querySelector('.kr-peek') !== null, c.title])""", 1 - human)
    assert info and all(not peek and title == "a face-down card" for peek, title in info), info


@pytest.mark.parametrize("human", [0])
def test_a_whole_king_s_ransom_game_by_clicking(page, human):  # noqa: F811 - the fixture
    started = time.monotonic()
    rng = random.Random(2)
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    page.select_option("#new-game select[name=game]", "kings-ransom")
    assert page.locator("#game-form select[data-field=variant]").is_hidden()
    assert page.locator("#new-game select[name=human] option").first.inner_text().startswith("Red")
    page.select_option("#new-game select[name=human]", str(human))
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    page.click("#start")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.state)")
    assert page.locator("#kr-layout").is_visible() and page.locator("#layout").is_hidden()
    assert page.locator("#topbar h1").inner_text() == "King's Ransom"
    assert page.locator("#kr-board .kr-sq").count() == 18
    # Red at the bottom: the bottom-left square is a1.
    assert page.locator("#kr-board .kr-sq").nth(15).get_attribute("data-square") == "a1"
    # My face-down cards: backs with a peek corner; the AI's: plain backs.
    assert page.locator(f"#kr-board .kr-card.back.owner-{human} .kr-peek").count() == 4
    hidden_cards_are_backs(page, human)
    assert page.locator("#kr-hand .kr-hand-card").count() == 3
    assert page.locator("#kr-steps li.current").inner_text().lower() == "flip"
    assert page.locator("#kr-board .kr-sq.legal.flip").count() >= 1
    shot(page, "start")

    steps = {"flip": 0, "move": 0, "promote": 0, "play": 0}
    shots = set()
    for _ in range(3000):
        if page.evaluate("document.body.dataset.state") == "over":
            break
        phase = page.locator("#kr-steps li.current").get_attribute("data-step")
        old = page.evaluate("document.body.dataset.version")
        legal = page.locator(LEGAL)
        count = legal.count()
        assert count, f"nothing to click in step {phase}"
        choice = legal.nth(rng.randrange(count))
        sends = choice.get_attribute("data-action-id") is not None
        choice.click()
        if sends:
            steps[phase] = steps.get(phase, 0) + 1
            page.wait_for_function(SETTLED, arg=old, timeout=60_000)
            assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
            if page.evaluate("document.body.dataset.state") != "over":
                hidden_cards_are_backs(page, human)
        elif phase not in shots and phase in ("move", "play"):
            shots.add(phase)                    # a selection: its targets are highlighted
            assert page.locator("#kr-board .kr-sq.legal, #kr-choices button.kr-choice.legal").count() >= 1
            shot(page, f"{phase}-selected")
    else:
        pytest.fail("the game did not end")
    banner = page.locator("#gameover")
    banner.wait_for(state="visible")
    text = banner.inner_text()
    assert any(word in text for word in ("You won", "(AI) won", "Draw")), text
    assert page.locator("#kr-steps li.current").count() == 0
    # At the end every card may be seen: the AI's face-down cards show what they were.
    assert page.locator(f"#kr-board .kr-card.back.owner-{1 - human} .kr-peek").count() == \
        page.locator(f"#kr-board .kr-card.back.owner-{1 - human}").count()
    assert steps["flip"] and steps["move"] and steps["play"], steps
    assert page.locator("#kr-log li").count() > 5
    shot(page, "over")
    assert not page.problems, page.problems
    assert not page.foreign, page.foreign
    print(f"King's Ransom by clicking: {steps}, {time.monotonic() - started:.1f} s")


def test_blue_sees_the_arena_turned_round_and_can_resign(page):  # noqa: F811 - the fixture
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    page.select_option("#new-game select[name=game]", "kings-ransom")
    page.select_option("#new-game select[name=human]", "1")
    page.select_option("#new-game select[name=game-bot]", "level:easy")
    page.click("#start")
    page.wait_for_function("() => document.body.dataset.state === 'your-turn'")
    cells = page.locator("#kr-board .kr-sq")
    assert cells.first.get_attribute("data-square") == "c1"        # Red's back row at the top
    assert cells.nth(15).get_attribute("data-square") == "c6"      # Blue's at the bottom, from Blue's left
    assert page.locator("#kr-board .kr-sq.ai-moved").count() >= 2   # Red (the AI) has played its turn
    assert page.locator("#kr-ai-last-turn li").count() >= 2
    mine = page.locator("#kr-board .kr-card.back.owner-1").count()      # 4, less one the AI may have taken
    assert mine >= 3 and page.locator("#kr-board .kr-card.back.owner-1 .kr-peek").count() == mine
    hidden_cards_are_backs(page, 1)
    assert page.locator("#knowledge-button").is_hidden()
    page.click("#resign")
    page.click("#resign-yes")
    banner = page.locator("#gameover")
    banner.wait_for(state="visible")
    assert "Red (AI) won" in banner.inner_text() and "Blue resigns" in banner.inner_text()
    shot(page, "blue-resigned")
    assert not page.problems, page.problems
