"""The `hidden` declaration (issue 31.1): what each seat sees, declared in the rules language,
parsed, checked (every secret piece of state and every secret argument said once, in lines
that a view can always read), and kept in the symbols; a game that hides nothing declares
nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.cli import main
from referee.compile.spec import SPEC_ROOT, bundled_game, load_spec

HIDDEN = SPEC_ROOT / "sekigahara" / "hidden.rules"


def test_sekigahara_declares_who_sees_what() -> None:
    h = load_spec(bundled_game("sekigahara")).sym.hidden
    assert h is not None
    assert h.secret == {"face": False, "card": True}
    state = {s.name: s for s in h.seen if s.kind == "state"}
    assert len(state) == 16
    assert (state["units_at"].path, state["units_at"].viewer) == (["l", "s"], "side")
    assert state["draw_pile"].viewer == "nobody"
    assert state["mori_box"].viewer == "everybody"
    assert state["garrison"].clauses == ["3.1", "8.9.2"]
    events = [s for s in h.seen if s.kind == "event"]
    assert len(events) == 30
    # the blocks inside a castle stay on edge, declared or named in a retreat's stance (8.9.2)
    inside = [(s.target(), s.viewer) for s in events if s.target().endswith(".in_castle")]
    assert inside == [("declare.in_castle", "actor"), ("stance.in_castle", "actor")]
    muster = [s for s in events if s.name == "muster"]
    assert [(m.viewer, m.when is not None) for m in muster] == [
        ("everybody", True),
        ("actor", False),
    ]
    move = [s.target() for s in events if s.name == "move"]
    assert move == ["move.groups.blocks", "move.groups.force_march", "move.groups.pick_up.blocks"]
    deploy = next(s for s in events if s.target() == "deploy.blocks")
    assert (deploy.viewer, deploy.clauses) == ("everybody", ["8.2.1", "8.2.3"])


def test_fierce_battle_declares_nothing() -> None:
    assert load_spec(bundled_game("fierce-battle")).sym.hidden is None


def _spec_with(tmp_path: Path, old: str, new: str) -> Path:
    game = tmp_path / "sekigahara"
    shutil.copytree(SPEC_ROOT / "sekigahara", game)
    shutil.copytree(SPEC_ROOT / "schema", tmp_path / "schema")
    text = HIDDEN.read_text(encoding="utf-8")
    assert old in text
    (game / "hidden.rules").write_text(text.replace(old, new, 1), encoding="utf-8")
    return game


def _line_of(text: str) -> int:
    return HIDDEN.read_text(encoding="utf-8").splitlines().index(text) + 1


MUSTER_A = "  event muster.blocks seen by everybody when option == muster_option.A under 7.2"
HEADER = 'hidden "What each seat sees at the table" secret face, card as count'

CASES = [
    (
        "an argument no line covers",
        "  event replenish.cards seen by actor under 3.3, 8.10\n",
        "",
        f"hidden.rules:{_line_of(HEADER)}:1: who sees replenish.cards (card) is not said",
        "hint: add: event replenish.cards seen by ... under 8.10",
    ),
    (
        "a piece of state no line covers",
        "  state hand(s) seen by s under 3.3\n",
        "",
        f"hidden.rules:{_line_of(HEADER)}:1: who sees the state hand (list of card) is not said",
        "hint: add: state hand(s) seen by ... under 3.3",
    ),
    (
        "a state has no actor",
        "state hand(s) seen by s under",
        "state hand(s) seen by actor under",
        f"hidden.rules:{_line_of('  state hand(s) seen by s under 3.3')}:3: a piece of state"
        " has no actor: name its side, everybody or nobody",
        "",
    ),
    (
        "a when that reads a hidden argument",
        "when option == muster_option.A",
        "when option == muster_option.A and blocks != []",
        f"hidden.rules:{_line_of(MUSTER_A)}:46: muster.blocks: 'blocks' may be hidden: a view"
        " could not read it",
        "",
    ),
    (
        "the last line of an argument has a when",
        "  event muster.blocks seen by actor under 7.2\n",
        "",
        f"hidden.rules:{_line_of(MUSTER_A)}:3: muster.blocks: the last line has a `when`: say"
        " who sees it when no line's condition holds",
        "",
    ),
    (
        "a field that is not secret",
        "event move.groups.force_march seen",
        "event move.groups.path seen",
        "move.groups.path is list of location, not of a secret type (face, card)",
        "hint: name the field that holds the secret values",
    ),
    (
        "a missing clause",
        "event bid.card seen by everybody under 6.3",
        "event bid.card seen by everybody under 6.33",
        "bid.card rests on a missing clause 6.33",
        "",
    ),
    (
        "a misspelt argument",
        "event bid.card seen",
        "event bid.cards seen",
        "unknown argument of bid 'cards'",
        "hint: did you mean 'card'?",
    ),
    (
        "the wrong number of keys",
        "state units_at(l, s) seen by s",
        "state units_at(s) seen by s",
        "units_at has 2 key(s), 1 named here",
        "hint: as declared: units_at(l, s)",
    ),
    (
        "a viewer of another type",
        "state units_at(l, s) seen by s",
        "state units_at(l, s) seen by l",
        "type mismatch: expected side, found location",
        "",
    ),
    (
        "a syntax error: no clause",
        "event bid.card seen by everybody under 6.3",
        "event bid.card seen by everybody",
        "hidden.rules:",
        "",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "said", "hint"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_bad_declaration_is_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, said: str, hint: str
) -> None:
    game = _spec_with(tmp_path, old, new)
    assert main(["spec", "check", "--spec", str(game)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert said in err
    assert hint in err
