#include "sim/collision/particle_hash.h"

#include <vector>

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

// CPU: stable counting sort; fills the start/end tables directly.
void counting_sort_cpu(int n, uint32_t table, uint32_t* key, uint32_t* id, uint32_t* start, uint32_t* end) {
  std::vector<uint32_t> count(table, 0);
  for (int i = 0; i < n; ++i) count[key[i]]++;
  uint32_t acc = 0;
  for (uint32_t b = 0; b < table; ++b) {
    start[b] = acc;
    acc += count[b];
    end[b] = acc;
  }
  std::vector<uint32_t> orig_key(key, key + n);
  std::vector<uint32_t> cursor(start, start + table);
  for (int i = 0; i < n; ++i) {
    uint32_t s = cursor[orig_key[i]]++;
    id[s] = uint32_t(i);
    key[s] = orig_key[i];
  }
}

// GPU path: after the radix sort, each slot that starts or ends a run writes it.
void fill_tables(const Context& ctx, int n, const uint32_t* key, uint32_t* start, uint32_t* end) {
  parallel_for(ctx, n, [=] CB_HD(int s) {
    uint32_t k = key[s];
    if (s == 0 || key[s - 1] != k) start[k] = uint32_t(s);
    if (s == n - 1 || key[s + 1] != k) end[k] = uint32_t(s + 1);
  });
}

void gather_positions(const Context& ctx, int n, const Vec3f* x, const uint32_t* id, Vec3f* sorted_x) {
  parallel_for(ctx, n, [=] CB_HD(int s) { sorted_x[s] = x[id[s]]; });
}

void bucket_flags(const Context& ctx, int table, const uint32_t* start, const uint32_t* end, float* flag) {
  parallel_for(ctx, table, [=] CB_HD(int b) { flag[b] = end[b] > start[b] ? 1.f : 0.f; });
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
  if (start_.size() != table || start_.context().backend != ctx.backend) {
    start_.resize(ctx, table);
    end_.resize(ctx, table);
  }
  if (n == 0) return;
  d::compute_keys(ctx, x, n, 1.f / cell, table - 1, key_.data(), sorted_id_.data());
  if (ctx.is_cuda()) {
    start_.fill_zero();
    end_.fill_zero();
    sort_by_key(ctx, key_.data(), sorted_id_.data(), size_t(n));
    d::fill_tables(ctx, n, key_.data(), start_.data(), end_.data());
  } else {
    d::counting_sort_cpu(n, table, key_.data(), sorted_id_.data(), start_.data(), end_.data());
  }
  d::gather_positions(ctx, n, x, sorted_id_.data(), sorted_x_.data());
}

ParticleHashView ParticleHash::view() const {
  ParticleHashView v;
  v.cell_start = start_.data();
  v.cell_end = end_.data();
  v.sorted_id = sorted_id_.data();
  v.sorted_x = sorted_x_.data();
  v.cell = cell_;
  v.inv_cell = 1.f / cell_;
  v.mask = start_.empty() ? 0 : uint32_t(start_.size() - 1);
  v.n = n_;
  return v;
}

size_t ParticleHash::occupied_buckets(const Context& ctx) const {
  if (n_ == 0 || start_.empty()) return 0;
  DeviceBuffer<float> flag(ctx, start_.size());
  particle_hash_detail::bucket_flags(ctx, int(start_.size()), start_.data(), end_.data(), flag.data());
  return size_t(reduce_sum(ctx, flag.data(), flag.size()) + 0.5);
}

size_t ParticleHash::device_bytes() const {
  return key_.bytes() + sorted_id_.bytes() + sorted_x_.bytes() + start_.bytes() + end_.bytes();
}

}  // namespace cb
