"""The package's layout as the contributors' section of the README describes it, read from the source
by an AST scan (nothing is imported): no import cycle, counting imports inside functions; no source
file over 600 lines (C too) and no function over 80; each registry the only place that lists its
names (the algorithms in transition/, the learners in learners/, the CoNLL columns in
data/columns.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from maltpy.data.columns import COLUMNS
from maltpy.learners import LEARNERS
from maltpy.transition import SYSTEMS

PACKAGE = Path(__file__).resolve().parent.parent / "maltpy"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
#: functions longer than MAX_FUNCTION_LINES because a paper's algorithm is that long (none today)
LONG_ALGORITHMS: dict[str, str] = {}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its dotted name -> (its file, whether it is a package)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(), str(path)) for name, (path, _) in MODULES.items()}


def _imported(name: str) -> set[str]:
    """The package's modules that module ``name`` imports, at its top or inside a function: ``from
    a import b`` is an arrow to module a.b where there is one, else to a."""
    is_package = MODULES[name][1]
    found = set()
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    found.add(f"{target}.{alias.name}")
                elif target in MODULES:
                    found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in MODULES)
    found.discard(name)
    return found


def _cycles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(arrows[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle_through_an_import_inside_a_function():
    tree = ast.parse("def f():\n    from .b import g\n")
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert isinstance(tree.body[0].body[0], ast.ImportFrom)  # what _imported walks into


def test_no_import_cycle_in_the_package():
    arrows = {name: _imported(name) for name in MODULES}
    assert sum(map(len, arrows.values())) > 200  # the scan sees the package's imports
    assert _cycles(arrows) == []


def test_no_source_file_over_600_lines():
    sources = [path for _, (path, _) in MODULES.items()] + sorted(PACKAGE.rglob("*.[ch]"))
    assert len(sources) > len(MODULES)  # the C sources too
    lines = {str(path.relative_to(PACKAGE)): len(path.read_text().splitlines()) for path in sources}
    assert {name: n for name, n in lines.items() if n > MAX_MODULE_LINES} == {}


def test_no_function_over_80_lines_but_the_papers_algorithms():
    long = {}
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES and f"{name}.{node.name}" not in LONG_ALGORITHMS:
                    long[f"{name}.{node.name}"] = lines
    assert long == {}


def _listings(names: set[str], at_least: int, outside: tuple[str, ...]) -> dict[str, list[int]]:
    """Where a literal table (a dict's keys, a tuple, list or set) names ``at_least`` of ``names``,
    outside the modules ``outside`` (dotted prefixes): module -> the lines."""
    found: dict[str, list[int]] = {}
    for name, tree in TREES.items():
        if name.startswith(outside):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                items = node.keys
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                items = node.elts
            else:
                continue
            named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
            if len(named) >= at_least:
                found.setdefault(name, []).append(node.lineno)
    return found


@pytest.mark.parametrize(
    ("names", "at_least", "home"),
    [
        (set(SYSTEMS), 2, ("maltpy.transition",)),
        ({system.family for system in SYSTEMS.values()}, 2, ("maltpy.transition",)),
        (set(LEARNERS), 2, ("maltpy.learners",)),
        ({name for column in COLUMNS for name in column.names}, 3, ("maltpy.data.columns",)),
    ],
    ids=["algorithms", "families", "learners", "columns"],
)
def test_a_registry_is_the_only_table_of_its_names(names, at_least, home):
    assert len(names) >= 2 and all(isinstance(name, str) for name in names)
    assert _listings(names, at_least, home) == {}
