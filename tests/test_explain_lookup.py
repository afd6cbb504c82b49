"""`referee explain` as a player looks things up: a location's neighbours, castle, resource and
set-up; a block face's counts as the components give them; a hex, a unit and a force of Fierce
Battle; a section with its sub-clauses; a word search; and hostile topics."""

from __future__ import annotations

from typing import Any

import pytest

from referee.cli import main
from tests.referee_helpers import output
from tests.test_explain_topics import at_root, explained, text_of

FB = ("--game", "fierce-battle")
__all__ = ["at_root"]  # files are shown relative to the repository (autouse, as imported)


def computed(x: dict[str, Any]) -> dict[str, Any]:
    return {c["name"]: c["value"] for c in x["computed"]}


# ------------------------------------------------------------------ locations and faces


def test_a_location_shows_its_roads_castle_resource_and_set_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "Osaka")
    assert [(link["to"], link["fields"]) for link in x["links"]] == [
        ("Kyoto", {"highway": "unnamed"}),
        ("Himeji", {"highway": None}),
        ("Wakayama", {"highway": None}),
    ]
    assert {link["by"] for link in x["links"]} == {"segments"}
    said = computed(x)
    assert sorted(said["neighbours"]) == ["Himeji", "Kyoto", "Wakayama"]
    assert (said["has_castle"], said["natural_side"], said["resource"]) == (True, "ishida", False)
    assert (said["setup_count"], said["random_count"]) == (6, 2)
    start = {s["name"]: s["value"] for s in x["at_start"]}
    assert (start["castle_owner"], start["disk_standing"]) == ("ishida", True)
    [setup] = x["starting"]
    assert (setup["setup"], setup["clause"]) == ("printed", "5.2.1")
    [placed] = setup["events"]
    assert (placed["action"], placed["by"], placed["at"]) == ("place", "ishida", "Osaka")
    assert "ishida-leader-square" in placed["blocks"] and len(placed["blocks"]) == 6
    text = text_of(capsys, "Osaka")
    assert "joined by segments (road, 4.1) to 3:\n  Kyoto  (highway: unnamed)\n  Himeji\n" in text
    assert "  has_castle = true  (4.3)\n" in text
    assert "  castle_owner = ishida  (4.3)\n" in text
    assert (
        "in the set-up `setup: printed` (5.2.1):\n  place by ishida: at: Osaka, blocks: [" in text
    )


def test_a_resource_location_on_the_highway(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "Kuwana")
    assert [(link["to"], link["fields"]["highway"]) for link in x["links"]] == [
        ("Minakuchi", "Tokaido"),
        ("Kiyosu", "Tokaido"),
        ("Anotsu", None),
    ]
    said = computed(x)
    assert (said["resource"], said["has_castle"], said["setup_count"]) == (True, False, 0)
    assert "disk_side" not in said  # no disk there: the rules have no value, none is made up
    assert x["starting"] == []


def test_a_face_shows_the_counts_the_components_give_and_no_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "tokugawa-3-square")
    assert x["fields"]["count"] == "unknown" and x["fields"]["count_range"] == [1, 2]
    said = computed(x)
    assert (said["count_known"], said["strength"], said["printed_spot"]) == (False, 3, "Edo")
    [setup] = x["starting"]
    [placed] = setup["events"]
    assert placed["at"] == "Edo" and placed["blocks"].count("tokugawa-3-square") == 2
    x = explained(capsys, "mori-3")
    assert x["fields"]["count"] == "unknown" and computed(x)["count_known"] is False
    assert x["starting"] == []


def test_a_card_shows_its_count(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "fukushima-double")
    assert x["kind"] == "data" and isinstance(x["fields"]["count"], int)


# ------------------------------------------------------------------ Fierce Battle


def test_a_hex_shows_its_neighbours_terrain_and_who_starts_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = explained(capsys, "0103", *FB)
    said = computed(x)
    assert said["neighbours"] == ["0102", "0104", "0202", "0203"]
    assert said["terrain_of"] == "flat"
    assert x["starting"] == [{"state": "unit_at", "clause": "2-2-1", "values": ["tokugawa_taisho"]}]
    x = explained(capsys, "0405", *FB)
    assert [(link["to"], link["fields"]) for link in x["links"]] == [
        ("0505", {"river": True}),
        ("0506", {"river": True}),
    ]
    assert "starting here (unit_at, 2-2-1): [tokugawa_taisho]" in text_of(capsys, "0103", *FB)


def test_a_unit_and_a_force(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "tokugawa_taisho", *FB)
    said = computed(x)
    assert (said["force_of"], said["kind_of"], said["start_hex"]) == ("Tokugawa", "taisho", "0103")
    start = {s["name"]: s["value"] for s in x["at_start"]}
    assert (start["unit_at"], start["eliminated"]) == ("0103", False)
    x = explained(capsys, "Tokugawa", *FB)
    assert x["collection"] == "forces" and x["fields"]["side"] == "east"
    assert [m["name"] for m in x["mentioned_by"]] == [
        "tokugawa_taisho",
        "tokugawa_ashigaru_1",
        "tokugawa_teppo_1",
        "tokugawa_taiho",
    ]


# ------------------------------------------------------------------ sections


def test_a_section_shows_its_sub_clauses(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "8.8")
    assert x["kind"] == "section" and x["number"] == "8.8"
    assert [r["number"] for r in x["subclauses"]] == ["8.8.1", "8.8.2", "8.8.3", "8.8.4", "8.8.5"]
    assert x["subclauses"][3]["title"] == "Retreats into a castle"
    text = text_of(capsys, "8.8")
    assert text.startswith("section 8.8: no clause of its own in the spec; 5 under it\n\n8.8.1")
    assert "\n8.8.4  Retreats into a castle\n  " in text
    assert explained(capsys, "clause:8.8")["kind"] == "section"
    # a clause that heads others lists them after its own text
    x = explained(capsys, "7", *FB)
    assert x["kind"] == "clause" and x["number"] == "7"
    assert [r["number"] for r in x["subclauses"]][:3] == ["7-1", "7-1-1", "7-1-2"]
    assert "sub-clauses (" in text_of(capsys, "7", *FB)
    assert explained(capsys, "8.8.4")["subclauses"] == []


def test_a_number_heading_nothing_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "8.88"]) == 2
    assert "no clause, label, name, overlay, printing or data entry '8.88'" in (
        capsys.readouterr().err
    )


# ------------------------------------------------------------------ word search


def test_a_word_search_lists_the_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "retreat castle")
    assert x["kind"] == "search" and x["words"] == ["retreat", "castle"]
    asks = [h["ask"] for h in x["hits"]]
    assert asks[0] == "8.8.4"  # both words in its title
    assert set(asks) >= {"8.8.1", "8.8.4"} and x["found"] == len(asks)
    assert all(h["words"] == ["retreat", "castle"] for h in x["hits"])
    assert "8.8.4/castle-refuge" in x["hits"][0]["labels"]
    text = text_of(capsys, "retreat castle")
    assert text.startswith(f"{len(asks)} match every word of 'retreat castle'\n\n")
    assert "8.8.4 Retreats into a castle  (clause: referee explain 8.8.4)\n" in text


def test_a_word_search_finds_overlays_and_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "overrun draw")
    assert [h["ask"] for h in x["hits"]][:2] == ["S-overrun-draw", "8.10"]
    assert x["hits"][0]["kind"] == "clarification"
    decisions = explained(capsys, "search:capital")
    assert any(h["kind"] == "decision" for h in decisions["hits"])


def test_search_qualifier_searches_a_word_that_is_also_a_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert explained(capsys, "castle_owner")["kind"] == "clause"  # a state the spec declares
    x = explained(capsys, "search:castle_owner")
    assert x["kind"] == "search" and x["words"] == ["castle", "owner"]
    assert "D-disk-control" in [h["ask"] for h in x["hits"]]
    x = explained(capsys, "search:zzzzqqq")
    assert (x["kind"], x["hits"], x["found"]) == ("search", [], 0)
    assert text_of(capsys, "search:zzzzqqq") == "nothing matches 'zzzzqqq'\n"
    # no word at all (bytes not UTF-8, as Python reads them from the command line): said so,
    # the topic escaped
    assert text_of(capsys, "search:\udcff\udcfe%") == "no word to search for in '\\udcff\\udcfe%'\n"
    assert explained(capsys, "search:%%")["words"] == []


def test_a_word_search_in_fierce_battle(capsys: pytest.CaptureFixture[str]) -> None:
    x = explained(capsys, "zone control", *FB)
    assert x["kind"] == "search" and "6" in [h["ask"] for h in x["hits"]]


def test_words_that_match_nothing_together_suggest_the_nearest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", "retreet castle"]) == 2
    err = capsys.readouterr().err
    assert "no clause, label, name, overlay, printing or data entry 'retreet castle'" in err
    assert "hint: did you mean '8.8.4'" in err


# ------------------------------------------------------------------ hostile topics


@pytest.mark.parametrize(
    "topic",
    [
        "\x1b[2J\x1b[31mretreat castle\x07",
        "retreat\u202e castle\r\nforged line",
        "\x00\x01\x02",
        "8.8\x1b[0m",
        "search:\x1b]0;title\x07retreat",
        "\udcff\udcfe\udc80castle",  # bytes not UTF-8 on the command line, as Python reads them
        "search:\udcff\udcfe",
    ],
)
def test_control_characters_and_escape_sequences_are_escaped(
    capsys: pytest.CaptureFixture[str], topic: str
) -> None:
    code = main(["explain", topic])
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert code in (0, 2) and "Traceback" not in said
    for raw in ("\x1b", "\x07", "\x00", "\u202e", "\r", "\udcff"):
        assert raw not in said, (topic, said)
    assert main(["explain", topic, "--format", "json"]) == code
    out = capsys.readouterr().out
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in out


def test_a_huge_topic_is_answered_quickly_and_briefly(capsys: pytest.CaptureFixture[str]) -> None:
    topic = "retreat castle " * 70_000  # about a megabyte
    x = explained(capsys, topic)
    assert x["kind"] == "search" and x["words"] == ["retreat", "castle"]
    assert len(x["topic"]) < 300
    words = " ".join(f"w{i}" for i in range(50_000))
    assert main(["explain", words]) == 2
    err = capsys.readouterr().err
    assert len(err) < 2_000 and "more characters" in err
    assert main(["explain", "search:" + words, "--format", "json"]) == 0
    x = output(capsys.readouterr().out)
    assert x["hits"] == [] and len(x["words"]) == 12 and x["words_left_out"] > 0
