"""referee prove: the spec's properties proved with z3, counterexamples written as records."""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from referee.commands.loading import _load
from referee.commands.options import (
    _SPEC_BAD,
    EXIT_ILLEGAL,
    EXIT_OK,
    _choice_options,
    _common,
    _emit,
    _usage,
)
from referee.compile.spec import _content_key
from referee.data import cache as disk
from referee.errors import RefereeError, Span
from referee.parse import ast
from referee.resolve.overlays import Choice, apply, in_force
from referee.verify.common import RLIMIT
from referee.verify.prover import Outcome, prove, slowest

HELP = (
    "Prove each property the spec declares, with z3, from the same definitions the\n"
    "referee evaluates: proved, failed with a counterexample and the clauses involved,\n"
    "skipped (it cannot be translated) or unknown (z3 gave no answer in time), each\n"
    "with the reason. -v adds the clauses each proof rests on.",
    ["referee prove", "referee prove --all-overlays", "referee prove --printing gmt-2011"],
    [
        "0  every property is proved",
        "1  a property fails (its counterexample is shown), is skipped or is unknown",
        _SPEC_BAD,
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee prove`."""
    _choice_options(p)
    p.add_argument(
        "--all-overlays",
        action="store_true",
        help="prove under every printing, and with each overlay off, naming what breaks",
    )
    p.add_argument(
        "--rlimit",
        type=_positive_rlimit,
        default=RLIMIT,
        metavar="UNITS",
        help="how much work (z3's resource units) each solver call of a proof may do before"
        f" the property is unknown: the same answer at any machine load (default {RLIMIT:,})",
    )
    p.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=None,
        metavar="SECONDS",
        help="a limit of time as well, for each solver call (none by default; from 0.001"
        " to 3600): the answer may then depend on the machine's load",
    )
    p.add_argument(
        "--counterexample-dir",
        default=None,
        metavar="DIR",
        help="write each failing step invariant's counterexample there, as a record file",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="ID",
        help="prove only this property (clause/label), or a clause's properties (repeatable)",
    )
    _common(p)


def _positive_seconds(text: str) -> float:
    """A --timeout: a number of seconds from a millisecond (z3's unit: less would be no limit
    at all) to an hour."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.001 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(
            f"expected seconds from 0.001 (a millisecond) to 3600 (an hour), got {text!r}"
        )
    return seconds


def _positive_rlimit(text: str) -> int:
    """A --rlimit: a whole number of z3's resource units, at least one."""
    try:
        units = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        units = 0
    if units < 1:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of units, 1 or more, got {text!r}"
        )
    return units


# What a process has proved already, by printing, overlays in force, work budget and the
# properties asked for: the same loaded spec (a changed file loads a new one) proved again
# under no time limit gives the same answer (z3's budget is counted in its own units, not in
# seconds), so it is given again at once, as a Python program or a test asking twice would
# wish. A --timeout's answer may depend on the machine's load: never kept.
_PROVED: dict[tuple[Any, ...], tuple[Any, list[Outcome]]] = {}


def cmd_prove(args: argparse.Namespace) -> int:
    spec = _load(args)
    # the properties, and the standing rules (proved as properties of their own)
    props = [d for d in spec.sym.labels.values() if isinstance(d, (ast.Property, ast.Whenever))]
    known = {f"{d.clause}/{d.name}" for d in props} | {d.clause for d in props}
    unknown = [i for i in args.property if i not in known]
    if unknown:
        return _usage(args, _no_such_property(unknown[0], props))
    if args.counterexample_dir is not None:
        problem = _unwritable_folder(args.counterexample_dir)
        if problem:
            return _usage(args, f"--counterexample-dir {args.counterexample_dir!r}: {problem}")
    runs: list[tuple[str, Choice]] = []
    if args.all_overlays and (args.printing or args.overlay or args.no_overlay):
        return _usage(
            args,
            "--all-overlays proves under every printing and with each overlay off in turn:"
            " give it alone, or --printing, --overlay and --no-overlay without it",
        )
    if args.all_overlays:
        runs = [(f"printing {p}", Choice(p)) for p in sorted(spec.sym.printings)]
        _, by_default = in_force(spec.sym, Choice(""), lambda _: Span("<command line>", 0, 0))
        # each overlay in force by default switched off (one in force only under another
        # printing is off already)
        runs += [
            (f"without {o.id}", Choice("", [], [o.id]))
            for o in sorted(by_default, key=lambda o: o.id)
        ]
    else:
        runs = [("", Choice(args.printing, list(args.overlay), list(args.no_overlay)))]
    report: list[dict[str, Any]] = []
    lines: list[str] = []
    unproved: list[str] = []
    forced = [in_force(spec.sym, c, lambda _: Span("<command line>", 0, 0)) for _, c in runs]
    entry = _entry_name(spec, args, forced)
    kept_on_disk = _kept(entry, args.timeout is not None, len(runs))
    cache: dict[str, Any] = {}  # proofs whose declarations the overlays do not touch
    runs_outcomes = kept_on_disk or [_proved(spec, args, p, o, cache) for p, o in forced]
    fresh = entry and not kept_on_disk and _storable(runs_outcomes, args.timeout is not None)
    if fresh and _entry_name(spec, args, forced) == entry:  # the files as they were proved
        disk.store(entry, json.dumps([[asdict(o) for o in r] for r in runs_outcomes]).encode())
    for (title, choice), (printing, overlays), outcomes in zip(
        runs, forced, runs_outcomes, strict=True
    ):
        head = title or f"printing {printing}"
        where = f" ({head})" if len(runs) > 1 else ""
        unproved += [f"{o.cites} {o.status}{where}" for o in outcomes if o.status != "proved"]
        lines.append(f"{head}; overlays in force: {len(overlays)}")
        for o in outcomes:
            if o.record:
                o.record = _replayed_as_proved(
                    o.record, spec.game.name if spec.game else "", printing, choice
                )
                if args.counterexample_dir is not None:
                    try:
                        tag = head if args.all_overlays else _run_tag(head, choice)
                        o.written = _write_counterexample(args.counterexample_dir, tag, o)
                    except OSError as err:
                        return _usage(
                            args, f"--counterexample-dir: cannot write there ({err.strerror})"
                        )
            lines.append("  " + o.line())
            if o.record and not o.written:
                shown = yaml.safe_dump(o.record, sort_keys=False, allow_unicode=True, width=100)
                lines += ["      " + ln for ln in shown.splitlines()]
            if args.verbose and o.clauses and o.status != "failed":
                lines.append(f"      rests on clauses: {', '.join(o.clauses)}")
        report.append({"run": head, "properties": [asdict(o) for o in outcomes]})
    total = sum(len(r["properties"]) for r in report)
    if any(o["reason"].startswith("z3 gave no answer") for r in report for o in r["properties"]):
        lines.append(
            f"hint: z3 had {args.timeout:g} s for each proof; a longer --timeout may let it answer"
            if args.timeout is not None
            else f"hint: z3 had {args.rlimit} units of work for each solver call;"
            " a larger --rlimit may let it answer"
        )
    if kept_on_disk:
        lines.append(
            "answered from the proof cache: the same spec, printing, overlays and options were"
            " proved before (REFEREE_NO_CACHE=1 proves again)"
        )
    timed = slowest([o for r in runs_outcomes for o in r])
    if timed:
        lines.append(timed)
    if unproved:
        lines.append(f"{len(unproved)} of {total} not proved: {'; '.join(unproved)}")
    else:
        lines.append(f"all {total} proved")
    _emit(args, {"runs": report}, "\n".join(lines))
    return EXIT_ILLEGAL if unproved else EXIT_OK


def _proved(
    spec: Any, args: argparse.Namespace, printing: str, overlays: list[Any], cache: dict[str, Any]
) -> list[Outcome]:
    """One run's outcomes: proved, or as this process proved them already (see _PROVED)."""
    key = (id(spec), printing, tuple(o.id for o in overlays), args.rlimit, frozenset(args.property))
    kept = _PROVED.get(key) if args.timeout is None else None
    if kept is not None and kept[0] is spec:
        return copy.deepcopy(kept[1])
    outcomes = prove(
        apply(spec.sym, overlays),
        spec.components.names(),
        None if args.timeout is None else int(args.timeout * 1000),
        collections=spec.components.collections,
        cache=cache,
        only=set(args.property),
        rlimit=args.rlimit,
        least_reads=False,  # reads that suffice (the mutation tool asks for the least)
    )
    if args.timeout is None:
        _PROVED[key] = (spec, copy.deepcopy(outcomes))
    return outcomes


# The proof cache on disk (referee/data/cache.py: signed, private to the user): a command's
# outcomes, under the digest of all that decides them: the spec's files, each run's printing
# and overlays in force, the properties asked for, the work budget, and the code that proves
# (the referee's own source, which the spec's content key covers; its version and z3's). A
# --timeout's answer is kept only where it is whole (nothing unknown), and one kept is taken
# under --timeout only then too.
PROOF_ENTRY = "proof-"


def _versions() -> list[str]:
    """The referee's version and z3's."""
    import z3

    from referee import __version__

    return [__version__, z3.get_full_version()]


def _entry_name(spec: Any, args: argparse.Namespace, forced: list[Any]) -> str:
    """The disk cache entry of this command's proofs; "" with no disk cache."""
    if not disk.enabled():
        return ""
    try:
        data = Path(args.data) if args.data else None
        what = [
            _content_key(spec.game_dir, data),  # the referee's own code included
            _versions(),
            [[printing, [o.id for o in overlays]] for printing, overlays in forced],
            sorted(args.property),
            args.rlimit,
        ]
    except (OSError, RefereeError):
        return ""
    digest = hashlib.sha256(json.dumps(what).encode()).hexdigest()[:32]
    return f"{PROOF_ENTRY}{digest}{disk.ENTRY_SUFFIX}"


def _kept(entry: str, timed: bool, runs: int) -> list[list[Outcome]]:
    """The outcomes the entry keeps (none where there is no such entry, or, under a
    --timeout, where one of them is unknown: that is proved again)."""
    payload = disk.load(entry) if entry else None
    if payload is None:
        return []
    try:
        kept = [[Outcome(**o) for o in run] for run in json.loads(payload)]
    except (ValueError, TypeError):  # an entry of another shape: proved again
        return []
    return kept if len(kept) == runs and _storable(kept, timed) else []


def _storable(runs: list[list[Outcome]], timed: bool) -> bool:
    """Whether outcomes may be kept (or, kept, taken): all of them, but under a --timeout only
    where none is unknown (a time limit's answer may depend on the machine's load)."""
    return not timed or all(o.status != "unknown" for r in runs for o in r)


def _replayed_as_proved(
    record: dict[str, Any], game: str, printing: str, choice: Choice
) -> dict[str, Any]:
    """A counterexample's record names the game, the printing and the overlays switched on
    or off of the run that found it, so that `referee check` replays it under the same."""
    head: dict[str, Any] = {"game": game, "printing": printing}
    if choice.on:
        head["overlays"] = list(choice.on)
    if choice.off:
        head["no_overlays"] = list(choice.off)
    return {**head, **{k: v for k, v in record.items() if k not in head}}


def _no_such_property(name: str, props: list[ast.Property | ast.Whenever]) -> str:
    """What to say of a --property the spec does not declare: the properties of its clause,
    or the nearest names."""
    clause = name.split("/", 1)[0]
    own = sorted(f"{d.clause}/{d.name}" for d in props if d.clause == clause)
    if own:
        said = ", ".join(own[:12]) + (f", ... {len(own) - 12} more" if len(own) > 12 else "")
        return f"no property {name!r}; clause {clause} declares {said}"
    names = sorted({f"{d.clause}/{d.name}" for d in props} | {d.clause for d in props})
    close = difflib.get_close_matches(name, names, n=3)
    near = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return (
        f"no property {name!r}{near} (name one as clause/label, or a clause that declares"
        " properties: `referee prove` with no --property lists them all)"
    )


def _unwritable_folder(folder: str) -> str:
    """Why counterexamples cannot be written to the folder (created if need be), or ""."""
    if not folder.strip():
        return "give a folder"
    where = Path(folder)
    if where.exists() and not where.is_dir():
        return "it is a file, not a folder"
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return f"cannot make the folder ({err.strerror})"
    if not os.access(where, os.W_OK | os.X_OK):
        return "the folder cannot be written to"
    return ""


def _run_tag(head: str, choice: Choice) -> str:
    """A run's name in a counterexample's file name: the printing, and each overlay
    switched on or off, so that two runs do not write the same file."""
    return " ".join(
        [head, *(f"with {o}" for o in choice.on), *(f"without {o}" for o in choice.off)]
    )


def _write_counterexample(folder: str, run: str, o: Outcome) -> str:
    """A failing invariant's record file, named by the property (and the run)."""
    where = Path(folder)
    where.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{o.clause}-{o.label}-{run}").strip("-")
    path = where / f"{tag}.yaml"
    path.write_text(yaml.safe_dump(o.record, sort_keys=False, allow_unicode=True, width=100))
    return str(path)
