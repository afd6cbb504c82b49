"""referee convert: a record between YAML and the table notation."""

from __future__ import annotations

import argparse
import sys

from referee.commands.shared import EXIT_BAD_INPUT, EXIT_OK, _load
from referee.records.notation_write import convert


def cmd_convert(args: argparse.Namespace) -> int:
    spec = _load(args, args.record)
    text = convert(spec, args.record, args.to)
    if args.output is None:
        print(text, end="")
        return EXIT_OK
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"referee convert: cannot write {args.output}: {err.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
