"""What the actor of a refused event could legally have done instead.

An action of the spec may list ``alternatives``: candidate arguments, worked out with the
refused event's own arguments in scope, each record giving only the arguments it changes
(and, if it likes, ``shown``: how a verdict shows it; ``key``: of the legal ones with one
key, only the first is offered). At the position before the refused event, each candidate
is tried as `referee play` tries a proposal: performed on the journaled position, judged by
the rules, undone. The legal ones are offered with the violation. Nothing here knows the
game: the spec lists, the rules judge.

Two things make the offer say no more than is true:

- the numbers a record may give (an argument of type int with a default: a claim the rules
  check, such as a recorded Impact): a candidate that leaves them out is tried with the rules
  telling what they count, and where a `tell` names a number as the argument is named, the
  alternative gives that number, checked legal again. The refused event itself with its
  claims left out is tried first, so a wrong number is answered with the right one;
- when none of the listed candidates is legal, variants of them are tried (each list argument
  of the refused event or a candidate one item shorter, at most ``MAX_VARIANTS``), and what
  is not found is said as such: none of those tried is legal, not that no event is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.compile.builtins import key_of
from referee.compile.interp import RULES_FAILURES, failure
from referee.compile.shown import SHOWN_VALUE, brief
from referee.errors import RefereeError
from referee.parse import ast
from referee.records.record import Event
from referee.records.values import raw
from referee.run.machine import NotAllowed
from referee.run.trial import Mark, as_event, legal_quietly

if TYPE_CHECKING:
    from referee.run.referee import Referee
    from referee.run.verdict import Violation

MAX_TRIED = 2_000  # candidates judged for one refused event, at most
MAX_VARIANTS = 200  # variants of them judged when none is legal, at most
SHOWN = 12  # alternatives a line of the text verdict lists, at most
FAILED = "the spec's alternatives failed here"  # the note when they cannot be listed


def judge(ref: Referee, ev: Event, keep_going: bool = False) -> list[Violation]:
    """``ref.judge(ev, keep_going)``; if the event is refused, its first violation carries
    the legal alternatives, tried at the position before the event (with ``keep_going``
    the event's effects are applied afterwards all the same, as the record says)."""
    mark = Mark(ref)
    violations = ref.judge(ev, keep_going)
    if not violations:
        mark.keep()
        return violations
    mark.back()  # where the event was judged from
    found = _allowed(ref, ev)
    if found is None:  # not allowed here at all: the message says what is
        violations = ref.judge(ev, keep_going)
        return violations
    allow, env = found
    interp = ref.interp
    relied, facts = set(interp.relied), dict(interp.facts)
    offered, note = alternatives(ref, ev, allow, env)
    interp.relied, interp.facts = relied, facts
    # The event again, as it was judged: its effects (with keep_going), the rules it fired.
    violations = ref.judge(ev, keep_going)
    if violations and note:
        violations[0].alternatives = offered
        violations[0].alternatives_note = note
    return violations


def _allowed(ref: Referee, ev: Event) -> tuple[ast.Allow, dict[str, Any]] | None:
    """The action the running step allows for ``ev``, and its arguments as values; None
    if the step does not allow it."""
    args = dict(ev.args)
    by = None
    if ref.players is not None:
        by = ref.convert.convert(args.pop("by"), ref.players, ev.path + ("by",))
    try:
        allow = ref.machine.find_allow(ev.action, by)
    except NotAllowed:
        return None
    env = ref._args(allow.params, args, ev.path)
    env["by"] = by
    return allow, env


def alternatives(
    ref: Referee, ev: Event, allow: ast.Allow, env: dict[str, Any]
) -> tuple[list[dict[str, Any]], str]:
    """The legal alternatives to the refused event ``ev`` (the action ``allow`` with the
    arguments ``env``), as data, and a note of how many were tried; ([], "") if the spec
    lists none for this action."""
    if allow.alternatives is None:
        return [], ""
    interp = ref.interp
    top = ref.machine.top
    if top is not None:
        interp.frame = top.vars
    try:
        listed = interp.eval(allow.alternatives, dict(env))
    except RefereeError as err:
        p = err.problems[0]
        return [], f"{FAILED}: {p.message} ({p.span})"
    except RULES_FAILURES as err:
        return [], f"{FAILED}: {failure(err)} ({allow.alternatives.span})"
    params = [p.name for p in allow.params]
    defaults = {p.name: interp.eval(p.default, {}) for p in allow.params if p.default}
    claims = [
        p.name
        for p in allow.params
        if p.default and p.type.name == "int" and key_of(env[p.name]) != key_of(defaults[p.name])
    ]
    candidates = _candidates(listed, params, env)
    if claims:  # the event as given, its numbers left to the rules
        same = {**env, **{k: defaults[k] for k in claims}}
        candidates.insert(0, (claims, {p: same[p] for p in params}, {}))
    tried = candidates[:MAX_TRIED]
    offered: list[dict[str, Any]] = []
    keys: set[Any] = set()
    for _, args, item in tried:
        if "key" in item and key_of(item["key"]) in keys:
            continue  # one like it is offered already
        found = _offer(ref, ev, args, env, defaults, item)
        if found is None:
            continue
        if "key" in item:
            keys.add(key_of(item["key"]))
        offered.append(found)
    note = f"{len(offered)} legal of {len(tried)} tried"
    if len(candidates) > len(tried):
        note = (
            f"{len(offered)} legal of the first {len(tried):,} tried;"
            f" the spec lists {len(candidates):,}"
        )
    if offered:
        return offered, note
    variants = _variants([env] + [args for _, args, _ in tried], params, env)
    for args in variants:
        found = _offer(ref, ev, args, env, defaults, {})
        if found is not None:
            offered.append(found)
    shorter = "a list argument one item shorter"
    return offered, f"{note}, and {len(offered)} of {len(variants)} variants of them ({shorter})"


def _offer(
    ref: Referee,
    ev: Event,
    args: dict[str, Any],
    env: dict[str, Any],
    defaults: dict[str, Any],
    item: dict[str, Any],
) -> dict[str, Any] | None:
    """The candidate ``args`` as offered if the rules allow it, else None. An argument the
    refused event gave and the candidate leaves at its default is given the number the
    rules told under its name, where they did and the event stays legal with it."""
    dropped = [k for k in defaults if key_of(args[k]) == key_of(defaults[k]) != key_of(env[k])]
    legal, told = _tried(ref, ev, args, bool(dropped))
    if not legal:
        return None
    filled = {**args, **{k: told[k] for k in dropped if k in told}}
    if filled != args and _tried(ref, ev, filled, False)[0]:
        args, item = filled, {}  # the numbers the record may give, as the rules count them
    changed = [k for k in args if k != "by" and key_of(args[k]) != key_of(env[k])]
    left_out = [k for k in changed if k in defaults and args[k] == defaults[k]]
    changing = [k for k in changed if k not in left_out]
    text = str(item["shown"]) if "shown" in item else _text(changing, args)
    # as a record would write it: an argument at its default is left out
    written = {k: x for k, x in args.items() if not (k in defaults and x == defaults[k])}
    return {"args": raw(written), "changing": changing, "left_out": left_out, "text": text}


def _tried(
    ref: Referee, ev: Event, args: dict[str, Any], told: bool
) -> tuple[bool, dict[str, Any]]:
    """Whether the event with ``args`` is legal at the position, which is kept as it was;
    with ``told``, the numbers the rules told while judging it, by name (the first of each)."""
    mark = Mark(ref)
    trial = as_event(ev.index, ev.action, ev.args.get("by"), raw(args))
    numbers: dict[str, Any] = {}
    if not told:
        legal = legal_quietly(ref, trial)
    else:
        try:
            legal = not ref.judge(trial)
        except RefereeError:
            legal = False
        for _, _, said in ref.interp.told[mark.told :] if legal else []:
            for name, x in said:
                numbers.setdefault(name, x)
    mark.back()
    return legal, numbers


def _variants(
    bases: list[dict[str, Any]], params: list[str], env: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each of ``bases`` (the refused event's arguments, then the candidates') with one list
    argument one item shorter; each once, none tried already, at most ``MAX_VARIANTS``."""
    seen = {key_of(tuple(b[p] for p in params)) for b in bases}
    out: list[dict[str, Any]] = []
    for base in bases:
        for p in params:
            xs = base[p]
            if not isinstance(xs, (list, tuple)):
                continue
            for i in range(len(xs)):
                shorter = [*xs[:i], *xs[i + 1 :]]
                args = {**base, p: tuple(shorter) if isinstance(xs, tuple) else shorter}
                k = key_of(tuple(args[q] for q in params))
                if k in seen:
                    continue
                seen.add(k)
                out.append(args)
                if len(out) == MAX_VARIANTS:
                    return out
    return out


def _candidates(
    listed: Any, params: list[str], env: dict[str, Any]
) -> list[tuple[list[str], dict[str, Any], dict[str, Any]]]:
    """Each listed alternative once: the arguments it changes, the whole event's arguments,
    and the record as listed. One that changes nothing is the refused event itself."""
    out = []
    seen: set[Any] = set()
    for item in listed or []:
        if not isinstance(item, dict):
            continue
        args = {p: item[p] if p in item else env[p] for p in params}
        changed = [p for p in params if p in item and key_of(item[p]) != key_of(env[p])]
        k = key_of(tuple(args[p] for p in params))
        if not changed or k in seen:
            continue
        seen.add(k)
        out.append((changed, args, item))
    return out


def _text(changing: list[str], args: dict[str, Any]) -> str:
    """An alternative by the values it gives the arguments it changes."""
    if not changing:
        return "the rest as given"
    if len(changing) == 1:
        return brief(args[changing[0]], SHOWN_VALUE)
    return " ".join(f"{k} {brief(args[k], SHOWN_VALUE)}" for k in changing)


def lines(v: Violation) -> list[str]:
    """The alternatives of a violation as the text verdict shows them: grouped by the
    arguments they change, at most ``SHOWN`` to a line."""
    if not v.alternatives_note:
        return []
    if v.alternatives_note.startswith(FAILED):  # nothing was tried
        return [f"  could have: {v.alternatives_note}"]
    if not v.alternatives:  # not found is not none: other events may be legal
        return [
            f"  could have: no alternative the spec lists is legal ({v.alternatives_note});"
            " another event may be"
        ]
    groups: dict[str, list[str]] = {}
    for a in v.alternatives:
        head = f"changing {', '.join(a['changing'])}" if a["changing"] else ""
        if a["left_out"]:
            head += (", " if head else "") + f"without {', '.join(a['left_out'])}"
        groups.setdefault(head, []).append(a["text"])
    out = [f"  could have ({v.alternatives_note}):"]
    for head, texts in groups.items():
        sep = "; " if any(", " in t for t in texts) else ", "
        more = f"{sep}and {len(texts) - SHOWN} more" if len(texts) > SHOWN else ""
        out.append(f"    {head}: {sep.join(texts[:SHOWN])}{more}")
    return out
