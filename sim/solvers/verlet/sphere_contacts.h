// Contact-list pieces shared by the three stores' queries (sphere_kernels.cu)
// and the CPU hash query (sphere_contacts_cpu.cpp): which pairs never count as
// contacts, and the order that makes a list of the K closest independent of
// the order in which candidates are visited.
#pragma once

#include <cstdint>

#include "sim/collision/particle_hash.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"
#include "sim/solvers/verlet/verlet_kernels.h"

namespace cb::verlet {

/// True for pairs that are never contacts: i itself, spring neighbours, and
/// vertices of one piece closer than a sphere diameter at rest. Symmetric in i, j.
CB_HD inline bool never_contact(const ContactFilter& f, uint32_t i, uint32_t j) {
  if (i == j) return true;
  if (f.off) {  // no early exit: a short row, scanned without unpredictable branches
    const uint32_t e1 = f.off[i + 1];
    uint32_t linked = 0;
    for (uint32_t e = f.off[i]; e < e1; ++e) linked |= f.nbr[e] == j ? 1u : 0u;
    if (linked) return true;
  }
  return f.rest_x && f.piece[i] == f.piece[j] && length2(f.rest_x[j] - f.rest_x[i]) < f.diameter * f.diameter;
}

/// Contact order: by distance, ties by id, so that a list of the K closest does
/// not depend on the order in which a store visits the candidates.
CB_HD inline bool farther(float da, uint32_t a, float db, uint32_t b) { return da > db || (da == db && a > b); }

/// The K closest candidates seen so far, in contact order.
struct Closest {
  static constexpr int kMaxK = 64;  ///< largest K (max_contacts)
  uint32_t id[kMaxK];
  float d2[kMaxK];
  int count = 0;
  int K = 0;
  CB_HD void offer(uint32_t j, float dj) {
    if (count == K && farther(dj, j, d2[K - 1], id[K - 1])) return;
    int pos = count < K ? count++ : K - 1;
    while (pos > 0 && farther(d2[pos - 1], id[pos - 1], dj, j)) {
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

/// CPU backend's hash-grid query (each pair tested once, offered to both lists);
/// the lists equal those of the per-particle query of the CUDA backend.
void find_contacts_hash_cpu(const ParticleHashView& g, const Vec3f* x, int n, float radius, const ContactFilter& f,
                            ContactLists out);

}  // namespace cb::verlet
