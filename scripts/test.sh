#!/usr/bin/env bash
# Runs every test (unit, corpus, end-to-end) through ctest. Usage: scripts/test.sh [build-dir] [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j2 "$@"
