// Cloth-cloth proximity pairs and their velocity filter, with Coulomb friction
// (see repulsion.h); the pairs' springs in the solve: pair_springs.cu.
#include "sim/solvers/icloth/repulsion.h"

#include <algorithm>
#include <cmath>

#include "sim/collision/proximity.h"
#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb::icloth {
namespace {

/// Incidence entries per chunk on the GPU (see Runs).
constexpr uint32_t kGpuChunk = 8;

CB_HD inline float max4(const float* a, Int4 v) {
  float m = a[v.a] > a[v.b] ? a[v.a] : a[v.b];
  m = m > a[v.c] ? m : a[v.c];
  return m > a[v.d] ? m : a[v.d];
}

CB_HD inline float mean4(const float* a, Int4 v) { return 0.25f * (a[v.a] + a[v.b] + a[v.c] + a[v.d]); }

// fills p.n / p.overlap (D - distance, < 0 for a pair ahead) from the separation
// vector d (sum w_k x_k) and a fallback direction for touching features; false
// when the pair is not closer than the search distance Ds (D, or D plus the reach
// ahead)
CB_HD inline bool finish_pair(ProxPair& p, Vec3f d, Vec3f fallback, float D, float Ds) {
  float dist = length(d);
  if (!(dist < Ds)) return false;
  if (dist > 1e-3f * D) {
    p.n = d / dist;
  } else {
    float lf = length(fallback);
    if (!(lf > 0.f)) return false;  // touching and no direction: left to the CCD
    p.n = fallback / lf;
    if (dot(p.n, d) < 0.f) p.n = -p.n;
  }
  p.overlap = D - dist;
  p.reach = D;
  return true;
}

// Below this |cos| between the features' normal and the pair's normal n, a pair
// gets no spring in the solve (an edge-on contact: the filter alone serves it).
constexpr float kSpringMinCos = 0.5f;
// Edges closer to parallel than this sine have no normal of their own.
constexpr float kParallelSine = 0.2f;

// The direction of the pair's spring in the solve: the features' normal fn (VF:
// the triangle's; EE: the cross product of the edges), unit, on n's side, or 0
// when fn is degenerate (parallel edges: |fn| below 0.2 |e1||e2|, 11.5 degrees)
// or more than 60 degrees off n. Not n itself: n points between the closest
// points, and for a vertex beside a triangle or edges that end short of each
// other it leans along the surfaces. A spring that stiff (gamma D / h^2,
// ClothRepulsion::springs) along a direction leaning by theta resists sliding
// with k sin^2 theta: 5 degrees of lean held a sheet sliding on another.
// Two flat sheets have their normal as fn for every pair, and slide freely.
CB_HD inline Vec3f spring_direction(Vec3f n, Vec3f fn, float min_len) {
  const float l = length(fn);
  if (!(l > min_len) || !(l > 0.f)) return Vec3f{0, 0, 0};
  const float c = dot(fn, n) / l;
  if (fabsf(c) < kSpringMinCos) return Vec3f{0, 0, 0};
  return fn * ((c > 0.f ? 1.f : -1.f) / l);
}

// True when the triangle's closest point r to vertex v lies on an edge (or a
// corner) that v spans a triangle with: across[k] is the vertex across the
// triangle's edge k (opposite its vertex k) in the neighbouring triangle, -1 at
// a border or a non-manifold edge. Then the pair's distance is the height of v's
// own triangle over that edge, squashed below the proximity distance: the membrane's business,
// not a contact between two layers, and the pair gets no spring in the solve
// (the filter alone serves it, as an edge-on contact). In the skirt's
// compressed folds such a spring, 10 times the pair's diagonal, and its lagged
// friction (the pair's inverse mass 1 / m is ~10^8 times its compliance in A
// there, so the drag flipped between 10^6 and 10^-6 N s/m from round to round)
// stretched the squashed triangle to 1.67 times its rest length in one step.
// Dropping the pair altogether let such triangles collapse into the CCD
// (impacts 10-100x). RESULTS.md, seventh session.
CB_HD inline bool own_triangle_edge(int v, const PointTriResult<float>& r, Int3 across) {
  for (int k = 0; k < 3; ++k)
    if (r.w[k] <= 0.f && across[k] == v) return true;  // on edge k (or a corner of it)
  return false;
}

CB_HD inline bool vf_pair(const Vec3f* x, const Int3* tris, const Int3* across, Int2 c, const float* th,
                          const float* fr, float scale, float ahead, ProxPair& p) {
  const Int3 t = tris[c.b];
  p.v = Int4{c.a, t.a, t.b, t.c};
  PointTriResult<float> r = closest_point_triangle(x[c.a], x[t.a], x[t.b], x[t.c]);
  p.w[0] = 1.f;
  for (int k = 0; k < 3; ++k) p.w[k + 1] = -r.w[k];
  p.mu = mean4(fr, p.v);
  const Vec3f fn = cross(x[t.b] - x[t.a], x[t.c] - x[t.a]);
  const float thick = max4(th, p.v);
  if (!finish_pair(p, x[c.a] - r.point, fn, scale * thick, (scale + ahead) * thick)) return false;
  p.sn = own_triangle_edge(c.a, r, across[c.b]) ? Vec3f{0, 0, 0} : spring_direction(p.n, fn, 0.f);
  return true;
}

CB_HD inline bool ee_pair(const Vec3f* x, const Int2* edges, Int2 c, const float* th, const float* fr, float scale,
                          float ahead, ProxPair& p) {
  const Int2 e1 = edges[c.a], e2 = edges[c.b];
  p.v = Int4{e1.a, e1.b, e2.a, e2.b};
  SegSegResult<float> r = closest_points_segments(x[e1.a], x[e1.b], x[e2.a], x[e2.b]);
  p.w[0] = 1.f - r.s;
  p.w[1] = r.s;
  p.w[2] = r.t - 1.f;
  p.w[3] = -r.t;
  p.mu = mean4(fr, p.v);
  const Vec3f a = x[e1.b] - x[e1.a], b = x[e2.b] - x[e2.a], fn = cross(a, b);
  const float thick = max4(th, p.v);
  if (!finish_pair(p, r.c1 - r.c2, fn, scale * thick, (scale + ahead) * thick)) return false;
  p.sn = spring_direction(p.n, fn, kParallelSine * length(a) * length(b));
  return true;
}

struct NarrowArgs {
  const Vec3f* x;
  const float* thickness;
  const float* friction;
  float scale, ahead;
  const Vec3f* rest;       ///< (nverts) or null: no rest filter
  const uint32_t* piece;   ///< (nverts)
  const uint8_t* limited;  ///< (pieces) the pieces the rest filter applies to; null: every piece
  const Int3* across;      ///< (ntris) the vertex across each edge (own_triangle_edge)
};

// Fraction of a pair's rest distance below which features of one piece that
// are closer than D at rest count as a contact.
constexpr float kRestFraction = 0.9f;

// Distance (m) between the pair's features in the rest shape when they are of
// one piece the rest filter applies to; infinity otherwise or without a rest shape.
CB_HD inline float rest_distance(const NarrowArgs& a, const CcdMesh& m, bool vf, Int2 c) {
  constexpr float kFar = 3.0e38f;
  if (!a.rest) return kFar;
  if (vf) {
    const Int3 t = m.tris[c.b];
    if (a.piece[c.a] != a.piece[t.a] || (a.limited && !a.limited[a.piece[c.a]])) return kFar;
    const PointTriResult<float> r = closest_point_triangle(a.rest[c.a], a.rest[t.a], a.rest[t.b], a.rest[t.c]);
    return std::sqrt(r.dist2);
  }
  const Int2 e1 = m.edges[c.a], e2 = m.edges[c.b];
  if (a.piece[e1.a] != a.piece[e2.a] || (a.limited && !a.limited[a.piece[e1.a]])) return kFar;
  return std::sqrt(closest_points_segments(a.rest[e1.a], a.rest[e1.b], a.rest[e2.a], a.rest[e2.b]).dist2);
}

// Features of one piece closer than D at rest (on a mesh with edges shorter
// than D, a vertex and its own 2-ring) are held apart by the membrane, not by
// the repulsion: their proximity distance is lowered to kRestFraction times the
// rest distance, so that only a pair squeezed well below its rest distance is
// pushed. False when the pair drops out.
CB_HD inline bool rest_limited(const NarrowArgs& a, const CcdMesh& m, bool vf, Int2 c, ProxPair& p) {
  const float d_rest = rest_distance(a, m, vf, c);
  if (!(d_rest < p.reach)) return true;
  const float dist = p.reach - p.overlap, reach = kRestFraction * d_rest;
  if (!(dist < reach)) return false;
  p.overlap = reach - dist;
  p.reach = reach;
  return true;
}

// narrow phase over the candidates (VF first, then EE) into all / flags
void narrow_phase(const Context& ctx, const CcdMesh& m, const CcdCandidates& c, const NarrowArgs& a, ProxPair* all,
                  uint32_t* flags) {
  const Int2* vf = c.vf.data();
  const Int2* ee = c.ee.data();
  const int nvf = int(c.vf.size()), n = nvf + int(c.ee.size());
  parallel_for(ctx, n, [=] CB_HD(int i) {
    ProxPair p;
    bool keep = i < nvf ? vf_pair(a.x, m.tris, a.across, vf[i], a.thickness, a.friction, a.scale, a.ahead, p)
                        : ee_pair(a.x, m.edges, ee[i - nvf], a.thickness, a.friction, a.scale, a.ahead, p);
    if (keep) keep = rest_limited(a, m, i < nvf, i < nvf ? vf[i] : ee[i - nvf], p);
    if (keep) keep = p.overlap > 0.f || dot(p.sn, p.sn) > 0.f;  // a pair ahead serves only as a spring
    if (keep) all[i] = p;  // only the kept are gathered: ~9 in 10 candidates write 4 bytes, not 76
    flags[i] = keep ? 1u : 0u;
  });
}

void gather_pairs(const Context& ctx, const ProxPair* all, const uint32_t* keep, int n, ProxPair* out) {
  parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = all[keep[i]]; });
}

struct PassArgs {
  const ProxPair* pairs;
  const Vec3f* v;
  const float* inv_mass;
  float h, rate;
};

// the velocity change of each pair corner for the current velocities; *unmet:
// the normal velocity misses the target by more than 1% of D per step
CB_HD inline bool pair_impulse(const PassArgs& a, int i, Vec3f* dv, bool* unmet) {
  const ProxPair p = a.pairs[i];
  *unmet = false;
  if (!(p.overlap > 0.f)) return false;  // a pair ahead: a spring in the solve only
  const int vid[4] = {p.v.a, p.v.b, p.v.c, p.v.d};
  const Vec3f vrel = pair_sum(p, a.v);
  const float s = pair_inverse_mass(p, a.inv_mass);
  const float vn = dot(vrel, p.n), target = a.rate * p.overlap / a.h;
  const float dvn = target - vn;
  *unmet = dvn > 0.01f * p.reach / a.h && s > 0.f;
  if (!(dvn > 0.f) || !(s > 0.f)) return false;
  Vec3f change = p.n * dvn;  // wanted change of the relative velocity
  const Vec3f vt = vrel - p.n * vn;
  const float lt = length(vt);
  if (lt > 0.f) change -= vt * (fminf(p.mu * dvn, lt) / lt);
  for (int k = 0; k < 4; ++k) dv[k] = change * (p.w[k] * a.inv_mass[vid[k]] / s);
  return true;
}

// the corner velocity changes and active flags of the pairs ids[0..nf) (dv and
// active indexed by pair id); counts the unmet pairs into st (a pass after the
// one that found none writes no impulse)
void pair_pass(const Context& ctx, const PassArgs& a, const uint32_t* ids, int nf, Vec3f* dv, uint32_t* active,
               RepulsionPassState* st, RowsSumScratch& scratch) {
  rows_sum(ctx, nf, [=] CB_HD(int j) {
    const uint32_t i = ids[j];
    Vec3f d[4];
    bool u = false;
    const bool on = !st->done && pair_impulse(a, int(i), d, &u);
    for (int k = 0; k < 4; ++k) dv[4 * i + k] = on ? d[k] : Vec3f{};
    active[i] = on ? 1u : 0u;
    return u ? 1.f : 0.f;
  }, [=] CB_HD(double unmet) {
    if (st->done) return;
    if (st->calls++ == 0) st->first_unmet = unmet;
    st->last_unmet = unmet;
    if (unmet < 0.5) st->done = 1;
    else st->passes++;
  }, scratch);
}

// The incidence list: entries 4 p + k (pair p, corner k) sorted by vertex, one
// run per vertex, each run cut into chunks of at most `chunk` entries. A vertex
// in many pairs (sheets stacked in a fold: hundreds) would otherwise make one GPU
// thread walk its whole run while the rest wait; per-chunk partial sums, then
// per-run sums of the chunks, keep every thread's loop short. (On the CPU a run is
// one chunk, so the sums are those of a plain loop over the run.)
struct Runs {
  const uint32_t* vert;         ///< (nruns) vertex of each run
  const uint32_t* chunk_off;    ///< (nruns + 1) run r's chunks
  const uint32_t* chunk_start;  ///< (nchunks + 1) chunk c's entries: [chunk_start[c], chunk_start[c + 1])
  const uint32_t* entry;        ///< (nentries) 4 p + k
  int nruns, nchunks;
};

// run r's chunks: chunk_off (exclusive scan of the chunk counts) and chunk starts
void cut_runs(const Context& ctx, const uint32_t* run_start, int nruns, uint32_t nentries, uint32_t chunk,
              uint32_t* chunk_off, uint32_t* chunk_start, size_t* nchunks) {
  parallel_for(ctx, nruns + 1, [=] CB_HD(int r) {
    const uint32_t end = r + 1 < nruns ? run_start[r + 1] : nentries;
    chunk_off[r] = r < nruns ? (end - run_start[r] + chunk - 1) / chunk : 0u;
  });
  *nchunks = exclusive_scan(ctx, chunk_off, chunk_off, size_t(nruns) + 1);
  parallel_for(ctx, nruns, [=] CB_HD(int r) {
    const uint32_t end = r + 1 < nruns ? run_start[r + 1] : nentries;
    uint32_t c = chunk_off[r];
    for (uint32_t e = run_start[r]; e < end; e += chunk) chunk_start[c++] = e;
    if (r == nruns - 1) chunk_start[c] = nentries;
  });
}

// Sums over each run's entries: add(acc, k) adds entry k to its chunk's acc
// (from T{}), then each run's chunk sums are added in order, the first one
// starting the run's, and out(r, sum) receives run r's.
template <class T, class Add, class Out>
void sum_runs(const Context& ctx, const Runs& R, T* chunk_sum, Add add, Out out) {
  parallel_for(ctx, R.nchunks, [=] CB_HD(int c) {
    T acc{};
    for (uint32_t k = R.chunk_start[c]; k < R.chunk_start[c + 1]; ++k) add(acc, k);
    chunk_sum[c] = acc;
  });
  parallel_for(ctx, R.nruns, [=] CB_HD(int r) {
    const uint32_t c0 = R.chunk_off[r], c1 = R.chunk_off[r + 1];
    T sum = chunk_sum[c0];
    for (uint32_t c = c0 + 1; c < c1; ++c) sum += chunk_sum[c];
    out(r, sum);
  });
}

// sum_runs' per-entry and per-run steps of count_active and vertex_pass, as
// functors: called once per incidence entry, a CB_HD lambda's indirect call on
// the CPU cost more than its body (parallel.h)
struct AddActive {
  const uint32_t *active, *entry;
  CB_HD void operator()(uint32_t& n, uint32_t k) const { n += active[entry[k] / 4]; }
};
struct StoreCount {
  const uint32_t* vert;
  uint32_t* count;
  CB_HD void operator()(int r, uint32_t n) const { count[vert[r]] = n; }
};
struct AddShare {  // a pair corner's velocity change over the pair's divisor
  const uint32_t* entry;
  const float* div;
  const Vec3f* dv;
  CB_HD void operator()(Vec3f& sum, uint32_t k) const {
    const uint32_t e = entry[k];
    const float d = div[e / 4];
    if (d != 0.f) sum += dv[e] / d;
  }
};
struct AddToVelocity {
  const uint32_t* vert;
  const float* inv_mass;
  Vec3f* v;
  CB_HD void operator()(int r, Vec3f sum) const {
    if (inv_mass[vert[r]] != 0.f) v[vert[r]] += sum;
  }
};

// per vertex: the number of active pairs it is in
void count_active(const Context& ctx, const Runs& R, const uint32_t* active, uint32_t* chunk_count, uint32_t* count) {
  sum_runs(ctx, R, chunk_count, AddActive{active, R.entry}, StoreCount{R.vert, count});
}

// per pair ids[0..nf): the divisor of its impulses, the largest active count
// among its free vertices (at least 1), or 0 when the pair is not active. One
// divisor per pair keeps every pair's impulses summing to zero (momentum is
// conserved).
void pair_divisors(const Context& ctx, const ProxPair* pairs, const uint32_t* ids, int nf, const uint32_t* active,
                   const uint32_t* count, const float* inv_mass, float* div) {
  parallel_for(ctx, nf, [=] CB_HD(int j) {
    const uint32_t p = ids[j];
    if (!active[p]) {
      div[p] = 0.f;
      return;
    }
    const Int4 q = pairs[p].v;
    const int id[4] = {q.a, q.b, q.c, q.d};
    uint32_t m = 1;
    for (int j = 0; j < 4; ++j)
      if (inv_mass[id[j]] != 0.f && count[id[j]] > m) m = count[id[j]];
    div[p] = float(m);
  });
}

// per vertex: the sum of its active pairs' changes, each divided by the pair's
// divisor
void vertex_pass(const Context& ctx, const Runs& R, const Vec3f* dv, const float* div, const float* inv_mass,
                 Vec3f* chunk_sum, Vec3f* v) {
  sum_runs(ctx, R, chunk_sum, AddShare{R.entry, div, dv}, AddToVelocity{R.vert, inv_mass, v});
}

// flag[p] = 1 where pair p overlaps (a filter pair), 0 for a pair ahead
void flag_overlapping(const Context& ctx, const ProxPair* pairs, size_t np, uint32_t* flag) {
  parallel_for(ctx, int(np), [=] CB_HD(int p) { flag[p] = pairs[p].overlap > 0.f ? 1u : 0u; });
}

// per triangle, the vertex across each of its edges (edge k opposite vertex k)
// in the other triangle on that edge, -1 at a border or a non-manifold edge:
// the bending pairs' opposite vertices (bends[i].c lies in edge_tris[e].a,
// bends[i].d in edge_tris[e].b, e = bend_edge[i])
std::vector<Int3> vertices_across_edges(const std::vector<Int3>& tris, const Topology& topo) {
  std::vector<Int3> across(tris.size(), Int3{-1, -1, -1});
  auto set = [&](int32_t t, uint32_t e, int32_t v) {
    Int3& a = across[size_t(t)];
    const Int3 te = topo.tri_edges[size_t(t)];
    (te.a == int32_t(e) ? a.a : te.b == int32_t(e) ? a.b : a.c) = v;
  };
  for (size_t i = 0; i < topo.bends.size(); ++i) {
    const uint32_t e = topo.bend_edge[i];
    set(topo.edge_tris[e].a, e, topo.bends[i].d);
    set(topo.edge_tris[e].b, e, topo.bends[i].c);
  }
  return across;
}

}  // namespace

void sorted_incidence(const Context& ctx, const ProxPair* pairs, const uint32_t* ids, size_t n, uint32_t* vert,
                      uint32_t* entry) {
  if (n == 0) return;
  parallel_for(ctx, int(4 * n), [=] CB_HD(int e) {
    const uint32_t p = ids[e / 4];
    vert[e] = uint32_t(pair_vertex(pairs[p], e % 4));
    entry[e] = 4 * p + uint32_t(e % 4);
  });
  sort_by_key(ctx, vert, entry, 4 * n);
}

void ClothRepulsion::set_cloth(const Context& ctx, size_t nverts, const std::vector<Int3>& tris, const Topology& topo) {
  topo_.upload(ctx, nverts, tris, topo);
  across_.upload(ctx, vertices_across_edges(tris, topo));
  count_.resize(ctx, nverts);
}

void ClothRepulsion::set_limited_pieces(const Context& ctx, const std::vector<uint8_t>& limited) {
  limited_.upload(ctx, limited);
  any_limited_ = std::any_of(limited.begin(), limited.end(), [](uint8_t f) { return f != 0; });
}

void ClothRepulsion::set_rest(const Context& ctx, const std::vector<Vec3f>& rest, const std::vector<uint32_t>& piece) {
  rest_.upload(ctx, rest);
  piece_.upload(ctx, piece);
}

size_t ClothRepulsion::find(const Context& ctx, const Vec3f* x, const float* thickness, const float* friction,
                            float max_thickness, const RepulsionSettings& s) {
  const CcdMesh m = topo_.view();
  find_ccd_candidates(ctx, x, x, m, 0.5f * (s.scale + s.ahead) * max_thickness, 0.f, cand_);
  const size_t n = cand_.vf.size() + cand_.ee.size();
  candidates_ = n;
  springs_on_ = false;
  spring_count_ = 0;  // none listed until springs(): the rounds then count 0
  all_.resize(ctx, n);
  flags_.resize(ctx, n);
  keep_.resize(ctx, n);
  const bool limit = (s.rest_limit || any_limited_) && !rest_.empty();
  const NarrowArgs args{x,       thickness,     friction,
                        s.scale, s.ahead,       limit ? rest_.data() : nullptr,
                        piece_.data(), s.rest_limit ? nullptr : limited_.data(), across_.data()};
  narrow_phase(ctx, m, cand_, args, all_.data(), flags_.data());
  const size_t np = n ? compact_indices(ctx, flags_.data(), keep_.data(), n) : 0;
  pairs_.resize(ctx, np);
  gather_pairs(ctx, all_.data(), keep_.data(), int(np), pairs_.data());
  nruns_ = nchunks_ = nfilter_ = 0;
  if (np) list_filter_pairs(ctx);
  dv_.resize(ctx, 4 * np);
  active_.resize(ctx, np);
  div_.resize(ctx, np);
  chunk_count_.resize(ctx, nchunks_);
  chunk_sum_.resize(ctx, nchunks_);
  state_.resize(ctx, 1);  // zeroed: no pass yet
  return np;
}

// The filter's pairs are those that overlap (overlap > 0): the others, pairs
// ahead, are springs in the solve only and never get an impulse (pair_impulse),
// but they are most of the list, and each pass read them all (the funnel's
// stacked frames: 58^2 sheets ~14,000 pairs, ~600 overlapping; 183^2 sheets
// ~700,000, ~27,000; RESULTS.md, thirty-sixth session). Its incidence is in
// the order the incidence of every pair had (by vertex, then by entry), so each
// vertex's sum adds the same impulses in the same order as over the full list
// (on the CPU, bit for bit; on CUDA the chunks' bounds move).
void ClothRepulsion::list_filter_pairs(const Context& ctx) {
  const size_t np = pairs_.size();
  uint32_t* pair_flag = flags_.data();  // (candidates >= np) free after gather_pairs
  flag_overlapping(ctx, pairs_.data(), np, pair_flag);
  filter_pairs_.resize(ctx, np);
  nfilter_ = compact_indices(ctx, pair_flag, filter_pairs_.data(), np);
  if (nfilter_ == 0) return;
  const size_t nf = 4 * nfilter_;
  filter_entry_.resize(ctx, nf);
  filter_vert_.resize(ctx, nf);
  sorted_incidence(ctx, pairs_.data(), filter_pairs_.data(), nfilter_, filter_vert_.data(), filter_entry_.data());
  run_vert_.resize(ctx, nf);
  run_start_.resize(ctx, nf);
  nruns_ = run_starts(ctx, filter_vert_.data(), nf, run_vert_.data(), run_start_.data());
  chunk_off_.resize(ctx, nruns_ + 1);
  chunk_start_.resize(ctx, nf + 1);
  const uint32_t chunk = ctx.is_cuda() ? kGpuChunk : uint32_t(nf);
  cut_runs(ctx, run_start_.data(), int(nruns_), uint32_t(nf), chunk, chunk_off_.data(), chunk_start_.data(),
           &nchunks_);
}

void ClothRepulsion::launch_pass(const Context& ctx, Vec3f* v, const float* inv_mass, float h,
                                 const RepulsionSettings& s) {
  const int nf = int(nfilter_);
  if (nf == 0) return;
  const uint32_t* ids = filter_pairs_.data();
  pair_pass(ctx, PassArgs{pairs_.data(), v, inv_mass, h, s.rate}, ids, nf, dv_.data(), active_.data(), state_.data(),
            unmet_sum_);
  const Runs R{run_vert_.data(), chunk_off_.data(), chunk_start_.data(), filter_entry_.data(), int(nruns_),
               int(nchunks_)};
  count_active(ctx, R, active_.data(), chunk_count_.data(), count_.data());
  pair_divisors(ctx, pairs_.data(), ids, nf, active_.data(), count_.data(), inv_mass, div_.data());
  vertex_pass(ctx, R, dv_.data(), div_.data(), inv_mass, chunk_sum_.data(), v);
}

ClothRepulsion::Progress ClothRepulsion::progress() const {
  Progress p;
  if (nfilter_ == 0) {  // no pair overlaps: nothing to filter
    p.converged = true;
    return p;
  }
  const RepulsionPassState st = state_.to_host()[0];
  p.converged = st.done != 0;
  p.passes = st.passes;
  p.first_unmet = size_t(st.first_unmet + 0.5);
  p.last_unmet = size_t(st.last_unmet + 0.5);
  return p;
}

size_t ClothRepulsion::device_bytes() const {
  return cand_.tri_pairs.bytes() + cand_.vf.bytes() + cand_.ee.bytes() + all_.bytes() + pairs_.bytes() +
         flags_.bytes() + keep_.bytes() + run_vert_.bytes() + run_start_.bytes() +
         dv_.bytes() + active_.bytes() + count_.bytes() +
         state_.bytes() + unmet_sum_.bytes() + chunk_off_.bytes() + chunk_start_.bytes() + div_.bytes() +
         chunk_count_.bytes() + chunk_sum_.bytes() + spring_k_.bytes() + spring_c_.bytes() +
         friction_sums_.bytes() + friction_sum_.bytes() +
         spring_scratch_.bytes() + across_.bytes() + spring_entry_.bytes() + spring_vert_.bytes() +
         spring_list_.bytes() + spring_slot_.bytes() + spring_t_.bytes() + spring_off_.bytes() +
         flag_sum_.bytes() + filter_pairs_.bytes() + filter_entry_.bytes() + filter_vert_.bytes();
}

}  // namespace cb::icloth
