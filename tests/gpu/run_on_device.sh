#!/usr/bin/env bash
# The whole GPU check in one script.
#
#   Here (no GPU needed):   bash tests/gpu/run_on_device.sh --prepare
#       builds the headless preset for sm_90 into build-gpu/ and copies the shared
#       libraries the binaries need that a bare GPU machine lacks into build-gpu/lib/.
#   On the GPU machine:     bash tests/gpu/run_on_device.sh      (carry build-gpu)
#       runs every test with the CUDA backend available (each backend test compares
#       CUDA with CPU), the CLI on every shipped scene with --backend cuda, the
#       benchmarks, and prints a short table last. Logs go to $OUT when set.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build-gpu

if [ "${1:-}" = "--prepare" ]; then
  set -e
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLOTHBOX_GUI=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DCLOTHBOX_CUDA=ON >/dev/null
  cmake --build "$build" -j "$(nproc)"
  mkdir -p "$build/lib"
  for bin in "$build"/tests/clothbox_tests "$build"/app/clothbox-cli "$build"/tests/bench/*_bench; do
    [ -x "$bin" ] || continue
    ldd "$bin" | awk '/=> \//{print $3}' | grep -E 'tinyobj|benchmark|gomp|gtest|stdc\+\+' | xargs -r cp -u -t "$build/lib"
  done
  echo "prepared $build ($(du -sh "$build" | cut -f1)); carry it to the GPU machine"
  exit 0
fi

out=${OUT:-/tmp/clothbox-gpu}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$build/lib:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"

declare -A result
"$build/tests/clothbox_tests" --gtest_brief=1 >"$out/tests.log" 2>&1
result[tests]=$([ $? -eq 0 ] && echo pass || echo FAIL)
result[tests_detail]=$(grep -E '^\[  (PASSED|FAILED) ' "$out/tests.log" | tr '\n' ' ')

ok=0; total=0
for s in scenes/*.json; do
  total=$((total + 1))
  "$build/app/clothbox-cli" run --backend cuda --frames 100 --quiet --scene "$s" >>"$out/scenes.log" 2>&1 && ok=$((ok + 1))
done
result[scenes]="$ok/$total"

for b in "$build"/tests/bench/*_bench; do
  [ -x "$b" ] || continue
  "$b" --benchmark_min_time=0.2 --benchmark_format=console >"$out/$(basename "$b").log" 2>&1
done

echo
echo "| check | result |"
echo "|---|---|"
echo "| device | $(cat "$out/device.txt") |"
echo "| clothbox_tests (CUDA vs CPU) | ${result[tests]} ${result[tests_detail]} |"
echo "| shipped scenes, 100 frames, --backend cuda | ${result[scenes]} |"
for l in "$out"/*_bench.log; do
  [ -f "$l" ] && echo "| $(basename "$l" .log) | see $(basename "$l") |"
done
