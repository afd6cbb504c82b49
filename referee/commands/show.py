"""referee show: the position at an event of a record, as text, JSON or a picture."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee import render as pictures
from referee.commands.loading import _load, budgeted
from referee.commands.options import (
    _ONE_RECORD,
    EXIT_ILLEGAL,
    EXIT_OK,
    _choice_options,
    _common,
    _emit,
    _plain,
)
from referee.resolve.overlays import Choice
from referee.run.position import render as render_position
from referee.run.position import show_position

HELP = (
    "Replay a record as `referee check` does and show where it stands: the\n"
    "event, the spec's summary, the procedures running (outermost first) and every\n"
    "state that differs from its starting value, by clause. Without --at or --after,\n"
    "the position at the end of the record, or before its first illegal event.\n"
    "- reads the record from standard input. -v writes long lists item by item\n"
    "instead of counting repeats. --format svg draws the board at that point, the\n"
    "event and its verdict on it; --format html writes a page that replays the record.",
    [
        "referee show examples/weeks-1-2.yaml --at 28",
        "referee show - --after 3 < game.yaml",
        "referee show examples/combat-example.yaml --at 9 --format svg > board.svg",
        "referee show examples/combat-example.yaml --format html > replay.html",
    ],
    [
        "0  the position is shown",
        "1  an illegal event came first: the position before it is shown, with its clause",
        "2  bad input or usage (an event number the record does not have, say)",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee show`."""
    p.add_argument("record", type=Path, metavar="RECORD", help=_ONE_RECORD)
    when = p.add_mutually_exclusive_group()
    when.add_argument(
        "--at", type=int, metavar="N", help="the position before event N (1 is the first)"
    )
    when.add_argument("--after", type=int, metavar="N", help="the position after event N")
    _choice_options(p)
    _common(p, formats=("text", "json", "svg", "html"))


def cmd_show(args: argparse.Namespace) -> int:
    return budgeted(args.record, "showing the record", lambda: _show(args))


def _show(args: argparse.Namespace) -> int:
    spec = _load(args, args.record)
    choice = Choice(args.printing, list(args.overlay), list(args.no_overlay))
    if args.format in ("svg", "html"):
        make = pictures.picture if args.format == "svg" else pictures.replay_page
        text, replay = make(spec, args.record, choice, args.at, args.after)
        _plain(args, text.rstrip("\n"))
        return EXIT_ILLEGAL if replay.illegal is not None else EXIT_OK
    pos = show_position(spec, args.record, choice, args.at, args.after)
    _emit(args, pos.as_json(), render_position(pos, runs=not args.verbose))
    return EXIT_ILLEGAL if pos.illegal else EXIT_OK
