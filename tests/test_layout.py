"""The README's Layout holds: every module is in it, and the core it lists does no I/O.

A newcomer reads the Layout to find a module; a module missing from it, or a core module
that quietly imports the shell (SQLite, the server, PyGithub) or reads files, makes the
map wrong. Checked on the source (its syntax tree), so nothing is imported or run.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

import pytest

from tests.webhook_kit import ROOT

README = (ROOT / "README.md").read_text("utf-8")
MODULES = sorted(p.stem for p in (ROOT / "bot").glob("*.py") if p.stem != "__init__")

# Packages that talk to the world: network, processes, threads, databases, clocks.
WORLD = frozenset(
    {
        "asyncio",
        "fastapi",
        "github",
        "httpx",
        "importlib",  # a module loaded by name hides what the core depends on
        "jinja2",
        "logging",
        "os",
        "requests",
        "socket",
        "sqlite3",
        "starlette",
        "subprocess",
        "tenacity",
        "threading",
        "time",
        "uvicorn",
    }
)
# Calls that read or write files, or look at the file system.
FILE_CALLS = frozenset(
    {
        "exists",
        "glob",
        "is_dir",
        "is_file",
        "iterdir",
        "mkdir",
        "open",
        "read_bytes",
        "read_text",
        "rglob",
        "stat",
        "unlink",
        "write_bytes",
        "write_text",
    }
)
# The core modules that read files, as the README's Layout says (it names them).
FILE_READERS = frozenset({"library", "importer", "config_files"})


def layout_rows(kind: str) -> set[str]:
    """The modules the Layout table's "`bot/` <kind>" rows name, in backticks."""
    names: set[str] = set()
    for line in README.splitlines():
        if line.startswith(f"| `bot/` {kind}"):
            names |= set(re.findall(r"`([a-z_]+)`", line.split("|")[2]))
    return names


CORE = layout_rows("core")
SHELL = layout_rows("shell") - CORE  # a shell row may mention a core module it calls


def imports_of(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "bot" and node.level == 0:
            found |= {f"bot.{alias.name}" for alias in node.names}  # `from bot import queue`
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def file_calls_of(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in FILE_CALLS:
            found.add(func.attr)
        elif isinstance(func, ast.Name) and func.id == "open":
            found.add("open")
    return found


def tree_of(module: str) -> ast.AST:
    return ast.parse((ROOT / "bot" / f"{module}.py").read_text("utf-8"))


def impure_imports(tree: ast.AST, *, reads_files: bool = False) -> list[str]:
    world = WORLD - {"os"} if reads_files else WORLD  # os: scandir, an atomic replace
    return sorted(
        name
        for name in imports_of(tree)
        if name.split(".")[0] in world or (name.startswith("bot.") and name[4:] in SHELL)
    )


def test_every_module_is_in_the_layout_as_core_or_shell():
    assert CORE and SHELL  # the rows are found: a renamed heading fails here, not silently
    assert sorted(set(MODULES) - CORE - SHELL) == []
    assert sorted((CORE | SHELL) - set(MODULES)) == []  # no row names a module gone


@pytest.mark.parametrize("module", sorted(CORE))
def test_a_core_module_imports_nothing_of_the_shell_or_the_world(module):
    assert impure_imports(tree_of(module), reads_files=module in FILE_READERS) == []


@pytest.mark.parametrize("module", sorted(CORE - FILE_READERS))
def test_a_core_module_reads_no_file_unless_the_layout_says_it_does(module):
    assert sorted(file_calls_of(tree_of(module))) == []


def test_the_layout_names_the_file_readers_the_check_allows():
    # The sentence under the table lists them; the check above must not allow more.
    said = README.split("The core is data in, data out. Files are read only by", 1)[1]
    said = said.split(";", 1)[0]
    assert set(re.findall(r"`([a-z_]+)`", said)) >= FILE_READERS


def test_the_checks_see_what_they_look_for():
    # A module that imports the queue and sqlite3 and opens a file: each check names it.
    tree = ast.parse(
        "import sqlite3\nfrom bot.queue import DeliveryQueue\nfrom bot.notes import Note\n"
        "def f(p):\n    return p.read_text(), open(p)\n"
    )
    assert impure_imports(tree) == ["bot.queue", "sqlite3"]
    assert impure_imports(ast.parse("import os"), reads_files=True) == []
    assert impure_imports(ast.parse("import os")) == ["os"]
    # the other spelling of an import of the shell, and a module loaded by its name
    assert impure_imports(ast.parse("from bot import queue, notes")) == ["bot.queue"]
    assert impure_imports(ast.parse("import importlib")) == ["importlib"]
    assert file_calls_of(tree) == {"read_text", "open"}


@pytest.mark.parametrize(
    ("folder", "pattern"), [("scripts", "*"), ("bench", "*.py"), ("docs", "*.md")]
)
def test_every_script_benchmark_and_doc_is_in_its_layout_row(folder, pattern):
    # The Layout's scripts/ row left out check_image.sh, which only Deploy named: a
    # newcomer reading the map would not know it exists. Likewise a file of
    # the reference in docs/.
    row = next(line for line in README.splitlines() if line.startswith(f"| `{folder}/` |"))
    named = set(re.findall(r"`([A-Za-z0-9_.]+)`", row.split("|")[2]))
    files = {p.name for p in (ROOT / folder).glob(pattern) if p.is_file()}
    assert files and sorted(f for f in files if f not in named and Path(f).stem not in named) == []


# --- the tests' `# kills:` comments name code that exists ---------------------------------

# The forms the comments use: `bot/x.py:name` (or `Class.method`, a nested function's
# `f.inner`, several names after commas), `bot/x.py NAME` (a constant or class), `x.name:`
# (a bot module, dotted) or `Class.name` at the comment's start; a page template or
# stylesheet is checked for its file alone. A line number is stale: it moves with every edit.
_KILLS = re.compile(r"(?<![`\w])kills: (.*)")
_NAMES = r"\w[\w.]*(?:, ?[A-Za-z_][\w.]*)*"  # a line number (`12`) among them
_PATH_NAMED = re.compile(rf"(?<![\w/])((?:bot|tests)/[\w/]+\.py)(?::({_NAMES})| ([A-Z][\w.]*))?")
_OTHER_FILE = re.compile(r"(?<![\w/])(bot/[\w/.]+\.(?:html|css|js))")
_DOTTED = re.compile(r"([a-z_]+)\.(?!(?:html|css|js|py)\b)([A-Za-z_][\w.]*)")  # not a file
_CLASS_DOTTED = re.compile(r"([A-Z]\w*\.[\w.]+)")


@functools.cache
def defined_names(path: str) -> frozenset[str]:
    """A file's functions, classes and assigned names, module-level and within (a method
    as `Class.method`, a nested function as `f.inner`)."""
    names: set[str] = set()

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(prefix + node.name)
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(
                    prefix + n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                )
            else:  # an if, try, with or loop holds definitions too
                for field in ("body", "orelse", "finalbody", "handlers"):
                    walk(getattr(node, field, []), prefix)

    walk(ast.parse((ROOT / path).read_text("utf-8")).body, "")
    return frozenset(names)


def kills_comments(source: str) -> list[tuple[int, str]]:
    """Each `# kills:` comment's line and its text after `kills:` (comments only, not
    strings)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        said = _KILLS.search(token.string) if token.type == tokenize.COMMENT else None
        if said:
            found.append((token.start[0], said[1]))
    return found


def named_code(text: str) -> list[tuple[str, str | None]]:
    """The (file, name) pairs a `kills:` comment's text names; name None for a file alone."""
    named: list[tuple[str, str | None]] = []
    for path, names, constant in _PATH_NAMED.findall(text):
        said = re.split(r", ?", names) if names else [constant] if constant else []
        named += [(path, n.rstrip(".")) for n in said] or [(path, None)]
    named += [(path, None) for path in _OTHER_FILE.findall(text)]
    dotted = _DOTTED.match(text)
    if dotted and dotted[1] in MODULES:
        named.append((f"bot/{dotted[1]}.py", dotted[2].rstrip(".")))
    in_class = _CLASS_DOTTED.match(text)
    if in_class:  # the class's module unsaid: whichever defines it
        name = in_class[1].rstrip(".")
        holder = next(
            (f"bot/{m}.py" for m in MODULES if name in defined_names(f"bot/{m}.py")), None
        )
        named.append((holder or "bot/*.py", name))
    return named


def missing(path: str, name: str | None) -> bool:
    if not (ROOT / path).is_file():
        return True
    return name is not None and name not in defined_names(path)


def test_every_kills_comment_names_code_that_exists():
    # A newcomer follows a test's `# kills:` comment to the code it guards; one naming a
    # function renamed or removed since (`_mail_block`) leads nowhere.
    stale, seen = [], 0
    for test in sorted((ROOT / "tests").glob("*.py")):
        for line, text in kills_comments(test.read_text("utf-8")):
            for path, name in named_code(text):
                seen += 1
                if missing(path, name):
                    stale.append(f"{test.name}:{line}: {path}:{name or ''}")
    assert seen > 1000  # the comments are found: a changed form fails here, not silently
    assert not stale, "\n".join(stale)


def test_the_kills_check_reads_each_form_and_names_what_is_gone():
    source = (
        "x = 1  # kills: bot/queue.py:DeliveryQueue.put_back, _gone (hand) a wait lost\n"
        "# kills: bot/queue.py and bot/templates/notes.html a module, a page; bot/queue.py:12\n"
        "# kills: queue.DeliveryQueue.nothing: `<` -> `<=`\n"
        "# kills: bot/salvage.py CHECKED a column left out; NotesSite.stylesheet too\n"
        "# kills: NotesSite.stylesheet\n"
        "# kills: notes.html (hand) a page's title\n"
        "# kills: NoSuchClass.method a class no module defines\n"
        "s = '# kills: bot/nowhere.py:f'  # a string, not a comment\n"
    )
    named = [pair for _, text in kills_comments(source) for pair in named_code(text)]
    assert named == [
        ("bot/queue.py", "DeliveryQueue.put_back"),
        ("bot/queue.py", "_gone"),
        ("bot/queue.py", None),
        ("bot/queue.py", "12"),
        ("bot/templates/notes.html", None),
        ("bot/queue.py", "DeliveryQueue.nothing"),
        ("bot/salvage.py", "CHECKED"),
        ("bot/pages.py", "NotesSite.stylesheet"),
        ("bot/*.py", "NoSuchClass.method"),
    ]
    gone = [pair for pair in named if missing(*pair)]
    assert gone == [
        ("bot/queue.py", "_gone"),
        ("bot/queue.py", "12"),
        ("bot/queue.py", "DeliveryQueue.nothing"),
        ("bot/*.py", "NoSuchClass.method"),
    ]
    assert missing("bot/nowhere.py", None) and missing("bot/templates/nowhere.html", None)


def test_the_dispatchers_docstring_names_every_module_that_registers_routes():
    # bot/dispatch.py tells a newcomer which feature modules expose `register(dispatcher)`;
    # it named five when `reply_copies` had become the sixth, so its route (the look for a
    # reply's copies) was nowhere on the map of where a delivery can go.
    registering = {
        m
        for m in MODULES
        if any(
            isinstance(node, ast.FunctionDef) and node.name == "register"
            for node in ast.parse((ROOT / "bot" / f"{m}.py").read_text("utf-8")).body
        )
    }
    said = ast.get_docstring(ast.parse((ROOT / "bot" / "dispatch.py").read_text("utf-8")))
    assert len(registering) > 3  # found: a renamed `register` fails here, not silently
    assert sorted(m for m in registering if f"`bot.{m}`" not in (said or "")) == []
