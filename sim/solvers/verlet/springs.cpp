#include "sim/solvers/verlet/springs.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace cb {
namespace {

struct Pair {
  uint32_t a, b;
  uint8_t kind;
};

// Lattice offsets (di, dj) with their kind; equilateral offsets depend on row parity.
void lattice_pairs(const ClothPiece& p, std::vector<Pair>& out) {
  const GridInfo& g = p.grid;
  auto add = [&](int i, int j, int di, int dj, uint8_t kind) {
    int i2 = i + di, j2 = j + dj;
    if (i2 < 0 || j2 < 0 || i2 >= g.nx || j2 >= g.ny) return;
    uint32_t a = p.first_vertex + uint32_t(j * g.nx + i), b = p.first_vertex + uint32_t(j2 * g.nx + i2);
    if (a < b) out.push_back({a, b, kind});
  };
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      if (g.layout == GridLayout::Quad) {
        for (int s : {-1, 1}) {
          add(i, j, s, 0, kStructural), add(i, j, 0, s, kStructural);
          add(i, j, s, -1, kShear), add(i, j, s, 1, kShear);
          add(i, j, 2 * s, 0, kBend), add(i, j, 0, 2 * s, kBend);
        }
        continue;
      }
      // equilateral: odd rows are shifted by +d/2; o = column offset to the
      // left-hand neighbour in the rows above and below
      const int o = (j & 1) ? 0 : -1;
      for (int s : {-1, 1}) {
        add(i, j, s, 0, kStructural);
        add(i, j, o, s, kStructural), add(i, j, o + 1, s, kStructural);
        add(i, j, 0, 2 * s, kShear);
        add(i, j, o - 1, s, kShear), add(i, j, o + 2, s, kShear);
        add(i, j, 2 * s, 0, kBend);
        add(i, j, -1, 2 * s, kBend), add(i, j, 1, 2 * s, kBend);
      }
    }
}

void topology_pairs(const ClothModel& m, const std::vector<uint8_t>& on_grid, std::vector<Pair>& out) {
  for (const Int2& e : m.topo.edges)
    if (!on_grid[uint32_t(e.a)]) out.push_back({uint32_t(e.a), uint32_t(e.b), kStructural});
  for (const Int4& b : m.topo.bends) {
    uint32_t c = uint32_t(b.c), d = uint32_t(b.d);
    if (c == d || on_grid[c]) continue;
    out.push_back({std::min(c, d), std::max(c, d), kBend});
  }
}

}  // namespace

SpringLists build_springs(const ClothModel& m) {
  const size_t n = m.num_vertices();
  std::vector<Pair> pairs;
  std::vector<uint8_t> on_grid(n, 0);
  for (const ClothPiece& p : m.pieces) {
    if (p.grid.layout == GridLayout::None || size_t(p.grid.nx) * size_t(p.grid.ny) != p.num_vertices) continue;
    lattice_pairs(p, pairs);
    std::fill(on_grid.begin() + p.first_vertex, on_grid.begin() + p.first_vertex + p.num_vertices, 1);
  }
  topology_pairs(m, on_grid, pairs);
  // dedupe (a, b) keeping the stiffest role (structural < shear < bend)
  std::sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) {
    return x.a != y.a ? x.a < y.a : (x.b != y.b ? x.b < y.b : x.kind < y.kind);
  });
  pairs.erase(std::unique(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.a == y.a && x.b == y.b; }),
              pairs.end());
  // both directions, grouped by row, neighbours increasing
  std::vector<std::vector<std::pair<uint32_t, uint8_t>>> rows(n);
  for (const Pair& p : pairs) {
    rows[p.a].push_back({p.b, p.kind});
    rows[p.b].push_back({p.a, p.kind});
  }
  SpringLists s;
  s.offsets.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    std::sort(rows[i].begin(), rows[i].end());
    s.offsets[i + 1] = s.offsets[i] + uint32_t(rows[i].size());
    for (const auto& e : rows[i]) {
      s.nbr.push_back(e.first);
      s.kind.push_back(e.second);
      s.rest.push_back(length(m.rest[e.first] - m.rest[i]));
    }
  }
  return s;
}

size_t spring_coefficients(const ClothModel& m, const SpringLists& s, const VerletParams& p, float h,
                           std::vector<float>* k, std::vector<float>* c) {
  const size_t n = s.rows(), nnz = s.nbr.size();
  k->assign(nnz, 0.f);
  c->assign(nnz, 0.f);
  // material mapping x scales
  for (size_t i = 0; i < n; ++i) {
    const Material& mat = m.material_of_vertex(uint32_t(i));
    const bool equi = m.pieces[m.vert_piece[i]].grid.layout == GridLayout::Equilateral;
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) {
      float L = std::max(s.rest[e], 1e-6f);
      switch (s.kind[e]) {
        case kStructural: (*k)[e] = mat.stretch_stiffness * p.stretch_scale * (equi ? 0.8660254f : 1.f); break;
        case kShear: (*k)[e] = mat.shear_stiffness * p.shear_scale; break;
        default: (*k)[e] = mat.bend_stiffness * p.bend_scale / (L * L); break;
      }
    }
  }
  // critical-fraction damping at full stiffness
  for (size_t i = 0; i < n; ++i)
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) {
      double mi = m.mass[i], mj = m.mass[s.nbr[e]];
      double mred = (mi > 0 && mj > 0) ? mi * mj / (mi + mj) : std::max(mi, mj);
      (*c)[e] = float(p.spring_damping * 2.0 * std::sqrt(double((*k)[e]) * mred));
    }
  // per-vertex softening f: scaling k by f scales c by sqrt(f); solve
  // A f + B sqrt(f) = 2 stability, A = h^2 w sum k, B = 2 h w sum c
  std::vector<double> soften(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    double sk = 0, sc = 0;
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) sk += (*k)[e], sc += (*c)[e];
    const double w = m.mass[i] > 0 ? 1.0 / m.mass[i] : 0.0, A = double(h) * h * w * sk, B = 2.0 * h * w * sc;
    const double budget = 2.0 * p.stability;
    if (A + B <= budget || A <= 0) continue;
    double r = (-B + std::sqrt(B * B + 4.0 * A * budget)) / (2.0 * A);
    soften[i] = r * r;
  }
  size_t softened = 0;
  for (size_t i = 0; i < n; ++i)
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) {
      double f = std::min(soften[i], soften[s.nbr[e]]);
      if (f >= 1.0) continue;
      softened++;
      (*k)[e] = float((*k)[e] * f);
      (*c)[e] = float((*c)[e] * std::sqrt(f));
    }
  return softened;
}

void nearest_pins(const SpringLists& s, const std::vector<uint8_t>& pinned, std::vector<int32_t>* anchor,
                  std::vector<float>* geodesic) {
  const size_t n = s.rows();
  anchor->assign(n, -1);
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (uint32_t v = 0; v < n; ++v)
    if (pinned[v]) {
      dist[v] = 0;
      (*anchor)[v] = int32_t(v);
      queue.push({0.0, v});
    }
  while (!queue.empty()) {
    auto [d, v] = queue.top();
    queue.pop();
    if (d > dist[v]) continue;
    for (uint32_t e = s.offsets[v]; e < s.offsets[v + 1]; ++e) {
      uint32_t u = s.nbr[e];
      double du = d + double(s.rest[e]);
      // ties go to the lower anchor id, so the result does not depend on queue order
      if (du < dist[u] || (du == dist[u] && (*anchor)[v] < (*anchor)[u])) {
        dist[u] = du;
        (*anchor)[u] = (*anchor)[v];
        queue.push({du, u});
      }
    }
  }
  geodesic->assign(n, 0.f);
  for (size_t v = 0; v < n; ++v) (*geodesic)[v] = (*anchor)[v] >= 0 ? float(dist[v]) : 0.f;
}

float mean_structural_length(const SpringLists& s) {
  double sum = 0;
  size_t cnt = 0;
  for (size_t e = 0; e < s.nbr.size(); ++e)
    if (s.kind[e] == kStructural) sum += s.rest[e], cnt++;
  return cnt ? float(sum / double(cnt)) : 0.f;
}

}  // namespace cb
