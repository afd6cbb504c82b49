"""The kinds of rule the eight scenarios of Fierce Battle at Sekigahara use, each stated in a
small invented scenario file (tests/fb-scenarios/<name>/data) and judged on records that are
legal or illegal because of it: a threshold victory, an elimination victory, the turn track's
activation notes set aside, forces made active when a neutral force of a named area joins a
side, a modifier to every participation check, and forces that may not attack others; and the
components the rules read from a scenario: sub-forces of one force (18-4), each force's set-up
hexes (18-1 (2)), the grid's orientation and the seams of two map sheets (2-1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.cli import main
from tests.referee_helpers import verdict_of

FOLDER = Path(__file__).resolve().parent / "fb-scenarios"
RECORDS = sorted(FOLDER.glob("*/*.yaml"))
EXPECT = re.compile(r"^# expect: (legal|illegal (\S+) at event (\d+))$", re.M)
SUMMARY = re.compile(r"^# summary: (.+)$", re.M)
# the records whose verdict differs on the bundled invented scenario, which has none of these
# rules: the kind of rule is what decides them
DIFFERS = {
    "nangu/01-plus-one-joins-the-west",
    "nangu/03-tokugawa-not-roused",
    "sennari/01-kuroda-spares-ishida",
    "sennari/03-otani-active-on-turn-1",
    "sennari/04-tokugawa-waits-for-turn-3",
    "sennari/05-west-loses-without-the-taisho",
    "sennari/06-west-wins-with-the-taisho",
    "threshold/01-west-reaches-the-threshold",
    "threshold/02-west-falls-short",
    # the bundled grid's even columns sit lower
    "grid/01-a-step-the-odd-columns-give",
    "grid/02-a-step-the-even-columns-give",
    # units and hexes the bundled scenario does not have
    "mori/01-sub-forces-attack-together",
    "mori/02-a-sub-force-and-another-force",
    "mori/03-the-neutral-sub-force-stays",
    "mori/04-another-sub-forces-taisho-lost",
    "mori/05-its-own-taisho-lost",
    "sheets/01-across-the-join-of-two-sheets",
    "sheets/02-a-taiho-two-hexes-across-the-join",
    "sheets/03-a-taiho-three-hexes-across-the-join",
    # the bundled scenario has no set-up hexes: no deploy event, the game starts at once
    "setup/01-placed-within-the-set-up-hexes",
    "setup/04-no-set-up-given",
}


def _name(p: Path) -> str:
    return str(p.relative_to(FOLDER).with_suffix(""))


def _check(path: Path, capsys: pytest.CaptureFixture[str], *data: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["check", str(path), "--game", "fierce-battle", "--format", "json", *data])
    return code, verdict_of(capsys.readouterr().out)


@pytest.mark.parametrize("path", RECORDS, ids=[_name(p) for p in RECORDS])
def test_scenario_rule_decides(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = path.read_text()
    m = EXPECT.search(text)
    assert m, f"{path.name} states no expected verdict"
    code, out = _check(path, capsys, "--data", str(path.parent / "data"))
    if m.group(1) == "legal":
        assert code == 0, out.get("violations")
        said = SUMMARY.search(text)
        if said:
            assert said.group(1) in out["summary"], out["summary"]
    else:
        assert code == 1, out
        first = out["violations"][0]
        assert (first["index"], first["cites"]) == (int(m.group(3)), m.group(2)), first["message"]
    bundled, _ = _check(path, capsys)
    assert (bundled != code) == (_name(path) in DIFFERS)


def test_every_kind_is_tested() -> None:
    assert {p.parent.name for p in RECORDS} == {
        "grid",
        "mori",
        "nangu",
        "sennari",
        "setup",
        "sheets",
        "threshold",
    }
    assert set(DIFFERS) <= {_name(p) for p in RECORDS}


def _bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, old: str, new: str
) -> str:
    text = (FOLDER / folder / "data" / "scenario.yaml").read_text()
    assert old in text
    mine = tmp_path / folder
    mine.mkdir(exist_ok=True)
    (mine / "scenario.yaml").write_text(text.replace(old, new))
    assert main(["spec", "check", "--game", "fierce-battle", "--data", str(mine)]) == 2
    return capsys.readouterr().err


def test_bad_scenario_rules_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _bad(tmp_path, capsys, "threshold", "  victory_score: 4\n", "")
    assert re.search(r"scenario\.yaml:\d+:\d+: scenario\[0\]: 'victory_score' is missing", err), err
    err = _bad(tmp_path, capsys, "sennari", "spares: [Ishida]", "spares: [Ishidda]")
    assert re.search(
        r"scenario\.yaml:\d+:\d+: restraints\[0\]\.spares\[0\]: 'Ishidda' names no item of forces",
        err,
    ), err
    err = _bad(
        tmp_path, capsys, "nangu", "area: ridge}\n- {name: '0802'", "area: rigde}\n- {name: '0802'"
    )
    assert "'rigde' names no item of areas" in err, err
    err = _bad(tmp_path, capsys, "nangu", "participation_modifier: 1", "participation_modifier: 13")
    assert "participation_modifier: 13 is greater than the maximum of 12" in err, err
    err = _bad(tmp_path, capsys, "sennari", "victory: elimination", "victory: sudden")
    assert "scenario[0].victory: 'sudden' is not one of" in err, err
    err = _bad(tmp_path, capsys, "sheets", "b: '2-0101'}", "b: '2-0909'}")
    assert re.search(r"seams\[0\]\.b: '2-0909' names no item of hexes", err), err
    err = _bad(tmp_path, capsys, "setup", "{name: Kuroda, hexes:", "{name: Kurodda, hexes:")
    assert re.search(r"deployment\[1\]\.name: 'Kurodda' names no item of forces", err), err
    err = _bad(tmp_path, capsys, "setup", "'0305', '0306'", "'0305', '0399'")
    assert re.search(r"deployment\[1\]\.hexes\[3\]: '0399' names no item of hexes", err), err
    err = _bad(tmp_path, capsys, "grid", "lower_columns: odd", "lower_columns: left")
    assert "scenario[0].lower_columns: 'left' is not one of" in err, err


@pytest.mark.parametrize(
    "folder", ["grid", "mori", "nangu", "sennari", "setup", "sheets", "threshold"]
)
def test_random_games_on_the_scenarios_replay_as_legal(
    folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data", str(FOLDER / folder / "data")]
    # seed 1 ends in a win on every scenario but mori, seed 2 there (seed 0 draws on grid and
    # mori since the decks, bags and dice are shuffled from the seed; mori's seed 1 draws since
    # the fb-m reading's fixes, 11-1-5 and 12-2 refusing more, changed which proposals pass)
    seed = "2" if folder == "mori" else "1"
    assert main(["play", "--game", "fierce-battle", "--seed", seed, *data]) == 0
    path = tmp_path / "game.yaml"
    path.write_text(capsys.readouterr().out)
    code, out = _check(path, capsys, *data)
    assert code == 0, out.get("violations")
    assert "wins" in out["summary"], out["summary"]


def test_a_scenario_may_leave_out_what_it_does_not_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No exits, no holdouts, a force without its activation turn (17-2-1's turn 2), a unit
    without points or morale: the file is still a scenario, and the rules read the defaults."""
    text = (FOLDER.parent.parent / "referee/games/fierce-battle/data/scenario.yaml").read_text()
    for old, new in [
        ("exits:\n- {name: '0106'}\n", ""),
        ("holdouts:\n- {name: kobayakawa_ashigaru_1}\n", ""),
        (
            "{name: Otani, side: west, activation: 2, neutral: false}",
            "{name: Otani, side: west, neutral: false}",
        ),
        ("morale: null, movement: 2, command: 0, points: 1,", "movement: 2,"),
    ]:
        assert old in text
        text = text.replace(old, new)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "scenario.yaml").write_text(text)
    assert main(["spec", "check", "--game", "fierce-battle", "--data", str(mine)]) == 0
    assert "0 holdouts" not in capsys.readouterr().out
    record = FOLDER / "sennari" / "03-otani-active-on-turn-1.yaml"  # Otani moves on turn 1
    code, out = _check(record, capsys, "--data", str(mine))
    assert code == 1
    assert out["violations"][0]["cites"] == "17-2-1/active"
    assert "not active before turn 2" in out["violations"][0]["message"]


def _variant(tmp_path: Path, folder: str, *changes: tuple[str, str]) -> list[str]:
    """The --data of a copy of a folder's scenario file with some text changed."""
    text = (FOLDER / folder / "data" / "scenario.yaml").read_text()
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    mine = tmp_path / folder
    mine.mkdir()
    (mine / "scenario.yaml").write_text(text)
    return ["--data", str(mine)]


def test_sub_forces_are_one_force_only_when_the_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """18-4: Terumoto's and Hidemoto's sub-forces, each named `of: Mori`, melee together; the
    same forces without it are two forces, which 8-2 keeps apart."""
    record = FOLDER / "mori" / "01-sub-forces-attack-together.yaml"
    data = _variant(
        tmp_path,
        "mori",
        ("{name: Terumoto, of: Mori,", "{name: Terumoto,"),
        ("{name: Hidemoto, of: Mori, side: west, activation: 1, neutral: true}",
         "{name: Hidemoto, side: west, activation: 1, neutral: false}"),
    )  # fmt: skip
    code, out = _check(record, capsys, *data)
    assert code == 1
    first = out["violations"][0]
    assert (first["index"], first["cites"]) == (1, "8-2/one-force"), first["message"]
    assert "[Terumoto, Hidemoto]" in first["message"]


def test_set_up_hexes_bind_the_files_own_starting_hexes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """18-1 (2): a unit whose starting hex in the file lies outside its force's set-up hexes,
    left where it is by both deploy events, is refused when the set-up is complete."""
    data = _variant(tmp_path, "setup", ("at: '0203'}", "at: '0303'}"))
    record = tmp_path / "r.yaml"
    record.write_text(
        "game: fierce-battle\nevents:\n  - deploy: {by: east}\n  - deploy: {by: west}\n"
    )
    code, out = _check(record, capsys, *data)
    assert code == 1
    first = out["violations"][0]
    assert (first["index"], first["cites"]) == (2, "18-1/set-up"), first["message"]
    assert "tokugawa_ashigaru_1 is set up at 0303" in first["message"]
