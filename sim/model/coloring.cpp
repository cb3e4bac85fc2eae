#include "sim/model/coloring.h"

#include <cstdint>

namespace cb {

Coloring greedy_coloring(const std::vector<int32_t>& elem_verts, int arity, size_t nverts) {
  const size_t n = elem_verts.size() / size_t(arity);
  // per vertex: bit mask of colours already used by its elements (64 colours per
  // word; more words added on demand)
  std::vector<std::vector<uint64_t>> used(nverts);
  std::vector<int> color(n, 0);
  int ncolors = 0;
  for (size_t e = 0; e < n; ++e) {
    const int32_t* v = &elem_verts[e * size_t(arity)];
    int c = 0;
    for (;; ++c) {
      size_t w = size_t(c) / 64;
      uint64_t bit = uint64_t(1) << (c % 64);
      bool free = true;
      for (int k = 0; k < arity && free; ++k)
        if (v[k] >= 0 && w < used[v[k]].size() && (used[v[k]][w] & bit)) free = false;
      if (free) break;
    }
    color[e] = c;
    ncolors = c + 1 > ncolors ? c + 1 : ncolors;
    for (int k = 0; k < arity; ++k) {
      if (v[k] < 0) continue;
      auto& u = used[v[k]];
      if (u.size() <= size_t(c) / 64) u.resize(size_t(c) / 64 + 1, 0);
      u[size_t(c) / 64] |= uint64_t(1) << (c % 64);
    }
  }
  Coloring out;
  out.color_start.assign(size_t(ncolors) + 1, 0);
  for (size_t e = 0; e < n; ++e) out.color_start[size_t(color[e]) + 1]++;
  for (int c = 0; c < ncolors; ++c) out.color_start[size_t(c) + 1] += out.color_start[size_t(c)];
  out.order.resize(n);
  std::vector<uint32_t> fill(out.color_start.begin(), out.color_start.end() - 1);
  for (size_t e = 0; e < n; ++e) out.order[fill[size_t(color[e])]++] = uint32_t(e);
  return out;
}

bool coloring_is_valid(const Coloring& c, const std::vector<int32_t>& elem_verts, int arity, size_t nverts) {
  std::vector<int> last(nverts, -1);
  size_t seen = 0;
  for (int col = 0; col < c.num_colors(); ++col)
    for (uint32_t k = c.color_start[size_t(col)]; k < c.color_start[size_t(col) + 1]; ++k, ++seen) {
      uint32_t e = c.order[k];
      for (int j = 0; j < arity; ++j) {
        int32_t v = elem_verts[size_t(e) * size_t(arity) + size_t(j)];
        if (v < 0) continue;
        if (last[size_t(v)] == col) return false;
        last[size_t(v)] = col;
      }
    }
  return seen == elem_verts.size() / size_t(arity);
}

}  // namespace cb
