"""What the command line says about clauses: the table and the explanation of one.

Built as plain data first (for ``--format json``), then rendered as text.
"""

from __future__ import annotations

import textwrap
from typing import Any

from referee.dsl import ast
from referee.errors import RefereeError, Span, fail
from referee.spec import Spec, clause_key


def signature(d: ast.Decl) -> str:
    def ps(params: list[ast.Param]) -> str:
        return ", ".join(f"{p.name}: {p.type}" for p in params)

    if isinstance(d, ast.Define):
        return f"define {d.name}({ps(d.params)}): {d.type}"
    if isinstance(d, ast.ConstDecl):
        return f"const {d.name}: {d.type}"
    if isinstance(d, ast.TableDecl):
        return f"table {d.name}({ps([d.param])}): {d.type}"
    if isinstance(d, ast.Require):
        return f"require [{d.name}] ({ps(d.params)})"
    if isinstance(d, ast.Property):
        return f"property [{d.name}] {d.text!r}"
    if isinstance(d, ast.EnumDecl):
        values = " | ".join(d.values) if d.values else f"(from data: {d.from_data})"
        return f"enum {d.name} = {values}"
    if isinstance(d, ast.RecordDecl):
        return f"record {d.name} {{{ps(d.fields)}}}"
    if isinstance(d, ast.Procedure):
        return f"procedure {d.name}({ps(d.params)}) {d.title!r}"
    return f"{d.kind} {d.name}"


def clause_row(spec: Spec, c: ast.Clause) -> dict[str, Any]:
    return {
        "id": f"{spec.game.name if spec.game else ''}:{c.number}",
        "number": c.number,
        "title": c.title,
        "summary": c.summary,
        "kind": "informative" if c.informative else "normative",
        "printings": c.printings,
        "declarations": [d.name for d in c.decls],
        "file": c.span.file,
        "line": c.span.line,
    }


def clauses_table(spec: Spec) -> list[dict[str, Any]]:
    return [clause_row(spec, c) for c in spec.clauses()]


def render_table(rows: list[dict[str, Any]]) -> str:
    head = f"{'clause':<8} {'kind':<11} {'decls':>5}  title"
    out = [head, "-" * len(head)]
    for r in rows:
        out.append(f"{r['number']:<8} {r['kind']:<11} {len(r['declarations']):>5}  {r['title']}")
    out.append(f"{len(rows)} clauses")
    return "\n".join(out)


def resolve_topic(spec: Spec, topic: str) -> tuple[ast.Clause, ast.Decl | None]:
    """A clause number, a label (7.3.1/no-pickup) or a declared name, to its clause."""
    number, _, label = topic.partition("/")
    clause = spec.clause(number)
    if clause is not None:
        if not label:
            return clause, None
        d = clause.label(label)
        if d is None:
            raise _unknown(f"clause {number} has no label [{label}]")
        return clause, d
    for table in (spec.sym.values, spec.sym.types, spec.sym.actions):
        d = table.get(topic)
        if d is not None and d.clause in spec.sym.clauses:
            return spec.sym.clauses[d.clause], d
    raise _unknown(
        f"no clause, label or definition '{topic}'",
        "list the clauses with: referee clauses",
    )


def _unknown(message: str, hint: str = "") -> RefereeError:
    return fail(Span("<command line>", 0, 0), message, hint)


def explain(spec: Spec, topic: str) -> dict[str, Any]:
    clause, focus = resolve_topic(spec, topic)
    row = clause_row(spec, clause)
    row["text"] = spec.source_of(clause.span)
    row["see"] = [str(r) for r in clause.see]
    row["declarations"] = [
        {"kind": d.kind, "name": d.name, "signature": signature(d), "line": d.span.line}
        for d in clause.decls
    ]
    if focus is not None:
        row["focus"] = {
            "kind": focus.kind,
            "name": focus.name,
            "signature": signature(focus),
            "text": spec.source_of(focus.span),
            "line": focus.span.line,
        }
    row["overlays"] = [
        {
            "id": o.id,
            "title": o.title,
            "kind": o.kind,
            "source": o.source,
            "date": o.date,
            "changes": [
                _change_text(ch) for a in o.amends if a.clause == clause.number for ch in a.changes
            ],
        }
        for o in spec.overlays_touching(clause.number)
    ]
    row["used_by"] = sorted(spec.sym.used_by.get(clause.number, set()), key=clause_key)
    row["cited_by"] = sorted(
        (c.number for c in spec.clauses() if any(r.clause == clause.number for r in c.see)),
        key=clause_key,
    )
    return row


def _change_text(ch: ast.Change) -> str:
    if ch.decl is not None:
        return f"{ch.action} {signature(ch.decl)}"
    return f"{ch.action} {ch.ref}"


def render_explanation(x: dict[str, Any]) -> str:
    out = [f"{x['number']}  {x['title']}  ({x['kind']})", ""]
    out.append(_wrap(x["summary"]))
    out.append("")
    out.append(f"printings: {', '.join(x['printings']) or '-'}")
    if x["see"]:
        out.append(f"see also: {', '.join(x['see'])}")
    if "focus" in x:
        f = x["focus"]
        out += ["", f"{f['signature']}  ({x['file']}:{f['line']})", _indent(f["text"])]
    out += ["", f"as written in the spec ({x['file']}:{x['line']}):", _indent(x["text"])]
    out.append("")
    if x["overlays"]:
        out.append("overlays that amend it:")
        for o in x["overlays"]:
            out.append(f"  {o['id']} ({o['kind']}, {o['date']}): {o['title']}")
            out.append(f"    source: {o['source']}")
            out += [f"    {c}" for c in o["changes"]]
    else:
        out.append("overlays that amend it: none")
    out.append(f"used by: {', '.join(x['used_by']) or 'no other clause'}")
    out.append(f"cited by: {', '.join(x['cited_by']) or 'no other clause'}")
    return "\n".join(out)


def _indent(text: str) -> str:
    return textwrap.indent(text, "    ")


def _wrap(text: str, width: int = 88) -> str:
    return textwrap.fill(text, width)
