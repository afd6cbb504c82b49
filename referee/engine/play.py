"""Random legal games, driven by the rules themselves.

At each point the engine asks the running step which actions it allows and
evaluates each action's `propose` expression (in the spec) for candidate
arguments. It tries the candidates in random order against the rules, on a
copy of the position, and keeps the first the referee judges legal. Nothing
here knows the game: proposals only suggest, the rules decide.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from referee.data.source import parse_document
from referee.dsl import ast
from referee.dsl.overlays import Choice
from referee.engine.machine import Frame
from referee.engine.record import Event, Record
from referee.engine.replay import Referee
from referee.errors import RefereeError, Span, fail
from referee.spec import Spec

MAX_EVENTS = 20_000


@dataclass
class Game:
    events: list[dict[str, Any]] = field(default_factory=list)
    stopped: str = ""  # why the game ended: finished, the until condition, or stuck
    summary: str = ""


def raw(value: Any) -> Any:
    """A value as a record writes it: items of data by their name, lists as lists."""
    if isinstance(value, dict):
        if "id" in value or "name" in value:
            return value.get("id", value.get("name"))
        return {k: raw(v) for k, v in value.items() if v is not None}
    if isinstance(value, (tuple, list)):
        return [raw(v) for v in value]
    return value


class Player:
    def __init__(self, spec: Spec, seed: int, choice: Choice | None = None) -> None:
        self.spec = spec
        self.rng = random.Random(seed)
        game = spec.game
        doc = parse_document(f"game: {game.name if game else ''}\nevents: []\n", "<play>")
        self.ref = Referee(spec, Record(doc, game.name if game else ""), choice or Choice())
        self.ref.start()
        players = self.ref.sym.types.get(game.players) if game and game.players else None
        self.players = players.values if isinstance(players, ast.EnumDecl) else [None]

    def candidates(self) -> list[tuple[str, Any, dict[str, Any]]]:
        frame = self.ref.machine.top
        if frame is None or frame.step is None:
            return []
        actor = self.ref.machine.actor()
        out = []
        for allow in frame.step.allows:
            if allow.propose is None:
                continue
            for by in [actor] if actor is not None else self.players:
                self.ref.interp.frame = frame.vars
                for args in self.ref.interp.eval(allow.propose, {"by": by}):
                    out.append((allow.name, by, raw(args)))
        return out

    def snapshot(self) -> tuple[dict[str, Any], list[Frame]]:
        state = {k: dict(v) if isinstance(v, dict) else v for k, v in self.ref.interp.state.items()}
        return state, [_frame_copy(f) for f in self.ref.machine.frames]

    def restore(self, snap: tuple[dict[str, Any], list[Frame]]) -> None:
        state, frames = snap
        self.ref.interp.replace_state(
            {k: dict(v) if isinstance(v, dict) else v for k, v in state.items()}
        )
        self.ref.machine.frames = [_frame_copy(f) for f in frames]
        if self.ref.machine.top is not None:
            self.ref.interp.frame = self.ref.machine.top.vars

    def step(self) -> dict[str, Any] | None:
        """Play one legal event, or None if no proposal is legal here."""
        cands = self.candidates()
        self.rng.shuffle(cands)
        for action, by, args in cands:
            snap = self.snapshot()
            event = {action: {"by": by, **args} if by is not None else args}
            index = len(self.events) + 1
            try:
                violations = self.ref.judge(
                    Event(index, action, dict(event[action]), ("events", index - 1, action))
                )
            except RefereeError:
                violations = ["bad"]  # type: ignore[list-item]
            if not violations:
                return event
            self.restore(snap)
        return None

    def play(self, until: ast.Expr | None = None, limit: int = MAX_EVENTS) -> Game:
        self.events: list[dict[str, Any]] = []
        game = Game(self.events)
        while len(self.events) < limit:
            top = self.ref.machine.top
            if top is None or top.step is None or not top.step.allows:
                game.stopped = "the game is over"
                break
            if until is not None and self.ref.interp.eval(until, {}):
                game.stopped = "the condition to stop holds"
                break
            event = self.step()
            if event is None:
                top = self.ref.machine.top
                where = f"{top.proc.title}, step {top.step.name}" if top and top.step else ""
                game.stopped = f"no proposal is legal at {where}"
                break
            self.events.append(event)
        else:
            game.stopped = f"{limit} events"
        game.summary = self.ref.summary()
        return game


def _frame_copy(f: Frame) -> Frame:
    """A frame with its own variables: trying an event must not touch the saved ones."""
    c = copy.copy(f)
    c.vars = dict(f.vars)
    c.fired = set(f.fired)
    return c


def play(spec: Spec, seed: int, until: str = "", choice: Choice | None = None) -> Game:
    from referee.dsl.parser import parse_expr

    condition = parse_expr(until, Span("<--until>", 1, 1)) if until else None
    player = Player(spec, seed, choice)
    try:
        return player.play(condition)
    except KeyError as err:
        raise fail(Span("<--until>", 1, 1), f"unknown name {err} in --until") from None
