"""Markdown as the project's pages are written (for GitHub, CommonMark) made readable to
Python-Markdown, which the rules pages (server/rules.py) and the manual (mkdocs.yml, through
tools/mkdocs_hooks.py) are rendered with. Needs nothing beyond the standard library."""

from __future__ import annotations

import re

__all__ = ["blank_line_before_lists"]

#: A line that opens a list item (CommonMark: up to 3 spaces, a bullet or a number, then a space or
#: the line's end) and one that may open a list right under a paragraph's line (a bullet, or the
#: number 1, followed by text); a fence of fenced code.
_ANY_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_INTERRUPTING_ITEM = re.compile(r" {0,3}(?:[-*+]|1[.)])[ \t]+\S")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def blank_line_before_lists(text: str) -> str:
    """``text`` with a blank line put before each list that begins right under a paragraph's line.
    GitHub (CommonMark) starts a list there, as the pages are written; Python-Markdown would read the
    items as more of the paragraph ("- the back row ...; - the second row ..."). A number other than 1
    does not begin a list there (CommonMark), so "2019. " at a line's start stays text; fenced code is
    left alone."""
    out: list[str] = []
    fence = None                  # the open fence's marker, inside fenced code
    block = None                  # what the lines since the last blank one are: None, "para", "list"
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1).startswith(fence):
                fence = None
            out.append(line)
            continue
        if opened:
            fence, block = opened.group(1), None
        elif not line.strip():
            block = None
        elif _ANY_ITEM.match(line):
            if block == "para" and _INTERRUPTING_ITEM.match(line):
                out.append("")
            block = "list"
        elif block is None:
            block = "para"        # a list's own lines (continuations) leave it a list
        out.append(line)
    return "\n".join(out)
