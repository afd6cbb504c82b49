"""`referee explain` of topics beyond clauses: overlays, printings, overlay files and data
entries; which one a name that names several picks; and unknown topics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from tests.referee_helpers import output

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "referee" / "games" / "sekigahara"
MAP = GAME / "data" / "map.yaml"


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # files are shown relative to the working directory


def explained(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["explain", *argv, "--format", "json"]) == 0
    x: dict[str, Any] = output(capsys.readouterr().out)
    return x


def text_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["explain", *argv]) == 0
    return capsys.readouterr().out


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if needle in line]
    assert len(found) == 1, needle
    return found[0]


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ------------------------------------------------------------------ overlays


def test_an_overlay_that_replaces_a_definition_shows_both_texts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "S-overrun-draw")
    assert x["kind"] == "overlay" and x["overlay_kind"] == "clarification"
    assert x["in_force"] == "by default" and x["switch"] == "--no-overlay S-overrun-draw"
    [ch] = x["changes"]
    assert (ch["action"], ch["clause"], ch["name"]) == ("replace", "8.10", "overrun_redraw")
    combat = GAME / "clauses" / "08-combat.rules"
    assert ch["base"] == {
        "clause": "8.10",
        "kind": "define",
        "name": "overrun_redraw",
        "signature": "define overrun_redraw(blocks_lost: int): int",
        "text": "define overrun_redraw(blocks_lost: int): int = 0",
        "file": rel(combat),
        "line": line_of(combat, "define overrun_redraw("),
    }
    assert ch["text"] == (
        "replace define overrun_redraw(blocks_lost: int): int = blocks_lost // blocks_per_extra_card"
    )
    out = text_of(capsys, "S-overrun-draw")
    assert "  replace in 8.10: define overrun_redraw(blocks_lost: int): int\n" in out
    assert f"    the base rules (8.10, {rel(combat)}:{ch['base']['line']}):\n" in out
    assert "        define overrun_redraw(blocks_lost: int): int = 0\n" in out


def test_an_overlay_that_amends_nothing_says_what_it_records(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "S-split")
    assert x["changes"] == [] and x["embodied_by"] == []
    assert x["group"] == "savarese-2014"
    assert x["source_clauses"] == ["7.3.1", "7.3.3", "7.3.5"]
    movement = GAME / "clauses" / "07-movement.rules"
    assert x["mentioned_in"] == [
        {
            "clause": "7.3.5",
            "file": rel(movement),
            "line": line_of(movement, "S-split"),
            "text": "# in during its move (S-split says the same of a split stack).",
        }
    ]
    out = text_of(capsys, "S-split")
    assert out.startswith("S-split  (clarification, 2014)\n")
    assert "what it changes: nothing; it records the reading the base rules already give" in out
    assert "clauses its source names: 7.3.1, 7.3.3, 7.3.5" in out
    assert "embodied by: no declaration (none says `decided S-split`)" in out


def test_a_dropped_and_a_replaced_requirement(capsys: pytest.CaptureFixture[str]) -> None:
    [drop] = explained(capsys, "E-pickup")["changes"]
    assert (drop["action"], drop["name"], drop["text"]) == (
        "drop",
        "7.3.1/no-pickup",
        "drop 7.3.1/no-pickup",
    )
    assert drop["base"]["name"] == "no-pickup" and drop["base"]["clause"] == "7.3.1"
    assert drop["base"]["text"].startswith("require [no-pickup] (picked_up: int): picked_up == 0")
    swap, invariant = explained(capsys, "E-road-once")["changes"]
    assert swap["signature"] == "require [segment-once] (road: road, uses_by_other_stacks: int)"
    assert swap["base"]["signature"] == "require [segment-once] (road: road, earlier_uses: int)"
    assert "uses_by_other_stacks == 0" in swap["text"]
    # the step invariant the prover proves changes with it: one stack a segment
    assert (invariant["clause"], invariant["name"]) == ("7.3.1", "segment-used-once")
    assert "road_stacks(r) <= 1" in invariant["text"]
    assert "road_uses(r) <= 1" in invariant["base"]["text"]


def test_a_decision_lists_the_declarations_that_embody_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "D-bid-tie")
    weekly = GAME / "clauses" / "06-weekly.rules"
    assert [(d["clause"], d["name"], d["line"]) for d in x["embodied_by"]] == [
        ("6.3", "no-tie", line_of(weekly, "require [no-tie]"))
    ]
    assert x["mentioned_in"] == []  # the `decided` line is the embodiment, not a mention
    out = text_of(capsys, "D-bid-tie")
    assert "embodied by (declarations that say `decided D-bid-tie`):" in out
    assert "  6.3: require [no-tie] (a: card, b: card)" in out


def test_a_printing_and_the_overlay_file_of_the_same_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "gmt-2011")
    assert x["kind"] == "printing" and not x["base"]
    # D-2011-chapter-9 reads the later printing's chapter 9 for it (issue 27)
    ids = ["D-2011-chapter-9", "E-pickup", "E-road-once", "E-special-count", "E-reconceal"]
    assert [o["id"] for o in x["overlays"]] == ids
    assert x["clauses_not_carried"] == []
    assert x["also"] == [
        {"kind": "file", "what": "the overlay file gmt-2011", "ask": "file:gmt-2011"}
    ]
    assert "also the overlay file gmt-2011: referee explain file:gmt-2011" in text_of(
        capsys, "gmt-2011"
    )
    f = explained(capsys, "file:gmt-2011")
    # (the decision is the project's, in decisions.rules, not the printing's file)
    assert f["kind"] == "file" and [o["id"] for o in f["overlays"]] == ids[1:]
    base = explained(capsys, "gmt-later")
    assert base["base"] and base["overlays"] == [] and base["clauses_not_carried"] == []


def test_an_overlay_file(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "savarese-2014")
    assert x["kind"] == "file" and x["file"] == rel(GAME / "overlays" / "savarese-2014.rules")
    assert [o["id"] for o in x["overlays"]] == [
        "S-overrun-draw",
        "S-split",
        "S-refute-double",
        "S-disks",
        "S-protagonists",
    ]


# ------------------------------------------------------------------ data entries


def test_a_location_shows_its_fields_and_its_roads(capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(MAP.read_text())
    entry = next(loc for loc in data["locations"] if loc["name"] == "Kuwana")
    x = explained(capsys, "Kuwana")
    assert x["kind"] == "data" and x["collection"] == "locations" and x["key"] == "name"
    assert (x["file"], x["line"]) == (rel(MAP), line_of(MAP, "- name: Kuwana"))
    assert x["fields"] == {k: v for k, v in entry.items() if k != "name"}
    roads = [s for s in data["segments"] if "Kuwana" in (s["a"], s["b"])]
    assert len(roads) == 3
    assert [m["collection"] for m in x["mentioned_by"]] == ["segments"] * 3
    ends = {m["fields"].get("a", m["fields"].get("b")) for m in x["mentioned_by"]}
    assert ends == {s["b"] if s["a"] == "Kuwana" else s["a"] for s in roads}
    assert "Minakuchi" in ends
    assert {"kind": "enum", "name": "location", "clause": "4.1"} in x["types"]
    assert "units_at" in [s["name"] for s in x["state"] if s["per_value"]]
    out = text_of(capsys, "Kuwana")
    assert out.startswith(f"Kuwana  (an entry of locations: {rel(MAP)}:{x['line']})\n")
    assert "  resource: true\n" in out and "  xy: [986, 1046]\n" in out
    seg = line_of(MAP, "{a: Minakuchi, b: Kuwana,")
    assert (
        f"  segments: a: Minakuchi, highway: Tokaido, source: bga-map  (as b; {rel(MAP)}:{seg})"
        in out
    )


def test_a_location_the_rules_name(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "Osaka")
    special = GAME / "clauses" / "09-special.rules"
    victory = GAME / "clauses" / "02-victory.rules"
    movement = GAME / "clauses" / "07-movement.rules"
    # one row a line that names it: 7.3.1's property of moves from Ishida's capital too
    assert [(r["clause"], r["file"]) for r in x["named_in_rules"]] == [
        ("2.1", rel(victory)),
        ("7.3.1", rel(movement)),
        ("9.1", rel(special)),
        ("9.1", rel(special)),
        ("9.3", rel(special)),
        ("9.3", rel(special)),
    ]
    assert all("location.Osaka" in r["text"] for r in x["named_in_rules"])


def test_a_block_face_and_a_card_show_their_fields(
    capsys: pytest.CaptureFixture[str], face: Any, card: Any
) -> None:
    x = explained(capsys, "date-2")
    assert x["collection"] == "faces" and x["key"] == "id"
    assert x["fields"] == {k: v for k, v in face("date-2").items() if k != "id"}
    assert x["types"] == [{"kind": "record", "name": "face", "clause": "3.2"}]
    assert x["mentioned_by"] == []
    out = text_of(capsys, "date-2")
    assert "  clan: Date\n  mon: 2\n  attack: none\n  leader: false\n" in out
    assert "mentioned by: no other entry" in out
    c = explained(capsys, "fukushima-double")
    assert c["collection"] == "cards"
    assert c["fields"] == {k: v for k, v in card("fukushima-double").items() if k != "id"}
    assert "  kind: double\n  bid: 6\n" in text_of(capsys, "fukushima-double")


def test_a_clan_is_found_where_other_entries_name_it(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "Date")
    where = {(m["collection"], m["name"], tuple(m["via"])) for m in x["mentioned_by"]}
    assert ("cards", "date-double", ("clan",)) in where
    assert ("faces", "date-2", ("clan",)) in where
    assert ("locations", "Sendai", ("recruitment[0].clan",)) in where
    assert all(m["fields"] is None for m in x["mentioned_by"])  # named entries, by name


# ------------------------------------------------------------------ kinds and clashes


@pytest.mark.parametrize(
    ("topic", "kind"),
    [
        ("7.3.5", "clause"),
        ("7.3.1/no-pickup", "clause"),
        ("size_penalty", "clause"),
        ("sekigahara:7.3.5", "clause"),
        ("S-split", "overlay"),
        ("D-stack-once", "overlay"),
        ("gmt-2011", "printing"),
        ("decisions", "file"),
        ("Kuwana", "data"),
        ("data:Kuwana", "data"),
    ],
)
def test_json_says_the_kind_of_topic(
    capsys: pytest.CaptureFixture[str], topic: str, kind: str
) -> None:
    assert explained(capsys, topic)["kind"] == kind


def test_a_clause_keeps_its_own_kind(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "7.3.6")
    assert (x["kind"], x["clause_kind"], x["also"]) == ("clause", "informative", [])


def test_a_name_both_declared_and_in_the_data(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Numazu: three segments, and no clause names it (4.2/nine-printed-red names Kuwana, so a
    # map without Kuwana is refused, exit 2)
    (tmp_path / "map.yaml").write_text(MAP.read_text().replace("Numazu", "overrun_ratio"))
    data = ["--data", str(tmp_path)]
    x = explained(capsys, "overrun_ratio", *data)
    assert x["kind"] == "clause" and x["number"] == "7.4.1"
    assert x["also"] == [
        {"kind": "data", "what": "an entry of locations", "ask": "data:overrun_ratio"}
    ]
    out = text_of(capsys, "overrun_ratio", *data)
    assert out.rstrip().endswith("also an entry of locations: referee explain data:overrun_ratio")
    d = explained(capsys, "data:overrun_ratio", *data)
    assert d["kind"] == "data" and len(d["mentioned_by"]) == 3 and d["also"] == []


# ------------------------------------------------------------------ unknown topics


@pytest.mark.parametrize(
    ("topic", "message", "hint"),
    [
        (
            "Kuwanna",
            "no clause, label, name, overlay, printing or data entry 'Kuwanna'",
            "did you mean 'Kuwana'",
        ),
        (
            "S-splt",
            "no clause, label, name, overlay, printing or data entry 'S-splt'",
            "did you mean 'S-split'?",
        ),
        (
            "size_penalti",
            "no clause, label, name, overlay, printing or data entry 'size_penalti'",
            "did you mean 'size_penalty'?",
        ),
        ("overlay:Kuwana", "no overlay 'Kuwana'", "did you mean 'data:Kuwana'?"),
        ("printing:gmt-2012", "no printing 'gmt-2012'", "did you mean 'gmt-2011'?"),
        ("7.3.1/no-pikcup", "clause 7.3.1 has no label [no-pikcup]", "'7.3.1/no-pickup'"),
    ],
)
def test_an_unknown_topic_is_bad_input_with_a_suggestion(
    capsys: pytest.CaptureFixture[str], topic: str, message: str, hint: str
) -> None:
    assert main(["explain", topic]) == 2
    err = capsys.readouterr().err
    assert f"<command line>:0:0: {message}\n" in err
    assert "  hint: " in err and hint in err
    assert "Traceback" not in err


def test_an_unknown_topic_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "Kuwanna", "--format", "json"]) == 2
    out = output(capsys.readouterr().out)
    [problem] = out["errors"]
    assert out["ok"] is False
    assert problem["message"] == (
        "no clause, label, name, overlay, printing or data entry 'Kuwanna'"
    )
    assert problem["hint"].startswith("did you mean 'Kuwana'")


def test_a_topic_with_no_close_name_says_where_to_look(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", "zzzzzzzz"]) == 2
    assert "hint: list them with: referee clauses, referee overlays" in capsys.readouterr().err


def test_control_characters_of_a_data_entry_are_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = MAP.read_text()  # Numazu: a location no clause names (4.2 names Kuwana)
    for before, after in (
        ("- name: Numazu\n", '- name: "Nu\\e[31mmazu"\n'),
        ("Numazu,", '"Nu\\e[31mmazu",'),
    ):
        text = text.replace(before, after)
    (tmp_path / "map.yaml").write_text(text)
    out = text_of(capsys, "Nu\x1b[31mmazu", "--data", str(tmp_path))
    assert "\x1b" not in out
    assert out.startswith("Nu\\x1b[31mmazu  (an entry of locations: ")
    assert "segments: b: Hakone, highway: Tokaido, source: bga-map  (as a; " in out
    out = text_of(capsys, "Sunpu", "--data", str(tmp_path))
    assert "\x1b" not in out and "b: Nu\\x1b[31mmazu, highway: Tokaido" in out


def test_an_exception_and_an_addition(capsys: pytest.CaptureFixture[str], game_copy: Path) -> None:
    (game_copy / "overlays" / "extra.rules").write_text(
        'overlay X-test "An exception and an addition, for the test"\n'
        "  kind clarification\n"
        '  source "this test, on 7.3.1"\n'
        '  date "2020"\n'
        "  amend 7.3.1\n"
        "    except 7.3.1/no-pickup when picked_up == 1\n"
        "    add define spare_blocks(): int = 2\n"
        "  end\n"
        "end\n"
    )
    x = explained(capsys, "X-test", "--spec", str(game_copy))
    assert x["in_force"] == "when asked" and x["switch"] == "--overlay X-test"
    exc, add = x["changes"]
    assert (exc["action"], exc["name"], exc["text"]) == (
        "except",
        "7.3.1/no-pickup",
        "except 7.3.1/no-pickup when picked_up == 1",
    )
    assert exc["base"]["signature"] == "require [no-pickup] (picked_up: int)"
    assert (add["action"], add["name"], add["base"]) == ("add", "spare_blocks", None)
    assert add["text"] == "add define spare_blocks(): int = 2"
    assert x["mentioned_in"] == []  # its own text is no mention
    out = text_of(capsys, "X-test", "--spec", str(game_copy))
    assert "  except in 7.3.1: 7.3.1/no-pickup\n" in out
    assert "  add in 7.3.1: define spare_blocks(): int\n    the base rules have nothing" in out
