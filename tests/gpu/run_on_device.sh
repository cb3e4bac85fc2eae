#!/usr/bin/env bash
# The whole GPU check in one script.
#
#   Here (no GPU needed):   bash tests/gpu/run_on_device.sh --prepare
#       builds the headless preset for sm_90 into build-gpu/ and gathers what the
#       GPU machine needs into gpu-bundle/ (stripped binaries, the shared libraries
#       a bare machine lacks, the CCD data of ../shared): small enough to carry.
#   On the GPU machine:     bash tests/gpu/run_on_device.sh [SECTION...]   (carry gpu-bundle)
#       SECTIONs (default: all): tests scenes verlet pbd icloth collision egl; agree
#       runs only the CPU/CUDA comparisons; egl the CUDA-GL interop check under
#       EGL (carry .gl too: the GL loader packages, see the device README);
#       kernels the GPU time per kernel of the measured frames of the icloth
#       benchmarks in KERNELS_FILTER (ncu; KERNELS_TIMEOUT, KERNELS_FRAMES);
#       sanitize compute-sanitizer's memcheck and racecheck over the PCG's tests
#       (SANITIZE_FILTER, SANITIZE_TIMEOUT);
#       detail Nsight Compute's throughput, occupancy, stall and memory sections
#       for a few launches of the PCG's kernels (DETAIL_KERNELS, DETAIL_FILTER,
#       DETAIL_LAUNCHES, DETAIL_TIMEOUT; detail.txt);
#       profile an nsys profile where nsys exists (nsys was not usable there);
#       ab every icloth_bench* binary of the bundle in turn, this checkout's
#       icloth_bench with every parameter set of AB_PARAMS (';'-separated sets
#       of "name=value,...", CLOTHBOX_BENCH_PARAMS; none by default), the
#       other builds once a round without, AB_ROUNDS rounds
#       (3) of AB_FILTER (the 200k funnel and sphere), AB_TIMEOUT each (60):
#       ab.md gives each build's median us per PCG iteration (bench_table.py),
#       the fair comparison of builds whose trajectories differ in the last
#       bits; --prepare with BUNDLE_BASE=path/to/icloth_bench (another build of
#       this checkout, e.g. of the last commit: the benchmarks read scenes from
#       the source path compiled in) adds it as icloth_bench_base, and
#       BUNDLE_BUILDS="name=path ..." adds each as icloth_bench_<name>.
#       tests: every unit test with the CUDA backend available (each backend test
#       compares CUDA with CPU); scenes: the CLI on every shipped scene with
#       --backend cuda; the rest: the benchmarks at the GPU targets' sizes with
#       the CUDA backend. A short table comes last; logs go to $OUT when set, and
#       each section's line is appended to summary.txt as it ends (a run cut
#       short by its limit still says what finished).
#   Limits (seconds, for fitting a lease): TEST_TIMEOUT (per test shard, 400),
#   SCENE_TIMEOUT (per scene, 120), ICLOTH_TIMEOUT (320), AGREE_TIMEOUT (300,
#   the agreement tests' log then names the test it was in); ICLOTH_FILTER may hold
#   several filters separated by ';', run in that order into one log (the target
#   benchmarks first). --prepare with BUNDLE_SKIP="pbd verlet" leaves those
#   benchmarks out of the bundle (any binary by name without _bench:
#   "collision clothbox-egl-check" too; the carry holds 64 MiB).
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle=gpu-bundle

if [ "${1:-}" = "--prepare" ]; then
  set -e
  build=build-gpu
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLOTHBOX_GUI=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DCLOTHBOX_CUDA=ON -DCLOTHBOX_EGL_CHECK=ON >/dev/null
  cmake --build "$build" -j "$(nproc)"
  rm -rf "$bundle" && mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/shared/data"
  for bin in "$build"/tests/clothbox_tests "$build"/app/clothbox-cli "$build"/tests/bench/*_bench \
             $(ls "$build"/tests/gpu/clothbox-egl-check 2>/dev/null); do
    case " ${BUNDLE_SKIP:-} " in *" $(basename "$bin" _bench) "*) continue ;; esac
    strip -o "$bundle/bin/$(basename "$bin")" "$bin"
    ldd "$bin" | awk '/=> \//{print $3}' | grep -E 'tinyobj|benchmark|gomp|gtest|stdc\+\+' | xargs -r cp -u -t "$bundle/lib"
  done
  [ -n "${BUNDLE_BASE:-}" ] && strip -o "$bundle/bin/icloth_bench_base" "$BUNDLE_BASE"
  for named in ${BUNDLE_BUILDS:-}; do strip -o "$bundle/bin/icloth_bench_${named%%=*}" "${named#*=}"; done
  # the binaries read scenes and ../shared from the paths compiled into them
  echo "$PWD" >"$bundle/source_dir"
  shared=$(cd .. && pwd)/shared
  echo "$shared" >"$bundle/shared_dir"
  [ -d "$shared/data/ccd" ] && cp -r "$shared/data/ccd" "$bundle/shared/data/"
  echo "prepared $bundle ($(du -sh "$bundle" | cut -f1)); carry it to the GPU machine"
  exit 0
fi

# --- on the GPU machine ---
out=${OUT:-/tmp/clothbox-gpu}
mkdir -p "$out"
bin=$bundle/bin
export LD_LIBRARY_PATH="$PWD/$bundle/lib:${LD_LIBRARY_PATH:-}"
# make the compiled-in source and shared paths point here
src=$(cat "$bundle/source_dir")
if [ "$src" != "$PWD" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi
shared=$(cat "$bundle/shared_dir")
if [ ! -e "$shared" ]; then mkdir -p "$(dirname "$shared")" && ln -s "$PWD/$bundle/shared" "$shared"; fi

# the tests run the CLI from the build folder's path
[ -e build-gpu/app/clothbox-cli ] || { mkdir -p build-gpu/app && ln -s "$PWD/$bin/clothbox-cli" build-gpu/app/; }

sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(tests scenes verlet pbd icloth collision egl)
declare -A result
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"

# the tangled sweep runs on the CPU backend alone (6.5 minutes on 2 cores): CI's, not the device's
cpu_only_sweep='PathSizes/TangledSweep.*'
run_tests() {  # 4 shards in parallel, one log each
  local n=4 pids=() rc=0 cut=""
  for i in $(seq 0 $((n - 1))); do
    GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i OMP_NUM_THREADS=4 \
      timeout "${TEST_TIMEOUT:-400}" "$bin/clothbox_tests" --gtest_filter="-$cpu_only_sweep" >"$out/tests.$i.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  # a shard cut by its time limit has no summary: name the test it was running
  for i in $(seq 0 $((n - 1))); do
    grep -q '^\[==========\] .* ran\.' "$out/tests.$i.log" ||
      cut="$cut shard $i cut in $(grep '^\[ RUN      \]' "$out/tests.$i.log" | tail -1 | awk '{print $4}');"
  done
  cat "$out"/tests.*.log >"$out/tests.log" && rm "$out"/tests.*.log
  # count from each shard's summary lines and the failures' result lines
  local passed skipped failed
  passed=$(awk '/^\[  PASSED  \]/{s+=$4} END{print s+0}' "$out/tests.log")
  skipped=$(awk '/^\[  SKIPPED \] [0-9]+ test/{s+=$4} END{print s+0}' "$out/tests.log")
  failed=$(grep -c '^\[  FAILED  \].*ms)' "$out/tests.log")
  result[tests]="$([ $rc -eq 0 ] && echo pass || echo FAIL): $passed passed, $failed failed, $skipped skipped${cut:+;$cut}"
}

run_scenes() {
  local ok=0 total=0
  for s in scenes/*.json; do
    total=$((total + 1))
    echo "== $s" >>"$out/scenes.log"
    timeout "${SCENE_TIMEOUT:-120}" "$bin/clothbox-cli" run --backend cuda --frames 100 --quiet --scene "$s" >>"$out/scenes.log" 2>&1 &&
      ok=$((ok + 1))
  done
  result[scenes]="$ok/$total"
}

bench() {  # name timeout filters(';'-separated) [env...]
  local name=$1 t=$2 filters=$3 rc=0 f
  shift 3
  : >"$out/$name.log"
  IFS=';' read -ra f <<<"$filters"
  for filter in "${f[@]}"; do  # line-buffered, so a run cut short keeps its finished lines
    env "$@" stdbuf -oL timeout "$t" "$bin/${name}_bench" --benchmark_filter="$filter" \
      --benchmark_counters_tabular=true >>"$out/$name.log" 2>&1 || rc=$?
  done
  result[$name]="exit $rc (see $name.log)"
}

for s in "${sections[@]}"; do
  case $s in
    tests) run_tests ;;
    agree) timeout "${AGREE_TIMEOUT:-300}" "$bin/clothbox_tests" --gtest_filter="${AGREE_FILTER:-*CpuAndCuda*:*CudaMatchesCpu*:*OnCuda*:IClothSystem.*:RayDetector.*:IClothScenes.*:IClothTangledStart.*:*Takeover.*:IClothCg.*:IClothZoneSolver.*:StageTimer.*:FreeFallSubsteps.*:IClothSolver.WarmStart*:ObstaclePushOut.*:ContourUntangle.*:ObstacleSweep.*:ObstacleProximity.*:TriangleCurvature.*:*CoarseSheetOn*-$cpu_only_sweep}" \
             >"$out/agree.log" 2>&1; rc=$?
           result[agree]="exit $rc (see agree.log)"
           [ $rc -eq 124 ] && result[agree]+="; cut in $(grep '^\[ RUN      \]' "$out/agree.log" | tail -1 | awk '{print $4}')" ;;
    scenes) run_scenes ;;
    verlet) bench verlet 300 'BM_Verlet(Frame/(240|708)/(-1|0)/|FrameReach/708/|Detect/(240|708)/0/|AllPairs/240/)' CLOTHBOX_BENCH_BACKEND=cuda ;;
    pbd) bench pbd 120 'BM_PbdStep/(256|1024)/' CLOTHBOX_BENCH_BACKEND=cuda ;;
    icloth) bench icloth "${ICLOTH_TIMEOUT:-320}" "${ICLOTH_FILTER:-BM_IClothPinnedSheet|BM_IClothLarge(Sphere|Funnel)|BM_IClothGpu(Funnel|Sphere)}" ;;
    collision) bench collision 120 '.' ;;
    ab)  # every build with every parameter set of AB_PARAMS in turn, the order rotated each round
      : >"$out/ab.log"
      mapfile -t builds < <(ls "$bin"/icloth_bench*)
      IFS=';' read -ra psets <<<"${AB_PARAMS:-}"
      [ ${#psets[@]} -eq 0 ] && psets=("")
      runs=()  # the parameter sets on this checkout's build; the other builds once a round
      for b in "${builds[@]}"; do
        if [ "$(basename "$b")" = icloth_bench ]; then sets=("${psets[@]}"); else sets=(""); fi
        for p in "${sets[@]}"; do runs+=("$b|$p"); done
      done
      for r in $(seq 1 "${AB_ROUNDS:-3}"); do
        for k in "${!runs[@]}"; do
          run=${runs[$(((k + r - 1) % ${#runs[@]}))]}
          b=${run%%|*} p=${run#*|}
          echo "== $(basename "$b")${p:+ $p} round $r" >>"$out/ab.log"
          CLOTHBOX_BENCH_PARAMS="$p" stdbuf -oL timeout "${AB_TIMEOUT:-60}" "$b" --benchmark_counters_tabular=true \
            --benchmark_filter="${AB_FILTER:-BM_IClothGpuFunnel/10/|BM_IClothGpuSphere/}" >>"$out/ab.log" 2>&1
        done
      done
      python3 tests/gpu/bench_table.py "$out/ab.log" >"$out/ab.md" 2>&1
      result[ab]="${#runs[@]} runs a round, ${AB_ROUNDS:-3} rounds (see ab.md)" ;;
    egl)  # the CUDA-GL interop path under EGL (no display): carry .gl (the GL loader
          # packages, see the device README) beside gpu-bundle
      for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
      ldconfig
      vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
      [ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
      if [ -x "$bin/clothbox-egl-check" ]; then
        timeout 120 "$bin/clothbox-egl-check" >"$out/egl.log" 2>&1
        result[egl]="exit $?: $(tail -1 "$out/egl.log")"
      else
        result[egl]="not built (needs libegl-dev where the bundle is prepared)"
      fi ;;
    kernels)  # GPU time per kernel over the measured frames of each icloth_bench in
              # KERNELS_FILTER (space-separated; Nsight Compute, one metric, the
              # clocks left alone; kernel_table.py groups and sums). Compare the
              # per-frame total with the same benchmark's unprofiled ms: the rest
              # is launch latency and host synchronisation.
      ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      if [ -n "$ncu" ]; then
        result[kernels]="done (see kernels_*.md)"
        for f in ${KERNELS_FILTER:-BM_IClothGpuFunnel/10/}; do
          name=$(echo "$f" | tr -c 'A-Za-z0-9_\n' '_' | sed 's/_*$//')
          CLOTHBOX_PROFILE_MEASURED=1 timeout "${KERNELS_TIMEOUT:-300}" "$ncu" --profile-from-start off \
            --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
            --print-kernel-base demangled "$bin/icloth_bench" --benchmark_filter="$f" \
            >"$out/kernels_$name.csv" 2>"$out/kernels_$name.err" || result[kernels]="FAIL or cut short: $f"
          python3 tests/gpu/kernel_table.py "$out/kernels_$name.csv" "${KERNELS_FRAMES:-3}" 40 \
            >"$out/kernels_$name.md" 2>>"$out/kernels_$name.err"
          grep '^BM_' "$out/kernels_$name.csv" >>"$out/kernels_$name.md"
          gzip -f "$out/kernels_$name.csv"
        done
      else
        result[kernels]="no ncu on this machine"
      fi ;;
    sanitize)  # compute-sanitizer's memcheck and racecheck over SANITIZE_FILTER's tests
               # (the PCG's kernels, the lanes product among them), SANITIZE_TIMEOUT each
      cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
      if [ -n "$cs" ]; then
        result[sanitize]=""
        for tool in memcheck racecheck; do
          timeout "${SANITIZE_TIMEOUT:-150}" "$cs" --tool "$tool" --error-exitcode 3 "$bin/clothbox_tests" \
            --gtest_filter="${SANITIZE_FILTER:-IClothCg.*:IClothSolver.CpuAndCuda*}" >"$out/sanitize_$tool.log" 2>&1
          result[sanitize]+="$tool exit $?; "
        done
        result[sanitize]+="(see sanitize_*.log)"
      else
        result[sanitize]="no compute-sanitizer on this machine"
      fi ;;
    detail)  # why a kernel takes its time: Nsight Compute's throughput, occupancy,
             # warp-stall and memory sections for DETAIL_LAUNCHES (6) launches of the
             # kernels matching DETAIL_KERNELS (a regex over demangled names; the PCG's
             # product in either form, its update) in the measured frames of
             # DETAIL_FILTER (the 200k funnel); CLOTHBOX_BENCH_PARAMS as set
      ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      if [ -n "$ncu" ]; then
        CLOTHBOX_PROFILE_MEASURED=1 timeout "${DETAIL_TIMEOUT:-200}" "$ncu" --profile-from-start off \
          --clock-control none --kernel-name-base demangled \
          -k "regex:${DETAIL_KERNELS:-ProductRow|ProductPart|UpdateRow}" --launch-count "${DETAIL_LAUNCHES:-6}" \
          --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
          --section MemoryWorkloadAnalysis --section SchedulerStats \
          "$bin/icloth_bench" --benchmark_filter="${DETAIL_FILTER:-BM_IClothGpuFunnel/10/}" \
          >"$out/detail.txt" 2>"$out/detail.err"
        result[detail]="exit $? (see detail.txt)"
      else
        result[detail]="no ncu on this machine"
      fi ;;
    profile)  # where the GPU time of the 200k-triangle I-Cloth frames goes (needs nsys there)
      nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
      if [ -n "$nsys" ]; then
        for b in Sphere Funnel; do
          timeout 200 "$nsys" profile -o "$out/icloth_$b" --force-overwrite true -t cuda \
            "$bin/icloth_bench" --benchmark_filter="BM_IClothGpu$b" >"$out/profile_$b.log" 2>&1
          "$nsys" stats -r cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum \
            "$out/icloth_$b.nsys-rep" >>"$out/profile_$b.log" 2>&1
          rm -f "$out/icloth_$b.nsys-rep" "$out/icloth_$b.sqlite"
        done
        result[profile]="done (see profile_*.log)"
      else
        result[profile]="no nsys on this machine"
      fi ;;
    *) echo "unknown section $s" ;;
  esac
  [ -n "${result[$s]:-}" ] && echo "$s: ${result[$s]} ($(date +%T))" >>"$out/summary.txt"
done

echo
echo "| check | result |"
echo "|---|---|"
echo "| device | $(cat "$out/device.txt") |"
[ -n "${result[tests]:-}" ] && echo "| clothbox_tests (CUDA vs CPU) | ${result[tests]} |"
[ -n "${result[agree]:-}" ] && echo "| CPU/CUDA agreement tests | ${result[agree]} |"
[ -n "${result[scenes]:-}" ] && echo "| shipped scenes, 100 frames, --backend cuda | ${result[scenes]} |"
[ -n "${result[egl]:-}" ] && echo "| CUDA-GL interop under EGL | ${result[egl]} |"
[ -n "${result[sanitize]:-}" ] && echo "| compute-sanitizer | ${result[sanitize]} |"
for k in verlet pbd icloth collision kernels detail profile ab; do
  [ -n "${result[$k]:-}" ] && echo "| ${k}_bench | ${result[$k]} |"
done
exit 0
