"""The one shape of every command's ``--format json``: an envelope, versioned, around the
command's own result.

    {"format": "referee-output", "version": 1, "command": "check", "exit_code": 1,
     "ok": false, "result": {...}, "errors": []}

``result`` is what the command found (its shape is the command's, given by the schema);
``errors`` the located problems that stopped it (bad input, exit code 2), when ``result`` is
null. The JSON Schema ships in the package (``referee/schema/output.schema.json``, read with
:func:`schema`) and in docs/.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from importlib.resources import files
from typing import Any

from referee.errors import Problem

FORMAT = "referee-output"
VERSION = 1  # raised when a key is removed or changes its meaning; new keys may be added


def envelope(
    command: str, exit_code: int, result: Any = None, errors: Iterable[Problem] = ()
) -> dict[str, Any]:
    """What ``--format json`` prints for ``command``."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "command": command,
        "exit_code": exit_code,
        "ok": exit_code == 0,
        "result": result,
        "errors": [p.as_json() for p in errors],
    }


def dumps(data: Any) -> str:
    # every character past ASCII as an escape: nothing from the input reaches the terminal
    # raw (controls, bidi marks, line separators, lone surrogates)
    return json.dumps(data, indent=2, ensure_ascii=True, sort_keys=False)


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of every command's JSON output."""
    text = files("referee").joinpath("schema", "output.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
