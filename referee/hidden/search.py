"""The search for a witness: each hole's values tried event by event, the referee judging.

A depth-first search along the record. At an event with holes its candidates are tried in
an order that finds a witness soon (the values in the state cells the event's visible
arguments name, then the values the view shows later, then every other value of the type),
each judged by the referee on the position and undone if refused (a nested journal). What
each judgement read is tracked: a cell written by an event is marked with the holes that
event depended on (its own, and those marking the cells it read). When every candidate of
an event is refused, the search goes back to the latest hole the refusals depended on
(conflict-directed backjumping); refusals that depended on no hole at all are a fault the
view sees whatever is hidden. Bounded: candidates a hole, judgements in all, seconds; a
bound reached is said (never a silent guess), and makes an exhausted search unknown.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.compile.interp import RULES_FAILURES, CheckFailed
from referee.compile.spec import Spec
from referee.errors import RefereeError
from referee.hidden.holes import Hole, domain, filled_event
from referee.parse import ast
from referee.records.record import Event
from referee.records.views import MARK
from referee.resolve.hidden import allows_of
from referee.resolve.reads import reads as reads_of
from referee.run.machine import Frame
from referee.run.referee import Referee
from referee.run.verdict import Violation

MAX_CANDIDATES = 400  # candidates of one hole tried, at most
MAX_JUDGED = 20_000  # judgements in one search, at most
MAX_SECONDS = 60.0  # a search's time, unless the user gives one
PROPOSAL_SEEDS = 4  # the spec's random proposals drawn from this many seeds


class Bound(Exception):
    """The search's time or its judgements ran out."""


@dataclass
class Failure:
    """Every candidate of an event refused: the refusals, and the holes they depended on."""

    index: int
    violations: list[Violation]
    depends: set[int]
    tried: int


@dataclass
class Refusal:
    """The check that refused an event: its statement, the names in scope then (with
    their values), what the judgement had read before it and what the check itself read."""

    st: ast.CheckStmt
    env: dict[str, Any]
    frame: dict[str, Any]
    before: set[tuple[str, Any]]
    own: set[tuple[str, Any]]


@dataclass
class Limits:
    candidates: int = MAX_CANDIDATES
    judged: int = MAX_JUDGED
    seconds: float = MAX_SECONDS


@dataclass
class Outcome:
    found: bool
    chosen: dict[int, Event] = field(default_factory=dict)  # the witness's events
    failure: Failure | None = None  # the latest event every candidate of which failed
    bound: str = ""  # a bound reached, if any
    judged: int = 0
    seconds: float = 0.0
    visible: bool = False  # the failure depends on no hole


def item_key(v: Any) -> Any:
    if isinstance(v, dict):
        return v.get("id", v.get("name"))
    return str(v)


class Checkpoints:
    """Nested marks on a referee's position: going back to one undoes what came after."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        ref.interp.journal = []
        self.journal: list[Any] = ref.interp.journal

    def mark(self) -> tuple[Any, ...]:
        m, i = self.ref.machine, self.ref.interp
        return (
            len(self.journal),
            [Frame(f.proc, dict(f.vars), f.step, f.resume_to, set(f.fired)) for f in m.frames],
            list(m._pending),
            m.over,
            len(i.fired),
            len(i.told),
            i.standing_on,
        )

    def back(self, mark: tuple[Any, ...]) -> None:
        n, frames, pending, over, fired, told, standing = mark
        m, i = self.ref.machine, self.ref.interp
        i.journal = self.journal[n:]
        del self.journal[n:]
        i.undo()
        i.journal = self.journal
        m.over, i.standing_on = over, standing
        del i.fired[fired:]
        del i.told[told:]
        m._pending = list(pending)
        m.frames = [Frame(f.proc, dict(f.vars), f.step, f.resume_to, set(f.fired)) for f in frames]
        if m.top is not None:
            i.frame = m.top.vars

    def written(self, since: int) -> set[tuple[str, Any]]:
        return {(name, k) for name, k, *_ in self.journal[since:]}


class Search:
    """One view record's events, its holes by event, searched on a started referee."""

    def __init__(
        self,
        spec: Spec,
        ref: Referee,
        events: list[Event],
        holes: dict[int, list[Hole]],
        later: dict[int, list[str]],
        limits: Limits,
    ) -> None:
        self.spec, self.ref, self.events, self.holes = spec, ref, events, holes
        self.later = later  # for each event, the values the view shows after it, in order
        self.limits = limits
        self.cp = Checkpoints(ref)
        self.taint: dict[tuple[str, Any], frozenset[int]] = {}
        self.var_taint: dict[str, frozenset[int]] = {}
        self.judged = 0
        self.start = time.monotonic()
        self.failure: Failure | None = None
        self.bound = ""
        self.chosen: dict[int, Event] = {}
        self.preferred: dict[tuple[int, Any], int] = {}  # candidates the rules propose, a hole
        self.decls = {n: d for n, d in ref.sym.values.items() if isinstance(d, ast.StateDecl)}
        self.refusal: Refusal | None = None
        self._watch_checks()

    def _watch_checks(self) -> None:
        """Wrap the interpreter's `check` (on this referee only) so that a refusal says
        which check refused and what it read: a failure is then charged to the holes its own
        check depended on, not to everything the event read before it."""
        interp = self.ref.interp
        original = interp.check

        def check(st: ast.CheckStmt, env: dict[str, Any]) -> None:
            outer = interp._reading[-1] if interp._reading else None
            before = set(outer[0]) if outer is not None else set()
            mine: tuple[set[Any], set[str]] = (set(), set())
            interp._reading.append(mine)
            try:
                original(st, env)
            except CheckFailed:
                self.refusal = Refusal(st, dict(env), dict(interp.frame), before, set(mine[0]))
                raise
            finally:
                _drop(interp._reading, mine)
                if outer is not None:
                    outer[0].update(mine[0])
                    outer[1].update(mine[1])

        interp.check = check  # type: ignore[method-assign]

    # ------------------------------------------------------------ candidates
    def _sources(self, ev: Event, h: Hole) -> list[str]:
        """The values of the hole's type in the cells the event's visible arguments name
        whole (``units_at(from, by)`` for a move of ``from`` by ``by``), as they stand."""
        shown = {v for v in ev.args.values() if isinstance(v, str) and v != MARK}
        found: list[tuple[int, list[str]]] = []
        for d in self.decls.values():
            if _leaf(d.type) != h.type or not d.params:
                continue
            for key, value in self.ref._cells(d):
                parts = key if isinstance(key, tuple) else (key,)
                if all(str(item_key(k)) in shown for k in parts) and isinstance(
                    value, (tuple, list)
                ):
                    found.append((len(parts), [str(item_key(v)) for v in value]))
        found.sort(key=lambda f: -f[0])  # the cells named by more arguments first
        return [v for _, vs in found for v in vs]

    def _proposed(self, ev: Event, h: Hole) -> list[list[str]]:
        """The hole's values in the spec's proposals for the event's action (`propose`,
        its random draws from a few seeds) that agree with what the view shows."""
        frame = self.ref.machine.top
        if frame is None or frame.step is None:
            return []
        out: list[list[str]] = []
        roots = {h2.path[0] for h2 in self.holes.get(ev.index, [])}
        interp = self.ref.interp
        for allow in frame.step.allows:
            if allow.name != ev.action or allow.propose is None:
                continue
            for seed in range(PROPOSAL_SEEDS):
                interp.chance = random.Random(seed)
                try:
                    proposals = interp.eval(allow.propose, {"by": ev.args.get("by")})
                except Exception:  # noqa: BLE001 - proposals the rules fail on: none
                    proposals = []
                finally:
                    interp.chance = None
                for prop in proposals or []:
                    if not isinstance(prop, dict) or any(
                        k != "by"
                        and k not in roots
                        and isinstance(v, str)
                        and str(item_key(prop.get(k))) != v
                        for k, v in ev.args.items()
                    ):
                        continue
                    v: Any = prop
                    try:
                        for p in h.path:
                            v = v[p]
                    except (KeyError, IndexError, TypeError):
                        continue
                    values = [
                        str(item_key(x)) for x in (v if isinstance(v, (list, tuple)) else [v])
                    ]
                    if len(values) == h.size and values not in out:
                        out.append(values)
        return out

    def candidates(self, ev: Event, h: Hole) -> tuple[list[list[str]], bool]:
        """A hole's candidates, best first, at most the bound; whether they are all."""
        every = domain(self.spec, self.ref.sym, h.type)
        proposed = self._proposed(ev, h)
        source = self._sources(ev, h)
        if len(source) < h.size:
            source += [v for vs in proposed for v in vs]
        later = [v.split(":", 1) for v in self.later.get(ev.index, [])]
        by = str(ev.args.get("by", ""))
        demand = [v for a, v in later if a == by and v in every]
        wanted = list(dict.fromkeys(v for _, v in later if v in every))
        first: list[str] = []
        left = list(source) if source else list(demand)
        for v in demand:
            if len(first) < h.size and v in left:
                left.remove(v)
                first.append(v)
        order = list(dict.fromkeys([*wanted, *source, *every]))
        seen: set[tuple[str, ...]] = set()
        out: list[list[str]] = []

        def gen() -> Iterator[tuple[str, ...]]:
            if len(first) == h.size:
                yield tuple(first)
            elif first:  # what is shown later, completed from each proposal
                for vs in proposed:
                    rest = list(vs)
                    for v in first:
                        if v in rest:
                            rest.remove(v)
                    yield tuple(first + rest[: h.size - len(first)])
            for vs in proposed:
                yield tuple(vs)
            if len(source) >= h.size:
                yield from itertools.combinations(source, h.size)
            yield ()  # what follows is every value of the type, not what the rules propose
            yield from itertools.combinations_with_replacement(order, h.size)

        self.preferred[(ev.index, h.path)] = self.limits.candidates
        for c in gen():
            if not c:
                self.preferred[(ev.index, h.path)] = len(out)
                continue
            k = tuple(sorted(c))
            if k in seen:
                continue
            seen.add(k)
            out.append(list(c))
            if len(out) >= self.limits.candidates:
                return out, False
        return out, True

    def event_candidates(self, ev: Event) -> tuple[Iterator[tuple[Event, bool]], bool]:
        """An event's candidates, each with whether every hole's values in it are among
        those the rules propose or the cells hold (not merely of the type); whether they
        are all."""
        holes = self.holes.get(ev.index, [])
        if not holes:
            return iter([(ev, True)]), True
        lists, complete, prefs = [], True, []
        for h in holes:
            c, all_ = self.candidates(ev, h)
            lists.append(c)
            prefs.append(self.preferred.get((ev.index, h.path), len(c)))
            complete = complete and all_
        product = itertools.product(*[range(len(c)) for c in lists])
        return (
            (
                filled_event(ev, holes, [lists[i][j] for i, j in enumerate(js)]),
                all(j < p for j, p in zip(js, prefs, strict=True)),
            )
            for js in product
        ), complete

    # ------------------------------------------------------------ judging
    def judge(self, ev: Event) -> tuple[list[Violation], set[tuple[str, Any]]]:
        self.judged += 1
        if self.judged > self.limits.judged:
            self.bound = f"{self.limits.judged:,} judgements"
            raise Bound(self.bound)
        if time.monotonic() - self.start > self.limits.seconds:
            self.bound = f"{self.limits.seconds:g} seconds"
            raise Bound(self.bound)
        interp = self.ref.interp
        reading: tuple[set[Any], set[str]] = (set(), set())
        interp._reading.append(reading)
        self.refusal = None
        try:
            violations = self.ref.judge(ev)
        except (RefereeError, *RULES_FAILURES):
            violations = [Violation(ev.index, ev.action, 0, 0, "", "", "", "the rules fail here")]
        finally:
            _drop(interp._reading, reading)
        return violations, set(reading[0])

    def depends(self, reads: set[tuple[str, Any]]) -> set[int]:
        out: set[int] = set()
        for c in reads:
            out |= self.taint.get(c, frozenset())
        for t in self.var_taint.values():
            out |= t
        return out

    def refusal_depends(self, ev: Event, r: Refusal) -> set[int]:
        """The earlier holes a refusing check depended on: those marking the cells it read,
        and for each name it was given, what that name's value came from: the event's own
        argument (its own holes), a procedure variable (the holes marking it), else a value
        the event worked out before the check (everything the event had read so far)."""
        sym = self.ref.sym
        req = sym.labels.get(str(r.st.ref))
        out = self.cells_depend(r.own)
        if not isinstance(req, ast.Require):
            return out | self.depends(r.before)
        params = {p.name for p in req.params}
        state = set(self.decls)
        names = (
            params if r.st.args is None else {n for n in reads_of(r.st.args, sym) if n not in state}
        )
        names |= {n for n in reads_of(req.cond, sym) if n not in state and n not in params}
        allowed = {p.name for a in allows_of(sym, ev.action) for p in a.params} | {"by"}
        named = _named(ev.args)
        hidden = {x for c in r.before if self.taint.get(c) for x in _flat(self.value_of(c))}
        for n in names:
            if n in r.env:
                v = _plain(r.env[n])
                if n in allowed and n in ev.args and _plain(ev.args[n]) == v:
                    continue  # the event's own argument: its own holes, tried in full
                if n in r.frame and _plain(r.frame[n]) == v:
                    out |= self.var_taint.get(n, frozenset())
                    continue
                flat = _flat(v)
                if flat and flat <= named and not flat & hidden:
                    continue  # values the event names, found in no cell a hole marks
                return out | self.depends(r.before)  # worked out before: conservatively all
            if n in r.frame:
                out |= self.var_taint.get(n, frozenset())
        return out

    def value_of(self, cell: tuple[str, Any]) -> Any:
        """A state cell's value as it stands, written plain (None if never set)."""
        name, k = cell
        d = self.decls.get(name)
        state = self.ref.interp.state
        v = state.get(name, {}).get(k) if d is not None and d.params else state.get(name)
        return _plain(v)

    def cells_depend(self, cells: set[tuple[str, Any]]) -> set[int]:
        out: set[int] = set()
        for c in cells:
            out |= self.taint.get(c, frozenset())
        return out

    # ------------------------------------------------------------ the search
    def run(self) -> Outcome:
        try:
            found, _ = self.solve(0)
        except Bound:
            found = False
        return Outcome(
            found,
            dict(self.chosen),
            self.failure,
            self.bound,
            self.judged,
            time.monotonic() - self.start,
            self.failure is not None and not self.failure.depends and not self.bound,
        )

    def solve(self, at: int) -> tuple[bool, set[int]]:
        if at >= len(self.events):
            return True, set()
        ev = self.events[at]
        own = {ev.index} if self.holes.get(ev.index) else set()
        conflict: set[int] = set()
        refused: list[Violation] = []
        others: list[Violation] = []  # refusals of candidates merely of the type
        candidates, complete = self.event_candidates(ev)
        tried = 0
        for cand, likely in candidates:
            tried += 1
            mark = self.cp.mark()
            frames_before = {k: v for f in self.ref.machine.frames for k, v in f.vars.items()}
            violations, reads = self.judge(cand)
            refusal = self.refusal
            dep = (
                self.refusal_depends(ev, refusal)
                if violations and refusal is not None
                else self.depends(reads)
            ) | own
            if violations:
                (refused if likely else others).extend(violations[:1])
                conflict |= dep
                self.cp.back(mark)
                continue
            saved_taint, saved_vars = dict(self.taint), dict(self.var_taint)
            frozen = frozenset(dep)
            for cell in self.cp.written(mark[0]):
                self.taint[cell] = frozen
            for f in self.ref.machine.frames:
                for k, v in f.vars.items():
                    if frames_before.get(k) != v and (
                        (own and _holds_item(v)) or self.depends(reads)
                    ):
                        self.var_taint[k] = frozen
            self.chosen[ev.index] = cand
            ok, sub = self.solve(at + 1)
            if ok:
                return True, set()
            self.chosen.pop(ev.index, None)
            self.cp.back(mark)
            self.taint, self.var_taint = saved_taint, saved_vars
            if ev.index not in sub:
                return False, sub  # this event's choice is not what failed: jump back
            conflict |= sub - {ev.index}
        if not complete:
            conflict |= own  # candidates left untried: not proved
            if not self.bound:
                self.bound = f"{self.limits.candidates:,} candidates of event {ev.index}"
        refused = refused or others
        if refused and (self.failure is None or ev.index >= self.failure.index):
            self.failure = Failure(ev.index, refused, conflict - own, tried)
        return False, conflict - own if complete else conflict


def _leaf(t: ast.TypeRef) -> str:
    while t.arg is not None:
        t = t.arg
    return t.name


def _drop(stack: list[Any], item: Any) -> None:
    """Take ``item`` itself (not an equal one) off ``stack``."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is item:
            del stack[i]
            return


def _flat(v: Any) -> set[str]:
    """Every plain value inside ``v`` (items by id), as strings."""
    if isinstance(v, list):
        return {x for i in v for x in _flat(i)}
    return {str(v)}


def _named(args: dict[str, Any]) -> set[str]:
    """The values an event's arguments name, a mark excepted."""
    return {x for v in args.values() for x in _flat(_plain(v))} - {MARK}


def _plain(v: Any) -> Any:
    """A value as a record writes it: items by their id, lists and tuples alike."""
    if isinstance(v, dict):
        return item_key(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v if isinstance(v, (bool, int)) else str(v)


def _holds_item(v: Any) -> bool:
    if isinstance(v, dict):
        return True
    if isinstance(v, (list, tuple)):
        return any(_holds_item(x) for x in v)
    return False
