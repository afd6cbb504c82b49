"""Validate a loaded document against a JSON Schema, locating each error."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from difflib import get_close_matches
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.data.limits import read_text
from referee.data.source import Document, show_path
from referee.errors import Problem, RefereeError, Span
from referee.text import clip, shown

if TYPE_CHECKING:  # jsonschema is imported where a schema is checked: see validate
    import jsonschema

Keyword = Callable[[Any, Any, Any, Any], Iterator["jsonschema.ValidationError"]]


MAX_SCHEMA_BYTES = 1024 * 1024
MAX_PATTERN = 200  # characters of a schema's regular expression


@lru_cache(maxsize=32)
def load_schema(path: Path) -> dict[str, Any]:
    """A JSON Schema, checked, and refused if a regular expression in it could take
    exponential time (a repeated group that repeats or alternates inside, a backreference)."""
    import jsonschema
    from jsonschema import validators

    text = read_text(path, MAX_SCHEMA_BYTES, "schema")
    try:
        schema: dict[str, Any] = json.loads(text)
        validators.validator_for(schema).check_schema(schema)
    except (ValueError, RecursionError, jsonschema.SchemaError) as err:
        message = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        raise RefereeError(
            [Problem(Span(str(path), 1, 1), f"cannot load schema: {shown(message)}")]
        ) from None
    for pattern in _patterns(schema):
        if len(pattern) > MAX_PATTERN or _RISKY.search(pattern):
            at = text.find(json.dumps(pattern)[1:-1])
            line = text.count("\n", 0, at) + 1 if at >= 0 else 1
            raise RefereeError(
                [
                    Problem(
                        Span(str(path), line, 1),
                        f"pattern {shown(pattern, 80)!r} could take exponential time: a"
                        " repeated group that repeats or alternates inside, a backreference,"
                        f" or over {MAX_PATTERN} characters",
                    )
                ]
            )
    return schema


# A group holding a quantifier or an alternation, itself quantified; or a backreference.
_RISKY = re.compile(r"\((?:[^()]|\\.)*[*+?{|](?:[^()]|\\.)*\)\s*[*+?{]|\\[1-9]|\(\?P=")


def _patterns(schema: Any) -> Iterator[str]:
    """Every regular expression in a schema: ``pattern`` values and ``patternProperties``
    keys (walked without recursion)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            if isinstance(node.get("patternProperties"), dict):
                yield from (k for k in node["patternProperties"] if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def problems(
    doc: Document,
    schema_path: Path,
    keywords: dict[str, Keyword] | None = None,
    limit: int = 20,
) -> list[Problem]:
    """Each schema error as a Problem at the bad field's line and column."""
    from jsonschema import validators
    from jsonschema.exceptions import best_match

    schema = load_schema(schema_path)
    cls = validators.validator_for(schema)
    if keywords:
        cls = validators.extend(cls, keywords)  # type: ignore[no-untyped-call]
    errors = sorted(
        cls(schema).iter_errors(doc.data), key=lambda e: [str(p) for p in e.absolute_path]
    )
    out = []
    for err in errors[:limit]:
        nullable = False
        if err.context:  # within a oneOf/anyOf the most specific sub-error says more
            rest = [e for e in err.context if not _is_null_branch(e)]
            nullable = len(rest) < len(err.context)
            err = best_match(rest or err.context)
        path = tuple(err.absolute_path)
        message = describe(err) + (" (or null)" if nullable else "")
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            props = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
            allowed = set(props)
            extra = sorted(k for k in err.instance if k not in allowed)
            if extra:
                path = path + (extra[0],)
                message = f"unknown field '{extra[0]}'"
                close = get_close_matches(extra[0], sorted(allowed), n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"see {schema_path.name}"
                out.append(
                    Problem(_key_span(doc, path), f"{show_path(path[:-1])}: {message}", hint)
                )
                continue
        out.append(
            Problem(doc.span(path), f"{show_path(path)}: {message}", f"see {schema_path.name}")
        )
    return out


def _is_null_branch(err: jsonschema.ValidationError) -> bool:
    return err.validator == "type" and err.validator_value == "null"


def _key_span(doc: Document, path: tuple[str | int, ...]) -> Span:
    """Where a mapping's key sits: its value's line, at the key's own column if we can find it."""
    span = doc.span(path)
    lines = doc.text.splitlines()
    line_text = lines[span.line - 1] if 1 <= span.line <= len(lines) else ""
    col = line_text.find(str(path[-1]))
    return Span(span.file, span.line, col + 1 if col >= 0 else span.column)


def validate(doc: Document, schema_path: Path) -> None:
    """The document meets the schema, or every problem is raised, located. The common case
    (a record of a few events, a schema of the keywords ``surely_meets`` knows) is decided
    without jsonschema, whose import alone costs more than judging a short record; anything
    else, and every document that does not meet the schema, goes to jsonschema."""
    plain = _schema_json(schema_path)
    if plain is not None and surely_meets(plain, doc.data) is True:
        return
    found = problems(doc, schema_path)
    if found:
        raise RefereeError(found, {doc.file: doc.text})


@lru_cache(maxsize=32)
def _schema_json(path: Path) -> Any:
    """A schema file's JSON, or None where it does not read (load_schema then says why)."""
    try:
        return json.loads(read_text(path, MAX_SCHEMA_BYTES, "schema"))
    except (RefereeError, ValueError, RecursionError):
        return None


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_NOTES = {"$schema", "$comment", "title", "description"}  # annotations: they assert nothing
_SIZES = {
    "minLength": (str, 1),
    "maxLength": (str, -1),
    "minItems": (list, 1),
    "maxItems": (list, -1),
    "minProperties": (dict, 1),
    "maxProperties": (dict, -1),
}
_KNOWN = _NOTES | set(_SIZES) | {"type", "properties", "required", "additionalProperties"}
_KNOWN |= {"items", "if", "then", "else"}


def surely_meets(schema: Any, value: Any) -> bool | None:
    """Whether ``value`` meets ``schema`` (JSON Schema 2020-12): True or False where that is
    sure, None where a keyword is not among the few this knows, or not written as they are
    (jsonschema then decides). Values are as the referee's YAML and JSON loaders give them.
    The first keyword not surely met decides: a list over its bound is not walked."""
    for verdict in _verdicts(schema, value):
        if verdict is not True:
            return verdict
    return True


def _verdicts(schema: Any, value: Any) -> Iterator[bool | None]:  # noqa: C901 - one a keyword
    if isinstance(schema, bool):
        yield schema
        return
    if not isinstance(schema, dict) or not set(schema) <= _KNOWN:
        yield None
        return
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not all(isinstance(k, str) and k in _TYPES for k in kinds):
            yield None
            return
        yield any(_TYPES[k](value) for k in kinds)
    for word, (holder, sign) in _SIZES.items():
        bound = schema.get(word)
        if bound is None:
            continue
        if not isinstance(bound, int) or isinstance(bound, bool) or bound < 0:
            yield None
            return
        if isinstance(value, holder):
            yield len(value) >= bound if sign > 0 else len(value) <= bound
    if isinstance(value, dict):
        yield from _object_meets(schema, value)
    items = schema.get("items")
    if items is not None and isinstance(value, list):
        if not isinstance(items, (dict, bool)):
            yield None
            return
        yield from (surely_meets(items, v) for v in value)
    if "if" in schema:
        holds = surely_meets(schema["if"], value)
        branch = schema.get("then" if holds else "else", True) if holds is not None else None
        yield None if branch is None else surely_meets(branch, value)


def _object_meets(schema: dict[str, Any], value: dict[str, Any]) -> Iterator[bool | None]:
    props = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(props, dict) or not isinstance(required, list):
        yield None
        return
    if not all(isinstance(r, str) for r in required) or not isinstance(extra, (dict, bool)):
        yield None
        return
    yield all(r in value for r in required)
    yield from (surely_meets(props.get(k, extra), v) for k, v in value.items())


def describe(err: jsonschema.ValidationError) -> str:
    if err.validator == "required":
        return err.message.replace("is a required property", "is missing (required)")
    if err.validator == "additionalProperties":
        return err.message.replace("Additional properties are not allowed", "unknown field")
    if err.validator == "enum":
        allowed = ", ".join(repr(v) for v in err.validator_value)  # type: ignore[union-attr]
        return f"{_value(err.instance)} is not one of {clip(allowed)}"
    if err.validator == "const":
        return f"{_value(err.instance)} should be {_value(err.validator_value)}"
    if err.validator == "type":
        wanted = err.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return f"expected {wanted}, found {_json_kind(err.instance)} {_value(err.instance)}"
    if err.validator in ("maxItems", "minItems", "maxLength", "minLength"):
        size = len(err.instance) if hasattr(err.instance, "__len__") else 0
        bound = "at most" if err.validator.startswith("max") else "at least"
        unit = "characters" if err.validator.endswith("Length") else "items"
        return f"{size:,} {unit}; {bound} {err.validator_value:,} allowed"
    if err.validator in ("maxProperties", "minProperties"):
        size = len(err.instance) if hasattr(err.instance, "__len__") else 0
        bound = "at most" if err.validator.startswith("max") else "at least"
        bound += " allowed" if err.validator.startswith("max") else " needed"
        what = err.schema.get("description", "") if isinstance(err.schema, dict) else ""
        return f"{size} field(s); {bound}: {err.validator_value}" + (f" ({what})" if what else "")
    return clip(err.message)


def _value(v: Any) -> str:
    """A value as a message shows it: its repr, never a whole long list or text."""
    if isinstance(v, (list, dict)) and len(v) > 50:
        return f"{_json_kind(v)} of {len(v):,} items"
    if isinstance(v, str) and len(v) > 1000:
        return f"{v[:200]!r}... ({len(v):,} characters)"
    return clip(repr(v))


def _json_kind(value: object) -> str:
    """The JSON Schema name of a value's type, as the schema's own words say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "list", str: "string", int: "integer", float: "number"}.get(
        type(value), type(value).__name__
    )
