"""The table notation written: a record (YAML or JSON, read and checked) one event a line, and
a notation record as YAML; each checked to read back as what it was given."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import yaml

from referee.compile.spec import Spec
from referee.data.limits import STDIN_NAME
from referee.data.schema import validate
from referee.data.source import Document, Path_, parse_document
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.records.notation import (
    _BARE,
    _INT,
    REPEAT_FROM,
    SUFFIX,
    Notation,
    Slot,
    Words,
    _comment_text,
    header_where,
    short_names,
    slots,
)
from referee.records.notation_read import (
    expand,
    is_notation_source,
    notation_document,
    parse_notation,
    read_notation,
)
from referee.records.record import (
    RECORD_SCHEMA,
    RecordText,
    Source,
    is_stdin,
    record_text,
    stdin_text,
)
from referee.records.views import MARK


class _Unwritable(Exception):
    """A value the notation cannot say as it is: where, and why."""

    def __init__(self, path: Path_, message: str) -> None:
        self.path = path
        self.message = message


class _Dumper(yaml.SafeDumper):
    """Lists under a key indented, so that a header's lines below it are indented."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


def _styled(node: yaml.Node, flow: bool | None) -> None:
    if isinstance(node, yaml.ScalarNode):
        if any(b in node.value for b in _BREAKS):
            node.style = '"'  # on one line, its breaks escaped
        return
    if flow and isinstance(node, yaml.CollectionNode):
        node.flow_style = True
    children: list[yaml.Node] = []
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            children += [k, v]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    for child in children:
        _styled(child, flow)


class _Written(str):
    """A number as the file writes it (``8.10``, a clause YAML takes for 8.1): written so."""


def _represent_written(dumper: yaml.SafeDumper, value: _Written) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:float", str(value))


_Dumper.add_representer(_Written, _represent_written)
_PLAIN = re.compile(r"[^\s,\]}#]+")


def as_written(doc: Document, path: Path_, value: Any) -> Any:
    """``value`` with each of its fractions as the file writes it: the referee reads a
    clause number YAML took for a number from the text (``8.10``, not 8.1)."""
    if isinstance(value, float):
        at = doc.span(path)
        lines = doc.text.splitlines()
        line = lines[at.line - 1] if 1 <= at.line <= len(lines) else ""
        m = _PLAIN.match(line[at.column - 1 :])
        return _Written(m.group(0)) if m else value
    if isinstance(value, dict):
        return {k: as_written(doc, path + (k,), v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_written(doc, path + (k,), v) for k, v in enumerate(value)]
    return value


def yaml_text(key: str, value: Any, one_line: bool) -> str:
    """``key: value`` in YAML: on one line, or (a header) with a mapping's or a list's
    lines indented below the key."""
    stream = io.StringIO()
    dumper = _Dumper(
        stream, default_flow_style=None, width=10**9, sort_keys=False, allow_unicode=True
    )
    dumper.open()
    node = dumper.represent_data({key: value})
    assert isinstance(node, yaml.MappingNode)
    node.flow_style = False
    for k, v in node.value:
        _styled(k, True)
        _styled(v, True if one_line else None)
    dumper.serialize(node)
    dumper.close()
    dumper.dispose()
    return stream.getvalue().rstrip("\n")


def yaml_line(key: str, value: Any) -> str:
    return yaml_text(key, value, True)


def yaml_header(key: str, value: Any) -> str:
    return yaml_text(key, value, False)


class _Writer:
    def __init__(self, words: Words) -> None:
        self.w = words

    def event(self, action: str, args: Any, path: Path_) -> str:
        if action not in self.w.actions:
            raise _Unwritable(
                path[:2], f"unknown action '{action}': the notation writes the spec's actions only"
            )
        if args is not None and not isinstance(args, dict):
            raise _Unwritable(path + (action,), "an event's arguments are a mapping")
        rest = dict(args or {})
        words = []
        if self.w.players is not None:
            if "by" not in rest:
                raise _Unwritable(path + (action,), "'by' is missing: a line begins with who acts")
            by = rest.pop("by")
            if not isinstance(by, str) or by not in self.w.short:
                raise _Unwritable(path + (action, "by"), f"unknown side {by!r}")
            words.append(self.w.short[by])
        words.append(action)
        words += self.arguments(action, self.w.actions[action], rest, path + (action,), True)
        return " ".join(words)

    def arguments(
        self, owner: str, params: list[Slot], args: dict[str, Any], path: Path_, top: bool
    ) -> list[str]:
        names = {p.name for p in params}
        for key in args:
            if key not in names:
                raise _Unwritable(path + (key,), f"unknown argument '{key}' of {owner}")
        shorts = short_names([p.name for p in params])
        # Required parameters in order, then (of an action) the first optional one unless
        # a number or true/false: what the value is for is plain from the value itself.
        positional: list[Slot] = []
        for p in params:
            if p.name not in args:
                break
            if p.optional:
                if (
                    top
                    and not any(q.optional for q in positional)
                    and p.type.name
                    not in (
                        "int",
                        "bool",
                    )
                ):
                    positional.append(p)
                break
            positional.append(p)
        named = [p for p in params if p.name in args and p not in positional]
        bare: Slot | None = None
        if top:
            for k, p in enumerate(positional):
                if self.bare_ok(p, args[p.name]):
                    bare = p
                    named = positional[k + 1 :] + named
                    positional = positional[:k]
                    break
        out = [self.value(p.type, args[p.name], path + (p.name,)) for p in positional]
        out += [
            f"{shorts.get(p.name, p.name)}:{self.value(p.type, args[p.name], path + (p.name,))}"
            for p in named
        ]
        if bare is not None:
            rec = self.w.record_of(bare.type.arg) if bare.type.arg else None
            assert rec is not None
            parts = [
                " ".join(
                    self.arguments(rec.name, slots(rec.fields), el, path + (bare.name, k), False)
                )
                for k, el in enumerate(args[bare.name])
            ]
            out.append(" | ".join(parts))
        return out

    def bare_ok(self, p: Slot, value: Any) -> bool:
        """A list of structures, none of them empty: written to the end of the line."""
        rec = self.w.record_of(p.type.arg) if p.type.arg is not None else None
        return (
            rec is not None
            and isinstance(value, list)
            and bool(value)
            and all(isinstance(v, dict) and v for v in value)
        )

    def value(self, t: ast.TypeRef, v: Any, path: Path_) -> str:
        if v is None:
            return "~"
        if t.name in ("list", "set"):
            assert t.arg is not None
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return f"{MARK}*{v}"  # a view's hidden cards, by their count (views.py)
            if not isinstance(v, list):
                raise _Unwritable(path, f"expected a list ({t}), found {_kind(v)}")
            if not v:
                return "-"
            items: list[str] = []
            k = 0
            while k < len(v):
                n = 1
                while k + n < len(v) and v[k + n] == v[k]:
                    n += 1
                word = self.item(t.arg, v[k], path + (k,))
                if n >= REPEAT_FROM and _BARE.fullmatch(word) and word not in ("-", "~"):
                    items.append(f"{word}*{n}")
                else:
                    items += [self.item(t.arg, v[j], path + (j,)) for j in range(k, k + n)]
                k += n
            return ",".join(items)
        return self.item(t, v, path)

    def item(self, t: ast.TypeRef, v: Any, path: Path_) -> str:
        if v is None:
            return "~"
        rec = self.w.record_of(t)
        if rec is not None:
            if not isinstance(v, dict):
                raise _Unwritable(path, f"expected a mapping ({rec.name}), found {_kind(v)}")
            inner = self.arguments(rec.name, slots(rec.fields), v, path, False)
            return "(" + " ".join(inner) + ")"
        if t.name in ("list", "set"):
            raise _Unwritable(path, "a list inside a list cannot be written in the notation")
        if isinstance(v, bool):
            if t.name != "bool":
                raise _Unwritable(path, f"expected {t}, found {_kind(v)}")
            return "true" if v else "false"
        if isinstance(v, int):
            if t.name != "int":
                raise _Unwritable(path, f"expected {t}, found {_kind(v)}")
            return str(v)
        if not isinstance(v, str):
            raise _Unwritable(path, f"expected {t}, found {_kind(v)}")
        retyped = (t.name == "int" and _INT.fullmatch(v)) or (
            t.name == "bool" and v in ("true", "false")
        )
        if _BARE.fullmatch(v) and v not in ("-", "~") and not retyped:
            return v
        return json.dumps(v, ensure_ascii=False)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    return {dict: "a mapping", list: "a list", str: "text", int: "a number"}.get(
        type(value), type(value).__name__
    ) + (f" {value!r}" if isinstance(value, (str, int)) else "")


def _yaml_comments(doc: Document) -> list[tuple[str, str, int | str, str]]:
    """The YAML record's comments on lines of their own, each before the header key or
    event that follows it (a comment inside a value goes before the next one)."""
    data = doc.data
    anchors: list[tuple[int, str, int | str]] = []
    for key in data:
        if key != "events":
            anchors.append((doc.span((key,)).line, "header", key))
    for i in range(len(data.get("events") or [])):
        anchors.append((doc.span(("events", i)).line, "event", i))
    anchors.sort(key=lambda a: a[0])
    out: list[tuple[str, str, int | str, str]] = []
    k = 0
    for n, line in enumerate(doc.text.splitlines(), 1):
        stripped = line.strip()
        if not stripped.startswith("#"):
            continue
        while k < len(anchors) and anchors[k][0] < n:
            k += 1
        if k < len(anchors):
            out.append(("before", anchors[k][1], anchors[k][2], _comment_text(stripped)))
        else:
            out.append(("before", "end", 0, _comment_text(stripped)))
    return out


def _comment_lines(
    comments: list[tuple[str, str, int | str, str]], kind: str, key: int | str, indent: str = ""
) -> list[str]:
    return [
        f"{indent}# {text}".rstrip()
        for place, k, x, text in comments
        if place == "before" and k == kind and x == key
    ]


def _after(comments: list[tuple[str, str, int | str, str]], kind: str, key: int | str) -> str:
    texts = [t for place, k, x, t in comments if place == "after" and k == kind and x == key]
    return "".join(f"  # {t}" for t in texts)


def compact_setup(words: Words, data: dict[str, Any], where: Any) -> tuple[str, int, int] | None:
    """A set-up the record's events spell out in full, one after another, as the spec's
    definition gives them: its name, where it starts and how many events it takes."""
    events = data.get("events") or []
    for name in sorted(words.setups()):
        try:
            expansion = expand(words, name, data, where, Span("", 0, 0))
        except RefereeError:
            continue
        n = len(expansion)
        if not n:
            continue
        for j in range(len(events) - n + 1):
            if events[j : j + n] == expansion:
                return name, j, n
    return None


def _header_lines(doc: Document, comments: list[tuple[str, str, int | str, str]]) -> list[str]:
    """A record's header, one `key: value` line each as written, with its comments; both
    forms write it alike."""
    lines: list[str] = []
    for key, value in doc.data.items():
        if key == "events":
            continue
        lines += _comment_lines(comments, "header", key)
        value = as_written(doc, (key,), value)
        lines.append(yaml_header(key, value) + _after(comments, "header", key))
    return lines


def to_notation(
    spec: Spec, doc: Document, comments: list[tuple[str, str, int | str, str]] | None = None
) -> str:
    """A record (already read, its shape checked) in the notation; refused, with the place,
    where the notation cannot say it as it is."""
    words = Words.of(spec)
    data = doc.data
    comments = _yaml_comments(doc) if comments is None else comments
    writer = _Writer(words)
    lines: list[str] = _header_lines(doc, comments)
    setup = compact_setup(words, data, header_where(data, doc.marks, doc.file))
    events = data["events"]
    i = 0
    try:
        while i < len(events):
            lines += _comment_lines(comments, "event", i)
            if setup is not None and i == setup[1]:
                for j in range(i + 1, i + setup[2]):
                    lines += _comment_lines(comments, "event", j)
                lines.append(f"setup: {setup[0]}" + _after(comments, "event", i))
                i += setup[2]
                continue
            ev = events[i]
            path: Path_ = ("events", i)
            if not isinstance(ev, dict):
                raise _Unwritable(path, "an event is a mapping")
            actions = [k for k in ev if k != "expect"]
            if len(actions) != 1:
                raise _Unwritable(path, "an event names one action")
            lines.append(
                writer.event(actions[0], ev[actions[0]], path) + _after(comments, "event", i)
            )
            for key, value in (ev.get("expect") or {}).items():
                value = as_written(doc, path + ("expect", key), value)
                lines.append(f"  expect {yaml_line(str(key), value)}")
            i += 1
    except _Unwritable as err:
        raise RefereeError(
            [Problem(doc.span(err.path), f"cannot be written in the notation: {err.message}")],
            {doc.file: doc.text},
        ) from None
    lines += _comment_lines(comments, "end", 0)
    text = "\n".join(lines) + "\n"
    _same(doc, parse_notation(spec, text, doc.file + SUFFIX).doc.data, "notation")
    return text


def to_yaml(spec: Spec, notation: Notation) -> str:
    """A notation record as YAML: the header as written, each event on a line of its own."""
    doc = notation.doc
    data = doc.data
    comments = notation.comments
    lines: list[str] = _header_lines(doc, comments)
    lines.append("events:" if data["events"] else "events: []")
    for i, ev in enumerate(data["events"]):
        lines += _comment_lines(comments, "event", i, "  ")
        ((action, args),) = ((k, v) for k, v in ev.items() if k != "expect")
        lines.append(f"  - {yaml_line(action, args)}" + _after(comments, "event", i))
        if "expect" in ev:
            lines.append("    expect:")
            lines += [
                f"      {yaml_line(str(k), as_written(doc, ('events', i, 'expect', k), v))}"
                for k, v in ev["expect"].items()
            ]
    lines += _comment_lines(comments, "end", 0)
    text = "\n".join(lines) + "\n"
    _same(doc, parse_document(text, doc.file).data, "YAML")
    return text


def _same(doc: Document, written: Any, form: str) -> None:
    """What was written reads back as what was given, or the place where it does not."""
    data = doc.data
    if written == data:
        return
    path: Path_ = ()
    for key in [*data, *written]:
        if key != "events" and data.get(key) != written.get(key):
            path = (key,)
            break
    else:
        ours, theirs = data.get("events") or [], written.get("events") or []
        k = next(
            (k for k, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), len(ours)
        )
        path = ("events", min(k, max(len(ours) - 1, 0)))
    raise RefereeError(
        [Problem(doc.span(path), f"cannot be written in the {form} without changing it here")],
        {doc.file: doc.text},
    )


def convert(spec: Spec, path: Source, to: str | None = None) -> str:
    """A record (a file, standard input ``-``, or a text) in the other form (or the one
    ``to`` names: yaml or notation). A file is in the notation by its suffix (.rec), a text
    or standard input by its look."""
    if is_notation_source(path):
        notation = (
            read_notation(spec, path)
            if isinstance(path, str | Path) and not is_stdin(path)
            else Notation(notation_document(spec, path))
        )
        if to == "notation":
            return to_notation(spec, notation.doc, notation.comments)
        return to_yaml(spec, notation)
    if isinstance(path, RecordText):
        doc = path.document()
    elif is_stdin(path):
        doc = parse_document(stdin_text(), STDIN_NAME)
    else:
        doc = parse_document(record_text(path), str(path))  # the text its game was read from
    if doc.data is None:
        raise RefereeError([Problem(doc.span(()), "the record is empty")], {doc.file: doc.text})
    validate(doc, spec.game_dir.parent / "schema" / RECORD_SCHEMA)
    if to == "yaml":
        return to_yaml(spec, Notation(doc, _yaml_comments(doc)))
    return to_notation(spec, doc)
