"""referee hide: a complete record as one view would have kept it (issue 31.2)."""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

from referee.commands.loading import _load, _record_io, _write_out, budgeted
from referee.data.source import parse_document
from referee.errors import Problem, RefereeError
from referee.records.notation import is_notation
from referee.records.notation_read import notation_document
from referee.records.notation_write import to_notation
from referee.records.record import load_record
from referee.records.views import Hider
from referee.resolve.overlays import Choice
from referee.run.play import as_yaml
from referee.run.referee import Referee

HELP = (
    "Write a record as one view would have kept it at the table: `public` (what both\n"
    "players saw) or a side (what that seat saw). Who sees what is the spec's `hidden`\n"
    "declaration (docs/rules-language.md): an unseen block is written '?', one a block,\n"
    "so a stack's size stays seen; an unseen hand or draw as its size. The record may\n"
    "start from the set-up or from a position, and may be a view that saw more (a side's\n"
    "view hidden again as the public one). Expectations (`expect:`) are left out.\n"
    "docs/hidden.md tells more.",
    [
        "referee hide game.yaml --view public",
        "referee hide game.rec --view SIDE -o seat.yaml    # a side: who acts in the game's events",
    ],
    ["0  written", "2  bad input or usage: the place and what was expected"],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee hide`."""
    p.add_argument("record", type=Path, metavar="RECORD", help="a YAML, JSON or .rec record")
    p.add_argument(
        "--view",
        required=True,
        metavar="VIEW",
        help="public, or a side (one of the game's players)",
    )
    p.add_argument(
        "--to",
        choices=("yaml", "json", "notation"),
        default="yaml",
        help="the form to write (default yaml; notation: the table notation, docs/notation.md)",
    )
    _record_io(p)


def cmd_hide(args: argparse.Namespace) -> int:
    # one record, one time limit, read once (as check, show and convert read it)
    text = budgeted(args.record, "hiding", lambda: _hidden(args))
    return _write_out(args, text, "hide")


def _hidden(args: argparse.Namespace) -> str:
    """The record as the side --view names saw it, in the form --to asks for."""
    spec = _load(args, args.record)
    read = partial(notation_document, spec) if is_notation(args.record) else None
    record = load_record(args.record, spec.game_dir.parent / "schema", read)
    game = spec.game
    if game is not None and record.game != game.name:
        where = record.doc.span(("game",))
        message = f"this record is of '{record.game}', not '{game.name}'"
        raise RefereeError([Problem(where, message)], {record.doc.file: record.doc.text})
    ref = Referee(spec, record, Choice())
    try:
        if not record.view:  # a view's position holds marks: no side's is read from it
            ref.start()
        players = ref.interp.enum_values(ref.sym.players) if ref.sym.players else []
        hider = Hider(ref.sym, [str(p) for p in players], ref.interp.eval, ref.convert.convert)
        hidden = hider.hide(record, args.view)
    finally:
        ref.release()
    if args.to == "json":
        text = json.dumps(hidden, indent=2, ensure_ascii=False) + "\n"
    elif args.to == "notation":
        name = f"{record.doc.file} (as {args.view} saw it)"
        text = to_notation(spec, parse_document(as_yaml(hidden), name), [])
    else:
        text = as_yaml(hidden)
    return text
