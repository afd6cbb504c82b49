"""Write the table of the properties in docs/commands/prove.md: for each property and standing
rule of the bundled game, what it claims, what a proof covers (its bounds), what it leaves out,
and the spec's note on it. Made from the spec alone (referee/verify/coverage.py).

Run: python docs/prove_properties.py   (rewrites the table in place, between its markers;
tests/test_prove_coverage.py keeps it current)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.compile.spec import load_spec  # noqa: E402
from referee.verify.coverage import markdown  # noqa: E402

PAGE = ROOT / "docs" / "commands" / "prove.md"
BEGIN = "<!-- the properties: made by python docs/prove_properties.py; do not edit -->\n"
END = "<!-- end of the properties -->\n"


def page(text: str) -> str:
    """The page with its table made again from the spec."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    spec = load_spec()
    table = markdown(spec.sym).replace(str(ROOT) + "/", "")
    return head + BEGIN + table + END + tail


if __name__ == "__main__":
    PAGE.write_text(page(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
