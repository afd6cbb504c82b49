"""The command line: the dispatcher (`referee COMMAND ...`) and the options of the top parser;
each command lives in referee/commands/, and only the one given is imported.

Exit codes: 0 clean or legal, 1 illegal play found, 2 bad input or usage. A
user never sees a traceback: bad input is a located message, and anything
unforeseen is reported as an internal error in one line.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from referee import __version__
from referee.commands.options import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    _command,
    _command_name,
    _habits,
    _json_wanted,
    _Parser,
    _plain,
    _safe_streams,
    _usage,
)
from referee.errors import Problem, RefereeError, Span
from referee.output import dumps, envelope

GC_THRESHOLD = 20_000

# Each command: its module in referee/commands/ and its line in `referee --help`. Only the
# module of the command given is imported: a command pays for nothing another needs.
COMMANDS: dict[str, tuple[str, str]] = {
    "clauses": ("listing", "list every clause of the rulebook"),
    "overlays": ("listing", "list the printings, clarifications and decisions"),
    "explain": ("explain", "explain a clause, name, overlay, data entry or section; search"),
    "check": ("check", "replay game records and judge every event"),
    "show": ("show", "show the position at an event of a record"),
    "compare": (
        "compare",
        "replay a record under every printing and overlay, and show what changes",
    ),
    "moves": ("moves", "list the legal next events of a record's position"),
    "table": ("table", "play at the table: events typed one a line, each judged at once"),
    "play": ("play", "play a random legal game and print its record"),
    "convert": ("convert", "turn a record in the table notation into YAML, and back"),
    "hide": ("hide", "write a record as one view kept it: public, or one side's"),
    "prove": ("prove", "prove the spec's properties with z3"),
    "spec": ("spec", "work on the spec itself"),
}


def _arguments(sub: Any, name: str) -> None:
    """Add a command's parser from its module: its help (HELP: description, examples, exit
    codes), its arguments (arguments(p)) and what runs it (cmd_NAME); in a module of several
    commands, NAME_HELP and NAME_arguments. A module with no HELP makes its own parsers."""
    module_name, summary = COMMANDS[name]
    module = importlib.import_module(f"referee.commands.{module_name}")
    prefix = f"{name}_" if sum(m == module_name for m, _ in COMMANDS.values()) > 1 else ""
    described = getattr(module, f"{prefix.upper()}HELP", None)
    if described is None:  # `referee spec check`: a family under a word of its own
        module.arguments(sub, summary)
        return
    p = _command(sub, name, summary, *described)
    getattr(module, f"{prefix}arguments")(p)
    p.set_defaults(run=getattr(module, f"cmd_{name}"))


def _command_given(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is not an option of the top
    parser (-q, -v, --color WHEN); None if there is none."""
    words = iter(argv)
    for word in words:
        if word == "--color":
            next(words, None)
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of the command line, with every command's arguments (or only those of
    ``commands``; the others are listed in the help, with their summary, as they are)."""
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

    for name in COMMANDS:
        if commands is None or name in commands:
            _arguments(sub, name)
        else:
            sub.add_parser(name, help=COMMANDS[name][1])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Carry out a command line (``argv``, else this process's own) and give its exit code."""
    if argv is None:  # this process is the command
        # A spec is hundreds of thousands of small objects, long-lived and none of them
        # garbage: the cyclic collector passes over them less often (every 20,000 new
        # objects, not 700).
        gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    code = _main(argv)
    if argv is None:
        # The process ends with the command: what it holds (a spec, its compiled closures) is
        # let go without the cyclic collector walking all of it once more at exit.
        gc.freeze()
    return code


def _main(argv: Sequence[str] | None) -> int:
    _safe_streams()
    _Parser.argv = list(sys.argv[1:] if argv is None else argv)
    given = _command_given(_Parser.argv)
    parser = build_parser([given] if given else [])
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
