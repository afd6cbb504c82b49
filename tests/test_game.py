"""`referee.Game` (issue 30, 2): every example pushed event by event gets the verdicts
`referee check` gives it; pop takes events back to the same position; legal_events is what
`referee moves --all` lists; the views are typed; to_record writes what was played. And the
notation from a string and from standard input (`referee.check(text)`, `check -`,
`convert -`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import referee
from referee.cli import main
from tests.referee_helpers import EXAMPLES, ROOT

ALL_EXAMPLES = sorted(
    list(EXAMPLES.glob("*.yaml"))
    + list(EXAMPLES.glob("*/*.yaml"))
    + list((EXAMPLES / "fierce-battle" / "illegal").glob("*.yaml"))
)


class _AsWritten(yaml.SafeLoader):
    """YAML with a number like 8.10 kept as written: a clause, not the float 8.1."""


_AsWritten.add_constructor(
    "tag:yaml.org,2002:float", lambda loader, node: loader.construct_scalar(node)
)


def without_events(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "events": []}


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_pushing_each_event_agrees_with_check(path: Path) -> None:
    data = yaml.load(path.read_text(), Loader=_AsWritten)  # noqa: S506 - a safe loader
    verdict = referee.check(path)
    position = next((v for v in verdict.violations if v.kind == "position"), None)
    if position is not None:
        # a starting position check refuses: no Game stands there, refused with its clause
        with pytest.raises(referee.RecordError) as err:
            referee.Game(without_events(data), name=str(path))
        (problem,) = err.value.problems
        assert problem.clause == position.clause and problem.line > 0  # at its position
        assert f"the starting position cannot arise: {position.cites} " in problem.message
        return
    game = referee.Game(without_events(data), name=str(path))
    try:
        refused = None
        for i, event in enumerate(data["events"], 1):
            got = game.push(event)
            assert got.event == i
            if not got.legal:
                refused = got
                break
        first = next((v for v in verdict.violations if not v.as_expected), None)
        if first is None:
            # legal to its end (an expected refusal is the record's own statement)
            assert refused is None or all(v.as_expected for v in refused.violations), (
                refused and refused.text
            )
        else:
            assert refused is not None, f"check refuses event {first.event}: {first.cites}"
            assert (refused.event, refused.cites) == (first.event, first.cites)
    finally:
        game.close()


def test_push_and_pop_return_to_the_same_position() -> None:
    data = yaml.safe_load((EXAMPLES / "weeks-1-2.yaml").read_text())
    with referee.Game(without_events(data)) as game:
        summaries = [game.summary]
        for event in data["events"][:30]:
            assert game.push(event).legal
            summaries.append(game.summary)
        for k in range(30, 25, -1):
            popped = game.pop()
            assert popped == data["events"][k - 1]
            assert game.summary == summaries[k - 1]
            assert len(game.events) == k - 1
        assert game.push(data["events"][25]).legal and game.summary == summaries[26]


def test_a_refused_event_is_not_applied_and_cites_its_clause() -> None:
    with referee.Game(game="sekigahara") as game:
        assert game.push("T deal tokugawa,tokugawa,fukushima,maeda,date").legal
        before = game.summary
        again = game.push({"deal": {"by": "tokugawa", "cards": ["tokugawa"]}})
        assert not again.legal and again.cites == "5.1/one-deal"
        assert "not applied" in again.text and game.summary == before
        assert len(game.events) == 1
        with pytest.raises(referee.RecordError) as err:
            game.push({"no_such_action": {"by": "tokugawa"}})
        assert "unknown action 'no_such_action'" in str(err.value)


def test_legal_events_are_those_moves_lists(tmp_path: Path) -> None:
    data = yaml.safe_load((EXAMPLES / "weeks-1-2.yaml").read_text())
    data["events"] = data["events"][:27]
    with referee.Game(data) as game:
        found = game.legal_events(limit=400)
        assert found.events and all(next(iter(e.values()))["by"] == "tokugawa" for e in found)
        path = tmp_path / "r.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        main(["moves", str(path), "--all", "--limit", "400", "--format", "json"])
        for e in found.events[:3]:
            assert game.push(e).legal
            game.pop()
    assert found.as_json()["all"] is True


def test_views_of_the_position_are_typed() -> None:
    with referee.Game(EXAMPLES / "weeks-1-2.yaml") as game:
        assert len(game.events) == 60 and game.turn == 3 and not game.is_over
        step = game.step
        assert step is not None and step.procedure == "week_cycle"
        assert [s.procedure for s in game.procedures][0] == step.procedure or len(
            game.procedures
        ) >= 1
        edo = game.value("units_at", "Edo", "tokugawa")
        assert isinstance(edo, list) and all(isinstance(b, str) for b in edo)
        with pytest.raises(referee.SpecError):
            game.value("no_such_thing")
        with pytest.raises(referee.RecordError):
            game.value("units_at", "Nowhere", "tokugawa")
    with referee.Game(EXAMPLES / "full-game.rec") as over:
        assert over.is_over and over.result is not None and "tokugawa wins" in over.result
        assert over.legal_events().events == ()


def test_to_record_writes_what_was_played_in_either_form() -> None:
    notation = (EXAMPLES / "full-game.rec").read_text()
    with referee.Game(game="sekigahara") as game:
        lines = [x for x in notation.splitlines()[10:40] if x and not x.startswith("#")]
        for line in lines:
            assert game.push(line).legal, line
        written = game.to_record("notation")
        assert referee.check(written).legal
        again = referee.check(game.to_record())
        assert again.legal and again.events == len(game.events)


def test_a_record_with_an_illegal_event_is_refused() -> None:
    with pytest.raises(referee.RecordError) as err:
        referee.Game(EXAMPLES / "illegal" / "movement-too-far.yaml")
    assert "event 2 (move) is illegal: 7.3.3/within-allowance" in str(err.value)


def test_check_convert_play_and_prove_from_python() -> None:
    text = (EXAMPLES / "full-game.rec").read_text()
    assert referee.check(text).legal  # notation recognised in a string
    as_yaml = referee.convert(text)
    assert as_yaml.startswith("# examples/full-game.yaml") or "events:" in as_yaml
    assert referee.convert(as_yaml, to="notation").splitlines()[-1] == text.splitlines()[-1]
    played = referee.play(7, max_events=12)
    assert len(played["events"]) == 12 and referee.check(played).legal
    (proof,) = referee.prove(only=["7.3.3/at-most-four"])
    assert (proof.cites, proof.status) == ("7.3.3/at-most-four", "proved")


@pytest.mark.usefixtures("shared_disk_cache")  # a process each: the spec checked once
@pytest.mark.parametrize("command", ["check", "convert"])
def test_notation_on_standard_input(command: str) -> None:
    text = (EXAMPLES / "full-game.rec").read_text()
    done = subprocess.run(
        [sys.executable, "-m", "referee", command, "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    if command == "check":
        assert done.stdout.startswith("<stdin>: legal: 147 event(s)")
    else:
        first = yaml.safe_load(done.stdout)["events"][0]
        cards = ["tokugawa", "tokugawa", "fukushima", "maeda", "date"]
        assert first == {"deal": {"by": "tokugawa", "cards": cards}}
