"""Errors for people: every one names a file, a line and a column.

An error is rendered as ``file:line:col: message``, then the source line with a
caret under the spot, then an optional hint. The command line turns any of
these into exit code 2; no traceback reaches a user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Span:
    """Where a piece of source text sits: 1-based line and column, and offsets."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0
    start: int = 0
    end: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Span("<builtin>", 0, 0)


@dataclass
class Problem:
    """One located message. ``clause`` names the rule concerned, when there is one."""

    span: Span
    message: str
    hint: str = ""
    clause: str = ""

    def render(self, sources: dict[str, str] | None = None) -> str:
        head = f"{self.span}: {self.message}"
        if self.clause:
            head += f" [clause {self.clause}]"
        lines = [head]
        text = source_line(self.span, sources)
        if text is not None:
            lines.append("    " + text.rstrip("\n").expandtabs(1))
            lines.append("    " + " " * max(self.span.column - 1, 0) + "^")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.column,
            "message": self.message,
            "hint": self.hint,
            "clause": self.clause,
        }


def source_line(span: Span, sources: dict[str, str] | None = None) -> str | None:
    """The text of the span's line, from the cache or the file itself."""
    if span.line < 1:
        return None
    text = (sources or {}).get(span.file)
    if text is None:
        try:
            text = Path(span.file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    lines = text.splitlines()
    if span.line > len(lines):
        return None
    return lines[span.line - 1]


@dataclass
class RefereeError(Exception):
    """Bad input: a spec, a data file, a record or a command line. Exit code 2."""

    problems: list[Problem] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        return "\n".join(p.render(self.sources) for p in self.problems)


def fail(span: Span, message: str, hint: str = "", clause: str = "") -> RefereeError:
    return RefereeError([Problem(span, message, hint, clause)])
