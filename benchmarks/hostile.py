"""Time and memory for the largest hostile inputs the limits accept (issues 12 and 33).

    python benchmarks/hostile.py [--quick]

Each input is made in a temporary folder, given to the command it attacks (``referee
check`` for a record, ``convert``, ``compare``, ``spec check``, ``prove``) in a process of its
own, and reported with its wall time, its peak memory (the process's maximum resident size)
and its exit code. The target: every one judged or refused in under 60 s and 1 GB.
``--quick`` makes each record a tenth as large.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 16 * 1024 * 1024  # the record size limit (referee/records/record.py)
EVENT = "  - deal: {by: tokugawa, cards: [tokugawa, tokugawa, maeda, date, fukushima]}\n"


def fill(path: Path, head: str, unit: str, tail: str, size: int) -> Path:
    """``head``, then ``unit`` as many times as fit in ``size`` bytes, then ``tail``."""
    n = (size - len(head) - len(tail) - 16) // len(unit)
    with path.open("w") as f:
        f.write(head)
        f.write(unit * n)
        f.write(tail)
    return path


def records(folder: Path, size: int) -> list[tuple[str, Path, list[str]]]:
    game = "game: sekigahara\n"
    weeks = (ROOT / "examples" / "weeks-1-2.yaml").read_text()
    moves = (ROOT / "examples" / "illegal" / "movement-too-far.yaml").read_text()
    head, move = moves.split("  - move:\n", 1)
    return [
        (
            "events, to the first illegal",
            fill(folder / "a.yaml", game + "events:\n", EVENT, "", size),
            [],
        ),
        ("a legal game, then events", fill(folder / "b.yaml", weeks, EVENT, "", size), []),
        (
            "illegal moves, --all",
            fill(folder / "c.yaml", head, "  - move:\n" + move, "", size // 8),
            ["--all"],
        ),
        (
            "0, 0, 0, ... (too many values)",
            fill(folder / "d.yaml", game + "notes: [", "0,", "0]\nevents: []\n", size),
            [],
        ),
        (
            "names with a tab (pure parser)",
            fill(folder / "e.yaml", game + "notes: [\t", "tokugawa, ", "x]\nevents: []\n", size),
            [],
        ),
        (
            "base-60 numbers",
            fill(folder / "f.yaml", game + "notes: ", "1:", "0\nevents: []\n", size),
            [],
        ),
        ("nesting 30,000 deep", fill(folder / "g.yaml", game + "events: ", "[", "", 30_000), []),
        (
            "moves: 40 blocks in one stack, --all",
            huge_stack(folder / "i.yaml"),
            ["--all", "--command", "moves"],
        ),
        (
            "moves: events, to the first illegal",
            folder / "a.yaml",
            ["--command", "moves"],
        ),
        (
            "table: a million unreadable lines",
            fill(folder / "j.rec", "", "T fly Edo\n", "", 10_000_000),
            ["--game", "sekigahara", "--command", "table", "--stdin"],
        ),
        (
            "table: binary on standard input",
            fill(folder / "k.bin", "", "\x00\x01\x7fELF", "", size),
            ["--game", "sekigahara", "--command", "table", "--stdin"],
        ),
        (
            "one event, a long line",
            fill(
                folder / "h.yaml",
                game + "events: [{deal: {by: tokugawa, cards: [",
                "tokugawa, ",
                "x]}}]\n",
                size,
            ),
            [],
        ),
    ]


HEAD = 'game g "G"\nprinting p "P" base\n'


def round_three(folder: Path, size: int) -> list[tuple[str, Path, list[str]]]:
    """Issue 33's families: each (title, the input, the command's words before the input)."""
    rec = "game: sekigahara\n"
    spec = folder / "dup"
    spec.mkdir()
    clause = 'clause 1.1 "One"\n  const c: int = 1\n  define f(): int = c + d\nend\n'
    each = min(size, 2 * 1024 * 1024 - 4096)  # two files at the limit of one (4 MB in all)
    fill(spec / "a.rules", HEAD, clause, "", each)
    fill(spec / "b.rules", "", clause, "", each)
    chain = folder / "chain"
    chain.mkdir()
    (chain / "rules.rules").write_text(
        HEAD
        + 'clause 1.1 "One"\n  define f(x: bool): bool = '
        + " implies ".join(["x"] * 3_000)
        + "\nend\n"
    )
    doubling = folder / "doubling"
    doubling.mkdir()
    calls = "".join(
        f"  define f{k}(x: int): int = f{k - 1}(x) + f{k - 1}(x + 1)\n" for k in range(1, 21)
    )
    (doubling / "rules.rules").write_text(
        HEAD
        + 'clause 1.1 "One"\n  define f0(x: int): int = x + 1\n'
        + calls
        + '  property [big] "big": forall n: int in 0..3: f20(n) >= 0\nend\n'
    )
    return [
        (
            "item*9999 (notation)",
            fill(folder / "r1.rec", rec, "T deal tokugawa*9999,maeda*9999\n", "", size // 1000),
            ["check"],
        ),
        ("comment lines (convert)", fill(folder / "r2.rec", rec, "# c\n", "", size), ["convert"]),
        ("a legal game (compare)", ROOT / "examples" / "full-game.yaml", ["compare"]),
        ("repeated clause numbers", spec, ["spec", "check", "--spec"]),
        ("3,000 implies (spec check)", chain, ["spec", "check", "--spec"]),
        ("f calls g twice, 20 deep", doubling, ["prove", "--timeout", "1", "--spec"]),
        ("the same, no --timeout", doubling, ["prove", "--spec"]),
        ("--spec /proc", Path("/proc"), ["spec", "check", "--spec"]),
    ]


def huge_stack(path: Path) -> Path:
    """The rulebook's example of movement with forty blocks in Osaka: 2**40 groups."""
    text = (ROOT / "examples" / "movement-example.yaml").read_text()
    blocks = ", ".join(["ukita-2", "ukita-3", "mori-2", "mori-3"] * 10)
    head, _, _ = text.partition("      Sawayama:")
    head = head.replace(
        "Osaka: {ishida: [ukita-2, ukita-3, mori-2, mori-3, kobayakawa-2]}",
        f"Osaka: {{ishida: [{blocks}]}}",
    )
    path.write_text(
        head + "events:\n  - movement: {by: ishida, choice: total, cards: [ukita, mori]}\n"
    )
    return path


def judge(path: Path, extra: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak resident MB and exit code of ``referee check PATH`` (or of the
    command ``--command`` names; with ``--stdin``, the file on standard input)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = "check"
    if "--command" in extra:
        i = extra.index("--command")
        command, extra = extra[i + 1], extra[:i] + extra[i + 2 :]
    stdin = "--stdin" in extra
    extra = [x for x in extra if x != "--stdin"]
    # a command of several words (`spec check --spec`) takes the path after them
    words = command.split()
    argv = [sys.executable, "-m", "referee", *words, *([] if stdin else [str(path)]), *extra]
    start = time.perf_counter()
    saved = os.dup(0)
    try:
        if stdin:
            with path.open("rb") as f:
                os.dup2(f.fileno(), 0)
        pid = os.spawnve(os.P_NOWAIT, sys.executable, argv, env)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> int:
    size = LIMIT // 10 if "--quick" in sys.argv else LIMIT - 1024
    print(f"records of up to {size:,} bytes; target: under 60 s and 1,024 MB each")
    print(f"{'record':<34} {'bytes':>12} {'seconds':>8} {'peak MB':>8} {'exit':>5}")
    worst = 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        cases = records(Path(tmp), size)
        cases += [
            (t, p, ["--command", " ".join(command)])
            for t, p, command in round_three(Path(tmp), size)
        ]
        for title, path, extra in cases:
            with open(os.devnull, "w") as devnull:
                saved = os.dup(1), os.dup(2)
                os.dup2(devnull.fileno(), 1)
                os.dup2(devnull.fileno(), 2)
                try:
                    seconds, mb, code = judge(path, extra)
                finally:
                    os.dup2(saved[0], 1)
                    os.dup2(saved[1], 2)
            worst = max(worst[0], seconds), max(worst[1], mb)
            files = list(path.glob("*.rules")) if path.is_dir() else [path]
            size_of = sum(f.stat().st_size for f in files)
            print(f"{title:<34} {size_of:>12,} {seconds:>8.1f} {mb:>8.0f} {code:>5}")
    print(f"worst: {worst[0]:.1f} s, {worst[1]:.0f} MB")
    return 0 if worst[0] < 60 and worst[1] < 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
