"""The Python API (referee/api.py, docs/api.md): a record as a path, a text or a mapping is
judged as the file is; bad input raises a located InputError and prints nothing; the results
are what the commands print."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

import referee
from referee.cli import main
from tests.referee_helpers import EXAMPLES, ROOT, verdict_of

RECORDS = sorted(p.relative_to(ROOT).as_posix() for p in EXAMPLES.rglob("*.yaml"))


class _Loader(yaml.CSafeLoader):  # libyaml reads, the resolvers below resolve
    """YAML as a program building a record would mean it: `illegal: 8.10` names clause 8.10,
    which PyYAML alone reads as the number 8.1 (the referee reads a record's own text)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:float"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def _judged(data: dict[str, Any]) -> dict[str, Any]:
    """A verdict's JSON without where things sit in the file (a mapping is judged as its
    JSON text, laid out otherwise than the YAML file)."""
    out = json.loads(json.dumps(data))
    out.pop("file")
    for v in out["violations"]:
        v.pop("line"), v.pop("column")
    for o in out["outcomes"]:
        o.pop("line")
    return out


def test_the_examples_are_many() -> None:
    assert len(RECORDS) > 50 and "examples/weeks-1-2.yaml" in RECORDS


@pytest.mark.parametrize("path", RECORDS)
def test_a_text_or_a_mapping_is_judged_as_the_file(path: str) -> None:
    game = referee.load_game()
    from_file = referee.check(path, game=game, keep_going=True)
    text = Path(path).read_text(encoding="utf-8")
    from_text = referee.check(text, game=game, keep_going=True, name=path)
    assert from_text.as_json() == from_file.as_json()
    assert from_text.text == from_file.text
    mapping = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    from_mapping = referee.check(mapping, game=game, keep_going=True)
    assert from_mapping.file == "<mapping>"
    assert _judged(from_mapping.as_json()) == _judged(from_file.as_json())


def test_the_verdict_is_what_check_prints(capsys: pytest.CaptureFixture[str]) -> None:
    path = "examples/illegal/movement-too-far.yaml"
    verdict = referee.check(path)
    assert capsys.readouterr() == ("", "")  # the API prints nothing
    assert _cli(capsys, "check", path) == (1, verdict.text + "\n")
    code, out = _cli(capsys, "check", path, "--format", "json")
    assert (code, verdict_of(out)) == (1, verdict.as_json())
    (v,) = verdict.violations
    assert (v.event, v.line, v.column, v.cites, v.label) == (
        2,
        18,
        5,
        v.clause + "/" + v.label,
        "within-allowance",
    )
    # a verdict relies on an overlay only where it decides: Ishida holds Osaka, so its capital
    # leads on either reading of D-capital-lead, and the cards paid are no loyalty cards
    assert v.relied_on == ()
    assert verdict.relied_on == ()
    # the stack moved twice: the violation relies on D-stack-once, the verdict on D-capitals too
    twice = referee.check("examples/illegal/stack-moved-twice.yaml")
    assert [w.relied_on for w in twice.violations] == [("D-stack-once",)]
    assert twice.relied_on == ("D-capitals", "D-stack-once")
    assert "distance = 3" in v.numbers and len(v.alternatives) == 5


def test_keep_going_finds_every_illegal_event() -> None:
    record = yaml.safe_load((EXAMPLES / "illegal" / "movement-too-far.yaml").read_text())
    move = record["events"][1]
    del move["expect"]
    record["events"].append(json.loads(json.dumps(move)))
    first = referee.check(record)
    every = referee.check(record, keep_going=True)
    assert [v.event for v in first.violations] == [2]
    assert sorted({v.event for v in every.violations}) == [2, 3]
    assert (every.violations[0].cites, every.violations[0].message) == (
        first.violations[0].cites,
        first.violations[0].message,
    )
    assert not first.violations[0].as_expected


def test_outcomes_and_standing_rules_per_event() -> None:
    verdict = referee.check("examples/disputes/kuwana-overrun.yaml")
    assert verdict.legal
    (outcome,) = verdict.outcomes
    assert [t.cites for t in outcome.told] == ["7.3.3/allowance", "4.2/claim", "7.4.2/overrun"]
    assert outcome.told[2].values["destroyed"] == ["ukita-2"]
    assert [(f.event, f.rule, dict(f.at)) for f in verdict.fired] == [
        (1, "7.4.2/overrun", {"l": "Kuwana", "s": "tokugawa"})
    ]


def test_a_str_is_a_path_unless_it_is_a_text(tmp_path: Path) -> None:
    # one line starting with `{`: the text of a record in JSON
    compact = json.dumps(yaml.safe_load((EXAMPLES / "weeks-1-2.yaml").read_text()))
    assert "\n" not in compact
    assert referee.check(compact).file == "<string>"
    # a path, as a str or a Path; a missing one is a located error naming it
    assert referee.check(str(EXAMPLES / "weeks-1-2.yaml")).legal
    with pytest.raises(referee.RecordError) as err:
        referee.check("examples/no-such-record.yaml")
    assert err.value.problems[0].file == "examples/no-such-record.yaml"
    assert "cannot read file" in err.value.problems[0].message
    with pytest.raises(TypeError):
        referee.check(b"game: x\n")  # type: ignore[arg-type]


def test_errors_in_a_text_or_a_mapping_are_located_in_it() -> None:
    with pytest.raises(referee.RecordError) as err:
        referee.check("game: sekigahara\nevents: [\n", name="mine.yaml")
    (p,) = err.value.problems
    assert (p.file, p.line) == ("mine.yaml", 3)
    assert p.message.startswith("malformed YAML or JSON")
    assert str(err.value).startswith("mine.yaml:3:1: malformed YAML or JSON")
    with pytest.raises(referee.RecordError) as err:
        referee.check({"game": "sekigahara", "events": [{"move": {"by": "nobody"}}]})
    (p,) = err.value.problems
    assert (p.file, p.line, p.column) == ("<mapping>", 6, 15)
    assert str(err.value).splitlines()[1].strip() == '"by": "nobody"'  # the line, with a caret
    with pytest.raises(referee.RecordError) as err:
        referee.check({"game": "sekigahara", "events": [], "when": object()})
    assert err.value.problems[0].message.startswith("the record is not plain data")
    with pytest.raises(referee.RecordError) as err:
        referee.check({"game": "othello", "events": []})
    assert "this record is of 'othello'" in err.value.problems[0].message
    assert isinstance(err.value, referee.InputError)


def test_a_text_over_the_limit_or_not_utf8_is_refused_as_a_file_would_be() -> None:
    with pytest.raises(referee.RecordError) as err:
        referee.check("game: x\n" + "#" * (16 * 1024 * 1024))
    assert "over the limit of 16,777,216 bytes" in err.value.problems[0].message
    with pytest.raises(referee.RecordError) as err:
        referee.check("game: x\nevents: []\ntitle: \ud800\n")
    assert (err.value.problems[0].line, err.value.problems[0].column) == (3, 8)


def test_printings_and_overlays_named_in_the_call(capsys: pytest.CaptureFixture[str]) -> None:
    path = "examples/overlays/one-stack-twice.yaml"
    older = referee.check(path, printing="gmt-2011")
    assert older.printing == "gmt-2011" and "E-road-once" in older.overlays
    assert older.text + "\n" == _cli(capsys, "check", path, "--printing", "gmt-2011")[1]
    off = referee.check(path, no_overlays="decisions")  # a file's name: all it declares
    assert not any(o.startswith("D-") for o in off.overlays)
    with pytest.raises(referee.RecordError) as err:
        referee.check(path, printing="gmt-1600")
    (p,) = err.value.problems
    assert (p.file, p.message) == ("<arguments>", "unknown printing 'gmt-1600'")
    assert "<command line>" not in str(err.value)


def test_explain() -> None:
    x = referee.explain("7.3.1/no-pickup")
    assert (x.kind, x.topic) == ("clause", "7.3.1/no-pickup")
    assert x.as_json()["focus"]["name"] == "no-pickup"
    assert referee.explain("Kuwana").kind == "data"
    printing = referee.explain("gmt-2011")
    assert printing.kind == "printing" and printing.title
    with pytest.raises(referee.InputError) as err:
        referee.explain("size_penalti")
    assert "size_penalty" in str(err.value)


def test_show(capsys: pytest.CaptureFixture[str]) -> None:
    pos = referee.show("examples/weeks-1-2.yaml", after=27)
    assert (pos.at, pos.after) == (28, 27) and pos.event is not None
    assert pos.text + "\n" == _cli(capsys, "show", "examples/weeks-1-2.yaml", "--after", "27")[1]
    assert referee.show("examples/weeks-1-2.yaml", at=28).state == pos.state
    with pytest.raises(referee.RecordError) as err:
        referee.show("examples/weeks-1-2.yaml", at=61)
    assert "60 event(s)" in err.value.problems[0].message
    with pytest.raises(ValueError):
        referee.show("examples/weeks-1-2.yaml", at=2, after=1)


def test_compare(capsys: pytest.CaptureFixture[str]) -> None:
    path = "examples/overlays/one-stack-twice.yaml"
    c = referee.compare(path)
    assert c.text + "\n" == _cli(capsys, "compare", path)[1]
    assert c.base == "printing gmt-later" and len(c.variants) == 45
    (d,) = c.differences
    assert (d.variant, d.event, d.base, d.other) == (
        "printing gmt-2011",
        2,
        "illegal 7.3.1/segment-once",
        "legal",
    )


def test_games_by_name_by_directory_and_with_data(tmp_path: Path) -> None:
    bundled = referee.load_game()
    assert referee.load_game("sekigahara") == bundled
    assert bundled.directory.is_relative_to(Path(referee.__file__).parent)
    copy = tmp_path / "spec"
    shutil.copytree(bundled.directory.parent, copy)
    text = (copy / "sekigahara" / "clauses" / "07-movement.rules").read_text()
    old = "const overrun_ratio: int = 4"
    assert old in text
    (copy / "sekigahara" / "clauses" / "07-movement.rules").write_text(
        text.replace(old, "const overrun_ratio: int = 5")
    )
    mine = referee.load_game(copy / "sekigahara")
    assert mine.directory == (copy / "sekigahara").resolve()
    # four blocks against one no longer overrun: the dispute's record says otherwise
    verdict = referee.check("examples/disputes/kuwana-overrun.yaml", game=mine)
    assert not verdict.legal and verdict.violations[0].kind == "expectation"
    assert (
        referee.check("examples/disputes/kuwana-overrun.yaml", game=str(copy / "sekigahara")).text
        == verdict.text
    )
    data = tmp_path / "data"
    data.mkdir()
    (data / "cards.yaml").write_text("schema: cards\n")
    with pytest.raises(referee.SpecError) as err:
        referee.load_game(data=data)
    assert err.value.problems[0].file.endswith("cards.yaml")
    with pytest.raises(referee.SpecError) as err:
        referee.load_game(tmp_path / "nowhere")
    assert "the bundled games: fierce-battle, sekigahara" in str(err.value)
