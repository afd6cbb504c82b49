"""The whole break-the-rules suite (issue 34), prove included: the figure docs/mutation.md gives.

    python benchmarks/break_rules.py [--likely-first] [--ids A,B] [--format text|json|markdown]

Every change of tools/breaks/ is applied to a copy of the spec, checked by `referee spec check`,
its records judged under the real and the broken spec (each must give the verdict its entry
states: CI checks this for one change of each kind only), and `referee prove` run on it, every
counterexample record it writes replayed under both specs. About 30 s of processor time a
change (`--likely-first`: less for a change the first properties catch); several times that in
wall time on a loaded machine: run it alone, in one process. The figure printed: N changes, K of
them changing their records' verdicts as stated, P caught by prove (a property failed), how many
of those with a counterexample record that replays to the miss, and the changes prove misses.
The target (issue 34): P == N. The figure is printed, never asserted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import break_rules  # noqa: E402


def main(argv: list[str]) -> int:
    started = time.perf_counter()
    code = break_rules.main(argv)
    print(f"break the rules: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
