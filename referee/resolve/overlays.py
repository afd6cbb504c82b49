"""Put overlays in force: a printing's, the default ones, and those asked for.

The result is a new symbol table in which amended declarations replace the
base ones. Each amended declaration remembers its overlay, so the interpreter
can tell which overlays a verdict actually relied on.
"""

from __future__ import annotations

import copy
import difflib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from referee.errors import RefereeError, Span, fail
from referee.parse import ast
from referee.resolve.symbols import Symbols


@dataclass
class Choice:
    """Which printing, and which overlays switched on or off beyond the defaults."""

    printing: str = ""
    on: list[str] = field(default_factory=list)
    off: list[str] = field(default_factory=list)


def base_printing(sym: Symbols) -> str:
    return next((p.id for p in sym.printings.values() if p.base), "")


def in_force(
    sym: Symbols, choice: Choice, where: Callable[[str], Span]
) -> tuple[str, list[ast.Overlay]]:
    """The printing and overlays in force; ``where`` locates a name the user gave."""
    printing = choice.printing or base_printing(sym)
    if printing and printing not in sym.printings:
        raise _unknown(where(printing), "printing", printing, list(sym.printings))
    groups = overlay_groups(sym)
    both = [name for name in choice.on if name in choice.off]
    if both:
        raise fail(
            where(both[0]),
            f"overlay '{both[0]}' is switched both on and off",
            "name it once: to switch it on, or off",
        )
    wanted: dict[str, set[str]] = {"on": set(), "off": set()}
    for key, names in (("on", choice.on), ("off", choice.off)):
        for name in names:
            if name in sym.overlays:
                wanted[key].add(name)
            elif name in groups:
                wanted[key] |= set(groups[name])
            else:
                raise _unknown(where(name), "overlay", name, [*sym.overlays, *groups])
    chosen = []
    for o in sym.overlays.values():
        on = printing in o.printings or bool(o.default) or o.id in wanted["on"]
        if on and o.id not in wanted["off"]:
            chosen.append(o)
    return printing, chosen


def overlay_groups(sym: Symbols) -> dict[str, list[str]]:
    """Overlays by the file that declares them (``savarese-2014``, ``decisions``, ...): a
    group name stands for all of them in ``--overlay``, ``--no-overlay`` and a record."""
    groups: dict[str, list[str]] = {}
    for o in sym.overlays.values():
        stem = o.span.file.rsplit("/", 1)[-1].removesuffix(".rules")
        groups.setdefault(stem, []).append(o.id)
    return groups


def _unknown(where: Span, what: str, name: str, known: list[str]) -> RefereeError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(known))}"
    return fail(where, f"unknown {what} '{name}'", hint)


def apply(sym: Symbols, overlays: list[ast.Overlay]) -> Symbols:
    """A copy of ``sym`` with the overlays' amendments in force."""
    out = copy.copy(sym)
    out.values = dict(sym.values)
    out.labels = dict(sym.labels)
    out.dropped = dict(sym.dropped)
    out.exceptions = {k: list(v) for k, v in sym.exceptions.items()}
    out.replaced = dict(sym.replaced)
    out.used_by = defaultdict(set, sym.used_by)
    for o in overlays:
        for am in o.amends:
            for ch in am.changes:
                if ch.decl is not None:
                    decl = replace(ch.decl, overlay=o.id)
                    if isinstance(decl, (ast.Require, ast.Property)):
                        label = f"{am.clause}/{decl.name}"
                        base = out.labels.get(label)
                        out.labels[label] = decl
                        out.dropped.pop(label, None)
                    else:
                        label = decl.name
                        base = out.values.get(label)
                        out.values[label] = decl
                    if ch.action == "replace" and base is not None:
                        out.replaced.setdefault(label, base)
                elif ch.action == "drop" and ch.ref is not None:
                    out.dropped[str(ch.ref)] = o.id
                elif ch.action == "except" and ch.ref is not None and ch.cond is not None:
                    out.exceptions.setdefault(str(ch.ref), []).append((ch.cond, o.id))
    return out
