"""referee compare: a record, or random games, judged under every printing and overlay."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.commands.shared import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    _emit,
    _games_problem,
    _load,
    _progress,
    _usage,
)
from referee.records.record import is_stdin
from referee.run.compare import compare, compare_games, render_games
from referee.run.compare import render as render_comparison


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
    spec = _load(args, args.record)
    if args.games is None:
        result = compare(spec, args.record, args.only)
        _emit(args, result.as_json(), render_comparison(result, args.verbose))
        return EXIT_OK
    until = args.until or (f"week > {args.weeks}" if args.weeks is not None else "")
    seed = args.seed or 0
    seeds = list(range(seed, seed + args.games))
    games = compare_games(spec, seeds, until, args.only, _progress(args))
    _emit(args, games.as_json(), render_games(games, args.verbose))
    return EXIT_BAD_INPUT if games.failed else EXIT_OK
