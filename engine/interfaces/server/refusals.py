"""How the server words a refusal (docs/server.md, "Hostile input is refused, never echoed"): it names
the field and what is allowed there, never the value the client sent.

- ``QuietValues``: ASGI middleware. Every request (HTTP or WebSocket) is served inside
  ``engine.quiet.quiet_values()``, so every game's messages about its input (options, position
  texts, Houses, bots) give a value's kind and size, never its text (engine/quiet.py).
- ``Refusals.answer``: the one place an error answer is made (the app's handlers of HTTPException,
  of invalid bodies and of storage failures; ``Refusals.reason`` for the close reason of a socket).
  Its detail goes through ``scrub``, the last line of defence: any string of the client's (in the
  body, the path, the query, the Authorization header) that could carry markup or is long is taken
  out of the answer, which is then logged (once a route, without the input) and counted
  (``/api/health`` ``echoes_scrubbed``). A message that needed it is a bug to fix where it is
  worded: tests/server/test_no_echo.py sends a marker in every field the server takes and asserts
  that no answer holds it and that ``scrub`` never had to act.
- ``validation_errors``: the body model's refusals (pydantic) as ``[{"loc", "msg"}]``; a field the
  model does not have is named by its place and the fields allowed there, never by its own name.
"""

from __future__ import annotations

import html
import json
import logging
import urllib.parse
from typing import Any, get_args, get_origin

from fastapi.responses import JSONResponse
from pydantic import BaseModel

from engine.interfaces.server.guard import PARSED
from engine.quiet import quiet_values

__all__ = ["QuietValues", "Refusals", "validation_errors", "body_model", "fields_at", "client_strings", "risky",
           "scrub", "PLACEHOLDER"]

log = logging.getLogger("ftc.server")

#: What stands in an answer where the client's input was taken out.
PLACEHOLDER = "(the value given)"
#: A client string of at most this many characters, of letters, digits, space and ``_-.:+`` only, is
#: left in an answer: it cannot carry markup, and the server's own words are such names ("crown",
#: "human", "point-buy"). Every other string of ``MIN_CHARS`` or more is taken out.
PLAIN_CHARS = 32
MIN_CHARS = 4
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:+")
#: A string cut short in a message is found by its first characters.
_PREFIX = 16
#: The most client strings one answer is checked against (a body holds at most 64 KiB of them).
_MAX_STRINGS = 2000


class QuietValues:
    """ASGI middleware: the app serves every request inside ``quiet_values()`` (module docstring)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        with quiet_values():
            return await self.app(scope, receive, send)


def risky(text: str) -> bool:
    """Whether a client's string must not appear in an answer (module docstring: long, or holding a
    character that is not plain)."""
    return len(text) >= MIN_CHARS and (len(text) > PLAIN_CHARS or not _PLAIN.issuperset(text))


def client_strings(scope) -> list[str]:
    """The risky strings the client chose in a request: the body's strings and keys (as the
    RequestGuard parsed it), the path's segments and parameters, the query's names and values, the
    Authorization header's token."""
    found: list[str] = []

    def add(text) -> None:
        if isinstance(text, str) and risky(text) and len(found) < _MAX_STRINGS:
            found.append(text)

    def walk(value, depth: int = 0) -> None:
        if depth > 40 or len(found) >= _MAX_STRINGS:
            return
        if isinstance(value, str):
            add(value)
        elif isinstance(value, list):
            for item in value:
                walk(item, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                add(key)
                walk(item, depth + 1)

    walk(scope.get(PARSED))
    for segment in scope.get("path", "").split("/"):
        add(segment)
    for value in (scope.get("path_params") or {}).values():
        add(value)
    query = scope.get("query_string", b"").decode("latin-1")
    for name, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        add(name)
        add(value)
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            add(value.decode("latin-1").partition(" ")[2].strip())
    return found


def _forms(text: str) -> list[str]:
    """The ways a message may have quoted ``text``: as it is, by repr or ascii, JSON, HTML-escaped."""
    forms = {text, repr(text)[1:-1], ascii(text)[1:-1], json.dumps(text)[1:-1],
             json.dumps(text, ensure_ascii=False)[1:-1], html.escape(text)}
    return sorted(forms, key=len, reverse=True)


def _cut(message: str, forms: list[str]) -> str:
    """``message`` without any of ``forms`` (one string's quotations) and without any start of one of
    ``_PREFIX`` characters or more (a message may cut a long value short): the longest match goes."""
    for form in forms:
        message = message.replace(form, PLACEHOLDER)
    heads = {form[:_PREFIX] for form in forms if len(form) > _PREFIX}
    at = 0
    while heads and at < len(message):
        found = [(i, head) for head in heads for i in [message.find(head, at)] if i >= 0]
        if not found:
            break
        at = min(i for i, _ in found)
        length = max(_common(message, at, form) for form in forms)
        message = message[:at] + PLACEHOLDER + message[at + length:]
        at += len(PLACEHOLDER)
    return message


def _common(message: str, at: int, form: str) -> int:
    """How many characters of ``message`` from ``at`` on are the start of ``form``."""
    length = 0
    while at + length < len(message) and length < len(form) and message[at + length] == form[length]:
        length += 1
    return length


def scrub(detail: Any, strings: list[str]) -> Any:
    """``detail`` (a string, or lists and objects of them) without any of ``strings``."""
    if isinstance(detail, str):
        for text in strings:
            detail = _cut(detail, _forms(text))
        return detail
    if isinstance(detail, list):
        return [scrub(item, strings) for item in detail]
    if isinstance(detail, dict):
        return {key: scrub(value, strings) for key, value in detail.items()}
    return detail


class Refusals:
    """The server's error answers (module docstring); ``scrubbed`` counts those that held the
    client's input (each a message to fix)."""

    def __init__(self):
        self.scrubbed = 0
        self._logged: set[str] = set()

    def clean(self, scope, detail: Any) -> Any:
        """``detail`` without the client's risky strings; a change is counted and logged."""
        strings = client_strings(scope)
        if not strings:
            return detail
        cleaned = scrub(detail, strings)
        if cleaned != detail:
            self.scrubbed += 1
            route = getattr(scope.get("route"), "path", None) or "(no route)"
            where = f"{scope.get('method', 'WEBSOCKET')} {route}"
            if where not in self._logged:
                self._logged.add(where)
                log.warning("an answer of %s held the client's input; it was taken out (word the message "
                            "without the value)", where)
        return cleaned

    def answer(self, scope, status: int, detail: Any, headers: dict | None = None) -> JSONResponse:
        """The error answer ``{"detail": ...}`` of a refused request."""
        return JSONResponse({"detail": self.clean(scope, detail)}, status, headers=headers)

    def reason(self, scope, text: str) -> str:
        """A socket's close reason (at most 123 bytes, the protocol's limit), cleaned as an answer."""
        cleaned = self.clean(scope, text)
        while len(cleaned.encode("utf-8")) > 123:
            cleaned = cleaned[:-1]
        return cleaned


# -- a body model's refusals ---------------------------------------------------------------------------
def body_model(route) -> type[BaseModel] | None:
    """The model of ``route``'s JSON body (FastAPI's ``body_field``), or None."""
    body = getattr(route, "body_field", None)
    kind = None if body is None else body.field_info.annotation
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def validation_errors(errors: list[dict], model: type[BaseModel] | None = None, root: tuple = ("body",),
                      limit: int = 20) -> list[dict]:
    """pydantic's ``errors`` as ``[{"loc": [...], "msg": ...}]``, never the input: a field ``model``
    has not (``extra_forbidden``) is named by the place it was found and the fields allowed there
    (``root``: where ``model`` begins in a ``loc``, ("body",) for a request's body)."""
    out = []
    for error in errors[:limit]:
        where = tuple(error.get("loc", ()))
        loc = [str(part) for part in where]
        msg = str(error.get("msg", "invalid"))[:200]
        if error.get("type") == "extra_forbidden" and loc:
            parent = where[:-1]
            allowed = fields_at(model, parent[len(root):]) if parent[:len(root)] == root else []
            loc = loc[:-1]
            msg = "an unknown field" + (f" (the fields here: {', '.join(allowed)})" if allowed else "")
        out.append({"loc": loc, "msg": msg})
    return out


def fields_at(model: type[BaseModel] | None, path: tuple) -> list[str]:
    """The field names (aliases) of the model at ``path`` inside ``model`` (("ai",) of NewGame:
    AISettings's); [] when there is no model there."""
    kind = model
    for part in path:
        kind = _model_of(kind)
        if isinstance(part, int):
            args = [a for a in get_args(kind) if a is not type(None)]
            kind = args[0] if get_origin(kind) in (list, tuple) and args else None
            continue
        if not (isinstance(kind, type) and issubclass(kind, BaseModel)):
            return []
        field = next((f for name, f in kind.model_fields.items() if (f.alias or name) == part), None)
        if field is None:
            return []
        kind = field.annotation
    kind = _model_of(kind)
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return [f.alias or name for name, f in kind.model_fields.items()]
    return []


def _model_of(kind):
    """``kind`` without an Optional around it (X | None -> X)."""
    args = [a for a in get_args(kind) if a is not type(None)]
    if get_origin(kind) not in (list, tuple, dict) and len(args) == 1:
        return args[0]
    return kind
