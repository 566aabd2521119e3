"""Every example in the docs that shows output is a real run: this test replays it and compares the
output with the documented one (issue 22). One mechanism for every doc, driven by the info string of
a fenced block:

- ```` ```console replay ````: ``$ command`` lines (a leading ``ftc`` is this checkout's ``ftc``),
  each followed by its output (stdout and stderr together), run in a fresh folder in order;
- ```` ```python replay ````: a doctest (``>>>`` lines and their output), run in one namespace;
- ```` ```uci replay ```` / ```` ```engine replay ````: a session of ``ftc uci`` / ``ftc engine``:
  ``> `` lines are sent, ``< `` lines must come back, in order, one at a time;
- ```` ```LANG no-replay: WHY ````: shown but not run (a syntax sketch, a browser, a cluster), and
  the reason is said.

In the output, a line ``...`` (``< ...`` in a session) stands for any number of lines. Times and
rates (``1.2 s``, ``nodes/s``, UCI ``time`` and ``nps``, JSON ``seconds``) may differ; everything
else must match exactly. Every fenced block of the docs below carries one of these marks, so a new
example cannot go unchecked. When an output changes on purpose, paste the new run into the doc."""

from __future__ import annotations

import doctest
import os
import queue
import re
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import FTC, ROOT, child_env

DOCS = ["README.md", "docs/uci.md", "docs/server.md", "docs/movespec.md", "docs/kings-ransom.md", "docs/crusade.md",
        "docs/protocol.md", "docs/crownfall.md", "docs/crown.md", "docs/results.md", "docs/development.md",
        "docs/records.md", "docs/review.md", "docs/sprt.md"]
KINDS = {"console", "python", "uci", "engine"}
FENCE = re.compile(r"^```(.*)$")

#: Times and rates: replaced by a placeholder on both sides before comparing.
TIMINGS = [
    (re.compile(r"\b\d[\d,]*(\.\d+)?( ?)(s|ms)\b(?!/)"), r"<T>\2\3"),
    (re.compile(r"\b\d[\d,]*(\.\d+)? ([a-z]+)/s\b"), r"<R> \2/s"),
    (re.compile(r"\b(nps|time) \d+"), r"\1 <N>"),
    (re.compile(r'"(seconds|nps)":\s?[0-9.eE+-]+'), r'"\1":<N>'),
]


def loose(line: str) -> str:
    for pattern, placeholder in TIMINGS:
        line = pattern.sub(placeholder, line)
    return line.rstrip()


@dataclass
class Block:
    doc: str
    line: int          # the line of the opening fence, 1-based
    info: str
    body: list[str]

    @property
    def kind(self) -> str:
        return self.info.split()[0] if self.info else ""

    @property
    def replayed(self) -> bool:
        words = self.info.split()
        return len(words) == 2 and words[1] == "replay" and words[0] in KINDS

    def __str__(self) -> str:
        return f"{self.doc}:{self.line} ({self.info})"


def blocks(doc: str) -> list[Block]:
    """The fenced blocks of ``doc`` (relative to the repository root)."""
    found, current = [], None
    for number, line in enumerate((ROOT / doc).read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if current is None and fence:
            current = Block(doc, number, fence.group(1).strip(), [])
        elif current is not None and line.strip() == "```":
            found.append(current)
            current = None
        elif current is not None:
            current.body.append(line)
    assert current is None, f"{doc}: a fenced block opened at line {current.line} is never closed"
    return found


ALL = [block for doc in DOCS for block in blocks(doc)]
REPLAYED = [block for block in ALL if block.replayed]


def matches(expected: list[str], actual: list[str]) -> str | None:
    """None when ``actual`` fits ``expected`` (``...`` lines: any lines; timings loose), else why not."""
    expected = [loose(line) for line in expected]
    actual = [loose(line) for line in actual]

    def fit(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        if expected[i] == "...":
            return any(fit(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and expected[i] == actual[j] and fit(i + 1, j + 1)

    if fit(0, 0):
        return None
    for number, (want, got) in enumerate(zip(expected, actual), 1):
        if want != got and want != "...":
            return f"line {number}: documented {want!r}, got {got!r}"
    return f"{len(expected)} lines documented, {len(actual)} printed:\n" + "\n".join(actual)


# -- the kinds of block -------------------------------------------------------------------------

def replay_console(block: Block, folder: Path) -> None:
    commands: list[tuple[str, list[str]]] = []
    for line in block.body:
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            assert commands, f"{block}: output before the first $ command"
            commands[-1][1].append(line)
    assert commands, f"{block}: no $ command"
    for command, output in commands:
        argv = shlex.split(command)
        if argv[0] == "ftc":
            argv = FTC + argv[1:]
        run = subprocess.run(argv, cwd=folder, env={**child_env(), "COLUMNS": "100"}, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=600)
        while output and not output[-1].strip():
            output.pop()
        problem = matches(output, run.stdout.rstrip("\n").splitlines())
        assert problem is None, f"{block}: $ {command}: {problem}"


def replay_python(block: Block, folder: Path) -> None:
    text = "\n".join(block.body) + "\n"
    test = doctest.DocTestParser().get_doctest(text, {}, str(block), block.doc, block.line)
    assert test.examples, f"{block}: no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        runner.run(test, out=report.append)
    finally:
        os.chdir(cwd)
    assert runner.failures == 0, f"{block}:\n" + "".join(report)


def replay_session(block: Block, folder: Path) -> None:
    """Send the ``> `` lines to ``ftc uci`` / ``ftc engine`` one at a time, reading the ``< `` lines
    the doc shows after each before the next is sent (so ``go infinite`` ... ``stop`` is a real
    session, not input piped at once)."""
    script = []
    for line in block.body:
        assert line[:2] in ("> ", "< "), f"{block}: {line!r} is neither '> ' nor '< '"
        script.append((line[0], line[2:]))
    child = subprocess.Popen([*FTC, block.kind], cwd=folder, env=child_env(), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    lines: queue.Queue = queue.Queue()           # the engine's lines as they come ("" at its end)
    threading.Thread(target=lambda: [lines.put(line) for line in iter(child.stdout.readline, "")] + [lines.put("")],
                     daemon=True).start()
    skipping = False
    try:
        for number, (way, text) in enumerate(script, 1):
            if way == ">":
                child.stdin.write(text + "\n")
                child.stdin.flush()
                continue
            if text == "...":
                skipping = True
                continue
            while True:
                try:
                    got = lines.get(timeout=120).rstrip("\n")
                except queue.Empty:
                    raise AssertionError(f"{block}: line {number}: no answer within 120 s, expected {text!r}") from None
                assert got, f"{block}: line {number}: the engine ended, expected {text!r}"
                if loose(got) == loose(text):
                    skipping = False
                    break
                assert skipping, f"{block}: line {number}: documented {text!r}, got {got!r}"
        child.stdin.close()
        assert child.wait(timeout=60) == 0, child.stderr.read()
        rest = []
        while (line := lines.get(timeout=60)) != "":
            rest.append(line)
        assert not "".join(rest).strip(), f"{block}: the engine said more than the doc shows: {rest!r}"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


RUN = {"console": replay_console, "python": replay_python, "uci": replay_session, "engine": replay_session}


# -- the tests ------------------------------------------------------------------------------------

@pytest.mark.parametrize("block", REPLAYED, ids=[f"{b.doc}:{b.line}" for b in REPLAYED])
def test_the_example_is_what_the_program_does(block, tmp_path):
    started = time.perf_counter()
    RUN[block.kind](block, tmp_path)
    assert time.perf_counter() - started < 300


@pytest.mark.parametrize("doc", DOCS)
def test_every_block_says_whether_it_is_replayed(doc):
    """A block is replayed (``KIND replay``) or says why not (``LANG no-replay: WHY``): an example
    added without a mark fails here rather than going stale unseen."""
    for block in blocks(doc):
        words = block.info.split(maxsplit=2)
        assert block.replayed or (len(words) >= 2 and words[1].startswith("no-replay:")
                                  and (len(words) == 3 or words[1] != "no-replay:")), \
            f"{block}: mark it 'KIND replay' (KIND: {', '.join(sorted(KINDS))}) or 'LANG no-replay: WHY'"


def test_the_docs_have_replayed_examples_of_every_kind():
    assert {block.kind for block in REPLAYED} == KINDS
    assert {block.doc for block in REPLAYED} >= {"README.md", "docs/uci.md", "docs/protocol.md"}


@pytest.mark.parametrize("expected, actual, fits", [
    (["a", "...", "d"], ["a", "b", "c", "d"], True),
    (["a", "..."], ["a"], True),
    (["Time: 1.2 s, 3,000 nodes/s"], ["Time: 0.031 s, 99,123,456 nodes/s"], True),
    (["info depth 1 nodes 31 nps 51666 time 0 pv d1f3"], ["info depth 1 nodes 31 nps 9 time 12 pv d1f3"], True),
    (["Nodes searched: 400"], ["Nodes searched: 401"], False),
    (["info depth 1 nodes 31 pv d1h5"], ["info depth 1 nodes 31 pv d1f3"], False),
    (["a", "b"], ["a", "b", "c"], False),
])
def test_the_comparison_is_loose_on_timings_only(expected, actual, fits):
    assert (matches(expected, actual) is None) == fits
