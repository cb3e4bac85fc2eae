// Cell entries for find_box_pairs (box_pairs.h): grid choice, (cell key, box)
// entries sorted by key, and the end of each entry's run of equal keys.
#include "sim/collision/box_pairs.h"

#include "sim/collision/atomics.h"

namespace cb {
namespace box_pairs_detail {

void box_stats(const Context& ctx, const Aabb* boxes, int n, Aabb* bounds, float* mean_extent) {
  *bounds = reduce_bounds(ctx, boxes, size_t(n));
  DeviceBuffer<float> largest(ctx, size_t(n));
  float* c = largest.data();
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const Vec3f e = boxes[i].extent();
    const float m = e.x > e.y ? e.x : e.y;
    c[i] = m > e.z ? m : e.z;
  });
  *mean_extent = float(reduce_sum(ctx, c, size_t(n)) / double(n));
}

namespace {

// cells of each box into off[]; returns their (approximate) total, counted in floats so
// that a flooded grid cannot overflow 32-bit integers
double count_cells(const Context& ctx, const Aabb* boxes, int n, const HashGrid& grid, uint32_t* off) {
  DeviceBuffer<float> cf(ctx, size_t(n));
  float* c = cf.data();
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Int3 lo = grid.cell(boxes[i].lo), hi = grid.cell(boxes[i].hi);
    float cells = float(hi.a - lo.a + 1) * float(hi.b - lo.b + 1) * float(hi.c - lo.c + 1);
    c[i] = cells;
    off[i] = cells > 1073741824.f ? (1u << 30) : uint32_t(cells);
  });
  return reduce_sum(ctx, c, size_t(n));
}

// The cells occupied by the first boxes, as a hashed bitmap (false positives
// only): build_cell_entries' filter for the other boxes.
struct CellBits {
  uint32_t* words;
  int shift;  // 64 - log2(bits)
  CB_HD CB_INLINE static uint64_t mix(uint64_t key) { return key * 0x9E3779B97F4A7C15ull; }
  CB_HD CB_INLINE uint32_t bit(uint64_t key) const { return uint32_t(mix(key) >> shift); }
  CB_HD CB_INLINE void set(uint64_t key) const {
    const uint32_t b = bit(key);
    atomic_or_u32(words + (b >> 5), 1u << (b & 31u));
  }
  CB_HD CB_INLINE bool test(uint64_t key) const {
    const uint32_t b = bit(key);
    return (words[b >> 5] >> (b & 31u)) & 1u;
  }
};

// calls f(key) for every cell of box b (x, then y, then z: the entries' order)
template <class F>
CB_HD CB_INLINE void for_cells(const HashGrid& grid, const Aabb& b, F&& f) {
  const Int3 lo = grid.cell(b.lo), hi = grid.cell(b.hi);
  for (int x = lo.a; x <= hi.a; ++x)
    for (int y = lo.b; y <= hi.b; ++y)
      for (int z = lo.c; z <= hi.c; ++z) f(HashGrid::key(x, y, z));
}

// Bits of the cells of boxes [0, nfirst) (8 bits or more per cell of all n
// boxes, `cells`: at most 1/8 of them set), then off[i] of every later box counts
// only its cells whose bit is set.
void filter_by_first(const Context& ctx, const Aabb* boxes, int n, int nfirst, size_t cells, const HashGrid& grid,
                     DeviceBuffer<uint32_t>& bits, CellBits* cb, uint32_t* off) {
  int log2 = 16;
  while (log2 < 31 && (size_t(1) << log2) < 8 * cells) ++log2;
  bits.resize(ctx, (size_t(1) << log2) / 32);
  bits.fill_zero();
  const CellBits b{bits.data(), 64 - log2};
  *cb = b;
  parallel_for(ctx, nfirst, [=] CB_HD(int i) { for_cells(grid, boxes[i], [&](uint64_t k) { b.set(k); }); });
  parallel_for(ctx, n - nfirst, [=] CB_HD(int j) {
    uint32_t m = 0;
    for_cells(grid, boxes[nfirst + j], [&](uint64_t k) { m += b.test(k) ? 1u : 0u; });
    off[nfirst + j] = m;
  });
}

}  // namespace

void build_cell_entries(const Context& ctx, const Aabb* boxes, int n, HashGrid& grid, CellEntries& out,
                        int nfirst) {
  // count the cells of each box (coarsening the grid while a few huge boxes would
  // flood it), then write (key, id) entries at the scanned offsets
  DeviceBuffer<uint32_t> offs(ctx, size_t(n));
  uint32_t* off = offs.data();
  const size_t budget = size_t(16) * size_t(n) + (size_t(1) << 20);
  double cells = 0;
  while ((cells = count_cells(ctx, boxes, n, grid, off)) > double(budget)) grid.inv_cell *= 0.5f;
  const bool filter = nfirst > 0 && nfirst < n;
  DeviceBuffer<uint32_t> bits;
  CellBits cb{nullptr, 0};
  if (filter) filter_by_first(ctx, boxes, n, nfirst, size_t(cells), grid, bits, &cb, off);
  size_t ne = exclusive_scan(ctx, off, off, size_t(n));
  out.count = ne;
  out.keys.resize(ctx, ne);
  out.ids.resize(ctx, ne);
  out.run_end.resize(ctx, ne);
  if (ne == 0) return;
  uint64_t* keys = out.keys.data();
  uint32_t* ids = out.ids.data();
  parallel_for(ctx, n, [=] CB_HD(int i) {
    uint32_t w = off[i];
    const bool all = !filter || i < nfirst;
    for_cells(grid, boxes[i], [&](uint64_t k) {
      if (!all && !cb.test(k)) return;
      keys[w] = k;
      ids[w] = uint32_t(i);
      ++w;
    });
  });
  sort_by_key(ctx, keys, ids, ne);
  // run ends: run starts by compaction, each entry's run by a scan of the start flags
  DeviceBuffer<uint32_t> flags(ctx, ne), scan(ctx, ne), starts(ctx, ne);
  uint32_t* f = flags.data();
  parallel_for(ctx, int(ne), [=] CB_HD(int k) { f[k] = (k == 0 || keys[k] != keys[k - 1]) ? 1u : 0u; });
  size_t nruns = compact_indices(ctx, f, starts.data(), ne);
  exclusive_scan(ctx, f, scan.data(), ne);
  const uint32_t* s = scan.data();
  const uint32_t* st = starts.data();
  uint32_t* end = out.run_end.data();
  uint32_t total = uint32_t(ne), runs = uint32_t(nruns);
  parallel_for(ctx, int(ne), [=] CB_HD(int k) {
    uint32_t run = s[k] + f[k] - 1;
    end[k] = run + 1 < runs ? st[run + 1] : total;
  });
}

}  // namespace box_pairs_detail

size_t find_overlapping_pairs(const Context& ctx, const Aabb* boxes, int n, float cell_size, DeviceBuffer<Int2>& out) {
  return find_box_pairs(ctx, boxes, n, cell_size, KeepAllPairs{}, out);
}

HashGrid make_hash_grid(const Context& ctx, const Aabb* boxes, int n, float cell_size) {
  Aabb bounds;
  float mean = 0.f;
  box_pairs_detail::box_stats(ctx, boxes, n, &bounds, &mean);
  Vec3f ext = bounds.extent();
  float big = ext.x > ext.y ? ext.x : ext.y;
  big = big > ext.z ? big : ext.z;
  float cell = cell_size > 0.f ? cell_size : mean;
  if (!(cell > big / 2000000.f)) cell = big / 2000000.f;  // stay within 21-bit coordinates
  if (!(cell > 0.f)) cell = 1.f;
  HashGrid g;
  g.origin = bounds.lo;
  g.inv_cell = 1.f / cell;
  return g;
}

}  // namespace cb
