"""constraints.txt, the exact versions the image and CI install, agrees with pyproject.toml
and with what the tests run on: each pin inside pyproject.toml's range, every package
the project and its tests pull in pinned, at the version installed here."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import distribution

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.webhook_kit import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
LOCK = ROOT / "constraints.txt"
REFRESH = "refresh it with scripts/lock_deps.sh (docs/operating.md, Deploy)"


def pins(text: str) -> dict[str, str]:
    """Each package `text` (a constraints file) pins, by its canonical name -> version."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pin = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", line)
        assert pin, f"constraints.txt:{number}: not NAME==VERSION: {line}"
        name = canonicalize_name(pin[1])
        assert name not in found, f"constraints.txt:{number}: {pin[1]} is pinned twice"
        found[name] = pin[2]
    return found


def _project_requirements() -> list[Requirement]:
    """What the project installs to run and to test: its dependencies and its test extra."""
    project = PYPROJECT["project"]
    return [
        Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]
    ]


def _build_requirements() -> list[Requirement]:
    return [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]


def installed_closure(roots: list[Requirement]) -> dict[str, str]:
    """Every package `roots` pull in, as installed here (markers read for this machine,
    extras followed) -> its installed version."""
    found: dict[str, str] = {}
    extras_read: dict[str, set[str]] = {}
    todo = [(req, {""}) for req in roots]
    while todo:
        req, parent_extras = todo.pop()
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in parent_extras):
            continue
        name = canonicalize_name(req.name)
        wanted = {""} | set(req.extras)
        if name in extras_read and wanted <= extras_read[name]:
            continue
        extras_read[name] = extras_read.get(name, set()) | wanted
        dist = distribution(name)
        found[name] = dist.version
        todo += [(Requirement(r), wanted) for r in dist.requires or []]
    return found


def test_every_declared_dependency_is_pinned_inside_its_range():
    pinned = pins(LOCK.read_text("utf-8"))
    for req in _project_requirements() + _build_requirements():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name}: not pinned in constraints.txt; {REFRESH}"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {req.name}=={pinned[name]}, outside pyproject.toml's"
            f" {req.specifier}; {REFRESH}"
        )


def test_every_package_the_tests_run_on_is_pinned_at_its_version():
    # The tests run on what the image ships: every package the project and its tests
    # pull in, transitive ones too, pinned, and installed here at the pinned version
    # (scripts/bootstrap.sh installs with the file). The build backend is pinned too
    # (above); nothing else: a pin nothing needs any more is a stale one.
    pinned = pins(LOCK.read_text("utf-8"))
    installed = installed_closure(_project_requirements())
    unpinned = sorted(set(installed) - set(pinned))
    assert not unpinned, f"not pinned in constraints.txt: {unpinned}; {REFRESH}"
    differ = {n: (v, pinned[n]) for n, v in installed.items() if pinned[n] != v}
    assert not differ, (
        f"installed here at another version than constraints.txt pins (installed, pinned):"
        f" {differ}; run scripts/bootstrap.sh"
    )
    backend = {canonicalize_name(r.name) for r in _build_requirements()}
    stale = sorted(set(pinned) - set(installed) - backend)
    assert not stale, f"pinned but needed by nothing: {stale}; {REFRESH}"


def test_the_pins_are_checked_against_the_closure_not_the_root_alone():
    # The closure above follows extras and markers: PyGithub pulls in PyJWT with its
    # `crypto` extra (cryptography), pytest pulls in pluggy; a requirement whose marker
    # fails here (another platform's, another extra's) pulls in nothing.
    closure = installed_closure([Requirement("pygithub"), Requirement("pytest")])
    assert {"pyjwt", "cryptography", "pluggy", "iniconfig"} <= set(closure)
    assert not installed_closure([Requirement("pytest; sys_platform == 'no-such-os'")])
    assert "cryptography" not in installed_closure([Requirement("pyjwt")])


def test_a_malformed_or_doubled_pin_is_named():
    for text, said in (
        ("fastapi>=0.1\n", "constraints.txt:1: not NAME==VERSION"),
        ("# c\nJinja2==3.1.6\njinja2==3.1.5\n", "constraints.txt:3: jinja2 is pinned twice"),
    ):
        try:
            pins(text)
        except AssertionError as exc:
            assert str(exc).startswith(said), exc
        else:
            raise AssertionError(f"{text!r} was taken")


def _build_requires_reader(text: str) -> str:
    """The one-line program a shell script or the Dockerfile reads pyproject.toml's build
    backend with."""
    found = re.search(r"-c '(import tomllib;[^']*build-system[^']*)'", text)
    assert found, "no reader of pyproject.toml's build-system.requires"
    return found[1]


def test_bootstrap_installs_what_the_image_installs_with_the_lock():
    # CI (.ci/run) and developers get their .venv from scripts/bootstrap.sh: it installs
    # with constraints.txt as the Dockerfile does, the build backend first (the same
    # pins) and the project built by it, with no isolated build fetching another.
    docker = (ROOT / "Dockerfile").read_text("utf-8")
    assert re.search(r"^COPY image-requirements\.txt \./$", docker, re.M)
    assert re.search(r"^RUN pip install --require-hashes -r image-requirements\.txt$", docker, re.M)
    assert re.search(r"^RUN pip install --no-deps --no-build-isolation -e \.$", docker, re.M)
    boot = (ROOT / "scripts" / "bootstrap.sh").read_text("utf-8")
    install = re.search(r"^pip=\((.*)\)$", boot, re.M)
    assert install and "-c constraints.txt" in install[1], "bootstrap.sh installs unpinned"
    assert re.search(r'^"\$\{pip\[@\]\}" -r <\(', boot, re.M)
    assert re.search(r"""^"\$\{pip\[@\]\}" --no-build-isolation -e '\.\[test\]'$""", boot, re.M)
    assert boot.count("pip install") == 1, "another pip install, without the lock"
    lock_deps = (ROOT / "scripts" / "lock_deps.sh").read_text("utf-8")
    reader = _build_requires_reader(lock_deps)
    assert _build_requires_reader(boot) == reader
    # the image's lock reads the dependencies and the backend as the Dockerfile did
    lock_image = (ROOT / "scripts" / "lock_image.sh").read_text("utf-8")
    assert 'p["project"]["dependencies"] + p["build-system"]["requires"]' in lock_image
    assert 'bash scripts/lock_image.sh "$out"' in lock_deps  # refreshed with constraints.txt


IMAGE_LOCK = ROOT / "image-requirements.txt"


def hashed_pins(text: str) -> dict[str, tuple[str, list[str]]]:
    """Each package `text` (a requirements file with hashes) pins, by its canonical name
    -> (version, its sha256 hashes)."""
    found: dict[str, tuple[str, list[str]]] = {}
    entries = re.sub(r"\s*\\\n\s*", " ", text).splitlines()  # continued lines joined
    for entry in entries:
        if not entry.strip() or entry.startswith("#"):
            continue
        pin = re.fullmatch(
            r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?: --hash=sha256:[0-9a-f]{64})+)", entry
        )
        assert pin, f"image-requirements.txt: not NAME==VERSION --hash=sha256:...: {entry}"
        found[canonicalize_name(pin[1])] = (pin[2], pin[3].split(" --hash=sha256:")[1:])
    return found


def test_the_image_installs_its_share_of_the_pins_each_with_its_hashes():
    # The Dockerfile installs image-requirements.txt with --require-hashes: every package
    # the project pulls in to run, and the build backend, at constraints.txt's version
    # (so the image ships what the tests ran on), each with a hash; the test tools not.
    # (This machine reads the markers as the image does: CPython 3.11 on Linux.)
    image = hashed_pins(IMAGE_LOCK.read_text("utf-8"))
    pinned = pins(LOCK.read_text("utf-8"))
    runtime = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    wanted = set(installed_closure(runtime + _build_requirements()))
    assert set(image) == wanted, (
        f"image-requirements.txt lacks {sorted(wanted - set(image))}, has more:"
        f" {sorted(set(image) - wanted)}; {REFRESH}"
    )
    differ = {n: (v, pinned[n]) for n, (v, _) in image.items() if pinned[n] != v}
    assert not differ, f"image-requirements.txt's version is not constraints.txt's: {differ}"
    assert all(hashes for _, hashes in image.values())


def test_a_pin_without_a_hash_is_named():
    text = "fastapi==0.1 \\\n    --hash=sha256:" + "0" * 64 + "\nuvicorn==0.2\n"
    assert list(hashed_pins(text.split("uvicorn")[0])) == ["fastapi"]
    try:
        hashed_pins(text)
    except AssertionError as exc:
        assert "not NAME==VERSION --hash=sha256:...: uvicorn==0.2" in str(exc), exc
    else:
        raise AssertionError("a pin without a hash was taken")
