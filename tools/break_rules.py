"""Breaking the rules on purpose: does `referee prove` notice? (issue 34)

A developer's tool, not part of the referee's command line. The suite (tools/breaks/, one
YAML file a change) holds small, deliberate changes of the Sekigahara spec, each written by a
reader of the rulebook who did not write the spec's properties: a road segment usable twice,
an overrun that destroys nothing, a castle that holds three blocks, the battle's loser
computed backwards... Each entry names the clause it breaks, says in one line what the
broken referee does, gives the edit (a file under referee/games/sekigahara/, the exact text
it changes, which must occur there once, and the text that replaces it), and one or more
records whose verdicts under the real spec and the broken one it states, and which differ.

For each change the tool copies referee/games to a temporary folder (tools/mutate.py's copy),
applies the edit and then, in a process of its own under a time limit:

1. ``referee spec check`` on the copy: it must pass (a change the checker rejects says
   nothing of the proofs);
2. every record under the real spec and under the copy: each verdict must be the one the
   entry states, and the two must differ (else the change is equivalent and proves nothing);
3. ``referee prove`` on the copy (unless --no-prove): the goal is that it FAILS; the
   properties that failed are reported, and a change it proves anyway is a miss.

Run from the repository's root (see docs/mutation.md, "Breaking the rules"):

    python tools/break_rules.py --no-prove          # the verdicts alone: fast
    python tools/break_rules.py --ids castle-holds-three,loser-backwards --jobs 2
    python tools/break_rules.py --format json > breaks.json

Exit codes: 0 when every change passed the checker and changed its verdicts as stated (and,
with prove, prove failed on every one); 1 when one did not; 2 on a bad entry or usage.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))  # this checkout's referee, not an installed one
sys.path.insert(1, str(ROOT / "tools"))

from mutate import Mutant, _first_line, _line_col, _quiet, _relative, write_mutant  # noqa: E402

SUITE = ROOT / "tools" / "breaks"
GAME = "sekigahara"
KINDS = ("constant", "definition", "requirement", "effect", "standing", "data")
FIELDS = ("id", "clause", "kind", "description", "edit", "records")
RECORD_FIELDS = ("name", "real", "broken", "record")


class BadEntry(Exception):
    """An entry of the suite that cannot be used: said to a person, exit 2."""


# ---------------------------------------------------------------- the suite


@dataclass
class Record:
    name: str
    real: str  # the verdict the real spec gives, as verdict() writes it
    broken: str  # and the broken one
    record: dict[str, Any]


@dataclass
class Change:
    id: str
    clause: str
    kind: str
    description: str
    file: str  # under referee/games/sekigahara/
    old: str
    new: str
    records: list[Record]
    source: str  # the entry's file, relative to the repository

    def mutant(self, number: int = 1) -> Mutant:
        """The edit as tools/mutate.py's one change of one file."""
        rel = f"{GAME}/{self.file}"
        text = (games_root() / rel).read_text(encoding="utf-8")
        start = text.find(self.old)
        line, col = _line_col(text, start)
        return Mutant(
            number,
            self.kind,
            self.clause,
            self.id,
            rel,
            line,
            col,
            start,
            start + len(self.old),
            self.old,
            self.new,
            self.description,
        )


def games_root() -> Path:
    from referee.resources import games_root as root

    return root()


def _need(entry: dict[str, Any], key: str, where: str, kind: type = str) -> Any:
    value = entry.get(key)
    if not isinstance(value, kind) or (isinstance(value, str | list) and not value):
        raise BadEntry(f"{where}: '{key}' must be a non-empty {kind.__name__}")
    return value


def load_change(path: Path) -> Change:
    """One entry of the suite, checked: every field there, the edit's old text found exactly
    once in its file, the records' verdicts written as verdict() writes them."""
    where = _relative(path)
    try:
        entry = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise BadEntry(f"{where}: not YAML: {err}") from None
    if not isinstance(entry, dict):
        raise BadEntry(f"{where}: an entry is a mapping of {', '.join(FIELDS)}")
    unknown = set(entry) - set(FIELDS)
    if unknown:
        raise BadEntry(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    cid = _need(entry, "id", where)
    if cid != path.stem:
        raise BadEntry(f"{where}: id '{cid}' does not match the file's name")
    kind = _need(entry, "kind", where)
    if kind not in KINDS:
        raise BadEntry(f"{where}: kind '{kind}' is not one of {', '.join(KINDS)}")
    edit = _need(entry, "edit", where, dict)
    file, old, new = (
        _need(edit, k, f"{where}: edit", str) if k != "new" else edit.get(k)
        for k in ("file", "old", "new")
    )
    if not isinstance(new, str) or new == old:
        raise BadEntry(f"{where}: edit: 'new' must be text that differs from 'old'")
    target = games_root() / GAME / file
    if not target.is_file():
        raise BadEntry(f"{where}: edit: no file referee/games/{GAME}/{file}")
    found = target.read_text(encoding="utf-8").count(old)
    if found != 1:
        raise BadEntry(
            f"{where}: edit: the old text occurs {found} times in {file}; it must occur once"
        )
    records = []
    for i, r in enumerate(_need(entry, "records", where, list), 1):
        rwhere = f"{where}: record {i}"
        if not isinstance(r, dict) or set(r) - set(RECORD_FIELDS):
            raise BadEntry(f"{rwhere}: a record is a mapping of {', '.join(RECORD_FIELDS)}")
        real, broken = _need(r, "real", rwhere), _need(r, "broken", rwhere)
        for v in (real, broken):
            if not _VERDICT_SHAPES(v):
                raise BadEntry(
                    f"{rwhere}: verdict '{v}' is not 'legal', 'illegal CLAUSE[/LABEL] at event N'"
                    " or 'miss CLAUSE at event N'"
                )
        if real == broken:
            raise BadEntry(f"{rwhere}: the real and broken verdicts stated are the same")
        records.append(
            Record(_need(r, "name", rwhere), real, broken, _need(r, "record", rwhere, dict))
        )
    return Change(
        cid,
        str(_need(entry, "clause", where)),
        kind,
        _need(entry, "description", where),
        file,
        old,
        new,
        records,
        where,
    )


def _VERDICT_SHAPES(v: str) -> bool:  # noqa: N802 - read as a predicate of shapes
    words = v.split()
    if words == ["legal"]:
        return True
    return (
        len(words) == 5
        and words[0] in ("illegal", "miss")
        and words[2:4] == ["at", "event"]
        and words[4].isdigit()
    )


def load_suite(folder: Path = SUITE) -> list[Change]:
    changes = [load_change(p) for p in sorted(folder.glob("*.yaml"))]
    seen: set[str] = set()
    for c in changes:
        if c.id in seen:
            raise BadEntry(f"{c.source}: id '{c.id}' is used twice")
        seen.add(c.id)
    return changes


# ---------------------------------------------------------------- judging one change (a child)


def verdict(v: Any) -> str:
    """A record's verdict in one line: legal; or its first refusal, 'illegal CLAUSE/LABEL at
    event N'; or its first expectation missed, 'miss CLAUSE at event N'."""
    if v.legal:
        return "legal"
    first = v.violations[0]
    if first.kind == "expectation":
        # an outcome expected to happen (or not) cites no clause
        return f"miss {first.clause or 'happened'} at event {first.index}"
    cites = f"{first.clause}/{first.label}" if first.label else str(first.clause)
    return f"illegal {cites} at event {first.index}"


def judge_records(game_dir: Path | None, change: Change, tmp: Path) -> list[str]:
    """Each record's verdict under the spec in game_dir (None: the real, bundled spec)."""
    paths = []
    for i, r in enumerate(change.records, 1):
        path = tmp / f"{change.id}-{i}.yaml"
        path.write_text(yaml.safe_dump(r.record, sort_keys=False), encoding="utf-8")
        paths.append(path)
    return judge_files(game_dir, paths)


def judge_files(game_dir: Path | None, paths: list[Path]) -> list[str]:
    """Each record file's verdict under the spec in game_dir (None: the real one); a record
    that names a printing or overlays (a counterexample prove wrote) is judged under them."""
    from referee.compile.spec import load_spec
    from referee.errors import RefereeError
    from referee.resolve.overlays import Choice
    from referee.run.replay import check_one

    spec = load_spec(game_dir) if game_dir else load_spec()
    out = []
    for path in paths:
        try:
            out.append(verdict(check_one(spec, path, Choice(), False, offer=False)))
        except RefereeError as err:
            out.append(f"error: {_first_line(err.render())}")
    return out


def judge(
    source: Path,
    game_dir: Path,
    prove: bool,
    prove_timeout: float = 0,
    properties: tuple[str, ...] = (),
    then_all: bool = False,
) -> None:
    """Judge one change already written into game_dir, printing one JSON line per stage.
    With ``then_all``, the properties named are only tried first: where none of them fails,
    every property is proved (the same answer as proving all at once, sooner where one of
    the first fails).
    prove runs under its own budget of z3's work (the same answer at any load), with a time
    limit a solver call only where ``prove_timeout`` is given, and on ``properties`` alone
    where they are named."""

    def say(**kw: Any) -> None:
        print(json.dumps(kw), flush=True)

    change = load_change(source)
    code, out = _quiet(["spec", "check", "--spec", str(game_dir)])
    say(stage="checker", ok=code == 0, why="" if code == 0 else _first_line(out))
    if code != 0:
        return
    with tempfile.TemporaryDirectory(prefix="break-records-") as tmp:
        real = judge_records(None, change, Path(tmp))
        broken = judge_records(game_dir, change, Path(tmp))
    say(stage="records", real=real, broken=broken)
    if prove:
        with tempfile.TemporaryDirectory(prefix="break-cx-") as cx:
            cmd = ["prove", "--spec", str(game_dir), "--counterexample-dir", cx]
            cmd += ["--timeout", str(prove_timeout)] if prove_timeout else []
            code, out = _quiet(cmd + [f"--property={p}" for p in properties])
            status = _statuses(out)
            if then_all and properties and "failed" not in status.values() and code in (0, 1):
                code, out = _quiet(cmd)
                status = _statuses(out)
            # each counterexample written (a step property's), replayed under both specs
            written = sorted(Path(cx).glob("*.yaml"))
            replays = [
                {"record": f.name, "broken": b, "real": r}
                for f, b, r in zip(
                    written, judge_files(game_dir, written), judge_files(None, written), strict=True
                )
            ]
        say(
            stage="prove",
            code=code,
            failed=[p for p, s in status.items() if s == "failed"],
            unsure=[f"{p} {s}" for p, s in status.items() if s in ("unknown", "skipped")],
            why="" if code in (0, 1) else _first_line(out),
            replays=replays,
        )


def _statuses(out: str) -> dict[str, str]:
    """What prove's text output says of each property: its name and the word after it."""
    found = {}
    for ln in out.splitlines():
        words = ln.split()
        if ln.startswith("  ") and len(words) >= 2 and "/" in words[0]:
            found[words[0]] = words[1].rstrip(":")
    return found


# ---------------------------------------------------------------- running the suite (the parent)


@dataclass
class Result:
    change: Change
    checker: bool = False  # the broken spec passed `referee spec check`
    why: str = ""  # what went wrong, for a person
    real: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    # caught (a property failed), missed (all proved), unsure (none failed, some unknown or
    # skipped), timeout, error, not run
    prove: str = "not run"
    properties: list[str] = field(default_factory=list)  # those that failed (or were unsure)
    # the counterexamples prove wrote (a step property's), each replayed: the record's file,
    # its verdict under the broken spec, and under the real one
    replays: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def replayed(self) -> list[str]:
        """The counterexamples judged otherwise under the broken spec and the real one: an
        invariant's misses its expectation under the broken spec; a property's after an action
        (which reads the position before the event, and no expect: states) is allowed by the
        broken spec and refused by the real one; neither fails to load."""
        return [
            r["record"]
            for r in self.replays
            if r["real"] != r["broken"]
            and not (r["real"] + r["broken"]).startswith("error")
            and not r["broken"].startswith("error")
        ]

    @property
    def as_stated(self) -> bool:
        """Every record judged as the entry states, real and broken (which differ)."""
        return (
            self.checker
            and self.real == [r.real for r in self.change.records]
            and self.broken == [r.broken for r in self.change.records]
        )

    @property
    def verdict_changing(self) -> bool:
        return self.checker and any(a != b for a, b in zip(self.real, self.broken, strict=True))

    def as_json(self) -> dict[str, Any]:
        c = self.change
        return {
            "id": c.id,
            "clause": c.clause,
            "kind": c.kind,
            "description": c.description,
            "file": c.file,
            "checker": self.checker,
            "as_stated": self.as_stated,
            "verdict_changing": self.verdict_changing,
            "records": [
                {"name": r.name, "stated": [r.real, r.broken], "got": [a, b]}
                for r, a, b in zip(
                    c.records,
                    self.real or [""] * len(c.records),
                    self.broken or [""] * len(c.records),
                    strict=True,
                )
            ],
            "prove": self.prove,
            "properties": self.properties,
            "replays": self.replays,
            "replayed": self.replayed,
            "why": self.why,
            "seconds": round(self.seconds, 1),
        }


def run_change(
    change: Change,
    prove: bool,
    timeout: float,
    prove_timeout: float = 0,
    properties: tuple[str, ...] = (),
    then_all: bool = False,
) -> Result:
    """One change, judged in a process of its own under a time limit; with ``properties``,
    prove runs on those alone (a change is caught when one of them fails)."""
    started = time.monotonic()
    result = Result(change)
    with tempfile.TemporaryDirectory(prefix="break-") as tmp:
        game_dir = write_mutant(change.mutant(), Path(tmp), GAME)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--judge", change.source]
        cmd += ["--game-dir", str(game_dir), "--prove-timeout", str(prove_timeout)]
        cmd += [] if prove else ["--no-prove"]
        for p in properties:
            cmd += ["--property", p]
        cmd += ["--then-all"] if then_all else []
        env = {**os.environ, "REFEREE_NO_CACHE": "1", "PYTHONPATH": str(ROOT)}
        try:
            done = subprocess.run(
                cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
            )
            out, err, code = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
            err, code = "", None
    for ln in (json.loads(x) for x in out.splitlines() if x.startswith("{")):
        if ln["stage"] == "checker":
            result.checker = ln["ok"]
            result.why = ln["why"] and f"the checker rejects it: {ln['why']}"
        elif ln["stage"] == "records":
            result.real, result.broken = ln["real"], ln["broken"]
        elif ln["stage"] == "prove":
            # caught: a property failed; unsure: none failed, but some were unknown or
            # skipped (not a catch: the answer may depend on the machine's load)
            result.properties = ln["failed"] or ln["unsure"]
            result.replays = ln.get("replays", [])
            result.prove = "caught" if ln["failed"] else "unsure" if ln["unsure"] else "missed"
            if ln["why"]:
                result.prove, result.why = "error", f"prove: {ln['why']}"
    if code is None:
        stage = "prove" if result.real else "the records"
        result.prove = "timeout" if result.real else result.prove
        result.why = result.why or f"no verdict in {timeout:.0f} s (during {stage})"
    elif code != 0:
        result.why = result.why or f"the judge failed: {_first_line(err[-2000:])}"
    elif result.checker and not result.as_stated:
        result.why = "; ".join(
            f"record {i} ({r.name}): stated {r.real} / {r.broken}, got {a} / {b}"
            for i, (r, a, b) in enumerate(
                zip(change.records, result.real, result.broken, strict=True), 1
            )
            if (a, b) != (r.real, r.broken)
        )
    result.seconds = time.monotonic() - started
    return result


def summary(results: list[Result], proved: bool) -> str:
    n = len(results)
    changing = sum(r.as_stated and r.verdict_changing for r in results)
    line = f"{n} changes, {changing} verdict-changing as stated"
    if proved:
        caught = sum(r.prove == "caught" for r in results)
        line += f", {caught} caught by prove ({n - caught} missed)"
        shown = sum(r.prove == "caught" and bool(r.replayed) for r in results)
        line += f", {shown} of them with a counterexample record that replays to the miss"
    return line


def render_text(results: list[Result], proved: bool) -> str:
    lines = []
    for r in results:
        c = r.change
        state = "ok" if r.as_stated and r.verdict_changing else "BAD"
        tail = f"  prove: {r.prove}" if proved else ""
        if r.properties:
            tail += f" ({', '.join(r.properties)})"
        if r.replays:
            tail += f"; {len(r.replayed)} of {len(r.replays)} counterexample(s) replay"
        lines.append(f"{c.id:<32} {c.clause:<7} {c.kind:<11} verdicts {state}{tail}")
        if r.why:
            lines.append(f"    {r.why}")
    missed = [r for r in results if proved and r.prove != "caught"]
    if missed:
        lines.append("not caught by prove:")
        lines += [f"  {r.change.id} ({r.change.clause}): {r.change.description}" for r in missed]
    lines.append(summary(results, proved))
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(results: list[Result], proved: bool) -> str:
    """The figure, the changes prove misses (each with the record that shows the break), then
    every change: tables for docs/mutation.md."""

    def shows(c: Change) -> str:
        r = c.records[0]
        return _cell(f"{r.name}: {r.real} (real), {r.broken} (broken)")

    def edit(c: Change) -> str:
        old, new = (" ".join(x.split()) or "(nothing)" for x in (c.old, c.new))
        return _cell(f"{c.file}: `{old}` → `{new}`")

    lines = [summary(results, proved) + ".", ""]
    missed = [r for r in results if proved and r.prove != "caught"]
    if missed:
        lines += ["Not caught by prove (each entry is tools/breaks/ID.yaml):", ""]
        lines += ["| id | clause | the broken referee | the edit | a record that shows it |"]
        lines += ["|---|---|---|---|---|"]
        for r in missed:
            c = r.change
            unsure = f" (prove: {r.prove}: {', '.join(r.properties)})" if r.properties else ""
            lines.append(
                f"| {c.id} | {c.clause} | {_cell(c.description)}{unsure} | {edit(c)} | {shows(c)} |"
            )
        lines.append("")
    lines += ["| id | clause | kind | the broken referee | prove |", "|---|---|---|---|---|"]
    for r in results:
        c = r.change
        said = r.prove + (f": {', '.join(r.properties)}" if r.properties else "")
        if r.replays:
            said += f" ({len(r.replayed)} of {len(r.replays)} counterexample records replay)"
        lines.append(f"| {c.id} | {c.clause} | {c.kind} | {_cell(c.description)} | {said} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python tools/break_rules.py",
        description="Deliberate breaks of the spec's rules: each must change a record's verdict,"
        " and `referee prove` should fail on each.",
    )
    p.add_argument("--ids", default="", help="only these changes (their ids, comma-separated)")
    p.add_argument("--jobs", type=int, default=1, help="changes judged at once (default 1)")
    p.add_argument("--timeout", type=float, default=600, help="seconds a change may take")
    p.add_argument("--no-prove", action="store_true", help="the checker and the records only")
    p.add_argument(
        "--prove-timeout",
        type=float,
        default=0,
        help="prove's --timeout, seconds a solver call may take (default none: prove's budget"
        " is z3's work, the same answer at any load)",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="ID",
        help="prove only this property (clause/label, or a clause), repeatable: a change is"
        " caught when one of them fails",
    )
    p.add_argument(
        "--likely-first",
        action="store_true",
        help="for each change, prove first the properties likely to catch it (those whose proof"
        " of the real spec read a name its edit changes, and its clause's), then, where none"
        " fails, every property: the same figure as proving all, sooner",
    )
    p.add_argument("--then-all", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--suite", type=Path, default=SUITE, help="the folder of entries")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.add_argument(
        "--load",
        type=Path,
        metavar="FILE",
        help="judge none: show a run saved with --format json (its changes still in the suite)",
    )
    p.add_argument("--judge", type=Path, help=argparse.SUPPRESS)  # the child: one change
    p.add_argument("--game-dir", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.judge:
        judge(
            args.judge,
            args.game_dir,
            not args.no_prove,
            args.prove_timeout,
            tuple(args.property),
            args.then_all,
        )
        return 0
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if not args.suite.is_dir():
        p.error(f"no folder {args.suite}")
    try:
        changes = load_suite(args.suite)
    except BadEntry as err:
        print(f"break_rules: {err}", file=sys.stderr)
        return 2
    ids = [x.strip() for x in args.ids.split(",") if x.strip()]
    unknown = set(ids) - {c.id for c in changes}
    if unknown:
        p.error(f"no such change: {', '.join(sorted(unknown))}")
    chosen = [c for c in changes if not ids or c.id in ids]
    if args.load:
        try:
            results = load_results(args.load, chosen)
        except (OSError, ValueError, KeyError, TypeError) as err:
            print(f"break_rules: {args.load}: not a saved run: {err}", file=sys.stderr)
            return 2
        show(args.format, results, any(r.prove != "not run" for r in results))
        return 0
    proving = not args.no_prove
    if args.likely_first and args.property:
        p.error("--likely-first chooses the properties itself: give it without --property")
    reads = real_reads() if proving and args.likely_first else {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(
                run_change,
                c,
                proving,
                args.timeout,
                args.prove_timeout,
                likely(c, reads) if reads else tuple(args.property),
                bool(reads),
            )
            for c in chosen
        ]
        results = []
        for i, f in enumerate(futures, 1):
            r = f.result()
            results.append(r)
            print(
                f"[{i}/{len(chosen)}] {r.change.id}: verdicts "
                f"{'ok' if r.as_stated and r.verdict_changing else 'BAD'}"
                f"{', prove ' + r.prove if proving else ''}"
                f"{' (' + ', '.join(r.properties) + ')' if r.properties else ''}"
                f" ({r.seconds:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    show(args.format, results, proving)
    bad = any(not (r.as_stated and r.verdict_changing) for r in results)
    missed = proving and any(r.prove != "caught" for r in results)
    return 1 if bad or missed else 0


def real_reads() -> dict[str, set[str]]:
    """What each property's proof of the real spec read (prove's JSON ``reads``), by the
    property's clause/label: one run of prove."""
    code, out = _quiet(["prove", "--format", "json"])
    if code not in (0, 1):
        raise SystemExit(f"break_rules: prove of the real spec failed: {_first_line(out)}")
    runs = json.JSONDecoder().raw_decode(out[out.index("{") :])[0]["result"]["runs"]
    return {
        f"{p['clause']}/{p['label']}": {r.split(" [")[0] for r in p["reads"]}
        for p in runs[0]["properties"]
    }


def likely(change: Change, reads: dict[str, set[str]]) -> tuple[str, ...]:
    """The properties likely to catch a change: those of its clause, and those whose proof
    read a name its edit's old or new text holds (a hint only: --then-all proves the rest)."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", change.old + " " + change.new))
    return tuple(
        sorted(
            c
            for c, names in reads.items()
            if c.split("/")[0] == change.clause or words & {n.split("/")[-1] for n in names}
        )
    )


def show(form: str, results: list[Result], proving: bool) -> None:
    if form == "json":
        print(
            json.dumps(
                {"summary": summary(results, proving), "changes": [r.as_json() for r in results]},
                indent=2,
            )
        )
    elif form == "markdown":
        print(render_markdown(results, proving))
    else:
        print(render_text(results, proving))


def load_results(path: Path, changes: list[Change]) -> list[Result]:
    """A run saved with --format json, for the changes given that it holds (a change since
    dropped from the suite, or one whose run failed to load its entry, is left out)."""
    saved = {c["id"]: c for c in json.loads(path.read_text(encoding="utf-8"))["changes"]}
    out = []
    for change in changes:
        got = saved.get(change.id)
        if got is None or not got["records"] or not got["records"][0]["got"][0]:
            continue
        out.append(
            Result(
                change,
                checker=got["checker"],
                why=got["why"],
                real=[r["got"][0] for r in got["records"]],
                broken=[r["got"][1] for r in got["records"]],
                prove=got["prove"],
                properties=got["properties"],
                replays=got.get("replays", []),
                seconds=got["seconds"],
            )
        )
    return out


if __name__ == "__main__":
    sys.exit(main())
