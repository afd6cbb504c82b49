"""Judging a view record (issue 31.3, the bounded search): `referee check` on a record as a
view kept it says consistent (a witness `check` judges legal), inconsistent (the clause every
assignment broke) or unknown (a bound reached), never a wrong verdict or a traceback."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
VIEWS = ("public", "tokugawa", "ishida")
QUICK = [
    EXAMPLES / "disputes" / "kuwana-overrun.yaml",
    EXAMPLES / "disputes" / "force-march-after-highway.yaml",
    EXAMPLES / "combat-example.yaml",
    EXAMPLES / "instant-victory.yaml",
    EXAMPLES / "retreat-into-a-held-castle.yaml",
    EXAMPLES / "siege-of-osaka.yaml",
    EXAMPLES / "end-of-week-7.yaml",
]
# Views the search does not settle within its bounds yet (unknown, exit 2: said, never a
# guess): a block drawn early and shown much later (weeks-1-2's muster of blocks recruited
# at the set-up) needs the z3 encoding of docs/hidden.md, not done yet.
NOT_YET = {
    ("weeks-1-2.yaml", "public"),
    ("weeks-1-2.yaml", "ishida"),
    ("movement-example.yaml", "public"),
    ("movement-example.yaml", "tokugawa"),
}

A_POSITION = """game: sekigahara
view: public
position:
  procedure: movement_phase
  args: {active: tokugawa}
  step: moving
  vars: {level: limited}
  state:
    units_at:
      Kiyosu:
        tokugawa: ['?']
events:
- move:
    by: tokugawa
    from: Kiyosu
"""


def run(*argv: str) -> tuple[int, Any]:
    """The command's exit code and JSON (captured here, so that a fixture shared by several
    tests can run it too)."""
    with redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
        code = main([*argv, "--format", "json"])
    assert "Traceback" not in err.getvalue()
    return code, json.loads(out.getvalue())


def hidden(capsys: pytest.CaptureFixture[str], record: Path, view: str, to: Path) -> Path:
    assert main(["hide", str(record), "--view", view, "-o", str(to)]) == 0
    capsys.readouterr()
    return to


def consistent_and_witness_legal(view_record: Path, tmp_path: Path) -> dict[str, Any]:
    witness = tmp_path / "witness.yaml"
    code, out = run("check", str(view_record), "--witness", str(witness))
    assert code == 0 and out["result"]["status"] == "consistent", out["result"].get("failure")
    code, verdict = run("check", str(witness))
    assert code == 0 and verdict["result"]["records"][0]["legal"] is True
    assert "view" not in yaml.safe_load(witness.read_text())
    return dict(out["result"])


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("record", QUICK, ids=lambda p: p.name)
def test_every_quick_example_is_consistent_from_each_view(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: Path, view: str
) -> None:
    result = consistent_and_witness_legal(
        hidden(capsys, record, view, tmp_path / "view.yaml"), tmp_path
    )
    assert result["view"] == view and len(result["assigned"]) <= result["holes"]


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("record", ["weeks-1-2.yaml", "movement-example.yaml"])
def test_the_week_and_the_movement_example_are_never_judged_wrong(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: str, view: str
) -> None:
    """Consistent with a legal witness, or (where NOT_YET says) unknown: never inconsistent.
    The NOT_YET views stay unknown with no time bound at all (weeks-1-2's public view: its
    20,000 judgements spent in some 24 s of processor time, unknown); 20 s never reached them
    either, so 5 s here asks the same verdict of a search cut sooner."""
    view_record = hidden(capsys, EXAMPLES / record, view, tmp_path / "view.yaml")
    if (record, view) not in NOT_YET:
        consistent_and_witness_legal(view_record, tmp_path)
        return
    code, out = run("check", str(view_record), "--timeout", "5")
    assert code == 2 and out["result"]["status"] == "unknown"
    assert "bound" in out["result"]["reason"]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "view.yaml"
    p.write_text(text)
    return p


def moved(path: str) -> str:
    """The lone hidden block at Kiyosu moved along ``path``, leadership declared."""
    return (
        A_POSITION
        + f"    leadership: leader\n    groups:\n    - blocks: ['?']\n      path: [{path}]\n"
    )


def test_a_lone_block_sent_one_location_too_far_is_inconsistent_citing_7_3_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = moved("Kiyosu, Kuwana, Minakuchi, Kyoto, Osaka")
    code, out = run("check", str(write(tmp_path, record)))
    assert code == 1 and out["result"]["status"] == "inconsistent"
    failure = out["result"]["failure"]
    assert failure["index"] == 1 and failure["action"] == "move"
    cites = {v["cites"]: v for v in failure["violations"]}
    # every face tried: a leader breaks 7.3.3 (4 > 3); any other, the leadership declared (7.3.4)
    assert set(cites) == {"7.3.3/within-allowance", "7.3.4/declared-leadership"}
    assert "distance = 4" in cites["7.3.3/within-allowance"]["numbers"]
    assert out["result"]["overlays"]  # the overlays in force, as an illegal verdict says


@pytest.fixture(scope="module")
def moved_three(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The search for a witness of a lone hidden block moved three locations, judged
    consistent with a legal witness once (some 5 s of search): two tests read its result."""
    tmp = tmp_path_factory.mktemp("moved-three")
    return consistent_and_witness_legal(write(tmp, moved("Kiyosu, Kuwana, Minakuchi, Kyoto")), tmp)


def test_a_lone_block_that_moved_three_must_be_a_leader(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, moved_three: dict[str, Any]
) -> None:
    record = moved("Kiyosu, Kuwana, Minakuchi, Kyoto")
    result = moved_three
    facts = [f for f in result["facts"] if f["index"] == 0]
    assert facts == [
        {
            "index": 0,
            "action": "position",
            "text": "position.state.units_at.Kiyosu.tokugawa holds one whose leader is true",
            "cites": ["7.3.4/declared-leadership"],
            "exact": True,
        }
    ]
    assert result["assigned"][0]["values"][0].split("-")[1] == "leader"
    code = main(["check", str(write(tmp_path, record))])
    assert code == 0 and "(every witness)" in capsys.readouterr().out


def mutated(capsys: pytest.CaptureFixture[str], tmp_path: Path, record: str, view: str) -> Any:
    data = yaml.safe_load(hidden(capsys, EXAMPLES / record, view, tmp_path / "v.yaml").read_text())
    return data


def test_a_deployment_of_a_block_the_seat_never_had_is_inconsistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = mutated(capsys, tmp_path, "combat-example.yaml", "tokugawa")
    deploy = next(
        e["deploy"] for e in data["events"] if "deploy" in e and e["deploy"]["by"] == "tokugawa"
    )
    deploy["blocks"] = ["date-leader-circle"]
    code, out = run("check", str(write(tmp_path, yaml.safe_dump(data))))
    # never consistent. Still unknown (exit 2): the check reads in_battle, which the
    # declaration's event wrote after reading the Ishida stack the position's holes fill, and
    # the search charges every write of an event to everything it read (docs/hidden.md)
    assert code in (1, 2) and out["result"]["status"] != "consistent"
    assert out["result"]["failure"]["violations"][0]["cites"] == "8.2.3/undeployed"
    assert out["result"]["failure"]["depends_on"] == [0]  # the position's holes, and no event


def test_a_bid_the_hand_could_not_pay_is_inconsistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = mutated(capsys, tmp_path, "weeks-1-2.yaml", "tokugawa")
    bid = next(e["bid"] for e in data["events"] if "bid" in e)
    assert bid["by"] == "tokugawa"
    bid["card"] = "tokugawa-double"  # not among the five tokugawa's view saw dealt
    code, out = run("check", str(write(tmp_path, yaml.safe_dump(data))), "--timeout", "20")
    # the failing check reads the hand, which no hole marks, and is given the bid's card:
    # a fault the view sees whatever is hidden
    assert code == 1 and out["result"]["status"] == "inconsistent"
    assert out["result"]["failure"]["visible"] is True
    assert out["result"]["failure"]["depends_on"] == []
    assert out["result"]["failure"]["index"] == 24
    assert out["result"]["failure"]["violations"][0]["cites"] == "3.3/in-hand"


def test_a_count_of_cards_above_the_deck_is_never_consistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    deal = "game: sekigahara\nview: public\nevents:\n- deal: {by: tokugawa, cards: 999}\n"
    code, out = run("check", str(write(tmp_path, deal)))
    assert code in (1, 2)
    assert out["errors"] or out["result"]["status"] != "consistent"
    # the components' counts are constraints: 999 cards where the decks hold 110
    assert code == 1 and out["result"]["status"] == "inconsistent"
    failure = out["result"]["failure"]
    assert failure["index"] == 1 and failure["visible"] is True
    assert failure["violations"][0]["cites"] == "components"
    assert failure["violations"][0]["numbers"] == ["card = 999", "the components' card = 110"]


def test_a_witness_fills_a_sides_stack_with_its_own_blocks_only(
    moved_three: dict[str, Any],
) -> None:
    """The owner of each face is the spec's one rule from a face to a side (side_of_block,
    found by its types, not by name): a witness never puts one side's block in the other's
    stack, which the referee itself does not refuse in a position (a gap, docs/hidden.md)."""
    result = moved_three
    faces = {
        f["id"]: f
        for f in yaml.safe_load((ROOT / "referee/games/sekigahara/data/blocks.yaml").read_text())[
            "faces"
        ]
    }
    colours = {faces[v]["colour"] for a in result["assigned"] for v in a["values"]}
    assert colours == {"black"}  # Tokugawa's colour: the stack is Tokugawa's
    assert "face of tokugawa" in result["counts_unchecked"]  # the data give no block counts"


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), view=st.sampled_from(VIEWS))
def test_a_random_game_hidden_from_a_random_view_is_never_inconsistent(
    seed: int, view: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from referee.compile.spec import load_spec
    from referee.hidden.judge import judge_view
    from referee.hidden.search import Limits
    from referee.resolve.overlays import Choice
    from referee.run.play import as_yaml, play

    tmp = tmp_path_factory.mktemp("random")
    spec = load_spec()
    complete = tmp / "game.yaml"
    complete.write_text(as_yaml(play(spec, seed=seed, max_events=40).record(spec, seed)))
    view_record = tmp / "view.yaml"
    assert main(["hide", str(complete), "--view", view, "-o", str(view_record)]) == 0
    j = judge_view(spec, view_record, Choice(None, [], []), Limits(seconds=20))
    assert j.status in ("consistent", "unknown"), j.failure
    if j.status == "consistent":
        witness = tmp / "witness.yaml"
        witness.write_text(as_yaml(j.witness))
        assert main(["-q", "check", str(witness)]) == 0
