"""Which rules random games reach: every requirement, action and step of the spec, with how
often the referee evaluated it while the games were played (`referee play --coverage`).

What counts is every judgement the referee made while playing: the events kept and the
proposals tried and refused (a requirement's refusal is reached by trying what it refuses).
The lists of requirements, actions and steps are the spec's own, so a requirement added to
the spec shows as never reached until a game reaches it. Nothing here knows the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.compile.coverage import Coverage
from referee.parse import ast
from referee.resolve.symbols import Symbols


def requirements(sym: Symbols) -> dict[str, str]:
    """Every requirement of the spec, the base rules' and those an overlay adds, by its
    clause/label: where it is declared (an overlay's id, or "" for the base rules)."""
    out = {k: "" for k, d in sym.labels.items() if isinstance(d, ast.Require)}
    for o in sym.overlays.values():
        for am in o.amends:
            for ch in am.changes:
                if isinstance(ch.decl, ast.Require):
                    out.setdefault(f"{am.clause}/{ch.decl.name}", o.id)
    return dict(sorted(out.items(), key=lambda kv: _clause_key(kv[0])))


def actions(sym: Symbols) -> list[str]:
    """Every action some step of the spec allows."""
    return sorted(sym.event_actions())


def steps(sym: Symbols) -> list[str]:
    """Every step of every procedure, as procedure.step."""
    return [f"{p.name}.{s.name}" for p in sym.procedures().values() for s in p.steps]


def _clause_key(label: str) -> tuple[Any, ...]:
    clause, _, name = label.partition("/")
    return (*(int(x) if x.isdigit() else 0 for x in clause.split(".")), name)


@dataclass
class Table:
    """Coverage against the spec: one row a requirement, action and step."""

    games: int
    events: int
    requirements: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def never(self, kind: str) -> list[str]:
        rows: list[dict[str, Any]] = getattr(self, kind)
        return [r["name"] for r in rows if not r["reached"]]

    def as_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "events": self.events,
            "requirements": self.requirements,
            "actions": self.actions,
            "steps": self.steps,
            "never reached": {k: self.never(k) for k in ("requirements", "actions", "steps")},
        }


def table(sym: Symbols, cov: Coverage, games: int, events: int) -> Table:
    t = Table(games, events)
    for label, overlay in requirements(sym).items():
        t.requirements.append(
            {
                "name": label,
                "reached": cov.reached(label),
                "passed": cov.passed[label],
                "refused": cov.refused[label],
                "dropped": cov.dropped[label],
                "overlay": overlay,
            }
        )
    for name in actions(sym):
        t.actions.append(
            {
                "name": name,
                "reached": cov.tried(name),
                "passed": cov.legal[name],
                "refused": cov.refused_actions[name],
            }
        )
    for name in steps(sym):
        t.steps.append({"name": name, "reached": cov.entered[name]})
    return t


def render(t: Table) -> str:
    """The table as text: requirement by requirement, then actions, then steps, then what
    was never reached."""
    reqs, acts, stps = t.requirements, t.actions, t.steps
    width = max(len(r["name"]) for r in reqs + acts + stps) if reqs + acts + stps else 10
    head = f"  {'':<{width}}  {'reached':>9}  {'passed':>9}  {'refused':>9}"
    out = [f"{t.games} game(s), {t.events} events", "requirements:", head]
    for r in reqs:
        note = f"  (from {r['overlay']})" if r["overlay"] else ""
        note += f"  (dropped {r['dropped']} times)" if r["dropped"] else ""
        out.append(
            f"  {r['name']:<{width}}  {r['reached']:>9}  {r['passed']:>9}  {r['refused']:>9}{note}"
        )
    out += ["actions:", f"  {'':<{width}}  {'tried':>9}  {'legal':>9}  {'refused':>9}"]
    out += [
        f"  {a['name']:<{width}}  {a['reached']:>9}  {a['passed']:>9}  {a['refused']:>9}"
        for a in acts
    ]
    out += ["steps:", f"  {'':<{width}}  {'entered':>9}"]
    out += [f"  {s['name']:<{width}}  {s['reached']:>9}" for s in stps]
    for kind, rows in (("requirements", reqs), ("actions", acts), ("steps", stps)):
        never = t.never(kind)
        reached = len(rows) - len(never)
        line = f"{kind}: {reached} of {len(rows)} reached"
        out.append(line + (f"; never: {', '.join(never)}" if never else ""))
    return "\n".join(out)
