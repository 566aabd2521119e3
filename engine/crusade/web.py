"""Crusade & Conquer on the web server (docs/server.md, "Crusade & Conquer"; registry ``WebBoard``,
engine/crusade/entry.py): the human's view and the resignation. Log entries and new games are the
server's generic ones (engine/games/view.py: a move's text and fields; the configuration's
options, ``position`` among them).

The game is open information, but the view still follows the contract of engine/games/view.py: the
pieces, fallen pieces, check, last move and end come from ``CrusadeState.observation(human)``, the
legal targets from the human's own legal actions (the frame's ``actions``: each move's ``from``,
``to``, ``piece``, ``capture`` and ``promotion``), and the board's levels and X squares from the
game's catalog (engine/data/crusade_units.toml [board], PROVISIONAL data an owner may edit): the
board module (static/crusade.js) computes no rule and hard-codes no square.

Moves are numbered as a chess player counts them, one number for a move of each side: the log's
entries carry their ``move`` and the status line's ``turn_label`` names the move to be played
(``move_number``). The view also says that the castle plan is PROVISIONAL (RULINGS H1, H2) and how
to load one's own (``provisional``).
"""

from __future__ import annotations

from engine.catalog import parse_square, square_name
from engine.crusade.position import CrusadePosition
from engine.crusade.state import GAME_NAME, SEATS, CrusadeState
from engine.games.view import view_frame

__all__ = ["MODULE", "TITLE", "LEVELS", "HOW_PIECES", "HOW_NOTES", "PROVISIONAL", "build_view", "move_number", "resign"]

#: The board module under engine/interfaces/server/static/.
MODULE = "crusade.js"
TITLE = "Crusade & Conquer"
#: The names of the board's levels (RULINGS H1): index = the level of engine/data/crusade_units.toml.
LEVELS = ("field", "lower floor", "upper floor")
#: The rules page and the rulings page of the web server (engine/interfaces/server/rules.py).
RULES_PAGE = "/rules/crusade-and-conquer"
RULINGS_PAGE = "/rules/rulings"

#: The note the board shows under the castles: the rulebook prints no plan, so this one is the
#: project's (RULINGS H1, H2: PROVISIONAL data); links to the ruling and to the rules page's section.
PROVISIONAL = {
    "title": "Provisional board.",
    "text": "The rulebook prints no plan of the castles: which squares are raised, where the X squares are "
            "and the set-up shown here are this project's choice (rulings H1 and H2) and may differ from "
            "the board in your box.",
    "edit": "To play on your own board, edit [board] (heights and x) and [setup] in "
            "engine/data/crusade_units.toml, then restart the server.",
    "links": [{"text": "ruling H1", "href": f"{RULINGS_PAGE}#ruling-H1"},
              {"text": "the rules page", "href": f"{RULES_PAGE}#provisional"}],
}

#: The "how the pieces move" panel: each piece type's move in the project's words, with the rulings
#: that settle it (each a link to /rules/rulings#ruling-<id>).
HOW_PIECES = {
    "K": ("One square in any direction, one level up or down at most; never onto a square where it "
          "could be captured. The only piece that may capture a Flag Bearer.", ("H3", "H6", "H8")),
    "Q": ("Any distance along a rank, file or diagonal over empty squares; the first square at "
          "another level ends the move (it may capture there).", ("H3",)),
    "R": ("Any distance along a rank or file, ending on the first square at another level.", ("H3",)),
    "B": ("Any distance diagonally, ending on the first square at another level.", ("H3",)),
    "N": ("The chess L-leap over anything in between, onto a square at most one level above or below "
          "its own.", ("H4",)),
    "P": ("One square straight ahead onto an empty square, or two from its first square when it does "
          "not start inside a castle; captures one square diagonally ahead. On the far rank it is "
          "exchanged for one of your fallen pieces, or kept as a Pawn that never moves again.", ("H5",)),
    "D": ("A King's step, or a flight: over the unbroken row of your own pieces next to it, landing just "
          "beyond them on an empty square or on an enemy other than a Flag Bearer, whatever the levels. "
          "Enemies are never flown over.", ("H7",)),
    "F": ("One diagonal step onto an empty square; it never captures. Only the enemy King may capture "
          "it. Stepping onto the enemy's X wins the game.", ("H6", "H8")),
}
#: The panel's notes on the board and the end of the game.
HOW_NOTES = (
    ("Levels: the field is 0, a castle's lower floor 1, its upper floor 2. No step or slide joins two "
     "squares two levels apart; a Dragon's flight ignores levels.", ("H1", "H3")),
    ("Win by checkmating the enemy King, or by stepping a Flag Bearer onto the enemy's X (a Flag Bearer "
     "brought back there by a Pawn's exchange does not win). No legal move and not in check: a draw; "
     "so are 100 plies without a capture or a Pawn move, and a position seen for the third time.", ("H8",)),
)


def _rulings(ids) -> list[dict]:
    return [{"id": rid, "href": f"{RULINGS_PAGE}#ruling-{rid}"} for rid in ids]


def how_to_play(catalog) -> dict:
    """The "how the pieces move" panel of a catalog's pieces (every type of the catalog, in its order)."""
    pieces = []
    for unit in catalog.units:
        text, ids = HOW_PIECES.get(unit.token, (f"moves {unit.moves}", ()))
        pieces.append({"token": unit.token, "name": unit.name, "text": text, "rulings": _rulings(ids)})
    return {"pieces": pieces, "notes": [{"text": text, "rulings": _rulings(ids)} for text, ids in HOW_NOTES],
            "rules": RULES_PAGE}


def board_data(catalog) -> dict:
    """The board as data: its size, every square's level (a flat board: all 0), the X squares by
    owner and the levels' names."""
    shape = catalog.board
    heights = shape.heights or (0,) * 64
    return {"files": shape.files, "ranks": shape.ranks,
            "heights": {square_name(sq): heights[sq] for sq in shape.squares},
            "x": [square_name(sq) for sq in shape.x] if shape.x else [],
            "levels": list(LEVELS)}


def move_number(turn: int, player: int) -> int:
    """The chess move number of the ply ``turn`` (1 for the game's first ply) played by ``player``
    (0 Blue, 1 Red): Blue's move and Red's answer share a number, and a game from a position with
    Red to move opens with Red's move 1 and Blue's move 2.

    >>> [move_number(t, p) for t, p in ((1, 0), (2, 1), (3, 0))], [move_number(t, p) for t, p in ((1, 1), (2, 0))]
    ([1, 1, 2], [1, 2])
    """
    first = player if (turn - 1) % 2 == 0 else 1 - player       # the side of the game's first ply
    return (turn - 1 + first) // 2 + 1


def _last_move(moves: list[str], mover: int) -> dict | None:
    """The squares of the last of the observation's move texts (``e7e8=Q`` -> e7, e8), played by ``mover``."""
    if not moves:
        return None
    text = moves[-1]
    origin, dest = parse_square(text[:2]), parse_square(text[2:4])
    if origin is None or dest is None:
        return None
    return {"from": square_name(origin), "to": square_name(dest), "text": text, "player": mover}


def build_view(game_id: str, version: int, state: CrusadeState, human: int | None, thinking: bool, log: list,
               ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The human's whole view of a Crusade & Conquer game at one version (module docstring): the
    frame with each log entry's ``move``, the board's data and pieces, the fallen pieces, check, the
    end, the last move, the "how the pieces move" panel, ``turn_label`` and ``provisional``."""
    obs = state.observation(human)
    catalog = state.pos.catalog
    names = {u.token: u.name for u in catalog.units}
    shown = CrusadePosition.from_text(obs["position"], catalog)
    to_move = obs["to_move"]
    frame = view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note)
    numbered = [{**e, "move": move_number(e["turn"], e["player"])} if e.get("player") is not None and e.get("turn")
                else e for e in frame["log"]]
    # The move to be played (on a finished game: the last one played).
    ply, side = state.turn_number, to_move if to_move is not None else 1 - shown.side
    return {
        **frame,
        "log": numbered,
        "game": GAME_NAME,
        "title": TITLE,
        "module": MODULE,
        "players": list(SEATS),
        "to_move": to_move,
        "turn": state.turn_number,
        "turn_label": f"move {move_number(ply, side) if ply else 1}",
        "provisional": PROVISIONAL,
        "observation": obs,
        "board": board_data(catalog),
        "pieces": [{"square": sq, "token": token, "name": names[token], "owner": owner}
                   for sq, token, owner in shown.pieces()],
        "fallen": [[{"token": t, "name": names[t], "count": n} for t, n in side.items()] for side in obs["fallen"]],
        "check": to_move if obs["in_check"] and to_move is not None else None,
        "end": obs["end"],
        "last_move": _last_move(obs["moves"], 1 - shown.side),
        "how": how_to_play(catalog),
    }


def resign(state: CrusadeState, player: int) -> dict:
    """``player`` resigns; the resignation's fields."""
    state.resign(player)
    return {"kind": "resign"}
