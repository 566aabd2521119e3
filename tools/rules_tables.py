#!/usr/bin/env python3
"""Write the tables of the rules pages (docs/rules/*.md) from the engine's data, so they cannot go stale.

The pages are written by hand except for blocks between two markers:

    <!-- generated:NAME by tools/rules_tables.py; edit the data, not this block -->
    ...
    <!-- end:NAME -->

Each block is made from a data file: the unit catalog (engine/data/units.toml), the card catalog
(engine/data/cards.toml) and King's Ransom's cards and Deck (engine/data/ransom_units.toml,
engine/data/ransom.toml). After editing one of them, run

    python tools/rules_tables.py           # rewrite the blocks in place
    python tools/rules_tables.py --check   # exit 1 naming each stale block (tests/test_rules_docs.py)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.catalog import Catalog, default_catalog  # noqa: E402
from engine.crown.cards import CardCatalog, CardType, default_cards  # noqa: E402
from engine.ransom.rules import RansomRules, default_rules  # noqa: E402

RULES_DIR = ROOT / "docs" / "rules"

#: How each effect kind of cards.toml is named on the page.
KIND_NAMES = {
    "order": "Order", "action": "Action", "treasure": "Treasure", "training": "Training action",
    "alternate-order": "Alternate order", "alternative-action": "Alternative action",
}

BLOCK = re.compile(r"(<!-- generated:(?P<name>[a-z-]+) by tools/rules_tables\.py; edit the data, not this block -->\n)"
                    r"(?P<body>.*?)"
                    r"(<!-- end:(?P=name) -->)", re.S)


def slug(name: str) -> str:
    """The anchor part of a unit's or card's name: "False Orders" -> "false-orders"."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _provisional(fields) -> str:
    return ", ".join(fields) if fields else "-"


def unit_table(catalog: Catalog, expansion: bool) -> str:
    """The table of the base (or the expansion's) unit types: how each moves as a spec
    (docs/movespec.md), its classes, Point-Buy price and Stock, and which values are PROVISIONAL."""
    rows = ["| unit | token | classes | moves (spec) | price | Stock | PROVISIONAL |",
            "|---|---|---|---|---|---|---|"]
    for u in catalog:
        if u.expansion != expansion:
            continue
        moves = f"`{u.moves}`" + (" (captured: to the Barracks)" if u.captured_to == "barracks" else "")
        rows.append(f"| [{u.name}](#unit-{slug(u.name)}) | `{u.token}` | {', '.join(u.classes) or '-'} | {moves} "
                    f"| {u.price} | {u.stock} | {_provisional(u.provisional)} |")
    return "\n".join(rows) + "\n"


def _card_head(card: CardType) -> str:
    facts = []
    if card.role == "starter":
        facts.append("starting card (3.0), never in the Supply")
    elif card.role == "alt-starter":
        facts.append("alternative starting card (11.1), never in the Supply")
        if card.pile:
            facts.append(f"{card.pile} in the box")
    else:
        facts.append(f"cost {card.cost} gold")
        facts.append(f"{card.role} pile of {card.pile}")
    if card.expansion:
        facts.append("The World is Round")
    if card.provisional:
        facts.append("PROVISIONAL: " + ", ".join(card.provisional))
    text = "; ".join(facts)
    return text[0].upper() + text[1:]


def card_list(cards: CardCatalog, expansion: bool) -> str:
    """Every card of the base game (or of the expansion): its cost, pile and two effects in the
    catalog's own words."""
    out = []
    for card in cards:
        if card.expansion != expansion:
            continue
        out.append(f'<a id="card-{slug(card.name)}"></a>\n')
        out.append(f"#### {card.name}\n")
        out.append(f"{_card_head(card)}.\n")
        for number, effect in enumerate(card.effects, 1):
            kind = KIND_NAMES[effect.kind] + (" x2" if effect.count == 2 else "")
            out.append(f"{number}. **{kind}**: {effect.text}")
        out.append("")
    return "\n".join(out)


def ransom_table(rules: RansomRules) -> str:
    """King's Ransom's cards: movement spec and how many of each a colour's Deck holds (G2)."""
    rows = ["| card | token | moves (spec) | copies in each colour's Deck | ends the game when captured |",
            "|---|---|---|---|---|"]
    for unit in rules.catalog:
        rows.append(f"| [{unit.name}](#card-{slug(unit.name)}) | `{unit.token}` | `{unit.moves}` | {rules.deck[unit.id]} "
                    f"| {'yes' if unit.is_sovereign else 'no'} |")
    rows.append(f"| total | | | {sum(rules.deck)} | |")
    return "\n".join(rows) + "\n"


def blocks() -> dict[str, str]:
    """Every generated block by name."""
    catalog, cards, ransom = default_catalog(), default_cards(), default_rules()
    return {
        "units": unit_table(catalog, expansion=False),
        "expansion-units": unit_table(catalog, expansion=True),
        "cards": card_list(cards, expansion=False),
        "expansion-cards": card_list(cards, expansion=True),
        "ransom-cards": ransom_table(ransom),
    }


def render(text: str, made: dict[str, str], where: str) -> tuple[str, list[str]]:
    """``text`` with every block replaced by its generated body, and the names of the blocks that
    changed. A block name without a generator is an error naming the page."""
    changed = []

    def replace(m: re.Match) -> str:
        name = m.group("name")
        if name not in made:
            raise SystemExit(f"{where}: unknown generated block {name!r}; known: {', '.join(made)}")
        if m.group("body") != made[name]:
            changed.append(name)
        return m.group(1) + made[name] + m.group(4)

    return BLOCK.sub(replace, text), changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming every stale block")
    args = parser.parse_args(argv)
    made = blocks()
    seen, stale = set(), []
    for page in sorted(RULES_DIR.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        seen |= {m.group("name") for m in BLOCK.finditer(text)}
        new, changed = render(text, made, str(page.relative_to(ROOT)))
        stale += [f"{page.relative_to(ROOT)}: block '{name}'" for name in changed]
        if changed and not args.check:
            page.write_text(new, encoding="utf-8")
    missing = sorted(set(made) - seen)
    if missing:
        print(f"no page holds the block(s): {', '.join(missing)}", file=sys.stderr)
        return 1
    if stale:
        print(("stale (run python tools/rules_tables.py):\n  " if args.check else "rewrote:\n  ") + "\n  ".join(stale),
              file=sys.stderr)
        return 1 if args.check else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
