"""Read a game record: safe loading, the JSON Schema, then the spec's types.

The schema (spec/schema/record.schema.json) checks the shape every game shares;
the spec's declared types then check every name an event uses. Both report the
file, line and column of the bad field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.data.schema import validate
from referee.data.source import Document, load_document
from referee.errors import Problem, RefereeError

RECORD_SCHEMA = "record.schema.json"
MAX_RECORD_BYTES = 16 * 1024 * 1024


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


def load_record(
    path: str | Path, schema_dir: Path, read: Callable[[str | Path], Document] | None = None
) -> Record:
    """A record from a file: YAML or JSON, or whatever ``read`` makes of it (the table
    notation), with the position of every value."""
    doc = read(path) if read is not None else load_document(path, MAX_RECORD_BYTES, "record")
    if doc.data is None:
        raise RefereeError([Problem(doc.span(()), "the record is empty")], {doc.file: doc.text})
    validate(doc, schema_dir / RECORD_SCHEMA)
    data = doc.data
    rec = Record(
        doc,
        data["game"],
        data.get("printing", ""),
        list(data.get("overlays", [])),
        list(data.get("no_overlays", [])),
        data.get("position"),
    )
    for i, ev in enumerate(data["events"]):
        ((action, args),) = ((k, v) for k, v in ev.items() if k != "expect")
        rec.events.append(
            Event(i + 1, action, dict(args or {}), ("events", i, action), ev.get("expect"))
        )
    return rec
