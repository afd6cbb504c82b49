"""referee play: random legal games, their records, and how much of the spec they reach."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from referee.commands.loading import _as_text, _load, _of_the_game
from referee.commands.options import (
    EXIT_ILLEGAL,
    EXIT_OK,
    _emit,
    _game_option,
    _games_problem,
    _out,
    _progress,
    _turns_option,
    _until,
    _usage,
)
from referee.compile.coverage import Coverage
from referee.compile.spec import Spec
from referee.data.write import Folder
from referee.run.batch import expand
from referee.run.coverage import render as render_coverage
from referee.run.coverage import table as coverage_table
from referee.run.play import Game, play, play_many
from referee.run.replay import render as render_verdict
from referee.text import MAX_SHOWN, shown

HELP = (
    "Play a random legal game, the rules proposing and judging every event, and print\n"
    "its record (YAML, or JSON); the same seed gives the same game. With --games N\n"
    "--out DIR, play N seeds on every core and write a record each. -v says on standard\n"
    "error how many events were played and why the game stopped, and with --out names\n"
    "each file written.",
    [
        "referee play --seed 7 --weeks 2 > game.yaml",
        "referee play --games 200 --out games/",
        "referee play --seed 3 | referee check -",
    ],
    [
        "0  played (to the end, to the --until condition, or as far as proposals go)",
        "1  a --from record's starting position cannot arise (as `referee check` refuses"
        " it): no game is played from it, the others are",
        "2  bad input or usage: an --until that is no condition, an --out folder that"
        " cannot be written",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee play`."""
    p.add_argument("--seed", type=int, default=0, help="the random seed: one seed, one game")
    p.add_argument(
        "--until", default="", metavar="EXPR", help='stop when this holds, e.g. "week > 2"'
    )
    _turns_option(p, "")
    _game_option(p)
    p.add_argument("--spec", type=Path, metavar="DIR", help="the game's spec directory")
    p.add_argument("--data", type=Path, metavar="DIR", help="component files replacing the spec's")
    p.add_argument("--format", choices=("yaml", "json"), default="yaml", help="output format")
    p.add_argument(
        "--games", type=int, default=1, metavar="N", help="N games, seeds SEED to SEED+N-1"
    )
    p.add_argument(
        "--out", type=Path, metavar="DIR", help="write each game to DIR/game-SEED.yaml (or .json)"
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="with --out: write over files of the same names (else they are refused)",
    )
    p.add_argument(
        "--coverage",
        action="store_true",
        help="print how often the games reached each requirement, action and step of the spec",
    )
    p.add_argument(
        "--from",
        dest="start",
        type=Path,
        action="append",
        metavar="RECORD",
        help="play on from a record's position and its legal events (a folder: each record"
        " in it); with --games N, N seeds from each",
    )
    p.add_argument(
        "--explore",
        action="store_true",
        help="a player that seeks what the game has not reached yet, each printing in turn",
    )


def cmd_play(args: argparse.Namespace) -> int:
    problem = _games_problem(args.games, args.seed)
    starts, _ = expand(args.start) if args.start else ([], [])
    if args.start and not starts:
        problem = "--from: no record found there"
    if (args.games > 1 or len(starts) > 1) and args.out is None and not args.coverage:
        problem = "--games N needs --out DIR (or --coverage) for more than one game"
    if args.replace and args.out is None:
        problem = "--replace goes with --out DIR"
    if problem:
        return _usage(args, problem)
    spec = _load(args, starts[0] if starts else None)
    starts = _of_the_game(args, starts)
    if args.start and not starts:
        return _usage(args, "--from: no record of the game played found there")
    until = _until(args, spec)
    if args.out is None and not args.coverage:
        start = starts[0] if starts else None
        game = play(spec, args.seed, until, explore=args.explore, start=start)
        if game.refused is not None:
            return _refused([game], args.quiet)
        if not args.quiet:
            _out(_as_text(game.record(spec, args.seed), args.format))
        if args.verbose:  # the record is the output: the rest goes beside it
            print(
                f"seed {args.seed}: {len(game.events)} events; stopped: {game.stopped}",
                file=sys.stderr,
            )
        return EXIT_OK
    seeds = list(range(args.seed, args.seed + args.games))
    names = [f"{start.stem}-{seed:04}" for start in starts for seed in seeds] or [
        f"game-{seed:04}" for seed in seeds
    ]
    with contextlib.ExitStack() as stack:
        folder = None
        if args.out is not None:
            folder = stack.enter_context(Folder(args.out, args.replace))
            taken = folder.taken([f"{name}.{args.format}" for name in names])
            if taken is not None:  # said before any game is played
                raise taken
        return _play_out(args, spec, until, seeds, starts, names, folder)


def _play_out(
    args: argparse.Namespace,
    spec: Spec,
    until: str,
    seeds: list[int],
    starts: list[Path],
    names: list[str],
    folder: Folder | None,
) -> int:
    """Games played on every core, written to --out's folder, or counted (--coverage)."""
    games = play_many(
        spec,
        seeds,
        until,
        progress=_progress(args) and len(seeds) * max(len(starts), 1) > 1,
        coverage=args.coverage,
        explore=args.explore,
        starts=starts or None,
        refused=True,
    )
    code = _refused([g for g in games if g.refused is not None], args.quiet)
    played = [
        (name, seed, game)
        for name, seed, game in zip(names, seeds * max(len(starts), 1), games, strict=True)
        if game.refused is None
    ]
    games = [game for _, _, game in played]
    lines: list[str] = []
    written: list[dict[str, Any]] = []
    if folder is not None:
        for name, seed, game in played:
            text = _as_text(game.record(spec, seed), args.format)
            path = folder.write(f"{name}.{args.format}", text)
            written.append(
                {
                    "seed": seed,
                    "file": str(path),
                    "events": len(game.events),
                    "stopped": game.stopped,
                }
            )
            if args.verbose:
                lines.append(f"{path}: {len(game.events)} events; stopped: {game.stopped}")
    if args.coverage:
        return _coverage_table(args, spec, games, lines) or code
    stopped = Counter(g.stopped for g in games)
    whys = "; ".join(f"{n} {why}" for why, n in sorted(stopped.items()))
    lines.append(
        f"{len(games)} game(s), {sum(len(g.events) for g in games)} events, written to"
        f" {args.out}" + (f": {whys}" if whys else "")
    )
    # with --out, --format json is the records' form and the summary's: an envelope
    _emit(args, {"out": str(args.out), "games": written}, _lines(lines))
    return code


def _refused(games: list[Game], quiet: bool) -> int:
    """The --from records whose starting position cannot arise, each said once on standard
    error as `referee check` says it (no game is played from one): exit 1 if any is."""
    said: set[str] = set()
    for g in games:
        assert g.refused is not None
        if g.start not in said and not quiet:
            print(render_verdict(g.refused), file=sys.stderr)
        said.add(g.start)
    return EXIT_ILLEGAL if games else EXIT_OK


def _lines(lines: list[str]) -> str:
    return "\n".join(shown(line, 10 * MAX_SHOWN) for line in lines)


def _coverage_table(
    args: argparse.Namespace, spec: Spec, games: list[Game], lines: list[str]
) -> int:
    """--coverage: requirement by requirement, how often the games reached each (and each
    action and step), and what they never reached; the files written (-v) to stderr."""
    counts = Coverage()
    for g in games:
        if g.coverage is not None:
            counts.add(g.coverage)
    t = coverage_table(spec.sym, counts, len(games), sum(len(g.events) for g in games))
    if lines:
        print("\n".join(shown(line, 10 * MAX_SHOWN) for line in lines), file=sys.stderr)
    _emit(args, t.as_json(), render_coverage(t))
    return EXIT_OK
