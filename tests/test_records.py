"""Bad records of every kind: exit 2 and a located message, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from tests.referee_helpers import output

HEAD = "game: sekigahara\n"
DEAL = (
    HEAD
    + "events:\n  - deal: {by: tokugawa, cards: [tokugawa, fukushima, maeda, date, tokugawa]}\n"
)

BAD = [
    ("not YAML", "game: [sekigahara\n", "2:1", "malformed YAML or JSON"),
    ("empty file", "", "1:1", "the record is empty"),
    ("not a mapping", "[1, 2]\n", "1:1", "(top level): expected object, found list [1, 2]"),
    ("no events", HEAD, "1:1", "(top level): 'events' is missing (required)"),
    (
        "another game",
        "game: chess\nevents: []\n",
        "1:7",
        "this record is of 'chess', not 'sekigahara'",
    ),
    (
        "unknown header field",
        HEAD + "event: []\nevents: []\n",
        "2:1",
        "(top level): unknown field 'event'",
    ),
    (
        "an event of two actions",
        HEAD + "events:\n  - {deal: {by: tokugawa}, bid: {by: ishida}}\n",
        "3:5",
        "2 field(s); at most allowed: 1 (an event names one action)",
    ),
    (
        "arguments not a mapping",
        HEAD + "events:\n  - deal: [tokugawa]\n",
        "3:11",
        "events[0].deal: expected object or null, found list",
    ),
    ("unknown action", HEAD + "events:\n  - fly: {by: tokugawa}\n", "3:5", "unknown action 'fly'"),
    ("no actor", HEAD + "events:\n  - deal: {cards: []}\n", "3:11", "'by' is missing: who acts?"),
    (
        "unknown side",
        HEAD + "events:\n  - deal: {by: oda, cards: []}\n",
        "3:16",
        "events[0].deal.by: unknown side 'oda'",
    ),
    (
        "missing argument",
        HEAD + "events:\n  - deal: {by: tokugawa}\n",
        "3:11",
        "'cards' is missing",
    ),
    (
        "unknown argument",
        HEAD + "events:\n  - deal: {by: tokugawa, cards: [], hand: []}\n",
        "3:43",
        "unknown argument 'hand'",
    ),
    (
        "wrong type",
        HEAD + "events:\n  - deal: {by: tokugawa, cards: tokugawa}\n",
        "3:33",
        "events[0].deal.cards: expected a list, found text 'tokugawa'",
    ),
    (
        "unknown card",
        DEAL.replace("fukushima", "fukushma"),
        "3:44",
        "events[0].deal.cards[1]: unknown card 'fukushma'",
    ),
    (
        "unknown block face",
        HEAD + "events:\n  - place: {by: tokugawa, at: Edo, blocks: [tokugawa-4]}\n",
        "3:45",
        "unknown face 'tokugawa-4'",
    ),
    (
        "unknown location",
        HEAD + "events:\n  - place: {by: tokugawa, at: Edoo, blocks: []}\n",
        "3:31",
        "events[0].place.at: unknown location 'Edoo'",
    ),
    (
        "a number for a name",
        HEAD + "events:\n  - place: {by: tokugawa, at: 7, blocks: []}\n",
        "3:31",
        "expected the name of location, found 7",
    ),
    (
        "unknown group field",
        HEAD + "position: {procedure: movement_phase, args: {active: ishida}}\nevents:\n"
        "  - movement: {by: ishida, choice: minimal}\n  - move: {by: ishida, from: Kyoto, groups: [{blocks: [], route: []}]}\n",
        "5:66",
        "unknown field 'route' of group",
    ),
    (
        "unknown printing",
        HEAD + "printing: gmt-2012\nevents: []\n",
        "2:11",
        "unknown printing 'gmt-2012'",
    ),
    (
        "unknown overlay",
        HEAD + "overlays: [S-nothing]\nevents: []\n",
        "2:12",
        "unknown overlay 'S-nothing'",
    ),
    (
        "an overlay both on and off",
        HEAD + "overlays: [S-split]\nno_overlays: [S-split]\nevents: []\n",
        "2:12",
        "overlay 'S-split' is switched both on and off",
    ),
    (
        "unknown procedure",
        HEAD + "position: {procedure: nope}\nevents: []\n",
        "2:23",
        "no procedure 'nope'",
    ),
    (
        "unknown step",
        HEAD + "position: {procedure: week_cycle, step: nope}\nevents: []\n",
        "2:41",
        "procedure week_cycle has no step 'nope'",
    ),
    (
        "not game state",
        HEAD + "position: {procedure: week_cycle, state: {weeks: 3}}\nevents: []\n",
        "2:50",
        "'weeks' is not game state",
    ),
    (
        "bad state value",
        HEAD + "position: {procedure: week_cycle, state: {week: three}}\nevents: []\n",
        "2:49",
        "position.state.week: expected a whole number, found text 'three'",
    ),
    ("truncated", DEAL[: DEAL.index("maeda")], "3:55", "malformed YAML or JSON"),
    (
        "YAML tags",
        HEAD + "events: !!python/object:os.system []\n",
        "2:9",
        "YAML tags are not allowed",
    ),
]


@pytest.mark.parametrize("why,text,where,message", BAD, ids=[b[0] for b in BAD])
def test_bad_record(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    why: str,
    text: str,
    where: str,
    message: str,
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:{where}: "), first
    assert message in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "none.yaml")]) == 2
    assert "cannot read file" in capsys.readouterr().err


def test_binary_junk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "junk.yaml"
    path.write_bytes(b"\x00\xff\xfe\x80game")
    assert main(["check", str(path)]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err


def test_json_records_are_read_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(
        '{"game": "sekigahara", "events": [{"deal": {"by": "tokugawa", "cards": ["tokugawa", "tokugawa", "maeda", "date", "fukushima"]}}]}'
    )
    assert main(["check", str(path)]) == 0
    assert "legal: 1 event(s)" in capsys.readouterr().out


def test_bad_input_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:

    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + "events:\n  - place: {by: tokugawa, at: Edoo, blocks: []}\n")
    assert main(["check", str(path), "--format", "json"]) == 2
    out = output(capsys.readouterr().out)
    assert out["ok"] is False
    assert out["errors"][0]["line"] == 3 and out["errors"][0]["hint"] == "did you mean 'Edo'?"


def test_record_format_documents_every_action() -> None:
    from referee.compile.spec import load_spec

    doc = (Path(__file__).resolve().parents[1] / "docs" / "record-format.md").read_text()
    actions = load_spec().sym.event_actions()
    assert len(actions) >= 14
    assert [a for a in sorted(actions) if f"| `{a}` |" not in doc] == []
