"""A game's components: the data files in <game>/data, checked as a set.

Each file names its schema (``schema: map`` means map.schema.json in the schema/
folder beside the game's: referee/games/schema/ for the bundled game).
Besides the JSON Schema rules, a schema may mark a string with ``x-ref`` to say
it must name an item of a collection: ``"x-ref": "locations"`` (an item of a
top-level list called locations, in any of the files, by its ``name`` or
``id``) or ``"x-ref": "#sources"`` (a key of the same file's ``sources``).
Items of a collection must have distinct names. A collection the schema allows
(a top-level list of objects) that a file leaves out has no items. The engine
knows nothing more of what the collections mean.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.data.schema import load_schema, problems
from referee.data.source import Document, load_document
from referee.errors import Problem, RefereeError, Span
from referee.text import shown

KEYS = ("name", "id")
SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a file of the schema folder, nothing else


@dataclass
class Components:
    """The loaded data files and, by collection name, their items."""

    documents: dict[str, Document] = field(default_factory=dict)  # by schema name
    collections: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # the collections a file's schema allows (a top-level list of objects), given or not:
    # one the file leaves out, or leaves empty, has no items
    declared: set[str] = field(default_factory=set)

    def names(self) -> dict[str, set[str]]:
        named = {k: {_key(i) for i in v if _key(i)} for k, v in self.collections.items()}
        return {**{k: set() for k in sorted(self.declared)}, **named}

    def item(self, collection: str, key: str) -> dict[str, Any] | None:
        for i in self.collections.get(collection, []):
            if key and _key(i) == key:  # an entry without a name is named by nothing
                return i
        return None


def _key(item: Any) -> str:
    if isinstance(item, dict):
        for k in KEYS:
            if isinstance(item.get(k), str):
                return str(item[k])
    return ""


def data_files(default_dir: Path, override_dir: Path | None) -> list[Path]:
    """The game's data files; a file of the same name in ``override_dir`` replaces one."""
    files = {p.name: p for p in sorted(default_dir.glob("*.yaml"))} if default_dir.is_dir() else {}
    if override_dir is not None:
        if not override_dir.is_dir():
            raise RefereeError(
                [Problem(Span(str(override_dir), 0, 0), "no such directory of component files")]
            )
        for p in sorted(override_dir.glob("*.yaml")) + sorted(override_dir.glob("*.json")):
            files[p.stem + ".yaml"] = p
    return list(files.values())


def load_components(files: list[Path], schema_dir: Path) -> Components:
    comps = Components()
    found: list[Problem] = []
    sources: dict[str, str] = {}
    docs: list[Document] = []
    for path in files:
        doc = load_document(path)
        sources[doc.file] = doc.text
        docs.append(doc)
        if not isinstance(doc.data, dict) or not isinstance(doc.data.get("schema"), str):
            found.append(Problem(doc.span(()), "a component file must start with `schema: <name>`"))
            continue
        name = doc.data["schema"]
        if name in comps.documents:
            found.append(
                Problem(doc.span(("schema",)), f"two component files declare schema '{name}'")
            )
            continue
        comps.documents[name] = doc
        for key, value in doc.data.items():
            if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
                comps.collections.setdefault(key, []).extend(value)
                found.extend(_duplicates(doc, key, value))
    names = comps.names()
    for name, doc in comps.documents.items():
        schema_path = schema_dir / f"{name}.schema.json"
        if not SCHEMA_NAME.fullmatch(name):
            found.append(
                Problem(
                    doc.span(("schema",)),
                    f"schema '{shown(name)}' is not a plain name: a schema is a file of its folder",
                    "a name of letters, digits, '-' and '_'",
                )
            )
            continue
        if not schema_path.is_file():
            found.append(
                Problem(doc.span(("schema",)), f"no schema named '{name}' in {schema_dir}")
            )
            continue
        found.extend(_validate(doc, schema_path, names))
        comps.declared |= _declared(schema_path)
    if found:
        raise RefereeError(found, sources)
    return comps


def _declared(schema_path: Path) -> set[str]:
    """The collections a schema allows: its top-level properties that are lists of objects."""
    props = load_schema(schema_path).get("properties")
    if not isinstance(props, dict):
        return set()
    return {
        k
        for k, v in props.items()
        if isinstance(v, dict)
        and v.get("type") == "array"
        and isinstance(v.get("items"), dict)
        and v["items"].get("type") == "object"
    }


def _duplicates(doc: Document, key: str, items: list[dict[str, Any]]) -> Iterator[Problem]:
    seen: set[str] = set()
    for i, item in enumerate(items):
        k = _key(item)
        if k and k in seen:
            yield Problem(doc.span((key, i)), f"{key}[{i}]: duplicate name '{k}'")
        seen.add(k)


def _validate(doc: Document, schema_path: Path, names: dict[str, set[str]]) -> list[Problem]:
    local = {"#sources": set(doc.data.get("sources") or {})}

    def x_ref(validator: Any, target: str, instance: Any, schema: Any) -> Iterator[Any]:
        import jsonschema  # only where a schema is checked: see schema.validate

        known = local.get(target) if target.startswith("#") else names.get(target)
        if isinstance(instance, str) and instance not in (known or set()):
            what = "source" if target == "#sources" else f"item of {target}"
            yield jsonschema.ValidationError(f"{instance!r} names no {what}")

    return problems(doc, schema_path, {"x-ref": x_ref})
