"""The rules pages (docs/rules/*.md) as web pages: ``GET /rules`` (the index, docs/rules/README.md)
and ``GET /rules/{page}``, where ``page`` is a file's stem (``for-the-crown``, ``kings-ransom``,
``rulings``). Anchors follow docs/rules/README.md (``/rules/for-the-crown#sec-7-0``,
``/rules/rulings#ruling-C20``); the web board links card texts and rulings to them.

Where the pages are is engine/interfaces/rules_pages.py's one lookup (the installed package or the
source checkout). A page name is looked up among the files found there, never joined to a path, so
nothing outside the rules folder can be read. Links between the pages (``rulings.md#ruling-C8``)
become links between the served pages (``/rules/rulings#ruling-C8``).

Every page links one stylesheet of this server (``STYLESHEET``, static/rules.css): the server's
Content-Security-Policy allows styles from itself only. The nav names a game's page by its game's
title in the registry, any other page by its own first heading.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from pathlib import Path

import markdown
from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from engine.games import registry
from engine.interfaces.markdown_text import blank_line_before_lists
from engine.interfaces.rules_pages import INDEX, PAGE_NAME, rule_pages

__all__ = ["router", "render_page", "render_markdown", "STYLESHEET"]

_LINK = re.compile(r'href="(?P<stem>[A-Za-z0-9-]+)\.md(?P<frag>#[A-Za-z0-9_-]+)?"')


def _href(m: re.Match, pages: dict[str, Path]) -> str:
    stem, frag = m.group("stem"), m.group("frag") or ""
    if stem not in pages:
        return m.group(0)
    return f'href="/rules{"" if stem == INDEX else "/" + stem}{frag}"'


#: The pages' stylesheet, a file of this server (static/rules.css): the Content-Security-Policy
#: (guard.py, ``style-src 'self'``) refuses a style written into the page itself.
STYLESHEET = "/static/rules.css"
#: The index's name in the nav.
INDEX_LABEL = "Rules"

def render_markdown(text: str) -> str:
    """A rules page's markdown as HTML (tables, fenced code; lists as GitHub reads them)."""
    return markdown.markdown(blank_line_before_lists(text), extensions=["tables", "fenced_code"], output_format="html")


@lru_cache(maxsize=32)
def _title(path: Path, mtime_ns: int) -> str | None:
    """A page's own title: its first level-1 heading."""
    found = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.M)
    return found.group(1).strip() if found else None


def _nav() -> list[tuple[str, str]]:
    """(page, label) of every page for the nav: the index, each game's page in the registry's order,
    named by its game's title, then the other pages by their own titles."""
    pages = rule_pages()
    games = {game.docs: game.title for game in registry.games() if game.docs in pages}
    others = [stem for stem in pages if stem != INDEX and stem not in games]
    return ([(INDEX, INDEX_LABEL)] + list(games.items())
            + [(stem, _title(pages[stem], pages[stem].stat().st_mtime_ns) or stem) for stem in others])


def _render(path: Path, name: str) -> str:
    body = _LINK.sub(lambda m: _href(m, rule_pages()), _body(path, path.stat().st_mtime_ns))
    return _page(_title(path, path.stat().st_mtime_ns) or name, body, current=name)


@lru_cache(maxsize=16)
def _body(path: Path, mtime_ns: int) -> str:
    return render_markdown(path.read_text(encoding="utf-8"))


def _page(title: str, body: str, current: str | None) -> str:
    links = ['<a href="/">&larr; Board</a>', '<a href="/analysis">Analysis board</a>']
    for stem, label in _nav():
        href = "/rules" if stem == INDEX else f"/rules/{stem}"
        mark = ' aria-current="page"' if stem == current else ""
        links.append(f'<a href="{href}"{mark}>{html.escape(label)}</a>')
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)} - ftc-engine</title>\n<link rel=\"icon\" href=\"data:,\">\n"
            f"<link rel=\"stylesheet\" href=\"{STYLESHEET}\">\n</head>\n<body>\n<nav>{' '.join(links)}</nav>\n"
            f"<main>\n{body}\n</main>\n</body>\n</html>\n")


def render_page(name: str) -> str | None:
    """The HTML of the rules page ``name`` (a file stem; ``INDEX`` for the index), or None when
    there is no such page. ``name`` is only compared with the pages found, never used as a path."""
    path = rule_pages().get(name)
    if path is None:
        return None
    return _render(path, name)


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
