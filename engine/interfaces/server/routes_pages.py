"""The server's pages and the facts that name no game: the home page, the games' own pages
(``WebBoard.pages``: For the Crown's analysis board and catalog), the rules pages (rules.py), the
manual (site.py), the interactive API documentation, the games this server plays, the units' reach and the server's health."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse

from engine.catalog import default_catalog
from engine.games import registry
from engine.interfaces.server.guard import CONTENT_SECURITY_POLICY, docs_policy
from engine.interfaces.server.newgames import kind_of
from engine.interfaces.server.reach import catalog_reach
from engine.interfaces.server.rules import router as rules_router
from engine.interfaces.server.site import MOUNT as SITE_MOUNT
from engine.interfaces.server.site import SiteFiles, to_index

__all__ = ["pages_router", "STATIC", "DOCS_FAVICON"]

STATIC = Path(__file__).parent / "static"
#: The API page's icon: none (an empty data URL, as the web board's), so the browser fetches nothing.
DOCS_FAVICON = "data:,"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def pages_router(server, pages: list, openapi_url: str, title: str, site: Path | None = None) -> APIRouter:
    """The pages (``server``: core.Server; ``pages``: the games' own pages, each with its ``router``;
    ``openapi_url`` and ``title``: the app's, for the API documentation; ``site``: the folder of the
    built manual, served at /site/, or None: a page there says how to build it)."""
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    for extra in pages:
        router.include_router(extra.router)
    router.include_router(rules_router)          # /rules: the rules pages (docs/rules/)
    router.add_api_route(SITE_MOUNT, to_index, include_in_schema=False)
    router.mount(SITE_MOUNT, SiteFiles(site), name="site")     # /site/: the manual (site.py)

    @router.get("/docs", include_in_schema=False)
    def _docs():
        """The interactive API documentation: Swagger UI from static/docs/ (README.md there says which
        version of swagger-ui-dist), so every URL of the page is on this server."""
        page = get_swagger_ui_html(
            openapi_url=openapi_url, title=f"{title} - API",
            swagger_js_url="/static/docs/swagger-ui-bundle.js", swagger_css_url="/static/docs/swagger-ui.css",
            swagger_favicon_url=DOCS_FAVICON,
            # No online validator badge: it would send the schema's address to validator.swagger.io.
            swagger_ui_parameters={"validatorUrl": None},
        )
        # Its one inline script (Swagger UI's set-up) is allowed by its hash; nothing else inline.
        inline = [m.group(1) for m in _INLINE_SCRIPT.finditer(page.body.decode("utf-8"))]
        page.headers["content-security-policy"] = docs_policy(inline[0]) if len(inline) == 1 else \
            CONTENT_SECURITY_POLICY
        return page

    @router.get("/api/games/kinds", summary="The games this server plays (the registry): name, title, players, "
                                            "variants, bots, rules page, board module")
    def kinds():
        return {"default": registry.DEFAULT_GAME, "games": [kind_of(game) for game in registry.games()]}

    @router.get("/api/units/reach", summary="Where each unit type may march and capture, alone on an empty board")
    def units_reach(square: str | None = None):
        """Each unit type of the catalog alone on an empty board, flat and cylindrical (Compass mode,
        16.0): its march, attack, shoot and swap squares as the kernel generates them (reach.py). From
        ``square`` (a1..h8) if given, else from d4 (d2 for a unit with a first-move step) flat and b4
        (b2) cylindrical."""
        try:
            return {"units": catalog_reach(default_catalog(), square)}
        except ValueError as exc:
            raise HTTPException(422, f"square: {exc}") from None

    @router.get("/api/health", summary="Whether the server is up, with counters (no game is named)")
    def health():
        return {"status": "ok", "games_in_memory": len(server.games), "ai_cluster": server.pool.cluster.kind,
                "ai_restarts": server.pool.restarts, "ai_fallbacks": len(server.fallbacks),
                "instance": server.instances.id, "instances": server.instances.live,
                "ai_takeovers": server.instances.takeovers, "echoes_scrubbed": server.refusals.scrubbed}

    return router
