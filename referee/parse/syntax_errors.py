"""Syntax errors for people: a located problem, with a sentence of its own for the mistakes
people make most (Lark's match_examples) instead of a list of expected tokens."""

from __future__ import annotations

from functools import lru_cache

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from referee.errors import Problem, Span
from referee.parse.grammar import lark_parser

# A sentence for the mistakes people make most; each key is matched by example.
FRIENDLY: dict[str, tuple[str, str, list[str]]] = {
    "missing-end": (
        "this clause, procedure, step or overlay is not closed",
        "add `end` after its last line",
        [
            'clause 2.1 "T"\n summary "s"\n',
            'clause 2.1 "T"\n define f(a: int): int = a\n',
            'clause 2.1 "T"\n procedure p "P"\n step s\n actor a\n end\n',
            'overlay X-y "T"\n amend 2.1\n drop 2.1/a\n',
            'clause 2.1 "T"\n summary "s"\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\n define f(a: int): int = a\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\n const a: int = 1\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\n require [r] (a: int): a > 1\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\n require [r] (a: int): a > 1 because "m"\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\n see 2.2\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\n printings p\nclause 2.2 "U"\nend\n',
            'clause 2.1 "T"\nclause 2.2 "U"\nend\n',
        ],
    ),
    "clause-title": (
        "a clause needs a quoted title after its number",
        'write it as: clause 7.3.5 "Movement and force sizes"',
        ['clause 2.1\n summary "s"\nend', "clause 2.1 end", "clause 2.1 define f(): int = 1 end"],
    ),
    "clause-number": (
        "a clause number has at least two parts, like 7.3.1",
        'write it as: clause 8.10 "Card replenishment"',
        ['clause "T" end', 'clause 7 "T" end', 'clause x "T" end'],
    ),
    "equals-compare": (
        "`=` gives a definition its value; to compare two values use `==`",
        "",
        [
            'clause 2.1 "T" define f(a: int): bool = a = 1 end',
            'clause 2.1 "T" require [r] (a: int): a = 1 end',
        ],
    ),
    "param-type": (
        "every parameter needs a type",
        "write it as: name: int (or bool, text, an enum, a record, list of T)",
        [
            'clause 2.1 "T" define f(a): int = 1 end',
            'clause 2.1 "T" define f(a, b: int): int = 1 end',
            'clause 2.1 "T" require [r] (a): a > 1 end',
        ],
    ),
    "result-type": (
        "a definition needs the type of its result",
        "write it as: define name(param: int): int = ...",
        ['clause 2.1 "T" define f(a: int) = 1 end', 'clause 2.1 "T" define f() = 1 end'],
    ),
    "require-label": (
        "a requirement needs a label in brackets, so verdicts can cite it",
        "write it as: require [no-pickup] (params): condition",
        ['clause 2.1 "T" require (a: int): a > 0 end', 'clause 2.1 "T" require a > 0 end'],
    ),
    "const-type": (
        "a constant needs a type",
        "write it as: const name: int = 4",
        ['clause 2.1 "T" const a = 4 end'],
    ),
}


# Words that open a new item: met inside another, the one before lacks its `end`.
OPENERS = {"clause", "overlay", "game", "printing", "extern", "procedure", "amend"}


@lru_cache(maxsize=2)
def _friendly_states(parser: Lark) -> dict[tuple[int, str], str]:
    """(LALR state, token type) of each example's error, to the mistake it shows.

    Like Lark's ``match_examples``, but on the parser's current state alone, so
    that a mistake is recognised however deep in the file it sits. Kept for the parser
    it was made with: Lark numbers its states differently from one build of the tables
    to the next (string hashing varies between processes), so a table made with one
    parser says nothing of another's states (tables loaded from the disk cache, or built
    again after ``lark_parser.cache_clear()``).
    """
    table: dict[tuple[int, str], str] = {}
    for key, (_, _, examples) in FRIENDLY.items():
        for example in examples:
            try:
                parser.parse(example, start="start")
            except (UnexpectedToken, UnexpectedEOF) as ut:
                if ut.state is not None:
                    table.setdefault((ut.state.position, ut.token.type), key)
    return table


def _friendly_key(err: UnexpectedInput) -> str | None:
    state = getattr(err, "state", None)
    token = getattr(err, "token", None)
    if state is None or token is None:
        return None
    return _friendly_states(lark_parser()).get((state.position, token.type))


def _readable(name: str) -> str:
    parser = lark_parser()
    try:
        term = parser.get_terminal(name)
    except KeyError:
        return name
    pattern = term.pattern
    if pattern.type == "str":
        return f"`{pattern.value}`"
    return {
        "NAME": "a name",
        "ID": "an id",
        "INT": "a whole number",
        "STRING": "a quoted string",
        "CLAUSE_NUM": "a clause number (like 7.3.1)",
        "LABEL_REF": "a clause label (like 7.3.1/no-pickup)",
        "CMP_OP": "a comparison",
        "ADD_OP": "`+` or `-`",
        "MUL_OP": "`*`, `//` or `%`",
        "SET_OP": "`=`, `+=` or `-=`",
    }.get(name, name.lower())


def error_place(err: UnexpectedInput, file: str, text: str) -> tuple[Span, int]:
    """Where Lark's syntax error sits, for a reader (the end of the text when it ran out),
    and its offset in the text. Every grammar of the package places its errors so."""
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF) or line < 1:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    return Span(file, line, col), getattr(err, "pos_in_stream", None) or 0


def _syntax_problem(err: UnexpectedInput, file: str, text: str, start: str) -> Problem:
    span, pos = error_place(err, file, text)
    if isinstance(err, UnexpectedCharacters) and text[pos : pos + 1] == '"':
        return Problem(
            span, "this string is not closed", 'a quoted string ends with " on its own line'
        )
    if isinstance(err, UnexpectedToken) and str(err.token) in OPENERS and err.token.type != "NAME":
        return Problem(
            span,
            f"`{err.token}` starts here, but the clause, procedure, step or overlay before it"
            " is not closed",
            "add `end` before this line",
        )
    key = _friendly_key(err) if start == "start" else None
    if key:
        message, hint, _ = FRIENDLY[key]
        return Problem(span, message, hint)
    if isinstance(err, UnexpectedToken):
        expected = sorted({_readable(t) for t in err.expected if t != "$END"})
        found = "the end of the file" if err.token.type == "$END" else f"`{err.token}`"
        message = f"unexpected {found}"
    elif isinstance(err, UnexpectedCharacters):
        expected = sorted({_readable(t) for t in err.allowed})
        message = f"unexpected character {text[pos : pos + 1]!r}"
    else:
        expected = sorted({_readable(t) for t in getattr(err, "expected", [])})
        message = "unexpected end of the file"
    hint = ""
    if expected:
        shown = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        hint = f"expected {shown}"
    return Problem(span, message, hint)
