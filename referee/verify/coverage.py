"""What each proof covers and what it leaves out, read from the spec alone (no proof run):
docs/commands/prove.md's table of the properties is made from it (docs/prove_properties.py),
so that it says, property by property, the same as the spec."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.compile.spec import clause_key
from referee.parse import ast
from referee.resolve.symbols import Symbols
from referee.verify.prover import numbers
from referee.verify.records import source_of
from referee.verify.standing import standing_within
from referee.verify.values import DEFAULT_BOUND


@dataclass
class Coverage:
    clause: str
    label: str
    kind: str  # over definitions, step invariant, after ACTION, allows ACTION, standing rule
    claim: str  # the property's own words
    covers: str  # what a proof shows, with its bounds
    leaves_out: str  # what it does not
    note: str  # the spec's comment above the declaration, in one paragraph


def _lists(within: dict[str, int]) -> str:
    named = ", ".join(f"{n} {t}" for t, n in sorted(within.items()))
    rest = f"{DEFAULT_BOUND} of any other type"
    return f"lists of at most {named}, {rest}" if named else f"lists of at most {rest}"


def _comment(span_file: str, line: int) -> str:
    """The comment lines right above a declaration, joined (none: empty)."""
    try:
        lines = Path(span_file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    out: list[str] = []
    i = line - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        out.insert(0, lines[i].strip().lstrip("#").strip())
        i -= 1
    return " ".join(x for x in out if x)


def _definitions(p: ast.Property) -> tuple[str, str]:
    body = p.body
    ranges = []
    if isinstance(body, ast.Quant) and body.kind == "forall":
        ranges = [
            f"{b.name} in {' '.join(source_of(b.domain).split())}"
            for b in body.binders
            if numbers(b.domain)
        ]
    if ranges:
        return (
            f"every value of its variables for {', '.join(ranges)}",
            "values outside those ranges; how an event uses the definitions, unless a step"
            " property says it",
        )
    return (
        "every value of its variables (no bound)",
        "how an event uses the definitions, unless a step property says it",
    )


def coverage(sym: Symbols) -> list[Coverage]:
    """One entry a property and a standing rule, in clause order."""
    decls = [d for d in sym.labels.values() if isinstance(d, (ast.Property, ast.Whenever))]
    decls.sort(key=lambda d: (clause_key(d.clause), d.span.line))
    rules_within = standing_within(sym)
    out = []
    for d in decls:
        note = _comment(d.span.file, d.span.line)
        if isinstance(d, ast.Whenever):
            out.append(
                Coverage(
                    d.clause,
                    d.name,
                    "standing rule",
                    d.text,
                    "from any position where it is due, its body leaves it no longer due (or"
                    " ends the game), and no chain of standing rules re-triggers forever; "
                    + _lists(rules_within),
                    "positions with longer lists",
                    note,
                )
            )
            continue
        if not d.invariant:
            covers, leaves = _definitions(d)
            kind = "over definitions"
        elif d.after:
            kind = f"after {d.after}"
            covers = (
                f"every '{d.after}' event the rules allow, from any position at rest (reachable"
                f" or not), compared with the position before it; {_lists(d.within)}"
            )
            leaves = "longer lists; every other action"
        elif d.allows:
            kind = f"allows {d.allows}"
            covers = (
                f"every '{d.allows}' event in the case the property states, from any position at"
                f" rest, passes every check; {_lists(d.within)}"
            )
            leaves = (
                "any case the property does not state (the rules may refuse those); longer lists"
            )
        else:
            kind = "step invariant"
            covers = (
                "every position a game reaches: at the set-up (or each start of the procedure"
                " whose variables it reads) and after every event the rules allow from a"
                " position where it holds, or, where the standing rules make it so, every"
                f" position at rest; {_lists(d.within)}"
            )
            leaves = (
                "a record's own position (assumed to satisfy it: the referee does not check"
                " it); longer lists"
            )
        out.append(Coverage(d.clause, d.name, kind, d.text, covers, leaves, note))
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(sym: Symbols) -> str:
    """The table of docs/commands/prove.md, between its markers."""
    entries = coverage(sym)
    lines = [
        f"{len(entries)} proofs, in clause order: what each claims, what a proof covers (its"
        " bounds) and what it leaves out, and the spec's own note on how the property is"
        " written (most say which definitions it is written apart from: a property that"
        " restated the definition it checks would prove nothing).",
        "",
        "| property | kind | claims | a proof covers | it leaves out | the spec's note |",
        "|---|---|---|---|---|---|",
    ]
    for e in entries:
        lines.append(
            f"| {e.clause}/{e.label} | {e.kind} | {_cell(e.claim)} | {_cell(e.covers)}"
            f" | {_cell(e.leaves_out)} | {_cell(e.note)} |"
        )
    return "\n".join(lines) + "\n"
