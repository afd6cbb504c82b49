"""The spec a command works with (--game, --spec, else the game a record names), and the
records it plays on from and writes."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from referee import resources
from referee.budget import within_limit
from referee.commands.options import EXIT_BAD_INPUT, EXIT_OK, _game_option, _out
from referee.compile.spec import SPEC_ROOT, Spec, bundled_game, load_spec
from referee.data.write import write_file
from referee.errors import Problem, RefereeError, Span
from referee.records.notation import is_notation
from referee.records.record import (
    is_stdin,
    load_record,
    read_once,
    record_name,
    record_text,
)
from referee.run.play import as_yaml
from referee.text import shown


def _game_of(record: object) -> str | None:
    """The bundled game a YAML or JSON record names in its header, if it names one."""
    if not isinstance(record, Path) or record.is_dir() or is_stdin(record):
        return None
    try:
        if is_notation(record):  # its header, up to the first event: `game: NAME`
            head = re.search(r"^game:[ \t]*(\S+)", record_text(record), re.M)
            game = head.group(1) if head else ""
        else:
            game = load_record(record, SPEC_ROOT / "schema").game
    except RefereeError:
        return None  # said when the record is judged
    return game if game in resources.bundled_games() else None


_T = TypeVar("_T")


def budgeted(record: object, doing: str, work: Callable[[], _T]) -> _T:
    """A command's ``work`` on one record under one time limit (REFEREE_TIME_LIMIT), from
    the record's first reading (to learn its game) to its last verdict, each record file
    read once."""
    name = record_name(record) if isinstance(record, (str, Path)) else "<command line>"
    with read_once():
        return within_limit(work, name, doing, "REFEREE_TIME_LIMIT sets the limit, in seconds")


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
    """Write a command's text to -o OUT (a regular file: a FIFO or a device there is refused,
    never waited on), else to standard output under any encoding; its exit code. The path
    is echoed escaped."""
    if args.output is None:
        _out(text)
        return EXIT_OK
    try:
        write_file(args.output, text)
    except RefereeError as err:
        (problem,) = err.problems
        hint = f"\n  hint: {problem.hint}" if problem.hint else ""
        said = f"referee {command}: cannot write {shown(str(args.output))}: {problem.message}"
        print(said + hint, file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
