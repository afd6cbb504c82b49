"""What the third hostile reading found, kept as tests: expect keys the rules fail on, deep
or huge expressions where a record or a tell gives them, topics that name nothing, --games,
--seed and --until that could not be used, and judgements with no time limit. Each gives a
located error (exit 2) or the right verdict, never an internal error or a hang."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tests.referee_helpers import verdict_of

HOSTILE = Path(__file__).resolve().parent / "hostile"
# a record from a position, one move (Kiyosu to Kuwana) and its `expect:` to be given
BASE = (HOSTILE / "kuwana_expect.yaml").read_text()
KEY_LINE = 20  # the line of the first expectation


def keyed(tmp_path: Path, *entries: tuple[str, str]) -> Path:
    """The record with these expectations: (key, value) each, the key quoted."""
    path = tmp_path / "expect.yaml"
    body = "".join(f"      ? '{k}'\n      : {v}\n" for k, v in entries)
    path.write_text(BASE + body, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in out + err, out + err
    return code, out, err


# ------------------------------------------------------------------ expect keys


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("[1, 2][5]", "2", "an index past the end of a list"),
        ("hand(ishida)[0]", "fukushima", "an index past the end of a list"),
        ("repeat(1, 2000000)", "[1]", "repeat of 2,000,000 items: the limit is 1,000,000"),
    ],
)
def test_a_key_the_rules_fail_on_is_said_at_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str, says: str
) -> None:
    path = keyed(tmp_path, (key, value))
    code, _, err = run(capsys, "check", str(path))
    head = err.splitlines()[0]
    assert code == 2, err
    assert head == (
        f"{path}:{KEY_LINE}:10: event 1 (move): the rules fail on the expect key {key}: {says}"
    )


@pytest.mark.parametrize(
    ("key", "says"),
    [
        # refused as it is parsed since issue 33 (each `+` of a chain a level), not checked
        ("+".join(["1"] * 400), "expect: an expression nested too deeply to parse"),
        ("not " * 600 + "true", "expect: an expression nested too deeply to parse"),
        ("1" * 5000, "expect: a number of more than 100 digits"),
        ("1" * 101 + " > 0", "expect: a number of more than 100 digits"),
    ],
)
def test_a_key_too_deep_or_too_long_is_refused_where_it_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, says: str
) -> None:
    path = keyed(tmp_path, (key, "1"))
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and err.startswith(f"{path}:{KEY_LINE}:") and says in err, err


def test_compare_neither_reads_nor_evaluates_expectations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An expectation `check` fails on, or that would take hours, changes nothing to compare."""
    slow = "sum(sum(y for y in 0..999999) for x in 0..999999)"
    path = keyed(tmp_path, ("[1, 2][5]", "2"), (slow, "5"), ("nosuchname", "1"))
    code, out, _ = run(capsys, "compare", str(path), "--only", "D-capitals")
    assert code == 0 and "1 variant against printing" in out


def test_show_type_checks_expectations_and_reports_no_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = keyed(tmp_path, ("nosuchname", "1"))
    code, out, err = run(capsys, "show", str(bad), "--after", "1")
    assert code == 2 and not out
    assert err.startswith(f"{bad}:{KEY_LINE}:10: expect: unknown name 'nosuchname'"), err
    for key, value, checked in (("week", "7", 1), ("[1, 2][5]", "2", 2)):
        missed = keyed(tmp_path, (key, value))
        code, out, _ = run(capsys, "show", str(missed), "--after", "1")
        assert code == 0 and "the position after event 1 of 1" in out
        assert run(capsys, "check", str(missed))[0] == checked  # a miss; a key that fails


# ------------------------------------------------------------------ a spec's tell


@pytest.mark.parametrize(
    ("inside", "says"),
    [
        ("1" * 5000, "a number of more than 100 digits"),
        ("+".join(["1"] * 700), "an expression nested too deeply to parse"),
    ],
)
def test_a_tell_too_long_or_too_deep_is_refused_where_it_is_written(
    game_copy: Path, capsys: pytest.CaptureFixture[str], inside: str, says: str
) -> None:
    rules = game_copy / "clauses" / "04-locations.rules"
    text = rules.read_text()
    told = '"{s} claims the resource location {l}"'
    line = text[: text.index(told)].count("\n") + 1
    rules.write_text(text.replace(told, '"{s} claims {' + inside + '}"'))
    code, _, err = run(capsys, "spec", "check", "--spec", str(game_copy))
    assert code == 2, err
    assert err.startswith(f"{rules}:{line}:") and says in err.splitlines()[0], err


# ------------------------------------------------------------------ explain


@pytest.mark.parametrize(
    ("topic", "says"),
    [
        ("", "explain: name a topic"),
        ("  ", "explain: name a topic"),
        ("data:", "explain: name a data entry after 'data:'"),
        ("clause:", "explain: name a clause or label after 'clause:'"),
    ],
)
def test_explain_of_nothing_asks_for_a_topic(
    capsys: pytest.CaptureFixture[str], topic: str, says: str
) -> None:
    code, _, err = run(capsys, "explain", topic)
    assert code == 2 and err.startswith(f"<command line>:0:0: {says}"), err


def test_a_suggestion_names_each_topic_once(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.explainer.topics import _did_you_mean

    assert _did_you_mean(["data:a", "data:a", "b"]) == "did you mean 'data:a' or 'b'?"


# ------------------------------------------------------------------ --games, --seed, --until


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["compare", "--games", "99999999999999999999"],
            "referee compare: --games N needs N from 1 to 10,000, not 99999999999999999999",
        ),
        (
            ["compare", "--games", "10001"],
            "referee compare: --games N needs N from 1 to 10,000, not 10001",
        ),
        (
            ["compare", "--games", "1", "--seed", "1" + "0" * 18],
            "referee compare: --seed S needs a whole number of at most 18 digits, not 1" + "0" * 18,
        ),
        (
            ["play", "--games", "99999999999999999999", "--out", "unused"],
            "referee play: --games N needs N from 1 to 10,000, not 99999999999999999999",
        ),
        (
            ["play", "--games", "2"],
            "referee play: --games N needs --out DIR (or --coverage) for more than one",
        ),
    ],
)
def test_games_and_seeds_are_bounded(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith(says), err


@pytest.mark.parametrize(
    ("until", "says"),
    [
        ("5", "--until cannot be evaluated as a condition: it gives an int, not true or false"),
        ('"x"', "--until cannot be evaluated as a condition: it gives a text, not true or false"),
        ("week >", "bad expression in --until: 'week >'"),
    ],
)
@pytest.mark.parametrize("command", [["play"], ["compare", "--games", "1"]])
def test_an_until_that_is_no_condition_is_refused(
    capsys: pytest.CaptureFixture[str], command: list[str], until: str, says: str
) -> None:
    code, out, err = run(capsys, *command, "--until", until)
    assert code == 2 and not out and says in err.splitlines()[0], err


def test_an_until_that_takes_too_long_is_stopped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_TIME_LIMIT", "1")
    until = "sum(sum(y for y in 0..999999) for x in 0..999999) < 0"
    code, _, err = run(capsys, "play", "--until", until)
    assert code == 2
    assert err.startswith(
        "<--until>:1:1: --until: evaluating the condition took longer than the limit of 1 s"
    ), err


# ------------------------------------------------------------------ time limits


def test_each_variant_compared_has_the_time_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judgement that would never end (here a stand-in: one variant sleeps) is stopped,
    and the variant named."""
    import referee.run.compare as compare_module

    real = compare_module.check_record

    def check_record(spec: Any, path: Path, choice: Any, *args: Any, **kw: Any) -> Any:
        if choice.off == ["D-capitals"] or choice.on == ["D-capitals"]:
            time.sleep(3_600)
        return real(spec, path, choice, *args, **kw)

    monkeypatch.setattr(compare_module, "check_record", check_record)
    monkeypatch.setenv("REFEREE_TIME_LIMIT", "1")
    record = HOSTILE.parent.parent / "examples" / "disputes" / "kuwana-overrun.yaml"
    code, _, err = run(capsys, "compare", str(record), "--only", "D-capitals")
    assert code == 2
    assert err.startswith(
        f"{record}:0:0: stopped: judging the record under without D-capitals took longer"
        " than the limit of 1 s"
    ), err


# ------------------------------------------------------------------ bounded output


def test_a_miss_traces_a_bounded_number_of_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A miss evaluates its key again, traced: it stops after 200 calls, and the text shows
    50 of them and counts the rest."""
    path = keyed(tmp_path, ("sum(size_penalty(x) for x in 0..9999)", "1"))
    code, out, _ = run(capsys, "check", str(path))
    lines = out.splitlines()
    assert code == 1 and len(lines) < 70, len(lines)
    assert "    ... and 151 more (--format json lists them all)" in lines
    code, out, _ = run(capsys, "check", str(path), "--format", "json")
    numbers = verdict_of(out)["violations"][0]["numbers"]
    assert len(numbers) == 201
    assert numbers[-1] == "... (the first 200 calls evaluated; the rest not traced)"


@pytest.mark.parametrize(
    "key",
    [
        "repeat([1], 1000000)",
        'repeat("' + "a" * 20_000 + '", 1000000)',  # gigabytes, were it written out
    ],
)
def test_a_huge_value_found_is_cut_between_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    path = keyed(tmp_path, (key, "[]"))
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1 and len(out) < 10_000 and re.search(r"\.\.\. 999,\d{3} more\]", out)
    code, out, _ = run(capsys, "check", str(path), "--format", "json")
    v = verdict_of(out)["violations"][0]
    assert code == 1 and len(out) < len(key) + 10_000
    found = v["expectation"]["found"]
    assert isinstance(found, str) and re.search(r"\.\.\. 999,\d{3} more\]$", found)
    assert len(v["message"]) < 3_000


def _spec_with(game: Path, file: str, old: str, new: str) -> str:
    rules = game / "clauses" / file
    text = rules.read_text()
    assert old in text
    rules.write_text(text.replace(old, new, 1))
    return str(game)


CLAIM = '        tell [claim] "{s} claims the resource location {l}"\n'
KUWANA = str(HOSTILE.parent.parent / "examples" / "disputes" / "kuwana-overrun.yaml")
TOO_FAR = str(HOSTILE.parent.parent / "examples" / "illegal" / "movement-too-far.yaml")


def test_many_outcomes_of_one_event_are_counted(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    many = '        for x in 0..4999 do\n          tell [claim] "{s} claims {l} {x}"\n        end\n'
    spec = _spec_with(game_copy, "04-locations.rules", CLAIM, many)
    code, out, _ = run(capsys, "check", KUWANA, "--spec", spec)
    assert code == 0 and len(out.splitlines()) < 120
    assert "      ... and 4,902 more (--format json lists the first 1,000)" in out
    code, out, _ = run(capsys, "check", KUWANA, "--spec", spec, "--format", "json")
    (event,) = verdict_of(out)["outcomes"]
    assert len(event["outcome"]) == 1_000 and event["left_out"] == 4_002


def test_a_huge_value_told_is_cut_between_items(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = '        tell [claim] "{s} claims {everywhere = repeat(l, 1000000)}"\n'
    spec = _spec_with(game_copy, "04-locations.rules", CLAIM, huge)
    code, out, _ = run(capsys, "check", KUWANA, "--spec", spec, "--format", "json")
    assert code == 0 and len(out) < 20_000
    (told,) = [t for t in verdict_of(out)["outcomes"][0]["outcome"] if t["label"] == "claim"]
    assert re.search(
        r"^\[Kuwana, Kuwana, .*, \.\.\. 999,\d{3} more\]$", told["values"]["everywhere"]
    )
    assert len(told["text"]) < 2_000


def test_many_numbers_of_a_refusal_are_counted(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cond = "    distance <= allowance(all_highway, leadership, force_march, largest_group)\n"
    slow = cond.rstrip("\n") + " + sum(size_penalty(x) * 0 for x in 0..4999)\n"
    spec = _spec_with(game_copy, "07-movement.rules", cond, slow)
    code, out, _ = run(capsys, "check", TOO_FAR, "--spec", spec, "--trace")
    assert code == 1 and len(out.splitlines()) < 150
    assert out.count("(--format json lists the first 1,000)") == 2
    code, out, _ = run(capsys, "check", TOO_FAR, "--spec", spec, "--format", "json")
    v = verdict_of(out)["violations"][0]
    assert len(v["numbers"]) == 1_000 and v["numbers_left_out"] > 3_000
    assert len(v["trace"]) == 1_000 and v["trace_left_out"] > 3_000


# ------------------------------------------------------------------ messages


def flow(tmp_path: Path, mapping: str) -> Path:
    """The record with ``expect: {...}`` written on one line (line 19)."""
    path = tmp_path / "flow.yaml"
    path.write_text(BASE.rstrip("\n") + f" {mapping}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("mapping", "column", "says"),
    [
        ("{happened: [4.2/claim], e: 1}", 37, "expect: unknown name 'e'"),
        ("{week: 1, ee: 3}", 23, "expect: unknown name 'ee'"),
        ("{happened: [null]}", 25, "expect: null is no outcome of the spec's"),
        ("{illegal: true}", 23, "expect: true is no condition of the spec's"),
        ("{happened: {a: b}}", 24, "expect: {a: b} is no outcome of the spec's"),
        ("{illegal: []}", 23, "expect: illegal: [] names no condition"),
        (
            "{'hand(tokugawa)': [null]}",
            33,
            "events[0].expect.hand(tokugawa)[0]: expected the name of card, found null (nothing)",
        ),
        ("{resource_holder(Kuwana): true}", 39, "expected the name of side, found true/false"),
    ],
)
def test_a_bad_expectation_is_said_where_and_as_the_record_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mapping: str, column: int, says: str
) -> None:
    path = flow(tmp_path, mapping)
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and err.startswith(f"{path}:19:{column}: "), err
    assert err.splitlines()[0].endswith(says), err


def test_a_miss_of_a_key_that_names_no_definition_is_headed_by_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = keyed(tmp_path, ("1 + 1", "3"))
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert out.startswith(
        f"{path}:{KEY_LINE + 1}:9: event 1 (move) misses an expectation: 1 + 1 (no clause)\n"
        "  expected 1 + 1 = 3; the rules give 2\n"
    ), out


def test_a_tell_that_names_two_numbers_alike_is_refused(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twice = CLAIM.replace("{s} claims the resource location {l}", "{x = s} claims {x = l}, {l}")
    spec = _spec_with(game_copy, "04-locations.rules", CLAIM, twice + CLAIM)
    code, _, err = run(capsys, "spec", "check", "--spec", spec)
    assert code == 2
    assert "two numbers of this tell are named 'x' [clause 4.2]" in err.splitlines()[0], err
    assert err.count("two numbers") == 1  # `{l}` twice (in two tells, or one) is one number


def test_alternatives_that_fail_are_said_to_fail(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = "        alternatives [{to: t} for t in all_locations() where t != to]\n"
    failing = listed.replace("t != to]", "t != to and [1][5] == 1]")
    spec = _spec_with(game_copy, "07-movement.rules", listed, failing)
    record = str(HOSTILE.parent.parent / "examples" / "illegal" / "muster-wrong-mon.yaml")
    code, out, _ = run(capsys, "check", record, "--spec", spec)
    rules = game_copy / "clauses" / "07-movement.rules"
    assert code == 1
    assert (
        "  could have: the spec's alternatives failed here: an index past the end of a list"
        f" ({rules}:"
    ) in out
    assert "no alternative the spec lists is legal" not in out
