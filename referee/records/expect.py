"""Expected outcomes in records: ``expect:`` beside an event.

A record may state what it expects after an event, each expectation a key and a value:
the key an expression of the rules language naming the spec's own definitions and state
(``score(red)``, ``units_at(Hill, blue)``), the value what it should be. Two keys are not
expressions: ``happened`` lists outcomes the rules must have told of at that event
(``clause/label``), ``not_happened`` outcomes they must not have. Values of an enum may be
named bare (``Hill`` for ``location.Hill``) where the name is a value of one enum alone.
Lists are compared whatever their order, as the pieces in a place are counted.

A miss is reported like a violation: the clause that computes the value, the value the
rules give and the numbers that make it.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.compile.builtins import args_key, key_of
from referee.compile.execute import Interpreter
from referee.compile.interp import RULES_FAILURES, TraceEntry
from referee.compile.shown import SHOWN_VALUE, brief, plain
from referee.data.source import Document
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.parse.parser import parse_expr
from referee.records.record import Event
from referee.records.values import Converter
from referee.resolve.checker import Checker
from referee.resolve.reads import names_written, reads
from referee.resolve.symbols import Symbols
from referee.resolve.types import BUILTINS, T
from referee.text import clip

HAPPENED, NOT_HAPPENED, ILLEGAL = "happened", "not_happened", "illegal"


@dataclass
class Expectation:
    key: str  # as the record writes it
    path: tuple[str | int, ...]  # of its value in the record
    expr: ast.Expr | None  # None for happened / not_happened
    expected: Any  # converted to the expression's type (outcome labels for happened)
    clause: str = ""  # the clause of the definition or state the key names first
    name: str = ""  # that definition's or state's name
    where: Span | None = None  # where the record writes the key
    # the procedures' parameters and variables the key reads, each with its procedures
    variables: dict[str, list[str]] = field(default_factory=dict)


class KeyFailed(Exception):
    """The rules fail on an expectation's key after its event (an index past the end of a
    list, a budget broken): the record's fault, said at the key."""

    def __init__(self, expectation: Expectation, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.expectation = expectation
        self.cause = cause


@dataclass
class Miss:
    expectation: Expectation
    found: Any  # the value the rules give, as data (outcomes told, for happened)
    message: str
    numbers: list[str]
    clause: str = ""  # the clause that computed the value: the statement that last set it


def bare_enum_values(sym: Symbols, interp: Interpreter) -> dict[str, tuple[T, Any]]:
    """The enum values a key may name bare: those of one enum alone, named like a word,
    that are no definition's or state's name."""
    seen: dict[str, list[tuple[T, Any]]] = {}
    for name, d in sym.types.items():
        if not isinstance(d, ast.EnumDecl):
            continue
        for v in interp.enum_values(name):
            if isinstance(v, str) and v.isidentifier():
                seen.setdefault(v, []).append((T("enum", name), v))
    return {
        k: vs[0]
        for k, vs in seen.items()
        if len(vs) == 1 and k not in sym.values and k not in sym.types and k not in BUILTINS
    }


def _frame_names(sym: Symbols, checker: Checker) -> dict[str, T]:
    """The parameters and variables of the rules' procedures, by name and type: a key may
    read those of a procedure running after its event (a name two procedures give two
    types is left out)."""
    seen: dict[str, set[T]] = {}
    for proc in sym.procedures().values():
        for name, t in [
            *((p.name, p.type) for p in proc.params),
            *((v.name, v.type) for v in proc.vars),
        ]:
            seen.setdefault(name, set()).add(checker.typeref(t))
    return {k: next(iter(ts)) for k, ts in seen.items() if len(ts) == 1 and k not in sym.values}


def _own_names(proc: ast.Procedure) -> set[str]:
    return {v.name for v in proc.vars} | {q.name for q in proc.params}


def frame_values(frames: list[Any]) -> dict[str, Any]:
    """The values of the running procedures' parameters and variables, the innermost
    procedure's where two give the same name."""
    out: dict[str, Any] = {}
    for f in frames:
        out.update(f.vars)
    return out


def _type_ref(t: T) -> ast.TypeRef:
    if t.kind in ("list", "set"):
        return ast.TypeRef(t.kind, _type_ref(t.arg) if t.arg else ast.TypeRef("any"))
    return ast.TypeRef(t.name if t.kind in ("enum", "record") else t.kind)


def _key_span(doc: Document, path: tuple[str | int, ...], key: str) -> Span:
    """Where a key is written: the last time its text is written before its value, on the
    value's line (``week: 7``, ``{happened: [...], e: 1}``), or on the line before (a value
    on a line of its own)."""
    at = doc.span(path)
    lines = doc.text.splitlines()
    for line, end in ((at.line, at.column - 1), (at.line - 1, None)):
        if 1 <= line <= len(lines):
            col = lines[line - 1].rfind(key, 0, end)
            if col >= 0:
                return Span(doc.file, line, col + 1)
    return at


def _head(sym: Symbols, e: ast.Expr) -> tuple[str, str]:
    """The first definition or state an expression names: its clause and name."""
    stack: list[Any] = [e]
    while stack:
        n = stack.pop(0)
        name = n.func.id if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else ""
        name = n.id if isinstance(n, ast.Name) else name
        d = sym.values.get(name) if name else None
        if d is not None and d.clause:
            return d.clause, d.name
        if isinstance(n, ast.Expr):
            for v in vars(n).values():
                if isinstance(v, list):
                    stack.extend(x for x in v if isinstance(x, ast.Expr))
                elif isinstance(v, ast.Expr):
                    stack.append(v)
    return "", ""


def compile_expectations(
    ev: Event,
    raw: Any,
    doc: Document,
    sym: Symbols,
    interp: Interpreter,
    convert: Converter,
) -> list[Expectation]:
    """Parse and type-check one event's ``expect:``: every problem is located in the record."""
    base = ev.path[:2] + ("expect",)
    if not isinstance(raw, dict):
        raise _bad(doc, doc.span(base), "expect: a mapping of expressions to expected values")
    bare = bare_enum_values(sym, interp)
    checker = Checker([], sym.data_values)
    checker.sym = sym
    names = {k: t for k, (t, _) in bare.items()} | _frame_names(sym, checker)
    out = []
    for key, value in raw.items():
        path = base + (key,)
        where = _key_span(doc, path, str(key))
        if key in (HAPPENED, NOT_HAPPENED):
            out.append(Expectation(key, path, None, _refs(doc, path, value, _tellable(sym))))
            continue
        if key == ILLEGAL:
            labels = set(sym.labels) | set(sym.clauses)
            out.append(Expectation(key, path, None, _refs(doc, path, value, labels)))
            continue
        if not isinstance(key, str) or not key.strip():
            raise _bad(doc, where, "expect: each key is an expression of the rules language")
        try:
            e = parse_expr(key, where, "expect")
            checker.problems = []
            t = checker.expr(e, dict(names))
        except RecursionError:
            raise _bad(doc, where, "expect: an expression nested too deeply to check") from None
        except RefereeError as err:
            p = err.problems[0]
            raise _bad(doc, p.span, f"expect: {p.message}", p.hint) from None
        if checker.problems:
            p = checker.problems[0]
            raise _bad(doc, p.span, f"expect: {p.message}", p.hint)
        # null: nothing (no owner, no side)
        expected = None if value is None else plain(convert.convert(value, _type_ref(t), path))
        clause, name = _head(sym, e)
        # the procedures' variables it reads (not the names it binds), in the order written
        free = reads(e, sym)
        procs = list(sym.procedures().values())
        declared = {
            n: [proc.name for proc in procs if n in _own_names(proc)]
            for n in names_written(e)
            if n in free and n in names and n not in bare
        }
        if not clause and declared:  # a procedure's variable: the clause of the procedure
            first = next(iter(declared))
            proc = next(p for p in procs if p.name == declared[first][0])
            clause, name = proc.clause, proc.name
        out.append(Expectation(key, path, e, expected, clause, name, where, declared))
    return out


def _refs(doc: Document, path: tuple[str | int, ...], value: Any, told: set[str]) -> Any:
    """Outcomes (or conditions) named clause/label, each one the spec declares."""
    refs = list(value) if isinstance(value, list) else [value]
    if not refs and path[-1] == ILLEGAL:
        raise _bad(
            doc,
            doc.span(path),
            "expect: illegal: [] names no condition",
            "name at least one the event must be refused citing, as clause/label",
        )
    for i, r in enumerate(refs):
        where = path + (i,) if isinstance(value, list) else path
        if isinstance(r, (int, float)) and not isinstance(r, bool):
            r = refs[i] = _as_written(doc, where)  # 8.10, read by YAML as a number
        if not isinstance(r, str) or r not in told:
            close = difflib.get_close_matches(str(r), sorted(told), n=1)
            raise _bad(
                doc,
                doc.span(where),
                f"expect: {_written(doc, where, r)} is no"
                f" {'condition' if path[-1] == ILLEGAL else 'outcome'}"
                " of the spec's",
                f"did you mean '{close[0]}'?" if close else "name one as clause/label",
            )
    return list(refs)


def _written(doc: Document, path: tuple[str | int, ...], value: Any) -> str:
    """A value as the record writes it: a scalar as in the file, else in flow style."""
    if isinstance(value, (dict, list)):
        return clip(_flow(value))
    return clip(_as_written(doc, path) or str(value))


def _flow(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return "null" if v is None else "true" if v is True else "false" if v is False else str(v)


def _as_written(doc: Document, path: tuple[str | int, ...]) -> str:
    """A plain scalar as the file writes it (a clause number YAML took for a number)."""
    at = doc.span(path)
    lines = doc.text.splitlines()
    line = lines[at.line - 1] if 1 <= at.line <= len(lines) else ""
    m = re.match(r"[^\s,\]}#]+", line[at.column - 1 :])
    return m.group(0) if m else ""


def _tellable(sym: Symbols) -> set[str]:
    """Every outcome the spec's rules may tell of: clause/label."""
    out = set()
    stack: list[Any] = []
    for c in sym.clauses.values():
        stack.extend(c.decls)
    for o in sym.overlays.values():
        for a in o.amends:
            stack.extend(ch.decl for ch in a.changes if ch.decl is not None)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.TellStmt):
            out.add(f"{n.clause}/{n.label}")
        for v in vars(n).values():
            if isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, _HOLDERS))
    return out


_HOLDERS = (ast.Decl, ast.Stmt, ast.Step, ast.Allow)


def _bad(doc: Document, where: Span, message: str, hint: str = "") -> RefereeError:
    return RefereeError([Problem(where, message, hint)], {doc.file: doc.text})


def _same(a: Any, b: Any) -> bool:
    """Equal values; lists equal whatever their order (the blocks in a location)."""
    if isinstance(a, list) and isinstance(b, list):
        return Counter(map(_frozen, a)) == Counter(map(_frozen, b))
    return bool(a == b)


def _frozen(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(sorted(map(_frozen, v), key=repr))
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    return key_of(v)


def check_expectations(
    expectations: list[Expectation],
    interp: Interpreter,
    bare: dict[str, tuple[T, Any]],
    told: list[str],
    running: dict[str, Any] | None = None,
) -> list[Miss]:
    """Each expectation after its event: the misses, with the numbers that make the value
    (a key may read the running procedures' parameters and variables, ``running``)."""
    misses = []
    env = {k: v for k, (_, v) in bare.items()} | (running or {})
    for x in expectations:
        if x.key == ILLEGAL:
            continue  # judged with the event's verdict (see ``refused``)
        if x.expr is None:
            wanted = x.key == HAPPENED
            wrong = [r for r in x.expected if (r in told) != wanted]
            if wanted and not x.expected and told:  # happened: [] -- nothing at all
                wrong = ["nothing"]
            if wrong:
                said = _some(told) or "nothing"
                verb = "was not told" if wanted and x.expected else "was told"
                misses.append(
                    Miss(x, told, f"expected {x.key}: {_some(wrong)} {verb}; told: {said}", [])
                )
            continue
        idle = [n for n in x.variables if n not in env]
        if idle:
            procs = " or ".join(x.variables[idle[0]])
            said = f"'{idle[0]}' is a variable of {procs}, which is not running after this event"
            raise KeyFailed(x, RefereeError([Problem(x.where or Span("<rules>", 0, 0), said)]))
        try:
            value = plain(interp.eval(x.expr, dict(env)))
            if _same(value, x.expected):
                continue
            numbers = (
                why_false(interp, x.expr, env) if value is False else _numbers(interp, x.expr, env)
            )
            setter = _set_by(interp, x.expr, env)
        except (RefereeError, *RULES_FAILURES) as err:
            raise KeyFailed(x, err) from None
        numbers += [f"{n} = {brief(env[n])}" for n in x.variables if n in (running or {})]
        if setter:
            numbers.append(f"{clip(x.key)} = {brief(value)}: set by {setter}")
        misses.append(
            Miss(
                x,
                value,
                f"expected {clip(x.key)} = {brief(x.expected, SHOWN_VALUE)};"
                f" the rules give {brief(value, SHOWN_VALUE)}",
                numbers,
                setter or x.clause,
            )
        )
    return misses


def _some(names: list[str], shown: int = 20) -> str:
    """Names one after the other, the first ``shown`` of them, and how many more."""
    more = f", ... {len(names) - shown:,} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _set_by(interp: Interpreter, e: ast.Expr, env: dict[str, Any]) -> str:
    """For a key that reads one state cell, the clause whose statement last set it."""
    if isinstance(e, ast.Name):
        name, args = e.id, ()
    elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
        name = e.func.id
        args = tuple(interp.eval(a, dict(env)) for a in e.args)
    else:
        return ""
    d = interp.sym.values.get(name)
    if not isinstance(d, ast.StateDecl):
        return ""
    return interp.set_by.get((name, args_key(args) if d.params else None), "")


MAX_TRACED = 200  # calls traced to show the numbers behind a miss


class _Enough(Exception):
    """The trace of a miss holds MAX_TRACED calls: enough to show, and to stop at."""


class _Capped(list[TraceEntry]):
    def append(self, entry: TraceEntry) -> None:
        if len(self) >= MAX_TRACED:
            raise _Enough
        super().append(entry)


@dataclass
class FalseCase:
    """One instance at which a condition is false: the part of it that is false, the values
    of the `forall` variables around that part, and each variable's domain with the values
    it was evaluated at."""

    expr: ast.Expr
    case: dict[str, Any]
    ranges: list[tuple[ast.Expr, dict[str, Any]]]


def false_cases(interp: Interpreter, e: ast.Expr, env: dict[str, Any]) -> Iterator[FalseCase]:
    """Each instance at which a false condition is false, in order: through its conjuncts
    (`and`) to each false one, through a `forall` to each value of its variables its body is
    false at, down to the parts that are false."""

    def walk(
        e: ast.Expr, case: dict[str, Any], ranges: list[tuple[ast.Expr, dict[str, Any]]]
    ) -> Iterator[FalseCase]:
        here = {**env, **case}
        if isinstance(e, ast.BinOp) and e.op == "and":
            for part in (e.left, e.right):
                if not interp.eval(part, dict(here)):
                    yield from walk(part, case, ranges)
        elif isinstance(e, ast.Quant) and e.kind == "forall":
            yield from each(e, list(e.binders), case, ranges)
        else:
            yield FalseCase(e, case, ranges)

    def each(
        q: ast.Quant,
        binders: list[ast.Binder],
        case: dict[str, Any],
        ranges: list[tuple[ast.Expr, dict[str, Any]]],
    ) -> Iterator[FalseCase]:
        here = {**env, **case}
        if not binders:
            if not interp.eval(q.body, dict(here)):
                yield from walk(q.body, case, ranges)
            return
        b = binders[0]
        for x in interp.eval(b.domain, dict(here)):
            yield from each(q, binders[1:], {**case, b.name: x}, [*ranges, (b.domain, here)])

    return walk(e, {}, [])


def why_false(
    interp: Interpreter, e: ast.Expr, env: dict[str, Any], found: FalseCase | None = None
) -> list[str]:
    """The numbers that make a false condition false, at ``found`` (else the first instance
    it is false at, see false_cases): the values of the variables around the part that is
    false (said first), the state they range over and that part reads, and the calls that
    compute it."""
    f = found if found is not None else next(false_cases(interp, e, env), None)
    if f is None:
        return _numbers(interp, e, env)
    here = {**env, **f.case}
    if not f.case:
        return _numbers(interp, f.expr, here)
    said = ", ".join(f"{k} = {brief(v)}" for k, v in f.case.items())
    read = [r for d, at in f.ranges for r in _state_read(interp, d, at)]
    read += _state_read(interp, f.expr, here)
    return [f"it fails for {said}", *dict.fromkeys(read), *_numbers(interp, f.expr, here)]


def _state_read(interp: Interpreter, e: ast.Expr, env: dict[str, Any]) -> list[str]:
    """The state cells an expression reads directly, each with its value (a call's
    arguments by the names written, else by their values)."""
    out: dict[str, None] = {}
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if not isinstance(n, ast.Expr):
            continue
        d = interp.sym.values.get(n.id) if isinstance(n, ast.Name) else None
        if isinstance(d, ast.StateDecl) and not d.params:
            out[f"{d.name} = {brief(interp.eval(n, dict(env)))}"] = None
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and isinstance(interp.sym.values.get(n.func.id), ast.StateDecl)
        ):
            args = ", ".join(
                a.id if isinstance(a, ast.Name) else brief(interp.eval(a, dict(env)))
                for a in n.args
            )
            out[f"{n.func.id}({args}) = {brief(interp.eval(n, dict(env)))}"] = None
            stack.extend(a for a in n.args if isinstance(a, ast.Expr))
            continue
        for v in vars(n).values():
            if isinstance(v, list):
                stack.extend(x for x in v if isinstance(x, ast.Expr))
            elif isinstance(v, ast.Expr):
                stack.append(v)
    return sorted(out)


def _numbers(interp: Interpreter, e: ast.Expr, env: dict[str, Any]) -> list[str]:
    """The calls that computed a value, each with its clause (evaluated again, traced, so
    with nothing kept): at most MAX_TRACED calls, the evaluation stopped there, so that a
    miss costs about what a hit costs."""
    saved, saved_depth = interp.trace, interp.trace_depth
    trace = _Capped()
    interp.trace, interp.trace_depth = trace, 1_000_000
    stopped = False
    try:
        interp.eval(e, dict(env))
    except _Enough:
        stopped = True
    finally:
        interp.trace, interp.trace_depth = saved, saved_depth
    seen: dict[str, None] = {}
    for t in trace:
        seen.setdefault(str(t), None)
    out = list(seen)
    if stopped:
        out.append(f"... (the first {MAX_TRACED} calls evaluated; the rest not traced)")
    return out


def refused(expectations: list[Expectation], cited: list[str]) -> tuple[bool, str]:
    """Whether an event the record expects to be illegal was refused as it says (a refusal
    citing the clause, or the clause and label, it names), and what the miss is if not."""
    wanted = [r for x in expectations if x.key == ILLEGAL for r in x.expected]
    if not wanted:
        return not cited, ""
    if not cited:
        return (
            False,
            f"expected the event to be refused citing {', '.join(wanted)}; the rules allow it",
        )
    hits = [r for r in wanted if any(c == r or c.startswith(r + "/") for c in cited)]
    if hits:
        return True, ""
    return False, (
        f"expected the event to be refused citing {', '.join(wanted)}; "
        f"it is refused citing {', '.join(cited)}"
    )
