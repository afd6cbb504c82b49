"""The records of the second readings: plays written from the rulebook by readers who did not
write the clauses, each stating the verdict the rulebook gives (`# expect:`). Kept as tests so
that what they found stays fixed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.cli import main

READINGS = Path(__file__).resolve().parent / "readings"
RECORDS = sorted(READINGS.glob("*/*.yaml"))
EXPECT = re.compile(r"^# expect: (legal|illegal (\S+) at event (\d+))\s*$", re.M)


def expectation(path: Path) -> tuple[str, str, int]:
    m = EXPECT.search(path.read_text())
    assert m, f"{path.name} states no expected verdict"
    if m.group(1) == "legal":
        return "legal", "", 0
    return "illegal", m.group(2), int(m.group(3))


@pytest.mark.parametrize("path", RECORDS, ids=[f"{p.parent.name}/{p.stem}" for p in RECORDS])
def test_reading_gets_the_verdict_the_rulebook_gives(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    verdict, cites, index = expectation(path)
    code = main(["check", str(path), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    if verdict == "legal":
        assert code == 0, out.get("violations") or out.get("errors")
        return
    assert code == 1, out
    first = out["violations"][0]
    # a label, or a clause alone where the reader could not say which condition
    got = first["cites"] if "/" in cites else first["clause"]
    assert (first["index"], got) == (index, cites), first["message"]


def test_the_readings_cover_every_chapter() -> None:
    assert {p.parent.name for p in RECORDS} == {"ch2-3-4-9", "ch5-6", "ch7", "ch8a", "ch8b"}
    assert len(RECORDS) >= 60
