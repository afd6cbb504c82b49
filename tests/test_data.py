"""The component files: their content, their provenance, and clear rejection of bad ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.cli import main
from referee.compile.spec import SPEC_ROOT, Spec, load_spec
from referee.data.source import parse_document
from referee.errors import RefereeError

DATA = SPEC_ROOT / "sekigahara" / "data"


def test_map_facts(spec: Spec) -> None:
    c = spec.components.collections
    assert len(c["locations"]) == 51 and len(c["segments"]) == 62
    assert sum(1 for s in c["segments"] if s["highway"]) == 19
    assert sum(1 for loc in c["locations"] if loc["resource"]) == 9
    castles = [loc["castle"] for loc in c["locations"] if loc["castle"]]
    assert (castles.count("gold"), castles.count("black")) == (4, 5)
    capitals = {loc["name"]: loc["capital"] for loc in c["locations"] if loc["capital"]}
    assert capitals == {"Kyoto": "gold", "Edo": "black"}
    disks = {loc["name"] for loc in c["locations"] if loc["disk"]}
    assert disks == {"Osaka", "Ueda"}


def test_setup_spots_match_the_known_totals(spec: Spec) -> None:
    locs = spec.components.collections["locations"]
    boxes = spec.components.collections["boxes"]
    for colour, symbols, random_map in (("gold", 14, 10), ("black", 14, 8)):
        placed = sum(
            p["setup"]["count"]
            for p in locs + boxes
            if p.get("setup") and p["setup"]["colour"] == colour
        )
        drawn = sum(
            loc["random"]["count"]
            for loc in locs
            if loc["random"] and loc["random"]["colour"] == colour
        )
        assert (placed, drawn) == (symbols, random_map)


def test_decks(spec: Spec) -> None:
    cards = spec.components.collections["cards"]
    for deck, bids in (("black", {2, 4, 6, 8}), ("gold", {1, 3, 5, 7})):
        mine = [c for c in cards if c["deck"] == deck]
        assert sum(c["count"] for c in mine) == 55
        assert {c["bid"] for c in mine} == bids  # even against odd: a bid never ties
    assert all(c["clan"] is None for c in cards if c["kind"] == "loyalty")


def test_block_counts_are_never_invented(spec: Spec) -> None:
    faces = spec.components.collections["faces"]
    assert len(faces) == 54
    known = {f["id"]: f["count"] for f in faces if f["count"] != "unknown"}
    # Only counts a source gives or plainly implies.
    assert known["ishida-leader-square"] == 1 and known["ii-4-star"] == 1
    assert known["mori-3-triangle"] == 4 and known["mori-leader-triangle"] == 1
    assert all(f["setup"] for f in faces if f["count"] != "unknown")
    assert all(f["count_basis"] for f in faces)
    unknown_setup = {f["id"] for f in faces if f["setup"] and f["count"] == "unknown"}
    assert unknown_setup == {
        "tokugawa-3-square",
        "tokugawa-gun-square",
        "maeda-2-triangle",
        "maeda-gun-triangle",
        "maeda-leader-triangle",
    }
    assert all(f.get("count_range") == [1, 2] for f in faces if f["id"] in unknown_setup)


def test_every_fact_names_a_source(spec: Spec) -> None:
    for name, doc in spec.components.documents.items():
        sources = set(doc.data["sources"])
        for key, items in doc.data.items():
            if isinstance(items, list):
                for item in items:
                    assert item.get("source") in sources, (name, key, item)


def copy_data(tmp_path: Path, name: str) -> Path:
    d = tmp_path / "mine"
    d.mkdir(exist_ok=True)
    shutil.copy(DATA / name, d / name)
    return d / name


def replace_once(path: Path, old: str, new: str) -> int:
    """Replace the first occurrence; return its 1-based line number."""
    text = path.read_text()
    at = text.index(old)
    path.write_text(text[:at] + new + text[at + len(old) :])
    return text.count("\n", 0, at) + 1


def check_data(d: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["spec", "check", "--data", str(d)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_bad_field_is_named_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = copy_data(tmp_path, "map.yaml")
    line = replace_once(f, "castle: gold", "castle: purple")
    err = check_data(f.parent, capsys)
    assert (
        f"{f}:{line}:11: locations[0].castle: 'purple' is not one of 'gold', 'black' (or null)"
        in err
    )
    assert "hint: see map.schema.json" in err


def test_wrong_type_and_unknown_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = copy_data(tmp_path, "cards.yaml")
    bid_line = replace_once(f, "  bid: 6", "  bid: six")
    count_line = replace_once(f, "  count: 4", "  cuont: 4")
    err = check_data(f.parent, capsys)
    assert f"{f}:{bid_line}:8: cards[1].bid: expected integer, found string 'six'" in err
    assert f"{f}:{count_line}:3: cards[0]: unknown field 'cuont'" in err
    assert "did you mean 'count'?" in err
    assert "cards[0]: 'count' is missing (required)" in err


def test_reference_to_unknown_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = copy_data(tmp_path, "map.yaml")
    line = replace_once(f, "{a: Kyoto, b: Minakuchi", "{a: Kyotoo, b: Minakuchi")
    err = check_data(f.parent, capsys)
    assert f"{f}:{line}:7: segments[0].a: 'Kyotoo' names no item of locations" in err


def test_duplicate_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = copy_data(tmp_path, "blocks.yaml")
    replace_once(f, "- id: date-3\n", "- id: date-2\n")
    assert "faces[1]: duplicate name 'date-2'" in check_data(f.parent, capsys)


def test_own_component_files_replace_the_bundled_ones(tmp_path: Path) -> None:
    f = copy_data(tmp_path, "blocks.yaml")
    replace_once(f, "count: unknown", "count: 3")
    spec = load_spec(data_dir=f.parent)
    date2 = next(x for x in spec.components.collections["faces"] if x["id"] == "date-2")
    assert date2["count"] == 3
    assert len(spec.components.collections["locations"]) == 51  # the rest still bundled


@pytest.mark.parametrize(
    "text,message",
    [
        ("schema: cards\nsources: [\n", "malformed YAML or JSON"),
        ("schema: cards\nsources: {a: &x {what: a, confidence: b}, b: *x}\n", "aliases"),
        ("schema: cards\nschema: map\n", "duplicate key 'schema'"),
        ("- just\n- a list\n", "a component file must start with `schema: <name>`"),
        ("schema: nothing\n", "no schema named 'nothing'"),
        ("schema: cards\nx: !!python/object:os.system {}\n", "YAML tags are not allowed"),
        ("schema: cards\nx: !!binary aGVsbG8=\n", "YAML tags are not allowed"),
    ],
)
def test_broken_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    d = tmp_path / "mine"
    d.mkdir()
    (d / "cards.yaml").write_text(text)
    assert message in check_data(d, capsys)


def test_missing_data_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such directory of component files" in check_data(tmp_path / "none", capsys)


def test_deep_nesting_is_refused() -> None:
    with pytest.raises(RefereeError, match="nesting deeper than"):
        parse_document("a: " + "[" * 100 + "]" * 100 + "\n", "deep.yaml")


def test_positions_are_kept() -> None:
    doc = parse_document("a:\n  b: [1, 2]\n  c: {d: x}\n", "p.yaml")
    assert doc.data == {"a": {"b": [1, 2], "c": {"d": "x"}}}
    s = doc.span(("a", "b", 1))
    assert (s.line, s.column) == (2, 10)
    s = doc.span(("a", "c", "d", "missing"))  # falls back to the nearest known ancestor
    assert (s.line, s.column) == (3, 10)
