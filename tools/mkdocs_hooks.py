"""MkDocs hooks of the manual (mkdocs.yml ``hooks``): the pages and the docstrings as their authors
wrote them, for GitHub and for doctest.

- A fence's info string carries the replay marker of tests/test_docs_examples.py after its language
  (```` ```sh no-replay: why ````, ```` ```python replay ````). GitHub takes the first word as the
  language; Python-Markdown's fences take no more than a language, so such a fence would not open a
  code block and the page below it would read as text. The pages' fences keep their language only.
- A list may begin right under a line of text (CommonMark, GitHub); Python-Markdown would run its
  items into the paragraph. A blank line is put before it, as the server's /rules pages do
  (engine/interfaces/markdown_text.py).
- A fence may open right under a line of text or close right above one; a blank line is put there.
- The docstrings hold doctests (``>>>`` lines and their output, tests/test_doctests.py) with no
  fence around them: Python-Markdown would read them as a paragraph, and ``['e1d1', 'e1d2']`` as a
  link. Each run of them becomes a ``pycon`` code block (a Markdown extension, registered before
  mkdocstrings reads the extensions, so the docstrings get it too).

The files are not changed; only what MkDocs renders.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority


def _load(path: Path) -> ModuleType:
    """A module of this checkout by its file: the build needs neither the engine installed nor its
    compiled kernels (``import engine`` loads them), and never reads another checkout's."""
    spec = importlib.util.spec_from_file_location(f"_mkdocs_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


blank_line_before_lists = _load(Path(__file__).resolve().parents[1] / "engine" / "interfaces"
                                / "markdown_text.py").blank_line_before_lists

#: The opening line of a fence with words after its language (up to 3 spaces of indent, as CommonMark).
_FENCE_WITH_WORDS = re.compile(r"^(?P<open> {0,3}(?:`{3,}|~{3,})[\w+-]+)[ \t]+[^`\n]*$", re.M)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_PROMPT = re.compile(r"(?P<indent> *)>>>(?: |$)")


def fence_languages(markdown: str) -> str:
    """``markdown`` with each fence's info string cut to its language."""
    return _FENCE_WITH_WORDS.sub(lambda m: m.group("open"), markdown)


def fence_spacing(markdown: str) -> str:
    """``markdown`` with a blank line before each fence that opens right under a line of text and after
    each that closes right above one (CommonMark needs neither; Python-Markdown would read the code
    block and the text around it as one paragraph, a list after it included)."""
    out: list[str] = []
    fence = None
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            if out and out[-1].strip():
                out.append("")
            out.append(line)
            continue
        out.append(line)
        if fence is not None and opened and opened.group(1).startswith(fence) and not line.strip()[len(fence):].strip():
            fence = None
            if i + 1 < len(lines) and lines[i + 1].strip():
                out.append("")
    return "\n".join(out)


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
    return fence_languages(fence_spacing(blank_line_before_lists(markdown)))
