"""Load a game's spec: its .rules files, parsed and checked, and its components.

A game directory holds .rules files anywhere below it (clauses/, overlays/,
...) and its component data in data/. JSON Schemas sit in the schema/
directory beside the game directory. The bundled games are in the package
(referee/games/<game>/, their schemas in referee/games/schema/: see resources.py);
any other directory laid out the same way can be given instead.
"""

from __future__ import annotations

import atexit
import contextlib
import difflib
import gc
import hashlib
import io
import os
import pickle
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from referee import resources
from referee.compile import source
from referee.compile.execute import Interpreter
from referee.compile.interp import TraceEntry
from referee.data import cache
from referee.data.components import Components, data_files, load_components
from referee.data.limits import read_bytes, read_text, snapshot
from referee.data.source import MAX_BYTES
from referee.data.walk import Skipped, walk
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.resolve.checker import check_modules
from referee.resolve.guards import no_recursion, parse_rules
from referee.resolve.overlays import apply
from referee.resolve.symbols import Symbols
from referee.text import shown

SPEC_ROOT = resources.games_root()  # the bundled games, each a folder, and schema/
MAX_RULES_BYTES = 2 * 1024 * 1024
MAX_SCHEMA_BYTES = 1024 * 1024


def default_game_dir() -> Path:
    """The spec a command loads when given none: the folder ``REFEREE_SPEC`` names, if set
    (a mutant of the spec, say, for every test to judge); else the bundled game named as the
    default (``games.yaml`` in the games' folder)."""
    chosen = os.environ.get("REFEREE_SPEC")
    if chosen:
        return Path(chosen)
    name = resources.default_game()
    return SPEC_ROOT / name if name else SPEC_ROOT


def bundled_game(name: str) -> Path:
    """A bundled game's folder, by its name; an unknown name is an error that names the
    bundled games and the closest to it."""
    games = resources.bundled_games()
    if name in games:
        return SPEC_ROOT / name
    close = difflib.get_close_matches(name, games, n=1, cutoff=0.5)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise RefereeError(
        [
            Problem(
                Span("<command line>", 0, 0),
                f"--game {shown(name, 60)}: no bundled game of that name",
                f"{hint}the bundled games: {', '.join(games) or 'none'}",
            )
        ]
    )


def find_game(name_or_dir: str | Path | None = None) -> Path:
    """A game's spec directory: the default game (None), a bundled game by its name, or a
    directory. A name that is neither is a located error naming the bundled games."""
    if name_or_dir is None:
        return default_game_dir()
    games = resources.bundled_games()
    if isinstance(name_or_dir, str) and name_or_dir in games:
        return SPEC_ROOT / name_or_dir
    path = Path(name_or_dir)
    if path.is_dir():
        return path
    known = ", ".join(games) or "none"
    raise RefereeError(
        [
            Problem(
                Span(str(name_or_dir), 0, 0),
                "no such spec directory, and no bundled game of that name",
                f"the bundled games: {known}",
            )
        ]
    )


@dataclass
class Spec:
    game_dir: Path
    modules: list[ast.Module]
    sym: Symbols
    components: Components
    sources: dict[str, str] = field(default_factory=dict)
    # interpreters free for another game, by the overlays in force (never pickled)
    _free: dict[tuple[object, ...], list[Interpreter]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_free"] = {}
        return state

    def lease(self, overlays: list[ast.Overlay]) -> Interpreter:
        """An interpreter of the rules with these overlays in force, with no game state. One
        given back is reused, with what it compiled and computed from the rules alone."""
        free = self._free.get(_pool(overlays))
        if free:
            return free.pop()
        return Interpreter(
            apply(self.sym, overlays),
            components=self.components.collections,
            in_force={o.id for o in overlays},
            reference=_REFERENCE[0],
        )

    def give_back(self, overlays: list[ast.Overlay], interp: Interpreter) -> None:
        """The game is over for this interpreter: another may use it."""
        interp.reset()
        self._free.setdefault(_pool(overlays, interp.reference), []).append(interp)

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


# Whether specs lease the reference interpreter (see ``reference_interpreter``).
_REFERENCE = [False]


def _pool(overlays: list[ast.Overlay], reference: bool | None = None) -> tuple[object, ...]:
    """The key of the interpreters free for another game: the overlays in force, and which
    interpreter it is."""
    ref = _REFERENCE[0] if reference is None else reference
    return (ref, *(o.id for o in overlays))


@contextlib.contextmanager
def reference_interpreter() -> Iterator[None]:
    """While in it, every record is judged by the reference interpreter (the tree walked
    each time, nothing kept) rather than the compiled rules: the differential test."""
    saved, _REFERENCE[0] = _REFERENCE[0], True
    try:
        yield
    finally:
        _REFERENCE[0] = saved


def clause_key(number: str) -> tuple[int, ...]:
    """A clause number's parts, as numbers, in order: 7.3.1 and 7-3-1 alike."""
    return tuple(int(p) for p in number.replace("-", ".").split("."))


# A spec given by the user is bounded as a whole, not only file by file (2 MB each): its
# .rules files together (the bundled games' hold 0.4 MB in 30 files), so that parsing them
# stays under a minute and a gigabyte.
MAX_SPEC_FILES = 1_000
MAX_SPEC_BYTES = 4 * 1024 * 1024


def rules_files(game_dir: Path, skipped: list[Skipped] | None = None) -> list[Path]:
    """The .rules files below a game's folder; what was passed over goes to ``skipped``.
    More than MAX_SPEC_FILES, or more than MAX_SPEC_BYTES together, are refused."""
    files = walk(game_dir, (".rules",), skipped if skipped is not None else [])
    total = 0
    for n, f in enumerate(files, 1):
        with contextlib.suppress(OSError):
            total += f.stat().st_size
        if n > MAX_SPEC_FILES or total > MAX_SPEC_BYTES:
            raise RefereeError(
                [
                    Problem(
                        Span(shown(str(f)), 0, 0),
                        f"a spec of more than {MAX_SPEC_FILES:,} .rules files or"
                        f" {MAX_SPEC_BYTES:,} bytes of them: this one passes the limit",
                    )
                ]
            )
    return files


def schema_files(game_dir: Path) -> list[Path]:
    folder = game_dir.parent / "schema"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


_CACHE: dict[tuple[object, ...], Spec] = {}


def _fingerprint(game_dir: Path, data_dir: Path | None) -> tuple[object, ...]:
    """Every input file's path, size and modification time: a changed file, a new spec."""
    files = [*rules_files(game_dir), *schema_files(game_dir)]
    files += walk(game_dir / "data", (".yaml", ".json"), []) if (game_dir / "data").is_dir() else []
    if data_dir is not None and data_dir.is_dir():
        files += list(data_dir.glob("*"))
    stats = []
    for f in sorted(files):
        try:
            st = f.stat()
        except OSError:
            continue
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
    games = _games_below(game_dir)
    if games:
        raise RefereeError(
            [
                Problem(
                    Span(str(game_dir), 0, 0),
                    f"a folder of {len(games)} games ({', '.join(games)}), not one game's spec",
                    f"give one of them: --spec {game_dir / games[0]}",
                )
            ]
        )
    key = _fingerprint(game_dir, data_dir)
    if key not in _CACHE:
        _CACHE[key] = _from_disk(game_dir, data_dir)
        # The spec lasts as long as the process: its hundreds of thousands of objects are
        # left out of the collector's passes from now on (each full pass over them, every
        # ten or so games judged, found nothing to free and cost most of a game's judging).
        gc.freeze()
    return _CACHE[key]


def _games_below(folder: Path) -> list[str]:
    """The games a folder holds one level down, where it is no game's spec itself (no .rules
    file, no clauses/ of its own): the folder above the games, given by mistake."""
    if any(folder.glob("*.rules")) or (folder / "clauses").is_dir():
        return []
    return sorted(
        d.name
        for d in folder.iterdir()
        if d.is_dir() and (any(d.glob("*.rules")) or (d / "clauses").is_dir())
    )


def _inputs(game_dir: Path, data_dir: Path | None) -> list[tuple[str, Path, int]]:
    """Every file a checked spec is made from, the engine's own code included: a name that
    says what it is without saying where it is, its path, and its size limit."""
    engine = Path(__file__).resolve().parents[1]  # referee/: every stage
    schemas = game_dir.parent / "schema"
    files = [
        (f"engine/{f.relative_to(engine).as_posix()}", f, MAX_RULES_BYTES)
        for f in sorted(engine.rglob("*.py"))
    ]
    files += [
        (f"rules/{f.relative_to(game_dir).as_posix()}", f, MAX_RULES_BYTES)
        for f in rules_files(game_dir)
    ]
    files += [
        (f"schema/{f.relative_to(schemas).as_posix()}", f, MAX_SCHEMA_BYTES)
        for f in schema_files(game_dir)
    ]
    files += [(f"data/{f.name}", f, MAX_BYTES) for f in data_files(game_dir / "data", data_dir)]
    return files


def _content_key(game_dir: Path, data_dir: Path | None) -> str:
    """A digest of everything a checked spec is made from, and of nothing else: not where the
    files are, nor the working directory (the names spans give files are put right when an
    entry is read: see ``_places``). Each file is read under its limit: one over it is
    reported when the spec is loaded."""
    h = hashlib.sha256()
    h.update(b"grammar\0" + hashlib.sha256(resources.grammar().read_bytes()).digest())
    for name, f, limit in _inputs(game_dir, data_dir):
        h.update(name.encode("utf-8", "surrogateescape") + b"\0")
        h.update(hashlib.sha256(read_bytes(f, limit)).digest())
    return h.hexdigest()[:32]


def _places(game_dir: Path, data_dir: Path | None) -> list[str]:
    """The names a spec's spans give its files here and now: the .rules files as
    ``display_name`` names them (relative to the working directory), the data files by the path
    they were read by. Two specs of one content list their files in the same order."""
    names = [display_name(f) for f in rules_files(game_dir)]
    return names + [str(f) for f in data_files(game_dir / "data", data_dir)]


class _Pickler(pickle.Pickler):
    """Pickles a spec with the names of its files, and its folder, left as places to fill:
    an entry serves every copy of the same files, from any working directory."""

    def __init__(self, file: io.BytesIO, places: list[str], game_dir: Path) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.places = {name: i for i, name in enumerate(places)}
        self.game_dir = game_dir

    def persistent_id(self, obj: object) -> object:
        if type(obj) is str:
            i = self.places.get(obj)
            return None if i is None else ("file", i)
        if isinstance(obj, PurePath) and obj == self.game_dir:
            return ("game_dir",)
        return None


class _Unpickler(pickle.Unpickler):
    """Fills the places ``_Pickler`` left with the names the files have here and now."""

    def __init__(self, file: io.BytesIO, places: list[str], game_dir: Path) -> None:
        super().__init__(file)
        self.places = places
        self.game_dir = game_dir

    def persistent_load(self, pid: object) -> object:
        if pid == ("game_dir",):
            return self.game_dir
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "file":
            i = pid[1]
            if isinstance(i, int) and 0 <= i < len(self.places):
                return self.places[i]
        raise pickle.UnpicklingError("an entry that names a file this spec does not have")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a while (as it was, after): unpickling a
    spec makes hundreds of thousands of objects, and each pass of the collector over them
    finds nothing to free; judging a game makes fewer, but the collector's passes over the
    objects that last (the game's state, the values kept) cost a quarter of the judging,
    and find little: what judging leaves is freed as it goes, by its count of references."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _from_disk(game_dir: Path, data_dir: Path | None) -> Spec:
    """The checked spec from the disk cache, keyed by content; else load it and keep it there.

    The cache (referee/data/cache.py, docs/cache.md) is a private folder whose entries are signed
    with a key only this user can read: a payload is unpickled only once its signature shows
    this user's referee wrote it, for exactly these input files."""
    if not cache.enabled():
        return _load(game_dir, data_dir)
    with snapshot():  # every file read once: what is parsed is what the key hashed
        return _through_cache(game_dir, data_dir)


def _through_cache(game_dir: Path, data_dir: Path | None) -> Spec:
    try:
        key = _content_key(game_dir, data_dir)
        name = f"spec-{key}{cache.ENTRY_SUFFIX}"
        places = _places(game_dir, data_dir)
    except (OSError, RefereeError):
        return _load(game_dir, data_dir)  # which says what is wrong with the files
    _keep_compiled(f"code-{name.removeprefix('spec-')}")
    payload = cache.load(name)
    if payload is not None:
        try:
            # signed by this user's referee: see above
            with collector_paused():  # a tree of new objects, no garbage: nothing to look for
                cached = _Unpickler(io.BytesIO(payload), places, game_dir).load()
            if isinstance(cached, Spec):
                return cached
        except Exception:  # noqa: BLE001 - an entry of another version is rebuilt
            pass
    spec = _load(game_dir, data_dir)
    try:  # a file come or gone since the key was taken: the spec is not kept under it
        if _content_key(game_dir, data_dir) != key:
            return spec
    except (OSError, RefereeError):
        return spec
    with contextlib.suppress(pickle.PicklingError, RecursionError):  # else no cache: loaded again
        out = io.BytesIO()
        _Pickler(out, places, game_dir).dump(spec)
        cache.store(name, out.getvalue())
    return spec


_COMPILED_ENTRIES: set[str] = set()


def _keep_compiled(name: str) -> None:
    """The Python code the rules were compiled to (source.py), read from the disk cache
    entry ``name`` (signed, as the spec's own); and, at the process's end, what it compiled
    that the entry did not hold written back, to the same cache folder only."""
    if name in _COMPILED_ENTRIES:
        return
    _COMPILED_ENTRIES.add(name)
    payload = cache.load(name)
    if payload is not None:
        source.take_compiled(payload)
    folder = cache.cache_dir()

    def store() -> None:
        if cache.cache_dir() != folder or not cache.enabled():
            return
        code = source.compiled_code()
        if code is not None:
            cache.store(name, code)

    atexit.register(store)


def _load(game_dir: Path, data_dir: Path | None) -> Spec:
    skipped: list[Skipped] = []
    files = rules_files(game_dir, skipped)
    if not files and not skipped:
        raise RefereeError(
            [Problem(Span(str(game_dir), 0, 0), "no .rules files in this directory")]
        )
    components = load_components(
        data_files(game_dir / "data", data_dir), game_dir.parent / "schema"
    )
    modules: list[ast.Module] = []
    problems = [Problem(Span(s.path, 0, 0), s.reason) for s in skipped]
    sources: dict[str, str] = {}
    left = MAX_SPEC_BYTES  # as read (a file grown since it was listed counts as it is now)
    for f in files:
        name = display_name(f)
        try:
            text = read_text(f, max(min(MAX_RULES_BYTES, left), 0), "rules file")
            left -= len(text)
            sources[name] = text
            modules.append(parse_rules(text, name))
        except RefereeError as err:
            problems.extend(err.problems)
    if problems:
        raise RefereeError(problems, sources)
    try:
        sym, problems = check_modules(modules, components.names())
    except RecursionError:
        raise RefereeError(
            [Problem(Span(str(game_dir), 0, 0), "an expression is nested too deeply to check")]
        ) from None
    if problems:
        raise RefereeError(problems, sources)
    problems = no_recursion(sym)
    if problems:
        raise RefereeError(problems, sources)
    _fill_defaults(sym, components)
    return Spec(game_dir, modules, sym, components, sources)


def _fill_defaults(sym: Symbols, components: Components) -> None:
    """A data item that leaves out a field its record declares with a default
    (`record piece from data units { morale: int = nothing }`) reads the default."""
    interp: Interpreter | None = None
    for t in sym.types.values():
        if not isinstance(t, ast.RecordDecl) or not t.from_data:
            continue
        fields = [f for f in t.fields if f.default is not None]
        items = components.collections.get(t.from_data)
        if not fields or not items:
            continue
        interp = interp or Interpreter(sym, components=components.collections)
        defaults = {f.name: interp.eval(f.default, {}) for f in fields if f.default is not None}
        components.collections[t.from_data] = [
            {**defaults, **i} if isinstance(i, dict) else i for i in items
        ]


def display_name(path: str | Path) -> str:
    """A path as short as it can be said: relative to the working directory if inside it,
    else as it was given."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def multiplicity(spec: Spec, sym: Symbols, type_name: str) -> dict[str, int | None]:
    """How many of each value of a type the components hold: an item's `count` when the
    data give one (a whole number), else None (the data do not say)."""
    d = sym.types.get(type_name)
    out: dict[str, int | None] = {}
    if isinstance(d, ast.RecordDecl) and d.from_data:
        for item in spec.components.collections.get(d.from_data, []):
            key = item.get("id", item.get("name")) if isinstance(item, dict) else None
            if isinstance(key, str):
                n = item.get("count")
                out[key] = n if isinstance(n, int) and not isinstance(n, bool) else None
    return out
