"""referee explain: any topic explained, a section shown, words searched for
(explainer/topics.py)."""

from __future__ import annotations

import argparse

from referee.commands.loading import _load
from referee.commands.options import EXIT_OK, _common, _emit
from referee.explainer.topics import explain_topic, render_topic
from referee.text import escape

HELP = (
    "Explain one topic. Tried in this order, the first that matches is shown and the\n"
    "others are named: a clause number (7.3.1) or label (7.3.1/no-pickup); a declared\n"
    "name; an overlay id; a printing id; an overlay file's name; the name or id of an\n"
    "entry of the game's data (a location: its roads, what the rules compute of it, its\n"
    "state at the start, its set-up). KIND:TOPIC picks one kind: clause, name, overlay,\n"
    "printing, file or data. A number no clause has but others start with (8.8) shows\n"
    "the section; other words are searched for in the titles, summaries and labels of\n"
    "the clauses and overlays (search:WORDS searches whatever the words name). -v\n"
    "explains in full every other match too.",
    [
        "referee explain 7.3.5",
        "referee explain 7.3.1/no-pickup",
        "referee explain size_penalty --format json",
        "referee explain file:decisions",
        "referee explain --game fierce-battle 0103",
        "referee explain 8.8",
        'referee explain "retreat castle"',
    ],
    [
        "0  explained",
        "2  bad input or usage: a topic that names nothing (close names are suggested),"
        " a spec that does not load",
    ],
)


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `referee explain`."""
    p.add_argument(
        "topic",
        help="a clause number, a label, a name, an overlay or printing id, an overlay file, "
        "a data entry's name or id; or KIND:TOPIC; or words to search for",
    )
    _common(p)


def cmd_explain(args: argparse.Namespace) -> int:
    spec = _load(args)
    x = explain_topic(spec, args.topic)
    text = render_topic(x)
    if args.verbose:  # every other thing the topic names, in full
        others = [render_topic(explain_topic(spec, a["ask"])) for a in x.get("also", [])]
        text = "\n\n".join([text, *others])
    # a spec given by the user may hold escape sequences and bidi marks in its titles,
    # summaries and source: every line escaped, as `clauses` escapes a title
    text = "\n".join(escape(line) for line in text.split("\n"))
    _emit(args, x, text)
    return EXIT_OK
