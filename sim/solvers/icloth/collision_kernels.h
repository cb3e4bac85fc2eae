// Broad phase of the I-Cloth penetration handling (Algorithm 1): swept boxes of
// the cloth and obstacle triangles over the step and their overlapping pairs from
// the collision core's spatial hash (box_pairs.h), filtered for adjacency and,
// in incremental rounds, to pairs with at least one triangle in T_d.
#pragma once

#include <cstdint>

#include "sim/core/buffer.h"
#include "sim/core/math.h"

namespace cb::icloth {

/// The combined triangle soup: cloth triangles [0, ncloth), obstacle triangles
/// after them; vertex ids in `tris` index the combined position arrays.
struct SweptSoup {
  const Vec3f* x0 = nullptr;   ///< (nverts) m, start of the step
  const Vec3f* x1 = nullptr;   ///< (nverts) m, end of the step
  const Int3* tris = nullptr;  ///< (ntris)
  int ntris = 0;
  int ncloth = 0;              ///< the first ncloth triangles are cloth
};

/// Boxes of each triangle at x0 and x1, grown by `margin` m. boxes: (ntris).
void swept_boxes(const Context& ctx, const SweptSoup& s, float margin, Aabb* boxes);

/// Overlapping pairs (i < j) of the soup's boxes, without triangles that share a
/// vertex, obstacle-obstacle pairs, cloth-cloth pairs when !self_collision, and
/// (when td is not null) pairs where neither triangle is flagged in td (ntris).
/// Returns the count (the pairs handed to the narrow phase).
size_t candidate_pairs(const Context& ctx, const SweptSoup& s, const Aabb* boxes, const uint8_t* td,
                       bool self_collision, DeviceBuffer<Int2>& out);

}  // namespace cb::icloth
