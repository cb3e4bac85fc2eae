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

// A box's cells are numbered x, then y, then z fastest (the entries' order).
// Large boxes (an obstacle's triangles can cover thousands of cells) are cut into
// chunks of kChunkCells cells, one thread per chunk, so that no thread walks a
// whole large box while the rest of the GPU waits on it.
constexpr uint32_t kChunkCells = 64;

// calls f(key) for the cells [t0, t1) of box b
template <class F>
CB_HD CB_INLINE void for_cells(const HashGrid& grid, const Aabb& b, uint32_t t0, uint32_t t1, F&& f) {
  const Int3 lo = grid.cell(b.lo), hi = grid.cell(b.hi);
  const uint32_t ny = uint32_t(hi.b - lo.b + 1), nz = uint32_t(hi.c - lo.c + 1);
  uint32_t z = t0 % nz, y = (t0 / nz) % ny, x = t0 / (nz * ny);
  for (uint32_t t = t0; t < t1; ++t) {
    f(HashGrid::key(lo.a + int(x), lo.b + int(y), lo.c + int(z)));
    if (++z == nz) {
      z = 0;
      if (++y == ny) y = 0, ++x;
    }
  }
}

// The chunks of all boxes: chunk c covers the cells [first, end) of box `box`.
struct Chunks {
  DeviceBuffer<uint32_t> box, first;
  size_t count = 0;
};

Chunks make_chunks(const Context& ctx, const uint32_t* cells, int n) {
  DeviceBuffer<uint32_t> start(ctx, size_t(n));
  uint32_t* st = start.data();
  parallel_for(ctx, n, [=] CB_HD(int i) { st[i] = (cells[i] + kChunkCells - 1) / kChunkCells; });
  Chunks ch;
  ch.count = exclusive_scan(ctx, st, st, size_t(n));
  ch.box.resize(ctx, ch.count);
  ch.first.resize(ctx, ch.count);
  uint32_t* box = ch.box.data();
  uint32_t* first = ch.first.data();
  parallel_for(ctx, n, [=] CB_HD(int i) {
    for (uint32_t t = 0, c = st[i]; t < cells[i]; t += kChunkCells, ++c) box[c] = uint32_t(i), first[c] = t;
  });
  return ch;
}

// The cells occupied by the first boxes, as a hashed bitmap (false positives
// only): build_cell_entries' filter for the other boxes.
struct CellBits {
  const uint32_t* words = nullptr;
  int shift = 0;  // 64 - log2(bits)
  CB_HD CB_INLINE static uint64_t mix(uint64_t key) { return key * 0x9E3779B97F4A7C15ull; }
  CB_HD CB_INLINE uint32_t bit(uint64_t key) const { return uint32_t(mix(key) >> shift); }
  CB_HD CB_INLINE bool test(uint64_t key) const {
    const uint32_t b = bit(key);
    return (words[b >> 5] >> (b & 31u)) & 1u;
  }
};

// Bits of the cells of boxes [0, nfirst), 8 bits or more per cell of all boxes
// (`cells`: at most 1/8 of them set).
CellBits first_cells(const Context& ctx, const Aabb* boxes, const uint32_t* cells_of, int nfirst, size_t cells,
                     const HashGrid& grid, DeviceBuffer<uint32_t>& bits) {
  int log2 = 16;
  while (log2 < 31 && (size_t(1) << log2) < 8 * cells) ++log2;
  bits.resize(ctx, (size_t(1) << log2) / 32);
  bits.fill_zero();
  uint32_t* w = bits.data();
  const CellBits b{w, 64 - log2};
  parallel_for(ctx, nfirst, [=] CB_HD(int i) {  // the first boxes are cloth triangles: a few cells each
    for_cells(grid, boxes[i], 0, cells_of[i], [&](uint64_t key) {
      const uint32_t k = b.bit(key);
      atomic_or_u32(w + (k >> 5), 1u << (k & 31u));
    });
  });
  return b;
}

// Visits the cells of chunk c that get an entry: all of them, or with the
// filter on and a box from nfirst on, those whose bit is set.
struct ChunkCells {
  const Aabb* boxes;
  const uint32_t* cells;
  const uint32_t* box;
  const uint32_t* first;
  HashGrid grid;
  CellBits bits;  // words null: no filter
  int nfirst;
  template <class F>
  CB_HD CB_INLINE void operator()(int c, F&& f) const {
    const uint32_t i = box[c], t0 = first[c];
    const uint32_t t1 = t0 + kChunkCells < cells[i] ? t0 + kChunkCells : cells[i];
    const bool all = bits.words == nullptr || int(i) < nfirst;
    for_cells(grid, boxes[i], t0, t1, [&](uint64_t k) {
      if (all || bits.test(k)) f(i, k);
    });
  }
};

}  // namespace

void build_cell_entries(const Context& ctx, const Aabb* boxes, int n, HashGrid& grid, CellEntries& out,
                        int nfirst) {
  // count the cells of each box (coarsening the grid while a few huge boxes would
  // flood it), cut the boxes into chunks, count each chunk's entries and write
  // (key, id) entries at the scanned offsets
  DeviceBuffer<uint32_t> cell_count(ctx, size_t(n));
  uint32_t* cells_of = cell_count.data();
  const size_t budget = size_t(16) * size_t(n) + (size_t(1) << 20);
  double cells = 0;
  while ((cells = count_cells(ctx, boxes, n, grid, cells_of)) > double(budget)) grid.inv_cell *= 0.5f;
  const Chunks ch = make_chunks(ctx, cells_of, n);
  DeviceBuffer<uint32_t> bits;
  CellBits cb;
  if (nfirst > 0 && nfirst < n) cb = first_cells(ctx, boxes, cells_of, nfirst, size_t(cells), grid, bits);
  const ChunkCells visit{boxes, cells_of, ch.box.data(), ch.first.data(), grid, cb, nfirst};
  DeviceBuffer<uint32_t> offs(ctx, ch.count);
  uint32_t* off = offs.data();
  parallel_for(ctx, int(ch.count), [=] CB_HD(int c) {
    uint32_t m = 0;
    visit(c, [&](uint32_t, uint64_t) { ++m; });
    off[c] = m;
  });
  size_t ne = exclusive_scan(ctx, off, off, ch.count);
  out.count = ne;
  out.keys.resize(ctx, ne);
  out.ids.resize(ctx, ne);
  out.run_end.resize(ctx, ne);
  if (ne == 0) return;
  uint64_t* keys = out.keys.data();
  uint32_t* ids = out.ids.data();
  parallel_for(ctx, int(ch.count), [=] CB_HD(int c) {
    uint32_t w = off[c];
    visit(c, [&](uint32_t i, uint64_t k) {
      keys[w] = k;
      ids[w] = i;
      ++w;
    });
  });
  sort_by_key(ctx, keys, ids, ne);
  // run ends: run starts by compaction, each entry's run by a scan of the start flags
  DeviceBuffer<uint32_t> flags(ctx, ne), scan(ctx, ne), starts(ctx, ne);
  uint32_t* f = flags.data();
  parallel_for(ctx, int(ne), [=] CB_HD(int k) { f[k] = (k == 0 || keys[k] != keys[k - 1]) ? 1u : 0u; });
  size_t nruns = compact_indices(ctx, f, starts.data(), ne);
  exclusive_scan_no_total(ctx, f, scan.data(), ne);
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
