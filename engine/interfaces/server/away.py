"""Seats that walk away (docs/server.md "A seat that walks away"; issue 40, item 5). A game without
resignation (Crownfall) cannot end by one seat giving up, so a seat that stops playing would hold
every other seat up for good; the easy bot (the greedy bot) takes such a seat, as it takes a seat
whose clock ran out (core.py ``Server.flag``):

- **Idle**: in an untimed game without resignation, a human or bot seat that is to decide and has
  not acted for ``Limits.idle_seat_seconds`` (``ftc serve --idle-seat-minutes``, 15 minutes by
  default) is taken by the easy bot. The time counts from the game's last change and from when the
  seat was taken (an open seat whose invitation was never used is never taken). A timed game has
  its clock for that (a seat out of time is played by the bot already). Every server sweeps for
  such seats with its flag sweeper (one query, ``GameStore.due_idle``, the stored ``idle_seat`` and
  ``idle_since`` of each game's last change); one server claims each ("idle", at the game's version)
  and takes the seat only if the game is still at that version (``Server.sweep_idle``).
- **Leaving**: ``POST /api/games/{id}/leave``, by any seat's token, in a game without resignation
  still in play: the easy bot plays that seat from then on, at once (a game with resignation is
  left by resigning: 409 says so). Leaving twice changes nothing.
- **After**: the seat is listed in every view's ``away``; the log says who left or did not act. Its
  token still reads the game (its view has no actions) and the record once the game is over, and
  may still ask the AI to move; it never acts for the seat again (409, ``AWAY_REFUSAL``): the seat
  is the bot's for the rest of the game. In a timed game the seat's clock is charged the bot's
  moments only.
"""

from __future__ import annotations

from engine.games import registry
from engine.games.view import web_piece

__all__ = ["idle_seat", "idle_text", "IDLE_CLAIM", "AWAY_REFUSAL"]

#: The claim a server takes on an idle seat it hands to the easy bot (store.GameStore.claim).
IDLE_CLAIM = "idle"
#: The refusal of an action of a seat the easy bot took.
AWAY_REFUSAL = ("your seat is played by the easy bot (you left the game, or did not act in time): you may read the "
                "game, not act in it")


def idle_seat(state, clock, deciders) -> int | None:
    """The seat whose idleness counts in ``state``: the seat to decide, when the game is in play,
    untimed (``clock`` None) and without resignation, and that seat is one of ``deciders`` (the human
    and bot seats the easy bot does not play: core.py ``Server.stops``); else None."""
    if clock is not None or state.is_terminal() or web_piece(registry.for_state(state), "resign") is not None:
        return None
    seat = state.current_player()
    return seat if seat in deciders else None


def idle_text(seconds: float) -> str:
    """The idle limit as the log says it: "15 minutes", "90 seconds"."""
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"
