"""A verdict as data: the violations of a record, each with the clause it breaks and the
numbers that decide it, and where the game stands."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

MAX_LINE = 2_000  # characters of a line of a verdict
LISTED = 1_000  # numbers and calls a violation keeps (JSON), the rest counted
SHOWN_LINES = 50  # of those, lines shown in the text
TOLD_LISTED = 1_000  # outcomes of one event a verdict keeps (JSON), the rest counted
TOLD_IN_ALL = 10_000  # outcomes of all the events a verdict keeps
TOLD_SHOWN = 100  # outcomes of one event shown in the text


@dataclass
class Violation:
    index: int
    action: str
    line: int
    column: int
    clause: str
    label: str
    title: str
    message: str
    numbers: list[str] = field(default_factory=list)
    relied: list[str] = field(default_factory=list)
    kind: str = "rule"  # or "expectation": a value the record expects after the event
    # for an expectation: its key, the value expected and the value the rules give
    expectation: dict[str, Any] = field(default_factory=dict)
    as_expected: bool = False  # a refusal the record states (``expect: {illegal: ...}``)
    # every call evaluated on the way to the verdict (``numbers`` holds the decisive ones)
    trace: list[str] = field(default_factory=list)
    # what the actor could legally have done instead (referee/run/alternatives.py):
    # {"args", "changing", "left_out", "text"} each; the note says how many were tried
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    alternatives_note: str = ""
    # how many numbers and calls were left out past the first LISTED of each
    numbers_left_out: int = 0
    trace_left_out: int = 0

    def __post_init__(self) -> None:
        self.numbers, self.numbers_left_out = _kept(self.numbers, self.numbers_left_out)
        self.trace, self.trace_left_out = _kept(self.trace, self.trace_left_out)

    @property
    def cites(self) -> str:
        return f"{self.clause}/{self.label}" if self.label else self.clause


def _kept(items: list[str], left_out: int) -> tuple[list[str], int]:
    """The first LISTED items, and how many were left out in all."""
    return items[:LISTED], left_out + max(len(items) - LISTED, 0)


@dataclass
class Verdict:
    file: str
    legal: bool
    events: int  # how many events the record holds
    judged: int  # how many were judged
    printing: str
    overlays: list[str]
    violations: list[Violation] = field(default_factory=list)
    relied: list[str] = field(default_factory=list)
    summary: str = ""
    kinds: dict[str, str] = field(default_factory=dict)  # overlay id -> its kind
    # the standing rules that fired, event by event (0: on the starting position)
    happened: list[dict[str, Any]] = field(default_factory=list)
    # what the rules told of each judged event (index 0: the starting position): its
    # consequences, each with its clause, its text and its numbers by name
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    # whether a text rendering tells every event's outcome (a dispute does unasked)
    explain: bool = False
    # whether a text rendering shows every call evaluated, not only the decisive ones
    show_trace: bool = False
    # what a reader of the verdict may have missed (a position's vars left at their start)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """One entry of ``records`` in ``referee check --format json``'s result."""
        out = {"status": "legal" if self.legal else "illegal", **asdict(self)}
        for v in out["violations"]:
            v["cites"] = f"{v['clause']}/{v['label']}" if v["label"] else v["clause"]
        del out["explain"], out["show_trace"]
        return out
