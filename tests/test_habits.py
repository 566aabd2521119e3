"""The project's habits (docs/architecture.md, "Habits"), checked from pyproject.toml and the source:

- ruff runs at least its default rules (E4, E7, E9, F), and every per-file exception says why;
- mypy checks the packages below the interfaces (the kernel wrappers and stubs, engine/games,
  engine/search), and its list of exceptions (modules not yet clean, ``ignore_errors``) only
  shrinks: it is the list recorded here, no module more; a module made clean leaves both lists;
- no other mypy override silences errors;
- every ``# type: ignore`` names its error code and says why, and every ``# noqa`` names its rules.

`ruff check .` and `mypy` themselves run in .ci/run.
"""

from __future__ import annotations

import re
import tokenize
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"

#: The modules mypy does not yet pass (pyproject.toml's exceptions). This list may only shrink: take
#: a module out when its errors are fixed (here and in pyproject.toml), never add one.
MYPY_EXCEPTIONS: set[str] = set()
#: What mypy checks: the kernel wrappers and the kernels' stubs, the registry, the generic search and
#: the board search.
MYPY_FILES = {"engine/*.py", "engine/*.pyi", "engine/games", "engine/search", "engine/board"}
DEFAULT_RULES = {"E4", "E7", "E9", "F"}


def config() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def exceptions(mypy: dict) -> set[str]:
    """The modules of the overrides that set ``ignore_errors``."""
    found: set[str] = set()
    for override in mypy.get("overrides", []):
        if override.get("ignore_errors"):
            modules = override["module"]
            found |= {modules} if isinstance(modules, str) else set(modules)
    return found


def test_mypy_exceptions_only_shrink():
    listed = exceptions(config()["tool"]["mypy"])
    added = sorted(listed - MYPY_EXCEPTIONS)
    assert not added, (f"pyproject.toml: {', '.join(added)} added to mypy's exceptions; the list only shrinks: "
                       "fix the module's type errors instead")
    fixed = sorted(MYPY_EXCEPTIONS - listed)
    assert not fixed, (f"{', '.join(fixed)} left mypy's exceptions in pyproject.toml: take them out of "
                       "MYPY_EXCEPTIONS in tests/test_habits.py too, so that they stay out")


def test_mypy_exceptions_name_checked_modules():
    """An exception names a module mypy checks (a stale name would hide a new module of that name)."""
    for module in sorted(MYPY_EXCEPTIONS):
        path = ROOT / Path(*module.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), \
            f"mypy exception {module}: no such module"
        assert module.startswith(("engine.games.", "engine.search.", "engine.board.")) or module.count(".") == 1, \
            f"mypy exception {module}: not among the modules mypy checks"


def test_mypy_checks_the_packages_below_the_interfaces():
    mypy = config()["tool"]["mypy"]
    assert MYPY_FILES <= set(mypy["files"]), f"mypy's files must include {sorted(MYPY_FILES)}"
    for override in mypy.get("overrides", []):
        silencing = {key for key in ("disable_error_code", "ignore_errors") if override.get(key)}
        if override.get("ignore_errors"):
            silencing.discard("ignore_errors")       # the exceptions, checked above
        assert not silencing, f"pyproject.toml: a mypy override for {override['module']} sets {sorted(silencing)}"


def test_ruff_runs_the_default_rules_and_says_why_it_makes_exceptions():
    ruff = config()["tool"]["ruff"]
    missing = DEFAULT_RULES - set(ruff["lint"]["select"])
    assert not missing, f"ruff's select leaves out its default rules {sorted(missing)}"
    assert not ruff["lint"].get("ignore"), "ruff ignores rules everywhere: select fewer instead, or fix them"
    lines = PYPROJECT.read_text(encoding="utf-8").splitlines()
    start = lines.index("[tool.ruff.lint.per-file-ignores]")
    for pattern in ruff["lint"].get("per-file-ignores", {}):
        at = next(i for i in range(start, len(lines)) if lines[i].startswith(f'"{pattern}"'))
        # The reason: a comment on the entry's line or on the lines just above it (a group of entries
        # shares the comment above it).
        block = [lines[at]]
        i = at - 1
        while i > start and lines[i].strip():
            block.append(lines[i])
            i -= 1
        assert any("#" in line for line in block), f"pyproject.toml: ruff's exception for {pattern} says no reason"


def python_files():
    for folder in ("engine", "tests", "tools", "bench", "examples"):
        yield from sorted((ROOT / folder).rglob("*.py"))
        yield from sorted((ROOT / folder).rglob("*.pyi"))
    yield ROOT / "setup.py"


def comments(path: Path):
    """(line number, text) of each comment of a Python file (its tokens: never a string's text)."""
    with path.open("rb") as source:
        for token in tokenize.tokenize(source.readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.string


def test_suppressions_name_the_rule_and_the_reason():
    type_ignore = re.compile(r"#\s*type:\s*ignore(?P<rest>.*)")
    noqa = re.compile(r"#\s*noqa(?P<rest>.*)", re.IGNORECASE)
    bad = []
    for path in python_files():
        for number, line in comments(path):
            where = f"{path.relative_to(ROOT)}:{number}"
            found = type_ignore.search(line)
            if found and not re.match(r"\[[a-z-]+(, *[a-z-]+)*\]\s*\S", found["rest"]):
                bad.append(f"{where}: a type: ignore names its error code and says why ([code] reason)")
            found = noqa.search(line)
            if found and not re.match(r":\s*[A-Z]+[0-9]+", found["rest"]):
                bad.append(f"{where}: a noqa names its rules (# noqa: CODE)")
    assert not bad, "\n".join(bad)
