"""The options every command shares, its exit codes, and how its result is printed (text, or
the JSON envelope); light to import: the top parser needs it for --help."""

from __future__ import annotations

import argparse
import contextlib
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.errors import Problem, RefereeError, Span
from referee.output import dumps, envelope
from referee.style import paint, wanted
from referee.text import MAX_SHOWN, shown

if TYPE_CHECKING:
    from referee.compile.spec import Spec

EXIT_OK, EXIT_ILLEGAL, EXIT_BAD_INPUT = 0, 1, 2
MAX_GAMES = 10_000  # --games N: random games played (and judged) by one command
MAX_SEED = 10**18  # --seed S: fewer than 19 digits, either side of 0


_ONE_RECORD = "a YAML, JSON or .rec record; - for standard input"
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
        message = shown(message, 10 * MAX_SHOWN)  # the arguments it echoes are the user's
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


def _choice_options(p: argparse.ArgumentParser) -> None:
    """The printing and the overlays a record is judged under, beyond its own."""
    p.add_argument("--printing", default="", help=_PRINTING_HELP)
    p.add_argument(
        "--overlay", action="append", default=[], metavar="ID", help="switch an overlay on"
    )
    p.add_argument(
        "--no-overlay", action="append", default=[], metavar="ID", help="switch an overlay off"
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


def _plain(args: argparse.Namespace, text: str) -> None:
    """Output as it is (data, markdown): nothing with -q."""
    if not args.quiet:
        _out(text + "\n")


def _out(text: str) -> None:
    """Data on standard output as it is; in UTF-8 where the stream's encoding cannot carry
    it (PYTHONIOENCODING=ascii, say): a record, a page, a picture are UTF-8 by their form."""
    stream = sys.stdout
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(text.encode("utf-8", "backslashreplace"))
            buffer.flush()
            return
    stream.write(text)


def _safe_streams() -> None:
    """Text for people that the streams' encoding cannot carry is written as escapes
    (``\\xe9``), never an error: standard output and standard error alike."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


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


def _turns_option(p: argparse.ArgumentParser, scope: str) -> None:
    """--turns K (--weeks K alike): the game's turn counter past K (see _until)."""
    p.add_argument(
        "--turns",
        "--weeks",
        dest="weeks",
        type=int,
        metavar="K",
        help=f"{scope}stop after K turns of the game's turn counter (the state its game"
        " declaration names with `turns`: a week, a turn)",
    )


def _until(args: argparse.Namespace, spec: Spec) -> str:
    """--until's condition, or --turns K's (--weeks K): the game's turn counter, the state its
    game declaration names (`turns NAME`), past K."""
    if args.weeks is None:
        return str(args.until or "")
    if not spec.sym.turns:
        raise RefereeError(
            [
                Problem(
                    Span("<command line>", 0, 0),
                    "--turns: this game declares no turn counter (`turns NAME` in its game"
                    " declaration)",
                    'give --until a condition on its state instead, as "turn > 2"',
                )
            ]
        )
    return f"{spec.sym.turns} > {args.weeks}"
