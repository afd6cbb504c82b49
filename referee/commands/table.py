"""referee table: a game typed in the table notation, one line at a time, each event judged
at once (run/session.py), from a terminal or a pipe."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from referee.budget import within_limit
from referee.commands.loading import _load
from referee.commands.options import (
    EXIT_BAD_INPUT,
    EXIT_ILLEGAL,
    EXIT_OK,
    _choice_options,
    _game_option,
)
from referee.errors import RefereeError, Span
from referee.resolve.overlays import Choice
from referee.run.moves import MAX_JUDGED, MAX_SECONDS
from referee.run.moves_report import Asked, Report, enumerate_moves, render
from referee.run.position import _read
from referee.run.position import render as render_position
from referee.run.replay import cannot_arise
from referee.run.session import Session
from referee.text import shown

MAX_LINE_BYTES = 16 * 1024  # a line longer than this is refused
MAX_LINES = 100_000  # lines read, at most
MAX_PROBLEMS = 100  # refused events and unreadable lines before the table stops
MAX_SECONDS_IN_ALL = 3_600.0  # the whole session, at most
MESSAGE_CHARS = 1_000  # of a message about a line, at most (the line's words echoed)

HELP = (
    "Play at the table: type events in the table notation (docs/notation.md), one a\n"
    "line; each is judged at once: what happened, or refused (with the clause and its\n"
    "numbers) and not applied. Besides events:\n"
    "  moves [ACTION] [all]  the legal next events (as `referee moves`)\n"
    "  undo                  take the last event back\n"
    "  show                  the position (as `referee show`)\n"
    "  save FILE             write the record so far (FILE.rec: in the notation)\n"
    "  expect KEY: VALUE     what the rules should give after the last event\n"
    "  help, quit\n"
    "It starts from the set-up of --game, or from --from RECORD (its position and its\n"
    "events). From a pipe it reads line by line the same way, so that a script can drive\n"
    "it; on a terminal, with line editing and history where Python has readline.\n"
    "Bounded: a line of at most 16 KiB, at most --max-lines lines, at most 100 refused\n"
    "or unreadable lines, an hour in all; binary input is refused.",
    [
        "referee table --game fierce-battle",
        "referee table --from examples/weeks-1-2.yaml",
        "referee table < events.rec   # judged line by line; a `save game.rec` line saves",
    ],
    [
        "0  every event typed was legal",
        "1  an event typed was refused (and not applied); or the --from record's starting"
        " position cannot arise (as `referee check` refuses it): nothing is read then",
        "2  bad input: an unreadable line or record, binary input, a bound reached",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee table`."""
    p.add_argument(
        "--from",
        dest="start",
        type=Path,
        metavar="RECORD",
        help="start from this record's position, its events applied (- : standard input"
        " is then the record, not the lines)",
    )
    p.add_argument(
        "--max-lines",
        type=int,
        default=MAX_LINES,
        metavar="N",
        help=f"read at most N lines (default {MAX_LINES:,})",
    )
    _choice_options(p)
    _game_option(p)
    p.add_argument("--spec", type=Path, metavar="DIR", help="the game's spec directory")
    p.add_argument("--data", type=Path, metavar="DIR", help="component files replacing the spec's")


class Table:
    """The lines read and what each did."""

    def __init__(self, args: argparse.Namespace, session: Session, out: TextIO) -> None:
        self.args = args
        self.session = session
        self.out = out
        self.code = EXIT_OK
        self.problems = 0
        self.last = ""  # the last event line applied, with the expect lines after it

    def say(self, text: str) -> None:
        if not self.args.quiet:
            print(text, file=self.out, flush=True)

    def bad(self, where: str, message: str, hint: str = "") -> None:
        """An unreadable line: said on standard error; exit code 2."""
        # what the line gave is echoed clipped and escaped (a control character, a huge word)
        said = shown(message, MESSAGE_CHARS) + (
            f"\n  hint: {shown(hint, MESSAGE_CHARS)}" if hint else ""
        )
        print(f"{where}: {said}", file=sys.stderr)
        self.code = EXIT_BAD_INPUT
        self.problems += 1

    def line(self, n: int, text: str, name: str) -> bool:
        """Carry out one line; False to stop."""
        words = text.strip().split()
        if not words or words[0].startswith("#"):
            return True
        head = words[0].lower()
        if head in ("quit", "exit") and len(words) == 1:
            return False
        if head == "help" and len(words) == 1:
            self.help()
        elif head == "undo" and len(words) == 1:
            self.undo()
        elif head == "show" and len(words) == 1:
            self.show()
        elif head == "moves" and len(words) <= 3:
            self.moves(words[1:], f"{name}:{n}")
        elif head == "save" and len(words) == 2:
            self.save(words[1], f"{name}:{n}")
        elif head == "expect":
            self.expect(n, text.strip(), name)
        else:
            self.event(n, text, name)
        return True

    def event(self, n: int, text: str, name: str) -> None:
        try:
            judged = within_limit(lambda: self.session.push(text), f"{name}:{n}", "judging")
        except RefereeError as err:
            p = err.problems[0]
            column = p.span.column if p.span.line <= 1 else 1
            self.bad(f"{name}:{n}:{column}", p.message, p.hint)
            return
        self.last = text if judged and judged[-1].legal else ""
        for j in judged:
            if j.legal:
                said = "; ".join(t["text"] for t in j.told)
                self.say(f"{j.index} {j.action}: legal" + (f": {said}" if said else ""))
                for f in j.fired:
                    self.say(f"  {f['rule']}: {f['text']}")
            else:
                v = j.violations[0]
                self.say(
                    f"{j.index} {j.action}: refused, not applied: {v.cites} {v.title}: {v.message}"
                )
                for number in v.numbers[:6]:
                    self.say(f"  {number}")
                texts = [a["text"] for a in v.alternatives[:6]]
                if texts:
                    self.say(f"  could have: {'; '.join(texts)}")
                self.code = max(self.code, EXIT_ILLEGAL)
                self.problems += 1

    def expect(self, n: int, text: str, name: str) -> None:
        """``expect KEY: VALUE`` after an event, as a notation record writes it: the event
        judged again with it (the position is the same: the rules are deterministic)."""
        if not self.last:
            self.bad(f"{name}:{n}", "an expect line follows the event it is about")
            return
        event = self.last
        self.session.pop()
        try:
            judged = within_limit(
                lambda: self.session.push(f"{event}\n  {text}"), f"{name}:{n}", "judging"
            )
        except RefereeError as err:
            self.session.push(event)
            self.bad(f"{name}:{n}", err.problems[0].message, err.problems[0].hint)
            return
        if judged and judged[-1].legal:
            self.last = f"{event}\n  {text}"
            self.say(f"  {text}: as expected")
            return
        self.session.push(event)  # the event stands; the expectation does not
        for v in judged[-1].violations if judged else []:
            self.say(f"  {text}: {v.message}")
        self.code = max(self.code, EXIT_ILLEGAL)
        self.problems += 1

    def undo(self) -> None:
        try:
            ev = self.session.pop()
        except IndexError:
            self.say("nothing to undo")
            return
        (action,) = (k for k in ev if k != "expect")
        self.last = ""
        self.say(f"undone: {len(self.session.written) + 1} {action}; {self.session.ref.summary()}")

    def show(self) -> None:
        ref = self.session.ref
        pos = _read(ref, len(self.session.written), None, before=False)
        self.say(render_position(pos))

    def moves(self, words: list[str], where: str) -> None:
        every = "all" in words
        action = next((w for w in words if w != "all"), "")
        if action and action not in self.session.ref.actions:
            known = ", ".join(sorted(self.session.ref.actions))
            self.bad(where, f"moves {action}: no such action", f"actions: {known}")
            return
        asked = Asked(None, every, action, most=MAX_JUDGED, seconds=MAX_SECONDS)
        session = self.session
        moves, _ = within_limit(
            lambda: enumerate_moves(
                session.ref, str(session.source), len(session.written), _span(where), asked
            ),
            where,
            "listing the legal events",
        )
        text = render(Report(moves, asked, len(session.written)))
        self.say("\n".join(text.splitlines()[1:]))

    def save(self, file: str, where: str) -> None:
        path = Path(file)
        try:
            # a FIFO with no reader would hold the table forever, a device is not a record:
            # only a regular file (or a new one) is written, an existing one replaced
            if path.exists() and not path.is_file():
                self.bad(where, f"save {shown(file)}: not a regular file: nothing written")
                return
            text = (
                self.session.to_notation()
                if path.suffix.lower() == ".rec"
                else self.session.to_yaml()
            )
            path.write_text(text, encoding="utf-8")
        except RefereeError as err:
            self.bad(where, f"save {shown(file)}: {err.problems[0].message}")
            return
        except OSError as err:
            self.bad(where, f"save {shown(file)}: cannot write: {err.strerror}")
            return
        self.say(f"saved {len(self.session.written)} event(s) to {shown(file)}")

    def help(self) -> None:
        top = self.session.ref.machine.top
        allowed = ", ".join(a.name for a in top.step.allows) if top and top.step else "nothing"
        self.say(HELP[0].split("Bounded")[0].rstrip())
        self.say(f"allowed now: {allowed}")


def _span(where: str) -> Span:
    name, _, line = where.rpartition(":")
    return Span(name, int(line) if line.isdigit() else 0, 0)


def _lines(stream: TextIO, most: int, table: Table, name: str) -> Iterator[tuple[int, str]]:
    """The lines of a pipe, each refused if it is too long or not UTF-8 text; stops at
    binary data, past ``most`` lines, or when the time in all is up."""
    raw = stream.buffer if hasattr(stream, "buffer") else None
    start = time.monotonic()
    n = 0
    while True:
        if raw is not None:
            data = raw.readline(MAX_LINE_BYTES + 1)
            if not data:
                return
            n += 1
            if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
                table.bad(f"{name}:{n}", f"a line longer than {MAX_LINE_BYTES:,} bytes: refused")
                while data and not data.endswith(b"\n"):  # the rest of it, unread
                    data = raw.readline(MAX_LINE_BYTES + 1)
                continue
            if b"\x00" in data:
                table.bad(f"{name}:{n}", "binary data, not text: the table reads notation lines")
                return
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as err:
                table.bad(f"{name}:{n}:{err.start + 1}", "not UTF-8 text: refused")
                if table.problems >= 3 and n <= table.problems:  # nothing but binary so far
                    table.bad(f"{name}:{n}", "binary data, not text: stopped")
                    return
                continue
        else:
            text = stream.readline()
            if not text:
                return
            n += 1
        if n > most:
            table.bad(f"{name}:{n}", f"more than {most:,} lines: stopped (--max-lines)")
            return
        if time.monotonic() - start > MAX_SECONDS_IN_ALL:
            table.bad(f"{name}:{n}", f"the table ran for {MAX_SECONDS_IN_ALL:g} s: stopped")
            return
        yield n, text.rstrip("\r\n")


def _typed(prompt: str) -> Iterator[tuple[int, str]]:
    """Lines typed at a terminal, with line editing and history where readline exists."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401 - imported for its effect on input()
    n = 0
    while True:
        try:
            text = input(prompt)
        except EOFError:
            print()
            return
        except KeyboardInterrupt:
            print()
            return
        n += 1
        yield n, text[: MAX_LINE_BYTES + 1]


def cmd_table(args: argparse.Namespace) -> int:
    if args.max_lines < 1:
        print("referee table: --max-lines takes a number of lines, 1 or more", file=sys.stderr)
        return EXIT_BAD_INPUT
    spec = _load(args, args.start)
    choice = Choice(args.printing, list(args.overlay), list(args.no_overlay))
    session = within_limit(
        lambda: Session(spec, args.start, choice), str(args.start or "<set-up>"), "judging"
    )
    try:
        table = Table(args, session, sys.stdout)
        if session.unreachable is not None:  # as `referee check` refuses it: no play from it
            v = session.unreachable.violations[0]
            table.say(f"{shown(str(args.start))}:{v.line}:{v.column}: {cannot_arise(v)}")
            return EXIT_ILLEGAL
        if session.refused is not None:
            v = session.refused.violations[0]
            table.say(
                f"{shown(str(args.start))}: event {v.index} ({v.action}) is illegal:"
                f" {v.cites} {v.message}; the table starts before it"
            )
            table.code = EXIT_ILLEGAL
        table.say(f"{len(session.written)} event(s); {session.ref.summary()}")
        from_stdin = args.start is not None and str(args.start) == "-"
        interactive = sys.stdin.isatty() and not from_stdin
        name = "<stdin>"
        if from_stdin:
            return table.code
        lines = _typed("table> ") if interactive else _lines(sys.stdin, args.max_lines, table, name)
        for n, text in lines:
            if len(text.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
                table.bad(f"{name}:{n}", f"a line longer than {MAX_LINE_BYTES:,} bytes: refused")
                continue
            if not table.line(n, text, name):
                break
            if table.problems >= MAX_PROBLEMS and not interactive:
                table.bad(
                    f"{name}:{n}",
                    f"{MAX_PROBLEMS} refused or unreadable lines: stopped",
                    "a script that drives the table stops at its first refusal",
                )
                break
        return table.code
    finally:
        session.close()
