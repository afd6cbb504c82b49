"""Benchmark: `referee compare --games N`, random legal games compared under every printing
and overlay. Prints how long it takes and what it finds; asserts nothing.

Run: python benchmarks/compare_games.py [--games N] [--seed S] [--weeks K]

Each game is played once and judged once in the base setting and once per variant (38 with
the bundled spec), the games shared among the cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.compile.spec import load_spec  # noqa: E402
from referee.run.compare import compare_games, render_games  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weeks", type=int, help="stop each game after K weeks")
    args = parser.parse_args()
    spec = load_spec()
    seeds = list(range(args.seed, args.seed + args.games))
    until = f"week > {args.weeks}" if args.weeks is not None else ""
    t0 = time.perf_counter()
    g = compare_games(spec, seeds, until)
    elapsed = time.perf_counter() - t0
    runs = len(seeds) * (len(g.variants) + 1)
    print(
        f"compare --games {len(seeds)}: {g.events} events, {len(g.variants)} variants,"
        f" {runs} records judged on {os.cpu_count()} core(s) in {elapsed:.1f} s:"
        f" {elapsed / len(seeds):.1f} s a game, {g.events * (len(g.variants) + 1) / elapsed:.0f}"
        " events judged a second"
    )
    print(render_games(g))


if __name__ == "__main__":
    main()
