"""Mutation testing of the spec: does anything notice when a rule is changed?

A developer's tool, not part of the referee's command line. It makes single changes to the
bundled game's .rules files (a number one more or one less, a comparison made strict or not,
``and`` for ``or``, a requirement that always holds, a check or a statement dropped), each
found from the parsed tree's source spans, so every change is a change of one node and the
file stays well formed. Each mutant is a copy of the games folder with that one change; it is
judged by

1. ``referee spec check``: a mutant the static checker rejects is killed by the checker;
2. ``referee prove``: killed if a property fails (exit 1);
3. the records: every record below examples/ and tests/readings/ replayed under the mutant,
   held to what the tests hold them to (each ``expect:`` an event states, and the
   ``# expect:`` verdict a reading states in its header); killed by the first that fails.

Run from the repository's root (see docs/mutation.md):

    python tools/mutate.py --list --clauses 7.4
    python tools/mutate.py --sample 10 --seed 1
    python tools/mutate.py --format markdown > figures.md

The three stages of a mutant run in one Python process of their own, under a time limit
(``--timeout``); mutants run side by side, one process each, as many at once as there are
cores (``--jobs``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))  # this checkout's referee, not an installed one

from referee.parse import ast  # noqa: E402
from referee.records.notation import EXPANSION_SUFFIX  # noqa: E402
from referee.resolve.guards import parse_rules  # noqa: E402
from referee.resources import games_root  # noqa: E402

RECORDS = ("examples", "tests/readings")
KINDS = ("number", "compare", "andor", "require", "check", "statement")
# a comparison and the one it becomes: the boundary moved, or equality turned round
FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_CMP = re.compile(r"==|!=|<=|>=|<|>")
_ANDOR = re.compile(r"\b(and|or)\b")
_COMMENT = re.compile(r"#[^\n]*")


# ---------------------------------------------------------------- mutants


@dataclass
class Mutant:
    """One change of one file: the text between ``start`` and ``end`` becomes ``new``."""

    id: int
    kind: str  # one of KINDS
    clause: str  # the clause whose rule is changed (an overlay's: the clause it amends)
    where: str  # the declaration: a label, a definition's name, procedure/step
    file: str  # relative to the games folder
    line: int
    column: int
    start: int
    end: int
    old: str
    new: str
    change: str  # "4 -> 5", "< -> <=", "and -> or", "dropped"
    overlay: str = ""  # the overlay whose amendment is changed, if any
    # the declaration changed, as prove's outcomes name what a proof read (Outcome.reads);
    # a step's end conditions ("procedure/step ends") and the expressions of a standing
    # rule's body ("clause/label body") are parts of their own: no proof reads them
    decl: str = ""

    @property
    def key(self) -> str:
        key = self.decl or self.where
        return f"{key} [{self.overlay}]" if self.overlay else key

    @property
    def name(self) -> str:
        where = (
            self.where
            if self.where.startswith(self.clause + "/")
            else (f"{self.clause} {self.where}")
        )
        return f"{where}{f' [{self.overlay}]' if self.overlay else ''} {self.change}"

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


# the spec as it is, judged first: every stage must pass it
UNCHANGED = Mutant(0, "", "", "", "", 0, 0, 0, 0, "", "", "unchanged")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class _Finder:
    """Walks one parsed file and collects its candidate changes."""

    def __init__(self, file: str, text: str, rules: set[str]) -> None:
        self.file = file
        self.text = text
        self.rules = rules  # the definitions the rules reach
        self.found: list[tuple[str, str, str, str, str, int, int, str, str]] = []
        self.clause = ""
        self.where = ""
        self.part = ""  # a part of the declaration no proof reads (a step's ends)
        self.overlay = ""  # inside an overlay's amendment: the overlay

    def add(self, kind: str, start: int, end: int, new: str, change: str) -> None:
        # a statement of a standing rule's body dropped is read (what it sets, or the game
        # over), but for a tell
        shape = kind in ("check", "statement") and not change.startswith("tell ")
        part = "" if self.part == "body" and shape else self.part
        decl = f"{self.where} {part}" if part else self.where
        self.found.append(
            (kind, self.clause, self.where, decl, self.overlay, start, end, new, change)
        )

    # -- expressions
    def expr(self, e: ast.Expr | None) -> None:
        if e is None:
            return
        s = e.span
        if isinstance(e, ast.IntLit) and s.end > s.start:
            if self.text[s.start : s.end] == str(e.value):
                self.add("number", s.start, s.end, str(e.value + 1), f"{e.value} -> {e.value + 1}")
                if e.value > 0:
                    self.add(
                        "number", s.start, s.end, str(e.value - 1), f"{e.value} -> {e.value - 1}"
                    )
        elif isinstance(e, ast.BinOp) and (e.op in FLIP or e.op in ("and", "or")):
            self.binop(e)
        for child in _children(e):
            self.expr(child)

    def binop(self, e: ast.BinOp) -> None:
        lo, hi = e.left.span.end, e.right.span.start
        if not 0 < lo <= hi:
            return  # an expression parsed apart from its file (a message's {...})
        gap = _COMMENT.sub(lambda m: " " * len(m.group()), self.text[lo:hi])
        if e.op in FLIP:
            m = _CMP.search(gap)
            new = FLIP[e.op]
        else:
            m = _ANDOR.search(gap)
            new = "or" if e.op == "and" else "and"
        if m is None or m.group() != e.op:
            return
        kind = "compare" if e.op in FLIP else "andor"
        self.add(kind, lo + m.start(), lo + m.end(), new, f"{e.op} -> {new}")

    # -- statements
    def block(self, stmts: list[ast.Stmt]) -> None:
        for st in stmts:
            s = st.span
            # a block holds at least one statement, and a dropped `let` leaves a name unknown
            if len(stmts) > 1 and not isinstance(st, ast.LetStmt) and s.end > s.start:
                if isinstance(st, ast.CheckStmt):
                    self.add("check", s.start, s.end, "", f"check {st.ref} dropped")
                else:
                    self.add("statement", s.start, s.end, "", f"{_stmt_name(st)} dropped")
            self.stmt(st)

    def stmt(self, st: ast.Stmt) -> None:
        if isinstance(st, ast.SetStmt):
            self.expr(st.target)
            self.expr(st.value)
        elif isinstance(st, ast.DoStmt):
            for a in st.args:
                self.expr(a)
        elif isinstance(st, ast.IfStmt):
            self.expr(st.cond)
            self.block(st.then)
            self.block(st.orelse)
        elif isinstance(st, ast.ForStmt):
            self.expr(st.domain)
            self.block(st.body)
        elif isinstance(st, ast.LetStmt):
            self.expr(st.value)
        elif isinstance(st, ast.CheckStmt):
            for a in st.args or []:
                self.expr(a)

    def requires(self, refs: list[ast.Ref]) -> None:
        """An action's ``require a, b``: each reference dropped from the list."""
        for i, r in enumerate(refs):
            if r.span.end <= r.span.start:
                continue
            if len(refs) == 1:
                before = self.text[: r.span.start].rstrip()
                if not before.endswith("require"):
                    continue
                start, end = len(before) - len("require"), r.span.end
            elif i < len(refs) - 1:
                start, end = r.span.start, refs[i + 1].span.start
            else:
                start, end = refs[i - 1].span.end, r.span.end
            self.add("check", start, end, "", f"require {r} dropped")

    # -- declarations
    def decl(self, d: ast.Decl) -> None:
        self.where = d.name
        if isinstance(d, ast.Property):
            return  # a property is what checks the rules, not a rule
        if isinstance(d, (ast.Define, ast.ConstDecl, ast.TableDecl)) and d.name not in self.rules:
            return  # only random play or a refusal's suggestions use it
        if isinstance(d, (ast.ConstDecl, ast.StateDecl)):
            self.expr(d.value)
        elif isinstance(d, ast.TableDecl):
            for row in d.rows:
                self.expr(row.value)
        elif isinstance(d, ast.Define):
            self.expr(d.body)
        elif isinstance(d, ast.Require):
            self.where = f"{d.clause}/{d.name}"
            c = d.cond.span
            if c.end > c.start and self.text[c.start : c.end] != "true":
                self.add("require", c.start, c.end, "true", "dropped")
            self.expr(d.cond)
        elif isinstance(d, ast.Routine):
            self.block(d.body)
        elif isinstance(d, ast.Whenever):
            self.where = f"{d.clause}/{d.name}"
            self.expr(d.cond)
            # a proof reads a standing rule's body for what it sets and whether it ends
            # the game, not for the values it sets: its expressions are a part of their own
            self.part = "body"
            self.block(d.body)
            self.part = ""
        elif isinstance(d, ast.Trigger):
            self.where = f"{d.clause}/{d.name}"
            self.expr(d.cond)
            self.block(d.body)
        elif isinstance(d, ast.Procedure):
            for v in d.vars:
                self.where = f"{d.name}.{v.name}"
                self.expr(v.value)
            for t in d.triggers:
                self.trigger(f"{d.name}/{t.name}", t)
            for step in d.steps:
                self.where = f"{d.name}/{step.name}"
                self.block(step.enter)
                self.part = "ends"
                for cond, _ in step.ends:
                    self.expr(cond)
                self.part = ""
                for t in step.triggers:
                    self.trigger(f"{d.name}/{step.name}/{t.name}", t)
                for allow in step.allows:
                    # `propose` and `alternatives` only suggest arguments; the rules judge
                    self.where = f"{d.name}/{step.name}/{allow.name}"
                    self.requires(allow.requires)
                    self.block(allow.effects)

    def trigger(self, where: str, t: Any) -> None:
        self.where = where
        self.expr(t.cond)
        self.block(t.body)

    def module(self, mod: ast.Module) -> None:
        for c in mod.clauses:
            self.clause = c.number
            for d in c.decls:
                self.decl(d)
        for o in mod.overlays:
            for a in o.amends:
                self.clause = a.clause
                for ch in a.changes:
                    self.overlay = o.id
                    if ch.decl is not None:
                        self.decl(ch.decl)
                    elif ch.cond is not None:
                        self.where = f"except {ch.ref}"
                        self.expr(ch.cond)
            self.overlay = ""


def _names(node: object, into: set[str]) -> None:
    """Every name a node refers to (a definition called, a routine done, a requirement
    checked), but none in what an action proposes or offers: those only suggest arguments."""
    if isinstance(node, ast.Name):
        into.add(node.id)
    elif isinstance(node, ast.DoStmt):
        into.add(node.name)
    elif isinstance(node, list | tuple):
        for x in node:
            _names(x, into)
        return
    if hasattr(node, "__dataclass_fields__"):
        for k, v in vars(node).items():
            if not (isinstance(node, ast.Allow) and k in ("propose", "alternatives")):
                _names(v, into)


def _entry(name: str) -> bool:
    """A definition the engine itself calls: ``summary()`` (where a game stands, in every
    verdict) and ``NAME_setup()`` (the events ``setup: NAME`` stands for)."""
    return name == "summary" or name.endswith(EXPANSION_SUFFIX)


def rule_names(modules: list[ast.Module]) -> set[str]:
    """The definitions, constants and tables the rules reach: from every declaration but
    the definitions themselves (requirements, procedures, routines, standing rules,
    properties, state), then through the bodies of the definitions reached. What only
    ``propose`` and ``alternatives`` reach (random play, a refusal's suggestions) is not in."""
    bodies: dict[str, list[ast.Decl]] = {}
    roots: list[ast.Decl] = []
    decls = [d for m in modules for c in m.clauses for d in c.decls]
    decls += [
        ch.decl
        for m in modules
        for o in m.overlays
        for a in o.amends
        for ch in a.changes
        if ch.decl
    ]
    for d in decls:
        if isinstance(d, (ast.Define, ast.ConstDecl, ast.TableDecl)):
            bodies.setdefault(d.name, []).append(d)
        if not isinstance(d, (ast.Define, ast.ConstDecl, ast.TableDecl)) or _entry(d.name):
            roots.append(d)
    reached = {name for name in bodies if _entry(name)}
    _names(roots, reached)
    _names(
        [ch.cond for m in modules for o in m.overlays for a in o.amends for ch in a.changes],
        reached,
    )
    todo = [n for n in reached if n in bodies]
    while todo:
        name = todo.pop()
        found: set[str] = set()
        _names(bodies[name], found)
        for n in found - reached:
            reached.add(n)
            if n in bodies:
                todo.append(n)
    return reached


def _children(e: ast.Expr) -> Iterator[ast.Expr]:
    for v in vars(e).values():
        if isinstance(v, ast.Expr):
            yield v
        elif isinstance(v, ast.Binder):
            yield v.domain
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, ast.Expr):
                    yield x
                elif isinstance(x, ast.Binder):
                    yield x.domain
                elif isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], ast.Expr):
                    yield x[1]


def _stmt_name(st: ast.Stmt) -> str:
    if isinstance(st, ast.SetStmt):
        return f"set {_short(st.target)}"
    if isinstance(st, ast.DoStmt):
        return f"do {st.name}"
    if isinstance(st, ast.TellStmt):
        return f"tell [{st.label}]"
    if isinstance(st, ast.GameOverStmt):
        return "game over"
    if isinstance(st, ast.ForStmt):
        return f"for {st.var}"
    return type(st).__name__.removesuffix("Stmt").lower()


def _short(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
        return f"{e.func.id}(...)"
    if isinstance(e, ast.Field):
        return f"{_short(e.obj)}.{e.name}"
    return "..."


@lru_cache(maxsize=4)
def _parsed(game: str) -> tuple[dict[Path, str], dict[Path, ast.Module], set[str]]:
    """The game's .rules files: their texts, their trees, and the names the rules reach."""
    root = games_root()
    paths = sorted((root / game).rglob("*.rules"))
    texts = {p: p.read_text(encoding="utf-8") for p in paths}
    modules = {p: parse_rules(texts[p], p.relative_to(root).as_posix()) for p in paths}
    return texts, modules, rule_names(list(modules.values()))


def left_out(game: str = "sekigahara") -> list[str]:
    """The definitions no rule reaches, not mutated: those only random play's proposals or a
    refusal's suggestions use, and those nothing uses."""
    _, modules, rules = _parsed(game)
    kinds = (ast.Define, ast.ConstDecl, ast.TableDecl)
    names = {d.name for m in modules.values() for c in m.clauses for d in c.decls}
    return sorted(
        n
        for n in names - rules
        if any(
            isinstance(d, kinds) and d.name == n
            for m in modules.values()
            for c in m.clauses
            for d in c.decls
        )
    )


def mutants(game: str = "sekigahara") -> list[Mutant]:
    """Every single change of the game's .rules files, in a fixed order: by file, then by
    place in the file."""
    root = games_root()
    out: list[Mutant] = []
    texts, modules, rules = _parsed(game)
    paths = list(texts)
    for path in paths:
        rel = path.relative_to(root).as_posix()
        text = texts[path]
        finder = _Finder(rel, text, rules)
        finder.module(modules[path])
        for kind, clause, where, decl, overlay, start, end, new, change in sorted(
            finder.found, key=lambda f: (f[5], f[6], KINDS.index(f[0]), f[7])
        ):
            line, col = _line_col(text, start)
            old = text[start:end]
            out.append(
                Mutant(
                    0,
                    kind,
                    clause,
                    where,
                    rel,
                    line,
                    col,
                    start,
                    end,
                    old,
                    new,
                    change,
                    overlay,
                    decl if decl != where else "",
                )
            )
    for i, m in enumerate(out, 1):
        m.id = i
    return out


def _clause_key(c: str) -> tuple[int, ...]:
    return tuple(int(p) for p in c.split("."))


def select(
    every: list[Mutant],
    clauses: list[str],
    kinds: list[str],
    ids: list[int],
    sample: int,
    seed: int,
) -> list[Mutant]:
    chosen = [
        m
        for m in every
        if (not clauses or any(m.clause == c or m.clause.startswith(c + ".") for c in clauses))
        and (not kinds or m.kind in kinds)
        and (not ids or m.id in ids)
    ]
    if sample and sample < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, sample), key=lambda m: m.id)
    return chosen


def write_mutant(m: Mutant | None, into: Path, game: str = "sekigahara") -> Path:
    """A copy of the games folder with the one change (none: as it is); the game's folder."""
    games = into / "games"
    shutil.copytree(games_root(), games, ignore=shutil.ignore_patterns("__pycache__"))
    if m is None:
        return games / game
    f = games / m.file
    text = f.read_text(encoding="utf-8")
    assert text[m.start : m.end] == m.old, m
    f.write_text(text[: m.start] + m.new + text[m.end :], encoding="utf-8")
    return games / Path(m.file).parts[0]


# ---------------------------------------------------------------- judging one mutant (a child)

_EXPECT = re.compile(r"^# expect: (legal|illegal (\S+) at event (\d+))\b(.*)$", re.M)
_WINNER = re.compile(r"(\w+) wins at once", re.I)
_OPEN = re.compile(r"^# open: ", re.M)


def _reading_failure(path: Path, v: Any) -> str:
    """What a reading's ``# expect:`` header finds wrong with its verdict, as
    tests/test_readings.py asserts it; "" when it agrees or states none."""
    m = _EXPECT.search(path.read_text(encoding="utf-8"))
    if m is None:
        return ""
    rest = m.group(4)
    if m.group(1) == "legal":
        if not v.legal:
            first = v.violations[0]
            return f"expected legal; event {first.index} refused citing {_cites(first)}"
        won = _WINNER.search(rest)
        if won and f"{won.group(1).lower()} wins at once" not in v.summary:
            return f"expected '{won.group(0)}'; summary: {v.summary}"
        if "no instant win" in rest and "wins at once" in v.summary:
            return f"expected no instant win; summary: {v.summary}"
        return ""
    if v.legal:
        return f"expected illegal {m.group(2)} at event {m.group(3)}; judged legal"
    first = v.violations[0]
    got = _cites(first) if "/" in m.group(2) else first.clause
    if (first.index, got) != (int(m.group(3)), m.group(2)):
        return (
            f"expected illegal {m.group(2)} at event {m.group(3)}; "
            f"got {_cites(first)} at event {first.index}"
        )
    return ""


def _cites(v: Any) -> str:
    return f"{v.clause}/{v.label}" if v.label else str(v.clause)


def _record_failure(path: Path, v: Any) -> str:
    """What the record finds wrong with its verdict: a miss of an ``expect:`` of its events;
    then its ``# expect:`` header's verdict, where it states one; else a refusal its events
    did not state."""
    for x in v.violations:
        if x.kind == "expectation":
            return f"event {x.index} misses an expectation: {x.message}"
    if _EXPECT.search(path.read_text(encoding="utf-8")):
        return _reading_failure(path, v)
    for x in v.violations:
        if not x.as_expected:
            return f"event {x.index} is refused: {_cites(x)}: {x.message}"
    return ""


def _quiet(argv: list[str]) -> tuple[int, str]:
    """``referee ARGV`` in this process: its exit code and what it printed."""
    from referee.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


def judge(
    game_dir: Path,
    records: list[Path],
    suite: list[str],
    every_stage: bool,
    stages: tuple[str, ...] = ("checker", "prove", "records", "suite"),
    every_set: bool = False,
) -> None:
    """Judge one mutant, printing a JSON line per stage as it ends (the parent reads them,
    and knows from the last which stage was running should the time run out). Only the
    ``stages`` named run (the checker always does). Prove runs under the default printing and
    overlays and, with ``every_set``, if that proves all, under every printing and overlay
    set too, as ``referee prove --all-overlays``."""

    def say(**kw: Any) -> None:
        print(json.dumps(kw), flush=True)

    code, out = _quiet(["spec", "check", "--spec", str(game_dir)])
    if code != 0:
        say(stage="checker", killed=True, why=_first_line(out))
        return
    say(stage="checker", killed=False)
    if "prove" in stages:
        code, out = _quiet(["prove", "--spec", str(game_dir)])
        if code == 0 and every_set:
            code, out = _quiet(["prove", "--spec", str(game_dir), "--all-overlays"])
        failed = [ln.strip() for ln in out.splitlines() if " failed" in ln]
        why = (failed or [_first_line(out)])[0] if code else ""
        say(stage="prove", killed=code != 0, why=why)
        if code != 0 and not every_stage:
            return
    if "records" not in stages:
        return
    killed = _judge_records(game_dir, records, say)
    if (killed and not every_stage) or not suite or "suite" not in stages:
        return
    # the test files named, every one loading the mutant (REFEREE_SPEC, tests/conftest.py)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *suite],
        cwd=ROOT,
        env={**os.environ, "REFEREE_SPEC": str(game_dir)},
        capture_output=True,
        text=True,
    )
    failed = [ln for ln in done.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    say(stage="suite", killed=done.returncode != 0, why=(failed or [""])[0][:300])


def _judge_records(game_dir: Path, records: list[Path], say: Any) -> bool:
    """Every record replayed under the mutant, to the first that fails; whether one did."""
    from referee.commands.loading import _game_of
    from referee.compile.spec import load_spec
    from referee.errors import RefereeError
    from referee.resolve.overlays import Choice
    from referee.run.batch import expand
    from referee.run.replay import check_one

    spec = load_spec(game_dir)
    paths, _ = expand(records)
    # the mutant's own game's records: another bundled game's (examples/fierce-battle) are not
    # judged by it
    own = spec.game.name if spec.game else ""
    paths = [p for p in paths if _game_of(p) == own]  # nor a scenario's data file
    # nor a reading left open (`# open:`): the referee does not give its verdict yet, and the
    # tests hold it to none
    paths = [p for p in paths if not _OPEN.search(p.read_text(encoding="utf-8"))]
    for p in paths:
        try:
            v = check_one(spec, p, Choice(), False, offer=False)
        except RefereeError as err:
            why = _first_line(err.render())
        except Exception as err:  # noqa: BLE001 - a crash fails the record, as it would a test
            why = f"the referee crashed: {type(err).__name__}: {err}"[:300]
        else:
            why = _record_failure(p, v)
        if why:
            say(stage="records", killed=True, record=_relative(p), why=why)
            return True
    say(stage="records", killed=False, records=len(paths))
    return False


def _relative(p: Path) -> str:
    try:
        return p.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(p)


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")[:300]


# ---------------------------------------------------------------- running many (the parent)


STAGES = ("checker", "prove", "records", "suite")


@dataclass
class Result:
    mutant: Mutant
    # the first stage that killed it (checker, prove, records, suite), or timeout, survived,
    # error (the judge itself failed: a bug of this tool)
    verdict: str
    why: str = ""
    record: str = ""
    seconds: float = 0.0
    stages: dict[str, bool] = field(default_factory=dict)  # each stage run: killed or not

    @property
    def killed(self) -> bool:
        return self.verdict in ("prove", "records", "suite", "timeout")


def run_one(
    m: Mutant,
    records: list[str],
    suite: list[str],
    timeout: float,
    every_stage: bool,
    stages: tuple[str, ...] = STAGES,
    every_set: bool = False,
) -> Result:
    """Judge one mutant (id 0: the spec as it is) in a process of its own, under a time limit.
    The process and any it starts are one process group, ended together on time-out."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        game_dir = write_mutant(None if m.id == 0 else m, Path(tmp))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--judge", str(game_dir)]
        cmd += [a for r in records for a in ("--records", r)]
        cmd += ["--suite", ",".join(suite)] if suite else []
        cmd += ["--every-stage"] if every_stage else []
        cmd += ["--stages", ",".join(stages)]
        cmd += ["--all-overlays"] if every_set else []
        env = {
            **os.environ,
            "REFEREE_NO_CACHE": "1",
            "REFEREE_SPEC": str(game_dir),
            "PYTHONPATH": str(ROOT),
        }
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            timed_out = True
    result = Result(m, "survived", seconds=time.monotonic() - started)
    lines = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    for ln in lines:
        result.stages[ln["stage"]] = ln["killed"]
        if ln["killed"] and result.verdict == "survived":
            result.verdict, result.why = ln["stage"], ln.get("why", "")
        if ln["killed"] and ln.get("record"):
            result.record = ln["record"]
    if timed_out:
        last = STAGES.index(lines[-1]["stage"]) if lines else -1
        running = STAGES[min(last + 1, len(STAGES) - 1)]
        if result.verdict == "survived":
            result.verdict = "timeout"
            result.why = f"no verdict in {timeout:.0f} s (during {running})"
    elif proc.returncode != 0:
        result.verdict, result.why = "error", _first_line(err[-2000:])
    elif result.verdict == "survived" and not set(stages) - {"suite"} <= set(result.stages):
        result.verdict, result.why = "error", "the judge stopped before its last stage"
    return result


@dataclass
class Covered:
    """What the spec's properties rest on, as proved on the bundled spec as it is (under
    every printing and overlay set, or the default one alone, as the prove stage runs): for
    each proof (each property under each set), the
    declarations it read (Outcome.reads) and, of a step invariant's steps, the statements it
    left out every time (Outcome.left_out: they set or check nothing it reads); and the
    clauses (each proof's, and each read declaration's)."""

    proofs: list[tuple[set[str], list[tuple[str, int, int]]]]
    clauses: set[str]

    @property
    def reads(self) -> set[str]:
        return {r for reads, _ in self.proofs for r in reads}

    def holds(self, m: Mutant) -> bool:
        """Whether a proof reads what a mutant changes: the declaration, and not within a
        statement the proof left out."""
        return any(
            m.key in reads
            and not any(
                f.endswith(m.file) and start <= m.start and m.end <= end
                for f, start, end in left_out
            )
            for reads, left_out in self.proofs
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "proofs": [
                {"reads": sorted(r), "left_out": [list(x) for x in lo]} for r, lo in self.proofs
            ],
            "clauses": sorted(self.clauses, key=_clause_key),
        }

    @classmethod
    def from_json(cls, saved: Any) -> Covered:
        if isinstance(saved, list):  # a run saved before the declarations were counted
            return cls([], set(saved))
        proofs = [
            (set(p["reads"]), [(str(f), int(a), int(b)) for f, a, b in p["left_out"]])
            for p in saved["proofs"]
        ]
        return cls(proofs, set(saved["clauses"]))


def _span(text: str) -> tuple[str, int, int]:
    file, start, end = text.rsplit(":", 2)
    return file, int(start), int(end)


def covered(every_set: bool = False) -> Covered:
    """What the proofs read: under the default printing and overlays, and with ``every_set``
    under each set ``referee prove --all-overlays`` proves (each printing, each overlay off)."""
    from referee.compile.spec import load_spec
    from referee.errors import Span
    from referee.resolve.overlays import Choice, apply, in_force
    from referee.verify.prover import prove

    spec = load_spec()
    choices = [Choice()]
    if every_set:
        choices += [Choice(p) for p in sorted(spec.sym.printings)]
        choices += [Choice("", [], [o]) for o in sorted(spec.sym.overlays)]
    outcomes = []
    cache: dict[str, Any] = {}
    for choice in choices:
        _, overlays = in_force(spec.sym, choice, lambda _: Span("<mutate>", 0, 0))
        outcomes += prove(
            apply(spec.sym, overlays),
            spec.components.names(),
            collections=spec.components.collections,
            cache=cache,
        )
    proofs = [(set(o.reads), [_span(x) for x in o.left_out]) for o in outcomes]
    cov = Covered(proofs, {c for o in outcomes for c in o.clauses})
    cov.clauses |= {m.clause for m in mutants() if cov.holds(m)}
    return cov


def split(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def ratio(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"


def figures(results: list[Result], covered: Covered) -> dict[str, Any]:
    """The counts, and the kill ratios over the mutants the checker accepts: prove's alone
    over those of the declarations its proofs read, and over those of the clauses they rest
    on; and everything's over all."""
    valid = [r for r in results if r.verdict not in ("checker", "error")]
    in_read = [r for r in valid if covered.holds(r.mutant)]
    in_covered = [r for r in valid if r.mutant.clause in covered.clauses]
    by_kind: dict[str, list[int]] = {}
    for r in valid:
        k = by_kind.setdefault(r.mutant.kind, [0, 0, 0])
        k[0] += r.stages.get("prove", False)
        k[1] += r.killed
        k[2] += 1
    return {
        "mutants": len(results),
        "killed by the checker (not counted below)": sum(r.verdict == "checker" for r in results),
        "errors of this tool (not counted below)": sum(r.verdict == "error" for r in results),
        "judged": len(valid),
        "killed by prove": sum(r.verdict == "prove" for r in valid),
        "killed by the records": sum(r.verdict == "records" for r in valid),
        "killed by the suite": sum(r.verdict == "suite" for r in valid),
        "timed out (killed)": sum(r.verdict == "timeout" for r in valid),
        "survived": sum(r.verdict == "survived" for r in valid),
        "prove alone, declarations the proofs read": ratio(
            sum(r.stages.get("prove", False) for r in in_read), len(in_read)
        ),
        "prove alone, clauses with properties": ratio(
            sum(r.stages.get("prove", False) for r in in_covered), len(in_covered)
        ),
        "prove and tests, all": ratio(sum(r.killed for r in valid), len(valid)),
        "by kind": {
            k: {"prove": ratio(v[0], v[2]), "prove and tests": ratio(v[1], v[2])}
            for k, v in sorted(by_kind.items(), key=lambda kv: KINDS.index(kv[0]))
        },
    }


def render_text(results: list[Result], fig: dict[str, Any], covered: Covered) -> str:
    lines = []
    for r in results:
        read = "  [read by a proof]" if covered.holds(r.mutant) else ""
        lines.append(f"#{r.mutant.id:<5} {r.verdict:<9} {r.mutant.name}  ({r.mutant.place}){read}")
        if r.why and r.verdict != "survived":
            lines.append(f"        {r.record + ': ' if r.record else ''}{r.why}")
    lines.append("")
    lines.append(f"clauses with properties: {', '.join(sorted(covered.clauses, key=_clause_key))}")
    lines.append(f"definitions no rule reaches, not mutated: {', '.join(left_out())}")
    for k, v in fig.items():
        if k == "by kind":
            for kind, x in v.items():
                lines.append(
                    f"  {kind:<10} prove {x['prove']}; prove and tests {x['prove and tests']}"
                )
        else:
            lines.append(f"{k}: {v}")
    survivors = [r for r in results if r.verdict == "survived"]
    if survivors:
        lines.append("survivors:")
        lines += [f"  #{r.mutant.id} {r.mutant.name}  ({r.mutant.place})" for r in survivors]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(results: list[Result], fig: dict[str, Any], covered: Covered) -> str:
    """The figures, by kind, and the survivors: tables for docs/mutation.md."""
    lines = ["| figure | value |", "|---|---|"]
    for k, v in fig.items():
        if k != "by kind":
            lines.append(f"| {k} | {v} |")
    clauses = ", ".join(sorted(covered.clauses, key=_clause_key))
    lines.append(f"| clauses with properties | {clauses} |")
    lines.append(f"| definitions no rule reaches, not mutated | {', '.join(left_out())} |")
    lines += ["", "| kind | prove | prove and tests |", "|---|---|---|"]
    for kind, x in fig["by kind"].items():
        lines.append(f"| {kind} | {x['prove']} | {x['prove and tests']} |")
    lines += ["", "| # | survivor | place | read by a proof |", "|---|---|---|---|"]
    for r in results:
        if r.verdict == "survived":
            read = "yes" if covered.holds(r.mutant) else "no"
            lines.append(
                f"| {r.mutant.id} | `{_cell(r.mutant.name)}` | {r.mutant.place} | {read} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python tools/mutate.py",
        description="Single changes of the spec, judged by the checker, prove and the records.",
    )
    p.add_argument("--list", action="store_true", help="list the mutants chosen; judge none")
    p.add_argument(
        "--read",
        action="store_true",
        help="only the mutants of the declarations a proof reads",
    )
    p.add_argument(
        "--clauses", default="", help="only these clauses and their sub-clauses: 7.3,7.4"
    )
    p.add_argument("--kinds", default="", help=f"only these kinds: {','.join(KINDS)}")
    p.add_argument("--ids", default="", help="only the mutants of these numbers (as --list shows)")
    p.add_argument("--sample", type=int, default=0, metavar="N", help="N mutants drawn at random")
    p.add_argument("--seed", type=int, default=0, help="the seed of --sample")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants at once")
    p.add_argument("--timeout", type=float, default=300, help="seconds a mutant may take")
    p.add_argument(
        "--records",
        action="append",
        default=None,
        metavar="DIR",
        help="a folder of records to replay (default: examples and tests/readings)",
    )
    p.add_argument(
        "--suite",
        default="",
        metavar="FILES",
        help="test files (comma-separated) run with pytest against a mutant the records spare",
    )
    p.add_argument(
        "--every-stage", action="store_true", help="run every stage, even after one kills"
    )
    p.add_argument(
        "--stages",
        default=",".join(STAGES),
        metavar="NAMES",
        help="only these stages (the checker always runs): prove alone is --stages prove",
    )
    p.add_argument(
        "--all-overlays",
        action="store_true",
        help="a mutant the default printing and overlays prove is proved under every set too,"
        " as `prove --all-overlays` (about 80 s more a mutant); what the proofs read is counted"
        " under every set",
    )
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument(
        "--load", type=Path, metavar="FILE", help="judge none: show a run saved with --format json"
    )
    p.add_argument("--judge", type=Path, help=argparse.SUPPRESS)  # the child: one mutant
    args = p.parse_args(argv)
    records = args.records or list(RECORDS)
    suite = split(args.suite)
    stages = tuple(["checker", *[s for s in split(args.stages) if s != "checker"]])
    if args.judge:
        judge(
            args.judge,
            [ROOT / r for r in records],
            suite,
            args.every_stage,
            stages,
            args.all_overlays,
        )
        return 0
    bad = set(split(args.kinds)) - set(KINDS)
    if bad:
        p.error(f"no such kind: {', '.join(sorted(bad))} (the kinds: {', '.join(KINDS)})")
    bad = set(stages) - set(STAGES)
    if bad:
        p.error(f"no such stage: {', '.join(sorted(bad))} (the stages: {', '.join(STAGES)})")
    every = mutants()
    if args.read:  # before a sample is drawn: the sample is of these
        reading = covered(args.all_overlays)
        every = [m for m in every if reading.holds(m)]
    chosen = select(
        every,
        split(args.clauses),
        split(args.kinds),
        [int(i) for i in split(args.ids)],
        args.sample,
        args.seed,
    )
    if args.list:
        if args.format == "json":
            print(json.dumps([{**asdict(m), "name": m.name} for m in chosen], indent=2))
        else:
            for m in chosen:
                print(f"#{m.id:<5} {m.kind:<9} {m.name}  ({m.place})")
            print(f"{len(chosen)} mutant(s)")
            print(f"definitions no rule reaches, not mutated: {', '.join(left_out())}")
        return 0
    if args.load:
        saved = json.loads(args.load.read_text(encoding="utf-8"))
        loaded = [
            Result(
                **{**r, "mutant": Mutant(**{k: v for k, v in r["mutant"].items() if k != "name"})}
            )
            for r in saved["mutants"]
        ]
        cov = Covered.from_json(saved["covered"])
        show(args.format, loaded, cov)
        return 0
    cov = covered(args.all_overlays)
    # the spec as it is must pass every stage, or a kill would say nothing of the change
    every_set = bool(args.all_overlays)
    base = run_one(UNCHANGED, records, suite, args.timeout, True, stages, every_set)
    if base.verdict != "survived":
        where = f"{base.record}: " if base.record else ""
        print(f"mutate: the spec as it is fails {base.verdict}: {where}{base.why}", file=sys.stderr)
        return 2
    results: list[Result] = []
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        futures = [
            pool.submit(
                run_one, m, records, suite, args.timeout, args.every_stage, stages, every_set
            )
            for m in chosen
        ]
        for i, f in enumerate(futures, 1):
            r = f.result()
            results.append(r)
            print(
                f"[{i}/{len(chosen)}] #{r.mutant.id} {r.verdict} {r.mutant.name}"
                f" ({r.seconds:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    show(args.format, results, cov)
    return 0


def show(form: str, results: list[Result], covered: Covered) -> None:
    fig = figures(results, covered)
    if form == "json":
        out = {
            "figures": fig,
            "covered": covered.as_json(),
            "mutants": [
                {
                    **{k: v for k, v in asdict(r).items() if k != "mutant"},
                    "mutant": {**asdict(r.mutant), "name": r.mutant.name},
                }
                for r in results
            ],
        }
        print(json.dumps(out, indent=2))
    elif form == "markdown":
        print(render_markdown(results, fig, covered))
    else:
        print(render_text(results, fig, covered))


if __name__ == "__main__":
    sys.exit(main())
