"""The rules pages (docs/rules/, docs/rules/README.md) keep every citation resolvable and agree with the data.

- Every "RULINGS Xn" / "ruling Xn" citation in the repository (code, tests, docs, data, web pages) and
  every rule number "(N.M)" of the unit and card catalogs names an anchor that exists in the
  rendered page it points to (rulings: /rules/rulings#ruling-Xn; rule numbers:
  /rules/for-the-crown#sec-N-M, the URLs the web board links to).
- Every link between the rendered pages lands on an existing page and anchor.
- The tables made from the data (tools/rules_tables.py) are current, and every unit, card and King's
  Ransom card has its description anchor.
- No page points at files a user of the repository does not have (../shared).
"""

import re
import subprocess
from functools import cache

import pytest

from engine.catalog import default_catalog
from engine.crown.cards import default_cards
from engine.interfaces.rules_pages import INDEX, rule_pages, rules_dir
from engine.interfaces.server.rules import STYLESHEET, render_page
from engine.ransom.rules import default_rules
from tests.support import ROOT, copied_runs, load_tool, maintainers_texts

tables = load_tool("rules_tables")

#: The files a citation may stand in (the kinds the issue names), as git tracks them.
CITING = ("*.py", "*.md", "*.toml", "*.js", "*.html", "*.pyx", "*.pxd", "*.ini")

# "RULINGS C8", "RULINGS.md C8", "ruling C8", "rulings B1-B19, C6", "RULINGS C3/C8", "RULINGS B, C8".
_PREFIX = re.compile(r"\b(?:RULINGS(?:\.md)?|[Rr]ulings?)\s+")
_ID = r"[A-I](?:\d{1,2})?(?![A-Za-z0-9])"
_ITEM = re.compile(rf"(?P<first>{_ID})(?:\s*[-\u2013]\s*(?P<last>[A-I]?\d{{1,2}})(?![A-Za-z0-9]))?")
_SEPARATOR = re.compile(r"\s*(?:,|/|\band\b)\s*")


@cache
def anchors(page: str) -> frozenset[str]:
    """The ids of the rendered page ``page`` (a file stem; INDEX for /rules)."""
    text = render_page(page)
    assert text is not None, page
    return frozenset(re.findall(r'\bid="([^"]+)"', text))


def ruling_ids(text: str) -> list[str]:
    """Every ruling ID cited in ``text`` after "RULINGS" or "ruling(s)"; ranges expanded
    (B9-B12 -> B9 B10 B11 B12). A bare section letter ("RULINGS F") is an ID too."""
    found = []
    for prefix in _PREFIX.finditer(text):
        pos = prefix.end()
        while True:
            item = _ITEM.match(text, pos)
            if not item:
                break
            first = item.group("first")
            if item.group("last"):
                letter, low = first[0], int(first[1:])
                last = item.group("last")
                high = int(last.lstrip("ABCDEFGHI"))
                assert low < high, f"a backwards range {item.group(0)!r}"
                found += [f"{letter}{n}" for n in range(low, high + 1)]
            else:
                found.append(first)
            pos = item.end()
            separator = _SEPARATOR.match(text, pos)
            if not separator or not separator.group(0).strip():
                break
            pos = separator.end()
    return found


def tracked_files_of(*patterns: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return [name for name in out.stdout.split() if (ROOT / name).is_file()]


def tracked_files() -> list[str]:
    return tracked_files_of(*CITING)


def test_the_citation_reader_reads_every_form_the_repository_uses():
    assert ruling_ids("perft (RULINGS C8), see RULINGS A3/A4 and RULINGS.md C8") == ["C8", "A3", "A4", "C8"]
    assert ruling_ids("rules 12.0 and RULINGS B9-B12, B15)") == ["B9", "B10", "B11", "B12", "B15"]
    assert ruling_ids("RULINGS G1-G8 is") == [f"G{n}" for n in range(1, 9)]
    assert ruling_ids("the variants of RULINGS F are; RULINGS B, C8") == ["F", "B", "C8"]
    assert ruling_ids("(RULINGS D marks them) ruling C20 (docs/rules/rulings.md)") == ["D", "C20"]
    # Words after "ruling" are not IDs; an ID glued to letters is not one either.
    assert ruling_ids("a ruling But also RULINGS does not; the rulings are; RULINGS: quote") == []
    assert ruling_ids("RULINGS C4, C12 and C15") == ["C4", "C12", "C15"]
    assert ruling_ids("RULINGS H3/H4 and RULINGS I1-I3") == ["H3", "H4", "I1", "I2", "I3"]


def test_every_ruling_cited_anywhere_has_its_anchor_on_the_rulings_page():
    defined = anchors("rulings")
    cited: dict[str, list[str]] = {}
    for name in tracked_files():
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for ruling in ruling_ids(line):
                cited.setdefault(ruling, []).append(f"{name}:{number}")
    assert len(cited) > 40, sorted(cited)       # the reader found the repository's citations
    missing = {ruling: places[:3] for ruling, places in cited.items() if f"ruling-{ruling}" not in defined}
    assert not missing, f"cited rulings without an anchor in docs/rules/rulings.md: {missing}"


def test_the_rulings_page_has_every_ruling_the_engine_follows():
    # Sections A-I of the rulings: A1-A5, B1-B19, C1-C22, D, E, F, G1-G9, H1-H9, I1-I20 (each counted
    # from the list of rulings, by hand), and the section anchors.
    expected = ([f"A{n}" for n in range(1, 6)] + [f"B{n}" for n in range(1, 20)] + [f"C{n}" for n in range(1, 23)]
                + ["D", "E", "F"] + [f"G{n}" for n in range(1, 10)] + [f"H{n}" for n in range(1, 10)]
                + [f"I{n}" for n in range(1, 21)] + list("ABCGHI"))
    missing = [r for r in expected if f"ruling-{r}" not in anchors("rulings")]
    assert not missing


def test_every_rule_number_of_the_catalogs_resolves_on_the_for_the_crown_page():
    defined = anchors("for-the-crown")
    numbers = set()
    for name in ("engine/data/cards.toml", "engine/data/units.toml"):
        text = (ROOT / name).read_text(encoding="utf-8")
        numbers |= set(re.findall(r"\((\d{1,2})\.(\d)\b", text))       # "(13.0)", "(3.0, step 2)"
        numbers |= set(re.findall(r'rule = "(\d{1,2})\.(\d)"', text))     # an effect's rule field
        numbers |= set(re.findall(r"\brules? (\d{1,2})\.(\d)\b", text))   # "rule 12.0"
    assert {("7", "0"), ("13", "0"), ("17", "0"), ("16", "0")} <= numbers
    # The web board links "(N.M)" to /rules/for-the-crown#sec-N-M, the expansion's too.
    missing = sorted(f"{a}.{b}" for a, b in numbers if f"sec-{a}-{b}" not in defined)
    assert not missing, f"rule numbers without an anchor: {missing}"


def test_every_numbered_section_of_the_rulebooks_has_its_anchor():
    defined = anchors("for-the-crown")
    base = [f"sec-{n}-0" for n in range(0, 14)] + [f"sec-11-{n}" for n in range(1, 6)]
    expansion = ["exp-1-0", "exp-16-0", "exp-17-0"]
    assert [a for a in base + expansion + ["point-buy", "provisional"] if a not in defined] == []


def test_every_link_between_the_rendered_pages_lands_on_a_page_and_an_anchor():
    pages = rule_pages()
    assert set(pages) >= {INDEX, "for-the-crown", "kings-ransom", "rulings"}
    broken = []
    for page in pages:
        html = render_page(page)
        for href in re.findall(r'href="([^"]*)"', html):
            if href.startswith("#"):
                target_page, anchor = page, href[1:]
            elif href.startswith("/rules"):
                path, _, anchor = href.partition("#")
                target_page = path.removeprefix("/rules").removeprefix("/") or INDEX
                if target_page not in pages:
                    broken.append(f"{page}: {href}")
                    continue
            elif href in ("/", "/analysis", "data:,", STYLESHEET):
                continue
            else:
                broken.append(f"{page}: {href} (not a served page)")
                continue
            if anchor and anchor not in anchors(target_page):
                broken.append(f"{page}: {href}")
    assert not broken, broken


def test_the_tables_made_from_the_data_are_current():
    made = tables.blocks()
    for page in sorted(rules_dir().glob("*.md")):
        _, changed = tables.render(page.read_text(encoding="utf-8"), made, page.name)
        assert not changed, f"{page.name}: run python tools/rules_tables.py (stale: {changed})"


def test_a_changed_catalog_makes_its_table_stale():
    # The check above compares with what the data makes: a unit whose spec changed no longer matches.
    made = tables.blocks()
    page = (rules_dir() / "for-the-crown.md").read_text(encoding="utf-8")
    made["units"] = made["units"].replace("`fmW ifmnD fcF`", "`fmW fcF`")
    assert tables.render(page, made, "for-the-crown.md")[1] == ["units"]


def test_every_unit_and_card_has_its_description_and_its_data_on_the_page():
    page = (rules_dir() / "for-the-crown.md").read_text(encoding="utf-8")
    defined = anchors("for-the-crown")
    for unit in default_catalog():
        assert f"unit-{tables.slug(unit.name)}" in defined, unit.name
        assert f"| `{unit.token}` |" in page and f"`{unit.moves}`" in page, unit.name
    for card in default_cards():
        assert f"card-{tables.slug(card.name)}" in defined, card.name
        for effect in card.effects:
            assert effect.text in page, (card.name, effect.kind)
    ransom = anchors("kings-ransom")
    for unit in default_rules().catalog:
        assert f"card-{tables.slug(unit.name)}" in ransom, unit.name


def test_no_page_points_at_files_outside_the_repository():
    for page in sorted(rules_dir().glob("*.md")):
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text and "RULINGS.md" not in text, page.name


def test_the_pages_paraphrase_and_never_copy_the_rulebooks_or_the_rulings_file():
    """No page's own text shares a run of 7 words with a rulebook or the maintainers' rulings file.
    They are not part of the repository: FTC_RULEBOOKS names their folder (rules/*.txt and
    RULINGS.md), by default a `shared` folder beside the project; skipped where there is none. The
    generated blocks hold the catalog's card texts, which tests/crown/test_card_catalog.py checks."""
    sources = maintainers_texts()
    if not sources:
        pytest.skip("no rulebooks beside the project (FTC_RULEBOOKS names their folder)")
    pages = {page.name: tables.BLOCK.sub("", page.read_text(encoding="utf-8")) for page in sorted(rules_dir().glob("*.md"))}
    copied = copied_runs(pages, sources)
    assert copied == []


def test_the_command_line_help_says_where_rules_and_rulings_are_explained():
    from engine.interfaces.cli import build_parser

    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.choices and "perft" in a.choices).choices
    texts = {"ftc": parser.format_help()} | {f"ftc {name}": p.format_help() for name, p in subcommands.items()}
    for command, text in texts.items():
        assert not re.search(r"\.\./shared|shared/rules|RULINGS\.md", text), command
        assert "docs/rules" in text and "/rules" in text, command      # the pages, in the source and on the server
        for ruling in ruling_ids(text):
            assert f"ruling-{ruling}" in anchors("rulings"), (command, ruling)
    assert "ruling" in texts["ftc perft"] and "C8" in texts["ftc perft"]


def test_no_file_of_the_repository_points_at_the_maintainers_folder():
    # The rulebooks and RULINGS.md live outside the repository: a citation names docs/rules instead.
    pointing = []
    for name in tracked_files_of(*CITING, "*.epd"):
        if name in ("tests/test_rules_docs.py", "tests/support.py"):     # the checks that read those copies
            continue
        text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
        pointing += [f"{name}: {hit}" for hit in re.findall(r"\.\./shared\S*|/work/shared\S*|RULINGS\.md", text)]
    assert pointing == []
