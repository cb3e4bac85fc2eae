#!/usr/bin/env bash
# The README's run command: install dependencies, build, and open the sandbox on
# the default scene. Without a display it says so and shows the headless command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${CLOTHBOX_BUILD_DIR:-build}
cmake --preset default -B "$build" >/dev/null
cmake --build "$build" -j "$(nproc)" --target clothbox clothbox-cli
exec "$build/app/gui/clothbox" "$@"
