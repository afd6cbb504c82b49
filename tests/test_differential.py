"""The compiled rules against the reference interpreter (issue 28, 2).

The referee judges with the checked rules compiled once into closures, and keeps the
definitions' values until a cell they read is written; the reference interpreter walks the
tree at every evaluation and keeps no value that read game state. Both judge every record of examples/ and tests/
(the readings included) and at least 200 random games, and must agree on everything a
verdict says: legal or not, each violation's clause, label, message and numbers, the overlays
relied on, the standing rules that fired, every outcome told with its numbers, and the
problems of a record that does not read. Each test judges many records in one process.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.compile import closures
from referee.compile.interp import Evaluator
from referee.compile.spec import SPEC_ROOT, Spec, load_spec, reference_interpreter
from referee.errors import RefereeError
from referee.parse import ast
from referee.records.record import RecordText
from referee.resolve.overlays import Choice
from referee.run.play import as_yaml, play
from referee.run.replay import check_record, render
from tests.referee_helpers import ROOT

RECORDS = sorted(
    p
    for folder in ("examples", "tests")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in (".yaml", ".yml", ".rec", ".json") and p.is_file()
)
CHUNKS = 8  # the records in this many tests, so that every core takes some


def verdict_of(spec: Spec, record: Path | RecordText, keep_going: bool) -> str:
    """All a verdict says, as `referee check` says it (JSON and text), or the problems of a
    record that does not read."""
    try:
        verdict = check_record(spec, record, Choice(), keep_going, offer=True)
    except RefereeError as err:
        return "bad input\n" + err.render()
    verdict.explain = verdict.show_trace = True  # every outcome, every call
    return json.dumps(verdict.as_json(), sort_keys=True, default=str) + "\n" + render(verdict)


def both(spec: Spec, record: Path | RecordText, keep_going: bool = False) -> tuple[str, str]:
    compiled = verdict_of(spec, record, keep_going)
    with reference_interpreter():
        reference = verdict_of(spec, record, keep_going)
    return compiled, reference


def test_the_records_are_many() -> None:
    assert len(RECORDS) >= 600
    assert any("readings" in p.parts for p in RECORDS)
    assert any(p.suffix == ".rec" for p in RECORDS)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_record_is_judged_alike(spec: Spec, chunk: int) -> None:
    differ = []
    statuses: dict[str, int] = {}
    for path in RECORDS[chunk::CHUNKS]:
        compiled, reference = both(spec, path)
        if compiled != reference:
            differ.append(str(path.relative_to(ROOT)))
        status = compiled.split("\n", 1)[0][:12]
        statuses[status] = statuses.get(status, 0) + 1
        if '"legal": false' in compiled:  # --all: every violation, judged past the first
            compiled, reference = both(spec, path, keep_going=True)
            if compiled != reference:
                differ.append(f"{path.relative_to(ROOT)} (--all)")
    assert differ == []
    assert len(statuses) >= 2  # legal and illegal records, and records that do not read


GAMES = {"sekigahara": 160, "fierce-battle": 40}  # random games by game: 200 in all
EVENTS = 60  # each stopped after this many events (a few play to the end: full-game.yaml)


@pytest.mark.parametrize(
    ("game", "first"),
    [(g, first) for g, n in GAMES.items() for first in range(0, n, 20)],
)
def test_random_games_are_judged_alike(game: str, first: int) -> None:
    spec = load_spec(SPEC_ROOT / game)
    differ, events = [], 0
    for seed in range(first, first + 20):
        played = play(spec, seed, max_events=EVENTS)
        events += len(played.events)
        text = RecordText(as_yaml(played.record(spec, seed)), f"<seed {seed}>")
        compiled, reference = both(spec, text)
        assert '"legal": true' in compiled, compiled[:2000]
        if compiled != reference:
            differ.append(seed)
    assert differ == []
    assert events >= 20 * EVENTS * 0.9  # the games went on: the rules were exercised


def test_the_reference_walks_the_tree(spec: Spec) -> None:
    fresh = dataclasses.replace(spec, _free={})
    record = ROOT / "examples" / "combat-example.yaml"
    with reference_interpreter():
        check_record(fresh, record, Choice())
        (reference,) = [i for key, free in fresh._free.items() if key[0] for i in free]
    check_record(fresh, record, Choice())
    (compiled,) = [i for key, free in fresh._free.items() if not key[0] for i in free]
    assert reference.reference and not compiled.reference
    assert reference._code == {} and not any(reference._kept_kinds().values())
    assert len(compiled._code) > 100 and any(compiled._kept_kinds().values())


def test_a_difference_would_be_seen(spec: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled count one too many: the verdicts differ, the test above would fail."""
    compile_node = closures.compile_node

    def off_by_one(ev: Evaluator, e: ast.Expr) -> Callable[[dict[str, Any]], Any]:
        made = compile_node(ev, e)
        return (lambda env: made(env) + 1) if isinstance(e, ast.Count) else made

    monkeypatch.setattr(closures, "compile_node", off_by_one)
    compiled, reference = both(
        dataclasses.replace(spec, _free={}), ROOT / "examples" / "weeks-1-2.yaml"
    )
    assert compiled != reference
