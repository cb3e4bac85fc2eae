// Overlapping box pairs by spatial hashing with sorted cell keys (Pabst et al.,
// "Fast and Scalable CPU/GPU Collision Detection for Rigid and Deformable Surfaces",
// 2010; Tang et al., I-Cloth, 2018).
//
// Every box is entered in each grid cell it overlaps as a 64-bit key (the cell's
// integer coordinates, 21 bits per axis — no hash collisions); the entries are
// sorted by key; inside each run of equal keys every pair of entries whose boxes
// overlap is tested. A pair is reported only by the cell that holds the lower
// corner of the two boxes' intersection, so each pair comes out once. Counting and
// writing are two passes over the same loop (count, exclusive scan, write). When a
// few huge boxes would fill too many cells the grid is coarsened (cell doubled).
//
// Include only from .cu files (the template launches parallel_for). Use:
//   DeviceBuffer<Int2> pairs;
//   find_box_pairs(ctx, boxes, n, cell_size, [=] CB_HD (int i, int j) { return keep(i, j); }, pairs);
// `keep(i, j)` (i < j) filters pairs before they are written (adjacency, groups).
// Prefer a functor to a CB_HD lambda for keep: it is called once per overlapping
// pair, and on the host a lambda's call is indirect (parallel.h).
#pragma once

#include <cstdint>

#include "sim/collision/atomics.h"
#include "sim/core/algorithms.h"
#include "sim/core/math.h"
#include "sim/core/buffer.h"
#include "sim/core/collect.h"
#include "sim/core/parallel.h"

namespace cb {

/// Grid geometry shared by the passes: cell size (m) and origin (m).
struct HashGrid {
  Vec3f origin;
  float inv_cell = 1.f;
  CB_HD CB_INLINE int coord(float v, float o) const {
    float c = (v - o) * inv_cell;
    c = c < 0.f ? 0.f : (c > 2097150.f ? 2097150.f : c);
    return int(c);
  }
  CB_HD CB_INLINE Int3 cell(Vec3f p) const {
    return Int3{coord(p.x, origin.x), coord(p.y, origin.y), coord(p.z, origin.z)};
  }
  CB_HD CB_INLINE static uint64_t key(int x, int y, int z) {
    return (uint64_t(uint32_t(x)) << 42) | (uint64_t(uint32_t(y)) << 21) | uint64_t(uint32_t(z));
  }
};

namespace box_pairs_detail {

/// Bounds of all boxes and the mean largest extent (host values).
void box_stats(const Context& ctx, const Aabb* boxes, int n, Aabb* bounds, float* mean_extent);

/// Sorted (cell key, box id) entries and, per entry, the end of its run of equal keys.
struct CellEntries {
  DeviceBuffer<uint64_t> keys;
  DeviceBuffer<uint32_t> ids;
  DeviceBuffer<uint32_t> run_end;
  size_t count = 0;
};
/// Coarsens `grid` (doubling the cell) while the entries would exceed 16 n + 2^20.
/// With 0 < nfirst < n, the boxes from nfirst on are entered only in the cells
/// that some box before nfirst also occupies (up to a hashed bitmap's false
/// positives): for callers whose pairs need one of the first boxes. A cell's run
/// then holds all of its entries or none, so the runs that are left, their order
/// and the pairs found in them are those of the unfiltered entries.
void build_cell_entries(const Context& ctx, const Aabb* boxes, int n, HashGrid& grid, CellEntries& out,
                        int nfirst = 0);

/// One thread per entry k: its pairs with the later entries of its run, written
/// at `write` when non-null; returns their count. Functors rather than CB_HD
/// lambdas, for the CPU backend (parallel.h).
template <class Keep>
struct RunVisitor {
  const uint64_t* keys;
  const uint32_t* ids;
  const uint32_t* run_end;
  const Aabb* boxes;
  HashGrid grid;
  Keep keep;
  CB_HD uint32_t operator()(int k, Int2* write) const {
    uint32_t m = 0;
    const uint32_t bi = ids[k];
    const uint64_t key = keys[k];
    for (uint32_t l = uint32_t(k) + 1; l < run_end[k]; ++l) {
      const uint32_t bj = ids[l];
      const Aabb& A = boxes[bi];
      const Aabb& B = boxes[bj];
      if (!overlaps(A, B)) continue;
      const Int3 c = grid.cell(cmax(A.lo, B.lo));  // the reporting cell
      if (HashGrid::key(c.a, c.b, c.c) != key) continue;
      const int i = int(bi < bj ? bi : bj), j = int(bi < bj ? bj : bi);
      if (!keep(i, j)) continue;
      if (write) write[m] = Int2{i, j};
      ++m;
    }
    return m;
  }
};

/// keep(a, b) of a subset's boxes a < b: the caller's keep on their ids id[a] < id[b].
template <class Keep>
struct SubsetKeep {
  Keep keep;
  const uint32_t* id;
  CB_HD bool operator()(int a, int b) const { return keep(int(id[a]), int(id[b])); }
};

/// collect_in_order's room of entry k: the rest of its run (a RunVisitor emits its pairs).
struct RunRoom {
  const uint32_t* run_end;
  uint32_t operator()(int k) const { return run_end[k] - uint32_t(k); }
};

template <class Keep>
struct CountPairs {
  RunVisitor<Keep> visit;
  uint32_t* count;
  CB_HD void operator()(int k) const { count[k] = visit(k, nullptr); }
};

template <class Keep>
struct WritePairs {
  RunVisitor<Keep> visit;
  const uint32_t* offset;
  Int2* out;
  CB_HD void operator()(int k) const { visit(k, out + offset[k]); }
};

}  // namespace box_pairs_detail

/// The grid find_box_pairs uses: cell = max(cell_size, ...) over the boxes' bounds.
/// cell_size <= 0 picks the mean largest box extent.
HashGrid make_hash_grid(const Context& ctx, const Aabb* boxes, int n, float cell_size);

/// Writes every overlapping pair (i < j) of the n boxes (backend memory) with
/// keep(i, j) true to `out` (resized to the count), each pair once, in no
/// particular order. Returns the count. With 0 < nfirst < n, keep(i, j) must
/// reject every pair with i >= nfirst: those boxes then enter only the cells
/// the first ones occupy (build_cell_entries), the same pairs in the same order.
template <class Keep>
size_t find_box_pairs(const Context& ctx, const Aabb* boxes, int n, float cell_size, Keep keep,
                      DeviceBuffer<Int2>& out, int nfirst = 0) {
  if (n <= 1) {
    out.resize(ctx, 0);
    return 0;
  }
  HashGrid grid = make_hash_grid(ctx, boxes, n, cell_size);
  box_pairs_detail::CellEntries cells;
  box_pairs_detail::build_cell_entries(ctx, boxes, n, grid, cells, nfirst);
  const uint64_t* keys = cells.keys.data();
  const uint32_t* ids = cells.ids.data();
  const uint32_t* run_end = cells.run_end.data();
  const int ne = int(cells.count);
  const box_pairs_detail::RunVisitor<Keep> visit{keys, ids, run_end, boxes, grid, keep};
  if (!ctx.is_cuda())  // one pass (collect.h); entry k pairs with at most the rest of its run
    return collect_in_order(ctx, ne, box_pairs_detail::RunRoom{run_end}, visit, out);
  DeviceBuffer<uint32_t> counts(ctx, size_t(ne) + 1);
  uint32_t* cnt = counts.data();
  parallel_for(ctx, ne, box_pairs_detail::CountPairs<Keep>{visit, cnt});
  size_t total = exclusive_scan(ctx, cnt, cnt, size_t(ne));
  out.resize(ctx, total);
  if (total) parallel_for(ctx, ne, box_pairs_detail::WritePairs<Keep>{visit, cnt, out.data()});
  return total;
}

/// keep() of find_box_pairs that keeps every pair.
struct KeepAllPairs {
  CB_HD bool operator()(int, int) const { return true; }
};

/// Non-template entry (callable from host-only code): every overlapping pair,
/// no filter. Returns the count.
size_t find_overlapping_pairs(const Context& ctx, const Aabb* boxes, int n, float cell_size, DeviceBuffer<Int2>& out);

/// find_box_pairs for pairs that involve one of the first `nfirst` boxes at least
/// (keep(i, j) rejects every pair with i >= nfirst: e.g. cloth triangles first,
/// then obstacle triangles, whose pairs among themselves do not count). The other
/// boxes enter only the hash cells that a first box occupies: a few large
/// obstacle triangles otherwise fill it with cells no cloth is in (the 200k
/// funnel's 320 funnel triangles made 2.8 M of the CCD's 3.8 M entries). When the
/// other boxes outnumber the first ones, those that miss the bounds of all the
/// first boxes (they can be in no pair) do not even count their cells (a body
/// under a small garment). The same pairs, with the same ids, as
/// find_box_pairs(ctx, boxes, n, 0, keep).
template <class Keep>
size_t find_box_pairs_with_first(const Context& ctx, const Aabb* boxes, int n, int nfirst, Keep keep,
                                 DeviceBuffer<Int2>& out) {
  if (n - nfirst <= nfirst || nfirst <= 0) return find_box_pairs(ctx, boxes, n, 0.f, keep, out, nfirst);
  Aabb first_bounds;
  float mean_extent = 0.f;
  box_pairs_detail::box_stats(ctx, boxes, nfirst, &first_bounds, &mean_extent);
  DeviceBuffer<uint32_t> flags(ctx, size_t(n)), idx(ctx, size_t(n));
  uint32_t* f = flags.data();
  parallel_for(ctx, n, [=] CB_HD(int i) { f[i] = i < nfirst || overlaps(boxes[i], first_bounds) ? 1u : 0u; });
  const int m = int(compact_indices(ctx, flags.data(), idx.data(), size_t(n)));  // increasing ids
  DeviceBuffer<Aabb> sub(ctx, size_t(m));
  const uint32_t* id = idx.data();
  Aabb* sb = sub.data();
  parallel_for(ctx, m, [=] CB_HD(int k) { sb[k] = boxes[id[k]]; });
  // a < b gives id[a] < id[b]: the pairs keep their order
  const size_t np = find_box_pairs(ctx, sub.data(), m, 0.f, box_pairs_detail::SubsetKeep<Keep>{keep, id}, out, nfirst);
  Int2* o = out.data();
  parallel_for(ctx, int(np), [=] CB_HD(int k) { o[k] = Int2{int(id[o[k].a]), int(id[o[k].b])}; });
  return np;
}

}  // namespace cb
