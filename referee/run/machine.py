"""Run the spec's procedures: a stack of frames, each a procedure at one step.

An event names an action. The running step must allow it, and its actor (if
the step has one; one of them, if it gives a list) must be the event's ``by``.
The action's conditions are checked and its effects run; then the engine
settles: sub-procedures started by ``do`` run first, steps whose ``ends when``
holds move on, triggers whose condition holds fire, and a procedure whose last
step ends returns to its caller. The spec's standing rules (``whenever``) are
enforced by the interpreter after every change of state, wherever it is made; a
rule that says ``game over`` stops every procedure, and no event may follow.
Nothing here knows which game is played.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.compile.execute import Interpreter
from referee.compile.interp import CheckFailed
from referee.parse import ast

MAX_SETTLE = 10_000


class NotAllowed(Exception):
    """An event the running step does not allow, or by the wrong actor."""

    def __init__(self, message: str, clause: str, allowed: list[str]) -> None:
        super().__init__(message)
        self.message = message
        self.clause = clause
        self.allowed = allowed


def _lower(title: str) -> str:
    return title[:1].lower() + title[1:]


class Stuck(Exception):
    """The rules loop forever: a spec bug, reported with the procedure concerned."""


@dataclass
class Frame:
    proc: ast.Procedure
    vars: dict[str, Any]
    step: ast.Step | None = None
    resume_to: str | None = None  # a step to move to when a sub-procedure returns
    fired: set[str] = field(default_factory=set)

    def where(self) -> str:
        return f"{self.proc.name}.{self.step.name if self.step else '(done)'}"


@dataclass
class Machine:
    interp: Interpreter
    frames: list[Frame] = field(default_factory=list)
    outermost: ast.Procedure | None = None  # the procedure the replay started in
    whole_game: str = ""  # the game's own procedure: when it ends, the game is over
    over: str = ""  # the clause whose rule said `game over`, once one has
    # the spec's text of a node, to quote a condition in a message (none: not quoted)
    source_of: Callable[[Any], str] | None = None
    _pending: list[tuple[ast.Procedure, tuple[Any, ...]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.interp.on_procedure = self._asked
        self.interp.on_game_over = self._game_over

    def _asked(self, proc: ast.Procedure, args: tuple[Any, ...]) -> None:
        if not self.over:
            self._pending.append((proc, args))

    def _game_over(self, clause: str) -> None:
        """A rule ended the game: every procedure stops, now and for good."""
        if not self.over:
            self.over = clause or "?"
        self._pending.clear()
        self.frames.clear()

    def enforce(self) -> None:
        """Apply the standing rules to the position as it stands (a record's starting
        position), then run what they started."""
        self.interp.standing_on = True
        self.interp.enforce()
        frame = self.top
        if frame is not None:
            self._start_pending(frame, frame.resume_to)

    # ------------------------------------------------------------ starting
    def start(self, proc: ast.Procedure, args: tuple[Any, ...], step: str = "") -> None:
        self.interp.standing_on = True
        self._push(proc, args, step)
        self.settle()

    def resume(self, proc: ast.Procedure, args: tuple[Any, ...], step: str) -> Frame:
        """Put a caller's frame on the stack at a step, as if it had run there already."""
        frame = Frame(proc, {p.name: a for p, a in zip(proc.params, args, strict=True)})
        self._bind(frame)
        for v in proc.vars:
            frame.vars[v.name] = self.interp.eval(v.value, {})
        frame.step = next((s for s in proc.steps if s.name == step), None)
        self.frames.append(frame)
        if self.outermost is None:
            self.outermost = proc
        return frame

    def _push(self, proc: ast.Procedure, args: tuple[Any, ...], step: str = "") -> None:
        if not self.frames and self.outermost is None:
            self.outermost = proc
        frame = Frame(proc, {p.name: a for p, a in zip(proc.params, args, strict=True)})
        self.frames.append(frame)
        self._bind(frame)
        for v in proc.vars:
            frame.vars[v.name] = self.interp.eval(v.value, {})
        first = step or (proc.steps[0].name if proc.steps else "")
        self._enter(frame, first)

    def _bind(self, frame: Frame) -> None:
        self.interp.frame = frame.vars

    def _enter(self, frame: Frame, step_name: str) -> None:
        if self.over:
            return
        step = next((s for s in frame.proc.steps if s.name == step_name), None)
        frame.step = step
        frame.fired = set()
        if step is not None and self.interp.coverage is not None:
            self.interp.coverage.step(f"{frame.proc.name}.{step.name}")
        if step is not None and step.enter:
            self._bind(frame)
            self.interp.run(step.enter, {})
            self._start_pending(frame, None)

    def _start_pending(self, frame: Frame, then: str | None) -> bool:
        """Push sub-procedures a statement asked for; the caller resumes at ``then``."""
        if self.over:
            return True
        if not self._pending:
            return False
        frame.resume_to = then
        pending, self._pending = self._pending, []
        for proc, args in reversed(pending):  # the first asked for runs first
            self._push(proc, args)
        return True

    # ------------------------------------------------------------ where we are
    @property
    def top(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def finished(self) -> bool:
        return not self.frames

    def actor(self) -> Any:
        frame = self.top
        if frame is None or frame.step is None or frame.step.actor is None:
            return None
        self._bind(frame)
        return self.interp.eval(frame.step.actor, {})

    def actors(self) -> list[Any] | None:
        """Who may act now: the step's actor, or each of the list it gives; None: anyone."""
        actor = self.actor()
        if actor is None:
            return None
        return list(actor) if isinstance(actor, list | tuple) else [actor]

    def allowed(self) -> list[str]:
        frame = self.top
        if frame is None or frame.step is None:
            return []
        return [a.name for a in frame.step.allows]

    def open_now(self, by: Any) -> list[str]:
        """The actions of the step on top that could be taken now: those whose proposals
        (the spec's `propose`) are not empty for ``by``, and those that propose nothing."""
        frame = self.top
        if frame is None or frame.step is None:
            return []
        self._bind(frame)

        def proposed(allow: ast.Allow) -> bool:
            if allow.propose is None:
                return True
            expr = allow.propose
            return bool(self.interp.aside(lambda: self.interp.eval(expr, {"by": by})))

        return [a.name for a in frame.step.allows if proposed(a)]

    # ------------------------------------------------------------ events
    def find_allow(self, name: str, by: Any) -> ast.Allow:
        frame = self.top
        if self.over:
            raise NotAllowed(
                f"the game is over ({self.over}): no more events are allowed", self.over, []
            )
        if frame is None or frame.step is None:
            outer = self.outermost
            if outer is None or outer.name == self.whole_game:
                raise NotAllowed(
                    "the game is over: no more events are allowed",
                    outer.clause if outer else "",
                    [],
                )
            raise NotAllowed(
                f"the record's position starts in {outer.title[0].lower()}{outer.title[1:]},"
                " which is over, and names nothing around it (`within:`): no more events"
                " can be judged",
                outer.clause,
                [],
            )
        allow = next((a for a in frame.step.allows if a.name == name), None)
        clause = frame.proc.clause
        if allow is None and not frame.step.allows:
            raise NotAllowed(
                f"'{name}' is not allowed: {frame.proc.title[0].lower()}{frame.proc.title[1:]}"
                " allows no more events",
                clause,
                [],
            )
        if allow is None:
            options = self.open_now(by)
            message, clause = self._out_of_sequence(name, frame)
            raise NotAllowed(
                f"'{name}' is not allowed now ({frame.proc.title}, step {frame.step.name};"
                f" allowed: {', '.join(options) or 'nothing'}){message}",
                clause,
                options,
            )
        actors = self.actors()
        if actors is not None and by not in actors:
            # Whose turn it is was decided by the procedure that started this one.
            caller = (
                allow.clause
                or frame.step.clause
                or (self.frames[-2].proc.clause if len(self.frames) > 1 else clause)
            )
            whose = " or ".join(f"{a}'s" for a in actors) or "nobody's"
            raise NotAllowed(
                f"it is {whose} turn to act ({frame.proc.title}, step {frame.step.name}),"
                f" not {by}'s",
                caller,
                self.allowed(),
            )
        return allow

    def _out_of_sequence(self, name: str, frame: Frame) -> tuple[str, str]:
        """Why an action is out of sequence, and the clause to cite: the clause of the step
        that is absent (its end condition holds), else of the step that is due, else of the
        procedure the action belongs to when that procedure is not under way."""
        assert frame.step is not None
        due = frame.step.clause or frame.proc.clause
        owner = self._owner(name)
        if owner:
            return f": it belongs to {owner}, which no procedure under way allows", owner
        for f in reversed(self.frames):
            if f is not frame and frame.step.clause:  # the step on top is due first
                return f": step {frame.step.name} ({due}) is due", due
            for st in f.proc.steps:
                if not any(a.name == name for a in st.allows):
                    continue
                if st is f.step:  # a procedure under way waits for the one on top
                    # which the step that allows the action, naming its clause, orders
                    where = st.clause or due
                    over, why = self._passed(f, st)
                    if over:  # and the step ends when it comes back: the action was taken
                        return (
                            f": step {st.name} of {_lower(f.proc.title)} ({where}) is over"
                            f" ({over}); {_lower(frame.proc.title)} ({due}) is under way",
                            why or where,
                        )
                    order = f", as {where} orders" if where != due else ""
                    return f": {_lower(frame.proc.title)} ({due}) comes first{order}", where
                passed, why = self._passed(f, st)
                if passed:
                    where = st.clause or f.proc.clause
                    return (
                        f": it belongs to step {st.name} of {_lower(f.proc.title)} ({where}),"
                        f" which does not happen now: {passed}",
                        why or where,
                    )
                if frame.step.clause:
                    return f": step {frame.step.name} ({frame.step.clause}) comes first", (
                        frame.step.clause
                    )
                return "", frame.proc.clause
        if frame.step.clause:
            return f": step {frame.step.name} ({frame.step.clause}) is due", frame.step.clause
        for proc in self.interp.sym.procedures().values():
            for st in proc.steps:
                if any(a.name == name for a in st.allows):
                    where = st.clause or proc.clause
                    return f": it belongs to {_lower(proc.title)} ({where}), not under way", where
        return "", frame.proc.clause

    def _owner(self, name: str) -> str:
        """The clause an action names as its own, where no procedure under way allows it."""
        if any(a.name == name for f in self.frames for st in f.proc.steps for a in st.allows):
            return ""
        procs = self.interp.sym.procedures().values()
        return next(
            (a.clause for p in procs for st in p.steps for a in st.allows if a.name == name),
            "",
        )

    def _passed(self, frame: Frame, step: ast.Step) -> tuple[str, str]:
        """The end condition of a step that holds now (so the step is passed at once), with
        the numbers that decide it, and the label it names (`ends unless`); empty if none
        holds."""
        self._bind(frame)
        saved = self.interp.trace
        try:
            for cond, _ in step.ends:
                if isinstance(cond, ast.CheckStmt):
                    failed = self._unmet(cond)
                    if failed is None:
                        continue
                    message = failed.message or self.interp.holds(failed.req, failed.bound)[1]
                    return message, str(cond.ref)
                self.interp.trace = []
                holds = bool(self.interp.eval(cond, {}))
                if holds:
                    trace = self.interp.trace
                    text = " ".join(self.source_of(cond.span).split()) if self.source_of else ""
                    shown = "; ".join(str(t) for t in trace if t.depth == 0)
                    said = f" `{text}`" if text else ""
                    held = f"its end condition{said} holds" + (f" ({shown})" if shown else "")
                    return held, ""
        finally:
            self.interp.trace = saved
            if self.frames:
                self._bind(self.frames[-1])
        return "", ""

    def perform(self, allow: ast.Allow, env: dict[str, Any]) -> None:
        """Check and run one allowed action, then settle. CheckFailed escapes."""
        frame = self.top
        assert frame is not None
        self._bind(frame)
        for ref in allow.requires:
            self.interp.check(ast.CheckStmt(ref, None, span=allow.span), env)
        self.interp.run(allow.effects, env)
        if self.over:
            return
        if not self._start_pending(frame, allow.then or None) and allow.then:
            self._enter(frame, allow.then)
        self.settle()

    def settle(self) -> None:
        for _ in range(MAX_SETTLE):
            if not self._settle_once():
                return
        frame = self.top
        raise Stuck(f"the rules do not settle at {frame.where() if frame else 'the end'}")

    def _settle_once(self) -> bool:
        frame = self.top
        if frame is None or self.over:
            return False
        self._bind(frame)
        step = frame.step
        if step is None:  # the procedure is over: back to its caller
            self.frames.pop()
            caller = self.top
            if caller is not None:
                self._bind(caller)
                then, caller.resume_to = caller.resume_to, None
                if then:
                    self._enter(caller, then)
            return True
        for trig in step.triggers + frame.proc.triggers:
            if self.interp.eval(trig.cond, {}):
                self.interp.run(trig.body, {})
                self._start_pending(frame, frame.resume_to)
                return True
        for cond, then in step.ends:
            if self._ends(cond):
                self._enter(frame, then)
                return True
        return False

    def _ends(self, cond: ast.Expr | ast.CheckStmt) -> bool:
        """Whether a step's end condition holds: its expression, or (`ends unless`) the
        failure of its requirement."""
        if isinstance(cond, ast.CheckStmt):
            return self._unmet(cond) is not None
        return bool(self.interp.eval(cond, {}))

    def _unmet(self, st: ast.CheckStmt) -> CheckFailed | None:
        """The failure of the requirement an `ends unless` names, None where it holds."""
        lenient, self.interp.lenient = self.interp.lenient, None
        try:
            self.interp.check(st, {})
        except CheckFailed as failed:
            return failed
        finally:
            self.interp.lenient = lenient
        return None
