// Kernels of the pbd solver (see kernels.h). XPBD: Macklin et al. 2016; substeps:
// Macklin et al. 2019; friction: Macklin et al. 2014 (position-level Coulomb).
#include "sim/solvers/pbd/kernels.h"

#include <cmath>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"
#include "sim/model/edge_clearance.h"
#include "sim/model/step_velocity.h"
#include "sim/solvers/pbd/constraints.h"

namespace cb::pbd {
namespace {

// parallel_for, but small CPU loops run on the calling thread: an OpenMP region
// costs microseconds, more than a colour of a small cloth (results are identical).
constexpr int kSerialBelow = 2048;
template <class F>
void for_each(const Context& ctx, int n, F f) {
  if (!ctx.is_cuda() && n < kSerialBelow) {
    for (int i = 0; i < n; ++i) f(i);
    return;
  }
  parallel_for(ctx, n, f);
}

}  // namespace

void predict(const Context& ctx, const PbdView& p, const ForceArgs& f) {
  const PbdView q = p;
  const ForceArgs fa = f;
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    Vec3f xi = q.x[i];
    q.x0[i] = xi;
    q.contact[i] = VertexContact{};
    float wi = q.w[i];
    if (wi <= 0.f) {  // pinned: holds still
      q.v[i] = Vec3f{};
      return;
    }
    Vec3f vi = q.v[i] + fa.gravity * fa.h;
    if (fa.air_drag > 0.f) {  // quadratic drag against the wind, clamped to not overshoot
      Vec3f rel = vi - wind_velocity(fa.wind, xi, fa.time);
      float s = fa.air_drag * q.area[i] * length(rel) * wi * fa.h;
      vi -= rel * (s < 1.f ? s : 1.f);
    }
    q.v[i] = vi;
    q.x[i] = xi + vi * fa.h;
  });
}

void stretch_color(const Context& ctx, const PbdView& p, int first, int count, Compliance c) {
  const PbdView q = p;
  for_each(ctx, count, [=] CB_HD(int k) {
    const int e = first + k;
    const Int2 ed = q.edges[e];
    const float wa = q.wp[ed.a], wb = q.wp[ed.b];
    const float at = q.edge_factor[e] * (q.edge_shear[e] ? c.shear_t : c.stretch_t);
    float dl;
    Vec3f corr = distance_step(q.x[ed.a], q.x[ed.b], wa, wb, q.edge_rest[e], at, q.edge_lambda[e], &dl) * c.relax;
    q.edge_lambda[e] += dl * c.relax;
    q.x[ed.a] -= corr * wa;
    q.x[ed.b] += corr * wb;
  });
}

namespace {
CB_HD CB_INLINE void load_hinge(const PbdView& q, const Int4& h, Vec3f xs[4], float ws[4]) {
  xs[0] = q.x[h.a]; xs[1] = q.x[h.b]; xs[2] = q.x[h.c]; xs[3] = q.x[h.d];
  ws[0] = q.wp[h.a]; ws[1] = q.wp[h.b]; ws[2] = q.wp[h.c]; ws[3] = q.wp[h.d];
}
}  // namespace

void bend_color(const Context& ctx, const PbdView& p, int first, int count, Compliance c) {
  const PbdView q = p;
  for_each(ctx, count, [=] CB_HD(int k) {
    const int b = first + k;
    const Int4 h = q.bends[b];
    Vec3f xs[4];
    float ws[4];
    load_hinge(q, h, xs, ws);
    const BendCoef kc = q.bend_coef[b];
    Vec3f dl;
    Vec3f u = bend_step(xs, ws, kc.k, q.bend_rest_norm[b], q.bend_factor[b] * c.bend_t, q.bend_lambda[b], &dl) * c.relax;
    q.bend_lambda[b] += dl * c.relax;
    q.x[h.a] += u * (ws[0] * kc.k[0]);
    q.x[h.b] += u * (ws[1] * kc.k[1]);
    q.x[h.c] += u * (ws[2] * kc.k[2]);
    q.x[h.d] += u * (ws[3] * kc.k[3]);
  });
}

namespace {
// x_i += w_i * sum over incident edges of (+-) edge_corr
void gather_edges(const Context& ctx, const PbdView& q) {
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    const float wi = q.wp[i];
    if (wi <= 0.f) return;
    Vec3f sum{};
    for (uint32_t k = q.vert_edge_off[i]; k < q.vert_edge_off[i + 1]; ++k) {
      const int32_t s = q.vert_edge[k];
      if (s > 0) sum += q.edge_corr[s - 1];
      else sum -= q.edge_corr[-s - 1];
    }
    q.x[i] += sum * wi;
  });
}

// x_i += w_i * sum over incident hinges of k_slot * bend_corr
void gather_bends(const Context& ctx, const PbdView& q) {
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    const float wi = q.wp[i];
    if (wi <= 0.f) return;
    Vec3f sum{};
    for (uint32_t k = q.vert_bend_off[i]; k < q.vert_bend_off[i + 1]; ++k) {
      const uint32_t e = q.vert_bend[k];
      sum += q.bend_corr[e / 4] * q.bend_coef[e / 4].k[e % 4];
    }
    q.x[i] += sum * wi;
  });
}
}  // namespace

void stretch_jacobi(const Context& ctx, const PbdView& p, Compliance c, float omega) {
  const PbdView q = p;
  // corrections from the same positions, scaled consistently with lambda
  for_each(ctx, q.nedges, [=] CB_HD(int e) {
    const Int2 ed = q.edges[e];
    const float at = q.edge_factor[e] * (q.edge_shear[e] ? c.shear_t : c.stretch_t);
    float dl;
    Vec3f corr = distance_step(q.x[ed.a], q.x[ed.b], q.wp[ed.a], q.wp[ed.b], q.edge_rest[e], at, q.edge_lambda[e], &dl);
    const float s = omega * q.edge_theta[e];
    q.edge_lambda[e] += dl * s;
    q.edge_corr[e] = corr * s;
  });
  gather_edges(ctx, q);
}

void bend_jacobi(const Context& ctx, const PbdView& p, Compliance c, float omega) {
  const PbdView q = p;
  for_each(ctx, q.nbends, [=] CB_HD(int b) {
    const Int4 h = q.bends[b];
    Vec3f xs[4];
    float ws[4];
    load_hinge(q, h, xs, ws);
    Vec3f dl;
    Vec3f u = bend_step(xs, ws, q.bend_coef[b].k, q.bend_rest_norm[b], q.bend_factor[b] * c.bend_t, q.bend_lambda[b], &dl);
    const float s = omega * q.bend_theta[b];
    q.bend_lambda[b] += dl * s;
    q.bend_corr[b] = u * s;
  });
  gather_bends(ctx, q);
}

void grab(const Context& ctx, const PbdView& p, const Grab& g) {
  if (!g.active) return;
  Vec3f* x = p.x;
  const float* w = p.w;
  const Grab gg = g;
  for_each(ctx, 1, [=] CB_HD(int) { project_grab(gg, x, w); });
}

void collide_shapes(const Context& ctx, const PbdView& p, const Shape* shapes, const Shape* now, const Shape* prev,
                    int nshapes, float frame_dt) {
  if (nshapes <= 0) return;
  const PbdView q = p;
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    if (q.w[i] <= 0.f) return;
    Vec3f xi = q.x[i];
    VertexContact ct = q.contact[i];
    bool hit = false;
    for (int s = 0; s < nshapes; ++s) {
      Vec3f n;
      const float keep = vertex_edge_clearance(q.thickness, q.longest_edge, i, shape_curvature(shapes[s]));
      float d = shape_distance(shapes[s], xi, &n) - keep;
      if (d >= 0.f) continue;
      xi -= n * d;
      ct.push -= d;
      ct.normal = n;
      ct.velocity = shape_point_velocity(now[s], prev[s], xi, frame_dt);
      ct.friction = shapes[s].friction;
      hit = true;
    }
    if (hit) {
      q.x[i] = xi;
      q.contact[i] = ct;
    }
  });
}

void equal_inverse_masses(const Context& ctx, const float* w, int n, float w_equal, float* wp) {
  for_each(ctx, n, [=] CB_HD(int i) { wp[i] = w[i] > 0.f ? w_equal : 0.f; });
}

void collide_mesh(const Context& ctx, const PbdView& p, const ObstacleContact* contacts) {
  const PbdView q = p;
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    const ObstacleContact oc = contacts[i];
    if (oc.tri < 0 || q.w[i] <= 0.f) return;
    Vec3f xi = q.x[i];
    const float keep = vertex_edge_clearance(q.thickness, q.longest_edge, i, oc.curvature);
    float d = dot(xi - oc.point, oc.normal) - keep;
    if (d >= 0.f) return;
    q.x[i] = xi - oc.normal * d;
    VertexContact ct = q.contact[i];
    ct.push -= d;
    ct.normal = oc.normal;
    ct.velocity = oc.velocity;
    ct.friction = oc.friction;
    q.contact[i] = ct;
  });
}

void self_collide(const Context& ctx, const PbdView& p, const ParticleHashView& hash, const Vec3f* rest, float radius) {
  const PbdView q = p;
  const ParticleHashView hv = hash;
  const float dmin = 2.f * radius, rest_min2 = (1.5f * dmin) * (1.5f * dmin);
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    Vec3f sum{};
    const float wi = q.w[i];
    if (wi > 0.f) {
      const Vec3f xi = q.x[i], ri = rest[i];
      int count = 0;
      hv.for_each_within(xi, dmin, [&](uint32_t j, Vec3f) {
        if (int(j) == i || length2(rest[j] - ri) < rest_min2) return;
        Vec3f d = xi - q.x[j];
        float l = length(d);
        if (l >= dmin || l <= 0.f) return;
        float wsum = wi + q.w[j];
        sum += d * ((dmin - l) / l * wi / wsum);
        count++;
      });
      if (count > 1) sum = sum / float(count);
    }
    q.dx[i] = sum;
  });
  for_each(ctx, q.nverts, [=] CB_HD(int i) { q.x[i] += q.dx[i]; });
}

void friction_and_velocity(const Context& ctx, const PbdView& p, float h) {
  const PbdView q = p;
  for_each(ctx, q.nverts, [=] CB_HD(int i) {
    if (q.w[i] <= 0.f) {
      q.v[i] = Vec3f{};
      return;
    }
    Vec3f xi = q.x[i];
    const VertexContact ct = q.contact[i];
    if (ct.push > 0.f && ct.friction > 0.f) {  // Coulomb: tangential slip limited by mu * normal push
      Vec3f rel = (xi - q.x0[i]) - ct.velocity * h;
      Vec3f tang = rel - ct.normal * dot(rel, ct.normal);
      float tl = length(tang), lim = ct.friction * ct.push;
      if (tl > 0.f) {
        xi -= tang * (tl <= lim ? 1.f : lim / tl);
        q.x[i] = xi;
      }
    }
    // (x - x0) / h, exact where no projection moved x (x0 + h v: where predict() put it)
    const float keep = 1.f - q.damping[i] * h;
    q.v[i] = step_velocity(q.x0[i], xi, q.v[i], h) * (keep > 0.f ? keep : 0.f);
  });
}

float max_move(const Context& ctx, const PbdView& p, DeviceBuffer<float>& scratch) {
  if (p.nverts == 0) return 0.f;
  if (scratch.size() < size_t(p.nverts)) scratch.resize(ctx, size_t(p.nverts));
  float* d = scratch.data();
  const PbdView q = p;
  for_each(ctx, q.nverts, [=] CB_HD(int i) { d[i] = length(q.x[i] - q.x0[i]); });
  return reduce_max(ctx, d, size_t(q.nverts));
}

double residual(const Context& ctx, const PbdView& p, Compliance c, bool bending, DeviceBuffer<float>& scratch) {
  const int ne = p.nedges, nb = bending ? p.nbends : 0;
  if (ne + nb == 0) return 0;
  if (scratch.size() < size_t(ne + nb)) scratch.resize(ctx, size_t(ne + nb));
  float* r = scratch.data();
  const PbdView q = p;
  for_each(ctx, ne, [=] CB_HD(int e) {
    const Int2 ed = q.edges[e];
    const float at = q.edge_factor[e] * (q.edge_shear[e] ? c.shear_t : c.stretch_t);
    float v = distance_residual(q.x[ed.a], q.x[ed.b], q.edge_rest[e], at, q.edge_lambda[e]);
    r[e] = v * v;
  });
  for_each(ctx, nb, [=] CB_HD(int b) {
    const Int4 h = q.bends[b];
    Vec3f xs[4] = {q.x[h.a], q.x[h.b], q.x[h.c], q.x[h.d]};
    float v = bend_residual(xs, q.bend_coef[b].k, q.bend_rest_norm[b], q.bend_factor[b] * c.bend_t, q.bend_lambda[b]);
    r[ne + b] = v * v;
  });
  return std::sqrt(reduce_sum(ctx, r, size_t(ne + nb)) / double(ne + nb));
}

}  // namespace cb::pbd
