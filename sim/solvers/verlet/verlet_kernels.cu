// Integration, strain limiting and obstacle kernels of the Verlet solver.
#include "sim/core/parallel.h"
#include "sim/model/edge_clearance.h"
#include "sim/solvers/verlet/springs.h"
#include "sim/solvers/verlet/verlet_kernels.h"

namespace cb::verlet {

// Over-relaxation of the averaged Jacobi strain-limiting step (in (0, 2); 1.5
// roughly halves the residual stretch of a hanging sheet against 1.0).
constexpr float kStrainRelax = 1.5f;

void predict(const Context& ctx, const ModelView& m, const ForceInputs& f, const Vec3f* x, const Vec3f* v,
             const float* w, Vec3f* x1, Vec3f* v1) {
  const ModelView mv = m;
  const ForceInputs fi = f;
  parallel_for(ctx, m.n, [=] CB_HD(int i) {
    const float wi = w[i];
    const Vec3f xi = x[i], vi = v[i];
    if (wi <= 0.f) {  // pinned: never moves
      x1[i] = xi;
      v1[i] = Vec3f{0, 0, 0};
      return;
    }
    // spring forces (gathered): k (l - L) + c (v_j - v_i).u along u
    Vec3f force{0, 0, 0};
    const uint32_t e1 = mv.off[i + 1];
    for (uint32_t e = mv.off[i]; e < e1; ++e) {
      const uint32_t j = mv.nbr[e];
      const Vec3f d = x[j] - xi;
      const float l2 = length2(d);
      if (l2 <= 1e-24f) continue;
      const float l = std::sqrt(l2), inv_l = 1.f / l;
      const Vec3f u = d * inv_l;
      force += u * (mv.k[e] * (l - mv.rest[e]) + mv.c[e] * dot(v[j] - vi, u));
    }
    Vec3f a = fi.gravity + force * wi;
    // quadratic air drag against the travelling-wave wind, limited so that it
    // can at most stop the relative motion within the sub-step
    if (fi.air_drag > 0.f) {
      Vec3f vr = vi - wind_velocity(fi.wind, xi, fi.time);
      float s = fi.air_drag * mv.area[i] * length(vr) * wi * fi.h;
      a -= vr * ((s < 1.f ? s : 1.f) / fi.h);
    }
    float keep = 1.f - mv.damp[i] * fi.h;
    const Vec3f vn = vi * (keep > 0.f ? keep : 0.f) + a * fi.h;
    v1[i] = vn;
    x1[i] = xi + vn * fi.h;
  });
}

void long_range_attach(const Context& ctx, int n, const int32_t* anchor, const float* geodesic, float max_stretch,
                       const float* w, Vec3f* x) {
  const float grow = 1.f + max_stretch;
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const int32_t a = anchor[i];
    if (a < 0 || w[i] <= 0.f || w[a] > 0.f) return;  // no pin, pinned itself, or anchor freed
    Vec3f d = x[i] - x[a];
    float l = length(d), lmax = geodesic[i] * grow;
    if (l > lmax) x[i] = x[a] + d * (lmax / l);
  });
}

void apply_grab(const Context& ctx, const Grab& g, Vec3f* x, const float* w) {
  if (!g.active) return;
  const Grab gg = g;
  parallel_for(ctx, 1, [=] CB_HD(int) { project_grab(gg, x, w); });
}

void hold_grabbed(const Context& ctx, const Grab& g, const float* w, int n, float* held) {
  constexpr float kHeldWeight = 0.25f;
  const Int3 v = g.verts;
  const float top = fmaxf(g.bary.x, fmaxf(g.bary.y, g.bary.z));
  const auto holds = [=](float b) { return b >= kHeldWeight || b == top; };
  const bool ha = holds(g.bary.x), hb = holds(g.bary.y), hc = holds(g.bary.z);
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const bool grabbed = (i == v.a && ha) || (i == v.b && hb) || (i == v.c && hc);
    held[i] = grabbed ? 0.f : w[i];
  });
}

void strain_limit(const Context& ctx, const ModelView& m, float max_stretch, const float* w, const Vec3f* xa,
                  Vec3f* xb, const uint8_t* moved_in, uint8_t* moved_out, bool with_long, bool equal_split) {
  const uint32_t* soff = m.soff;
  const uint32_t* snbr = m.snbr;
  const float* srest = m.srest;
  const uint32_t* slong = m.slong;
  const float grow = 1.f + max_stretch;
  parallel_for(ctx, m.n, [=] CB_HD(int i) {
    const float wi = w[i];
    const Vec3f xi = xa[i];
    const uint32_t e0 = soff[i], e1 = with_long || !slong ? soff[i + 1] : slong[i];
    // inputs unchanged since the previous pass, which left i in place: so would this one
    bool active = moved_in == nullptr || moved_in[i];
    for (uint32_t e = e0; e < e1 && !active; ++e) active = moved_in[snbr[e]] != 0;
    Vec3f corr{0, 0, 0};
    int cnt = 0;
    if (wi > 0.f && active) {
      for (uint32_t e = e0; e < e1; ++e) {
        const uint32_t j = snbr[e];
        const Vec3f d = xa[j] - xi;
        const float l2 = length2(d), lmax = srest[e] * grow;
        if (l2 <= lmax * lmax || l2 <= 1e-24f) continue;  // most springs: no square root
        const float l = std::sqrt(l2);
        // (the split by mass written as it always was: the same bits, and the
        // tests' recorded tangles are chaotic in them)
        corr += d * (equal_split ? (l - lmax) / l * (w[j] > 0.f ? 0.5f : 1.f) : (l - lmax) / l * wi / (wi + w[j]));
        cnt++;
      }
    }
    xb[i] = cnt ? xi + corr * (kStrainRelax / float(cnt)) : xi;
    moved_out[i] = cnt ? 1 : 0;
  });
}

namespace {

// Moves p out to `thickness` along n (signed distance d) and applies Coulomb
// friction to the displacement relative to the surface over the sub-step.
CB_HD inline Vec3f push_out(Vec3f p, Vec3f p0, Vec3f n, float d, float thickness, Vec3f surface_v, float h, float mu) {
  float depth = thickness - d;
  if (depth <= 0.f) return p;
  p += n * depth;
  Vec3f rel = (p - p0) - surface_v * h;
  Vec3f tang = rel - n * dot(rel, n);
  float lt = length(tang), lim = mu * depth;
  p -= lt <= lim ? tang : tang * (lim / lt);
  return p;
}

}  // namespace

void collide_shapes(const Context& ctx, const ModelView& m, const Shape* shapes, const Shape* shapes_prev,
                    int nshapes, float frame_dt, float h, const Vec3f* x0, const float* w, Vec3f* x,
                    uint8_t* moved, bool only_moved) {
  if (nshapes == 0) return;
  const float *thick = m.thickness, *longest = m.longest_edge;
  parallel_for(ctx, m.n, [=] CB_HD(int i) {
    if (w[i] <= 0.f || (only_moved && !moved[i])) return;
    Vec3f p = x[i];
    bool pushed = false;
    for (int s = 0; s < nshapes; ++s) {
      Vec3f n;
      float d = shape_distance(shapes[s], p, &n);
      const float keep = vertex_edge_clearance(thick, longest, i, shape_curvature(shapes[s]));
      if (d >= keep) continue;
      Vec3f sv = frame_dt > 0.f ? shape_point_velocity(shapes[s], shapes_prev[s], p, frame_dt) : Vec3f{};
      p = push_out(p, x0[i], n, d, keep, sv, h, shapes[s].friction);
      pushed = true;
    }
    x[i] = p;
    if (moved && pushed) moved[i] = 1;
  });
}

void stop_at_hits(const Context& ctx, const ModelView& m, const SweepHit* hits, const float* w, Vec3f* x,
                  float* stops) {
  const float *thick = m.thickness, *longest = m.longest_edge;
  parallel_for(ctx, m.n, [=] CB_HD(int i) {
    const SweepHit h = hits[i];
    if (w[i] <= 0.f || h.tri < 0) return;
    x[i] = h.point + h.normal * vertex_edge_clearance(thick, longest, i, h.curvature);
    stops[i] += 1.f;
  });
}

void collide_meshes(const Context& ctx, const ModelView& m, const ObstacleContact* contacts, float h,
                    const Vec3f* x0, const float* w, Vec3f* x, uint8_t* moved, bool only_moved) {
  const float *thick = m.thickness, *longest = m.longest_edge;
  parallel_for(ctx, m.n, [=] CB_HD(int i) {
    const ObstacleContact c = contacts[i];
    if (w[i] <= 0.f || c.tri < 0 || (only_moved && !moved[i])) return;
    const float keep = vertex_edge_clearance(thick, longest, i, c.curvature);
    float d = dot(x[i] - c.point, c.normal);  // signed, along the side normal
    if (d >= keep) return;
    x[i] = push_out(x[i], x0[i], c.normal, d, keep, c.velocity, h, c.friction);
    if (moved) moved[i] = 1;
  });
}

}  // namespace cb::verlet
