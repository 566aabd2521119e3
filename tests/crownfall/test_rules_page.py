"""The texts that list Crownfall's ley nodes (RULINGS I12) name exactly what the engine counts as a node.

Each kind of holding is put alone in a controlled region and asked of the engine (``is_node``); the
kinds it counts must be the kinds each text names, and the kinds it does not count must be unnamed.
The texts: the rules page's 11.0 (docs/rules/crownfall.md), the rulings page's I12
(docs/rules/rulings.md) and the game's notes (docs/crownfall.md)."""

from __future__ import annotations

import pytest

from tests.crownfall.support import anchor, banner, begin, reg, tower, unstarted
from tests.support import ROOT

BLUE = 0


def passage(path: str, start: str, end: str) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    at = text.index(start)
    return " ".join(text[at:text.index(end, at + len(start))].split())


TEXTS = {
    "docs/rules/crownfall.md 11.0": passage("docs/rules/crownfall.md", "A player's nodes are", "(["),
    "docs/rules/rulings.md I12": passage("docs/rules/rulings.md", "For a player, a node is", ". "),
    "docs/crownfall.md": passage("docs/crownfall.md", "a node is a controlled region", ";"),
}


def _keep(g):
    banner(g, BLUE, "keep")
    return "keep"


def _ruin(g):
    banner(g, BLUE, "dawnmere")
    return "dawnmere"


def _tower(role):
    def build(g):
        banner(g, BLUE, "westwatch")
        tower(g, BLUE, "westwatch", role)
        return "westwatch"
    return build


def _anchor(g):
    banner(g, BLUE, "westwatch")
    tower(g, BLUE, "westwatch", "stronghold")       # a Stronghold is no node (below): the Anchor decides
    anchor(g, BLUE, "westwatch")
    return "westwatch"


def _home_tower(g):
    return "thorn-coast"                             # Blue's home, its set-up Tower without a role


def _banner(g):
    banner(g, BLUE, "westwatch")
    return "westwatch"


#: Each kind of holding: the words a text names it by, and how to put it alone in a Blue region.
KINDS = {
    "Starfall Keep": (("Keep",), _keep),
    "Ruin": (("Ruin",), _ruin),
    "Beacon": (("Beacon",), _tower("beacon")),
    "Sanctum": (("Sanctum",), _tower("sanctum")),
    "Anchor": (("Anchor",), _anchor),
    "Home Tower": (("Home Tower",), _home_tower),
    "Stronghold": (("Stronghold",), _tower("stronghold")),
    "Watchtower": (("Watchtower",), _tower("watchtower")),
    "Banner": (("Banner",), _banner),
}


def engine_nodes() -> set[str]:
    out = set()
    for kind, (_, build) in KINDS.items():
        g = unstarted(houses=["redwall", "briar"])
        region = build(g)
        begin(g)
        if g.is_node(BLUE, reg(region)):
            out.add(kind)
    return out


def test_the_engine_counts_the_kinds_ruling_i12_names():
    assert engine_nodes() == {"Starfall Keep", "Ruin", "Beacon", "Sanctum", "Anchor", "Home Tower"}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_each_text_names_the_engines_node_kinds(name):
    text = TEXTS[name]
    named = {kind for kind, (words, _) in KINDS.items() if any(word in text for word in words)}
    assert named == engine_nodes(), f"{name}: {text!r}"
