"""The table notation (docs/notation.md): one event a line, read with the spec's own words,
converted to YAML and back without loss, judged exactly as the YAML it stands for, and every
bad line said where it is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee import resources
from referee.cli import main
from referee.compile.spec import SPEC_ROOT, Spec, load_spec
from referee.data.source import load_document, parse_document
from referee.records.notation import (
    NOTATION_GRAMMAR,
    SUFFIX,
    Words,
    abbreviations,
    forms,
    short_names,
)
from referee.records.notation_read import parse_notation
from referee.records.notation_write import to_notation, to_yaml
from referee.run.play import as_yaml, play
from tests.referee_helpers import EXAMPLES, ROOT, verdict_of

RECORDS = sorted(EXAMPLES.rglob("*.yaml"))
# the readings' records (a reading's own components, under its data/ folder, are not records)
READINGS = sorted(
    p for p in (ROOT / "tests" / "readings").rglob("*.yaml") if p.parent.name != "data"
)
DOC = ROOT / "docs" / "notation.md"


def notation_of(spec: Spec, path: Path) -> str:
    return to_notation(game_spec(spec, path), load_document(path))


def game_spec(spec: Spec, path: Path) -> Spec:
    """The spec of the bundled game a record names (the examples hold two games')."""
    name = yaml.safe_load(path.read_text())["game"]
    return spec if name == "sekigahara" else load_spec(SPEC_ROOT / name)


def data_of(spec: Spec, text: str, name: str = "game.rec") -> Any:
    return parse_notation(spec, text, name).doc.data


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("path", RECORDS + READINGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_record_goes_to_the_notation_and_back_unchanged(spec: Spec, path: Path) -> None:
    spec = game_spec(spec, path)
    original = load_document(path)
    text = to_notation(spec, original)
    assert data_of(spec, text) == original.data  # the same header and events
    back = to_yaml(spec, parse_notation(spec, text, "game.rec"))
    assert parse_document(back, "back.yaml").data == original.data
    assert to_notation(spec, parse_document(back, "back.yaml")) == text  # and again


def test_the_long_examples_are_short_in_the_notation(spec: Spec) -> None:
    for name in ("weeks-1-2.yaml", "full-game.yaml"):
        text = notation_of(spec, EXAMPLES / name)
        events = [ln for ln in text.splitlines() if re.match(r"[TI] ", ln)]
        assert text.count("setup: printed") == 1
        assert not any(ln.split()[1] in ("place", "place_mori") for ln in events)
        # every event a line, the printed set-up's seven placements one line
        n = len(yaml.safe_load((EXAMPLES / name).read_text())["events"])
        assert len(events) == n - 7


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_games_round_trip_and_stay_legal(
    spec: Spec, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = play(spec, seed, "week > 2").record(spec, seed)
    yaml_text = as_yaml(record)
    text = to_notation(spec, parse_document(yaml_text, "game.yaml"))
    assert data_of(spec, text) == record
    assert len(text.splitlines()) < len(yaml_text.splitlines()) / 2.5
    (tmp_path / "game.rec").write_text(text)
    code, out, _ = run(capsys, "check", str(tmp_path / "game.rec"))
    assert code == 0 and "legal" in out


def test_comments_go_along(spec: Spec) -> None:
    text = notation_of(spec, EXAMPLES / "weeks-1-2.yaml")
    assert "# Week 1: no reinforcement step (6.2); the bid (6.3)\nT bid date\n" in text
    text += "T bid date  # said at the table\n"
    back = to_yaml(spec, parse_notation(spec, text, "game.rec"))
    assert "  # Week 1: no reinforcement step (6.2); the bid (6.3)\n  - bid:" in back
    assert back.endswith("  - bid: {by: tokugawa, card: date}  # said at the table\n")


def test_a_clause_number_stays_as_written(spec: Spec) -> None:
    # YAML reads `8.10` as the number 8.1; the referee reads the clause from the text
    path = EXAMPLES / "illegal" / "draw-after-a-lone-overrun.yaml"
    text = notation_of(spec, path)
    assert text.endswith("  expect illegal: 8.10\n")
    assert "illegal: 8.10\n" in to_yaml(spec, parse_notation(spec, text, "x.rec"))


# ---------------------------------------------------------------- the spec's words


def test_the_words_are_the_specs(spec: Spec) -> None:
    words = Words.of(spec)
    assert set(words.actions) == spec.sym.event_actions()
    assert words.short == {"tokugawa": "T", "ishida": "I"}
    assert abbreviations(["white", "wolf", "black"]) == {"white": "WH", "wolf": "WO", "black": "B"}
    assert abbreviations(["a", "ab"]) == {"a": "A", "ab": "AB"}
    assert abbreviations(["x", "X"]) == {"x": "x", "X": "X"}  # capitals would not tell them apart
    assert short_names(["force_march", "pick_up", "path", "fm"]) == {"pick_up": "pu"}
    assert list(words.setups()) == ["printed"]


def test_the_notation_follows_the_specs_order_of_parameters(game_copy: Path, spec: Spec) -> None:
    line = "T muster A Edo tokugawa-2\n"
    before = data_of(spec, "game: sekigahara\n" + line)
    rules = game_copy / "clauses" / "07-movement.rules"
    text = rules.read_text()
    old = "allow muster(option: muster_option, to: location, blocks: list of face)"
    assert old in text
    rules.write_text(
        text.replace(old, "allow muster(to: location, option: muster_option, blocks: list of face)")
    )
    swapped = load_spec(game_copy)
    assert data_of(swapped, "game: sekigahara\nT muster Edo A tokugawa-2\n") == before
    assert data_of(swapped, "game: sekigahara\n" + line)["events"][0]["muster"]["to"] == "A"


def test_the_documented_table_of_actions_is_the_specs(spec: Spec) -> None:
    assert forms(spec) in DOC.read_text(), "docs/notation.md: paste the table forms() gives"


def test_the_grammar_sits_beside_the_rules_grammar() -> None:
    assert resources.grammar("notation") == NOTATION_GRAMMAR and NOTATION_GRAMMAR.is_file()
    assert resources.grammar().is_file()  # beside the rules grammar, in the package


# ---------------------------------------------------------------- the set-up


def test_the_printed_setup_is_the_whole_setup_of_weeks_1_2(spec: Spec) -> None:
    recorded = yaml.safe_load((EXAMPLES / "weeks-1-2.yaml").read_text())["events"][:23]
    text = (
        "game: sekigahara\n"
        "T deal tokugawa*2,fukushima,maeda,date\n"
        "I deal mori*2,ukita,kobayakawa,uesugi\n"
        "setup: printed\n"
        "I place_random Aizu uesugi-cavalry\n"
        "I place_random Gifu mori-2,ukita-3\n"
        "I place_random Kyoto kobayakawa-2,mori-gun\n"
        "I place_random Osaka ukita-cavalry,kobayakawa-gun\n"
        "I place_random Ueda uesugi-3,mori-3,ukita-2\n"
        "T place_random Anotsu maeda-3\n"
        "T place_random Edo tokugawa-2,tokugawa-cavalry\n"
        "T place_random Hakone date-gun\n"
        "T place_random Kanazawa maeda-cavalry\n"
        "T place_random Kiyosu fukushima-2\n"
        "T place_random Miyazu date-3\n"
        "T place_random Sendai date-cavalry\n"
        "T recruit tokugawa-2,tokugawa-3,maeda-2,fukushima-3\n"
        "I recruit ukita-gun,mori-2,kobayakawa-3,uesugi-gun\n"
    )
    assert data_of(spec, text)["events"] == recorded


def test_every_printed_placement_is_one_the_rules_accept(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the set-up and its random draws, then week 1 begins: every spot was filled
    lines = notation_of(spec, EXAMPLES / "weeks-1-2.yaml").splitlines()
    end = lines.index("T bid date")
    path = tmp_path / "setup.rec"
    path.write_text("\n".join(lines[:end]) + "\nT bid date\n  expect week: 1\n")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0, out


def test_a_setup_written_out_in_another_order_stays_written_out(spec: Spec) -> None:
    events = yaml.safe_load((EXAMPLES / "weeks-1-2.yaml").read_text())["events"]
    events[2], events[3] = events[3], events[2]  # Aizu before Osaka
    record = {"game": "sekigahara", "events": events}
    text = to_notation(spec, parse_document(yaml.safe_dump(record, sort_keys=False), "x.yaml"))
    assert "setup:" not in text and "I place Aizu " in text
    assert data_of(spec, text) == record


def test_placements_before_the_deal_are_judged_where_the_setup_line_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "early.rec"
    path.write_text("game: sekigahara\nsetup: printed\n")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert out.startswith(f"{path}:2:8: event 1 (place) is illegal: 5.1/deal-first")


# ---------------------------------------------------------------- check on notation files


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_check_gives_the_same_verdict_on_the_notation(
    spec: Spec, path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / (path.stem + SUFFIX)
    rec.write_text(notation_of(spec, path))
    yaml_code, yaml_out, _ = run(capsys, "check", str(path), "--format", "json")
    rec_code, rec_out, _ = run(capsys, "check", str(rec), "--format", "json")
    assert rec_code == yaml_code
    assert _without_places(verdict_of(rec_out)) == _without_places(verdict_of(yaml_out))


def _without_places(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _without_places(v) for k, v in x.items() if k not in ("file", "line", "column")}
    if isinstance(x, list):
        return [_without_places(v) for v in x]
    return x


def test_an_illegal_event_is_said_at_its_line_in_the_notation(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "too-far.rec"
    path.write_text(notation_of(spec, EXAMPLES / "illegal" / "movement-too-far.yaml"))
    code, out, _ = run(capsys, "check", str(path))
    lines = path.read_text().splitlines()
    n = next(i for i, ln in enumerate(lines, 1) if ln.startswith("I move "))
    assert code == 1
    assert out.startswith(f"{path}:{n}:1: event 2 (move) is illegal (as the record expects)")


def test_a_directory_of_records_includes_the_notation(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.rec").write_text(notation_of(spec, EXAMPLES / "weeks-1-2.yaml"))
    (tmp_path / "b.yaml").write_text((EXAMPLES / "siege-of-osaka.yaml").read_text())
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0 and out.splitlines()[-1] == "2 records: 2 legal, 0 illegal, 0 bad input"


def test_show_reads_the_notation(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "full-game.rec"
    code, out, _ = run(capsys, "show", str(path), "--after", "2")
    n = path.read_text().splitlines().index("I deal mori,mori,ukita,kobayakawa,uesugi") + 1
    assert code == 0 and f"  event 2: deal by ishida, line {n}\n" in out


# ---------------------------------------------------------------- the documented game


def documented_game() -> str:
    text = DOC.read_text()
    m = re.search(r"## A whole game\n.*?```\n(.*?)```", text, re.S)
    assert m, "docs/notation.md has a section '## A whole game' with the game in a block"
    return m.group(1)


def test_the_documented_game_is_the_shipped_one_and_legal(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = documented_game()
    assert game == (EXAMPLES / "full-game.rec").read_text()
    assert data_of(spec, game) == load_document(EXAMPLES / "full-game.yaml").data
    path = tmp_path / "documented.rec"
    path.write_text(game)
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0
    assert "legal: 147 event(s); the game is over after week 7" in out
    assert out.splitlines()[0].endswith("tokugawa wins")
    code, out, _ = run(capsys, "convert", str(path))
    assert code == 0 and yaml.safe_load(out) == yaml.safe_load(
        (EXAMPLES / "full-game.yaml").read_text()
    )


# ---------------------------------------------------------------- convert


def test_convert_writes_the_other_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec, back = tmp_path / "g.rec", tmp_path / "g.yaml"
    assert run(capsys, "convert", str(EXAMPLES / "weeks-1-2.yaml"), "-o", str(rec))[0] == 0
    assert rec.read_text().count("\n") < 80
    assert run(capsys, "convert", str(rec), "-o", str(back))[0] == 0
    assert yaml.safe_load(back.read_text()) == yaml.safe_load(
        (EXAMPLES / "weeks-1-2.yaml").read_text()
    )
    code, out, _ = run(capsys, "convert", str(rec), "--to", "notation")
    assert code == 0 and out == rec.read_text()  # already in its written form
    code, out, _ = run(capsys, "convert", str(EXAMPLES / "weeks-1-2.yaml"), "--to", "yaml")
    assert code == 0 and yaml.safe_load(out) == yaml.safe_load(back.read_text())
    code, _, err = run(capsys, "convert", str(rec), "-o", str(tmp_path / "no" / "such.yaml"))
    assert code == 2 and err.startswith("referee convert: cannot write")


CANNOT = [
    ("an action the spec lacks", "- jump: {by: tokugawa}", "4:5", "unknown action 'jump'"),
    ("no side", "- bid: {card: date}", "4:10", "'by' is missing: a line begins with who acts"),
    ("a side the spec lacks", "- bid: {by: mori, card: date}", "4:15", "unknown side 'mori'"),
    (
        "an argument the spec lacks",
        "- bid: {by: tokugawa, card: date, cost: 2}",
        "4:43",
        "unknown argument 'cost' of bid",
    ),
    (
        "a number where a name is due",
        "- bid: {by: tokugawa, card: 3}",
        "4:31",
        "expected card, found a number 3",
    ),
    (
        "a list inside a list",
        "- deal: {by: tokugawa, cards: [[a]]}",
        "4:34",
        "expected card, found a list",
    ),
]


@pytest.mark.parametrize("case", CANNOT, ids=[c[0] for c in CANNOT])
def test_what_the_notation_cannot_say_is_refused_with_its_place(
    case: tuple[str, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, event, where, message = case
    path = tmp_path / "odd.yaml"
    path.write_text(f"game: sekigahara\ntitle: odd\nevents:\n  {event}\n")
    code, out, err = run(capsys, "convert", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:{where}: cannot be written in the notation: ")
    assert message in err.splitlines()[0] and "Traceback" not in err


# ---------------------------------------------------------------- bad lines


HEAD = "game: sekigahara\nT deal tokugawa*2,fukushima,maeda,date\nI deal mori*2,ukita,kobayakawa,uesugi\nsetup: printed\n"
BAD = [
    (
        "unknown action",
        "I place_randum Gifu mori-2",
        "5:3",
        "unknown action 'place_randum'",
        "did you mean 'place_random'?",
    ),
    (
        "missing side",
        "place_random Gifu mori-2",
        "5:1",
        "who acts? the line names no side before 'place_random'",
        "begin it with one of T (tokugawa), I (ishida)",
    ),
    ("unknown side", "X bid date", "5:1", "unknown side 'X'", "sides: T (tokugawa), I (ishida)"),
    ("side alone", "I", "5:2", "an action is due after the side I", ""),
    (
        "bad location",
        "I place_random Gifo mori-2,ukita-3",
        "5:16",
        "events[9].place_random.at: unknown location 'Gifo'",
        "did you mean 'Gifu'?",
    ),
    (
        "unknown argument",
        "I place_random Gifu mori-2 from:Kyoto",
        "5:28",
        "unknown argument 'from' of place_random",
        "place_random takes: at, blocks",
    ),
    (
        "one value too many",
        "I place_random Gifu mori-2 ukita-3 true",
        "5:36",
        "one value too many: place_random takes at, blocks, named_first",
        "or name one: name:value",
    ),
    ("given twice", "I place_random Gifu at:Kyoto", "5:21", "'at' is given twice", ""),
    (
        "a list for one value",
        "I place_random Gifu,Kyoto mori-2",
        "5:21",
        "'at' is one location, not a list",
        "a list is written a,b,c",
    ),
    ("bad repeat", "T deal tokugawa*x", "5:17", "a repeat is item*N, N a number", ""),
    ("empty list for one", "T bid -", "5:7", "`-` is an empty list; here one card is due", ""),
    (
        "structure for a name",
        "T bid (date)",
        "5:7",
        "(...) writes a structure; here one card is due",
        "",
    ),
    ("bar astray", "T bid date | x", "5:12", "`|` parts the structures of a list", ""),
    ("empty structure", "T move Edo tokugawa-2 Edo,Hakone |", "5:34", "an empty group", ""),
    ("unclosed (", "T move Edo (tokugawa-2 Edo,Hakone", "5:34", "a `(` is not closed", ""),
    ("stray )", "T bid date)", "5:11", "`)` closes no `(`", ""),
    ("unclosed quote", 'T bid "date', "5:7", "this quoted value is not closed", ""),
    ("long number", "T deploy x impact:" + "9" * 101, "5:19", "a number of more than 100", ""),
    (
        "header after events",
        "title: late",
        "5:1",
        "the header 'title' comes after the events",
        "header lines come before the first event",
    ),
    ("events header", "events: []", "5:1", "events are written one a line", ""),
    ("unknown set-up", "setup: printd", "5:8", "unknown set-up 'printd'", "did you mean"),
    ("expect alone", "expect week: 1", "5:1", "here a set-up line is", ""),
    ("expect not a mapping", "T bid date\n  expect week 1", "6:10", "`key: value`", ""),
    (
        "expect unknown name",
        "T bid date\n  expect wek: 1",
        "6:10",
        "expect: unknown name 'wek'",
        "did you mean 'week'?",
    ),
    ("expect twice", "T bid date\nexpect week: 1\nexpect week: 2", "7:14", "expected twice", ""),
    ("bad YAML in expect", "T bid date\nexpect week: [1", "6:16", "malformed YAML", ""),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_a_bad_line_is_said_where_it_is(
    case: tuple[str, str, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, line, where, message, hint = case
    path = tmp_path / "bad.rec"
    path.write_text(HEAD + line + "\n")
    code, out, err = run(capsys, "check", str(path))
    assert code == 2 and out == ""
    first, shown, caret, *rest = err.splitlines()
    assert first.startswith(f"{path}:{where}: ")
    assert message in first
    row, col = (int(n) for n in where.split(":"))
    assert shown == "    " + (HEAD + line).splitlines()[row - 1][:100].rstrip() or len(shown) > 100
    assert caret == " " * (3 + col) + "^"
    assert hint in "\n".join(rest)
    assert "Traceback" not in err


def test_header_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        ("", "1:1: the record is empty"),
        ("title: no game\nT bid date\n", "1:1: (top level): 'game' is missing"),
        ("game: sekigahara\ntitle: x\n  T bid date\n", "3:3: this indented line goes on"),
        ("game: sekigahara\ntitle: a\ntitle: b\n", "3:1: the header 'title' is given twice"),
        ("game: sekigahara\nprinting: gmt-2012\n", "2:11: unknown printing 'gmt-2012'"),
        ("game: sekigahara\nbogus: 1\n", "(top level): unknown field 'bogus'"),
        ("game: chess\n", "1:7: this record is of 'chess', not 'sekigahara'"),
        ("game: sekigahara\nsetup: [printed]\n", "2:8: a set-up is named by one word"),
    ]
    for text, said in cases:
        path = tmp_path / "h.rec"
        path.write_text(text)
        code, _, err = run(capsys, "check", str(path))
        assert code == 2, text
        assert said in err.splitlines()[0], (text, err)


def test_hostile_lines_are_refused_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.rec"
    path.write_text("game: sekigahara\nT move Edo " + "(" * 5000 + ")" * 5000 + "\n")
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and "2:13: (...) writes a structure; here one face is due" in err
    path.write_text("game: sekigahara\nT deal " + ",".join(["date"] * 100_000) + "\n")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1 and "5.1/starting-hand" in out  # read, and judged
    path.write_text("game: sekigahara\nT deal date*99999\n")
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and "2:13: a repeat is item*N, N a number (up to 9999)" in err
