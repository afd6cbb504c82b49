"""Load YAML or JSON safely, keeping the line and column of every value.

Nothing in a file is executed or turned into an object other than plain data.
Each value's position is kept in a map from its path (a tuple of keys and
indexes) to a Span, so that a schema error can point at the bad field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    DocumentStartEvent,
    NodeEvent,
    ScalarEvent,
    SequenceStartEvent,
)
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from referee.data.limits import MAX_DIGITS, read_text
from referee.errors import Problem, RefereeError, Span
from referee.text import shown

Path_ = tuple[str | int, ...]

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 1_000_000
PLAIN_TAGS = {
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp")
}


@dataclass
class Document:
    """A loaded file: its data, its text and where each value sits."""

    file: str
    text: str
    data: Any
    marks: dict[Path_, Span] = field(default_factory=dict)

    def span(self, path: Path_) -> Span:
        """The span of the value at ``path``, or of its nearest ancestor that has one."""
        p = tuple(path)
        while p not in self.marks and p:
            p = p[:-1]
        return self.marks.get(p, Span(self.file, 1, 1))


def show_path(path: Path_) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def load_document(
    path: str | Path, max_bytes: int = MAX_BYTES, what: str = "data file"
) -> Document:
    """Read and parse one YAML or JSON file; every failure is a located RefereeError."""
    return parse_document(read_text(path, max_bytes, what), str(path))


# libyaml's parser, where PyYAML was built with it: ten times faster. A document is
# taken from it only when it has none of the characters on which the two parsers differ,
# parses and builds without a problem and holds no empty value (libyaml places an implicit
# empty value elsewhere than the pure-Python parser does); anything else is parsed by the
# pure-Python parser, whose messages and positions every error report uses.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


# Characters on which the two parsers are known to part ways (tabs, other line breaks, a
# byte-order mark, controls, tags, a comment stuck to a block scalar's indicator): a text
# with any of them goes to the pure parser.
_UNSURE_CHARS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f!\ufeff\u2028\u2029]|[|>][-+0-9]*#")


class _Unsure(Exception):
    """The fast parser's positions cannot be trusted for this document."""


def parse_document(text: str, file: str) -> Document:
    if _FAST_LOADER is not None and not _UNSURE_CHARS.search(text):
        try:
            return _Builder(file, text, fast=True).build(yaml.parse(text, Loader=_FAST_LOADER))
        except _Refused as err:  # a limit broken: said where libyaml found it, as it is
            raise err.error from None
        except Exception:  # noqa: BLE001 - whatever it is, the pure parser says it properly
            pass
    try:
        return _Builder(file, text).build(yaml.parse(text, Loader=yaml.SafeLoader))
    except _Refused as err:
        raise err.error from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
        what = err.problem or err.context or "malformed YAML"
        raise RefereeError(
            [Problem(span, f"malformed YAML or JSON: {what}")], {file: text}
        ) from None
    except yaml.YAMLError as err:
        raise RefereeError([Problem(Span(file, 1, 1), f"malformed YAML or JSON: {err}")]) from None


class _Refused(Exception):
    """A document the referee will not read: too deep, too big, or not plain data."""

    def __init__(self, error: RefereeError) -> None:
        self.error = error


_NONE = object()
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_MERGE = "tag:yaml.org,2002:merge"
_STR = "tag:yaml.org,2002:str"
MAX_RESOLVED = 256  # characters: a longer plain scalar is text, or digits (refused as a number)
_DIGITS = re.compile(r"[-+]?[0-9_]+")


class _Builder:
    """Parser events to plain data, with no recursion and no node tree: each value is
    built as its events come. Refuses, where it starts, a value nested deeper than
    MAX_DEPTH, the value after MAX_NODES, anchors and aliases, explicit tags, merge keys,
    duplicate keys and integers of more than MAX_DIGITS digits. YAML 1.1's base-60 numbers
    (``1:30``) are read as text, as YAML 1.2 reads them."""

    def __init__(self, file: str, text: str, fast: bool = False) -> None:
        self.file = file
        self.text = text
        self.fast = fast
        self.doc = Document(file, text, None)
        self.resolver = Resolver()
        self.scalars = SafeConstructor()
        self.known: dict[tuple[str, Any], Any] = {}

    def problem(self, event: Any, message: str) -> _Refused:
        m = event.start_mark
        span = Span(self.file, m.line + 1, m.column + 1, start=m.index)
        return _Refused(RefereeError([Problem(span, message)], {self.file: self.text}))

    def build(self, events: Iterator[Any]) -> Document:
        marks = self.doc.marks
        # open containers: [the container, its path, the key waiting for its value]
        stack: list[list[Any]] = []
        nodes = documents = 0
        root: Any = None
        ev: Any
        for ev in events:
            if isinstance(ev, DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self.problem(ev, "one document per file: a second one starts here")
                continue
            if not isinstance(ev, NodeEvent) and not isinstance(ev, CollectionEndEvent):
                continue
            if isinstance(ev, CollectionEndEvent):
                done = stack.pop()[0]
                if not stack:
                    root = done
                continue
            top = stack[-1] if stack else None
            if top is not None and isinstance(top[0], dict) and top[2] is None:
                top[2] = self.key(ev, top[0])  # a key: where it sits is its value's concern
                continue
            nodes += 1
            if nodes > MAX_NODES:
                raise self.problem(ev, f"document has more than {MAX_NODES:,} values")
            if len(stack) > MAX_DEPTH:
                raise self.problem(ev, f"nesting deeper than {MAX_DEPTH} levels")
            if isinstance(ev, AliasEvent) or ev.anchor is not None:
                raise self.problem(ev, "aliases (&anchor / *alias) are not allowed")
            tag = getattr(ev, "tag", None)
            if tag is not None:
                raise self.problem(
                    ev, f"YAML tags are not allowed ({shown(tag)}): a record is plain data"
                )
            if top is None:
                path: Path_ = ()
            elif isinstance(top[0], list):
                path = top[1] + (len(top[0]),)
            else:
                path = top[1] + (top[2],)
            m: Any = ev.start_mark
            marks[path] = Span(self.file, m.line + 1, m.column + 1, start=m.index)
            if isinstance(ev, ScalarEvent):
                value = self.scalar(ev)
            elif isinstance(ev, SequenceStartEvent):
                value = []
                stack.append([value, path, None])
            else:
                value = {}
                stack.append([value, path, None])
            if top is None:
                root = value
            elif isinstance(top[0], list):
                top[0].append(value)
            else:
                top[0][top[2]] = value
                top[2] = None
        self.doc.data = root
        return self.doc

    def key(self, ev: Any, mapping: dict[str, Any]) -> str:
        if isinstance(ev, AliasEvent) or ev.anchor is not None:
            raise self.problem(ev, "aliases (&anchor / *alias) are not allowed")
        if not isinstance(ev, ScalarEvent):
            raise self.problem(ev, "a key must be a plain name, not a list or mapping")
        if ev.tag is not None:
            raise self.problem(
                ev, f"YAML tags are not allowed ({shown(ev.tag)}): a record is plain data"
            )
        if self._tag(ev) == _MERGE:
            raise self.problem(ev, "merge keys (<<) are not allowed")
        if ev.value in mapping:
            raise self.problem(ev, f"duplicate key '{shown(ev.value)}'")
        return str(ev.value)

    def _tag(self, ev: Any) -> str:
        """The tag YAML's rules give a scalar without one. A long one is text: no number,
        boolean or null is that long, and YAML's patterns would backtrack over all of it
        (16 MB of `1:1:...` took seconds and a gigabyte)."""
        if len(ev.value) > MAX_RESOLVED:
            return _INT if ev.implicit[0] and _DIGITS.fullmatch(ev.value) else _STR
        return str(self.resolver.resolve(ScalarNode, ev.value, ev.implicit))  # type: ignore[no-untyped-call]

    def scalar(self, ev: Any) -> Any:
        if self.fast and ev.start_mark.index == ev.end_mark.index:
            raise _Unsure
        key = (ev.value, ev.implicit)
        known = self.known.get(key, _NONE)
        if known is not _NONE:
            return known
        value = self._scalar(ev)
        if len(ev.value) <= 64 and len(self.known) < 100_000:
            self.known[key] = value  # a name or a number seen again is read once
        return value

    def _scalar(self, ev: Any) -> Any:
        tag = self._tag(ev)
        if tag not in PLAIN_TAGS:
            return ev.value  # `=` and `<<` as values: text
        if tag in (_INT, _FLOAT) and ":" in ev.value:
            return ev.value  # base 60 in YAML 1.1, text in YAML 1.2 (and in the referee)
        if tag == _INT and sum(c.isalnum() for c in ev.value) > MAX_DIGITS + 2:  # 0x..., 0o...
            raise self.problem(ev, f"a number of more than {MAX_DIGITS} digits")
        node = ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark)
        try:
            value = self.scalars.yaml_constructors[tag](self.scalars, node)
        except (ConstructorError, ValueError) as err:
            raise self.problem(ev, f"bad value: {getattr(err, 'problem', err)}") from None
        if not isinstance(value, (str, int, float, bool, type(None))):
            # dates and binary become text: a record holds plain data only
            return ev.value
        return value
