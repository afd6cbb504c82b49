"""Finding a topic by its words, and the sections the clause numbers make.

- ``referee explain 8.8``: a number that no clause has but that heads others (8.8.1 ... 8.8.5)
  is a section, shown with its sub-clauses; a clause that heads others lists them too.
- ``referee explain "retreat castle"``: the clauses, their labels and the overlays (errata,
  clarifications, decisions) whose words match, best first. A word matches a word of a title,
  a summary, a label or an overlay's source that starts with it, or that it starts with, once
  the ending of a plural or a verb is left off (``retreats``, ``retreating``). What matches
  every word comes first; among them, a match in a title or an id counts most, then in a
  label, then in a summary or a source.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from referee.compile.spec import Spec
from referee.parse import ast
from referee.text import escape, shown

MOST_WORDS = 12  # words of a topic searched for; the rest are said to be left out
LONGEST_WORD = 40  # characters of a word searched for
MOST_HITS = 20  # hits listed
MIN_WORD = 2  # shorter words (a, of) are not searched for
TITLE, LABEL, TEXT = 3, 2, 1  # what a match counts, by where it is found
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ENDINGS = ("ing", "ies", "es", "ed", "s")


# ------------------------------------------------------------------ sections


def subclauses(spec: Spec, number: str) -> list[dict[str, Any]]:
    """The clauses numbered under ``number`` (8.8.1 under 8.8, 7-1-2 under 7), in order."""
    n = len(number)
    return [
        {"number": c.number, "title": c.title, "summary": c.summary, "depth": _depth(c, number)}
        for c in spec.clauses()
        if c.number.startswith(number) and len(c.number) > n and not c.number[n].isalnum()
    ]


def _depth(c: ast.Clause, number: str) -> int:
    rest = c.number[len(number) + 1 :]
    return 1 + sum(1 for ch in rest if not ch.isalnum())


def section(spec: Spec, number: str) -> dict[str, Any] | None:
    """A section with no clause of its own, if ``number`` heads some clauses."""
    if not number or spec.clause(number) is not None:
        return None
    under = subclauses(spec, number)
    if not under:
        return None
    return {"kind": "section", "number": number, "subclauses": under}


def render_subclauses(rows: list[dict[str, Any]]) -> list[str]:
    """A clause's sub-clauses, a line each, indented by depth."""
    if not rows:
        return []
    return [f"sub-clauses ({len(rows)}):"] + [
        escape(f"{'  ' * r['depth']}{r['number']}  {r['title']}") for r in rows
    ]


def render_section(x: dict[str, Any]) -> str:
    rows = x["subclauses"]
    out = [
        escape(f"section {x['number']}: no clause of its own in the spec; {len(rows)} under it"),
        "",
    ]
    for r in rows:
        indent = "  " * r["depth"]
        out.append(escape(f"{indent[2:]}{r['number']}  {r['title']}"))
        out.append(
            textwrap.fill(
                escape(r["summary"]),
                88,
                initial_indent=indent + "  ",
                subsequent_indent=indent + "  ",
            )
        )
    out += ["", f"each in full: referee explain {rows[0]['number']}"]
    return "\n".join(out)


# ------------------------------------------------------------------ word search


def words_of(text: str) -> list[str]:
    """A text's words, lower case, each without the ending of a plural or a verb."""
    return [_stem(w) for w in _WORD.findall(text.lower())]


def _stem(w: str) -> str:
    for end in _ENDINGS:
        if len(w) > len(end) + 2 and w.endswith(end):
            return w[: -len(end)]
    return w


def query_words(topic: str) -> tuple[list[str], int]:
    """The words of a topic searched for, at most MOST_WORDS, each at most LONGEST_WORD
    characters; and how many were left out."""
    most = MOST_WORDS * (LONGEST_WORD + 1) * 4
    head = topic if len(topic) <= most else topic[:most].rsplit(None, 1)[0]  # no cut word
    found = [w[:LONGEST_WORD] for w in words_of(head)]
    wanted = list(dict.fromkeys(w for w in found if len(w) >= MIN_WORD))
    return wanted[:MOST_WORDS], max(0, len(wanted) - MOST_WORDS)


def _documents(spec: Spec) -> list[dict[str, Any]]:
    """What a search reads: each clause (its number and title, its labels, its summary) and
    each overlay (its id and title, its source)."""
    docs = []
    for c in spec.clauses():
        labels = [d.name for d in c.decls if isinstance(d, (ast.Require, ast.Property))]
        docs.append(
            {
                "kind": "clause",
                "ask": c.number,
                "title": f"{c.number} {c.title}",
                "fields": [
                    (TITLE, c.title, ""),
                    *((LABEL, label.replace("-", " "), f"{c.number}/{label}") for label in labels),
                    (TEXT, c.summary, ""),
                ],
            }
        )
    for o in spec.sym.overlays.values():
        docs.append(
            {
                "kind": o.kind,
                "ask": o.id,
                "title": f"{o.id} {o.title}",
                "fields": [
                    (TITLE, f"{o.id.replace('-', ' ')} {o.title}", ""),
                    (TEXT, o.source, ""),
                ],
            }
        )
    return docs


def _matches(q: str, words: list[str]) -> bool:
    return any(w.startswith(q) or (len(w) >= 4 and q.startswith(w)) for w in words)


def search(spec: Spec, topic: str) -> dict[str, Any]:
    """The clauses, labels and overlays that the topic's words find, best first."""
    wanted, left_out = query_words(topic)
    hits = []
    for doc in _documents(spec) if wanted else []:
        score = 0
        found: list[str] = []
        labels: list[str] = []
        for q in wanted:
            best = 0
            for weight, text, label in doc["fields"]:
                if _matches(q, words_of(text)):
                    best = max(best, weight)
                    if label and label not in labels:
                        labels.append(label)
            if best:
                score += best
                found.append(q)
        if found:
            hits.append(
                {
                    "kind": doc["kind"],
                    "ask": doc["ask"],
                    "title": doc["title"],
                    "words": found,
                    "labels": labels,
                    "score": score,
                }
            )
    order = {d["ask"]: i for i, d in enumerate(_documents(spec))} if hits else {}
    hits.sort(key=lambda h: (-len(h["words"]), -h["score"], order[h["ask"]]))
    complete = [h for h in hits if len(h["words"]) == len(wanted)]
    return {
        "kind": "search",
        "topic": shown(topic),
        "words": wanted,
        "words_left_out": left_out,
        "found": len(complete),
        "hits": (complete or hits)[:MOST_HITS],
        "complete": bool(complete),
    }


def render_search(x: dict[str, Any]) -> str:
    words = " ".join(x["words"])
    more = f" ({x['words_left_out']} more words left out)" if x["words_left_out"] else ""
    head = f"{x['found']} match every word of '{words}'{more}"
    if not x["words"]:  # nothing in the topic is a word: it is shown as given, escaped
        head = f"no word to search for in '{x['topic']}'"
    elif not x["hits"]:
        head = f"nothing matches '{words}'{more}"
    elif not x["complete"]:
        head = f"nothing matches every word of '{words}'{more}; some of them:"
    elif x["found"] > len(x["hits"]):
        head += f"; the first {len(x['hits'])}:"
    out = [escape(head), ""] if x["hits"] else [escape(head)]
    for h in x["hits"]:
        out.append(escape(f"{h['title']}  ({h['kind']}: referee explain {h['ask']})"))
        if h["labels"]:
            out.append(escape(f"    labels: {', '.join(h['labels'])}"))
    return "\n".join(out)
