"""referee convert: a record between YAML and the table notation."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.commands.loading import _load, _record_io, _write_out, budgeted
from referee.records.notation_write import convert

HELP = (
    "Convert a game record between YAML (or JSON) and the table notation\n"
    "(docs/notation.md; a file ending in .rec), one event a line. The events and the\n"
    "header come out as they went in: what is written is read back and compared, and a\n"
    "record the other form cannot say as it is (an event of no action of the spec's,\n"
    "say) is refused with its place. A set-up the spec can expand (setup: printed)\n"
    "is written as one line where the record spells it out in full, in its order.",
    [
        "referee convert examples/full-game.yaml -o game.rec",
        "referee convert game.rec                 # to YAML, on standard output",
    ],
    ["0  converted", "2  bad input or usage: the place and what was expected"],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee convert`."""
    p.add_argument("record", type=Path, metavar="RECORD", help="a YAML, JSON or .rec record")
    p.add_argument(
        "--to",
        choices=("yaml", "notation"),
        help="the form to write (default: the other one)",
    )
    _record_io(p)


def cmd_convert(args: argparse.Namespace) -> int:
    text = budgeted(
        args.record, "converting", lambda: convert(_load(args, args.record), args.record, args.to)
    )
    return _write_out(args, text, "convert")
