// The PCG's coarse starting guess (see coarse_start.h).
#include "sim/solvers/icloth/coarse_start.h"

#include <algorithm>
#include <cmath>

#include "sim/core/parallel.h"

namespace cb::icloth {

namespace {

// w = A z; the row's z . w
struct ProductRow {
  SystemView a;
  const Vec3f* z;
  Vec3f* w;
  CB_HD float operator()(int i) const {
    const Vec3f wi = system_row(a, z, i);
    w[i] = wi;
    return dot(z[i], wi);
  }
};

// component k of v over the piece's rows
struct ComponentRow {
  const Vec3f* v;
  int first, k;
  CB_HD float operator()(int j) const { return v[first + j][k]; }
};

// d . v over the piece's rows
struct AlongRow {
  const Vec3f* v;
  int first;
  Vec3f d;
  CB_HD float operator()(int j) const { return dot(d, v[first + j]); }
};

// sums[slot] = S
struct StoreSum {
  double* sums;
  int slot;
  CB_HD void operator()(double s) const { sums[slot] = s; }
};

// z = d on the piece's free vertices, 0 elsewhere
struct ColumnRow {
  const float* inv_mass;
  int first, end;
  Vec3f d;
  Vec3f* z;
  CB_HD void operator()(int i) const { z[i] = i >= first && i < end && inv_mass[i] != 0.f ? d : Vec3f{}; }
};

// x += shift on the piece's free vertices
struct ShiftRow {
  const float* inv_mass;
  int first;
  Vec3f shift;
  Vec3f* x;
  CB_HD void operator()(int j) const {
    if (inv_mass[first + j] != 0.f) x[first + j] += shift;
  }
};

// solves the P x P symmetric system E c = g in place (Cholesky); false when E
// is not positive definite (c untouched then)
bool solve_spd(std::vector<double> E, int P, const std::vector<double>& g, std::vector<double>& c) {
  for (int j = 0; j < P; ++j) {
    double d = E[size_t(j * P + j)];
    for (int k = 0; k < j; ++k) d -= E[size_t(j * P + k)] * E[size_t(j * P + k)];
    if (!(d > 0)) return false;
    const double l = std::sqrt(d);
    E[size_t(j * P + j)] = l;
    for (int i = j + 1; i < P; ++i) {
      double s = E[size_t(i * P + j)];
      for (int k = 0; k < j; ++k) s -= E[size_t(i * P + k)] * E[size_t(j * P + k)];
      E[size_t(i * P + j)] = s / l;
    }
  }
  std::vector<double> y(size_t(P), 0.0);
  for (int i = 0; i < P; ++i) {
    double s = g[size_t(i)];
    for (int k = 0; k < i; ++k) s -= E[size_t(i * P + k)] * y[size_t(k)];
    y[size_t(i)] = s / E[size_t(i * P + i)];
  }
  c.assign(size_t(P), 0.0);
  for (int i = P - 1; i >= 0; --i) {
    double s = y[size_t(i)];
    for (int k = i + 1; k < P; ++k) s -= E[size_t(k * P + i)] * c[size_t(k)];
    c[size_t(i)] = s / E[size_t(i * P + i)];
  }
  return true;
}

}  // namespace

CoarseResult coarse_start(const Context& ctx, const SystemView& A, const Vec3f* r, Vec3f* x,
                          const std::vector<CoarsePiece>& pieces, CoarseScratch& s) {
  CoarseResult res;
  const int n = A.pat.nverts;
  const int np = int(std::min<size_t>(pieces.size(), kMaxCoarsePieces));
  if (n == 0 || np == 0) return res;
  s.z.resize(ctx, size_t(n));
  s.w.resize(ctx, size_t(n));
  s.sums.resize(ctx, size_t(3 * np + np * np));
  double* sums = s.sums.data();
  for (int p = 0; p < np; ++p)
    for (int k = 0; k < 3; ++k)
      rows_sum(ctx, pieces[size_t(p)].count, ComponentRow{r, pieces[size_t(p)].first, k}, StoreSum{sums, 3 * p + k},
               s.sum);
  std::vector<double> h = s.sums.to_host();
  // the directions, and g_p = d_p . (sum of r over the piece) = |that sum|
  std::vector<Vec3f> d(static_cast<size_t>(np));
  std::vector<int> used;  // pieces with a direction, in order
  std::vector<double> g;
  for (int p = 0; p < np; ++p) {
    const double sx = h[size_t(3 * p)], sy = h[size_t(3 * p + 1)], sz = h[size_t(3 * p + 2)];
    const double len = std::sqrt(sx * sx + sy * sy + sz * sz);
    if (!(len > 0) || !std::isfinite(len)) continue;
    d[size_t(p)] = Vec3f{float(sx / len), float(sy / len), float(sz / len)};
    used.push_back(p);
    g.push_back(len);
  }
  const int m = int(used.size());
  if (m == 0) return res;
  // E_pq = z_p . A z_q, column by column
  for (int b_col = 0; b_col < m; ++b_col) {
    const CoarsePiece& q = pieces[size_t(used[size_t(b_col)])];
    parallel_for(ctx, n, ColumnRow{A.inv_mass, q.first, q.first + q.count, d[size_t(used[size_t(b_col)])], s.z.data()});
    prepare_system_rows(ctx, A, s.z.data());
    rows_sum(ctx, n, ProductRow{A, s.z.data(), s.w.data()}, StoreSum{sums, b_col * m + b_col}, s.sum);
    for (int a_row = 0; a_row < m; ++a_row) {
      if (a_row == b_col) continue;
      const CoarsePiece& p = pieces[size_t(used[size_t(a_row)])];
      rows_sum(ctx, p.count, AlongRow{s.w.data(), p.first, d[size_t(used[size_t(a_row)])]},
               StoreSum{sums, a_row * m + b_col}, s.sum);
    }
  }
  h = s.sums.to_host();
  std::vector<double> E(h.begin(), h.begin() + m * m), c;
  for (int i = 0; i < m; ++i)  // symmetric in exact arithmetic: its mean
    for (int j = i + 1; j < m; ++j) E[size_t(i * m + j)] = E[size_t(j * m + i)] =
        0.5 * (E[size_t(i * m + j)] + E[size_t(j * m + i)]);
  if (!solve_spd(E, m, g, c)) return res;
  for (int k = 0; k < m; ++k) {
    const int p = used[size_t(k)];
    const Vec3f shift = d[size_t(p)] * float(c[size_t(k)]);
    parallel_for(ctx, pieces[size_t(p)].count, ShiftRow{A.inv_mass, pieces[size_t(p)].first, shift, x});
    res.a_norm_gain += g[size_t(k)] * c[size_t(k)];
  }
  res.pieces = m;
  return res;
}

}  // namespace cb::icloth
