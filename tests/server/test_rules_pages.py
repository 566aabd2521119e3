"""GET /rules and /rules/{page}: the rules pages (docs/rules/) as HTML, their anchors, and names that
are not pages (404 naming the page; never read as a path); their stylesheet (a file of this server, as
the Content-Security-Policy wants), their lists and their nav (issue 39, item 1; in a browser:
test_browser_pages.py)."""

import re
from html import unescape

import pytest

from engine.games import registry
from engine.interfaces.rules_pages import INDEX, rule_pages
from engine.interfaces.server.rules import render_markdown


def test_the_index_lists_every_page_and_links_back_to_the_board(client):
    r = client.get("/rules")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "<title>Rules reference - ftc-engine</title>" in r.text
    assert 'href="/"' in r.text                                   # back to the board
    for page in rule_pages():
        if page != INDEX:
            assert f'href="/rules/{page}"' in r.text, page


@pytest.mark.parametrize("page, title, anchors", [
    ("for-the-crown", "For the Crown (Second Edition) and The World is Round",
     ["sec-4-0", "sec-7-0", "sec-10-0", "sec-11-4", "sec-13-0", "exp-16-0", "exp-17-0", "sec-17-0",
      "unit-nightrider", "card-false-orders", "provisional"]),
    ("kings-ransom", "King&#x27;s Ransom", ["turn", "victory", "card-prince", "provisional"]),
    ("rulings", "Rulings", ["ruling-A3", "ruling-C8", "ruling-C20", "ruling-C21", "ruling-C22",
                                                "ruling-G9", "ruling-D"]),
])
def test_each_page_renders_with_its_anchors(client, page, title, anchors):
    r = client.get(f"/rules/{page}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert f"<title>{title} - ftc-engine</title>" in r.text
    ids = set(re.findall(r'\bid="([^"]+)"', r.text))
    assert set(anchors) <= ids, set(anchors) - ids
    assert "<table>" in r.text or page == "rulings"               # markdown tables are rendered
    assert not re.search(r'href="[^"]*\.md', r.text)            # links point at served pages
    assert 'aria-current="page">' in r.text


def test_links_between_pages_point_at_the_served_pages(client):
    html = client.get("/rules/for-the-crown").text
    assert 'href="/rules/rulings#ruling-C8"' in html
    assert 'href="/rules"' in html


def test_an_unknown_page_is_404_listing_the_pages(client):
    r = client.get("/rules/chess")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "No rules page by that name" in r.text and "chess" not in r.text      # never the input echoed
    assert 'href="/rules/rulings"' in r.text


@pytest.mark.parametrize("name", ["..%2F..%2Fsetup.py", "..%2F..%2FREADME", "..%2Farchitecture", "%2E%2E", "rulings.md",
                                  "Rulings", "README", "rulings%00", "%2Fetc%2Fpasswd", "x" * 500,
                                  "%3Cscript%3Ealert(1)%3C%2Fscript%3E"])
def test_a_name_that_is_not_a_page_is_refused_and_never_read_as_a_path(client, name):
    r = client.get(f"/rules/{name}")
    assert r.status_code == 404, (name, r.status_code)
    assert "<script>" not in r.text                                # the name is escaped
    assert "setuptools" not in r.text and "root:" not in r.text    # no file's content leaks
    assert len(r.text) < 5000


def test_a_traversal_through_the_path_itself_reaches_no_file(client):
    # The client or the router normalises these; whatever answers, it is no file of the project.
    for path in ("/rules/..", "/rules/../setup.py", "/rules/%2e%2e/%2e%2e/setup.py", "/rules/docs/../../setup.py"):
        r = client.get(path)
        assert "cythonize" not in r.text and "setuptools" not in r.text, path


# -- issue 39, item 1: a stylesheet of this server (the CSP refuses inline styles), lists, the nav's titles --
def _served_pages():
    return [("/rules" if page == INDEX else f"/rules/{page}") for page in rule_pages()] + ["/rules/no-such-page"]


def test_every_page_is_styled_by_a_stylesheet_of_this_server_and_the_policy_stays_strict(client):
    sheets = set()
    for path in _served_pages():
        r = client.get(path)
        assert r.status_code == (404 if path.endswith("no-such-page") else 200), path
        # The policy allows styles from this server only: no <style> element, no style attribute.
        policy = r.headers["content-security-policy"]
        assert "style-src 'self';" in policy and "unsafe-inline" not in policy, policy
        assert "<style" not in r.text and not re.search(r"\sstyle=", r.text), path
        links = re.findall(r'<link rel="stylesheet" href="([^"]+)">', r.text)
        assert len(links) == 1 and links[0].startswith("/static/"), (path, links)
        sheets.add(links[0])
    (sheet,) = sheets                                               # one stylesheet for every page
    css = client.get(sheet)
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert re.search(r"(?m)^body\s*\{[^}]*font:", css.text) and re.search(r"(?m)^nav\s*\{", css.text)


def test_a_list_right_after_a_line_of_text_is_a_list():
    # Markdown as GitHub reads it (CommonMark): a bullet list, or a numbered one from 1, may follow
    # a paragraph's line directly; a number other than 1 there goes on the paragraph.
    html = render_markdown("Set-up ([H2](rulings.md#ruling-H2)):\n- the back row;\n- the second row.\n\n"
                           "The phases:\n1. **Omen.** one\n   more of it.\n2. **Income.** two\n\n"
                           "Within a line\n2019. is no list\n\n```\ncode:\n- stays code\n```\n")
    assert "<p>Set-up (<a" in html and "<ul>\n<li>the back row;</li>\n<li>the second row.</li>\n</ul>" in html
    assert re.search(r"<p>The phases:</p>\n<ol>\n<li><strong>Omen.</strong> one\n +more of it.</li>\n"
                     r"<li><strong>Income.</strong> two</li>\n</ol>", html)
    assert "<p>Within a line\n2019. is no list</p>" in html
    assert "<code>code:\n- stays code\n</code>" in html


@pytest.mark.parametrize("page, items", [
    ("crusade-and-conquer", ["the back row holds the chess pieces", "No piece steps or slides straight",
                             "<strong>Checkmate.</strong>"]),
    ("crownfall", ["<strong>Omen.</strong>", "<strong>Attacker loses.</strong>", "the higher sum of all three tracks",
                   "aim at two tracks", "Sanctum Chain"]),
])
def test_the_lists_of_the_pages_are_lists(client, page, items):
    html = client.get(f"/rules/{page}").text
    for item in items:
        assert re.search(rf"<li>{re.escape(item)}", html), item
    # No paragraph of any page holds a line that reads as a list item.
    for name in rule_pages():
        text = client.get("/rules" if name == INDEX else f"/rules/{name}").text
        for para in re.findall(r"<p>(.*?)</p>", text, re.S):
            assert not re.search(r"(?m)^(?:[-*+]|1[.)]) ", para), (name, para[:200])


def test_the_nav_names_each_page_by_its_title(client):
    html = client.get("/rules/rulings").text
    nav = re.search(r"<nav>(.*?)</nav>", html, re.S).group(1)
    labels = {href: unescape(text) for href, text in re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)}
    games = [game for game in registry.games() if game.docs]
    assert {labels[f"/rules/{game.docs}"] for game in games} == {game.title for game in games}
    assert {"For the Crown", "King's Ransom", "Crusade & Conquer", "Crownfall"} <= set(labels.values())
    assert labels["/rules"] == "Rules" and labels["/rules/rulings"] == "Rulings"
    assert labels["/"] == "\u2190 Board" and labels["/analysis"] == "Analysis board"
