"""Build records from the examples, changed one event at a time, and judge them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from referee.cli import main
from referee.output import schema

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

Events = list[dict[str, Any]]


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((EXAMPLES / name).read_text())
    return data


def judge(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    record: dict[str, Any] | str,
    *options: str,
) -> tuple[int, Any]:
    """Run `referee check --format json` on a record; return the exit code and the output."""
    path = tmp_path / "record.yaml"
    path.write_text(record if isinstance(record, str) else yaml.safe_dump(record, sort_keys=False))
    code = main(["check", str(path), "--format", "json", *options])
    out = capsys.readouterr().out
    return code, verdict_of(out) if out.strip() else None


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    """The output schema's validator, the schema checked once: ``jsonschema.validate`` checks
    the schema against its metaschema at every call, which cost a second of every output
    validated (nine tenths of a test judging hundreds of records)."""
    jsonschema.Draft202012Validator.check_schema(schema())
    return jsonschema.Draft202012Validator(schema())


def output(text: str) -> Any:
    """A command's ``--format json`` output, checked against the published schema: its
    result, or the whole envelope when the command stopped on bad input (its ``errors``)."""
    data = json.loads(text)
    error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if error is not None:  # as jsonschema.validate raises it
        raise error
    return data if data["result"] is None else data["result"]


def verdict_of(text: str) -> Any:
    """``referee check --format json`` of one record: its verdict (or the envelope, with
    its ``errors``, for bad input)."""
    data = output(text)
    if "records" not in data:
        return data
    (one,) = data["records"]
    return one


def mutate(record: dict[str, Any], change: Callable[[Events], None]) -> dict[str, Any]:
    """A changed copy of a record, without the example's expected outcomes (`expect:`),
    which are the answers to the record as it was."""
    changed = copy.deepcopy(record)
    for ev in changed["events"]:
        ev.pop("expect", None)
    change(changed["events"])
    return changed


def args(events: Events, number: int) -> dict[str, Any]:
    """The arguments of event ``number`` (1-based, as the referee counts)."""
    ((_, a),) = ((k, x) for k, x in events[number - 1].items() if k != "expect")
    return a  # type: ignore[no-any-return]


def assert_illegal_at(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    record: dict[str, Any],
    number: int,
    cites: str,
    *options: str,
) -> dict[str, Any]:
    """Judge a record and assert that its first illegal event is ``number``, citing ``cites``."""
    code, v = judge(tmp_path, capsys, record, *options)
    assert code == 1, v
    first = v["violations"][0]
    assert (first["index"], first["cites"]) == (number, cites), first["message"]
    return first  # type: ignore[no-any-return]


def position(
    procedure: str, active: str, state: dict[str, Any], events: list[Any]
) -> dict[str, Any]:
    return {
        "game": "sekigahara",
        "position": {"procedure": procedure, "args": {"active": active}, "state": state},
        "events": events,
    }


def move(by: str, start: str, *groups: tuple[list[str], list[str]]) -> dict[str, Any]:
    return {
        "move": {
            "by": by,
            "from": start,
            "groups": [{"blocks": blocks, "path": path} for blocks, path in groups],
        }
    }


def deploy(by: str, blocks: list[str], card: str | None = None, **more: Any) -> dict[str, Any]:
    return {"deploy": {"by": by, **({"card": card} if card else {}), "blocks": blocks, **more}}
