"""The registry of games: one ``Game`` entry per game, by name, in the spirit of OpenSpiel's game
registry and Ludii's games-as-entries. A game is one package (its rules, state, actions, search
pieces) plus its entry module, which builds a ``Game`` and calls ``register``; ``BUILTIN`` is the one
list of the entry modules this engine ships. Every layer above the games asks here for a game by
name and never tells the games apart itself (tests/test_architecture.py enforces it).

A ``Game`` says who the game is (name, title, players, variants, seats, rules page), how its states
and records are made (``config``, ``new_state``, ``replay``, ``recognise``, ``walk``,
``open_file``), and then groups its pieces by the interface that needs them, each group a small
frozen dataclass whose fields are all optional but the bots':

- ``bots`` (``Bots``): its bots, their words for people and the web board's AI levels (the match
  runner, the CLI, the web server);
- ``search`` (``SearchPieces``): the information-set search's pieces and the protocol session's
  search (engine/search, engine/interfaces/protocol.py);
- ``positions`` (``Positions``): position texts and perft (`ftc perft`, the protocol session);
- ``analysis`` (``Analysis``): `ftc analyze` and the protocol session's ``analyze``;
- ``cli`` (``CliPieces``): the rest of the command line: selfplay, balance, reading actions, the
  game's own commands and options (For the Crown's `ftc cards`, `ftc puzzles`), the NNUE data's armies;
- ``web`` (``WebBoard``): the web board, or None for the generic one.

An entry builds only the groups it has, so that it reads in one screen (engine/crown/entry.py).

>>> get("crown").title, get("kings-ransom").players
('For the Crown', range(2, 3))
>>> for_variant("point-buy").name, for_variant("kings-ransom").name, for_variant(None).name
('crown', 'kings-ransom', 'crown')
>>> get("chess")
Traceback (most recent call last):
...
engine.games.registry.UnknownGameError: unknown game 'chess'; known: crown, kings-ransom, crownfall, crusade
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.games.bots import describe_spec
from engine.games.protocol import GameStateProtocol
from engine.quiet import shown

__all__ = ["Game", "Bots", "SearchPieces", "Positions", "Analysis", "ReviewScale", "CliPieces", "WebBoard", "BalancePlan", "UnknownGameError", "BUILTIN", "DEFAULT_GAME", "register", "record_format", "get",
           "names", "games", "for_state", "for_record", "open_file", "for_variant", "variant_names", "new_state", "replay"]

#: The entry modules of the games this engine ships, imported (in this order) at the first lookup;
#: each calls ``register``. A new game adds its entry module here (docs/architecture.md).
BUILTIN = ("engine.crown.entry", "engine.ransom.entry", "engine.crownfall.entry", "engine.crusade.entry")
#: The environment variable naming further entry modules (comma-separated, importable), loaded after
#: ``BUILTIN``: a game outside the engine (a plugin, a test's toy game) for every command of a process.
PLUGINS_ENV = "FTC_GAMES"
#: The game a command plays when none is named.
DEFAULT_GAME = "crown"


class UnknownGameError(KeyError, ValueError):
    """A game name (or record, or variant) the registry does not know; the message names the known ones."""

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class Bots:
    """A game's players. ``bot_names`` and ``make_bot(spec, seed)``: its bots ("greedy",
    "ismcts:800", ...; a bad spec is a ValueError naming the known ones); ``bot_words``: what its own
    bots are, in words for people, where engine.games.bots.BOT_WORDS does not say it
    (``Game.bot_label(spec)``: a spec in those words, for the web board's menus); ``ai_levels``: the
    AI levels the web server's new-game form offers, level -> bot spec (a spec ``make_bot`` takes),
    named as the server's levels (easy, normal, strong; a subset is fine); empty: the server's own
    levels when the game's bots take their specs, else the game's bots by name."""

    bot_names: tuple[str, ...]
    make_bot: Callable[[str, int], Any]
    bot_words: Mapping[str, str] = field(default_factory=dict)
    ai_levels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchPieces:
    """What a game gives a search. For the information-set search (engine/search/ismcts.py), each a
    factory returning a fresh object or None (the search goes without it): ``evaluator(state,
    player)`` in [-1, 1] for cut playouts, ``prior`` (``suggest(state, rng)`` and ``weight``, PUCT),
    ``playout`` (``choose(state, rng)``), ``planner`` (a turn planner: ``find_win`` / ``plan``),
    ``prune`` (``prune(state, legal)``: the actions the tree considers); ``options``: the game's
    other ISMCTS settings (``max_playout_turns``, ``c``, ``trusted_phases``, ...).

    For the protocol session's ``search`` command: ``searcher(iterations, seconds, seed,
    processes)``, the search behind it (``search(state)`` -> statistics; ``plan_turn(state)`` when
    ``search_fields`` has "plan"), or None (the game has no such search); ``search_fields``: the
    optional search/analyze fields it reads beyond the budget ("processes", "plan")."""

    evaluator: Callable[[], Any] | None = None
    prior: Callable[[], Any] | None = None
    playout: Callable[[], Any] | None = None
    planner: Callable[[], Any] | None = None
    prune: Callable[[], Any] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    searcher: Callable[..., Any] | None = None
    search_fields: tuple[str, ...] = ()

    def settings(self) -> dict:
        """The ISMCTS keyword arguments of these pieces (new objects; None where the game has none)."""
        made = {name: (None if factory is None else factory())
                for name, factory in (("evaluator", self.evaluator), ("prior", self.prior),
                                      ("playout", self.playout), ("planner", self.planner), ("prune", self.prune))}
        return {**made, **self.options}


@dataclass(frozen=True)
class Positions:
    """A game's position texts (a position written as text, "startpos" its start) and their
    move-path counts, for `ftc perft` and the protocol session's ``perft`` and ``position``; each
    field optional (a game without positions has none).

    - ``perft(position, depth)`` / ``divide(position, depth)``: the count from a position text, in
      all and by first step;
    - ``position(text)``: a position text written out in full (a ValueError names what is wrong);
      ``perft_limit``: the deepest perft of a given position one protocol request may ask (None:
      no perft of a given position there);
    - ``perft_run(text, depth, divide, options, progress, control)``: `ftc perft` of a position
      text: ({first step: count} or None, total, seconds the count took); ``progress`` takes
      engine.perft.PerftProgress, ``control`` (engine.perft.PerftControl) stops it (PerftStopped);
      ``options``: the game's own options given, by name, from ``perft_options``; ``perft_unit``:
      what it counts ("nodes", "turns") (default: ``divide`` / ``perft`` at once, no options)."""

    perft: Callable[[str, int], int] | None = None
    divide: Callable[[str, int], dict] | None = None
    position: Callable[[str], str] | None = None
    perft_limit: int | None = None
    perft_run: Callable[..., tuple] | None = None
    perft_options: tuple[str, ...] = ()
    perft_unit: str = "nodes"


@dataclass(frozen=True)
class Analysis:
    """A game's analysis (`ftc analyze` and the protocol session's ``analyze``); each field optional.

    - ``analyze(state, iterations, seconds, top, seed, processes)``: a report of a state; it may
      take ``progress`` (called with the search's reports; the record board's raises to stop it)
      and, where ``stoppable``, ``stop``: a threading.Event whose setting ends the search within
      moments, however long its budget (the record board's Stop; a search that takes neither runs
      to its budget); ``file_options``: the game's own options (of ``analysis_options``) that this
      analysis takes, as keywords, when `ftc analyze` reads a game file (Crusade & Conquer's
      "depth"); the others are refused for a file;
    - ``analyze_text(text, options, progress)``: `ftc analyze` of a position text (or "startpos")
      as a report, ``options`` the analysis settings ("iterations", "seconds", "top", "seed",
      "processes") and the game's own from ``analysis_options``; ``progress(line)`` takes a line to
      show; ``format_analysis(report)``: a report as text for people (default: JSON);
    - ``plot_record(record, path, title)``: a plot of a record's course (`ftc analyze --plot`);
    - ``review(state, played, settings)``: one decision of `ftc review` (engine/games/review.py):
      ``state`` the game at the decision as its player saw it, ``played`` the action taken there,
      ``settings`` {"iterations", "seconds", "depth", "seed"} (None: the game's default budget);
      returns {"best": text, "best_action": code, "value": the best choice's value, "played_value":
      the played action's value, "line": [texts], "searched": how the played value was found} in
      the game's value scale, for the player deciding; ``review_scale``: that scale and its labels'
      thresholds (``ReviewScale``); ``review_options``: the budget options it takes ("iterations",
      "depth")."""

    analyze: Callable[..., dict] | None = None
    analyze_text: Callable[..., dict] | None = None
    analysis_options: tuple[str, ...] = ()
    file_options: tuple[str, ...] = ()
    format_analysis: Callable[[dict], str] | None = None
    plot_record: Callable[[dict, str, str], None] | None = None
    review: Callable[..., dict] | None = None
    review_scale: ReviewScale | None = None
    review_options: tuple[str, ...] = ()
    stoppable: bool = False


@dataclass(frozen=True)
class ReviewScale:
    """A game's value scale for `ftc review` and where its labels begin: a decision whose loss (the
    best choice's value minus the played one's, for the player deciding) is at least ``blunder`` is
    a blunder, else at least ``mistake`` a mistake, else at least ``inaccuracy`` an inaccuracy, else
    good. ``unit``: the scale in words ("centi-points"); ``digits``: decimals shown; ``why``: one
    sentence on where the thresholds come from (the game's docs page repeats it).

    >>> ReviewScale("centi-points", 50, 100, 300).label(120)
    'mistake'
    """

    unit: str
    inaccuracy: float
    mistake: float
    blunder: float
    digits: int = 0
    why: str = ""

    def __post_init__(self):
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder:
            raise ValueError(f"ReviewScale: thresholds must rise: {self.inaccuracy}, {self.mistake}, {self.blunder}")

    def label(self, loss: float) -> str:
        """good, inaccuracy, mistake or blunder for a loss in this scale."""
        for name, threshold in (("blunder", self.blunder), ("mistake", self.mistake), ("inaccuracy", self.inaccuracy)):
            if loss >= threshold:
                return name
        return "good"

    def to_json(self) -> dict:
        return {"unit": self.unit, "inaccuracy": self.inaccuracy, "mistake": self.mistake, "blunder": self.blunder}


@dataclass(frozen=True)
class CliPieces:
    """What the command line (engine/interfaces/cli.py, and the protocol session of `ftc protocol`)
    takes from a game beyond the other groups; each field optional (a game without one gets the
    generic behaviour).

    - ``selfplay(games, seed, variant, options, check, workers)``: its own `ftc selfplay` (checked
      before it returns) as ``run(progress, cluster, records) -> SelfPlayStats`` (``records``: the
      folder of --records or None, written through engine.games.selfplay.run_seeds in the calling
      process); ``options``: the command's game options given, by flag ({"--supply": ...}), an
      unknown one a ValueError "<flag>: not an option of <title>" (default:
      engine/games/selfplay.py, the protocol's invariants, no options);
    - ``balance(games, bot, seed, variant, options)``: `ftc balance` of the game, ``games`` games of
      the bot ``bot`` in every seat from seed ``seed`` on, as a ``BalancePlan``; ``options``: the
      command's game options given, by flag ({"--players": 3}), an unknown one a ValueError
      "<flag>: not an option of <title>", a bad bot or value a ValueError naming the option (None:
      the game has no balance report);
    - ``read_action(state, legal, text)``: the legal action whose text is ``text`` (None: none),
      a faster lookup than writing every text (default: compares the texts);
    - ``lists_action_fields``: whether the protocol's ``actions`` lists each action's fields;
    - ``add_commands(sub)``: adds the game's own commands to `ftc` (``sub``: the command line's
      argparse subparsers; each command sets ``func(args)`` -> exit status, a ValueError is the
      one-line error of exit 2; For the Crown's `ftc cards` and `ftc puzzles`); their option types
      are engine/games/arguments.py's;
    - ``add_options(command, parser)``: adds the game's own options to the shared command
      ``command`` ("balance": For the Crown's --price-turn), which passes them on by flag;
    - ``nnue_armies``: the ``Armies`` maker of `ftc nnue-data` (engine/board/nnue_data.py), the
      starts of its Point-Buy Chess games, from the game that sets Point-Buy Chess up (For the Crown)."""

    selfplay: Callable[..., Any] | None = None
    balance: Callable[..., BalancePlan] | None = None
    read_action: Callable[[Any, list, str], int | None] | None = None
    lists_action_fields: bool = True
    add_commands: Callable[[Any], None] | None = None
    add_options: Callable[[str, Any], None] | None = None
    nnue_armies: Callable[..., Any] | None = None


@dataclass(frozen=True)
class WebBoard:
    """The game on the web server (engine/interfaces/server). ``module``: the script under
    engine/interfaces/server/static/ that draws its board (a game without a ``WebBoard`` gets
    generic.js: its observation as a table, its legal actions as buttons). The other fields are
    "module:function" names (named, not imported, since the server is an optional extra), each
    optional: without one the server does the generic thing (engine/games/view.py).

    - ``view``: ``build(game_id, version, state, human, thinking, log, ai_last_turn, ai_note)``, the
      human's whole view (engine.games.view.view_frame plus the game's own parts); default: the
      frame, the observation, the seats;
    - ``step``: ``step(state, player, action, viewer)`` applies ``player``'s ``action`` and returns
      its log entry ``{"turn", "player", "text", "fields"}`` as ``viewer`` may know it (hidden
      choices redacted); default: the action's text and fields;
    - ``new_game``: ``new_game(form, entropy)``, a new state from the new-game form (``form``:
      "variant" or None, "seed" or None, "supply", "options", "human" (the human's seat); ``entropy``: the server's secret
      generator, for what the client must not predict); a ValueError (its message says what is
      wrong) is the client's 422; default: ``Game.start`` of the options, with the variant, seed and
      supply the client gave;
    - ``resign``: ``resign(state, player)``, ``player`` resigns, returning the resignation's fields;
      default: the game has no resignation (409);
    - ``variant``: ``variant(state)``, the variant a saved game's summary names; default: the
      game's name;
    - ``knowledge``: ``knowledge(state, player, rng)`` -> ``(prefix, document)``, what ``player`` may
      know as a file to download (a ValueError says why there is none now); default: none (400);
    - ``form``: ``form()``, the game's own fields of the new-game form (GET /api/games/kinds ``form``;
      the web client builds the form from it and names no game): a list of ``{"name", "label",
      "title", "choices": [{"value", "label"}]}`` (a menu) or ``{"name", "label", "title", "note",
      "number": {"min", "max", "placeholder"}}`` (a number, left out when empty); each value goes in
      ``options`` under ``name``, but ``human`` (the human's seat), ``variant``, ``supply`` and ``seed``
      go at the body's top level. A choice may add ``title``, ``note`` (the line under its menu),
      ``first`` (the seat that moves first with it) and ``seats`` (``[{"label", "note"}]``, the seat
      menu's entries with it); default: none (the form offers the seats of its fewest players);
    - ``pages``: "module:factory" names, each ``factory(limits, static)`` -> an object with ``name`` (the app's ``state.<name>``),
      ``router`` (a FastAPI router the server mounts: the game's own pages and endpoints),
      ``bodies`` (``{path: (max_bytes, max_values, before_body)}``: larger request bodies, see
      engine/interfaces/server/guard.py) and ``close()`` (the server's shutdown); ``limits`` is the
      server's ``Limits``, ``static`` its static folder. For the Crown's card catalog;
    - ``analysis``: "module:function", ``function()`` -> the game's pieces of the analysis board
      (``/analysis?game=NAME``), a dict whose ``page`` says which board: "board" (For the Crown's
      position board, analysis.html: ``read_position``, ``describe_position``,
      ``record_walkthrough``, ``record_error``, ``max_record_bytes``; engine/interfaces/server/
      analysis.py) or "record" (any game with ``walk`` and ``Analysis.analyze``: a record stepped
      through as one seat saw it, each point drawn by the game's board module and analysed by
      ``Analysis.analyze``; engine/interfaces/server/game_analysis.py), with ``choices(report,
      state)`` -> ``{"choices": [{"text", "value", "value_text", "line": [texts], "arrow": [from,
      to] or None, "highlight": [names]}], "value", "value_text", "over", "info"}`` (the report
      ranked, best first; values in the game's scale, ``value`` for the bar), ``evaluate(state,
      seat)`` -> the value of ``state`` (the game as ``seat``, the loaded seat, saw it: the cards
      hidden from it dealt again) for the seat ``scale`` names, one point of the evaluation graph
      over a record, cheap enough for every decision (or None: no graph), ``mark`` (the data
      attribute of the board module's elements an arrow's squares and a highlight's names are,
      "square", "region"; "" none), ``scale`` (the values in words), and where the game reads a
      position text, ``read_state(text)`` -> a new game at that position (a ValueError names what is
      wrong: the page's pasted position) with ``position_hint`` (what a text looks like)."""

    module: str
    view: str = ""
    step: str = ""
    new_game: str = ""
    resign: str = ""
    variant: str = ""
    knowledge: str = ""
    form: str = ""
    pages: tuple[str, ...] = ()
    analysis: str = ""


@dataclass(frozen=True)
class BalancePlan:
    """One `ftc balance` of a game (``Game.cli.balance`` makes it, its options checked): ``play`` (a
    module-level function) and ``units`` (its arguments, one tuple per game) are the execution
    layer's units (engine/execution.py ``run_units``), each returning a game's summary (a JSON-able
    dict); ``report(summaries)``: the statistics of the summaries played (any number of them, in
    unit order; a run stopped early reports those it finished) as a JSON-able dict;
    ``format(report)``: the report as text; ``write(report, folder)``: its CSV and JSON files written
    into ``folder``, returning their paths; ``plot(report, folder)``: its plots written there
    (matplotlib, the ``plot`` extra; RuntimeError without it), returning their paths."""

    play: Callable[..., dict]
    units: tuple[tuple, ...]
    report: Callable[[list], dict]
    format: Callable[[dict], str]
    write: Callable[[dict, Any], list]
    plot: Callable[[dict, Any], list]


@dataclass(frozen=True)
class Game:
    """One game of the engine: who it is, its states and records, then its pieces grouped by the
    interface that needs them (the module's docstring).

    ``name`` is what ``--game`` and configurations name it by; ``title`` is its name for people;
    ``description`` a sentence of what it is, from a capital letter (the web board's home page
    shows it under the title); ``players`` how many may play; ``variants`` its own variants
    (``--variant`` inside the game; the first is its default); ``aliases`` are other names that
    choose it (King's Ransom's old ``--variant kings-ransom``); ``seats``: the players' names by
    index ("Blue", "Yellow"; default "player 0", ...); ``docs``: the stem of its rules page
    (docs/rules/<docs>.md, served at /rules/<docs>), "" when it has none.

    - ``config(data, where)``: a validated configuration from JSON-decoded ``data`` (a dict; None
      for the defaults), raising a ValueError whose message names the option as ``where.option``
      (For the Crown: ``GameConfig.from_json``);
    - ``new_state(config)``: a new game (a state of the protocol, engine/games/protocol.py) of a
      configuration ``config`` made;
    - ``replay(record)``: the state a record (``state.record()``) describes; ``recognise(record)``:
      whether a record (also of an older engine) is this game's;
    - ``walk(record)``: (a fresh state of the record's set-up with chance not automatic, its steps as
      (player, action) pairs, the action that stands for a resignation or None): how
      engine/games/records.py finds a record's decisions (``ftc analyze RECORD --at``), or None;
    - ``open_file(doc)``: a JSON game file of this game read as (state, kind, note): kind "record",
      or the name of another kind of file the game reads (For the Crown's "position view"), and a
      line to show about it or None; None when the document is not one of the game's files; a
      ValueError names what is wrong (default: a record ``recognise`` takes, replayed).

    The groups: ``bots`` (``Bots``), ``search`` (``SearchPieces``), ``positions``
    (``Positions``), ``analysis`` (``Analysis``), ``cli`` (``CliPieces``), ``web`` (``WebBoard``,
    or None: the generic board)."""

    name: str
    title: str
    description: str
    players: range
    variants: tuple[str, ...]
    config: Callable[..., Any]
    new_state: Callable[[Any], GameStateProtocol]
    replay: Callable[[dict], GameStateProtocol]
    recognise: Callable[[Any], bool]
    bots: Bots
    docs: str
    aliases: tuple[str, ...] = ()
    seats: tuple[str, ...] = ()
    walk: Callable[[dict], tuple] | None = None
    open_file: Callable[[Any], tuple | None] | None = None
    search: SearchPieces = field(default_factory=SearchPieces)
    positions: Positions = field(default_factory=Positions)
    analysis: Analysis = field(default_factory=Analysis)
    cli: CliPieces = field(default_factory=CliPieces)
    web: WebBoard | None = None

    def seat(self, player: int) -> str:
        """The name of seat ``player`` (``seats``, else "player N")."""
        return self.seats[player] if player < len(self.seats) else f"player {player}"

    def bot_label(self, spec: str) -> str:
        """The bot ``spec`` in words for people ("ismcts:0.5s": "full AI, 0.5 s a decision")."""
        return describe_spec(spec, dict(self.bots.bot_words))

    def start(self, data: Any = None, where: str = "config") -> GameStateProtocol:
        """A new game from JSON-decoded configuration ``data`` (validated: ``config``)."""
        return self.new_state(self.config(data, where))


_GAMES: dict[str, Game] = {}
_NAMES: dict[str, str] = {}        # every name, alias and variant -> the game's name
_ALIASES: dict[str, str] = {}      # every name and alias -> the game's name
_loaded = False


def record_format(name: str) -> Callable[[Any], bool]:
    """A ``Game.recognise`` for records that name their format in a "format" field equal to ``name``."""
    def recognise(record: Any) -> bool:
        return isinstance(record, dict) and record.get("format") == name
    recognise.__doc__ = f"A record of format {name!r}."
    return recognise


def register(game: Game) -> Game:
    """Add a game. Its name, aliases and variants must not choose another game already."""
    if not isinstance(game, Game):
        raise TypeError(f"register: expected a Game, got {type(game).__name__}")
    taken = {}
    for key in (game.name, *game.aliases, *game.variants):
        owner = _NAMES.get(key)
        if owner is not None and owner != game.name:
            taken[key] = owner
    if game.name in _GAMES or taken:
        clash = f"the name {game.name!r} is taken" if game.name in _GAMES else \
            ", ".join(f"{k!r} already chooses {v!r}" for k, v in taken.items())
        raise ValueError(f"register: game {game.name!r}: {clash}")
    _GAMES[game.name] = game
    for key in (*game.variants, *game.aliases, game.name):
        _NAMES[key] = game.name
    for key in (*game.aliases, game.name):
        _ALIASES[key] = game.name
    return game


def unregister(name: str) -> None:
    """Remove a game (tests that register a toy game take it out again)."""
    game = _GAMES.pop(name)
    for table in (_NAMES, _ALIASES):
        for key in [k for k, v in table.items() if v == game.name]:
            del table[key]


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN:
            importlib.import_module(module)
        for module in plugin_modules():
            try:
                importlib.import_module(module)
            except ImportError as exc:
                raise ValueError(f"{PLUGINS_ENV}: cannot import the game entry module {module!r} ({exc})") from None


def plugin_modules() -> tuple[str, ...]:
    """The entry modules ``FTC_GAMES`` names (none when it is unset or empty)."""
    return tuple(m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip())


def games() -> tuple[Game, ...]:
    """Every registered game, the built-in ones first."""
    _load()
    return tuple(_GAMES.values())


def names() -> tuple[str, ...]:
    """The registered games' names."""
    return tuple(g.name for g in games())


def get(name: str) -> Game:
    """The game named ``name`` (or one of its aliases); UnknownGameError names the known games."""
    _load()
    owner = _ALIASES.get(name) if isinstance(name, str) else None
    if owner is None:
        raise UnknownGameError(f"unknown game {shown(name)}; known: {', '.join(_GAMES)}")
    return _GAMES[owner]


def for_variant(variant: str | None) -> Game:
    """The game a ``--variant`` (or a configuration's "variant") chooses: a game's name or alias, or
    one of a game's variants; None: the default game."""
    _load()
    if variant is None:
        return _GAMES[DEFAULT_GAME]
    owner = _NAMES.get(variant) if isinstance(variant, str) else None
    if owner is None:
        raise UnknownGameError(f"unknown variant {shown(variant)}; known: {', '.join(variant_names())}")
    return _GAMES[owner]


def variant_names() -> tuple[str, ...]:
    """The names ``--variant`` offers: each game's variants (a game without variants: its name),
    then its aliases; For the Crown's variants and ``kings-ransom``, as ``--variant`` always has."""
    return tuple(v for g in games() for v in (*(g.variants or (g.name,)), *g.aliases))


def for_state(state) -> Game:
    """The game a state (of the protocol) belongs to, by its ``game`` name."""
    name = getattr(state, "game", None)
    if not isinstance(name, str):
        raise UnknownGameError(f"{type(state).__name__} is not a game state (it has no game name)")
    return get(name)


def for_record(record) -> Game:
    """The game whose ``recognise`` takes the record (the first registered that does)."""
    for game in games():
        if game.recognise(record):
            return game
    raise UnknownGameError(f"not a record of any game this engine plays ({', '.join(names())})")


def open_file(doc: Any) -> tuple[Game, Any, str, str | None]:
    """(game, state, kind, note) of a JSON game file of any registered game (``Game.open_file``); a
    ValueError says what it is not."""
    for game in games():
        if game.open_file is not None:
            opened = game.open_file(doc)
        else:
            opened = (game.replay(doc), "record", None) if game.recognise(doc) else None
        if opened is not None:
            return (game, *opened)
    kind = doc.get("format") if isinstance(doc, dict) else None
    raise UnknownGameError(f"not a game file of any game this engine plays ({', '.join(names())}): its 'format' "
                           f"is {kind!r}"[:240])


def new_state(name: str, data: Any = None, where: str = "config") -> GameStateProtocol:
    """A new game of the game ``name`` from JSON-decoded configuration ``data``."""
    return get(name).start(data, where)


def replay(record) -> GameStateProtocol:
    """The state a record of any registered game describes (its game's ``replay``)."""
    return for_record(record).replay(record)
