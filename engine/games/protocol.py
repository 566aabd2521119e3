"""The state protocol: what every layer above a game (search, matches, interfaces) may ask of a game
state, in the spirit of OpenSpiel's ``State`` (spiel.h). A game's state class implements it; the
registry (engine/games/registry.py) says which class a game name makes.

The contract (``GameStateProtocol``; tests/games/test_protocol_conformance.py checks it for every
registered game with random playouts):

- ``game`` (str): the registry name of the game ("crown", "kings-ransom"); ``num_players`` (int).
- ``current_player()``: the index of the player to decide (0 .. num_players-1), or ``CHANCE`` (-1)
  at a chance node, or ``TERMINAL`` (-4) once the game is over. The constants are OpenSpiel's
  (kChancePlayerId, kTerminalPlayerId), and the values both games have always used.
- ``legal_actions()``: the actions of the player to decide as dense integers (non-empty unless the
  game is over; at a chance node the game may list the outcomes, For the Crown does, or nothing,
  King's Ransom does: ask ``chance_outcomes``). ``apply(action)`` takes one (or a chance outcome);
  an illegal one raises a ValueError subclass naming it and leaves the state unchanged.
- ``action_text(action)`` / ``action_fields(action)``: a legal action's text and what it is as
  JSON-able data; both are made only when asked (a search never pays for them).
- ``is_chance_node()`` and ``chance_outcomes()``: at a chance node, ``[(outcome, probability)]``
  whose probabilities sum to 1; elsewhere ``[]``. With ``auto_chance`` (both games' default) the
  state resolves chance itself with its seeded generator and is never left at a chance node.
- ``is_terminal()``; ``returns()``: one float per player, +1 a win, -1 a loss, 0 a draw or an
  unfinished game (a game may score otherwise within [-1, 1]; For the Crown's The Last Stand does).
- ``observation(player)``: everything ``player`` may know, as a JSON-serialisable dict.
  ``observation(None)`` is the public observation, a spectator's: exactly what every player may know
  (each player's observation less what only that player knows: a hand, a face-down card, a pick
  behind a screen, the known top of one's own Deck), so it is derivable from every player's
  observation and it is the same for every state that differs from this one only in what is hidden
  (``resample_hidden`` of any player leaves it unchanged). Its ``player`` key, when the game's
  observations have one, is None. A game without hidden information returns what every player sees.
- ``resample_hidden(player, rng)``: a full state ``player`` cannot tell from this one (a
  determinization: what is hidden from ``player`` redrawn with ``rng``, the chance generator
  reseeded from it); ``player``'s observation of it equals theirs of this state. A game without
  hidden information returns a clone. It never reads what is hidden from ``player``.
- ``information_key(player)``: hashable, equal for two states ``player`` cannot tell apart;
  ``public_key()``: hashable, what every player sees (ISMCTS reuses its tree when the public key
  is where the chosen action led).
- ``clone()``: an independent copy (the same history, the same chance generator state).
- ``record()``: a JSON-able dict that the game's ``replay`` (``engine.games.replay``, through the
  registry) rebuilds into an equal state (the same record again). A determinization has none.

What the interfaces (the protocol session, `ftc`, the web board, records) show of a game, so that
none of them asks a game's own API:

- ``turn_number`` (int): the turn as players count it, 1 first; it never goes back during a game
  (the log's "turn", a record point's turn).
- ``current`` (int): the player whose turn it is, 0 .. num_players-1. It is not always the player to
  decide: at a chance node, or when the other player answers inside the turn, ``current_player()``
  differs. Once the game is over it keeps its last value and means nothing.
- ``prompt()``: a line for people saying what is to be decided now and by whom (once the game is
  over: how it ended); never empty.
- ``over_reason`` (str or None): None while the game goes on, then a line for people saying how it
  ended ("Blue resigned", "the board is full: a draw").
- ``winner`` (int or None): the player who won, once the game is over; None while it goes on and
  for a draw or a shared win. The winner's return is the highest.
- ``resign(player)``: ``player`` gives up and the game is over, ``player`` not winning; a game
  that keeps resignations in its history replays them from its record. A game without resignation
  (Crownfall, the toy game), and any game that is over, raises a ValueError subclass that says so,
  leaving the state unchanged.

Beyond the protocol each game keeps its own richer API (For the Crown's phases and zones, King's
Ransom's position): a layer that uses it is game-specific code and lives with its game.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Protocol, runtime_checkable

__all__ = ["CHANCE", "TERMINAL", "GameStateProtocol"]

#: ``current_player()`` at a chance node (OpenSpiel's kChancePlayerId).
CHANCE = -1
#: ``current_player()`` once the game is over (OpenSpiel's kTerminalPlayerId).
TERMINAL = -4


@runtime_checkable
class GameStateProtocol(Protocol):
    """A game state as every game-independent layer sees it (the module's docstring is the contract)."""

    game: str
    num_players: int

    def current_player(self) -> int: ...

    def legal_actions(self) -> list[int]: ...

    def apply(self, action: int) -> None: ...

    def action_text(self, action: int) -> str: ...

    def action_fields(self, action: int) -> dict: ...

    def is_chance_node(self) -> bool: ...

    def chance_outcomes(self) -> list[tuple[int, float]]: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> list[float]: ...

    def observation(self, player: int | None) -> dict: ...

    def resample_hidden(self, player: int, rng: random.Random) -> GameStateProtocol: ...

    def information_key(self, player: int) -> Hashable: ...

    def public_key(self) -> Hashable: ...

    def clone(self) -> GameStateProtocol: ...

    def record(self) -> dict: ...

    @property
    def turn_number(self) -> int: ...

    @property
    def current(self) -> int: ...

    def prompt(self) -> str: ...

    @property
    def over_reason(self) -> str | None: ...

    @property
    def winner(self) -> int | None: ...

    def resign(self, player: int) -> None: ...
