"""GET /rules and /rules/{page}: the rules pages (docs/rules/) as HTML, their anchors, and names that
are not pages (404 naming the page; never read as a path)."""

import re

import pytest

from engine.interfaces.rules_pages import INDEX, rule_pages


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
    ("rulings", "Rulings the engine follows", ["ruling-A3", "ruling-C8", "ruling-C20", "ruling-C21", "ruling-C22",
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
    assert f'aria-current="page">' in r.text


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
