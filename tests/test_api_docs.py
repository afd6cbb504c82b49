"""docs/api.md cannot go stale: every Python block in it is run, in order, in one namespace,
from the top of the repository, and each asserts what it shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "api.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def blocks() -> list[tuple[int, str]]:
    text = DOC.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in BLOCK.finditer(text)]


def test_the_page_has_its_examples() -> None:
    found = blocks()
    assert len(found) >= 10
    code = "".join(b for _, b in found)
    for name in ("referee.check(", "referee.explain(", "referee.show(", "referee.compare("):
        assert name in code
    # no block the test would miss: every fence is a Python block or plain text
    fences = re.findall(r"^```(.*)$", DOC.read_text(encoding="utf-8"), re.M)
    assert set(fences) <= {"python", ""}


def test_every_example_runs_and_prints_what_the_page_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every block runs (its assertions hold), and each `print(...)` in it is followed by the
    lines it prints, as comments."""
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "api_docs"}
    prints = 0
    for line, code in blocks():
        exec(compile("\n" * (line - 1) + code, str(DOC), "exec"), namespace)
        printed = capsys.readouterr().out.splitlines()
        said: list[str] = []
        after_print = False
        for ln in code.splitlines():
            if ln.strip().startswith("print("):
                after_print, prints = True, prints + 1
            elif after_print and ln.lstrip().startswith("#"):
                said.append(ln.lstrip()[2:])
            else:
                after_print = False
        assert [s.rstrip() for s in said] == [p.rstrip() for p in printed], f"docs/api.md:{line}"
    assert prints >= 6
