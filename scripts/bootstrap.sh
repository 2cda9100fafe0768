#!/usr/bin/env bash
# Set up everything on a fresh machine (Python 3.11 + pip): a virtualenv with the
# project and its test tools, the npm test fixtures, and headless Chromium for the
# browser test. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# Every package at the version constraints.txt pins, as the image installs them: the
# build backend first, then the project built with it (no isolated build, which would
# fetch an unpinned backend), so the tests run on what the image ships.
pip=(.venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt)
"${pip[@]}" -r <(.venv/bin/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
"${pip[@]}" --no-build-isolation -e '.[test]'

# Test fixtures (package.json pins the versions): real webhook payloads, GitHub's REST
# API description the fake GitHub's answers are checked against, and gemoji, which
# bot/emoji_names.py is checked against.
if command -v npm >/dev/null 2>&1; then
  if [ ! -d node_modules/@octokit/webhooks-examples ] || [ ! -d node_modules/@octokit/openapi ] \
    || [ ! -d node_modules/gemoji ]; then
    npm install --no-audit --no-fund --silent >/dev/null
  fi
else
  echo "bootstrap: npm not found; tests that need @octokit/webhooks-examples, @octokit/openapi or gemoji will say so" >&2
fi

# Debian's Chromium and its driver for the browser test, and CJK fonts so Chinese note
# text renders as glyphs, not boxes, in the browser and the screenshot (root only).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1 \
  || [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-cjk >/dev/null) \
      || echo "bootstrap: could not install chromium; the browser test will be skipped" >&2
  fi
fi
