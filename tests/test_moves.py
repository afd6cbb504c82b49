"""`referee moves` (issue 30, 1): every event it lists is legal when appended to the record
(on every example's final position, at several points of each, and on random games), the
events the rulebook forbids at that point are absent, --to answers with the route or the
clause and its numbers, and every bound is said where it is hit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from referee.compile.spec import Spec, find_game, load_spec
from referee.records.record import RecordText
from referee.resolve.overlays import Choice
from referee.run.moves_report import Asked, Report, moves_report, route_to, starts
from referee.run.play import play
from referee.run.replay import check_record
from tests.referee_helpers import EXAMPLES, output

LEGAL_EXAMPLES = sorted(
    [p for p in EXAMPLES.glob("*.yaml") if p.name != "full-game.yaml"]
    + list((EXAMPLES / "fierce-battle").glob("*.yaml"))
    + list((EXAMPLES / "disputes").glob("*.yaml"))
    + [EXAMPLES / "overlays" / "overrun-draw.yaml"]  # the others are illegal as printed
)
CHECKED = 4  # listed events appended and judged at each point, at most
JUDGED = 150  # candidates judged at each point (a bound: the tests say what it lists)


def record(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def points(n: int) -> list[int | None]:
    """--at points spread over a record of n events, and its end (None)."""
    return sorted({1 + n // 3, 1 + 2 * n // 3} - {n + 1}) + [None] if n else [None]


def listed(spec: Spec, source: Path | RecordText, at: int | None, **asked: Any) -> Report:
    return moves_report(spec, source, Choice(), Asked(at, most=JUDGED, **asked))


def appended(spec: Spec, data: dict[str, Any], before: int, event: dict[str, Any]) -> Any:
    """The record's first ``before`` events and ``event`` after them, judged by check."""
    events = [dict(e) for e in data["events"][:before]] + [event]
    changed = {**data, "events": events}
    return check_record(spec, RecordText(json.dumps(changed), "<appended>"), Choice())


def sample(report: Report) -> list[dict[str, Any]]:
    """A few of the listed events: the first of each action, then the last of each."""
    actions = [a for a in report.moves.actions if a.listed]
    out = [a.listed[0].event for a in actions] + [a.listed[-1].event for a in actions]
    unique = list({json.dumps(e, sort_keys=True): e for e in out}.values())
    return unique[:CHECKED]


@pytest.mark.parametrize("path", LEGAL_EXAMPLES, ids=lambda p: p.name)
def test_every_listed_event_is_legal_when_appended(spec: Spec, path: Path) -> None:
    data = record(path)
    n = len(data["events"])
    tried = 0
    for at in points(n):
        report = listed(spec, path, at, every=True)
        assert report.illegal is None, report.illegal
        before = n if at is None else at - 1
        assert report.moves.after == before
        for event in sample(report):
            verdict = appended(spec, data, before, event)
            assert verdict.legal, (at, event, [v.cites for v in verdict.violations])
            tried += 1
        # each listed event is written as a record writes it: one action, its arguments
        for e in report.moves.events:
            ((action, args),) = e.items()
            assert isinstance(args, dict) and action in {a.action for a in report.moves.actions}
    assert tried > 0 or all(listed(spec, path, at).moves.over for at in points(n))


@pytest.mark.parametrize(("game", "seed"), [("sekigahara", 3), ("fierce-battle", 5)])
def test_listed_events_of_random_games_are_legal(game: str, seed: int) -> None:
    spec = load_spec(find_game(game))
    for stop in (25, 60):
        played = play(spec, seed, max_events=stop)
        data = played.record(spec, seed)
        report = listed(spec, RecordText(json.dumps(data), "<played>"), None, every=True)
        assert report.moves.events or report.moves.over
        for event in sample(report):
            verdict = appended(spec, data, len(data["events"]), event)
            assert verdict.legal, (stop, event, [v.cites for v in verdict.violations])


def test_the_whole_game_ends_with_nothing_to_list(spec: Spec) -> None:
    report = listed(spec, EXAMPLES / "full-game.rec", None)
    assert report.moves.over and report.moves.events == []


# ------------------------------------------------------------ what the rulebook forbids


def test_movement_lists_only_the_side_to_act_and_its_own_stacks(spec: Spec) -> None:
    report = listed(spec, EXAMPLES / "weeks-1-2.yaml", 28)
    m = report.moves
    assert (m.procedure, m.step, m.actors) == ("Movement phase", "moving", ["tokugawa"])
    assert {a.by for a in m.actions} == {"tokugawa"}
    assert {a.action for a in m.actions} >= {"move", "muster", "end_movement"}
    assert all(next(iter(e.values()))["by"] == "tokugawa" for e in m.events)
    actions = {next(iter(e)) for e in m.events}
    assert "deal" not in actions and "bid" not in actions  # not this step's
    assert "cycle" not in actions  # 7.1: cycling only with no movement chosen
    moves = [e["move"] for e in m.events if "move" in e]
    # Osaka is Ishida's: no Tokugawa stack moves from it, and none moves beyond its
    # allowance: the too-long paths are refused by 7.3.3, counted in the summary
    assert moves and all(mv["from"] != "Osaka" for mv in moves)
    move = next(a for a in m.actions if a.action == "move")
    refusals = {r.cites: r for r in move.refused}
    assert "7.3.3/within-allowance" in refusals
    assert refusals["7.3.3/within-allowance"].message.startswith("moved ")
    assert any(n.startswith("distance = ") for n in refusals["7.3.3/within-allowance"].numbers)
    for mv in moves:
        for g in mv["groups"]:
            assert g["path"][0] == mv["from"] and len(g["path"]) <= 5


ILLEGAL = (
    sorted((EXAMPLES / "illegal").glob("*.yaml"))[::4]
    + sorted((EXAMPLES / "fierce-battle" / "illegal").glob("*.yaml"))[::3]
)


@pytest.mark.parametrize("path", ILLEGAL, ids=lambda p: p.name)
def test_an_event_the_rulebook_forbids_is_not_listed(spec: Spec, path: Path) -> None:
    """Each illegal example's refused event, at its point, is not among the events listed."""
    data = record(path)
    at = next(
        (i for i, e in enumerate(data["events"], 1) if "illegal" in (e.get("expect") or {})),
        len(data["events"]),
    )
    bad = {k: v for k, v in data["events"][at - 1].items() if k != "expect"}
    report = listed(spec, path, at, every=True)
    assert report.illegal is None
    shown = [json.dumps(e, sort_keys=True) for e in report.moves.events]
    assert json.dumps(bad, sort_keys=True) not in shown
    verdict = appended(spec, data, at - 1, bad)
    assert not verdict.legal  # and it is indeed refused there


def test_fierce_battle_moves_keep_within_the_allowance() -> None:
    spec = load_spec(find_game("fierce-battle"))
    path = EXAMPLES / "fierce-battle" / "first-turn.yaml"
    data = record(path)
    at = next(i for i, e in enumerate(data["events"], 1) if "move" in e)
    report = listed(spec, path, at, every=True, action="move")
    (move,) = [a for a in report.moves.actions if a.action == "move" and a.listed]
    assert move.source == "choices"
    side = move.by
    units = {x.args["unit"] for x in move.listed}
    assert units and all(u for u in units)
    for x in move.listed:
        assert x.event["move"]["by"] == side
        assert 2 <= len(x.args["path"]) <= 5  # no unit's allowance reaches further
    # the other side's units are not moved in this side's phase
    other = [e for e in data["events"][: at - 1] if "move" in e and e["move"]["by"] != side]
    assert all(e["move"]["unit"] not in units for e in other)


# ------------------------------------------------------------ --stack and --to


def test_to_answers_yes_with_the_route(spec: Spec) -> None:
    report = listed(spec, EXAMPLES / "weeks-1-2.yaml", 28, stack="Edo", to="Saku")
    answer = report.answer
    assert answer is not None and answer.reachable
    assert answer.route == ["Edo", "Oshi", "Takasaki", "Saku"]
    assert answer.text.startswith("yes: move by Edo - Oshi - Takasaki - Saku")
    assert all(starts(x.args, "Edo") for a in report.moves.actions for x in a.listed)


def test_to_answers_no_with_the_clause_and_numbers(spec: Spec) -> None:
    # Anotsu is four locations from Osaka off the highway: no group of the five blocks
    # there reaches it, even one block alone with a leader and a force march
    report = listed(spec, EXAMPLES / "movement-example.yaml", 2, stack="Osaka", to="Anotsu")
    answer = report.answer
    assert answer is not None and not answer.reachable
    assert answer.clause == "7.3.3/within-allowance"
    assert answer.message.startswith("moved 4 locations; allowance 1")
    assert "distance = 4" in answer.numbers and "largest_group = 5" in answer.numbers
    assert answer.text.startswith("no: the rules refuse all")


def test_the_filters_read_events_as_records_write_them() -> None:
    move = {"by": "x", "from": "A", "groups": [{"blocks": ["b"], "path": ["A", "B", "C"]}]}
    assert starts(move, "A") and not starts(move, "C")
    assert route_to(move, "C") == ["A", "B", "C"] and route_to(move, "B") is None
    assert route_to({"by": "x", "to": "C", "blocks": ["b"]}, "C") == []


def test_an_unknown_place_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["moves", str(EXAMPLES / "weeks-1-2.yaml"), "--to", "Edoo"])
    err = capsys.readouterr().err
    assert code == 2 and "--to Edoo: the game knows no such name" in err and "'Edo'" in err


# ------------------------------------------------------------ the command, its bounds


def test_the_summary_names_the_clauses_and_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["moves", str(EXAMPLES / "weeks-1-2.yaml"), "--at", "28"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Movement phase, step moving: tokugawa to act" in out
    # each reachable place with the allowance that reaches it and what it costs, as the
    # rules tell it when the move is applied
    assert (
        "    legal: Kuwana by [Anotsu, Kuwana]: 7.3.3/allowance: [maeda-3] from Anotsu to Kuwana:"
        " 1 location(s) of an allowance of 2 = base 1 + highway 0 + leadership 1 + force march 0"
        " - size 0 (largest group 1)\n"
    ) in out
    assert (
        "    legal: Okazaki by [Anotsu, Kuwana, Kiyosu, Okazaki]: 7.3.3/allowance: [maeda-3] from"
        " Anotsu to Okazaki: 3 location(s) of an allowance of 3 = base 1 + highway 0 +"
        " leadership 1 + force march 1 - size 0 (largest group 1)\n"
    ) in out
    assert "by 7.3.3/within-allowance Movement distance: moved " in out
    assert "by 7.2/friendly-recruitment Mustering" in out


def test_all_says_where_it_stops(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "weeks-1-2.yaml"
    code = main(["moves", str(path), "--at", "28", "--all", "--limit", "7", "--format", "json"])
    result = output(capsys.readouterr().out)
    assert code == 0 and not result["complete"]
    line = (
        path.read_text()
        .splitlines()
        .index(next(x for x in path.read_text().splitlines() if x.startswith("  - move:")))
    )
    assert result["stopped"].startswith(f"{path}:{line + 1}:")
    assert "the bound of 7 candidates judged" in result["stopped"]
    assert sum(a["tried"] for a in result["actions"]) == 7
    for e in result["events"]:
        ((action, args),) = e.items()
        assert args["by"] == "tokugawa"


def test_an_enormous_position_is_listed_within_the_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Forty blocks in one stack: the spec's choices would list 2**40 sub-groups; the
    enumeration says so, located, and lists what the proposals give, within the bound."""
    faces = [b["id"] for b in load_spec(find_game("sekigahara")).components.collections["faces"]]
    stack = [f for f in faces if f.startswith(("ukita", "mori", "kobayakawa", "ishida"))]
    stack = (stack * 4)[:40]
    data = record(EXAMPLES / "movement-example.yaml")
    data["position"]["state"]["units_at"] = {"Osaka": {"ishida": stack}}
    data["events"] = data["events"][:1]
    path = tmp_path / "huge.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    code = main(["moves", str(path), "--all", "--limit", "300", "--format", "json"])
    result = output(capsys.readouterr().out)
    assert code == 0
    move = next(a for a in result["actions"] if a["action"] == "move")
    assert "07-movement.rules" in move["note"] and "over the limit" in move["note"]
    assert move["source"] == "proposals and their alternatives"
    assert sum(a["tried"] for a in result["actions"]) <= 300


def test_a_deployment_is_listed_with_its_impact(spec: Spec) -> None:
    """In combat, each legal deployment says its Impact and the side's total (8.3.1), as
    the rules tell it when the deployment is applied; the side without the initiative
    has none."""
    report = listed(spec, EXAMPLES / "combat-example.yaml", 4, action="deploy", every=True)
    by = {a.by: a for a in report.moves.actions}
    assert not by["tokugawa"].listed
    assert by["tokugawa"].refused[0].cites == "8.5/initiative"
    told = {x.shown: x.told for x in by["ishida"].listed}
    both = "deploy card ukita-double blocks [ukita-2, ukita-2-square]"
    assert told[both][0] == (
        "8.3.1/impact: ishida deploys [ukita-2, ukita-2-square] (with ukita-double):"
        " Impact 5 = mon 4 (8.3.2) + same daimyo 1 (8.3.3) + special attack 0 (8.4.1);"
        " ishida's total 6"
    )
    swords = told["deploy card mori-swords blocks [mori-gun]"][0]
    assert "Impact 4 = mon 1 (8.3.2) + same daimyo 1 (8.3.3) + special attack 2" in swords
    # the record's own deployment (event 4) is among them, and what check tells of it
    verdict = check_record(spec, EXAMPLES / "combat-example.yaml", Choice())
    assert verdict.legal and both in told
    # nothing is told of a refused candidate: the position is left as it was
    again = listed(spec, EXAMPLES / "combat-example.yaml", 4, action="deploy", every=True)
    assert [x.told for a in again.moves.actions for x in a.listed] == [
        x.told for a in report.moves.actions for x in a.listed
    ]


def test_the_loser_s_retreats_are_listed_with_what_they_do(spec: Spec) -> None:
    report = listed(spec, EXAMPLES / "combat-example.yaml", 14, action="retreat")
    by = {a.by: a for a in report.moves.actions}
    assert by["tokugawa"].refused[0].cites == "8.8.1/loser-retreats"  # the winner stays
    told = {x.shown: x.told for x in by["ishida"].listed}
    assert set(told) == {"retreat to Gifu", "retreat to Kyoto", "retreat to Tsuruga"}
    assert told["retreat to Tsuruga"][0] == (
        "4.2/claim: ishida claims the resource location Tsuruga"
    )
    assert any("8.10/cards-due: ishida draws 4 card(s)" in t for t in told["retreat to Kyoto"])


# ------------------------------------------------------------ hostile input (issue 33's standards)


def _bad(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """A run of `referee moves` that must be refused as bad input: exit 2, its message
    bounded, no traceback; the message."""
    code = main(["moves", *argv])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "Traceback" not in out + err and "internal error" not in out + err
    assert len(err) < 2_000, len(err)
    return err


@pytest.mark.parametrize("at", ["0", "61", "-3"])
def test_an_event_number_the_record_lacks_is_located(
    capsys: pytest.CaptureFixture[str], at: str
) -> None:
    err = _bad(capsys, str(EXAMPLES / "weeks-1-2.yaml"), "--at", at)
    assert err.startswith(f"{EXAMPLES / 'weeks-1-2.yaml'}:9:3: --at {at}: this record has 60")
    assert "hint: --at takes a number from 1 to 60" in err


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_below_one_is_refused(capsys: pytest.CaptureFixture[str], limit: str) -> None:
    err = _bad(capsys, str(EXAMPLES / "weeks-1-2.yaml"), "--limit", limit)
    assert f"--limit {limit}: give a number of candidates, 1 or more" in err


def test_huge_or_unprintable_names_are_refused_clipped_and_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = "x" * 100_000 + "\x1b[31m"
    for flag in ("--action", "--stack", "--to"):
        err = _bad(capsys, str(EXAMPLES / "weeks-1-2.yaml"), flag, name)
        assert f"{flag} xxx" in err and "\x1b" not in err
    err = _bad(capsys, str(EXAMPLES / "weeks-1-2.yaml"), "--action", "fly")
    assert "--action fly: no such action (actions: bid, " in err


def test_a_binary_record_is_refused_where_it_stops_being_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in [("a.yaml", b"\x7fELF\x02\x01\x01\x00binary"), ("a.rec", b"T deal\x00x\n")]:
        path = tmp_path / name
        path.write_bytes(data)
        err = _bad(capsys, str(path))
        assert err.startswith(f"{path}:1:"), err
    assert "binary data, not text" in err  # the notation's own words


def test_binary_notation_on_standard_input_and_in_python_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record on standard input (`referee moves -`) or given to the API as text that
    holds a NUL byte is bad input at the byte, not a path to look up."""
    import referee

    for text in ["T deal\x00", "game: sekigahara\nT deal tokugawa\n\x00\x01"]:
        with pytest.raises(referee.RecordError) as caught:
            referee.check(text)
        assert "binary data, not text" in str(caught.value)
    done = subprocess.run(
        [sys.executable, "-m", "referee", "moves", "-"],
        input=b"T deal x\n\x00\x01binary",
        capture_output=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.decode().startswith("<stdin>:2:1: binary data, not text")


@pytest.mark.parametrize(("at", "action"), [(5, "fire"), (7, "melee")])
def test_fierce_battle_fire_and_melee_are_listed_with_their_retreats(at: int, action: str) -> None:
    """Fire (west's defensive fire) and melee (east's attack) in Fierce Battle's first turn:
    each listed event says its result as the rules tell it (the fire or melee, the morale
    check, the retreat), the retreats are among the events, and each is legal appended."""
    spec = load_spec(find_game("fierce-battle"))
    path = EXAMPLES / "fierce-battle" / "first-turn.yaml"
    data = record(path)
    report = listed(spec, path, at, action=action, every=True)
    (found,) = [a for a in report.moves.actions if a.action == action]
    side = data["events"][at - 1][action]["by"]
    assert found.by == side and found.listed
    told = [t for x in found.listed for t in x.told]
    assert any(t.startswith("11/checked: ") for t in told)  # a morale check
    # a retreat of the unit fired at or meleed, or of the attacker (at event 7 the defender
    # holds a palisade, 11-1-4, so only the attacker can be made to retreat there)
    retreats = [
        x
        for x in found.listed
        if x.args.get("retreat")
        or x.args.get("defender_retreat")
        or x.args.get("attacker_retreats")
    ]
    assert retreats and any(t.startswith("11-1/retreated: ") for x in retreats for t in x.told)
    for x in [found.listed[0], retreats[0], found.listed[-1]]:
        verdict = appended(spec, data, at - 1, x.event)
        assert verdict.legal, (x.event, [v.cites for v in verdict.violations])
    # a retreat the rules refuse (not the full distance, or none given when one was open)
    # is counted among the refusals, with its clause
    assert {r.cites for r in found.refused} & {"11-1-3/full-distance", "11-1-3/had-a-way"}
