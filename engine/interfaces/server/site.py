"""The manual (mkdocs.yml: docs/ and the docstrings, built by ``mkdocs build`` into site/) at
``/site/``, offline: every file of the built site is served from this server, under the server's own
Content-Security-Policy (guard.py), unchanged: the manual's theme writes no inline script or style
(tools/mkdocs_theme/, tests/test_docs_site.py).

``SiteFiles`` is mounted at ``/site`` (routes_pages.py; ``/site`` itself leads to ``/site/``). Its folder is ``ftc serve --site DIR``, by
default the source checkout's ``site/`` when it holds a built manual (``default_site_dir``). Without
one, every path answers 404 with a page that says how to build it. A path is looked up inside the
folder only (Starlette's StaticFiles: ``..`` and a link that leads out of the folder are refused with
404); a folder's path without its slash is redirected to it with the slash, by a path, never a URL
made from the request's Host.
"""

from __future__ import annotations

import html
from pathlib import Path

from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.datastructures import URL
from starlette.staticfiles import StaticFiles

import engine

__all__ = ["SiteFiles", "default_site_dir", "built_site", "to_index", "NOT_BUILT", "MOUNT"]

#: Where the manual is served.
MOUNT = "/site"
#: The page every path answers (404) when no manual is built; its stylesheet is the rules pages'.
NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The manual is not built</title>
<link rel="stylesheet" href="/static/rules.css"></head>
<body><main><h1>The manual is not built</h1>
<p>This server shows the manual (the docs and the API reference) at <code>/site/</code> once it is
built. In the source checkout:</p>
<pre><code>pip install -e '.[docs]'
mkdocs build</code></pre>
<p>then start <code>ftc serve</code> again (it finds the checkout's <code>site/</code> folder), or give it
the folder: <code>ftc serve --site DIR</code>.{where}</p>
<p><a href="/">The games</a> &middot; <a href="/rules">The rules</a> &middot; <a href="/docs">The API</a></p>
</main></body></html>
"""


def built_site(folder: Path) -> bool:
    """Whether ``folder`` holds a built manual (its index page)."""
    return (folder / "index.html").is_file()


def default_site_dir() -> Path | None:
    """The source checkout's ``site/`` (beside the ``engine`` package) when it holds a built manual."""
    folder = Path(engine.__file__).resolve().parent.parent / "site"
    return folder if built_site(folder) else None


class SiteFiles(StaticFiles):
    """The files of the built manual in ``folder`` (None: none built; a folder without the index
    page counts as none): a folder's ``index.html``, the manual's own 404 page for a missing path."""

    def __init__(self, folder: Path | None):
        self.folder = folder if folder is not None and built_site(folder) else None
        self.missing_page = NOT_BUILT.format(
            where="" if folder is None else f" (No manual in {html.escape(str(folder))}.)")
        super().__init__(directory=self.folder, html=True, check_dir=False)

    async def get_response(self, path: str, scope):
        if self.folder is None:
            return HTMLResponse(self.missing_page, status_code=404)
        response = await super().get_response(path, scope)
        if isinstance(response, RedirectResponse):      # a folder without its slash
            return RedirectResponse(URL(scope=scope).path + "/", status_code=307)
        return response


def to_index() -> RedirectResponse:
    """``/site`` itself: to the manual's index, by a path."""
    return RedirectResponse(MOUNT + "/", status_code=307)
