"""Validate a loaded document against a JSON Schema, locating each error."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from difflib import get_close_matches
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema import validators
from jsonschema.exceptions import best_match

from referee.data.source import Document, show_path
from referee.errors import Problem, RefereeError, Span

Keyword = Callable[[Any, Any, Any, Any], Iterator[jsonschema.ValidationError]]


@lru_cache(maxsize=32)
def load_schema(path: Path) -> dict[str, Any]:
    try:
        schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        validators.validator_for(schema).check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as err:
        raise RefereeError([Problem(Span(str(path), 1, 1), f"cannot load schema: {err}")]) from None
    return schema


def problems(
    doc: Document,
    schema_path: Path,
    keywords: dict[str, Keyword] | None = None,
    limit: int = 20,
) -> list[Problem]:
    """Each schema error as a Problem at the bad field's line and column."""
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
    found = problems(doc, schema_path)
    if found:
        raise RefereeError(found, {doc.file: doc.text})


def describe(err: jsonschema.ValidationError) -> str:
    if err.validator == "required":
        return err.message.replace("is a required property", "is missing (required)")
    if err.validator == "additionalProperties":
        return err.message.replace("Additional properties are not allowed", "unknown field")
    if err.validator == "enum":
        allowed = ", ".join(repr(v) for v in err.validator_value)  # type: ignore[union-attr]
        return f"{err.instance!r} is not one of {allowed}"
    if err.validator == "const":
        return f"{err.instance!r} should be {err.validator_value!r}"
    if err.validator == "type":
        wanted = err.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return f"expected {wanted}, found {_json_kind(err.instance)} {err.instance!r}"
    return err.message


def _json_kind(value: object) -> str:
    """The JSON Schema name of a value's type, as the schema's own words say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "list", str: "string", int: "integer", float: "number"}.get(
        type(value), type(value).__name__
    )
