"""GameState: the full card-and-board game as a sequence of atomic decisions (OpenSpiel style).

A turn (4.0-9.0) is Order phase, Action phase, Buy phase, Housekeeping. Every choice a player makes
is one integer action (engine/crown/actions.py) whose text is made when asked (``action_text``);
chance is explicit: drawing a card from a Deck is a chance node whose outcomes are the card types
left in it, weighted by count (the Deck's order is unknown to everyone, C4, so a Deck is a multiset
plus the cards known to lie on top of it). With ``auto_chance=True`` (the default) chance nodes are
resolved at once by the state's seeded generator (C5), so ``legal_actions`` always belongs to a
player.

This module is the driver: it sets a game up (through its variant, engine/crown/variants.py),
applies actions and runs the task loop. The state's data and read-only API are ``GameCore``
(engine/crown/core.py); the phases (phases.py) and card effects (effects/) change it through the
toolkit (toolkit.py). Card effects are small step functions registered by card name; the numbers
printed on a card (gold, +orders, +actions, +buys, draws) are data and are applied before its step
function runs.

>>> from engine.crown.config import GameConfig
>>> g = GameState(GameConfig(seed=1))
>>> g.current_player(), g.phase, len(g.zones[0].hand)
(0, 'order', 5)
>>> g.action_text(g.legal_actions()[-1])
'end order phase'
"""

from __future__ import annotations

import random
from pathlib import Path

from engine.catalog import Catalog, default_catalog
from engine.crown import actions as A
from engine.crown import phases
from engine.crown.cards import CardCatalog, default_cards
from engine.crown.config import ConfigError, GameConfig
from engine.crown.core import (
    CHANCE,
    CONTINUE,
    PHASES,
    PLAYER_NAMES,
    TERMINAL,
    Ask,
    Draw,
    EndTurn,
    Frame,
    GameCore,
    GameError,
    IllegalActionError,
    Reveal,
    RunFrame,
)
from engine.crown.effects import run_effect
from engine.crown.observation import information_key, observation, public_key, resample_hidden
from engine.crown.record import RecordError, check_header, fingerprint, make_record, read_json_file, rng_from_json
from engine.crown.toolkit import reshuffle
from engine.crown.variants import variant_rules
from engine.notation import BLUE, YELLOW

__all__ = ["GameState", "Frame", "Ask", "CONTINUE", "GameError", "IllegalActionError", "PHASES", "CHANCE",
           "TERMINAL", "replay", "load"]


class GameState(GameCore):
    """The whole game. Create with a GameConfig; drive with legal_actions()/apply()."""

    def __init__(self, config: GameConfig | None = None, cards: CardCatalog | None = None,
                 units: Catalog | None = None, auto_chance: bool = True):
        config = config or GameConfig()
        super().__init__(config, cards or default_cards(), units or default_catalog(), auto_chance,
                         variant_rules(config.variant))
        self.variant.set_up(self)
        self._run()

    # -- taking decisions ------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Take one decision (or resolve the pending chance event with a card id)."""
        if self.over_reason is not None:
            raise IllegalActionError("the game is over")
        if self.chance is not None:
            player = self.chance[0]
            if not (0 <= action < len(self.cards) and self.zones[player].deck[action] > 0):
                raise IllegalActionError(f"chance outcome {action} is not a card left in {PLAYER_NAMES[player]}'s Deck")
            self.chance = None
            self._resolve_chance(player, action)
            self._run()
            return
        ask = self.decision
        if action not in ask.actions:
            raise IllegalActionError(
                f"action {action} is not legal now ({PLAYER_NAMES[ask.player]}: {ask.prompt}); "
                f"{len(ask.actions)} legal actions"
            )
        self.history.append((ask.player, action))
        self.decision = None
        if ask.frame is not None:
            ask.frame.choice = action
        else:
            phases.choose(self, ask.player, action)
        self._run()

    def resign(self, player: int) -> None:
        """``player`` resigns and the opponent wins, whoever is to decide now. The resignation is a
        step of the history (``[player, actions.RESIGN]``), so a record of a resigned game replays."""
        if self.is_terminal():
            raise IllegalActionError("the game is over")
        if player not in (BLUE, YELLOW):
            raise GameError(f"player must be 0 (Blue) or 1 (Yellow), got {player!r}")
        self.history.append((player, A.RESIGN))
        self.chance = None
        phases.finish(self, 1 - player, f"{PLAYER_NAMES[player]} resigned")

    def apply_text(self, text: str) -> None:
        """Apply the legal action whose text is ``text``."""
        for action in self.legal_actions():
            if self.action_text(action) == text:
                self.apply(action)
                return
        raise IllegalActionError(f"no legal action reads {text!r} now ({self.prompt()})")

    # -- hidden information and records ----------------------------------------------------------
    def observation(self, player: int | None) -> dict:
        """Everything ``player`` may know now; None: what both may know (engine/crown/observation.py)."""
        return observation(self, player)

    def resample_hidden(self, player: int, rng: random.Random) -> GameState:
        """A state consistent with ``player``'s observation (engine/crown/observation.py)."""
        return resample_hidden(self, player, rng)

    def record(self) -> dict:
        """The game record that replays to this state (engine/crown/record.py)."""
        return make_record(self)

    def public_key(self) -> tuple:
        """What both players see between two decisions of a turn (engine/crown/observation.py)."""
        return public_key(self)

    def information_key(self, player: int) -> str:
        """Equal for two states ``player`` cannot tell apart (engine/crown/observation.py)."""
        return information_key(self, player)

    # -- the task loop ---------------------------------------------------------------------------
    def _run(self) -> None:
        """Advance until a player must decide, a chance event is pending, or the game is over."""
        tasks = self.tasks
        while self.over_reason is None and self.decision is None and self.chance is None:
            if not tasks:
                phases.decide(self)
                continue
            task = tasks[-1]
            cls = task.__class__
            if cls is Draw:
                if task.count <= 0:
                    tasks.pop()
                elif not self._draw_one(task):
                    tasks.pop()          # nothing left to draw (5.0): the rest is lost
            elif cls is RunFrame:
                frame = task.frame
                choice, frame.choice = frame.choice, None
                result = run_effect(self, frame, choice)
                if result.__class__ is Ask:
                    self.decision = result
                elif result is not CONTINUE and tasks and tasks[-1] is task:
                    tasks.pop()
            elif cls is Reveal:
                self._reveal(task)
            elif cls is EndTurn:
                tasks.pop()
                phases.end_turn(self)
            else:
                raise GameError(f"internal: unknown task {task!r}")

    def _draw_one(self, task: Draw) -> bool:
        player = task.player
        zones = self.zones[player]
        if zones.top:
            card, _ = zones.top.pop()
            zones.hand.append(card)
            self._after_draw()
            return True
        if not any(zones.deck):
            if not zones.discard:
                return False
            reshuffle(self, player)
        if self.auto_chance:
            self._resolve_chance(player, self._sample(zones.deck))
        else:
            self.chance = (player, "draw")
        return True

    def _sample(self, deck: list[int]) -> int:
        pick = self.rng.randrange(sum(deck))
        for card, n in enumerate(deck):
            if pick < n:
                return card
            pick -= n
        raise AssertionError("unreachable")

    def _resolve_chance(self, player: int, card: int) -> None:
        """A chance event's outcome: ``card`` leaves ``player``'s Deck (recorded for replays)."""
        self.history.append((CHANCE, card))
        zones = self.zones[player]
        zones.deck[card] -= 1
        task = self.tasks[-1]
        if task.__class__ is Reveal:
            task.frame.data["revealed"] = card
            self.tasks.pop()
            return
        zones.hand.append(card)
        self._after_draw()

    def _after_draw(self) -> None:
        task = self.tasks[-1]
        task.count -= 1
        if task.count <= 0:
            self.tasks.pop()

    def _reveal(self, task: Reveal) -> None:
        player, frame = task.player, task.frame
        zones = self.zones[player]
        if zones.top:
            card, _ = zones.top.pop()
            frame.data["revealed"] = card
            self.tasks.pop()
            return
        if not any(zones.deck):
            if not task.reshuffle or not zones.discard:
                frame.data["revealed"] = None
                self.tasks.pop()
                return
            reshuffle(self, player)
        if self.auto_chance:
            self._resolve_chance(player, self._sample(zones.deck))
        else:
            self.chance = (player, "reveal")


# -- records: replaying them ---------------------------------------------------------------------
def replay(record: dict, check_fingerprint: bool = True) -> GameState:
    """Rebuild the state a record (engine/crown/record.py) describes; RecordError names the first
    inconsistency."""
    config, steps = check_header(record)
    try:
        g = GameState(config, auto_chance=False)
    except (ConfigError, GameError) as exc:
        raise RecordError(f"record: the set-up cannot be played: {exc}") from None
    # The set-up's own chance events (opening hands) are the first steps of the record.
    for index, step in enumerate(steps):
        if not (isinstance(step, list) and len(step) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in step)):
            raise RecordError(f"record: step {index} must be [player, action] with integers")
        player, action = step
        if action == A.RESIGN and player in (0, 1) and not g.is_terminal():
            g.resign(player)
            continue
        expected = g.current_player()
        if player != expected:
            who = "chance" if expected == CHANCE else ("nobody (the game is over)" if g.is_terminal() else f"player {expected}")
            raise RecordError(f"record: step {index}: recorded for {'chance' if player == CHANCE else f'player {player}'}, but {who} is to act")
        try:
            g.apply(action)
        except GameError as exc:
            raise RecordError(f"record: step {index}: {exc}") from None
    if check_fingerprint and "fingerprint" in record and record["fingerprint"] != fingerprint(g):
        raise RecordError("record: the replayed state does not match the recorded fingerprint (corrupt or from another engine version)")
    g.auto_chance = True
    if "rng" in record:
        try:
            g.rng.setstate(rng_from_json(record["rng"]))
        except (TypeError, ValueError) as exc:
            raise RecordError(f"record: field 'rng' is not a generator state: {exc}") from None
    return g


def load(path: str | Path) -> GameState:
    """Read and replay a record file (engine/crown/record.py ``save``)."""
    return replay(read_json_file(path, "record"))
