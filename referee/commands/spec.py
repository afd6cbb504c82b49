"""referee spec check: every clause, overlay and data file parsed and checked."""

from __future__ import annotations

import argparse
from typing import Any

from referee.commands.loading import _load
from referee.commands.options import EXIT_OK, _command, _common, _emit, _habits, _Parser
from referee.compile.spec import Spec, display_name
from referee.data import cache
from referee.text import MAX_SHOWN, shown


def arguments(sub: Any, summary: str) -> None:
    """The arguments of `referee spec`, its help and what runs it."""
    p = sub.add_parser("spec", help=summary)
    _habits(p)
    spec_sub = p.add_subparsers(dest="spec_command", metavar="ACTION", parser_class=_Parser)
    c = _command(
        spec_sub,
        "check",
        "parse and check every clause, overlay and data file",
        "Parse every .rules file of the game and check names, clause references, labels,\n"
        "types and overlay targets; load and validate the component files. Every problem is\n"
        "reported at once, each at its file, line and column. -v lists every file read, with\n"
        "what it holds, and the disk cache.",
        ["referee spec check", "referee spec check --spec my-game/ --data my-data/"],
        ["0  the spec and its data check", "2  problems found (each located), or usage"],
    )
    _common(c)
    c.set_defaults(run=cmd_spec_check)


def cmd_spec_check(args: argparse.Namespace) -> int:
    spec = _load(args)
    counts: dict[str, int] = {}
    for c in spec.sym.clauses.values():
        for d in c.decls:
            counts[d.kind] = counts.get(d.kind, 0) + 1
    components = {k: len(v) for k, v in spec.components.collections.items()}
    data: dict[str, Any] = {
        "game": spec.game.name if spec.game else "",
        "files": len(spec.modules),
        "clauses": len(spec.sym.clauses),
        "declarations": dict(sorted(counts.items())),
        "overlays": len(spec.sym.overlays),
        "components": components,
    }
    decls = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    comps = ", ".join(f"{n} {k}" for k, n in components.items())
    text = (
        f"spec OK: {data['files']} files, {data['clauses']} clauses ({decls}), "
        f"{data['overlays']} overlays\ncomponents OK: {comps}"
    )
    if args.verbose:
        text += "\n" + "\n".join(_files_read(spec))
    _emit(args, data, text)
    return EXIT_OK


def _files_read(spec: Spec) -> list[str]:
    """Every file a spec was made from, with what it holds."""
    lines = ["files read:"]
    for m in spec.modules:
        what = [f"{len(m.clauses)} clauses"] if m.clauses else []
        what += [f"{len(m.overlays)} overlays"] if m.overlays else []
        what += [f"{len(m.games)} game"] if m.games else []
        what += [f"{len(m.printings)} printings"] if m.printings else []
        lines.append(f"  {m.file}: {', '.join(what) or 'nothing declared'}")
    for doc in spec.components.documents.values():
        held = doc.data if isinstance(doc.data, dict) else {}
        lists = [f"{len(v)} {k}" for k, v in held.items() if isinstance(v, list)]
        lines.append(f"  {display_name(doc.file)}: {', '.join(lists) or 'no collection'}")
    folder = cache.cache_dir()
    if not cache.enabled() or folder is None:
        lines.append("disk cache: off")
    else:
        kept = len(cache.entries(folder))  # none where the folder cannot be listed
        lines.append(f"disk cache: {folder}: {kept} of at most {cache.max_entries()} entries")
    return [shown(line, 10 * MAX_SHOWN) for line in lines]
