"""The package's layout holds: one folder a stage, imports running from later stages to earlier
ones as docs/architecture.md's table says, no circle of imports, no module over 800 lines.

Imports are read from the source (every `import` and `from ... import` of a referee module,
inside functions and `if TYPE_CHECKING:` blocks too), so the test needs nothing imported.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "referee"
DOC = ROOT / "docs" / "architecture.md"
MOST_LINES = 800

# no exceptions: a module over the limit or an import circle fails (verify/ was the last)
KNOWN_LARGE: set[str] = set()
KNOWN_CIRCLES: list[set[str]] = []


def modules() -> dict[str, Path]:
    """Every Python module of the package, by dotted name (games/ holds data, not code)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if "games" in rel.parts or "__pycache__" in rel.parts:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The referee modules a module imports, wherever in it the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                full = f"{base}.{a.name}"
                out.add(full if full in known else base)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "import_module":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.add(arg.value)
            elif isinstance(arg, ast.JoinedStr):  # f"referee.commands.{name}": each of them
                head = "".join(v.value for v in arg.values if isinstance(v, ast.Constant))
                out.update(m for m in known if m.startswith(head))
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def stages() -> tuple[dict[str, str], dict[str, set[str]]]:
    """docs/architecture.md's table: which stage each module is in (by file or folder), and
    which stages each stage may import."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Stages and who may import whom", 1)[1].split("\n## ", 1)[0]
    where: dict[str, str] = {}
    may: dict[str, set[str]] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("stage", "") or set(cells[0]) <= {"-"}:
            continue
        stage, paths, allowed = cells
        for p in re.findall(r"`([^`]+)`", paths):
            where[p] = stage
        may[stage] = set() if allowed == "nothing else" else {s.strip() for s in allowed.split(",")}
    return where, may


def stage_of(name: str, path: Path, where: dict[str, str]) -> str | None:
    rel = path.relative_to(PACKAGE).as_posix()
    if rel in where:
        return where[rel]
    folder = rel.split("/")[0] + "/"
    return where.get(folder) if "/" in rel else None


def circles(g: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_stage_and_every_stage_a_row() -> None:
    where, may = stages()
    assert set(may) >= {"parse", "resolve", "compile", "run", "explain", "prove", "draw"}
    for stage, allowed in may.items():
        assert allowed <= set(may), f"{stage} may import a stage the table does not have"
    homeless = [n for n, p in modules().items() if stage_of(n, p, where) is None]
    assert homeless == [], f"give these a stage in docs/architecture.md: {homeless}"


def test_imports_run_from_later_stages_to_earlier_ones() -> None:
    where, may = stages()
    known = modules()
    against = []
    for name, targets in graph().items():
        mine = stage_of(name, known[name], where)
        for t in sorted(targets):
            theirs = stage_of(t, known[t], where)
            if theirs != mine and theirs not in may[mine or ""]:
                against.append(f"{name} ({mine}) imports {t} ({theirs})")
    assert against == []


def test_no_circle_of_imports() -> None:
    found = [sorted(c) for c in circles(graph()) if c not in KNOWN_CIRCLES]
    assert found == [], f"import circles: {found}"


def test_the_circle_test_finds_a_circle() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(g) == [{"a", "b", "c"}]


def test_no_module_over_800_lines() -> None:
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in modules().values()
    }
    assert max(sizes.values()) > 100  # the sizes were read
    large = {f: n for f, n in sizes.items() if n > MOST_LINES and f not in KNOWN_LARGE}
    assert large == {}


def test_the_api_names_are_listed_once_for_the_lazy_package() -> None:
    import referee
    from referee import api

    assert referee.__all__ == ["__version__", *api.__all__]
    assert {n for n in api.__all__ if not hasattr(referee, n)} == set()


@pytest.mark.parametrize(
    ("argv", "absent"),
    [
        (["--version"], ["referee.compile", "referee.run", "referee.api", "lark", "yaml"]),
        (["--help"], ["referee.compile", "referee.run", "referee.api", "lark", "yaml"]),
        (
            ["check", "examples/disputes/kuwana-overrun.yaml"],
            ["referee.render", "referee.verify", "z3", "referee.api", "referee.explainer"],
        ),
    ],
)
def test_a_command_imports_only_what_it_needs(argv: list[str], absent: list[str]) -> None:
    script = (
        "import sys, io, contextlib\n"
        "from referee.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert "referee.cli" in loaded
    assert [m for m in absent if m in loaded or any(x.startswith(m + ".") for x in loaded)] == []
