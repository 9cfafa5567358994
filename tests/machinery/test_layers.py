"""The package's layers, read from its source with ``ast`` (nothing is imported):

- ``core/`` imports nothing of the package outside ``core/``;
- no benchmark imports another benchmark, and a benchmark imports of the package only the public
  floor a third party gets, ``api`` (``pytest_toolcall.api`` and its submodules), and its own
  folder (what the runner and the results do with it is theirs);
- ``runner/`` and ``results/`` name no benchmark;
- ``results/`` imports nothing of ``runner/``: the offline tools (merge, gate, html) work from
  reports alone, and a run hands its outputs the run's result, not its machinery;
- the modules import each other in no circle.

An import counts wherever it is written: at module level, inside a function, or under
``if TYPE_CHECKING:`` (a dependency of the annotations is a dependency all the same). The one
exception is the circle rule, which follows the imports that run: an import under ``TYPE_CHECKING``
never runs, so it cannot close a circle (``Benchmark`` is made from ``Settings``, and ``Settings`` reads
the benchmarks' options: each names the other in annotations only).

"Naming a benchmark" is importing ``pytest_toolcall.benchmarks.<name>`` (absolutely or relatively), or
a string literal, docstrings aside, that is a benchmark's name (``"acebench"``), starts with it
and a dot (``"acebench.overall"``, a gate metric), or holds a dotted path into ``benchmarks``
(``importlib.import_module("pytest_toolcall.benchmarks.bfcl")``). The benchmarks are the packages in
``benchmarks/``.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import pytest_toolcall

PACKAGE = Path(pytest_toolcall.__file__).parent


@dataclass(frozen=True)
class Import:
    importer: str  # the importing module's dotted name
    target: str  # a module of the package it imports
    line: int
    type_checking: bool  # written under ``if TYPE_CHECKING:``


class Tree:
    """The modules of a package folder and their imports of each other."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = root.name
        self.files: dict[str, Path] = {}
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            self.files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
        #: Modules and packages, namespace packages (folders without ``__init__.py``) too.
        self.modules = set(self.files) | {
            ".".join(path.parent.relative_to(root.parent).parts) for path in self.files.values()
        }
        self.trees = {
            module: ast.parse(path.read_text(encoding="utf-8"), str(path)) for module, path in self.files.items()
        }
        self.imports = [imp for module in self.files for imp in self._imports(module)]
        self.benchmarks = sorted(p.name for p in (root / "benchmarks").iterdir() if p.is_dir() and any(p.glob("*.py")))

    def _imports(self, module: str) -> list[Import]:
        found: list[Import] = []
        is_package = self.files[module].name == "__init__.py"

        def visit(node: ast.AST, type_checking: bool) -> None:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                for child in node.body:
                    visit(child, True)
                for child in node.orelse:
                    visit(child, type_checking)
                return
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.extend(self._edges(module, alias.name, (), node.lineno, type_checking))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")[: len(module.split(".")) - node.level + is_package]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                names = tuple(alias.name for alias in node.names)
                found.extend(self._edges(module, base, names, node.lineno, type_checking))
            for child in ast.iter_child_nodes(node):
                visit(child, type_checking)

        visit(self.trees[module], False)
        return found

    def _edges(self, module: str, base: str, names: tuple[str, ...], line: int, tc: bool) -> list[Import]:
        """The package's modules that ``import base`` or ``from base import names`` brings in (a name
        may be a submodule)."""
        targets = [base, *(f"{base}.{name}" for name in names)]
        return [Import(module, t, line, tc) for t in dict.fromkeys(targets) if t in self.modules and t != module]

    def at(self, module: str, line: int) -> str:
        return f"{self.files[module].relative_to(self.root.parent)}:{line}"

    def where(self, imp: Import) -> str:
        return self.at(imp.importer, imp.line)

    def benchmark_of(self, module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if len(parts) > 2 and parts[1] == "benchmarks" else None

    def in_layer(self, module: str, layer: str) -> bool:
        return module == f"{self.name}.{layer}" or module.startswith(f"{self.name}.{layer}.")

    def literals(self, module: str) -> list[tuple[int, str]]:
        """(line, value) of every string literal of a module but its docstrings."""
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(self.trees[module])
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        return sorted(
            (node.lineno, node.value)
            for node in ast.walk(self.trees[module])
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        )


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


# --- the rules: each returns its violations as "file:line: what" -----------------------------------


def core_leaks(tree: Tree) -> list[str]:
    return [
        f"{tree.where(imp)}: core imports {imp.target}"
        for imp in tree.imports
        if tree.in_layer(imp.importer, "core") and not tree.in_layer(imp.target, "core")
    ]


def machinery_reached_by_benchmarks(tree: Tree) -> list[str]:
    return [
        f"{tree.where(imp)}: benchmark {own} imports {imp.target}"
        for imp in tree.imports
        if (own := tree.benchmark_of(imp.importer)) is not None
        and tree.benchmark_of(imp.target) is None
        and not tree.in_layer(imp.target, "api")
    ]


def benchmark_crossings(tree: Tree) -> list[str]:
    problems = []
    for imp in tree.imports:
        own, other = tree.benchmark_of(imp.importer), tree.benchmark_of(imp.target)
        if own is not None and other is not None and own != other:
            problems.append(f"{tree.where(imp)}: benchmark {own} imports {imp.target}")
    for module in tree.files:
        own = tree.benchmark_of(module)
        if own is None:
            continue
        for line, value in tree.literals(module):
            other = _dotted_benchmark(tree, value)
            if other is not None and other != own:
                problems.append(f"{tree.at(module, line)}: benchmark {own} names {value!r}")
    return problems


def _dotted_benchmark(tree: Tree, value: str) -> str | None:
    """The benchmark whose module a dotted path in ``value`` names, if any."""
    prefix = f"{tree.name}.benchmarks."
    if prefix not in value:
        return None
    return value.split(prefix, 1)[1].split(".", 1)[0].split(":", 1)[0]


def runner_reached_by_results(tree: Tree) -> list[str]:
    return [
        f"{tree.where(imp)}: results imports {imp.target}"
        for imp in tree.imports
        if tree.in_layer(imp.importer, "results") and tree.in_layer(imp.target, "runner")
    ]


def benchmarks_named_by_machinery(tree: Tree) -> list[str]:
    problems = [
        f"{tree.where(imp)}: {imp.importer} imports {imp.target}"
        for imp in tree.imports
        if any(tree.in_layer(imp.importer, layer) for layer in ("runner", "results"))
        and tree.benchmark_of(imp.target) is not None
    ]
    for module in tree.files:
        if not any(tree.in_layer(module, layer) for layer in ("runner", "results")):
            continue
        for line, value in tree.literals(module):
            named = value in tree.benchmarks or (value.split(".", 1)[0] in tree.benchmarks and "." in value)
            if named or _dotted_benchmark(tree, value) is not None:
                problems.append(f"{tree.at(module, line)}: names {value!r}")
    return problems


def import_circles(tree: Tree) -> list[str]:
    """Each circle of the imports that run, as ``a -> b -> a`` with the line of each import."""
    graph: dict[str, dict[str, Import]] = {module: {} for module in tree.files}
    for imp in tree.imports:
        if not imp.type_checking and imp.target in graph:
            graph[imp.importer].setdefault(imp.target, imp)
    circles = []
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        start = min(component)
        path = _path_back(graph, start, set(component))
        steps = [f"{tree.where(graph[a][b])} {a} -> {b}" for a, b in itertools.pairwise(path)]
        circles.append("circle: " + "; ".join(steps))
    return circles


def _strongly_connected(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    components.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def _path_back(graph: dict[str, dict[str, Import]], start: str, within: set[str]) -> list[str]:
    """A shortest path from ``start`` back to itself inside one component (breadth first)."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if child in within and child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"{start} is in a component without a circle")


# --- the package -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def package() -> Tree:
    return Tree(PACKAGE)


def test_the_package_is_read_whole(package: Tree) -> None:
    # The rules below pass vacuously on a tree read wrong: the reading must see what is there.
    assert {"acebench", "bfcl", "cases", "general_fc"} <= set(package.benchmarks)
    assert {
        f"pytest_toolcall.{m}" for m in ("core.protocol.benchmark", "core.protocol.types", "runner.work", "plugin")
    } <= set(package.files)
    seen = {(imp.importer, imp.target) for imp in package.imports}
    assert ("pytest_toolcall.runner.work", "pytest_toolcall.core.protocol.types") in seen  # module level
    assert ("pytest_toolcall.core.protocol.benchmark", "pytest_toolcall.core.protocol.options") in seen  # TYPE_CHECKING


def test_core_imports_only_core(package: Tree) -> None:
    problems = core_leaks(package)
    assert not problems, "\n".join(problems)


def test_no_benchmark_imports_another(package: Tree) -> None:
    problems = benchmark_crossings(package)
    assert not problems, "\n".join(problems)


def test_benchmarks_import_only_the_api_and_their_own(package: Tree) -> None:
    problems = machinery_reached_by_benchmarks(package)
    assert not problems, "\n".join(problems)


def test_runner_and_results_name_no_benchmark(package: Tree) -> None:
    problems = benchmarks_named_by_machinery(package)
    assert not problems, "\n".join(problems)


def test_results_import_nothing_of_the_runner(package: Tree) -> None:
    problems = runner_reached_by_results(package)
    assert not problems, "\n".join(problems)


def test_no_import_circles(package: Tree) -> None:
    problems = import_circles(package)
    assert not problems, "\n".join(problems)


# --- the rules themselves, on a small package with one planted violation of each ------------------


def _write(root: Path, files: dict[str, str]) -> Tree:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return Tree(root / "pkg")


CLEAN = {
    "__init__.py": "",
    "core/__init__.py": "",
    "core/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.core import b\n",
    "core/b.py": "from pkg.core import a\n",
    "benchmarks/__init__.py": "",
    "benchmarks/one/__init__.py": "",
    "api/__init__.py": "from pkg.core.a import *\n",
    "api/b.py": "from pkg.core.b import *\n",
    "benchmarks/one/m.py": "from pkg.api import a\nfrom . import n\nNAME = 'one'\nMOD = 'pkg.benchmarks.one.n'\n",
    "benchmarks/one/n.py": "from pkg.api.b import a\n",
    "benchmarks/two/m.py": "from pkg.api import b\n",  # a namespace package: no __init__.py
    "runner/__init__.py": "",
    # A docstring may name a benchmark; a word that starts like one is not its name.
    "runner/r.py": '"""two"""\nfrom pkg.core import a\nKEY = "onerous"\nTEXT = "one of them"\n',
}


def test_a_clean_package_passes(tmp_path: Path) -> None:
    tree = _write(tmp_path, CLEAN)
    assert tree.benchmarks == ["one", "two"]
    assert (core_leaks(tree), benchmark_crossings(tree), benchmarks_named_by_machinery(tree)) == ([], [], [])
    assert machinery_reached_by_benchmarks(tree) == []
    # a -> b only under TYPE_CHECKING, b -> a at run time: no circle.
    assert import_circles(tree) == []


def test_core_importing_outside_core_is_found(tmp_path: Path) -> None:
    files = dict(CLEAN)
    files["core/b.py"] = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.runner.r import KEY\n"
    files["core/c.py"] = "def f():\n    import pkg.benchmarks.one.m\n"
    tree = _write(tmp_path, files)
    assert core_leaks(tree) == [
        "pkg/core/b.py:3: core imports pkg.runner.r",
        "pkg/core/c.py:2: core imports pkg.benchmarks.one.m",
    ]


def test_a_benchmark_importing_another_is_found(tmp_path: Path) -> None:
    files = dict(CLEAN)
    files["benchmarks/two/m.py"] = "from ..one import n\n"
    files["benchmarks/one/n.py"] = (
        "def f():\n    from pkg.benchmarks.two import m\n    from pkg.benchmarks import two\n"
    )
    files["benchmarks/two/l.py"] = "import importlib\nMOD = importlib.import_module('pkg.benchmarks.one.n')\n"
    tree = _write(tmp_path, files)
    assert benchmark_crossings(tree) == [
        "pkg/benchmarks/one/n.py:2: benchmark one imports pkg.benchmarks.two",
        "pkg/benchmarks/one/n.py:2: benchmark one imports pkg.benchmarks.two.m",
        "pkg/benchmarks/one/n.py:3: benchmark one imports pkg.benchmarks.two",  # a namespace package
        "pkg/benchmarks/two/m.py:1: benchmark two imports pkg.benchmarks.one",
        "pkg/benchmarks/two/m.py:1: benchmark two imports pkg.benchmarks.one.n",
        "pkg/benchmarks/two/l.py:2: benchmark two names 'pkg.benchmarks.one.n'",
    ]


def test_a_benchmark_reaching_into_the_runner_is_found(tmp_path: Path) -> None:
    files = dict(CLEAN)
    files["benchmarks/one/o.py"] = "from pkg.runner.r import KEY\nfrom pkg.api import a\nfrom . import n\n"
    files["benchmarks/two/p.py"] = "def f():\n    import pkg.runner\n    from pkg.core import b\n"
    tree = _write(tmp_path, files)
    assert machinery_reached_by_benchmarks(tree) == [
        "pkg/benchmarks/one/o.py:1: benchmark one imports pkg.runner.r",
        "pkg/benchmarks/two/p.py:2: benchmark two imports pkg.runner",
        "pkg/benchmarks/two/p.py:3: benchmark two imports pkg.core",  # past the public floor
        "pkg/benchmarks/two/p.py:3: benchmark two imports pkg.core.b",
    ]


def test_the_machinery_naming_a_benchmark_is_found(tmp_path: Path) -> None:
    files = dict(CLEAN)
    files["results/__init__.py"] = ""
    files["results/g.py"] = (
        "from ..benchmarks.two import m\n"
        "def gate(metrics):\n"
        "    return metrics['one.overall'], metrics.get(f'two.{1}')\n"
        "ENTRY = 'pkg.benchmarks.one.m:One'\n"
    )
    files["runner/r.py"] = "BENCH = 'two'\n"
    tree = _write(tmp_path, files)
    assert benchmarks_named_by_machinery(tree) == [
        "pkg/results/g.py:1: pkg.results.g imports pkg.benchmarks.two",
        "pkg/results/g.py:1: pkg.results.g imports pkg.benchmarks.two.m",
        "pkg/results/g.py:3: names 'one.overall'",
        "pkg/results/g.py:3: names 'two.'",
        "pkg/results/g.py:4: names 'pkg.benchmarks.one.m:One'",
        "pkg/runner/r.py:1: names 'two'",
    ]


def test_the_results_reaching_into_the_runner_is_found(tmp_path: Path) -> None:
    files = dict(CLEAN)
    files["results/__init__.py"] = ""
    files["results/m.py"] = (
        "from typing import TYPE_CHECKING\nfrom pkg.core import a\n"
        "if TYPE_CHECKING:\n    from pkg.runner.r import KEY\n"
        "def f():\n    from ..runner import r\n"
    )
    tree = _write(tmp_path, files)
    assert runner_reached_by_results(tree) == [
        "pkg/results/m.py:4: results imports pkg.runner.r",
        "pkg/results/m.py:6: results imports pkg.runner",
        "pkg/results/m.py:6: results imports pkg.runner.r",
    ]
    assert runner_reached_by_results(_write(tmp_path / "clean", CLEAN)) == []


def test_an_import_circle_is_found(tmp_path: Path) -> None:
    files = dict(CLEAN)
    # a -> b now at run time, inside a function; b -> a at module level: a circle.
    files["core/a.py"] = "def f():\n    from pkg.core import b\n"
    files["runner/r.py"] = "import pkg.runner.s\n"
    files["runner/s.py"] = "from pkg.runner import t\n"
    files["runner/t.py"] = "from . import r\n"
    tree = _write(tmp_path, files)
    assert import_circles(tree) == [
        "circle: pkg/core/a.py:2 pkg.core.a -> pkg.core.b; pkg/core/b.py:1 pkg.core.b -> pkg.core.a",
        "circle: pkg/runner/r.py:1 pkg.runner.r -> pkg.runner.s; pkg/runner/s.py:1 pkg.runner.s -> pkg.runner.t;"
        " pkg/runner/t.py:1 pkg.runner.t -> pkg.runner.r",
    ]
