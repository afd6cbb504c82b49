"""The rules compiled to Python source (referee/compile/source.py): made from the spec's own
tree only, a record's expressions left to closures; and the shortcut of ``brief`` that sees
whether a value fits without writing it. That compiled and reference verdicts agree is
tests/test_differential.py's."""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from referee.compile.interp import Evaluator
from referee.compile.shown import _shown_within, show
from referee.compile.spec import Spec
from referee.errors import Span
from referee.parse import ast
from referee.resolve.overlays import Choice
from referee.run.replay import check_record
from tests.referee_helpers import ROOT


def _generated(code: Any) -> bool:
    return str(getattr(getattr(code, "__code__", None), "co_filename", "")).startswith("<rules:")


def test_the_spec_is_compiled_to_source(spec: Spec) -> None:
    fresh = dataclasses.replace(spec, _free={})
    verdict = check_record(fresh, ROOT / "examples" / "combat-example.yaml", Choice())
    assert verdict.legal
    (interp,) = [i for free in fresh._free.values() for i in free]
    made = [code for node, code in interp._code.values()]
    generated = [c for c in made if _generated(c)]
    assert len(generated) > 50
    # every node compiled to source is the spec's own, from a .rules file
    for node, code in interp._code.values():
        if _generated(code) and isinstance(node, ast.Expr) and node.span.file:
            assert node.span.file.endswith(".rules"), node.span


def test_a_records_expression_is_never_source(spec: Spec) -> None:
    interp = Evaluator(spec.sym)
    text = '"""; import os; os.system(\'false\') #'
    theirs = ast.BinOp(
        "==",
        ast.StrLit(text, span=Span("dispute.yaml", 3, 5)),
        ast.StrLit(text, span=Span("dispute.yaml", 3, 9)),
        span=Span("dispute.yaml", 3, 5),
    )
    assert interp.eval(theirs, {}) is True
    assert not _generated(interp.compiled(theirs))
    ours = dataclasses.replace(theirs, span=Span("clauses/x.rules", 1, 1))
    assert interp.eval(ours, {}) is True  # the text a literal, not code
    assert _generated(interp.compiled(ours))


def _value(r: random.Random, depth: int = 0) -> Any:
    kind = r.randrange(8 if depth < 4 else 4)
    if kind == 0:
        return r.randrange(-1000, 10 ** r.randrange(1, 12))
    if kind == 1:
        return "x" * r.randrange(0, 50)
    if kind == 2:
        return r.choice([True, False, None])
    if kind == 3:
        return {"id": "a" * r.randrange(5)} if r.random() < 0.5 else {"name": "n"}
    if kind == 4:
        return tuple(_value(r, depth + 1) for _ in range(r.randrange(0, 30)))
    if kind == 5:
        return [_value(r, depth + 1) for _ in range(r.randrange(0, 5))]
    if kind == 6:
        return frozenset("a" * i for i in range(r.randrange(0, 9)))
    return {f"k{i}": _value(r, depth + 1) for i in range(r.randrange(0, 6))}


def test_a_value_fits_exactly_when_it_is_shown_within_the_limit() -> None:
    r = random.Random(28)
    for _ in range(3000):
        v = _value(r)
        text = show(v)
        for limit in (0, 1, 12, 60, 1000, len(text), len(text) - 1):
            assert _shown_within(v, limit) == (text if len(text) <= limit else None)


def _check(record: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "check", str(record)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_compiled_rules_are_kept_in_the_signed_cache(cache: Path) -> None:
    env = dict(os.environ)  # the fixture's: the disk cache on, in a folder of its own
    record = ROOT / "examples" / "combat-example.yaml"
    first = _check(record, env)
    assert first.returncode == 0, first.stderr
    (spec_entry,) = cache.glob("spec-*.signed")
    (code_entry,) = cache.glob("code-*.signed")
    assert code_entry.name.removeprefix("code-") == spec_entry.name.removeprefix("spec-")
    kept = code_entry.read_bytes()
    assert len(kept) > 10_000
    # an entry tampered with is not believed: the rules are compiled again, the verdict the
    # same, and the entry written again, signed
    code_entry.write_bytes(kept[:32] + b"\x00" * (len(kept) - 32))
    second = _check(record, env)
    assert (second.returncode, second.stdout) == (0, first.stdout)
    assert code_entry.read_bytes()[32:] == kept[32:]
