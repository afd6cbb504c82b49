"""`referee compare`: the events whose verdict a printing or an overlay changes."""

from __future__ import annotations

import pytest

from referee.cli import main
from referee.compile.spec import Spec
from tests.referee_helpers import EXAMPLES, output


def compare(name: str, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    assert main(["compare", str(EXAMPLES / name), "--format", "json"]) == 0
    return output(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_a_road_used_twice_by_one_stack(capsys: pytest.CaptureFixture[str]) -> None:
    """E-road-once: illegal in the later printing, legal in the first."""
    c = compare("overlays/one-stack-twice.yaml", capsys)
    assert [(d["variant"], d["index"], d["base"], d["other"]) for d in c["differences"]] == [
        ("printing gmt-2011", 2, "illegal 7.3.1/segment-once", "legal")
    ]
    # the verdict relies on the overlay that decided it: E-pickup, in force too, decides nothing
    assert c["differences"][0]["overlays"] == ["E-road-once"]


def test_the_overrun_draw_depends_on_a_clarification(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without S-overrun-draw no card follows an overrun: the replenishment is not under way,
    and the draw is refused citing 8.10."""
    c = compare("overlays/overrun-draw.yaml", capsys)
    assert [(d["variant"], d["index"], d["other"]) for d in c["differences"]] == [
        ("without S-overrun-draw", 3, "illegal 8.10"),
    ]


def test_weeks_1_2_depend_on_no_reading(capsys: pytest.CaptureFixture[str]) -> None:
    """Four blocks walking into one at Kiyosu overrun it under every reading: the narrow
    reading of D-walk-into-overrun spares only a force that walked into four times its
    number, not the force it walked into."""
    c = compare("weeks-1-2.yaml", capsys)
    assert c["differences"] == []


def test_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(EXAMPLES / "overlays" / "one-stack-twice.yaml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "45 variants against printing gmt-later" in out[0]
    assert "printing gmt-2011" in out[2] and "illegal 7.3.1/segment-once" in out[2]
    assert out[-1] == "  no change under the 43 other variants"


def test_rulings_page_is_current(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = EXAMPLES.parent
    monkeypatch.chdir(root)
    assert main(["overlays", "--format", "markdown"]) == 0
    generated = capsys.readouterr().out
    assert (root / "docs" / "rulings.md").read_text() == generated, (
        "docs/rulings.md is stale: run `referee overlays --format markdown > docs/rulings.md`"
    )
    assert "### D-walk-into-overrun" in generated and "### E-road-once" in generated


def test_overlays_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["overlays", "--format", "json"]) == 0
    rows = {r["id"]: r for r in output(capsys.readouterr().out)}
    assert len([r for r in rows if r.startswith("D-")]) == 39
    assert rows["E-road-once"]["in_force"] == "with printing gmt-2011"
    assert rows["S-overrun-draw"]["in_force"] == "by default"
    assert rows["D-bid-tie"]["embodied_by"] == ["6.3/no-tie"]
    assert rows["D-overrun-castle"]["amends"] == ["7.4.3"]
    assert rows["D-overrun-castle"]["changes"] == [
        "replace define castle_shields(l: location, s: side): bool"
    ]


def test_picking_up_a_block_on_the_way(capsys: pytest.CaptureFixture[str]) -> None:
    """E-pickup: legal in the first printing, illegal in the later one."""
    c = compare("overlays/pick-up.yaml", capsys)
    assert [(d["variant"], d["index"], d["base"], d["other"]) for d in c["differences"]] == [
        ("printing gmt-2011", 2, "illegal 7.3.1/no-pickup", "legal")
    ]


def test_a_pick_up_off_the_path_is_illegal_in_2011_too(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    import yaml

    from tests.referee_helpers import judge

    record = yaml.safe_load((EXAMPLES / "overlays" / "pick-up.yaml").read_text())
    record["events"][1]["move"]["groups"][0]["pick_up"][0]["at"] = "Himeji"
    code, v = judge(tmp_path, capsys, record, "--printing", "gmt-2011")  # type: ignore[arg-type]
    assert code == 1 and v["violations"][0]["cites"] == "7.3.1/picked-on-the-way"


# The printing differences that no record of full information can show, and why.
NOT_IN_A_RECORD = {
    "E-special-count": "the first printing's example never tests it; 8.4.1's text is the later's",
    "E-reconceal": "a record names every block, concealed or not",
    "E-leader-secret": "a record names the leader; the referee asks only that one be present",
    "E-leader-impact": "every leader block has one mon: Impact 1 is its mon count",
    "E-cut-short": "D-2011-chapter-9 reads the later chapter 9 for the first printing; only with "
    "it off does a record differ (test_decisions, reading r8-ch9/02b)",
}
SHOWN_BY_A_RECORD = {"E-pickup", "E-road-once"}  # the tests above


def test_printing_differences_no_record_shows(
    capsys: pytest.CaptureFixture[str], spec: Spec
) -> None:
    printed = {o.id for o in spec.sym.overlays.values() if o.kind == "printing"}
    assert printed == set(NOT_IN_A_RECORD) | SHOWN_BY_A_RECORD
    assert {f["mon"] for f in spec.components.collections["faces"] if f["leader"]} == {1}
    # the combat example deploys a cardless leader and counts a gun deployed without swords:
    # the same verdict under every printing
    c = compare("combat-example.yaml", capsys)
    assert c["differences"] == []
    assert {"printing gmt-2011", "printing devir-2021"} <= set(c["variants"])
