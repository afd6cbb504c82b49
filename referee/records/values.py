"""Record data to typed values, by the types the spec declares.

A record names things (a location, a card face, a block face) as text. The
spec's types say what each name must be: a value of an enum, an item of a data
collection (a record type declared ``from data``), or a structure whose fields
are converted in turn. Every mismatch is a located problem.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from referee.data.source import Document, Path_, parse_document, show_path
from referee.errors import Problem, RefereeError
from referee.parse import ast
from referee.resolve.symbols import Symbols


class Converter:
    def __init__(
        self,
        sym: Symbols,
        components: dict[str, list[Any]],
        doc: Document,
        default: Callable[[ast.Expr], Any],
    ) -> None:
        self.sym = sym
        self.default = default
        self.components = components
        self.doc = doc
        self._by_name: dict[str, dict[str, Any]] = {}

    def problem(self, path: Path_, message: str, hint: str = "") -> RefereeError:
        return RefereeError(
            [Problem(self.doc.span(path), f"{show_path(path)}: {message}", hint)],
            {self.doc.file: self.doc.text},
        )

    def items(self, collection: str) -> dict[str, Any]:
        index = self._by_name.get(collection)
        if index is None:
            index = {}
            for item in self.components.get(collection, []):
                key = item.get("id", item.get("name")) if isinstance(item, dict) else None
                if isinstance(key, str):
                    index[key] = item
            self._by_name[collection] = index
        return index

    def named(self, value: Any, known: list[str], what: str, path: Path_) -> str:
        if not isinstance(value, str):
            found = value if isinstance(value, int) and not isinstance(value, bool) else None
            said = str(found) if found is not None else _kind(value)
            raise self.problem(path, f"expected the name of {what}, found {said}")
        if value not in known:
            close = difflib.get_close_matches(value, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else ""
            raise self.problem(path, f"unknown {what} '{value}'", hint)
        return value

    def convert(self, value: Any, t: ast.TypeRef, path: Path_) -> Any:  # noqa: C901
        if t.name in ("list", "set"):
            if not isinstance(value, list):
                raise self.problem(path, f"expected a list, found {_kind(value)}")
            assert t.arg is not None
            return tuple(self.convert(v, t.arg, path + (i,)) for i, v in enumerate(value))
        if t.name == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.problem(path, f"expected a whole number, found {_kind(value)}")
            return value
        if t.name == "bool":
            if not isinstance(value, bool):
                raise self.problem(path, f"expected true or false, found {_kind(value)}")
            return value
        if t.name == "text":
            if not isinstance(value, str):
                raise self.problem(path, f"expected text, found {_kind(value)}")
            return value
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            if isinstance(value, str) and value in (d.values or self.items(d.from_data)):
                return value  # a name it has: the names sorted only for a message
            known = d.values or sorted(self.items(d.from_data))
            return self.named(value, known, f"{t.name}", path)
        if isinstance(d, ast.RecordDecl) and d.from_data:
            if isinstance(value, dict) or (isinstance(value, str) and value.startswith("{")):
                return self.by_fields(value, d, path)
            index = self.items(d.from_data)
            if isinstance(value, str) and value in index:
                return index[value]
            return index[self.named(value, sorted(index), t.name, path)]
        if isinstance(d, ast.RecordDecl):
            return self.structure(value, d, path)
        raise self.problem(path, f"the spec's type '{t.name}' cannot be read from a record")

    def by_fields(self, value: Any, d: ast.RecordDecl, path: Path_) -> Any:
        """An item of data named by its fields, for items without a name (a road by its
        ends): a mapping, or as text the way the referee shows it, ``{a: X, b: Y}``.
        The one item whose fields have these values (``nothing`` for a field it lacks)."""
        said = value
        if isinstance(value, str):
            try:  # read as every other part of a record is: no alias, no tag, no base 60
                value = parse_document(value, "<key>").data
            except RefereeError as err:  # said at the key, as the record gives it
                raise self.problem(
                    path, f"{d.name}'s fields, {{field: value, ...}}: {err.problems[0].message}"
                ) from None
        if not isinstance(value, dict) or not value:
            raise self.problem(
                path, f"expected {d.name}'s fields as {{field: value, ...}}, found {_kind(said)}"
            )
        names = [f.name for f in d.fields]
        for k in value:
            if k not in names:
                raise self.problem(
                    path, f"unknown field '{k}' of {d.name}", f"fields: {', '.join(names)}"
                )

        def same(item: Any, k: str, v: Any) -> bool:
            got = item.get(k) if isinstance(item, dict) else None
            return got == v or (got is None and v in (None, "nothing"))

        found = [
            item
            for item in self.components.get(d.from_data, [])
            if all(same(item, k, v) for k, v in value.items())
        ]
        text = ", ".join(f"{k}: {'nothing' if v is None else v}" for k, v in value.items())
        if not found:
            raise self.problem(path, f"no {d.name} has {text}")
        if len(found) > 1:
            raise self.problem(
                path, f"{len(found)} items of {d.name} have {text}", "name more of its fields"
            )
        return found[0]

    def structure(self, value: Any, d: ast.RecordDecl, path: Path_) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.problem(path, f"expected a mapping ({d.name}), found {_kind(value)}")
        fields = {f.name: f for f in d.fields}
        for key in value:
            if key not in fields:
                close = difflib.get_close_matches(key, list(fields), n=1)
                raise self.problem(
                    path + (key,),
                    f"unknown field '{key}' of {d.name}",
                    f"did you mean '{close[0]}'?" if close else f"fields: {', '.join(fields)}",
                )
        out = {}
        for f in d.fields:
            if f.name not in value:
                if f.default is not None:
                    out[f.name] = self.default(f.default)
                    continue
                raise self.problem(path, f"'{f.name}' is missing ({d.name} needs it)")
            out[f.name] = self.convert(value[f.name], f.type, path + (f.name,))
        return out


def _kind(value: Any) -> str:
    if value is None:
        return "null (nothing)"
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false"}.get(
        type(value), type(value).__name__
    ) + (f" {value!r}" if isinstance(value, (str, int)) and not isinstance(value, bool) else "")


def raw(value: Any) -> Any:
    """A value as a record writes it: items of data by their name, lists as lists."""
    if isinstance(value, dict):
        if "id" in value or "name" in value:
            return value.get("id", value.get("name"))
        return {k: raw(v) for k, v in value.items() if v is not None}
    if isinstance(value, (tuple, list)):
        return [raw(v) for v in value]
    return value
