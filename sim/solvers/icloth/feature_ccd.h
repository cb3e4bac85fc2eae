// The narrow phase's CCD of one feature pair (narrow_phase.cu): the exact CCD
// of sim/collision/ccd.h with the minimum separation, and what the penetration
// handling does where that query cannot answer (a pair that starts within the
// separation; a query that runs into its work cap).
#pragma once

#include <cmath>

#include "sim/collision/ccd.h"
#include "sim/collision/proximity.h"
#include "sim/core/hd.h"

namespace cb::icloth {

// distance of the feature pair at its start positions x0 ({p,a,b,c} or {a0,a1,b0,b1})
CB_HD CB_INLINE double start_distance(bool ee, const Vec3d* x0) {
  if (ee) return sqrt(closest_points_segments(x0[0], x0[1], x0[2], x0[3]).dist2);
  return sqrt(closest_point_triangle(x0[0], x0[1], x0[2], x0[3]).dist2);
}

// CCD with the minimum separation opt.min_distance, except for a pair that
// starts that close (a state this solver did not make: another solver's, a user
// edit, the end of a tangled step): such a pair would be an impact at t = 0
// whatever the end positions, one no zone can resolve. The CCD reports pairs up
// to separation + sqrt 3 tolerance apart (its boxes are accepted once narrower
// than the tolerance per coordinate), so pairs starting closer than
// sqrt 3 (separation + tolerance) are checked against a third of their start
// distance instead, which is clear at t = 0: they may not come closer than that,
// so they still never touch, and their zones push them out to the thickness.
CB_HD inline CcdResult separation_ccd(bool ee, const Vec3d* a, const Vec3d* b, const CcdOptions& opt) {
  CcdResult r = ee ? ccd_edge_edge(a, b, opt) : ccd_vertex_face(a, b, opt);
  if (!r.hit || opt.min_distance <= 0) return r;
  const double d0 = start_distance(ee, a);
  if (d0 >= 1.7320508 * (opt.min_distance + opt.tolerance) || d0 < 1e-7) return r;
  CcdOptions near = opt;
  near.min_distance = d0 / 3;
  return ee ? ccd_edge_edge(a, b, near) : ccd_vertex_face(a, b, near);
}

// The pieces a still capped relaxed query's step is cut into, finest level
// (2, 4, then 8 pieces of the step).
constexpr int kSplitLevels = 3;

// separation_ccd over the pieces [t_i, t_i+1] of the step cut into n equal
// ones, scanned from the start: the first piece with a hit answers (its toi
// mapped back to the step). The pieces before it are clear, so a capped
// answer is still a lower bound, and it is t_i or later instead of 0.
CB_HD inline CcdResult pieces_ccd(bool ee, const Vec3d* a, const Vec3d* b, const CcdOptions& opt, int n) {
  CcdResult r;
  for (int i = 0; i < n; ++i) {
    const double t0 = double(i) / n, t1 = double(i + 1) / n;
    Vec3d p0[4], p1[4];
    for (int k = 0; k < 4; ++k) {
      p0[k] = a[k] + (b[k] - a[k]) * t0;
      p1[k] = a[k] + (b[k] - a[k]) * t1;
    }
    const CcdResult q = separation_ccd(ee, p0, p1, opt);
    r.boxes += q.boxes;
    if (!q.hit) continue;
    r.hit = true;
    r.capped = q.capped;
    r.toi = t0 + q.toi * (t1 - t0);
    return r;
  }
  return r;
}

// separation_ccd; with `relax`, a query that runs into the CCD's work cap is
// asked again at a quarter of the separation, then at a sixteenth, then for
// touching alone, and the first answer that is not capped stands. A capped
// answer is a hit at the start of the earliest box left, often t = 0 for a pair
// sliding past another within a few separations (the Euclidean test needs fine
// boxes there): toi 0, and a step clamped to it does not move at all.
CB_HD inline CcdResult feature_ccd(bool ee, const Vec3d* a, const Vec3d* b, const CcdOptions& opt, bool relax,
                                   bool split = false) {
  CcdResult r = separation_ccd(ee, a, b, opt);
  CcdOptions o = opt;
  for (int k = 0; relax && r.capped && o.min_distance > 0; ++k) {
    o.min_distance = k < 2 ? 0.25 * o.min_distance : 0.0;
    r = separation_ccd(ee, a, b, o);
  }
  // with `split` (the clamp), still capped: a long motion whose boxes stay
  // too wide, e.g. a vertex of a stretched, folded sheet passing its
  // neighbouring triangle (capped at t = 0, which froze a tangled hand-over:
  // every step clamped to its start, RESULTS.md, twentieth session). Shorter
  // pieces of the step have narrower boxes; the first answer that is not
  // capped stands, else the latest lower bound.
  for (int level = 1; relax && split && r.capped && level <= kSplitLevels; ++level) {
    const CcdResult q = pieces_ccd(ee, a, b, opt, 1 << level);
    if (!q.capped || q.toi > r.toi) r = q;
  }
  return r;
}

}  // namespace cb::icloth
