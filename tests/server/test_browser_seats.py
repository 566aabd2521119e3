"""Seats on the web board in a real headless Chromium (set-up as test_browser.py): the creator's
page makes a King's Ransom game against a friend from the new-game form ("Play against friends")
and shows the seat's invitation link; a second browser context opens that link, joins (the code
leaves its address at once, the seat's token is kept) and sees the game from its own seat; both
pages show who plays each seat; after the game, the rematch is offered on one page, accepted on the
other, and both open it with their same token, the colours swapped."""

from __future__ import annotations

import os

import pytest

from tests.server.test_browser import CHROMIUM, page, server  # noqa: F401 - fixtures
from tests.server.test_browser_watch import _watcher

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")


def new_game_with_friends(page, base: str, game: str) -> str:
    """Create a game of ``game`` (the form's value) from the new-game form on ``base``, the creator
    at seat 0 and a friend's seat open ("Play against friends"); the game's id, once the page shows
    the invitation link."""
    page.goto(base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    page.select_option("#new-game select[name=game]", game)
    page.select_option("#new-game select[name=human]", "0")
    page.check("#new-game input[name=friends]")
    page.click("#start")
    page.wait_for_selector("#seats-bar .invite-link")
    return page.evaluate("() => location.hash.split('=')[1]")


def test_a_friend_joins_by_the_invitation_link_and_both_pages_show_the_seats(page):
    gid = new_game_with_friends(page, page.base, "kings-ransom")
    assert page.evaluate("(id) => JSON.parse(localStorage.getItem(`ftc.invites.${id}`)).length", gid) == 1
    link = page.input_value("#seats-bar .invite-link")
    assert f"/#join={gid}." in link and "(open)" in page.inner_text("#seats-bar")
    context, friend = _watcher(page)
    try:
        friend.goto(link)
        friend.wait_for_function("(id) => location.hash === `#game=${id}`", arg=gid)
        friend.wait_for_selector("#seats-bar:not([hidden])")
        assert "you" in friend.inner_text("#seats-bar [data-seat='1']")
        assert friend.evaluate("(id) => !!localStorage.getItem(`ftc.token.${id}`)", gid)
        assert "join=" not in friend.url
        page.reload()
        page.wait_for_function("() => !document.querySelector('#seats-bar .invite-link')")
        assert "a friend" in page.inner_text("#seats-bar [data-seat='1']")
        # The creator resigns; the rematch: offered on one page, accepted on the other.
        page.evaluate("""async (id) => fetch(`/api/games/${id}/resign`, {method: 'POST',
            headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}})""", gid)
        page.wait_for_selector("#rematch-button")
        page.click("#rematch-button")
        friend.wait_for_selector("#rematch-button:text('Accept the rematch')")
        friend.click("#rematch-button")
        for p in (page, friend):
            p.wait_for_selector("#rematch-link")
            p.click("#rematch-link")
            p.wait_for_function("(id) => document.body.dataset.state !== 'none' && !location.hash.endsWith(id)", arg=gid)
        new_id = friend.evaluate("() => location.hash.split('=')[1]")
        assert new_id != gid and page.evaluate("() => location.hash.split('=')[1]") == new_id
        friend.wait_for_selector("#seats-bar [data-seat='0']")
        assert "you" in friend.inner_text("#seats-bar [data-seat='0']")      # colours swapped
        assert friend.problems == [] and page.problems == []
    finally:
        context.close()
