"""King's Ransom as a sequence of atomic decisions, with explicit chance nodes (OpenSpiel style),
the same shape as For the Crown's ``GameState``: ``legal_actions`` / ``apply`` / ``clone``,
``current_player`` (-1 at a chance node, -4 at the end), ``chance_outcomes``, ``returns``,
``observation(player)`` and ``resample_hidden(player, rng)`` for information-set search, and JSON
records that ``replay`` rebuilds.

The set-up (G3) deals each card as a chance node over the card types left in the dealer's Deck
(its order is unknown to everyone); a turn is the decisions flip, move, promote (only when a Pawn
reaches the back row and the Discard pile has cards), play, then the Draw step, a chance node
(docs/kings-ransom.md). With ``auto_chance=True`` (the default) chance nodes are resolved at once
by the state's seeded generator, so ``legal_actions`` always belongs to a player.

This module is the driver: it sets a game up, applies actions and runs the task loop (the deal and
automatic chance). The state's data and read-only API are ``RansomCore`` (engine/ransom/core.py);
the turn's steps are phases.py; what a player sees, observation.py; records, record.py. Every name
the package exported from here before the split still is.

>>> g = RansomState(seed=1)
>>> g.current_player(), g.phase, g.action_text(g.legal_actions()[0])
(0, 'flip', 'flip a1')
"""

from __future__ import annotations

from engine.ransom import observation as obs
from engine.ransom import phases
from engine.ransom import record as rec
from engine.ransom.core import (
    CHANCE,
    DEAL,
    FLIP,
    MOVE,
    PLAY,
    PROMOTE,
    RECORD_FORMAT,
    RESIGN,
    TERMINAL,
    VARIANT,
    IllegalRansomAction,
    RansomCore,
    RansomError,
    RansomVariant,
)
from engine.ransom.position import RansomPosition
from engine.ransom.rules import BLUE, PLAYER_NAMES, RED, RansomRules

__all__ = ["RansomState", "RansomError", "IllegalRansomAction", "replay", "VARIANT", "CHANCE", "TERMINAL",
           "RECORD_FORMAT", "RESIGN", "DEAL", "FLIP", "MOVE", "PROMOTE", "PLAY", "RansomVariant"]


class RansomState(RansomCore):
    """The whole game of King's Ransom. Create with a seed; drive with legal_actions()/apply().
    It implements the state protocol (engine/games/protocol.py)."""

    def __init__(self, seed: int | None = None, rules: RansomRules | None = None, auto_chance: bool = True,
                 position: RansomPosition | None = None):
        super().__init__(seed, rules, auto_chance, position)
        if position is not None:
            phases.start_turn(self)
        else:
            phases.set_up(self)
        self._run()

    # -- the task loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        """Advance until a player must decide, a chance node waits (``auto_chance`` off), or the
        game is over: the deal's chance nodes are taken in order, then the first turn starts."""
        while self.over_reason is None:
            if self.chance is None and self.step == DEAL:
                if not self.deal:
                    phases.start_turn(self)
                    continue
                self.chance = self.deal.pop(0)
            if self.chance is None:
                return
            if not self.auto_chance:
                return
            phases.resolve_chance(self, phases.sample(self, self.rng))

    # -- taking decisions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Take one decision, or resolve the pending chance node with a card type id."""
        if self.over_reason is not None:
            raise IllegalRansomAction("the game is over")
        if self.chance is not None:
            side = self.chance[0]
            if not (isinstance(action, int) and 0 <= action < len(self.pos.pools[side])
                    and self.pos.pools[side][action] > 0):
                raise IllegalRansomAction(f"chance outcome {action} is not a card left in {PLAYER_NAMES[side]}'s Deck")
            phases.resolve_chance(self, action)
            self._run()
            return
        if action not in self.actions:
            raise IllegalRansomAction(f"action {action} is not legal now ({PLAYER_NAMES[self.pos.side]}: "
                                      f"{self.step}); {len(self.actions)} legal actions")
        side = self.pos.side
        self.history.append((side, action))
        phases.choose(self, side, action)
        self._run()

    def resign(self, player: int) -> None:
        """``player`` resigns: the opponent wins. Kept in the history (``[player, RESIGN]``), so a
        record replays to the same end."""
        if self.over_reason is not None:
            raise IllegalRansomAction("the game is over")
        if player not in (RED, BLUE):
            raise IllegalRansomAction(f"no player {player!r}")
        self.history.append((player, RESIGN))
        phases.finish(self, 1 - player, f"{PLAYER_NAMES[player]} resigns")

    def apply_text(self, text: str) -> int:
        """Apply the legal action whose text is ``text`` (as ``action_text`` writes it)."""
        for a in self.legal_actions():
            if self.action_text(a) == text.strip():
                self.apply(a)
                return a
        raise IllegalRansomAction(f"{text!r} is not a legal action now; legal: "
                                  + ", ".join(self.legal_action_texts().values()))

    # -- hidden information and records --------------------------------------------------------------
    # The functions of observation.py and record.py, as methods (their docstrings are the methods').
    unseen = obs.unseen
    resample_hidden = obs.resample_hidden
    observation = obs.observation
    public_key = obs.public_key
    information_key = obs.information_key
    fingerprint = rec.fingerprint
    record = rec.make_record


def replay(record: dict, rules: RansomRules | None = None) -> RansomState:
    """Rebuild a game from its record; RansomError names what is wrong with a bad record."""
    seed, position, steps = rec.check_header(record, rules)
    g = RansomState(seed, rules, auto_chance=False, position=position)
    rec.replay_steps(g, steps)
    rec.restore_generator(g, record)
    g._run()
    return g
