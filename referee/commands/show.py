"""referee show: the position at an event of a record, as text, JSON or a picture."""

from __future__ import annotations

import argparse

from referee import render as pictures
from referee.commands.shared import EXIT_ILLEGAL, EXIT_OK, _emit, _load, _plain
from referee.resolve.overlays import Choice
from referee.run.position import render as render_position
from referee.run.position import show_position


def cmd_show(args: argparse.Namespace) -> int:
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
