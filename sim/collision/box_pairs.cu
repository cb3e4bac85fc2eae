// Cell entries for find_box_pairs (box_pairs.h): grid choice, (cell key, box)
// entries sorted by key, and the end of each entry's run of equal keys.
#include "sim/collision/box_pairs.h"

namespace cb {
namespace box_pairs_detail {

void box_stats(const Context& ctx, const Aabb* boxes, int n, Aabb* bounds, float* mean_extent) {
  DeviceBuffer<float> comp(ctx, size_t(7) * n);
  float* c = comp.data();
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Aabb b = boxes[i];
    Vec3f e = b.extent();
    c[i] = b.lo.x;
    c[n + i] = b.lo.y;
    c[2 * n + i] = b.lo.z;
    c[3 * n + i] = b.hi.x;
    c[4 * n + i] = b.hi.y;
    c[5 * n + i] = b.hi.z;
    float m = e.x > e.y ? e.x : e.y;
    c[6 * n + i] = m > e.z ? m : e.z;
  });
  bounds->lo = Vec3f(reduce_min(ctx, c, n), reduce_min(ctx, c + n, n), reduce_min(ctx, c + 2 * n, n));
  bounds->hi = Vec3f(reduce_max(ctx, c + 3 * n, n), reduce_max(ctx, c + 4 * n, n), reduce_max(ctx, c + 5 * n, n));
  *mean_extent = float(reduce_sum(ctx, c + 6 * n, n) / double(n));
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

}  // namespace

void build_cell_entries(const Context& ctx, const Aabb* boxes, int n, HashGrid& grid, CellEntries& out) {
  // count the cells of each box (coarsening the grid while a few huge boxes would
  // flood it), then write (key, id) entries at the scanned offsets
  DeviceBuffer<uint32_t> offs(ctx, size_t(n));
  uint32_t* off = offs.data();
  const size_t budget = size_t(16) * size_t(n) + (size_t(1) << 20);
  while (count_cells(ctx, boxes, n, grid, off) > double(budget)) grid.inv_cell *= 0.5f;
  size_t ne = exclusive_scan(ctx, off, off, size_t(n));
  out.count = ne;
  out.keys.resize(ctx, ne);
  out.ids.resize(ctx, ne);
  out.run_end.resize(ctx, ne);
  if (ne == 0) return;
  uint64_t* keys = out.keys.data();
  uint32_t* ids = out.ids.data();
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Int3 lo = grid.cell(boxes[i].lo), hi = grid.cell(boxes[i].hi);
    uint32_t w = off[i];
    for (int x = lo.a; x <= hi.a; ++x)
      for (int y = lo.b; y <= hi.b; ++y)
        for (int z = lo.c; z <= hi.c; ++z) {
          keys[w] = HashGrid::key(x, y, z);
          ids[w] = uint32_t(i);
          ++w;
        }
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
