"""For the Crown's own `ftc` commands, added to the command line through its registry entry
(``CliPieces.add_commands``, ``add_options``: engine/crown/entry.py), so that the command line
imports no game: `ftc cards` (the card catalog), `ftc puzzles` (a bot's solve rate on the puzzle
suite, or the stored solutions verified) and `ftc balance`'s --price-turn."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import time

from engine.crown.balance import ARMY_TURNS
from engine.crown.cards import default_cards
from engine.crown.players import make_bot
from engine.crown.puzzles import DEFAULT_PUZZLES, check_puzzle, load_puzzles, solve_rate
from engine.games.arguments import positive

__all__ = ["add_commands", "add_options", "cmd_cards", "cmd_puzzles"]


def add_commands(sub) -> None:
    """`ftc cards` and `ftc puzzles` added to the command line's subparsers ``sub``."""
    c = sub.add_parser("cards", help="list the card catalog")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_cards)

    pz = sub.add_parser("puzzles", help="a bot's solve rate on the puzzle suite (win this turn, survive the reply)")
    pz.add_argument("--bot", default="ismcts:1s", help="random, greedy, ismcts[:ITER|:Ss], alphabeta[:DEPTH|:Ss]")
    pz.add_argument("--seconds", type=positive, default=1.0, help="thinking time per decision (default 1)")
    pz.add_argument("--file", default=str(DEFAULT_PUZZLES), help="puzzle file (TOML; default: the test suite's)")
    pz.add_argument("--only", metavar="ID[,ID]", help="run these puzzles only")
    pz.add_argument("--seed", type=int, default=0)
    pz.add_argument("--verify", action="store_true",
                    help="instead: check every stored solution with the exhaustive verifier")
    pz.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    pz.set_defaults(func=cmd_puzzles)


def add_options(command: str, parser) -> None:
    """For the Crown's own options of the shared command ``command`` (`ftc balance`: --price-turn)."""
    if command == "balance":
        parser.add_argument("--price-turn", type=int, choices=ARMY_TURNS,
                            help="For the Crown: the armies after this many game turns are the price fit's data "
                                 "(default 20)")


def cmd_cards(args) -> int:
    cards = default_cards()
    if args.json:
        print(json.dumps([c.to_json() for c in cards.cards], indent=2))
        return 0
    width = max(60, min(110, shutil.get_terminal_size((100, 24)).columns))
    print(f"{'card':17} {'cost':>4} {'role':11} {'pile':>4}  effects")
    for c in cards.cards:
        effects = " | ".join(
            e.kind + (f" {e.trains}" + (f" x{e.count}" if e.count > 1 else "") if e.trains else "")
            + "".join(f" +{getattr(e, k)} {k if k == 'gold' or getattr(e, k) != 1 else k[:-1]}"
                      for k in ("gold", "orders", "actions", "buys", "draws") if getattr(e, k))
            for e in c.effects
        )
        mark = "*" if c.provisional else " "
        exp = " (exp.)" if c.expansion else ""
        cost = "-" if c.cost is None else c.cost
        pile = "-" if c.pile is None else c.pile
        print(f"{c.name + exp:17} {cost:>4} {c.role:11} {pile:>4}{mark} {effects}")
        for e in c.effects:           # what each effect does, in plain words (cards.toml's `text`)
            print(textwrap.fill(e.text, width, initial_indent=f"    {e.kind}: ", subsequent_indent=" " * 6))
    print("\n* some values are PROVISIONAL (our choice, not printed data): edit engine/data/cards.toml")
    return 0



def cmd_puzzles(args) -> int:
    puzzles = load_puzzles(args.file)
    if args.only:
        wanted = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(wanted) - {p.id for p in puzzles})
        if unknown:
            raise ValueError(f"no puzzle named {', '.join(unknown)} in {args.file}")
        puzzles = [p for p in puzzles if p.id in wanted]
    show = args.progress or sys.stderr.isatty()
    if args.verify:
        began = time.perf_counter()
        for index, puzzle in enumerate(puzzles, 1):
            if show:
                print(f"[{index}/{len(puzzles)}] verifying {puzzle.id}", file=sys.stderr, flush=True)
            found = check_puzzle(puzzle)
            print(f"ok {puzzle.id:28} {puzzle.goal:13} {len(found.solution):2}/{len(found.first_actions):<3} first "
                  f"actions solve it  {found.nodes:7,} states  {found.seconds:6.2f}s", flush=True)
        print(f"verified {len(puzzles)} puzzles in {time.perf_counter() - began:.1f} s")
        return 0
    try:
        make_bot(args.bot)
    except ValueError as exc:
        raise ValueError(f"bad --bot {args.bot!r}: {exc}") from None

    def progress(result):
        print(f"{'ok  ' if result.solved else 'MISS'} {result.id:28} {result.goal:13} first: {result.first:34} "
              f"{result.decisions:2} decisions {result.seconds:6.2f}s{'  ' + result.note if result.note else ''}",
              flush=True)
        if show:
            done = progress.count = getattr(progress, "count", 0) + 1
            print(f"[{done}/{len(puzzles)}] {result.id}", file=sys.stderr, flush=True)

    report = solve_rate(lambda: make_bot(args.bot, args.seed), puzzles, args.seconds, args.seed, progress=progress)
    print(report.lines()[-1] + f" ({args.bot})")
    return 0
