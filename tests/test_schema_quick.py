"""The common case of a schema is decided without jsonschema (referee/data/schema.py's
``surely_meets``): where it says a document meets the schema, jsonschema finds no problem,
and where it says it does not, jsonschema finds one; anything it does not know it leaves to
jsonschema (None)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.data.schema import _schema_json, problems, surely_meets, validate
from referee.data.source import Document, load_document, parse_document
from referee.errors import RefereeError

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "referee" / "games" / "schema" / "record.schema.json"


def _agree(doc: Document, schema_path: Path = RECORD) -> bool | None:
    quick = surely_meets(_schema_json(schema_path), doc.data)
    found = problems(doc, schema_path)
    if quick is not None:
        assert quick == (not found), (doc.file, quick, found)
    return quick


def test_every_record_of_the_repository_is_decided_alike() -> None:
    files = sorted(ROOT.glob("examples/**/*.yaml")) + sorted(ROOT.glob("tests/**/*.yaml"))
    decided = [_agree(load_document(f)) for f in files]
    assert len(decided) > 400
    assert decided.count(True) > 300  # the common case needs no jsonschema


BASE = {"game": "g", "events": [{"move": {"by": "a"}, "expect": {"x": 1}}]}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = st.sampled_from(["game", "events", "title", "printing", "overlays", "position", "xx"])


@settings(max_examples=300, deadline=None)
@given(key=KEYS, value=JSON, inner=st.sampled_from(["move", "expect", "position", None]))
def test_records_made_wrong_are_decided_alike(key: str, value: Any, inner: str | None) -> None:
    data = copy.deepcopy(BASE)
    if inner is None:
        data[key] = value
    elif inner == "position":
        data["position"] = {"procedure": "p", key: value}
    else:
        data["events"][0][inner] = value  # type: ignore[index]
    _agree(Document("<test>", "", data, {}))


def test_what_it_does_not_know_is_left_to_jsonschema() -> None:
    assert surely_meets({"type": "number"}, 1) is None
    assert surely_meets({"pattern": "a+"}, "aa") is None
    assert surely_meets({"type": "array", "items": [{"type": "string"}]}, ["a"]) is None
    assert surely_meets({"type": "integer"}, True) is False  # a boolean is no integer
    assert surely_meets({"type": "object", "required": ["a"]}, {}) is False


def test_a_bad_record_still_gets_jsonschemas_located_problems() -> None:
    doc = parse_document("game: g\nevents:\n  - {}\n", "bad.yaml")
    try:
        validate(doc, RECORD)
    except RefereeError as err:
        (p,) = err.problems
        assert p.span.line == 3
        assert "0 field(s); at least needed: 1" in p.message
    else:
        raise AssertionError("an empty event passed the schema")
