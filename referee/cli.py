"""The command line: ``referee clauses``, ``referee explain``, ``referee spec check``.

Exit codes: 0 clean or legal, 1 illegal play found, 2 bad input or usage. A
user never sees a traceback: bad input is a located message, and anything
unforeseen is reported as an internal error in one line.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from referee import __version__, cache, resources
from referee import render as pictures
from referee.data.limits import read_text
from referee.data.walk import Skipped
from referee.dsl import ast
from referee.dsl.coverage import Coverage
from referee.dsl.overlays import Choice, apply, in_force
from referee.engine.batch import Result, check_many, expand, render_summary, summary
from referee.engine.compare import compare, compare_games, render_games
from referee.engine.compare import render as render_comparison
from referee.engine.coverage import render as render_coverage
from referee.engine.coverage import table as coverage_table
from referee.engine.notation import convert, is_notation
from referee.engine.play import Game, as_yaml, play, play_many
from referee.engine.position import render as render_position
from referee.engine.position import show_position
from referee.engine.record import MAX_RECORD_BYTES, is_stdin, load_record
from referee.engine.replay import check_one, render
from referee.errors import Problem, RefereeError, Span
from referee.explain import (
    clauses_table,
    game_option,
    overlays_table,
    render_markdown,
    render_overlays,
    render_table,
)
from referee.output import dumps, envelope
from referee.spec import SPEC_ROOT, Spec, bundled_game, load_spec
from referee.style import paint, wanted
from referee.text import MAX_SHOWN, shown
from referee.topics import explain_topic, render_topic
from referee.verify.common import RLIMIT
from referee.verify.prover import Outcome, prove, slowest

EXIT_OK, EXIT_ILLEGAL, EXIT_BAD_INPUT = 0, 1, 2
MAX_GAMES = 10_000  # --games N: random games played (and judged) by one command
MAX_SEED = 10**18  # --seed S: fewer than 19 digits, either side of 0


_PRINTING_HELP = "the rulebook printing (default: the one the spec marks base; the output names it)"


def _games_problem(games: int | None, seed: int | None) -> str:
    """What is wrong with --games and --seed, if anything."""
    if games is not None and not 1 <= games <= MAX_GAMES:
        return f"--games N needs N from 1 to {MAX_GAMES:,}, not {_number(games)}"
    if seed is not None and not -MAX_SEED < seed < MAX_SEED:
        return f"--seed S needs a whole number of at most 18 digits, not {_number(seed)}"
    return ""


def _number(n: int) -> str:
    text = str(n)
    return text if len(text) <= 30 else f"{text[:20]}... ({len(text):,} digits)"


class _Parser(argparse.ArgumentParser):
    argv: Sequence[str] = ()  # the command line being parsed (set by main)

    def error(self, message: str) -> Any:  # argparse's own exit code is 2 too; keep the wording
        argv = list(_Parser.argv)
        wants_json = any(
            a == "--format=json" or (a == "--format" and argv[i + 1 : i + 2] == ["json"])
            for i, a in enumerate(argv)
        )
        if wants_json:  # a program reads the envelope, the error located at the command line
            name = self.prog.removeprefix("referee").strip()
            if not name:  # an argument left over: the command it was given to
                words = [a for a in argv if not a.startswith("-")]
                name = " ".join(words[:2]) if words[:1] == ["spec"] else "".join(words[:1])
            problem = Problem(Span("<command line>", 0, 0), message, f"see {self.prog} --help")
            print(dumps(envelope(name, EXIT_BAD_INPUT, errors=[problem])))
            self.exit(EXIT_BAD_INPUT)
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"referee: error: {message}\n")


def _game_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--game",
        metavar="NAME",
        help="a bundled game, by name (default: the bundled default game)",
    )


def _common(p: argparse.ArgumentParser, formats: tuple[str, ...] = ("text", "json")) -> None:
    _game_option(p)
    p.add_argument(
        "--spec",
        type=Path,
        metavar="DIR",
        help="the game's spec directory (default: the bundled game's)",
    )
    p.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help="component files (map.yaml, cards.yaml, blocks.yaml) replacing the spec's own",
    )
    p.add_argument("--format", choices=formats, default="text", help="output format")


def _habits(p: argparse.ArgumentParser, top: bool = False) -> None:
    """-q, -v and --color, given before the command or after it: on the top parser with
    their defaults, on each command's without (so that one given before is not undone)."""
    kept: dict[str, Any] = {} if top else {"default": argparse.SUPPRESS}
    g = p.add_argument_group("output")
    g.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print nothing but errors: the exit code tells",
        **kept,
    )
    g.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="more detail in the text (each command's description says what)",
        **kept,
    )
    g.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        help="colour verdict words and clause ids: auto (the default) only on a terminal"
        " and without NO_COLOR set; never in JSON",
        **({"default": "auto"} if top else kept),
    )


def _command(
    sub: Any, name: str, summary: str, description: str, examples: list[str], exits: list[str]
) -> argparse.ArgumentParser:
    """A command's parser, its help giving a description, examples and the exit codes."""
    epilog = "examples:\n" + "".join(f"  {e}\n" for e in examples)
    epilog += "\nexit codes:\n"
    for x in exits:
        epilog += textwrap.fill(x, 84, initial_indent="  ", subsequent_indent="     ") + "\n"
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _habits(p)
    return p


_SPEC_BAD = "2  bad input or usage: a spec or data file that does not load, a bad option"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="referee",
        description="A rules referee: every verdict cites the rule it rests on.",
        epilog="-q, -v and --color go before or after the command. `referee COMMAND --help`\n"
        "describes each command, with examples and its exit codes:\n"
        "  0  clean: legal, checked, shown\n"
        "  1  an illegal play found (check, show), a property that fails (prove)\n"
        "  2  bad input or usage; the message names the file, line and column",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    _habits(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = _command(
        sub,
        "clauses",
        "list every clause of the rulebook",
        "List every clause of the rulebook in its order: number, kind (normative or\n"
        "informative), number of declarations, title. -v adds each clause's summary and the\n"
        "file and line that declare it.",
        ["referee clauses", "referee clauses --format json", "referee clauses -v"],
        ["0  listed", _SPEC_BAD],
    )
    _common(p, formats=("text", "json", "markdown"))
    p.set_defaults(run=cmd_clauses)

    p = _command(
        sub,
        "overlays",
        "list the printings, clarifications and decisions",
        "List the printings, clarifications and decisions: id, kind, when each is in force,\n"
        "title. -v adds each one's source and date, the clauses it amends and how, and the\n"
        "declarations that embody it.",
        ["referee overlays", "referee overlays --format markdown > docs/rulings.md"],
        ["0  listed", _SPEC_BAD],
    )
    _common(p, formats=("text", "json", "markdown"))
    p.set_defaults(run=cmd_overlays)

    p = _command(
        sub,
        "explain",
        "explain a clause, label, name, overlay, printing or data entry",
        "Explain one topic. Tried in this order, the first that matches is shown and the\n"
        "others are named: a clause number (7.3.1) or label (7.3.1/no-pickup); a declared\n"
        "name; an overlay id; a printing id; an overlay file's name; the name or id of an\n"
        "entry of the game's data. KIND:TOPIC picks one kind: clause, name, overlay,\n"
        "printing, file or data. -v explains in full every other match too.",
        [
            "referee explain 7.3.5",
            "referee explain 7.3.1/no-pickup",
            "referee explain size_penalty --format json",
            "referee explain file:decisions",
        ],
        [
            "0  explained",
            "2  bad input or usage: a topic that names nothing (close names are suggested),"
            " a spec that does not load",
        ],
    )
    p.add_argument(
        "topic",
        help="a clause number, a label, a name, an overlay or printing id, an overlay file, "
        "a data entry's name or id; or KIND:TOPIC",
    )
    _common(p)
    p.set_defaults(run=cmd_explain)

    p = _command(
        sub,
        "check",
        "replay game records and judge every event",
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
        ],
        [
            "0  every record is legal to its end",
            "1  an illegal event, or an outcome the record expected otherwise",
            "2  bad input or usage: a record that does not read, breaks the schema or names"
            " what the game does not know",
        ],
    )
    p.add_argument(
        "records",
        nargs="+",
        type=Path,
        metavar="RECORD",
        help="YAML, JSON or .rec (the table notation) records, or directories; - for"
        " standard input",
    )
    p.add_argument(
        "--printing",
        default="",
        help=_PRINTING_HELP,
    )
    p.add_argument(
        "--overlay", action="append", default=[], metavar="ID", help="switch an overlay on"
    )
    p.add_argument(
        "--no-overlay", action="append", default=[], metavar="ID", help="switch an overlay off"
    )
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
        "--trace",
        action="store_true",
        help="with a refusal, every call the rules evaluated on the way, not only the decisive",
    )
    _common(p)
    p.set_defaults(run=cmd_check)

    p = _command(
        sub,
        "show",
        "show the position at an event of a record",
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
    p.add_argument(
        "record",
        type=Path,
        metavar="RECORD",
        help="a YAML, JSON or .rec record; - for standard input",
    )
    when = p.add_mutually_exclusive_group()
    when.add_argument(
        "--at", type=int, metavar="N", help="the position before event N (1 is the first)"
    )
    when.add_argument("--after", type=int, metavar="N", help="the position after event N")
    p.add_argument(
        "--printing",
        default="",
        help=_PRINTING_HELP,
    )
    p.add_argument(
        "--overlay", action="append", default=[], metavar="ID", help="switch an overlay on"
    )
    p.add_argument(
        "--no-overlay", action="append", default=[], metavar="ID", help="switch an overlay off"
    )
    _common(p, formats=("text", "json", "svg", "html"))
    p.set_defaults(run=cmd_show)

    p = _command(
        sub,
        "compare",
        "replay a record under every printing and overlay, and show what changes",
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
    p.add_argument("--weeks", type=int, metavar="K", help='with --games: --until "week > K"')
    _common(p)
    p.set_defaults(run=cmd_compare)

    p = _command(
        sub,
        "play",
        "play a random legal game and print its record",
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
            "2  bad input or usage: an --until that is no condition, an --out folder that"
            " cannot be written",
        ],
    )
    p.add_argument("--seed", type=int, default=0, help="the random seed: one seed, one game")
    p.add_argument(
        "--until", default="", metavar="EXPR", help='stop when this holds, e.g. "week > 2"'
    )
    p.add_argument("--weeks", type=int, metavar="K", help='stop after K weeks: --until "week > K"')
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
    p.set_defaults(run=cmd_play)

    p = _command(
        sub,
        "convert",
        "turn a record in the table notation into YAML, and back",
        "Convert a game record between YAML (or JSON) and the table notation\n"
        "(docs/notation.md; a file ending in .rec), one event a line. The events and the\n"
        "header come out as they went in: what is written is read back and compared, and a\n"
        "record the other form cannot say as it is (an event of no action of the spec's,\n"
        "say) is refused with its place. A set-up the spec can expand (setup: printed)\n"
        "is written as one line where the record spells it out in full, in its order.",
        [
            "referee convert examples/full-game.yaml -o game.rec",
            "referee convert game.rec                 # to YAML, on standard output",
        ],
        ["0  converted", "2  bad input or usage: the place and what was expected"],
    )
    p.add_argument("record", type=Path, metavar="RECORD", help="a YAML, JSON or .rec record")
    p.add_argument(
        "--to",
        choices=("yaml", "notation"),
        help="the form to write (default: the other one)",
    )
    p.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here, not to stdout")
    _game_option(p)
    p.add_argument("--spec", type=Path, metavar="DIR", help="the game's spec directory")
    p.add_argument("--data", type=Path, metavar="DIR", help="component files replacing the spec's")
    p.set_defaults(run=cmd_convert)

    p = _command(
        sub,
        "prove",
        "prove the spec's properties with z3",
        "Prove each property the spec declares, with z3, from the same definitions the\n"
        "referee evaluates: proved, failed with a counterexample and the clauses involved,\n"
        "skipped (it cannot be translated) or unknown (z3 gave no answer in time), each\n"
        "with the reason. -v adds the clauses each proof rests on.",
        ["referee prove", "referee prove --all-overlays", "referee prove --printing gmt-2011"],
        [
            "0  every property is proved",
            "1  a property fails (its counterexample is shown), is skipped or is unknown",
            _SPEC_BAD,
        ],
    )
    p.add_argument(
        "--printing",
        default="",
        help=_PRINTING_HELP,
    )
    p.add_argument("--overlay", action="append", default=[], metavar="ID", help="switch on")
    p.add_argument("--no-overlay", action="append", default=[], metavar="ID", help="switch off")
    p.add_argument(
        "--all-overlays",
        action="store_true",
        help="prove under every printing, and with each overlay off, naming what breaks",
    )
    p.add_argument(
        "--rlimit",
        type=_positive_rlimit,
        default=RLIMIT,
        metavar="UNITS",
        help="how much work (z3's resource units) each solver call of a proof may do before"
        f" the property is unknown: the same answer at any machine load (default {RLIMIT:,})",
    )
    p.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help="a limit of time as well, for each solver call (none by default; from 0.001"
        " to 3600): the answer may then depend on the machine's load",
    )
    p.add_argument(
        "--counterexample-dir",
        default=None,
        metavar="DIR",
        help="write each failing step invariant's counterexample there, as a record file",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="ID",
        help="prove only this property (clause/label), or a clause's properties (repeatable)",
    )
    _common(p)
    p.set_defaults(run=cmd_prove)

    p = sub.add_parser("spec", help="work on the spec itself")
    _habits(p)
    spec_sub = p.add_subparsers(dest="spec_command", metavar="ACTION", parser_class=_Parser)
    c = _command(
        spec_sub,
        "check",
        "parse and check every clause, overlay and data file",
        "Parse every .rules file of the game and check names, clause references, labels,\n"
        "types and overlay targets; load and validate the component files. Every problem is\n"
        "reported at once, each at its file, line and column. -v lists every file read, with\n"
        "what it holds, and the disk cache.",
        ["referee spec check", "referee spec check --spec my-game/ --data my-data/"],
        ["0  the spec and its data check", "2  problems found (each located), or usage"],
    )
    _common(c)
    c.set_defaults(run=cmd_spec_check)
    return parser


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


def _plain(args: argparse.Namespace, text: str) -> None:
    """Output as it is (data, markdown): nothing with -q."""
    if not args.quiet:
        print(text)


def _say(args: argparse.Namespace, text: str) -> None:
    """Text for people: nothing with -q; coloured on a terminal (--color)."""
    if not args.quiet:
        print(paint(text) if wanted(args.color, sys.stdout) else text)


def _emit(args: argparse.Namespace, data: Any, text: str) -> None:
    """The command's result: its text now, or its JSON kept for the envelope that main()
    prints with the exit code (docs/json.md)."""
    if args.format == "json":
        args.result = data
    else:
        _say(args, text)


def _json_wanted(args: argparse.Namespace) -> bool:
    return getattr(args, "format", "text") == "json"


def _command_name(args: argparse.Namespace) -> str:
    sub = getattr(args, "spec_command", None)
    return f"{args.command} {sub}" if sub else str(args.command)


def _usage(args: argparse.Namespace, problem: str) -> int:
    """A command line that cannot be carried out: said on standard error, or as the JSON
    envelope's error; exit code 2."""
    name = _command_name(args)
    if _json_wanted(args):
        where = Span("<command line>", 0, 0)
        # errors are printed with -q too
        print(dumps(envelope(name, EXIT_BAD_INPUT, errors=[Problem(where, problem)])))
    else:
        print(f"referee {name}: {problem}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _progress(args: argparse.Namespace) -> bool:
    """A progress bar on standard error: on a terminal, for text, and not with -q."""
    return getattr(args, "format", "text") == "text" and not args.quiet and sys.stderr.isatty()


def cmd_clauses(args: argparse.Namespace) -> int:
    spec = _load(args)
    rows = clauses_table(spec)
    if args.format == "markdown":
        _plain(args, render_markdown(spec, rows))
    else:
        _emit(args, rows, render_table(rows, args.verbose))
    return EXIT_OK


def cmd_overlays(args: argparse.Namespace) -> int:
    spec = _load(args)
    rows = overlays_table(spec)
    if args.format == "json":
        _emit(args, rows, "")
        return EXIT_OK
    # the records and tests that mention each overlay: those of the project the command is
    # run in (its examples/ and tests/ folders), the bundled spec's when run in a checkout
    root = Path.cwd()
    cases: dict[str, list[str]] = {}
    for folder in ("examples", "tests"):
        for f in sorted((root / folder).rglob("*")):
            if f.suffix in (".yaml", ".py") and f.is_file():
                text = f.read_text(encoding="utf-8", errors="replace")
                for r in rows:
                    if r["id"] in text:
                        cases.setdefault(r["id"], []).append(str(f.relative_to(root)))
    if args.format == "markdown":
        _plain(args, render_overlays(rows, cases, game_option(spec)))
        return EXIT_OK
    lines = []
    for r in rows:
        lines.append(f"{r['id']:<24} {r['kind']:<14} in force {r['in_force']:<28} {r['title']}")
        if args.verbose:
            lines.append(f"    source: {r['source']} ({r['date']})")
            if r["changes"]:
                lines.append(f"    amends {', '.join(r['amends'])}: " + "; ".join(r["changes"]))
            if r["embodied_by"]:
                lines.append(f"    embodied by: {', '.join(r['embodied_by'])}")
            if cases.get(r["id"]):
                lines.append(f"    cases: {', '.join(cases[r['id']])}")
    _say(args, "\n".join(shown(line, 10 * MAX_SHOWN) for line in lines))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    spec = _load(args)
    x = explain_topic(spec, args.topic)
    text = render_topic(x)
    if args.verbose:  # every other thing the topic names, in full
        others = [render_topic(explain_topic(spec, a["ask"])) for a in x.get("also", [])]
        text = "\n\n".join([text, *others])
    _emit(args, x, text)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    spec = _load(args, args.records[0] if len(args.records) == 1 else None)
    choice = Choice(args.printing, list(args.overlay), list(args.no_overlay))
    explain, trace = args.explain or args.verbose, args.trace or args.verbose
    paths, skipped = expand(list(args.records))
    first = args.records[0]
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
    results = check_many(spec, paths, choice, args.all, progress, offer=True)
    if _json_wanted(args):
        _emit(args, _checked(results, skipped), "")
    else:
        for r in results:
            if r.verdict is not None:
                r.verdict.explain = r.verdict.explain or explain
                r.verdict.show_trace = trace
        every = len(results) <= 20 or args.verbose
        shown_ = [r.text() for r in results if r.status != "legal" or every]
        total = render_summary(summary(results, skipped))
        _say(args, "\n".join([*shown_, *(s.text() for s in skipped), total]))
    if any(r.status == "bad input" for r in results):
        return EXIT_BAD_INPUT
    return EXIT_OK if all(r.status == "legal" for r in results) else EXIT_ILLEGAL


def _checked(results: list[Result], skipped: list[Skipped]) -> dict[str, Any]:
    """check's result, for one record as for many: each record's verdict (or its problems),
    what was passed over, and the counts."""
    return {
        "records": [r.as_json() for r in results],
        "skipped": [{"file": s.path, "reason": s.reason} for s in skipped],
        "summary": summary(results, skipped),
    }


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


def cmd_play(args: argparse.Namespace) -> int:
    problem = _games_problem(args.games, args.seed)
    starts, _ = expand(args.start) if args.start else ([], [])
    if args.start and not starts:
        problem = "--from: no record found there"
    if (args.games > 1 or len(starts) > 1) and args.out is None and not args.coverage:
        problem = "--games N needs --out DIR (or --coverage) for more than one game"
    if problem:
        return _usage(args, problem)
    spec = _load(args, starts[0] if starts else None)
    starts = _of_the_game(args, starts)
    if args.start and not starts:
        return _usage(args, "--from: no record of the game played found there")
    until = args.until or (f"week > {args.weeks}" if args.weeks is not None else "")
    if args.out is None and not args.coverage:
        start = starts[0] if starts else None
        game = play(spec, args.seed, until, explore=args.explore, start=start)
        if not args.quiet:
            print(_as_text(game.record(spec, args.seed), args.format), end="")
        if args.verbose:  # the record is the output: the rest goes beside it
            print(
                f"seed {args.seed}: {len(game.events)} events; stopped: {game.stopped}",
                file=sys.stderr,
            )
        return EXIT_OK
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            return _usage(args, f"cannot write to {args.out}: {err.strerror}")
    seeds = list(range(args.seed, args.seed + args.games))
    games = play_many(
        spec,
        seeds,
        until,
        progress=_progress(args) and len(seeds) * max(len(starts), 1) > 1,
        coverage=args.coverage,
        explore=args.explore,
        starts=starts or None,
    )
    names = [f"{start.stem}-{seed:04}" for start in starts for seed in seeds] or [
        f"game-{seed:04}" for seed in seeds
    ]
    lines: list[str] = []
    written: list[dict[str, Any]] = []
    if args.out is not None:
        for name, seed, game in zip(names, seeds * max(len(starts), 1), games, strict=True):
            path = args.out / f"{name}.{args.format}"
            path.write_text(_as_text(game.record(spec, seed), args.format))
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
        return _coverage_table(args, spec, games, lines)
    stopped = Counter(g.stopped for g in games)
    lines.append(
        f"{len(games)} game(s), {sum(len(g.events) for g in games)} events, written to"
        f" {args.out}: " + "; ".join(f"{n} {why}" for why, n in sorted(stopped.items()))
    )
    # with --out, --format json is the records' form and the summary's: an envelope
    _emit(args, {"out": str(args.out), "games": written}, _lines(lines))
    return EXIT_OK


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


def _as_text(record: dict[str, Any], form: str) -> str:
    if form == "json":
        return json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    return as_yaml(record)


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


def _positive_seconds(text: str) -> float:
    """A --timeout: a number of seconds from a millisecond (z3's unit: less would be no limit
    at all) to an hour."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.001 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(
            f"expected seconds from 0.001 (a millisecond) to 3600 (an hour), got {text!r}"
        )
    return seconds


def _positive_rlimit(text: str) -> int:
    """A --rlimit: a whole number of z3's resource units, at least one."""
    try:
        units = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        units = 0
    if units < 1:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of units, 1 or more, got {text!r}"
        )
    return units


def cmd_prove(args: argparse.Namespace) -> int:
    spec = _load(args)
    names = spec.components.names()
    # the properties, and the standing rules (proved as properties of their own)
    props = [d for d in spec.sym.labels.values() if isinstance(d, (ast.Property, ast.Whenever))]
    known = {f"{d.clause}/{d.name}" for d in props} | {d.clause for d in props}
    unknown = [i for i in args.property if i not in known]
    if unknown:
        return _usage(args, _no_such_property(unknown[0], props))
    if args.counterexample_dir is not None:
        problem = _unwritable_folder(args.counterexample_dir)
        if problem:
            return _usage(args, f"--counterexample-dir {args.counterexample_dir!r}: {problem}")
    runs: list[tuple[str, Choice]] = []
    if args.all_overlays and (args.printing or args.overlay or args.no_overlay):
        return _usage(
            args,
            "--all-overlays proves under every printing and with each overlay off in turn:"
            " give it alone, or --printing, --overlay and --no-overlay without it",
        )
    if args.all_overlays:
        runs = [(f"printing {p}", Choice(p)) for p in sorted(spec.sym.printings)]
        _, by_default = in_force(spec.sym, Choice(""), lambda _: Span("<command line>", 0, 0))
        # each overlay in force by default switched off (one in force only under another
        # printing is off already)
        runs += [
            (f"without {o.id}", Choice("", [], [o.id]))
            for o in sorted(by_default, key=lambda o: o.id)
        ]
    else:
        runs = [("", Choice(args.printing, list(args.overlay), list(args.no_overlay)))]
    report: list[dict[str, Any]] = []
    lines: list[str] = []
    unproved: list[str] = []
    cache: dict[str, Any] = {}  # step invariants whose proof the overlays do not touch
    runs_outcomes: list[list[Outcome]] = []
    for title, choice in runs:
        printing, overlays = in_force(spec.sym, choice, lambda _: Span("<command line>", 0, 0))
        outcomes = prove(
            apply(spec.sym, overlays),
            names,
            None if args.timeout is None else int(args.timeout * 1000),
            collections=spec.components.collections,
            cache=cache,
            only=set(args.property),
            rlimit=args.rlimit,
            least_reads=False,  # reads that suffice (the mutation tool asks for the least)
        )
        runs_outcomes.append(outcomes)
        head = title or f"printing {printing}"
        where = f" ({head})" if len(runs) > 1 else ""
        unproved += [f"{o.cites} {o.status}{where}" for o in outcomes if o.status != "proved"]
        lines.append(f"{head}; overlays in force: {len(overlays)}")
        for o in outcomes:
            if o.record:
                o.record = _replayed_as_proved(
                    o.record, spec.game.name if spec.game else "", printing, choice
                )
                if args.counterexample_dir is not None:
                    try:
                        tag = head if args.all_overlays else _run_tag(head, choice)
                        o.written = _write_counterexample(args.counterexample_dir, tag, o)
                    except OSError as err:
                        return _usage(
                            args, f"--counterexample-dir: cannot write there ({err.strerror})"
                        )
            lines.append("  " + o.line())
            if o.record and not o.written:
                shown = yaml.safe_dump(o.record, sort_keys=False, allow_unicode=True, width=100)
                lines += ["      " + ln for ln in shown.splitlines()]
            if args.verbose and o.clauses and o.status != "failed":
                lines.append(f"      rests on clauses: {', '.join(o.clauses)}")
        report.append({"run": head, "properties": [asdict(o) for o in outcomes]})
    total = sum(len(r["properties"]) for r in report)
    if any(o["reason"].startswith("z3 gave no answer") for r in report for o in r["properties"]):
        lines.append(
            f"hint: z3 had {args.timeout:g} s for each proof; a longer --timeout may let it answer"
            if args.timeout is not None
            else f"hint: z3 had {args.rlimit} units of work for each solver call;"
            " a larger --rlimit may let it answer"
        )
    timed = slowest([o for r in runs_outcomes for o in r])
    if timed:
        lines.append(timed)
    if unproved:
        lines.append(f"{len(unproved)} of {total} not proved: {'; '.join(unproved)}")
    else:
        lines.append(f"all {total} proved")
    _emit(args, {"runs": report}, "\n".join(lines))
    return EXIT_ILLEGAL if unproved else EXIT_OK


def _replayed_as_proved(
    record: dict[str, Any], game: str, printing: str, choice: Choice
) -> dict[str, Any]:
    """A counterexample's record names the game, the printing and the overlays switched on
    or off of the run that found it, so that `referee check` replays it under the same."""
    head: dict[str, Any] = {"game": game, "printing": printing}
    if choice.on:
        head["overlays"] = list(choice.on)
    if choice.off:
        head["no_overlays"] = list(choice.off)
    return {**head, **{k: v for k, v in record.items() if k not in head}}


def _no_such_property(name: str, props: list[ast.Property | ast.Whenever]) -> str:
    """What to say of a --property the spec does not declare: the properties of its clause,
    or the nearest names."""
    clause = name.split("/", 1)[0]
    own = sorted(f"{d.clause}/{d.name}" for d in props if d.clause == clause)
    if own:
        said = ", ".join(own[:12]) + (f", ... {len(own) - 12} more" if len(own) > 12 else "")
        return f"no property {name!r}; clause {clause} declares {said}"
    names = sorted({f"{d.clause}/{d.name}" for d in props} | {d.clause for d in props})
    close = difflib.get_close_matches(name, names, n=3)
    near = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return (
        f"no property {name!r}{near} (name one as clause/label, or a clause that declares"
        " properties: `referee prove` with no --property lists them all)"
    )


def _unwritable_folder(folder: str) -> str:
    """Why counterexamples cannot be written to the folder (created if need be), or ""."""
    if not folder.strip():
        return "give a folder"
    where = Path(folder)
    if where.exists() and not where.is_dir():
        return "it is a file, not a folder"
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return f"cannot make the folder ({err.strerror})"
    if not os.access(where, os.W_OK | os.X_OK):
        return "the folder cannot be written to"
    return ""


def _run_tag(head: str, choice: Choice) -> str:
    """A run's name in a counterexample's file name: the printing, and each overlay
    switched on or off, so that two runs do not write the same file."""
    return " ".join(
        [head, *(f"with {o}" for o in choice.on), *(f"without {o}" for o in choice.off)]
    )


def _write_counterexample(folder: str, run: str, o: Outcome) -> str:
    """A failing invariant's record file, named by the property (and the run)."""
    where = Path(folder)
    where.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{o.clause}-{o.label}-{run}").strip("-")
    path = where / f"{tag}.yaml"
    path.write_text(yaml.safe_dump(o.record, sort_keys=False, allow_unicode=True, width=100))
    return str(path)


def cmd_spec_check(args: argparse.Namespace) -> int:
    spec = _load(args)
    counts: dict[str, int] = {}
    for c in spec.sym.clauses.values():
        for d in c.decls:
            counts[d.kind] = counts.get(d.kind, 0) + 1
    components = {k: len(v) for k, v in spec.components.collections.items()}
    data: dict[str, Any] = {
        "game": spec.game.name if spec.game else "",
        "files": len(spec.modules),
        "clauses": len(spec.sym.clauses),
        "declarations": dict(sorted(counts.items())),
        "overlays": len(spec.sym.overlays),
        "components": components,
    }
    decls = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    comps = ", ".join(f"{n} {k}" for k, n in components.items())
    text = (
        f"spec OK: {data['files']} files, {data['clauses']} clauses ({decls}), "
        f"{data['overlays']} overlays\ncomponents OK: {comps}"
    )
    if args.verbose:
        text += "\n" + "\n".join(_files_read(spec))
    _emit(args, data, text)
    return EXIT_OK


def _relative(file: str) -> str:
    try:
        return str(Path(file).relative_to(Path.cwd()))
    except ValueError:
        return file


def _files_read(spec: Spec) -> list[str]:
    """Every file a spec was made from, with what it holds."""
    lines = ["files read:"]
    for m in spec.modules:
        what = [f"{len(m.clauses)} clauses"] if m.clauses else []
        what += [f"{len(m.overlays)} overlays"] if m.overlays else []
        what += [f"{len(m.games)} game"] if m.games else []
        what += [f"{len(m.printings)} printings"] if m.printings else []
        lines.append(f"  {m.file}: {', '.join(what) or 'nothing declared'}")
    for doc in spec.components.documents.values():
        held = doc.data if isinstance(doc.data, dict) else {}
        lists = [f"{len(v)} {k}" for k, v in held.items() if isinstance(v, list)]
        lines.append(f"  {_relative(doc.file)}: {', '.join(lists) or 'no collection'}")
    folder = cache.cache_dir()
    if os.environ.get("REFEREE_NO_CACHE") or cache.max_entries() == 0 or folder is None:
        lines.append("disk cache: off")
    else:
        kept = len(cache.entries(folder)) if folder.is_dir() else 0
        lines.append(f"disk cache: {folder}: {kept} of at most {cache.max_entries()} entries")
    return [shown(line, 10 * MAX_SHOWN) for line in lines]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    _Parser.argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    if args.quiet and args.verbose:
        return _usage(args, "give -q (nothing but errors) or -v (more), not both")
    try:
        code = run(args)
        if _json_wanted(args) and hasattr(args, "result"):
            _plain(args, dumps(envelope(_command_name(args), code, args.result)))
        return code
    except RefereeError as err:
        if _json_wanted(args):  # errors are printed with -q too
            print(dumps(envelope(_command_name(args), EXIT_BAD_INPUT, errors=err.problems)))
        else:
            print(err.render(), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("referee: interrupted", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # noqa: BLE001 - a bug must still not show a traceback
        said = f"internal error ({type(err).__name__}: {err}); please report it"
        if _json_wanted(args):
            bug = Problem(Span("<referee>", 0, 0), said)
            print(dumps(envelope(_command_name(args), EXIT_BAD_INPUT, errors=[bug])))
        print(f"referee: {said}", file=sys.stderr)
        return EXIT_BAD_INPUT
