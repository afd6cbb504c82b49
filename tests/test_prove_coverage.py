"""docs/commands/prove.md says, property by property, what a proof covers and what it leaves
out: made from the spec (referee/verify/coverage.py), and current."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.compile.spec import Spec
from referee.parse import ast
from referee.verify.coverage import coverage

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import prove_properties  # noqa: E402


def test_the_page_s_table_of_the_properties_is_current() -> None:
    text = (ROOT / "docs" / "commands" / "prove.md").read_text(encoding="utf-8")
    assert prove_properties.page(text) == text, (
        "docs/commands/prove.md's table of the properties is stale:"
        " run `python docs/prove_properties.py`"
    )


def test_every_property_and_standing_rule_is_said_with_its_bounds(spec: Spec) -> None:
    entries = {f"{e.clause}/{e.label}": e for e in coverage(spec.sym)}
    declared = {
        f"{d.clause}/{d.name}"
        for d in spec.sym.labels.values()
        if isinstance(d, (ast.Property, ast.Whenever))
    }
    assert set(entries) == declared
    segment = entries["7.3.1/segment-used-once"]
    assert segment.kind == "step invariant"
    assert "lists of at most 0 card, 2 face, 2 group, 3 location, 0 pickup" in segment.covers
    assert "a record's own position" in segment.leaves_out
    chart = entries["7.3.6/chart-agrees"]
    assert chart.kind == "over definitions" and "for n in 1..1000" in chart.covers
    assert "values outside those ranges" in chart.leaves_out
    assert entries["2.1/winner-claimed"].covers.endswith("(no bound)")
    step = entries["7.3.1/a-step-is-allowed"]
    assert step.kind == "allows move" and "any case the property does not state" in step.leaves_out
    assert entries["9.3/leader-leaves-last"].kind == "after mori"
    overrun = entries["7.4.2/overrun"]
    assert overrun.kind == "standing rule" and "re-triggers forever" in overrun.covers
    # the spec's own note: what the property is written apart from
    assert "apart from" in entries["7.3.1/moves-keep-the-rules"].note
