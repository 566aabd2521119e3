"""Clocks of server games (docs/server.md "Clocks"): the time controls a new game may have, and the
state of a game's clocks with its transitions, given wall-clock times. Pure: nothing here reads a
clock, a database or a game; the server (core.py) passes the times and the players.

**Controls.** ``{"base": S, "increment": S}``: each player has ``base`` seconds for the whole game,
and ``increment`` seconds are added once at the end of each of their turns (Fischer). ``{"days_per_turn":
D}`` (correspondence): each turn has ``D`` days, nothing carries over from one turn to the next.
``parse_control`` checks a new game's ``clock`` field and names the first bad part
(``clock.base: ...``) as a ClockError (a ValueError).

**Turns.** Clocks are kept per player index (``state.current_player()``), whoever sits there. A clock
turn is a maximal run of decisions by one player: a For the Crown turn has several (cards, then a
board order), and the player's clock runs from the handover that gave them the turn until the
handover that gives it to another player (or ends the game); only then is the increment added, once.
``Clock.handover(next_player, now)`` is that transition; a change that leaves the same player to
decide leaves the clock as it is. ``Clock.resumed(at)`` moves the start of the running turn later:
the time the server spent before a player could decide (an AI turn waiting for a worker) is not
theirs.

**The start.** A game starts once every player has handed the decision on at least once (lichess: a
game starts once each side has made its first move). Until then no clock runs (``Clock.unmoved``:
the players who have not yet; ``Clock.started``): the first turns are not charged and get no
increment. A turn before the start has its own limit instead, ``Clock.abort_at``: the first-move
limit (the server's ``Limits.first_move_seconds``; a correspondence turn's days) counted from when
the turn began or every seat was taken, whichever is later; past it the game is aborted
(``Clock.abort``): no result, nobody loses. While a seat is open (an invitation not yet taken) no
limit runs at all.

**Flag fall.** ``Clock.flag_at`` is the wall time at which the running player's time is out (None
when no timed clock runs); ``Clock.flagged(now)`` whether it has passed. A player whose time ran out
in a game without resignation plays on untimed (the server's easy bot takes the seat):
``Clock.out_of_time(player)`` stops their clock and keeps them in ``out``.

Times are seconds since the epoch of the server's wall clock (``time.time()``): see docs/server.md
"Clocks" for why that clock and what a skew between servers does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from engine.quiet import shown

__all__ = ["ClockError", "TimeControl", "Clock", "parse_control", "BASE_MAX", "INCREMENT_MAX", "DAYS_MIN", "DAYS_MAX",
           "BASE_MIN", "DAY", "turn_budget", "AI_FLOOR_SECONDS", "FIRST_MOVE_SECONDS", "seconds_text"]

#: The bounds of a control's fields (docs/server.md "Clocks"); the least base is the server's
#: ``Limits.clock_min_base`` (BASE_MIN unless a test lowers it).
BASE_MIN = 15.0
BASE_MAX = 10800.0
INCREMENT_MAX = 600.0
DAYS_MIN = 1
DAYS_MAX = 30
DAY = 86400.0
#: The least seconds the AI is given for a turn on a clock, however little time it has left.
AI_FLOOR_SECONDS = 0.05
#: Seconds a turn before the game's start may take (``Limits.first_move_seconds``, its default) before
#: the game is aborted; a correspondence turn has its days instead.
FIRST_MOVE_SECONDS = 60.0


class ClockError(ValueError):
    """A bad ``clock`` of a new game; the message names the field (``clock.base: ...``)."""


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: ``base`` and ``increment`` seconds (Fischer), or ``days_per_turn``
    (correspondence; ``base`` and ``increment`` then None and 0)."""

    base: float | None = None
    increment: float = 0.0
    days_per_turn: int | None = None

    @property
    def per_turn(self) -> bool:
        """Whether each turn has its own time (correspondence) rather than a game's worth."""
        return self.days_per_turn is not None

    def turn_seconds(self) -> float:
        """The seconds a turn starts with in correspondence (``days_per_turn`` days)."""
        return self.days_per_turn * DAY

    def first_move_seconds(self, limit: float) -> float:
        """The seconds a turn before the start may take: ``limit`` (the server's first-move limit),
        a correspondence turn's days."""
        return self.turn_seconds() if self.per_turn else limit

    def to_json(self) -> dict:
        """The control as the new-game body gives it and the views and the database show it."""
        if self.per_turn:
            return {"days_per_turn": self.days_per_turn}
        return {"base": self.base, "increment": self.increment}

    @classmethod
    def from_json(cls, data: dict) -> TimeControl:
        """A control stored by ``to_json`` (already checked when the game was created)."""
        if "days_per_turn" in data:
            return cls(days_per_turn=int(data["days_per_turn"]))
        return cls(base=float(data["base"]), increment=float(data.get("increment", 0.0)))


def _number(data: dict, key: str, low: float, high: float, unit: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ClockError(f"clock.{key}: expected a number of {unit} from {low:g} to {high:g}, got {shown(value)}")
    if not low <= value <= high:
        raise ClockError(f"clock.{key}: outside {low:g}..{high:g} {unit}")
    return float(value)


def parse_control(data, min_base: float = BASE_MIN) -> TimeControl | None:
    """The control of a new game's ``clock`` field: None (untimed) for None; ``{"base": S,
    "increment": S}`` (base ``min_base``..BASE_MAX seconds, increment 0..INCREMENT_MAX, default 0) or
    ``{"days_per_turn": D}`` (an integer DAYS_MIN..DAYS_MAX). Anything else is a ClockError naming
    the field and what is wrong."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ClockError(f"clock: expected null, {{\"base\": seconds, \"increment\": seconds}} or "
                         f"{{\"days_per_turn\": days}}, got a {type(data).__name__}")
    unknown = sorted(set(data) - {"base", "increment", "days_per_turn"})
    if unknown:
        raise ClockError(f"clock: {len(unknown)} unknown field(s) (a clock's fields: base and increment, or "
                         "days_per_turn)")
    if "days_per_turn" in data:
        if "base" in data or "increment" in data:
            raise ClockError("clock.days_per_turn: a correspondence clock has no base nor increment (give either "
                             "days_per_turn, or base and increment)")
        days = data["days_per_turn"]
        if isinstance(days, bool) or not isinstance(days, int):
            raise ClockError(f"clock.days_per_turn: expected a whole number of days from {DAYS_MIN} to {DAYS_MAX}, "
                             f"got {shown(days)}")
        if not DAYS_MIN <= days <= DAYS_MAX:
            raise ClockError(f"clock.days_per_turn: outside {DAYS_MIN}..{DAYS_MAX} days")
        return TimeControl(days_per_turn=days)
    if "base" not in data:
        raise ClockError("clock.base: missing (the seconds each player has for the game; or give days_per_turn)")
    base = _number(data, "base", min_base, BASE_MAX, "seconds")
    increment = _number(data, "increment", 0.0, INCREMENT_MAX, "seconds") if "increment" in data else 0.0
    return TimeControl(base=base, increment=increment)


@dataclass(frozen=True)
class Clock:
    """The clocks of one game: ``remaining[p]``, the seconds player ``p`` had at the last handover
    (None: ``p`` plays untimed, after running out of time in a game without resignation);
    ``running``, the player whose clock runs (None: none, the game is over) since ``turn_started``
    (wall time); ``out``, the players whose time ran out, in order; ``reason``, how the game ended
    when a flag ended it ("Blue ran out of time"; the record holds a resignation, its replay's reason)
    or the game was aborted; ``unmoved``, the players who have not yet handed the decision on (the
    game has not started while any has not, and no clock runs; a clock stored before the start
    existed has none); ``aborted``, whether the game was aborted before it started (``reason`` says
    why)."""

    control: TimeControl
    remaining: tuple[float | None, ...]
    running: int | None
    turn_started: float | None
    out: tuple[int, ...] = field(default=())
    reason: str | None = None
    unmoved: tuple[int, ...] = field(default=())
    aborted: bool = False

    @classmethod
    def start(cls, control: TimeControl, players: int, first: int | None, now: float) -> Clock:
        """A new game's clocks: every player has the base (or a turn's days), none has moved yet (no
        clock runs until the start); ``first`` (None when the game is already over) decides from
        ``now``."""
        full = control.turn_seconds() if control.per_turn else control.base
        return cls(control, (full,) * players, first, None if first is None else now,
                   unmoved=tuple(range(players)))

    @property
    def started(self) -> bool:
        """Whether the game has started: every player has handed the decision on at least once."""
        return not self.unmoved

    def left(self, player: int, now: float) -> float | None:
        """Seconds ``player`` has at ``now`` (never below 0; None: untimed). Before the start nothing
        is taken."""
        have = self.remaining[player]
        if have is None:
            return None
        if player == self.running and self.turn_started is not None and self.started:
            have -= max(0.0, now - self.turn_started)
        return max(0.0, have)

    @property
    def flag_at(self) -> float | None:
        """When the running player's time is out (wall time); None when no timed clock runs (nothing
        runs before the start)."""
        if not self.started or self.running is None or self.turn_started is None or \
                self.remaining[self.running] is None:
            return None
        return self.turn_started + self.remaining[self.running]

    def abort_at(self, ready: float | None, limit: float) -> float | None:
        """Before the start, when the game is aborted unless the player deciding moves: ``limit``
        seconds (``TimeControl.first_move_seconds``) after their turn began or ``ready`` (when every
        seat was taken), whichever is later. None once started or over, and when ``ready`` is None
        (a seat is still open, or the AI decides: no limit runs)."""
        if self.started or self.aborted or self.running is None or self.turn_started is None or ready is None:
            return None
        return max(self.turn_started, ready) + limit

    def abort(self, reason: str) -> Clock:
        """The clocks of a game aborted before its start (``reason``, as the views show it): nothing
        runs, nobody's time was taken, nobody is out of time."""
        return replace(self, running=None, turn_started=None, reason=reason, aborted=True)

    def flagged(self, now: float) -> bool:
        """Whether the running player's time is out at ``now``."""
        due = self.flag_at
        return due is not None and now >= due

    def handover(self, next_player: int | None, now: float) -> Clock:
        """The clocks after a change at ``now`` that leaves ``next_player`` to decide (None: the game
        is over). The same player still deciding: unchanged (their turn goes on). Another: the
        running player's elapsed time is taken from their clock and the increment added once (in
        correspondence their clock is a full turn again), and ``next_player``'s clock runs from
        ``now``. Before the start the mover is charged nothing and given nothing: they have moved
        (``unmoved`` loses them), and the game starts with the handover of the last who had not. The
        game over: the running clock stops, without increment. ``now`` before the turn started (a
        clock set back) counts as no time elapsed."""
        if next_player == self.running:
            return self
        remaining = list(self.remaining)
        mover = self.running
        if mover is not None and remaining[mover] is not None and self.started:
            spent = max(0.0, now - self.turn_started)
            if self.control.per_turn:
                remaining[mover] = self.control.turn_seconds()
            else:
                remaining[mover] = max(0.0, remaining[mover] - spent)
                if next_player is not None:
                    remaining[mover] += self.control.increment
        unmoved = tuple(p for p in self.unmoved if p != mover) if next_player is not None else self.unmoved
        return replace(self, remaining=tuple(remaining), running=next_player,
                       turn_started=None if next_player is None else now, unmoved=unmoved)

    def resumed(self, at: float) -> Clock:
        """The clocks with the running player's turn counted from ``at`` when that is later than its
        start: time the server spent before the player could decide (an AI turn waiting for a
        worker; the AI's answer on its way to the commit, for the player it hands over to) is not
        the player's. Unchanged when ``at`` is not later, or when no clock runs."""
        if self.running is None or self.turn_started is None or at <= self.turn_started:
            return self
        return replace(self, turn_started=at)

    def out_of_time(self, player: int, now: float, next_player: int | None) -> Clock:
        """``player`` ran out of time and plays on untimed (a game without resignation: the easy bot
        takes the seat): their clock shows 0 and stops for good; ``next_player`` decides from ``now``."""
        remaining = list(self.remaining)
        remaining[player] = None
        running = replace(self, remaining=tuple(remaining), out=self.out + (player,))
        return replace(running, running=next_player, turn_started=None if next_player is None else now)

    def over(self, now: float) -> Clock:
        """The clocks once the game is over at ``now``: nothing runs."""
        return self.handover(None, now)

    def lost_on_time(self, reason: str) -> Clock:
        """The clocks of a game the running player lost on time (``reason``, as the views show it):
        their clock shows 0, nothing runs."""
        remaining = list(self.remaining)
        remaining[self.running] = 0.0
        return replace(self, remaining=tuple(remaining), running=None, turn_started=None,
                       out=self.out + (self.running,), reason=reason)

    def to_json(self) -> dict:
        """The clocks as the database keeps them (the ``clock`` column)."""
        return {"control": self.control.to_json(), "remaining": list(self.remaining), "running": self.running,
                "turn_started": self.turn_started, "out": list(self.out), "reason": self.reason,
                "unmoved": list(self.unmoved), "aborted": self.aborted}

    @classmethod
    def from_json(cls, data: dict | None) -> Clock | None:
        """Clocks stored by ``to_json``; None for an untimed game (None)."""
        if data is None:
            return None
        return cls(TimeControl.from_json(data["control"]),
                   tuple(None if r is None else float(r) for r in data["remaining"]),
                   data["running"], data["turn_started"], tuple(data.get("out", ())), data.get("reason"),
                   tuple(data.get("unmoved", ())), bool(data.get("aborted", False)))

    def view(self, now: float, abort_at: float | None = None) -> dict:
        """What the views show (docs/server.md "Clocks"): the control, each player's seconds at
        ``now`` (None: untimed after running out of time), whose clock runs (None before the start:
        none does), the players out of time, ``server_time`` (``now``), from which a board counts the
        running clock down, whether the game has ``started``, and before it ``abort_at``: when the
        game is aborted unless the player deciding moves (None when no limit runs)."""
        return {"control": self.control.to_json(),
                "remaining": [None if self.remaining[p] is None else round(self.left(p, now), 3)
                              for p in range(len(self.remaining))],
                "running": self.running if self.started else None, "out": list(self.out),
                "server_time": round(now, 3), "started": self.started,
                "abort_at": None if abort_at is None else round(abort_at, 3)}


def seconds_text(seconds: float) -> str:
    """A limit as a sentence says it: "60 s", "2 days"."""
    if seconds >= DAY and seconds % DAY == 0:
        days = int(seconds // DAY)
        return f"{days} day{'s' if days != 1 else ''}"
    return f"{seconds:g} s"


def turn_budget(left: float, control: TimeControl) -> float:
    """The seconds the AI may think in one turn of a timed seat that has ``left`` seconds: a tenth of
    them plus half the increment (correspondence: a tenth of the turn's days), never below
    AI_FLOOR_SECONDS. Past it the greedy bot takes the seat's decisions of the turn (ai.py
    ``_decide``), so a seat keeps at least nine tenths of its time from turn to turn: the AI does
    not run out of time."""
    share = left / 10 + (0.0 if control.per_turn else control.increment / 2)
    return max(AI_FLOOR_SECONDS, share)
