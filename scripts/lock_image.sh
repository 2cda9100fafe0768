#!/usr/bin/env bash
# Write image-requirements.txt, what the Dockerfile installs with --require-hashes: the
# build backend and pyproject.toml's dependencies (not the test tools) and all they pull
# in, at the versions constraints.txt pins, each with the sha256 of the wheels pip may
# pick for the image: CPython 3.11 on glibc Linux (manylinux up to IMAGE_GLIBC), x86-64
# and ARM64. A file PyPI serves under a pinned version that is not one of those stops
# the build. scripts/lock_deps.sh runs it after refreshing constraints.txt; run it alone
# to hash the current pins. Needs python3 3.11 and PyPI itself: pip's configuration is
# left out (--isolated, no config file), so a mirror's or a local wheel is not hashed in
# place of PyPI's, which the image's pip downloads. Constraints.txt carries no hashes:
# bootstrap.sh installs the project editable with it, on any platform and Python, which
# hash-checking refuses.
#   bash scripts/lock_image.sh [CONSTRAINTS [OUTPUT]]
set -euo pipefail
cd "$(dirname "$0")/.."
constraints="${1:-constraints.txt}"
out="${2:-image-requirements.txt}"
IMAGE_GLIBC=36 # python:3.11-slim's Debian: bookworm's glibc 2.36 (trixie's 2.41 takes these too)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIP_CONFIG_FILE=/dev/null
pypi=(--isolated --disable-pip-version-check -q --index-url https://pypi.org/simple)
if [ -n "${PIP_CERT:-}" ]; then pypi+=(--cert "$PIP_CERT"); fi # a proxy's CA, kept
python3 -m venv "$work/venv"
py="$work/venv/bin/python"
# the image's packages: resolved as the Dockerfile's pip will, within the pins
"$py" -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print("\n".join(p["project"]["dependencies"] + p["build-system"]["requires"]))' >"$work/deps.txt"
"$py" -m pip install "${pypi[@]}" -c "$constraints" -r "$work/deps.txt"
"$py" -m pip freeze --all --exclude pip >"$work/pins.txt"
for arch in x86_64 aarch64; do
  platforms=(--platform "manylinux2014_$arch")
  for minor in $(seq "$IMAGE_GLIBC" -1 17); do platforms+=(--platform "manylinux_2_${minor}_$arch"); done
  "$py" -m pip download "${pypi[@]}" --no-deps --only-binary=:all: -d "$work/$arch" \
    --implementation cp --python-version 3.11 --abi cp311 --abi abi3 --abi none \
    "${platforms[@]}" --platform any -r "$work/pins.txt"
done
"$py" - "$work" "$out" <<'PY'
import hashlib
import sys
from pathlib import Path

from pip._vendor.packaging.utils import canonicalize_name, parse_wheel_filename

work, out = Path(sys.argv[1]), Path(sys.argv[2])
hashes: dict[str, set[str]] = {}
for wheel in work.glob("*/*.whl"):
    name = canonicalize_name(parse_wheel_filename(wheel.name)[0])
    hashes.setdefault(name, set()).add(hashlib.sha256(wheel.read_bytes()).hexdigest())
lines = [
    "# What the image installs (Dockerfile, pip install --require-hashes): pyproject.toml's",
    "# dependencies and build backend at constraints.txt's versions, with the sha256 of",
    "# each wheel pip may pick on the image (CPython 3.11, Linux x86-64 and ARM64).",
    "# Written by scripts/lock_image.sh (docs/operating.md, Deploy); do not edit by hand.",
]
for pin in sorted((work / "pins.txt").read_text().split(), key=str.lower):
    lines.append(f"{pin} \\")
    lines += [f"    --hash=sha256:{h} \\" for h in sorted(hashes[canonicalize_name(pin.split('==')[0])])]
    lines[-1] = lines[-1].removesuffix(" \\")
out.write_text("\n".join(lines) + "\n")
PY
echo "lock_image: $(grep -c '^[^ #]' "$out") packages pinned with their hashes in $out"
