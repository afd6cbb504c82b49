"""A game played one event at a time: `referee.Game` and `referee table`.

A session stands where a record starts (the set-up, or the position it gives), with the
record's own events applied; each event pushed is judged as `referee check` judges the
next event of a record (its ``expect:`` too), applied if legal and left out if not, with
what the actor could have done instead. ``pop`` takes the last event back: the session
stands again where the record starts and applies the events kept (the rules are
deterministic: the same position is reached). The legal next events are those `referee
moves` lists (run/moves.py). Nothing here knows the game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from referee.compile.spec import Spec
from referee.data.source import Document
from referee.errors import Problem, RefereeError, Span
from referee.records.expect import ILLEGAL
from referee.records.notation_read import parse_notation
from referee.records.notation_write import to_notation
from referee.records.record import Event, Record, RecordText, Source, load_record
from referee.resolve.overlays import Choice
from referee.run import alternatives
from referee.run.moves import MAX_JUDGED, MAX_SECONDS, Enumerator, Moves
from referee.run.referee import Referee
from referee.run.replay import (
    _happened,
    _outcome,
    expectations,
    open_referee,
    refused_position,
)
from referee.run.trial import Mark
from referee.run.verdict import TOLD_LISTED, Verdict, Violation

PUSHED = "<pushed>"  # how messages name an event pushed as data
TYPED = "<table>"  # and one typed in the notation


@dataclass
class Judged:
    """One event judged: legal (and applied) or refused (and not applied)."""

    index: int  # its number in the game, 1 for the first
    action: str
    event: dict[str, Any]  # as a record writes it
    legal: bool
    violations: list[Violation] = field(default_factory=list)
    told: list[dict[str, Any]] = field(default_factory=list)  # what the rules told of it
    fired: list[dict[str, Any]] = field(default_factory=list)  # the standing rules fired
    summary: str = ""  # where the game stands after it (before it, if refused)


def notation_events(spec: Spec, text: str, name: str = TYPED) -> Document:
    """Events in the table notation (one or more lines), read as a record of the game
    holding them would be: a Document whose ``events`` are as a YAML record writes them."""
    game = spec.game.name if spec.game else ""
    head = f"game: {game}\n"
    if "\x00" in text:
        raise RefereeError([Problem(Span(name, 1, 1), "binary data, not notation text")])
    try:
        notation = parse_notation(spec, head + text, name)
    except RefereeError as err:
        # located in the lines as typed, not below the header added here
        raise RefereeError(
            [replace(p, span=_up(p.span)) for p in err.problems],
            {k: v[len(head) :] if v.startswith(head) else v for k, v in err.sources.items()},
        ) from None
    doc = notation.doc
    # the lines as typed: the header this function added is not the user's line 1
    doc.marks = {k: _up(s) for k, s in doc.marks.items()}
    doc.text = text
    return doc


def _up(s: Span) -> Span:
    """A place in a text below the one-line header notation_events adds, in the text as typed."""
    return Span(s.file, max(s.line - 1, 1), s.column)


def is_notation_text(text: str) -> bool:
    """Whether a record's text is in the table notation rather than YAML or JSON: it names
    its game as YAML does, but its events are lines, not an ``events:`` list."""
    stripped = text.lstrip()
    if stripped.startswith("{") or "\nevents:" in "\n" + text:
        return False
    return bool(stripped)


class Session:
    """A game one event at a time, from a record (its position, its events) or the set-up."""

    def __init__(self, spec: Spec, source: Source | None, choice: Choice) -> None:
        self.spec = spec
        self.choice = choice
        game = spec.game.name if spec.game else ""
        self.source: Source = source or RecordText(f"game: {game}\nevents: []\n", "<set-up>")
        self.ref = self._open()
        data = self.ref.record.doc.data
        self.head: dict[str, Any] = {k: v for k, v in data.items() if k != "events"}
        # the events applied, as written, and the documents they were read from
        self.written: list[dict[str, Any]] = []
        self._docs: list[tuple[Document, Event]] = []
        self.refused: Judged | None = None  # the record's own first illegal event, if any
        # the record's verdict when its starting position cannot arise (as `referee check`
        # refuses it): no event of it is judged, and no game goes on from it
        self.unreachable: Verdict | None = refused_position(self.ref)
        for ev in list(self.ref.record.events) if self.unreachable is None else []:
            judged = self._judge(ev, self.ref.record.doc)
            if not judged.legal:
                self.refused = judged
                break
        self.ref.record.events = []

    def _open(self) -> Referee:
        ref = open_referee(self.spec, self.source, self.choice)
        self.spec = ref.spec  # a bundled game's record: its own game's rules
        try:
            expectations(ref, ref.record)
            ref.start()
        except BaseException:
            ref.release()
            raise
        return ref

    def close(self) -> None:
        self.ref.release()

    # ------------------------------------------------------------ events in

    def read(self, event: Any) -> tuple[Document, list[Event]]:
        """Events from data (``{ACTION: {...}}``, or a list of those) or notation text, read
        and checked as a record's events are."""
        game = self.spec.game.name if self.spec.game else ""
        if isinstance(event, str):
            doc = notation_events(self.spec, event)
            record = load_record(TYPED, self._schema(), lambda _: doc)
        else:
            items = event if isinstance(event, list) else [event]
            try:
                text = json.dumps({"game": game, "events": items}, indent=1, ensure_ascii=False)
            except (TypeError, ValueError) as err:
                raise RefereeError(
                    [Problem(Span(PUSHED, 0, 0), f"an event is plain data: {err}")]
                ) from None
            record = load_record(RecordText(text + "\n", PUSHED), self._schema())
        return record.doc, record.events

    def _schema(self) -> Any:
        return self.spec.game_dir.parent / "schema"

    def push(self, event: Any) -> list[Judged]:
        """Judge the events given, in turn, each applied if legal; stop at a refused one."""
        doc, events = self.read(event)
        out = []
        for ev in events:
            # numbered as the game counts them; its place in the document it came from kept
            ev = Event(len(self.written) + 1, ev.action, ev.args, ev.path, ev.expect)
            judged = self._judge(ev, doc, offer=True)
            out.append(judged)
            if not judged.legal:
                break
        return out

    def _judge(self, ev: Event, doc: Document, offer: bool = False) -> Judged:
        ref = self.ref
        saved = ref.record.doc, ref.convert.doc
        ref.record.doc = ref.convert.doc = doc
        try:
            expected = []
            if ev.expect is not None:
                record = Record(doc, ref.record.game, events=[ev])
                expected = expectations(ref, record).get(ev.index, [])
            before = ref.summary()
            fired, told = len(ref.interp.fired), len(ref.interp.told)
            mark = Mark(ref)
            violations = alternatives.judge(ref, ev) if offer else ref.judge(ev)
            if not violations and expected:
                violations = ref.missed(ev, expected, told)
            if any(x.key == ILLEGAL for x in expected):
                violations = ref.refusal(ev, expected, violations)
            legal = not violations or all(v.as_expected for v in violations)
            outcome = _outcome(ref, ev, told, TOLD_LISTED)
            happened = _happened(ref, ev.index, fired)
            applied = not violations
            if applied:
                mark.keep()
            else:
                mark.back()
            written = _as_written(doc, ev)
            if applied:
                self.written.append(written)
                self._docs.append((doc, ev))
            return Judged(
                ev.index,
                ev.action,
                written,
                legal and applied,
                violations,
                outcome["outcome"] if applied else [],
                happened if applied else [],
                ref.summary() if applied else before,
            )
        finally:
            ref.record.doc, ref.convert.doc = saved

    def pop(self) -> dict[str, Any]:
        """Take the last event back: the position as it was before it."""
        if not self.written:
            raise IndexError("no event to take back")
        kept = self._docs[:-1]
        last = self.written[-1]
        self.ref.release()
        self.ref = self._open()
        self.ref.record.events = []
        self.written, self._docs = [], []
        for doc, ev in kept:
            self._judge(ev, doc)
        return last

    # ------------------------------------------------------------ the position

    def legal(
        self,
        every: bool = True,
        most: int = MAX_JUDGED,
        seconds: float = MAX_SECONDS,
        action: str = "",
    ) -> Moves:
        """The legal next events, as `referee moves` lists them."""
        where = Span(str(self.source), 0, 0)
        enum = Enumerator(self.ref, len(self.written) + 1, where, most, seconds, action, every)
        return enum.moves(str(self.source), len(self.written))

    @property
    def over(self) -> bool:
        m = self.ref.machine
        top = m.top
        return bool(m.over) or top is None or top.step is None or not top.step.allows

    def record(self) -> dict[str, Any]:
        """What was played, as a record: the starting record's header, the events applied."""
        return {**self.head, "events": list(self.written)}

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.record(), sort_keys=False, default_flow_style=None, width=120)

    def to_notation(self) -> str:
        text = self.to_yaml()
        from referee.data.source import parse_document

        return to_notation(self.spec, parse_document(text, str(self.source)))


def _as_written(doc: Document, ev: Event) -> dict[str, Any]:
    """An event as its record wrote it (its ``expect:`` included)."""
    data = doc.data
    node: Any = data
    for key in ev.path[:2]:
        node = node[key]
    return dict(node) if isinstance(node, dict) else {ev.action: ev.args}
