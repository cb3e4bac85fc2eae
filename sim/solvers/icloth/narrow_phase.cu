// Narrow phase of the I-Cloth penetration handling (see narrow_phase.h).
#include "sim/solvers/icloth/narrow_phase.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"
#include "sim/solvers/icloth/feature_ccd.h"

namespace cb::icloth {
namespace {

constexpr int kVfPerPair = 6;  // 3 vertices of each triangle against the other
constexpr int kEePerPair = 9;  // 3 x 3 edges
// m, added to the CCD separation when feature boxes are culled: more than the
// CCD's own tolerance (a hit is reported up to separation + sqrt 3 x 1e-6 apart)
constexpr float kCullSlack = 1e-5f;

CB_HD CB_INLINE uint64_t pack(uint32_t hi, uint32_t lo) { return (uint64_t(hi) << 32) | lo; }
CB_HD CB_INLINE uint32_t hi32(uint64_t k) { return uint32_t(k >> 32); }
CB_HD CB_INLINE uint32_t lo32(uint64_t k) { return uint32_t(k & 0xffffffffu); }

// The 6 VF and 9 EE keys of triangle pair p (host and device: one definition for
// the candidate pairs and for the skipped, tangled ones).
CB_HD CB_INLINE void pair_keys(Int2 p, const Int3* tris, const Int3* tri_edges, uint64_t* vf, uint64_t* ee) {
  const Int3 A = tris[p.a], B = tris[p.b], EA = tri_edges[p.a], EB = tri_edges[p.b];
  for (int k = 0; k < 3; ++k) {
    vf[k] = pack(uint32_t(A[k]), uint32_t(p.b));
    vf[3 + k] = pack(uint32_t(B[k]), uint32_t(p.a));
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const uint32_t a = uint32_t(EA[i]), b = uint32_t(EB[j]);
      ee[3 * i + j] = a < b ? pack(a, b) : pack(b, a);
    }
}

/// What the culled key pass reads (backend memory): the swept boxes of the
/// soup's vertices and unique edges over the step, grown by the CCD separation
/// and a tolerance (a triangle's box is the union of its vertices').
struct CullInput {
  const Aabb *vbox, *ebox;
  const Int3 *tris, *tri_edges;
};

// The keys of triangle pair p whose two features' swept boxes overlap (only
// those can come within the CCD's separation: the rest are never hits); writes
// them at vf / ee when non-null, returns the counts. Same keys, in the same
// order, as pair_keys minus the culled ones.
CB_HD CB_INLINE Int2 culled_pair_keys(Int2 p, const CullInput& in, uint64_t* vf, uint64_t* ee) {
  const Int3 A = in.tris[p.a], B = in.tris[p.b], EA = in.tri_edges[p.a], EB = in.tri_edges[p.b];
  const int ta[3] = {A.a, A.b, A.c}, tb[3] = {B.a, B.b, B.c};
  Aabb box_a = in.vbox[ta[0]], box_b = in.vbox[tb[0]];
  for (int k = 1; k < 3; ++k) {
    box_a.grow(in.vbox[ta[k]]);
    box_b.grow(in.vbox[tb[k]]);
  }
  int nvf = 0, nee = 0;
  for (int k = 0; k < 3; ++k)
    if (overlaps(in.vbox[ta[k]], box_b)) {
      if (vf) vf[nvf] = pack(uint32_t(ta[k]), uint32_t(p.b));
      ++nvf;
    }
  for (int k = 0; k < 3; ++k)
    if (overlaps(in.vbox[tb[k]], box_a)) {
      if (vf) vf[nvf] = pack(uint32_t(tb[k]), uint32_t(p.a));
      ++nvf;
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (overlaps(in.ebox[EA[i]], in.ebox[EB[j]])) {
        const uint32_t a = uint32_t(EA[i]), b = uint32_t(EB[j]);
        if (ee) ee[nee] = a < b ? pack(a, b) : pack(b, a);
        ++nee;
      }
  return Int2{nvf, nee};
}

// the padded swept boxes of every soup vertex and edge
void feature_boxes(const Context& ctx, const Vec3f* x0, const Vec3f* x1, int nverts, const Int2* edges, int nedges,
                   float pad, Aabb* vbox, Aabb* ebox) {
  parallel_for(ctx, nverts, [=] CB_HD(int v) {
    Aabb b;
    b.grow(x0[v]);
    b.grow(x1[v]);
    b.lo -= Vec3f{pad, pad, pad};
    b.hi += Vec3f{pad, pad, pad};
    vbox[v] = b;
  });
  parallel_for(ctx, nedges, [=] CB_HD(int e) {
    Aabb b = vbox[edges[e].a];
    b.grow(vbox[edges[e].b]);
    ebox[e] = b;
  });
}

CB_HD CB_INLINE bool in_sorted(const uint64_t* s, size_t n, uint64_t k) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (s[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && s[lo] == k;
}

// feature f of the sorted unique keys: VF keys [0, nvf), then EE keys
CB_HD CB_INLINE Feature feature_of(size_t f, const uint64_t* vf, size_t nvf, const uint64_t* ee, const Int3* tris,
                                   const Int2* edges) {
  Feature F;
  if (f < nvf) {
    const Int3 T = tris[lo32(vf[f])];
    F.v[0] = int32_t(hi32(vf[f]));
    F.v[1] = T.a, F.v[2] = T.b, F.v[3] = T.c;
    F.ee = false;
  } else {
    const uint64_t k = ee[f - nvf];
    const Int2 a = edges[hi32(k)], b = edges[lo32(k)];
    F.v[0] = a.a, F.v[1] = a.b, F.v[2] = b.a, F.v[3] = b.b;
    F.ee = true;
  }
  return F;
}

// grows a scratch buffer (contents are not kept); its size is a capacity
template <class T>
void reserve(const Context& ctx, DeviceBuffer<T>& b, size_t n) {
  if (b.size() < n || b.context().backend != ctx.backend) b.resize(ctx, std::max(n, b.size() + b.size() / 2));
}

// sorted, unique VF and EE keys of triangle pairs, on the host
void host_keys(const std::vector<Int2>& pairs, const std::vector<Int3>& tris, const std::vector<Int3>& tri_edges,
               std::vector<uint64_t>& vf, std::vector<uint64_t>& ee) {
  vf.resize(pairs.size() * kVfPerPair);
  ee.resize(pairs.size() * kEePerPair);
  for (size_t i = 0; i < pairs.size(); ++i)
    pair_keys(pairs[i], tris.data(), tri_edges.data(), &vf[i * kVfPerPair], &ee[i * kEePerPair]);
  for (auto* k : {&vf, &ee}) {
    std::sort(k->begin(), k->end());
    k->erase(std::unique(k->begin(), k->end()), k->end());
  }
}

struct KeyScratch {
  DeviceBuffer<uint64_t>& keys;
  DeviceBuffer<uint32_t>& values;
  DeviceBuffer<uint32_t>& flags;
  DeviceBuffer<uint32_t>& index;
};

// sorts keys[0, n), keeps the first of each run that is not in `skip`; returns
// how many remain (at the front of keys) and adds the skipped ones to *skipped
// (scratch: sc.values, sc.flags, sc.index, sc.keys of size >= n, grown here)
size_t unique_features(const Context& ctx, DeviceBuffer<uint64_t>& keys, size_t n, const DeviceBuffer<uint64_t>& skip,
                       uint64_t* skipped, KeyScratch& sc) {
  if (n == 0) return 0;
  reserve(ctx, sc.values, n);
  reserve(ctx, sc.flags, n);
  reserve(ctx, sc.index, n);
  reserve(ctx, sc.keys, n);
  sort_by_key(ctx, keys.data(), sc.values.data(), n);
  const uint64_t* k = keys.data();
  const uint64_t* sk = skip.data();
  const size_t ns = skip.size();
  uint32_t* flags = sc.flags.data();
  if (ns) {
    parallel_for(ctx, int(n), [=] CB_HD(int i) {
      flags[i] = (i == 0 || k[i] != k[i - 1]) && in_sorted(sk, ns, k[i]);
    });
    *skipped += compact_indices(ctx, flags, sc.index.data(), n);
  }
  parallel_for(ctx, int(n), [=] CB_HD(int i) {
    flags[i] = (i == 0 || k[i] != k[i - 1]) && !(ns && in_sorted(sk, ns, k[i]));
  });
  const size_t m = compact_indices(ctx, flags, sc.index.data(), n);
  const uint32_t* idx = sc.index.data();
  uint64_t* out = sc.keys.data();
  parallel_for(ctx, int(m), [=] CB_HD(int j) { out[j] = k[idx[j]]; });
  keys.swap(sc.keys);
  return m;
}

}  // namespace

void NarrowPhase::set_triangles(const Context& ctx, const std::vector<Int3>& tris) {
  // every triangle edge as (min << 32 | max, 3 t + k), sorted: runs are edges
  std::vector<std::pair<uint64_t, uint32_t>> e;
  e.reserve(3 * tris.size());
  for (size_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = uint32_t(tris[t][k]), b = uint32_t(tris[t][(k + 1) % 3]);
      e.push_back({a < b ? pack(a, b) : pack(b, a), uint32_t(3 * t + size_t(k))});
    }
  std::sort(e.begin(), e.end());
  h_edges_.clear();
  std::vector<int32_t> id(e.size());  // edge id of triangle edge 3 t + k
  for (size_t i = 0; i < e.size(); ++i) {
    if (i == 0 || e[i].first != e[i - 1].first) h_edges_.push_back({int32_t(hi32(e[i].first)), int32_t(lo32(e[i].first))});
    id[e[i].second] = int32_t(h_edges_.size() - 1);
  }
  h_tri_edges_.resize(tris.size());
  for (size_t t = 0; t < tris.size(); ++t) h_tri_edges_[t] = Int3{id[3 * t], id[3 * t + 1], id[3 * t + 2]};
  h_tris_ = tris;
  nverts_ = 0;
  for (const Int3& t : tris) nverts_ = std::max({nverts_, t.a + 1, t.b + 1, t.c + 1});
  tris_.upload(ctx, tris);
  tri_edges_.upload(ctx, h_tri_edges_);
  edges_.upload(ctx, h_edges_);
}

void NarrowPhase::set_skipped(const Context& ctx, const std::vector<Int2>& tri_pairs) {
  std::vector<uint64_t> vf, ee;
  if (!tri_pairs.empty()) host_keys(tri_pairs, h_tris_, h_tri_edges_, vf, ee);
  skip_vf_.upload(ctx, vf);
  skip_ee_.upload(ctx, ee);
}

std::vector<FeatureHit> NarrowPhase::find(const Context& ctx, const NarrowInput& in, uint64_t* feature_tests,
                                          uint64_t* skipped) {
  const size_t np = in.npairs;
  if (np == 0) return {};
  // the keys of the features whose swept boxes overlap: count, scan, write
  reserve(ctx, vbox_, size_t(nverts_));
  reserve(ctx, ebox_, edges_.size());
  feature_boxes(ctx, in.x0, in.x1, nverts_, edges_.data(), int(edges_.size()), float(in.min_distance) + kCullSlack,
                vbox_.data(), ebox_.data());
  const CullInput ci{vbox_.data(), ebox_.data(), tris_.data(), tri_edges_.data()};
  reserve(ctx, vf_off_, np + 1);
  reserve(ctx, ee_off_, np + 1);
  {
    const Int2* pairs = in.pairs;
    uint32_t *vo = vf_off_.data(), *eo = ee_off_.data();
    parallel_for(ctx, int(np) + 1, [=] CB_HD(int i) {
      const Int2 c = size_t(i) < np ? culled_pair_keys(pairs[i], ci, nullptr, nullptr) : Int2{0, 0};
      vo[i] = uint32_t(c.a);
      eo[i] = uint32_t(c.b);
    });
  }
  const std::array<uint32_t, 2> all = exclusive_scans(ctx, vf_off_.data(), ee_off_.data(), np + 1);
  const size_t nvf_all = all[0], nee_all = all[1];
  reserve(ctx, vf_, std::max<size_t>(nvf_all, 1));
  reserve(ctx, ee_, std::max<size_t>(nee_all, 1));
  {
    const Int2* pairs = in.pairs;
    const uint32_t *vo = vf_off_.data(), *eo = ee_off_.data();
    uint64_t *vf = vf_.data(), *ee = ee_.data();
    parallel_for(ctx, int(np), [=] CB_HD(int i) { culled_pair_keys(pairs[i], ci, vf + vo[i], ee + eo[i]); });
  }
  KeyScratch sc{keys_, values_, flags_, index_};
  const size_t nvf = unique_features(ctx, vf_, nvf_all, skip_vf_, skipped, sc);
  const size_t nee = unique_features(ctx, ee_, nee_all, skip_ee_, skipped, sc);
  const size_t nf = nvf + nee;
  *feature_tests += nf;
  if (nf == 0) return {};
  // CCD of every feature: flags = hit, toi into the hits' scratch by feature id
  reserve(ctx, flags_, nf);
  reserve(ctx, index_, nf);
  reserve(ctx, hits_, nf);
  {
    const uint64_t *vf = vf_.data(), *ee = ee_.data();
    const Int3* tris = tris_.data();
    const Int2* edges = edges_.data();
    const Vec3f *x0 = in.x0, *x1 = in.x1;
    const float* w = in.inv_mass;
    const int nc = in.ncloth_verts;
    const bool relax = in.relax_capped, split = in.split_capped;
    CcdOptions opt;
    opt.min_distance = in.min_distance;
    uint32_t* hit = flags_.data();
    FeatureHit* out = hits_.data();
    parallel_for(ctx, int(nf), [=] CB_HD(int f) {
      const Feature F = feature_of(size_t(f), vf, nvf, ee, tris, edges);
      hit[f] = 0;
      bool all_fixed = true;
      Vec3d a[4], b[4];
      for (int k = 0; k < 4; ++k) {
        all_fixed = all_fixed && (F.v[k] >= nc || w[F.v[k]] == 0.f);
        a[k] = Vec3d(x0[F.v[k]]);
        b[k] = Vec3d(x1[F.v[k]]);
      }
      if (all_fixed) return;
      const CcdResult r = feature_ccd(F.ee, a, b, opt, relax, split);
      hit[f] = r.hit ? 1u : 0u;
      out[f] = FeatureHit{F, r.toi};
    });
  }
  const size_t nh = compact_indices(ctx, flags_.data(), index_.data(), nf);
  if (nh == 0) return {};
  reserve(ctx, packed_, nh);
  {
    const uint32_t* idx = index_.data();
    const FeatureHit* all = hits_.data();
    FeatureHit* out = packed_.data();
    parallel_for(ctx, int(nh), [=] CB_HD(int j) { out[j] = all[idx[j]]; });
  }
  std::vector<FeatureHit> h(nh);
  detail::buffer_copy_to_host(ctx, h.data(), packed_.data(), nh * sizeof(FeatureHit));
  return h;
}

size_t NarrowPhase::device_bytes() const {
  return tris_.bytes() + tri_edges_.bytes() + edges_.bytes() + skip_vf_.bytes() + skip_ee_.bytes() + vf_.bytes() +
         ee_.bytes() + keys_.bytes() + values_.bytes() + flags_.bytes() + index_.bytes() + hits_.bytes() +
         packed_.bytes() + vf_off_.bytes() + ee_off_.bytes() + vbox_.bytes() + ebox_.bytes();
}

}  // namespace cb::icloth
