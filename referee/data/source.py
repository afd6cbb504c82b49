"""Load YAML or JSON safely, keeping the line and column of every value.

Nothing in a file is executed or turned into an object other than plain data.
Each value's position is kept in a map from its path (a tuple of keys and
indexes) to a Span, so that a schema error can point at the bad field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from referee.errors import Problem, RefereeError, Span

Path_ = tuple[str | int, ...]

MAX_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 2_000_000
PLAIN_TAGS = {
    f"tag:yaml.org,2002:{t}"
    for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
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


def _span(file: str, node: Node) -> Span:
    m = node.start_mark
    return Span(file, m.line + 1, m.column + 1, start=m.index)


def load_document(path: str | Path, max_bytes: int = MAX_BYTES) -> Document:
    """Read and parse one YAML or JSON file; every failure is a located RefereeError."""
    file = str(path)
    try:
        size = Path(path).stat().st_size
        if size > max_bytes:
            raise RefereeError(
                [
                    Problem(
                        Span(file, 1, 1),
                        f"file is {size:,} bytes; the limit is {max_bytes:,}",
                    )
                ]
            )
        raw = Path(path).read_bytes()
    except OSError as err:
        raise RefereeError(
            [Problem(Span(file, 0, 0), f"cannot read file: {err.strerror}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RefereeError(
            [Problem(Span(file, 1, 1), f"not UTF-8 text (bad byte at offset {err.start})")]
        ) from None
    return parse_document(text, file)


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
            return _document(text, file, yaml.compose(text, Loader=_FAST_LOADER), fast=True)
        except Exception:  # noqa: BLE001 - whatever it is, the pure parser says it properly
            pass
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
        what = err.problem or err.context or "malformed YAML"
        raise RefereeError(
            [Problem(span, f"malformed YAML or JSON: {what}")], {file: text}
        ) from None
    except yaml.YAMLError as err:
        raise RefereeError([Problem(Span(file, 1, 1), f"malformed YAML or JSON: {err}")]) from None
    return _document(text, file, node, fast=False)


def _document(text: str, file: str, node: Node | None, fast: bool) -> Document:
    doc = Document(file, text, None)
    if node is None:
        return doc
    builder = _Builder(file, doc.marks, fast)
    try:
        doc.data = builder.build(node, (), 0)
    except RefereeError as err:
        err.sources[file] = text
        raise
    return doc


class _Builder:
    """Node tree to plain data. Refuses aliases, deep nesting and oversized documents."""

    def __init__(self, file: str, marks: dict[Path_, Span], fast: bool = False) -> None:
        self.file = file
        self.fast = fast
        self.marks = marks
        self.nodes = 0
        self.scalars = SafeConstructor()
        self.seen: set[int] = set()

    def problem(self, node: Node, message: str) -> RefereeError:
        return RefereeError([Problem(_span(self.file, node), message)])

    def build(self, node: Node, path: Path_, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.problem(node, f"document has more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise self.problem(node, f"nesting deeper than {MAX_DEPTH} levels")
        self.marks[path] = _span(self.file, node)
        if node.tag not in PLAIN_TAGS:
            raise self.problem(
                node, f"YAML tags are not allowed ({node.tag}): a record is plain data"
            )
        if not isinstance(node, ScalarNode):
            if id(node) in self.seen:
                raise self.problem(node, "aliases (&anchor / *alias) are not allowed")
            self.seen.add(id(node))
        if isinstance(node, ScalarNode):
            if self.fast and node.start_mark.index == node.end_mark.index:
                raise _Unsure
            try:
                value = self.scalars.construct_object(node)
            except ConstructorError as err:
                raise self.problem(node, f"bad value: {err.problem}") from None
            if not isinstance(value, (str, int, float, bool, type(None))):
                # dates and binary become text: a record holds plain data only
                return node.value
            return value
        if isinstance(node, SequenceNode):
            return [self.build(n, path + (i,), depth + 1) for i, n in enumerate(node.value)]
        if isinstance(node, MappingNode):
            out: dict[str, Any] = {}
            for knode, vnode in node.value:
                if not isinstance(knode, ScalarNode):
                    raise self.problem(knode, "a key must be a plain name, not a list or mapping")
                if knode.tag == "tag:yaml.org,2002:merge":
                    raise self.problem(knode, "merge keys (<<) are not allowed")
                key = str(knode.value)
                if key in out:
                    raise self.problem(knode, f"duplicate key '{key}'")
                out[key] = self.build(vnode, path + (key,), depth + 1)
            return out
        raise self.problem(node, "unsupported YAML node")
