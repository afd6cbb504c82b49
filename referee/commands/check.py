"""referee check: records judged, one or a folder of them on every core."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from referee.commands.loading import _load, budgeted
from referee.commands.options import (
    EXIT_BAD_INPUT,
    EXIT_ILLEGAL,
    EXIT_OK,
    _choice_options,
    _common,
    _emit,
    _json_wanted,
    _progress,
    _say,
)
from referee.compile.spec import Spec
from referee.data.walk import Skipped
from referee.errors import Problem, RefereeError, Span
from referee.hidden.search import MAX_SECONDS, Limits
from referee.records.record import is_stdin
from referee.resolve.overlays import Choice
from referee.run.batch import Result, check_many, expand, render_summary, summary
from referee.run.replay import check_one, render
from referee.text import shown

HELP = (
    "Replay game records and judge every event against the rules: a legal record's\n"
    "verdict says where the game stands and what the standing rules did on the way; an\n"
    "illegal event is reported at its file, line and column with the clause and condition\n"
    "it breaks, the numbers that decide it and what its actor could have done instead.\n"
    "Folders are searched for .yaml, .yml and .json records, judged on every core, with a\n"
    "summary. - reads a record from standard input. -v is --explain and --trace, and\n"
    "shows every record's verdict in a batch.",
    [
        "referee check examples/weeks-1-2.yaml",
        "referee check examples/illegal/ --format json",
        "git show HEAD:game.yaml | referee check -",
        "referee -q check game.yaml && echo legal",
        "referee check seat.yaml --witness complete.yaml   # a view record (view:)",
    ],
    [
        "0  every record is legal to its end; a view record: consistent",
        "1  an illegal event, or an outcome the record expected otherwise; a view record:"
        " inconsistent",
        "2  bad input or usage: a record that does not read, breaks the schema or names"
        " what the game does not know; a view record: unknown (a bound or --timeout)",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee check`."""
    p.add_argument(
        "records",
        nargs="+",
        type=Path,
        metavar="RECORD",
        help="YAML, JSON or .rec (the table notation) records, or directories; - for"
        " standard input",
    )
    _choice_options(p)
    p.add_argument(
        "--all", action="store_true", help="go on past an illegal event and report every one"
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="tell what happened at each event: its consequences, clauses and numbers"
        " (a dispute, a few events from a position, is told unasked)",
    )
    p.add_argument(
        "--witness",
        type=Path,
        default=None,
        metavar="FILE",
        help="a view record (view: in its header) judged consistent: write its witness there,"
        " a complete record `referee check` judges legal (docs/hidden.md)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="a view record: the time its search may take before the answer is unknown"
        f" (exit 2; default {MAX_SECONDS:g})",
    )
    p.add_argument(
        "--trace",
        action="store_true",
        help="with a refusal, every call the rules evaluated on the way, not only the decisive",
    )
    _common(p)


def cmd_check(args: argparse.Namespace) -> int:
    first = args.records[0]
    if len(args.records) == 1 and (is_stdin(first) or not first.is_dir()):
        return budgeted(first, "judging", lambda: _check(args))  # one record, one budget
    return _check(args)


def _check(args: argparse.Namespace) -> int:
    spec = _load(args, args.records[0] if len(args.records) == 1 else None)
    choice = Choice(args.printing, list(args.overlay), list(args.no_overlay))
    explain, trace = args.explain or args.verbose, args.trace or args.verbose
    paths, skipped = expand(list(args.records))
    first = args.records[0]
    if len(paths) == 1 and not skipped and not is_stdin(first) and _is_view(spec, first):
        return _check_view(args, spec, choice, first)
    if args.witness is not None:
        raise RefereeError(
            [Problem(Span("<command line>", 0, 0), "--witness is for one view record (view:)")]
        )
    if len(paths) == 1 and not skipped and (is_stdin(first) or not first.is_dir()):
        verdict = check_one(spec, paths[0], choice, args.all, offer=True)  # bad input: exit 2
        verdict.explain = verdict.explain or explain
        verdict.show_trace = trace
        one = [Result(verdict.file, verdict)]
        _emit(args, _checked(one, []), render(verdict))
        return EXIT_OK if verdict.legal else EXIT_ILLEGAL
    if not paths:
        if not args.quiet:
            for s in skipped:
                print(s.text(), file=sys.stderr)
        raise RefereeError([Problem(Span(str(args.records[0]), 0, 0), "no records here")])
    progress = _progress(args) and len(paths) >= 20
    every = len(paths) <= 20 or args.verbose
    as_text = None if _json_wanted(args) else (explain, trace, every)
    results = check_many(spec, paths, choice, args.all, progress, offer=True, as_text=as_text)
    if as_text is None:
        _emit(args, _checked(results, skipped), "")
    else:  # each result kept as its text, where it was judged
        shown_ = [r.text() for r in results if r.status != "legal" or every]
        total = render_summary(summary(results, skipped))
        _say(args, "\n".join([*shown_, *(s.text() for s in skipped), total]))
    if any(r.status == "bad input" for r in results):
        return EXIT_BAD_INPUT
    return EXIT_OK if all(r.status == "legal" for r in results) else EXIT_ILLEGAL


def _seconds(text: str) -> float:
    """A --timeout: seconds, more than none and at most an hour."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds from above 0 to 3600, got {text!r}")
    return seconds


def _is_view(spec: Spec, path: Path) -> bool:
    from referee.hidden.judge import is_view_record

    return is_view_record(spec, path)


def _check_view(args: argparse.Namespace, spec: Spec, choice: Choice, path: Path) -> int:
    """A view record: consistent (0, its witness), inconsistent (1) or unknown (2)."""
    from referee.hidden.judge import judge_view, render_judgement, write_witness

    limits = Limits(seconds=args.timeout) if args.timeout is not None else Limits()
    judgement = judge_view(spec, path, choice, limits)
    written, failed = None, None
    if args.witness is not None and judgement.witness is not None:
        try:  # a regular file only: a folder, a FIFO or a device is refused, never waited on
            write_witness(args.witness, judgement.witness)
            written = args.witness
        except RefereeError as err:
            failed = err
    _emit(args, judgement.as_json(), render_judgement(judgement, written))
    if failed is not None:  # the verdict is given; the witness could not be written
        for problem in failed.problems:
            print(
                f"referee check: cannot write the witness {shown(str(args.witness))}:"
                f" {problem.message}",
                file=sys.stderr,
            )
        return EXIT_BAD_INPUT
    return {"consistent": EXIT_OK, "inconsistent": EXIT_ILLEGAL}.get(
        judgement.status, EXIT_BAD_INPUT
    )


def _checked(results: list[Result], skipped: list[Skipped]) -> dict[str, Any]:
    """check's result, for one record as for many: each record's verdict (or its problems),
    what was passed over, and the counts."""
    return {
        "records": [r.as_json() for r in results],
        "skipped": [{"file": s.path, "reason": s.reason} for s in skipped],
        "summary": summary(results, skipped),
    }
