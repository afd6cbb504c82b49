"""The referee of one record: the position it starts from, each event judged by the rules,
the violations it finds."""

from __future__ import annotations

import difflib
from itertools import product
from math import prod
from typing import Any

from referee.compile.builtins import args_key
from referee.compile.execute import StandingLoop
from referee.compile.interp import RULES_FAILURES, CheckFailed, failure
from referee.compile.shown import brief, listed, show
from referee.compile.spec import Spec, multiplicity
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.records.expect import (
    ILLEGAL,
    Expectation,
    FalseCase,
    KeyFailed,
    bare_enum_values,
    check_expectations,
    false_cases,
    frame_values,
    refused,
    why_false,
)
from referee.records.record import Event, Record
from referee.records.values import Converter
from referee.resolve.overlays import Choice, in_force
from referee.resolve.reads import floors, reads
from referee.resolve.symbols import Symbols
from referee.run.machine import Frame, Machine, NotAllowed, Stuck
from referee.run.verdict import LISTED, MAX_LINE, Violation
from referee.text import shown

# the most keys a state whose starting value reads other state is fixed for at a position
MAX_STARTING_KEYS = 10_000


class Referee:
    """One record against one spec, with the printing and overlays chosen."""

    def __init__(self, spec: Spec, record: Record, choice: Choice) -> None:
        self.spec = spec
        self.record = record
        self.printing, overlays = in_force(spec.sym, choice, self._where)
        self.overlays = [o.id for o in overlays]
        self._in_force = overlays
        self.interp = spec.lease(overlays)
        self.sym = self.interp.sym
        self.convert = Converter(
            self.sym,
            spec.components.collections,
            record.doc,
            lambda e: self.interp.eval(e, {}),
        )
        self.machine = Machine(self.interp, whole_game=spec.game.start if spec.game else "")
        self.machine.source_of = spec.source_of
        game = spec.game
        self.players = ast.TypeRef(game.players) if game and game.players else None
        self.actions = self.sym.event_actions()
        self.defaulted_vars: list[str] = []  # the position's procedure vars it does not give
        self.counts: dict[tuple[str, str], int] | None = None  # floors, when a position needs them
        self.notes: list[str] = []  # what the reader of the verdict should know of the start
        self.given: set[tuple[str, Any]] = set()  # the state cells the position gives
        self.totals: dict[str, int | None] = {}  # the components of a type, in all

    def release(self) -> None:
        """Done with this record: its interpreter may serve another."""
        self.spec.give_back(self._in_force, self.interp)

    def _where(self, name: str) -> Span:
        """Where the record names a printing or overlay; else it came from the command line."""
        data = self.record.doc.data
        if data.get("printing") == name:
            return self.record.doc.span(("printing",))
        for key in ("overlays", "no_overlays"):
            for i, oid in enumerate(data.get(key) or []):
                if oid == name:
                    return self.record.doc.span((key, i))
        return Span("<command line>", 0, 0)

    # ------------------------------------------------------------ start
    def start(self) -> None:
        """Stand where the record starts: the set-up, or the position it gives. A position
        the rules then fail on is the record's fault, said at the record's position."""
        where = ("position",) if self.record.position is not None else ("game",)
        try:
            self._start()
        except (RefereeError, *RULES_FAILURES) as err:
            raise self._rules_failed(err, where, "the position") from None
        except Stuck as err:
            raise self._bad(where, f"the spec's rules loop here: {err}") from None
        except StandingLoop as err:
            raise self._bad(where, f"the spec's standing rule {err}") from None
        except CheckFailed as err:
            raise self._bad(
                where,
                f"the rules refuse where the record starts: {err.req.clause}/{err.req.name}:"
                f" {err.message}",
            ) from None

    def unreachable(self) -> Violation | None:
        """The record's starting position, where the rules have settled it, judged against
        the spec's step invariants that read the position alone (position_invariants):
        `referee prove` shows each holds wherever an event may be played. A position is
        refused where one fails at values whose every state cell read is one the position
        gives: a cell it leaves out holds its starting value, a shorthand, not a claim (a
        hand given with the draw pile left out is no position of two decks). The first such
        failure, as a violation of the position (event 0, kind "position"); None for a
        record from the set-up, or a position no invariant refuses."""
        if self.record.position is None:
            return None
        given = {name for name, _ in self.given}
        for p, state in position_invariants(self.sym):
            if not state & given:
                continue  # every instance reads a cell left out: none is refused
            self.interp.relied = set()
            self.interp._rely(p)
            try:
                if self.interp.eval(p.body, {}):
                    continue
                found = next(
                    (f for f in false_cases(self.interp, p.body, {}) if self._stated(f)), None
                )
                if found is None:
                    continue
                numbers = why_false(self.interp, p.body, {}, found)
            except (RefereeError, *RULES_FAILURES) as err:
                raise self._rules_failed(err, ("position",), f"{p.clause}/{p.name}") from None
            span = self.record.doc.span(("position",))
            c = self.sym.clauses.get(p.clause)
            return Violation(
                0,
                "",
                span.line,
                span.column,
                p.clause,
                p.name,
                c.title if c else "",
                p.text,
                numbers,
                sorted(self.interp.relied),
                kind="position",
            )
        return None

    def _stated(self, f: FalseCase) -> bool:
        """Whether every state cell a false instance reads (its variables' domains too) is
        one the position gives: then it is false whatever the cells left out hold."""
        reading: tuple[set[Any], set[str]] = (set(), set())
        self.interp._reading.append(reading)
        try:
            for domain, env in f.ranges:
                self.interp.eval(domain, dict(env))
            self.interp.eval(f.expr, {**f.case})
        finally:
            self.interp._reading.pop()
        return reading[0] <= self.given

    def _rules_failed(
        self, err: BaseException, path: tuple[str | int, ...], what: str
    ) -> RefereeError:
        """The rules failed on a value the record gave: said at the record's ``path``,
        naming what failed where in the spec. An error already in the record stands."""
        doc = self.record.doc
        if isinstance(err, RefereeError):
            if all(p.span.file == doc.file for p in err.problems):
                err.sources.setdefault(doc.file, doc.text)
                return err
            p = err.problems[0]
            cause = f"{p.message} ({p.span}" + (f", clause {p.clause})" if p.clause else ")")
        else:
            cause = f"{type(err).__name__}: {err}"
        hint = "a value of the record's position may be one the rules never reach in play"
        return RefereeError(
            [
                Problem(
                    doc.span(path),
                    f"{what}: the rules fail on the values this record gives: {shown(cause)}",
                    hint if self.record.position is not None else "",
                )
            ],
            {doc.file: doc.text},
        )

    def _key_failed(self, ev: Event, err: KeyFailed) -> RefereeError:
        """The rules fail on an ``expect:`` key after its event: said at the key, with what
        failed (and where in the spec, when it failed there)."""
        doc, x, cause = self.record.doc, err.expectation, err.cause
        if isinstance(cause, RefereeError):
            p = cause.problems[0]
            here = p.span.file in (doc.file, "<rules>")  # the key's own expression, a budget
            what = p.message + (
                "" if here else f" ({p.span}, clause {p.clause})" if p.clause else f" ({p.span})"
            )
        else:
            what = failure(cause)
        return RefereeError(
            [
                Problem(
                    x.where or doc.span(x.path),
                    f"event {ev.index} ({ev.action}): the rules fail on the expect key"
                    f" {shown(x.key)}: {shown(what)}",
                    "a key is evaluated after its event, as the rules evaluate a definition",
                )
            ],
            {doc.file: doc.text},
        )

    def _start(self) -> None:
        pos = self.record.position
        if pos is None:
            game = self.spec.game
            proc = self.sym.actions.get(game.start) if game and game.start else None
            if not isinstance(proc, ast.Procedure):
                raise self._bad(("game",), "this game's spec names no procedure to start from")
            self.machine.start(proc, ())
            return
        for name, value in (pos.get("state") or {}).items():
            self._set_state(name, value, ("position", "state", name))
        self._fix_starting_values()
        # The callers, outermost first, stand at their steps as if they had run there.
        for i, caller in enumerate(pos.get("within") or []):
            path = ("position", "within", i)
            proc, args, step = self._frame_spec(caller, path)
            if not step:
                raise self._bad(path, f"say at which step of {proc.name} this call stands")
            self._vars(self.machine.resume(proc, args, step), caller, path)
        proc, args, step = self._frame_spec(pos, ("position",))
        given = {
            (d.name, k): v
            for d in self.sym.values.values()
            if isinstance(d, ast.StateDecl) and d.name in (pos.get("state") or {})
            for k, v in self._cells(d)
        }
        self.machine._push(proc, args, step)
        self._kept_as_given(given, proc, step)
        top = self.machine.top
        assert top is not None
        self._vars(top, pos, ("position",))
        self.defaulted_vars = [v.name for v in proc.vars if v.name not in (pos.get("vars") or {})]
        # the standing rules hold of the position as given, from the start
        self.machine.enforce()
        self.machine.settle()

    def _fix_starting_values(self) -> None:
        """A state whose starting value reads other state (a garrison: the blocks there)
        takes it from the position as the record gives it, for every key, before anything
        moves: computed later, when first read, it would see the state of that moment, and
        whether an expectation read it earlier would change the verdict."""
        for d in self.sym.values.values():
            if not isinstance(d, ast.StateDecl) or not d.params:
                continue
            names = reads(d.value, self.sym) - {p.name for p in d.params}
            if not any(isinstance(self.sym.values.get(n), ast.StateDecl) for n in names):
                continue
            domains = [self.every(p.type) for p in d.params]
            if any(dom is None for dom in domains) or prod(len(dom or ()) for dom in domains) > (
                MAX_STARTING_KEYS
            ):
                continue  # a key of numbers or text, or too many: computed when first read
            for args in product(*(dom or () for dom in domains)):
                self.interp.read_state(d, tuple(args))

    def every(self, t: ast.TypeRef) -> list[Any] | None:
        """Every value of an enum or a data type; None for any other type."""
        decl = self.sym.types.get(t.name)
        if isinstance(decl, ast.EnumDecl):
            return list(self.interp.enum_values(t.name))
        if isinstance(decl, ast.RecordDecl) and decl.from_data:
            return list(self.spec.components.collections.get(decl.from_data, ()))
        return None

    def unset_vars_note(self) -> str:
        """The variables of the procedure a position starts in that it leaves at their
        starting values, with those values."""
        frame = self.machine.frames[-1] if self.machine.frames else None
        if frame is None:
            return ""
        values = ", ".join(
            f"{n} = {brief(frame.vars.get(n))}" for n in self.defaulted_vars if n in frame.vars
        )
        return (
            f"the position gives none of these vars of {frame.proc.name}, which hold their"
            f" starting values: {values} (position: vars: sets them)"
        )

    def _cells(self, d: ast.StateDecl) -> list[tuple[Any, Any]]:
        """A state's cells as they stand: (key, value) pairs (key None for a state of no key)."""
        if not d.params:
            return [(None, self.interp.state[d.name])] if d.name in self.interp.state else []
        return list((self.interp.state.get(d.name) or {}).items())

    def _kept_as_given(
        self, given: dict[tuple[str, Any], Any], proc: ast.Procedure, step: str
    ) -> None:
        """A position's state that the step it starts in sets again on entering it: said in
        the verdict, with the record's line, so that a value the position gives is never
        replaced without a word (a step that resets a combat's Impact, say)."""
        first = step or (proc.steps[0].name if proc.steps else "")
        for (name, key), value in given.items():
            table = self.interp.state if key is None else self.interp.state.get(name) or {}
            now = table.get(name if key is None else key, value)
            if now != value:
                line = self.record.doc.span(("position", "state", name)).line
                cell = name if key is None else f"{name}({', '.join(map(show, key))})"
                self.notes.append(
                    f"step {first} of {proc.name} sets {cell} again as it begins ({proc.clause}):"
                    f" the position's {brief(value)} (line {line}) is now {brief(now)}; to keep"
                    " it, start the position at a later step"
                )

    def _frame_spec(
        self, spec: dict[str, Any], path: tuple[str | int, ...]
    ) -> tuple[ast.Procedure, tuple[Any, ...], str]:
        proc = self.sym.procedures().get(spec["procedure"])
        if proc is None:
            raise self._bad(
                path + ("procedure",),
                f"no procedure '{spec['procedure']}'",
                f"procedures: {', '.join(sorted(self.sym.procedures()))}",
            )
        args = self._args(proc.params, spec.get("args") or {}, path + ("args",))
        step = spec.get("step", "")
        if step and step not in {s.name for s in proc.steps}:
            raise self._bad(path + ("step",), f"procedure {proc.name} has no step '{step}'")
        return proc, tuple(args[p.name] for p in proc.params), step

    def _vars(self, frame: Frame, spec: dict[str, Any], path: tuple[str | int, ...]) -> None:
        declared = {v.name: v for v in frame.proc.vars}
        for name, value in (spec.get("vars") or {}).items():
            where = path + ("vars", name)
            if name not in declared:
                raise self._bad(where, f"procedure {frame.proc.name} has no var '{name}'")
            self._within_components(declared[name].type, value, where)
            frame.vars[name] = self.convert.convert(value, declared[name].type, where)
            self._not_below_start((frame.proc.name, name), frame.vars[name], where)

    def _not_below_start(
        self, name: tuple[str, str], value: Any, where: tuple[str | int, ...]
    ) -> None:
        """A count the rules only raise (see referee.resolve.reads.floors) given below its start:
        a position no game reaches, refused."""
        if self.counts is None:
            self.counts = floors(self.sym)
        start = self.counts.get(name)
        if start is not None and isinstance(value, int) and value < start:
            raise self._bad(
                where,
                f"{name[1]} = {value}: the rules only ever raise it from {start}, so no game"
                " reaches a position that gives less",
            )

    def _set_state(self, name: str, value: Any, path: tuple[str | int, ...]) -> None:
        d = self.sym.values.get(name)
        if not isinstance(d, ast.StateDecl):
            states = [k for k, v in self.sym.values.items() if isinstance(v, ast.StateDecl)]
            raise self._bad(
                path, f"'{name}' is not game state", f"state: {', '.join(sorted(states))}"
            )
        self._fill(d, list(d.params), (), value, path)

    def _fill(
        self,
        d: ast.StateDecl,
        params: list[ast.Param],
        keys: tuple[Any, ...],
        value: Any,
        path: tuple[str | int, ...],
    ) -> None:
        if not params:
            self._within_components(d.type, value, path)
            converted = self.convert.convert(value, d.type, path)
            self._not_below_start(("", d.name), converted, path)
            self.interp.write_state(d, keys, converted)
            self.given.add((d.name, args_key(keys) if d.params else None))
            return
        if not isinstance(value, dict):
            raise self._bad(path, f"expected a mapping by {params[0].name}")
        for k, v in value.items():
            key = self.convert.convert(k, params[0].type, path + (k,))
            self._fill(d, params[1:], keys + (key,), v, path + (k,))

    def _within_components(self, t: ast.TypeRef, value: Any, path: tuple[str | int, ...]) -> None:
        """A cell's (or a var's) list of components (cards, say) longer than the components
        hold in all, counted by their `count` fields: bad input, refused before it is read (a
        hand of a million cards is no position, and judging one costs what the million cost).
        Where the data leave a count unknown, no bound is invented."""
        if not isinstance(value, list) or t.arg is None or t.arg.arg is not None:
            return
        kind = t.arg.name
        if kind not in self.totals:
            counts = multiplicity(self.spec, self.sym, kind)
            known = [n for n in counts.values() if n is not None]
            self.totals[kind] = sum(known) if counts and len(known) == len(counts) else None
        bound = self.totals[kind]
        if bound is not None and len(value) > bound:
            raise self._bad(
                path,
                f"{'.'.join(map(str, path))}: {len(value):,} values of {kind}, more than the"
                f" {bound:,} the components hold in all",
            )

    def _args(
        self, params: list[ast.Param], raw: dict[str, Any], path: tuple[str | int, ...]
    ) -> dict[str, Any]:
        known = {p.name for p in params}
        for key in raw:
            if key not in known:
                hint = f"its arguments: {', '.join(sorted(known))}" if known else "it takes none"
                raise self._bad(path + (key,), f"unknown argument '{key}'", hint)
        out = {}
        for p in params:
            if p.name not in raw and p.default is not None:
                out[p.name] = self.interp.eval(p.default, {})
                continue
            if p.name not in raw:
                raise self._bad(path, f"'{p.name}' is missing")
            out[p.name] = self.convert.convert(raw[p.name], p.type, path + (p.name,))
        return out

    def _bad(self, path: tuple[str | int, ...], message: str, hint: str = "") -> RefereeError:
        doc = self.record.doc
        return RefereeError([Problem(doc.span(path), message, hint)], {doc.file: doc.text})

    # ------------------------------------------------------------ events
    def judge(self, ev: Event, keep_going: bool = False) -> list[Violation]:
        """Judge one event; return its violations (none if it is legal).

        Normally the first broken condition stops the event. With ``keep_going``
        every broken condition is reported and the event's effects are applied
        all the same, as the record says they happened, so that later events
        are judged from there.
        """
        raw = dict(ev.args)
        by = None
        if self.players is not None:
            if "by" not in raw:
                raise self._bad(ev.path, "'by' is missing: who acts?")
            by = self.convert.convert(raw.pop("by"), self.players, ev.path + ("by",))
        if ev.action not in self.actions:
            close = difflib.get_close_matches(ev.action, sorted(self.actions), n=1)
            raise self._bad(
                ev.path[:2],
                f"unknown action '{ev.action}'",
                f"did you mean '{close[0]}'?"
                if close
                else f"actions: {', '.join(sorted(self.actions))}",
            )
        try:
            allow = self.machine.find_allow(ev.action, by)
        except NotAllowed as err:
            if self.interp.coverage is not None:
                self.interp.coverage.action(ev.action, False)
            clause, _, label = err.clause.partition("/")  # a label where a step's skip names one
            return [self._violation(ev, clause, label, err.message, [])]
        env = self._args(allow.params, raw, ev.path)
        env["by"] = by
        self.interp.relied = set()
        failed: list[CheckFailed] = []
        self.interp.lenient = failed if keep_going else None
        try:
            self.machine.perform(allow, env)
        except CheckFailed as err:
            failed.append(err)
        except Stuck as err:
            raise self._bad(ev.path, f"the spec's rules loop here: {err}") from None
        except StandingLoop as err:
            raise self._bad(ev.path, f"the spec's standing rule {err}") from None
        except (RefereeError, *RULES_FAILURES) as err:
            # With --all, once a check has failed the event's later steps may run on the
            # values it guarded (the first of an empty list, say): the event stops there,
            # with its violations. Otherwise the rules failed on what this event gave.
            if not failed:
                raise self._rules_failed(
                    err, ev.path[:2], f"event {ev.index} ({ev.action})"
                ) from None
        finally:
            self.interp.lenient = None
        if self.interp.coverage is not None:
            self.interp.coverage.action(ev.action, not failed)
        return [self._failed(ev, err) for err in failed]

    def _failed(self, ev: Event, err: CheckFailed) -> Violation:
        given = [f"{k} = {brief(v)}" for k, v in err.bound.items()]
        # each number and call written out only if it is kept
        numbers = given + [str(t) for t in err.decisive[:LISTED]]
        v = self._violation(ev, err.req.clause, err.req.name, err.message, numbers)
        v.numbers_left_out = len(given) + len(err.decisive) - len(v.numbers)
        v.trace = [str(t) for t in err.trace[:LISTED]]
        v.trace_left_out = len(err.trace) - len(v.trace)
        return v

    def _violation(
        self, ev: Event, clause: str, label: str, message: str, numbers: list[str]
    ) -> Violation:
        span: Span = self.record.doc.span(ev.path[:2])
        c = self.sym.clauses.get(clause)
        return Violation(
            ev.index,
            ev.action,
            span.line,
            span.column,
            clause,
            label,
            c.title if c else "",
            message,
            numbers,
            sorted(self.interp.relied),
        )

    def refusal(
        self, ev: Event, expected: list[Expectation], violations: list[Violation]
    ) -> list[Violation]:
        """An event the record expects refused: its violations, marked as expected when
        they cite what the record says, and a miss when they do not (or there are none)."""
        ok, miss = refused(expected, [v.cites for v in violations if v.kind != "expectation"])
        if ok:
            for v in violations:
                v.as_expected = True
            return violations
        x = next(x for x in expected if x.key == ILLEGAL)
        span = self.record.doc.span(x.path)
        clause = str(x.expected[0]).partition("/")[0]
        c = self.sym.clauses.get(clause)
        return violations + [
            Violation(
                ev.index,
                ev.action,
                span.line,
                span.column,
                clause,
                "",
                c.title if c else "",
                miss,
                [],
                sorted(self.interp.relied),
                kind="expectation",
                expectation={
                    "key": ILLEGAL,
                    "expected": x.expected,
                    "found": [v.cites for v in violations],
                },
            )
        ]

    def missed(self, ev: Event, expected: list[Expectation], since: int) -> list[Violation]:
        """The record's expectations after ``ev`` that the rules do not bear out (what they
        told of since ``since``, all of it, for ``happened``)."""
        told = [f"{st.clause}/{st.label}" for st, _, _ in self.interp.told[since:]]
        try:
            misses = check_expectations(
                expected,
                self.interp,
                bare_enum_values(self.sym, self.interp),
                told,
                frame_values(self.machine.frames),
            )
        except KeyFailed as err:
            raise self._key_failed(ev, err) from None
        out = []
        for m in misses:
            x = m.expectation
            span = self.record.doc.span(x.path)
            c = self.sym.clauses.get(m.clause)
            title = c.title if c else ""
            out.append(
                Violation(
                    ev.index,
                    ev.action,
                    span.line,
                    span.column,
                    m.clause,
                    "",
                    title,
                    m.message,
                    m.numbers,
                    sorted(self.interp.relied),
                    kind="expectation",
                    expectation={"key": x.key, "expected": x.expected, "found": listed(m.found)},
                )
            )
        return out

    def summary(self) -> str:
        """The spec's own ``summary()``, and where the rules now wait."""
        d = self.sym.values.get("summary")
        text = brief(self.interp.call("summary"), MAX_LINE) if isinstance(d, ast.Define) else ""
        top = self.machine.top
        if top is not None and top.step is not None and top.step.allows:
            waiting = f"next: {top.proc.title.lower()}, step {top.step.name}"
            text = f"{text}; {waiting}" if text else waiting
        return text


def position_invariants(sym: Symbols) -> list[tuple[ast.Property, frozenset[str]]]:
    """The step invariants (`property ... invariant`, neither `after` nor `allows` an action)
    that read game state and nothing of a procedure's: what holds of every position at rest,
    whichever procedure is running; each with the state it reads. Worked out once for each
    set of rules (each overlay set's symbols), the last few kept."""
    kept = _POSITION_INVARIANTS.get(id(sym))
    if kept is not None and kept[0] is sym:
        return kept[1]
    out = []
    for d in sym.labels.values():
        if not isinstance(d, ast.Property) or not d.invariant or d.after or d.allows:
            continue
        state = {n for n in reads(d.body, sym) if n not in sym.types}  # an enum's values
        if state and all(isinstance(sym.values.get(n), ast.StateDecl) for n in state):
            out.append((d, frozenset(state)))
    if len(_POSITION_INVARIANTS) >= MAX_KEPT_RULES:
        _POSITION_INVARIANTS.clear()
    _POSITION_INVARIANTS[id(sym)] = (sym, out)
    return out


# position_invariants, by the symbols' identity (each entry keeps its symbols, so that the
# identity is not reused while it lasts)
_POSITION_INVARIANTS: dict[int, tuple[Symbols, list[tuple[ast.Property, frozenset[str]]]]] = {}
MAX_KEPT_RULES = 32
