// The multigrid hierarchy's structure on the host (see multigrid.h): aggregates,
// coarse patterns and the lists that form the Galerkin products.
#include <algorithm>
#include <numeric>

#include "sim/solvers/icloth/multigrid.h"

namespace cb::icloth {

std::vector<int32_t> aggregate_graph(const std::vector<uint32_t>& row_offsets, const std::vector<uint32_t>& cols,
                                     int* count) {
  const size_t n = row_offsets.empty() ? 0 : row_offsets.size() - 1;
  std::vector<int32_t> agg(n, -1);
  int k = 0;
  // phase 1: a node whose neighbours are all unassigned starts an aggregate with them
  for (size_t i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    bool free = true;
    for (uint32_t e = row_offsets[i]; e < row_offsets[i + 1] && free; ++e) free = agg[cols[e]] < 0;
    if (!free) continue;
    for (uint32_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e) agg[cols[e]] = k;
    agg[i] = k++;
  }
  // phase 2: the rest join the aggregate of their first assigned neighbour (one
  // from phase 1, so aggregates stay connected)
  std::vector<int32_t> joined = agg;
  for (size_t i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    for (uint32_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e)
      if (agg[cols[e]] >= 0) {
        joined[i] = agg[cols[e]];
        break;
      }
  }
  // phase 3: nodes with no assigned neighbour (isolated) get their own
  for (size_t i = 0; i < n; ++i)
    if (joined[i] < 0) joined[i] = k++;
  *count = k;
  return joined;
}

namespace {

// The coarse level's pattern and lists from the level below (CSR) and its aggregates.
MgLevelPattern coarsen(const std::vector<uint32_t>& row_offsets, const std::vector<uint32_t>& cols,
                       std::vector<int32_t> agg, int nc) {
  MgLevelPattern L;
  L.n = nc;
  const size_t n = row_offsets.size() - 1;
  // members of each aggregate
  L.member_off.assign(size_t(nc) + 1, 0);
  for (size_t i = 0; i < n; ++i) L.member_off[size_t(agg[i]) + 1]++;
  std::partial_sum(L.member_off.begin(), L.member_off.end(), L.member_off.begin());
  L.members.resize(n);
  std::vector<uint32_t> fill(L.member_off.begin(), L.member_off.end() - 1);
  for (size_t i = 0; i < n; ++i) L.members[fill[size_t(agg[i])]++] = uint32_t(i);
  // coarse pattern: the aggregates joined by some block below (sorted per row)
  std::vector<std::vector<uint32_t>> rows(static_cast<size_t>(nc));
  for (size_t i = 0; i < n; ++i)
    for (uint32_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e) rows[size_t(agg[i])].push_back(uint32_t(agg[cols[e]]));
  L.row_offsets.assign(size_t(nc) + 1, 0);
  for (size_t I = 0; I < size_t(nc); ++I) {
    std::vector<uint32_t>& r = rows[I];
    r.push_back(uint32_t(I));  // the diagonal, even for an aggregate coupled to nothing
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    L.row_offsets[I + 1] = L.row_offsets[I] + uint32_t(r.size());
  }
  L.cols.reserve(L.row_offsets.back());
  L.diag.resize(size_t(nc));
  for (size_t I = 0; I < size_t(nc); ++I) {
    for (uint32_t J : rows[I]) {
      if (J == I) L.diag[I] = uint32_t(L.cols.size());
      L.cols.push_back(J);
    }
  }
  // each block below goes to the coarse block of its aggregates
  auto coarse_block = [&](uint32_t I, uint32_t J) {
    const auto b = L.cols.begin() + std::ptrdiff_t(L.row_offsets[I]);
    const auto e = L.cols.begin() + std::ptrdiff_t(L.row_offsets[I + 1]);
    return uint32_t(std::lower_bound(b, e, J) - L.cols.begin());
  };
  std::vector<uint32_t> target(cols.size());
  L.contrib_off.assign(L.cols.size() + 1, 0);
  for (size_t i = 0; i < n; ++i)
    for (uint32_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e) {
      target[e] = coarse_block(uint32_t(agg[i]), uint32_t(agg[cols[e]]));
      L.contrib_off[target[e] + 1]++;
    }
  std::partial_sum(L.contrib_off.begin(), L.contrib_off.end(), L.contrib_off.begin());
  L.contrib.resize(cols.size());
  std::vector<uint32_t> at(L.contrib_off.begin(), L.contrib_off.end() - 1);
  for (size_t e = 0; e < cols.size(); ++e) L.contrib[at[target[e]]++] = uint32_t(e);
  L.agg = std::move(agg);
  return L;
}

}  // namespace

std::vector<MgLevelPattern> build_mg_levels(int n, const std::vector<uint32_t>& row_offsets,
                                            const std::vector<uint32_t>& cols, int coarsest, int max_levels) {
  std::vector<MgLevelPattern> levels;
  const std::vector<uint32_t>* ro = &row_offsets;
  const std::vector<uint32_t>* co = &cols;
  int size = n;
  while (size > coarsest && int(levels.size()) + 1 < max_levels) {
    int nc = 0;
    std::vector<int32_t> agg = aggregate_graph(*ro, *co, &nc);
    if (4 * nc > 3 * size) break;  // stalled: less than a quarter fewer nodes
    levels.push_back(coarsen(*ro, *co, std::move(agg), nc));
    ro = &levels.back().row_offsets;
    co = &levels.back().cols;
    size = nc;
  }
  return levels;
}

}  // namespace cb::icloth
