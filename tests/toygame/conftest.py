"""The toy game's fixture, shared by its tests: tic-tac-toe registered for the test, taken out after."""

from __future__ import annotations

import pytest

from engine.games import registry
from tests.toygame.state import NAME


@pytest.fixture
def toy():
    registry.names()                         # the built-in games first
    import tests.toygame.entry as entry  # registers on its first import
    if NAME not in registry.names():
        registry.register(entry.GAME)
    yield entry
    registry.unregister(NAME)
