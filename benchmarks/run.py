"""Benchmarks: print how fast the referee loads its spec and judges records.

Figures are printed, not asserted. Run: python benchmarks/run.py [--games N]

- spec load: parse and check every .rules file and load the components (cold,
  in a fresh interpreter state; then warm, from the per-process cache);
- per game: the time to judge each example record, median and worst, and the
  events judged per second;
- overhead: judging time against the time to merely read the same records
  from YAML;
- play: whole random games a second (referee play);
- prove: the time to prove every property.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.data.source import load_document  # noqa: E402
from referee.dsl.overlays import Choice  # noqa: E402
from referee.engine.play import play  # noqa: E402
from referee.engine.replay import check_record  # noqa: E402
from referee.spec import _CACHE, load_spec  # noqa: E402
from referee.verify.prover import prove  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="how many times to judge each record")
    parser.add_argument("--play", type=int, default=5, help="how many random games to play")
    args = parser.parse_args()

    os.environ["REFEREE_NO_CACHE"] = "1"
    t0 = time.perf_counter()
    spec = load_spec()
    cold = time.perf_counter() - t0
    del os.environ["REFEREE_NO_CACHE"]
    _CACHE.clear()
    load_spec()  # writes the disk cache if it is not there
    _CACHE.clear()
    t0 = time.perf_counter()
    load_spec()
    disk = time.perf_counter() - t0
    t0 = time.perf_counter()
    load_spec()
    warm = time.perf_counter() - t0
    print(
        f"spec load: {cold * 1000:.0f} ms parsing and checking, {disk * 1000:.0f} ms from the"
        f" disk cache, {warm * 1000:.1f} ms from the process cache"
    )

    records = sorted((ROOT / "examples").glob("*.yaml"))
    times: list[float] = []
    reads: list[float] = []
    events = 0
    for _ in range(args.games):
        for path in records:
            t0 = time.perf_counter()
            load_document(path)
            reads.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            verdict = check_record(spec, path, Choice())
            times.append(time.perf_counter() - t0)
            events += verdict.judged
            assert verdict.legal, path
    total = sum(times)
    print(
        f"records: {len(records)} examples x {args.games} = {len(times)} replays, {events} events"
    )
    median, worst = statistics.median(times) * 1000, max(times) * 1000
    rate = events / total
    print(f"judging: {rate:,.0f} events/s; a record: median {median:.1f} ms, worst {worst:.1f} ms")
    full = ROOT / "examples" / "full-game.yaml"
    t0 = time.perf_counter()
    verdict = check_record(spec, full, Choice())
    print(
        f"a whole 7-week game ({verdict.judged} events): {(time.perf_counter() - t0) * 1000:.0f} ms"
    )
    print(
        f"overhead: judging takes {total / sum(reads):.1f}x the time to read the records from YAML"
    )

    t0 = time.perf_counter()
    games = [play(spec, seed) for seed in range(args.play)]
    elapsed = time.perf_counter() - t0
    events = sum(len(g.events) for g in games)
    print(
        f"play: {args.play} whole games ({events} events) in {elapsed:.1f} s,"
        f" {args.play / elapsed:.2f} games/s"
    )

    t0 = time.perf_counter()
    outcomes = prove(spec.sym, spec.components.names())
    print(f"prove: {len(outcomes)} properties in {(time.perf_counter() - t0) * 1000:.0f} ms")
    _CACHE.clear()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
