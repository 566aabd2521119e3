"""How a game's messages show the values they refuse: as a short preview for a person at the command
line, never at all for a server answering another party (docs/server.md, "Hostile input is refused,
never echoed").

Every game package words a refusal of its input (an option, a position text, a House, a bot) with
``shown(value)`` rather than the value itself. Inside ``quiet_values()`` (the server holds it for
every request it serves) ``shown`` gives the value's kind and size only ("(a string of 5000
characters)"); outside, the value's ``repr``, cut to ``PREVIEW`` characters. One context for every
game: For the Crown's configuration (engine/crown/config.py) reads the same switch. A leaf module
(it imports nothing of the engine): position texts, configurations and bots of every layer use it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Sized
from typing import Any

__all__ = ["quiet_values", "is_quiet", "shown", "at", "PREVIEW"]

#: Characters of a value a message shows outside ``quiet_values()``.
PREVIEW = 40

_QUIET = contextvars.ContextVar("ftc_quiet_values", default=False)


@contextlib.contextmanager
def quiet_values():
    """Within it (and in the tasks and threads it starts), ``shown`` names a value's kind and size,
    never its text."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def is_quiet() -> bool:
    """Whether messages may show no value now (inside ``quiet_values()``)."""
    return _QUIET.get()


def shown(value: Any) -> str:
    """``value`` as a message may show it: inside ``quiet_values()`` its kind and size in brackets
    ("(a string of 12 characters)", "(an array of 2 items)", "(an integer)"), else its ``repr`` cut
    to ``PREVIEW`` characters."""
    if not _QUIET.get():
        text = repr(value)
        return text if len(text) <= PREVIEW else text[:PREVIEW - 3] + "..."
    return f"({_kind(value)})"


def at(where: str, key: Any) -> str:
    """The place of a message about the member ``key`` of ``where`` ("config.colour"); inside
    ``quiet_values()`` ``where`` alone (the key is the client's own text)."""
    return where if _QUIET.get() else f"{where}.{key}"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    for kind, name in ((bool, "a boolean"), (int, "an integer"), (float, "a number")):
        if isinstance(value, kind):
            return name
    sized: tuple[tuple[type[Sized] | tuple[type[Sized], ...], str, str], ...] = (
        (str, "a string", "character"), ((list, tuple), "an array", "item"), (dict, "an object", "member"))
    for container, name, unit in sized:
        if isinstance(value, container):
            return f"{name} of {len(value)} {unit}{'s' if len(value) != 1 else ''}"
    return f"a {type(value).__name__}"
