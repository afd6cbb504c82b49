"""Benchmarks: print how fast the referee loads its spec, plays and judges whole games.

Figures are printed, never asserted; each figure of issue 28 is printed beside its target
with "met" or "NOT met", and the last lines count them. Run: python benchmarks/run.py
[--games N] [--records N]. The machine is shared: every figure is CPU seconds (of this
process and of the worker processes it waited for) or a ratio of two measured in the same
run; wall-clock figures are printed beside them with the load average, for what they are.

- start-up (issue 28, 1; alone with --start-up): the CPU seconds of a fresh process for
  `referee --version`, `--help` and `referee check` of a short dispute record that states its
  answer (expect:), the disk cache warm, each the best of several runs, beside its target and
  as a ratio to `python -c pass` measured in the same run; and how many Lark parsers the
  judging process built (the target: none);
- spec load: parse and check every .rules file and load the components (cold, then from
  the disk cache, then from the process cache);
- play: N whole random games (`referee play --seed 0 --games N`, the fixed set) on every
  core: games a second on 2 cores, worked out from the CPU seconds they took (N games over
  CPU seconds / 2), and the CPU time of one game in one process;
- judging: the same N games, written as records and checked as `referee check` does, in one
  process: events judged a second, the median and worst CPU time for one whole game, and the
  CPU time of judging against that of merely reading the same records (with libyaml, as the
  referee reads them; PyYAML's pure-Python parser for comparison);
- prove: the CPU time to prove every property (props2's figure, printed here for the round),
  and that of `referee prove` in a fresh process answered from the proof cache (the disk
  cache warm: the first run proves and keeps its answer); and `referee prove --all-overlays`
  in a fresh process with no disk cache (tests/test_prove.py's longest test): its CPU time,
  and as a multiple of the one run's;
- coverage: the games of tests/test_play_coverage.py (six exploring games from the set-up, two
  from each example), in one process: the CPU time, and how many requirements they reach;
- batch (issue 28, 5; alone with --batch): `referee check DIR` in a process of its own over
  a folder of N records (the Sekigahara examples, copied over and over): the peak memory of
  the process and its workers together (sampled), and over N/5 records on every core and on
  one core, the peak again (it grows with cores, not records) and the records judged a
  second (wall clock, and by CPU).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.compile.coverage import Coverage  # noqa: E402
from referee.compile.spec import _CACHE, Spec, load_spec  # noqa: E402
from referee.data.source import load_document  # noqa: E402
from referee.resolve.overlays import Choice  # noqa: E402
from referee.run.batch import cores  # noqa: E402
from referee.run.coverage import table as coverage_table  # noqa: E402
from referee.run.play import as_yaml, play, play_many  # noqa: E402
from referee.run.replay import check_record  # noqa: E402
from referee.verify.prover import prove  # noqa: E402

# Every figure of issue 28 with its target: (what, met), in the order printed.
RESULTS: list[tuple[str, bool]] = []


def against(what: str, figure: str, value: float, target: float, most: bool = True) -> None:
    """Print a figure beside its target (at most ``target`` or, with ``most`` false, at
    least) and whether it is met."""
    met = value <= target if most else value >= target
    bound = "<=" if most else ">="
    RESULTS.append((what, met))
    print(f"{what}: {figure}; target {bound} {target:g}: {'met' if met else 'NOT met'}")


def cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def spec_load() -> Spec:
    os.environ["REFEREE_NO_CACHE"] = "1"
    t0 = time.process_time()
    spec = load_spec()
    cold = time.process_time() - t0
    del os.environ["REFEREE_NO_CACHE"]
    _CACHE.clear()
    load_spec()  # writes the disk cache if it is not there
    _CACHE.clear()
    t0 = time.process_time()
    load_spec()
    disk = time.process_time() - t0
    t0 = time.process_time()
    load_spec()
    warm = time.process_time() - t0
    print(
        f"spec load: {cold * 1000:.0f} ms parsing and checking, {disk * 1000:.0f} ms from the"
        f" disk cache, {warm * 1000:.1f} ms from the process cache (CPU)"
    )
    return spec


CORES = 2  # the machine of the targets


def generate(spec: Spec, n: int, folder: Path) -> list[Path]:
    t0, c0 = time.perf_counter(), cpu()
    games = play_many(spec, list(range(n)))
    elapsed, used = time.perf_counter() - t0, cpu() - c0
    events = sum(len(g.events) for g in games)
    unfinished = sum(g.stopped != "the game is over" for g in games)
    print(
        f"play: {n} whole games ({events} events, {unfinished} unfinished) on {cores()}"
        f" core(s): {used:.1f} s of CPU, {elapsed:.1f} s wall ({n / elapsed:.1f} games/s,"
        f" load average {os.getloadavg()[0]:.1f})"
    )
    rate = n / (used / CORES)
    against(
        "referee play, games a second on 2 cores",
        f"{rate:.1f} ({n} games / ({used:.1f} s of CPU / {CORES}))",
        rate,
        60,
        most=False,
    )
    k = min(n, 20)
    t0 = time.process_time()
    for seed in range(k):
        play(spec, seed)
    print(f"play in one process: {(time.process_time() - t0) / k * 1000:.0f} ms of CPU a game")
    paths = []
    for seed, game in enumerate(games):
        path = folder / f"game-{seed:04}.yaml"
        path.write_text(as_yaml(game.record(spec, seed)))
        paths.append(path)
    return paths


def judge(spec: Spec, paths: list[Path]) -> None:
    times, reads, pure_reads, events = [], [], [], 0
    check_record(spec, paths[0], Choice())  # the rules compiled, as in any batch
    for path in paths:
        t0 = time.process_time()
        load_document(path)
        reads.append(time.process_time() - t0)
        text = path.read_text()
        t0 = time.process_time()
        yaml.compose(text, Loader=yaml.SafeLoader)
        pure_reads.append(time.process_time() - t0)
        t0 = time.process_time()
        verdict = check_record(spec, path, Choice())
        times.append(time.process_time() - t0)
        events += verdict.judged
        assert verdict.legal, (path, verdict.violations)
    total = sum(times)
    median, worst = statistics.median(times) * 1000, max(times) * 1000
    print(
        f"judging: {len(paths)} games, {events} events, {events / total:,.0f} events/s of CPU;"
        f" a whole game: worst {worst:.0f} ms; reading one (libyaml): median"
        f" {statistics.median(reads) * 1000:.1f} ms; judging is"
        f" {total / sum(pure_reads):.1f}x PyYAML's pure-Python parse"
    )
    against("a whole game judged, median ms of CPU", f"{median:.1f}", median, 15)
    # game by game, so that a pause of the collector in one read or judgement moves it little
    ratio = statistics.median(t / r for t, r in zip(times, reads, strict=True))
    against(
        "a whole game judged against reading it with libyaml",
        f"{ratio:.1f}x (the median game's; in all {total:.2f} s against {sum(reads):.2f} s of CPU)",
        ratio,
        2,
    )


DISPUTE = ROOT / "examples" / "disputes" / "force-march-after-highway.yaml"  # has expect:
_COUNT_PARSERS = """
import contextlib, io, sys
import lark
built = []
init = lark.Lark.__init__
def counted(self, *args, **kwargs):
    built.append(1)
    init(self, *args, **kwargs)
lark.Lark.__init__ = counted
from referee.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["check", sys.argv[1]])
print(code, len(built))
"""


def _cpu(argv: list[str], runs: int = 7) -> float:
    """The CPU seconds (user + system) of a fresh process running ``argv``: the best of
    ``runs``, as the machine is shared."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, check=False)  # bytecode, cache
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best = min(best, used)
    return best


def start_up() -> None:
    python = [sys.executable]
    referee = [*python, "-m", "referee"]
    base = _cpu([*python, "-c", "pass"])
    print(f"start-up: python -c pass: {base:.3f} s of CPU (the unit of the ratios below)")
    for what, argv, target in [
        ("referee --version", [*referee, "--version"], 0.15),
        ("referee --help", [*referee, "--help"], 0.15),
        (f"referee check {DISPUTE.relative_to(ROOT)}", [*referee, "check", str(DISPUTE)], 0.3),
    ]:
        used = _cpu(argv)
        against(
            f"start-up: {what}, s of CPU", f"{used:.3f} ({used / base:.1f}x python)", used, target
        )
    done = subprocess.run(
        [*python, "-c", _COUNT_PARSERS, str(DISPUTE)], cwd=ROOT, capture_output=True, text=True
    )
    code, built = done.stdout.split()[-2:] if done.returncode == 0 else ("?", "?")
    count = int(built) if built.isdigit() else 99
    against(f"start-up: Lark parsers built while judging it (exit {code})", built, count, 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="how many games (seeds 0..N-1)")
    parser.add_argument("--records", type=int, default=5000, help="records of the batch")
    parser.add_argument("--start-up", action="store_true", help="only the start-up figures")
    parser.add_argument("--no-prove", action="store_true", help="leave out the proofs")
    parser.add_argument("--batch", action="store_true", help="only the batch's figures")
    args = parser.parse_args()

    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} core(s),"
        f" Python {sys.version.split()[0]}"
    )
    if args.batch:
        batch(args.records)
    else:
        start_up()
    if not (args.start_up or args.batch):
        rest(args)
    met = sum(m for _, m in RESULTS)
    print(f"targets met: {met} of {len(RESULTS)}")
    for what, m in RESULTS:
        if not m:
            print(f"  NOT met: {what}")
    return 0


def rest(args: argparse.Namespace) -> None:
    spec = spec_load()
    with tempfile.TemporaryDirectory() as folder:
        paths = generate(spec, args.games, Path(folder))
        judge(spec, paths)
    full = ROOT / "examples" / "full-game.yaml"
    t0 = time.process_time()
    verdict = check_record(spec, full, Choice())
    print(
        f"examples/full-game.yaml ({verdict.judged} events):"
        f" {(time.process_time() - t0) * 1000:.0f} ms of CPU"
    )
    if not args.no_prove:
        t0 = time.process_time()
        outcomes = prove(spec.sym, spec.components.names(), collections=spec.components.collections)
        used = time.process_time() - t0
        against(
            "referee prove, s of CPU (props2's)",
            f"{len(outcomes)} properties in {used:.1f}",
            used,
            10,
        )
        prove_from_cache()
        prove_every_set(used)
    coverage(spec)
    _CACHE.clear()
    batch(args.records)


def prove_from_cache() -> None:
    """`referee prove` in a fresh process whose answer the proof cache holds (its first run,
    which _cpu does before measuring, proves and keeps it), in a cache folder of its own."""
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as home:
        os.environ.pop("REFEREE_NO_CACHE", None)
        os.environ["XDG_CACHE_HOME"] = home
        try:
            used = _cpu([sys.executable, "-m", "referee", "prove"], runs=3)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    print(f"referee prove answered from the proof cache: {used:.2f} s of CPU (a fresh process)")


def prove_every_set(one: float) -> None:
    """`referee prove --all-overlays` in a fresh process, with no disk cache: each printing,
    each default overlay off, a proof kept from another set where what it needed is the same."""
    saved = dict(os.environ)
    os.environ["REFEREE_NO_CACHE"] = "1"
    try:
        t0 = cpu()
        done = subprocess.run(
            [sys.executable, "-m", "referee", "prove", "--all-overlays"],
            capture_output=True,
            text=True,
            check=False,
        )
        used = cpu() - t0
    finally:
        os.environ.clear()
        os.environ.update(saved)
    runs = done.stdout.count("; overlays in force: ")
    print(
        f"referee prove --all-overlays ({runs} runs), no disk cache: {used:.1f} s of CPU"
        f" ({used / one:.1f} times one run's proofs), exit {done.returncode}"
    )


def coverage(spec: Spec) -> None:
    t0 = time.process_time()
    counts = Coverage()
    games = [play(spec, seed, coverage=True, explore=True) for seed in range(6)]
    examples = sorted((ROOT / "examples").rglob("*.yaml"))
    games += [
        play(spec, seed, coverage=True, explore=True, start=path, max_events=15)
        for path in examples
        for seed in range(2)
    ]
    for g in games:
        if g.coverage is not None:
            counts.add(g.coverage)
    t = coverage_table(spec.sym, counts, len(games), sum(len(g.events) for g in games))
    never = t.never("requirements")
    used = time.process_time() - t0
    against(
        "referee play --coverage, s of CPU",
        f"{len(games)} games in {used:.1f} in one process;"
        f" {len(t.requirements) - len(never)} of {len(t.requirements)} requirements reached",
        used,
        10,
    )


def _tree_rss(root: int) -> int:
    """The resident memory (bytes) of a process and all its descendants, now."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21]) * resource.getpagesize()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += [p for p, pp in parents.items() if pp == pid]
    return total


def check_folder(folder: Path, one_core: bool) -> tuple[float, float, float]:
    """`referee check DIR` in a process of its own: its peak memory with its workers (MB),
    wall seconds and CPU seconds."""
    argv = [sys.executable, "-m", "referee", "check", "-q", str(folder)]
    c0, t0 = cpu(), time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=(lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}))
        if one_core
        else None,
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.05)
    return peak / 2**20, time.perf_counter() - t0, cpu() - c0


def batch(n: int) -> None:
    sources = sorted(
        p
        for p in (ROOT / "examples").rglob("*.yaml")
        if p.read_text().startswith("game: sekigahara") or "\ngame: sekigahara" in p.read_text()
    )
    with tempfile.TemporaryDirectory() as folder:
        for i in range(n):
            shutil.copy(sources[i % len(sources)], Path(folder) / f"r{i:05}.yaml")
        peak, wall, used = check_folder(Path(folder), one_core=False)
        print(
            f"batch: referee check DIR, {n} records on {cores()} core(s): {used:.1f} s of CPU,"
            f" {wall:.1f} s wall (load average {os.getloadavg()[0]:.1f})"
        )
        against(f"batch: peak memory over {n} records, MB", f"{peak:.0f}", peak, 500)
        few = Path(folder) / "few"
        few.mkdir()
        for i in range(n // 5):
            os.rename(Path(folder) / f"r{i:05}.yaml", few / f"r{i:05}.yaml")
        for one in (True, False):
            peak, wall, used = check_folder(few, one_core=one)
            where = "1 core" if one else f"{cores()} cores"
            print(
                f"batch: {n // 5} records on {where}: peak {peak:.0f} MB, {n // 5 / wall:.0f}"
                f" records/s wall ({wall:.1f} s, load average {os.getloadavg()[0]:.1f}),"
                f" {n // 5 / used:.0f} records/s of CPU"
            )


if __name__ == "__main__":
    raise SystemExit(main())
