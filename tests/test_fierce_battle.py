"""The second game, Fierce Battle at Sekigahara: every numbered clause of its rulebook under
its number, its tables, its scenario files (validated, errors located), its properties
proved, random games on the invented test scenario replayed as legal, and its examples
judged citing their clauses. Nothing of it is in the engine's code."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from referee.cli import main
from referee.compile.spec import SPEC_ROOT, Spec, load_spec
from tests.referee_helpers import EXAMPLES, ROOT, output, verdict_of

GAME = SPEC_ROOT / "fierce-battle"
NUMBERS = ROOT / "tests" / "data" / "fierce-battle-clause-numbers.txt"
FB_EXAMPLES = EXAMPLES / "fierce-battle"


@pytest.fixture(scope="module")
def fb() -> Spec:
    return load_spec(GAME)


def rulebook_numbers() -> list[str]:
    lines = NUMBERS.read_text(encoding="utf-8").splitlines()
    return [n for n in (x.strip() for x in lines) if n and not n.startswith("#")]


def test_every_numbered_clause_is_declared_in_order(
    fb: Spec, capsys: pytest.CaptureFixture[str]
) -> None:
    numbers = rulebook_numbers()
    assert len(numbers) == 108
    assert all(re.fullmatch(r"\d+(-\d+)*", n) for n in numbers)
    assert main(["clauses", "--game", "fierce-battle", "--format", "json"]) == 0
    listed = [row["number"] for row in output(capsys.readouterr().out)]
    assert listed == numbers
    for c in fb.clauses():
        assert c.title and c.summary, c.number


def test_clauses_lists_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "--game", "fierce-battle"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^7-3-1\s+normative\s+\d+\s+Stop on entering$", out, re.M)
    assert re.search(r"^1\s+informative\s+0\s+Introduction$", out, re.M)


def test_fire_table(fb: Spec) -> None:
    rules = fb.interpreter()
    assert [rules.call("fire_column", s) for s in (1, 2, 3, 4, 5, 7, 8, 12, 13, 40)] == [
        0, 1, 2, 2, 3, 3, 4, 4, 5, 5,
    ]  # fmt: skip
    rows = {r: [str(x) for x in rules.call("fire_table", r)] for r in range(2, 13)}
    assert all(len(v) == 6 for v in rows.values())
    assert rows[2] == ["none"] * 5 + ["check0"]
    assert rows[8] == ["none", "check0", "check1", "check2", "check2", "eliminated"]
    assert rows[12] == ["check2"] + ["eliminated"] * 5
    # shifts move the column, and stop at the table's edges (D-shift-edge)
    assert str(rules.call("fire_outcome", 9, 8, 0)) == "check2"
    assert str(rules.call("fire_outcome", 9, 8, -1)) == "check2"
    assert str(rules.call("fire_outcome", 9, 8, 1)) == "eliminated"
    assert str(rules.call("fire_outcome", 1, 12, -3)) == "check2"


def test_melee_table_is_diagonal(fb: Spec) -> None:
    """Each result of the melee table is the one a roll lower gives a column to the right."""
    rules = fb.interpreter()
    rows = {r: [str(x) for x in rules.call("melee_table", r)] for r in range(2, 13)}
    assert all(len(v) == 11 for v in rows.values())
    line = ["ae"] * 5 + ["a2", "a2", "a1", "a1", "b1", "d1", "d1", "d2", "d2"] + ["de"] * 8
    for r in range(2, 13):
        assert rows[r] == [line[r + c - 2] for c in range(11)]
    assert [rules.call("melee_column", d) for d in (-20, -8, -7, -3, -1, 0, 1, 2, 8, 12, 17, 18)] == [
        0, 0, 1, 2, 3, 4, 4, 5, 7, 8, 9, 10,
    ]  # fmt: skip
    assert str(rules.call("melee_outcome", 0, 7, 0)) == "b1"
    assert str(rules.call("melee_outcome", 0, 7, -1)) == "a1"  # across a river, say


def test_participation_tables(fb: Spec) -> None:
    rules = fb.interpreter()
    enum = {v: v for v in ("kobayakawa", "shimazu")}
    assert str(rules.call("pct_result", 1, enum["kobayakawa"], 5)) == "join_east"
    assert str(rules.call("pct_result", 1, enum["kobayakawa"], 6)) == "stay_neutral"
    assert str(rules.call("pct_result", 1, enum["kobayakawa"], 11)) == "join_west"
    assert str(rules.call("pct_result", 2, enum["kobayakawa"], 10)) == "join_west"
    assert str(rules.call("pct_result", 1, enum["shimazu"], -4)) == "stay_neutral"
    assert str(rules.call("pct_result", 2, enum["shimazu"], 8)) == "join_west"


def test_decisions_are_registered(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["overlays", "--game", "fierce-battle", "--format", "json"]) == 0
    rows = output(capsys.readouterr().out)
    ids = {r["id"] for r in rows}
    assert {"D-river-cost", "D-pond-move", "D-retreat-away", "D-pct-column"} <= ids
    assert all(r["kind"] == "decision" for r in rows)


def test_prove(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--game", "fierce-battle"]) == 0
    out = capsys.readouterr().out
    for label in ("5/one-a-hex", "7-3-1/zone-stops", "2-1-1/symmetric", "11/bands"):
        assert re.search(rf"^  {re.escape(label)}\s+proved", out, re.M), label


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "spec"
    shutil.copytree(SPEC_ROOT, root)
    return root / "fierce-battle"


def test_a_broken_rule_fails_its_property(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = _copy(tmp_path)
    rules = game / "clauses" / "04-sequence.rules"
    text = rules.read_text()
    old = "define stops_in_time(zone_step: int, last_step: int): bool = zone_step >= last_step"
    assert old in text
    rules.write_text(text.replace(old, old.replace(">= last_step", ">= last_step - 1")))
    assert main(["prove", "--spec", str(game)]) == 1
    assert re.search(r"7-3-1/zone-stops\s+FAILED", capsys.readouterr().out, re.I)


def _scenario() -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load((GAME / "data" / "scenario.yaml").read_text())
    return data


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / "scenario.yaml").write_text(text)
    assert main(["spec", "check", "--game", "fierce-battle", "--data", str(folder)]) == 2
    return capsys.readouterr().err


def test_the_test_scenario_is_plainly_invented() -> None:
    s = _scenario()
    head = s["scenario"][0]  # type: ignore[index]
    assert head["invented"] is True
    assert "not from the game" in head["title"]
    assert (GAME / "data" / "scenario.yaml").read_text().startswith("# AN INVENTED SCENARIO")
    assert len(s["hexes"]) == 48 and len(s["units"]) == 15  # type: ignore[arg-type]


def test_bad_scenarios_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (GAME / "data" / "scenario.yaml").read_text()
    err = _bad(tmp_path, capsys, text.replace("terrain: pond", "terrain: swamp"))
    assert re.search(r"scenario\.yaml:\d+:\d+: hexes\[\d+\]\.terrain: 'swamp' is not one of", err)
    err = _bad(tmp_path, capsys, text.replace("at: '0805'", "at: '0999'"))
    assert re.search(r"scenario\.yaml:\d+:\d+: units\[10\]\.at: '0999' names no item of hexes", err)
    err = _bad(tmp_path, capsys, text.replace("force: Otani", "force: Otanni"))
    assert "'Otanni' names no item of forces" in err
    err = _bad(tmp_path, capsys, text.replace("turns: 6", "turns: 0"))
    assert re.search(r"scenario\[0\]\.turns: 0 is less than the minimum of 1", err)


def test_a_scenario_of_ones_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A user's scenario replaces the invented one: here a river where there was none makes
    the first example's move too dear."""
    text = (GAME / "data" / "scenario.yaml").read_text()
    text = text.replace(
        "hexsides:\n",
        "hexsides:\n- {name: '0303/0403', a: '0303', b: '0403', river: true}\n"
        "- {name: '0403/0503', a: '0403', b: '0503', river: true}\n",
    )
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "scenario.yaml").write_text(text)
    record = FB_EXAMPLES / "illegal" / "through-a-zone.yaml"
    legal = record.read_text().replace("'0503', '0504'", "'0503'").split("    expect:")[0]
    path = tmp_path / "r.yaml"
    path.write_text(legal)
    assert main(["check", "--game", "fierce-battle", str(path)]) == 0
    assert main(["check", "--game", "fierce-battle", "--data", str(folder), str(path)]) == 1
    out = capsys.readouterr().out
    assert "7-2-1/within-allowance" in out
    assert "spent 5 movement points; its allowance is 4" in out


@pytest.mark.parametrize("seed", range(4))
def test_random_games_replay_as_legal(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--game", "fierce-battle", "--seed", str(seed)]) == 0
    text = capsys.readouterr().out
    assert "stopped: the game is over" in text
    events = yaml.safe_load(text)["events"]
    kinds = {next(iter(e)) for e in events}
    assert {"move", "end_movement", "end_phase"} <= kinds
    path = tmp_path / "game.yaml"
    path.write_text(text)
    assert main(["check", str(path)]) == 0


def test_random_games_fight() -> None:
    """Across a few seeds the random games fire, melee and check morale: combat is played."""
    from referee.run.play import play

    spec = load_spec(GAME)
    told: set[str] = set()
    for seed in range(6):
        game = play(spec, seed, "")
        record = game.record(spec, seed)
        told |= {next(iter(e)) for e in record["events"]}
    assert {"fire", "melee"} <= told


ILLEGAL = sorted((FB_EXAMPLES / "illegal").glob("*.yaml"))


@pytest.mark.parametrize("path", ILLEGAL, ids=[p.stem for p in ILLEGAL])
def test_illegal_examples_cite_their_clause(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cited = re.match(r"# Illegal \(([^)]+)\)", path.read_text()).group(1)  # type: ignore[union-attr]
    # a clause and its label, or a clause alone (an event out of sequence, after the game's end)
    clause, _, label = cited.partition("/")
    assert main(["check", str(path), "--format", "json"]) == 1
    verdict = verdict_of(capsys.readouterr().out)
    assert verdict["violations"][0]["label"] == label
    assert verdict["violations"][0]["clause"] == clause


def test_every_chapter_with_rules_has_an_illegal_example() -> None:
    chapters = {re.match(r"# Illegal \((\d+)", p.read_text()).group(1) for p in ILLEGAL}  # type: ignore[union-attr]
    # chapters 1, 3 and 6 have no rule a record can break (docs/fierce-battle.md says why)
    assert chapters == {"2", "4", "5", "7", "8", "9", "10", "11", "12", "14", "15", "17", "18"}


LEGAL = sorted(FB_EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("path", LEGAL, ids=[p.stem for p in LEGAL])
def test_legal_examples_meet_their_expectations(path: Path) -> None:
    assert main(["check", str(path)]) == 0


def test_an_enemy_entering_a_palisade_removes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {
        "game": "fierce-battle",
        "position": {
            "procedure": "movement_phase",
            "args": {"active": "east"},
            "state": {
                "unit_at": {
                    "ishida_ashigaru_1": "0806",
                    "ishida_teppo_1": "0801",
                    "ishida_ashigaru_2": "0804",
                },
                "eliminated": {"otani_taisho": True},
            },
        },
        "events": [
            {"move": {"by": "east", "unit": "tokugawa_ashigaru_1", "path": ["0203", "0303"]}},
            {"move": {"by": "east", "unit": "kuroda_ashigaru_1", "path": ["0305", "0404"]}},
        ],
    }
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(record))
    assert main(["check", str(path)]) == 1  # the pond
    assert "7-2-2/no-pond" in capsys.readouterr().out
    events = record["events"]
    events[1] = {"move": {"by": "east", "unit": "kuroda_ashigaru_1", "path": ["0305", "0405"]}}
    events[0] = {
        "move": {"by": "east", "unit": "tokugawa_ashigaru_1", "path": ["0203", "0303", "0403"]}
    }
    events.append({"end_movement": {"by": "east"}})
    path.write_text(yaml.safe_dump(record))
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    # the palisade at 0603 is the West's: an Eastern unit entering it removes it
    record["position"]["state"]["unit_at"]["tokugawa_ashigaru_1"] = "0503"  # type: ignore[index]
    record["events"] = [
        {
            "move": {"by": "east", "unit": "tokugawa_ashigaru_1", "path": ["0503", "0603"]},
            "expect": {"happened": ["7-2-1/moved", "18-3/removed"]},
        }
    ]
    path.write_text(yaml.safe_dump(record))
    assert main(["check", str(path), "--explain"]) == 0
    assert "18-3/removed: tokugawa_ashigaru_1 enters 0603: its palisade is removed" in (
        capsys.readouterr().out
    )


def test_a_joined_force_moves_before_the_phasing_side_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """17-1-4 (D-joined-move): a force a check joins to the East moves in the West's phase,
    by the East, until the East ends its moves or the West moves a unit of its own (the
    normal movement has begun): 17-1-4 refuses either late move."""
    check = {"participation_check": {"by": "west", "force": "kobayakawa", "dice": [2, 2]}}
    late = {"move": {"by": "east", "unit": "kobayakawa_taisho", "path": ["0803", "0804"]}}
    path = tmp_path / "r.yaml"

    def judge(*events: dict[str, object]) -> dict[str, object]:
        record = {
            "game": "fierce-battle",
            "position": {
                "procedure": "movement_phase",
                "args": {"active": "west"},
                "state": {"turn": 4, "unit_at": {"kobayakawa_taisho": "0803"}},
            },
            "events": [check, *events],
        }
        path.write_text(yaml.safe_dump(record))
        main(["check", str(path), "--format", "json"])
        return verdict_of(capsys.readouterr().out)

    assert not judge(late).get("violations")
    ours = {"move": {"by": "west", "unit": "ishida_ashigaru_2", "path": ["0604", "0605"]}}
    first_violation = judge({"end_movement": {"by": "east"}}, late)["violations"][0]  # type: ignore[index]
    assert (first_violation["index"], first_violation["cites"]) == (3, "17-1-4/still-moving")
    assert "end_movement" in first_violation["message"]
    first_violation = judge(ours, late)["violations"][0]  # type: ignore[index]
    assert (first_violation["index"], first_violation["cites"]) == (3, "17-1-4/before-movement")
    assert "ishida_ashigaru_2" in first_violation["message"]
    own = {"participation_check": {"by": "east", "force": "akaza", "dice": [2, 2]}}
    first_violation = judge(own)["violations"][0]  # type: ignore[index]
    assert (first_violation["clause"], first_violation["label"]) == ("7", "phasing")


@pytest.mark.parametrize(
    ("first", "verdict"),
    [
        (None, None),
        (
            {"move": {"by": "east", "unit": "tokugawa_ashigaru_1", "path": ["0203", "0303"]}},
            (3, "7-3-2/locked"),
        ),
    ],
    ids=["joined-force-first", "after-the-normal-movement-began"],
)
def test_a_joined_force_in_an_enemy_zone_moves_only_before_the_normal_movement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first: object, verdict: object
) -> None:
    """D-joined-lock: Kobayakawa joins the East beside Ishida's taisho. Its taisho may move as
    the joined force's move, before the normal movement; once an Eastern unit of the normal
    movement has moved, 7-3-2 holds it, in an enemy zone when that movement began."""
    record = yaml.safe_load(
        (ROOT / "examples" / "fierce-battle" / "kobayakawa-joins.yaml").read_text()
    )
    move = record["events"][1]
    move.pop("expect")
    events = [
        record["events"][0],
        *([first] if first else []),
        move,
        {"end_movement": {"by": "east"}},
    ]
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump({**record, "events": events}))
    code = main(["check", str(path), "--format", "json"])
    out = verdict_of(capsys.readouterr().out)
    if verdict is None:
        assert code == 0, out.get("violations")
        assert "D-joined-lock" in out["relied"]
        return
    first_violation = out["violations"][0]
    assert code == 1
    assert (first_violation["index"], first_violation["cites"]) == verdict


MIXED = (
    ROOT / "tests" / "readings" / "fb-c" / "with-data" / "07-mixed-combined-attack-low-morale.yaml"
)


@pytest.mark.parametrize("overlay", [[], ["--no-overlay", "D-mixed-morale"]], ids=["on", "off"])
def test_a_combined_attack_shifts_alike_in_either_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], overlay: list[str]
) -> None:
    """Ishida (spared by 12-3) and the Nanategumi (not) at low morale: the column shift is
    the same whichever attacker is named first; D-mixed-morale decides which it is. Off, the
    result is D1: the defender alone checks (10-3-2), so the record gives the attackers no die."""
    record = yaml.safe_load(MIXED.read_text(encoding="utf-8"))
    melee = record["events"][0]["melee"]
    melee.pop("attackers"), melee.pop("attacker_dice")
    record["events"] = [record["events"][0]]
    record["events"][0].pop("expect")
    shifts = []
    for attackers, dice in (
        (["ishida_ashigaru_1", "nanategumi_ashigaru_1"], [1, 6]),
        (["nanategumi_ashigaru_1", "ishida_ashigaru_1"], [6, 1]),
    ):
        melee.update(attackers=attackers, attacker_dice=[] if overlay else dice)
        path = tmp_path / "mixed.yaml"
        path.write_text(yaml.safe_dump(record), encoding="utf-8")
        data = ["--data", str(MIXED.parent.parent / "data")]
        assert main(["check", str(path), "--explain", *data, *overlay]) == 0
        out = capsys.readouterr().out
        shifts.append(re.search(r"column shift (-?\d+): (\w+)", out).groups())  # type: ignore[union-attr]
    assert shifts[0] == shifts[1] == (("-1", "b1") if not overlay else ("0", "d1"))


READINGS = ROOT / "tests" / "readings"
FB_M = "fb-m/with-data/"


@pytest.mark.parametrize(
    ("record", "decision", "on", "off", "relied"),
    [
        # 9-1-2: once in the two fire phases of a turn, or once in each
        ("fb-i/08-teppo-fires-in-attack-and-defence", "D-fire-once-a-turn", (4, "9-1-2/fires-once"), None, True),
        # a fire on the next turn: the decision decides nothing
        ("fb-i/09-teppo-fires-in-defence-then-next-turns-attack", "D-fire-once-a-turn", None, None, False),
        # 14-1 with 17-1-1: a neutral Shimazu zone stops no move, or stops it as an enemy's
        ("fb-i/14-move-through-the-neutral-shimazu-zone", "D-shimazu-move", None, (1, "7-3-1/stop"), True),
        # 11-1-2 with 11-2: a retreat passes no friend, or passes it as a move does
        ("fb-i/15-retreat-through-a-friend", "D-retreat-past-friends", (1, "11-1-2/open-way"), None, True),
        # 12-1, 12-2 with 18-2: the track's taisho points drive army morale, or every unit's
        (FB_M + "37-unit-losses-do-not-demoralize", "D-score-basis", None, (1, "12-2/shift-heeded"), True),
        # 12-1 (2): low morale shifts the attacker's melee, or the defender's too
        (FB_M + "55-low-morale-defender-unshifted", "D-low-morale-melee", None, (1, "11/none-due"), True),
        # a fire at a unit of a side at low morale: the melee decision decides nothing
        (FB_M + "44-low-morale-in-defensive-fire-too", "D-low-morale-melee", (1, "12-1/shift-heeded"), (1, "12-1/shift-heeded"), False),
        # 14-2-1: the breakout after demoralization or on turn 9, whichever first, or both
        (FB_M + "19-breakout-the-turn-after", "D-breakout-first", None, (1, "17-1/takes-no-part"), True),
        # 14-2-1: only a neutral Shimazu breaks out, or one joined to the East too
        (FB_M + "53-west-moves-shimazu-joined-to-the-east", "D-breakout-neutral", (1, "2-2-1/own-unit"), None, True),
        # 14-2-2 (4): only Western units in all the Shimazu zones, or in the one unit's
        (FB_M + "54-east-fires-with-shimazu-an-eastern-unit-in-another-zone", "D-breakout-zones", (1, "14-2-2/east-use"), None, True),
        # 14-2-2 (4): the East melees with Shimazu in its defensive fire too, or only in attack
        (FB_M + "24-east-melees-with-shimazu-in-its-defensive-fire", "D-breakout-melee", None, (1, "10/in-attack"), True),
        # 14-1 (2): the attacker's units are struck, or every non-Shimazu unit
        (FB_M + "52-east-unit-in-the-zone-in-its-own-defensive-fire", "D-shimazu-targets", None, (2, "14-1/all-struck"), True),
        # 14-1 (2) with 9: only a teppo or taiho strikes by fire, or any Shimazu unit
        (FB_M + "42-shimazu-ashigaru-strikes-by-fire", "D-shimazu-fire", (1, "14-1/fire-kind"), None, True),
        # 11-1-5: a retreat given a unit out of command is refused, or set aside
        (FB_M + "30-hideyori-commands-the-nanategumi", "D-out-of-command-given", (1, "11-1-5/no-retreat"), None, True),
        # no retreat given: the decision decides nothing
        (FB_M + "49-hideyori-commands-the-nanategumi-no-retreat-given", "D-out-of-command-given", None, None, False),
        # 17-1-3: high losses are low morale, or demoralization
        (FB_M + "56-high-losses-at-low-morale", "D-high-losses", None, (2, "17-1/takes-no-part"), True),
        # 8-1-2 with 18-4: a Mori sub-force's own taisho, or any of the three
        ("../fb-scenarios/mori/04-another-sub-forces-taisho-lost", "D-subforce-taisho", None, (1, "11-1-5/no-retreat"), True),
    ],
)  # fmt: skip
def test_a_decision_and_the_other_reading(
    record: str,
    decision: str,
    on: tuple[int, str] | None,
    off: tuple[int, str] | None,
    relied: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each reading issue 27 asked to register, judged under the decision and with it switched
    off: the verdict each reading gives, and the decision named where it decides."""
    path = READINGS / f"{record}.yaml"
    # a reading's components beside its folder (with-data/), or a scenario's in its own
    folder = path.parent.parent if path.parent.name == "with-data" else path.parent
    data = ["--data", str(folder / "data")] if (folder / "data").is_dir() else []
    for overlay, verdict in (([], on), (["--no-overlay", decision], off)):
        code = main(["check", str(path), "--format", "json", *data, *overlay])
        out = verdict_of(capsys.readouterr().out)
        if verdict is None:
            assert code == 0, out.get("violations")
        else:
            assert code == 1, out
            first = out["violations"][0]
            assert (first["index"], first["cites"]) == verdict, first["message"]
        assert (decision in out["relied"]) == (relied and not overlay), out["relied"]


def test_the_legal_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(FB_EXAMPLES / "first-turn.yaml"), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "9-2/fired: [ishida_teppo_1] fire at tokugawa_teppo_1: strength 3, dice [5, 4]" in out
    assert "11-1-4/held: ishida_ashigaru_1 stands in a palisade hex" in out


def test_the_engine_names_nothing_of_this_game() -> None:
    s = _scenario()
    words = {f["name"] for f in s["forces"]}  # type: ignore[attr-defined, union-attr]
    words |= {"Shimazu", "Kobayakawa", "Mori", "Yoshikawa", "Akaza", "Chosokabe", "Nabeshima"}
    words |= {"taisho", "samurai", "busho", "ashigaru", "teppo", "taiho", "Isekaido"}
    pattern = re.compile(r"\b(" + "|".join(sorted(words)) + r")\b", re.I)
    hits = [
        f"{p.name}:{n}"
        for p in (ROOT / "referee").rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


@pytest.mark.parametrize(
    ("command", "page"),
    [("clauses", "fierce-battle-clauses.md"), ("overlays", "fierce-battle-rulings.md")],
)
def test_generated_pages_are_current(
    command: str, page: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main([command, "--game", "fierce-battle", "--format", "markdown"]) == 0
    generated = capsys.readouterr().out
    assert (ROOT / "docs" / page).read_text() == generated, (
        f"docs/{page} is stale: run `referee {command} --game fierce-battle --format markdown"
        f" > docs/{page}`"
    )


@pytest.mark.parametrize(
    ("record", "message"),
    [
        # 12-1: which column calls for the check, in words
        ("44-low-morale-in-defensive-fire-too", "the result there calls for none, the column unshifted calls for a morale check;"),
        # 12-2: the same, for demoralization's shift
        ("06-demoralized-target-check-left-out", "the result there calls for a morale check, the column unshifted calls for none;"),
        # 14-1: the kind named without an article
        ("42-shimazu-ashigaru-strikes-by-fire", "shimazu_ashigaru_1 (ashigaru) strikes by melee"),
        # 9-1-2: for whom and in which phase the unit fired
        ("47-shimazu-teppo-fires-for-both-sides-in-a-turn", "has already fired this turn, for the east in its attack phase"),
        # 14-1: a second strike, after the strikes are over
        ("13-shimazu-strikes-a-unit-twice", "it strikes each unit in its zones once, at the start of a defensive fire phase"),
    ],
)  # fmt: skip
def test_a_refusal_says_what_happened(
    record: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = READINGS / f"{FB_M}{record}.yaml"
    code = main(
        ["check", str(path), "--format", "json", "--data", str(path.parent.parent / "data")]
    )
    out = verdict_of(capsys.readouterr().out)
    assert code == 1 and message in out["violations"][0]["message"], out["violations"][0]
