#!/usr/bin/env bash
# Refresh constraints.txt, the exact versions the image and CI install (pip install -c),
# then image-requirements.txt, the image's share of them with their hashes
# (scripts/lock_image.sh):
# pyproject.toml's dependencies, its test extra and its build backend, and all they pull
# in, resolved afresh from PyPI within pyproject.toml's ranges in a throw-away virtualenv
# (Python 3.11, as the image's). Then `bash scripts/bootstrap.sh` brings .venv to them,
# and the tests run on what the image will ship (tests/test_lock.py holds the file to
# pyproject.toml and image-requirements.txt to it). Needs python3 and PyPI; takes a few
# minutes.
#   bash scripts/lock_deps.sh [OUTPUT]      (default constraints.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-constraints.txt}"
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
# the build backend first, as the Dockerfile installs it: the package is built without
# isolation, by the backend the file pins
"${pip[@]}" install -r <("$venv/bin/python" -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
"${pip[@]}" install --no-build-isolation -e '.[test]'
{
  echo "# Exact versions of every package the image and the tests install, pyproject.toml's"
  echo "# ranges resolved: the Dockerfile and scripts/bootstrap.sh install with pip install -c."
  echo "# Written by scripts/lock_deps.sh (docs/operating.md, Deploy); do not edit by hand."
  "$venv/bin/python" -m pip freeze --all --exclude-editable --exclude pip
} >"$out"
echo "lock_deps: $(grep -vc '^#' "$out") packages pinned in $out"
bash scripts/lock_image.sh "$out" "$(dirname "$out")/image-requirements.txt"
