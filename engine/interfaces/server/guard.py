"""What stands between the network and the game server: body size, strict JSON, rate limits.

``RequestGuard`` is ASGI middleware that every HTTP request passes before any endpoint sees it:

- a body over ``max_body`` bytes (or the larger limit of its path, ``larger``: game records): 413,
  before it is read whole;
- a JSON body that is not strict JSON: 422 naming the problem and its place, never echoing the
  input. Refused: invalid UTF-8, ``NaN``/``Infinity`` (not JSON, though Python's parser takes them),
  strings holding lone surrogates (``"\\ud800"``), nesting deeper than 32;
- too many requests from one client: 429 with ``Retry-After`` (a token bucket per client address,
  for all API requests, and a stricter one for creating games).

Endpoints then parse the same bytes again with FastAPI: a few microseconds for a 64 KiB body.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass

from fastapi.responses import JSONResponse

__all__ = ["RequestGuard", "RateLimiter", "strict_json", "JSONBodyError", "client_key"]

MAX_DEPTH = 32


class JSONBodyError(ValueError):
    """A request body that is not strict JSON; the message says what and where."""


def _reject_constant(name: str):
    raise JSONBodyError(f"{name} is not a JSON number (only finite numbers are accepted)")


def strict_json(raw: bytes):
    """Parse ``raw`` as strict JSON (RFC 8259): finite numbers, valid UTF-8 without lone
    surrogates, bounded nesting. JSONBodyError says what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONBodyError(f"the body is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except JSONBodyError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONBodyError(f"the body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError:                           # an integer of more digits than Python converts
        raise JSONBodyError("the body holds a number too long to read") from None
    except RecursionError:
        raise JSONBodyError(f"the body nests deeper than {MAX_DEPTH} levels") from None
    _check(value, "$", 0)
    return value


def _check(value, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise JSONBodyError(f"the body nests deeper than {MAX_DEPTH} levels (at {where})")
    if isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, float):
        if not math.isfinite(value):            # 1e999 parses to inf
            raise JSONBodyError(f"{where}: a number too large for a float")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, f"{where} (a key)")
            _check(item, f"{where}.{key if key.isidentifier() else '?'}", depth + 1)


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JSONBodyError(f"{where}: a string holds a lone surrogate (\\u{ord(text[exc.start]):04x}), "
                            "which is not Unicode text") from None


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """A token bucket per key: ``burst`` requests at once, refilled at ``rate`` per second.
    ``take(key)`` returns 0 when the request may go, else the seconds until it could."""

    def __init__(self, rate: float, burst: int, max_keys: int = 100_000):
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:       # bounded memory: forget full buckets first
                self._buckets = {k: b for k, b in self._buckets.items()
                                 if b.tokens + (now - b.stamp) * self.rate < self.burst}
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate


def client_key(scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


class RequestGuard:
    """ASGI middleware: body limit, strict JSON and the per-client request rate (module docstring).
    ``larger``: {path: byte limit} for the paths whose bodies may be larger than ``max_body``."""

    def __init__(self, app, max_body: int, limiter: RateLimiter | None = None, larger: dict[str, int] | None = None):
        self.app, self.max_body, self.limiter = app, max_body, limiter
        self.larger = dict(larger or {})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.limiter is not None and scope["path"].startswith("/api/"):
            wait = self.limiter.take(client_key(scope))
            if wait > 0:
                return await _refuse(scope, receive, send, 429, "too many requests from this client; slow down",
                                     {"retry-after": str(max(1, math.ceil(wait)))})
        max_body = self.larger.get(scope["path"], self.max_body)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > max_body:
                return await _refuse(scope, receive, send, 413,
                                     f"request body of {int(value)} bytes is over the {max_body} byte limit")
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            return await self.app(scope, receive, send)
        # Read the whole body (bounded), check it, then hand the same bytes on.
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > max_body:
                return await _refuse(scope, receive, send, 413, f"request body is over the {max_body} byte limit")
            chunks.append(body)
            if not message.get("more_body", False):
                break
        raw = b"".join(chunks)
        if raw.strip():
            try:
                strict_json(raw)
            except JSONBodyError as exc:
                return await _refuse(scope, receive, send, 422, f"request body: {exc}")
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


async def _refuse(scope, receive, send, status: int, detail: str, headers: dict | None = None):
    response = JSONResponse({"detail": detail}, status, headers=headers)
    await response(scope, receive, send)
