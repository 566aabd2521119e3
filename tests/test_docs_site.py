"""The manual (issue 42, mkdocs.yml): `mkdocs build --strict` passes, with nothing from the network,
and its pages hold no inline script or style (the server's Content-Security-Policy, guard.py, would
refuse them: tests/server/test_site.py and test_browser_site.py serve the built site).

Strict fails on a broken link, a missing anchor, a page left out of the nav, a docstring's broken
cross-reference and a module mkdocstrings cannot find. Skipped without the `docs` extra's tools."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import load_tool

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra: pip install -e '.[docs]'")
hooks = load_tool("mkdocs_hooks")

_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>")
_INLINE_STYLE = re.compile(r"<style\b|\sstyle=")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_manual_builds_strictly(built):
    pages = sorted(p.relative_to(built).as_posix() for p in built.rglob("index.html"))
    # A page per game and per rules page, the protocols, the server and the API reference.
    for page in ["index.html", "crown/index.html", "kings-ransom/index.html", "crusade/index.html",
                 "crownfall/index.html", "rules/index.html", "rules/for-the-crown/index.html",
                 "rules/rulings/index.html", "protocol/index.html", "uci/index.html", "server/index.html",
                 "api/index.html", "api/engine/index.html", "api/registry/index.html", "api/crownfall-state/index.html"]:
        assert page in pages
    # The API pages hold the docstrings: Position's own heading, the registry's Game.
    assert 'id="engine.position.Position"' in (built / "api/engine/index.html").read_text(encoding="utf-8")
    assert 'id="engine.games.registry.Game"' in (built / "api/registry/index.html").read_text(encoding="utf-8")


def test_no_page_has_an_inline_script_or_style(built):
    found = {}
    for page in sorted(built.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        hits = _INLINE_SCRIPT.findall(text) + _INLINE_STYLE.findall(text)
        if hits:
            found[page.relative_to(built).as_posix()] = hits[:3]
    assert found == {}


def test_no_page_asks_another_host(built):
    # No font, script, stylesheet or image from elsewhere (the manual works offline); links may leave.
    remote = re.compile(r"<(?:script|link|img)\b[^>]*(?:src|href)=\"(?:https?:)?//", re.I)
    found = {p.relative_to(built).as_posix() for p in built.rglob("*.html") if remote.search(p.read_text(encoding="utf-8"))}
    assert found == set()


def test_a_fence_keeps_its_language_only():
    page = "```sh no-replay: the options\nftc x [--a 0]\n```\n\n```python replay\n>>> 1\n1\n```\n"
    assert hooks.fence_languages(page) == "```sh\nftc x [--a 0]\n```\n\n```python\n>>> 1\n1\n```\n"


def test_a_doctest_of_a_docstring_becomes_code():
    lines = ["Text.", "", ">>> sorted('ba')", "['a', 'b']", "", "More.", "```", ">>> kept", "```"]
    assert hooks.fence_doctests(lines) == ["Text.", "", "```pycon", ">>> sorted('ba')", "['a', 'b']", "```", "",
                                     "", "More.", "```", ">>> kept", "```"]


def test_a_list_under_a_paragraphs_line_is_a_list(built):
    # The pages start lists right under a line of text, as GitHub reads them; Python-Markdown would
    # run the items into the paragraph ("text - item - item"): tools/mkdocs_hooks.py, as /rules does.
    # Nor is a code block a paragraph's (a fence right under a line of text, or a list right after one).
    run_on = re.compile(r"<p>(?:(?!</p>).)*\n[-*+] (?:(?!</p>).)*</p>", re.S)
    code_in_text = re.compile(r"<p>(?:(?!</p>).)*<div class=\"highlight", re.S)
    found = {p.relative_to(built).as_posix() for p in built.rglob("*.html")
             if run_on.search(p.read_text(encoding="utf-8")) or code_in_text.search(p.read_text(encoding="utf-8"))}
    assert found == set()


def test_a_fence_stands_apart_from_the_text():
    page = "Text:\n```sh\nftc x\n```\n- an item\n\n````md\n```\n````\nmore"
    assert hooks.fence_spacing(page) == "Text:\n\n```sh\nftc x\n```\n\n- an item\n\n````md\n```\n````\n\nmore"
