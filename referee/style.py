"""Colour for a terminal: verdict words green or red, clause ids bold.

Colour is added to text that is finished: every piece of it that came from input has already
been escaped (``referee.text``), so no escape character of the input is left in it. ``paint``
makes sure of that once more (any escape or CSI character left is written as its escape) before
it adds its own codes, which are the only ones the output can hold. Whether to colour: always,
never, or (auto) when the stream is a terminal and NO_COLOR is unset or empty
(https://no-color.org) and TERM is not ``dumb``.
"""

from __future__ import annotations

import os
import re
from typing import TextIO

RESET = "\x1b[0m"
GREEN = "\x1b[32m"
RED = "\x1b[31m"
YELLOW = "\x1b[33m"
BOLD = "\x1b[1m"
CODES = (RESET, GREEN, RED, YELLOW, BOLD)

_CLAUSE = r"\d+(?:\.\d+)+"
# what is painted, and how; each pattern's first group, or the whole match, is coloured
_RULES: list[tuple[re.Pattern[str], str]] = [
    # verdicts: "FILE: legal: ...", "... is illegal ...", a comparison's columns
    (re.compile(r"(?<=: )legal(?=[:;, ]|$)"), GREEN),
    (re.compile(r"\bis illegal\b"), RED),
    (re.compile(r"\bmisses an expectation\b"), YELLOW),
    (re.compile(rf"\billegal(?= {_CLAUSE}/)"), RED),
    (re.compile(r"(?<=  )legal(?=\s*$)"), GREEN),
    # counts in a summary, when there are any
    (re.compile(r"\b[1-9][\d,]* legal\b"), GREEN),
    (re.compile(r"\b[1-9][\d,]* (?:illegal|bad input)\b"), RED),
    # a proof's status
    (re.compile(r"^\s+\S+\s+(proved)\b"), GREEN),
    (re.compile(r"^\s+\S+\s+(failed)\b"), RED),
    (re.compile(r"^\s+\S+\s+(skipped)\b"), YELLOW),
    # a spec that checks
    (re.compile(r"^(?:spec|components) (OK)\b"), GREEN),
    # clause ids: labels anywhere; numbers in brackets, after "clause", or opening a line
    (re.compile(rf"(?<![\w.]){_CLAUSE}/[A-Za-z][\w-]*"), BOLD),
    (re.compile(rf"(?<=\(){_CLAUSE}(?=\))"), BOLD),
    (re.compile(rf"(?<=clause ){_CLAUSE}(?![\w.])"), BOLD),
    (re.compile(rf"^{_CLAUSE}(?= )"), BOLD),
]


def wanted(choice: str, stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream``: ``always``, ``never``, or ``auto``."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or no stream at all
        return False


def paint(text: str) -> str:
    """Finished text with its verdict words and clause ids coloured."""
    text = text.replace("\x1b", "\\x1b").replace("\x9b", "\\x9b")
    return "\n".join(_paint_line(line) for line in text.split("\n"))


def _paint_line(line: str) -> str:
    spans: list[tuple[int, int, str]] = []
    for pattern, code in _RULES:
        for m in pattern.finditer(line):
            start, end = m.span(1) if m.groups() else m.span()
            if all(end <= a or start >= b for a, b, _ in spans):  # the first rule wins
                spans.append((start, end, code))
    out = []
    at = 0
    for start, end, code in sorted(spans):
        out += [line[at:start], code, line[start:end], RESET]
        at = end
    out.append(line[at:])
    return "".join(out)
