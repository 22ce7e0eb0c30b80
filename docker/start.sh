#!/usr/bin/env bash
# Makes a Docker engine answer on this machine, for the Testcontainers tests: installs
# Debian's docker.io where dockerd is missing and starts the daemon (as root) when none
# answers. Then builds the local images (docker/redis/build.sh). Prints the Redis image.
# Used by .ci/run; a developer may run it too (as root, or with sudo).
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq docker.io) >/dev/null 2>&1 \
    || { echo "docker/start.sh: could not install docker.io" >&2; exit 1; }
fi
if ! docker info >/dev/null 2>&1; then
  log="${TMPDIR:-/tmp}/dockerd.log"
  nohup dockerd >"$log" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { echo "docker/start.sh: dockerd did not answer within 60 s (see $log)" >&2; exit 1; }
fi
./redis/build.sh "${1:-llm-resilience/redis:local}"
