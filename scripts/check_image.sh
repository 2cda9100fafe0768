#!/usr/bin/env bash
# Build the Docker image and check it as an operator would run it: a dry run that starts,
# turns healthy, answers a replayed example with a would-be comment, runs as uid 10001
# and stops cleanly on `docker stop`, also right after its start. Needs a Docker daemon
# (not part of .ci/run).
#   bash scripts/check_image.sh [PORT]      (PORT on the host loopback, default 18090)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-18090}"
name="review-notes-check-$$"
volume="$name-data"

cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker volume rm -f "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() { echo "check_image: $*" >&2; docker logs "$name" 2>&1 | tail -20 >&2; exit 1; }

# --network host: the build needs no Docker bridge (a daemon may run without one), and
# the healthcheck and the replay reach the server on the host loopback
docker build -q --network host -t review-notes:check . >/dev/null
docker run -d --name "$name" --network host -e REVIEW_NOTES_PORT="$port" \
  -v "$volume:/app/var" review-notes:check >/dev/null

for _ in $(seq 60); do  # the healthcheck's first probe comes after its 30 s interval
  status=$(docker inspect --format '{{.State.Health.Status}}' "$name")
  [ "$status" = healthy ] && break
  [ "$status" = unhealthy ] && fail "the container is unhealthy"
  sleep 1
done
[ "$status" = healthy ] || fail "not healthy after 60 s (status: $status)"

[ "$(docker exec "$name" id -u)" = 10001 ] || fail "the server does not run as uid 10001"
reply=$(docker exec "$name" review-notes replay examples/pr-52419-opened.json \
  --url "http://127.0.0.1:$port/webhook")
case "$reply" in 202*) ;; *) fail "replay answered: $reply" ;; esac
for _ in $(seq 20); do
  comments=$(docker exec "$name" python -c "import urllib.request; print(urllib.request.urlopen(
    'http://127.0.0.1:$port/dry-run/comments').read().decode())")
  case "$comments" in *'review-notes:v1'*) break ;; esac
  sleep 0.5
done
case "$comments" in *'review-notes:v1'*) ;; *) fail "no would-be comment: $comments" ;; esac

# a stop right after the start is not lost (the grace period waited out, then a kill)
early="$name-early"
docker run -d --name "$early" --network host -e REVIEW_NOTES_PORT="$((port + 1))" \
  review-notes:check >/dev/null
sleep 0.3
started=$(date +%s)
docker stop -t 20 "$early" >/dev/null
took=$(( $(date +%s) - started ))
code=$(docker inspect --format '{{.State.ExitCode}}' "$early")
docker rm -f -v "$early" >/dev/null
[ "$took" -lt 5 ] || fail "a stop right after the start took ${took} s (exit $code)"
case "$code" in 0|143) ;; *) fail "a stop right after the start exited $code" ;; esac

docker stop -t 20 "$name" >/dev/null
[ "$(docker inspect --format '{{.State.ExitCode}}' "$name")" = 0 ] || fail "non-zero exit on stop"
docker logs "$name" 2>&1 | grep -q "stopped by SIGTERM" || fail "no clean stop in the logs"
echo "check_image: built, healthy, uid 10001, replay answered with a comment, stopped cleanly" \
  "(and at once when stopped right after its start)"
