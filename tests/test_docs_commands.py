"""The documentation cannot go stale: every command it shows is run, and its output compared.

A command is a line of a fenced block, in README.md or any page under docs/, that starts with
`$ ` (`$ referee check examples/weeks-1-2.yaml`). The lines after it, up to the next `$ ` line
or the end of the block, are its output: standard output and standard error together. The
commands of a block are run in order by the shell, from the top of a fresh copy of the
repository (so that a block may make and change files, `referee play --seed 2 > game.yaml`,
and the paths printed are the repository's own), with `referee` standing for
`python -m referee`, in a fixed environment: NO_COLOR=1, COLUMNS=100, TERM=dumb, a temporary
HOME and XDG_CACHE_HOME, REFEREE_NO_CACHE=1 (but for a block that runs `referee prove`: it
shares the session's disk cache, so that one spec is proved once). Blocks are independent of
each other, and run together on every core.

The output must match the block line for line (trailing spaces aside), with two conventions
for an output cut on purpose:

- a line that is `...` (indented or not) stands for any number of lines, none included;
- a command ending in the comment `# (shortened)` shows only some of its lines: they must be
  found in the output in the order shown, with any lines between them, before and after.

A usage line with placeholders (`referee check RECORD`) is written without the `$ `; it is not
run. docs/README.md says the same to the reader.

The same pages may link only to files the repository holds (relative links are resolved, their
anchors checked against the headings), and name no folder outside it (`shared/`).
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINKED = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "commands").glob("*.md")),
]
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
SHORTENED = re.compile(r"\s+#\s*\(shortened\)\s*$")
# `referee` where the shell would take it for a command's name
COMMAND_NAME = re.compile(r"(^|[|;&(]\s*)referee(?=\s|$)")
# what the copy leaves out: the version control, environments and caches of a working tree
LEFT_OUT = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    ".mypy_cache",
    "build",
    "dist",
)


@dataclass(frozen=True)
class Command:
    page: str  # relative to the repository
    block: int  # the line the block starts on, from 1
    line: int  # of the `$ ` line
    command: str  # without `$ ` and without the `# (shortened)` mark
    output: tuple[str, ...]
    shortened: bool

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def fenced_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(line of the block's first line, its lines) for each fenced block of a Markdown page."""
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i].lstrip())
        if not m:
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        fence = m.group(1)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(fence):
            line = lines[j]
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            j += 1
        blocks.append((i + 2, body))
        i = j + 1
    return blocks


def commands_of(page: Path) -> list[Command]:
    found: list[Command] = []
    rel = page.relative_to(ROOT).as_posix()
    for first, body in fenced_blocks(page.read_text(encoding="utf-8")):
        starts = [k for k, ln in enumerate(body) if ln.startswith("$ ")]
        if not starts:
            continue
        assert starts[0] == 0, f"{rel}:{first}: a block of commands starts with its `$ ` line"
        for n, k in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(body)
            command = body[k][2:]
            shortened = bool(SHORTENED.search(command))
            command = SHORTENED.sub("", command).rstrip()
            output = tuple(body[k + 1 : end])
            found.append(Command(rel, first, first + k, command, output, shortened))
    return found


COMMANDS = [c for page in PAGES for c in commands_of(page)]


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the lines match, a line `...` (indented or not) standing for any number of lines."""
    # reach[j]: the first j lines of actual are matched by the pattern read so far
    reach = [True] + [False] * len(actual)
    for pat in expected:
        if pat.strip() == "...":
            for j in range(1, len(reach)):
                reach[j] = reach[j] or reach[j - 1]
        else:
            reach = [False] + [reach[j - 1] and actual[j - 1] == pat for j in range(1, len(reach))]
    return reach[-1]


def environment(home: Path, cache: Path) -> dict[str, str]:
    """The commands' environment. Every block shares the session's disk cache (conftest.py):
    a spec is read and checked once, not in each of some eighty processes (1.5 s of CPU
    each, 0.4 with the cache: the cache is keyed by the spec's content, not where its copy
    is, and what a command prints does not depend on it), and the pages' proofs of one spec
    are made once."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(cache),
        "REFEREE_CACHE_ENTRIES": "1000",
        "NO_COLOR": "1",
        "COLUMNS": "100",
        "TERM": "dumb",
        "LC_ALL": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8",
    }


def shell_line(command: str) -> str:
    python = f"{shlex.quote(sys.executable)} -m referee"
    return COMMAND_NAME.sub(lambda m: m.group(1) + python, command)


def run(commands: list[str], pristine: Path, where: Path, cache: Path) -> list[str]:
    """What the commands of a block print, run in order in a fresh copy of the repository
    (with the session's disk cache)."""
    repo = where / "repo"
    shutil.copytree(pristine, repo, symlinks=True)
    (where / "home").mkdir()
    printed: list[str] = []
    for command in commands:
        done = subprocess.run(
            ["/bin/sh", "-c", shell_line(command)],
            cwd=repo,
            env=environment(where / "home", cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=600,
        )
        printed.append(done.stdout)
    return printed


def blocks_of(commands: list[Command]) -> dict[tuple[str, int], list[Command]]:
    blocks: dict[tuple[str, int], list[Command]] = {}
    for c in commands:
        blocks.setdefault((c.page, c.block), []).append(c)
    return blocks


@pytest.fixture(scope="module")
def outputs(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    proof_cache_home: Path,
) -> dict[tuple[str, int], Future[list[str]]]:
    """The blocks of the commands selected, each in a copy of its own, run together on every
    core: a block's commands run in order."""
    selected = {
        (c.page, c.block)
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_a_command_prints_what_its_page_shows"
        for c in [item.callspec.params["c"]]
    }
    pristine = tmp_path_factory.mktemp("docs") / "repo"
    shutil.copytree(ROOT, pristine, ignore=LEFT_OUT, symlinks=True)
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    request.addfinalizer(lambda: pool.shutdown(cancel_futures=True))
    return {
        key: pool.submit(
            run,
            [c.command for c in block],
            pristine,
            tmp_path_factory.mktemp("block"),
            proof_cache_home,
        )
        for key, block in blocks_of(COMMANDS).items()
        if key in selected
    }


def test_the_pages_show_commands() -> None:
    assert len(COMMANDS) >= 30
    for (page, line), block in blocks_of(COMMANDS).items():
        assert any(COMMAND_NAME.search(c.command) for c in block), (
            f"{page}:{line}: a block of commands runs the referee"
        )


@pytest.mark.skipif(os.name != "posix", reason="the commands are run by a POSIX shell")
@pytest.mark.parametrize("c", COMMANDS, ids=[c.where for c in COMMANDS])
def test_a_command_prints_what_its_page_shows(
    c: Command, outputs: dict[tuple[str, int], Future[list[str]]]
) -> None:
    block = blocks_of(COMMANDS)[c.page, c.block]
    printed = outputs[c.page, c.block].result()[block.index(c)]
    actual = [ln.rstrip() for ln in printed.splitlines()]
    expected = [ln.rstrip() for ln in c.output]
    assert "Traceback" not in printed, f"{c.where}: $ {c.command}\n{printed}"
    pattern = ["...", *[x for e in expected for x in (e, "...")]] if c.shortened else expected
    if not matches(pattern, actual):
        diff = "\n".join(
            difflib.unified_diff(expected, actual, "the page", "the command", lineterm="")
        )
        pytest.fail(f"{c.where}: $ {c.command}\nprints otherwise:\n{diff}", pytrace=False)


# -- links and folders -----------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`[^`\n]*`")


def prose(text: str) -> str:
    """A page without its fenced blocks and inline code, where brackets are not links."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        m = FENCE.match(line.lstrip())
        if m and (fence is None or line.lstrip().startswith(fence)):
            fence = None if fence else m.group(1)
            out.append("")
            continue
        out.append("" if fence else CODE.sub("", line))
    return "\n".join(out)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fence: str | None = None
    for line in page.read_text(encoding="utf-8").splitlines():
        m = FENCE.match(line.lstrip())
        if m and (fence is None or line.lstrip().startswith(fence)):
            fence = None if fence else m.group(1)
            continue
        if fence or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_every_relative_link_leads_to_a_file_of_the_repository() -> None:
    broken: list[str] = []
    for page in LINKED:
        text = prose(page.read_text(encoding="utf-8"))
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            line = text.count("\n", 0, m.start()) + 1
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT).as_posix()}:{line}: {target}"
            if not file.exists():
                broken.append(f"{where}: no such file")
            elif not file.is_relative_to(ROOT):
                broken.append(f"{where}: outside the repository")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{where}: no heading with that anchor")
    assert not broken, "\n".join(broken)


def test_no_page_names_a_folder_outside_the_repository() -> None:
    pages = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*") if p.is_file())]
    named = [
        f"{p.relative_to(ROOT).as_posix()}:{n}: {line.strip()}"
        for p in pages
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "shared/" in line
    ]
    assert not named, "\n".join(named)
