"""The .pyi stubs of the compiled modules list every public name, class member and parameter, each
with a docstring or a plain ``...`` body for constructors."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"
MODULES = ["_perft", "_position", "_ransom", "_search", "_tables"]


def _stub(name: str) -> ast.Module:
    return ast.parse((ENGINE / f"{name}.pyi").read_text())


def _declared(body) -> dict[str, ast.AST]:
    names = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def _public(obj) -> set[str]:
    """Public names of a module or class; an exception's members inherited from BaseException
    (args, with_traceback, ...) are not repeated in the stubs."""
    inherited = set(dir(BaseException)) if isinstance(obj, type) and issubclass(obj, BaseException) else set()
    return {n for n in dir(obj) if not n.startswith("_") and n not in inherited}


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_and_member_is_in_the_stub(name):
    module = importlib.import_module(f"engine.{name}")
    stub = _declared(_stub(name).body)
    assert _public(module) == set(stub), name
    for attr, node in stub.items():
        if isinstance(node, ast.ClassDef):
            members = _declared(node.body)
            assert _public(getattr(module, attr)) == set(members) - {"__init__"}, f"{name}.{attr}"


@pytest.mark.parametrize("name", MODULES)
def test_stub_signatures_match_the_compiled_ones(name):
    module = importlib.import_module(f"engine.{name}")
    stub = _declared(_stub(name).body)

    def check(function, node, where):
        if isinstance(node, ast.FunctionDef) and not any(
                isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            stubbed = [a.arg for a in node.args.args]
            if node.name != "__init__":
                assert list(inspect.signature(function).parameters) == stubbed, where
            assert ast.get_docstring(node) or node.name == "__init__", f"{where}: no docstring"

    for attr, node in stub.items():
        if isinstance(node, ast.ClassDef):
            cls = getattr(module, attr)
            for member, member_node in _declared(node.body).items():
                check(getattr(cls, member), member_node, f"{name}.{attr}.{member}")
        else:
            check(getattr(module, attr), node, f"{name}.{attr}")
