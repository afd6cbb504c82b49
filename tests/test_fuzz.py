"""Hostile and random records: every one ends in a located message (exit 2) or a rules
verdict (0 or 1) - never a traceback, an internal error or a hang."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli import main
from tests.referee_helpers import example

WEEKS = example("weeks-1-2.yaml")
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

NAMES = [
    "game",
    "events",
    "position",
    "procedure",
    "state",
    "by",
    "cards",
    "blocks",
    "at",
    "to",
    "groups",
    "path",
    "from",
    "deal",
    "move",
    "movement",
    "choice",
    "bid",
    "card",
    "tokugawa",
    "ishida",
    "Kyoto",
    "Edo",
    "ukita-2",
    "mori",
    "total",
    "sekigahara",
    "week",
    "units_at",
]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 100), st.sampled_from(NAMES), st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(NAMES), inner, max_size=4)
    ),
    max_leaves=20,
)


def run(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str, str]:
    code = main(["check", str(path), *options])
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    assert "Traceback" not in err
    assert code in (0, 1, 2)
    return code, out, err


@SETTINGS
@given(text=st.text(max_size=300))
def test_random_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(text)
    code, _, err = run(path, capsys)
    if code == 2:
        assert err.split(":")[0] == str(path)  # located in the file


@SETTINGS
@given(data=values)
def test_random_structures(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    code, _, _ = run(path, capsys)
    if not (isinstance(data, dict) and "game" in data and "events" in data):
        assert code == 2  # the schema rejects it: never a verdict


@SETTINGS
@given(
    index=st.integers(0, len(WEEKS["events"]) - 1),
    value=values,
    drop=st.booleans(),
)
def test_mutated_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: int, value: Any, drop: bool
) -> None:
    record = copy.deepcopy(WEEKS)
    ((_, args),) = ((k, x) for k, x in record["events"][index].items() if k != "expect")
    keys = sorted(args)
    key = keys[(index * 7) % len(keys)]
    if drop:
        del args[key]
    else:
        args[key] = value
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(record))
    run(path, capsys, "--all")


@SETTINGS
@given(cut=st.integers(1, 4000))
def test_truncated_records(tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: int) -> None:
    text = (Path(__file__).resolve().parents[1] / "examples" / "weeks-1-2.yaml").read_text()
    path = tmp_path / "r.yaml"
    path.write_text(text[:cut])
    run(path, capsys)


def test_alias_bomb_is_refused_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    path = tmp_path / "bomb.yaml"
    path.write_text("game: sekigahara\n" + "\n".join(lines) + "\nevents: []\n")
    start = time.perf_counter()
    code, _, err = run(path, capsys)
    assert code == 2 and "aliases (&anchor / *alias) are not allowed" in err
    assert time.perf_counter() - start < 5


def test_a_50_mb_record_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("w") as f:
        f.write("game: sekigahara\nevents:\n")
        line = "  - deal: {by: tokugawa, cards: [tokugawa, tokugawa, maeda, date, fukushima]}\n"
        f.write(line * (50_000_000 // len(line)))
    start = time.perf_counter()
    code, _, err = run(path, capsys)
    assert code == 2 and "the limit is 16,777,216" in err
    assert time.perf_counter() - start < 5


def test_deep_nesting_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("game: sekigahara\nevents: " + "[" * 200 + "]" * 200 + "\n")
    code, _, err = run(path, capsys)
    assert code == 2 and "nesting deeper than 64 levels" in err


def test_json_output_is_byte_identical(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).resolve().parents[1] / "examples" / "weeks-1-2.yaml"
    outputs = set()
    for _ in range(3):
        assert main(["check", str(path), "--format", "json"]) == 0
        outputs.add(capsys.readouterr().out)
    assert len(outputs) == 1


# Pieces of YAML where the two parsers have been seen to differ, and others.
YAML_BITS = [*"?:-[]{},#&*!|>'\"%@` \n abc1.\r\t+~", "\n  ", ": ", "- ", "? ", "\u00e9"]
YAML_BITS += ["\x85", "\u2028", "\ufeff", "\x00", "null", "'a'", '"b"', "\n- ", "{a: ", "[1, "]
YAML_BITS += ["|#", ">#", "|-", ">+", "\n\t", "! ", "&a ", "*a"]


def _read(text: str) -> tuple[Any, Any]:
    """What the referee reads from a text: the values and their positions, or the error."""
    from referee.data import source
    from referee.errors import RefereeError

    try:
        doc = source.parse_document(text, "r")
    except RefereeError as err:
        return "error", [(p.span.line, p.span.column, p.message) for p in err.problems]
    return doc.data, doc.marks


@pytest.mark.skipif(
    getattr(yaml, "CSafeLoader", None) is None, reason="PyYAML was built without libyaml here"
)
@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=values,
    style=st.sampled_from(["yaml", "json", "flow", "text"]),
    text=st.lists(st.sampled_from(YAML_BITS), max_size=30).map("".join) | st.text(max_size=40),
)
def test_both_yaml_parsers_read_a_record_alike(
    monkeypatch: pytest.MonkeyPatch, data: Any, style: str, text: str
) -> None:
    """libyaml reads what it can; what the referee then reads (values and positions, or the
    error and where it is) is what the pure-Python parser alone gives."""
    from referee.data import source

    doc = {
        "yaml": lambda: yaml.safe_dump(data),
        "json": lambda: json.dumps(data, indent=1),
        "flow": lambda: yaml.safe_dump(data, default_flow_style=True),
        "text": lambda: text,
    }[style]()
    fast = _read(doc)
    with monkeypatch.context() as m:
        m.setattr(source, "_FAST_LOADER", None)
        assert _read(doc) == fast
