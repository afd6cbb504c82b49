"""Pictures of a record: the board at a step as SVG, and a replay page (HTML) of every step.

Game-agnostic: what to draw comes from the game's data (its map collections and its
``schema: display`` file) and spec (its sides, its states); see docs/commands/show.md.
"""

from __future__ import annotations

from referee.compile.spec import Spec
from referee.records.record import Source
from referee.render import page, svg, svg_step
from referee.render.display import load_display
from referee.render.steps import Replay, replay_steps
from referee.resolve.overlays import Choice

MAX_STEPS = page.MAX_STEPS


def picture(
    spec: Spec,
    path: Source,
    choice: Choice,
    at: int | None = None,
    after: int | None = None,
    view: str | None = None,
) -> tuple[str, Replay]:
    """The board as SVG before event ``at``, after event ``after``, or (neither) at the end
    of the record; before the first illegal event on the way, if one is. ``view``: a seat's
    view, the side whose hidden things are shown (a hook for the hidden-information issue:
    every side's are drawn, whatever it says, until that issue's `--view SIDE`)."""
    if at is not None:
        replay = replay_steps(spec, path, choice, lambda i, n: i == at, at, asked=("--at", at))
    else:
        # after event N, or after the last: that event drawn with its verdict
        asked = ("--after", after) if after is not None else None
        replay = replay_steps(spec, path, choice, lambda i, n: False, after, True, asked)
    display = load_display(spec, replay.sides)
    step = svg_step.seen_by(replay.steps[-1], view)
    return svg.to_text(svg_step.picture(display, replay, step)) + "\n", replay


def replay_page(
    spec: Spec,
    path: Source,
    choice: Choice,
    at: int | None = None,
    after: int | None = None,
    view: str | None = None,
) -> tuple[str, Replay]:
    """A page replaying the record step by step, opened at event ``at`` (or after event
    ``after``, or at the first illegal event, or at the start); ``view`` as for ``picture``."""
    return page.replay_page(spec, path, choice, at, after, view)


__all__ = ["MAX_STEPS", "picture", "replay_page"]
