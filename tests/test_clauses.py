"""Every numbered clause of the later printing is declared, and the CLI lists it."""

from __future__ import annotations

import re

import pytest

from referee.cli import main
from referee.compile.spec import Spec
from tests.referee_helpers import output

# The numbered clauses of the later GMT printing (seed 000), 2.1 to 9.5.
RULEBOOK = [
    "2.1",
    "2.2",
    "3.1",
    "3.2",
    "3.3",
    "3.4",
    "4.1",
    "4.2",
    "4.3",
    "4.4",
    "4.5",
    "5.1",
    "5.2.1",
    "5.2.2",
    "5.2.3",
    "6.1",
    "6.2",
    "6.3",
    "6.4",
    "7.1",
    "7.2",
    "7.3.1",
    "7.3.2",
    "7.3.3",
    "7.3.4",
    "7.3.5",
    "7.3.6",
    "7.4.1",
    "7.4.2",
    "7.4.3",
    "8.1",
    "8.2.1",
    "8.2.2",
    "8.2.3",
    "8.2.4",
    "8.3.1",
    "8.3.2",
    "8.3.3",
    "8.4.1",
    "8.4.2",
    "8.5",
    "8.6.1",
    "8.6.2",
    "8.6.3",
    "8.7.1",
    "8.7.2",
    "8.7.3",
    "8.8.1",
    "8.8.2",
    "8.8.3",
    "8.8.4",
    "8.8.5",
    "8.9.1",
    "8.9.2",
    "8.9.3",
    "8.9.4",
    "8.9.5",
    "8.9.6",
    "8.10",
    "9.1",
    "9.2",
    "9.3",
    "9.4",
    "9.5",
]


def test_every_rulebook_clause_is_declared_and_nothing_else(spec: Spec) -> None:
    assert sorted(spec.sym.clauses) == sorted(RULEBOOK)
    assert [c.number for c in spec.clauses()] == RULEBOOK  # in rulebook order


@pytest.mark.parametrize("number", RULEBOOK)
def test_clause_has_title_summary_and_printings(spec: Spec, number: str) -> None:
    c = spec.clause(number)
    assert c is not None
    assert c.title and len(c.summary) > 30
    assert "gmt-later" in c.printings


def test_chapter_9_is_read_for_the_first_printing(spec: Spec) -> None:
    """The project's copy of the 2011 text stops before chapter 9; D-2011-chapter-9 reads the
    later printing's for it, so the clause list and the verdicts agree (issue 27)."""
    for number in ("9.1", "9.2", "9.3", "9.4", "9.5"):
        assert "gmt-2011" in spec.clause(number).printings  # type: ignore[union-attr]
    decision = spec.sym.overlays["D-2011-chapter-9"]
    assert decision.kind == "decision" and decision.printings == ["gmt-2011"]
    assert not decision.default


def test_the_movement_chart_is_informative_and_points_at_the_rules(spec: Spec) -> None:
    chart = spec.clause("7.3.6")
    assert chart is not None and chart.informative
    assert [str(r) for r in chart.see] == ["7.3.3", "7.3.5"]
    # Its rows are written out for the prover alone (7.3.6/chart-agrees proves the allowance
    # equals them, 7.3.1/moves-keep-the-rules that every move allowed keeps within them): no
    # rule the referee runs reads them, only properties.
    assert [(d.kind, d.name) for d in chart.decls] == [
        ("const", "chart_base_move"),
        ("table", "chart_bonus"),
        ("table", "chart_size_modifier"),
        ("property", "chart-agrees"),
    ]
    rules = "".join(m.text for m in spec.modules if m.file.endswith(".rules"))
    block = rules.split('clause 7.3.6 "Movement chart"', 1)[1].split("\nclause ", 1)[0]
    # the declarations outside the chart, a property's lines apart
    outside = [c for c in re.split(r"(?m)^(?=  \S)", rules.replace(block, "")) if c.strip()]
    for d in chart.decls[:3]:
        assert d.name in block
        assert [c for c in outside if d.name in c and not c.startswith("  property")] == [], d.name


def test_clauses_json_lists_every_clause(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "--format", "json"]) == 0
    rows = output(capsys.readouterr().out)
    assert [r["number"] for r in rows] == RULEBOOK
    first = rows[0]
    assert first["id"] == "sekigahara:2.1"
    assert first["title"] == "Instant victory"
    assert first["kind"] == "normative"


def test_clauses_table(spec: Spec, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses"]) == 0
    out = capsys.readouterr().out
    n = len(spec.clause("7.3.5").decls)  # type: ignore[union-attr]
    assert f"7.3.5    normative    {n:>4}  Movement and force sizes" in out
    assert "7.3.6    informative     4  Movement chart" in out
    assert out.rstrip().endswith(f"{len(RULEBOOK)} clauses")


def test_explain_shows_the_size_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "7.3.5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("7.3.5  Movement and force sizes  (normative)")
    assert (
        "define size_penalty(blocks: int): int = min((blocks - 1) // size_step, size_steps)" in out
    )
    assert "used by: 7.1, 7.3.3" in out
    assert "cited by: 7.3.3, 7.3.6" in out


def test_explain_json_names_overlays_and_users(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "7.3.1", "--format", "json"]) == 0
    x = output(capsys.readouterr().out)
    assert {o["id"] for o in x["overlays"]} == {
        "E-pickup",
        "E-road-once",
        "D-enemy-disk-stops",
        "D-retreat-roads",
        "D-stack-once",
    }
    pickup = next(o for o in x["overlays"] if o["id"] == "E-pickup")
    assert pickup["kind"] == "printing" and pickup["changes"] == ["drop 7.3.1/no-pickup"]
    labels = [d["name"] for d in x["declarations"] if d["kind"] == "require"]
    assert "no-pickup" in labels and "segment-once" in labels


def test_explain_a_label_and_a_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "7.3.1/no-pickup"]) == 0
    out = capsys.readouterr().out
    assert "require [no-pickup] (picked_up: int)" in out
    assert main(["explain", "overrun_ratio", "--format", "json"]) == 0
    x = output(capsys.readouterr().out)
    assert x["number"] == "7.4.1" and x["focus"]["signature"] == "const overrun_ratio: int"


def test_explain_unknown_topic_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "7.9.9"]) == 2
    err = capsys.readouterr().err
    assert "no clause, label, name, overlay, printing or data entry '7.9.9'" in err
    assert "Traceback" not in err
    assert main(["explain", "7.3.1/no-such-label"]) == 2
    assert "clause 7.3.1 has no label [no-such-label]" in capsys.readouterr().err


def test_spec_check_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", "--format", "json"]) == 0
    out = output(capsys.readouterr().out)
    assert out["clauses"] == len(RULEBOOK)
    assert out["components"]["locations"] == 51 and out["components"]["segments"] == 62


def test_clause_reference_page_is_current(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    assert main(["clauses", "--format", "markdown"]) == 0
    generated = capsys.readouterr().out
    assert (root / "docs" / "clauses.md").read_text() == generated, (
        "docs/clauses.md is stale: run `referee clauses --format markdown > docs/clauses.md`"
    )
