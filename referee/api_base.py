"""The API's ground: its errors, the games it loads, the records it reads, and the
violations its verdicts hold; shared by referee/api.py and referee/playing.py (the Game
played one event at a time), and re-exported by ``referee``."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee import resources
from referee.compile.spec import Spec, find_game, load_spec
from referee.data.limits import read_text
from referee.data.source import MAX_DEPTH
from referee.errors import RefereeError
from referee.records.record import MAX_RECORD_BYTES, RecordText, Source
from referee.resolve.overlays import Choice, base_printing
from referee.run import verdict as _verdict_data

# A record: a path (``str`` or ``os.PathLike``), its YAML or JSON text (a ``str`` holding a
# line break or starting with ``{``), or the record itself as a mapping.
RecordInput = str | os.PathLike[str] | Mapping[str, Any]

_ARGUMENTS = "<arguments>"  # where a printing or an overlay named by the caller "sits"
_COMMAND_LINE = "<command line>"  # where the engine says such a name sits


# ------------------------------------------------------------------ errors


@dataclass(frozen=True)
class Problem:
    """One located problem: ``file:line:column: message``, a hint, the clause concerned.
    ``file`` is the record's path, ``<string>``, ``<mapping>`` or the name given, a spec
    file, or ``<arguments>`` for a printing or overlay named in the call; ``line`` and
    ``column`` are 0 when the problem is about the whole file."""

    file: str
    line: int
    column: int
    message: str
    hint: str = ""
    clause: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class InputError(Exception):
    """Input the referee cannot use. ``problems`` holds every problem found; ``str()`` gives
    them as the command line prints them (each with its line and a caret under the spot)."""

    def __init__(self, problems: Iterable[Problem], text: str = "") -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.text = text or "\n".join(str(p) for p in self.problems)
        super().__init__(self.text)

    def __str__(self) -> str:
        return self.text


class SpecError(InputError):
    """A game that cannot be loaded: no such game or directory, or a spec or data file that
    does not parse or check."""


class RecordError(InputError):
    """A record that cannot be judged: unreadable, malformed, not of this game, naming what
    the game does not know; or a printing, overlay or event number asked for that it lacks."""


def _error(err: RefereeError, kind: type[InputError], source: Source | None = None) -> InputError:
    sources = dict(err.sources)
    if isinstance(source, RecordText):
        sources.setdefault(source.name, source.text)
    # a name the caller gave (a printing, an overlay, a topic) is said to sit in the arguments
    found = [
        replace(p, span=replace(p.span, file=_ARGUMENTS)) if p.span.file == _COMMAND_LINE else p
        for p in err.problems
    ]
    problems = [
        Problem(p.span.file, p.span.line, p.span.column, p.message, p.hint, p.clause) for p in found
    ]
    return kind(problems, RefereeError(found, sources).render())


# ------------------------------------------------------------------ games


@dataclass(frozen=True)
class Rules:
    """A game's spec, parsed and checked: its rules, printings, overlays and data."""

    name: str  # the name records give in ``game:``
    title: str
    directory: Path  # the game's spec folder (the bundled one lives inside the package)
    printings: tuple[str, ...]
    base_printing: str  # the printing in force unless another is asked for
    overlays: tuple[str, ...]  # every printing's erratum, clarification and decision, by id
    clauses: Mapping[str, str]  # every clause's title, by number, in the rulebook's order
    _spec: Spec = field(repr=False, compare=False)


def load_game(
    name_or_dir: str | os.PathLike[str] | None = None, *, data: str | os.PathLike[str] | None = None
) -> Rules:
    """Load a game: the bundled one (None), a bundled game by name, or a spec directory laid
    out as the bundled one (a ``str`` naming no bundled game is taken as a directory).
    ``data`` is a folder of component files replacing the spec's own, file by file. A game
    already loaded from the same unchanged files is reused. Raises SpecError."""
    try:
        where = name_or_dir if isinstance(name_or_dir, str | None) else Path(name_or_dir)
        spec = load_spec(find_game(where), Path(data) if data is not None else None)
    except RefereeError as err:
        raise _error(err, SpecError) from None
    game = spec.game
    return Rules(
        name=game.name if game else "",
        title=game.title if game else "",
        directory=spec.game_dir,
        printings=tuple(spec.sym.printings),
        base_printing=base_printing(spec.sym),
        overlays=tuple(spec.sym.overlays),
        clauses={c.number: c.title for c in spec.clauses()},
        _spec=spec,
    )


def _game(game: Rules | str | os.PathLike[str] | None, record: object = None) -> Spec:
    """The game asked for; not given, the bundled game the record names in its header (as
    the command line chooses it: a notation record's sides and actions are its game's),
    else the default game."""
    if game is None and record is not None:
        game = _named_game(record)
    return (game if isinstance(game, Rules) else load_game(game))._spec


# a record's header naming its game: YAML or the notation (`game: NAME`), or JSON
_GAME_NAMED = re.compile(r"^game:[ \t]*[\"']?([\w-]+)|\"game\"\s*:\s*\"([\w-]+)\"", re.M)


def _named_game(record: object) -> str | None:
    """The bundled game a record names, if it names one (else None: the default game, and
    a record that cannot be read is said when it is judged)."""
    if isinstance(record, Mapping):
        named = record.get("game")
    else:
        if isinstance(record, str) and ("\n" in record or record.lstrip().startswith("{")):
            text = record
        elif isinstance(record, str | os.PathLike):
            try:
                text = read_text(Path(record), MAX_RECORD_BYTES, "record")
            except (RefereeError, OSError, ValueError):
                return None
        else:
            return None
        found = _GAME_NAMED.search(text)
        named = (found.group(1) or found.group(2)) if found else None
    return named if isinstance(named, str) and named in resources.bundled_games() else None


def _source(record: RecordInput, name: str | None) -> Source:
    """What the engine reads: a path, or a text under its name (a mapping written as JSON,
    so that every problem in it has a line and a column)."""
    if isinstance(record, Mapping):
        try:
            text = json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False, default=_plain)
        except (TypeError, ValueError) as err:
            problem = Problem(name or "<mapping>", 0, 0, f"the record is not plain data: {err}")
            raise RecordError([problem]) from None
        except RecursionError:  # far deeper than a record may nest (MAX_DEPTH levels)
            problem = Problem(
                name or "<mapping>",
                0,
                0,
                f"the record is nested too deeply: a record nests at most {MAX_DEPTH} levels",
            )
            raise RecordError([problem]) from None
        return RecordText(text + "\n", name or "<mapping>")
    # a text: lines, a JSON object, or binary data (no path holds a NUL byte)
    if isinstance(record, str) and (
        "\n" in record or "\x00" in record or record.lstrip().startswith("{")
    ):
        return RecordText(record, name or "<string>")
    if isinstance(record, str | os.PathLike):
        return Path(record)
    raise TypeError(f"a record is a path, a text or a mapping, not {type(record).__name__}")


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not plain data")


def _choice(printing: str, overlays: Iterable[str], no_overlays: Iterable[str]) -> Choice:
    on = [overlays] if isinstance(overlays, str) else list(overlays)
    off = [no_overlays] if isinstance(no_overlays, str) else list(no_overlays)
    return Choice(printing, on, off)


@dataclass(frozen=True)
class Violation:
    """An illegal event (or an expectation the record states that the rules do not meet)."""

    event: int  # the event's number, 1 for the first
    action: str
    line: int  # where the event sits in the record
    column: int
    clause: str  # the number of the clause broken
    label: str  # the label of its condition broken ("" if none)
    cites: str  # clause and label: "NUMBER/LABEL", or the number alone
    title: str  # the clause's title
    message: str  # the condition's message, with its values
    numbers: tuple[str, ...]  # the decisive values and calls, each with its clause
    relied_on: tuple[str, ...]  # the overlays the verdict relied on
    kind: str  # "rule", "expectation" (a value the record expects), "position" (event 0)
    as_expected: bool  # the record itself expects this refusal (``expect: {illegal: ...}``)
    alternatives: tuple[str, ...]  # what the actor could legally have done instead


@dataclass(frozen=True)
class Told:
    """One consequence the rules told of an event: the rule, its text, its numbers by name."""

    cites: str
    clause: str
    label: str
    text: str
    values: Mapping[str, Any]


def _violation(x: _verdict_data.Violation) -> Violation:
    return Violation(
        event=x.index,
        action=x.action,
        line=x.line,
        column=x.column,
        clause=x.clause,
        label=x.label,
        cites=x.cites,
        title=x.title,
        message=x.message,
        numbers=tuple(x.numbers),
        relied_on=tuple(x.relied),
        kind=x.kind,
        as_expected=x.as_expected,
        alternatives=tuple(a["text"] for a in x.alternatives),
    )
