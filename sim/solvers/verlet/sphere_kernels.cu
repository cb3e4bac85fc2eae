// Virtual-sphere self-collision kernels (Zheng 2021, Sec. 4): contact lists from
// the three stores, the time-of-impact response and the contact damping.
#include <algorithm>

#include "sim/core/parallel.h"
#include "sim/solvers/verlet/sphere_toi.h"
#include "sim/solvers/verlet/verlet_kernels.h"

namespace cb::verlet {
namespace {

constexpr int kMaxK = 64;
// Sorted slots per CPU work item of the hash query (a cell's particles rarely
// span more).
constexpr uint32_t kCpuSlotChunk = 32;

CB_HD inline bool never_contact(const ContactFilter& f, uint32_t i, uint32_t j) {
  if (i == j) return true;
  if (f.rest_x && f.piece[i] == f.piece[j] && length2(f.rest_x[j] - f.rest_x[i]) < f.diameter * f.diameter)
    return true;
  if (f.off) {  // no early exit: a short row, scanned without unpredictable branches
    const uint32_t e1 = f.off[i + 1];
    uint32_t linked = 0;
    for (uint32_t e = f.off[i]; e < e1; ++e) linked |= f.nbr[e] == j ? 1u : 0u;
    if (linked) return true;
  }
  return false;
}

// The K closest candidates seen so far, ordered by (distance, id): independent of
// the order in which a store visits them.
struct Closest {
  uint32_t id[kMaxK];
  float d2[kMaxK];
  int count = 0;
  int K = 0;
  CB_HD void offer(uint32_t j, float dj) {
    if (count == K && (dj > d2[K - 1] || (dj == d2[K - 1] && j > id[K - 1]))) return;
    int pos = count < K ? count++ : K - 1;
    while (pos > 0 && (d2[pos - 1] > dj || (d2[pos - 1] == dj && id[pos - 1] > j))) {
      id[pos] = id[pos - 1];
      d2[pos] = d2[pos - 1];
      --pos;
    }
    id[pos] = j;
    d2[pos] = dj;
  }
  CB_HD void write(ContactLists out, int i) const {
    out.count[i] = uint32_t(count);
    for (int k = 0; k < count; ++k) out.ids[size_t(i) * size_t(out.K) + size_t(k)] = id[k];
  }
};

}  // namespace

void find_contacts_hash(const Context& ctx, const ParticleHashView& grid, const Vec3f* x, int n, float radius,
                        const ContactFilter& filter, ContactLists out) {
  const ParticleHashView g = grid;
  const ContactFilter f = filter;
  if (!ctx.is_cuda()) {  // CPU: chunks of sorted slots, one block look-up per cell (~15 % faster at 115k)
    parallel_for(ctx, (n + kCpuSlotChunk - 1) / kCpuSlotChunk, [=] CB_HD(int chunk) {
      const uint32_t s0 = uint32_t(chunk) * kCpuSlotChunk, s1 = std::min(uint32_t(n), s0 + kCpuSlotChunk);
      Closest best;
      best.K = out.K;
      uint32_t i = 0;
      Vec3f xi;
      g.for_each_within_slots(
          s0, s1, radius, [&](uint32_t id, Vec3f p) { i = id, xi = p, best.count = 0; },
          [&](uint32_t j, Vec3f xj) {
            if (!never_contact(f, i, j)) best.offer(j, length2(xj - xi));
          },
          [&](uint32_t id) { best.write(out, int(id)); });
    }, kMinParallelCpu / int(kCpuSlotChunk));
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
                     const float* w, const Vec3f* x0, const Vec3f* xf, Vec3f* v) {
  const ContactLists cl = c;
  const float touch2 = diameter * diameter * 1.0201f;  // within 1 % of touching
  const float inv_h = 1.f / h, beta = contact_damping;
  parallel_for(ctx, c.n, [=] CB_HD(int i) {
    const float wi = w[i];
    Vec3f vi = (xf[i] - x0[i]) * inv_h;
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
      float vn = dot((xf[j] - x0[j]) * inv_h - vi, n);
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
