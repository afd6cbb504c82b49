"""The interpreter keeps the values of definitions that read game state, and forgets each
as soon as a state cell it read is written or put back."""

from __future__ import annotations

from referee.dsl.interp import Interpreter
from referee.dsl.overlays import apply
from referee.spec import Spec


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


def test_a_kept_value_still_names_the_overlays_it_relied_on(spec: Spec) -> None:
    rules = interpreter(spec, "D-disk-control")
    assert rules.call("castle_controller", "Ueda") == "ishida"
    assert "D-disk-control" in rules.relied
    rules.relied = set()  # as each event starts afresh
    assert rules.call("castles_held", "ishida") == 4  # castle_controller of Ueda kept
    assert "D-disk-control" in rules.relied
