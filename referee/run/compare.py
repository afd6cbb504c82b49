"""Replay one record under each printing and with each overlay switched, and say which
events change their verdict or their outcome, and what decides it; or play random legal
games and count, for each variant, the games it changes."""

from __future__ import annotations

import difflib
import json
import re
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from referee.budget import within_limit
from referee.compile.spec import Spec
from referee.errors import RefereeError, Span, fail
from referee.records.record import Source, record_name
from referee.resolve.overlays import Choice, base_printing, overlay_groups
from referee.run.batch import _tick, cores
from referee.run.play import as_yaml, play_many, until_condition
from referee.run.pool import run_guarded
from referee.run.replay import check_record
from referee.run.verdict import Verdict, Violation
from referee.text import shown

COMMAND_LINE = Span("<command line>", 0, 0)
MAX_LINE = 2_000  # characters of a line of output
SHOWN_NUMBERS = 8  # lines of a violation's numbers in the text (the JSON has them all)


@dataclass
class Difference:
    """The first event whose verdict a variant changes."""

    variant: str  # "printing gmt-2011", "without S-...", "with E-..."
    overlays: list[str]  # the overlay ids that make the difference
    index: int  # the first event whose verdict changes
    base: str
    other: str
    later: int = 0  # how many later events change too (often a consequence of the first)
    # the violations at that event, in the base setting and in the variant, in full
    base_violations: list[dict[str, Any]] = field(default_factory=list)
    other_violations: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class OutcomeDifference:
    """The first event whose outcome a variant changes, and the end of the record."""

    variant: str
    overlays: list[str]
    verdict_changed: bool  # the variant changes a verdict too (see its Difference)
    index: int | None  # the first event whose outcome differs (0: the starting position)
    in_base: list[str] = field(default_factory=list)  # at that event, not in the variant
    in_variant: list[str] = field(default_factory=list)  # at that event, not in the base
    later: int = 0  # how many later events have outcomes that differ too
    end: dict[str, str] | None = None  # {"base": ..., "variant": ...} when the ends differ

    @property
    def first(self) -> str:
        """What the difference is about: the rule or clause of its first item, else the end."""
        items = self.in_base + self.in_variant
        # "clause/label: text" (told) or "rule (where)" (a standing rule): the clause/label
        return re.split(r": | \(", items[0], maxsplit=1)[0] if items else "the end"


@dataclass
class Comparison:
    file: str
    base: str
    variants: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    outcomes: list[OutcomeDifference] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "base": self.base,
            "variants": self.variants,
            "differences": [asdict(d) for d in self.differences],
            "outcomes": [asdict(d) for d in self.outcomes],
        }


# ------------------------------------------------------------------ what a verdict says


def _by_event(v: Verdict) -> dict[int, str]:
    out: dict[int, list[str]] = {}
    for x in v.violations:
        if x.kind == "rule":  # not the record's expectations: the answers to the base setting
            out.setdefault(x.index, []).append(x.cites)
    return {k: "illegal " + ", ".join(sorted(set(c))) for k, c in out.items()}


def _value(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(v) if isinstance(v, bool) or v is None else str(v)


def outcomes(v: Verdict) -> dict[int, list[str]]:
    """What each event brought about, comparable across variants: the consequences the
    rules told of (``clause/label: text``, its numbers in it) and the standing rules that
    fired where they told nothing of their clause (``rule (where)``); by event index, 0 for
    the starting position, each event's items sorted."""
    out: dict[int, list[str]] = {}
    told: dict[int, set[str]] = {}
    for event in v.outcomes:
        for o in event["outcome"]:
            out.setdefault(event["index"], []).append(f"{o['cites']}: {o['text']}")
            told.setdefault(event["index"], set()).add(o["clause"])
    for h in v.happened:
        if h["rule"].partition("/")[0] in told.get(h["index"], set()):
            continue  # told of, with its numbers
        where = ", ".join(_value(x) for x in (h.get("at") or {}).values())
        out.setdefault(h["index"], []).append(h["rule"] + (f" ({where})" if where else ""))
    return {k: sorted(items) for k, items in out.items()}


def _violations(v: Verdict, index: int) -> list[dict[str, Any]]:
    return [_full(x) for x in v.violations if x.index == index and x.kind == "rule"]


def _full(x: Violation) -> dict[str, Any]:
    return {"cites": x.cites, "title": x.title, "message": x.message, "numbers": x.numbers}


def _outcome_difference(
    name: str, overlays: list[str], base: Verdict, other: Verdict, verdict_changed: bool
) -> OutcomeDifference | None:
    a, b = outcomes(base), outcomes(other)
    differ = [i for i in sorted(set(a) | set(b)) if Counter(a.get(i, [])) != Counter(b.get(i, []))]
    end = {"base": base.summary, "variant": other.summary}
    if not differ and base.summary == other.summary:
        return None
    d = OutcomeDifference(name, overlays, verdict_changed, None)
    if differ:
        i = differ[0]
        here, there = Counter(a.get(i, [])), Counter(b.get(i, []))
        d.index, d.later = i, len(differ) - 1
        d.in_base = sorted((here - there).elements())
        d.in_variant = sorted((there - here).elements())
    if base.summary != other.summary:
        d.end = end
    return d


# ------------------------------------------------------------------ the variants


def variants(spec: Spec) -> list[tuple[str, Choice]]:
    base = base_printing(spec.sym)
    runs = [(f"printing {p}", Choice(p)) for p in sorted(spec.sym.printings) if p != base]
    for o in sorted(spec.sym.overlays.values(), key=lambda o: o.id):
        if o.default:
            runs.append((f"without {o.id}", Choice("", [], [o.id])))
        elif not o.printings:
            runs.append((f"with {o.id}", Choice("", [o.id], [])))
    return runs


def select(spec: Spec, only: list[str]) -> list[tuple[str, Choice]]:
    """The variants ``only`` names, in their usual order: a printing id, an overlay id (for
    an overlay of a printing, the printings that differ on it), or an overlay file's name
    standing for every overlay it declares. All of them if ``only`` is empty."""
    runs = variants(spec)
    if not only:
        return runs
    sym = spec.sym
    base = base_printing(sym)
    groups = overlay_groups(sym)
    wanted: set[str] = set()
    for name in only:
        ids = groups.get(name, [name] if name in sym.overlays else [])
        if name not in sym.printings and not ids:
            known = [*sym.printings, *sym.overlays, *groups]
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(known))}"
            raise fail(COMMAND_LINE, f"--only: no printing or overlay '{name}'", hint)
        if name in sym.printings:
            wanted.add(f"printing {name}")
        for oid in ids:
            o = sym.overlays[oid]
            wanted |= {f"without {oid}", f"with {oid}"}
            wanted |= {
                f"printing {p}"
                for p in sym.printings
                if (p in o.printings) != (base in o.printings)
            }
    chosen = [(n, c) for n, c in runs if n in wanted]
    if not chosen:
        raise fail(
            COMMAND_LINE,
            f"--only: {', '.join(only)} makes no variant: the base printing {base} and its"
            " overlays are what every variant is compared with",
        )
    return chosen


# ------------------------------------------------------------------ one record


def compare(spec: Spec, path: Source, only: list[str] | None = None) -> Comparison:
    runs = select(spec, only or [])
    base = _judged(spec, path, Choice(), "the base setting")
    result = Comparison(base.file, f"printing {base.printing}")
    for name, choice in runs:
        other = _judged(spec, path, choice, name)
        result.variants.append(name)
        d, o = differ(name, base, other)
        result.differences += [d] if d is not None else []
        result.outcomes += [o] if o is not None else []
    return result


def _judged(spec: Spec, path: Source, choice: Choice, variant: str) -> Verdict:
    """One setting's verdict on the record, without its expectations, under the time limit
    for one record (REFEREE_TIME_LIMIT): each variant has the time ``check`` has."""
    return within_limit(
        lambda: check_record(spec, path, choice, keep_going=True, expect=False),
        record_name(path),
        f"judging the record under {variant}",
        "REFEREE_TIME_LIMIT sets the limit, in seconds",
    )


def differ(
    name: str, base: Verdict, other: Verdict
) -> tuple[Difference | None, OutcomeDifference | None]:
    """What a variant changes in one record: its first changed verdict, its first changed
    outcome and the end of the record, each None if nothing changes."""
    # the overlays that differ, narrowed to those either verdict relied on
    changed = set(other.overlays) ^ set(base.overlays)
    overlays = sorted((changed & (set(other.relied) | set(base.relied))) or changed)
    base_events, other_events = _by_event(base), _by_event(other)
    changes = [
        (i, base_events.get(i, "legal"), other_events.get(i, "legal"))
        for i in sorted(set(base_events) | set(other_events))
        if base_events.get(i, "legal") != other_events.get(i, "legal")
    ]
    d = None
    if changes:
        i, a, b = changes[0]
        d = Difference(
            name, overlays, i, a, b, len(changes) - 1, _violations(base, i), _violations(other, i)
        )
    return d, _outcome_difference(name, overlays, base, other, bool(changes))


def _variants(n: int, other: bool = False) -> str:
    return f"{n} {'other ' if other else ''}variant" + ("" if n == 1 else "s")


def _render_violations(
    indent: str, who: str, found: list[dict[str, Any]], every: bool = False
) -> list[str]:
    out = []
    for v in found:
        out.append(f"{indent}{who}: {v['cites']}: {v['message']}")
        numbers = v["numbers"]
        out += [f"{indent}  {n}" for n in (numbers if every else numbers[:SHOWN_NUMBERS])]
        if len(numbers) > SHOWN_NUMBERS and not every:
            more = len(numbers) - SHOWN_NUMBERS
            out.append(f"{indent}  ... and {more} more numbers (--format json lists them all)")
    return out


def render(c: Comparison, verbose: bool = False) -> str:
    """The comparison as text; ``verbose``: every number, and the variants that change
    nothing named."""
    lines = [f"{c.file}: {_variants(len(c.variants))} against {c.base} and the default overlays"]
    if not c.differences and not c.outcomes:
        lines.append("  no verdict or outcome changes under any printing or overlay")
        return "\n".join(shown(line, MAX_LINE) for line in lines)
    if c.differences:
        width = max(len(d.variant) for d in c.differences)
        pad = " " * (width + 11)
        lines.append(f"  {'variant':<{width}}  event  {'base verdict':<36}  this variant")
        for d in c.differences:
            lines.append(f"  {d.variant:<{width}}  {d.index:>5}  {d.base:<36}  {d.other}")
            lines += _render_violations(pad, "in base", d.base_violations, verbose)
            lines += _render_violations(pad, "in this variant", d.other_violations, verbose)
            if d.later:
                lines.append(f"{pad}(and {d.later} later event(s) change too)")
            if d.variant.startswith("printing"):
                lines.append(f"{pad}(overlays that differ: {', '.join(d.overlays)})")
    if c.outcomes:
        lines.append("  outcomes that differ:")
        for o in c.outcomes:
            lines += _render_outcome(o)
    touched = {d.variant for d in c.differences} | {o.variant for o in c.outcomes}
    quiet = [v for v in c.variants if v not in touched]
    if quiet:
        lines.append(f"  no change under the {_variants(len(quiet), other=True)}")
        if verbose:
            lines += [f"    {v}" for v in quiet]
    # names and values from the record, escaped: one line of output per line here
    return "\n".join(shown(line, MAX_LINE) for line in lines)


def _render_outcome(o: OutcomeDifference) -> list[str]:
    notes = ["its verdicts change too, above"] if o.verdict_changed else []
    if o.variant.startswith("printing"):
        notes.append(f"overlays that differ: {', '.join(o.overlays)}")
    lines = [f"  {o.variant}" + (f" ({'; '.join(notes)})" if notes else "")]
    if o.index is not None:
        when = f"event {o.index}" if o.index else "the starting position"
        lines.append(f"    {when}:")
        lines += [f"      {x} in base, not in this variant" for x in o.in_base]
        lines += [f"      {x} in this variant, not in base" for x in o.in_variant]
        if o.later:
            lines.append(f"      (and {o.later} later event(s) differ too)")
    if o.end is not None:
        lines.append(f"    the end in base:         {o.end['base']}")
        lines.append(f"    the end in this variant: {o.end['variant']}")
    return lines


# ------------------------------------------------------------------ random games


@dataclass
class VariantCount:
    """What one variant changes across the games: the seeds of the games whose verdict it
    changes and of those whose outcome it changes, and what those changes cite, counted by
    game (a change's first event only)."""

    variant: str
    verdict_games: list[int] = field(default_factory=list)
    outcome_games: list[int] = field(default_factory=list)
    verdict_by: dict[str, int] = field(default_factory=dict)  # clause/label -> games
    outcome_by: dict[str, int] = field(default_factory=dict)  # rule, clause or "the end"

    @property
    def weight(self) -> tuple[int, int]:
        return (len(self.verdict_games), len(self.outcome_games))


@dataclass
class GamesComparison:
    seeds: list[int]
    until: str
    base: str
    events: int = 0
    stopped: dict[str, int] = field(default_factory=dict)  # why the games stopped -> games
    variants: list[VariantCount] = field(default_factory=list)  # most changes first
    failed: list[dict[str, Any]] = field(default_factory=list)  # {"seed", "variant", "why"}

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["games"] = len(self.seeds)
        for row, v in zip(out["variants"], self.variants, strict=True):
            row["verdict_changes"] = len(v.verdict_games)
            row["outcome_changes"] = len(v.outcome_games)
        return out


_JUDGING: tuple[Spec, list[Path], list[Choice]] | None = None


def _setup_judging(spec: Spec, paths: list[Path], choices: list[Choice]) -> None:
    global _JUDGING
    _JUDGING = (spec, paths, choices)


def _judge(item: tuple[int, int]) -> Verdict | RefereeError:
    """One game's record under one setting (the base, or a variant)."""
    assert _JUDGING is not None
    spec, paths, choices = _JUDGING
    game, setting = item
    try:
        return check_record(spec, paths[game], choices[setting], keep_going=True, expect=False)
    except RefereeError as err:
        return err


def _first_cites(d: Difference) -> list[str]:
    """The clauses the first changed verdict cites: the variant's, else the base's."""
    said = d.other if d.other.startswith("illegal ") else d.base
    return said.removeprefix("illegal ").split(", ")


def compare_games(
    spec: Spec,
    seeds: list[int],
    until: str = "",
    only: list[str] | None = None,
    progress: bool = False,
) -> GamesComparison:
    """Play a random legal game for each seed, judge each in the base setting and under
    each variant, on every core, and count for each variant the games in which it changes
    a verdict and those in which it changes an outcome. Each judgement is one work item,
    under the time limit for one record; one that fails is said, the rest counted."""
    runs = select(spec, only or [])  # a bad --only said once, before any game is played
    until_condition(spec, until)  # and a bad --until
    result = GamesComparison(seeds, until, f"printing {base_printing(spec.sym)}")
    games = play_many(spec, seeds, until)
    result.events = sum(len(g.events) for g in games)
    result.stopped = dict(sorted(Counter(g.stopped for g in games).items()))
    choices = [Choice()] + [choice for _, choice in runs]
    items = [(g, s) for g in range(len(seeds)) for s in range(len(choices))]
    total, done = len(items), [0]

    def tick() -> None:
        done[0] += 1
        _tick(None, done[0] - 1, total, progress, "records judged")

    with tempfile.TemporaryDirectory(prefix="referee-compare-") as folder:
        paths = [Path(folder) / f"game-{seed:04}.yaml" for seed in seeds]
        for seed, game, path in zip(seeds, games, paths, strict=True):
            path.write_text(as_yaml(game.record(spec, seed)))
        workers = max(1, min(cores(), total))
        found = run_guarded(_judge, items, _setup_judging, (spec, paths, choices), workers, tick)
    counts = {name: VariantCount(name) for name, _ in runs}
    for g, seed in enumerate(seeds):
        verdicts = found[g * len(choices) : (g + 1) * len(choices)]
        base = _verdict(verdicts[0], seed, "", result.failed)
        if base is None:
            continue
        for (name, _), judged in zip(runs, verdicts[1:], strict=True):
            other = _verdict(judged, seed, name, result.failed)
            if other is None:
                continue
            d, o = differ(name, base, other)
            row = counts[name]
            if d is not None:
                row.verdict_games.append(seed)
                for cite in _first_cites(d):
                    row.verdict_by[cite] = row.verdict_by.get(cite, 0) + 1
            if o is not None:
                row.outcome_games.append(seed)
                row.outcome_by[o.first] = row.outcome_by.get(o.first, 0) + 1
    for row in counts.values():
        row.verdict_by = dict(sorted(row.verdict_by.items(), key=lambda kv: (-kv[1], kv[0])))
        row.outcome_by = dict(sorted(row.outcome_by.items(), key=lambda kv: (-kv[1], kv[0])))
    names = [name for name, _ in runs]
    result.variants = sorted(
        counts.values(), key=lambda r: (-r.weight[0], -r.weight[1], names.index(r.variant))
    )
    return result


def _verdict(
    judged: tuple[str, Any], seed: int, variant: str, failed: list[dict[str, Any]]
) -> Verdict | None:
    """A verdict from a work item, or None with why it failed added to ``failed``."""
    status, value = judged
    if status == "ok" and isinstance(value, Verdict):
        return value
    why = value.render() if isinstance(value, RefereeError) else str(value)
    failed.append({"seed": seed, "variant": variant or "the base setting", "why": why})
    return None


def _most(by: dict[str, int]) -> str:
    if not by:
        return ""
    cite, n = next(iter(by.items()))
    return f"{cite} ({n})"


def render_games(g: GamesComparison, verbose: bool = False) -> str:
    """The count of games each variant changes; ``verbose``: their seeds too."""
    n = len(g.seeds)
    seeds = f"seed {g.seeds[0]}" if n == 1 else f"seeds {g.seeds[0]} to {g.seeds[-1]}"
    how = f"until {g.until}" if g.until else "played to the end"
    lines = [
        f"{n} random legal game(s) ({seeds}, {how}; {g.events} events):"
        f" {_variants(len(g.variants))} against {g.base} and the default overlays"
    ]
    lines += [
        f"  game seed {f['seed']} could not be judged under {f['variant']}: {f['why']}"
        for f in g.failed
    ]
    rows = [r for r in g.variants if r.verdict_games or r.outcome_games]
    if rows:
        width = max(len("variant"), *(len(r.variant) for r in rows))
        most = max(len("most often (games)"), *(len(_most(r.verdict_by)) for r in rows))
        lines.append(
            f"  {'variant':<{width}}  {'verdicts':>8}  {'most often (games)':<{most}}"
            "  outcomes  most often (games)"
        )
        for r in rows:
            lines.append(
                f"  {r.variant:<{width}}  {len(r.verdict_games):>4}/{n:<3}"
                f"  {_most(r.verdict_by):<{most}}  {len(r.outcome_games):>4}/{n:<3}"
                f"  {_most(r.outcome_by)}".rstrip()
            )
            if verbose:
                for what, changed in (("verdicts", r.verdict_games), ("outcomes", r.outcome_games)):
                    if changed:
                        listed = ", ".join(str(seed) for seed in changed)
                        lines.append(f"    {what} change in the games of seeds {listed}")
    quiet = len(g.variants) - len(rows)
    if quiet:
        lines.append(f"  no change in any game under the {_variants(quiet, other=True)}")
    return "\n".join(shown(line, MAX_LINE) for line in lines)
