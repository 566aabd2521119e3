"""The server's connections, below HTTP: how many a client may hold, how long a request's head may
take, and which peers may name another client address (docs/server.md, "Security model").

uvicorn accepts every connection and waits for a request's head as long as the client likes; one
client could hold every file descriptor of the process with connections that never finish a
request (slow-loris). ``gated_protocol`` is uvicorn's own HTTP protocol class with a thin layer:

- **a connection cap with a per-client share**: at most ``Limits.connections`` connections at once
  (never more than the process's descriptor limit allows, less a reserve for the database and the
  AI's workers), and at most ``Limits.connections_per_client`` of them from one address; a
  connection over either is closed at once, before anything is read. A peer named a trusted proxy
  carries many clients, so it has no per-client share (the total cap still holds). WebSockets keep
  their connection and count too.
- **a head timeout**: a connection that has not sent a complete request head within
  ``Limits.header_seconds`` of opening (or of its last answer: keep-alive) is closed. uvicorn's own
  ``timeout_keep_alive`` closes a connection idle between requests; the RequestGuard (guard.py)
  bounds the time of a body.
- **one short log line** (logger ``ftc.server``) for refused and timed-out connections, at most one
  every ``LOG_EVERY`` seconds with the count since the last, never a traceback.

``trusted_proxies``: the addresses (or networks) whose ``X-Forwarded-For`` names the client;
uvicorn's default trusts loopback, so any local peer could claim any address and escape every
per-client limit. Here nothing is trusted unless the operator names it (``ftc serve --trusted-proxy``).
"""

from __future__ import annotations

import ipaddress
import logging
import time

try:
    import resource  # POSIX: the process's file descriptor limit
except ImportError:                   # pragma: no cover - elsewhere only the configured cap holds
    resource = None

from uvicorn.protocols.http.auto import AutoHTTPProtocol

__all__ = ["ConnectionGate", "QuietLog", "gated_protocol", "trusted_networks", "LOG_EVERY", "FD_RESERVE"]

log = logging.getLogger("ftc.server")

#: Seconds between two log lines about refused connections (the count in between is summed).
LOG_EVERY = 10.0
#: File descriptors kept free of client connections: the database, the listening socket, the AI's
#: worker processes and their pipes, the analysis threads' files.
FD_RESERVE = 64


def trusted_networks(addresses) -> tuple:
    """The networks of ``addresses`` (IP addresses or networks such as 10.0.0.0/8); ValueError names
    the one that is neither."""
    networks = []
    for text in addresses:
        try:
            networks.append(ipaddress.ip_network(str(text).strip(), strict=False))
        except ValueError:
            raise ValueError(f"--trusted-proxy {text}: not an IP address or network") from None
    return tuple(networks)


class QuietLog:
    """A warning about one kind of event, logged at most once every ``every`` seconds with the number
    of events since the last line: a flood of refused connections writes a few lines, not one each."""

    def __init__(self, what: str, every: float = LOG_EVERY):
        self.what, self.every = what, every
        self.count = 0
        self.last = -float("inf")

    def note(self, detail: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.count += 1
        if now - self.last >= self.every:
            log.warning("%s: %d in the last %.0f s (the latest: %s)", self.what, self.count,
                        min(self.every, now - self.last) if self.last > -float("inf") else 0, detail)
            self.count = 0
            self.last = now


class ConnectionGate:
    """Open connections by client address: ``admit`` a new one or refuse it (the total cap, the
    client's share). Connections are held as their transports, so a connection that became a
    WebSocket (uvicorn hands the transport to another protocol) is counted until it closes."""

    def __init__(self, total: int, per_client: int, trusted=()):
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if resource is not None else -1
        room = soft - FD_RESERVE if soft > 0 else total
        self.total = max(1, min(total, room))
        self.per_client = max(1, per_client)
        self.trusted = tuple(trusted)
        self.open: dict[str, list] = {}
        self.refused = QuietLog("connections refused (the server's or the client's share is full)")
        self.slow = QuietLog("connections closed: no complete request head in time")

    def _prune(self, client: str) -> int:
        alive = [t for t in self.open.get(client, ()) if not t.is_closing()]
        if alive:
            self.open[client] = alive
        else:
            self.open.pop(client, None)
        return len(alive)

    def count(self) -> int:
        return sum(self._prune(client) for client in list(self.open))

    def is_trusted(self, client: str) -> bool:
        try:
            address = ipaddress.ip_address(client)
        except ValueError:
            return False
        return any(address in net for net in self.trusted)

    def admit(self, client: str, transport) -> bool:
        if (self._prune(client) >= self.per_client and not self.is_trusted(client)) or self.count() >= self.total:
            self.refused.note(f"from {client}")
            return False
        self.open.setdefault(client, []).append(transport)
        return True


def gated_protocol(gate: ConnectionGate, header_seconds: float, base: type = AutoHTTPProtocol) -> type:
    """uvicorn's HTTP protocol class (``base``) behind ``gate`` and with a head timeout (module
    docstring). Pass it as ``uvicorn.Config(http=...)``."""

    class GatedProtocol(base):
        def connection_made(self, transport) -> None:
            peer = transport.get_extra_info("peername")
            client = str(peer[0]) if peer else "unknown"
            self._admitted = gate.admit(client, transport)
            if not self._admitted:
                transport.abort()                       # nothing read, nothing answered
                return
            super().connection_made(transport)
            self._answered = 0
            self._head_timer = None
            self._arm()

        def connection_lost(self, exc) -> None:
            if not getattr(self, "_admitted", False):
                return
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            self._answered += 1
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(header_seconds, self._head_due, self._answered)

        def _head_due(self, answered: int) -> None:
            self._head_timer = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return                                  # closed, or now a WebSocket's
            if self.cycle is not None and not self.cycle.response_complete:
                return                                  # a request is being answered (its head came)
            if self._answered != answered:
                return                                  # answered meanwhile: re-armed by then
            peer = transport.get_extra_info("peername")
            gate.slow.note(f"from {peer[0] if peer else 'unknown'}")
            transport.close()

    GatedProtocol.__name__ = GatedProtocol.__qualname__ = f"Gated{base.__name__}"
    return GatedProtocol
