"""Load a game's spec: its .rules files, parsed and checked, and its components.

A game directory holds .rules files anywhere below it (clauses/, overlays/,
...) and its component data in data/. JSON Schemas sit in the schema/
directory beside the game directory.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from referee.data.components import Components, data_files, load_components
from referee.dsl import ast
from referee.dsl.checker import Symbols, check_modules
from referee.dsl.interp import Interpreter, TraceEntry
from referee.dsl.overlays import apply
from referee.dsl.parser import GRAMMAR, parse_module
from referee.errors import Problem, RefereeError, Span

SPEC_ROOT = Path(__file__).resolve().parents[1] / "spec"
MAX_RULES_BYTES = 2 * 1024 * 1024


def default_game_dir() -> Path:
    """The game spec shipped beside the engine (the only one in spec/, for now)."""
    games = sorted(p for p in SPEC_ROOT.iterdir() if p.is_dir() and p.name != "schema")
    return games[0] if games else SPEC_ROOT


@dataclass
class Spec:
    game_dir: Path
    modules: list[ast.Module]
    sym: Symbols
    components: Components
    sources: dict[str, str] = field(default_factory=dict)
    # interpreters free for another game, by the overlays in force (never pickled)
    _free: dict[tuple[str, ...], list[Interpreter]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_free"] = {}
        return state

    def lease(self, overlays: list[ast.Overlay]) -> Interpreter:
        """An interpreter of the rules with these overlays in force, with no game state. One
        given back is reused, with what it compiled and computed from the rules alone."""
        free = self._free.get(tuple(o.id for o in overlays))
        if free:
            return free.pop()
        return Interpreter(
            apply(self.sym, overlays),
            components=self.components.collections,
            in_force={o.id for o in overlays},
        )

    def give_back(self, overlays: list[ast.Overlay], interp: Interpreter) -> None:
        """The game is over for this interpreter: another may use it."""
        interp.reset()
        self._free.setdefault(tuple(o.id for o in overlays), []).append(interp)

    @property
    def game(self) -> ast.Game | None:
        return next((g for m in self.modules for g in m.games), None)

    def clause(self, number: str) -> ast.Clause | None:
        return self.sym.clauses.get(number)

    def clauses(self) -> list[ast.Clause]:
        return sorted(self.sym.clauses.values(), key=lambda c: clause_key(c.number))

    def overlays_touching(self, number: str) -> list[ast.Overlay]:
        return [o for o in self.sym.overlays.values() if any(a.clause == number for a in o.amends)]

    def interpreter(self, trace: list[TraceEntry] | None = None) -> Interpreter:
        return Interpreter(self.sym, trace=trace)

    def source_of(self, node_span: Span) -> str:
        """The text a node was written in, dedented as a block."""
        text = self.sources.get(node_span.file, "")
        block = " " * max(node_span.column - 1, 0) + text[node_span.start : node_span.end]
        return textwrap.dedent(block)


def clause_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) for p in number.split("."))


def rules_files(game_dir: Path) -> list[Path]:
    return sorted(game_dir.rglob("*.rules"))


_CACHE: dict[tuple[object, ...], Spec] = {}


def _fingerprint(game_dir: Path, data_dir: Path | None) -> tuple[object, ...]:
    """Every input file's path, size and modification time: a changed file, a new spec."""
    files = [*game_dir.rglob("*"), *(game_dir.parent / "schema").glob("*")]
    if data_dir is not None and data_dir.is_dir():
        files += list(data_dir.glob("*"))
    stats = []
    for f in sorted(files):
        if f.is_file():
            st = f.stat()
            stats.append((str(f), st.st_size, st.st_mtime_ns))
    return (str(game_dir), str(data_dir), Path.cwd(), tuple(stats))


def load_spec(game_dir: Path | None = None, data_dir: Path | None = None) -> Spec:
    """Parse and check every .rules file of a game and load its components.

    Raises RefereeError with every problem found (syntax errors stop at the
    first in each file; checking reports all it finds). A spec already loaded
    in this process from the same unchanged files is reused.
    """
    game_dir = (game_dir or default_game_dir()).resolve()
    if not game_dir.is_dir():
        raise RefereeError([Problem(Span(str(game_dir), 0, 0), "no such spec directory")])
    key = _fingerprint(game_dir, data_dir)
    if key not in _CACHE:
        _CACHE[key] = _from_disk(game_dir, data_dir)
    return _CACHE[key]


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rules-referee"


def _content_key(game_dir: Path, data_dir: Path | None) -> str:
    """A digest of everything a checked spec is made from, the engine's own code included."""
    h = hashlib.sha256()
    engine = Path(__file__).resolve().parent
    files = [GRAMMAR, *sorted(engine.rglob("*.py"))]
    files += sorted(game_dir.rglob("*.rules")) + sorted((game_dir.parent / "schema").glob("*.json"))
    files += data_files(game_dir / "data", data_dir)
    for f in files:
        h.update(str(f).encode())
        h.update(f.read_bytes())
    h.update(str(Path.cwd()).encode())  # spans name files relative to it
    return h.hexdigest()[:32]


def _from_disk(game_dir: Path, data_dir: Path | None) -> Spec:
    """The checked spec from the disk cache, keyed by content; else load it and keep it there."""
    if os.environ.get("REFEREE_NO_CACHE"):
        return _load(game_dir, data_dir)
    try:
        path = _cache_dir() / f"spec-{_content_key(game_dir, data_dir)}.pickle"
    except OSError:
        return _load(game_dir, data_dir)
    if path.is_file():
        try:
            with path.open("rb") as f:
                cached = pickle.load(f)
            if isinstance(cached, Spec):
                return cached
        except Exception:  # noqa: BLE001 - a stale or broken cache is rebuilt
            pass
    spec = _load(game_dir, data_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump(spec, f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
    except (OSError, pickle.PicklingError, RecursionError):
        pass  # no cache: the next run loads the spec again
    return spec


def _load(game_dir: Path, data_dir: Path | None) -> Spec:
    files = rules_files(game_dir)
    if not files:
        raise RefereeError(
            [Problem(Span(str(game_dir), 0, 0), "no .rules files in this directory")]
        )
    components = load_components(
        data_files(game_dir / "data", data_dir), game_dir.parent / "schema"
    )
    modules: list[ast.Module] = []
    problems: list[Problem] = []
    sources: dict[str, str] = {}
    for f in files:
        name = _display(f)
        if f.stat().st_size > MAX_RULES_BYTES:
            problems.append(Problem(Span(name, 1, 1), "rules file is too large"))
            continue
        text = f.read_text(encoding="utf-8")
        sources[name] = text
        try:
            modules.append(parse_module(text, name))
        except RefereeError as err:
            problems.extend(err.problems)
    if problems:
        raise RefereeError(problems, sources)
    sym, problems = check_modules(modules, components.names())
    if problems:
        raise RefereeError(problems, sources)
    return Spec(game_dir, modules, sym, components, sources)


def _display(path: Path) -> str:
    """A path as short as it can be said: relative to the working directory if inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
