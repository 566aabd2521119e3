"""Checking a JSON document against a declarative schema before any of it is used.

A file from outside (a position view, engine/crown/knowledge.py) is read only after every field has
the type, the range and the shape its format says: the loader never meets a value it did not
expect, so a forged file is refused with the JSON path of the first field that is wrong
(``$.state.decision.labels[0][0]: expected an integer``), never with a traceback. Messages name the
field and the problem; they never repeat the value (it is the sender's).

A schema is built from these nodes: ``Int(lo, hi)``, ``Num()`` (finite), ``Choice(*names)``, ``Bool()``, ``Str(max_len)``, ``Null()``,
``Maybe(node)`` (null or node), ``ListOf(node, length | min_len, max_len)``, ``Items(*nodes)`` (a
list of exactly these), ``Obj(required, optional, extra)`` (an object with these keys; others are
refused unless ``extra``), ``OneOf(*nodes)``, ``Any()`` and ``Tagged(depth)`` (the tagged values of
knowledge.py: JSON scalars, ``{"tuple"|"list"|"frozenset": [...]}``, ``{"dict": [[key, value], ...]}``,
``{"float": "text"}``, with set members and dict keys that are hashable once read: scalars and
tuples of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any as AnyType

__all__ = ["SchemaError", "check", "Int", "Num", "Choice", "Bool", "Str", "Null", "Maybe", "ListOf", "Items", "Obj", "OneOf",
           "Any", "Tagged"]


class SchemaError(ValueError):
    """A document that does not fit its schema: ``path`` (JSON path) and ``problem``."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


def kind(value) -> str:
    """What a JSON value is, in words (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class Node:
    def check(self, value, path: str) -> None:
        raise NotImplementedError

    def fail(self, path: str, problem: str):
        raise SchemaError(path, problem)


@dataclass
class Int(Node):
    lo: int | None = None
    hi: int | None = None

    def check(self, value, path):
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(path, f"expected an integer, got {kind(value)}")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            self.fail(path, f"out of range {'' if self.lo is None else self.lo}..{'' if self.hi is None else self.hi}")


class Bool(Node):
    def check(self, value, path):
        if not isinstance(value, bool):
            self.fail(path, f"expected true or false, got {kind(value)}")


@dataclass
class Str(Node):
    max_len: int | None = 10_000

    def check(self, value, path):
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {kind(value)}")
        if self.max_len is not None and len(value) > self.max_len:
            self.fail(path, f"a string of more than {self.max_len} characters")


class Num(Node):
    """A finite number (an integer or a float)."""

    def check(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or \
                value in (float("inf"), float("-inf")):
            self.fail(path, f"expected a finite number, got {kind(value)}")


class Choice(Node):
    """One of a few strings (a format's names)."""

    def __init__(self, *names: str):
        self.names = names

    def check(self, value, path):
        if value not in self.names or not isinstance(value, str):
            self.fail(path, f"expected one of {', '.join(self.names)}")


class Null(Node):
    def check(self, value, path):
        if value is not None:
            self.fail(path, f"expected null, got {kind(value)}")


class Any(Node):
    def check(self, value, path):
        pass


@dataclass
class Maybe(Node):
    node: Node

    def check(self, value, path):
        if value is not None:
            self.node.check(value, path)


@dataclass
class ListOf(Node):
    node: Node
    length: int | None = None
    min_len: int = 0
    max_len: int | None = 100_000

    def check(self, value, path):
        if not isinstance(value, list):
            self.fail(path, f"expected a list, got {kind(value)}")
        if self.length is not None and len(value) != self.length:
            self.fail(path, f"expected {self.length} entries, got {len(value)}")
        if len(value) < self.min_len:
            self.fail(path, f"expected at least {self.min_len} entries, got {len(value)}")
        if self.max_len is not None and len(value) > self.max_len:
            self.fail(path, f"more than {self.max_len} entries")
        for i, item in enumerate(value):
            self.node.check(item, f"{path}[{i}]")


class Items(Node):
    def __init__(self, *nodes: Node):
        self.nodes = nodes

    def check(self, value, path):
        if not isinstance(value, list) or len(value) != len(self.nodes):
            self.fail(path, f"expected a list of {len(self.nodes)} entries, got {kind(value)}"
                      + (f" of {len(value)}" if isinstance(value, list) else ""))
        for i, (item, node) in enumerate(zip(value, self.nodes)):
            node.check(item, f"{path}[{i}]")


@dataclass
class Obj(Node):
    required: dict = field(default_factory=dict)
    optional: dict = field(default_factory=dict)
    extra: bool = False

    def check(self, value, path):
        if not isinstance(value, dict):
            self.fail(path, f"expected an object, got {kind(value)}")
        for key, node in self.required.items():
            if key not in value:
                self.fail(f"{path}.{key}", "missing")
            node.check(value[key], f"{path}.{key}")
        for key, node in self.optional.items():
            if key in value:
                node.check(value[key], f"{path}.{key}")
        if not self.extra:
            unknown = [k for k in value if k not in self.required and k not in self.optional]
            if unknown:
                self.fail(path, f"{len(unknown)} unknown field(s) (known: {', '.join(sorted(self.required) + sorted(self.optional))})")


class OneOf(Node):
    def __init__(self, *nodes: Node, what: str):
        self.nodes, self.what = nodes, what

    def check(self, value, path):
        for node in self.nodes:
            try:
                node.check(value, path)
                return
            except SchemaError:
                continue
        self.fail(path, f"expected {self.what}, got {kind(value)}")


@dataclass
class Tagged(Node):
    """A tagged value (module docstring), nested at most ``depth`` deep."""

    depth: int = 16

    def check(self, value, path, level: int = 0, hashable: bool = False):
        if level > self.depth:
            self.fail(path, f"tagged values nest deeper than {self.depth}")
        if value is None or isinstance(value, (bool, int, str)):
            return
        if not isinstance(value, dict) or len(value) != 1:
            self.fail(path, "expected a JSON scalar or one of {tuple|list|frozenset|dict|float: ...}, got "
                      f"{kind(value)}")
        (tag, inner), = value.items()
        where = f"{path}.{tag}" if tag in ("tuple", "list", "frozenset", "dict", "float") else path
        if tag == "float":
            if not isinstance(inner, str) or len(inner) > 40:
                self.fail(where, "expected the text of a number")
            try:
                float(inner)
            except ValueError:
                self.fail(where, "not the text of a number")
            return
        if tag not in ("tuple", "list", "frozenset", "dict") or not isinstance(inner, list):
            self.fail(path, "expected one of {tuple|list|frozenset|dict|float: ...} holding a list")
        if hashable and tag != "tuple":
            self.fail(path, f"a {tag} cannot be a set member or a dict key (it is not hashable); only scalars "
                            "and tuples can")
        for i, item in enumerate(inner):
            here = f"{where}[{i}]"
            if tag == "dict":
                if not isinstance(item, list) or len(item) != 2:
                    self.fail(here, "expected a [key, value] pair")
                self.check(item[0], f"{here}[0]", level + 1, hashable=True)
                self.check(item[1], f"{here}[1]", level + 1)
            else:
                self.check(item, here, level + 1, hashable=hashable or tag == "frozenset")


def check(value: AnyType, schema: Node, path: str = "$") -> None:
    """Check ``value`` against ``schema``; SchemaError names the first field that does not fit."""
    schema.check(value, path)
