"""Try an event on a referee's position without keeping it.

The interpreter notes every state write from a mark on (its journal); the procedure
frames, the sub-procedures asked for and the standing rules fired are saved beside it.
Going back undoes the writes and forgets what read them. `referee play` tries its
proposals this way, and `referee check` the alternatives to a refused event: the rules
judge each, and nothing here knows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError
from referee.records.record import Event
from referee.run.machine import Frame

if TYPE_CHECKING:
    from referee.run.referee import Referee


def frame_copy(f: Frame) -> Frame:
    """A frame with its own variables: trying an event must not touch the saved ones."""
    return Frame(f.proc, dict(f.vars), f.step, f.resume_to, set(f.fired))


class Mark:
    """Where a referee stands: going back to it undoes everything done since."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        machine, interp = ref.machine, ref.interp
        interp.journal = []
        self.frames = [frame_copy(f) for f in machine.frames]
        self.pending = list(machine._pending)
        self.over = machine.over
        self.fired = len(interp.fired)
        self.told = len(interp.told)
        self.standing_on = interp.standing_on

    def back(self) -> None:
        """The position as it was at the mark; the journal is closed."""
        machine, interp = self.ref.machine, self.ref.interp
        interp.undo()
        machine.over, interp.standing_on = self.over, self.standing_on
        del interp.fired[self.fired :]
        del interp.told[self.told :]
        machine._pending = list(self.pending)
        machine.frames = [frame_copy(f) for f in self.frames]
        if machine.top is not None:
            interp.frame = machine.top.vars

    def keep(self) -> None:
        """What was done since the mark stays: the journal is closed."""
        self.ref.interp.journal = None


def legal_quietly(ref: Referee, ev: Event) -> bool:
    """Whether the rules allow ``ev`` here; its effects are applied if so. A refused
    event is not explained (no numbers, no message): only whether it holds is wanted."""
    ref.interp.explain = False
    try:
        return not ref.judge(ev)
    except RefereeError:
        return False  # the rules fail on these values: not an event to offer
    finally:
        ref.interp.explain = True


def attempt(ref: Referee, ev: Event) -> bool:
    """Try ``ev``: True if it is legal (the position goes on from it), else False (the
    position is as it was)."""
    mark = Mark(ref)
    if legal_quietly(ref, ev):
        mark.keep()
        return True
    mark.back()
    return False


def as_event(index: int, action: str, by: Any, args: dict[str, Any]) -> Event:
    """An event as a record would write it (``args`` already written as a record does)."""
    written = {"by": by, **args} if by is not None else dict(args)
    return Event(index, action, written, ("events", index - 1, action))
