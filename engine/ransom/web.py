"""King's Ransom on the web server (docs/server.md, "King's Ransom"; registry ``WebBoard``,
engine/ransom/entry.py): its view, log entries, new games and resignation.

What the human may see of a King's Ransom game is built from ``RansomState.observation(human)``
only (the AI's face-down cards are ``card: None``; its Hand and Deck are sizes), plus the human's
own legal actions when it is their decision, and a log whose entries are the game's public event
texts (a card played face down is named by its square only). The record, which names every card,
is served once the game is over.
"""

from __future__ import annotations

import random

from engine.games.view import view_frame
from engine.ransom.rules import PLAYER_NAMES
from engine.ransom.state import VARIANT as RANSOM
from engine.ransom.state import RansomState

__all__ = ["RANSOM", "ransom_step", "build_ransom_view", "new_game", "resign", "PLAYERS"]

#: The seats' names in King's Ransom (0 moves first): engine.ransom.rules.PLAYER_NAMES.
PLAYERS = PLAYER_NAMES


def ransom_step(state: RansomState, player: int, action: int, viewer: int | None) -> dict:
    """Apply ``action`` of ``player`` to ``state`` and return what ``viewer`` may know of it: the
    game's public event texts of that action (a flip names the card turned up, a capture the card
    taken; a card played face down only its square) and the action's fields, without the card of a
    face-down play by anyone but ``viewer`` (a spectator, viewer None: by anyone)."""
    turn = state.turn
    fields = state.action_fields(action)
    if player != viewer and fields.get("kind") == "play":
        fields = {"kind": "play", "square": fields["square"]}
    before = len(state.log)
    state.apply(action)
    texts = [text for who, text in state.log[before:] if who == player]
    return {"turn": turn, "player": player, "text": "; ".join(texts) or fields["kind"], "fields": fields}


def build_ransom_view(game_id: str, version: int, state: RansomState, human: int | None, thinking: bool, log: list,
                      ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The human's whole view of a King's Ransom game at one version: the observation, and the
    human's legal actions when it is their decision."""
    obs = state.observation(human)
    return {
        **view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note),
        "variant": RANSOM,
        "players": list(PLAYERS),
        "to_move": obs["to_move"],
        "phase": obs["step"],
        "turn": state.turn,
        "observation": obs,
    }


def new_game(form: dict, entropy: random.Random) -> RansomState:
    """A King's Ransom game: the deal comes from ``entropy`` (a server secret: nothing of the deal is
    public, so a client's ``seed`` is refused, as are a Supply and options; a ValueError names which)."""
    if form.get("seed") is not None:
        raise ValueError("seed: King's Ransom's deal comes from a server secret; leave 'seed' out")
    if form["options"]:
        raise ValueError(f"options: King's Ransom has no options ({len(form['options'])} given): leave 'options' out")
    if form["supply"] != "random":
        raise ValueError("King's Ransom has no Supply: leave 'supply' out")
    return RansomState(entropy.getrandbits(63))


def resign(state: RansomState, player: int) -> dict:
    """``player`` resigns; the resignation's fields."""
    state.resign(player)
    return {"kind": "resign"}
