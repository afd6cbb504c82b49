"""The referee from Python: load a game, judge a record, compare readings, explain a rule,
show a position. Everything here is re-exported by ``referee`` itself (``referee.check``,
``referee.Verdict``...); the other modules of the package are internal and may change.

Each function does what its command does (``referee check``, ``compare``, ``explain``,
``show``), with the same engine, and returns a typed, frozen result rather than printing:
its ``text`` is what the command prints, its ``as_json()`` the ``result`` that
``--format json`` prints (docs/json.md).
Bad input raises an ``InputError`` (a ``SpecError`` or a ``RecordError``) carrying the
located problems; an illegal play is not an error but a verdict. See docs/api.md.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.compile.spec import Spec, find_game, load_spec
from referee.data.source import MAX_DEPTH
from referee.errors import RefereeError
from referee.explainer.topics import explain_topic, render_topic
from referee.records.record import RecordText, Source
from referee.resolve.overlays import Choice, base_printing
from referee.run import compare as _compare
from referee.run import position as _position
from referee.run import replay as _replay
from referee.run import verdict as _verdict_data

__all__ = [
    "Comparison",
    "Difference",
    "Explanation",
    "Fired",
    "Game",
    "InputError",
    "Outcome",
    "OutcomeDifference",
    "Position",
    "Problem",
    "RecordError",
    "RecordInput",
    "SpecError",
    "Told",
    "Verdict",
    "Violation",
    "check",
    "compare",
    "explain",
    "load_game",
    "show",
]

# A record: a path (``str`` or ``os.PathLike``), its YAML or JSON text (a ``str`` holding a
# line break or starting with ``{``), or the record itself as a mapping.
RecordInput = str | os.PathLike[str] | Mapping[str, Any]

_ARGUMENTS = "<arguments>"  # where a printing or an overlay named by the caller "sits"
_COMMAND_LINE = "<command line>"  # where the engine says such a name sits


# ------------------------------------------------------------------ errors


@dataclass(frozen=True)
class Problem:
    """One located problem: ``file:line:column: message``, a hint, the clause concerned.
    ``file`` is the record's path, ``<string>``, ``<mapping>`` or the name given, a spec
    file, or ``<arguments>`` for a printing or overlay named in the call; ``line`` and
    ``column`` are 0 when the problem is about the whole file."""

    file: str
    line: int
    column: int
    message: str
    hint: str = ""
    clause: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class InputError(Exception):
    """Input the referee cannot use. ``problems`` holds every problem found; ``str()`` gives
    them as the command line prints them (each with its line and a caret under the spot)."""

    def __init__(self, problems: Iterable[Problem], text: str = "") -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.text = text or "\n".join(str(p) for p in self.problems)
        super().__init__(self.text)

    def __str__(self) -> str:
        return self.text


class SpecError(InputError):
    """A game that cannot be loaded: no such game or directory, or a spec or data file that
    does not parse or check."""


class RecordError(InputError):
    """A record that cannot be judged: unreadable, malformed, not of this game, naming what
    the game does not know; or a printing, overlay or event number asked for that it lacks."""


def _error(err: RefereeError, kind: type[InputError], source: Source | None = None) -> InputError:
    sources = dict(err.sources)
    if isinstance(source, RecordText):
        sources.setdefault(source.name, source.text)
    # a name the caller gave (a printing, an overlay, a topic) is said to sit in the arguments
    found = [
        replace(p, span=replace(p.span, file=_ARGUMENTS)) if p.span.file == _COMMAND_LINE else p
        for p in err.problems
    ]
    problems = [
        Problem(p.span.file, p.span.line, p.span.column, p.message, p.hint, p.clause) for p in found
    ]
    return kind(problems, RefereeError(found, sources).render())


# ------------------------------------------------------------------ games


@dataclass(frozen=True)
class Game:
    """A game's spec, parsed and checked: its rules, printings, overlays and data."""

    name: str  # the name records give in ``game:``
    title: str
    directory: Path  # the game's spec folder (the bundled one lives inside the package)
    printings: tuple[str, ...]
    base_printing: str  # the printing in force unless another is asked for
    overlays: tuple[str, ...]  # every printing's erratum, clarification and decision, by id
    clauses: Mapping[str, str]  # every clause's title, by number, in the rulebook's order
    _spec: Spec = field(repr=False, compare=False)


def load_game(
    name_or_dir: str | os.PathLike[str] | None = None, *, data: str | os.PathLike[str] | None = None
) -> Game:
    """Load a game: the bundled one (None), a bundled game by name, or a spec directory laid
    out as the bundled one (a ``str`` naming no bundled game is taken as a directory).
    ``data`` is a folder of component files replacing the spec's own, file by file. A game
    already loaded from the same unchanged files is reused. Raises SpecError."""
    try:
        where = name_or_dir if isinstance(name_or_dir, str | None) else Path(name_or_dir)
        spec = load_spec(find_game(where), Path(data) if data is not None else None)
    except RefereeError as err:
        raise _error(err, SpecError) from None
    game = spec.game
    return Game(
        name=game.name if game else "",
        title=game.title if game else "",
        directory=spec.game_dir,
        printings=tuple(spec.sym.printings),
        base_printing=base_printing(spec.sym),
        overlays=tuple(spec.sym.overlays),
        clauses={c.number: c.title for c in spec.clauses()},
        _spec=spec,
    )


def _game(game: Game | str | os.PathLike[str] | None) -> Spec:
    return (game if isinstance(game, Game) else load_game(game))._spec


def _source(record: RecordInput, name: str | None) -> Source:
    """What the engine reads: a path, or a text under its name (a mapping written as JSON,
    so that every problem in it has a line and a column)."""
    if isinstance(record, Mapping):
        try:
            text = json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False, default=_plain)
        except (TypeError, ValueError) as err:
            problem = Problem(name or "<mapping>", 0, 0, f"the record is not plain data: {err}")
            raise RecordError([problem]) from None
        except RecursionError:  # far deeper than a record may nest (MAX_DEPTH levels)
            problem = Problem(
                name or "<mapping>",
                0,
                0,
                f"the record is nested too deeply: a record nests at most {MAX_DEPTH} levels",
            )
            raise RecordError([problem]) from None
        return RecordText(text + "\n", name or "<mapping>")
    if isinstance(record, str) and ("\n" in record or record.lstrip().startswith("{")):
        return RecordText(record, name or "<string>")
    if isinstance(record, str | os.PathLike):
        return Path(record)
    raise TypeError(f"a record is a path, a text or a mapping, not {type(record).__name__}")


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not plain data")


def _choice(printing: str, overlays: Iterable[str], no_overlays: Iterable[str]) -> Choice:
    on = [overlays] if isinstance(overlays, str) else list(overlays)
    off = [no_overlays] if isinstance(no_overlays, str) else list(no_overlays)
    return Choice(printing, on, off)


# ------------------------------------------------------------------ check


@dataclass(frozen=True)
class Violation:
    """An illegal event (or an expectation the record states that the rules do not meet)."""

    event: int  # the event's number, 1 for the first
    action: str
    line: int  # where the event sits in the record
    column: int
    clause: str  # the number of the clause broken
    label: str  # the label of its condition broken ("" if none)
    cites: str  # clause and label: "NUMBER/LABEL", or the number alone
    title: str  # the clause's title
    message: str  # the condition's message, with its values
    numbers: tuple[str, ...]  # the decisive values and calls, each with its clause
    relied_on: tuple[str, ...]  # the overlays the verdict relied on
    kind: str  # "rule", or "expectation" (a value the record expects after the event)
    as_expected: bool  # the record itself expects this refusal (``expect: {illegal: ...}``)
    alternatives: tuple[str, ...]  # what the actor could legally have done instead


@dataclass(frozen=True)
class Told:
    """One consequence the rules told of an event: the rule, its text, its numbers by name."""

    cites: str
    clause: str
    label: str
    text: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class Outcome:
    """What the rules told of one judged event (event 0: the starting position)."""

    event: int
    action: str
    line: int
    told: tuple[Told, ...]


@dataclass(frozen=True)
class Fired:
    """A rule that holds at any moment (a ``whenever`` rule) firing at an event."""

    event: int  # 0: on the starting position
    rule: str  # clause and label
    text: str
    at: Mapping[str, str]  # its parameters' values


@dataclass(frozen=True)
class Verdict:
    """A record judged: legal to its end, or its violations (the first one only, unless
    judged with ``keep_going``), with what the rules told of every event judged."""

    file: str
    legal: bool
    events: int  # how many events the record holds
    judged: int  # how many were judged
    printing: str
    overlays: tuple[str, ...]  # the overlays in force
    relied_on: tuple[str, ...]  # those the verdict relied on
    summary: str  # where the game stands at the end, or before the illegal event
    violations: tuple[Violation, ...]
    outcomes: tuple[Outcome, ...]
    fired: tuple[Fired, ...]
    text: str  # as ``referee check`` prints it
    _json: Mapping[str, Any] = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The verdict as ``referee check --format json`` prints it, in ``result.records``."""
        return copy.deepcopy(dict(self._json))


def check(
    record: RecordInput,
    *,
    game: Game | str | os.PathLike[str] | None = None,
    printing: str = "",
    overlays: Iterable[str] = (),
    no_overlays: Iterable[str] = (),
    keep_going: bool = False,
    name: str | None = None,
) -> Verdict:
    """Judge a record as ``referee check`` does: each event against the rules, stopping at
    the first illegal one unless ``keep_going``. ``printing``, ``overlays`` and
    ``no_overlays`` come on top of the record's own; ``name`` names a record given as text
    or a mapping in every message (``<string>``, ``<mapping>`` by default). One record is
    judged under the command line's time limit (REFEREE_TIME_LIMIT, 50 s; on the main thread
    only). Raises RecordError (SpecError for ``game``)."""
    spec = _game(game)
    source = _source(record, name)
    try:
        v = _replay.check_one(
            spec, source, _choice(printing, overlays, no_overlays), keep_going, offer=True
        )
    except RefereeError as err:
        raise _error(err, RecordError, source) from None
    return _verdict(v)


def _verdict(v: _verdict_data.Verdict) -> Verdict:
    return Verdict(
        file=v.file,
        legal=v.legal,
        events=v.events,
        judged=v.judged,
        printing=v.printing,
        overlays=tuple(v.overlays),
        relied_on=tuple(v.relied),
        summary=v.summary,
        violations=tuple(_violation(x) for x in v.violations),
        outcomes=tuple(
            Outcome(
                o["index"],
                o["action"],
                o["line"],
                tuple(
                    Told(t["cites"], t["clause"], t["label"], t["text"], t["values"])
                    for t in o["outcome"]
                ),
            )
            for o in v.outcomes
        ),
        fired=tuple(Fired(h["index"], h["rule"], h["text"], h["at"]) for h in v.happened),
        text=_replay.render(v),
        _json=v.as_json(),
    )


def _violation(x: _verdict_data.Violation) -> Violation:
    return Violation(
        event=x.index,
        action=x.action,
        line=x.line,
        column=x.column,
        clause=x.clause,
        label=x.label,
        cites=x.cites,
        title=x.title,
        message=x.message,
        numbers=tuple(x.numbers),
        relied_on=tuple(x.relied),
        kind=x.kind,
        as_expected=x.as_expected,
        alternatives=tuple(a["text"] for a in x.alternatives),
    )


# ------------------------------------------------------------------ compare


@dataclass(frozen=True)
class Difference:
    """The first event whose verdict a variant (another printing, an overlay switched)
    changes."""

    variant: str  # "printing P", "without OVERLAY" or "with OVERLAY"
    overlays: tuple[str, ...]  # the overlays that make the difference
    event: int
    base: str  # the verdict in the record's own setting: "legal" or the clauses cited
    other: str  # the verdict under the variant
    later: int  # how many later events change too


@dataclass(frozen=True)
class OutcomeDifference:
    """The first event whose outcome a variant changes, and the end of the record."""

    variant: str
    overlays: tuple[str, ...]
    verdict_changed: bool
    event: int | None  # None: only the end differs
    in_base: tuple[str, ...]  # told at that event in the base setting, not in the variant
    in_variant: tuple[str, ...]
    later: int
    end: Mapping[str, str] | None  # {"base": ..., "variant": ...} when the ends differ


@dataclass(frozen=True)
class Comparison:
    """A record judged under every printing and with each overlay switched."""

    file: str
    base: str  # the setting compared against: "printing P" (the record's own or the base)
    variants: tuple[str, ...]  # every variant tried
    differences: tuple[Difference, ...]
    outcomes: tuple[OutcomeDifference, ...]
    text: str  # as ``referee compare`` prints it
    _json: Mapping[str, Any] = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The comparison as ``referee compare --format json`` prints it, as its ``result``."""
        return copy.deepcopy(dict(self._json))


def compare(
    record: RecordInput,
    *,
    game: Game | str | os.PathLike[str] | None = None,
    only: Iterable[str] = (),
    name: str | None = None,
) -> Comparison:
    """What each printing and overlay changes in a record, as ``referee compare`` says it;
    ``only`` keeps the variants of these printings or overlays. Raises RecordError."""
    spec = _game(game)
    source = _source(record, name)
    try:
        c = _compare.compare(spec, source, [only] if isinstance(only, str) else list(only))
    except RefereeError as err:
        raise _error(err, RecordError, source) from None
    return Comparison(
        file=c.file,
        base=c.base,
        variants=tuple(c.variants),
        differences=tuple(
            Difference(d.variant, tuple(d.overlays), d.index, d.base, d.other, d.later)
            for d in c.differences
        ),
        outcomes=tuple(
            OutcomeDifference(
                o.variant,
                tuple(o.overlays),
                o.verdict_changed,
                o.index,
                tuple(o.in_base),
                tuple(o.in_variant),
                o.later,
                o.end,
            )
            for o in c.outcomes
        ),
        text=_compare.render(c),
        _json=c.as_json(),
    )


# ------------------------------------------------------------------ explain


@dataclass(frozen=True)
class Explanation:
    """What ``referee explain`` says of a topic."""

    kind: str  # "clause", "overlay", "printing", "file" or "data"
    topic: str  # as asked
    title: str  # the clause's, overlay's or printing's title ("" for the others)
    text: str  # as ``referee explain`` prints it
    also: tuple[str, ...]  # the qualified topics that pick the other things it names
    _json: Mapping[str, Any] = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The explanation as ``referee explain --format json`` prints it; its keys depend on
        its kind."""
        return copy.deepcopy(dict(self._json))


def explain(topic: str, *, game: Game | str | os.PathLike[str] | None = None) -> Explanation:
    """Explain a clause (``NUMBER``), a condition (``NUMBER/LABEL``), a declared name, an
    overlay, a printing, an overlay file or a data entry; ``KIND:TOPIC`` picks one kind.
    Raises InputError for a topic the game does not know, with the closest it does."""
    spec = _game(game)
    try:
        x = explain_topic(spec, topic)
    except RefereeError as err:
        raise _error(err, InputError) from None
    title = x.get("title")
    return Explanation(
        kind=str(x.get("kind", "")),
        topic=topic,
        title=title if isinstance(title, str) else "",
        text=render_topic(x),
        also=tuple(a["ask"] for a in x.get("also", [])),
        _json=x,
    )


# ------------------------------------------------------------------ show


@dataclass(frozen=True)
class Position:
    """Where a record stands at one of its events, as ``referee show`` shows it: every
    state that differs from its starting value, by clause, and the procedures running."""

    file: str
    events: int  # how many events the record holds
    at: int | None  # the event the position stands before; None: after the last
    after: int  # how many events have been applied
    summary: str
    over: str  # the clause whose rule ended the game, if one did
    printing: str
    overlays: tuple[str, ...]
    event: Mapping[str, Any] | None  # the event asked about (or the illegal one)
    frames: tuple[Mapping[str, Any], ...]  # the procedures running, outermost first
    state: Mapping[str, Mapping[str, Any]]  # by clause: each changed state and its cells
    defaults: tuple[str, ...]  # the states every cell of which holds its starting value
    illegal: Mapping[str, Any] | None  # the first illegal event, before which it stands
    text: str  # as ``referee show`` prints it
    _json: Mapping[str, Any] = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The position as ``referee show --format json`` prints it."""
        return copy.deepcopy(dict(self._json))


def show(
    record: RecordInput,
    *,
    at: int | None = None,
    after: int | None = None,
    game: Game | str | os.PathLike[str] | None = None,
    printing: str = "",
    overlays: Iterable[str] = (),
    no_overlays: Iterable[str] = (),
    name: str | None = None,
) -> Position:
    """The position before event ``at`` (1 is the first), after event ``after``, or (neither
    given) at the end of the record; before the first illegal event on the way, if one is
    (``illegal`` says which). Raises RecordError, for an event number the record lacks too."""
    if at is not None and after is not None:
        raise ValueError("give at or after, not both")
    for flag, number in (("at", at), ("after", after)):
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
            raise TypeError(f"{flag}: an event number (an int), not {type(number).__name__}")
    spec = _game(game)
    source = _source(record, name)
    try:
        pos = _position.show_position(
            spec, source, _choice(printing, overlays, no_overlays), at, after
        )
    except RefereeError as err:
        raise _error(err, RecordError, source) from None
    return Position(
        file=pos.file,
        events=pos.events,
        at=pos.at,
        after=pos.after,
        summary=pos.summary,
        over=pos.over,
        printing=pos.printing,
        overlays=tuple(pos.overlays),
        event=pos.event,
        frames=tuple(pos.frames),
        state=pos.state,
        defaults=tuple(pos.defaults),
        illegal=pos.illegal,
        text=_position.render(pos),
        _json=pos.as_json(),
    )
