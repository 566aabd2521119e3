"""Type stubs for the compiled engine._perft module (ext/_perft.pyx): what stops a running C perft
and counts its leaves live (the shared state's layout: ext/_perft.pxd PerftShared). The walk itself
is C only (BoardCore.perft calls it); engine/perft.py builds perft, divide and progress on these."""

class PerftStopped(Exception):
    """A perft stopped through its PerftControl before it finished."""

    #: Leaves counted until the stop.
    nodes: int
    #: The control's reason (the CLI: the signal number; 0: none given).
    reason: int
    #: The root orders divide counted in full before the stop, {order text: count}.
    counts: dict[str, int]
    def __init__(self, nodes: int, reason: int = 0, counts: dict[str, int] | None = None) -> None: ...

class PerftControl:
    """Stops running perft calls and reads their progress, from any thread; shared by every C perft
    of one run. A stopped control stays stopped."""

    def __init__(self) -> None: ...
    def stop(self, reason: int = 0) -> None:
        """Make every perft using this control return early (and later ones at once); the first
        ``reason`` given is kept."""
    @property
    def stopped(self) -> bool:
        """Whether stop() was called."""
    @property
    def reason(self) -> int:
        """The reason given to the first stop() (0 when none was)."""
    @property
    def nodes(self) -> int:
        """Leaves counted so far by the perft calls using this control (live while they run)."""
