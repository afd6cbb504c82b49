"""Every command's ``--format json`` has one shape, the versioned envelope of
referee/schema/output.schema.json (also published as docs/output.schema.json): each command
is run here and its output validated against the schema."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from referee.cli import build_parser, main
from referee.output import FORMAT, VERSION, schema
from tests.referee_helpers import EXAMPLES, ROOT

VALIDATOR = jsonschema.Draft202012Validator

# every command with a JSON output, and the exit code each of these runs must give
RUNS: list[tuple[list[str], int]] = [
    (["clauses"], 0),
    (["overlays"], 0),
    (["explain", "7.4.2/overrun"], 0),
    (["explain", "size_penalty"], 0),
    (["explain", "D-overrun-castle"], 0),
    (["explain", "gmt-2011"], 0),
    (["explain", "file:savarese-2014"], 0),
    (["explain", "data:Kyoto"], 0),
    (["explain", "Kuwanna"], 2),
    (["check", str(EXAMPLES / "combat-example.yaml")], 0),
    (["check", str(EXAMPLES / "illegal" / "movement-too-far.yaml")], 1),
    (["check", str(EXAMPLES / "illegal")], 1),
    (["check", str(EXAMPLES / "no-such-record.yaml")], 2),
    (["show", str(EXAMPLES / "combat-example.yaml"), "--at", "3"], 0),
    (["show", str(EXAMPLES / "illegal" / "movement-too-far.yaml"), "--after", "2"], 1),
    (
        ["moves", str(EXAMPLES / "weeks-1-2.yaml"), "--at", "28", "--stack", "Edo", "--to", "Saku"],
        0,
    ),
    (["moves", str(EXAMPLES / "weeks-1-2.yaml"), "--at", "3", "--all", "--limit", "30"], 0),
    (
        [
            "moves",
            str(EXAMPLES / "weeks-1-2.yaml"),
            "--at",
            "28",
            "--stack",
            "Edo",
            "--to",
            "Kyoto",
        ],
        1,
    ),
    (["moves", str(EXAMPLES / "weeks-1-2.yaml"), "--at", "999"], 2),
    (["compare", str(EXAMPLES / "overlays" / "one-stack-twice.yaml")], 0),
    (["compare", "--games", "1", "--weeks", "1"], 0),
    (["compare"], 2),
    (["prove"], 0),
    (["spec", "check"], 0),
    (["play", "--games", "2", "--weeks", "1", "--out", "{tmp}"], 0),
    (["play", "--coverage", "--games", "1", "--weeks", "1"], 0),
    (["play", "--games", "2"], 2),
]


def _json_commands() -> set[str]:
    """The commands whose --format offers json, read off the parser itself."""
    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prefix} {name}".strip())
            elif "--format" in action.option_strings and "json" in (action.choices or ()):
                found.add(prefix)

    walk(build_parser(), "")
    return found


def test_the_schema_is_valid_and_published_in_docs() -> None:
    VALIDATOR.check_schema(schema())
    published = json.loads((ROOT / "docs" / "output.schema.json").read_text())
    assert published == schema(), "docs/output.schema.json differs from the package's"
    assert schema()["properties"]["version"] == {"const": VERSION}


def test_every_command_with_json_is_run_here() -> None:
    run = {" ".join(a[:2]) if a[0] == "spec" else a[0] for a, _ in RUNS}
    assert _json_commands() == run
    assert set(schema()["properties"]["command"]["enum"]) == run


@pytest.mark.parametrize(
    ("argv", "code"), RUNS, ids=lambda x: " ".join(x)[:60] if isinstance(x, list) else str(x)
)
def test_every_command_s_json_validates(
    argv: list[str],
    code: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    if argv == ["prove"]:  # the bundled spec's proof, shared with the other tests (conftest.py)
        request.getfixturevalue("shared_proofs")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main([*argv, "--format", "json"]) == code
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    errors = sorted(VALIDATOR(schema()).iter_errors(out), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message[:200]}" for e in errors[:5]]
    command = " ".join(argv[:2]) if argv[0] == "spec" else argv[0]
    assert (out["format"], out["version"], out["command"]) == (FORMAT, VERSION, command)
    assert (out["exit_code"], out["ok"]) == (code, code == 0)
    if code == 2 and argv[0] != "check" or "no-such-record" in " ".join(argv):
        assert out["result"] is None and out["errors"][0]["message"]


def test_one_record_and_a_folder_give_the_same_shape(capsys: pytest.CaptureFixture[str]) -> None:
    """check's result is a list of records with their counts, for one record as for many."""
    one = EXAMPLES / "illegal" / "movement-too-far.yaml"
    assert main(["check", str(one), "--format", "json"]) == 1
    alone = json.loads(capsys.readouterr().out)["result"]
    assert main(["check", str(one.parent), "--format", "json"]) == 1
    many = json.loads(capsys.readouterr().out)["result"]
    (only,) = alone["records"]
    assert only == next(r for r in many["records"] if r["file"] == str(one))
    assert (
        only["status"] == "illegal" and only["violations"][0]["cites"] == "7.3.3/within-allowance"
    )
    assert alone["summary"] == {
        "records": 1,
        "legal": 0,
        "illegal": 1,
        "bad input": 0,
        "skipped": 0,
        "illegal by clause": {"7.3.3/within-allowance": 1},
    }


def test_a_schema_mismatch_is_caught() -> None:
    """The schema is not a formality: a result missing a key, or of another command's shape,
    fails it."""
    ok = {"format": FORMAT, "version": VERSION, "command": "prove", "exit_code": 0, "ok": True}
    good = {**ok, "result": {"runs": []}, "errors": []}
    VALIDATOR(schema()).validate(good)
    for bad in (
        {**good, "result": {"records": [], "skipped": [], "summary": {}}},
        {**good, "result": None},
        {**good, "version": 2},
        {**good, "exit_code": 2},
        {**good, "errors": [{"file": "x", "line": 1, "column": 1, "message": "m"}]},
    ):
        assert not VALIDATOR(schema()).is_valid(bad), bad


def test_quiet_json_prints_nothing_but_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "combat-example.yaml"), "--format", "json", "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["explain", "Kuwanna", "--format", "json", "-q"]) == 2
    assert json.loads(capsys.readouterr().out)["errors"][0]["hint"]


@pytest.mark.parametrize(
    ("argv", "command", "message"),
    [
        (["prove", "--format", "json", "--timeout", "abc"], "prove", "argument --timeout:"),
        (["check", "--format=json", "--bogus", "x.yaml"], "check", "unrecognized arguments"),
        (["spec", "check", "--format", "json", "--nope"], "spec check", "unrecognized arguments"),
        (["prove", "--format", "json", "-q", "-v"], "prove", "give -q (nothing but errors)"),
    ],
)
def test_a_usage_error_asked_in_json_is_an_envelope(
    argv: list[str], command: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """What argparse refuses comes in the envelope too when JSON is asked for (exit 2)."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    assert code == 2
    out = json.loads(capsys.readouterr().out)
    VALIDATOR(schema()).validate(out)
    assert (out["command"], out["exit_code"], out["result"]) == (command, 2, None)
    assert out["errors"][0]["file"] == "<command line>"
    assert out["errors"][0]["message"].startswith(message)
