"""A game from Python, one event at a time (``referee.Game``), and the API's other faces of
the commands: ``convert``, ``play``, ``prove``. Re-exported by ``referee`` (docs/api.md).

A ``Game`` stands where a record starts (the set-up of the game it names, or the position it
gives) with the record's events applied; ``push`` judges one more event as ``referee
check`` judges the next event of a record, applies it if it is legal and leaves it out if
not; ``pop`` takes the last back; ``legal_events`` lists what ``referee moves --all``
lists. Nothing here knows the game: the views of the position are the spec's own
definitions and state, read by name (``value``).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, TypeAlias

from referee.api_base import (
    Problem,
    RecordError,
    RecordInput,
    Rules,
    SpecError,
    Told,
    Violation,
    _choice,
    _error,
    _game,
    _source,
    _violation,
)
from referee.budget import within_limit
from referee.compile.interp import RULES_FAILURES, failure
from referee.errors import RefereeError, Span
from referee.parse import ast
from referee.records.notation_write import convert as _convert
from referee.records.values import raw
from referee.resolve.overlays import Choice, apply, in_force
from referee.run import moves_report as _moves_report
from referee.run import play as _play
from referee.run.moves import MAX_JUDGED, MAX_SECONDS
from referee.run.replay import cannot_arise
from referee.run.session import Judged, Session

# A value of the game's state as a record writes it: names for the items of the spec's
# data, lists as lists, structures as mappings.
Value: TypeAlias = "str | int | bool | None | list[Value] | dict[str, Value]"

_GAME = "<game>"  # where a problem with a name given to a Game's method "sits"


@dataclass(frozen=True)
class Step:
    """A procedure under way, and its step."""

    procedure: str  # its name in the spec
    title: str
    step: str  # "" when it has no step running
    actors: tuple[str, ...]  # who may act now (empty: anyone, or nobody)
    clause: str


@dataclass(frozen=True)
class EventVerdict:
    """One event pushed: legal and applied, or refused (with the clause and the numbers)
    and not applied."""

    event: int  # its number in the game, 1 for the first
    action: str
    legal: bool
    written: Mapping[str, Any]  # as a record writes it
    violations: tuple[Violation, ...]
    told: tuple[Told, ...]  # what the rules told of it (legal only)
    fired: tuple[str, ...]  # the standing rules it fired: clause/label and their text
    summary: str  # where the game stands after it (before it, if refused)
    text: str  # a line for a person: what happened, or the refusal

    @property
    def cites(self) -> str:
        """The clause and label the first violation cites ("" if legal)."""
        return self.violations[0].cites if self.violations else ""


@dataclass(frozen=True)
class LegalEvents:
    """What may come next, as ``referee moves --all`` lists it."""

    events: tuple[Mapping[str, Any], ...]  # each exactly as a record writes it
    complete: bool  # every candidate the spec lists was judged (no bound was hit)
    stopped: str  # where and why the listing stopped short ("" if it did not)
    text: str  # as ``referee moves --all`` prints it
    _json: Mapping[str, Any] = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """As ``referee moves --all --format json`` prints its ``result``."""
        return copy.deepcopy(dict(self._json))

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return iter(self.events)


class Game:
    """A game one event at a time (``push``, ``pop``, ``legal_events``), from a record (a
    path, a YAML, JSON or notation text, a mapping) or, given None, the set-up of ``game``.
    A record whose own events include an illegal one raises RecordError, naming it; so does
    one whose starting position cannot arise (``referee check`` refuses it, kind position),
    naming the invariant it breaks."""

    def __init__(
        self,
        record_or_position: RecordInput | None = None,
        *,
        game: Rules | str | os.PathLike[str] | None = None,
        printing: str = "",
        overlays: Iterable[str] = (),
        no_overlays: Iterable[str] = (),
        name: str | None = None,
    ) -> None:
        spec = _game(game, record_or_position)
        source = None if record_or_position is None else _source(record_or_position, name)
        self._source = source
        try:
            session = within_limit(
                lambda: Session(spec, source, _choice(printing, overlays, no_overlays)),
                str(source or "<set-up>"),
                "judging",
            )
        except RefereeError as err:
            raise _error(err, RecordError, source) from None
        self._session = session
        # a starting position check refuses, or an illegal event of the record's own
        unreachable, refused = session.unreachable, session.refused
        first = unreachable or refused
        if first is not None:
            v = first.violations[0]
            session.close()
            said, hint = (
                (cannot_arise(v), "a Game starts from a position some game reaches")
                if unreachable is not None
                else (
                    f"event {v.index} ({v.action}) is illegal: {v.cites} {v.message}",
                    "a Game starts from a record's legal events",
                )
            )
            raise RecordError([Problem(str(source), v.line, v.column, said, hint, v.clause)])

    # ------------------------------------------------------------ events

    def push(self, event: Mapping[str, Any] | str) -> EventVerdict:
        """Judge one event (``{ACTION: {by: ..., ...}}`` as a record writes it, or a line of
        the table notation): applied if legal, left out if not. A notation text of several
        events pushes each in turn, up to a refused one, and gives the last verdict.
        Raises RecordError for an event that cannot be read (an unknown action, a value of
        the wrong type)."""
        if not isinstance(event, str | Mapping):
            raise TypeError(f"an event is a mapping or a notation line, not {type(event).__name__}")
        data: Any = event if isinstance(event, str) else _plain_event(event)
        try:
            judged = within_limit(lambda: self._session.push(data), "<pushed>", "judging")
        except RefereeError as err:
            raise _error(err, RecordError) from None
        if not judged:
            raise RecordError([_problem("no event given")])
        return _event_verdict(judged[-1])

    def pop(self) -> Mapping[str, Any]:
        """Take the last event back (one of the starting record's too): the event, as a
        record writes it. Raises IndexError when there is none."""
        return self._session.pop()

    def legal_events(self, *, action: str = "", limit: int = MAX_JUDGED) -> LegalEvents:
        """Every legal next event found, as ``referee moves --all`` lists them: at most
        ``limit`` candidates judged (and at most 20 s); ``action`` keeps one action's."""
        session = self._session
        asked = _moves_report.Asked(None, True, action, most=limit, seconds=MAX_SECONDS)
        where = Span(str(self._source or "<set-up>"), 0, 0)
        try:
            moves, _ = within_limit(
                lambda: _moves_report.enumerate_moves(
                    session.ref, str(session.source), len(session.written), where, asked
                ),
                str(session.source),
                "listing the legal events",
            )
        except RefereeError as err:
            raise _error(err, RecordError) from None
        report = _moves_report.Report(moves, asked, len(session.written))
        return LegalEvents(
            tuple(moves.events),
            moves.complete,
            moves.stopped,
            _moves_report.render(report),
            report.as_json(),
        )

    @property
    def events(self) -> tuple[Mapping[str, Any], ...]:
        """The events applied, as a record writes them (the starting record's first)."""
        return tuple(copy.deepcopy(self._session.written))

    # ------------------------------------------------------------ the position

    @property
    def is_over(self) -> bool:
        """No event may follow: the game ended, or its procedures are done."""
        return self._session.over

    @property
    def result(self) -> str | None:
        """How the game ended (the spec's summary at its end), or None while it goes on."""
        return self.summary if self.is_over else None

    @property
    def summary(self) -> str:
        """The spec's summary of the position, and where the rules now wait."""
        return self._session.ref.summary()

    @property
    def step(self) -> Step | None:
        """The procedure under way (the innermost) and its step; None once all are done."""
        frames = self.procedures
        return frames[-1] if frames else None

    @property
    def procedures(self) -> tuple[Step, ...]:
        """The procedures under way, outermost first."""
        machine = self._session.ref.machine
        out = []
        for i, f in enumerate(machine.frames):
            top = i == len(machine.frames) - 1
            actors = machine.actors() if top and f.step is not None else None
            out.append(
                Step(
                    f.proc.name,
                    f.proc.title,
                    f.step.name if f.step else "",
                    tuple(str(raw(a)) for a in actors or ()),
                    (f.step.clause if f.step else "") or f.proc.clause,
                )
            )
        return tuple(out)

    @property
    def turn(self) -> int | None:
        """The game's turn counter (the state its spec names with ``turns``), if it has one."""
        spec = self._session.spec
        name = spec.game.turns if spec.game else ""
        value = self.value(name) if name else None
        return value if isinstance(value, int) else None

    def value(self, name: str, *args: Value) -> Value:
        """A definition, constant or state of the spec, by name, for these arguments (names
        of the spec's data as records write them): ``game.value("units_at", place, side)``.
        Raises InputError for a name the spec does not declare or arguments it does not
        take."""
        ref = self._session.ref
        d = ref.sym.values.get(name)
        params = (
            d.params
            if isinstance(d, ast.Define | ast.StateDecl)
            else []
            if isinstance(d, ast.ConstDecl)
            else None
        )
        if params is None:
            raise SpecError([_problem(f"the spec declares no definition or state '{name}'")])
        if len(args) != len(params):
            raise SpecError([_problem(f"{name} takes {len(params)} argument(s), not {len(args)}")])
        try:
            values = tuple(
                ref.convert.convert(a, p.type, (p.name,)) for a, p in zip(args, params, strict=True)
            )
        except RefereeError as err:
            p = err.problems[0]
            raise RecordError([_problem(f"{name}: {p.message}")]) from None
        try:
            if isinstance(d, ast.StateDecl):
                got = ref.interp.read_state(d, values)
            else:
                got = ref.interp.call(name, *values)
        except RefereeError as err:
            raise RecordError([_problem(err.problems[0].message)]) from None
        except RULES_FAILURES as err:
            raise RecordError([_problem(f"{name}: the rules fail here: {failure(err)}")]) from None
        value: Value = raw(got)
        return value

    # ------------------------------------------------------------ out

    def to_record(self, form: Literal["yaml", "notation"] = "yaml") -> str:
        """What was played as a record: the starting record's header and every event applied,
        as YAML or in the table notation."""
        try:
            if form == "notation":
                return self._session.to_notation()
            return self._session.to_yaml()
        except RefereeError as err:
            raise _error(err, RecordError) from None

    def close(self) -> None:
        """Done with the game: its interpreter may serve another."""
        self._session.close()

    def __enter__(self) -> Game:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _plain_event(event: Mapping[str, Any]) -> dict[str, Any]:
    return {k: dict(v) if isinstance(v, Mapping) else v for k, v in event.items()}


def _problem(message: str) -> Problem:
    return Problem(_GAME, 0, 0, message)


def _event_verdict(j: Judged) -> EventVerdict:
    told = tuple(Told(t["cites"], t["clause"], t["label"], t["text"], t["values"]) for t in j.told)
    fired = tuple(f"{h['rule']}: {h['text']}" for h in j.fired)
    if j.legal:
        said = "; ".join(t.text for t in told)
        text = f"{j.index} {j.action}: legal" + (f": {said}" if said else "")
    else:
        v = j.violations[0]
        text = f"{j.index} {j.action}: refused, not applied: {v.cites} {v.title}: {v.message}"
    return EventVerdict(
        j.index,
        j.action,
        j.legal,
        j.event,
        tuple(_violation(v) for v in j.violations),
        told,
        fired,
        j.summary,
        text,
    )


# ------------------------------------------------------------------ convert, play, prove


def convert(
    record: RecordInput,
    *,
    to: Literal["yaml", "notation"] | None = None,
    game: Rules | str | os.PathLike[str] | None = None,
    name: str | None = None,
) -> str:
    """A record in the other form (YAML or JSON <-> the table notation), as ``referee
    convert`` writes it; ``to`` names the form wanted. Raises RecordError."""
    spec = _game(game, record)
    source = _source(record, name)
    try:
        return _convert(spec, source, to)
    except RefereeError as err:
        raise _error(err, RecordError, source) from None


def play(
    seed: int = 0,
    *,
    game: Rules | str | os.PathLike[str] | None = None,
    until: str = "",
    max_events: int = _play.MAX_EVENTS,
) -> dict[str, Any]:
    """A random legal game of ``seed``, as ``referee play`` makes it: the record, as data
    (``until``: a condition on the game's state that stops it)."""
    spec = _game(game)
    try:
        played = _play.play(spec, seed, until, max_events=max_events)
    except RefereeError as err:
        raise _error(err, SpecError) from None
    return played.record(spec, seed)


@dataclass(frozen=True)
class Proof:
    """One property of the spec, proved with z3 (or not, with why)."""

    cites: str
    text: str
    status: str  # proved | failed | skipped | unknown
    counterexample: Mapping[str, str]
    clauses: tuple[str, ...]
    reason: str
    line: str  # as ``referee prove`` prints it


def prove(
    *,
    game: Rules | str | os.PathLike[str] | None = None,
    only: Iterable[str] = (),
    timeout: float = 10.0,
) -> tuple[Proof, ...]:
    """The spec's properties proved as ``referee prove`` proves them (``only``: these
    clause/label ids or clauses), under the base printing and the overlays in force by
    default."""
    from referee.verify.prover import prove as _prove  # z3 loaded only when asked for

    spec = _game(game)
    _, overlays = in_force(spec.sym, Choice(), lambda _: Span("<arguments>", 0, 0))
    outcomes = _prove(
        apply(spec.sym, overlays),
        spec.components.names(),
        int(timeout * 1000),
        collections=spec.components.collections,
        only=set(only),
    )
    return tuple(
        Proof(
            o.cites,
            o.text,
            o.status,
            dict(o.counterexample),
            tuple(o.clauses),
            o.reason,
            o.line(),
        )
        for o in outcomes
    )
