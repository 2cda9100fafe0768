# review-notes: the webhook server. Build: docker build -t review-notes .
# Run:  docker run -p 8000:8000 -v review-notes-data:/app/var --stop-timeout 35 \
#         --env-file .env review-notes
# (--stop-timeout 35: docker stop waits while the server drains, as in docs/operating.md,
# Deploy; by default it kills it after 10 s, which loses nothing but cuts runs short).
# An env file takes each line as written (no quotes, no multi-line values), so the App key
# goes in it on one line with "\n" escapes, as awk '{printf "%s\\n", $0}' app.pem prints it:
#   GITHUB_PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----\n
# or mounted as a file: -v "$PWD/app.pem:/run/secrets/app.pem:ro" with
#   GITHUB_PRIVATE_KEY_PATH=/run/secrets/app.pem (readable by uid 10001) in the env file.
# The base image by its tag, which moves: each build takes the tag's image of the day
# (Debian's and Python's patch releases). To build on the same base every time, pin its
# digest, read where a registry answers (the "Digest:" line, the tag's index for every
# platform), and move it on when you refresh constraints.txt (docs/operating.md, Deploy):
#   docker buildx imagetools inspect python:3.11-slim
#   FROM python:3.11-slim@sha256:<the 64 hex digits of that digest>
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin review-notes
# An init as the container's main process: it hands `docker stop` to the server, which as
# PID 1 would have the kernel drop a signal it has no handler for yet (the first moments
# of its start), so that Docker waited its grace period and killed it.
RUN apt-get update && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# The dependencies and the build backend first, from image-requirements.txt alone:
# pyproject.toml's dependencies at constraints.txt's versions (scripts/bootstrap.sh
# installs the same versions for the tests; scripts/lock_deps.sh refreshes both), each
# file checked against its sha256 there, so a file changed on PyPI under a pinned version
# stops the build. A change to bot/ does not download and install them again, and two
# builds a week apart ship the same libraries.
COPY image-requirements.txt ./
RUN pip install --require-hashes -r image-requirements.txt
# The package, installed editable so that config/ and seeds/ are found beside bot/
# (a change to the notes or the config below does not re-run this layer).
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip install --no-deps --no-build-isolation -e .
# bot/ compiled now: at run time nothing writes bytecode (PYTHONDONTWRITEBYTECODE, and
# /app is root's), so each start compiled every module again. Beside the sources, where
# the editable install's finder loads them from; checked by the source's hash, not its
# mtime, which a builder may rewrite (SOURCE_DATE_EPOCH), and still recompiled in memory
# should a source differ (a bot/ mounted over it).
RUN python -m compileall -q --invalidation-mode checked-hash bot

# Data: the taxonomy, matching weights, bot defaults and the notes themselves.
COPY config ./config
COPY seeds/notes ./seeds/notes
# Payloads to replay against a dry run (the banner suggests one).
COPY examples ./examples

# The SQLite queue and state live on a volume owned by the unprivileged user.
RUN mkdir -p /app/var && chown review-notes:review-notes /app/var
VOLUME ["/app/var"]
USER review-notes

ENV REVIEW_NOTES_HOST=0.0.0.0 \
    REVIEW_NOTES_PORT=8000 \
    REVIEW_NOTES_DB_PATH=/app/var/review-notes.sqlite3
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.build_opener(u.ProxyHandler({})).open('http://127.0.0.1:%s/healthz' % (os.environ.get('REVIEW_NOTES_PORT') or '8000'), timeout=4)"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["review-notes", "serve"]
