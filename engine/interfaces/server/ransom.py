"""King's Ransom on the server (docs/server.md, "King's Ransom"): the game-specific parts of views,
log entries, records and bots, so that app.py, ai.py and player_tools.py tell the two games apart
in one place.

What the human may see of a King's Ransom game is built from ``RansomState.observation(human)``
only (the AI's face-down cards are ``card: None``; its Hand and Deck are sizes), plus the human's
own legal actions when it is their decision, and a log whose entries are the game's public event
texts (a card played face down is named by its square only). The record, which names every card,
is served once the game is over.
"""

from __future__ import annotations

from engine.game.record import RecordError, make_record
from engine.game.state import replay as replay_ftc
from engine.ransom.rules import PLAYER_NAMES
from engine.ransom.state import RECORD_FORMAT, RansomError, RansomState
from engine.ransom.state import VARIANT as RANSOM
from engine.ransom.state import replay as replay_ransom
from engine.interfaces.server.views import view_frame
from engine.games.registry import for_state

__all__ = ["RANSOM", "is_ransom", "variant_of", "record_of", "replay_any", "make_game_bot", "ransom_step",
           "build_ransom_view", "PLAYERS"]

#: The seats' names in King's Ransom (0 moves first): engine.ransom.rules.PLAYER_NAMES.
PLAYERS = PLAYER_NAMES


def is_ransom(state) -> bool:
    return isinstance(state, RansomState)


def variant_of(state) -> str:
    return RANSOM if is_ransom(state) else state.config.variant


def record_of(state) -> dict:
    """The game's full record (it names every hidden card: server-side, or once the game is over)."""
    return state.record() if is_ransom(state) else make_record(state)


def replay_any(record: dict):
    """A game from its record, either game; RecordError when the record is bad."""
    if isinstance(record, dict) and record.get("format") == RECORD_FORMAT:
        try:
            return replay_ransom(record)
        except RansomError as exc:
            raise RecordError(str(exc)) from None
    return replay_ftc(record)


def make_game_bot(state, spec: str, seed: int):
    """The bot ``spec`` of the game ``state`` plays (its registry entry's ``make_bot``)."""
    return for_state(state).make_bot(spec, seed)


def ransom_step(state: RansomState, player: int, action: int, viewer: int) -> dict:
    """Apply ``action`` of ``player`` to ``state`` and return what ``viewer`` may know of it: the
    game's public event texts of that action (a flip names the card turned up, a capture the card
    taken; a card played face down only its square) and the action's fields, without the card of a
    face-down play by the opponent."""
    turn = state.turn
    fields = state.action_fields(action)
    if player != viewer and fields.get("kind") == "play":
        fields = {"kind": "play", "square": fields["square"]}
    before = len(state.log)
    state.apply(action)
    texts = [text for who, text in state.log[before:] if who == player]
    return {"turn": turn, "player": player, "text": "; ".join(texts) or fields["kind"], "fields": fields}


def build_ransom_view(game_id: str, version: int, state: RansomState, human: int, thinking: bool, log: list,
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
