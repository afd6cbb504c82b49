"""referee moves: the legal next events of a record's position."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.commands.loading import _load
from referee.commands.options import (
    _ONE_RECORD,
    EXIT_ILLEGAL,
    EXIT_OK,
    _choice_options,
    _common,
    _emit,
    _usage,
)
from referee.resolve.overlays import Choice
from referee.run.moves import MAX_JUDGED, MAX_SECONDS
from referee.run.moves_report import Asked, moves_report, render
from referee.text import shown

MOST_SECONDS = 3_600.0  # --seconds: an hour at most

HELP = (
    "List what the side to act may do next, after the record's last event (or before\n"
    "event N): grouped by action, the legal events found, and the clauses that refused\n"
    "the others, each with how many it refused and the numbers of one. Candidates come\n"
    "from the spec (an action's `choices`, else its proposals and their alternatives);\n"
    "the rules judge each on the position, as `referee check` would judge it appended.\n"
    "By default, of the candidates the spec says are alike (one key), none is judged\n"
    "after a legal one; --all judges every candidate and lists each legal event as a\n"
    "record writes it, up to --limit candidates judged (the output says where it\n"
    "stopped). --stack and --to keep the events that start at / reach a place; --to\n"
    "answers yes with the route, or no with the clause that refuses and its numbers.",
    [
        "referee moves examples/weeks-1-2.yaml --at 28",
        "referee moves examples/fierce-battle/first-turn.yaml --at 1 --stack 0203 --to 0503",
        "referee moves examples/weeks-1-2.yaml --at 28 --action muster --all",
        "referee moves game.rec --format json   # result.events: each as a record writes it",
    ],
    [
        "0  listed (and, with --to, the place is reachable)",
        "1  --to: the place is not reachable; or an illegal event came first (the events"
        " are listed before it)",
        "2  bad input or usage (an event number the record does not have, an unknown name)",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee moves`."""
    p.add_argument("record", type=Path, metavar="RECORD", help=_ONE_RECORD)
    p.add_argument(
        "--at", type=int, metavar="N", help="the position before event N (1 is the first)"
    )
    p.add_argument(
        "--all",
        action="store_true",
        dest="every",
        help="judge every candidate and list each legal event as a record writes it",
    )
    p.add_argument("--stack", default="", metavar="LOCATION", help="events that start there")
    p.add_argument("--to", default="", metavar="LOCATION", help="events that reach there")
    p.add_argument("--action", default="", metavar="NAME", help="events of this action")
    p.add_argument(
        "--limit",
        type=int,
        default=MAX_JUDGED,
        metavar="N",
        help=f"judge at most N candidates (default {MAX_JUDGED:,}); also at most"
        " --seconds of judging",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=MAX_SECONDS,
        metavar="S",
        help=f"list and judge in at most S seconds of processor time (default {MAX_SECONDS:g};"
        f" above 0, at most {MOST_SECONDS:g}), each action its share",
    )
    _choice_options(p)
    _common(p)


def cmd_moves(args: argparse.Namespace) -> int:
    if args.limit < 1:
        return _usage(args, f"--limit {args.limit}: give a number of candidates, 1 or more")
    if not 0 < args.seconds <= MOST_SECONDS:  # NaN fails too
        return _usage(
            args, f"--seconds {args.seconds:g}: give seconds above 0, at most {MOST_SECONDS:g}"
        )
    spec = _load(args, args.record)
    choice = Choice(args.printing, list(args.overlay), list(args.no_overlay))
    if args.action and args.action not in spec.sym.event_actions():
        known = ", ".join(sorted(spec.sym.event_actions()))
        return _usage(args, f"--action {shown(args.action)}: no such action (actions: {known})")
    asked = Asked(args.at, args.every, args.action, args.stack, args.to, args.limit, args.seconds)
    report = moves_report(spec, args.record, choice, asked)
    _emit(args, report.as_json(), render(report))
    if report.illegal is not None:
        return EXIT_ILLEGAL
    if report.answer is not None and not report.answer.reachable:
        return EXIT_ILLEGAL
    return EXIT_OK
