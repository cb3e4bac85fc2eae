// Penetration counter: the number of intersecting triangle pairs within a cloth,
// between cloths and between cloth and obstacles (exact triangle–triangle test,
// tri_tri.h, behind the spatial-hash broad phase of box_pairs.h). Triangles of the
// cloth that share a vertex id are adjacent and never counted; obstacle–obstacle
// pairs are not tested. Used by `clothbox-cli check`, World stats and tests.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/backend.h"
#include "sim/core/math.h"

namespace cb {

/// A triangle set in backend memory.
struct TriSet {
  const Vec3f* x = nullptr;             ///< (nverts) m
  const Int3* tris = nullptr;           ///< (ntris) vertex ids into x
  int ntris = 0;
  const uint32_t* tri_group = nullptr;  ///< (ntris) cloth piece of each triangle; null = one piece
};

struct IntersectionCounts {
  uint64_t within_cloth = 0;    ///< pairs inside one cloth piece (self-intersections)
  uint64_t between_cloths = 0;  ///< pairs from two different cloth pieces
  uint64_t cloth_obstacle = 0;  ///< cloth triangle against obstacle triangle
  uint64_t candidates = 0;      ///< broad-phase pairs tested
  uint64_t total() const { return within_cloth + between_cloths + cloth_obstacle; }
};

/// Counts intersecting pairs. Pair ids in `pairs` (optional, host) number cloth
/// triangles [0, ncloth) and obstacle triangles ncloth + j; each pair (i < j) once.
IntersectionCounts count_intersections(const Context& ctx, const TriSet& cloth, const TriSet& obstacle,
                                       std::vector<Int2>* pairs = nullptr);

/// Connected components of a triangle mesh (triangles sharing a vertex id), as
/// a group id per triangle (host helper for meshes read from files).
std::vector<uint32_t> triangle_components(size_t nverts, const std::vector<Int3>& tris);

}  // namespace cb
