"""The shape of the package (docs/architecture.md), checked from the source:

- no import cycle anywhere in engine/ (the graph of module-level imports, AST-read), and none with
  the imports inside functions counted too (CYCLES_ALLOWED is empty and stays so);
- the generic search (engine/search) and the board search (engine/board) import no game package and
  no interface, inside functions and by "module" or "module:function" strings included;
- imports point down the rooms (kernels and positions, engine/board, engine/games, engine/search, the
  games' packages, engine/interfaces), a game never imports another game (UPWARD_ALLOWED is empty);
- the server in small parts: no function of engine/interfaces/server longer than 150 lines, no
  server module reaching into another's private members;
- no import inside a function, except of optional dependencies (matplotlib; Ray and its module
  engine/execution_ray.py, the ``ray`` extra; the ``server``
  extra: FastAPI/uvicorn and engine.interfaces.server, loaded by ``ftc serve`` only);
- bit arithmetic on encoded orders and choices lives in engine/codes.py and engine/crown/actions.py
  only: elsewhere a shift by a code field's offset or a mask of a code field is refused;
- no code outside engine/games and the games' own packages tells the games apart (is_ransom,
  isinstance with a game's state class, comparisons with a game's name): the interfaces' checks
  of today are an explicit allow-list that only shrinks;
- engine/execution_ray.py never imports engine/execution.py (they share engine/clusters.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine.games import registry

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "engine"

#: Modules that may be imported inside a function: optional dependencies (pyproject extras).
OPTIONAL = ("matplotlib", "uvicorn", "engine.interfaces.server", "engine.execution_ray", "ray", "torch")
#: The homes of the encodings.
CODE_HOMES = {"engine/codes.py", "engine/crown/actions.py", "engine/ransom/actions.py", "engine/crownfall/actions.py"}
#: Shifts by these are code-field offsets (ext/_board.pxd: origin 6, unit 12, promotion 18, kind 24;
#: engine/crown/actions.py: choice kind 20); masks of these are code fields.
FIELD_SHIFTS = {6, 12, 18, 20, 24}
FIELD_MASKS = {0x3F << 18, 0x3F << 12, 0x3F << 6, 7 << 24, (1 << 20) - 1}
#: The compiled kernels (ext/*.pyx -> engine._*) and build-time files: leaves of the graph.
COMPILED = {f"engine.{p.stem}" for p in (ROOT / "ext").glob("*.pyx")} | {"engine._build"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, tuple[Path, ast.Module]]:
    return {module_name(p): (p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in sorted(PACKAGE.rglob("*.py"))}


def targets(node, modules) -> set[str]:
    """The engine modules (Python sources) an import statement loads: ``from a.b import c`` loads
    a.b.c when that is a module, else a.b. Compiled kernels (engine._*) are leaves, left out."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    found = set()
    for alias in node.names:
        full = f"{node.module}.{alias.name}"
        if full in COMPILED:
            continue
        if full in modules:
            found.add(full)
        elif node.module in modules:
            found.add(node.module)
    return found


def imports(tree: ast.Module, modules, *, top_level: bool) -> set[str]:
    """Engine modules imported at module level (``top_level``) or anywhere."""
    found = set()
    nodes = tree.body if top_level else ast.walk(tree)
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.If, ast.Try)) and top_level:      # module-level guards and fallbacks
            stack.extend(ast.iter_child_nodes(node))
            for handler in getattr(node, "handlers", ()):
                stack.extend(handler.body)
        if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            found |= targets(node, modules)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path (first == last), or None."""
    colour: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if colour.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in colour:
                found = visit(nxt)
                if found:
                    return found
        colour[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in colour:
            found = visit(node)
            if found:
                return found
    return None


def import_graph() -> dict[str, set[str]]:
    modules = sources()
    graph = {}
    for name, (_, tree) in modules.items():
        graph[name] = {m for m in imports(tree, modules, top_level=True) if m != name}
    return graph


def test_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_in_engine():
    graph = import_graph()
    assert "engine.crown.state" in graph and "engine.crown.core" in graph["engine.crown.state"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def strong_components(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The import cycles of ``graph``: its strongly connected components of more than one module
    (Tarjan's algorithm, iterative), in order of their smallest module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.get(root, ()))))]
        while work:
            node, nexts = work[-1]
            for nxt in nexts:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return sorted(found, key=min)


def full_import_graph(modules) -> dict[str, set[str]]:
    """The engine's import graph with every import counted, those inside functions included (a
    function-level import closes a cycle as surely as a module-level one, only later)."""
    return {name: {m for m in imports(tree, modules, top_level=False) if m != name}
            for name, (_, tree) in modules.items()}


#: Import cycles allowed, function-level imports counted: none (the server's app, instances, seats and
#: player_tools reached each other through imports inside functions until issue 41 split the server).
#: The test fails when a cycle appears; a listed one that is gone or smaller must leave the list.
CYCLES_ALLOWED: set[frozenset[str]] = set()


def cycle_problems(graph: dict[str, set[str]], allowed) -> list[str]:
    """What is wrong with ``graph``'s cycles against the ``allowed`` ones: a new or grown cycle (one
    of its paths named), or an allowed one that is gone or smaller."""
    found = strong_components(graph)
    problems = []
    for component in found:
        if not any(component <= listed for listed in allowed):
            inside = {m: graph[m] & component for m in component}
            problems.append("import cycle (function-level imports counted): " + " -> ".join(find_cycle(inside)))
    for listed in sorted(allowed, key=min):
        if listed not in found:
            now = [sorted(c) for c in found if c < listed]
            problems.append(f"the allowed cycle {sorted(listed)} is gone or smaller (now {now}): "
                            "take it out of CYCLES_ALLOWED (or put the smaller one in its place)")
    return problems


def _planted(sources_by_name: dict[str, str]):
    return {name: (ROOT / (name.replace(".", "/") + ".py"), ast.parse(text)) for name, text in sources_by_name.items()}


def test_the_cycle_detector_finds_a_planted_cycle_through_function_level_imports():
    planted = _planted({"engine.planted_a": "def f():\n    from engine.planted_b import g\n    return g\n",
                        "engine.planted_b": "def g():\n    import engine.planted_a\n    return engine.planted_a\n"})
    assert {n: imports(t, planted, top_level=True) for n, (_, t) in planted.items()} == {
        "engine.planted_a": set(), "engine.planted_b": set()}        # invisible at module level
    graph = full_import_graph(planted)
    assert strong_components(graph) == [frozenset({"engine.planted_a", "engine.planted_b"})]
    assert cycle_problems(graph, set()) == [
        "import cycle (function-level imports counted): engine.planted_a -> engine.planted_b -> engine.planted_a"]
    # Planted into the real tree: a new cycle beside the allowed ones is reported, and only it.
    assert cycle_problems(full_import_graph({**sources(), **planted}), CYCLES_ALLOWED) == [
        "import cycle (function-level imports counted): engine.planted_a -> engine.planted_b -> engine.planted_a"]
    # An allowed cycle that is no longer there asks to be taken off the list.
    gone = cycle_problems(graph, {frozenset({"engine.planted_a", "engine.planted_b"}), frozenset({"x", "y"})})
    assert gone == ["the allowed cycle ['x', 'y'] is gone or smaller (now []): take it out of CYCLES_ALLOWED "
                    "(or put the smaller one in its place)"]


def test_strong_components_of_a_small_graph():
    graph = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": {"g"}}
    assert strong_components(graph) == [frozenset("abc"), frozenset("de")]


def test_no_import_cycle_in_engine_with_function_level_imports():
    modules = sources()
    graph = full_import_graph(modules)
    assert "engine.crown.state" in graph["engine.crown.entry"]
    problems = cycle_problems(graph, CYCLES_ALLOWED)
    assert not problems, "\n".join(problems)


def test_game_core_arrows_run_one_way():
    """Inside engine/crown: the data (core) and what reads it (observation, record) never import the
    driver, the phases, the set-up, the variants or the effects."""
    graph = import_graph()
    upper = {"engine.crown.state", "engine.crown.phases", "engine.crown.setup", "engine.crown.variants",
             "engine.crown.effects", "engine.crown.toolkit"}
    for low in ("engine.crown.core", "engine.crown.observation", "engine.crown.record"):
        reach, todo = set(), [low]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in reach:
                    reach.add(nxt)
                    todo.append(nxt)
        assert not reach & upper, f"{low} reaches {sorted(reach & upper)}"


def function_imports(tree: ast.Module):
    for func in ast.walk(tree):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(func):
                if isinstance(node, ast.Import):
                    yield node.lineno, [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    yield node.lineno, [node.module or "."]


def test_no_import_inside_a_function_but_optional_dependencies():
    bad = []
    for name, (path, tree) in sources().items():
        for line, names in function_imports(tree):
            if not all(any(n == o or n.startswith(o + ".") for o in OPTIONAL) for n in names):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {', '.join(names)}")
    assert not bad, "imports inside functions:\n" + "\n".join(bad)


def code_arithmetic(tree: ast.Module):
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp) or not isinstance(node.right, ast.Constant):
            continue
        value = node.right.value
        if isinstance(node.op, (ast.RShift, ast.LShift)) and value in FIELD_SHIFTS:
            yield node.lineno, f"shift by {value}"
        elif isinstance(node.op, ast.BitAnd) and value in FIELD_MASKS:
            yield node.lineno, f"mask {value:#x}"


def test_code_arithmetic_detector_finds_planted_arithmetic():
    tree = ast.parse("kind = (code >> 24) & 7\nunit = code >> 12 & 63\nrank = square >> 3\n")
    assert [line for line, _ in code_arithmetic(tree)] == [1, 2]


def test_no_bit_arithmetic_on_codes_outside_their_homes():
    bad = []
    for name, (path, tree) in sources().items():
        if str(path.relative_to(ROOT)) in CODE_HOMES:
            continue
        bad.extend(f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in code_arithmetic(tree))
    assert not bad, "bit arithmetic on codes (use engine.codes / engine.crown.actions):\n" + "\n".join(bad)


@pytest.mark.parametrize("module", ["engine.crown.core", "engine.crown.observation", "engine.crown.record"])
def test_low_modules_import_no_driver_at_all(module):
    graph = import_graph()
    assert "engine.crown.state" not in graph[module]


# -- games are told apart by the registry only (issue 24) -------------------------------------------
#: Where a game may be named or its state class tested: the registry and the games' own packages.
GAME_HOMES = ("engine/games/", "engine/crown/", "engine/ransom/", "engine/crownfall/", "engine/crusade/")
#: The games' state classes (an isinstance test of one picks a game).
GAME_STATE_CLASSES = {"GameState", "GameCore", "RansomState"}
#: Names that pick a game when a value is compared with them: the games' names (a variant name
#: "kings-ransom" is King's Ransom's) and the constants that hold them or a game's record format.
GAME_NAME_CONSTANTS = {"RANSOM", "RANSOM_RECORD_FORMAT", "RANSOM_RECORD", "RANSOM_FORMAT", "RECORD_FORMAT", "VIEW_FORMAT"}
#: The games' packages: a name imported from one and compared with is a game check too.
GAME_PACKAGES = ("engine.crown", "engine.ransom", "engine.crownfall", "engine.crusade")
#: Today's game checks in the interfaces, per file: the interfaces issue moves them onto the
#: registry (engine/games/registry.py) and shrinks this list to nothing. The test fails when a
#: file has more (a new check) and when it has fewer (shrink the list with it).
GAME_CHECKS_ALLOWED = {
}


def game_checks(tree: ast.Module, game_names: set[str], interface: bool = True):
    """(line, what) of each place that tells the games apart: an ``is_ransom`` call or definition,
    an isinstance test against a game's state class, a comparison with a game's name (or a
    constant holding one, or a game's record format) and, in an ``interface`` module, with any
    name imported from a game's package."""
    def named(node) -> str | None:
        return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None

    # In an interface, any name taken from a game's package and compared with picks that game.
    from_games = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                  and node.module and node.module.startswith(GAME_PACKAGES) for alias in node.names} if interface else set()

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "is_ransom":
            yield node.lineno, "defines is_ransom"
        elif isinstance(node, ast.Call):
            name = named(node.func)
            if name == "is_ransom":
                yield node.lineno, "is_ransom(...)"
            elif name == "isinstance" and len(node.args) == 2:
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                hit = sorted({named(k) for k in kinds} & GAME_STATE_CLASSES)
                if hit:
                    yield node.lineno, f"isinstance(..., {hit[0]})"
        elif isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and side.value in game_names:
                    yield node.lineno, f"compares with {side.value!r}"
                elif named(side) in GAME_NAME_CONSTANTS or (isinstance(side, ast.Name) and side.id in from_games):
                    yield node.lineno, f"compares with {named(side)}"


def _game_names() -> set[str]:
    return {n for g in registry.games() for n in (g.name, *g.aliases)}


def test_game_check_detector_finds_planted_checks():
    source = ("if is_ransom(v): pass\nok = isinstance(s, (int, RansomState))\nx = v == 'kings-ransom'\n"
              "y = r['format'] != RANSOM_RECORD_FORMAT\nz = isinstance(s, dict) and v == 'standard'\n"
              "from engine.ransom.state import STEP as S\nw = kind == S\n")
    found = [line for line, _ in game_checks(ast.parse(source), {"crown", "kings-ransom"})]
    assert found == [1, 2, 3, 4, 7]


def test_no_game_check_outside_the_registry_and_the_games():
    names = _game_names()
    counts, where = {}, []
    for name, (path, tree) in sources().items():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(GAME_HOMES):
            continue
        found = list(game_checks(tree, names, interface=rel.startswith("engine/interfaces/")))
        if found:
            counts[rel] = len(found)
            where += [f"{rel}:{line}: {what}" for line, what in found]
    assert counts == GAME_CHECKS_ALLOWED, ("game checks outside engine/games and the games' packages "
                                           "(ask the registry instead):\n" + "\n".join(where))


#: Imports of a game's package from the interfaces and the registry layer, per module: none. A game's
#: own commands (For the Crown's `ftc cards`, `ftc puzzles`, `ftc balance --price-turn`) and the NNUE
#: data's armies come through its registry entry (``CliPieces``); the server has its own, stricter
#: test below (no game package, no search). The list only shrinks.
GAME_IMPORTS_ALLOWED: dict[str, set[str]] = {}


def game_imports(tree: ast.Module, modules) -> set[str]:
    return {m for m in imports(tree, modules, top_level=False) if m.startswith(tuple(p + "." for p in GAME_PACKAGES))
            or m in GAME_PACKAGES}


def test_game_import_detector_finds_a_planted_import():
    modules = sources()
    tree = ast.parse("import json\nfrom engine.ransom.state import RansomState\nfrom engine.games import registry\n")
    assert game_imports(tree, modules) == {"engine.ransom.state"}


def test_interfaces_and_the_registry_import_no_game():
    """The interfaces and engine/games reach a game through its registry entry only: no import of a
    game's package (engine.crown, engine.ransom), but the listed ones."""
    modules = sources()
    found = {}
    for name, (path, tree) in modules.items():
        if name.startswith(("engine.games", "engine.interfaces")) and not name.startswith("engine.interfaces.server"):
            hits = game_imports(tree, modules)
            if hits:
                found[name] = hits
    assert found == GAME_IMPORTS_ALLOWED


def test_the_ray_backend_does_not_import_execution():
    """engine/execution.py loads engine/execution_ray.py when Ray is asked for; the backend takes
    what it shares with it from engine/clusters.py, so the two never import each other both ways."""
    tree = sources()["engine.execution_ray"][1]
    assert "engine.execution" not in imports(tree, sources(), top_level=False)


#: The games' own packages: the web server (engine/interfaces/server) imports none of them, and
#: none of For the Crown's modules that live in the shared layers (its search and bots); it asks
#: the registry (issue 24). engine/catalog.py, engine/position.py (the board kernel) and
#: engine/notation.py are shared by the games (the unit catalog, the board, square names).
SERVER_FORBIDDEN = ("engine.crown", "engine.ransom", "engine.crownfall", "engine.crusade", "engine.search")


def server_game_imports(modules) -> list[str]:
    found = []
    for name, (path, tree) in modules.items():
        if name.startswith("engine.interfaces.server"):
            found += [f"{path.relative_to(ROOT)} imports {m}" for m in sorted(imports(tree, modules, top_level=False))
                      if any(m == f or m.startswith(f + ".") for f in SERVER_FORBIDDEN)]
    return found


def test_the_server_imports_no_games_package():
    modules = sources()
    assert server_game_imports(modules) == []
    planted = dict(modules)
    planted["engine.interfaces.server.planted"] = (ROOT / "engine/interfaces/server/planted.py",
                                                   ast.parse("from engine.ransom.state import RansomState\n"))
    assert server_game_imports(planted) == ["engine/interfaces/server/planted.py imports engine.ransom.state"]


#: What the generic search (engine/search/ismcts.py) may import of the engine: the registry and the
#: time budgets; a game's pieces come by injection from its registry entry (issue 24).
GENERIC_SEARCH_IMPORTS = {"engine.games", "engine.games.registry", "engine.board.timeman"}


def generic_search_leaks(tree: ast.Module, modules) -> list[str]:
    """What ties a module to one game: engine imports beyond GENERIC_SEARCH_IMPORTS, getattr calls,
    and reads of For the Crown's or King's Ransom's state fields (zones, board, pos, phase, turn)."""
    found = [f"imports {m}" for m in sorted(imports(tree, modules, top_level=False) - GENERIC_SEARCH_IMPORTS)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            found.append(f"line {node.lineno}: getattr")
        if isinstance(node, ast.Attribute) and node.attr in ("zones", "board", "pos", "phase", "turn", "variant"):
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_generic_search_leak_detector_finds_planted_leaks():
    modules = sources()
    source = "from engine.crown.expert import ExpertBot\nx = getattr(g, 'zones')\ny = d.turn\n"
    assert len(generic_search_leaks(ast.parse(source), modules)) == 3


def test_the_generic_search_knows_no_game():
    modules = sources()
    assert generic_search_leaks(modules["engine.search.ismcts"][1], modules) == []


# -- the client shell names no game (issue 41) -----------------------------------------------------
#: The web client's shell: the page, its menus, sockets and seats (engine/interfaces/server/static/).
#: Each game's board is a module of its own (its registry entry's ``WebBoard.module``) drawn through
#: the one ``render(view, actions, ctx)`` contract; the shell names none of them.
STATIC = PACKAGE / "interfaces" / "server" / "static"
SHELL_FILES = ("app.js", "index.html", "dom.js", "generic.js", "game-analysis.js", "game-analysis.html", "review.js")
#: Game names in the shell, per (file, name): none (issue 41). The test fails when a file has one; the
#: list only shrinks, and it is empty.
SHELL_NAMES_ALLOWED: dict[tuple[str, str], int] = {}


def registry_words() -> set[str]:
    """Every word that names a game in the registry: its name, aliases, title, variants and the
    file name of its board module (but generic.js, the board of any game without its own)."""
    words = set()
    for game in registry.games():
        words |= {game.name, *game.aliases, game.title, *game.variants}
        if game.web is not None:
            words.add(game.web.module)
    return words - {"generic.js"}


def game_words(text: str, words: set[str]) -> dict[str, int]:
    """How often each of ``words`` stands in ``text`` as a word of its own (case as written; not part
    of a longer name: "crown" is not in "crownfall" nor in "ftc-crown"); HTML's escapes read as text."""
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&apos;", "'")
    found = {}
    for word in words:
        count = len(re.findall(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text))
        if count:
            found[word] = count
    return found


def test_game_word_detector_finds_planted_names():
    words = {"crown", "kings-ransom", "King's Ransom", "ransom.js", "point-buy"}
    planted = ('const isRansom = (v) => v.variant === "kings-ransom";\nimport("./ransom.js");\n'
               "<strong>King&#39;s Ransom</strong> crownfall ftc-crown crowned point-buy-ish crown")
    assert game_words(planted, words) == {"kings-ransom": 1, "ransom.js": 1, "King's Ransom": 1, "crown": 1}


def test_the_client_shell_names_no_game():
    """app.js, index.html and the shared modules name no game, variant or board module of the
    registry: a game's board and markup are its own module's (docs/server.md, "The web client")."""
    words = registry_words()
    found = {(name, word): count for name in SHELL_FILES
             for word, count in game_words((STATIC / name).read_text(encoding="utf-8"), words).items()}
    assert found == SHELL_NAMES_ALLOWED, ("game names in the client shell (a board module or the registry "
                                          f"should say them): {sorted(set(found.items()) ^ set(SHELL_NAMES_ALLOWED.items()))}")


# -- the generic search and the board search import no game (issue 41) -----------------------------
#: The rooms below the games: engine/search (ISMCTS, matches, statistics) and engine/board (alpha-beta,
#: its evaluations, NNUE data and training, position analysis, time management).
GAME_FREE = ("engine.search", "engine.board")
#: What they never reach: a game's package or an interface (the registry, engine.games, they may ask).
GAME_FREE_FORBIDDEN = GAME_PACKAGES + ("engine.interfaces",)
#: A string that names a module ("engine.crown.expert") or a function of one ("engine.crown.web:view"),
#: as importlib.import_module and the registry's "module:function" pieces take them.
MODULE_REFERENCE = re.compile(r"\s*(engine(?:\.\w+)+)(?::[\w.]+)?\s*")


def _forbidden_in_game_free(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in GAME_FREE_FORBIDDEN)


def game_references(tree: ast.Module) -> list[str]:
    """(line: what) of each reference to a game package or an interface in ``tree``: an import
    anywhere (inside functions too, ``from engine import crown`` included) and a string that names
    such a module, alone or as "module:function"."""
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = MODULE_REFERENCE.fullmatch(node.value)
            if match and _forbidden_in_game_free(match.group(1)):
                found.append((node.lineno, f"names {node.value.strip()!r}"))
            continue
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.append((node.lineno, "relative import (write the module out)"))
        hit = sorted({n for n in names if _forbidden_in_game_free(n)})
        if hit:
            found.append((node.lineno, f"imports {hit[0]}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_the_game_reference_detector_finds_planted_references():
    source = ("from engine.crown.expert import ExpertBot\n"                     # a module-level import
              "def bot():\n    import engine.ransom.players\n"                # a function-level import
              "    from engine import crusade\n"
              "    return importlib.import_module('engine.crownfall.pieces')\n"  # a module named by a string
              "PIECE = 'engine.crown.pieces:HeuristicPlayout'\n"               # a "module:function" string
              "from engine.interfaces.server import ai\n"
              "from engine.games import registry\nfrom engine.board.alphabeta import AlphaBeta\n"
              "NOTE = 'engine.crown.armies.point_buy_start gives the starts'\n"
              "from .crown import expert\n")
    assert game_references(ast.parse(source)) == [
        "line 1: imports engine.crown.expert", "line 3: imports engine.ransom.players",
        "line 4: imports engine.crusade", "line 5: names 'engine.crownfall.pieces'",
        "line 6: names 'engine.crown.pieces:HeuristicPlayout'", "line 7: imports engine.interfaces.server",
        "line 11: relative import (write the module out)"]


def test_the_generic_search_and_the_board_search_import_no_game():
    found = []
    for name, (path, tree) in sources().items():
        if any(name == room or name.startswith(room + ".") for room in GAME_FREE):
            found += [f"{path.relative_to(ROOT)}: {what}" for what in game_references(tree)]
    assert {"engine.search.ismcts", "engine.board.alphabeta"} <= set(sources())
    assert not found, ("engine/search and engine/board reach a game or an interface (a game's pieces "
                       "come from its registry entry):\n" + "\n".join(found))


# -- the rooms and the direction of their imports (issue 41, docs/architecture.md "Rooms") -----------
#: The rooms of engine/ from the bottom up; a module imports (anywhere, inside functions too) only
#: from its own room or a lower one, and a game's package never from another game's.
ROOMS = ("kernel", "engine.board", "engine.games", "engine.search", "game", "engine.interfaces")
#: Imports against the direction, (importer, imported), allowed: none (For the Crown's analysis board
#: took the server's request guards until its server side moved into the server). The list only shrinks.
UPWARD_ALLOWED: set[tuple[str, str]] = set()


def room_of(module: str) -> tuple[int, str]:
    """(rank in ROOMS, the room): the kernel wrappers and positions (engine/*.py, the compiled
    kernels, engine.data) are the bottom; a game's package is the room "game" with its own name."""
    for package in GAME_PACKAGES:
        if module == package or module.startswith(package + "."):
            return ROOMS.index("game"), package
    for rank, room in enumerate(ROOMS):
        if module == room or module.startswith(room + "."):
            return rank, room
    return 0, "kernel"


def upward_imports(modules) -> list[str]:
    found = []
    for name, (_, tree) in modules.items():
        rank, room = room_of(name)
        for target in sorted(imports(tree, modules, top_level=False)):
            their_rank, their_room = room_of(target)
            if (their_rank > rank or (their_rank == rank and their_room != room)) and (name, target) not in UPWARD_ALLOWED:
                found.append(f"{name} ({room}) imports {target} ({their_room})")
    return found


def test_the_room_detector_finds_planted_upward_imports():
    planted = {**sources(), **_planted({
        "engine.planted_kernel": "def f():\n    from engine.crown.state import GameState\n    return GameState\n",
        "engine.ransom.planted": "from engine.crownfall.state import CrownfallState\n",
        "engine.crusade.planted": "def f():\n    import engine.interfaces.cli\n",
        "engine.board.planted": "from engine.games import registry\nfrom engine.position import Position\n"})}
    assert upward_imports(planted) == [
        "engine.planted_kernel (kernel) imports engine.crown.state (engine.crown)",
        "engine.ransom.planted (engine.ransom) imports engine.crownfall.state (engine.crownfall)",
        "engine.crusade.planted (engine.crusade) imports engine.interfaces.cli (engine.interfaces)",
        "engine.board.planted (engine.board) imports engine.games.registry (engine.games)"]


def test_imports_point_down_the_rooms():
    assert room_of("engine.position") == (0, "kernel") and room_of("engine.crownfall.state") == (4, "engine.crownfall")
    found = upward_imports(sources())
    assert not found, "imports against the rooms' direction (docs/architecture.md):\n" + "\n".join(found)
    modules = sources()
    still = {(a, b) for a, b in UPWARD_ALLOWED if b in imports(modules[a][1], modules, top_level=False)}
    assert still == UPWARD_ALLOWED, f"no longer imported, take them out of UPWARD_ALLOWED: {sorted(UPWARD_ALLOWED - still)}"


# -- the server in small parts (issue 41) -------------------------------------------------------------
SERVER = PACKAGE / "interfaces" / "server"
#: The longest a function or method of the server may be, in lines (its ``def`` to its last line).
SERVER_FUNCTION_LINES = 150
#: Private names of other modules' objects the server may use: the standard library's own (os._exit:
#: a worker's exit without cleanup; a named tuple's _replace is its public API).
PRIVATE_REACH_ALLOWED = {"os._exit", "parts._replace"}


def long_functions(tree: ast.Module, where: str, limit: int = SERVER_FUNCTION_LINES) -> list[str]:
    """Every function or method of ``tree`` (nested ones included) longer than ``limit`` lines."""
    return [f"{where}:{node.lineno} {node.name} has {node.end_lineno - node.lineno + 1} lines"
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > limit]


def test_long_function_detector_finds_a_planted_function():
    def body(lines: int, indent: str) -> str:
        return "".join(f"{indent}x{i} = {i}\n" for i in range(lines))

    planted = f"def short():\n    return 1\n\n\nclass Big:\n    async def grows(self):\n{body(SERVER_FUNCTION_LINES, ' ' * 8)}"
    assert long_functions(ast.parse(planted), "planted.py") == \
        [f"planted.py:6 grows has {SERVER_FUNCTION_LINES + 1} lines"]
    fits = f"def fits():\n{body(SERVER_FUNCTION_LINES - 1, ' ' * 4)}"
    assert long_functions(ast.parse(fits), "fits.py") == []


def test_no_server_function_is_longer_than_150_lines():
    found = []
    for path in sorted(SERVER.glob("*.py")):
        found += long_functions(ast.parse(path.read_text(encoding="utf-8")), str(path.relative_to(ROOT)))
    assert found == []


def private_reaches(tree: ast.Module, where: str) -> list[str]:
    """``obj._name`` in ``tree`` where ``obj`` is not ``self`` or ``cls`` and no class or function
    of the same module defines ``_name``: a module reaching into another's private members."""
    own = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef))}
    own |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = ast.unparse(node.value)
            if owner not in ("self", "cls") and node.attr not in own and f"{owner}.{node.attr}" not in PRIVATE_REACH_ALLOWED:
                found.append(f"{where}:{node.lineno} {owner}.{node.attr}")
    return found


def test_private_reach_detector_finds_a_planted_reach():
    planted = ("class Mine:\n    def _own(self):\n        return 1\n\n\n"
               "async def use(server, mine):\n    mine._own()\n    return await server._read_live('id')\n")
    assert private_reaches(ast.parse(planted), "planted.py") == ["planted.py:8 server._read_live"]


def test_no_server_module_reaches_into_another_modules_private_members():
    found = []
    for path in sorted(SERVER.glob("*.py")):
        found += private_reaches(ast.parse(path.read_text(encoding="utf-8")), str(path.relative_to(ROOT)))
    assert found == []
