"""The spec a command works with (--game, --spec, else the game a record names), and the
records it plays on from and writes."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from referee import resources
from referee.commands.options import EXIT_BAD_INPUT, EXIT_OK, _game_option
from referee.compile.spec import SPEC_ROOT, Spec, bundled_game, load_spec
from referee.data.limits import read_text
from referee.errors import Problem, RefereeError, Span
from referee.records.notation import is_notation
from referee.records.record import MAX_RECORD_BYTES, is_stdin, load_record
from referee.run.play import as_yaml


def _game_of(record: object) -> str | None:
    """The bundled game a YAML or JSON record names in its header, if it names one."""
    if not isinstance(record, Path) or record.is_dir() or is_stdin(record):
        return None
    try:
        if is_notation(record):  # its header, up to the first event: `game: NAME`
            head = re.search(
                r"^game:[ \t]*(\S+)", read_text(record, MAX_RECORD_BYTES, "record"), re.M
            )
            game = head.group(1) if head else ""
        else:
            game = load_record(record, SPEC_ROOT / "schema").game
    except RefereeError:
        return None  # said when the record is judged
    return game if game in resources.bundled_games() else None


def _load(args: argparse.Namespace, record: object = None) -> Spec:
    """The spec a command works with: --game's, --spec's, else the bundled game the record
    names in its header, else the default game."""
    game = getattr(args, "game", None)
    if game is None and args.spec is None and not os.environ.get("REFEREE_SPEC"):
        game = _game_of(record)  # REFEREE_SPEC, when set, is the spec every record is judged by
    if game is not None and args.spec is not None:
        raise RefereeError(
            [
                Problem(
                    Span("<command line>", 0, 0),
                    "give --game NAME (a bundled game) or --spec DIR (a spec folder), not both",
                )
            ]
        )
    return load_spec(bundled_game(game) if game is not None else args.spec, args.data)


def _of_the_game(args: argparse.Namespace, starts: list[Path]) -> list[Path]:
    """The records to play on from that are of the game played (the one --game names, else
    the first record's): a folder may mix games; the others are skipped, with a note."""
    if not starts or args.spec is not None or os.environ.get("REFEREE_SPEC"):
        return starts
    game = getattr(args, "game", None) or _game_of(starts[0]) or resources.default_game()
    kept = [s for s in starts if (_game_of(s) or resources.default_game()) == game]
    if len(kept) < len(starts) and not args.quiet:
        print(
            f"note: --from: {len(starts) - len(kept)} record(s) of another game skipped"
            f" (playing {game})",
            file=sys.stderr,
        )
    return kept


def _as_text(record: dict[str, Any], form: str) -> str:
    if form == "json":
        return json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    return as_yaml(record)


def _record_io(p: argparse.ArgumentParser) -> None:
    """The options of a command that reads one record and writes one: where to write, and the
    spec (`convert`, `hide`)."""
    p.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here, not to stdout")
    _game_option(p)
    p.add_argument("--spec", type=Path, metavar="DIR", help="the game's spec directory")
    p.add_argument("--data", type=Path, metavar="DIR", help="component files replacing the spec's")


def _write_out(args: argparse.Namespace, text: str, command: str) -> int:
    """Write a command's text to -o OUT, else to standard output; its exit code."""
    if args.output is None:
        print(text, end="")
        return EXIT_OK
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"referee {command}: cannot write {args.output}: {err.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
