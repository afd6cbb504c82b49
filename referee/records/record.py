"""Read a game record: safe loading, the JSON Schema, then the spec's types.

The schema (record.schema.json, beside the game's folder: referee/games/schema/
for the bundled game) checks the shape every game shares;
the spec's declared types then check every name an event uses. Both report the
file, line and column of the bad field.

A record's path ``-`` means standard input: read once, under the record's size limit, and
kept for the rest of the process (``compare`` and ``show`` replay a record more than once);
errors name it ``<stdin>``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from referee.data.limits import STDIN, STDIN_NAME, decode, read_stdin, read_text
from referee.data.schema import validate
from referee.data.source import Document, parse_document
from referee.errors import Problem, RefereeError, Span

RECORD_SCHEMA = "record.schema.json"
MAX_RECORD_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class RecordText:
    """A record given as text rather than as a file, under a name for every message about it
    (``<string>``): read as a file holding that text would be, under the same limit."""

    text: str
    name: str = "<string>"

    def __str__(self) -> str:
        return self.name

    def document(self) -> Document:
        return parse_document(self.checked(), self.name)

    def checked(self) -> str:
        """The text, once it is known to be UTF-8 and within the size limit."""
        try:
            size = len(self.text.encode("utf-8"))
        except UnicodeEncodeError as err:
            before = self.text[: err.start]
            line, column = before.count("\n") + 1, err.start - (before.rfind("\n") + 1) + 1
            where = Span(self.name, line, column)
            raise RefereeError(
                [Problem(where, f"not UTF-8 text (a lone surrogate at offset {err.start})")]
            ) from None
        if size > MAX_RECORD_BYTES:
            where = Span(self.name, 1, 1)
            message = f"record is over the limit of {MAX_RECORD_BYTES:,} bytes"
            raise RefereeError([Problem(where, message)])
        return self.text


# A record: a file's path, or its text
Source = str | Path | RecordText


@dataclass
class Event:
    index: int  # 1-based, as a player counts
    action: str
    args: dict[str, Any]
    path: tuple[str | int, ...]
    expect: Any = None  # what the record expects after it (``expect:``), as written


@dataclass
class Record:
    doc: Document
    game: str
    printing: str = ""
    overlays_on: list[str] = field(default_factory=list)
    overlays_off: list[str] = field(default_factory=list)
    position: dict[str, Any] | None = None
    events: list[Event] = field(default_factory=list)
    view: str = ""  # `view: public` or `view: SIDE`: a record as a view kept it (views.py)


# standard input as read the first time a record was read from it: its text, or the error
_STDIN: list[str | RefereeError] = []


def is_stdin(path: Source) -> bool:
    return not isinstance(path, RecordText) and str(path) == STDIN


def record_name(path: Source) -> str:
    """How messages name a record given by this path (or text, by its name)."""
    if isinstance(path, RecordText):
        return path.name
    return STDIN_NAME if is_stdin(path) else str(path)


def read_stdin_once() -> str | RefereeError:
    """Standard input as a record's text, or why it cannot be one: read the first time,
    kept for the next."""
    if not _STDIN:
        try:
            _STDIN.append(decode(read_stdin(MAX_RECORD_BYTES, "record"), STDIN_NAME))
        except RefereeError as err:
            _STDIN.append(err)
    return _STDIN[0]


def stdin_text() -> str:
    kept = read_stdin_once()
    if isinstance(kept, RefereeError):
        raise kept
    return kept


def keep_stdin(kept: str | RefereeError | None) -> None:
    """Standard input as another process read it (a worker of a batch judges ``-`` too)."""
    if kept is not None:
        _STDIN[:] = [kept]


# While a command runs (``read_once``): what each record file gave when it was first read (its
# text, its document, or why it could not be read), so that no file is read twice.
_ONCE: list[dict[tuple[object, ...], object]] = []


@contextmanager
def read_once() -> Iterator[None]:
    """Within it, each record file is read (and parsed) once: learning its game, judging it,
    judging it again under another setting all see the same bytes, read once, and pay for
    reading them once."""
    _ONCE.append({})
    try:
        yield
    finally:
        _ONCE.pop()


_T = TypeVar("_T")


def once(key: tuple[object, ...], make: Callable[[], _T]) -> _T:
    """``make()``, or, inside ``read_once``, what it gave the first time for ``key`` (an
    error too: it is raised again)."""
    if not _ONCE:
        return make()
    memo = _ONCE[0]
    if key not in memo:
        try:
            memo[key] = make()
        except RefereeError as err:
            memo[key] = err
    kept = memo[key]
    if isinstance(kept, RefereeError):
        raise kept
    return kept  # type: ignore[return-value]


def record_text(path: str | Path) -> str:
    """A record file's text, under the record's size limit (read once in ``read_once``)."""
    return once(("text", str(path)), lambda: read_text(path, MAX_RECORD_BYTES, "record"))


def load_record(
    source: Source, schema_dir: Path, read: Callable[[Source], Document] | None = None
) -> Record:
    """A record from a file, its text or standard input: YAML or JSON, or whatever ``read``
    makes of a file (the table notation), with the position of every value."""
    file = read is None and not isinstance(source, RecordText) and not is_stdin(source)
    if read is not None:
        doc = read(source)
    elif isinstance(source, RecordText):
        doc = source.document()
    elif is_stdin(source):
        doc = parse_document(stdin_text(), STDIN_NAME)
    else:
        doc = once(
            ("document", str(source)), lambda: parse_document(record_text(source), str(source))
        )
    if doc.data is None:
        raise RefereeError([Problem(doc.span(()), "the record is empty")], {doc.file: doc.text})
    schema = schema_dir / RECORD_SCHEMA
    if file:  # a file's document is read once (read_once): so is it validated
        once(("valid", str(source), str(schema)), lambda: validate(doc, schema))
    else:
        validate(doc, schema)
    data = doc.data
    rec = Record(
        doc,
        data["game"],
        data.get("printing", ""),
        list(data.get("overlays", [])),
        list(data.get("no_overlays", [])),
        data.get("position"),
        view=data.get("view", ""),
    )
    for i, ev in enumerate(data["events"]):
        ((action, args),) = ((k, v) for k, v in ev.items() if k != "expect")
        rec.events.append(
            Event(i + 1, action, dict(args or {}), ("events", i, action), ev.get("expect"))
        )
    return rec
