"""For the Crown's catalogs on the web server (``GET /api/catalog``: units and cards, for the web
board's glyph legends and card panels): a page of its registry entry's ``WebBoard.pages``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter

from engine.catalog import default_catalog
from engine.crown.cards import default_cards

__all__ = ["Catalog"]


class Catalog:
    """The catalog endpoint (``router``); nothing to close, no large bodies."""

    name = "catalog"
    bodies: dict = {}

    def __init__(self, limits=None, static: Path | None = None):
        self.router = APIRouter()

        @self.router.get("/api/catalog", summary="Unit and card catalogs (for boards and glyph legends)")
        def catalog():
            return {"units": [u.to_json() for u in default_catalog()], "cards": [c.to_json() for c in default_cards()]}

    def close(self) -> None:
        pass
