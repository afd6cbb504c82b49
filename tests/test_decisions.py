"""Each decision that has another reading: the verdict with it on (the default) and off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.spec import Spec
from tests.referee_helpers import example, judge


def moving(active: str, state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "game": "sekigahara",
        "position": {"procedure": "movement_phase", "args": {"active": active}, "state": state},
        "events": [{"movement": {"by": active, "choice": "minimal"}}, *events],
    }


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "D-capital-lead",  # Kyoto leads Ishida's moves though Tokugawa holds it
        moving(
            "ishida",
            {
                "units_at": {"Kyoto": {"ishida": ["ukita-2"]}},
                "resource_holder": {"Kyoto": "tokugawa"},
            },
            [
                {
                    "move": {
                        "by": "ishida",
                        "from": "Kyoto",
                        "groups": [{"blocks": ["ukita-2"], "path": ["Kyoto", "Ayabe", "Himeji"]}],
                    }
                }
            ],
        ),
        "7.3.3/within-allowance",
    ),
    (
        "D-enemy-disk-stops",  # the Sanada disk stops a Tokugawa stack passing Ueda
        moving(
            "tokugawa",
            {"units_at": {"Saku": {"tokugawa": ["tokugawa-2", "tokugawa-leader-square"]}}},
            [
                {
                    "move": {
                        "by": "tokugawa",
                        "from": "Saku",
                        "groups": [
                            {
                                "blocks": ["tokugawa-2", "tokugawa-leader-square"],
                                "path": ["Saku", "Ueda", "Arato"],
                            }
                        ],
                    }
                }
            ],
        ),
        "7.4.3/castle-holders-immune",  # the disk holds the castle: it is not overrun either
    ),
    (
        "D-mori-cost",  # a Mori arrival besides the one stack of minimal movement
        moving(
            "ishida",
            {
                "units_at": {"Kyoto": {"ishida": ["ukita-2"]}},
                "hand": {"ishida": ["mori"]},
                "mori_box": ["mori-3-triangle", "mori-leader-triangle"],
            },
            [
                {
                    "move": {
                        "by": "ishida",
                        "from": "Kyoto",
                        "groups": [{"blocks": ["ukita-2"], "path": ["Kyoto", "Ayabe"]}],
                    }
                },
                {"mori": {"by": "ishida", "cards": ["mori"], "blocks": ["mori-3-triangle"]}},
            ],
        ),
        "7.1/stack-limit",
    ),
    (
        "D-muster-contested",  # a muster into Osaka, where both sides' blocks already stand
        moving(
            "ishida",
            {
                "units_at": {"Osaka": {"ishida": ["ukita-2"], "tokugawa": ["date-2"]}},
                "recruits": {"ishida": ["kobayakawa-3"]},
            },
            [
                {
                    "muster": {
                        "by": "ishida",
                        "option": "A",
                        "to": "Osaka",
                        "blocks": ["kobayakawa-3"],
                    }
                }
            ],
        ),
        "7.2/no-attack-from-box",
    ),
]


@pytest.mark.parametrize("decision,record,cites", CASES, ids=[c[0] for c in CASES])
def test_decision_on_and_off(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    decision: str,
    record: dict[str, Any],
    cites: str,
) -> None:
    code, on = judge(tmp_path, capsys, record)
    on_violations = [x["cites"] for x in on["violations"]]
    code_off, off = judge(tmp_path, capsys, record, "--no-overlay", decision)
    off_violations = [x["cites"] for x in off["violations"]]
    # the decision makes the difference, one way or the other, and the verdict cites it
    assert (code, code_off) in ((0, 1), (1, 0)), (on_violations, off_violations)
    assert cites in on_violations + off_violations
    legal = on if code == 0 else off
    if legal is on:
        assert decision in on["relied"]


def test_castle_tie_gives_nobody_the_sixth_card(spec: Spec) -> None:
    """With nine castles on the map a tie cannot occur in play; the rule still says what one does."""
    from referee.dsl.interp import Interpreter
    from referee.dsl.overlays import apply

    on = Interpreter(apply(spec.sym, [spec.sym.overlays["D-castle-tie"]]))
    off = Interpreter(apply(spec.sym, []))
    assert (on.call("weekly_card_draw", 4, 4), off.call("weekly_card_draw", 4, 4)) == (5, 6)
    assert on.call("weekly_card_draw", 5, 4) == off.call("weekly_card_draw", 5, 4) == 6
    assert sum(1 for loc in spec.components.collections["locations"] if loc["castle"]) == 9


def test_capitals_start_with_their_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = example("end-of-week-7.yaml")
    del record["position"]["state"]["resource_holder"]["Kyoto"]  # Kyoto as it started
    record["events"].pop()
    code, v = judge(tmp_path, capsys, record)
    assert "Ishida 13 (4 castles, 5 resources): ishida wins" in v["summary"]
    code, v = judge(tmp_path, capsys, record, "--no-overlay", "D-capitals")
    assert (
        "Tokugawa 13 (5 castles, 3 resources), Ishida 12 (4 castles, 4 resources): tokugawa wins"
        in v["summary"]
    )
