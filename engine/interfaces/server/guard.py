"""What stands between the network and the game server: rate limits, a game's token, body size,
strict JSON, and the security headers of every answer.

``RequestGuard`` is ASGI middleware that every HTTP request passes before any endpoint sees it
(its docstring gives the order; each check comes before the work of the next):

- too many requests from one client: 429 with ``Retry-After`` (a token bucket per client address,
  for all API requests, and a stricter one for creating games);
- a request for a game without that game's token: 401 or 404 before its body is read;
- a body over ``max_body`` bytes (or the larger limit of its path, ``larger``: game records): 413,
  before it is read whole; one that does not arrive in time: 408; one holding more JSON values than
  its path allows: 413, before it is parsed;
- a JSON body that is not strict JSON: 422 naming the problem and its place, never echoing the
  input. Refused: invalid UTF-8, ``NaN``/``Infinity`` (not JSON, though Python's parser takes them),
  strings holding lone surrogates (``"\\ud800"``), nesting deeper than 32. Large bodies are parsed
  in a worker thread, never on the event loop.

``SecurityHeaders`` adds a Content-Security-Policy (no framing, nothing inline, nothing from another
host) and the nosniff, no-referrer and X-Frame-Options headers to every answer.

``SameOrigin`` refuses what a page of another site could make a visitor's browser send: every
WebSocket and every request but GET, HEAD and OPTIONS whose ``Origin`` is another site's (or that
says ``Sec-Fetch-Site: cross-site``) is refused before anything runs (403; a socket is closed with
4403), and a body must be declared JSON (415 otherwise), so a form or a ``text/plain`` request never
reaches an endpoint. Same origin: the scheme and host of the Host the request came to (https is
taken for http: a TLS-terminating proxy), or one of the origins the deployment allows
(``ftc serve --allow-origin``). A request without Origin (a bot, curl) is served.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import math
import time
import urllib.parse
from dataclasses import dataclass

from fastapi import HTTPException
from fastapi.responses import JSONResponse

__all__ = ["RequestGuard", "RateLimiter", "SecurityHeaders", "SameOrigin", "origin_of", "strict_json", "JSONBodyError",
           "client_key", "value_bound", "docs_policy", "PARSED", "CONTENT_SECURITY_POLICY"]

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
            # A key is named when it reads as a field's name (an identifier of at most 32 characters).
            _check(item, f"{where}.{key if key.isidentifier() and len(key) <= 32 else '?'}", depth + 1)


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


#: Where the guard leaves a body it has parsed (``scope[PARSED]``), so an endpoint need not parse it again.
PARSED = "ftc.json"


async def parsed_body(request):
    """A request's JSON body: the one the guard parsed (``scope[PARSED]``), else parsed here, strictly
    and off the event loop; a body that is not strict JSON is a 422 naming what is wrong."""
    if PARSED in request.scope:
        return request.scope[PARSED]
    try:
        return await asyncio.to_thread(strict_json, await request.body())
    except JSONBodyError as exc:
        raise HTTPException(422, f"request body: {exc}") from None
#: Bodies up to this size are checked on the event loop (well under a millisecond); larger ones in a
#: worker thread, at most ``LARGE_PARSES`` at a time.
INLINE_BYTES = 4096
LARGE_PARSES = 2


def value_bound(raw: bytes) -> int:
    """An upper bound of the JSON values in ``raw``, counted without parsing (microseconds a megabyte):
    every value but the first of a container follows a comma, and every container opens with a
    bracket. A parser's work grows with the values, not the bytes (a megabyte of ``0,`` is half a
    million of them), so this bounds the work before any is done."""
    return raw.count(b",") + raw.count(b"[") + raw.count(b"{") + 1


class RequestGuard:
    """ASGI middleware: the per-client request rate, a game's token, body limits, strict JSON (module
    docstring). In this order, each before any later work:

    1. the request rate of the client (429);
    2. ``authorize(scope)``, an async callable: a request for something the client has no right to
       raises HTTPException (401, 404) before its body is read;
    3. the body's size from Content-Length (413): ``max_body``, or ``larger`` {path: byte limit};
    4. ``before_body``: {path: RateLimiter}, a further rate per client for the paths whose bodies are
       costly (429, the body unread); then the body's size counted as it streams in (413) and its
       time (``body_seconds``: 408);
    5. ``values`` {path: count}: the most JSON values a body of that path may hold, counted before it
       is parsed (413); other bodies are bounded by their bytes;
    6. strict JSON (422): small bodies on the event loop, larger ones in a thread. The parsed value is
       left in ``scope[PARSED]``."""

    def __init__(self, app, max_body: int, limiter: RateLimiter | None = None, larger: dict[str, int] | None = None,
                 values: dict[str, int] | None = None, before_body: dict[str, RateLimiter] | None = None,
                 authorize=None, body_seconds: float = 30.0):
        self.app, self.max_body, self.limiter = app, max_body, limiter
        self.larger = dict(larger or {})
        self.values = dict(values or {})
        self.before_body = dict(before_body or {})
        self.authorize, self.body_seconds = authorize, body_seconds
        self._parses: asyncio.Semaphore | None = None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        if self.limiter is not None and path.startswith("/api/"):
            wait = self.limiter.take(client_key(scope))
            if wait > 0:
                return await _refuse(scope, receive, send, 429, "too many requests from this client; slow down",
                                     {"retry-after": str(max(1, math.ceil(wait)))})
        if self.authorize is not None:
            try:
                await self.authorize(scope)
            except HTTPException as exc:
                return await _refuse(scope, receive, send, exc.status_code, str(exc.detail), exc.headers)
        max_body = self.larger.get(path, self.max_body)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > max_body:
                return await _refuse(scope, receive, send, 413,
                                     f"request body of {int(value)} bytes is over the {max_body} byte limit")
        if path in self.before_body and scope["method"] in ("POST", "PUT", "PATCH"):
            wait = self.before_body[path].take(client_key(scope))
            if wait > 0:
                return await _refuse(scope, receive, send, 429, "too many of these requests from this client; "
                                     "slow down", {"retry-after": str(max(1, math.ceil(wait)))})
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            return await self.app(scope, receive, send)
        # Read the whole body (bounded in size and time), check it, then hand the same bytes on.
        chunks, size = [], 0
        try:
            async with asyncio.timeout(self.body_seconds):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    body = message.get("body", b"")
                    size += len(body)
                    if size > max_body:
                        return await _refuse(scope, receive, send, 413,
                                             f"request body is over the {max_body} byte limit")
                    chunks.append(body)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            return await _refuse(scope, receive, send, 408, f"the request body did not arrive within "
                                 f"{self.body_seconds:g} s", {"connection": "close"})
        raw = b"".join(chunks)
        if raw.strip():
            limit = self.values.get(path)
            if limit is not None and value_bound(raw) > limit:
                return await _refuse(scope, receive, send, 413, f"request body holds more than {limit} JSON values")
            try:
                scope[PARSED] = await self._parse(raw)
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

    async def _parse(self, raw: bytes):
        if len(raw) <= INLINE_BYTES:
            return strict_json(raw)
        if self._parses is None:
            self._parses = asyncio.Semaphore(LARGE_PARSES)
        async with self._parses:
            return await asyncio.to_thread(strict_json, raw)


#: Sent with every answer (SecurityHeaders). The pages load scripts, styles and images from this
#: server only and use no inline script or style (the API page's one inline script is allowed by its
#: hash, ``docs_policy``); no page may be framed (clickjacking), no type sniffed, no referrer sent.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def docs_policy(inline_script: str) -> str:
    """The policy of a page whose one inline script is ``inline_script`` (the API page's set-up of
    Swagger UI): that script is allowed by its SHA-256, nothing else inline."""
    digest = base64.b64encode(hashlib.sha256(inline_script.encode("utf-8")).digest()).decode("ascii")
    return CONTENT_SECURITY_POLICY.replace("script-src 'self'", f"script-src 'self' 'sha256-{digest}'")


class SecurityHeaders:
    """ASGI middleware: CONTENT_SECURITY_POLICY and SECURITY_HEADERS on every HTTP answer (an answer
    that sets its own policy, the API page, keeps it)."""

    def __init__(self, app):
        self.app = app
        self.extra = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.extra if k not in names]
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        return await self.app(scope, receive, with_headers)


# -- cross-site requests ---------------------------------------------------------------------------------
#: Methods a page of any site may have a browser send (links, images): they change nothing here.
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: What a refused cross-site request is told (never the origin it came from: that is its input).
CROSS_SITE = ("a request from a page of another site is refused: this server takes requests that change or "
              "compute something from its own pages only (a reverse proxy's origin is allowed with "
              "ftc serve --allow-origin)")
CROSS_SITE_SOCKET = "a WebSocket from a page of another site is refused"
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def origin_of(text: str) -> str:
    """The origin ``scheme://host[:port]`` of ``text`` (http or https; a default port left out; lower
    case), as browsers send it in ``Origin``. ValueError when ``text`` is not an origin (a path, a
    query, a user, another scheme)."""
    try:
        parts = urllib.parse.urlsplit(text.strip())
        port = parts.port
    except ValueError:
        raise ValueError("not an origin: expected scheme://host[:port], e.g. https://games.example.org") from None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname or parts.username is not None \
            or parts.password is not None or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError("not an origin: expected scheme://host[:port], e.g. https://games.example.org")
    scheme = parts.scheme.lower()
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}" + (f":{port}" if port is not None and str(port) != _DEFAULT_PORTS[scheme] else "")


def _host(value: str, scheme: str) -> str:
    """A Host header as an origin's host part (lower case, the scheme's default port left out)."""
    value = value.strip().lower()
    default = ":" + _DEFAULT_PORTS[scheme]
    return value[:-len(default)] if value.endswith(default) else value


class SameOrigin:
    """ASGI middleware: a browser's request from a page of another site (module docstring) is refused
    before any other work. ``allowed``: origins the deployment serves besides the Host's (a reverse
    proxy's public origin; ``origin_of`` normalises each; ValueError names a bad one)."""

    def __init__(self, app, allowed=()):
        self.app = app
        self.allowed = frozenset(origin_of(text) for text in allowed)

    def cross_site(self, scope) -> bool:
        """Whether a browser says the request comes from a page of another site."""
        origin = site = host = None
        for name, value in scope.get("headers", ()):
            if name == b"origin":
                origin = value.decode("latin-1")
            elif name == b"sec-fetch-site":
                site = value.decode("latin-1").strip().lower()
            elif name == b"host":
                host = value.decode("latin-1")
        if origin is None:                       # no browser sends a cross-site request without it
            return site is not None and site not in ("same-origin", "none")
        try:
            origin = origin_of(origin)           # "null" (an opaque origin) is none: refused
        except ValueError:
            return True
        if origin in self.allowed:
            return False
        scheme, _, rest = origin.partition("://")
        served = "https" if scope.get("scheme") in ("https", "wss") else "http"
        # Same scheme, or https for http: a TLS-terminating proxy in front (never http for https).
        if host is None or not (scheme == served or (scheme == "https" and served == "http")):
            return True
        return rest != _host(host, scheme)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            if self.cross_site(scope):
                message = await receive()                      # websocket.connect
                if message["type"] == "websocket.connect":
                    await send({"type": "websocket.accept"})
                    await send({"type": "websocket.close", "code": 4403, "reason": CROSS_SITE_SOCKET})
                return
        elif scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            if self.cross_site(scope):
                return await _refuse(scope, receive, send, 403, CROSS_SITE)
            if _has_body(scope) and not _is_json(scope):
                return await _refuse(scope, receive, send, 415, "a request body must be JSON, sent with "
                                     "'Content-Type: application/json'")
        return await self.app(scope, receive, send)


def _has_body(scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-length" and value.strip() not in (b"0", b""):
            return True
        if name == b"transfer-encoding":
            return True
    return False


def _is_json(scope) -> bool:
    """Whether the request says its body is JSON (``application/json``, or a ``+json`` type)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            kind = value.decode("latin-1").split(";")[0].strip().lower()
            return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))
    return False


async def _refuse(scope, receive, send, status: int, detail: str, headers: dict | None = None):
    response = JSONResponse({"detail": detail}, status, headers=headers)
    await response(scope, receive, send)
