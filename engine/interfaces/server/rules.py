"""The rules pages (docs/rules/*.md) as web pages: ``GET /rules`` (the index, docs/rules/README.md)
and ``GET /rules/{page}``, where ``page`` is a file's stem (``for-the-crown``, ``kings-ransom``,
``rulings``). Anchors follow docs/rules/README.md (``/rules/for-the-crown#sec-7-0``,
``/rules/rulings#ruling-C20``); the web board links card texts and rulings to them.

Where the pages are is engine/interfaces/rules_pages.py's one lookup (the installed package or the
source checkout). A page name is looked up among the files found there, never joined to a path, so
nothing outside the rules folder can be read. Links between the pages (``rulings.md#ruling-C8``)
become links between the served pages (``/rules/rulings#ruling-C8``).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from pathlib import Path

import markdown
from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from engine.interfaces.rules_pages import INDEX, PAGE_NAME, rule_pages

__all__ = ["router", "render_page"]

_LINK = re.compile(r'href="(?P<stem>[A-Za-z0-9-]+)\.md(?P<frag>#[A-Za-z0-9_-]+)?"')


def _href(m: re.Match, pages: dict[str, Path]) -> str:
    stem, frag = m.group("stem"), m.group("frag") or ""
    if stem not in pages:
        return m.group(0)
    return f'href="/rules{"" if stem == INDEX else "/" + stem}{frag}"'


_STYLE = """
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       background: #f3f1ec; color: #1d2129; }
nav { background: #1d2129; color: #fff; padding: 8px 16px; display: flex; gap: 16px; flex-wrap: wrap; }
nav a { color: #fff; text-decoration: none; }
nav a:hover, nav a[aria-current] { text-decoration: underline; }
main { max-width: 980px; margin: 0 auto; padding: 8px 24px 48px; background: #fff; }
h1, h2, h3, h4 { line-height: 1.25; }
h2 { border-bottom: 1px solid #d9d4c7; padding-bottom: 4px; margin-top: 2em; }
table { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
th, td { border: 1px solid #d9d4c7; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #ece6d6; }
code { background: #f3f1ec; padding: 0 3px; border-radius: 3px; }
a { color: #1c64c8; }
:target { background: #fff3bf; }
"""


@lru_cache(maxsize=16)
def _render(path: Path, mtime_ns: int, name: str) -> str:
    pages = rule_pages()
    text = path.read_text(encoding="utf-8")
    body = markdown.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    body = _LINK.sub(lambda m: _href(m, pages), body)
    title_match = re.search(r"^# (.+)$", text, re.M)
    title = title_match.group(1).strip() if title_match else name
    return _page(title, body, current=name)


def _page(title: str, body: str, current: str | None) -> str:
    links = ['<a href="/">&larr; Board</a>', '<a href="/analysis">Analysis board</a>']
    for stem in rule_pages():
        label = "Rules" if stem == INDEX else stem.replace("-", " ").capitalize()
        href = "/rules" if stem == INDEX else f"/rules/{stem}"
        mark = ' aria-current="page"' if stem == current else ""
        links.append(f'<a href="{href}"{mark}>{html.escape(label)}</a>')
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)} - ftc-engine</title>\n<link rel=\"icon\" href=\"data:,\">\n"
            f"<style>{_STYLE}</style>\n</head>\n<body>\n<nav>{' '.join(links)}</nav>\n"
            f"<main>\n{body}\n</main>\n</body>\n</html>\n")


def render_page(name: str) -> str | None:
    """The HTML of the rules page ``name`` (a file stem; ``INDEX`` for the index), or None when
    there is no such page. ``name`` is only compared with the pages found, never used as a path."""
    path = rule_pages().get(name)
    if path is None:
        return None
    return _render(path, path.stat().st_mtime_ns, name)


def _not_found() -> HTMLResponse:
    """The answer for a page that does not exist: the list of those that do (never the name asked
    for: an answer never echoes the client's input)."""
    pages = [stem for stem in rule_pages() if stem != INDEX]
    items = "".join(f'<li><a href="/rules/{stem}">{stem}</a></li>' for stem in pages)
    body = ("<h1>No rules page by that name</h1>\n"
            f"<p>The rules pages are:</p>\n<ul>{items}</ul>\n<p><a href=\"/rules\">The rules index</a></p>")
    return HTMLResponse(_page("Rules page not found", body, current=None), status_code=404)


router = APIRouter()


@router.get("/rules", include_in_schema=False)
def rules_index() -> HTMLResponse:
    return HTMLResponse(render_page(INDEX))


@router.get("/rules/{page}", include_in_schema=False)
def rules_page(page: str) -> HTMLResponse:
    if page == INDEX or not PAGE_NAME.fullmatch(page):
        return _not_found()
    text = render_page(page)
    return _not_found() if text is None else HTMLResponse(text)
