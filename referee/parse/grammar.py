"""The rules language's Lark parser (referee/grammar/rules.lark), for .rules files and single
expressions alike; its tables kept in the signed disk cache."""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache
from typing import Any

import lark
from lark import Lark

from referee import resources
from referee.data import cache

_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "start": ["start", "expr"],
    "propagate_positions": True,
    "maybe_placeholders": True,
}


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    """The rules language's parser, for .rules files and for single expressions (a record's
    ``expect:`` keys, ``--until``) alike. Building its LALR tables from the grammar costs
    more than all the rest of judging a short record, so they are kept in the signed disk
    cache (referee/data/cache.py), under the digest of the grammar, the options and Lark's
    version: a process that finds them there loads them instead (``Lark.load``)."""
    grammar = resources.grammar().read_text(encoding="utf-8")
    if not cache.enabled():
        return Lark(grammar, **_OPTIONS)
    key = hashlib.sha256(f"{grammar}\0{_OPTIONS}\0{lark.__version__}".encode()).hexdigest()
    name = f"grammar-{key[:32]}{cache.ENTRY_SUFFIX}"
    payload = cache.load(name)
    if payload is not None:
        try:
            return Lark.load(io.BytesIO(payload))  # signed by this user's referee: see cache.py
        except Exception:  # noqa: BLE001 - tables of another make are built again
            pass
    parser = Lark(grammar, **_OPTIONS)
    out = io.BytesIO()
    parser.save(out)
    cache.store(name, out.getvalue())
    return parser
