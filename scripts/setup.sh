#!/usr/bin/env bash
# Installs the Debian packages Skein needs, builds it (Release, Ninja) and runs the main job on the bundled
# default example. Safe to re-run. Usage: scripts/setup.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PACKAGES=(cmake ninja-build ccache g++ make pkg-config
          llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19 libpolly-19-dev lld
          libz3-dev zlib1g-dev libzstd-dev libxml2-dev
          nlohmann-json3-dev libgtest-dev libgmock-dev libjemalloc-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON
cmake --build "$BUILD"

# The main job: check the default example. It has a bug, so skein exits 1 (error found); any other code fails.
echo
echo "\$ $BUILD/server/skein check examples/lost_update.c"
status=0
"$BUILD/server/skein" check examples/lost_update.c || status=$?
if [ "$status" != 1 ]; then
  echo "setup: expected skein to find the bug in examples/lost_update.c (exit 1), got exit $status" >&2
  exit 1
fi
