#!/bin/bash
# The I-Cloth quality runs of RESULTS.md ("the 13 quality runs"): every shipped
# I-Cloth scene, the funnel with its first sheet moved -1.0 ... +2.0 mm along x
# (six shifted starts), the dress on the kicking mannequin (when ../shared has
# it), and the hanging sheet and the sheet on the ground switched to I-Cloth.
# One thread per run, two runs at a time. Prints, per run: the largest edge
# strain, the impacts, PCG iterations and ms a frame, and the cloth-cloth
# friction beyond Coulomb's bound in units of the bound (ClothRepulsion::
# check_friction; "-" without cloth-cloth springs). The trajectories are
# chaotic: compare the funnels as a family, not run by run.
#
# usage: tests/bench/quality_runs.sh [path/to/clothbox-cli] [--params k=v,...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${1:-$root/build/app/clothbox-cli}
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$root" "$work" <<'PY'
import json, sys
root, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, f"{root}/tests/bench")
from funnel_starts import shipped_funnel, shifted
funnel = shipped_funnel(root)
for dx in ("-1.0", "-0.3", "+0.5", "+1.0", "+1.5", "+2.0"):
    json.dump(shifted(funnel, float(dx)), open(f"{work}/funnel{dx}.json", "w"))
PY

{
  if [ -d "$root/../shared/data/meshes/codim-ipc/kick" ]; then
    echo "$root/scenes/shared/icloth_dress.json 120 dress"
  fi
  echo "$root/scenes/icloth_funnel.json 150 funnel"
  for dx in -1.0 -0.3 +0.5 +1.0 +1.5 +2.0; do echo "$work/funnel$dx.json 150 funnel$dx"; done
  echo "$root/scenes/icloth_sphere.json 120 sphere"
  echo "$root/scenes/icloth_twisting.json 120 twisting"
  echo "$root/scenes/icloth_scarf.json 120 scarf"
  echo "$root/scenes/hanging_sheet.json 300 hanging --solver icloth"
  echo "$root/scenes/sheet_on_ground.json 300 ground --solver icloth"
} >"$work/jobs"

export OMP_NUM_THREADS=1 cli work
extra="$*"
export extra
xargs -P2 -L1 sh -c '"$cli" run --scene "$0" --frames "$1" --stats "$work/$2.csv" $3 $4 $extra >/dev/null 2>&1 ||
                     echo "failed: $2" >&2' <"$work/jobs"

python3 - "$work" <<'PY'
import csv, sys
work = sys.argv[1]
print(f"{'run':12s} {'strain':>7s} {'impacts':>8s} {'PCG/fr':>7s} {'ms/fr':>7s} {'beyond/bound':>13s}")
for line in open(f"{work}/jobs"):
    name = line.split()[2]
    rows = list(csv.DictReader(open(f"{work}/{name}.csv")))
    col = lambda k: [float(r.get(k) or 0) for r in rows]
    bound, beyond = sum(col("pair friction bound")), sum(col("pair friction beyond coulomb"))
    ratio = f"{beyond / bound:.2f}" if bound > 0 else "-"
    print(f"{name:12s} {max(col('max_strain')):7.3f} {sum(col('impacts')):8.0f} "
          f"{sum(col('cg iterations')) / len(rows):7.0f} {sum(col('step_ms')) / len(rows):7.1f} {ratio:>13s}")
PY
