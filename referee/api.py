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
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.api_base import (
    InputError,
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
    load_game,
)
from referee.errors import RefereeError
from referee.explainer.topics import explain_topic, render_topic
from referee.playing import (
    EventVerdict,
    Game,
    LegalEvents,
    Proof,
    Step,
    Value,
    convert,
    play,
    prove,
)
from referee.run import compare as _compare
from referee.run import position as _position
from referee.run import replay as _replay
from referee.run import verdict as _verdict_data

__all__ = [
    "Comparison",
    "Difference",
    "EventVerdict",
    "Explanation",
    "Fired",
    "Game",
    "InputError",
    "LegalEvents",
    "Outcome",
    "OutcomeDifference",
    "Position",
    "Problem",
    "Proof",
    "RecordError",
    "RecordInput",
    "Rules",
    "SpecError",
    "Step",
    "Told",
    "Value",
    "Verdict",
    "ViewJudgement",
    "Violation",
    "check",
    "check_view",
    "compare",
    "convert",
    "explain",
    "load_game",
    "play",
    "prove",
    "show",
]


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
    game: Rules | str | os.PathLike[str] | None = None,
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
    spec = _game(game, record)
    source = _source(record, name)
    try:
        v = _replay.check_one(
            spec, source, _choice(printing, overlays, no_overlays), keep_going, offer=True
        )
    except RefereeError as err:
        raise _error(err, RecordError, source) from None
    return _verdict(v)


@dataclass(frozen=True)
class ViewJudgement:
    """A view record (``view:`` in its header) judged: ``status`` is consistent (``witness``
    is a complete record ``check`` judges legal), inconsistent (``failure``: the event no
    assignment makes legal and the clauses every one broke) or unknown (``reason``: the
    bound or the timeout reached). See docs/hidden.md."""

    file: str
    view: str
    status: str
    witness: Mapping[str, Any] | None
    failure: Mapping[str, Any] | None
    facts: tuple[Mapping[str, Any], ...]
    reason: str
    text: str  # as ``referee check`` prints it
    _json: Mapping[str, Any] = field(repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The judgement as ``referee check --format json`` prints it, in ``result``."""
        return copy.deepcopy(dict(self._json))


def check_view(
    record: str | os.PathLike[str],
    *,
    game: Rules | str | os.PathLike[str] | None = None,
    printing: str = "",
    overlays: Iterable[str] = (),
    no_overlays: Iterable[str] = (),
    timeout: float | None = None,
) -> ViewJudgement:
    """Judge a view record as ``referee check`` does: is some assignment of what the view
    did not see legal? ``timeout``: the search's seconds (else its default bound). Raises
    RecordError (SpecError for ``game``)."""
    from referee.hidden.judge import judge_view, render_judgement
    from referee.hidden.search import Limits

    spec = _game(game, record)
    source = _source(record, None)
    limits = Limits(seconds=timeout) if timeout is not None else Limits()
    try:
        j = judge_view(spec, source, _choice(printing, overlays, no_overlays), limits)
    except RefereeError as err:
        raise _error(err, RecordError, source) from None
    data = j.as_json()
    return ViewJudgement(
        j.file,
        j.view,
        j.status,
        j.witness,
        j.failure,
        tuple(data["facts"]),
        j.reason,
        render_judgement(j),
        data,
    )


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
    game: Rules | str | os.PathLike[str] | None = None,
    only: Iterable[str] = (),
    name: str | None = None,
) -> Comparison:
    """What each printing and overlay changes in a record, as ``referee compare`` says it;
    ``only`` keeps the variants of these printings or overlays. Raises RecordError."""
    spec = _game(game, record)
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


def explain(topic: str, *, game: Rules | str | os.PathLike[str] | None = None) -> Explanation:
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
    game: Rules | str | os.PathLike[str] | None = None,
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
    spec = _game(game, record)
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
