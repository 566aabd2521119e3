"""The examples in the engine's docstrings run as tests (python-chess style: documented API, checked)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for path in (ROOT / "engine").rglob("*.py")
    if ">>>" in path.read_text(encoding="utf-8")
)


def test_modules_with_examples_are_found():
    assert "engine.codes" in MODULES and "engine.crown.planner" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"
