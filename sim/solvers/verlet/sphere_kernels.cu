// Virtual-sphere self-collision kernels (Zheng 2021, Sec. 4): contact lists from
// the three stores, the time-of-impact response and the contact damping.
#include <algorithm>

#include "sim/core/parallel.h"
#include "sim/model/step_velocity.h"
#include "sim/solvers/verlet/sphere_contacts.h"
#include "sim/solvers/verlet/sphere_toi.h"
#include "sim/solvers/verlet/verlet_kernels.h"

namespace cb::verlet {

void find_contacts_hash(const Context& ctx, const ParticleHashView& grid, const Vec3f* x, int n, float radius,
                        const ContactFilter& filter, ContactLists out) {
  const ParticleHashView g = grid;
  const ContactFilter f = filter;
  if (!ctx.is_cuda()) {
    find_contacts_hash_cpu(g, x, n, radius, f, out);
    return;
  }
  parallel_for(ctx, n, [=] CB_HD(int i) {  // CUDA: one thread per particle
    Closest best;
    best.K = out.K;
    const Vec3f xi = x[i];
    g.for_each_within(xi, radius, [&](uint32_t j, Vec3f xj) {
      if (!never_contact(f, uint32_t(i), j)) best.offer(j, length2(xj - xi));
    });
    best.write(out, i);
  });
}

void find_contacts_dense(const Context& ctx, const DenseGridView& grid, const Vec3f* x, int n, float radius,
                         const ContactFilter& filter, ContactLists out) {
  const DenseGridView g = grid;
  const ContactFilter f = filter;
  const float r2 = radius * radius;
  const int reach = int(std::ceil(radius * grid.inv_cell));
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Closest best;
    best.K = out.K;
    const Vec3f xi = x[i];
    g.for_each_neighbor(xi, reach, [&](uint32_t j, Vec3f xj) {
      float d2 = length2(xj - xi);
      if (d2 < r2 && !never_contact(f, uint32_t(i), j)) best.offer(j, d2);
    });
    best.write(out, i);
  });
}

void find_contacts_all_pairs(const Context& ctx, const Vec3f* x, int n, float radius, const ContactFilter& filter,
                             ContactLists out) {
  const ContactFilter f = filter;
  const float r2 = radius * radius;
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Closest best;
    best.K = out.K;
    const Vec3f xi = x[i];
    for (int j = 0; j < n; ++j) {  // the marble test: every other sphere
      float d2 = length2(x[j] - xi);
      if (d2 < r2 && !never_contact(f, uint32_t(i), uint32_t(j))) best.offer(uint32_t(j), d2);
    }
    best.write(out, i);
  });
}

void sphere_response(const Context& ctx, const ContactLists& c, const Vec3f* rest_x, float diameter, const float* w,
                     const Vec3f* x0, const Vec3f* xa, Vec3f* xb) {
  const ContactLists cl = c;
  const float D = diameter, D2 = diameter * diameter;
  parallel_for(ctx, c.n, [=] CB_HD(int i) {
    const float wi = w[i];
    const Vec3f xi = xa[i];
    Vec3f corr{0, 0, 0};
    int cnt = 0;
    const uint32_t nc = wi > 0.f ? cl.count[i] : 0u;
    for (uint32_t k = 0; k < nc; ++k) {
      const uint32_t j = cl.ids[size_t(i) * size_t(cl.K) + k];
      const Vec3f p1 = xa[j] - xi;
      const float l2 = length2(p1);
      const float W = wi + w[j];
      if (l2 >= D2 || W <= 0.f) continue;
      // normal from the time of impact over x0 -> xa (degenerate cases in sphere_toi)
      const Vec3f p0 = x0[j] - x0[i];
      float t = 0.f;
      ToiResult r = sphere_toi(p0, p1 - p0, D, &t);
      Vec3f n = contact_normal(p0, p1 - p0, p1, r, t, rest_x[j] - rest_x[i], uint32_t(i) < j);
      // move apart along n until |p1 + delta n| = D
      const float s1 = dot(p1, n), tang2 = l2 - s1 * s1;
      const float reach2 = D2 - tang2;
      const float delta = (reach2 > 0.f ? std::sqrt(reach2) : 0.f) - s1;
      if (delta <= 0.f) continue;
      corr -= n * (delta * wi / W);
      cnt++;
    }
    xb[i] = cnt ? xi + corr / float(cnt) : xi;
  });
}

void finish_velocity(const Context& ctx, const ContactLists& c, float diameter, float contact_damping, float h,
                     const float* w, const Vec3f* x0, const Vec3f* xf, const Vec3f* v1, Vec3f* v) {
  const ContactLists cl = c;
  const float touch2 = diameter * diameter * 1.0201f;  // within 1 % of touching
  const float beta = contact_damping;
  parallel_for(ctx, c.n, [=] CB_HD(int i) {
    const float wi = w[i];
    Vec3f vi = step_velocity(x0[i], xf[i], v1[i], h);
    if (wi <= 0.f) {
      v[i] = Vec3f{0, 0, 0};
      return;
    }
    Vec3f dv{0, 0, 0};
    int cnt = 0;
    const uint32_t nc = beta > 0.f && cl.count ? cl.count[i] : 0u;
    for (uint32_t k = 0; k < nc; ++k) {
      const uint32_t j = cl.ids[size_t(i) * size_t(cl.K) + k];
      Vec3f p = xf[j] - xf[i];
      float l2 = length2(p);
      if (l2 >= touch2 || l2 <= 1e-24f) continue;
      Vec3f n = p / std::sqrt(l2);
      float vn = dot(step_velocity(x0[j], xf[j], v1[j], h) - vi, n);
      if (vn >= 0.f) continue;  // separating
      dv += n * (vn * beta * wi / (wi + w[j]));
      cnt++;
    }
    v[i] = cnt ? vi + dv / float(cnt) : vi;
  });
}

void contact_overlap(const Context& ctx, const ContactLists& c, float diameter, const Vec3f* x, float* overlap,
                     float* touching) {
  const ContactLists cl = c;
  const float D = diameter;
  parallel_for(ctx, c.n, [=] CB_HD(int i) {
    float worst = 0.f;
    for (uint32_t k = 0; k < cl.count[i]; ++k) {
      float d = D - length(x[cl.ids[size_t(i) * size_t(cl.K) + k]] - x[i]);
      worst = d > worst ? d : worst;
    }
    overlap[i] = worst;
    touching[i] = worst > 0.f ? 1.f : 0.f;
  });
}

}  // namespace cb::verlet
