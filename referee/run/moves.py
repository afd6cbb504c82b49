"""The legal next events of a position: `referee moves`, `Game.legal_events()`, the table's
`moves`.

Nothing here knows the game. The running step's allows say which actions may come next and
who may do them; each action's candidates come from the spec: its ``choices`` (every
candidate the spec can list), else its ``propose`` suggestions and, for each, its
``alternatives``. Each candidate is tried on the position as `referee play` tries a
proposal (performed on the journaled position, judged by the rules, undone): the legal ones
are the events listed, the refused ones say which clauses limit the action, each with how
many candidates it refused and one refusal's message and numbers. Bounded: at most
``most`` candidates judged, in at most ``seconds``; a bound hit is said, with where.
"""

from __future__ import annotations

import itertools
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.budget import RETRY, TimeUp
from referee.compile.builtins import key_of
from referee.compile.interp import RULES_FAILURES, failure
from referee.compile.shown import SHOWN_VALUE, brief
from referee.errors import RefereeError, Span
from referee.parse import ast
from referee.records.values import raw
from referee.run.referee import Referee
from referee.run.trial import Mark, as_event
from referee.run.verdict import Violation

MAX_JUDGED = 5_000  # candidates judged for one position, at most
MAX_SECONDS = 20.0  # processor time spent listing and judging them, at most
LISTED_REFUSALS = 6  # the clauses that refused an action, listed in its summary
TOLD_KEPT = 3  # what the rules told of a legal event, kept, at most
TOLD_CHARS = 300  # the length of each, at most


_NONE = object()
DRAWS = 4  # the samples of candidates that draw (see Mover._eval)


class _Drawing(random.Random):
    """A seeded source of chance that notes whether it was drawn from."""

    drew = False

    def shuffle(self, x: Any) -> None:
        self.drew = True
        super().shuffle(x)


@dataclass
class Refusal:
    """A condition that refused some candidates of an action: how many, and one of them
    with its message and numbers."""

    cites: str
    title: str
    count: int
    message: str = ""
    numbers: list[str] = field(default_factory=list)
    example: dict[str, Any] = field(default_factory=dict)


@dataclass
class Listed:
    """One legal event: as a record writes it, how the spec shows it, and its key."""

    event: dict[str, Any]
    action: str
    by: Any
    args: dict[str, Any]  # as the record writes them (an argument at its default left out)
    shown: str
    key: Any
    # what the rules told of it, applied (``CLAUSE/LABEL: text``: a deployment's Impact, a
    # battle's result), at most TOLD_KEPT of them, each at most TOLD_CHARS long
    told: list[str] = field(default_factory=list)


@dataclass
class ActionMoves:
    """What one action allows its actor here."""

    action: str
    by: Any
    clause: str  # the clause the action (or its step) belongs to
    source: str  # where its candidates came from: choices, or proposals and alternatives
    tried: int = 0
    alike: int = 0  # not judged: one with the same key is legal (without --all)
    listed: list[Listed] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    note: str = ""  # a bound hit, or the spec's candidates failing


@dataclass
class Moves:
    """The legal next events of a position."""

    file: str
    after: int  # events applied
    procedure: str  # the procedure under way, and its step
    step: str
    actors: list[Any]
    over: bool
    actions: list[ActionMoves] = field(default_factory=list)
    stopped: str = ""  # why the enumeration stopped short, with where
    complete: bool = True  # every candidate the spec lists was judged

    @property
    def events(self) -> list[dict[str, Any]]:
        return [x.event for a in self.actions for x in a.listed]


@dataclass
class _Candidate:
    allow: ast.Allow
    by: Any
    args: dict[str, Any]  # every argument, as values
    item: dict[str, Any]  # as listed (with shown, key)


@dataclass
class _Listed:
    """A candidate as the spec listed it: read as the action's arguments (typed) only when
    it is judged, so that a spec listing a million candidates costs what is judged."""

    item: dict[str, Any]
    base: dict[str, Any]  # the arguments of the proposal it is an alternative of
    typed: _Candidate | None = None  # already read (a proposal)


@dataclass
class _Listing:
    """One action's candidates for one actor, and how far they were judged."""

    allow: ast.Allow
    by: Any
    found: ActionMoves
    cands: list[_Listed]
    defaults: dict[str, Any]
    at: int = 0  # the next candidate to judge
    refusals: dict[str, Refusal] = field(default_factory=dict)
    keys: set[Any] = field(default_factory=set)  # the keys of the legal ones
    seen: set[Any] = field(default_factory=set)  # the arguments judged, each once


_T = TypeVar("_T")


class _ShareUp(TimeUp):
    """An action's share of the listing's time is spent (not the command's time limit,
    which stops the whole command)."""


def _within(work: Callable[[], _T], seconds: float) -> tuple[_T | None, bool]:
    """``work()`` stopped once it has used ``seconds`` of processor time: (its value, True),
    or (None, False) when it was stopped. Processor time, not the clock's: a loaded machine
    lists as much as an idle one. On the main thread a processor-time interval timer
    (ITIMER_PROF) stops it, an outer one (a worker's guard) set again after with what it
    has left; elsewhere, or where there is no such timer, it is not stopped."""
    if seconds <= 0:
        return None, False
    if threading.current_thread() is not threading.main_thread():
        return work(), True
    running = [True]  # once stopped, a timer's signal still pending raises nothing

    def share_up(signum: int, frame: Any) -> None:
        if running[0]:
            raise _ShareUp

    try:
        outer = signal.getitimer(signal.ITIMER_PROF)[0]
        old = signal.signal(signal.SIGPROF, share_up)
    except (AttributeError, ValueError):  # no such timer here
        return work(), True
    if 0 < outer <= seconds:  # the outer guard comes first
        signal.signal(signal.SIGPROF, old)
        return work(), True
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, seconds, RETRY)
    try:
        return work(), True
    except _ShareUp:
        running[0] = False  # before what the work made is freed, which takes time too
        return None, False
    finally:
        running[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
        if outer:
            left = outer - (time.process_time() - start)
            signal.setitimer(signal.ITIMER_PROF, max(left, 0.001))


class Enumerator:
    """The candidates of the running step's actions, judged on ``ref``'s position."""

    def __init__(
        self,
        ref: Referee,
        index: int,
        where: Span,
        most: int = MAX_JUDGED,
        seconds: float = MAX_SECONDS,
        action: str = "",
        every: bool = False,
        keep: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        self.ref = ref
        self.index = index  # the number the next event would have
        self.where = where  # where the position stands, for a message about a bound
        self.most = most
        self.seconds = seconds
        self.action = action
        # every candidate judged (--all); else, of those with one key, none after a legal one
        self.every = every
        self.keep = keep  # which candidates to judge, by their arguments as written
        self.judged = 0

    def moves(self, file: str, after: int, listed: bool = True) -> Moves:
        """The legal next events here (with ``listed`` false, none: where the position
        stands and who acts, for a start no game reaches)."""
        ref = self.ref
        machine = ref.machine
        top = machine.top
        over = bool(machine.over) or top is None or top.step is None or not top.step.allows
        actors = machine.actors() if not over else []
        out = Moves(
            file,
            after,
            top.proc.title if top else "",
            top.step.name if top and top.step else "",
            [raw(a) for a in actors or []],
            over,
        )
        if over or top is None or top.step is None or not listed:
            return out
        players = self._players()
        pairs = [
            (allow, by)
            for allow in top.step.allows
            if not self.action or allow.name == self.action
            for by in (actors if actors is not None else players)
        ]
        deadline = time.process_time() + self.seconds
        # Each action gets its share of the time left: one whose spec lists a million
        # candidates does not leave the others unjudged. What the others leave goes, after,
        # to those their share stopped.
        listings = []
        for i, (allow, by) in enumerate(pairs):
            share = max(deadline - time.process_time(), 0.0) / (len(pairs) - i)
            listing = self._start(allow, by, share, deadline, out)
            out.actions.append(listing.found)
            listings.append(listing)
            self._judge_all(listing, time.process_time() + share, out, last=False)
        for listing in listings:
            self._judge_all(listing, deadline, out, last=True)
            self._finish(listing)
        return out

    def _players(self) -> list[Any]:
        game = self.ref.spec.game
        players = self.ref.sym.types.get(game.players) if game and game.players else None
        return list(players.values) if isinstance(players, ast.EnumDecl) else [None]

    # ------------------------------------------------------------ candidates

    def _start(
        self, allow: ast.Allow, by: Any, seconds: float, deadline: float, out: Moves
    ) -> _Listing:
        """An action's candidates for ``by``, listed in at most ``seconds`` (its proposals,
        if its choices take longer, in as long again, before ``deadline``)."""
        ref = self.ref
        top = ref.machine.top
        clause = allow.clause or (top.step.clause if top and top.step else "") or ""
        clause = clause or (top.proc.clause if top else "")
        listed, done = _within(lambda: self.candidates(allow, by), seconds)
        if listed is None or not done:
            note = (
                f"stopped: the spec's candidates of {allow.name} took longer than"
                f" {seconds:.3g} s to list (its share of the time bound of {self.seconds:g} s)"
            )
            out.complete = False
            out.stopped = out.stopped or f"{self.where}: {note}"
            cands: list[_Listed] = []
            source = ""
            # its proposals instead, if the time left allows
            left = min(seconds, deadline - time.process_time())
            if allow.choices is not None and left > 0:
                proposed, _ = _within(lambda: self._proposed(allow, by), left)
                if proposed is not None:
                    cands, source, _ = proposed
        else:
            cands, source, note = listed
        found = ActionMoves(allow.name, raw(by), clause, source, note=note)
        return _Listing(allow, by, found, cands, self._defaults(allow))

    def candidates(self, allow: ast.Allow, by: Any) -> tuple[list[_Listed], str, str]:
        """The action's candidates for ``by``; where they came from; a note if the spec
        failed to list them."""
        if allow.choices is not None:
            listed, note = self._eval(allow, allow.choices, {"by": by})
            if not note:
                return [_Listed(x, {}) for x in listed if isinstance(x, dict)], "choices", ""
            fallback, source, _ = self._proposed(allow, by)
            return fallback, source, note
        out, source, note = self._proposed(allow, by)
        return out, source, note

    def _proposed(self, allow: ast.Allow, by: Any) -> tuple[list[_Listed], str, str]:
        if allow.propose is None:
            return [], "", ""
        listed, note = self._eval(allow, allow.propose, {"by": by})
        proposals = self._unique(allow, by, listed, {})
        if allow.alternatives is None:
            return [_Listed(p.item, {}, p) for p in proposals], "proposals", note
        out = list(proposals)
        for p in proposals:
            more, why = self._eval(allow, allow.alternatives, {**p.args, "by": by})
            note = note or why
            out += self._unique(allow, by, more, p.args)
        typed = [_Listed(c.item, {}, c) for c in self._dedupe(out)]
        return typed, "proposals and their alternatives", note

    def _eval(self, allow: ast.Allow, e: ast.Expr, env: dict[str, Any]) -> tuple[list[Any], str]:
        interp = self.ref.interp
        top = self.ref.machine.top
        if top is not None:
            interp.frame = top.vars
        # a draw the spec's candidates make (`shuffled`: dice, cards, blocks) is a sample, as
        # in `referee play`, from a seed of the position's event number: the same listing
        # each time, and not only the lowest dice or the top of the deck; candidates that
        # draw are drawn again, up to DRAWS samples, so that a result the dice rarely give
        # (a retreat from a melee) has a chance to be among them
        # (taken in turn, one from each sample: a bound on those judged meets them all)
        samples: list[list[Any]] = []
        try:
            for k in range(DRAWS):
                chance = _Drawing(self.index if k == 0 else f"{self.index}/{k}")
                interp.chance = chance
                samples.append(list(interp.eval(e, dict(env)) or []))
                if not chance.drew:
                    break
        except RefereeError as err:
            p = err.problems[0]
            return [], f"the spec's candidates of {allow.name} failed ({e.span}): {p.message}"
        except RULES_FAILURES as err:
            return [], f"the spec's candidates of {allow.name} failed ({e.span}): {failure(err)}"
        finally:
            interp.chance = None  # what the referee judges is never random
        taken = itertools.zip_longest(*samples, fillvalue=_NONE)
        return [x for row in taken for x in row if x is not _NONE], ""

    def _unique(
        self, allow: ast.Allow, by: Any, listed: list[Any], base: dict[str, Any]
    ) -> list[_Candidate]:
        defaults = self._defaults(allow)
        out = [self._read(allow, by, _Listed(item, base), defaults) for item in listed]
        return self._dedupe([c for c in out if c is not None])

    def _read(
        self, allow: ast.Allow, by: Any, x: _Listed, defaults: dict[str, Any]
    ) -> _Candidate | None:
        """A listed candidate as the action's arguments; None if it is not one (an
        argument missing, a value not of its parameter's type)."""
        if x.typed is not None:
            return x.typed
        item = x.item
        if not isinstance(item, dict):
            return None
        # an argument given as nothing stands for its default, as a record leaves it out
        given = {
            p.name: item[p.name]
            for p in allow.params
            if p.name in item and not (item[p.name] is None and p.name in defaults)
        }
        missing = [
            p.name
            for p in allow.params
            if p.name not in given and p.name not in x.base and p.name not in defaults
        ]
        typed = None if missing else self._typed(allow, given)
        if typed is None:
            return None
        return _Candidate(allow, by, {**defaults, **x.base, **typed}, item)

    def _typed(self, allow: ast.Allow, args: dict[str, Any]) -> dict[str, Any] | None:
        """The arguments as a record's event would give them (a structure's fields at their
        defaults filled in); None if they are not values of the parameters' types."""
        convert = self.ref.convert.convert
        try:
            return {
                p.name: convert(raw(args[p.name]), p.type, ("events", 0, allow.name, p.name))
                for p in allow.params
                if p.name in args
            }
        except RefereeError:
            return None

    def _defaults(self, allow: ast.Allow) -> dict[str, Any]:
        return {p.name: self.ref.interp.eval(p.default, {}) for p in allow.params if p.default}

    @staticmethod
    def _dedupe(cands: list[_Candidate]) -> list[_Candidate]:
        seen: set[Any] = set()
        out = []
        for c in cands:
            k = key_of(tuple(c.args.values()))
            if k not in seen:
                seen.add(k)
                out.append(c)
        return out

    # ------------------------------------------------------------ judging

    def _judge_all(self, listing: _Listing, until: float, out: Moves, last: bool) -> None:
        """Judge the listing's candidates from where it stands, up to the bound on how many
        are judged, or ``until`` (said where it stops only when this is its ``last`` go)."""
        found, allow, by = listing.found, listing.allow, listing.by
        cands, defaults = listing.cands, listing.defaults
        while listing.at < len(cands):
            i = listing.at
            x = cands[i]
            key = x.item.get("key") if isinstance(x.item, dict) else None
            alike = isinstance(x.item, dict) and "key" in x.item
            if not self.every and alike and key_of(key) in listing.keys:
                found.alike += 1
                listing.at += 1
                continue
            over_time = time.process_time() > until
            if self.judged >= self.most or over_time:
                if over_time and not last:
                    return  # its share is spent: it goes on with what the others leave
                bound = (
                    f"the bound of {self.most:,} candidates judged"
                    if self.judged >= self.most
                    else f"the time bound of {self.seconds:g} s"
                )
                found.note = (
                    f"stopped at {bound}: {i:,} of the {len(cands):,} candidates of"
                    f" {allow.name} judged"
                )
                out.complete = False
                out.stopped = out.stopped or f"{self.where}: {found.note}"
                listing.at = len(cands)
                return
            listing.at += 1
            c = self._read(allow, by, x, defaults)
            if c is None:
                continue
            same = key_of(tuple(c.args.values()))
            if same in listing.seen:
                continue
            listing.seen.add(same)
            written = {
                k: v
                for k, v in c.args.items()
                if not (k in defaults and key_of(v) == key_of(defaults[k]))
            }
            args = raw(written)
            if self.keep is not None and not self.keep(args):
                continue
            self.judged += 1
            found.tried += 1
            ev = as_event(self.index, allow.name, raw(by) if by is not None else None, args)
            violations, told = self._try(ev)
            if violations is None:
                continue  # the rules fail on these values: not an event to offer
            if not violations:
                shown = str(c.item["shown"]) if "shown" in c.item else _text(allow, written)
                k = key_of(c.item["key"]) if "key" in c.item else None
                listing.keys.add(k)
                found.listed.append(
                    Listed({allow.name: ev.args}, allow.name, raw(by), args, shown, k, told)
                )
                continue
            v = violations[0]
            r = listing.refusals.get(v.cites)
            if r is None:
                r = Refusal(v.cites, v.title, 0, example={allow.name: ev.args})
                listing.refusals[v.cites] = r
            r.count += 1

    def _finish(self, listing: _Listing) -> None:
        found = listing.found
        found.refused = sorted(listing.refusals.values(), key=lambda r: -r.count)
        for r in found.refused[:LISTED_REFUSALS]:
            self._explain(r)

    def _try(self, ev: Any) -> tuple[list[Violation] | None, list[str]]:
        """The event's violations on the position (none: legal; None: the rules fail on its
        values) and, if legal, what the rules told of it; the position left as it was."""
        ref = self.ref
        mark = Mark(ref)
        ref.interp.explain, ref.interp.telling = False, True
        try:
            violations = ref.judge(ev)
            told = [] if violations else ref.interp.told[mark.told : mark.told + TOLD_KEPT]
            return violations, [_cut(f"{st.clause}/{st.label}: {text}") for st, text, _ in told]
        except RefereeError:
            return None, []
        finally:
            ref.interp.explain, ref.interp.telling = True, False
            mark.back()

    def _explain(self, r: Refusal) -> None:
        """One refused candidate judged again, explained: its message and numbers."""
        ((action, args),) = r.example.items()
        rest = {k: v for k, v in args.items() if k != "by"}
        ev = as_event(self.index, action, args.get("by"), rest)
        mark = Mark(self.ref)
        try:
            violations = self.ref.judge(ev)
        except RefereeError:
            violations = []
        finally:
            mark.back()
        if violations:
            r.message, r.numbers = violations[0].message, list(violations[0].numbers)


def _cut(text: str) -> str:
    return text if len(text) <= TOLD_CHARS else text[: TOLD_CHARS - 3] + "..."


def _text(allow: ast.Allow, args: dict[str, Any]) -> str:
    """An event by its arguments, as a line shows it."""
    if not args:
        return allow.name
    return allow.name + " " + " ".join(f"{k} {brief(v, SHOWN_VALUE)}" for k, v in args.items())
