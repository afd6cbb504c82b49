"""Views of a record (issue 31.2): `referee hide` writes a record as one view would have kept
it, by the spec's `hidden` declaration; exact on a small record, checked for shape and for
what each view sees on every example record, and refusing bad input with a located message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KUWANA = EXAMPLES / "disputes" / "kuwana-overrun.yaml"
VIEWS = ("public", "tokugawa", "ishida")
RECORDS = sorted(
    p
    for p in EXAMPLES.rglob("*.yaml")
    if "fierce-battle" not in p.parts and yaml.safe_load(p.read_text())["game"] == "sekigahara"
)


def hide(capsys: pytest.CaptureFixture[str], record: Path | str, view: str) -> Any:
    code = main(["hide", str(record), "--view", view, "--to", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2
    assert out == "" and "Traceback" not in err
    return err


def test_a_dispute_from_a_position_as_each_view_kept_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    public = hide(capsys, KUWANA, "public")
    assert list(public)[:2] == ["game", "view"] and public["view"] == "public"
    assert public["position"]["state"] == {
        "hand": {"tokugawa": 1},  # a hand: its size
        "units_at": {"Kiyosu": {"tokugawa": ["?"] * 4}, "Kuwana": {"ishida": ["?"]}},
    }
    assert public["events"] == [
        {
            "move": {
                "by": "tokugawa",
                "from": "Kiyosu",
                "groups": [{"blocks": ["?"] * 4, "path": ["Kiyosu", "Kuwana"]}],
            }
        }
    ]  # and no `expect:`: those are the complete record's answers
    ishida = hide(capsys, KUWANA, "ishida")
    assert ishida["position"]["state"]["units_at"] == {
        "Kiyosu": {"tokugawa": ["?"] * 4},
        "Kuwana": {"ishida": ["ukita-2"]},
    }
    assert ishida["position"]["state"]["hand"] == {"tokugawa": 1}
    assert ishida["events"] == public["events"]
    tokugawa = hide(capsys, KUWANA, "tokugawa")
    assert tokugawa["position"]["state"] == {
        "hand": {"tokugawa": ["fukushima"]},
        "units_at": {
            "Kiyosu": {"tokugawa": ["tokugawa-2", "tokugawa-3", "fukushima-2", "fukushima-3"]},
            "Kuwana": {"ishida": ["?"]},
        },
    }
    moved = tokugawa["events"][0]["move"]["groups"][0]["blocks"]
    assert moved == ["tokugawa-2", "tokugawa-3", "fukushima-2", "fukushima-3"]


def test_the_set_up_and_a_week_as_the_public_saw_them(capsys: pytest.CaptureFixture[str]) -> None:
    events = [
        next(iter(e.items())) for e in hide(capsys, EXAMPLES / "weeks-1-2.yaml", "public")["events"]
    ]
    assert events[0] == ("deal", {"by": "tokugawa", "cards": 5})
    assert events[2] == ("place", {"by": "ishida", "at": "Osaka", "blocks": ["?"] * 6})
    assert events[4][1]["blocks"] == ["mori-3-triangle"] * 4 + ["mori-leader-triangle"]  # face up
    assert events[21] == ("recruit", {"by": "tokugawa", "blocks": ["?"] * 4})
    assert events[23] == ("bid", {"by": "tokugawa", "card": "date"})  # shown together (6.3)
    assert events[27][1]["groups"][0]["force_march"] == "tokugawa"  # a card played is seen
    assert events[27][1]["groups"][0]["blocks"] == ["?"] * 3
    assert events[29] == (
        "muster",
        {"by": "tokugawa", "option": "A", "to": "Edo", "blocks": ["tokugawa-2", "tokugawa-3"]},
    )  # by mon: shown (7.2)
    assert events[32] == (
        "muster",
        {"by": "ishida", "option": "B", "to": "Himeji", "blocks": ["?"]},
    )
    cycle = dict(events)["cycle"]
    assert cycle == {"by": "tokugawa", "discard": ["fukushima"], "draw": 1}
    reinforce = [a for k, a in events if k == "reinforce"]
    assert reinforce[0] == {
        "by": "tokugawa",
        "discard": ["tokugawa"],
        "cards": 6,
        "blocks": ["?"] * 3,
    }


def test_a_battle_shows_what_it_reveals(capsys: pytest.CaptureFixture[str]) -> None:
    complete = yaml.safe_load((EXAMPLES / "combat-example.yaml").read_text())["events"]
    public = hide(capsys, EXAMPLES / "combat-example.yaml", "public")["events"]
    for full, seen in zip(complete, public, strict=True):
        action = next(k for k in full if k != "expect")
        if action in ("deploy", "losses"):
            assert seen[action]["blocks"] == full[action]["blocks"]
        if action == "deploy" and "card" in full[action]:
            assert seen[action]["card"] == full[action]["card"]
        if action == "replenish":
            assert seen[action]["cards"] == len(full[action]["cards"])


def _shape(full: Any, seen: Any, path: str = "") -> None:
    """The view says what the complete record says, or hides it keeping its size."""
    if seen == "?":
        assert full is not None and not isinstance(full, (list, dict)), path
    elif isinstance(seen, int) and isinstance(full, list):
        assert seen == len(full), path
    elif isinstance(full, dict):
        assert isinstance(seen, dict) and list(seen) == [k for k in full if k != "expect"], path
        for k in seen:
            _shape(full[k], seen[k], f"{path}.{k}")
    elif isinstance(full, list):
        assert isinstance(seen, list) and len(seen) == len(full), path
        for i, (a, b) in enumerate(zip(full, seen, strict=True)):
            _shape(a, b, f"{path}[{i}]")
    else:
        assert seen == full, path


def _sees_more(side: Any, public: Any) -> bool:
    """What the public view shows, the side's shows alike."""
    if public == "?" or (isinstance(public, int) and isinstance(side, list)):
        return True
    if isinstance(public, dict):
        return all(_sees_more(side[k], v) for k, v in public.items() if k != "view")
    if isinstance(public, list):
        return all(_sees_more(a, b) for a, b in zip(side, public, strict=True))
    return bool(side == public)


@pytest.mark.parametrize("record", RECORDS, ids=[str(p.relative_to(EXAMPLES)) for p in RECORDS])
def test_every_example_in_every_view(capsys: pytest.CaptureFixture[str], record: Path) -> None:
    full = yaml.safe_load(record.read_text())
    views = {v: hide(capsys, record, v) for v in VIEWS}
    for v, seen in views.items():
        assert seen["view"] == v
        _shape({k: x for k, x in full.items()}, {k: x for k, x in seen.items() if k != "view"})
    for side in VIEWS[1:]:
        assert _sees_more(views[side], views["public"])
        # a seat sees all its own events
        for ev, mine in zip(full["events"], views[side]["events"], strict=True):
            action = next(k for k in ev if k != "expect")
            if (ev[action] or {}).get("by") == side:
                assert mine == {action: ev[action]}


@pytest.mark.parametrize("side", VIEWS[1:])
def test_a_side_view_hidden_again_is_the_public_view(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, side: str
) -> None:
    for record in (EXAMPLES / "weeks-1-2.yaml", KUWANA, EXAMPLES / "combat-example.yaml"):
        seat = tmp_path / f"{side}.json"
        seat.write_text(json.dumps(hide(capsys, record, side)))
        assert hide(capsys, seat, "public") == hide(capsys, record, "public")
        assert hide(capsys, seat, side) == hide(capsys, record, side)


def test_the_notation_record_hides_as_its_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    for view in VIEWS:
        rec = hide(capsys, EXAMPLES / "full-game.rec", view)
        yml = hide(capsys, EXAMPLES / "full-game.yaml", view)
        assert rec["events"] == yml["events"]


def test_bad_input_is_refused_with_its_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err = refused(capsys, "hide", str(KUWANA), "--view", "mori")
    assert "--view mori: no such view" in err and "views: public, tokugawa, ishida" in err
    seat = tmp_path / "ishida.json"
    seat.write_text(json.dumps(hide(capsys, KUWANA, "ishida"), indent=1))
    err = refused(capsys, "hide", str(seat), "--view", "tokugawa")
    assert f"{seat}:3:" in err
    assert "this record is the ishida view: it cannot show the tokugawa view" in err
    # check judges a view record (tests/test_hidden_judge.py); show still refuses one
    assert main(["check", str(seat)]) == 0
    assert "(view: ishida): consistent" in capsys.readouterr().out
    err = refused(capsys, "show", str(seat))
    assert f"{seat}:3:" in err and "this is a view record (view: ishida)" in err
    fb = EXAMPLES / "fierce-battle" / "first-turn.yaml"
    err = refused(capsys, "hide", str(fb), "--view", "public")
    assert "declares nothing hidden" in err
    bad = tmp_path / "bad.yaml"
    text = KUWANA.read_text().replace("Kuwana: {ishida", "Kuwanna: {ishida")
    bad.write_text(text)
    line = text.splitlines().index("      Kuwanna: {ishida: [ukita-2]}") + 1
    err = refused(capsys, "hide", str(bad), "--view", "public")
    assert f"{bad}:{line}:16:" in err and "unknown location 'Kuwanna'" in err
    bad.write_text(
        (EXAMPLES / "weeks-1-2.yaml")
        .read_text()
        .replace("option: A, to: Edo", "option: C, to: Edo")
    )
    err = refused(capsys, "hide", str(bad), "--view", "public")
    assert "unknown muster_option 'C'" in err and f"{bad}:" in err
    bad.write_text("game: sekigahara\nview: [public]\nevents: []\n")
    err = refused(capsys, "hide", str(bad), "--view", "public")
    assert f"{bad}:2:7:" in err


@pytest.mark.parametrize("side", VIEWS[1:])
def test_a_view_in_the_notation_reads_back_as_it_was_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, side: str
) -> None:
    record = EXAMPLES / "weeks-1-2.yaml"
    assert main(["hide", str(record), "--view", side, "--to", "notation"]) == 0
    text = capsys.readouterr().out
    mine, theirs = ("T", "I") if side == "tokugawa" else ("I", "T")
    lines = text.splitlines()
    assert f"{theirs} deal ?*5" in lines  # the other's hand: five marks, read as `cards: 5`
    assert any(line.startswith(f"{mine} deal ") and "?" not in line for line in lines)
    seat = tmp_path / f"{side}.rec"
    seat.write_text(text)
    assert hide(capsys, seat, side) == hide(capsys, record, side)
    assert hide(capsys, seat, "public") == hide(capsys, record, "public")
