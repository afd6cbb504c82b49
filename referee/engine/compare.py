"""Replay one record under each printing and with each overlay switched, and say
which events change their verdict, and what decides it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.dsl.overlays import Choice, base_printing
from referee.engine.replay import Verdict, check_record
from referee.spec import Spec


@dataclass
class Difference:
    variant: str  # "printing gmt-2011", "without S-overrun-draw", "with E-road-once"
    overlays: list[str]  # the overlay ids that make the difference
    index: int  # the first event whose verdict changes, 0 for the end of the record
    base: str
    other: str
    later: int = 0  # how many later events change too (often a consequence of the first)


@dataclass
class Comparison:
    file: str
    base: str
    variants: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "base": self.base,
            "variants": self.variants,
            "differences": [vars(d) for d in self.differences],
        }


def _by_event(v: Verdict) -> dict[int, str]:
    out: dict[int, list[str]] = {}
    for x in v.violations:
        if x.kind == "rule":  # not the record's expectations: the answers to the base setting
            out.setdefault(x.index, []).append(x.cites)
    return {k: "illegal " + ", ".join(sorted(set(c))) for k, c in out.items()}


def variants(spec: Spec) -> list[tuple[str, Choice]]:
    base = base_printing(spec.sym)
    runs = [(f"printing {p}", Choice(p)) for p in sorted(spec.sym.printings) if p != base]
    for o in sorted(spec.sym.overlays.values(), key=lambda o: o.id):
        if o.default:
            runs.append((f"without {o.id}", Choice("", [], [o.id])))
        elif not o.printings:
            runs.append((f"with {o.id}", Choice("", [o.id], [])))
    return runs


def compare(spec: Spec, path: str | Path) -> Comparison:
    base = check_record(spec, path, Choice(), keep_going=True)
    result = Comparison(base.file, f"printing {base.printing}")
    base_events = _by_event(base)
    for name, choice in variants(spec):
        other = check_record(spec, path, choice, keep_going=True)
        result.variants.append(name)
        # the overlays that differ, narrowed to those either verdict relied on
        changed = set(other.overlays) ^ set(base.overlays)
        changed = (changed & (set(other.relied) | set(base.relied))) or changed
        other_events = _by_event(other)
        changes = [
            (i, base_events.get(i, "legal"), other_events.get(i, "legal"))
            for i in sorted(set(base_events) | set(other_events))
            if base_events.get(i, "legal") != other_events.get(i, "legal")
        ]
        if changes:
            i, a, b = changes[0]
            result.differences.append(
                Difference(name, sorted(changed), i, a, b, later=len(changes) - 1)
            )
        if not base_events and not other_events and base.summary != other.summary:
            result.differences.append(
                Difference(name, sorted(changed), 0, base.summary, other.summary)
            )
    return result


def render(c: Comparison) -> str:
    lines = [f"{c.file}: {len(c.variants)} variants against {c.base} and the default overlays"]
    if not c.differences:
        lines.append("  no verdict changes under any printing or overlay")
        return "\n".join(lines)
    width = max(len(d.variant) for d in c.differences)
    lines.append(f"  {'variant':<{width}}  event  {'base verdict':<36}  this variant")
    for d in c.differences:
        event = str(d.index) if d.index else "end"
        lines.append(f"  {d.variant:<{width}}  {event:>5}  {d.base:<36}  {d.other}")
        if d.later:
            lines.append(f"  {'':<{width}}         (and {d.later} later event(s) change too)")
        if d.variant.startswith("printing"):
            lines.append(f"  {'':<{width}}         (overlays that differ: {', '.join(d.overlays)})")
    quiet = [v for v in c.variants if v not in {d.variant for d in c.differences}]
    lines.append(f"  no change under the {len(quiet)} other variants")
    return "\n".join(lines)
