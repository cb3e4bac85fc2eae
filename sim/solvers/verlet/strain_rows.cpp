#include "sim/solvers/verlet/strain_rows.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

namespace cb {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
// A candidate's path length, as a fraction of the reach, at least this.
constexpr float kReachFrom = 0.75f;
// Two long constraints of a vertex point at least this far apart (cosine).
constexpr float kSpreadCos = 0.7f;

using Item = std::pair<float, uint32_t>;  // (path length m, vertex)

// Vertices first reached at path length >= kReachFrom x cut from `from`, in
// order of path length, the search stopped there. dist and touched are scratch
// (dist all infinite on entry and on return).
std::vector<Item> ring_at(const SpringLists& s, uint32_t from, float cut, std::vector<float>& dist,
                          std::vector<uint32_t>& touched) {
  std::vector<Item> found;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[from] = 0.f;
  touched.push_back(from);
  queue.push({0.f, from});
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d > dist[v]) continue;
    if (d >= kReachFrom * cut) {
      found.push_back({d, v});
      continue;
    }
    for (uint32_t e = s.offsets[v]; e < s.offsets[v + 1]; ++e) {
      if (s.kind[e] == kBend) continue;
      const uint32_t u = s.nbr[e];
      const float du = d + s.rest[e];
      if (du >= dist[u]) continue;
      if (dist[u] == kInfinity) touched.push_back(u);
      dist[u] = du;
      queue.push({du, u});
    }
  }
  // a vertex may have been queued before a shorter path reached it
  found.erase(std::remove_if(found.begin(), found.end(), [&](const Item& it) { return it.first > dist[it.second]; }),
              found.end());
  for (uint32_t v : touched) dist[v] = kInfinity;
  touched.clear();
  return found;
}

// Up to kLongConstraintsPerVertex of `ring`, nearest first, spread in direction.
std::vector<Item> spread(const std::vector<Item>& ring, const std::vector<Vec3f>& rest, uint32_t from) {
  std::vector<Item> picked;
  std::vector<Vec3f> dirs;
  for (const Item& it : ring) {
    const Vec3f d = rest[it.second] - rest[from];
    const float l = length(d);
    if (!(l > 0.f)) continue;
    const Vec3f u = d * (1.f / l);
    if (std::any_of(dirs.begin(), dirs.end(), [&](const Vec3f& o) { return dot(o, u) > kSpreadCos; })) continue;
    dirs.push_back(u);
    picked.push_back(it);
    if (int(picked.size()) == kLongConstraintsPerVertex) break;
  }
  return picked;
}

}  // namespace

StrainRows build_strain_rows(const SpringLists& s, const std::vector<Vec3f>& rest, float mean_length, int reach) {
  const size_t n = s.rows();
  // long constraints of each row (both directions), sorted and unique below
  std::vector<std::vector<Item>> extra(n);
  if (reach > 0 && mean_length > 0.f) {
    const float cut = float(reach) * mean_length;
    // each vertex's own picks, one search per vertex in parallel (7 s for a
    // million vertices on one core at reach 8), then both rows serially
    std::vector<std::vector<Item>> picks(n);
#pragma omp parallel
    {
      std::vector<float> dist(n, kInfinity);
      std::vector<uint32_t> touched;
#pragma omp for schedule(dynamic, 256)
      for (int64_t i = 0; i < int64_t(n); ++i)
        picks[size_t(i)] = spread(ring_at(s, uint32_t(i), cut, dist, touched), rest, uint32_t(i));
    }
    for (uint32_t i = 0; i < n; ++i)
      for (const Item& it : picks[i]) {
        extra[i].push_back(it);
        extra[it.second].push_back({it.first, i});
      }
  }
  StrainRows r;
  r.offsets.assign(n + 1, 0);
  r.long_begin.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e)
      if (s.kind[e] != kBend) r.nbr.push_back(s.nbr[e]), r.rest.push_back(s.rest[e]);
    r.long_begin[i] = uint32_t(r.nbr.size());
    std::vector<Item>& x = extra[i];
    std::sort(x.begin(), x.end(), [](const Item& a, const Item& b) { return a.second < b.second; });
    x.erase(std::unique(x.begin(), x.end(), [](const Item& a, const Item& b) { return a.second == b.second; }),
            x.end());
    for (const Item& it : x) r.nbr.push_back(it.second), r.rest.push_back(it.first);
    r.num_long += x.size();
    r.offsets[i + 1] = uint32_t(r.nbr.size());
  }
  return r;
}

}  // namespace cb
