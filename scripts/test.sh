#!/usr/bin/env bash
# The README's test command: install dependencies, configure, build and run every
# test (unit, integration, GUI under Xvfb) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${CLOTHBOX_BUILD_DIR:-build}
cmake --preset default -B "$build" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
