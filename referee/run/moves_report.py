"""`referee moves`: a record's position, its legal next events (run/moves.py), the filters
(--stack, --to, --action) and the answer, as data, JSON and text.

The filters read events as a record writes them, knowing no game: an event *starts at* a
name when one of its arguments is that name or a list of names (a path) begins with it;
it *reaches* a name when a list of two names or more (a path) ends with it, or, for an
event with no such list, when one of its arguments is that name.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from typing import Any

from referee.budget import within_limit
from referee.compile.spec import Spec
from referee.errors import Problem, RefereeError, Span
from referee.records.notation_write import yaml_line
from referee.records.record import Source, record_name
from referee.resolve.overlays import Choice
from referee.run.moves import MAX_JUDGED, MAX_SECONDS, ActionMoves, Enumerator, Listed, Moves
from referee.run.position import out_of_range
from referee.run.referee import Referee
from referee.run.replay import CANNOT_ARISE, expectations, open_referee, refused_position
from referee.run.trial import Mark
from referee.run.verdict import Violation
from referee.text import shown

SHOWN = 12  # legal events a summary line lists, by the spec's text, at most


@dataclass
class Asked:
    """What `referee moves` was asked: the filters and the bounds."""

    at: int | None = None
    every: bool = False  # --all
    action: str = ""
    stack: str = ""
    to: str = ""
    most: int = MAX_JUDGED
    seconds: float = MAX_SECONDS


@dataclass
class Answer:
    """``--to``: whether an event reaches the place, and how, or what stops it."""

    to: str
    reachable: bool
    route: list[Any] | None = None
    event: dict[str, Any] | None = None
    shown: str = ""
    clause: str = ""  # the condition that refused most of the candidates that reach it
    title: str = ""
    message: str = ""
    numbers: list[str] = field(default_factory=list)
    refused: int = 0  # how many candidates reaching it the rules refused
    text: str = ""


@dataclass
class Report:
    moves: Moves
    asked: Asked
    events: int  # how many events the record holds
    illegal: dict[str, Any] | None = None  # an illegal event before the point asked for
    answer: Answer | None = None

    def as_json(self) -> dict[str, Any]:
        m = self.moves
        return {
            "file": m.file,
            "events_in_record": self.events,
            "at": self.asked.at,
            "after": m.after,
            "procedure": m.procedure,
            "step": m.step,
            "actors": m.actors,
            "over": m.over,
            "all": self.asked.every,
            "complete": m.complete,
            "stopped": m.stopped,
            "events": m.events,
            "actions": [_action_json(a) for a in m.actions],
            "to": asdict(self.answer) if self.answer is not None else None,
            "illegal": self.illegal,
        }


def _action_json(a: ActionMoves) -> dict[str, Any]:
    return {
        "action": a.action,
        "by": a.by,
        "clause": a.clause,
        "source": a.source,
        "tried": a.tried,
        "alike": a.alike,
        "legal": len(a.listed),
        "shown": [x.shown for x in a.listed],
        "told": [x.told for x in a.listed],
        "refused": [asdict(r) for r in a.refused],
        "note": a.note,
    }


# ------------------------------------------------------------ the filters


def _plain_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str | int) for x in v)


def _lists(v: Any) -> list[list[Any]]:
    """Every list of plain values inside a value, at any depth."""
    if _plain_list(v):
        return [v]
    if isinstance(v, dict):
        return [x for item in v.values() for x in _lists(item)]
    if isinstance(v, list):
        return [x for item in v for x in _lists(item)]
    return []


def starts(args: dict[str, Any], name: str) -> bool:
    """Whether an event (its arguments as written) starts at ``name``."""
    if any(v == name for k, v in args.items() if k != "by"):
        return True
    return any(p and p[0] == name for p in _lists(args))


def route_to(args: dict[str, Any], name: str) -> list[Any] | None:
    """The path by which an event reaches ``name``; [] if it names it with no path; None
    if it does not reach it."""
    paths = [p for p in _lists(args) if len(p) >= 2]
    if paths:
        return next((p for p in paths if p[-1] == name), None)
    return [] if any(v == name for k, v in args.items() if k != "by") else None


def known_names(ref: Referee) -> set[str]:
    """Every name a record may give: the values of the spec's enumerations and the names
    of its data's items."""
    names: set[str] = set()
    for items in ref.spec.components.collections.values():
        for item in items:
            if isinstance(item, dict):
                key = item.get("id", item.get("name"))
                if isinstance(key, str):
                    names.add(key)
    for t in ref.sym.types:
        try:
            names.update(str(v) for v in ref.interp.enum_values(t))
        except (KeyError, TypeError, AttributeError, AssertionError):
            continue
    return names


def _check_name(ref: Referee, flag: str, name: str) -> None:
    known = known_names(ref)
    if name in known:
        return
    close = difflib.get_close_matches(name, sorted(known), n=1)
    raise RefereeError(
        [
            Problem(
                Span("<command line>", 0, 0),
                f"{flag} {name}: the game knows no such name",
                f"did you mean '{close[0]}'?" if close else "a location, as records name it",
            )
        ]
    )


# ------------------------------------------------------------ the position


def stand(ref: Referee, at: int | None) -> tuple[int, Violation | None]:
    """Apply the record's events before event ``at`` (all, without it), as far as they are
    legal: how many were applied, and the first illegal one's violation, if any. A
    starting position that cannot arise is refused as `referee check` refuses it (event 0):
    none of the record's events is applied."""
    events = ref.record.events
    n = len(events)
    if at is not None and not 1 <= at <= n:
        raise out_of_range(ref, "--at", at, n)
    ref.start()
    unreachable = refused_position(ref)
    if unreachable is not None:
        return 0, unreachable.violations[0]
    for ev in events[: (at - 1) if at is not None else n]:
        mark = Mark(ref)
        violations = ref.judge(ev)
        if violations:
            mark.back()
            return ev.index - 1, violations[0]
        mark.keep()
    return (at - 1) if at is not None else n, None


def enumerate_moves(
    ref: Referee, file: str, after: int, where: Span, asked: Asked, listed: bool = True
) -> tuple[Moves, Answer | None]:
    """The legal next events at ``ref``'s position, filtered as asked (none where
    ``listed`` is false: a start no game reaches)."""
    for flag, name in (("--stack", asked.stack), ("--to", asked.to)):
        if name:
            _check_name(ref, flag, name)

    def keep(args: dict[str, Any]) -> bool:
        if asked.stack and not starts(args, asked.stack):
            return False
        return not (asked.to and route_to(args, asked.to) is None)

    filtered = bool(asked.stack or asked.to)
    enum = Enumerator(
        ref,
        after + 1,
        where,
        asked.most,
        asked.seconds,
        asked.action,
        asked.every,
        keep if filtered else None,
    )
    moves = enum.moves(file, after, listed)
    if filtered:  # the actions no candidate of which passes the filters say nothing
        moves.actions = [a for a in moves.actions if a.tried]
    if asked.to and not listed:
        return moves, Answer(asked.to, False, text=f"no: {CANNOT_ARISE}, no game stands there")
    answer = _answer(moves, asked.to) if asked.to else None
    return moves, answer


def _answer(moves: Moves, to: str) -> Answer:
    for a in moves.actions:
        for x in a.listed:
            route = route_to(x.args, to)
            if route is not None:
                how = f" by {' - '.join(map(str, route))}" if route else ""
                return Answer(
                    to,
                    True,
                    route,
                    x.event,
                    x.shown,
                    text=f"yes: {x.action}{how} ({x.shown})",
                )
    refusals = [(r, a) for a in moves.actions for r in a.refused]
    refused = sum(r.count for r, _ in refusals)
    if not refusals:
        if moves.over:
            why = "the game is over"
        elif moves.stopped:
            why = f"none found before the enumeration stopped ({moves.stopped})"
        else:
            why = f"no event the spec lists here reaches it ({moves.procedure}, step {moves.step})"
        return Answer(to, False, text=f"no: {why}")
    r, a = max(refusals, key=lambda ra: ra[0].count)
    numbers = "; ".join(r.numbers[:6])
    return Answer(
        to,
        False,
        clause=r.cites,
        title=r.title,
        message=r.message,
        numbers=list(r.numbers),
        refused=refused,
        event=r.example,
        text=(
            f"no: the rules refuse all {refused} candidate(s) of {a.action} that reach {to};"
            f" most by {r.cites} {r.title} ({r.count}): {r.message}"
            + (f" [{numbers}]" if numbers else "")
        ),
    )


def moves_report(spec: Spec, source: Source, choice: Choice, asked: Asked) -> Report:
    """`referee moves`: the record read, its position before event ``asked.at`` (or after
    its last event, or before its first illegal one), the legal next events there."""

    def run() -> Report:
        ref = open_referee(spec, source, choice)
        try:
            expectations(ref, ref.record)
            after, illegal = stand(ref, asked.at)
            events = ref.record.events
            doc = ref.record.doc
            path: tuple[str | int, ...] = ("events", after) if after < len(events) else ("events",)
            where = doc.span(path) if events else doc.span(())
            # a start no game reaches lists nothing: no game stands there (Game refuses it)
            start_refused = illegal is not None and illegal.index == 0
            moves, answer = enumerate_moves(
                ref, doc.file, after, where, asked, listed=not start_refused
            )
            return Report(
                moves,
                asked,
                len(events),
                _illegal(illegal) if illegal is not None else None,
                answer,
            )
        finally:
            ref.release()

    return within_limit(run, record_name(source), "listing the legal events")


def _illegal(v: Violation) -> dict[str, Any]:
    return {
        "event": v.index,
        "action": v.action,
        "line": v.line,
        "cites": v.cites,
        "title": v.title,
        "message": v.message,
    }


# ------------------------------------------------------------ text


def written(x: Listed) -> str:
    """An event as a record's line writes it: ``- ACTION: {ARGS}``."""
    return "- " + yaml_line(x.action, x.event[x.action])


def render(report: Report) -> str:
    m = report.moves
    asked = report.asked
    where = f"before event {asked.at}" if asked.at is not None else "after its last event"
    lines = [f"{shown(m.file)}: {where} ({m.after} of {report.events} events applied)"]
    if report.illegal is not None and report.illegal["event"] == 0:
        i = report.illegal
        lines.append(
            f"  {CANNOT_ARISE}: {i['cites']} {i['message']}; no game stands there, so no"
            " event is listed"
        )
    elif report.illegal is not None:
        i = report.illegal
        lines.append(
            f"  event {i['event']} ({i['action']}, line {i['line']}) is illegal: {i['cites']}"
            f" {i['message']}; the position before it"
        )
    if m.over:
        lines.append("  the game is over: no event may follow")
        return "\n".join(lines)
    actors = " or ".join(map(str, m.actors)) or "either side"
    lines.append(f"  {m.procedure}, step {m.step}: {actors} to act")
    if report.answer is not None:
        lines.append(f"  --to {report.answer.to}: {report.answer.text}")
    if not m.actions and not (report.illegal is not None and report.illegal["event"] == 0):
        lines.append("  no action here matches what was asked")
    for a in m.actions:
        lines += _action_lines(a, asked.every)
    if m.stopped:
        lines.append(f"  stopped: {m.stopped}")
    return "\n".join(lines)


def _action_lines(a: ActionMoves, every: bool) -> list[str]:
    by = f", by {a.by}" if a.by is not None else ""
    clause = f" ({a.clause})" if a.clause else ""
    if not a.tried and not a.note:
        return [f"  {a.action}{clause}{by}: nothing the spec lists"]
    alike = f", {a.alike} alike not judged" if a.alike else ""
    head = f"  {a.action}{clause}{by}: {len(a.listed)} legal of {a.tried} tried{alike}"
    out = [head]
    if every:
        for x in a.listed:
            out += [f"    {written(x)}"] + [f"        {t}" for t in x.told]
    elif any(x.told for x in a.listed):
        # what each would do (a deployment's Impact): one a line, with the first thing told
        firsts = list({x.shown: x for x in a.listed}.values())
        out += [
            f"    legal: {x.shown}" + (f": {x.told[0]}" if x.told else "") for x in firsts[:SHOWN]
        ]
        if len(firsts) > SHOWN:
            out.append(f"    and {len(firsts) - SHOWN} more")
    elif a.listed:
        texts = list(dict.fromkeys(x.shown for x in a.listed))
        more = f"; and {len(texts) - SHOWN} more" if len(texts) > SHOWN else ""
        out.append(f"    legal: {'; '.join(texts[:SHOWN])}{more}")
    for r in a.refused:
        numbers = f" [{'; '.join(r.numbers[:4])}]" if r.numbers else ""
        message = f": {r.message}{numbers}" if r.message else ""
        out.append(f"    refused {r.count} by {r.cites} {r.title}{message}")
    if a.note:
        out.append(f"    note: {a.note}")
    return out
