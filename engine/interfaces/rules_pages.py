"""Where the rules pages are (docs/rules/*.md: the games' rules and the rulings, in the project's
words; docs/rules/README.md explains them). The one lookup: the web server (server/rules.py)
serves them from here, and an installed package finds them without the repository.

A wheel carries them as ``engine/docs/rules/*.md`` (setup.py's build step copies them); a source
checkout has them in ``docs/rules``. Needs nothing beyond the standard library.
"""

from __future__ import annotations

import re
from pathlib import Path

import engine

__all__ = ["INDEX", "PAGE_NAME", "RulesPagesMissing", "rules_dir", "rule_pages"]

#: The index page's file stem (served at /rules).
INDEX = "README"
#: What a page name (a file's stem, e.g. "for-the-crown") may look like.
PAGE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


class RulesPagesMissing(RuntimeError):
    """Neither the installed package nor a source checkout holds the rules pages."""


def rules_dir() -> Path:
    """The folder of the rules pages: inside the installed package (``engine/docs/rules``) or, in a
    source checkout, the repository's ``docs/rules``. RulesPagesMissing names both places when
    neither holds the index."""
    package = Path(engine.__file__).resolve().parent
    places = (package / "docs" / "rules", package.parent / "docs" / "rules")
    for place in places:
        if (place / f"{INDEX}.md").is_file():
            return place
    raise RulesPagesMissing(f"the rules pages are missing: neither {places[0]} (an installed package) nor "
                            f"{places[1]} (a source checkout) holds {INDEX}.md")


def rule_pages() -> dict[str, Path]:
    """Every rules page by name (its file's stem), the index (``INDEX``) included, sorted by name."""
    return {path.stem: path for path in sorted(rules_dir().glob("*.md"))
            if path.stem == INDEX or PAGE_NAME.fullmatch(path.stem)}
