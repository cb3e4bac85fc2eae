// The neighbours of an impact zone follow it (see zone_followers.h).
#include "sim/solvers/icloth/zone_followers.h"

#include <utility>

namespace cb::icloth {

namespace {

// One sweep over a ring: free vertices outside `fixed` with an edge from a
// `front` vertex longer than allowed move by the mean of their corrections
// (Jacobi), and are added to `moved` the first time. slot: (nverts) scratch, -1
// everywhere on entry and on return. Returns whether any vertex moved.
bool sweep_ring(const std::vector<int>& front, const Csr& ring1, const std::vector<Vec3f>& x_free,
                const std::vector<float>& inv_mass, float limit, const std::vector<uint8_t>& fixed,
                std::vector<int>& slot, std::vector<uint8_t>& seen, std::vector<int>& moved, std::vector<Vec3f>& x1) {
  std::vector<int> ids;
  std::vector<Vec3f> shift;  // m, summed corrections of ids[i]
  std::vector<int> count;
  for (int v : front)
    for (uint32_t k = ring1.offsets[size_t(v)]; k < ring1.offsets[size_t(v) + 1]; ++k) {
      const size_t u = ring1.indices[k];
      if (fixed[u] || inv_mass[u] == 0.f) continue;
      const float allowed = (1.f + limit) * length(x_free[u] - x_free[size_t(v)]);
      const Vec3f e = x1[u] - x1[size_t(v)];
      const float l = length(e);
      if (!(l > allowed)) continue;
      if (slot[u] < 0) {
        slot[u] = int(ids.size());
        ids.push_back(int(u));
        shift.emplace_back();
        count.push_back(0);
      }
      shift[size_t(slot[u])] += e * ((allowed - l) / l);
      count[size_t(slot[u])]++;
    }
  for (size_t i = 0; i < ids.size(); ++i) {
    const size_t u = size_t(ids[i]);
    x1[u] += shift[i] / float(count[i]);
    slot[u] = -1;
    if (!seen[u]) {
      seen[u] = 1;
      moved.push_back(int(u));
    }
  }
  return !ids.empty();
}

}  // namespace

std::vector<int> follow_zones(const std::vector<std::vector<int>>& zone_verts, const Csr& ring1,
                              const std::vector<Vec3f>& x_free, const std::vector<float>& inv_mass, float limit,
                              std::vector<Vec3f>& x1) {
  std::vector<uint8_t> fixed(x1.size(), 0), seen(x1.size(), 0);
  std::vector<int> slot(x1.size(), -1), front;
  for (const std::vector<int>& zone : zone_verts)
    for (int v : zone) {
      fixed[size_t(v)] = 1;
      front.push_back(v);
    }
  std::vector<int> all;
  for (int ring = 0; ring < kMaxFollowRings && !front.empty(); ++ring) {
    std::vector<int> moved;  // this ring's followers, in the order they first moved
    for (int sweep = 0; sweep < kRingSweeps; ++sweep)
      if (!sweep_ring(front, ring1, x_free, inv_mass, limit, fixed, slot, seen, moved, x1)) break;
    for (int u : moved) fixed[size_t(u)] = 1;
    all.insert(all.end(), moved.begin(), moved.end());
    front = std::move(moved);
  }
  return all;
}

}  // namespace cb::icloth
