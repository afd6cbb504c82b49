"""docs/compliance.md, the compliance statement: current, every clause listed, and every
normative clause exercised by a test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from referee.compile.spec import load_spec

ROOT = Path(__file__).resolve().parents[1]


def test_compliance_statement_is_current() -> None:
    generated = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "compliance.py")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert (ROOT / "docs" / "compliance.md").read_text() == generated, (
        "docs/compliance.md is stale: run `python docs/compliance.py > docs/compliance.md`"
    )


def test_every_clause_is_stated_and_every_rule_tested() -> None:
    text = (ROOT / "docs" / "compliance.md").read_text()
    spec = load_spec()
    stated = re.findall(r"^## (\S+) ", text, re.M)
    assert stated == [c.number for c in spec.clauses()]
    for clause in spec.clauses():
        section = text.split(f"## {clause.number} ", 1)[1].split("\n## ", 1)[0]
        assert "- **Reading:**" in section and "- **Tests:**" in section
        if not clause.informative:
            assert "- **Tests:** none" not in section, clause.number
