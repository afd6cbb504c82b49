"""Second reading ("readlook") of `referee explain` lookups and word search, the suggestions
of a refusal, shuffled random games and `referee hide` (issues 30.4-6 and 31.2)."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from tests.referee_helpers import EXAMPLES, ROOT, judge
from tests.test_alternatives import assert_each_is_legal

DATA = ROOT / "referee" / "games" / "sekigahara" / "data"
COMBAT = EXAMPLES / "combat-example.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    got = capsys.readouterr()
    return code, got.out, got.err


def combat_with(tmp_path: Path, old: str, new: str) -> Path:
    """The rulebook's example of combat with one event written otherwise."""
    text = COMBAT.read_text()
    assert old in text
    path = tmp_path / "changed.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


# ------------------------------------------------------------------ explain


def test_explain_a_face_that_a_definition_of_faces_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`mori_setup(): list of face` ends in `_setup` but is no set-up a record can name (a
    record's `setup: NAME` expands a list of events, as the notation reads it): explaining
    a Mori face was an internal error, in text and in JSON."""
    code, out, err = run(capsys, "explain", "mori-3-triangle")
    assert (code, err) == (0, "")
    assert "  count: 4\n" in out
    assert "  count_known = true  (5.2.1)\n" in out
    assert "in the set-up `setup: printed` (5.2.1):\n" in out
    assert "  place_mori by ishida: blocks: [mori-3-triangle, mori-3-triangle, " in out
    assert "setup: mori" not in out
    code, out, _ = run(capsys, "explain", "mori-leader-triangle", "--format", "json")
    assert code == 0
    result = json.loads(out)["result"]
    assert [s["setup"] for s in result["starting"] if "setup" in s] == ["printed"]


# From shared/data/map-transcription.json (the map read by eye): road neighbours (True for a
# highway), castle, resource, set-up symbols, random +N. All 51 locations were compared by
# this reader; these five stand for them.
MAP_FACTS = {
    "Aizu": ({"Shirakawa": False, "Tsugawa": False}, True, False, 3, 1),
    "Edo": ({"Hakone": True, "Mito": False, "Oshi": True, "Oyama": False}, False, True, 4, 2),
    "Gifu": ({"Iwamura": True, "Kiyosu": False, "Sawayama": True}, True, False, 0, 2),
    "Kuwana": ({"Anotsu": False, "Kiyosu": True, "Minakuchi": True}, False, True, 0, 0),
    "Osaka": ({"Himeji": False, "Kyoto": True, "Wakayama": False}, True, False, 6, 2),
}


@pytest.mark.parametrize("place", sorted(MAP_FACTS))
def test_a_location_as_the_map_transcription_gives_it(
    capsys: pytest.CaptureFixture[str], place: str
) -> None:
    roads, castle, resource, symbols, spots = MAP_FACTS[place]
    code, out, _ = run(capsys, "explain", f"data:{place}", "--format", "json")
    assert code == 0
    x = json.loads(out)["result"]
    assert {link["to"]: link["fields"]["highway"] is not None for link in x["links"]} == roads
    computed = {c["name"]: c["value"] for c in x["computed"]}
    assert sorted(computed["neighbours"]) == sorted(roads)
    assert computed["has_castle"] == castle
    assert computed["resource"] == resource
    assert computed["setup_count"] == symbols
    assert computed["random_count"] == spots


def test_a_topic_with_spaces_around_it(capsys: pytest.CaptureFixture[str]) -> None:
    """A topic typed or pasted with a space around it names what it names without them."""
    code, out, _ = run(capsys, "explain", " 8.8 ")
    assert code == 0
    assert out.startswith("section 8.8: no clause of its own in the spec; 5 under it\n")
    code, out, _ = run(capsys, "explain", "Kuwana ")
    assert code == 0
    assert out.startswith("Kuwana  (an entry of locations: ")


# ------------------------------------------------------------------ suggestions


def test_a_wrong_special_attack_bonus_names_the_right_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Mori gun with a Mori swords card after an earlier gun earns 2 + 2 = 4 special
    attack (the rulebook's example of combat); a record claiming 3 is told 4."""
    rec: dict[str, Any] = yaml.safe_load(COMBAT.read_text())
    rec["events"][7] = {
        "deploy": {
            "by": "ishida",
            "card": "mori-swords",
            "blocks": ["mori-gun"],
            "impact": 6,
            "special_bonus": 3,
        }
    }
    rec["events"] = rec["events"][:8]
    code, verdict = judge(tmp_path, capsys, rec)
    assert code == 1
    v = verdict["violations"][0]
    assert v["cites"] == "8.4.1/special-as-recorded"
    first = v["alternatives"][0]
    assert (first["changing"], first["text"]) == (["special_bonus"], "4")
    assert v["alternatives"]
    assert_each_is_legal(tmp_path, capsys, rec, v)


# ------------------------------------------------------------------ random games


@pytest.mark.xfail(
    strict=True,
    reason="referee/games/sekigahara/clauses/05-setup.rules and 06-weekly.rules propose "
    "`take(shuffled(bag(by)), n)` from the whole bag at every +N spot, first wave and "
    "reinforcement: blocks drawn earlier are never taken out, so a face comes out of the "
    "bag more often than the bag holds it (the spec's own test bag: each face twice). The "
    "proposals should draw from what is left in the bag; the spec is not this reader's",
)
def test_a_random_game_draws_no_block_that_is_not_in_the_bag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "play", "--seed", "117", "--turns", "3")
    assert code == 0
    game = yaml.safe_load(out)
    faces = yaml.safe_load((DATA / "blocks.yaml").read_text())["faces"]
    side = {"gold": "ishida", "black": "tokugawa"}
    bag = collections.Counter(
        (side[f["colour"]], f["id"]) for f in faces if f["setup"] is None for _ in range(2)
    )
    drawn: collections.Counter[tuple[str, str]] = collections.Counter()
    for ev in game["events"]:
        ((action, args),) = ev.items()
        if action in ("place_random", "recruit", "reinforce"):
            drawn.update((args["by"], b) for b in args.get("blocks", []))
    assert sum(drawn.values()) > 0
    assert {k: n for k, n in drawn.items() if n > bag[k]} == {}


# ------------------------------------------------------------------ hide


@pytest.mark.parametrize("view", ["mori", "PUBLIC"])
def test_hide_refuses_a_record_of_a_view_no_side_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], view: str
) -> None:
    """`view: mori` in a record's header was hidden again as if it were a real view and
    written `view: public`, exit 0."""
    path = combat_with(tmp_path, "game: sekigahara\n", f"game: sekigahara\nview: {view}\n")
    code, out, err = run(capsys, "hide", str(path), "--view", "public")
    assert (code, out) == (2, "")
    assert f"changed.yaml:8:7: view: no such view '{view}'" in err
    assert "hint: views: public, " in err


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "retreat: {by: ishida, to: Kyoto}",
            "retreat: {by: ishida, to: Kyotoo}",
            "events[13].retreat.to: unknown location 'Kyotoo'",
        ),
        (
            "deploy: {by: ishida, blocks: [mori-leader-triangle]}",
            "deploy: {by: ishida, blocks: [mori-leader-triangle], colour: red}",
            "unknown argument 'colour'",
        ),
        (
            "deploy: {by: ishida, blocks: [mori-leader-triangle]}",
            "dance: {by: ishida}",
            "unknown action 'dance'",
        ),
        (
            "deploy: {by: ishida, blocks: [mori-leader-triangle]}",
            "deploy: {by: mori, blocks: [mori-leader-triangle]}",
            "events[1].deploy.by: unknown side 'mori'",
        ),
        (
            "deploy: {by: ishida, blocks: [mori-leader-triangle]}",
            "deploy: {by: ishida, blocks: ['?']}",
            "events[1].deploy.blocks[0]: unknown face '?'",
        ),
    ],
)
def test_hide_refuses_an_event_the_referee_would_refuse_as_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, said: str
) -> None:
    """What a view sees is written as the record has it: an unknown location, argument,
    action or side (or a mark in a complete record) went out unread, exit 0, though
    docs/commands/hide.md promises exit 2 for a record the referee refuses as input."""
    path = combat_with(tmp_path, old, new)
    code, out, err = run(capsys, "hide", str(path), "--view", "tokugawa")
    assert (code, out) == (2, "")
    assert said in err
    code, _, err = run(capsys, "check", str(path))
    assert code == 2  # the referee refuses it as input too
