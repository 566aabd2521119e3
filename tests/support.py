"""Plain helpers shared across the test folders (`from tests.support import ...`)."""

import importlib.util
import os
import re
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

#: The repository's root (the folder holding engine/ and tests/).
ROOT = Path(__file__).resolve().parents[1]

#: The catalog's unit tokens, in catalog order: the base game's, then The World is Round's.
BASE_TOKENS = "K Q R B N P A U E C L D G H I M Z O F S X Y T W".split()
EXPANSION_TOKENS = "~B ~P ~N ~K ~Z ~R ~M ~G ~H ~L".split()

#: The `ftc` command as a child process runs it (with `child_env()` and `cwd=ROOT`).
FTC = [sys.executable, "-m", "engine.interfaces.cli"]


def maintainers_texts() -> list[Path]:
    """The maintainers' rulebooks (rules/*.txt) and rulings file (RULINGS.md), which are not part of
    the repository: FTC_RULEBOOKS names their folder, by default a `shared` folder beside the project.
    Empty where there is none (the tests that need them skip)."""
    folder = Path(os.environ.get("FTC_RULEBOOKS") or ROOT.parent / "shared")
    return sorted((folder / "rules").glob("*.txt")) + sorted(folder.glob("RULINGS.md"))


def copied_runs(texts: dict, sources: list[Path], run: int = 7) -> list[tuple]:
    """(label, the words) of every run of ``run`` words that a text of ``texts`` ({label: text})
    shares with a source file: the project writes its own words and cites rules by number."""
    def words(text):
        return re.findall(r"[a-z0-9]+", text.lower())
    seen = set()
    for source in sources:
        w = words(source.read_text(encoding="utf-8", errors="replace"))
        seen.update(tuple(w[i:i + run]) for i in range(len(w) - run + 1))
    return [(label, " ".join(w[i:i + run])) for label, text in texts.items()
            for w in [words(text)] for i in range(len(w) - run + 1) if tuple(w[i:i + run]) in seen]


def child_env() -> dict:
    """The environment of a child process that must import this checkout's engine and tests, from
    any working folder."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def sigint_as_at_a_terminal() -> None:
    """``preexec_fn`` of a child that a test stops with SIGINT, as Ctrl-C at a terminal would: a child
    inherits an ignored SIGINT (pytest-xdist's workers ignore it, as do background jobs of a shell),
    and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def ctrl_c_raises() -> Iterator[None]:
    """Within the block this process raises KeyboardInterrupt on SIGINT, as at a terminal; after it,
    SIGINT is handled as before. A test that sends itself SIGINT needs it: pytest-xdist's workers and
    the background jobs of a shell inherit an ignored SIGINT, and Python then never raises."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def load_tool(name: str) -> ModuleType:
    """The script tools/<name>.py as a module (tools/ is a folder of scripts, not a package),
    registered in sys.modules while it loads (dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(f"tools_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def board_text(units: dict[str, str]) -> str:
    """{"d4": "Q", "h8": "k", ...} -> the board field of a position text (ranks 8..1)."""
    rows = []
    for rank in range(8, 0, -1):
        row, empty = "", 0
        for file in "abcdefgh":
            token = units.get(f"{file}{rank}")
            if token is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += token
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


def norm(order_text: str) -> str:
    """Upper-case the unit token of a deploy (N@e1 / n@e8 -> N@..); everything else unchanged."""
    if "@" in order_text:
        token, square = order_text.split("@")
        return token.upper() + "@" + square
    return order_text
