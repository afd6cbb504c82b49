"""What every part of the prover shares: the exception for what cannot be translated,
how a proof names what it read, and z3's enumeration sorts (declared once a process)."""

from __future__ import annotations

from dataclasses import dataclass

import z3

MAX_INLINE = 64

# z3 declares an enumeration sort once per process: keep each, by its values.
_SORTS: dict[tuple[str, tuple[str, ...]], tuple[z3.SortRef, dict[str, z3.ExprRef]]] = {}


def enum(name: str, values: list[str]) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
    key = (name, tuple(values))
    if key not in _SORTS:
        taken = sum(1 for k in _SORTS if k[0] == name)
        sort, consts = z3.EnumSort(f"{name}_{taken}" if taken else name, values)
        _SORTS[key] = (sort, dict(zip(values, consts, strict=True)))
    return _SORTS[key]


def read_key(key: str, overlay: str = "") -> str:
    """How Outcome.reads names a declaration: its key, and the overlay that put it in force."""
    return f"{key} [{overlay}]" if overlay else key


class Untranslatable(Exception):
    """A construct the prover cannot express (lists, state, data): the property is skipped."""


# The work z3 may do on one solver call before it gives up (z3's own resource units, rlimit),
# not a time: the same spec gives the same answer on any machine, at any load. The longest
# proof of the bundled game takes about a tenth of it.
RLIMIT = 100_000_000


@dataclass(frozen=True)
class Budget:
    """What z3 may spend on each solver call: a limit of work (rlimit) always, and a limit of
    time only where the user gives one (``--timeout``)."""

    rlimit: int = RLIMIT
    timeout_ms: int | None = None
    # a proof's reads from z3's least unsat core (what tools/mutate.py counts kills over),
    # or from the first core z3 gives: a set that suffices, found in about half the time
    least_reads: bool = True

    def settings(self) -> dict[str, int]:
        """The parameters each solver of a proof is given."""
        out = {"rlimit": self.rlimit}
        if self.timeout_ms is not None:
            out["timeout"] = self.timeout_ms
        return out

    def solver(self) -> z3.Solver:
        solver = z3.Solver()
        for k, v in self.settings().items():
            solver.set(k, v)
        return solver

    def limit(self) -> str:
        """The limit as an unknown's reason says it."""
        out = f"limit {self.rlimit} rlimit units"
        return out + (f" or {self.timeout_ms} ms" if self.timeout_ms is not None else "")


DEFAULT_BUDGET = Budget()
