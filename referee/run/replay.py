"""Replay a record event by event and judge it: a Verdict, as data.

The verdict of an illegal event names its index and line, the clause and the
label of the condition it breaks, the condition's message with its values,
the definitions evaluated on the way (each with its clause), the printing and
overlays in force, and the overlays the verdict relied on.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from referee import resources
from referee.budget import within_limit
from referee.compile.shown import SHOWN_VALUE, brief, listed
from referee.compile.spec import Spec, collector_paused
from referee.errors import Problem, RefereeError
from referee.records.expect import (
    ILLEGAL,
    Expectation,
    compile_expectations,
)
from referee.records.notation_read import is_notation_source, notation_document
from referee.records.record import Event, Record, Source, load_record, record_name
from referee.resolve.overlays import Choice
from referee.run import alternatives
from referee.run.referee import Referee
from referee.run.verdict import (
    LISTED,
    MAX_LINE,
    SHOWN_LINES,
    TOLD_IN_ALL,
    TOLD_LISTED,
    TOLD_SHOWN,
    Verdict,
    Violation,
)
from referee.text import clip, shown


def check_one(
    spec: Spec, path: Source, choice: Choice, keep_going: bool = False, offer: bool = False
) -> Verdict:
    """``check_record`` under the time limit for one record (REFEREE_TIME_LIMIT)."""
    return within_limit(
        lambda: check_record(spec, path, choice, keep_going, offer), record_name(path), "judging"
    )


def check_record(
    spec: Spec,
    path: Source,
    choice: Choice,
    keep_going: bool = False,
    offer: bool = False,
    expect: bool = True,
) -> Verdict:
    """Replay a record; stop at the first illegal event unless ``keep_going``. With
    ``offer``, a refused event comes with what its actor could have done instead. Without
    ``expect``, the record's ``expect:`` is neither read nor evaluated (``compare``: they
    are the answers under the record's own printing and overlays)."""
    with collector_paused():  # see there: what judging leaves is freed as it goes
        ref = open_referee(spec, path, choice)
        try:
            return _replay(ref.spec, ref, ref.record, keep_going, offer, expect)
        finally:
            ref.release()


def open_referee(spec: Spec, path: Source, choice: Choice) -> Referee:
    """Read a record and make its Referee, with the record's printing and overlays and
    ``choice`` on top; the caller releases it."""
    read = partial(notation_document, spec) if is_notation_source(path) else None
    record = load_record(path, spec.game_dir.parent / "schema", read)
    if record.view:
        raise RefereeError(
            [
                Problem(
                    record.doc.span(("view",)),
                    f"this is a view record (view: {record.view}): it does not name every block"
                    " and card, and the referee judges complete records only",
                    "referee check judges a view record (consistent or not): see docs/hidden.md",
                )
            ],
            {record.doc.file: record.doc.text},
        )
    game = spec.game
    if game is not None and record.game != game.name:
        other = _bundled_spec(spec, record.game)
        if other is not None:  # a bundled game's record, judged by its own game's rules
            spec = other
            if read is not None:
                return open_referee(other, path, choice)
            game = spec.game
    if game is not None and record.game != game.name:
        raise RefereeError(
            [
                Problem(
                    record.doc.span(("game",)),
                    f"this record is of '{record.game}', not '{game.name}'",
                )
            ],
            {record.doc.file: record.doc.text},
        )
    merged = Choice(
        choice.printing or record.printing,
        record.overlays_on + choice.on,
        record.overlays_off + choice.off,
    )
    return Referee(spec, record, merged)


def refused_position(ref: Referee) -> Verdict | None:
    """The verdict `referee check` gives a record whose starting position no game reaches
    (Referee.unreachable, on a started referee): illegal at event 0, kind "position", no event
    judged; None for a position no invariant refuses (or the set-up). The commands that
    stand at a record's position (play --from, moves, show, table, Game) refuse it so."""
    v = ref.unreachable()
    if v is None:
        return None
    verdict = Verdict(
        ref.record.doc.file, False, len(ref.record.events), 0, ref.printing, ref.overlays, [v]
    )
    verdict.kinds = {o: ref.sym.overlays[o].kind for o in ref.overlays if o in ref.sym.overlays}
    verdict.relied = v.relied
    return verdict


CANNOT_ARISE = "the starting position cannot arise"


def cannot_arise(v: Violation) -> str:
    """A refused starting position in a line: the clause it breaks and its message."""
    return f"{CANNOT_ARISE}: {v.cites}" + (f" ({v.title})" if v.title else "") + f": {v.message}"


def _bundled_spec(spec: Spec, name: str) -> Spec | None:
    """The spec of the bundled game a record names, when the spec at hand is another bundled
    game's (not a folder given with --spec): records say which game they are of."""
    from referee.compile.spec import SPEC_ROOT, load_spec

    if spec.game_dir.parent.resolve() != SPEC_ROOT.resolve():
        return None
    if name == spec.game_dir.name or name not in resources.bundled_games():
        return None
    return load_spec(SPEC_ROOT / name)


def _happened(ref: Referee, index: int, since: int) -> list[dict[str, Any]]:
    """The standing rules that fired since ``since``, as data."""
    return [
        {
            "index": index,
            "rule": f"{rule.clause}/{rule.name}",
            "text": rule.text,
            "at": {p.name: brief(v, SHOWN_VALUE) for p, v in zip(rule.params, values, strict=True)},
        }
        for rule, values in ref.interp.fired[since:]
    ]


def _outcome(ref: Referee, ev: Event | None, since: int, room: int) -> dict[str, Any]:
    """What the rules told of one event (None: the starting position) since ``since``: at
    most TOLD_LISTED of it and ``room``, and how many more there were (``left_out``)."""
    every = ref.interp.told[since:]
    told = [
        {
            "cites": f"{st.clause}/{st.label}",
            "clause": st.clause,
            "label": st.label,
            "text": text,
            "values": {name: listed(v) for name, v in values},
        }
        for st, text, values in every[: max(min(room, TOLD_LISTED), 0)]
    ]
    if ev is None:
        out = {"index": 0, "action": "", "line": 0, "outcome": told}
    else:
        line = ref.record.doc.span(ev.path[:2]).line
        out = {"index": ev.index, "action": ev.action, "line": line, "outcome": told}
    if len(every) > len(told):
        out["left_out"] = len(every) - len(told)
    return out


# A record of this many events or fewer from a position is a dispute: its verdict tells
# what happened unasked, legal or not. A legal record from a position is told what
# happened whatever its length (what a refusal tells of a longer one is asked for).
DISPUTE_EVENTS = 3


def expectations(ref: Referee, record: Record) -> dict[int, list[Expectation]]:
    """Every event's ``expect:``, parsed and typed before any event is judged."""
    return {
        ev.index: compile_expectations(ev, ev.expect, record.doc, ref.sym, ref.interp, ref.convert)
        for ev in record.events
        if ev.expect is not None
    }


def _replay(
    spec: Spec,
    ref: Referee,
    record: Record,
    keep_going: bool,
    offer: bool = False,
    expect: bool = True,
) -> Verdict:
    ref.start()
    verdict = Verdict(record.doc.file, True, len(record.events), 0, ref.printing, ref.overlays)
    verdict.kinds = {o: spec.sym.overlays[o].kind for o in ref.overlays}
    verdict.happened = _happened(ref, 0, 0)
    verdict.explain = record.position is not None and len(record.events) <= DISPUTE_EVENTS
    verdict.notes = list(ref.notes)
    kept = 0  # outcomes the verdict keeps, of TOLD_IN_ALL
    if ref.interp.told:
        verdict.outcomes.append(_outcome(ref, None, 0, TOLD_IN_ALL))
        kept += len(verdict.outcomes[-1]["outcome"])
    relied: set[str] = set()
    expected = expectations(ref, record) if expect else {}
    unreachable = ref.unreachable()
    if unreachable is not None:  # no event is judged from a position no game reaches
        verdict.legal, verdict.violations = False, [unreachable]
        first = record.events[0] if record.events else None
        if first is not None and any(x.key == ILLEGAL for x in expected.get(first.index, [])):
            # the record states the refusal it expects, beside its first event
            verdict.violations = ref.refusal(first, expected[first.index], [unreachable])
        verdict.relied = unreachable.relied
        return verdict
    for ev in record.events:
        before = "" if keep_going else ref.summary()
        fired, told = len(ref.interp.fired), len(ref.interp.told)
        violations = alternatives.judge(ref, ev, keep_going) if offer else ref.judge(ev, keep_going)
        verdict.happened += _happened(ref, ev.index, fired)
        verdict.judged += 1
        relied |= ref.interp.relied
        if not violations or keep_going:  # a refused event had no consequences
            outcome = _outcome(ref, ev, told, TOLD_IN_ALL - kept)
            kept += len(outcome["outcome"])
            verdict.outcomes.append(outcome)
            if ev.index in expected and not violations:
                violations = ref.missed(ev, expected[ev.index], told)
        if any(x.key == ILLEGAL for x in expected.get(ev.index, [])):
            violations = ref.refusal(ev, expected[ev.index], violations)
        if violations:
            verdict.legal = False
            verdict.violations += violations
            if ev.index == 1 and ref.defaulted_vars:
                verdict.notes.append(ref.unset_vars_note())
            if not keep_going:
                verdict.relied = sorted(relied)
                # where the game stood before the illegal event (after one whose outcome
                # the record expected otherwise)
                missed = all(v.kind == "expectation" for v in violations)
                verdict.summary = ref.summary() if missed else before
                return verdict
    verdict.relied = sorted(relied)
    verdict.summary = ref.summary()
    verdict.explain = verdict.explain or (record.position is not None and verdict.legal)
    return verdict


SHOWN_HAPPENINGS = 12


def _told(verdict: Verdict) -> list[str]:
    """Each event's consequences, as the rules told them, with their clauses."""
    out = []
    for o in verdict.outcomes:
        if not o["outcome"]:
            continue
        when = (
            f"event {o['index']} ({o['action']}, line {o['line']})"
            if o["index"]
            else ("the starting position")
        )
        out.append(f"    {when}:")
        out += [f"      {t['cites']}: {t['text']}" for t in o["outcome"][:TOLD_SHOWN]]
        more = len(o["outcome"][TOLD_SHOWN:]) + o.get("left_out", 0)
        if more:
            out.append(f"      ... and {more:,} more ({_json_lists(o.get('left_out', 0))})")
    if not out:
        return ["  the rules told of no consequence of any event"]
    return ["  what happened:", *out]


def _no_clause(v: Violation) -> str:
    """An expectation whose key names no definition or state of the spec's: its key."""
    return f"{clip(str(v.expectation.get('key', 'expect')), 60)} (no clause)"


def _json_lists(left_out: int) -> str:
    return (
        f"--format json lists the first {LISTED:,}" if left_out else "--format json lists them all"
    )


def _lines(items: list[str], left_out: int) -> list[str]:
    """The first SHOWN_LINES of a violation's numbers or calls, and how many more."""
    out = [f"    {n}" for n in items[:SHOWN_LINES]]
    more = len(items[SHOWN_LINES:]) + left_out
    if more:
        out.append(f"    ... and {more:,} more ({_json_lists(left_out)})")
    return out


def render(verdict: Verdict) -> str:
    head = f"{verdict.file}: "
    if verdict.legal:
        out = [
            head
            + f"legal: {verdict.judged} event(s)"
            + (f"; {verdict.summary}" if verdict.summary else "")
        ]
        if verdict.explain:
            out += _told(verdict)
        # what the rules that hold at any moment did on the way (castle ownership aside)
        happenings = [h for h in verdict.happened if not h["rule"].endswith("/ownership")]
        if verdict.explain:
            happenings = []
        for h in happenings[:SHOWN_HAPPENINGS]:
            where = ", ".join(h["at"].values())
            when = f"event {h['index']}" if h["index"] else "the starting position"
            out.append(
                f"  {when}: {h['rule']}" + (f" ({where})" if where else "") + f": {h['text']}"
            )
        if len(happenings) > SHOWN_HAPPENINGS:
            more = len(happenings) - SHOWN_HAPPENINGS
            out.append(f"  ... and {more} more (--format json lists them all)")
        out += [f"  note: {n}" for n in verdict.notes if n]
    else:
        out = []
        for v in verdict.violations:
            what = "misses an expectation" if v.kind == "expectation" else "is illegal"
            what += " (as the record expects)" if v.as_expected else ""
            which = f"event {v.index} ({v.action}) {what}"
            if v.kind == "position":
                which = CANNOT_ARISE
                which += " (as the record expects)" if v.as_expected else ""
            out.append(
                f"{verdict.file}:{v.line}:{v.column}: {which}:"
                f" {v.cites or _no_clause(v)}" + (f" ({v.title})" if v.title else "")
            )
            out.append(f"  {v.message}")
            if v.numbers:
                out.append("  the numbers that decide it:")
                out += _lines(v.numbers, v.numbers_left_out)
            if verdict.show_trace and v.trace:
                out.append("  every call evaluated on the way (--trace):")
                out += _lines(v.trace, v.trace_left_out)
            out += alternatives.lines(v)
        if verdict.summary:
            missed = all(v.kind == "expectation" for v in verdict.violations)
            out.append(f"  {'after' if missed else 'before'} that event: {verdict.summary}")
        if verdict.explain and any(o["outcome"] for o in verdict.outcomes):
            out += _told(verdict)
        out += [f"  note: {n}" for n in verdict.notes if n]
    # printings' overlays by name; clarifications and decisions, which are many, counted
    named = [
        o for o in verdict.overlays if verdict.kinds.get(o) not in ("clarification", "decision")
    ]
    counted = [
        f"{n} {kind}s"
        for kind in ("clarification", "decision")
        if (n := sum(1 for o in verdict.overlays if verdict.kinds.get(o) == kind))
    ]
    overlays = ", ".join(named + counted) or "none"
    relied = verdict.violations[0].relied if verdict.violations else verdict.relied
    out.append(
        f"  printing {verdict.printing}; overlays in force: {overlays};"
        f" relied on: {', '.join(relied) or 'none'}"
    )
    # names and values from the record, escaped: one line of output per line here
    return "\n".join(shown(line, MAX_LINE) for line in out)
