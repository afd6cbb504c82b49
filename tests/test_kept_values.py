"""The interpreter keeps the values of definitions that read game state, and forgets each
as soon as a state cell it read is written or put back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.compile.execute import Interpreter
from referee.compile.spec import Spec
from referee.resolve.overlays import apply
from tests.referee_helpers import EXAMPLES


def interpreter(spec: Spec, *overlays: str) -> Interpreter:
    sym = apply(spec.sym, [spec.sym.overlays[o] for o in overlays])
    return Interpreter(sym, components=spec.components.collections, in_force=set(overlays))


def test_a_kept_value_follows_the_cells_it_read(spec: Spec) -> None:
    rules = interpreter(spec)
    assert {"contested", "present", "units"} <= rules.derived()
    units_at = spec.sym.values["units_at"]
    ukita = next(f for f in spec.components.collections["faces"] if f["id"] == "ukita-2")
    assert rules.call("contested", "Kyoto") is False
    rules.write_state(units_at, ("Kyoto", "ishida"), (ukita,))
    assert rules.call("present", "Kyoto") == ("ishida",)
    rules.write_state(units_at, ("Kyoto", "tokugawa"), (ukita,))
    assert rules.call("contested", "Kyoto") is True
    rules.journal = []  # as `referee play` does before it tries a proposal
    rules.write_state(units_at, ("Kyoto", "tokugawa"), ())
    rules.write_state(units_at, ("Osaka", "ishida"), (ukita,))
    assert rules.call("contested", "Kyoto") is False
    rules.undo()  # the rules refused it
    assert rules.call("contested", "Kyoto") is True
    assert ("Osaka", "ishida") not in rules.state["units_at"]
    rules.write_state(units_at, ("Osaka", "tokugawa"), (ukita,))  # another cell: kept
    assert ("contested", ("Kyoto",)) in rules._derived


def test_a_definition_reading_state_inside_a_record_literal_is_not_pure(spec: Spec) -> None:
    """marches_from (7.3.1) reads the blocks free to move only inside the records it builds:
    its value follows them, and is never kept from one game to the next as a pure one is."""
    rules = interpreter(spec)
    assert "marches_from" not in rules.pure() and "marches_from" in rules.derived()
    units_at = spec.sym.values["units_at"]
    face = next(f for f in spec.components.collections["faces"] if f["id"] == "date-2")
    card = next(c for c in spec.components.collections["cards"] if c["id"] == "date")
    assert rules.call("marches_from", "Anotsu", "tokugawa", card)[0]["groups"][0]["blocks"] == ()
    rules.write_state(units_at, ("Anotsu", "tokugawa"), (face,))
    marches = rules.call("marches_from", "Anotsu", "tokugawa", card)
    assert marches[0]["groups"][0]["blocks"] == (face,)


def test_a_kept_value_still_names_the_overlays_it_relied_on(spec: Spec) -> None:
    rules = interpreter(spec, "D-disk-control")
    assert rules.call("castle_controller", "Ueda") == "ishida"
    assert rules.relied == set()  # Ueda's disk alone: both readings give it to Ishida
    units_at = spec.sym.values["units_at"]
    date = next(f for f in spec.components.collections["faces"] if f["id"] == "date-2")
    rules.write_state(units_at, ("Ueda", "tokugawa"), (date,))
    # a Tokugawa block beside the disk: the disk keeps Ueda for Ishida (read without the
    # decision, Tokugawa would hold it), so the value relies on D-disk-control
    assert rules.call("castle_controller", "Ueda") == "ishida"
    assert "D-disk-control" in rules.relied
    rules.relied = set()  # as each event starts afresh
    assert rules.call("castles_held", "ishida") == 4  # castle_controller of Ueda kept
    assert "D-disk-control" in rules.relied
    base = interpreter(spec)
    base.write_state(units_at, ("Ueda", "tokugawa"), (date,))
    assert (base.call("castle_controller", "Ueda"), base.call("castles_held", "ishida")) == (
        "tokugawa",
        3,
    )


def test_kept_values_change_no_verdict(
    spec: Spec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every example, legal and illegal, and three random games, judged with values kept and
    with nothing kept: the same verdicts, to the message, the numbers and the overlays."""
    from referee.resolve.overlays import Choice
    from referee.run.play import as_yaml, play
    from referee.run.replay import check_record

    paths = sorted(EXAMPLES.glob("*.yaml")) + sorted((EXAMPLES / "illegal").glob("*.yaml"))
    for seed in (1, 2, 3):
        path = tmp_path / f"game-{seed}.yaml"
        path.write_text(as_yaml(play(spec, seed).record(spec, seed)))
        paths.append(path)

    def verdicts() -> list[dict[str, Any]]:
        return [check_record(spec, p, Choice()).as_json() for p in paths]

    kept = verdicts()
    fresh = Spec(spec.game_dir, spec.modules, spec.sym, spec.components, spec.sources)
    spec = fresh  # no interpreter given back by the first pass
    monkeypatch.setattr(Interpreter, "derived", lambda self: set())
    monkeypatch.setattr(Interpreter, "pure", lambda self: set())
    assert verdicts() == kept
    assert sum(not v["legal"] for v in kept) == len(list((EXAMPLES / "illegal").glob("*.yaml")))
