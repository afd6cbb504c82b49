"""Errors for people: every one names a file, a line and a column.

An error is rendered as ``file:line:col: message``, then the source line with a
caret under the spot, then an optional hint. The command line turns any of
these into exit code 2; no traceback reaches a user.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from referee.text import clip, escape, shown, window

MAX_MESSAGE = 500  # characters of a message or a hint
MAX_PROBLEMS_SHOWN = 50  # problems rendered for people; then how many more there were
SHOWN_FILE_BYTES = 16 * 1024 * 1024  # a file larger than this is not read to show its line


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
        """The message, the source line with a caret under the spot, and the hint: whatever
        came from input escaped (no control character reaches the terminal) and clipped."""
        head = f"{self.span}: {shown(self.message, MAX_MESSAGE)}"
        if self.clause:
            head += f" [clause {shown(self.clause)}]"
        lines = [escape(head)]
        text = source_line(self.span, sources)
        if text is not None:
            shown_line, caret = window(text.rstrip("\n"), self.span.column)
            lines.append("    " + shown_line)
            lines.append("    " + " " * caret + "^")
        if self.hint:
            lines.append(f"  hint: {shown(self.hint, MAX_MESSAGE)}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.column,
            "message": clip(self.message, MAX_MESSAGE),
            "hint": clip(self.hint, MAX_MESSAGE),
            "clause": self.clause,
        }


def source_line(span: Span, sources: dict[str, str] | None = None) -> str | None:
    """The text of the span's line, from the cache or the file itself."""
    if span.line < 1:
        return None
    text = (sources or {}).get(span.file)
    if text is None and span.file.startswith("<") and span.file.endswith(">"):
        return None  # <stdin>, <command line>: no file of that name is read in their place
    if text is None:
        text = _file_text(span.file)
    if text is None:
        return None
    lines = text.splitlines()
    if span.line > len(lines):
        return None
    return lines[span.line - 1]


def _file_text(path: str) -> str | None:
    """A regular file of at most SHOWN_FILE_BYTES, as text; None for anything else. Read here,
    not through referee/data/limits.py, which reports its own errors with this module: a FIFO
    or a device is not waited on, and no more than the limit is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > SHOWN_FILE_BYTES:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(SHOWN_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > SHOWN_FILE_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


@dataclass
class RefereeError(Exception):
    """Bad input: a spec, a data file, a record or a command line. Exit code 2."""

    problems: list[Problem] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        """Every problem, as people read them: at most MAX_PROBLEMS_SHOWN, then how many
        more there were (a spec of a thousand broken clauses is not a megabyte of text)."""
        shown_ = [p.render(self.sources) for p in self.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(self.problems) - MAX_PROBLEMS_SHOWN
        if more > 0:
            shown_.append(f"... and {more:,} more problems (the first {MAX_PROBLEMS_SHOWN} shown)")
        return "\n".join(shown_)


def fail(span: Span, message: str, hint: str = "", clause: str = "") -> RefereeError:
    return RefereeError([Problem(span, message, hint, clause)])
