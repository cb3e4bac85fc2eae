// The CPU backend's hash-grid contact query (host code: per-list locks).
#include <algorithm>
#include <array>
#include <atomic>

#include "sim/core/parallel.h"
#include "sim/solvers/verlet/sphere_contacts.h"

namespace cb::verlet {
namespace {

// Sorted slots per work item (a cell's particles rarely span more).
constexpr uint32_t kSlotChunk = 32;

// Closest::offer on particle i's list in `out` itself (the distances of the
// listed contacts recomputed from x: the same floats the scan compared).
inline void offer_in_list(ContactLists out, const Vec3f* x, uint32_t i, uint32_t j, float dj) {
  uint32_t* id = out.ids + size_t(i) * size_t(out.K);
  const uint32_t count = out.count[i], K = uint32_t(out.K);
  const Vec3f xi = x[i];
  auto d2 = [&](uint32_t k) { return length2(x[id[k]] - xi); };
  if (count == K && farther(dj, j, d2(K - 1), id[K - 1])) return;
  uint32_t pos = count < K ? count : K - 1;
  out.count[i] = count < K ? count + 1 : K;
  while (pos > 0 && farther(d2(pos - 1), id[pos - 1], dj, j)) {
    id[pos] = id[pos - 1];
    --pos;
  }
  id[pos] = j;
}

// Spin locks striped over particle ids: a pair's two lists are updated one
// after the other, never both held, so no lock order is needed.
class StripedLocks {
 public:
  template <class F>
  void with(uint32_t i, F&& f) {
    std::atomic<bool>& l = lock_[i & (kStripes - 1)];
    while (l.exchange(true, std::memory_order_acquire)) {
    }
    f();
    l.store(false, std::memory_order_release);
  }

 private:
  static constexpr uint32_t kStripes = 4096;
  std::array<std::atomic<bool>, kStripes> lock_{};
};

}  // namespace

// Each pair within `radius` is found once, from its earlier sorted slot (half
// the distance tests of a query per particle), and offered to both particles'
// lists. The lists equal the per-particle query's: contact order does not
// depend on the order of the offers, and every test here (distance,
// never_contact) is symmetric in i and j.
void find_contacts_hash_cpu(const ParticleHashView& g, const Vec3f* x, int n, float radius, const ContactFilter& f,
                            ContactLists out) {
  std::fill(out.count, out.count + n, 0u);
  StripedLocks locks;
  const int nchunks = (n + int(kSlotChunk) - 1) / int(kSlotChunk);
#pragma omp parallel for schedule(static) if (n >= kMinParallelCpu)
  for (int chunk = 0; chunk < nchunks; ++chunk) {
    const uint32_t s0 = uint32_t(chunk) * kSlotChunk, s1 = std::min(uint32_t(n), s0 + kSlotChunk);
    uint32_t i = 0;
    Vec3f xi;
    g.for_each_later_within_slots(
        s0, s1, radius, [&](uint32_t id, Vec3f p) { i = id, xi = p; },
        [&](uint32_t j, Vec3f xj) {
          if (never_contact(f, i, j)) return;
          const float d2 = length2(xj - xi);
          locks.with(i, [&] { offer_in_list(out, x, i, j, d2); });
          locks.with(j, [&] { offer_in_list(out, x, j, i, d2); });
        },
        [](uint32_t) {});
  }
}

}  // namespace cb::verlet
