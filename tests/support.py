"""Plain helpers shared across the test folders (`from tests.support import ...`)."""

import importlib.util
import os
import signal
import sys
from pathlib import Path
from types import ModuleType

#: The repository's root (the folder holding engine/ and tests/).
ROOT = Path(__file__).resolve().parents[1]

#: The catalog's unit tokens, in catalog order: the base game's, then The World is Round's.
BASE_TOKENS = "K Q R B N P A U E C L D G H I M Z O F S X Y T W".split()
EXPANSION_TOKENS = "~B ~P ~N ~K ~Z ~R ~M ~G ~H ~L".split()

#: The `ftc` command as a child process runs it (with `child_env()` and `cwd=ROOT`).
FTC = [sys.executable, "-m", "engine.interfaces.cli"]


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
