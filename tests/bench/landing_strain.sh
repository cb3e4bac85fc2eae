#!/bin/bash
# Landing strain of I-Cloth over two families of starts (RESULTS.md, ninth session):
#  - funnel: scenes/icloth_funnel.json with the first sheet moved -1.5 ... +2 mm
#    along x and the second 0 or 0.7 mm along z (16 starts, 30 frames: the sheets
#    land at frames ~13-19);
#  - corner: a 0.36 m sheet of 24 x 24 vertices turned 35-55 degrees about the
#    vertical, so that a corner lands first, dropped from 0.45-0.55 m onto a plane
#    tilted by 30 degrees with friction 0.5 or 0.2 (15 starts each, 30 frames).
#  - fine (with FINE=1; ~2 minutes): the funnel with every sheet at 58 x 58
#    vertices (the ~20k-triangle benchmark's grids, thickness 3.2 mm), the first
#    sheet moved 0, -0.5, +0.5, +1, +1.5 mm (5 starts, 40 frames); with FINE=2
#    (~5 minutes) also -2, -1, +2, +2.5, +3 mm along x, each with 0 and 0.7 mm
#    along z (15 starts).
# Prints each start's largest edge strain, the mean and the largest, and the mean
# PCG iterations a frame. The trajectories are chaotic: compare families, not runs.
#
# usage: [FINE=1|2] tests/bench/landing_strain.sh [path/to/clothbox-cli] [--params k=v,...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${1:-$root/build/app/clothbox-cli}
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$root" "$work" <<'PY'
import json, os, sys
root, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, f"{root}/tests/bench")
from funnel_starts import shipped_funnel, shifted
funnel = shipped_funnel(root)
k = 0
for dx in (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0):
    for dz in (0.0, 0.7):
        json.dump(shifted(funnel, dx, dz), open(f"{work}/funnel_{k:02d}.json", "w"))
        k += 1
fine = json.loads(json.dumps(funnel))
for c in fine["cloths"]:
    c["grid"]["nx"] = c["grid"]["ny"] = 58
    c["material"]["thickness"] = 0.0032
fine_starts = [(dx, 0.0) for dx in (0.0, -0.5, 0.5, 1.0, 1.5)]
if os.environ.get("FINE") == "2":  # the 15-start family
    fine_starts += [(dx, dz) for dx in (-2.0, -1.0, 2.0, 2.5, 3.0) for dz in (0.0, 0.7)]
for k, (dx, dz) in enumerate(fine_starts):
    json.dump(shifted(fine, dx, dz), open(f"{work}/fine_{k:02d}.json", "w"))
for mu in (0.5, 0.2):
    k = 0
    for turn in (35, 40, 45, 50, 55):
        for height in (0.45, 0.5, 0.55):
            s = {"title": "corner landing", "dt": 1 / 60, "substeps": 2, "solver": {"name": "icloth"},
                 "cloths": [{"name": "sheet",
                             "grid": {"layout": "quad", "nx": 24, "ny": 24, "width": 0.36, "height": 0.36},
                             "transform": {"translate": [0, height, 0], "rotate_deg": [-90, turn, 0]},
                             "material": {"density": 0.2, "stretch": 2000, "shear": 200, "bend": 1e-5,
                                          "thickness": 0.002, "friction": 0.5}}],
                 "obstacles": [{"type": "plane", "name": "slope", "friction": mu,
                                "transform": {"rotate_deg": [0, 0, 30]}}]}
            json.dump(s, open(f"{work}/corner_mu{mu}_{k:02d}.json", "w"))
            k += 1
PY

family() {  # family NAME GLOB FRAMES [run options]
  local name=$1 pattern=$2 frames=$3 f
  shift 3
  for f in $work/$pattern; do
    OMP_NUM_THREADS=1 "$cli" run --scene "$f" --frames "$frames" "$@" --stats "$f.csv" >/dev/null 2>&1 ||
      echo "failed: $f" >&2
  done
  python3 - "$name" $work/$pattern <<'PY'
import csv, sys
worst, cg = [], []
for f in sys.argv[2:]:
    rows = list(csv.DictReader(open(f + ".csv")))
    worst.append(max(float(r["max_strain"]) for r in rows))
    cg.append(sum(float(r.get("cg iterations") or 0) for r in rows) / len(rows))
print(f"{sys.argv[1]:10s} " + " ".join(f"{w:.2f}" for w in worst) +
      f"  mean {sum(worst) / len(worst):.3f} max {max(worst):.3f}  PCG {sum(cg) / len(cg):.0f}/frame")
PY
}
extra=("$@")
family funnel 'funnel_*.json' 30 "${extra[@]}"
family corner0.5 'corner_mu0.5_*.json' 30 "${extra[@]}"
family corner0.2 'corner_mu0.2_*.json' 30 "${extra[@]}"
if [ "${FINE:-0}" != 0 ]; then family fine58 'fine_*.json' 40 "${extra[@]}"; fi
