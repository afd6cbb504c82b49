"""The records of the second readings: plays written from the rulebook by readers who did not
write the clauses, each stating the verdict the rulebook gives (`# expect:`). Kept as tests so
that what they found stays fixed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.cli import main
from tests.referee_helpers import verdict_of

READINGS = Path(__file__).resolve().parent / "readings"
# a reading's records, and those of a reading that need its own components (`with-data/`,
# judged with `--data` of the reading's `data/` folder)
RECORDS = sorted(READINGS.glob("*/*.yaml")) + sorted(READINGS.glob("*/with-data/*.yaml"))


def _name(p: Path) -> str:
    return str(p.relative_to(READINGS).with_suffix(""))


def _folder(p: Path) -> str:
    return p.relative_to(READINGS).parts[0]


def _data(p: Path) -> list[str]:
    return ["--data", str(p.parent.parent / "data")] if p.parent.name == "with-data" else []


EXPECT = re.compile(r"^# expect: (legal|illegal (\S+) at event (\d+))\b(.*)$", re.M)
WINNER = re.compile(r"(\w+) wins at once", re.I)  # "Tokugawa wins at once" too


def expectation(path: Path) -> tuple[str, str, int, str]:
    """The verdict, the clause or label cited, the event, and what the summary must say
    (who wins at once, or that nobody does) where the reader stated it."""
    m = EXPECT.search(path.read_text())
    assert m, f"{path.name} states no expected verdict"
    rest = m.group(4)
    won = WINNER.search(rest)
    summary = (
        f"{won.group(1).lower()} wins at once"
        if won
        else ("no instant win" if "no instant win" in rest else "")
    )
    if m.group(1) == "legal":
        return "legal", "", 0, summary
    return "illegal", m.group(2), int(m.group(3)), summary


# A reading the referee does not yet agree with states why in its header (`# open:`, with
# `#   ` continuation lines): a second reading found it and it waits on a decision or a change
# of the record format. It runs as a strict xfail: one that starts to pass fails here, so that
# its `# open:` is taken out. tools/mutate.py leaves such a reading out of the records stage.
OPEN = re.compile(r"^# open: (.*(?:\n#   .*)*)", re.M)


def open_question(path: Path) -> str:
    """Why the referee does not yet give the verdict a reading expects; "" when it does."""
    m = OPEN.search(path.read_text())
    return " ".join(m.group(1).replace("\n#   ", " ").split()) if m else ""


def _reading(p: Path) -> object:
    name = _name(p)
    why = open_question(p)
    if why:
        return pytest.param(p, id=name, marks=pytest.mark.xfail(reason=why, strict=True))
    return pytest.param(p, id=name)


@pytest.mark.parametrize("path", [_reading(p) for p in RECORDS])
def test_reading_gets_the_verdict_the_rulebook_gives(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    verdict, cites, index, summary = expectation(path)
    code = main(["check", str(path), "--format", "json", *_data(path)])
    out = verdict_of(capsys.readouterr().out)
    if verdict == "legal":
        assert code == 0, out.get("violations") or out.get("errors")
        if summary == "no instant win":
            assert "wins at once" not in out["summary"], out["summary"]
        elif summary:
            assert summary in out["summary"], out["summary"]
        return
    assert code == 1, out
    first = out["violations"][0]
    # a label, or a clause alone where the reader could not say which condition
    got = first["cites"] if "/" in cites else first["clause"]
    assert (first["index"], got) == (index, cites), first["message"]


def test_the_readings_cover_every_chapter() -> None:
    assert {_folder(p) for p in RECORDS} == {
        "ch2-3-4-9",
        "ch5-6",
        "ch7",
        "ch8a",
        "ch8b",
        "r2-standing",
        "r2-retreats",
        "r2-movement",
        "r3-latest",
        "r4-last",
        "r5-outcomes",
        "m1-mutants",
        "m2-mutants",
        "r6-limits",
        "r7-round3",
        "r8-ch7",
        "r8-ch8",
        "r8-ch9",
        "r9-changed",
        "r10-stance",
        "fb-a",
        "fb-b",
        "fb-c",
        "fb-e",
        "fb-f",
        "fb-g",
        "fb-h",
        "fb-i",
        "fb-j",
        "fb-k",
        "fb-m",
        "fb-p",
        "fb-q",
        "p15",
    }
    assert len(RECORDS) >= 209
