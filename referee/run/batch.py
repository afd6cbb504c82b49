"""Check many records at once, on every core, and sum up what was found."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from referee.compile.spec import Spec
from referee.data.limits import forget_listed
from referee.data.walk import Skipped, walk
from referee.errors import RefereeError, Span, fail
from referee.records.notation import SUFFIX as NOTATION_SUFFIX
from referee.records.record import is_stdin, keep_stdin, read_stdin_once, record_name
from referee.resolve.overlays import Choice
from referee.run.replay import check_record, render
from referee.run.verdict import Verdict

SUFFIXES = (".yaml", ".yml", ".json", NOTATION_SUFFIX)
T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Result:
    file: str
    verdict: Verdict | None = None
    error: RefereeError | None = None
    # a result kept as text alone (``check_many``'s ``as_text``), so that a batch holds a
    # few words a record, not its verdict: its status, its text ("" where it is not shown)
    # and what its first violation cites
    brief: tuple[str, str, str] | None = None

    @property
    def status(self) -> str:
        if self.brief is not None:
            return self.brief[0]
        if self.error is not None:
            return "bad input"
        assert self.verdict is not None
        return "legal" if self.verdict.legal else "illegal"

    def as_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {
                "file": self.file,
                "status": "bad input",
                "errors": [p.as_json() for p in self.error.problems],
            }
        assert self.verdict is not None
        return self.verdict.as_json()

    def text(self) -> str:
        if self.brief is not None:
            return self.brief[1]
        if self.error is not None:
            return self.error.render()
        assert self.verdict is not None
        return render(self.verdict)


def expand(paths: list[Path]) -> tuple[list[Path], list[Skipped]]:
    """Files as given; folders become the records below them, in order, with what was
        passed over and why (not a regular file, a link that leads nowhere or out of the folder,
        a folder that cannot be read or is too deep). Links are not followed out of the folder
        given. A file named twice (a folder and a folder inside it, say) is judged once. ``-`` is
    standard input, whatever the working directory holds."""
    out: list[Path] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for p in paths:
        found = walk(p, SUFFIXES, skipped) if p.is_dir() and not is_stdin(p) else [p]
        for f in found:
            key = "-" if is_stdin(f) else os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out, skipped


# How a result is kept as text: (explain, show the trace, show a legal record's verdict too)
AsText = tuple[bool, bool, bool]
_WORKER: tuple[Spec, Choice, bool, bool, AsText | None] | None = None


def cores() -> int:
    """The cores this process may run on (``taskset`` and a container's limit count), for
    the number of worker processes."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity where the system has none (macOS)
        return os.cpu_count() or 1


def _init(
    spec: Spec,
    choice: Choice,
    keep_going: bool,
    offer: bool = False,
    stdin: str | RefereeError | None = None,
    as_text: AsText | None = None,
) -> None:
    global _WORKER
    _WORKER = (spec, choice, keep_going, offer, as_text)
    keep_stdin(stdin)  # standard input as the batch read it: a worker's own is not the record


def _one(path: Path) -> Result:
    assert _WORKER is not None
    spec, choice, keep_going, offer, as_text = _WORKER
    try:
        verdict = check_record(spec, path, choice, keep_going, offer)
        result = Result(record_name(path), verdict=verdict)
    except RefereeError as err:
        result = Result(record_name(path), error=err)
    return result if as_text is None else _as_text(result, *as_text)


def _as_text(result: Result, explain: bool, trace: bool, every: bool) -> Result:
    """The result as its text alone, rendered where it is judged (once: a result already
    kept as text is kept as it is)."""
    if result.brief is not None:
        return result
    verdict, status = result.verdict, result.status
    if verdict is not None:
        verdict.explain = verdict.explain or explain
        verdict.show_trace = trace
    shown = result.text() if status != "legal" or every else ""
    cites = verdict.violations[0].cites if verdict is not None and verdict.violations else ""
    return Result(result.file, brief=(status, shown, cites))


def check_many(
    spec: Spec,
    paths: list[Path],
    choice: Choice,
    keep_going: bool,
    progress: bool,
    offer: bool = False,
    as_text: AsText | None = None,
) -> list[Result]:
    """Judge every record, in processes of their own (one per core); results in the given
    order. A record that crashes, hangs or poisons its process is reported as such, with
    every other record judged. ``-`` (standard input) is read here, before the workers
    start, and judged like the files. With ``as_text``, each result is kept as its text
    alone (see ``_as_text``): the batch's memory then grows with its cores, hardly with its
    records."""
    stdin = read_stdin_once() if any(is_stdin(p) for p in paths) else None
    total = len(paths)
    done = [0]

    def tick() -> None:
        done[0] += 1
        _tick(None, done[0] - 1, total, progress, "records")

    workers = max(1, min(cores(), total))
    setup = (spec, choice, keep_going, offer, stdin, as_text)
    from referee.run.pool import run_guarded  # processes: not for one record's check

    try:
        outcomes = run_guarded(_one, paths, _init, setup, workers, tick)
    finally:
        forget_listed()  # the folder's listing, checked against each file read, is done with
    results = [
        value
        if status == "ok"
        else Result(record_name(p), error=fail(Span(record_name(p), 0, 0), value))
        for p, (status, value) in zip(paths, outcomes, strict=True)
    ]
    return results if as_text is None else [_as_text(r, *as_text) for r in results]


def on_every_core(
    work: Callable[[T], R],
    items: list[T],
    setup: Callable[..., None],
    args: tuple[Any, ...],
    progress: bool,
    what: str,
) -> list[R]:
    """``work`` on every item, in a process per core when there are many (each process
    ``setup(*args)`` first); the results in the items' order, with a progress bar if asked."""
    workers = min(cores(), len(items))
    if workers < 2 or len(items) < 8:
        setup(*args)
        return [_tick(work(x), i, len(items), progress, what) for i, x in enumerate(items)]
    from concurrent.futures import ProcessPoolExecutor  # as above

    with ProcessPoolExecutor(workers, initializer=setup, initargs=args) as pool:
        return [
            _tick(r, i, len(items), progress, what)
            for i, r in enumerate(
                pool.map(work, items, chunksize=max(1, len(items) // (workers * 8)))
            )
        ]


def _tick(result: R, i: int, total: int, progress: bool, what: str) -> R:
    if progress:
        done = i + 1
        bar = "#" * (30 * done // total)
        sys.stderr.write(f"\r[{bar:<30}] {done}/{total} {what}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return result


def summary(results: list[Result], skipped: list[Skipped] | None = None) -> dict[str, Any]:
    statuses = Counter(r.status for r in results)
    by_clause = Counter(c for c in map(_first_cites, results) if c)
    return {
        "records": len(results),
        "legal": statuses["legal"],
        "illegal": statuses["illegal"],
        "bad input": statuses["bad input"],
        "skipped": len(skipped or []),
        "illegal by clause": dict(sorted(by_clause.items())),
    }


def _first_cites(r: Result) -> str:
    """What a result's first violation cites, if it has one."""
    if r.brief is not None:
        return r.brief[2]
    return r.verdict.violations[0].cites if r.verdict is not None and r.verdict.violations else ""


def render_summary(s: dict[str, Any]) -> str:
    counts = f"{s['legal']} legal, {s['illegal']} illegal, {s['bad input']} bad input"
    if s.get("skipped"):
        counts += f"; {s['skipped']} skipped"
    lines = [f"{s['records']} records: {counts}"]
    if s["illegal by clause"]:
        width = max(len(c) for c in s["illegal by clause"])
        lines.append("illegal, by the clause the first illegal event breaks:")
        lines += [f"  {c:<{width}}  {n}" for c, n in s["illegal by clause"].items()]
    return "\n".join(lines)
