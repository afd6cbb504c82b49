"""Text from input, made safe to echo: escaped and bounded.

Names and values from records, data files and specs reach messages. On the way out they
lose their control characters (no escape sequence reaches a terminal, no newline forges a
line of output) and their length (no message repeats a whole value).
"""

from __future__ import annotations

import re

MAX_SHOWN = 200  # characters of a value, a name or a message echoed back


# Characters never echoed as they are: C0 and C1 controls, DEL, the line and paragraph
# separators, and the marks that reorder text on a terminal (bidi overrides and isolates).
# Lone surrogates (a file name that is not UTF-8) too: no terminal encoding can print them.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escaped(m: re.Match[str]) -> str:
    c = m.group()
    if c in "\n\t\r":
        return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def escape(text: str) -> str:
    """Text from input made safe for a terminal: control characters written as escapes."""
    return _UNSAFE.sub(_escaped, text)


def clip(text: str, limit: int = MAX_SHOWN) -> str:
    """At most ``limit`` characters of a text, saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def shown(text: str, limit: int = MAX_SHOWN) -> str:
    """Text from input as a message may echo it: clipped, then escaped."""
    return escape(clip(text, limit))


def window(line: str, column: int, width: int = 120) -> tuple[str, int]:
    """A source line as it can be shown under a message, and where its caret goes (0-based):
    at most ``width`` characters around ``column``, escaped, tabs as one space."""
    col = max(column - 1, 0)
    start = max(0, min(col - width // 2, len(line) - width))
    end = start + width
    before = ("..." if start > 0 else "") + escape(line[start:col].replace("\t", " "))
    after = escape(line[col:end].replace("\t", " ")) + ("..." if end < len(line) else "")
    return before + after, len(before)
