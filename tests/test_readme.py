"""The README is for a user (issue 42): short, it opens with the two set-up commands that .ci/run
runs word for word, then one section per job of the engine, each with an example that
tests/test_docs_examples.py replays. The measurements and the history live in docs/ (docs/results.md),
and every relative link of the README and of docs/ lands on a file and, for a Markdown page, on one of
its headings or anchors."""

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from engine.interfaces import cli
from tests.support import ROOT
from tests.test_docs_examples import blocks

README = ROOT / "README.md"
SET_UP = ["pip install -e '.[server]' && ftc serve", "pip install -e '.[test]' && pytest -n 2"]
#: The jobs, each a `## ` section of the README: a word its heading must hold.
JOBS = ["perft", "analy", "serve", "protocol", "ray"]


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.*)$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_the_readme_is_under_250_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250, f"README.md has {len(lines)} lines: the details belong in docs/"


def test_the_first_commands_of_the_readme_are_the_two_set_up_commands():
    """What .ci/run reads (the nonblank lines of the first fenced block, its awk) is the two
    set-up commands, and no command or example comes before them."""
    text = README.read_text(encoding="utf-8")
    ci = subprocess.run(["awk", '/^```/ { if (inside) exit; inside = 1; next } inside && NF', str(README)],
                        capture_output=True, text=True, check=True).stdout.splitlines()
    assert ci == SET_UP
    before = text[:text.index("```")]
    assert "`ftc " not in before and "`pip " not in before and "$ " not in before


def test_every_job_has_a_section_with_a_replayed_example():
    sections = _sections(README.read_text(encoding="utf-8"))
    replayed = {block.line for block in blocks("README.md") if block.replayed}
    text = README.read_text(encoding="utf-8").splitlines()
    for job in JOBS:
        heading = next((h for h in sections if job in h.lower()), None)
        assert heading is not None, f"no section of the README for {job!r}: {list(sections)}"
        start = text.index(f"## {heading}") + 1
        end = next((i for i in range(start, len(text)) if text[i].startswith("## ")), len(text))
        assert any(start < line <= end for line in replayed), f"section {heading!r} has no replayed example"


def test_the_readme_tells_the_current_facts_not_the_history():
    text = README.read_text(encoding="utf-8")
    for history in ("before issue", "issue 12", "issue 28", "of Dec 3", "Dec 2026"):
        assert history not in text, history
    assert "docs/results.md" in text


def test_the_results_page_gives_each_figure_with_the_command_that_remakes_it():
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    for section in ("Strength", "Speed", "Balance", "Load"):
        assert f"## {section}" in text, section
    for command in ("ftc match", "ftc perft", "ftc balance", "ftc puzzles", "tools/vs_fairy_stockfish.py",
                    "tools/compare_fsf_perft.py", "tools/load_test.py"):
        assert command in text, command


def test_ftc_help_says_what_the_engine_is_for():
    text = " ".join(cli.build_parser().format_help().split())
    for job in ("reference engine", "perft", "analysis", "AI opponent"):
        assert job in text, job


def test_the_package_metadata_says_what_the_engine_is():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "reference engine" in project["description"]
    assert {"Topic :: Games/Entertainment :: Board Games", "Topic :: Games/Entertainment",
            "Programming Language :: Cython", "Programming Language :: Python :: 3.11"} <= set(project["classifiers"])


# -- links ----------------------------------------------------------------------------------------

PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "rules").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's heading slugs of a page, and its explicit ids."""
    text = page.read_text(encoding="utf-8")
    found = set(re.findall(r'(?:id|name)="([^"]+)"', text))
    for heading in re.findall(r"^#+ (.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_lands_on_a_file_and_an_anchor(page):
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("/"):
            continue                              # a web address, or a path of the server (/rules)
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        assert where.exists(), f"{page.relative_to(ROOT)}: {target} points at no file"
        if anchor and where.suffix == ".md":
            assert anchor.lower() in {a.lower() for a in _anchors(where)}, \
                f"{page.relative_to(ROOT)}: {target}: no heading or anchor {anchor!r} there"
