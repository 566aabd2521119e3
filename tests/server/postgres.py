"""A real, throwaway PostgreSQL server for the tests (no stand-ins): ``PostgresCluster`` runs
``initdb`` into a temporary folder and ``pg_ctl start`` on a free loopback port with its unix socket
in that folder; ``database()`` makes a new empty database on it; ``stop``/``start`` take the server
down and up mid-test; ``close`` stops it and removes the folder.

The binaries are looked up on PATH, then in /usr/lib/postgresql/<version>/bin (Debian's place; the
newest version wins). Without them the tests that need PostgreSQL FAIL (never skip) and say how to
install it: ``apt-get install postgresql`` (.ci/run does it).

Running as root: initdb and postgres refuse to run as root, so when the euid is 0 the server runs
as the user ``nobody`` (through ``runuser``), in a folder made under /tmp and owned by nobody (the
pytest tmp folders are root's, mode 0700, which nobody could not enter).

Every connection needs a password (scram-sha-256, also on the socket): the superuser ``postgres``
and the role ``ftc`` (which owns the test databases) have ``PASSWORD`` below, which contains URL
characters, so the tests can check that no message or log line ever shows it. ``fsync`` is off:
only the server's own process is ever killed by the tests, never the machine, so the files stay
whole, and the shared test machine is spared the flushes.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
import time
from urllib.parse import quote

import pytest

from tests.server.support import free_port

#: The password of both roles (URL-quoted in the URLs).
PASSWORD = "s3cret/pw@ftc:Z9"
INSTALL_HINT = ("PostgreSQL's server binaries (initdb, pg_ctl, postgres) were not found on PATH or in "
                "/usr/lib/postgresql/*/bin; install them: apt-get install postgresql (Debian/Ubuntu), "
                "dnf install postgresql-server (Fedora), brew install postgresql (macOS)")


def find_binaries() -> str | None:
    """The folder holding initdb, pg_ctl and postgres, or None."""
    found = shutil.which("initdb")
    candidates = [os.path.dirname(found)] if found else []
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                      key=lambda p: [int(x) if x.isdigit() else 0 for x in p.split("/")[-2].split(".")], reverse=True)
    for folder in candidates + versions:
        if all(os.access(os.path.join(folder, name), os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


class PostgresCluster:
    def __init__(self):
        bindir = find_binaries()
        if bindir is None:
            pytest.fail(INSTALL_HINT, pytrace=False)
        self.bindir = bindir
        self.as_root = os.geteuid() == 0
        self.base = tempfile.mkdtemp(prefix="ftc-pg-")
        self.data = os.path.join(self.base, "data")
        self.socket_dir = os.path.join(self.base, "socket")
        self.log = os.path.join(self.base, "server.log")
        os.mkdir(self.socket_dir)
        pwfile = os.path.join(self.base, "pw")
        with open(pwfile, "w") as f:
            f.write(PASSWORD + "\n")
        if self.as_root:
            for path in (self.base, self.socket_dir, pwfile):
                shutil.chown(path, "nobody", "nogroup" if _group_exists("nogroup") else "nobody")
        self.port = free_port()
        self._names = itertools.count(1)
        self._run("initdb", "-D", self.data, "-U", "postgres", f"--pwfile={pwfile}", "--auth=scram-sha-256",
                  "-E", "UTF8", "--locale=C", "--no-sync")
        os.remove(pwfile)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{self.socket_dir}'\n"
                    "fsync = off\nfull_page_writes = off\nshared_buffers = 16MB\nmax_connections = 200\n"
                    "log_min_messages = warning\n")
        self.start()
        from psycopg import sql

        self.admin(sql.SQL("CREATE ROLE ftc LOGIN CREATEDB PASSWORD {}").format(sql.Literal(PASSWORD)))

    def _run(self, program: str, *args: str) -> None:
        command = [os.path.join(self.bindir, program), *args]
        if self.as_root:
            command = ["runuser", "-u", "nobody", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=self.base)
        if result.returncode != 0:
            log = open(self.log).read()[-3000:] if os.path.exists(self.log) else ""
            raise RuntimeError(f"{program} {' '.join(args)} failed ({result.returncode}): {result.stderr}\n{log}")

    def start(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (mode "immediate": as if it crashed, no checkpoint, connections cut)."""
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop")

    def url(self, database: str = "postgres", user: str = "ftc", password: str | None = PASSWORD) -> str:
        secret = f":{quote(password, safe='')}" if password is not None else ""
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/{database}"

    def admin(self, statement, params: tuple = ()) -> None:
        import psycopg

        with psycopg.connect(self.url(user="postgres"), autocommit=True) as conn:
            conn.execute(statement, params)

    def database(self) -> str:
        """A new empty database owned by ftc; its URL (with ftc's password)."""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.admin(f'CREATE DATABASE "{name}" OWNER ftc')
        return self.url(name)

    def close(self) -> None:
        try:
            self.stop("immediate")
        except RuntimeError:
            pass
        shutil.rmtree(self.base, ignore_errors=True)


def _group_exists(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def wait_until(predicate, seconds: float = 10.0, step: float = 0.05) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
