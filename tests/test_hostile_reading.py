"""What the second, hostile reading found (an attacker who did not write the defences), kept as
tests: each reproducer gives a located, bounded error or the right verdict, never an internal
error. The user specs are in tests/hostile/."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from tests.referee_helpers import EXAMPLES, example, judge, output

HOSTILE = Path(__file__).resolve().parent / "hostile"


def spec_of(name: str) -> str:
    return str(HOSTILE / name / "spec" / "mini")


@pytest.mark.parametrize(
    "name,record,says",
    [
        ("stuck_start", "rec_mini.yaml", "the spec's rules loop here"),
        ("check_enter", "rec_mini.yaml", "the rules refuse where the record starts: 1.1/never"),
        ("loop_start", "rec_mini_pos.yaml", "standing rule 1.1/forever keeps firing"),
        (
            "flatten_bomb",
            "rec_mini.yaml",
            "a list of 1,000,000,000,000 items: the limit is 1,000,000",
        ),
        ("wide_whenever", "rec_mini.yaml", "ranges over 27,000,000 combinations"),
    ],
)
def test_a_user_spec_that_would_fail_is_said_where_it_fails(
    capsys: pytest.CaptureFixture[str], name: str, record: str, says: str
) -> None:
    code = main(["check", "--spec", spec_of(name), str(HOSTILE / record)])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "internal error" not in err, err


@pytest.mark.parametrize("name", ["overlay_cycle", "wide_whenever"])
def test_spec_check_refuses_what_would_fail(capsys: pytest.CaptureFixture[str], name: str) -> None:
    """Two overlays whose replacements call each other; a standing rule of 27 million instances."""
    assert main(["spec", "check", "--spec", spec_of(name)]) == 2
    err = capsys.readouterr().err
    assert ("part of a cycle" in err) or ("combinations" in err), err


def test_an_infinite_time_limit_is_a_day(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REFEREE_TIME_LIMIT", "inf")
    assert main(["check", str(EXAMPLES / "combat-example.yaml")]) == 0
    assert main(["check", str(EXAMPLES / "illegal")]) == 1
    capsys.readouterr()


def test_json_output_carries_nothing_raw(capsys: pytest.CaptureFixture[str]) -> None:
    """Controls, bidi overrides and line separators in a record reach JSON as escapes."""
    assert main(["check", str(HOSTILE / "c1_key_json.yaml"), "--format", "json"]) == 2
    out = capsys.readouterr().out
    assert out.isascii() and "\\u009b" in out and "\\u202e" in out
    assert output(out)["errors"]


def test_a_file_name_that_is_not_utf8_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    name = os.fsdecode(b"bad\xffname.yaml")
    (tmp_path / name).write_text((EXAMPLES / "combat-example.yaml").read_text())
    assert main(["check", str(tmp_path / name)]) == 0
    out = capsys.readouterr().out
    assert "bad\\udcffname.yaml: legal" in out
    out.encode("utf-8")  # printable on any UTF-8 terminal


@pytest.mark.parametrize("until", ["hand", "summary", '"a" + 1', "nothing.foo"])
def test_play_until_that_is_no_condition(capsys: pytest.CaptureFixture[str], until: str) -> None:
    assert main(["play", "--until", until]) == 2
    err = capsys.readouterr().err
    assert "--until cannot be evaluated as a condition" in err and "internal error" not in err


def test_a_hex_number_of_too_many_digits_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = "game: sekigahara\ntitle: 0x" + "f" * 250 + "\nevents: []\n"
    code, v = judge(tmp_path, capsys, record)
    assert code == 2 and "a number of more than 100 digits" in v["errors"][0]["message"]


def test_a_reinforcement_during_movement_is_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hostile reading's worst find: an ordinary illegal record gave an internal error."""
    rec = example("weeks-1-2.yaml")
    rec["events"] = rec["events"][:50] + [
        {"reinforce": {"by": "ishida", "discard": [], "cards": [], "blocks": []}}
    ]
    code, v = judge(tmp_path, capsys, rec)
    assert code == 1 and v["violations"][0]["cites"] == "6.2"
