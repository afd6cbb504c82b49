"""Validate a loaded document against a JSON Schema, locating each error."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
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
        cls = validators.extend(cls, keywords)
    errors = sorted(
        cls(schema).iter_errors(doc.data), key=lambda e: [str(p) for p in e.absolute_path]
    )
    out = []
    for err in errors[:limit]:
        if err.context:  # within a oneOf/anyOf the most specific sub-error says more
            err = best_match(err.context)
        path = tuple(err.absolute_path)
        out.append(
            Problem(doc.span(path), f"{show_path(path)}: {describe(err)}", f"see {schema_path.name}")
        )
    return out


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
        allowed = ", ".join(map(repr, err.validator_value))
        return f"{err.instance!r} is not one of {allowed}"
    if err.validator == "const":
        return f"{err.instance!r} should be {err.validator_value!r}"
    if err.validator == "type":
        return f"expected {err.validator_value}, found {type(err.instance).__name__} {err.instance!r}"
    return err.message
