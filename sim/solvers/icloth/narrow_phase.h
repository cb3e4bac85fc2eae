// Narrow phase of the I-Cloth penetration handling (Algorithm 1), on the backend:
// the candidate triangle pairs of the broad phase (collision_kernels.h) become
// their vertex-face (VF) and edge-edge (EE) feature pairs whose swept boxes
// (grown by the CCD separation) overlap — the others cannot come that close, so
// culling them changes no hit — without duplicates (sorted keys) and without the
// features of triangle pairs that were tangled at the start of the step; each feature gets an exact CCD with the minimum
// separation (collision core, ccd.h); only the hits come back to the host.
//
// Keys: VF = vertex << 32 | triangle; EE = edge a << 32 | edge b with a < b, the
// edge ids numbering the soup's unique edges in increasing (min vertex, max
// vertex) order, so that sorting either key sorts the features as the vertex ids
// would.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collision/ccd.h"
#include "sim/core/buffer.h"
#include "sim/core/math.h"

namespace cb::icloth {

/// A feature pair: VF {p, a, b, c} or EE {a0, a1, b0, b1} (soup vertex ids).
struct Feature {
  int32_t v[4];
  bool ee;
};

/// A feature pair whose CCD found a collision, with its time of impact in [0, 1].
struct FeatureHit {
  Feature f;
  double toi;
};

/// The soup as the narrow phase reads it (backend memory).
struct NarrowInput {
  const Vec3f* x0 = nullptr;        ///< (soup vertices) m, start of the step
  const Vec3f* x1 = nullptr;        ///< (soup vertices) m, end of the step
  const Int2* pairs = nullptr;      ///< (npairs) candidate triangle pairs, soup numbering
  size_t npairs = 0;
  const float* inv_mass = nullptr;  ///< (ncloth_verts) 0 = pinned; obstacle vertices are fixed
  int ncloth_verts = 0;
  double min_distance = 0;          ///< m, the CCD's minimum separation
  /// a query that hits the CCD's work cap is asked again with a smaller
  /// separation, down to touching (narrow_phase.cu, feature_ccd)
  bool relax_capped = false;
  /// with relax_capped, a query still capped is asked again on 2, 4 and 8
  /// pieces of the step (feature_ccd.h; the clamp's queries)
  bool split_capped = false;
};

class NarrowPhase {
 public:
  /// The soup's triangles (cloth, then obstacles; soup vertex ids): numbers the
  /// unique edges. Call when the soup's topology changes.
  void set_triangles(const Context& ctx, const std::vector<Int3>& tris);
  /// The features of these triangle pairs are skipped until the next call ({}: none).
  void set_skipped(const Context& ctx, const std::vector<Int2>& tri_pairs);
  /// Features of the candidate pairs, CCD on each; returns the hits, VF first, each
  /// kind in key order. Adds the features tested and the ones skipped to the counters.
  std::vector<FeatureHit> find(const Context& ctx, const NarrowInput& in, uint64_t* feature_tests,
                               uint64_t* skipped);
  size_t device_bytes() const;

 private:
  // host copies of the edge numbering (for set_skipped)
  std::vector<Int2> h_edges_;
  std::vector<Int3> h_tris_, h_tri_edges_;
  DeviceBuffer<Int3> tris_, tri_edges_;
  DeviceBuffer<Int2> edges_;
  DeviceBuffer<uint64_t> skip_vf_, skip_ee_;
  // scratch
  DeviceBuffer<uint64_t> vf_, ee_, keys_;
  DeviceBuffer<uint32_t> vf_off_, ee_off_;  ///< (npairs + 1) where each pair's culled keys go
  DeviceBuffer<Aabb> vbox_, ebox_;          ///< padded swept boxes of the soup's vertices and edges
  int nverts_ = 0;                          ///< soup vertices (the largest id in the triangles + 1)
  DeviceBuffer<uint32_t> values_, flags_, index_;
  DeviceBuffer<FeatureHit> hits_;   ///< (features) the CCD's answer per feature
  DeviceBuffer<FeatureHit> packed_; ///< the hits, packed
};

}  // namespace cb::icloth
