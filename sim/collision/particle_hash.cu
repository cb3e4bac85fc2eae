#include "sim/collision/particle_hash.h"

#include <algorithm>

#include "sim/core/algorithms.h"
#include "sim/core/error.h"
#include "sim/core/parallel.h"

namespace cb {
namespace particle_hash_detail {

uint32_t table_size_for(int n, float load) {
  double want = double(n) * double(load > 0.f ? load : 1.f);
  uint32_t t = 64;
  while (double(t) < want && t < (1u << 30)) t <<= 1;
  return t;
}

void compute_keys(const Context& ctx, const Vec3f* x, int n, float inv_cell, uint32_t mask, uint32_t* key,
                  uint32_t* id) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    CellCoord c = cell_of(x[i], inv_cell);
    key[i] = cell_hash(c.x, c.y, c.z, mask);
    id[i] = uint32_t(i);
  });
}

// CPU: stable counting sort by bucket; fills the start table directly and
// leaves id = particle and sorted_x = its position at each sorted slot (no
// scratch: start holds the bucket ends while slots are handed out backwards;
// the positions are copied in the same pass: a separate parallel gather costs
// more than it saves on two threads).
void counting_sort_cpu(int n, uint32_t table, const uint32_t* key, const Vec3f* x, uint32_t* id, uint32_t* start,
                       Vec3f* sorted_x) {
  std::fill(start, start + table + 1, 0u);
  for (int i = 0; i < n; ++i) start[key[i]]++;
  uint32_t acc = 0;
  for (uint32_t b = 0; b < table; ++b) {
    acc += start[b];
    start[b] = acc;  // end of bucket b
  }
  start[table] = acc;
  for (int i = n - 1; i >= 0; --i) {  // afterwards start[b] is the first slot of bucket b
    const uint32_t slot = --start[key[i]];
    id[slot] = uint32_t(i);
    sorted_x[slot] = x[i];
  }
}

void gather_positions(const Context& ctx, int n, const Vec3f* x, const uint32_t* id, Vec3f* sorted_x) {
  parallel_for(ctx, n, [=] CB_HD(int s) { sorted_x[s] = x[id[s]]; });
}

// Occupied buckets per chunk of `chunk` buckets (a small partial-count array
// instead of a table-sized scratch).
void occupied_per_chunk(const Context& ctx, uint32_t table, uint32_t chunk, const uint32_t* start, uint32_t* out) {
  const int nchunks = int((table + chunk - 1) / chunk);
  parallel_for(ctx, nchunks, [=] CB_HD(int c) {
    const uint32_t b0 = uint32_t(c) * chunk, b1 = b0 + chunk < table ? b0 + chunk : table;
    uint32_t count = 0;
    for (uint32_t b = b0; b < b1; ++b) count += start[b + 1] > start[b] ? 1u : 0u;
    out[c] = count;
  });
}

}  // namespace particle_hash_detail

void ParticleHash::build(const Context& ctx, const Vec3f* x, int n, float cell, float table_load) {
  namespace d = particle_hash_detail;
  if (!(cell > 0.f)) throw Error("ParticleHash: cell size must be > 0 m");
  const uint32_t table = d::table_size_for(n, table_load);
  cell_ = cell;
  n_ = n;
  if (key_.size() != size_t(n) || key_.context().backend != ctx.backend) {
    key_.resize(ctx, size_t(n));
    sorted_id_.resize(ctx, size_t(n));
    sorted_x_.resize(ctx, size_t(n));
  }
  if (start_.size() != size_t(table) + 1 || start_.context().backend != ctx.backend) {
    start_.resize(ctx, table + 1);
    disjoint_reach_ = 0;  // a property of the table size alone
    for (int r = 0; r <= ParticleHashView::kMaxRunReach; ++r)
      if (rows_never_share(table - 1, r)) disjoint_reach_ |= 1u << r;
  }
  if (n == 0) return;
  d::compute_keys(ctx, x, n, 1.f / cell, table - 1, key_.data(), sorted_id_.data());
  if (ctx.is_cuda()) {
    sort_by_key(ctx, key_.data(), sorted_id_.data(), size_t(n));
    key_starts(ctx, key_.data(), size_t(n), table, start_.data());  // bucket b: first sorted key >= b
    d::gather_positions(ctx, n, x, sorted_id_.data(), sorted_x_.data());
  } else {
    d::counting_sort_cpu(n, table, key_.data(), x, sorted_id_.data(), start_.data(), sorted_x_.data());
  }
}

bool rows_never_share(uint32_t mask, int reach) {
  const uint32_t len = uint32_t(2 * reach + 1), table = mask + 1;
  if (table < 2 * len) return false;
  for (int dz = -2 * reach; dz <= 2 * reach; ++dz)
    for (int dy = -2 * reach; dy <= 2 * reach; ++dy) {
      if (dy == 0 && dz == 0) continue;
      const uint32_t d = (uint32_t(dy) * kRowPrimeY + uint32_t(dz) * kRowPrimeZ) & mask;
      if (d < len || d > table - len) return false;  // the two runs would share a bucket
    }
  return true;
}

ParticleHashView ParticleHash::view() const {
  ParticleHashView v;
  v.cell_start = start_.data();
  v.sorted_id = sorted_id_.data();
  v.sorted_x = sorted_x_.data();
  v.cell = cell_;
  v.inv_cell = 1.f / cell_;
  v.mask = start_.empty() ? 0 : uint32_t(start_.size() - 2);
  v.n = n_;
  v.disjoint_reach = disjoint_reach_;
  return v;
}

size_t ParticleHash::occupied_buckets(const Context& ctx) const {
  if (n_ == 0 || start_.size() < 2) return 0;
  const uint32_t table = uint32_t(start_.size() - 1), chunk = 4096;
  const size_t nchunks = (table + chunk - 1) / chunk;
  if (partial_.size() != nchunks || partial_.context().backend != ctx.backend) partial_.resize(ctx, nchunks);
  particle_hash_detail::occupied_per_chunk(ctx, table, chunk, start_.data(), partial_.data());
  partial_.download(partial_host_);
  size_t total = 0;
  for (uint32_t c : partial_host_) total += c;
  return total;
}

size_t ParticleHash::device_bytes() const {
  return key_.bytes() + sorted_id_.bytes() + sorted_x_.bytes() + start_.bytes();
}

}  // namespace cb
