"""tools/mutate.py, the spec's mutation tool: its mutants are single, well-formed changes named
by clause and place, and its stages notice what they should (so the tool cannot rot)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from referee.cli import main
from referee.compile.spec import SPEC_ROOT
from referee.resolve.guards import parse_rules
from tests.referee_helpers import verdict_of

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mutate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutate", ROOT / "tools" / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def every(mutate: ModuleType) -> list[object]:
    return mutate.mutants()  # type: ignore[no-any-return]


def named(every: list[object], name: str) -> object:
    found = [m for m in every if m.name == name]  # type: ignore[attr-defined]
    assert len(found) == 1, [m.name for m in every if name.split()[0] in m.name][:20]  # type: ignore[attr-defined]
    return found[0]


def test_every_kind_of_change_is_made_in_a_fixed_order(every: list[object]) -> None:
    kinds = {m.kind for m in every}  # type: ignore[attr-defined]
    assert kinds == {"number", "compare", "andor", "require", "check", "statement"}
    assert [m.id for m in every] == list(range(1, len(every) + 1))  # type: ignore[attr-defined]
    m = named(every, "7.4.1 overrun_ratio 4 -> 5")
    assert (m.kind, m.old, m.new) == ("number", "4", "5")  # type: ignore[attr-defined]
    assert m.place.startswith("sekigahara/clauses/07-movement.rules:")  # type: ignore[attr-defined]
    named(every, "7.3.1/segment-once dropped")  # a requirement that always holds


def test_a_sample_of_mutants_each_parse_and_change_one_node(
    mutate: ModuleType, every: list[object]
) -> None:
    for m in mutate.select(every, [], [], [], 15, 3):
        text = (SPEC_ROOT / m.file).read_text(encoding="utf-8")
        assert text[m.start : m.end] == m.old, m.name
        changed = text[: m.start] + m.new + text[m.end :]
        assert changed != text
        parse_rules(changed, m.file)  # well formed: raises otherwise


def test_filters_and_sample_are_deterministic(mutate: ModuleType, every: list[object]) -> None:
    movement = mutate.select(every, ["7.3"], [], [], 0, 0)
    assert movement and all(m.clause.startswith("7.3") for m in movement)
    checks = mutate.select(every, [], ["check"], [], 0, 0)
    assert checks and all(m.kind == "check" for m in checks)
    one = [m.id for m in mutate.select(every, [], [], [], 12, 5)]
    assert one == [m.id for m in mutate.select(every, [], [], [], 12, 5)] == sorted(one)


def test_referee_spec_names_the_spec_loaded_when_none_is_given(
    game_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = game_copy / "clauses" / "07-movement.rules"
    text = rules.read_text()
    rules.write_text(text.replace("const overrun_ratio: int = 4", "const overrun_ratio: int = 5"))
    record = ROOT / "examples" / "disputes" / "kuwana-overrun.yaml"
    monkeypatch.setenv("REFEREE_SPEC", str(game_copy))
    assert main(["check", str(record), "--format", "json"]) == 1  # 4 to 1 is no longer enough
    out = verdict_of(capsys.readouterr().out)
    assert out["violations"][0]["kind"] == "expectation"
    monkeypatch.delenv("REFEREE_SPEC")
    assert main(["check", str(record), "-q"]) == 0


def test_the_stages_kill_what_they_should(mutate: ModuleType, every: list[object]) -> None:
    # the overrun ratio: the dispute at Kuwana expects the overrun at four to one
    # (the records stage alone: what it asks of the prove stage, the two cases below ask)
    m = named(every, "7.4.1 overrun_ratio 4 -> 5")
    r = mutate.run_one(m, ["examples/disputes"], [], 120, True, ("checker", "records"))
    assert "prove" not in r.stages, r
    assert r.stages["records"] and r.record == "examples/disputes/kuwana-overrun.yaml", r
    # a dropped requirement: an example that breaks it is no longer refused; and the property
    # that a move keeps within the chart's allowance fails (7.3.1/moves-keep-the-rules)
    m = named(every, "7.3.3/within-allowance dropped")
    r = mutate.run_one(m, ["examples/illegal"], [], 120, True)
    assert r.stages["prove"] and r.stages["records"], r
    assert r.record.startswith("examples/illegal/"), r
    # prove: the loser's extra loss is what 8.7.1/losses-follow-the-table states
    m = named(every, "8.7.1 loser_extra_loss 1 -> 2")
    r = mutate.run_one(m, [], [], 120, False)
    assert r.verdict == "prove" and "8.7.1/losses-follow-the-table" in r.why, r


def test_a_reading_left_open_judges_no_mutant(mutate: ModuleType) -> None:
    """The readings whose verdict the referee does not give yet (`# open:`) are left out of
    the records stage: the spec as it is must pass every stage, and they would fail it."""
    folder = ROOT / "tests" / "readings" / "p15"
    said: list[dict[str, object]] = []
    killed = mutate._judge_records(SPEC_ROOT / "sekigahara", [folder], lambda **kw: said.append(kw))
    opened = sorted(p.name[:2] for p in folder.glob("*.yaml") if "\n# open: " in p.read_text())
    assert opened == ["02", "06"]
    assert not killed and said == [
        {
            "stage": "records",
            "killed": False,
            "records": len(list(folder.glob("*.yaml"))) - len(opened),
        }
    ]


def test_a_mutant_the_checker_rejects_is_told_apart(mutate: ModuleType) -> None:
    file = "sekigahara/clauses/07-movement.rules"
    start = (SPEC_ROOT / file).read_text().index("overrun_ratio * enemy_blocks")
    bad = mutate.Mutant(
        -1,
        "number",
        "7.4.1",
        "overruns",
        file,
        0,
        0,
        start,
        start + 13,
        "overrun_ratio",
        "overrun_ratiox",
        "a name nobody declares",
    )
    r = mutate.run_one(bad, ["examples/disputes"], [], 120, False)
    assert r.verdict == "checker" and "overrun_ratiox" in r.why, r


def test_prove_reads_declarations_and_leaves_out_statements(mutate: ModuleType) -> None:
    # what the proofs read: a definition a property calls, a step a step invariant walks
    cov = mutate.covered()
    assert {"overrun_ratio", "movement_phase/moving/move", "7.3.1/segment-once"} <= cov.reads
    every = mutate.mutants()
    assert cov.holds(named(every, "7.4.1 overrun_ratio 4 -> 5"))
    # a step's statement the proof leaves out (a tell), and a part it never reads (its ends)
    assert not cov.holds(named(every, "7.1 movement_phase/moving/move tell [allowance] dropped"))
    ends = [m for m in every if m.decl.endswith(" ends")]
    assert ends and not any(cov.holds(m) for m in ends)
    # nothing reads what only random play uses; the coarse figure counts whole clauses
    assert not any(m.where == "onward" for m in every)
    assert {"7.1", "7.3.1", "8.7.1"} <= cov.clauses


# Properties that state the rulebook's facts apart from the definitions, and a mutant of the
# rules each must notice: proved one property at a time, in this process, on a mutated copy.
NOTICED = [
    ("2.1 tokugawa_wins_at_once or -> and", "2.1/three-ways-to-win-at-once"),
    ("2.1 ishida_block_lost == -> !=", "2.1/no-play-past-an-instant-win"),
    ("6.2 recruitment_track 2 -> 3", "6.2/reinforcement-numbers"),
    ("6.2 first_reinforced_week 2 -> 1", "6.2/reinforcement-numbers"),
    ("7.1 stack_moves 3 -> 4", "7.1/degrees-of-movement"),
    ("7.3.5 can_ever_move 1 -> 0", "7.3.5/sixteen-move-seventeen-not"),
    ("7.4.3 castle_shields [D-overrun-castle] == -> !=", "7.4.2/no-overrun-left"),
    ("4.1 disks and -> or", "8.9.6/siege-needs-both"),
    ("4.3 castle_holder 0 -> 1", "4.3/empty-castle-reverts"),  # the second: nobody there
]


def test_the_new_properties_notice_their_mutants(
    mutate: ModuleType, every: list[object], tmp_path: Path
) -> None:
    from referee.compile.spec import load_spec
    from referee.errors import Span
    from referee.parse import ast
    from referee.resolve.overlays import Choice, apply, in_force
    from referee.verify.prover import prove_one, prove_step_invariant

    for i, (name, label) in enumerate(NOTICED):
        found = [m for m in every if m.name == name]  # type: ignore[attr-defined]
        assert found, name
        game = mutate.write_mutant(found[-1], tmp_path / str(i))
        spec = load_spec(game)
        _, overlays = in_force(spec.sym, Choice(), lambda _: Span("<test>", 0, 0))
        sym = apply(spec.sym, overlays)
        p = sym.labels[label]
        assert isinstance(p, ast.Property)
        names = spec.components.names()
        if p.invariant:
            out = prove_step_invariant(sym, names, spec.components.collections, p, 10_000)
        else:
            out = prove_one(sym, names, p, 10_000)
        assert out.status == "failed", (name, label, out.line())
