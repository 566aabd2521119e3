"""The manual at /site/ (site.py, issue 42): the built site's files under the server's own headers,
a page saying how to build it when there is none, nothing outside its folder.

A small stand-in site here (the real build: tests/test_docs_site.py; in a browser:
test_browser_site.py)."""

from __future__ import annotations

import os
import signal

import httpx
import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import create_app
from engine.interfaces.server.guard import CONTENT_SECURITY_POLICY
from tests.server.support import ServerProcess


@pytest.fixture
def site(tmp_path):
    folder = tmp_path / "site"
    (folder / "api" / "engine").mkdir(parents=True)
    (folder / "assets").mkdir()
    (folder / "index.html").write_text("<!doctype html><title>manual</title><p>the manual's index</p>")
    (folder / "404.html").write_text("<!doctype html><title>404</title><p>the manual's own 404</p>")
    (folder / "api" / "engine" / "index.html").write_text("<!doctype html><p>Position</p>")
    (folder / "assets" / "main.css").write_text("body { color: black }")
    (tmp_path / "secret.txt").write_text("outside the site")
    return folder


def client(tmp_path, site=None):
    return TestClient(create_app(tmp_path / "g.sqlite3", ai_pool="thread", site=site))


def test_the_built_site_is_served_with_the_servers_policy(tmp_path, site):
    with client(tmp_path, site) as c:
        index = c.get("/site/")
        assert index.status_code == 200 and "the manual's index" in index.text
        assert index.headers["content-type"].startswith("text/html")
        assert index.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert index.headers["x-frame-options"] == "DENY"
        page = c.get("/site/api/engine/")
        assert page.status_code == 200 and "Position" in page.text
        assert c.get("/site/assets/main.css").headers["content-type"].startswith("text/css")
        # A folder without its slash, and /site itself: redirected by a path, not a URL of the Host.
        for path, to in [("/site/api/engine", "/site/api/engine/"), ("/site", "/site/")]:
            moved = c.get(path, follow_redirects=False, headers={"host": "evil.example"})
            assert (moved.status_code, moved.headers["location"]) == (307, to), path
        missing = c.get("/site/no/such/page/")
        assert missing.status_code == 404 and "the manual's own 404" in missing.text


def test_without_a_built_site_a_page_says_how_to_build_it(tmp_path):
    with client(tmp_path) as c:
        for path in ["/site/", "/site/api/engine/", "/site"]:
            answer = c.get(path)
            assert answer.status_code == 404, path
            assert "The manual is not built" in answer.text and "mkdocs build" in answer.text
            assert "ftc serve --site DIR" in answer.text
            assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    # A folder without the manual's index counts as none, and is named.
    empty = tmp_path / "empty"
    empty.mkdir()
    with client(tmp_path, empty) as c:
        answer = c.get("/site/")
        assert answer.status_code == 404 and "mkdocs build" in answer.text and str(empty) in answer.text


@pytest.mark.parametrize("path", ["/site/../secret.txt", "/site/%2e%2e/secret.txt", "/site/..%2fsecret.txt",
                                  "/site/api/%2e%2e/%2e%2e/secret.txt", "/site/link/secret.txt",
                                  "/site/outside.txt"])
def test_nothing_outside_the_site_is_served(tmp_path, site, path):
    os.symlink(tmp_path, site / "link")                  # a link out of the folder
    os.symlink(tmp_path / "secret.txt", site / "outside.txt")
    with client(tmp_path, site) as c:
        answer = c.get(path)
        assert "outside the site" not in answer.text
        assert answer.status_code == 404, (path, answer.status_code)


def test_ftc_serve_shows_the_folder_site_names(tmp_path, site):
    server = ServerProcess(tmp_path / "g.sqlite3", "--site", str(site))
    try:
        answer = httpx.get(server.base + "/site/api/engine/")
        assert answer.status_code == 200 and "Position" in answer.text
    finally:
        server.kill(signal.SIGINT)


def test_the_default_is_the_checkouts_built_site(tmp_path, monkeypatch):
    import engine
    from engine.interfaces.server.site import default_site_dir
    (tmp_path / "engine").mkdir()
    monkeypatch.setattr(engine, "__file__", str(tmp_path / "engine" / "__init__.py"))
    assert default_site_dir() is None                       # no site/ beside the package
    (tmp_path / "site").mkdir()
    assert default_site_dir() is None                       # a site/ without the manual's index
    (tmp_path / "site" / "index.html").write_text("<p>manual</p>")
    assert default_site_dir() == tmp_path / "site"
