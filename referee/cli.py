"""The command line: ``referee clauses``, ``referee explain``, ``referee spec check``.

Exit codes: 0 clean or legal, 1 illegal play found, 2 bad input or usage. A
user never sees a traceback: bad input is a located message, and anything
unforeseen is reported as an internal error in one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from referee import __version__
from referee.commands.check import cmd_check
from referee.commands.compare import cmd_compare
from referee.commands.convert import cmd_convert
from referee.commands.listing import cmd_clauses, cmd_explain, cmd_overlays
from referee.commands.play import cmd_play
from referee.commands.prove import _positive_seconds, cmd_prove
from referee.commands.shared import (
    _PRINTING_HELP,
    _SPEC_BAD,
    EXIT_BAD_INPUT,
    EXIT_OK,
    _command,
    _command_name,
    _common,
    _game_option,
    _habits,
    _json_wanted,
    _Parser,
    _plain,
    _usage,
)
from referee.commands.show import cmd_show
from referee.commands.spec import cmd_spec_check
from referee.errors import Problem, RefereeError, Span
from referee.output import dumps, envelope


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
        "--timeout",
        type=_positive_seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long z3 may take over each property before it is unknown"
        " (default 10; from 0.001 to 3600)",
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
