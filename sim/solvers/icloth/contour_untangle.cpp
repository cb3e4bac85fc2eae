#include "sim/solvers/icloth/contour_untangle.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sim/collision/penetration.h"
#include "sim/model/topology.h"

namespace cb::icloth {
namespace {

// The soup: cloth vertices [0, ncloth), then the obstacle's; cloth triangles
// [0, ncloth_tris), then the obstacle's (the numbering of count_intersections).
struct Soup {
  const ContourInput& in;
  const std::vector<Vec3f>& x;
  size_t nverts() const { return x.size(); }
  size_t ncloth_tris() const { return in.cloth_tris->size(); }
  Int3 tri(int t) const {
    if (size_t(t) < ncloth_tris()) return (*in.cloth_tris)[size_t(t)];
    const Int3 o = (*in.obs_tris)[size_t(t) - ncloth_tris()];
    const int off = int(nverts());
    return Int3{o.a + off, o.b + off, o.c + off};
  }
  Vec3d at(int v) const {
    return size_t(v) < nverts() ? Vec3d(x[size_t(v)]) : Vec3d((*in.obs_x)[size_t(v) - nverts()]);
  }
  bool movable(int v) const { return size_t(v) < nverts() && (*in.inv_mass)[size_t(v)] > 0.f; }
};

// A contour point: edge (lo, hi) through triangle `tri` at lo + s (hi - lo),
// with barycentric weights w of the point in the triangle, and g, the gradient
// of the contours' length with respect to the point (unit vectors summed).
struct Point {
  int lo = 0, hi = 0, tri = 0;
  double s = 0;
  Vec3d w, p, g;
};

struct PointKey {
  int lo, hi, tri;
  bool operator==(const PointKey& o) const { return lo == o.lo && hi == o.hi && tri == o.tri; }
};
struct PointKeyHash {
  size_t operator()(const PointKey& k) const {
    uint64_t h = uint64_t(uint32_t(k.lo)) * 0x9E3779B97F4A7C15ull;
    h ^= uint64_t(uint32_t(k.hi)) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    h ^= uint64_t(uint32_t(k.tri)) + 0x94D049BB133111EBull + (h << 6) + (h >> 2);
    return size_t(h);
  }
};

// Where the edge (lo, hi) passes through the inside of triangle `tri`: false
// when it does not, or when it lies in the triangle's plane.
bool edge_through_tri(const Soup& soup, int lo, int hi, int tri, Point& out) {
  const Int3 t = soup.tri(tri);
  const Vec3d t0 = soup.at(t.a), t1 = soup.at(t.b), t2 = soup.at(t.c);
  const Vec3d a = soup.at(lo), b = soup.at(hi);
  const Vec3d n = cross(t1 - t0, t2 - t0);
  const double nn = dot(n, n);
  const double da = dot(n, a - t0), db = dot(n, b - t0);
  if (!(nn > 0) || da * db > 0 || da == db) return false;
  const double s = da / (da - db);
  const Vec3d p = a + s * (b - a);
  const double w0 = dot(n, cross(t1 - p, t2 - p)) / nn, w1 = dot(n, cross(t2 - p, t0 - p)) / nn;
  const double w2 = 1.0 - w0 - w1;
  if (w0 < 0 || w1 < 0 || w2 < 0) return false;
  out.lo = lo, out.hi = hi, out.tri = tri, out.s = s, out.w = Vec3d{w0, w1, w2}, out.p = p;
  return true;
}

// The (up to 2) ends of crossed pair (i, j)'s segment: edges of i through j, and of j through i.
int segment_ends(const Soup& soup, int i, int j, Point ends[2]) {
  int found = 0;
  for (int side = 0; side < 2; ++side) {
    const int e_tri = side == 0 ? i : j, f_tri = side == 0 ? j : i;
    const Int3 t = soup.tri(e_tri);
    for (int k = 0; k < 3; ++k) {
      const int u = t[k], v = t[(k + 1) % 3];
      Point p;
      if (!edge_through_tri(soup, std::min(u, v), std::max(u, v), f_tri, p)) continue;
      if (found == 2) return 3;  // through a vertex or an edge: no single segment
      ends[found++] = p;
    }
  }
  return found;
}

// Adds `dir` (unit, m per step) times `weight` to vertex v's average move.
void add_move(const Soup& soup, int v, const Vec3d& dir, double weight, std::vector<Vec3d>& sum,
              std::vector<double>& wsum) {
  if (!soup.movable(v) || !(weight > 0)) return;
  sum[size_t(v)] += weight * dir;
  wsum[size_t(v)] += weight;
}

// Point p's share of the descent: -G to the edge's vertices, +G to the triangle's.
void spread_point(const Soup& soup, const Point& p, std::vector<Vec3d>& sum, std::vector<double>& wsum) {
  const Int3 t = soup.tri(p.tri);
  const Vec3d t0 = soup.at(t.a);
  Vec3d n = cross(soup.at(t.b) - t0, soup.at(t.c) - t0);
  n = n / length(n);
  const Vec3d e = soup.at(p.hi) - soup.at(p.lo);
  const double ne = dot(n, e);
  if (!(std::fabs(ne) > 1e-12 * length(e))) return;
  const Vec3d G = p.g - (dot(p.g, e) / ne) * n;  // dL / d(edge's motion against the triangle)
  const double len = length(G);
  if (!(len > 0)) return;
  const Vec3d down = -(G / len);
  add_move(soup, p.lo, down, 1.0 - p.s, sum, wsum);
  add_move(soup, p.hi, down, p.s, sum, wsum);
  for (int k = 0; k < 3; ++k) add_move(soup, t[k], -down, p.w[k], sum, wsum);
}

// m: a crossed pair's segment shorter than this is a touch (below)
constexpr double kTouch = 1e-6;

// A pair the exact test counts as crossed but whose segment has no two ends in
// double precision, or two closer than kTouch: triangles that touch (a vertex
// on the other, edges through each other), a contour of length zero with no
// gradient. Each triangle moves off the other's plane, to the side its
// centroid is on. (On the Verlet fold handed over with 116 crossed pairs, the
// descent left 2 such pairs without this and cleared all with it, in 9
// iterations instead of 254.)
void spread_touch(const Soup& soup, const Int2& pr, std::vector<Vec3d>& sum, std::vector<double>& wsum) {
  const int t[2] = {pr.a, pr.b};
  Vec3d n[2], c[2];
  for (int k = 0; k < 2; ++k) {
    const Int3 T = soup.tri(t[k]);
    const Vec3d a = soup.at(T.a), b = soup.at(T.b), d = soup.at(T.c);
    n[k] = cross(b - a, d - a);
    c[k] = (a + b + d) / 3.0;
  }
  for (int k = 0; k < 2; ++k) {
    const double len = length(n[1 - k]);
    if (!(len > 0)) continue;
    const Vec3d away = n[1 - k] / len * (dot(n[1 - k], c[k] - c[1 - k]) < 0 ? -1.0 : 1.0);
    const Int3 T = soup.tri(t[k]);
    for (int i = 0; i < 3; ++i) add_move(soup, T[i], away, 1.0 / 3.0, sum, wsum);
  }
}

size_t crossed_pairs(const ContourInput& in, const std::vector<Vec3f>& x, std::vector<Int2>& pairs) {
  const TriSet cloth{x.data(), in.cloth_tris->data(), int(in.cloth_tris->size()),
                     in.tri_piece ? in.tri_piece->data() : nullptr};
  const bool obs = in.obs_x && in.obs_tris && !in.obs_tris->empty();
  const TriSet obst{obs ? in.obs_x->data() : nullptr, obs ? in.obs_tris->data() : nullptr,
                    obs ? int(in.obs_tris->size()) : 0, nullptr};
  pairs.clear();
  return size_t(count_intersections(Context{}, cloth, obst, &pairs).total());
}

}  // namespace

double contour_descent(const ContourInput& in, const std::vector<Vec3f>& x, std::vector<Vec3f>& grad,
                       size_t* npairs) {
  const Soup soup{in, x};
  std::vector<Int2> pairs;
  const size_t crossed = crossed_pairs(in, x, pairs);
  if (npairs) *npairs = crossed;
  std::vector<Point> points;
  std::unordered_map<PointKey, int, PointKeyHash> index;
  std::vector<Vec3d> sum(x.size());
  std::vector<double> wsum(x.size(), 0.0);
  double L = 0;
  for (const Int2& pr : pairs) {
    Point ends[2];
    if (segment_ends(soup, pr.a, pr.b, ends) != 2 || length(ends[0].p - ends[1].p) < kTouch) {
      spread_touch(soup, pr, sum, wsum);
      continue;
    }
    int id[2];
    for (int k = 0; k < 2; ++k) {
      const auto it = index.emplace(PointKey{ends[k].lo, ends[k].hi, ends[k].tri}, int(points.size()));
      if (it.second) points.push_back(ends[k]);
      id[k] = it.first->second;
    }
    const Vec3d d = points[size_t(id[0])].p - points[size_t(id[1])].p;
    const double len = length(d);
    L += len;
    if (!(len > 0)) continue;
    points[size_t(id[0])].g += d / len;  // d|Q0 - Q1| / dQ0
    points[size_t(id[1])].g -= d / len;
  }
  for (const Point& p : points) spread_point(soup, p, sum, wsum);
  grad.assign(x.size(), Vec3f{0, 0, 0});
  for (size_t v = 0; v < x.size(); ++v)
    if (wsum[v] > 0) grad[v] = Vec3f(sum[v] / std::max(wsum[v], 1.0));
  return L;
}

namespace {

// The movable cloth vertices of the crossed cloth triangles and `rings` rings around them.
std::vector<uint8_t> crumple_vertices(const ContourInput& in, const std::vector<Vec3f>& x, const Csr& ring1,
                                      int rings) {
  std::vector<Int2> pairs;
  crossed_pairs(in, x, pairs);
  std::vector<uint8_t> mark(x.size(), 0);
  for (const Int2& p : pairs)
    for (int t : {p.a, p.b})
      if (size_t(t) < in.cloth_tris->size())
        for (int k = 0; k < 3; ++k) mark[size_t((*in.cloth_tris)[size_t(t)][k])] = 1;
  for (int r = 0; r < rings; ++r) {
    std::vector<uint8_t> next = mark;
    for (size_t v = 0; v < x.size(); ++v)
      if (mark[v])
        for (uint32_t k = ring1.offsets[v]; k < ring1.offsets[v + 1]; ++k) next[ring1.indices[k]] = 1;
    mark.swap(next);
  }
  for (size_t v = 0; v < x.size(); ++v)
    if (!((*in.inv_mass)[v] > 0)) mark[v] = 0;
  return mark;
}

// Umbrella smoothing (Laplacian, half a step toward the neighbours' mean per
// iteration) of the vertices around the crossed triangles: it opens a crumple
// at the mesh's scale, which the descent flattens instead (contour_untangle.h).
void smooth_crumple(const ContourInput& in, const ContourSettings& s, std::vector<Vec3f>& x) {
  const Csr ring1 = build_topology(x.size(), *in.cloth_tris).ring1;
  const std::vector<uint8_t> mark = crumple_vertices(in, x, ring1, s.smooth_rings);
  std::vector<Vec3f> y = x;
  for (int it = 0; it < s.smooth_iterations; ++it) {
    for (size_t v = 0; v < x.size(); ++v) {
      if (!mark[v] || ring1.degree(v) == 0) continue;
      Vec3f mean{0, 0, 0};
      for (uint32_t k = ring1.offsets[v]; k < ring1.offsets[v + 1]; ++k) mean += x[ring1.indices[k]];
      mean = mean / float(ring1.degree(v));
      y[v] = x[v] + 0.5f * (mean - x[v]);
    }
    x.swap(y);
    y = x;
  }
}

// The fewest crossed pairs seen, the shortest contours among equals.
struct Best {
  std::vector<Vec3f> x;
  size_t pairs = 0;
  double length = 0;
  bool set = false;
  bool offer(const std::vector<Vec3f>& y, size_t p, double L) {
    const bool fewer = !set || p < pairs;
    if (fewer || (p == pairs && L < length)) x = y, pairs = p, length = L, set = true;
    return fewer;
  }
};

// The descent on one problem (x in and out), as untangle_contours describes.
// A descent that is stuck starts again from its best state smoothed
// (smooth_crumple), at most s.smooth_tries times, and then with smaller steps.
ContourResult descend(const ContourInput& in, const ContourSettings& s, std::vector<Vec3f>& x) {
  ContourResult r;
  Best best, overall;  // this run's since the last smoothing, and over all runs
  std::vector<Vec3f> grad;
  int since_best = 0, smooths = 0;
  float step = s.step;
  for (int it = 0; it <= s.max_iterations; ++it) {
    size_t pairs = 0;
    const double L = contour_descent(in, x, grad, &pairs);
    if (it == 0) r.start_pairs = pairs, r.start_length = L;
    since_best = best.offer(x, pairs, L) ? 0 : since_best + 1;
    r.iterations = it;
    if (pairs == 0 || it == s.max_iterations) break;
    if (since_best > s.patience) {  // stuck: again from the best, smoothed or with smaller steps
      if (smooths < s.smooth_tries) {
        overall.offer(best.x, best.pairs, best.length);
        x = best.x;
        smooth_crumple(in, s, x);
        ++smooths, since_best = 0;
        best = Best{};
        continue;
      }
      if (step < s.step * (1.f / 16.f)) break;
      step *= 0.25f;
      since_best = 0;
      x = best.x;
      continue;
    }
    for (size_t v = 0; v < x.size(); ++v) x[v] += (in.max_move ? std::min(step, (*in.max_move)[v]) : step) * grad[v];
  }
  overall.offer(best.x, best.pairs, best.length);
  x = overall.x;
  r.end_pairs = overall.pairs;
  r.end_length = overall.length;
  r.smoothings = smooths;
  return r;
}

// The part of the problem around the tangle: the triangles with a vertex (cloth)
// or their box (obstacle) in the crossed triangles' box grown by `reach`, on
// vertices of their own; cloth vertices outside that box are held.
struct Region {
  std::vector<Int3> tris, obs_tris;
  std::vector<uint32_t> piece;
  std::vector<float> inv_mass, max_move;
  std::vector<Vec3f> x, obs_x;
  std::vector<int> cloth_id;  ///< (region cloth vertices) the cloth vertex each is
  ContourInput input() const {
    return ContourInput{&tris, &piece, &inv_mass, &obs_x, &obs_tris, max_move.empty() ? nullptr : &max_move};
  }
};

Region tangle_region(const ContourInput& in, const std::vector<Vec3f>& x, const std::vector<Int2>& pairs, float reach) {
  const Soup soup{in, x};
  Aabb box;
  for (const Int2& p : pairs)
    for (int t : {p.a, p.b})
      for (int k = 0; k < 3; ++k) box.grow(Vec3f(soup.at(soup.tri(t)[k])));
  box.lo -= Vec3f{reach, reach, reach};
  box.hi += Vec3f{reach, reach, reach};
  Region g;
  std::vector<int> id(x.size(), -1);
  const auto local = [&](int v) {
    if (id[size_t(v)] < 0) {
      id[size_t(v)] = int(g.x.size());
      g.x.push_back(x[size_t(v)]);
      g.cloth_id.push_back(v);
      g.inv_mass.push_back(box.contains(x[size_t(v)]) ? (*in.inv_mass)[size_t(v)] : 0.f);
      if (in.max_move) g.max_move.push_back((*in.max_move)[size_t(v)]);
    }
    return id[size_t(v)];
  };
  for (size_t t = 0; t < in.cloth_tris->size(); ++t) {
    const Int3 T = (*in.cloth_tris)[t];
    if (!box.contains(x[size_t(T.a)]) && !box.contains(x[size_t(T.b)]) && !box.contains(x[size_t(T.c)])) continue;
    g.tris.push_back(Int3{local(T.a), local(T.b), local(T.c)});
    g.piece.push_back(in.tri_piece ? (*in.tri_piece)[t] : 0u);
  }
  if (!in.obs_tris || !in.obs_x) return g;
  std::vector<int> oid(in.obs_x->size(), -1);
  for (const Int3& T : *in.obs_tris) {
    Aabb tb;
    for (int k = 0; k < 3; ++k) tb.grow((*in.obs_x)[size_t(T[k])]);
    if (!overlaps(tb, box)) continue;
    int L[3];
    for (int k = 0; k < 3; ++k) {
      int& o = oid[size_t(T[k])];
      if (o < 0) o = int(g.obs_x.size()), g.obs_x.push_back((*in.obs_x)[size_t(T[k])]);
      L[k] = o;
    }
    g.obs_tris.push_back(Int3{L[0], L[1], L[2]});
  }
  return g;
}

}  // namespace

ContourResult untangle_contours(const ContourInput& in, const ContourSettings& s, std::vector<Vec3f>& x) {
  ContourResult r;
  std::vector<Int2> pairs;
  r.start_pairs = r.end_pairs = crossed_pairs(in, x, pairs);
  if (pairs.empty()) return r;
  Region g = tangle_region(in, x, pairs, s.reach);
  ContourSettings capped = s;
  const size_t tris = std::max<size_t>(1, g.tris.size() + g.obs_tris.size());
  capped.max_iterations = int(std::min<size_t>(size_t(std::max(s.max_iterations, 0)), s.max_work / tris));
  const ContourResult part = descend(g.input(), capped, g.x);
  r.start_length = r.end_length = part.start_length;
  r.iterations = part.iterations;
  r.smoothings = part.smoothings;
  if (part.end_pairs >= part.start_pairs) return r;
  // the region's answer, checked on the whole (a moved triangle may reach past the region)
  std::vector<Vec3f> y = x;
  for (size_t v = 0; v < g.x.size(); ++v) y[size_t(g.cloth_id[v])] = g.x[v];
  const size_t after = crossed_pairs(in, y, pairs);
  if (after >= r.start_pairs) return r;
  x.swap(y);
  r.end_pairs = after;
  r.end_length = part.end_length;
  return r;
}

}  // namespace cb::icloth
