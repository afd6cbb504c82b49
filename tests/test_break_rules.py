"""tools/break_rules.py, the break-the-rules suite of issue 34. In CI: the suite covers every
chapter and every kind of rule, bad entries are refused for a person to read, and a small,
representative part runs whole (one change of each kind: its records give the verdicts its entry
states, and `referee prove`, on the properties the change can touch, fails, its counterexample
records replaying to the miss). The whole suite, every change's verdicts and prove on all the
properties, is benchmarks/break_rules.py (docs/mutation.md gives its figure)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from referee.compile import spec as spec_module

ROOT = Path(__file__).resolve().parents[1]


sys.path.insert(0, str(ROOT / "tools"))  # a developer's tool, not in the package
import break_rules as br  # noqa: E402

SUITE = br.load_suite()
BY_ID = {c.id: c for c in SUITE}

# One change of each kind, with the properties it can touch (prove runs on those alone, a few
# seconds each): the property that must fail, and whether its counterexample is a record that
# replays (a step property's; a property over definitions has none, and one after an action
# that reads the position before it, as 7.2/a-muster-counts does, states no expectation the
# replay could miss: both specs allow its event).
REPRESENTATIVE = {
    "impact-per-loss-six": ("8.7.1/losses-follow-the-table", False),  # constant
    "tie-to-attacker": ("8.2.1/tie-to-defender", False),  # definition
    "mori-leader-any-time": ("9.3/leader-leaves-last", True),  # requirement
    "muster-stays-in-box": ("7.2/a-muster-counts", False),  # effect
    "mori-box-stays-out": ("9.3/mori-box-joins", True),  # standing
    "limited-four-moves": ("7.1/degrees-of-movement", False),  # data
}


def test_the_suite_covers_every_chapter_and_every_kind_of_rule() -> None:
    assert len(SUITE) >= 40
    chapters = {c.clause.split(".")[0] for c in SUITE}
    assert chapters == {str(n) for n in range(2, 10)}
    assert {c.kind for c in SUITE} == set(br.KINDS)
    assert len(BY_ID) == len(SUITE)
    for c in SUITE:
        assert c.records and all(r.real != r.broken for r in c.records), c.id


def test_the_representative_part_has_one_change_of_each_kind() -> None:
    assert sorted(BY_ID[c].kind for c in REPRESENTATIVE) == sorted(br.KINDS)


@pytest.mark.parametrize("cid", sorted(REPRESENTATIVE))
def test_a_change_gives_its_verdicts_and_prove_fails_with_a_counterexample(cid: str) -> None:
    prop, replays = REPRESENTATIVE[cid]
    change = BY_ID[cid]
    result = br.run_change(change, prove=True, timeout=900, properties=(prop,))
    assert result.checker, result.why
    assert result.real == [r.real for r in change.records], result.why
    assert result.broken == [r.broken for r in change.records], result.why
    assert result.as_stated and result.verdict_changing, result.why
    assert result.prove == "caught", (result.prove, result.why)
    assert result.properties == [prop]
    if replays:
        assert result.replayed and result.replayed == [r["record"] for r in result.replays]
        for r in result.replays:  # judged otherwise by the real spec, and never a load error
            assert r["real"] != r["broken"] and not r["broken"].startswith("error"), r


def test_a_change_judged_in_process_gives_the_verdicts_its_entry_states(tmp_path: Path) -> None:
    """The judge's own path (the one the CI part above runs in a child): a broken spec loaded
    beside the real one, and dropped from the cache after."""
    change = BY_ID["tie-to-attacker"]
    before = set(spec_module._CACHE)
    game_dir = br.write_mutant(change.mutant(), tmp_path, br.GAME)
    try:
        real = br.judge_records(None, change, tmp_path)
        broken = br.judge_records(game_dir, change, tmp_path)
    finally:
        for key in set(spec_module._CACHE) - before:  # the broken spec: not kept for later tests
            del spec_module._CACHE[key]
    assert real == [r.real for r in change.records]
    assert broken == [r.broken for r in change.records]


def _entry(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """\
id: {id}
clause: "5.1"
kind: constant
description: a starting hand is six cards
edit:
  file: clauses/05-setup.rules
  old: "{old}"
  new: "const starting_hand: int = 6"
records:
- name: five cards dealt
  real: legal
  broken: {broken}
  record:
    game: sekigahara
    events:
    - deal: {{by: tokugawa, cards: [tokugawa, tokugawa, maeda, date, fukushima]}}
"""


@pytest.mark.parametrize(
    ("fill", "said"),
    [
        (
            {"old": "int = "},
            "the old text occurs 4 times in clauses/05-setup.rules; it must occur once",
        ),
        ({"old": "const starting_hand: int = 9"}, "the old text occurs 0 times"),
        ({"broken": "legal"}, "the real and broken verdicts stated are the same"),
        ({"broken": "refused"}, "verdict 'refused' is not 'legal'"),
        ({"id": "another-name"}, "id 'another-name' does not match the file's name"),
    ],
)
def test_a_bad_entry_is_refused_for_a_person(
    fill: dict[str, str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = {
        "id": "six-cards",
        "old": "const starting_hand: int = 5",
        "broken": "illegal 5.1/starting-hand at event 1",
    }
    _entry(tmp_path, "six-cards", GOOD.format(**{**values, **fill}))
    assert br.main(["--suite", str(tmp_path), "--no-prove"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("break_rules: ") and "six-cards.yaml" in err
    assert said in err
    assert "Traceback" not in err


def test_a_verdict_not_as_stated_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = {
        "id": "six-cards",
        "old": "const starting_hand: int = 5",
        "broken": "illegal 5.1/starting-hand at event 2",  # it is event 1
    }
    _entry(tmp_path, "six-cards", GOOD.format(**values))
    assert br.main(["--suite", str(tmp_path), "--no-prove", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["summary"] == "1 changes, 0 verdict-changing as stated"
    (only,) = out["changes"]
    assert only["as_stated"] is False and only["verdict_changing"] is True
    assert only["records"][0]["got"] == ["legal", "illegal 5.1/starting-hand at event 1"]
    assert "stated legal / illegal 5.1/starting-hand at event 2" in only["why"]
    # a saved run shown again, as docs/mutation.md's tables are made
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(out), encoding="utf-8")
    assert br.main(["--suite", str(tmp_path), "--load", str(saved), "--format", "markdown"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("1 changes, 0 verdict-changing as stated.")
    assert "| six-cards | 5.1 | constant | a starting hand is six cards | not run |" in shown


def test_an_unknown_id_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        br.main(["--ids", "no-such-change", "--no-prove"])
    assert done.value.code == 2
    assert "no such change: no-such-change" in capsys.readouterr().err
