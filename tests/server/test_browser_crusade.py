"""Crusade & Conquer on the web board in a real headless Chromium (set-up as test_browser.py): a whole
game against the AI's easiest level, chosen on the home page and played by clicking a piece and then
one of its highlighted targets, to the game-over message; and a promotion from a start position, as
Red (the board turned round), through the promotion dialog, then a resignation.

The human's moves follow a seeded rule over the view's legal actions (a promotion, else a capture,
else a Flag Bearer's step forward, else a Pawn's move, else any move); after every click on a piece
the highlighted targets must be exactly the `to` squares of that piece's legal actions. The game
always ends: H8c's draws (100 plies without a capture or a Pawn move, a third repetition) bound it.
Screenshots go to the test's tmp_path.

The status line numbers moves as the log does (full moves, chess-style); the board says that its
castle plan is PROVISIONAL, links the rules and says how to load one's own (issue 39).
"""

from __future__ import annotations

import os
import random
import re
import time

import pytest

from tests.server.test_browser import CHROMIUM, check_provisional_note, page, server  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")]
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install playwright)")

SETTLED = """(old) => document.body.dataset.version !== old && document.body.dataset.busy === '0'
                     && ['your-turn', 'over'].includes(document.body.dataset.state)"""
#: The view the page shows, fetched with the game's token from the page's own storage.
VIEW = """async () => {
    const id = /game=([A-Za-z0-9_-]+)/.exec(location.hash)[1];
    const r = await fetch(`/api/games/${id}`, {headers: {Authorization: `Bearer ${localStorage.getItem(`ftc.token.${id}`)}`}});
    return r.json();
}"""
#: The page's state, its view and the squares it shows as movable, in one round trip.
TURN = """async () => ({state: document.body.dataset.state, version: document.body.dataset.version,
    view: await (""" + VIEW + """)(),
    movable: [...document.querySelectorAll('#cc-board .cc-sq.movable')].map(c => c.dataset.square)})"""
#: After a click on a piece: whether its square is selected, and the squares highlighted as its targets.
PICKED = """(origin) => ({selected: document.querySelector(`#cc-board .cc-sq[data-square=${origin}]`).classList.contains('selected'),
    targets: [...document.querySelectorAll('#cc-board .cc-sq.target')].map(c => c.dataset.square)})"""
#: A move from a start position: Red's Pawn on b2 reaches b1 with a Queen and a Knight of Red fallen.
RED_PROMOTES = "4k3/8/8/8/8/8/1p6/4K3 b [qnR] 0 1"
MAX_MOVES = 1000


def square(page, name):
    return page.locator(f"#cc-board .cc-sq[data-square={name}]")


def classes(locator) -> list[str]:
    return (locator.get_attribute("class") or "").split()


def highlighted(page) -> set[str]:
    return set(page.eval_on_selector_all("#cc-board .cc-sq.target", "cells => cells.map(c => c.dataset.square)"))


def pick(view, rng, forward) -> dict:
    """The seeded human's move (module docstring)."""
    actions = view["actions"]
    for wanted in (lambda f: f["promotion"] is not None, lambda f: f["capture"] is not None,
                   lambda f: f["piece"] == "F" and forward(f), lambda f: f["piece"] == "P"):
        chosen = [a for a in actions if wanted(a["fields"])]
        if chosen:
            return rng.choice(chosen)
    return rng.choice(actions)


def board_matches_view(page, view):
    """The squares' levels and X marks are the view's board data; the pieces stand where it says."""
    cells = page.eval_on_selector_all("#cc-board .cc-sq", """cells => cells.map(c => [c.dataset.square, +c.dataset.level,
        c.classList.contains('x-square'), c.querySelector('.cc-piece')?.dataset.token ?? null,
        c.querySelector('.cc-piece')?.dataset.owner ?? null])""")
    board = view["board"]
    assert len(cells) == 64 and {sq for sq, *_ in cells} == set(board["heights"])
    pieces = {p["square"]: (p["token"], str(p["owner"])) for p in view["pieces"]}
    for sq, level, x, token, owner in cells:
        assert level == board["heights"][sq] and x == (sq in board["x"]), sq
        assert (token, owner) == pieces.get(sq, (None, None)), sq
    last = view["last_move"]
    marked = page.eval_on_selector_all("#cc-board .cc-sq.last-from, #cc-board .cc-sq.last-to", "c => c.map(x => x.dataset.square)")
    assert set(marked) == (set() if last is None else {last["from"], last["to"]})


def start_from_home_page(page, human: int):
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    page.wait_for_selector("#new-game select[name=game] option[value=crusade]", state="attached")
    page.locator("#games-intro .game-card[data-game=crusade] button.game-intro").click()
    assert page.input_value("#new-game select[name=game]") == "crusade"
    assert page.locator("#game-form select[data-field=variant]").is_hidden() and page.locator("#budget-field").is_hidden()
    opponents = page.locator("#new-game select[name=game-bot] option")
    assert opponents.all_inner_texts() == ["Easy (greedy)", "Normal (alpha-beta search, 0.5 s a decision)",
                                           "Strong (alpha-beta search, 2 s a decision)",
                                           "random moves", "greedy", "alpha-beta search"]
    assert page.input_value("#new-game select[name=game-bot]") == "level:normal"      # the default level
    page.select_option("#new-game select[name=game-bot]", "level:easy")             # the quickest AI
    assert page.locator("#new-game select[name=human] option").first.inner_text() == "Blue (moves first)"
    page.select_option("#new-game select[name=human]", str(human))
    page.click("#start")
    page.wait_for_function("() => ['your-turn', 'over'].includes(document.body.dataset.state)")
    page.wait_for_selector("#cc-board .cc-sq")


def test_a_whole_game_against_the_ai_by_clicking(page, tmp_path):  # noqa: F811 - the fixture
    started = time.monotonic()
    start_from_home_page(page, 0)
    assert page.locator("#generic-layout").is_visible() and page.locator("#layout").is_hidden()
    assert page.locator("#topbar h1").inner_text() == "Crusade & Conquer"
    view = page.evaluate(VIEW)
    board_matches_view(page, view)
    # Blue at the bottom: the bottom-left square is a1, the top-right h8.
    assert page.locator("#cc-board .cc-sq").first.get_attribute("data-square") == "a8"
    assert page.locator("#cc-board .cc-sq").nth(63).get_attribute("data-square") == "h1"
    # The floors: e1 is Blue's X on an upper floor, c2 a lower floor; the legend names the three levels.
    assert {"level-2", "x-square", "x-owner-0"} <= set(classes(square(page, "e1")))
    assert "level-1" in classes(square(page, "c2")) and "level-0" in classes(square(page, "a3"))
    legend = page.locator("#cc-legend").inner_text()
    assert all(word in legend for word in ("0: field", "1: lower floor", "2: upper floor", "Blue's X (e1)", "Red's X (e8)"))
    # The Dragon and the Flag Bearer have glyphs of their own.
    assert square(page, "d2").locator("svg[data-token=dragon]").count() == 1
    assert square(page, "e7").locator("svg[data-token=flag-bearer]").count() == 1
    how = page.locator("#cc-how-list li[data-token]")
    assert how.count() == 8 and "H7" in page.locator("#cc-how-list li[data-token=D]").inner_text()
    assert page.locator("#cc-how-list li[data-token=N] a").get_attribute("href") == "/rules/rulings#ruling-H4"
    page.screenshot(path=str(tmp_path / "crusade-start.png"), full_page=True)

    rng = random.Random(7)
    moves = captures = promotions = 0
    shots = set()
    while True:
        now = page.evaluate(TURN)
        if now["state"] == "over":
            break
        assert moves < MAX_MOVES, "the game did not end"
        view = now["view"]
        assert view["your_turn"] and view["actions"], view["prompt"]
        assert set(now["movable"]) == {a["fields"]["from"] for a in view["actions"]}
        if moves % 10 == 0:
            board_matches_view(page, view)
        move = pick(view, rng, lambda f: int(f["to"][1]) > int(f["from"][1]))
        origin, dest = move["fields"]["from"], move["fields"]["to"]
        square(page, origin).click()
        picked = page.evaluate(PICKED, origin)
        assert picked["selected"]
        assert set(picked["targets"]) == {a["fields"]["to"] for a in view["actions"] if a["fields"]["from"] == origin}
        if "selected" not in shots:
            shots.add("selected")
            page.screenshot(path=str(tmp_path / "crusade-selected.png"), full_page=True)
        old = now["version"]
        square(page, dest).click()
        if move["fields"]["promotion"] is not None:
            dialog = page.locator("#cc-promotion")
            dialog.wait_for()
            offered = dialog.locator("button.cc-promo").evaluate_all("b => b.map(x => x.dataset.promotion)")
            assert sorted(offered) == sorted(a["fields"]["promotion"] for a in view["actions"]
                                             if (a["fields"]["from"], a["fields"]["to"]) == (origin, dest))
            page.screenshot(path=str(tmp_path / f"crusade-promotion-{promotions}.png"), full_page=True)
            dialog.locator(f"button.cc-promo[data-action-id='{move['id']}']").click()
            promotions += 1
        page.wait_for_function(SETTLED, arg=old, timeout=60_000)
        moves += 1
        captures += move["fields"]["capture"] is not None
    view = page.evaluate(VIEW)
    board_matches_view(page, view)
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
    banner = page.locator("#gameover")
    banner.wait_for(state="visible")
    assert any(word in banner.inner_text() for word in ("You won", "(AI) won", "Draw")), banner.inner_text()
    assert page.locator("#cc-status").get_attribute("data-end") == view["end"] in (
        "checkmate", "stalemate", "x-win", "plies", "repetition")
    assert view["over"] in page.locator("#cc-status").inner_text()
    assert page.locator("#cc-board .cc-sq.movable").count() == 0
    log = page.locator("#cc-log li")
    assert log.count() == len(view["log"]) and log.last.inner_text() == f"game over: {view['over']}"
    page.screenshot(path=str(tmp_path / "crusade-over.png"), full_page=True)
    assert (tmp_path / "crusade-over.png").stat().st_size > 0 and (tmp_path / "crusade-selected.png").exists()
    assert captures and not page.problems, page.problems
    assert not page.foreign, page.foreign
    print(f"Crusade by clicking: {moves} moves, {captures} captures, {promotions} promotions, "
          f"{view['end']}, {time.monotonic() - started:.1f} s")


def test_red_promotes_through_the_dialog_then_resigns(page, tmp_path):  # noqa: F811 - the fixture
    page.goto(page.base + "/")
    page.wait_for_selector("#new-game:not([hidden])")
    created = page.evaluate("""async (position) => {
        const r = await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({game: 'crusade', human: 1, ai: {level: 'easy'}, options: {position}})});
        return r.json();
    }""", RED_PROMOTES)
    page.goto(f"{page.base}/#resume={created['id']}.{created['token']}")
    page.wait_for_selector("#cc-board .cc-sq.movable")
    # Red at the bottom: the board turned round, h1 top-left, a8 bottom-right.
    cells = page.locator("#cc-board .cc-sq")
    assert cells.first.get_attribute("data-square") == "h1" and cells.nth(63).get_attribute("data-square") == "a8"
    assert page.locator("#cc-fallen-1 .cc-fallen-piece").count() == 2          # Red's Queen and Knight
    assert page.locator("#cc-fallen-0 .cc-fallen-piece").count() == 1          # Blue's Rook
    square(page, "b2").click()
    assert highlighted(page) == {"b1"} and "promotion" in classes(square(page, "b1"))
    square(page, "b1").click()
    dialog = page.locator("#cc-promotion")
    dialog.wait_for()
    buttons = dialog.locator("button.cc-promo")
    assert buttons.all_inner_texts() == ["Bring back the Queen", "Bring back the Knight", "Keep the Pawn"]
    page.screenshot(path=str(tmp_path / "crusade-red-promotion.png"), full_page=True)
    dialog.locator("button.cc-cancel").click()                                  # cancel: nothing is sent
    assert page.locator("#cc-promotion").count() == 0 and page.evaluate("document.body.dataset.version") == "1"
    square(page, "b2").click()
    square(page, "b1").click()
    old = page.evaluate("document.body.dataset.version")
    page.locator("#cc-promotion button.cc-promo[data-promotion=Q]").click()
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    view = page.evaluate(VIEW)
    assert view["log"][0]["text"] == "b2b1=Q"
    assert page.locator("#cc-fallen-1 .cc-fallen-piece").count() == 1          # the Knight is still fallen
    if view["status"] == "playing":
        assert square(page, "b1").locator(".cc-piece").get_attribute("data-token") in ("Q", None)  # unless taken
        page.click("#resign")
        page.click("#resign-yes")
        banner = page.locator("#gameover")
        banner.wait_for(state="visible")
        assert "Red resigns" in banner.inner_text()
        assert page.locator("#cc-status").get_attribute("data-end") == "resigned"
    page.screenshot(path=str(tmp_path / "crusade-red-over.png"), full_page=True)
    assert not page.problems, page.problems
    assert not page.foreign, page.foreign


def status_number(page) -> int:
    text = page.locator("#generic-status").inner_text()
    match = re.match(r"move (\d+) \u00b7 ", text)
    assert match, text
    return int(match.group(1))


def test_the_status_line_numbers_moves_as_the_log_does(page):  # noqa: F811 - the fixture
    """After Blue's move and Red's answer the status line says move 2, as the log's next number (the
    log numbers full moves: "1." Blue's, "1\u2026" Red's); it said "turn 3" (plies)."""
    start_from_home_page(page, 0)
    assert status_number(page) == 1 and "Blue to move" in page.locator("#generic-status").inner_text()
    view = page.evaluate(VIEW)
    move = next(a for a in view["actions"] if a["text"] == "g1f3")
    old = page.evaluate("document.body.dataset.version")
    square(page, "g1").click()
    square(page, "f3").click()
    page.wait_for_function(SETTLED, arg=old, timeout=60_000)
    view = page.evaluate(VIEW)
    assert len(view["log"]) == 2 and view["log"][0]["text"] == move["text"]
    numbers = page.locator("#cc-log li .log-turn").all_inner_texts()
    assert numbers == ["1.", "1\u2026"]
    assert status_number(page) == 2 and "Blue to move" in page.locator("#generic-status").inner_text()
    assert not page.problems, page.problems


def test_the_board_says_its_castle_plan_is_provisional_and_how_to_load_one_s_own(page):  # noqa: F811 - the fixture
    start_from_home_page(page, 0)
    view = page.evaluate(VIEW)
    check_provisional_note(page, view, "engine/data/crusade_units.toml", "H1")
    assert not page.problems, page.problems
