"""MkDocs hooks of the manual (mkdocs.yml ``hooks``): the pages and the docstrings as their authors
wrote them, for GitHub and for doctest.

- A fence's info string carries the replay marker of tests/test_docs_examples.py after its language
  (```` ```sh no-replay: why ````, ```` ```python replay ````). GitHub takes the first word as the
  language; Python-Markdown's fences take no more than a language, so such a fence would not open a
  code block and the page below it would read as text. The pages' fences keep their language only.
- The docstrings hold doctests (``>>>`` lines and their output, tests/test_doctests.py) with no
  fence around them: Python-Markdown would read them as a paragraph, and ``['e1d1', 'e1d2']`` as a
  link. Each run of them becomes a ``pycon`` code block (a Markdown extension, registered before
  mkdocstrings reads the extensions, so the docstrings get it too).

The files are not changed; only what MkDocs renders.
"""

from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

#: The opening line of a fence with words after its language (up to 3 spaces of indent, as CommonMark).
_FENCE_WITH_WORDS = re.compile(r"^(?P<open> {0,3}(?:`{3,}|~{3,})[\w+-]+)[ \t]+[^`\n]*$", re.M)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_PROMPT = re.compile(r"(?P<indent> *)>>>(?: |$)")


def fence_languages(markdown: str) -> str:
    """``markdown`` with each fence's info string cut to its language."""
    return _FENCE_WITH_WORDS.sub(lambda m: m.group("open"), markdown)


def fence_doctests(lines: list[str]) -> list[str]:
    """``lines`` with each doctest outside fenced code (a ``>>>`` line, the lines after it up to a blank
    one) put in a fence of ``pycon``, at its own indent."""
    out: list[str] = []
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1).startswith(fence):
                fence = None
            out.append(line)
            i += 1
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            i += 1
            continue
        prompt = _PROMPT.match(line)
        if prompt is None:
            out.append(line)
            i += 1
            continue
        indent = prompt.group("indent")
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i])
            i += 1
        if out and out[-1].strip():
            out.append("")
        out += [indent + "```pycon", *block, indent + "```", ""]
    return out


class _DoctestFences(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return fence_doctests(lines)


class DoctestExtension(Extension):
    """Doctests outside fenced code become ``pycon`` code blocks (``fence_doctests``)."""

    def extendMarkdown(self, md) -> None:             # noqa: N802 - Python-Markdown's name
        # Before the fences are found (superfences' and fenced_code's preprocessors run at 25).
        md.preprocessors.register(_DoctestFences(md), "doctest_fences", 30)


@event_priority(100)                 # before mkdocstrings takes the extensions for the docstrings
def on_config(config, **_kwargs):
    config.markdown_extensions.append(DoctestExtension())
    return config


def on_page_markdown(markdown: str, **_kwargs) -> str:
    return fence_languages(markdown)
