"""The house's layers, checked and drawn from the imports themselves.

``python scripts/architecture.py`` checks that no module imports a layer above its own and
that no import cycle exists between modules (exit status 1, naming each offending import),
then redraws the picture in ``docs/architecture.md`` (a Mermaid diagram of the layers and the
imports between them, between the page's two ``layers`` markers).  ``--check`` only checks: it
also fails when the committed picture is not what the imports give now.
``tests/test_layering.py`` runs the same checks.

The graph is read with :mod:`ast`, never by importing: every ``import`` and ``from … import``
anywhere in a module counts (inside functions and under ``TYPE_CHECKING`` too: a lazy or
typing-only import is still a dependency).  A module's own package ``__init__`` is not an
implicit dependency of it (Python runs it first, but nothing in it is used by that alone).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The top-level packages whose modules make up the graph.
PACKAGES = ("alley_poker", "drivers", "kiosk", "benchmarks")

#: Not part of the running house: the database migrations (run by Alembic, from the store)
#: and pytest's conftest files.
SKIPPED_PARTS = ("migrations", "conftest")

#: The layers, lowest first: a module may import its own layer and any below, never one
#: above.  Each module belongs to the layer of the longest prefix that names it (a prefix is
#: a module or a package, by dotted name; ``=name`` names that module alone, so a new module
#: at the package's top must be given its layer here).
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("core", "cards, hands and their evaluator, bowling's scoring, the fair deal's DRBG and "
     "hash chain, names: plain Python, no framework",
     ("=alley_poker", "alley_poker.cards", "alley_poker.hand_tables", "alley_poker.hand_keys",
      "alley_poker.hand_explain", "alley_poker.hands", "alley_poker.names",
      "alley_poker.actors", "alley_poker.csv_cells", "alley_poker.bowling",
      "alley_poker.fairness")),
    ("ledger", "the rules of Bowling Poker: commands decide events, events fold into a "
     "match's state",
     ("alley_poker.ledger",)),
    ("domain", "what is worked out from the ledger's rules: leagues and their standings, the "
     "night's side games (brackets, pots), the win odds, scenarios, a match's verification",
     ("alley_poker.league", "alley_poker.side_games", "alley_poker.odds",
      "alley_poker.scenario", "alley_poker.verifier")),
    ("drivers", "scoreboard adapters: a scorer's lines or page in, lane events out "
     "(drivers.base is the contract the service reads)",
     ("drivers",)),
    ("settings", "the centre's configuration (alley.toml)",
     ("alley_poker.config",)),
    ("store", "the event log, its projections' tables and the centre's records, in SQL",
     ("alley_poker.store",)),
    ("service", "the alley service: lane events routed to the ledger, state changes "
     "published, the centre's jobs",
     ("alley_poker.service",)),
    ("centre", "the composition root: one centre's service, feeds and jobs wired together",
     ("alley_poker.centre",)),
    ("web", "the web adapter: kiosks, tablet, phone, JSON API and Socket.IO",
     ("alley_poker.web", "kiosk")),
    ("serving", "running the server process: gunicorn embedded and its worker, read deadlines, "
     "the interpreter's pauses and the process's memory",
     ("alley_poker.serving",)),
    ("commands", "the command line, the demos, the worker's process and the centre's set-up",
     ("alley_poker.cli", "alley_poker.setup_centre")),
    ("benchmarks", "the figures: benchmarks that drive the house from outside",
     ("benchmarks",)),
)

#: Third-party packages the layers up to the domain must not import: the core is plain
#: Python (a web framework, a database driver, a serial port or a command line belongs to an
#: adapter).
FRAMEWORKS = ("flask", "flask_socketio", "flask_wtf", "flask_limiter", "sqlalchemy",
              "alembic", "psycopg", "serial", "redis", "httpx", "gunicorn", "apscheduler",
              "click")
PLAIN_LAYERS = ("core", "ledger", "domain")

#: The composition root: the one module of the package that builds a centre's parts.
BUILDER = "alley_poker.centre"
#: What only the builder constructs (besides the module that defines each): the service and
#: its opener, and the live odds.  The stores are found, not listed: every class named
#: ``…Store`` defined in the store package (which builds its own inside it).
BUILT_BY_THE_BUILDER = ("AlleyService", "open_service", "LiveOdds")
STORE_PACKAGE = "alley_poker.store"

#: Cycles tolerated while one is being removed, by the modules in them (none today: every
#: cycle fails the check).
KNOWN_CYCLES: tuple[frozenset[str], ...] = ()

#: The page the picture is drawn on, between these two lines.
PAGE = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- layers: drawn by scripts/architecture.py from the imports; do not edit -->"
END = "<!-- end of layers -->"


@dataclass(frozen=True)
class Import:
    """``importer`` imports ``imported`` at ``line`` of its file."""

    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer} imports {self.imported} (line {self.line})"


def module_files(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if any(skip in part for part in parts for skip in SKIPPED_PARTS) \
                    or "node_modules" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _internal(name: str, modules: Mapping[str, object]) -> str | None:
    """The module ``name`` refers to (itself, or the package it is in), if it is ours."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def parsed(root: Path = ROOT, packages: Iterable[str] = PACKAGES,
           ) -> dict[str, tuple[Path, ast.Module]]:
    """Every module's file and syntax tree, by dotted name (each file read once)."""
    return {name: (path, _syntax_tree(path)) for name, path in module_files(root, packages).items()}


def _syntax_tree(path: Path) -> ast.Module:
    text = path.read_text(encoding="utf-8")
    try:
        return _parse(text)
    except SyntaxError:
        return ast.parse(text, str(path))  # raised again, naming the file


@lru_cache(maxsize=4096)
def _parse(text: str) -> ast.Module:
    """Parsed once per text: the layering tests read the same files many times, and their
    copies of the tree (trees are only read, never changed)."""
    return ast.parse(text)


#: The imports and calls of each syntax tree, in ``ast.walk``'s order, by the tree's id (the
#: tree kept beside them, so the id stays its own): every check reads them, and walking a
#: tree is most of a check's time (the layering tests check a copy of the tree nine times).
_WALKED: dict[int, tuple[ast.Module, tuple[ast.AST, ...]]] = {}


def _imports_and_calls(tree: ast.Module) -> tuple[ast.AST, ...]:
    kept = _WALKED.get(id(tree))
    if kept is None or kept[0] is not tree:
        nodes = tuple(node for node in ast.walk(tree)
                      if isinstance(node, ast.Import | ast.ImportFrom | ast.Call))
        kept = _WALKED[id(tree)] = (tree, nodes)
    return kept[1]


def imports_of(name: str, path: Path, tree: ast.Module,
               modules: Mapping[str, object]) -> list[Import]:
    """Every import of another module of ours in ``tree`` (module ``name``, file ``path``)."""
    found: dict[str, Import] = {}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in _imports_and_calls(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # ``from package import module`` imports the module; ``from module import name``
            # the module.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
        for target in targets:
            if _compiled(target, name, path):
                continue  # an extension built from C: it imports none of ours
            imported = _internal(target, modules)
            if imported is not None and imported != name and imported not in found:
                found[imported] = Import(name, imported, node.lineno)
    return sorted(found.values(), key=lambda found_import: found_import.line)


def _compiled(target: str, name: str, path: Path) -> bool:
    """Whether ``target`` is a module built from a C source of ours (``setup.py``), as seen
    from module ``name`` in file ``path``: the tree's root is as many folders up as
    ``name`` has packages."""
    up = name.count(".") + (path.name == "__init__.py")
    return _c_source_in(path.parents[up], target)


@lru_cache(maxsize=16384)
def _c_source_in(root: Path, target: str) -> bool:
    return root.joinpath(*target.split(".")).with_suffix(".c").is_file()


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES,
                 trees: Mapping[str, tuple[Path, ast.Module]] | None = None,
                 ) -> dict[str, list[Import]]:
    """Each module's imports of the others."""
    trees = parsed(root, packages) if trees is None else trees
    return {name: imports_of(name, path, tree, trees) for name, (path, tree) in trees.items()}


def layer_of(module: str, layers=LAYERS) -> str | None:
    """The layer ``module`` belongs to (None: no layer names it)."""
    best: tuple[int, str] | None = None
    for layer, _job, prefixes in layers:
        for prefix in prefixes:
            exact = prefix.startswith("=")
            named = prefix.lstrip("=")
            if (module == named or (not exact and module.startswith(named + "."))) and (
                    best is None or len(named) > best[0]):
                best = (len(named), layer)
    return None if best is None else best[1]


def unplaced(graph: Mapping[str, list[Import]], layers=LAYERS) -> list[str]:
    """Modules no layer names: every module must have its place."""
    return sorted(module for module in graph if layer_of(module, layers) is None)


def upward_imports(graph: Mapping[str, list[Import]], layers=LAYERS) -> list[Import]:
    """Every import of a module in a higher layer than the importer's."""
    rank = {layer: index for index, (layer, _job, _prefixes) in enumerate(layers)}
    upward = []
    for module, found in graph.items():
        own = layer_of(module, layers)
        for each in found:
            theirs = layer_of(each.imported, layers)
            if own is not None and theirs is not None and rank[theirs] > rank[own]:
                upward.append(each)
    return sorted(upward, key=str)


def cycles(graph: Mapping[str, list[Import]],
           known: Iterable[frozenset[str]] = ()) -> list[list[str]]:
    """The import cycles: each strongly connected set of two or more modules (Tarjan's
    algorithm, iteratively), sorted; ``known`` sets are left out."""
    edges = {module: [each.imported for each in found] for module, found in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found_cycles: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1 and frozenset(members) not in set(known):
                    found_cycles.append(sorted(members))
    return sorted(found_cycles)


def framework_imports(trees: Mapping[str, tuple[Path, ast.Module]], layers=LAYERS) -> list[str]:
    """Imports of a web framework, database or serial library by a plain layer's module."""
    found = []
    for name, (_path, tree) in trees.items():
        if layer_of(name, layers) not in PLAIN_LAYERS:
            continue
        for node in _imports_and_calls(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom)
                     and not node.level else [])
            for imported in names:
                if imported.split(".")[0] in FRAMEWORKS:
                    found.append(f"{name} imports {imported} (line {node.lineno})")
    return found


def _defined_at_top(tree: ast.Module) -> set[str]:
    return {node.name for node in tree.body
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)}


def _in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def constructions_outside_the_builder(trees: Mapping[str, tuple[Path, ast.Module]]
                                      ) -> list[str]:
    """Calls in the package that build a service, a store or the live odds outside
    :data:`BUILDER` (tests and benchmarks are outside the package: they may build parts to
    test them).  A call by name or attribute counts (``AlleyService(…)``,
    ``api_tokens.ApiTokenStore(…)``); a class's own module and the store package (for its
    stores) are where they are defined, not built for a centre."""
    stores = {node_name for name, (_path, tree) in trees.items()
              if _in_package(name, STORE_PACKAGE)
              for node_name in _defined_at_top(tree) if node_name.endswith("Store")}
    built = set(BUILT_BY_THE_BUILDER) | stores
    found = []
    for name, (_path, tree) in trees.items():
        if name == BUILDER or not _in_package(name, "alley_poker"):
            continue
        own = _defined_at_top(tree)
        for node in _imports_and_calls(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = (node.func.id if isinstance(node.func, ast.Name)
                      else node.func.attr if isinstance(node.func, ast.Attribute) else None)
            if callee not in built or callee in own or (
                    callee in stores and _in_package(name, STORE_PACKAGE)):
                continue
            found.append(f"{name} builds {callee} (line {node.lineno})")
    return found


def problems(root: Path = ROOT, packages: Iterable[str] = PACKAGES,
             layers=LAYERS) -> list[str]:
    """Everything wrong with the layering, in words (empty: it holds)."""
    trees = parsed(root, packages)
    graph = import_graph(trees=trees)
    said = [f"no layer for {module}" for module in unplaced(graph, layers)]
    said += [f"upward: {each} ({layer_of(each.importer, layers)} -> "
             f"{layer_of(each.imported, layers)})" for each in upward_imports(graph, layers)]
    said += ["cycle: " + " <-> ".join(members) for members in cycles(graph, KNOWN_CYCLES)]
    said += [f"framework in a plain layer: {each}"
             for each in framework_imports(trees, layers)]
    said += [f"built outside {BUILDER}: {each}"
             for each in constructions_outside_the_builder(trees)]
    return said


def picture(graph: Mapping[str, list[Import]], layers=LAYERS) -> str:
    """The layers and the imports between them, as Markdown with a Mermaid diagram: one box
    per layer (its packages), one arrow per pair of layers with imports between them (not
    how many: the picture changes when the house's shape does, not with every import), and
    each layer's job."""
    between: set[tuple[str, str]] = set()
    members: dict[str, set[str]] = {layer: set() for layer, _job, _prefixes in layers}
    for module, found in graph.items():
        own = layer_of(module, layers)
        if own is None:
            continue
        package = _package_of(module)
        # A module placed apart from its package's layer is shown by its own name.
        members[own].add(package if layer_of(package, layers) == own else module)
        for each in found:
            theirs = layer_of(each.imported, layers)
            if theirs is not None and theirs != own:
                between.add((own, theirs))
    lines = [BEGIN, "", "```mermaid", "flowchart BT"]
    for layer, _job, _prefixes in layers:
        shown = "<br>".join(sorted(members[layer])) or "(empty)"
        lines.append(f'    {layer}["<b>{layer}</b><br>{shown}"]')
    lines += [f"    {importer} --> {imported}" for importer, imported in sorted(between)]
    lines += ["```", "", "| layer | its job |", "|---|---|"]
    lines += [f"| {layer} | {job} |" for layer, job, _prefixes in layers]
    return "\n".join([*lines, "", END])


def drawn_page(page: str, graph: Mapping[str, list[Import]], layers=LAYERS) -> str:
    """``page`` with the picture between its markers redrawn from ``graph``."""
    start, end = page.index(BEGIN), page.index(END) + len(END)
    return page[:start] + picture(graph, layers) + page[end:]


def _package_of(module: str) -> str:
    """How a module shows in its layer's box: its top package, or for ``alley_poker`` the
    package or module under it."""
    parts = module.split(".")
    if parts[0] != "alley_poker" or len(parts) == 1:
        return parts[0]
    return f"alley_poker.{parts[1]}"


def main(argv: list[str]) -> int:
    said = problems()
    for problem in said:
        print(problem)
    page = PAGE.read_text(encoding="utf-8")
    drawn = drawn_page(page, import_graph())
    if "--check" in argv:
        if drawn != page:
            print(f"the picture in {PAGE.relative_to(ROOT)} is not what the imports give: "
                  "run python scripts/architecture.py")
            return 1
    elif drawn != page:
        PAGE.write_text(drawn, encoding="utf-8")
        print(f"redrew the picture in {PAGE.relative_to(ROOT)}")
    return 1 if said else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
