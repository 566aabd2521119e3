"""The server tests' HTTP client (FastAPI's TestClient, Starlette's) loads without a deprecation
warning (issue 22: Starlette deprecates driving it with `httpx`; the test extra installs `httpx2`,
the client it asks for)."""

import subprocess
import sys

import pytest

from tests.support import ROOT, child_env

pytest.importorskip("fastapi")

CODE = """
import warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import fastapi.testclient  # noqa: F401
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
"""


def test_the_test_client_loads_without_a_deprecation_warning():
    run = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=child_env(), cwd=ROOT,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Deprecation" not in run.stdout, run.stdout
