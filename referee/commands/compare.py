"""referee compare: a record, or random games, judged under every printing and overlay."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.commands.loading import _load, budgeted
from referee.commands.options import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    _common,
    _emit,
    _games_problem,
    _progress,
    _turns_option,
    _until,
    _usage,
)
from referee.records.record import is_stdin
from referee.run.compare import compare, compare_games, render_games
from referee.run.compare import render as render_comparison

HELP = (
    "Replay one record under every other printing, and with each overlay switched (one\n"
    "in force by default off, another on), and show for each variant that changes\n"
    "something the first event whose verdict changes, with the violations in full, the\n"
    "first event whose outcome changes (the standing rules it fired, the consequences\n"
    "it had) and the end of the record (the score). - reads the record from standard\n"
    "input.\n\n"
    "With --games N instead of a RECORD, play N random legal games and count, for each\n"
    "variant, the games in which it changes a verdict and those in which it changes an\n"
    "outcome, with the clause or rule involved most often.\n\n"
    "-v shows every number of a violation, names the variants that change nothing and,\n"
    "with --games, the seeds of the games each variant changes.",
    [
        "referee compare game.yaml",
        "referee compare game.yaml --only ID [ID ...] --format json",
        "referee compare --games 20 --seed 0 --weeks 2",
    ],
    [
        "0  compared, whatever changes",
        "2  bad input or usage, or a game that could not be judged",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee compare`."""
    p.add_argument(
        "record",
        type=Path,
        metavar="RECORD",
        nargs="?",
        help="a YAML or JSON record; - for standard input",
    )
    p.add_argument(
        "--only",
        nargs="+",
        default=[],
        metavar="ID",
        help="only the variants of these printings or overlays (the name of an overlay file"
        " stands for every overlay it declares)",
    )
    p.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="no RECORD: play N random legal games (seeds SEED to SEED+N-1) and compare each",
    )
    p.add_argument("--seed", type=int, metavar="S", help="with --games: the first seed (0)")
    p.add_argument(
        "--until",
        metavar="EXPR",
        help='with --games: stop each game when this holds, e.g. "week > 2"',
    )
    _turns_option(p, "with --games: ")
    _common(p)


def _compare(args: argparse.Namespace) -> int:
    spec = _load(args, args.record)
    result = compare(spec, args.record, args.only)
    _emit(args, result.as_json(), render_comparison(result, args.verbose))
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    problem = ""
    # `compare --only ID... RECORD`: the record, named like no variant, is not an ID
    last = args.only[-1].lower() if args.only else ""
    named = last.endswith((".yaml", ".yml", ".json")) or is_stdin(last)
    if args.record is None and args.games is None and named:
        args.record = Path(args.only.pop())
    for_games = [f"--{k}" for k in ("seed", "until", "weeks") if getattr(args, k) is not None]
    if args.games is None and args.record is None:
        problem = "give a RECORD to compare, or --games N to compare N random games"
    elif args.games is not None and args.record is not None:
        problem = "give a RECORD or --games N, not both"
    elif args.games is None and for_games:
        problem = (
            f"{' and '.join(for_games)} only go{'es' if len(for_games) == 1 else ''} with --games N"
        )
    elif _games_problem(args.games, args.seed):
        problem = _games_problem(args.games, args.seed)
    elif args.until is not None and args.weeks is not None:
        problem = "give --until or --weeks, not both"
    if problem:
        return _usage(args, problem)
    if args.games is None:  # one record, one budget for every variant
        return budgeted(args.record, "comparing the record", lambda: _compare(args))
    spec = _load(args, args.record)
    until = _until(args, spec)
    seed = args.seed or 0
    seeds = list(range(seed, seed + args.games))
    games = compare_games(spec, seeds, until, args.only, _progress(args))
    _emit(args, games.as_json(), render_games(games, args.verbose))
    return EXIT_BAD_INPUT if games.failed else EXIT_OK
