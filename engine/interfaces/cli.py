"""The `ftc` command line."""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import socket
import stat
import sys
import time
from pathlib import Path

from engine import NAMED_POSITIONS, __version__, version_string
from engine.board import nnue_data, nnue_loop
from engine.board.alphabeta import MAX_DEPTH
from engine.board.evaluate import choose_network, default_net_path, evaluation_name, evaluation_settings
from engine.catalog import default_catalog
from engine.execution import ClusterError, UnitFailed, lower_priority, parse_cluster, run_units, session
from engine.games import registry
from engine.games.arguments import integer, positive
from engine.games.records import find_point, parse_at, read_game_file, record_points, state_at
from engine.games.registry import DEFAULT_GAME, UnknownGameError
from engine.games.review import (
    build_report,
    check_record,
    format_review,
    parse_players,
    plot_review,
    review_decision,
    review_units,
)
from engine.games.selfplay import run_protocol_selfplay
from engine.interfaces import protocol, uci
from engine.perft import PerftControl, PerftStopped, ProgressPrinter, raise_on_signals, stop_on_signals
from engine.search.ismcts import step_line
from engine.search.match import check_sprt_match, match_journal, match_players, plot_match, run_match
from engine.search.sprt import SPRT, add_sprt_options, sprt_option


class _VersionAction(argparse.Action):
    """`ftc --version`: the build line (engine.version_string), the board evaluation the board
    search uses by default and the one of the full-game AI's board judgements
    (engine/data/evaluation.toml: classical, or the network's digest and file)."""

    def __call__(self, parser, namespace, values, option_string=None):
        lines = [version_string()]
        for label, evaluation in (("evaluation", None), ("full-game evaluation", "full_game")):
            try:
                chosen = None if evaluation is None else evaluation_settings()[evaluation]
                lines.append(f"{label}: {evaluation_name(choose_network(chosen))}")
            except ValueError as exc:              # the default net is missing or does not fit
                lines.append(f"{label}: unusable ({exc})")
        print("\n".join(lines))
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """Errors as one ``ftc: error:`` line naming the command and the option, after the usage."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        command = self.prog.split()[-1]
        where = "" if command == "ftc" else f"{command}: "
        self.exit(2, f"ftc: error: {where}{message}\n")


def _cluster(text: str) -> str:
    """An argparse type: a --cluster value (engine.execution.parse_cluster), kept as text."""
    try:
        parse_cluster(text)
    except ClusterError as exc:
        raise argparse.ArgumentTypeError(str(exc).partition(": ")[2] + f", got {text!r}") from None
    return text


def _add_cluster_options(parser: argparse.ArgumentParser, default: str | None, what: str) -> None:
    """--cluster and --workers (engine/execution.py): where ``what`` happens (a clause, e.g. "the games
    run"), and on how many workers."""
    parser.add_argument("--cluster", type=_cluster, default=default,
                        help=f"where {what}: local (this machine's processes), ray (a local Ray, or the one "
                             f"RAY_ADDRESS names) or ray://HOST:PORT (a Ray cluster); default {default or 'threads'}")
    parser.add_argument("--workers", type=integer(1, 4096),
                        help="workers (default: every core, or every CPU of the Ray cluster; local 1: in this process)")


#: An argument longer than this is shortened in error messages (a position text pasted whole).
SHOWN_CHARACTERS = 100


def _shown(text: str) -> str:
    """``text`` as an error message quotes it: whole, or its start and its length when it is long."""
    return text if len(text) <= SHOWN_CHARACTERS else f"{text[:60]}... ({len(text)} characters)"


def _path_kind(text: str) -> str | None:
    """What the command-line argument ``text`` names on this machine: "file", "folder", "other" (a
    device, a pipe, a socket), or None when it names nothing here: no such path, or a text that no
    path can be (too long for a file name, a NUL character, a component that is a file...). Never
    raises: an argument that may be a path or a text (`ftc analyze TARGET`) is asked here first."""
    try:
        mode = os.stat(Path(text).expanduser()).st_mode
    except (OSError, ValueError):
        return None
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _parent_folder(path: Path, label: str) -> Path:
    """The folder that holds ``path``, which must exist and be a folder (no folder is made: a typo
    makes none); the error begins with ``label`` (the option and its value)."""
    folder = path.resolve().parent
    kind = _path_kind(str(folder))
    if kind is None:
        raise ValueError(f"{label}: the folder {folder} does not exist")
    if kind != "folder":
        raise ValueError(f"{label}: {folder} is not a folder")
    return folder


def _output_file(text: str, option: str, where: str = "") -> Path:
    """The file an option names to be written (``where``: a prefix such as "serve: "), checked before
    any work is done so that no result is lost: not a folder, in a folder that exists and may be
    written (no folder is created: a typo makes none)."""
    path = Path(text).expanduser()
    if _path_kind(text) == "folder":
        raise ValueError(f"{where}{option} {text}: it is a folder, not a file")
    folder = _parent_folder(path, f"{where}{option} {text}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{where}{option} {text}: the folder {folder} is not writable")
    return path


def _output_folder(text: str, option: str) -> Path:
    """The folder an option names to be written into (--records, --out), checked and made before any
    work is done: not a file, in a folder that exists (no parents are made: a typo makes none), and
    it is created here (or exists) and may be written. Whatever the system refuses (a read-only or
    virtual file system, a name too long) is one error naming the option."""
    path = Path(text).expanduser()
    kind = _path_kind(text)
    if kind == "file":
        raise ValueError(f"{option} {text}: it is a file, not a folder")
    if kind == "other":
        raise ValueError(f"{option} {text}: it is not a folder (a device, a pipe or a socket)")
    if kind is None:
        _parent_folder(path, f"{option} {text}")
        try:
            path.mkdir()
        except FileExistsError:
            pass                                    # made meanwhile: checked below like any folder
        except OSError as exc:
            raise ValueError(f"{option} {text}: cannot make the folder {path.resolve()} "
                             f"({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {text}: the folder is not writable")
    return path


def _plot_path(path: str | None, option: str = "--plot") -> None:
    """Refuse a plot that cannot be written before any work is done (the results would be lost)."""
    if path is None:
        return
    _output_file(path, option)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError(f"{option} needs matplotlib: pip install -e '.[plot]'") from None


def _game(args):
    """The game a command plays: --game (a registered game's name; default crown). --variant keeps its
    meaning inside the game; a game's name given as --variant (the old ``--variant kings-ransom``)
    still chooses that game, with a note. Without --variant the game's first variant is played (a
    game without variants: its name, as a configuration's "variant" names it)."""
    if args.variant is not None and args.game is None and args.variant in registry.names():
        print(f"ftc: note: --variant {args.variant} chooses a game: use --game {args.variant}", file=sys.stderr)
        args.game, args.variant = args.variant, None
    game = registry.get(args.game or DEFAULT_GAME)        # UnknownGameError names the known games (exit 2)
    if args.variant is None:
        args.variant = game.variants[0] if game.variants else game.name
    elif args.variant not in (game.variants or (game.name,)):
        raise ValueError(f"--variant {args.variant!r}: not a variant of {game.title} (its variants: "
                         f"{', '.join(game.variants or (game.name,))})")
    return game


def _given(args, names: tuple[str, ...], defaults: dict | None = None) -> dict:
    """The options among ``names`` the user gave (not None, not their default), by name."""
    defaults = defaults or {}
    return {name: getattr(args, name) for name in names
            if getattr(args, name) is not None and getattr(args, name) != defaults.get(name)}


#: `ftc perft`'s options a game may take (Game.positions.perft_options) and their values when not given.
PERFT_OPTIONS = {"promote": None, "cylindrical": False, "threads": 1, "cluster": None, "workers": None, "chance": None,
                 "players": None, "seed": None}


def cmd_perft(args) -> int:
    """perft / divide of the game's position text through its registry entry (``perft_run``: For
    the Crown's board counts root order by root order in threads or on a cluster; King's Ransom
    counts complete turns). SIGINT and SIGTERM stop the count within a second: one line on stderr,
    exit 128 + the signal number (130, 143)."""
    game = _game(args)
    options = _given(args, tuple(PERFT_OPTIONS), PERFT_OPTIONS)
    for name in options:
        if name not in game.positions.perft_options:
            raise ValueError(f"--{name}: not an option of {game.title} perft")
    if game.positions.perft_run is None and game.positions.divide is None:
        raise ValueError(f"--game {game.name}: {game.title} has no perft")
    control = PerftControl()
    progress = ProgressPrinter(force=args.progress)
    counts = None
    try:
        with stop_on_signals(control):
            if game.positions.perft_run is not None:
                counts, total, elapsed = game.positions.perft_run(args.position, args.depth, args.divide, options, progress,
                                                        control)
            else:
                start = time.perf_counter()
                counts = game.positions.divide(args.position, args.depth) if args.depth else None
                total = sum(counts.values()) if counts is not None else 1
                elapsed = time.perf_counter() - start
        if control.stopped:          # the signal came as the count ended: still an interrupted run
            raise PerftStopped(control.nodes, control.reason, counts)
    except PerftStopped as stop:
        progress.close()
        try:
            why = f"interrupted by {signal.Signals(stop.reason).name}"
        except ValueError:
            why = "interrupted"
        first = "root orders" if game.positions.perft_unit == "nodes" else f"first {game.positions.perft_unit}"
        print(f"ftc: perft stopped after {stop.nodes} {game.positions.perft_unit}, {len(stop.counts)} {first} counted in full "
              f"({why})", file=sys.stderr)
        return 128 + stop.reason if stop.reason else 130
    progress.close()
    if args.divide and counts is not None:
        for step, count in counts.items():
            print(f"{step}: {count}")
        print()
    if args.stats:
        rate = total / elapsed if elapsed > 0 else float("inf")
        print(f"Time: {elapsed:.3f} s, {rate:,.0f} {game.positions.perft_unit}/s", file=sys.stderr)
    print(f"Nodes searched: {total}")
    return 0


def cmd_units(args) -> int:
    catalog = default_catalog()
    if args.json:
        print(json.dumps([u.to_json() for u in catalog.units], indent=2))
        return 0
    print(f"{'token':6} {'name':11} {'classes':22} {'price':>5} {'stock':>5}  moves")
    for u in catalog.units:
        cyl = " (cylindrical)" if u.cylindrical else ""
        mark = "*" if u.provisional else " "
        print(f"{u.token:6} {u.name:11} {', '.join(u.classes):22} {u.price:>5} {u.stock:>5}{mark} {u.moves}{cyl}")
    print("\n* some values are PROVISIONAL (our choice, not printed data): edit engine/data/units.toml")
    return 0


def _pair(text: str, kind, option: str) -> tuple:
    """A (Blue, Yellow) option written BLUE,YELLOW (one value applies to both)."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) == 1:
        parts = parts * 2
    try:
        if len(parts) != 2:
            raise ValueError
        return tuple(kind(part) for part in parts)
    except ValueError:
        raise SystemExit(f"ftc selfplay: {option} expects BLUE,YELLOW, got {text!r}") from None


def cmd_selfplay(args) -> int:
    show = args.progress or sys.stderr.isatty()

    percent_shown = [-1]          # a line per percent of the games (on a cluster they finish in chunks)

    def progress(stats, elapsed):
        percent = stats.games * 100 // args.games
        if show and percent > percent_shown[0]:
            percent_shown[0] = percent
            rate = stats.games / elapsed if elapsed else 0.0
            print(f"\r[{stats.games}/{args.games}] {stats.decisions:,} decisions, {stats.errors} errors, "
                  f"{stats.violations} violations, {rate:.1f} games/s", end="", file=sys.stderr, flush=True)

    game = _game(args)
    options = {flag: value for flag, value, default in (
        ("--supply", args.supply, "random"),
        ("--starters", args.starters and _pair(args.starters, str, "--starters"), None),
        ("--extra-turns", args.extra_turns and _pair(args.extra_turns, int, "--extra-turns"), None),
        ("--secret-picks", args.secret_picks or None, None)) if value != default}
    if _players(game, args.players) is not None:
        options["--players"] = args.players
    if game.cli.selfplay is not None:
        run = game.cli.selfplay(args.games, args.seed, args.variant, options, not args.no_check, args.workers)
    else:
        if options:
            raise ValueError(f"{next(iter(options))}: not an option of {game.title}")
        run = lambda progress, cluster, records: run_protocol_selfplay(        # noqa: E731
            game.name, args.games, args.seed, check=not args.no_check, progress=progress, cluster=cluster,
            workers=args.workers, records=records)
    # Every game's records (engine/games/recordfiles.py): the folder made now, before any game.
    records = None if args.records is None else _output_folder(args.records, "--records")
    with session(args.cluster, args.workers) as cluster:         # connected before the clock starts
        stats = run(progress, cluster, records)
    if show:
        print(file=sys.stderr)
    for message in stats.messages[:20]:
        print(message, file=sys.stderr)
    results = ", ".join(f"{k}: {v}" for k, v in sorted(stats.results.items()))
    print(f"results: {results}; {stats.seconds:.1f} s, {stats.games / max(stats.seconds, 1e-9):.1f} games/s, "
          f"{stats.decisions / max(stats.seconds, 1e-9):,.0f} decisions/s")
    print(stats.summary())
    return 0 if stats.errors == 0 and stats.violations == 0 else 1


def _nnue_armies(command: str):
    """The armies the games of the NNUE commands start from: the game that sets up Point-Buy Chess
    (its CliPieces.nnue_armies)."""
    armies = next((g.cli.nnue_armies for g in registry.games() if g.cli.nnue_armies is not None), None)
    if armies is None:
        raise ValueError(f"{command}: none of the games ({', '.join(registry.names())}) sets up Point-Buy Chess armies")
    return armies


def _numbers(text: str, option: str, count: int, example: str) -> tuple[float, ...]:
    """``count`` comma-separated numbers of an option; ValueError naming the option."""
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        values = ()
    if len(values) != count:
        raise ValueError(f"{option} {text!r}: expected {count} comma-separated numbers, e.g. {example}")
    return values


def _guard_settings(args) -> dict:
    """nnue-loop's --guard-* options as LoopSettings fields; the others without --guard-mix are refused."""
    if args.guard_mix is None:
        given = [name for name in ("guard_sprt", "guard_compass", "guard_max_games") if getattr(args, name) is not None]
        if given:
            raise ValueError(f"--{given[0].replace('_', '-')}: a guard needs its armies, --guard-mix STANDARD,ORTHODOX,FAIRY")
        return {}
    fields: dict = {"guard_mix": _numbers(args.guard_mix, "--guard-mix", 3, "0,0,1")}
    if args.guard_sprt is not None:
        fields["guard_sprt"] = args.guard_sprt
    if args.guard_compass is not None:
        fields["guard_compass"] = args.guard_compass
    if args.guard_max_games is not None:
        fields["guard_max_games"] = args.guard_max_games
    return fields


def cmd_nnue_loop(args) -> int:
    """The NNUE training loop (engine/board/nnue_loop.py, docs/nnue-loop.md): generations of data,
    fine-tuning and an SPRT gate, resumable; --plot renders the chain file only."""
    chain, docs = Path(args.chain), Path(args.docs)
    render = lambda path: nnue_loop.render_chain(path, docs)  # noqa: E731
    if args.plot:
        render(chain)
        print(f"nnue-loop: {docs} and {docs.parent / 'results' / nnue_loop.PLOT} written from {chain}")
        return 0
    if args.work is None:
        raise ValueError("nnue-loop: --work DIR is required (the work folder; or --plot to render the chain only)")
    settings = nnue_loop.LoopSettings(
        rounds=args.rounds, seed=args.seed, games=args.games, nodes=args.nodes,
        mix=_numbers(args.mix, "--mix", 3, "0.15,0.6,0.25"), compass=args.compass, max_plies=args.max_plies,
        shard_games=args.shard_games, replay=args.replay, pool=args.pool, epochs=args.epochs, lr=args.lr, batch=args.batch,
        threads=args.threads, gate_nodes=args.gate_nodes, gate_movetime=args.gate_movetime,
        sprt=args.sprt, alpha=args.sprt_alpha, beta=args.sprt_beta,
        gate_max_games=args.gate_max_games, keep_data=args.keep_data,
        gate_mix=None if args.gate_mix is None else _numbers(args.gate_mix, "--gate-mix", 3, "1,0,0"),
        gate_compass=args.gate_compass, **_guard_settings(args))
    lower_priority(args.nice)                       # the workers started from here inherit it
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:    # SIGTERM too stops it as Ctrl-C does (a loop in the background: its SIGINT may be ignored)
        with session(args.cluster, args.workers) as cluster, raise_on_signals(PerftControl()):
            result = nnue_loop.run_loop(args.work, settings, _nnue_armies("nnue-loop"), SPRT,
                                        args.net_in, args.net_out, chain, cluster, args.workers, say,
                                        args.nice, render)
    except KeyboardInterrupt:
        print(f"\nftc: nnue-loop stopped: {nnue_loop.kept(args.work)}; the same command continues", file=sys.stderr)
        return 130
    accepted = sum(g["status"] == "accepted" for g in result.generations)
    print(f"nnue-loop: {len(result.generations)} generation(s) this run, {accepted} accepted; parent "
          f"{nnue_loop.load_net(result.parent).digest()}; chain {chain}")
    return 0


def cmd_nnue_data(args) -> int:
    """Training data for the learned evaluation (engine/board/nnue_data.py, docs/nnue-data.md): the
    missing shards made, progress on stderr, Ctrl-C keeps the finished shards (one line, exit 130)."""
    try:
        mix = tuple(float(x) for x in args.mix.split(","))
    except ValueError:
        raise ValueError(f"--mix {args.mix!r}: expected three shares STANDARD,ORTHODOX,FAIRY, e.g. 0.25,0.25,0.5") from None
    armies = _nnue_armies("nnue-data")
    _output_folder(args.out, "--out")               # before any game: a folder that cannot be made or written
    settings = nnue_data.Settings(seed=args.seed, games=args.games, nodes=args.nodes, opening_plies=args.opening_plies,
                                  max_plies=args.max_plies, mix=mix, compass=args.compass, budget=args.budget,
                                  shard_games=args.shard_games, evaluation=args.eval, net=args.net)
    tty = sys.stderr.isatty()
    report = lambda state: print(("\r" if tty else "") + state.line(), end="" if tty else "\n",  # noqa: E731
                                 file=sys.stderr, flush=True)
    try:
        with session(args.cluster, args.workers) as cluster:
            state = nnue_data.generate(args.out, settings, armies, cluster, args.workers, report)
    except KeyboardInterrupt:
        counts = (nnue_data.read_manifest(args.out) or {}).get("counts", {})
        print(("\n" if tty else "") + f"ftc: nnue-data stopped: {counts.get('shards', 0)} finished shards "
              f"({counts.get('games', 0)} games, {counts.get('positions', 0)} positions) kept in {args.out}; "
              "the same command continues", file=sys.stderr)
        return 130
    if tty and state.new_games:
        print(file=sys.stderr)
    per_game = state.positions / state.games if state.games else 0.0
    print(f"nnue-data: {args.out}: {state.games} games, {state.positions} positions ({per_game:.1f} per game); "
          f"this run {state.new_games} games, {state.new_positions} positions in {state.seconds:.1f} s "
          f"({state.positions_per_second:.1f} positions/s)")
    return 0


def _players(game, players: int | None) -> int | None:
    """--players checked against the game's player counts; None when not given or when the game has
    one player count (it needs no option)."""
    if players is None:
        return None
    if players not in game.players:
        counts = (f"{game.players.start}" if len(game.players) == 1 else
                  f"{game.players.start}-{game.players.stop - 1}")
        raise ValueError(f"--players {players}: {game.title} is played by {counts} players")
    return players if len(game.players) > 1 else None


def _sprt(args, players: int) -> SPRT | None:
    """The SPRT of `ftc match --sprt` (docs/sprt.md: game pairs, stopping when the test decides)."""
    if args.sprt is None:
        for flag, value in (("--sprt-alpha", args.sprt_alpha), ("--sprt-beta", args.sprt_beta)):
            if value is not None:
                raise ValueError(f"{flag} {value:g}: needs --sprt ELO0,ELO1")
        return None
    check_sprt_match(args.games, players)
    return SPRT(*args.sprt, alpha=0.05 if args.sprt_alpha is None else args.sprt_alpha,
                beta=0.05 if args.sprt_beta is None else args.sprt_beta, max_games=args.games)


def cmd_match(args) -> int:
    def spec(name: str) -> str:
        return name if ":" in name or not args.budget else f"{name}:{args.budget}"

    a_spec, b_spec = spec(args.a), spec(args.b)
    game = _game(args)
    game.bots.make_bot(a_spec, 0), game.bots.make_bot(b_spec, 0)     # fail fast on a bad bot name
    _plot_path(args.plot)                         # and on a plot that could not be written
    config = {"variant": args.variant}
    if _players(game, args.players) is not None:
        config["players"] = args.players          # A takes one seat, B every other (engine/search/match.py)
    supply = args.supply if args.supply in ("random", "first-game") else \
        tuple(name.strip() for name in args.supply.split(",") if name.strip())
    for flag, text, key, value in (
            ("--supply", args.supply, "supply", None if args.supply == "random" else supply),
            ("--position", args.position, "start_position", args.position and NAMED_POSITIONS.get(args.position, args.position)),
            ("--max-turns", args.max_turns, "max_turns", args.max_turns)):
        if not value:
            continue
        try:                                    # the game's own check of its options, one at a time
            game.config({**config, key: value}, "config")
        except ValueError as exc:
            raise ValueError(f"{flag} {text!r}: {getattr(exc, 'detail', exc)}") from None
        config[key] = value
    sprt = _sprt(args, match_players(config))
    journal = None if args.journal is None else match_journal(args.journal, a_spec, b_spec, args.seed, config,
                                                              args.opening, sprt)
    show = args.progress or sys.stderr.isatty()
    if journal is not None and journal.done:
        print(f"journal {args.journal}: {len(journal.done)} games kept, playing the others", file=sys.stderr)

    def progress(result):
        if show:
            low, high = result.interval()
            llr = "" if sprt is None else f"  LLR {sprt.llr():+.2f}"
            print(f"\r[{result.games}/{args.games}] W {result.wins} D {result.draws} L {result.losses}  "
                  f"score {100 * result.score:.1f}% (95% CI {100 * low:.0f}-{100 * high:.0f}%){llr}  {result.seconds:.0f}s",
                  end="", file=sys.stderr, flush=True)

    # Every game's record and matches.jsonl (engine/games/recordfiles.py): the folder made before any game.
    records = None if args.records is None else _output_folder(args.records, "--records")
    with session(args.cluster, args.workers) as cluster:         # connected before the clock starts
        result = run_match(a_spec, b_spec, args.games, args.seed, config, progress=progress,
                           opening_plies=args.opening, cluster=cluster, workers=args.workers, records=records,
                           sprt=sprt, journal=journal)
    if show:
        print(file=sys.stderr)
    # With --json, stdout is one JSON document and nothing else (a pipe into jq or json.load reads it
    # whole); the lines for a person go to stderr, after it.
    talk = sys.stderr if args.json else sys.stdout
    if args.plot:
        plot_match(result, args.plot)
    if args.json:
        print(json.dumps(result.to_json() | ({} if sprt is None else {"sprt": sprt.to_json()})), flush=True)
    else:
        print(result.details())
        if sprt is not None:
            print(sprt.summary())
    if args.plot:
        print(f"plot: {args.plot}", file=talk)
    print(result.summary(), file=talk)
    return 0


def _no_at(args, what: str) -> None:
    if args.at is not None:
        raise ValueError(f"--at {args.at!r}: {what} is one position; --at picks a point of a game record")


def _record_point(args, record: dict, state):
    """The state `ftc analyze RECORD` analyses and where it is (``{"decision", "of", "turn",
    "player"}``, None at the record's end): with --at, the record's decision it names, as its player
    saw it (engine.games.records.state_at); without, the record's end, unless the game is over:
    then it says so with the range --at takes, and the state is None (nothing to analyse)."""
    points = record_points(record)
    if args.at is None and not state.is_terminal():
        return state, None
    if args.at is None:
        turns = f"{points[0].turn}..{points[-1].turn}" if points else "-"
        if args.json:
            print(json.dumps({"over": state.over_reason, "winner": state.winner, "decisions": len(points),
                              "turns": [points[0].turn, points[-1].turn] if points else []}))
        else:
            print(f"the game is over: {state.over_reason}")
            if points:
                print(f"analyse a point of it with --at N (decisions 1..{len(points)}) or --at turn:T "
                      f"(turns {turns})")
        return None, None
    point = find_point(points, parse_at(args.at))
    print(f"decision {point.decision} of {len(points)}, turn {point.turn}: as {point.name} saw it "
          f"(the cards hidden from {point.name} are sampled)", file=sys.stderr)
    at = {"decision": point.decision, "of": len(points), "turn": point.turn, "player": point.player}
    return state_at(record, point, args.seed), at


#: `ftc analyze`'s options a game may take (Game.analysis.analysis_options).
ANALYSIS_OPTIONS = ("depth", "promote", "plot", "eval", "net", "players")


def cmd_analyze(args) -> int:
    """The best orders or turn of a position text, or of a game file (a record: its end, or the
    decision --at names; any other file the game reads, e.g. For the Crown's position view), through
    the game's registry entry. A file says which game it is; a position text is the --game's."""
    game = _game(args)
    target = args.target
    show = args.progress or sys.stderr.isatty()
    options = _given(args, ANALYSIS_OPTIONS)
    _plot_path(args.plot)

    def line(text: str) -> None:
        if show:
            print(text, file=sys.stderr)

    named = _path_kind(target)          # a file, a folder, or text (a position text is no path)
    if named == "folder":
        raise ValueError(f"{target}: it is a folder, not a game file or a position text")
    if named == "other":
        raise ValueError(f"{target}: not a regular file (a game record or position view is a JSON file)")
    if named is None and target.lower().endswith(".json"):
        raise ValueError(f"{_shown(target)}: no such game record or position view file")
    if named == "file":
        doc = read_game_file(target, "game file")
        try:
            game, state, kind, note = registry.open_file(doc)
        except (UnknownGameError, ValueError) as exc:
            raise ValueError(f"{target}: {exc}") from None
        _refuse(game, options)
        if "players" in options:
            raise ValueError(f"--players: {target} is a game file and names its players (--players is for startpos)")
        for name in options:
            if name != "plot" and name not in game.analysis.file_options:
                raise ValueError(f"--{name}: not an option of {game.title} analysis of a game file (it is for a "
                                 f"position text; a file's budget is --iterations or --time)")
        if note:
            print(note, file=sys.stderr)
        if "plot" in options:
            if kind != "record" or game.analysis.plot_record is None:
                raise ValueError(f"{target}: a {kind} has no history to plot (--plot needs a game record)")
        at = None
        if kind == "record":
            if args.plot:
                game.analysis.plot_record(doc, args.plot, f"{Path(target).name}: board evaluation")
                print(f"plot: {args.plot}", file=sys.stderr)
            state, at = _record_point(args, doc, state)
            if state is None:
                return 0
        else:
            _no_at(args, f"a {kind}")
            if state.is_terminal():
                report = {"over": state.over_reason, "winner": state.winner}
                print(json.dumps(report) if args.json else _format(game, report))
                return 0
        if game.analysis.analyze is None:
            raise ValueError(f"{target}: {game.title} has no analysis")
        report = game.analysis.analyze(state, args.iterations, args.time, args.top, args.seed, args.processes,
                                       progress=lambda *step: line(step_line(*step)),
                                       **{name: options[name] for name in game.analysis.file_options if name in options})
        if at is not None:
            report["at"] = at
        print(json.dumps(report) if args.json else _format(game, report))
        return 0
    _no_at(args, "a position text")
    _refuse(game, options)
    _players(game, args.players)
    if "plot" in options:
        raise ValueError(f"--plot: {_shown(target)!r} is one position and has no history to plot (--plot needs a game record)")
    if game.analysis.analyze_text is None:
        raise ValueError(f"{_shown(target)!r}: {game.title} analyses game files only (a record)")
    settings = {"iterations": args.iterations, "seconds": args.time, "top": args.top, "seed": args.seed,
                "processes": args.processes, **options}
    report = game.analysis.analyze_text(target, settings, line)
    print(json.dumps(report) if args.json else _format(game, report))
    return 0


def _refuse(game, options: dict) -> None:
    """A given option the game's analysis does not take is an error naming it."""
    for name in options:
        if name not in game.analysis.analysis_options:
            raise ValueError(f"--{name}: not an option of {game.title} analysis")


def _format(game, report: dict) -> str:
    """A game's analysis report as text for people (its ``format_analysis``, else JSON)."""
    return game.analysis.format_analysis(report) if game.analysis.format_analysis is not None else json.dumps(report, indent=2)


def cmd_review(args) -> int:
    """`ftc review RECORD`: every decision of the reviewed players searched as its player saw it,
    labelled by its loss against the engine's best choice (engine/games/review.py, docs/review.md);
    one unit per decision on the execution layer, progress on stderr, Ctrl-C prints the decisions
    reviewed so far (exit 130)."""
    named = _path_kind(args.record)
    if named != "file":
        what = {None: "no such record file", "folder": "it is a folder, not a record file"}.get(named, "not a regular file")
        raise ValueError(f"{_shown(args.record)}: {what}")
    record = read_game_file(args.record)
    try:
        game, players = check_record(record, args.game)
    except ValueError as exc:
        raise ValueError(f"{args.record}: {exc}") from None
    chosen = parse_players(game, players, args.player)
    for name in ("iterations", "depth"):
        if getattr(args, name) is not None and name not in game.analysis.review_options:
            raise ValueError(f"--{name}: not an option of {game.title} review (its budget: "
                             f"{', '.join(f'--{o}' for o in game.analysis.review_options) or '--time'} or --time)")
    _plot_path(args.plot)
    settings = {"iterations": args.iterations, "seconds": args.time, "depth": args.depth, "seed": args.seed}
    units = review_units(record, chosen, settings)
    show = args.progress or sys.stderr.isatty()
    done: dict[int, dict] = {}

    def progress(finished, total, index, result):
        done[index] = result
        if show:
            print(f"\r[{finished}/{total}] decisions reviewed", end="", file=sys.stderr, flush=True)

    stopped = False
    try:
        with session(args.cluster, args.workers) as cluster:
            run_units(review_decision, units, cluster, args.workers, progress)
    except KeyboardInterrupt:
        stopped = True
    if show:
        print(file=sys.stderr)
    entries = [done[i] for i in sorted(done)]
    report = build_report(game, Path(args.record).name, chosen, settings, entries, len(units))
    if args.plot and entries:
        plot_review(report, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr)
    print(json.dumps(report) if args.json else format_review(report))
    if stopped:
        print(f"ftc: review stopped: {len(entries)} of {len(units)} decisions reviewed", file=sys.stderr)
        return 130
    return 0


def cmd_balance(args) -> int:
    """Self-play games of one bot in every seat and the game's balance report (its registry entry's
    ``balance``: For the Crown's first player, cards, units and prices from play; Crownfall's Houses,
    seats, length and winning tracks), on stdout; CSV, JSON, the games' summaries and the plots with
    --out. Progress on stderr. Ctrl-C stops the run and reports the games finished (exit 130)."""
    game = _game(args)
    if game.cli.balance is None:
        having = [g.name for g in registry.games() if g.cli.balance is not None]
        raise ValueError(f"--game {game.name}: {game.title} has no balance report (games with one: {', '.join(having)})")
    options = {flag: value for flag, value in (("--supply", args.supply), ("--price-turn", args.price_turn),
                                               ("--bootstrap", args.bootstrap), ("--houses", args.houses),
                                               ("--rotate", args.rotate or None))
               if value is not None}
    if _players(game, args.players) is not None:
        options["--players"] = args.players
    plan = game.cli.balance(args.games, args.bot, args.seed, args.variant, options)     # checks the bot and options
    parse_cluster(args.cluster)
    if args.plot and args.out is None:
        raise ValueError("--plot: the plots are written into the --out folder: give --out DIR")
    out = None if args.out is None else _output_folder(args.out, "--out")
    if args.plot:
        _plot_path(str(out / "plot.png"), "--plot")             # matplotlib there, before any game
    show = args.progress or sys.stderr.isatty()
    start = time.perf_counter()
    finished: dict[int, dict] = {}

    def progress(done, total, index, result):
        finished[index] = result
        if show:
            elapsed = time.perf_counter() - start
            rate = done / elapsed if elapsed > 0 else 0.0
            left = f", {(total - done) / rate:.0f} s left" if rate > 0 and done < total else ""
            print(f"\r[{done}/{total}] games, {rate:.2f} games/s, {elapsed:.0f} s{left}", end="", file=sys.stderr,
                  flush=True)

    stopped = False
    try:
        with session(args.cluster, args.workers) as cluster:
            summaries = run_units(plan.play, plan.units, cluster, args.workers, progress)
    except KeyboardInterrupt:
        stopped = True
        summaries = [finished[i] for i in sorted(finished)]
    seconds = time.perf_counter() - start
    if show:
        print(file=sys.stderr)
    if stopped:
        print(f"\nftc: interrupted: {len(summaries)} of {args.games} games finished", file=sys.stderr)
        if not summaries:
            return 130
    report = plan.report(summaries)
    print(plan.format(report))
    print(f"{len(summaries)} games in {seconds:.1f} s ({len(summaries) / max(seconds, 1e-9):.2f} games/s, "
          f"{seconds / max(len(summaries), 1):.2f} s of wall time a game)" + (f"; stopped after {len(summaries)} of {args.games}"
                                                                if stopped else ""))
    if out is not None:
        written = plan.write(report, out)
        with open(out / "balance_games.jsonl", "w", encoding="utf-8") as f:   # the per-game summaries
            f.writelines(json.dumps(summary) + "\n" for summary in summaries)
        written.append(out / "balance_games.jsonl")
        try:
            written += plan.plot(report, out)
        except RuntimeError:
            print("plots skipped: matplotlib is not installed (pip install -e '.[plot]')")
        print("wrote " + ", ".join(str(path) for path in written))
    return 130 if stopped else 0


DEFAULT_PORT = 8731


def _listen(host: str, port: int | None) -> socket.socket:
    """A socket listening on ``host``:``port`` (``port`` None: DEFAULT_PORT, or any free port when
    that one is taken; 0: any free port). Bound before anything is printed or started, so a taken
    port is one clear error and leaves nothing behind."""
    try:
        family, _, _, _, address = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise ValueError(f"serve: --host {host}: not an address this machine can listen on ({exc.strerror})") from None
    for candidate in ([port] if port is not None else [DEFAULT_PORT, 0]):
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # a past server's TIME_WAIT is no obstacle
            sock.bind((address[0], candidate) + tuple(address[2:]))
            sock.listen(2048)
            return sock
        except OSError as exc:
            sock.close()
            if exc.errno == errno.EADDRINUSE and port is None and candidate:
                continue
            if exc.errno == errno.EADDRINUSE:
                problem = (f"port {candidate} is in use on {host} (another server?): choose another --port, "
                           "or --port 0 for any free one")
            elif exc.errno == errno.EACCES:
                problem = f"cannot listen on {host}:{candidate}: permission denied (ports below 1024 need privileges)"
            elif exc.errno == errno.EADDRNOTAVAIL:
                problem = f"cannot listen on {host}:{candidate}: {host} is not an address of this machine"
            else:
                problem = f"cannot listen on {host}:{candidate}: {exc.strerror or exc}"
            raise ValueError(f"serve: {problem}") from None
    raise AssertionError("unreachable: port 0 is always free")


def _db_path(text: str, option: str = "--db") -> Path:
    """The --db file, checked before serving: not a folder, in a folder that exists and may be
    written (the default file's folder is created; a given one must exist, so a typo creates no
    folders). Whether the file is an SQLite database is checked when it is opened."""
    path = _output_file(text, option, "serve: ")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ValueError(f"serve: {option} {text}: the file is not readable and writable")
    return path


def _store_location(args, store) -> str | Path:
    """Where `ftc serve` keeps its games: --store URL (postgresql://..., postgres://..., sqlite:///PATH
    or a path) or --db PATH (SQLite; the same as --store PATH), never both; the default file when
    neither is given. An SQLite path is checked here; a database is opened (and so checked) by
    create_app."""
    if args.db is not None and args.store is not None:
        raise ValueError("serve: --db and --store both name the games' database: give one (--db PATH is "
                         "--store PATH)")
    if args.store is None:
        return _db_path(args.db) if args.db is not None else None
    text = args.store
    if text.startswith(("postgresql://", "postgres://")):
        return text
    if text.startswith("sqlite:///") and text != "sqlite:///":
        return _db_path(text[len("sqlite:///"):], "--store")
    if store.is_url(text) or text.startswith("sqlite:"):
        raise ValueError(f"serve: --store {store.describe_location(text)}: not a store this server knows: give "
                         "postgresql://USER:PASSWORD@HOST:PORT/DATABASE, sqlite:///PATH or a path")
    return _db_path(text, "--store")


def _server_stack():
    """The web server's modules: FastAPI and uvicorn are the optional ``server`` extra (the engine,
    perft, UCI and the protocol need neither, and start in a tenth of the time without them)."""
    try:
        import uvicorn  # noqa: F401 - the extra's presence is checked here, once

        from engine.interfaces.server import app, run, store
    except ImportError as exc:
        raise ValueError(f"ftc serve needs the server extra ({exc.name} is missing): "
                         "pip install -e '.[server]'") from None
    return app, run, store


def _site_folder(text: str | None):
    """The folder of the built manual `ftc serve` shows at /site/: --site DIR (a folder holding
    index.html, checked here), else the source checkout's site/ when built, else None."""
    from engine.interfaces.server.site import built_site, default_site_dir
    if text is None:
        return default_site_dir()
    folder = Path(text)
    if not folder.is_dir():
        raise ValueError(f"serve: --site {text}: not a folder (build the manual with `mkdocs build`: it writes site/)")
    if not built_site(folder):
        raise ValueError(f"serve: --site {text}: no index.html there, not a built manual (`mkdocs build` writes one)")
    return folder


def cmd_serve(args) -> int:
    """The web server. Every option, the --db file and the port are checked (the port bound) before
    anything is served or printed. SIGINT or SIGTERM shut it down with every child process, within
    seconds; the exit status is then 0 (a signal is how a server is meant to stop)."""
    server, run, store = _server_stack()
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if not args.ai_timeout > 0:
        raise ValueError(f"--ai-timeout must be a positive number of seconds, got {args.ai_timeout}")
    for name in ("requests_per_second", "games_per_minute"):
        if not getattr(args, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive number, got {getattr(args, name)}")
    if args.games_per_client < 1:
        raise ValueError(f"--games-per-client must be at least 1, got {args.games_per_client}")
    db = _store_location(args, store) or server.default_db_path()
    limits = server.Limits(requests_per_second=args.requests_per_second, request_burst=max(1, int(4 * args.requests_per_second)),
                    games_per_minute=args.games_per_minute, game_burst=max(1, int(args.games_per_minute / 3)),
                    games_per_client=args.games_per_client, games_idle_seconds=args.idle_minutes * 60,
                    ai_max_seconds=args.max_ai_seconds, idle_seat_seconds=args.idle_seat_minutes * 60)
    from engine.interfaces.server.edge import trusted_networks
    from engine.interfaces.server.guard import origin_of
    trusted = trusted_networks(args.trusted_proxy)            # ValueError names a bad address
    for text in args.allow_origin:
        try:
            origin_of(text)
        except ValueError as exc:
            raise ValueError(f"--allow-origin {text}: {exc}") from None
    site = _site_folder(args.site)
    sock = _listen(args.host, args.port)
    try:
        try:
            # --cluster: where the AI thinks (local: this machine's processes); Ray is connected to here.
            app = server.create_app(db, ai_workers=args.workers, ai_pool=args.cluster, ai_timeout=args.ai_timeout,
                                    limits=limits, pool_size=args.pool_size, allow_origins=args.allow_origin,
                                    site=site)
        except (store.StorageError, ValueError) as exc:          # ValueError: a bad --cluster, or no Ray there
            raise ValueError(f"serve: {exc}") from None
        port = sock.getsockname()[1]
        print(f"ftc-engine {__version__} serving http://{args.host}:{port}/  (games: {store.describe_location(db)}; "
              f"API: /openapi.json; instance {app.state.server.instances.id})",
              flush=True)
        stopped_by = run.serve(app, sock, trusted_proxies=trusted)
    finally:
        sock.close()
    if stopped_by:
        print(f"ftc-engine stopped ({signal.Signals(stopped_by).name})", flush=True)
    return 0


def cmd_engine(args) -> int:
    return protocol.run(sys.stdin, sys.stdout)


def cmd_uci(args) -> int:
    return uci.run(sys.stdin, sys.stdout)


#: Where the rule numbers ("11.4") and ruling IDs ("ruling C8") of the help texts are explained.
RULES_NOTE = ("Rules: rule numbers such as 11.4 are sections of docs/rules/for-the-crown.md, ruling IDs such as "
              "C8 entries of docs/rules/rulings.md; `ftc serve` shows both at /rules.")


def _games_named() -> str:
    """The registered games (engine/games/registry.py, FTC_GAMES modules' too), each with its --game
    name: the one list of every text that names them."""
    default = registry.get(DEFAULT_GAME)
    return ", ".join(f"{g.title} ({g.name}{', the default' if g is default else ''})" for g in registry.games())


def _add_game_options(parser: argparse.ArgumentParser, example: str = "") -> None:
    """--game and --variant (engine/games/registry.py; checked by _game, which names the choices)."""
    parser.add_argument("--game", metavar="NAME", help=f"the game, by its name: {_games_named()}")
    variants = "; ".join(f"{g.title}: {', '.join(g.variants)}, the first the default"
                         for g in registry.games() if g.variants)
    parser.add_argument("--variant", help=f"a variant of the game ({variants}); a game's name here chooses that "
                                          "game (the old form)" + (f"; {example}" if example else ""))


def _own(game, what: str, add, *args) -> None:
    """A game's own commands or options added (its ``CliPieces``); one that clashes with a command
    or option already there is a ValueError naming the game."""
    try:
        add(*args)
    except argparse.ArgumentError as exc:
        raise ValueError(f"{game.title} ({game.name}): its own {what} clash with those there: {exc}") from None


def _add_nnue_loop_parser(sub) -> None:
    d = nnue_loop.LoopSettings()
    nl = sub.add_parser("nnue-loop", help="the NNUE training loop: per generation fresh data with the parent net, "
                                          "fine-tuning from it and an SPRT gate against it (docs/nnue-loop.md)")
    nl.add_argument("--work", metavar="DIR", help="the work folder (state, data, candidates); the same command "
                                                  "continues a stopped run")
    nl.add_argument("--rounds", type=integer(1, 10000), default=d.rounds, help=f"generations (default {d.rounds})")
    nl.add_argument("--seed", type=integer(0), default=d.seed, help=f"seed of the data and the gates (default {d.seed})")
    nl.add_argument("--games", type=integer(1), default=d.games, help=f"data games per generation (default {d.games})")
    nl.add_argument("--nodes", type=integer(1), default=d.nodes, help=f"data: nodes per order (default {d.nodes})")
    nl.add_argument("--mix", default=",".join(f"{x:g}" for x in d.mix), metavar="STANDARD,ORTHODOX,FAIRY",
                    help="data (and the gate, without --gate-mix): shares of the armies (default %(default)s)")
    nl.add_argument("--compass", type=float, default=d.compass,
                    help=f"data (and the gate, without --gate-compass): Compass-mode share (default {d.compass})")
    nl.add_argument("--max-plies", type=integer(1, 60000), default=d.max_plies,
                    help=f"adjudicate a draw after this many orders (default {d.max_plies})")
    nl.add_argument("--shard-games", type=integer(1), default=d.shard_games, help=f"games per shard (default {d.shard_games})")
    nl.add_argument("--replay", type=float, default=d.replay, help="share of the previous generation's games "
                                                                   "trained on again when they are not in the pool "
                                                                   f"(default {d.replay})")
    nl.add_argument("--pool", type=integer(0, 10**9), default=d.pool,
                    help="positions of the parent's rejected generations trained on again by its next candidate "
                         f"(0: none; default {d.pool})")
    nl.add_argument("--epochs", type=integer(1), default=d.epochs, help=f"fine-tuning epochs (default {d.epochs})")
    nl.add_argument("--lr", type=float, default=d.lr, help=f"fine-tuning learning rate (default {d.lr:g})")
    nl.add_argument("--batch", type=integer(1), default=d.batch, help=f"training batch (default {d.batch})")
    nl.add_argument("--threads", type=integer(1, 1024), default=d.threads, help=f"torch threads (default {d.threads})")
    nl.add_argument("--gate-nodes", type=integer(1), help=f"gate: nodes per order (default {nnue_loop.DEFAULT_GATE_NODES})")
    nl.add_argument("--gate-movetime", type=float, help="gate: seconds per order instead of nodes")
    nl.add_argument("--gate-mix", metavar="STANDARD,ORTHODOX,FAIRY",
                    help="gate: shares of the armies of its games (default: --mix's); 1,0,0 gates on the standard "
                         "position alone")
    nl.add_argument("--gate-compass", type=float, help="gate: Compass-mode share of its games (default: --compass's)")
    add_sprt_options(nl, "the candidate over the parent", d.sprt, d.alpha, d.beta, prefix="gate: ")
    nl.add_argument("--gate-max-games", type=integer(2), default=d.gate_max_games,
                    help=f"gate: games at most; undecided by then, the candidate is rejected (default {d.gate_max_games})")
    nl.add_argument("--guard-mix", metavar="STANDARD,ORTHODOX,FAIRY",
                    help="guard: a second SPRT on these armies that a candidate which passed its gate must pass "
                         "too (default: none); e.g. --gate-mix 1,0,0 --guard-mix 0,0,1 gates on the standard "
                         "position and guards the fairy armies")
    nl.add_argument("--guard-sprt", type=sprt_option, metavar="ELO0,ELO1",
                    help=f"guard: its Elo bounds (default {d.guard_sprt[0]:g},{d.guard_sprt[1]:g}: not much worse there; "
                         "a first bound below 0 is written with '=', --guard-sprt=-20,0)")
    nl.add_argument("--guard-compass", type=float,
                    help=f"guard: Compass-mode share of its games (default {d.guard_compass:g})")
    nl.add_argument("--guard-max-games", type=integer(2),
                    help=f"guard: games at most; undecided by then, the candidate is rejected "
                         f"(default {d.guard_max_games})")
    nl.add_argument("--keep-data", action="store_true", help="keep each generation's data (default: deleted)")
    nl.add_argument("--net-in", metavar="FILE", default=str(default_net_path()), help="the starting net of a new work "
                    "folder (default: the shipped net, engine/data/ftc.nnue)")
    nl.add_argument("--net-out", metavar="FILE", help="also write each net that passes here (default: only the work "
                    "folder's parent.nnue; shipping a net takes more than its gate: docs/nnue.md)")
    nl.add_argument("--chain", metavar="FILE", default=str(nnue_loop.DEFAULT_CHAIN), help="the chain file every generation is "
                    "appended to (default docs/results/nnue-chain.json)")
    nl.add_argument("--docs", metavar="FILE", default=str(nnue_loop.DEFAULT_DOCS), help="the chain's page, rewritten with its "
                    "plot beside it in results/ (default docs/nnue-chain.md)")
    nl.add_argument("--plot", action="store_true", help="only render --chain into --docs and its plot")
    nl.add_argument("--nice", type=integer(0, 19), default=10, help="the loop's niceness, its workers' too (default 10)")
    _add_cluster_options(nl, "local", "the data and gate games run")
    nl.set_defaults(func=cmd_nnue_loop)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ftc", description=f"ftc-engine: a reference engine for {len(registry.games())} games, "
                                             f"each chosen with --game NAME: {_games_named()}. It counts "
                                             "positions for correctness checks (perft), gives the analysis of "
                                             "positions and hands for the best orders, and is an AI opponent "
                                             "backend (the web board, UCI, the JSON-lines protocol).")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the build (version, instruction set, build mode) and the board evaluation, and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("perft", help="count order sequences (rulings A5, C8)")
    p.add_argument("position", help="position text (ruling A3, quote it) or a name: " + ", ".join(NAMED_POSITIONS))
    p.add_argument("depth", type=integer(0), help="plies (orders) to look ahead, >= 0; King's Ransom: complete turns; "
                                                   "Crownfall: player decisions")
    _add_game_options(p, "kings-ransom: count complete turns of King's Ransom (ruling G8; position text of "
                         "docs/kings-ransom.md, or startpos)")
    p.add_argument("--divide", action="store_true", help="print the count below every root order")
    p.add_argument("--chance", metavar="MODE", help="Crownfall: chance steps expanded (every outcome a branch, the "
                                                    "default) or fixed (one outcome: the position's deck order or seed)")
    p.add_argument("--players", type=integer(1, 16), help="Crownfall startpos: players, 2-4 (default 2)")
    p.add_argument("--seed", type=integer(0), help="Crownfall startpos: the chance generator's seed (default 0)")
    p.add_argument("--promote", metavar="TOKENS", help="promotion types, e.g. NBRQ (default: every base type)")
    p.add_argument("--cylindrical", action="store_true", help="Compass mode: every unit moves cylindrically")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    p.add_argument("--stats", action="store_true", help="print time and nodes/s on stderr")
    p.add_argument("--threads", type=integer(1, 256), default=1,
                   help="count the root orders in parallel threads (without --cluster and --workers)")
    _add_cluster_options(p, None, "the subtrees are counted")
    p.set_defaults(func=cmd_perft)

    sp = sub.add_parser("selfplay", help="seeded random games with every invariant checked")
    sp.add_argument("--games", type=integer(1), default=100)
    sp.add_argument("--seed", type=int, default=0)
    _add_game_options(sp)
    sp.add_argument("--players", type=integer(1, 16), help="players of a game for several (Crownfall: 2-4; default: "
                                                          "the game's default set-up)")
    sp.add_argument("--supply", default="random", help="random, first-game, or card names separated by commas")
    sp.add_argument("--records", metavar="DIR", help="write every game's JSON record here (game-<seed>.json)")
    sp.add_argument("--no-check", action="store_true", help="skip the invariant checks (speed measurement)")
    sp.add_argument("--secret-picks", action="store_true", help="Point-Buy: pick the armies behind a screen")
    sp.add_argument("--starters", metavar="BLUE,YELLOW",
                    help="starting Decks, e.g. squire+parchment,standard (standard, squire, parchment, squire+parchment)")
    sp.add_argument("--extra-turns", metavar="BLUE,YELLOW", help="11.4 handicap: extra turns taken before the normal alternation (a head start), e.g. 1,0")
    sp.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    _add_cluster_options(sp, "local", "the games run")
    sp.set_defaults(func=cmd_selfplay)

    nd = sub.add_parser("nnue-data", help="training data for the NNUE evaluation: alpha-beta self-play of Point-Buy "
                                          "Chess, quiet positions with score and result (docs/nnue-data.md)")
    nd.add_argument("--out", metavar="DIR", required=True, help="the data folder (shards and manifest.json)")
    nd.add_argument("--games", type=integer(1), default=1000, help="games (default 1000)")
    nd.add_argument("--seed", type=integer(0), default=0, help="game i has the seed SEED + i (default 0)")
    nd.add_argument("--nodes", type=integer(1), default=5000, help="search nodes per order (default 5000)")
    nd.add_argument("--opening-plies", type=integer(0, 200), default=6,
                    help="random orders before the search plays: N-2..N+2 per game (default 6)")
    nd.add_argument("--max-plies", type=integer(1, 60000), default=300, help="adjudicate a draw after this many "
                                                                               "orders (default 300)")
    nd.add_argument("--mix", default="0.25,0.25,0.5", metavar="STANDARD,ORTHODOX,FAIRY",
                    help="shares of the armies: start position, orthodox and fairy Point-Buy (default 0.25,0.25,0.5)")
    nd.add_argument("--compass", type=float, default=0.1, help="fraction of games in Compass mode (default 0.1)")
    nd.add_argument("--budget", type=integer(1, 200), default=38, help="Point-Buy budget of each side (default 38)")
    nd.add_argument("--shard-games", type=integer(1), default=10, help="games per shard (default 10)")
    nd.add_argument("--eval", choices=("classical", "nnue"), help="the searches' evaluation (default: the board "
                                                                  "search's, engine/data/evaluation.toml)")
    nd.add_argument("--net", metavar="FILE", help="the network file of --eval nnue (default: the shipped one); the "
                                                  "manifest records its digest")
    _add_cluster_options(nd, "local", "the games run")
    nd.set_defaults(func=cmd_nnue_data)

    _add_nnue_loop_parser(sub)

    m = sub.add_parser("match", help="play bots against each other (alternating sides)")
    m.add_argument("--a", required=True, help="bot A: random, greedy, expert[:DEPTH], ismcts[:ITER|:Ss], alphabeta[:DEPTH|:Ss]")
    m.add_argument("--b", required=True, help="bot B, same forms (with --players N: B takes the other N-1 seats)")
    m.add_argument("--games", type=integer(1), default=20, help="games to play (default 20); with --sprt the most "
                                                                 "games, an even number (pairs)")
    m.add_argument("--seed", type=int, default=0)
    _add_game_options(m)
    m.add_argument("--players", type=integer(1, 16), help="players of each game (Crownfall: 2-4): A takes one seat, "
                                                         "B all the others; A's seat rotates over the games")
    m.add_argument("--supply", default="random", help="random, first-game, or card names separated by commas")
    m.add_argument("--budget", help="budget for bots given without one: ISMCTS iterations / alpha-beta depth, or '0.5s'")
    m.add_argument("--position", help="Point-Buy start position (text or a name: startpos); default: bots pick armies")
    m.add_argument("--max-turns", type=integer(1, 100_000), help="turn limit (ruling C3; default 500)")
    m.add_argument("--opening", type=integer(0), default=0, metavar="PLIES",
                   help="random decisions before the bots play (the same for both games of a pair)")
    m.add_argument("--plot", metavar="PNG", help="write the running score with its 95%% interval as a plot")
    m.add_argument("--records", metavar="DIR", help="write every game's JSON record here (match-<i>.json) and "
                                                    "matches.jsonl: each game's seats, seed and result")
    add_sprt_options(m, "A over B; --games is then the most games")
    m.add_argument("--journal", metavar="FILE", help="keep every finished game in FILE (JSON lines) and resume from "
                                                     "the games it holds: a match stopped goes on where it stopped "
                                                     "(docs/sprt.md); refused when FILE is another match's")
    m.add_argument("--json", action="store_true", help="print the result as one JSON document on stdout (the "
                                                        "summary line goes to stderr)")
    m.add_argument("--progress", action="store_true")
    _add_cluster_options(m, "local", "the games run")
    m.set_defaults(func=cmd_match)

    an = sub.add_parser("analyze", help="best orders of a position, or the best turn plan of a saved game")
    an.add_argument("target", help="position text (or a name: startpos, crown), a game record file (JSON) or a "
                                    "position view (the server's download of what a player may know)")
    an.add_argument("--at", metavar="N|turn:T",
                    help="game records: analyse the game at a past point, as the player to move saw it then "
                         "(the cards hidden from them are sampled): N = before the record's N-th decision "
                         "(1 = the first; chance draws are not decisions), turn:T = at the first decision of "
                         "turn T (1 = the first turn). Default: the record's end; a finished game lists the range")
    an.add_argument("--depth", type=integer(1, MAX_DEPTH), help=f"positions: search depth in plies (1..{MAX_DEPTH}, "
                                                                  "the search's limit)")
    an.add_argument("--time", type=positive, metavar="SECONDS",
                    help="thinking time. Position texts (alpha-beta): a hard limit; the search deepens until it "
                         "is up and answers from the deepest depth it finished (it stops sooner at --depth, "
                         f"depth {MAX_DEPTH} or a solved position). Game records and views (ISMCTS): the budget of the "
                         "whole analysis, used in full (the turn plan up to two thirds, the ranking of the "
                         "first actions all that is left). King's Ransom: the budget of the turn, shared "
                         "among its decisions (a turn that ends before its Play step leaves the rest). "
                         "Starting up and reading a record come on top")
    an.add_argument("--iterations", type=integer(1), help="games: ISMCTS iterations (default 2000)")
    an.add_argument("--processes", type=integer(1, 256), default=1, help="games: root-parallel processes")
    an.add_argument("--top", type=integer(1, 100), default=3, help="how many orders / first actions to list")
    an.add_argument("--promote", metavar="TOKENS", help="positions: promotion types")
    an.add_argument("--seed", type=int, default=0)
    an.add_argument("--plot", metavar="PNG", help="games: plot the board evaluation over the game so far")
    an.add_argument("--eval", choices=("classical", "nnue"),
                    help="positions: the board evaluation (default: engine/data/evaluation.toml's; docs/nnue.md)")
    an.add_argument("--net", metavar="FILE", help="positions: the network file of --eval nnue (default: the shipped one)")
    _add_game_options(an, "kings-ransom: the best turn of a King's Ransom position text (or startpos) or record")
    an.add_argument("--players", type=integer(1, 16), help="startpos of a game for several (Crownfall: 2-4; default 2)")
    an.add_argument("--json", action="store_true")
    an.add_argument("--progress", action="store_true")
    an.set_defaults(func=cmd_analyze)

    rv = sub.add_parser("review", help="review a game record: each decision's loss against the engine's best "
                                       "choice, labelled good, inaccuracy, mistake or blunder (docs/review.md)")
    rv.add_argument("record", help="a game record file (JSON) of any game")
    rv.add_argument("--player", metavar="P", help="the player to review: a seat's name (Blue) or its index (0 = the "
                                                  "first); default: every player, each from its own view")
    rv.add_argument("--game", metavar="NAME", help=f"refuse a record of any other game than NAME: {_games_named()}")
    rv.add_argument("--time", type=positive, metavar="SECONDS",
                    help="seconds of search per decision (labels may then vary from run to run); default: a "
                         "fixed budget (--iterations or --depth, else the game's analysis default)")
    rv.add_argument("--iterations", type=integer(1), help="ISMCTS games: iterations per decision (default 2000)")
    rv.add_argument("--depth", type=integer(1, MAX_DEPTH), help="alpha-beta games (Crusade & Conquer): plies per "
                                                                "decision (default 4)")
    rv.add_argument("--seed", type=int, default=0, help="the seed of the searches and of the sampled hidden cards")
    rv.add_argument("--plot", metavar="PNG", help="write the evaluation graph over the game")
    rv.add_argument("--json", action="store_true", help="the review as JSON (docs/review.md)")
    rv.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    _add_cluster_options(rv, "local", "the decisions are reviewed")
    rv.set_defaults(func=cmd_review)

    ba = sub.add_parser("balance", help="balance report from self-play: For the Crown's first player, cards, units "
                                        "and prices; Crownfall's Houses, seats, length and winning tracks")
    ba.add_argument("--games", type=integer(1, 1_000_000), default=400)
    ba.add_argument("--bot", default="expert", help="the bot playing every seat (default expert, the rule-based bot)")
    _add_game_options(ba)
    ba.add_argument("--players", type=integer(1, 16), help="players of each game (Crownfall: 2-4, default 2)")
    ba.add_argument("--houses", help="Crownfall: Houses by seat: rotate (default: every arrangement in turn, so each "
                                     "House sits in each seat equally often), random, default (the set-up's own), or "
                                     "House keys by seat separated by commas")
    ba.add_argument("--rotate", action="store_true", help="Crownfall: the first seat moves on by one each round "
                                                          "(RULINGS I16's option; default: the same order every round)")
    ba.add_argument("--supply", help="For the Crown: random (a new Supply per game, the default), first-game, or card "
                                     "names separated by commas")
    ba.add_argument("--seed", type=integer(0, 2**63 - 1 - 1_000_000), default=0, help="seed of the first game (the others follow)")
    ba.add_argument("--cluster", default="local", help="local (default), ray or ray://HOST:PORT (engine/execution.py)")
    ba.add_argument("--workers", type=integer(1, 4096), help="worker processes (default: one per core)")
    for game in registry.games():                   # the games' own options of `ftc balance`
        if game.cli.add_options is not None:
            _own(game, "options of `ftc balance`", game.cli.add_options, "balance", ba)
    ba.add_argument("--bootstrap", type=integer(0, 10_000), help="For the Crown: bootstrap resamples of the price fit (default 200)")
    ba.add_argument("--out", metavar="DIR", help="write balance.csv, balance.json, balance_games.jsonl and the plots "
                                                 "(when matplotlib is installed) here")
    ba.add_argument("--plot", action="store_true", help="the plots are required: refused before any game without "
                                                        "matplotlib or without --out")
    ba.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    ba.set_defaults(func=cmd_balance)

    sv = sub.add_parser("serve", help="play against the engine in the browser (and the HTTP/WebSocket API)")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    sv.add_argument("--port", type=integer(0, 65535), help=f"port (default {DEFAULT_PORT}, or a free one if it is taken)")
    sv.add_argument("--db", help="SQLite file for the games (default: the user's data folder); the same as --store PATH")
    sv.add_argument("--store", metavar="URL", help="where the games are kept: postgresql://USER:PASSWORD@HOST:PORT/DATABASE "
                                                   "(several servers may share it), sqlite:///PATH or a path "
                                                   "(docs/server.md, \"Storage: SQLite or PostgreSQL\")")
    sv.add_argument("--pool-size", type=integer(2, 1000), default=8,
                    help="connections to PostgreSQL (half write, half read; default 8)")
    sv.add_argument("--workers", type=integer(1, 256), default=2,
                    help="AI worker processes (with --cluster ray: the CPUs of the local Ray it starts)")
    sv.add_argument("--cluster", default="local", metavar="local|ray|ray://HOST:PORT",
                    help="where the AI thinks: this machine's processes (default), a local Ray, or a Ray cluster "
                         "(it sees every hidden card: trust it like this machine; docs/server.md)")
    sv.add_argument("--ai-timeout", type=positive, default=120.0,
                    help="seconds one whole AI turn may take; the greedy bot takes what is left")
    sv.add_argument("--max-ai-seconds", type=positive, default=10.0,
                    help="seconds one AI decision may think at most, whatever a client's AI settings ask")
    sv.add_argument("--requests-per-second", type=positive, default=50.0,
                    help="API requests per second one client address may make (bursts of 4 s worth)")
    sv.add_argument("--games-per-minute", type=positive, default=30.0, help="new games per minute per client address (bursts of 20 s worth)")
    sv.add_argument("--games-per-client", type=integer(1), default=50, help="games in play at once per client address")
    sv.add_argument("--idle-minutes", type=positive, default=60.0,
                    help="a game unchanged this long no longer counts toward --games-per-client (it is kept)")
    sv.add_argument("--idle-seat-minutes", type=positive, default=15.0,
                    help="in an untimed game without resignation (Crownfall), a seat to decide that does not act "
                         "this long is played by the easy bot from then on (default 15)")
    sv.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                    help="a reverse proxy (address or network) whose X-Forwarded-For names the client; repeat "
                         "for more (default: none, so no peer can claim another address)")
    sv.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                    help="an origin (scheme://host[:port]) whose pages may use the API besides the server's own, "
                         "such as a reverse proxy's public address; repeat for more (default: none: a request "
                         "from another site's page is refused, docs/server.md)")
    sv.add_argument("--site", metavar="DIR", help="the built manual (`mkdocs build`), shown at /site/ (default: the "
                                                  "source checkout's site/ when built; without one, /site/ says how "
                                                  "to build it)")
    sv.set_defaults(func=cmd_serve)

    en = sub.add_parser("engine", help="JSON-lines protocol on stdin/stdout for bots and GUIs (docs/protocol.md)")
    en.set_defaults(func=cmd_engine)

    uc = sub.add_parser("uci", help="UCI protocol for chess GUIs and match tools: Point-Buy Chess (docs/uci.md)")
    uc.set_defaults(func=cmd_uci)

    u = sub.add_parser("units", help="list the unit catalog")
    u.add_argument("--json", action="store_true")
    u.set_defaults(func=cmd_units)
    for game in registry.games():                   # the games' own commands (For the Crown: cards, puzzles)
        if game.cli.add_commands is not None:
            _own(game, "commands", game.cli.add_commands, sub)
    for command in (parser, *sub.choices.values()):
        command.epilog = RULES_NOTE
    return parser


#: The side-to-move field of a position text (For the Crown: w, b; King's Ransom: r, b).
_SIDE_FIELDS = ("w", "b", "r")


def _unquoted_position(argv: list[str]) -> str | None:
    """An error for `ftc perft|analyze` given a position text as several words (unquoted, the shell
    splits it at its spaces): a board field (a word with '/') followed by a side-to-move field. The
    message shows the words as the one argument they should be. None when the words look fine."""
    if not argv or argv[0] not in ("perft", "analyze"):
        return None
    for i, word in enumerate(argv[1:-1], 1):
        if "/" not in word or word.startswith("-") or argv[i + 1] not in _SIDE_FIELDS:
            continue
        fields = [word]
        for extra in argv[i + 1:]:
            if extra.startswith("--"):
                break
            fields.append(extra)
        if argv[0] == "perft" and len(fields) > 2 and fields[-1].isdigit():
            fields.pop()                                    # the depth, the argument after the text
        text = " ".join(fields)
        depth = " DEPTH" if argv[0] == "perft" else ""
        return (f"{argv[0]}: the position text {text!r} arrived as {len(fields)} words: quote it, "
                f"e.g. ftc {argv[0]} '{text}'{depth}")
    return None


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()          # its help names the registry's games: a bad FTC_GAMES shows here
    except ValueError as exc:
        print(f"ftc: error: {exc}", file=sys.stderr)
        return 2
    argv = sys.argv[1:] if argv is None else list(argv)
    problem = _unquoted_position(argv)
    if problem is not None:
        parser.exit(2, f"ftc: error: {problem}\n")
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # malformed position/order text, bad catalog: a clear message, no traceback
        print(f"ftc: error: {exc}", file=sys.stderr)
        return 2
    except UnitFailed as exc:  # a unit of work that raised on a worker (engine/execution.py)
        print(f"ftc: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nftc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head or less that closed early
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:   # a file the command could not read or write (the options' paths are checked
        # before any work, so this is the system failing midway: a full disk, a file removed meanwhile)
        where = f"{_shown(str(exc.filename))}: " if exc.filename else ""
        print(f"ftc: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
