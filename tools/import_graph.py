"""The import graph of the textsel package, drawn from its source, and what it says of the layers.

Edges are every import statement of the package's ``.py`` files (at any depth, so imports inside
functions count), the ``cimport``/``import`` lines of its ``.pyx``/``.pxd`` files, and every
``importlib.import_module("...")`` with a literal name (the Dask seam's way in).  Modules are
placed in the tiers of ``docs/architecture.md``; an import from a lower tier into a higher one
"runs back up".  Usage::

    python tools/import_graph.py            # summary: modules, edges, circles, imports running up
    python tools/import_graph.py --edges    # and every edge
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "textsel"

#: tier of each module, by the longest matching prefix; lower numbers are lower tiers
TIERS = {
    "textsel._ext": 0,  # compiled kernels
    "textsel._errors": 0,  # their status codes' exceptions (the C extension raises them)
    "textsel": 1,  # the in-memory library and its public modules
    "textsel.distributed": 2,  # the same API on Dask, reached only through textsel._dispatch
    "textsel.cli": 3,  # applications built on the library
    "textsel._lab": 3,  # what the applications share: writing results, reporting progress
    "textsel.study": 3,
    "textsel.reproduce": 3,
    "textsel.__main__": 3,
}
TIER_NAMES = {0: "kernels", 1: "library", 2: "dask", 3: "applications"}


def modules(root: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Module name -> (its file, whether it is a package's ``__init__``)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd") or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _absolute(module: str, is_package: bool, level: int, name: str) -> str:
    if not level:
        return name
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def edges(found: dict[str, tuple[Path, bool]]) -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    graph = {}
    for module, (path, is_package) in found.items():
        text = path.read_text()
        targets = set()
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ImportFrom):
                    base = _absolute(module, is_package, node.level, node.module or "")
                    for alias in node.names:
                        full = f"{base}.{alias.name}"
                        targets.add(full if full in found else base)
                elif isinstance(node, ast.Import):
                    targets.update(alias.name for alias in node.names)
                elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                    func = node.func
                    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    name = node.args[0].value
                    if called == "import_module" and isinstance(name, str):
                        targets.add(_absolute(module, is_package, 1, name[1:]) if name[0] == "." else name)
        else:
            for m in re.finditer(r"^\s*from\s+(\.*)([\w.]*)\s+c?import\s", text, re.M):
                targets.add(_absolute(module, is_package, len(m.group(1)), m.group(2)))
        graph[module] = {t for t in targets if t in found and t != module}
    return graph


def tier(module: str) -> int:
    prefix = max((p for p in TIERS if module == p or module.startswith(p + ".")), key=len)
    return TIERS[prefix]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def running_up(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports from a lower tier into a higher one."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if tier(b) > tier(a))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reaches(found: dict[str, tuple[Path, bool]]) -> list[tuple[str, str]]:
    """Where an application reaches past the library's public API: each (application module,
    what it imports) for an import from a lower tier of a private module (a part of its path
    starting with ``_``) or of a private name.  Applications may import one another freely."""
    reached = []
    for module, (path, is_package) in found.items():
        if tier(module) != 3 or path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(module, is_package, node.level, node.module or "")
                targets = [(f"{base}.{alias.name}", alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [(alias.name, "") for alias in node.names]
            else:
                continue
            for full, name in targets:
                where = full if full in found else full.rsplit(".", 1)[0] if name else full
                if not where.startswith("textsel") or tier(where) == 3:
                    continue
                if any(_private(part) for part in where.split(".")) or _private(name):
                    reached.append((module, full))
    return sorted(set(reached))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="print every edge too")
    args = parser.parse_args(argv)
    found = modules()
    graph = edges(found)
    print(f"modules: {len(found)}, imports between them: {sum(map(len, graph.values()))}")
    for number, name in TIER_NAMES.items():
        members = sorted(m for m in found if tier(m) == number)
        print(f"tier {number} ({name}): {len(members)} modules")
    found_circles = circles(graph)
    print(f"import circles: {len(found_circles)}")
    for component in found_circles:
        print("   " + " -> ".join(component))
    up = running_up(graph)
    print(f"imports that run back up (lower tier -> higher): {len(up)}")
    for a, b in up:
        print(f"   {a} ({TIER_NAMES[tier(a)]}) -> {b} ({TIER_NAMES[tier(b)]})")
    reached = private_reaches(found)
    print(f"private names the applications import from the library: {len(reached)}")
    for a, b in reached:
        print(f"   {a} -> {b}")
    if args.edges:
        for a in sorted(graph):
            for b in sorted(graph[a]):
                print(f"{a} -> {b}")
    return 1 if found_circles else 0


if __name__ == "__main__":
    sys.exit(main())
