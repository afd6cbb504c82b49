"""A record replayed once, step by step, for pictures: at each step the position before an
event (the few states the display draws), the event, and its verdict: its violation with
clause and label, or what the rules told of it. The replay is `check`'s and `show`'s: the
same Referee, stopping at the first illegal event."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.budget import within_limit
from referee.compile.shown import brief, listed, show
from referee.compile.spec import Spec
from referee.parse import ast
from referee.records.record import Event, Source, record_name
from referee.render.display import Display, load_display
from referee.resolve.overlays import Choice
from referee.run.position import event_of, out_of_range, read_state
from referee.run.referee import Referee
from referee.run.replay import expectations, open_referee, refused_position
from referee.run.verdict import Violation
from referee.text import shown

TOLD_KEPT = 12  # outcomes of one event a step keeps
TEXT_KEPT = 400  # characters of one message or outcome kept
SUMMARY_KEPT = 200


@dataclass
class Step:
    """One step of a replay: the position ``position`` ("before" or "after") event
    ``event["index"]``, or the position the record starts from or ends at (no event)."""

    position: str  # "before", "after", "start" (no events) or "end"
    event: dict[str, Any] | None
    summary: str
    frames: list[str]
    state: dict[str, Any]  # by state name: its value, plain (only the states drawn)
    verdict: str = ""  # "legal", "illegal", or "" with no event judged
    violation: dict[str, Any] | None = None  # cites, clause, label, title, message
    told: list[dict[str, Any]] = field(default_factory=list)  # cites, clause, text, values
    told_left_out: int = 0
    lost_here: dict[str, list[Any]] = field(default_factory=dict)  # by side: lost at this event
    pieces: list[dict[str, Any]] = field(default_factory=list)  # name, at, side, apart
    zones: dict[str, list[str]] = field(default_factory=dict)  # by side: in its enemy's zones
    # the procedures running, outermost first: each one's name and arguments (as shown)
    running: list[tuple[str, dict[str, str]]] = field(default_factory=list)


@dataclass
class Replay:
    file: str
    events: int
    steps: list[Step]
    first: int  # the event number of steps[0] (for a page holding a window of the record)
    # the first illegal event's number, if the replay reached one (0: the starting position
    # cannot arise)
    illegal: int | None
    printing: str
    sides: list[str]


def replay_steps(
    spec: Spec,
    path: Source,
    choice: Choice,
    keep: Callable[[int, int], bool],
    stop: int | None = None,
    after: bool = False,
    asked: tuple[str, int] | None = None,
) -> Replay:
    """Replay ``path`` and keep the step before each event whose number ``keep(number,
    events)`` accepts (the end as number events + 1); stop after event ``stop``. With
    ``after``, the last step is the position after event ``stop`` (the last event if
    None) instead. ``asked``: the option and event number asked for, which the record
    must have. A record with no events has one step: where it starts."""
    return within_limit(
        lambda: _replay(spec, path, choice, keep, stop, after, asked),
        record_name(path),
        "replaying",
    )


def _replay(
    spec: Spec,
    path: Source,
    choice: Choice,
    keep: Callable[[int, int], bool],
    stop: int | None,
    after: bool,
    asked: tuple[str, int] | None,
) -> Replay:
    # the display is read first: a game without one is refused before any replay
    ref = open_referee(spec, path, choice)
    try:
        sides = _sides(ref)
        display = load_display(spec, sides)
        expectations(ref, ref.record)
        events = ref.record.events
        n = len(events)
        if asked is not None and not 1 <= asked[1] <= n:
            raise out_of_range(ref, asked[0], asked[1], n)
        last = n if stop is None else stop
        ref.start()
        unreachable = refused_position(ref)
        if unreachable is not None:  # as `referee check` refuses it: drawn as given, refused
            given = _step(ref, display, "start", None)
            _judged(ref, given, unreachable.violations, 0)
            return Replay(ref.record.doc.file, n, [given], 0, 0, ref.printing, sides)
        steps: list[Step] = []
        illegal = None
        first = 0
        for ev in events[:last]:
            wanted = keep(ev.index, n) or (after and ev.index == last)
            step = _step(ref, display, "before", ev) if wanted else None
            told = len(ref.interp.told)
            violations = ref.judge(ev)
            if violations and step is None:
                # the state the illegal event found: replay again up to the event before it
                step = _before(spec, path, choice, display, ev)
            if step is not None:
                _judged(ref, step, violations, told)
                if not violations and display.lost:
                    step.lost_here = _lost_here(ref, display.lost, step.state.get(display.lost))
                if not violations and display.pieces is not None and display.pieces.lost:
                    step.lost_here = _pieces_lost(ref, display.pieces.lost, step.pieces)
                if after and ev.index == last and not violations:
                    later = _step(ref, display, "after", ev)
                    later.verdict, later.violation = step.verdict, step.violation
                    later.told, later.told_left_out = step.told, step.told_left_out
                    later.lost_here = step.lost_here
                    step = later
                if not steps:
                    first = ev.index
                steps.append(step)
            if violations:
                illegal = ev.index
                break
        else:
            if n == 0 or (last == n and not after and keep(n + 1, n)):
                if not steps:
                    first = n + 1
                steps.append(_step(ref, display, "end" if n else "start", None))
        return Replay(ref.record.doc.file, n, steps, first, illegal, ref.printing, sides)
    finally:
        ref.release()


def _lost_here(ref: Referee, name: str, before: Any) -> dict[str, list[Any]]:
    """By side, the units the state ``name`` (keyed by side) gained at the event just
    judged: those lost at it."""
    read, _ = read_state(ref, frozenset({name}))
    after = read.get(name, {}).get("value") or {}
    before = before if isinstance(before, dict) else {}
    out: dict[str, list[Any]] = {}
    for side, now in after.items() if isinstance(after, dict) else ():
        was = Counter(shown(str(x), TEXT_KEPT) for x in before.get(side) or [])
        new = []
        for x in now if isinstance(now, list) else []:
            key = shown(str(x), TEXT_KEPT)
            if was[key] > 0:
                was[key] -= 1
            else:
                new.append(x)
        if new:
            out[side] = new
    return out


def _pieces_lost(ref: Referee, lost: str, before: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """By side, the pieces on the board before the event just judged that are lost after it."""
    out: dict[str, list[Any]] = {}
    for piece in before:
        if _value(ref, lost, piece["name"]) is True:
            out.setdefault(piece["side"], []).append(piece["name"])
    return out


def _sides(ref: Referee) -> list[str]:
    game = ref.spec.game
    if game is None or not game.players:
        return []
    return [str(v) for v in ref.interp.enum_values(game.players)]


def _before(spec: Spec, path: Source, choice: Choice, display: Display, ev: Event) -> Step:
    fresh = open_referee(spec, path, choice)
    try:
        fresh.start()
        for earlier in fresh.record.events[: ev.index - 1]:
            fresh.judge(earlier)
        return _step(fresh, display, "before", ev)
    finally:
        fresh.release()


def _step(ref: Referee, display: Display, position: str, ev: Event | None) -> Step:
    read, _ = read_state(ref, display.states)
    d = ref.sym.values.get("summary")
    summary = brief(ref.interp.call("summary"), SUMMARY_KEPT) if isinstance(d, ast.Define) else ""
    frames = []
    running = []
    for f in ref.machine.frames:
        values = {p.name: shown(show(f.vars.get(p.name)), TEXT_KEPT) for p in f.proc.params}
        running.append((f.proc.name, values))
        args = ", ".join(f"{p.name}: {show(f.vars.get(p.name))}" for p in f.proc.params)
        step = f"step {f.step.name}" if f.step else "done"
        frames.append(f"{f.proc.title}" + (f" ({args})" if args else "") + f", {step}")
    if not ref.machine.frames and ref.machine.over:
        frames.append(f"the game is over ({ref.machine.over})")
    return Step(
        position=position,
        event=_event(ref, ev) if ev is not None else None,
        summary=shown(summary, SUMMARY_KEPT),
        frames=[shown(f, SUMMARY_KEPT) for f in frames],
        state={k: v["value"] for k, v in read.items()},
        pieces=_pieces(ref, display),
        zones=_zones(ref, display),
        running=running,
    )


def _value(ref: Referee, name: str, *args: Any) -> Any:
    """A state's value at ``args``, or a definition's."""
    d = ref.sym.values.get(name)
    if isinstance(d, ast.StateDecl):
        return ref.interp.read_state(d, args)
    return ref.interp.call(name, *args)


def _pieces(ref: Referee, display: Display) -> list[dict[str, Any]]:
    """Each piece on the board: its name, where it stands, its side, whether drawn apart."""
    pc = display.pieces
    if pc is None:
        return []
    out = []
    for name in pc.names:
        if not _value(ref, pc.shown, name):
            continue
        at, side = _value(ref, pc.at, name), _value(ref, pc.side, name)
        out.append(
            {
                "name": name,
                "at": shown(str(at), TEXT_KEPT),
                "side": shown(str(side), TEXT_KEPT),
                "apart": bool(_value(ref, pc.apart, name)) if pc.apart else False,
            }
        )
    return out


def _zones(ref: Referee, display: Display) -> dict[str, list[str]]:
    """By side, the hexes in its enemy's zone of control."""
    if not display.zones or display.hexes is None:
        return {}
    return {
        side: [h for h in display.hexes.cells if _value(ref, display.zones, h, side)]
        for side in _sides(ref)
    }


def _event(ref: Referee, ev: Event) -> dict[str, Any]:
    return {**event_of(ref, ev, True), "args": ev.args}


def _judged(ref: Referee, step: Step, violations: list[Violation], since: int) -> None:
    if violations:
        v = violations[0]
        step.verdict = "illegal"
        step.violation = {
            "cites": v.cites,
            "clause": v.clause,
            "label": v.label,
            "title": v.title,
            "message": shown(v.message, TEXT_KEPT),
            "numbers": [shown(x, TEXT_KEPT) for x in v.numbers[:TOLD_KEPT]],
        }
        return
    step.verdict = "legal"
    every = ref.interp.told[since:]
    step.told = [
        {
            "cites": f"{st.clause}/{st.label}",
            "clause": st.clause,
            "text": shown(text, TEXT_KEPT),
            "values": {name: listed(v) for name, v in values},
        }
        for st, text, values in every[:TOLD_KEPT]
    ]
    step.told_left_out = max(len(every) - TOLD_KEPT, 0)
