"""referee clauses, overlays: the rulebook's clauses, its printings and overlays (referee
explain is explain.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.commands.loading import _load
from referee.commands.options import _SPEC_BAD, EXIT_OK, _common, _emit, _plain, _say
from referee.data.limits import read_bytes
from referee.data.walk import walk
from referee.errors import RefereeError
from referee.explainer.clauses import (
    clauses_table,
    game_option,
    overlays_table,
    render_markdown,
    render_overlays,
    render_table,
)
from referee.text import MAX_SHOWN, shown

CLAUSES_HELP = (
    "List every clause of the rulebook in its order: number, kind (normative or\n"
    "informative), number of declarations, title. -v adds each clause's summary and the\n"
    "file and line that declare it.",
    ["referee clauses", "referee clauses --format json", "referee clauses -v"],
    ["0  listed", _SPEC_BAD],
)


def clauses_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee clauses` and `referee overlays`: a table, in markdown too."""
    _common(p, formats=("text", "json", "markdown"))


OVERLAYS_HELP = (
    "List the printings, clarifications and decisions: id, kind, when each is in force,\n"
    "title. -v adds each one's source and date, the clauses it amends and how, and the\n"
    "declarations that embody it.",
    ["referee overlays", "referee overlays --format markdown > docs/rulings.md"],
    ["0  listed", _SPEC_BAD],
)
overlays_arguments = clauses_arguments


def cmd_clauses(args: argparse.Namespace) -> int:
    spec = _load(args)
    rows = clauses_table(spec)
    if args.format == "markdown":
        _plain(args, render_markdown(spec, rows))
    else:
        _emit(args, rows, render_table(rows, args.verbose))
    return EXIT_OK


def cmd_overlays(args: argparse.Namespace) -> int:
    spec = _load(args)
    rows = overlays_table(spec)
    if args.format == "json":
        _emit(args, rows, "")
        return EXIT_OK
    wanted = args.format == "markdown" or args.verbose
    cases = _cases([r["id"] for r in rows]) if wanted else {}
    if args.format == "markdown":
        _plain(args, render_overlays(rows, cases, game_option(spec)))
        return EXIT_OK
    lines = []
    for r in rows:
        lines.append(f"{r['id']:<24} {r['kind']:<14} in force {r['in_force']:<28} {r['title']}")
        if args.verbose:
            lines.append(f"    source: {r['source']} ({r['date']})")
            if r["changes"]:
                lines.append(f"    amends {', '.join(r['amends'])}: " + "; ".join(r["changes"]))
            if r["embodied_by"]:
                lines.append(f"    embodied by: {', '.join(r['embodied_by'])}")
            if cases.get(r["id"]):
                lines.append(f"    cases: {', '.join(cases[r['id']])}")
    _say(args, "\n".join(shown(line, 10 * MAX_SHOWN) for line in lines))
    return EXIT_OK


MAX_CASE_FILES = 10_000  # files looked at for the cases that mention an overlay
MAX_CASE_BYTES = 1024 * 1024  # a larger file is passed over


def _cases(ids: list[str]) -> dict[str, list[str]]:
    """The records and tests that mention each overlay, for the rulings page and -v: those of
    the project the command is run in (its examples/ and tests/ folders; the bundled spec's
    when run at the top of a checkout). Found as a batch finds records (no link followed
    out, no folder deeper than the walk goes), at most MAX_CASE_FILES files of at most
    MAX_CASE_BYTES each; what cannot be read is passed over."""
    root = Path.cwd()
    cases: dict[str, list[str]] = {}
    files: list[Path] = []
    for folder in ("examples", "tests"):
        if (root / folder).is_dir() and not (root / folder).is_symlink():
            files += walk(root / folder, (".yaml", ".py"), [])
    for f in files[:MAX_CASE_FILES]:
        try:
            text = read_bytes(f, MAX_CASE_BYTES).decode("utf-8", errors="replace")
        except RefereeError:
            continue
        for oid in ids:
            if oid in text:
                cases.setdefault(oid, []).append(str(f.relative_to(root)))
    return cases
