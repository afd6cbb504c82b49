"""The checked spec is cached on disk by the content of every file it is made from."""

from __future__ import annotations

from pathlib import Path

from referee import spec as spec_module
from referee.spec import load_spec


def test_disk_cache_is_keyed_by_content(game_copy: Path, cache: Path) -> None:
    first = load_spec(game_copy)
    cached = list(cache.glob("spec-*.signed"))
    assert len(cached) == 1
    spec_module._CACHE.clear()
    again = load_spec(game_copy)  # from the disk cache
    assert (
        again.interpreter().call("overrun_ratio") == first.interpreter().call("overrun_ratio") == 4
    )
    rules = game_copy / "clauses" / "07-movement.rules"
    rules.write_text(
        rules.read_text().replace("const overrun_ratio: int = 4", "const overrun_ratio: int = 5")
    )
    spec_module._CACHE.clear()
    changed = load_spec(game_copy)
    assert changed.interpreter().call("overrun_ratio") == 5
    assert len(list(cache.glob("spec-*.signed"))) == 2


def test_a_broken_cache_file_is_rebuilt(game_copy: Path, cache: Path) -> None:
    load_spec(game_copy)
    (path,) = cache.glob("spec-*.signed")
    path.write_bytes(b"not a pickle")
    spec_module._CACHE.clear()
    assert load_spec(game_copy).interpreter().call("overrun_ratio") == 4
