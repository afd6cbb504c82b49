"""Benchmark (issue 31.5): seconds and peak memory to judge each example record's three views
with `referee check` (the bounded search of referee/hidden/). Printed, never asserted. Run:
python benchmarks/hidden.py [--timeout SECONDS] [RECORD ...]. Each view is judged in a fresh
process, so that its peak memory (ru_maxrss of the child) is its own."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = [
    "examples/disputes/kuwana-overrun.yaml",
    "examples/disputes/force-march-after-highway.yaml",
    "examples/combat-example.yaml",
    "examples/instant-victory.yaml",
    "examples/retreat-into-a-held-castle.yaml",
    "examples/siege-of-osaka.yaml",
    "examples/end-of-week-7.yaml",
    "examples/movement-example.yaml",
    "examples/weeks-1-2.yaml",
    "examples/full-game.yaml",
]


def judge(view_record: Path, timeout: float) -> tuple[str, float, float]:
    """The status, the wall seconds and the child's peak memory (MB) of one judgement."""
    cmd = [sys.executable, "-m", "referee", "check", str(view_record), "--format", "json"]
    cmd += ["--timeout", str(timeout)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    seconds = time.monotonic() - start
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    try:
        status = json.loads(done.stdout)["result"]["status"]
    except (ValueError, KeyError, TypeError):
        status = f"exit {done.returncode}"
    return status, seconds, peak


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("records", nargs="*", default=RECORDS)
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    print(f"{'record':45} {'view':9} {'status':13} {'seconds':>8} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for record in args.records:
            for view in ("public", "tokugawa", "ishida"):
                out = Path(tmp) / f"{Path(record).stem}.{view}.yaml"
                hide = [sys.executable, "-m", "referee", "hide", record, "--view", view]
                subprocess.run([*hide, "-o", str(out)], cwd=ROOT, check=True)
                status, seconds, peak = judge(out, args.timeout)
                print(f"{record:45} {view:9} {status:13} {seconds:8.2f} {peak:8.0f}")


if __name__ == "__main__":
    main()
