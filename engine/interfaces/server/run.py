"""The server as a process (`ftc serve`): serve the app on a socket that already listens until SIGINT
or SIGTERM, then shut down promptly, with every child process.

On the first SIGINT or SIGTERM:

1. at once (Server.begin_shutdown): every WebSocket is closed, the AI's worker processes are killed
   (on Ray: its tasks are cancelled, the connection closed and a local Ray the server started
   stopped; a turn they were computing is abandoned; its game stays before the AI's turn, with a
   note) and no new AI work is taken;
2. uvicorn stops accepting connections and gives the requests in flight up to ``GRACEFUL_SECONDS``
   to answer (with the workers gone they answer at once), then cancels what is left;
3. the app's lifespan ends: the database is closed (Server.close).

The signal is then taken as handled (not re-raised): ``serve`` returns its number and ``ftc serve``
exits with status 0, after Python's normal exit (so multiprocessing's resource tracker, the last
child, exits with it and no semaphore is leaked). Further signals during the shutdown change
nothing (it is bounded already).
"""

from __future__ import annotations

import asyncio
import signal
import socket

import uvicorn
from fastapi import FastAPI

from engine.interfaces.server.edge import ConnectionGate, gated_protocol, trusted_networks

__all__ = ["serve", "server_config", "GRACEFUL_SECONDS", "STOP_SIGNALS"]

#: Seconds a shutdown waits for the requests in flight before it cancels them.
GRACEFUL_SECONDS = 5.0
#: The signals that stop the server.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, which also starts the app's own shutdown the moment a signal asks for it
    (uvicorn's waits for requests in flight first: an AI turn could hold it for minutes). A second
    signal changes nothing: the shutdown is bounded already (GRACEFUL_SECONDS), and uvicorn's forced
    exit would skip the app's lifespan end and log a traceback of its cancelled task. The signals are
    not re-raised after the shutdown: ``received`` holds them."""

    def __init__(self, config: uvicorn.Config, app: FastAPI):
        super().__init__(config)
        self._app = app
        self.received: list[int] = []

    def handle_exit(self, sig, frame) -> None:
        self.received.append(sig)
        if self.should_exit:
            return
        self.should_exit = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:              # no loop yet (or any more): serve() closes the app itself
            return
        loop.call_soon_threadsafe(self._app.state.server.begin_shutdown)


def server_config(app: FastAPI, log_level: str = "warning", trusted_proxies=()) -> uvicorn.Config:
    """uvicorn's configuration of ``app`` (create_app's) as ``ftc serve`` runs it: its connections
    behind edge.py's gate (a cap with a per-client share, a head timeout), WebSocket messages of at
    most ``Limits.socket_message_bytes``, and ``X-Forwarded-For`` believed only from
    ``trusted_proxies`` (addresses or networks; none by default). ValueError names a bad address."""
    limits = app.state.server.limits
    trusted = trusted_networks(trusted_proxies)
    gate = ConnectionGate(limits.connections, limits.connections_per_client, trusted)
    app.state.connections = gate
    return uvicorn.Config(
        app, log_level=log_level, timeout_graceful_shutdown=GRACEFUL_SECONDS,
        http=gated_protocol(gate, limits.header_seconds), ws_max_size=limits.socket_message_bytes,
        timeout_keep_alive=limits.keep_alive_seconds,
        # uvicorn's default believes X-Forwarded-For from loopback: any local peer could be anyone.
        proxy_headers=bool(trusted), forwarded_allow_ips=[str(net) for net in trusted] or "",
    )


def serve(app: FastAPI, sock: socket.socket, log_level: str = "warning", trusted_proxies=()) -> int:
    """Serve ``app`` (create_app's) on ``sock``, a bound, listening socket, until SIGINT or SIGTERM
    (see the module docstring), configured by ``server_config``. Returns the number of the signal that stopped it (0 if none did).
    The app is closed on return, however the server ended."""
    server = _Uvicorn(server_config(app, log_level, trusted_proxies), app)

    def note(sig, _frame) -> None:
        # Before uvicorn takes the signals over: remember the signal and make uvicorn stop as soon
        # as it has started.
        server.received.append(sig)
        server.should_exit = True

    previous = {sig: signal.signal(sig, note) for sig in STOP_SIGNALS}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        app.state.server.close()
    return server.received[0] if server.received else 0
