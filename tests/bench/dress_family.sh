#!/bin/bash
# The dress late in the kick, over a family of trajectories (RESULTS.md,
# fifteenth session): the skirt on the kicking mannequin for 300 frames, once per
# PCG tolerance below (each tolerance is one chaotic trajectory; single events
# decide a run, so compare families, never one run). One thread per run, two
# runs at a time: about 8 minutes on the 2-vCPU development VM. Needs
# ../shared/data/meshes/codim-ipc. Prints, per run, the frames with crossing
# triangle pairs (and the first), the crossing pair-frames (intersecting pairs
# summed over the frames), the largest strain, the fallback steps and the steps
# that ended at the last resort (unresolved or reverted); then the family's totals.
#
# usage: [PARAMS=k=v,...] tests/bench/dress_family.sh [path/to/clothbox-cli] [tolerances...]
# (PARAMS: further solver parameters for every run, e.g. PARAMS=zone_membrane=0)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${1:-$root/build/app/clothbox-cli}
shift || true
tols=("$@")
[ ${#tols[@]} -gt 0 ] || tols=(7e-4 8e-4 9e-4 1e-3 1.1e-3 1.15e-3 1.25e-3 1.35e-3 1.5e-3 1.75e-3 2e-3 2.5e-3)
scene=$root/scenes/shared/icloth_dress.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
  OMP_NUM_THREADS=1 "$cli" run --scene "$scene" --frames 300 --stats "$work/$1.csv" \
    --params "cg_tolerance=$1${PARAMS:+,$PARAMS}" > "$work/$1.log" 2>&1 || { echo "run $1 failed:"; cat "$work/$1.log"; exit 1; }
}
for ((i = 0; i < ${#tols[@]}; i += 2)); do
  run "${tols[i]}" &
  [ $((i + 1)) -lt ${#tols[@]} ] && run "${tols[i + 1]}" &
  wait
done

python3 - "$work" "${tols[@]}" <<'PY'
import csv, sys
work, tols = sys.argv[1], sys.argv[2:]
print(f"{'tolerance':>10} {'frames crossing':>16} {'first':>6} {'pair-frames':>12} {'strain max':>11} {'fallbacks':>10}"
      f" {'last resort':>12}")
total_frames = total_pairs = runs_crossing = runs_last = 0
strains = []
for t in tols:
    rows = list(csv.DictReader(open(f"{work}/{t}.csv")))
    pairs = [int(float(r["intersecting pairs"] or 0)) for r in rows]
    crossing = sum(p > 0 for p in pairs)
    first = next((i for i, p in enumerate(pairs) if p > 0), None)
    strain = max(float(r["max_strain"]) for r in rows)
    fallbacks = sum(float(r["fallbacks"] or 0) for r in rows)
    # steps whose zones, rigid rounds and clamp left impacts (collision_handler.h:
    # the last resort): counted as unresolved or reverted
    last = sum(float(r["unresolved steps"] or 0) + float(r["reverted steps"] or 0) for r in rows)
    total_frames += crossing
    total_pairs += sum(pairs)
    runs_crossing += crossing > 0
    runs_last += last > 0
    strains.append(strain)
    print(f"{t:>10} {crossing:>16} {'-' if first is None else first:>6} {sum(pairs):>12} {strain:>11.2f} {fallbacks:>10.0f}"
          f" {last:>12.0f}")
print(f"family: {len(tols)} runs, {runs_crossing} with a crossing, {total_frames} frames crossing, "
      f"{total_pairs} crossing pair-frames, {runs_last} reaching the last resort, "
      f"largest strain {sum(strains) / len(strains):.2f} on average")
PY
