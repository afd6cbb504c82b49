"""What happened at each event (`tell`, `--explain`, outcomes in JSON), expected outcomes in
records (`expect:`), and the decisive numbers of a refusal (`--trace` for the rest)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from referee_helpers import EXAMPLES, example, judge

from referee.cli import main


def _told(verdict: dict[str, Any], index: int) -> list[dict[str, Any]]:
    return next(o["outcome"] for o in verdict["outcomes"] if o["index"] == index)


# ---------------------------------------------------------------- the two disputes


def test_four_blocks_into_one_at_kuwana_settled_unasked(capsys: pytest.CaptureFixture[str]) -> None:
    """A dispute (a position and one event) is told what happened without --explain."""
    code = main(["check", str(EXAMPLES / "disputes" / "kuwana-overrun.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert "what happened:" in out
    assert (
        "7.4.2/overrun: Kuwana: tokugawa's 4 block(s) overrun ishida's 1 (at least 4 to 1);"
        " destroyed: [ukita-2]; cards due to ishida: 0"
    ) in out


def test_kuwana_overrun_numbers_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, example("disputes/kuwana-overrun.yaml"))
    assert code == 0
    overrun = next(t for t in _told(v, 1) if t["cites"] == "7.4.2/overrun")
    assert overrun["values"] == {
        "l": "Kuwana",
        "s": "tokugawa",
        "own_blocks": 4,
        "enemy": "ishida",
        "enemy_blocks": 1,
        "overrun_ratio": 4,
        "destroyed": ["ukita-2"],
        "cards_due": 0,
    }
    assert v["outcomes"][0]["action"] == "move"


def test_force_march_after_highway_bonus(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", str(EXAMPLES / "disputes" / "force-march-after-highway.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "7.3.3/allowance: [fukushima-2, fukushima-3] from Kiyosu to Kyoto: 3 location(s) of an"
        " allowance of 3 = base 1 + highway 1 + leadership 0 + force march 1 - size 0"
    ) in out


def test_force_march_three_off_the_highway_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same force march for three locations off the Tokaido (Kiyosu, Kuwana, Anotsu,
    Kumano): no highway bonus, so an allowance of 2."""
    record = example("disputes/force-march-after-highway.yaml")
    group = record["events"][0]["move"]["groups"][0]
    group["path"] = ["Kiyosu", "Kuwana", "Anotsu", "Kumano"]
    del record["events"][0]["expect"]
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    assert v["violations"][0]["cites"] == "7.3.3/within-allowance"
    assert (
        "allowance 2 = base 1 + highway 0 + leadership 0 + force march 1"
        in (v["violations"][0]["message"])
    )


# ---------------------------------------------------------------- outcomes of a battle


def test_combat_example_outcomes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, example("combat-example.yaml"))
    assert code == 0
    impact = _told(v, 4)[0]
    assert impact["cites"] == "8.3.1/impact"
    assert impact["values"] == {
        "by": "ishida",
        "blocks": ["ukita-2", "ukita-2-square"],
        "card_played": "ukita-double",
        "impact": 5,
        "mon": 4,
        "daimyo_bonus": 1,
        "special_bonus": 0,
        "total": 6,
    }
    end = {t["label"]: t["values"] for t in _told(v, 11)}
    assert end["result"]["winner"] == "tokugawa"
    assert (end["result"]["attacker_impact"], end["result"]["defender_impact"]) == (13, 13)
    due = [t["values"] for t in _told(v, 11) if t["label"] == "losses-due"]
    assert [(d["s"], d["due"]) for d in due] == [("ishida", 2), ("tokugawa", 1)]
    cards = [t["values"] for t in _told(v, 14) if t["label"] == "cards-due"]
    assert [(c["s"], c["due"], c["played"], c["lost"]) for c in cards] == [
        ("ishida", 4, 3, 2),
        ("tokugawa", 4, 4, 1),
    ]


def test_explain_flag_tells_a_whole_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "weeks-1-2.yaml")]) == 0
    assert "what happened" not in capsys.readouterr().out  # from the set-up: not unasked
    main(["check", "--explain", str(EXAMPLES / "combat-example.yaml")])
    out = capsys.readouterr().out
    assert "8.2.1/result: battle at Sawayama: ishida (attacker) 13 Impact," in out
    assert "8.8.2/destinations: ishida retreats from Sawayama" in out


def test_a_legal_record_from_a_position_tells_what_happened_however_long(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: a legal verdict of a record from a position says what happened unasked,
    whatever its number of events (16 here); the same as --explain."""
    monkeypatch.chdir(EXAMPLES.parent)
    assert main(["check", "examples/combat-example.yaml"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "examples/combat-example.yaml: legal: 16 event(s); week 1\n  what happened:\n"
        "    event 2 (deploy, line 23):\n      8.3.1/impact: ishida deploys [mori-leader-triangle]"
    )
    assert "8.2.1/result: battle at Sawayama: ishida (attacker) 13 Impact," in out
    assert out.count("\n    event ") == 11
    assert main(["check", "--explain", "examples/combat-example.yaml"]) == 0
    assert capsys.readouterr().out == out


def test_instant_win_and_final_score_are_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, v = judge(tmp_path, capsys, example("instant-victory.yaml"))
    assert [t["cites"] for t in _told(v, 9)] == ["2.1/instant-win"]
    assert _told(v, 9)[0]["values"]["instant_victor"] == "tokugawa"
    _, v = judge(tmp_path, capsys, example("end-of-week-7.yaml"))
    score = next(t for o in v["outcomes"] for t in o["outcome"] if t["label"] == "score")
    assert score["values"]["tokugawa"] == 13 and score["values"]["ishida"] == 13
    assert score["values"]["winner"] == "ishida"


def test_siege_outcome_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, v = judge(tmp_path, capsys, example("siege-of-osaka.yaml"))
    told = {t["cites"]: t["values"] for t in _told(v, 5)}
    assert told["8.9.4/still-besieged"]["disks"] == 1
    assert told["8.10/siege-cards-due"]["defender_due"] == 1


def test_a_refused_event_has_no_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, example("illegal/movement-too-far.yaml"))
    assert code == 1
    assert [o["index"] for o in v["outcomes"]] == [1]


# ---------------------------------------------------------------- expect:


def test_every_example_states_its_key_outcomes() -> None:
    """Each record in examples/ has `expect:` beside some event, and is judged with them."""
    records = sorted(EXAMPLES.rglob("*.yaml"))
    assert len(records) > 60
    lacking = [str(p) for p in records if "expect:" not in p.read_text()]
    assert lacking == []


@pytest.mark.parametrize(
    "name", ["combat-example.yaml", "full-game.yaml", "disputes/kuwana-overrun.yaml"]
)
def test_every_legal_example_meets_its_expectations(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, v = judge(tmp_path, capsys, example(name))
    assert code == 0, v["violations"]


def test_one_expected_value_changed_is_a_miss_naming_the_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = example("combat-example.yaml")
    finish = next(
        e for e in record["events"] if "expect" in e and "loss_due(ishida)" in e["expect"]
    )
    finish["expect"]["loss_due(ishida)"] = 3
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    miss = v["violations"][0]
    assert miss["kind"] == "expectation"
    assert miss["clause"] == "8.7.1"  # the step that computes it (8.2.1 declares it)
    assert miss["message"] == "expected loss_due(ishida) = 3; the rules give 2"
    assert miss["expectation"] == {"key": "loss_due(ishida)", "expected": 3, "found": 2}
    assert miss["numbers"] == ["loss_due(ishida) = 2: set by 8.7.1"]


def checked_in_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: dict[str, Any]
) -> tuple[int, str, str]:
    """`referee check` on the record, in text: the exit code, standard output and error."""
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(record, sort_keys=False))
    code = main(["check", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_miss_in_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = example("disputes/kuwana-overrun.yaml")
    record["events"][0]["expect"] = {"blocks(Kuwana, tokugawa)": 3}
    code, out, _ = checked_in_text(tmp_path, capsys, record)
    assert code == 1
    assert "event 1 (move) misses an expectation: 4.1 (Locations in general)" in out
    assert "expected blocks(Kuwana, tokugawa) = 3; the rules give 4" in out
    assert "blocks(l: Kuwana, s: tokugawa) = 4  (4.1)" in out
    assert "after that event:" in out


def test_lists_are_compared_whatever_their_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = example("disputes/kuwana-overrun.yaml")
    record["events"][0]["expect"] = {
        "units_at(Kuwana, tokugawa)": ["fukushima-3", "tokugawa-2", "fukushima-2", "tokugawa-3"]
    }
    assert judge(tmp_path, capsys, record)[0] == 0
    record["events"][0]["expect"] = {
        "units_at(Kuwana, tokugawa)": ["fukushima-3", "tokugawa-2", "fukushima-2"]
    }
    assert judge(tmp_path, capsys, record)[0] == 1


@pytest.mark.parametrize(
    ("expect", "code", "message"),
    [
        ({"happened": ["7.4.2/overrun"]}, 0, ""),
        ({"not_happened": ["7.4.2/overrun"]}, 1, "7.4.2/overrun was told"),
        ({"happened": []}, 1, "expected happened: nothing was told"),
        ({"happened": ["8.2.1/result"]}, 1, "8.2.1/result was not told"),
        ({"castle_owner(Kuwana)": None}, 0, ""),
        ({"week": 1, "size(hand(tokugawa))": 1}, 0, ""),
    ],
)
def test_happened_and_other_keys(
    expect: dict[str, Any],
    code: int,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = example("disputes/kuwana-overrun.yaml")
    record["events"][0]["expect"] = expect
    got, v = judge(tmp_path, capsys, record)
    assert got == code, v
    if message:
        assert message in v["violations"][0]["message"]


def test_a_key_may_read_the_running_procedure_s_variables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the move, the movement phase runs on: its count of moves can be expected; a
    variable of a procedure not running is the record's fault, said at the key."""
    record = example("disputes/kuwana-overrun.yaml")
    record["events"][0]["expect"] = {"moves": 1, "active": "tokugawa"}
    assert judge(tmp_path, capsys, record)[0] == 0
    record["events"][0]["expect"] = {"moves + musters": 2}
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    miss = v["violations"][0]
    assert (miss["clause"], miss["message"]) == (
        "7.1",
        "expected moves + musters = 2; the rules give 1",
    )
    assert miss["numbers"] == ["moves = 1", "musters = 0"]
    record["events"][0]["expect"] = {"prior_owner": None}
    code, _, err = checked_in_text(tmp_path, capsys, record)
    assert code == 2
    assert "the rules fail on the expect key prior_owner: 'prior_owner' is a variable of" in err
    assert "which is not running after this event" in err


def test_a_forall_that_fails_shows_the_case_and_the_state_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not the first calls of every case evaluated: the first case that fails, and the
    state cells read there (a road's uses, keyed by the variable)."""
    record = example("disputes/kuwana-overrun.yaml")
    record["events"][0]["expect"] = {"forall r in data segments: road_uses(r) <= 0": True}
    code, out, _ = checked_in_text(tmp_path, capsys, record)
    assert code == 1
    assert "misses an expectation: 7.3.1 (Movement in general)" in out
    numbers = out.split("the numbers that decide it:\n", 1)[1].splitlines()
    assert numbers[0].startswith("    it fails for r = {a: ")
    assert numbers[1] == "    road_uses(r) = 1"


def test_expected_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`illegal:` states the refusal a case expects; another refusal, or none, is a miss."""
    record = example("illegal/movement-too-far.yaml")
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["as_expected"] is True
    move = record["events"][1]
    move["expect"] = {"illegal": "7.3.1/segment-once"}
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    assert [x["kind"] for x in v["violations"]] == ["rule", "expectation"]
    assert "it is refused citing 7.3.3/within-allowance" in v["violations"][1]["message"]
    move["move"]["groups"][0]["path"] = ["Osaka", "Kyoto"]
    move["expect"] = {"illegal": "7.3.3"}
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    assert v["violations"][0]["message"] == (
        "expected the event to be refused citing 7.3.3; the rules allow it"
    )


@pytest.mark.parametrize(
    ("expect", "where", "message"),
    [
        ("      units_at(Kuwana,: []\n", "27:22", "bad expression in expect"),
        ("      unit_at(Kuwana, ishida): []\n", "27:7", "unknown definition 'unit_at'"),
        ("      week: [a]\n", "27:13", "expected a whole number, found a list"),
        ("      units_at(Kuwana, ishida): [ukita-9]\n", "27:34", "ukita-9"),
        ("      happened: [7.4.2/overrunn]\n", "27:18", "no outcome of the spec's"),
        ("      illegal: 7.3.1/no-such-thing\n", "27:16", "no condition of the spec's"),
    ],
)
def test_bad_expectations_are_located(
    expect: str, where: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (EXAMPLES / "disputes" / "kuwana-overrun.yaml").read_text()
    head, _, _ = text.partition("    expect:\n")
    path = tmp_path / "r.yaml"
    path.write_text(head + "    expect:\n" + expect)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"r.yaml:{where}:" in err, err
    assert message in err


def test_expect_without_an_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = copy.deepcopy(example("disputes/kuwana-overrun.yaml"))
    record["events"].insert(0, {"expect": {"week": 1}})
    code, out = judge(tmp_path, capsys, record)
    assert code == 2
    assert "an event with `expect` names its action too" in json.dumps(out)


# ---------------------------------------------------------------- the decisive numbers


def test_decisive_numbers_named_and_the_trace_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = str(EXAMPLES / "illegal" / "movement-too-far.yaml")
    main(["check", record])
    out = capsys.readouterr().out
    assert "    distance = 3\n" in out
    assert (
        "allowance(all_highway: true, leadership: true, force_march: false, largest_group: 5)"
        " = 2  (7.3.3)"
    ) in out
    assert "bonus(" not in out  # a call inside allowance: only in the full trace
    assert "k..." not in out  # nothing cut in the middle of a word
    main(["check", "--trace", record])
    out = capsys.readouterr().out
    assert "every call evaluated on the way (--trace):" in out
    assert "bonus(applies: true) = 1  (7.3.3)" in out
    assert "size_penalty(blocks: 5) = 1  (7.3.5)" in out


def test_a_position_value_a_step_sets_again_is_noted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A position starting in a battle's first step gives an Impact: the step opens the
    combat and sets it to 0, and the verdict says so (a new user's finding)."""
    record = {
        "game": "sekigahara",
        "position": {
            "procedure": "battle",
            "args": {"at": "Gifu", "attacker": "ishida", "defender": "tokugawa"},
            "state": {
                "impact": {"ishida": 5},
                "units_at": {"Gifu": {"tokugawa": ["fukushima-2"], "ishida": ["ukita-2"]}},
            },
        },
        "events": [{"deploy": {"by": "ishida", "blocks": ["ukita-2"], "card": "ukita"}}],
    }
    code, v = judge(tmp_path, capsys, record)
    assert v["notes"][0].startswith(
        "step deploying of battle sets impact(ishida) again as it begins (8.2.1):"
        " the position's 5 (line "
    )
    assert "is now 0" in v["notes"][0]


def test_a_refusal_in_a_position_without_vars_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = example("disputes/kuwana-overrun.yaml")
    del record["position"]["vars"]
    del record["events"][0]["expect"]
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == "7.1/stack-limit"
    assert "level = no_movement" in v["notes"][0]
