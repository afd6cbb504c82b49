"""Many records at once: directories, every core, a summary table, and the right exit code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.cli import main
from referee.run.batch import SUFFIXES
from tests.referee_helpers import EXAMPLES, output


def test_a_directory_of_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES), "--format", "json"]) == 1
    out = output(capsys.readouterr().out)
    s = out["summary"]
    illegal = sorted((EXAMPLES / "illegal").glob("*.yaml"))
    illegal += sorted((EXAMPLES / "fierce-battle" / "illegal").glob("*.yaml"))  # the second game's
    records = [f for f in EXAMPLES.rglob("*") if f.suffix in SUFFIXES]  # the notation's too
    assert s["records"] == len(out["records"]) == len(records)
    assert s["bad input"] == 0
    # every illegal example, and the overlay examples that are illegal under the later printing
    assert s["illegal"] == len(illegal) + 2
    assert s["illegal by clause"]["7.3.3/within-allowance"] == 4
    files = [r["file"] for r in out["records"]]
    assert files == sorted(files)  # in order, whatever process judged each
    # a folder and a folder inside it: each record judged once
    assert main(["check", str(EXAMPLES), str(EXAMPLES / "illegal"), "--format", "json"]) == 1
    assert output(capsys.readouterr().out)["summary"] == s


def test_the_text_summary_counts_the_illegal_by_clause(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In text, each result is kept as its text where it was judged: the clause its first
    violation cites is kept with it, for the summary."""
    illegal = sorted((EXAMPLES / "illegal").glob("*.yaml"))
    assert main(["check", str(EXAMPLES / "illegal")]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("illegal, by the clause the first illegal event breaks:")
    assert out[at - 1] == f"{len(illegal)} records: 0 legal, {len(illegal)} illegal, 0 bad input"
    counts = {c: int(n) for c, n in (line.split() for line in out[at + 1 :])}
    assert counts["7.3.3/within-allowance"] == 4
    assert sum(counts.values()) == len(illegal)


def test_legal_records_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for f in EXAMPLES.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    for i in range(3):  # enough records to use several processes
        shutil.copy(EXAMPLES / "weeks-1-2.yaml", tmp_path / f"copy-{i}.yaml")
    assert main(["check", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[-1]
        == f"{len(list(tmp_path.glob('*.yaml')))} records: {len(list(tmp_path.glob('*.yaml')))} legal, 0 illegal, 0 bad input"
    )


def test_bad_input_in_a_batch_is_reported_and_the_rest_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(EXAMPLES / "weeks-1-2.yaml", tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("game: [sekigahara\n")
    assert main(["check", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]) == 2
    out = capsys.readouterr().out
    assert "malformed YAML or JSON" in out
    assert out.splitlines()[-1] == "2 records: 1 legal, 0 illegal, 1 bad input"


def test_an_empty_directory_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(tmp_path)]) == 2
    assert "no records here" in capsys.readouterr().err


def test_unnamed_records_are_keyed_by_their_fields() -> None:
    """Memo and list keys never use an address: a value built later at the same address (as
    happened in a worker that had judged other records) must not pass for an earlier one."""
    from referee.compile.builtins import key_of, without

    road = {"a": "Osaka", "b": "Wakayama", "highway": None}
    assert key_of(road) == key_of(dict(road))
    assert key_of(road) != key_of({**road, "b": "Kyoto"})
    assert without([road, {**road, "b": "Kyoto"}], [dict(road)]) == ({**road, "b": "Kyoto"},)
