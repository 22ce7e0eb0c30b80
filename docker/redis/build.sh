#!/usr/bin/env bash
# Builds a Redis image from this machine's own Debian binaries, for machines that reach no
# image registry: a root file system holding redis-server, redis-cli and the libraries ldd
# lists, turned into an image with `docker import` (a few seconds). The tests take the image
# from -Dllm-resilience.redis.image (or LLM_RESILIENCE_REDIS_IMAGE); .ci/run sets it to this
# one. A developer with Docker Hub needs none of this: the default is redis:7.
#
#   docker/redis/build.sh [image-name]     # prints the image name it built
#
# redis-sentinel is redis-server started with --sentinel, so one image serves standalone,
# Sentinel and Cluster tests.
set -euo pipefail

image="${1:-llm-resilience/redis:local}"
server="$(command -v redis-server || true)"
cli="$(command -v redis-cli || true)"
if [ -z "$server" ] || [ -z "$cli" ]; then
  (apt-get update -qq && apt-get install -y -qq redis-server redis-tools) >/dev/null 2>&1 \
    || { echo "build.sh: redis-server and redis-cli are missing and could not be installed" >&2; exit 1; }
  server="$(command -v redis-server)"
  cli="$(command -v redis-cli)"
fi
# Debian's redis-server is a symlink to redis-check-rdb's binary; copy what it points at.
server="$(readlink -f "$server")"
cli="$(readlink -f "$cli")"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/data" "$root/tmp" "$root/etc"
cp "$server" "$root/usr/bin/redis-server"
cp "$cli" "$root/usr/bin/redis-cli"
for binary in "$server" "$cli"; do
  # Each library at the path the dynamic loader looks in (and the loader itself).
  for lib in $(ldd "$binary" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
done
chmod 1777 "$root/tmp" "$root/data"
echo 'root:x:0:0:root:/root:/bin/false' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"

tar -C "$root" -c . | docker import \
  --change 'WORKDIR /data' \
  --change 'EXPOSE 6379' \
  --change 'ENTRYPOINT []' \
  --change 'CMD ["redis-server", "--protected-mode", "no"]' \
  - "$image" >/dev/null
echo "$image"
