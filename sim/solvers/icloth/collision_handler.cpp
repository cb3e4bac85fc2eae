// Penetration handling of I-Cloth (see collision_handler.h).
#include "sim/solvers/icloth/collision_handler.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <numeric>
#include <set>

#include "sim/collision/ccd.h"
#include "sim/collision/penetration.h"
#include "sim/collision/proximity.h"
#include "sim/core/error.h"
#include "sim/solvers/icloth/collision_kernels.h"
#include "sim/solvers/icloth/mat3.h"

namespace cb::icloth {
namespace {

struct Feature {
  int32_t v[4];
  bool ee;
};

uint64_t edge_key(int a, int b) {
  return a < b ? (uint64_t(uint32_t(a)) << 32) | uint32_t(b) : (uint64_t(uint32_t(b)) << 32) | uint32_t(a);
}

using EeKey = std::pair<uint64_t, uint64_t>;

// sorted, unique keys of the VF (vertex << 32 | tri) and EE (edge key pair)
// features of triangle pairs
void feature_keys(const std::vector<Int2>& pairs, const std::vector<Int3>& tris, std::vector<uint64_t>& vf,
                  std::vector<EeKey>& ee) {
  vf.clear();
  ee.clear();
  for (const Int2& p : pairs) {
    const Int3 A = tris[size_t(p.a)], B = tris[size_t(p.b)];
    for (int s = 0; s < 2; ++s) {
      const Int3 P = s ? B : A;
      const int t = s ? p.a : p.b;
      for (int k = 0; k < 3; ++k) vf.push_back((uint64_t(uint32_t(P[k])) << 32) | uint32_t(t));
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        uint64_t ea = edge_key(A[i], A[(i + 1) % 3]), eb = edge_key(B[j], B[(j + 1) % 3]);
        ee.push_back(ea < eb ? std::make_pair(ea, eb) : std::make_pair(eb, ea));
      }
  }
  std::sort(vf.begin(), vf.end());
  vf.erase(std::unique(vf.begin(), vf.end()), vf.end());
  std::sort(ee.begin(), ee.end());
  ee.erase(std::unique(ee.begin(), ee.end()), ee.end());
}

// removes the keys found in the sorted list `skip`; returns how many
template <class K>
size_t remove_skipped(std::vector<K>& keys, const std::vector<K>& skip) {
  if (skip.empty()) return 0;
  const size_t before = keys.size();
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const K& k) { return std::binary_search(skip.begin(), skip.end(), k); }),
             keys.end());
  return before - keys.size();
}

// VF and EE features of the candidate triangle pairs, without duplicates and
// without the skipped ones (tangled at the start); *skipped counts those
std::vector<Feature> features(const std::vector<Int2>& pairs, const std::vector<Int3>& tris,
                              const std::vector<uint64_t>& skip_vf, const std::vector<EeKey>& skip_ee,
                              uint64_t* skipped) {
  std::vector<uint64_t> vf;
  std::vector<EeKey> ee;
  feature_keys(pairs, tris, vf, ee);
  *skipped += remove_skipped(vf, skip_vf) + remove_skipped(ee, skip_ee);
  std::vector<Feature> out;
  out.reserve(vf.size() + ee.size());
  for (uint64_t k : vf) {
    const Int3 T = tris[k & 0xffffffffu];
    out.push_back({{int32_t(k >> 32), T.a, T.b, T.c}, false});
  }
  for (const auto& k : ee)
    out.push_back({{int32_t(k.first >> 32), int32_t(k.first & 0xffffffffu), int32_t(k.second >> 32),
                    int32_t(k.second & 0xffffffffu)},
                   true});
  return out;
}

// distance of the feature pair at its start positions x0 ({p,a,b,c} or {a0,a1,b0,b1})
double start_distance(bool ee, const Vec3d* x0) {
  if (ee) return std::sqrt(closest_points_segments(x0[0], x0[1], x0[2], x0[3]).dist2);
  return std::sqrt(closest_point_triangle(x0[0], x0[1], x0[2], x0[3]).dist2);
}

// CCD with the minimum separation opt.min_distance, except for a pair that
// starts closer than that (a state this solver did not make: another solver's,
// a user edit, the end of a tangled step): such a pair would be an impact at
// t = 0 whatever the end positions, one no zone can resolve. It is checked
// against a third of its start distance instead (the separation is per axis,
// which is at least the distance / sqrt 3, so t = 0 is clear): it may not come
// closer than that, so it still never touches, and its zone pushes it out to
// the thickness.
CcdResult feature_ccd(bool ee, const Vec3d* a, const Vec3d* b, const CcdOptions& opt) {
  CcdResult r = ee ? ccd_edge_edge(a, b, opt) : ccd_vertex_face(a, b, opt);
  if (!r.hit || opt.min_distance <= 0) return r;
  const double d0 = start_distance(ee, a);
  if (d0 >= 1.7320508 * opt.min_distance || d0 < 1e-7) return r;
  CcdOptions near = opt;
  near.min_distance = d0 / 3;
  return ee ? ccd_edge_edge(a, b, near) : ccd_vertex_face(a, b, near);
}

// union-find over cloth vertices
struct Dsu {
  std::vector<int> p;
  explicit Dsu(size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int a) {
    while (p[size_t(a)] != a) a = p[size_t(a)] = p[size_t(p[size_t(a)])];
    return a;
  }
  void unite(int a, int b) { p[size_t(find(a))] = find(b); }
};

struct ZoneSet {
  std::vector<std::vector<int>> verts;     ///< free cloth vertices per zone
  std::vector<std::vector<int>> impacts;   ///< impact ids per zone
};

}  // namespace

void CollisionHandler::set_cloth(size_t nverts, const std::vector<Int3>& tris) {
  nverts_ = nverts;
  cloth_tris_ = tris;
  vert_tris_.assign(nverts, {});
  for (size_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) vert_tris_[size_t(tris[t][k])].push_back(uint32_t(t));
  htris_.clear();
}

void CollisionHandler::build_soup(const Context& ctx, const CollisionInput& in, const std::vector<Vec3f>& x1) {
  const size_t no = in.obs_x0 ? in.obs_x0->size() : 0, not_ = in.obs_tris ? in.obs_tris->size() : 0;
  hx0_.assign(in.x0->begin(), in.x0->end());
  hx1_.assign(x1.begin(), x1.end());
  if (no) {
    hx0_.insert(hx0_.end(), in.obs_x0->begin(), in.obs_x0->end());
    hx1_.insert(hx1_.end(), in.obs_x1->begin(), in.obs_x1->end());
  }
  if (htris_.size() != cloth_tris_.size() + not_) {
    htris_ = cloth_tris_;
    for (size_t t = 0; t < not_; ++t) {
      Int3 f = (*in.obs_tris)[t];
      htris_.push_back({f.a + int(nverts_), f.b + int(nverts_), f.c + int(nverts_)});
    }
    soup_tris_.upload(ctx, htris_);
  }
  soup_x0_.upload(ctx, hx0_);
  soup_x1_.upload(ctx, hx1_);
}

std::vector<Int2> CollisionHandler::find_tangles(const Context& ctx, const CollisionInput& in) {
  build_soup(ctx, in, *in.x0);
  const int nc = int(cloth_tris_.size());
  TriSet cloth{soup_x0_.data(), soup_tris_.data(), nc, nullptr};
  TriSet obst{soup_x0_.data(), soup_tris_.data() + nc, int(htris_.size()) - nc, nullptr};
  std::vector<Int2> pairs;
  count_intersections(ctx, cloth, obst, &pairs);
  return pairs;
}

void CollisionHandler::set_tangles(const std::vector<Int2>& pairs) {
  num_tangles_ = pairs.size();
  if (pairs.empty()) {
    skip_vf_.clear();
    skip_ee_.clear();
    return;
  }
  const std::vector<Int3>& tris = htris_.empty() ? cloth_tris_ : htris_;  // before the first soup: cloth only
  for (const Int2& p : pairs)
    if (size_t(p.a) >= tris.size() || size_t(p.b) >= tris.size()) throw Error("set_tangles: pair out of range");
  feature_keys(pairs, tris, skip_vf_, skip_ee_);
}

std::vector<Impact> CollisionHandler::detect(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                                             const std::vector<Vec3f>& x1, const std::vector<uint8_t>* td,
                                             CollisionStats* st) {
  build_soup(ctx, in, x1);
  float thick = 0.f;
  for (float t : *in.thickness) thick = std::max(thick, t);
  const float margin = s.ccd_margin * thick;
  SweptSoup soup{soup_x0_.data(), soup_x1_.data(), soup_tris_.data(), int(htris_.size()), int(cloth_tris_.size())};
  boxes_.resize(ctx, htris_.size());
  swept_boxes(ctx, soup, margin, boxes_.data());
  if (td) {
    std::vector<uint8_t> flags(*td);
    flags.resize(htris_.size(), 0);
    td_.upload(ctx, flags);
  }
  size_t np = candidate_pairs(ctx, soup, boxes_.data(), td ? td_.data() : nullptr, s.self_collision, pairs_);
  (td ? st->pairs_incremental : st->pairs_full) += np;
  std::vector<Int2> pairs = pairs_.to_host();
  std::vector<Feature> feats = features(pairs, htris_, skip_vf_, skip_ee_, &st->excluded);
  st->feature_tests += feats.size();
  // narrow phase: exact CCD with the minimum separation
  CcdOptions opt;
  opt.min_distance = margin;
  std::vector<uint8_t> hit(feats.size(), 0);
  std::vector<double> toi(feats.size(), 1.0);
  auto fixed = [&](int v) { return size_t(v) >= nverts_ || (*in.inv_mass)[size_t(v)] == 0.f; };
#pragma omp parallel for schedule(dynamic, 256)
  for (long long f = 0; f < (long long)feats.size(); ++f) {
    const Feature& F = feats[size_t(f)];
    if (fixed(F.v[0]) && fixed(F.v[1]) && fixed(F.v[2]) && fixed(F.v[3])) continue;
    Vec3d a[4], b[4];
    for (int k = 0; k < 4; ++k) {
      a[k] = Vec3d(hx0_[size_t(F.v[k])]);
      b[k] = Vec3d(hx1_[size_t(F.v[k])]);
    }
    CcdResult r = feature_ccd(F.ee, a, b, opt);
    hit[size_t(f)] = r.hit;
    toi[size_t(f)] = r.toi;
  }
  std::vector<Impact> out;
  for (size_t f = 0; f < feats.size(); ++f) {
    if (!hit[f]) continue;
    const Feature& F = feats[f];
    Vec3d a[4], b[4];
    float d = 0.f;
    for (int k = 0; k < 4; ++k) {
      a[k] = Vec3d(hx0_[size_t(F.v[k])]);
      b[k] = Vec3d(hx1_[size_t(F.v[k])]);
      if (size_t(F.v[k]) < nverts_) d = std::max(d, (*in.thickness)[size_t(F.v[k])]);
    }
    out.push_back(make_impact(F.ee, F.v, a, b, toi[f], d));
  }
  return out;
}

namespace {

ZoneSet build_zones(const std::vector<Impact>& imps, size_t nverts, const std::vector<float>& w) {
  Dsu dsu(nverts);
  auto free_v = [&](int v) { return size_t(v) < nverts && w[size_t(v)] != 0.f; };
  for (const Impact& im : imps) {
    int first = -1;
    for (int k = 0; k < 4; ++k)
      if (free_v(im.v[k])) {
        if (first < 0) first = im.v[k];
        else dsu.unite(im.v[k], first);
      }
  }
  ZoneSet z;
  std::vector<int> zone_of(nverts, -1);
  auto zone = [&](int v) {
    int r = dsu.find(v);
    if (zone_of[size_t(r)] < 0) {
      zone_of[size_t(r)] = int(z.verts.size());
      z.verts.emplace_back();
      z.impacts.emplace_back();
    }
    return zone_of[size_t(r)];
  };
  std::vector<uint8_t> seen(nverts, 0);
  for (size_t j = 0; j < imps.size(); ++j)
    for (int k = 0; k < 4; ++k) {
      int v = imps[j].v[k];
      if (!free_v(v)) continue;
      int zi = zone(v);
      if (k == 0 || z.impacts[size_t(zi)].empty() || z.impacts[size_t(zi)].back() != int(j))
        z.impacts[size_t(zi)].push_back(int(j));
      if (!seen[size_t(v)]) {
        seen[size_t(v)] = 1;
        z.verts[size_t(zi)].push_back(v);
      }
    }
  for (auto& l : z.impacts) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  return z;
}

// position of combined vertex v at the end of the step
Vec3f end_position(int v, const std::vector<Vec3f>& x1, const CollisionInput& in, size_t nverts) {
  return size_t(v) < nverts ? x1[size_t(v)] : (*in.obs_x1)[size_t(v) - nverts];
}

// solves one zone with the non-linear solver; writes the vertices back into x1
ZoneResult solve_one_zone(const std::vector<int>& verts, const std::vector<int>& ids, const std::vector<Impact>& imps,
                          const CollisionInput& in, const ZoneSettings& s, std::vector<int>& local,
                          std::vector<Vec3f>& x1, size_t nverts) {
  const size_t nv = verts.size(), ni = ids.size();
  std::vector<Vec3f> x(nv), xt(nv), g(nv), xprev(nv), xtry(nv);
  std::vector<float> m(nv), D(nv), lambda(ni);
  for (size_t i = 0; i < nv; ++i) {
    local[size_t(verts[i])] = int(i);
    x[i] = x1[size_t(verts[i])];
    xt[i] = (*in.x_free)[size_t(verts[i])];
    m[i] = (*in.mass)[size_t(verts[i])];
  }
  std::vector<ZoneImpact> zi(ni);
  for (size_t j = 0; j < ni; ++j) {
    const Impact& im = imps[size_t(ids[j])];
    for (int k = 0; k < 4; ++k) {
      const int v = im.v[k];
      const bool is_free = size_t(v) < nverts && (*in.inv_mass)[size_t(v)] != 0.f;
      zi[j].lv[k] = is_free ? local[size_t(v)] : -1;
      if (!is_free) zi[j].fixed[k] = end_position(v, x1, in, nverts);
      zi[j].w[k] = im.w[k];
    }
    zi[j].n = im.n;
    zi[j].d = im.d;
  }
  ZoneView z{int(nv), int(ni), x.data(), xt.data(), m.data(), zi.data(), lambda.data(), g.data(),
             xprev.data(), xtry.data(), D.data()};
  ZoneResult r = solve_zone(z, s);
  for (size_t i = 0; i < nv; ++i) x1[size_t(verts[i])] = x[i];
  return r;
}

// rigid impact zone (Provot 1997): the zone keeps its start shape and moves with
// the mean displacement and the rotation that keeps its angular momentum; a zone
// touching a fixed point stays at its start
void rigid_zone(const std::vector<int>& verts, bool has_fixed, const CollisionInput& in, std::vector<Vec3f>& x1) {
  const auto& x0 = *in.x0;
  const auto& xf = *in.x_free;
  const auto& m = *in.mass;
  if (has_fixed) {
    for (int v : verts) x1[size_t(v)] = x0[size_t(v)];
    return;
  }
  double M = 0;
  Vec3d c{}, dcm{};
  for (int v : verts) {
    M += m[size_t(v)];
    c += Vec3d(x0[size_t(v)]) * double(m[size_t(v)]);
    dcm += Vec3d(xf[size_t(v)] - x0[size_t(v)]) * double(m[size_t(v)]);
  }
  c = c / M;
  dcm = dcm / M;
  Vec3d L{};
  M3T<double> I;
  for (int v : verts) {
    Vec3d r = Vec3d(x0[size_t(v)]) - c, d = Vec3d(xf[size_t(v)] - x0[size_t(v)]) - dcm;
    L += cross(r, d) * double(m[size_t(v)]);
    I += M3T<double>::identity(dot(r, r) * m[size_t(v)]);
    add_outer(I, -double(m[size_t(v)]), r, r);
  }
  M3T<double> Ii;
  Vec3d w = invert(I, Ii) ? Ii * L : Vec3d{};
  double ang = length(w);
  Mat3f R = ang > 1e-12 ? rotation(Vec3f(w / ang), float(ang)) : Mat3f{};
  for (int v : verts) x1[size_t(v)] = Vec3f(c + dcm) + R * Vec3f(Vec3d(x0[size_t(v)]) - c);
}

bool zone_has_fixed(const std::vector<int>& ids, const std::vector<Impact>& imps, const CollisionInput& in,
                    size_t nverts) {
  for (int j : ids)
    for (int k = 0; k < 4; ++k) {
      const Impact& im = imps[size_t(j)];
      if (im.w[k] != 0.f && (size_t(im.v[k]) >= nverts || (*in.inv_mass)[size_t(im.v[k])] == 0.f)) return true;
    }
  return false;
}

}  // namespace

namespace {

std::array<int32_t, 4> impact_key(const Impact& im) { return {im.v[0], im.v[1], im.v[2], im.v[3]}; }

// adds the impacts' feature keys to `seen`; returns how many were not there yet
size_t add_new_keys(const std::vector<Impact>& imps, std::set<std::array<int32_t, 4>>& seen) {
  size_t fresh = 0;
  for (const Impact& im : imps) fresh += seen.insert(impact_key(im)).second ? 1 : 0;
  return fresh;
}

}  // namespace

// zone rounds (Algorithm 1); false when they stopped without an impact-free x1
bool CollisionHandler::zone_rounds(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                                   std::vector<Vec3f>& x1, std::vector<Impact>& all, CollisionStats& st) {
  std::vector<uint8_t> td(cloth_tris_.size(), 0);
  std::vector<int> local(nverts_, -1);
  std::set<std::array<int32_t, 4>> seen;
  bool use_td = false;
  for (int round = 0; round < s.max_rounds; ++round) {
    std::vector<Impact> imps = detect(ctx, in, s, x1, use_td ? &td : nullptr, &st);
    st.rounds++;
    if (imps.empty()) return true;
    st.impacts += imps.size();
    // only impacts the zones already hold: the linearised constraints are met
    // but the CCD still finds the pairs, more rounds would not change that
    if (add_new_keys(imps, seen) == 0) {
      st.stalls++;
      return false;
    }
    all.insert(all.end(), imps.begin(), imps.end());
    ZoneSet zs = build_zones(all, nverts_, *in.inv_mass);
    std::vector<ZoneResult> res(zs.verts.size());
#pragma omp parallel for schedule(dynamic)
    for (long long z = 0; z < (long long)zs.verts.size(); ++z)
      res[size_t(z)] = solve_one_zone(zs.verts[size_t(z)], zs.impacts[size_t(z)], all, in, s.zone, local, x1, nverts_);
    std::fill(td.begin(), td.end(), 0);
    bool failed = false;
    for (size_t z = 0; z < res.size(); ++z) {
      st.zones++;
      st.zone_iterations += uint64_t(res[z].iterations);
      if (!res[z].converged) {
        st.zone_failures++;
        failed = true;
      }
      for (int v : zs.verts[z])
        for (uint32_t t : vert_tris_[size_t(v)]) td[t] = 1;  // T_d: triangles touching V_c
    }
    if (failed) return false;
    use_td = s.incremental;
  }
  return false;
}

// rigid impact zones (at most max_rigid_rounds rounds); true when no impact is left
bool CollisionHandler::rigid_rounds(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                                    std::vector<Vec3f>& x1, std::vector<Impact>& all, CollisionStats& st) {
  for (int round = 0; round < s.max_rigid_rounds; ++round) {
    std::vector<Impact> imps = detect(ctx, in, s, x1, nullptr, &st);
    st.rigid_rounds++;
    if (imps.empty()) return true;
    all.insert(all.end(), imps.begin(), imps.end());
    ZoneSet zs = build_zones(all, nverts_, *in.inv_mass);
    for (size_t z = 0; z < zs.verts.size(); ++z)
      rigid_zone(zs.verts[z], zone_has_fixed(zs.impacts[z], all, in, nverts_), in, x1);
  }
  return false;
}

// last resort: x1 goes back along its straight path from x0 to half the
// earliest time of impact left (the cloth's motion over [0, toi) is a prefix of
// the checked one, so no cloth pair meets on it); true when the result is clear
bool CollisionHandler::clamp_to_first_impact(const Context& ctx, const CollisionInput& in,
                                             const CollisionSettings& s, std::vector<Vec3f>& x1,
                                             CollisionStats& st) {
  std::vector<Impact> imps = detect(ctx, in, s, x1, nullptr, &st);
  if (imps.empty()) return true;
  float toi = 1.f;
  for (const Impact& im : imps) toi = std::min(toi, im.toi);
  const float alpha = 0.5f * toi;
  const std::vector<Vec3f>& x0 = *in.x0;
  for (size_t v = 0; v < nverts_; ++v) x1[v] = x0[v] + (x1[v] - x0[v]) * alpha;
  st.clamped++;
  return alpha > 0.f && detect(ctx, in, s, x1, nullptr, &st).empty();
}

CollisionStats CollisionHandler::resolve(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                                         std::vector<Vec3f>& x1) {
  CollisionStats st;
  std::vector<Impact> all;
  if (zone_rounds(ctx, in, s, x1, all, st)) return st;
  st.fallbacks++;
  if (rigid_rounds(ctx, in, s, x1, all, st)) return st;
  if (clamp_to_first_impact(ctx, in, s, x1, st)) return st;
  // nothing cleared it within the caps (see the header)
  if (num_tangles_ == 0) {
    x1 = *in.x0;
    st.reverted++;
  } else {
    st.unresolved++;
  }
  return st;
}

}  // namespace cb::icloth
